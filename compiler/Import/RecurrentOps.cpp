//===- RecurrentOps.cpp - ONNX RNN, GRU, LSTM -> unrolled tract ops --------------===//
//
// Sequence lengths are static, so the recurrence unrolls: the input
// projection X @ W^T runs once for all steps, then each step is a few
// matmuls and elementwise ops. Per-batch sequence_lens (a run-time input)
// become select masks: past its length a batch row keeps its state and
// outputs zeros, as ONNX specifies.
//
//===----------------------------------------------------------------------===//
#include "compiler/Import/NodeContext.h"

using namespace mlir;
using namespace mlir::tract;

namespace {

enum class Cell { Rnn, Gru, Lstm };

struct Recurrent {
  Recurrent(NodeContext &c, Cell cell) : c(c), cell(cell) {}
  NodeContext &c;
  Cell cell;
  int64_t hidden = 0, gates = 1;
  float clip = 0;
  bool linearBeforeReset = false;
  SmallVector<std::string> activations;
  SmallVector<float> alphas, betas;
  Type element;

  Value slice(Value v, ArrayRef<int64_t> starts, ArrayRef<int64_t> limits) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> steps(t.getRank(), 1);
    return *c.make<SliceOp>(v, starts, limits, steps);
  }
  // Columns [g*H, (g+1)*H) of a [batch, G*H] tensor.
  Value gate(Value v, int64_t g) {
    auto t = cast<RankedTensorType>(v.getType());
    return slice(v, {0, g * hidden}, {t.getDimSize(0), (g + 1) * hidden});
  }
  Value scalar(double v) { return c.constantScalar(element, v); }

  // The activation `index` of direction d (ONNX lists them per direction).
  FailureOr<Value> activate(Value x, size_t index) {
    std::string name = index < activations.size() ? activations[index] : "";
    float alpha = index < alphas.size() ? alphas[index] : 0.0f;
    float beta = index < betas.size() ? betas[index] : 0.0f;
    auto &b = c.builder();
    std::string lower = StringRef(name).lower();
    if (lower == "sigmoid")
      return b.create<SigmoidOp>(c.loc, x).getResult();
    if (lower == "tanh")
      return b.create<TanhOp>(c.loc, x).getResult();
    if (lower == "relu")
      return b.create<ReluOp>(c.loc, x).getResult();
    if (lower == "softsign")
      return b.create<SoftsignOp>(c.loc, x).getResult();
    if (lower == "softplus")
      return b.create<SoftplusOp>(c.loc, x).getResult();
    if (lower == "leakyrelu")
      return b.create<LeakyReluOp>(c.loc, x, b.getF32FloatAttr(alpha)).getResult();
    if (lower == "thresholdedrelu")
      return b.create<ThresholdedReluOp>(c.loc, x, b.getF32FloatAttr(alpha)).getResult();
    if (lower == "hardsigmoid")
      return b.create<HardSigmoidOp>(c.loc, x, b.getF32FloatAttr(alpha), b.getF32FloatAttr(beta))
          .getResult();
    if (lower == "elu")
      return b.create<EluOp>(c.loc, x, b.getF32FloatAttr(alpha)).getResult();
    if (lower == "affine") {
      FailureOr<Value> m = c.make<MulOp>(x, scalar(alpha));
      return failed(m) ? m : c.make<AddOp>(*m, scalar(beta));
    }
    if (lower == "scaledtanh") {
      FailureOr<Value> m = c.make<MulOp>(x, scalar(beta));
      if (failed(m))
        return m;
      return c.make<MulOp>(b.create<TanhOp>(c.loc, *m).getResult(), scalar(alpha));
    }
    (void)c.unsupported("recurrent activation '" + name + "'");
    return failure();
  }

  Value clipped(Value v) {
    if (clip <= 0)
      return v;
    return c.builder().create<ClipOp>(c.loc, v, c.builder().getF64FloatAttr(-clip),
                                      c.builder().getF64FloatAttr(clip));
  }

  Value add(Value a, Value b) { return *c.make<AddOp>(a, b); }
  Value mul(Value a, Value b) { return *c.make<MulOp>(a, b); }
  Value sub(Value a, Value b) { return *c.make<SubOp>(a, b); }
  Value matmulT(Value a, Value b) { return *c.make<MatMulOp>(a, b, false, true); }
};

LogicalResult convertRecurrent(NodeContext &c, Cell cell) {
  Recurrent r(c, cell);
  r.hidden = c.attrInt("hidden_size", 0);
  r.gates = cell == Cell::Lstm ? 4 : cell == Cell::Gru ? 3 : 1;
  r.clip = c.attrFloat("clip", 0.0f);
  r.linearBeforeReset = c.attrInt("linear_before_reset", 0) != 0;
  auto xt = c.inputType(0), wt = c.inputType(1), rt = c.inputType(2);
  r.element = xt.getElementType();
  std::string direction = c.attrString("direction", "forward");
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  bool layout = c.attrInt("layout", 0) != 0;
  if (xt.getRank() != 3 || wt.getRank() != 3 || rt.getRank() != 3 || wt.getDimSize(0) != dirs ||
      rt.getDimSize(0) != dirs)
    return c.fail("expected 3-D X, W, R with one slice per direction");
  if (r.hidden <= 0)
    r.hidden = rt.getDimSize(2);
  int64_t H = r.hidden, G = r.gates;
  if (wt.getDimSize(1) != G * H || rt.getDimSize(1) != G * H || rt.getDimSize(2) != H)
    return c.fail("expected W [dirs, " + std::to_string(G * H) + ", input] and R [dirs, " +
                  std::to_string(G * H) + ", " + std::to_string(H) + "]");
  if (cell == Cell::Lstm && c.attrInt("input_forget", 0))
    return c.unsupported("LSTM input_forget");
  for (const auto &a : c.node.attributes)
    if (a.name == "activations")
      r.activations.assign(a.strings.begin(), a.strings.end());
  r.alphas = c.attrFloats("activation_alpha");
  r.betas = c.attrFloats("activation_beta");
  size_t perDir = cell == Cell::Lstm ? 3 : cell == Cell::Gru ? 2 : 1;
  if (r.activations.empty())
    for (int64_t d = 0; d < dirs; ++d) {
      if (cell == Cell::Rnn)
        r.activations.push_back("Tanh");
      else
        r.activations.append({"Sigmoid", "Tanh"});
      if (cell == Cell::Lstm)
        r.activations.push_back("Tanh");
    }
  if (r.activations.size() != perDir * dirs)
    return c.fail("expected " + std::to_string(perDir * dirs) + " activations");

  // X as [seq, batch, input].
  Value x = c.input(0);
  if (layout)
    x = *c.make<TransposeOp>(x, ArrayRef<int64_t>{1, 0, 2});
  auto x3 = cast<RankedTensorType>(x.getType());
  int64_t seq = x3.getDimSize(0), batch = x3.getDimSize(1);
  if (seq < 1)
    return c.fail("expected a sequence of at least one step");

  // Optional inputs: B (5: W bias then R bias), sequence_lens, initial_h,
  // initial_c, P (peepholes).
  Value bias = c.hasInput(3) ? c.input(3) : Value();
  Value seqLens = c.hasInput(4) ? c.cast(c.input(4), c.builder().getI64Type()) : Value();
  Value initH = c.hasInput(5) ? c.input(5) : Value();
  Value initC = cell == Cell::Lstm && c.hasInput(6) ? c.input(6) : Value();
  Value peep = cell == Cell::Lstm && c.hasInput(7) ? c.input(7) : Value();

  // Shapes are checked up front so the unrolled ops below cannot fail.
  auto expectShape = [&](Value v, ArrayRef<int64_t> shape, StringRef what) -> LogicalResult {
    if (!v || cast<RankedTensorType>(v.getType()).getShape() == shape)
      return success();
    std::string dims;
    for (int64_t s : shape)
      dims += (dims.empty() ? "" : ",") + std::to_string(s);
    return c.fail(what + Twine(" must have shape [") + dims + "]");
  };
  if (failed(expectShape(bias, {dirs, 2 * G * H}, "B")) ||
      failed(expectShape(seqLens, {batch}, "sequence_lens")) ||
      failed(expectShape(initH, {dirs, batch, H}, "initial_h")) ||
      failed(expectShape(initC, {dirs, batch, H}, "initial_c")) ||
      failed(expectShape(peep, {dirs, 3 * H}, "P")) ||
      wt.getDimSize(2) != x3.getDimSize(2))
    return c.fail("expected B, sequence_lens, initial states and P shaped for the cell, and "
                  "W's input size to match X");
  for (Value v : {bias, initH, initC, peep, Value(c.input(1)), Value(c.input(2))})
    if (v && cast<RankedTensorType>(v.getType()).getElementType() != r.element)
      return c.fail("expected every float input of the element type of X");

  SmallVector<SmallVector<Value>> outputs(dirs); // per direction, per step [batch, H]
  SmallVector<Value> lastH(dirs), lastC(dirs);
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    Value W = c.reshape(r.slice(c.input(1), {d, 0, 0}, {d + 1, G * H, wt.getDimSize(2)}),
                        {G * H, wt.getDimSize(2)});
    Value R = c.reshape(r.slice(c.input(2), {d, 0, 0}, {d + 1, G * H, H}), {G * H, H});
    Value wb, rb;
    if (bias) {
      wb = c.reshape(r.slice(bias, {d, 0}, {d + 1, G * H}), {G * H});
      rb = c.reshape(r.slice(bias, {d, G * H}, {d + 1, 2 * G * H}), {G * H});
    }
    Value xw = r.matmulT(x, W); // [seq, batch, G*H]
    if (wb && cell != Cell::Gru)
      xw = r.add(r.add(xw, wb), rb);
    else if (wb)
      xw = r.add(xw, wb); // GRU keeps Rb_h apart (linear_before_reset)
    Value h = initH ? c.reshape(r.slice(initH, {d, 0, 0}, {d + 1, batch, H}), {batch, H})
                    : c.makeTyped<BroadcastOp>(RankedTensorType::get({batch, H}, r.element), r.scalar(0));
    Value cst = initC ? c.reshape(r.slice(initC, {d, 0, 0}, {d + 1, batch, H}), {batch, H})
                      : c.makeTyped<BroadcastOp>(RankedTensorType::get({batch, H}, r.element), r.scalar(0));
    size_t act = d * perDir;
    SmallVector<Value> steps(seq);
    for (int64_t i = 0; i < seq; ++i) {
      int64_t t = reverse ? seq - 1 - i : i;
      Value xt_ = c.reshape(r.slice(xw, {t, 0, 0}, {t + 1, batch, G * H}), {batch, G * H});
      Value hNew, cNew;
      if (cell == Cell::Rnn) {
        FailureOr<Value> a = r.activate(r.clipped(r.add(xt_, r.matmulT(h, R))), act);
        if (failed(a))
          return failure();
        hNew = *a;
      } else if (cell == Cell::Lstm) {
        Value pre = r.add(xt_, r.matmulT(h, R)); // gates i, o, f, c
        Value pi, po, pf;
        if (peep) {
          pi = c.reshape(r.slice(peep, {d, 0}, {d + 1, H}), {H});
          po = c.reshape(r.slice(peep, {d, H}, {d + 1, 2 * H}), {H});
          pf = c.reshape(r.slice(peep, {d, 2 * H}, {d + 1, 3 * H}), {H});
        }
        Value gi = r.gate(pre, 0), go = r.gate(pre, 1), gf = r.gate(pre, 2), gc = r.gate(pre, 3);
        if (peep) {
          gi = r.add(gi, r.mul(pi, cst));
          gf = r.add(gf, r.mul(pf, cst));
        }
        FailureOr<Value> it = r.activate(r.clipped(gi), act);
        FailureOr<Value> ft = r.activate(r.clipped(gf), act);
        FailureOr<Value> ct = r.activate(r.clipped(gc), act + 1);
        if (failed(it) || failed(ft) || failed(ct))
          return failure();
        cNew = r.add(r.mul(*ft, cst), r.mul(*it, *ct));
        if (peep)
          go = r.add(go, r.mul(po, cNew));
        FailureOr<Value> ot = r.activate(r.clipped(go), act);
        FailureOr<Value> hc = r.activate(cNew, act + 2);
        if (failed(ot) || failed(hc))
          return failure();
        hNew = r.mul(*ot, *hc);
      } else { // GRU: gates z, r, h
        Value rh = r.matmulT(h, R);
        Value rbz, rbr, rbh;
        if (rb) {
          rbz = c.reshape(r.slice(rb, {0}, {H}), {H});
          rbr = c.reshape(r.slice(rb, {H}, {2 * H}), {H});
          rbh = c.reshape(r.slice(rb, {2 * H}, {3 * H}), {H});
        }
        Value gz = r.add(r.gate(xt_, 0), r.gate(rh, 0));
        Value gr = r.add(r.gate(xt_, 1), r.gate(rh, 1));
        if (rb) {
          gz = r.add(gz, rbz);
          gr = r.add(gr, rbr);
        }
        FailureOr<Value> zt = r.activate(r.clipped(gz), act);
        FailureOr<Value> rt_ = r.activate(r.clipped(gr), act);
        if (failed(zt) || failed(rt_))
          return failure();
        Value Rh = r.slice(R, {2 * H, 0}, {3 * H, H});
        Value hh;
        if (r.linearBeforeReset) {
          Value lin = r.matmulT(h, Rh);
          if (rb)
            lin = r.add(lin, rbh);
          hh = r.add(r.gate(xt_, 2), r.mul(*rt_, lin));
        } else {
          hh = r.add(r.gate(xt_, 2), r.matmulT(r.mul(*rt_, h), Rh));
          if (rb)
            hh = r.add(hh, rbh);
        }
        FailureOr<Value> ht = r.activate(r.clipped(hh), act + 1);
        if (failed(ht))
          return failure();
        hNew = r.add(r.mul(r.sub(r.scalar(1), *zt), *ht), r.mul(*zt, h));
      }
      Value out = hNew;
      if (seqLens) {
        // Rows past their sequence length keep state and output zeros.
        Value live = *c.make<LessOp>(c.constantI64({t}, {}), seqLens); // [batch]
        live = c.reshape(live, {batch, 1});
        hNew = *c.make<SelectOp>(live, hNew, h);
        if (cNew)
          cNew = *c.make<SelectOp>(live, cNew, cst);
        out = *c.make<SelectOp>(live, out, r.scalar(0));
      }
      h = hNew;
      if (cNew)
        cst = cNew;
      steps[t] = out;
    }
    outputs[d] = steps;
    lastH[d] = h;
    lastC[d] = cst;
  }

  // Y [seq, dirs, batch, H] (layout 1: [batch, seq, dirs, H]).
  SmallVector<Value> perStep;
  for (int64_t t = 0; t < seq; ++t)
    for (int64_t d = 0; d < dirs; ++d)
      perStep.push_back(c.reshape(outputs[d][t], {1, 1, batch, H}));
  auto concatAll = [&](ArrayRef<Value> parts, int64_t axis) -> Value {
    return parts.size() == 1 ? parts[0] : *c.make<ConcatOp>(parts, axis);
  };
  SmallVector<Value> rows;
  for (int64_t t = 0; t < seq; ++t)
    rows.push_back(concatAll(ArrayRef<Value>(perStep).slice(t * dirs, dirs), 1));
  Value y = seq ? concatAll(rows, 0) : Value();
  SmallVector<Value> hs, cs;
  for (int64_t d = 0; d < dirs; ++d) {
    hs.push_back(c.reshape(lastH[d], {1, batch, H}));
    cs.push_back(c.reshape(lastC[d], {1, batch, H}));
  }
  Value yh = concatAll(hs, 0), yc = concatAll(cs, 0);
  if (layout) {
    if (y)
      y = *c.make<TransposeOp>(y, ArrayRef<int64_t>{2, 0, 1, 3});
    yh = *c.make<TransposeOp>(yh, ArrayRef<int64_t>{1, 0, 2});
    yc = *c.make<TransposeOp>(yc, ArrayRef<int64_t>{1, 0, 2});
  }
  if (y)
    c.setOutput(0, y);
  c.setOutput(1, yh);
  if (cell == Cell::Lstm)
    c.setOutput(2, yc);
  return success();
}

LogicalResult convertRnn(NodeContext &c) { return convertRecurrent(c, Cell::Rnn); }
LogicalResult convertGru(NodeContext &c) { return convertRecurrent(c, Cell::Gru); }
LogicalResult convertLstm(NodeContext &c) { return convertRecurrent(c, Cell::Lstm); }

} // namespace

void mlir::tract::registerRecurrentConverters(ConverterTable &t) {
  t.add("RNN", 7, convertRnn, 3);
  t.add("GRU", 7, convertGru, 3);
  t.add("LSTM", 7, convertLstm, 3);
}
