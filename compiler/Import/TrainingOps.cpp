//===- TrainingOps.cpp - ONNX training-domain optimizers -> tract ----------------===//
//
// ai.onnx.preview.training Adagrad, Momentum and Adam: one update step of n
// tensors, written with the formulas of the ONNX spec. T (the step count) is
// usually a run-time input, so its conditions become selects.
//
//===----------------------------------------------------------------------===//
#include "compiler/Import/NodeContext.h"

using namespace mlir;
using namespace mlir::tract;

namespace {

struct Update {
  NodeContext &c;
  Type element;
  Value scalar(double v) { return c.constantScalar(element, v); }
  Value add(Value a, Value b) { return *c.make<AddOp>(a, b); }
  Value sub(Value a, Value b) { return *c.make<SubOp>(a, b); }
  Value mul(Value a, Value b) { return *c.make<MulOp>(a, b); }
  Value div(Value a, Value b) { return *c.make<DivOp>(a, b); }
  Value sqrt(Value a) { return c.builder().create<SqrtOp>(c.loc, a); }
  // The learning rate R and step count T as scalars of the tensors' type.
  std::pair<Value, Value> rateAndStep() {
    return {c.reshape(c.cast(c.input(0), element), {}), c.reshape(c.cast(c.input(1), element), {})};
  }
  // norm_coefficient * X + G
  Value regularized(Value x, Value g, float norm) {
    return norm == 0.0f ? g : add(mul(scalar(norm), x), g);
  }
};

// Checks n groups of same-shaped float tensors after R and T; returns n.
FailureOr<int64_t> groups(NodeContext &c, int64_t perTensor) {
  int64_t rest = (int64_t)c.numInputs() - 2;
  if (rest < perTensor || rest % perTensor != 0 || (int64_t)c.numOutputs() * perTensor !=
                                                        rest * (perTensor - 1)) {
    (void)c.fail("expected R, T, then " + std::to_string(perTensor) + " groups of tensors");
    return failure();
  }
  int64_t n = rest / perTensor;
  for (int64_t i = 0; i < rest; ++i)
    if (!c.hasInput(2 + i) || c.inputType(2 + i) != c.inputType(2 + i % n) ||
        !isa<FloatType>(c.inputType(2 + i).getElementType())) {
      (void)c.fail("expected the tensors of each group to share one float type and shape");
      return failure();
    }
  if (c.inputType(0).getNumElements() != 1 || c.inputType(1).getNumElements() != 1) {
    (void)c.fail("expected scalar R and T");
    return failure();
  }
  return n;
}

LogicalResult convertAdagrad(NodeContext &c) {
  auto n = groups(c, 3);
  if (failed(n))
    return failure();
  Update u{c, c.inputType(2).getElementType()};
  auto [R, T] = u.rateAndStep();
  float decay = c.attrFloat("decay_factor", 0), eps = c.attrFloat("epsilon", 0),
        norm = c.attrFloat("norm_coefficient", 0);
  Value r = u.div(R, u.add(u.scalar(1), u.mul(T, u.scalar(decay))));
  for (int64_t i = 0; i < *n; ++i) {
    Value x = c.input(2 + i), g = c.input(2 + *n + i), h = c.input(2 + 2 * *n + i);
    Value gr = u.regularized(x, g, norm);
    Value hNew = u.add(h, u.mul(gr, gr));
    Value adaptive = u.add(u.sqrt(hNew), u.scalar(eps));
    c.setOutput(i, u.sub(x, u.div(u.mul(r, gr), adaptive)));
    c.setOutput(*n + i, hNew);
  }
  return success();
}

LogicalResult convertMomentum(NodeContext &c) {
  auto n = groups(c, 3);
  if (failed(n))
    return failure();
  Update u{c, c.inputType(2).getElementType()};
  auto [R, T] = u.rateAndStep();
  float alpha = c.attrFloat("alpha", 0), beta = c.attrFloat("beta", 0),
        norm = c.attrFloat("norm_coefficient", 0);
  std::string mode = c.attrString("mode", "standard");
  if (mode != "standard" && mode != "nesterov")
    return c.fail("expected mode standard or nesterov, got '" + mode + "'");
  // beta applies from the second step on (T > 0); the first uses 1.
  Value betaAdjusted = *c.make<SelectOp>(*c.make<GreaterOp>(T, u.scalar(0)), u.scalar(beta),
                                         u.scalar(1));
  for (int64_t i = 0; i < *n; ++i) {
    Value x = c.input(2 + i), g = c.input(2 + *n + i), v = c.input(2 + 2 * *n + i);
    Value gr = u.regularized(x, g, norm);
    Value vNew = u.add(u.mul(u.scalar(alpha), v), u.mul(betaAdjusted, gr));
    Value step = mode == "standard" ? vNew : u.add(gr, u.mul(u.scalar(alpha), vNew));
    c.setOutput(i, u.sub(x, u.mul(R, step)));
    c.setOutput(*n + i, vNew);
  }
  return success();
}

LogicalResult convertAdam(NodeContext &c) {
  auto n = groups(c, 4);
  if (failed(n))
    return failure();
  Update u{c, c.inputType(2).getElementType()};
  auto [R, T] = u.rateAndStep();
  float alpha = c.attrFloat("alpha", 0.9f), beta = c.attrFloat("beta", 0.999f),
        eps = c.attrFloat("epsilon", 1e-6f), norm = c.attrFloat("norm_coefficient", 0),
        post = c.attrFloat("norm_coefficient_post", 0);
  // R_adjusted = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R
  Value corrected = u.div(u.mul(R, u.sqrt(u.sub(u.scalar(1), *c.make<PowOp>(u.scalar(beta), T)))),
                          u.sub(u.scalar(1), *c.make<PowOp>(u.scalar(alpha), T)));
  Value rAdjusted = *c.make<SelectOp>(*c.make<GreaterOp>(T, u.scalar(0)), corrected, R);
  for (int64_t i = 0; i < *n; ++i) {
    Value x = c.input(2 + i), g = c.input(2 + *n + i), v = c.input(2 + 2 * *n + i),
          h = c.input(2 + 3 * *n + i);
    Value gr = u.regularized(x, g, norm);
    Value vNew = u.add(u.mul(u.scalar(alpha), v), u.mul(u.scalar(1 - alpha), gr));
    Value hNew = u.add(u.mul(u.scalar(beta), h), u.mul(u.scalar(1 - beta), u.mul(gr, gr)));
    Value hSqrt = u.add(u.sqrt(hNew), u.scalar(eps));
    Value xNew = u.sub(x, u.mul(rAdjusted, u.div(vNew, hSqrt)));
    if (post != 0.0f)
      xNew = u.mul(u.scalar(1 - post), xNew);
    c.setOutput(i, xNew);
    c.setOutput(*n + i, vNew);
    c.setOutput(2 * *n + i, hNew);
  }
  return success();
}

} // namespace

void mlir::tract::registerTrainingConverters(ConverterTable &t) {
  t.add("ai.onnx.preview.training.Adagrad", 1, convertAdagrad, 5);
  t.add("ai.onnx.preview.training.Momentum", 1, convertMomentum, 5);
  t.add("ai.onnx.preview.training.Adam", 1, convertAdam, 6);
}
