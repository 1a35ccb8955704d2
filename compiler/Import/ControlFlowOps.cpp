//===- ControlFlowOps.cpp - ONNX If, Loop, Scan -> inlined and unrolled bodies --===//
//
// Shapes are static, so control flow disappears at import time:
// - If: a constant condition inlines its branch; otherwise both branches
//   are inlined and each output is a select on the condition.
// - Loop: unrolled. With a constant trip count and a condition that stays
//   constant true, exactly; otherwise up to the iteration count the model
//   declares for its scan outputs, each step guarded at run time: once the
//   trip count is reached or the condition turns false, loop-carried values
//   stop changing (scan outputs past that point are a static upper bound,
//   like every data-dependent size here).
// - Scan: unrolled over its static sequence length (opset 8: per batch row).
//
//===----------------------------------------------------------------------===//
#include "compiler/Import/NodeContext.h"

using namespace mlir;
using namespace mlir::tract;
namespace onnx = ::tract::onnx;

namespace {

HostTensor scalarTensor(int32_t type, int64_t v) {
  HostTensor t;
  t.dataType = type;
  if (type == onnx::kBool) {
    t.bytes.assign(1, v ? 1 : 0);
  } else {
    t.bytes.assign(reinterpret_cast<const char *>(&v), 8);
  }
  return t;
}

GraphValue constant(HostTensor t) { return {Value(), std::make_shared<const HostTensor>(t), nullptr}; }

std::optional<bool> constBool(const GraphValue &v) {
  if (!v.constant || v.constant->numElements() != 1 || v.constant->bytes.empty())
    return std::nullopt;
  return v.constant->bytes[0] != 0 ||
         (v.constant->bytes.size() > 1 &&
          std::any_of(v.constant->bytes.begin(), v.constant->bytes.end(), [](char b) { return b; }));
}

LogicalResult convertIf(NodeContext &c) {
  const onnx::Graph *thenG = c.attrGraph("then_branch"), *elseG = c.attrGraph("else_branch");
  if (!thenG || !elseG)
    return c.fail("expected then_branch and else_branch subgraphs");
  GraphValue cond = c.inputValue(0);
  if (auto v = constBool(cond)) {
    auto outs = c.inlineGraph(*v ? *thenG : *elseG, {});
    if (failed(outs))
      return failure();
    if (outs->size() != c.numOutputs())
      return c.fail("expected the branch to produce every output");
    for (size_t i = 0; i < outs->size(); ++i)
      c.setOutputValue(i, (*outs)[i]);
    return success();
  }
  auto thenOuts = c.inlineGraph(*thenG, {});
  if (failed(thenOuts))
    return failure();
  auto elseOuts = c.inlineGraph(*elseG, {});
  if (failed(elseOuts))
    return failure();
  if (thenOuts->size() != c.numOutputs() || elseOuts->size() != c.numOutputs())
    return c.fail("expected both branches to produce every output");
  Value condition = c.reshape(c.input(0), {});
  for (size_t i = 0; i < c.numOutputs(); ++i) {
    GraphValue &t = (*thenOuts)[i], &e = (*elseOuts)[i];
    if (t.sequence || e.sequence)
      return c.unsupported("If with a run-time condition and sequence outputs");
    Value tv = c.materialize(t), ev = c.materialize(e);
    if (tv.getType() != ev.getType())
      return c.unsupported("If branches with different output types under a run-time condition");
    if (failed(c.bind(c.make<SelectOp>(condition, tv, ev), i)))
      return failure();
  }
  return success();
}

// Stacks per-step tensors along a new axis 0 (empty: unsupported).
FailureOr<Value> stack(NodeContext &c, ArrayRef<Value> steps) {
  if (steps.empty()) {
    (void)c.unsupported("a scan output of zero iterations");
    return failure();
  }
  SmallVector<Value> parts;
  for (Value v : steps) {
    SmallVector<int64_t> shape(cast<RankedTensorType>(v.getType()).getShape());
    shape.insert(shape.begin(), 1);
    parts.push_back(c.reshape(v, shape));
  }
  if (parts.size() == 1)
    return parts[0];
  return c.make<ConcatOp>(parts, 0);
}

LogicalResult convertLoop(NodeContext &c) {
  const onnx::Graph *body = c.attrGraph("body");
  if (!body)
    return c.fail("expected a body subgraph");
  size_t carried = c.numInputs() >= 2 ? c.numInputs() - 2 : 0;
  if (body->inputs.size() != carried + 2 || body->outputs.size() < carried + 1)
    return c.fail("expected a body with (iteration, cond, carried...) inputs");
  size_t scans = body->outputs.size() - 1 - carried;
  if (c.numOutputs() > carried + scans)
    return c.fail("expected at most " + std::to_string(carried + scans) + " outputs");

  GraphValue tripCount = c.inputValue(0), condIn = c.inputValue(1);
  std::optional<int64_t> trips;
  if (!c.hasInput(0))
    trips = INT64_MAX;
  else if (auto t = c.constInts(0); t && t->size() == 1)
    trips = (*t)[0];
  std::optional<bool> cond0 = c.hasInput(1) ? constBool(condIn) : std::optional<bool>(true);
  // The static iteration count.
  int64_t iterations = -1;
  if (trips && *trips != INT64_MAX && cond0)
    iterations = *cond0 ? *trips : 0;
  for (size_t k = 0; k < scans && iterations < 0; ++k)
    if (RankedTensorType d = c.declaredOutputType(carried + k); d && d.getRank() >= 1)
      iterations = d.getDimSize(0);
  if (iterations < 0 || iterations > 4096)
    return c.unsupported("a Loop whose iteration count is neither constant nor declared (<= 4096)");

  Type i64 = c.builder().getI64Type(), i1 = c.builder().getI1Type();
  SmallVector<GraphValue> state;
  for (size_t k = 0; k < carried; ++k)
    state.push_back(c.inputValue(2 + k));
  SmallVector<SmallVector<Value>> scanSteps(scans);
  // `active` is null while every step so far is known to run.
  Value active;
  GraphValue cond = cond0 ? constant(scalarTensor(onnx::kBool, *cond0)) : condIn;
  if (!cond0)
    active = c.reshape(c.input(1), {});
  for (int64_t i = 0; i < iterations; ++i) {
    if (!trips) {
      // i < trip_count, read at run time.
      FailureOr<Value> inRange = c.make<LessOp>(c.constantI64({i}, {}),
                                                c.reshape(c.cast(c.input(0), i64), {}));
      if (failed(inRange))
        return failure();
      FailureOr<Value> both = active ? c.make<AndOp>(active, *inRange) : inRange;
      if (failed(both))
        return failure();
      active = *both;
    }
    SmallVector<GraphValue> args{constant(scalarTensor(onnx::kInt64, i)),
                                 active ? GraphValue{active, nullptr, nullptr} : cond};
    llvm::append_range(args, state);
    auto outs = c.inlineGraph(*body, args);
    if (failed(outs))
      return failure();
    std::optional<bool> next = constBool((*outs)[0]);
    if (next && !*next && !active) {
      // A constant false condition ends the loop after this step.
      for (size_t k = 0; k < carried; ++k)
        state[k] = (*outs)[1 + k];
      for (size_t k = 0; k < scans; ++k)
        scanSteps[k].push_back(c.materialize((*outs)[1 + carried + k]));
      iterations = i + 1;
      break;
    }
    for (size_t k = 0; k < carried; ++k) {
      GraphValue &updated = (*outs)[1 + k];
      if (updated.sequence || state[k].sequence)
        return c.unsupported("a Loop carrying a sequence");
      if (active) {
        Value nv = c.materialize(updated), ov = c.materialize(state[k]);
        if (nv.getType() != ov.getType())
          return c.unsupported("a Loop-carried value that changes type");
        FailureOr<Value> kept = c.make<SelectOp>(active, nv, ov);
        if (failed(kept))
          return failure();
        state[k] = {*kept, nullptr, nullptr};
      } else {
        state[k] = updated;
      }
    }
    for (size_t k = 0; k < scans; ++k) {
      GraphValue &s = (*outs)[1 + carried + k];
      if (s.sequence)
        return c.unsupported("a Loop scan output of sequences");
      scanSteps[k].push_back(c.materialize(s));
    }
    // The condition for the next step.
    if (!(next && *next)) {
      Value condOut = c.reshape(c.cast(c.materialize((*outs)[0]), i1), {});
      FailureOr<Value> both = active ? c.make<AndOp>(active, condOut) : condOut;
      if (failed(both))
        return failure();
      active = *both;
    }
  }
  for (size_t k = 0; k < carried && k < c.numOutputs(); ++k)
    c.setOutputValue(k, state[k]);
  for (size_t k = 0; k < scans && carried + k < c.numOutputs(); ++k)
    if (failed(c.bind(stack(c, scanSteps[k]), carried + k)))
      return failure();
  return success();
}

// Scan-8: inputs (sequence_lens, states..., scans...), every tensor with a
// leading batch dim and scan inputs scanned along dim 1. Each batch row runs
// the body like Scan-9; results are stacked back along the batch dim.
LogicalResult convertScan8(NodeContext &c) {
  const onnx::Graph *body = c.attrGraph("body");
  if (!body)
    return c.fail("expected a body subgraph");
  if (c.hasInput(0))
    return c.unsupported("Scan-8 with sequence_lens");
  int64_t m = c.attrInt("num_scan_inputs", 0);
  int64_t n = (int64_t)c.numInputs() - 1 - m;
  if (m < 1 || n < 0 || (int64_t)body->inputs.size() != n + m || (int64_t)body->outputs.size() < n)
    return c.fail("expected num_scan_inputs scan inputs after the states, matching the body");
  int64_t k = (int64_t)body->outputs.size() - n;
  SmallVector<int64_t> dirs = c.attrInts("directions", SmallVector<int64_t>(m, 0));
  if ((int64_t)dirs.size() != m)
    return c.fail("expected one direction per scan input");
  int64_t batch = -1, length = -1;
  for (int64_t j = 1; j < (int64_t)c.numInputs(); ++j) {
    auto t = c.inputType(j);
    bool scan = j > n;
    if (t.getRank() < (scan ? 2 : 1) || (batch >= 0 && t.getDimSize(0) != batch))
      return c.fail("expected every input to share the leading batch dim");
    batch = t.getDimSize(0);
    if (scan) {
      if (length >= 0 && t.getDimSize(1) != length)
        return c.fail("expected scan inputs of one sequence length");
      length = t.getDimSize(1);
    }
  }
  if (batch < 1 || length < 1 || batch * length > 4096)
    return c.unsupported("a Scan over an empty or very long sequence");
  auto row = [&](size_t input, int64_t b, int64_t dimToDrop, int64_t at) -> Value {
    auto t = c.inputType(input);
    SmallVector<int64_t> starts(t.getRank(), 0), limits(t.getShape()), steps(t.getRank(), 1);
    starts[0] = b;
    limits[0] = b + 1;
    if (dimToDrop == 1) {
      starts[1] = at;
      limits[1] = at + 1;
    }
    Value s = *c.make<SliceOp>(c.input(input), starts, limits, steps);
    SmallVector<int64_t> shape(t.getShape().drop_front(dimToDrop == 1 ? 2 : 1));
    return c.reshape(s, shape);
  };
  SmallVector<SmallVector<Value>> finalStates(n), scanOuts(k);
  for (int64_t b = 0; b < batch; ++b) {
    SmallVector<GraphValue> state;
    for (int64_t j = 0; j < n; ++j)
      state.push_back({row(1 + j, b, 0, 0), nullptr, nullptr});
    SmallVector<SmallVector<Value>> steps(k);
    for (int64_t t = 0; t < length; ++t) {
      SmallVector<GraphValue> args(state);
      for (int64_t j = 0; j < m; ++j)
        args.push_back({row(1 + n + j, b, 1, dirs[j] ? length - 1 - t : t), nullptr, nullptr});
      auto results = c.inlineGraph(*body, args);
      if (failed(results))
        return failure();
      for (int64_t j = 0; j < n; ++j)
        state[j] = (*results)[j];
      for (int64_t j = 0; j < k; ++j)
        steps[j].push_back(c.materialize((*results)[n + j]));
    }
    for (int64_t j = 0; j < n; ++j)
      finalStates[j].push_back(c.materialize(state[j]));
    for (int64_t j = 0; j < k; ++j) {
      FailureOr<Value> s = stack(c, steps[j]);
      if (failed(s))
        return failure();
      scanOuts[j].push_back(*s);
    }
  }
  for (int64_t j = 0; j < n && j < (int64_t)c.numOutputs(); ++j)
    if (failed(c.bind(stack(c, finalStates[j]), j)))
      return failure();
  for (int64_t j = 0; j < k && n + j < (int64_t)c.numOutputs(); ++j)
    if (failed(c.bind(stack(c, scanOuts[j]), n + j)))
      return failure();
  return success();
}

LogicalResult convertScan(NodeContext &c) {
  const onnx::Graph *body = c.attrGraph("body");
  if (!body)
    return c.fail("expected a body subgraph");
  int64_t m = c.attrInt("num_scan_inputs", 0);
  int64_t n = (int64_t)c.numInputs() - m;
  if (m < 1 || n < 0 || (int64_t)body->inputs.size() != n + m ||
      (int64_t)body->outputs.size() < n)
    return c.fail("expected num_scan_inputs scan inputs after the states, matching the body");
  int64_t k = (int64_t)body->outputs.size() - n;
  SmallVector<int64_t> inAxes = c.attrInts("scan_input_axes", SmallVector<int64_t>(m, 0));
  SmallVector<int64_t> inDirs = c.attrInts("scan_input_directions", SmallVector<int64_t>(m, 0));
  SmallVector<int64_t> outAxes = c.attrInts("scan_output_axes", SmallVector<int64_t>(k, 0));
  SmallVector<int64_t> outDirs = c.attrInts("scan_output_directions", SmallVector<int64_t>(k, 0));
  if ((int64_t)inAxes.size() != m || (int64_t)inDirs.size() != m || (int64_t)outAxes.size() != k ||
      (int64_t)outDirs.size() != k)
    return c.fail("expected one axis and direction per scan input and output");
  int64_t length = -1;
  for (int64_t j = 0; j < m; ++j) {
    auto t = c.inputType(n + j);
    auto axis = normalizeAxis(inAxes[j], t.getRank());
    if (failed(axis))
      return c.fail("expected scan input axes in range");
    inAxes[j] = *axis;
    if (length >= 0 && t.getDimSize(*axis) != length)
      return c.fail("expected scan inputs of one sequence length");
    length = t.getDimSize(*axis);
  }
  if (length < 1 || length > 4096)
    return c.unsupported("a Scan over an empty or very long (> 4096) sequence");
  SmallVector<GraphValue> state;
  for (int64_t j = 0; j < n; ++j)
    state.push_back(c.inputValue(j));
  SmallVector<SmallVector<Value>> outs(k);
  for (int64_t step = 0; step < length; ++step) {
    SmallVector<GraphValue> args(state);
    for (int64_t j = 0; j < m; ++j) {
      auto t = c.inputType(n + j);
      int64_t at = inDirs[j] ? length - 1 - step : step;
      SmallVector<int64_t> starts(t.getRank(), 0), limits(t.getShape()), steps(t.getRank(), 1);
      starts[inAxes[j]] = at;
      limits[inAxes[j]] = at + 1;
      FailureOr<Value> slice = c.make<SliceOp>(c.input(n + j), starts, limits, steps);
      if (failed(slice))
        return failure();
      SmallVector<int64_t> shape(t.getShape());
      shape.erase(shape.begin() + inAxes[j]);
      args.push_back({c.reshape(*slice, shape), nullptr, nullptr});
    }
    auto results = c.inlineGraph(*body, args);
    if (failed(results))
      return failure();
    for (int64_t j = 0; j < n; ++j)
      state[j] = (*results)[j];
    for (int64_t j = 0; j < k; ++j)
      outs[j].push_back(c.materialize((*results)[n + j]));
  }
  for (int64_t j = 0; j < n && j < (int64_t)c.numOutputs(); ++j)
    c.setOutputValue(j, state[j]);
  for (int64_t j = 0; j < k && n + j < (int64_t)c.numOutputs(); ++j) {
    SmallVector<Value> steps = outs[j];
    if (outDirs[j])
      std::reverse(steps.begin(), steps.end());
    FailureOr<Value> stacked = stack(c, steps);
    if (failed(stacked))
      return failure();
    Value v = *stacked;
    auto rank = cast<RankedTensorType>(v.getType()).getRank();
    auto axis = normalizeAxis(outAxes[j], rank);
    if (failed(axis))
      return c.fail("expected scan output axes in range");
    if (*axis != 0) {
      SmallVector<int64_t> perm;
      for (int64_t d = 1; d <= *axis; ++d)
        perm.push_back(d);
      perm.push_back(0);
      for (int64_t d = *axis + 1; d < rank; ++d)
        perm.push_back(d);
      FailureOr<Value> t = c.make<TransposeOp>(v, perm);
      if (failed(t))
        return failure();
      v = *t;
    }
    c.setOutput(n + j, v);
  }
  return success();
}

} // namespace

void mlir::tract::registerControlFlowConverters(ConverterTable &t) {
  t.add("If", 1, convertIf);
  t.add("Loop", 1, convertLoop, 0);
  t.add("Scan", 8, convertScan8, 0);
  t.add("Scan", 9, convertScan, 0);
}
