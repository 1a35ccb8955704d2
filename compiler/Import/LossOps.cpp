//===- LossOps.cpp - ONNX loss functions -> tract -------------------------------===//
//
// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss expand into core ops,
// as their ONNX function bodies do:
//   w      = weight[target] (1 without weights), 0 where target == ignore_index
//   loss   = -input[n, target[n, d...], d...] * w
//   none: loss;  sum: sum(loss);  mean: sum(loss) / sum(w)
//
//===----------------------------------------------------------------------===//
#include "compiler/Import/NodeContext.h"

using namespace mlir;
using namespace mlir::tract;

namespace {

// The NLL of log-probabilities `logp` [N, C, d...] for `target` [N, d...].
FailureOr<Value> negativeLogLikelihood(NodeContext &c, Value logp, Value target, Value weight) {
  auto lt = cast<RankedTensorType>(logp.getType());
  auto tt = cast<RankedTensorType>(target.getType());
  if (lt.getRank() < 2 || tt.getRank() != lt.getRank() - 1)
    {
      (void)c.fail("expected input [N, C, d...] and target [N, d...]");
      return failure();
    }
  for (int64_t i = 0; i < tt.getRank(); ++i)
    if (tt.getDimSize(i) != lt.getDimSize(i == 0 ? 0 : i + 1))
      {
      (void)c.fail("expected target dims to match the input's without C");
      return failure();
    }
  if (!tt.getElementType().isInteger(32) && !tt.getElementType().isInteger(64))
    {
      (void)c.fail("expected an int32 or int64 target");
      return failure();
    }
  Type element = lt.getElementType();
  target = c.cast(target, c.builder().getI64Type());

  Value safeTarget = target, keep;
  if (c.hasAttr("ignore_index")) {
    Value ignore = c.constantScalar(c.builder().getI64Type(), (double)c.attrInt("ignore_index", 0));
    FailureOr<Value> ignored = c.make<EqualOp>(target, ignore);
    if (failed(ignored))
      return failure();
    // Ignored positions read class 0 (any valid index) and weigh 0.
    FailureOr<Value> safe =
        c.make<SelectOp>(*ignored, c.constantScalar(c.builder().getI64Type(), 0), target);
    FailureOr<Value> k = c.make<SelectOp>(*ignored, c.constantScalar(element, 0),
                                          c.constantScalar(element, 1));
    if (failed(safe) || failed(k))
      return failure();
    safeTarget = *safe;
    keep = *k;
  }

  SmallVector<int64_t> indexShape(tt.getShape());
  indexShape.insert(indexShape.begin() + 1, 1);
  auto pickedType = RankedTensorType::get(indexShape, element);
  Value picked = c.makeTyped<GatherElementsOp>(pickedType, logp, c.reshape(safeTarget, indexShape),
                                               1);
  picked = c.reshape(picked, tt.getShape());

  // w has the target's shape; it stays null while it would be all ones.
  Value w;
  if (weight) {
    FailureOr<Value> g = c.make<GatherOp>(weight, safeTarget, 0);
    if (failed(g))
      return failure();
    w = *g;
  }
  if (keep) {
    if (w) {
      FailureOr<Value> m = c.make<MulOp>(w, keep);
      if (failed(m))
        return failure();
      w = *m;
    } else {
      FailureOr<Value> b = c.make<MulOp>(keep, c.constantScalar(element, 1));
      if (failed(b))
        return failure();
      w = c.makeTyped<BroadcastOp>(RankedTensorType::get(tt.getShape(), element), *b);
    }
  }
  FailureOr<Value> loss = c.make<NegOp>(picked);
  if (w && succeeded(loss))
    loss = c.make<MulOp>(*loss, w);
  if (failed(loss))
    return failure();

  std::string reduction = c.attrString("reduction", "mean");
  if (reduction == "none")
    return *loss;
  SmallVector<int64_t> all;
  for (int64_t i = 0; i < tt.getRank(); ++i)
    all.push_back(i);
  FailureOr<Value> sum = c.make<ReduceSumOp>(*loss, all, false);
  if (failed(sum) || reduction == "sum")
    return sum;
  if (reduction != "mean")
    {
      (void)c.fail("expected reduction none, sum or mean, got '" + reduction + "'");
      return failure();
    }
  if (!w)
    return c.make<DivOp>(*sum, c.constantScalar(element, (double)tt.getNumElements()));
  FailureOr<Value> total = c.make<ReduceSumOp>(w, all, false);
  if (failed(total))
    return failure();
  return c.make<DivOp>(*sum, *total);
}

LogicalResult convertNllLoss(NodeContext &c) {
  return c.bind(negativeLogLikelihood(c, c.input(0), c.input(1), c.input(2)));
}

LogicalResult convertSoftmaxCrossEntropy(NodeContext &c) {
  if (c.inputType(0).getRank() < 2)
    return c.fail("expected scores of rank >= 2");
  Value logp = c.builder().create<LogSoftmaxOp>(c.loc, c.input(0), 1);
  if (failed(c.bind(negativeLogLikelihood(c, logp, c.input(1), c.input(2)))))
    return failure();
  c.setOutput(1, logp);
  return success();
}

} // namespace

void mlir::tract::registerLossConverters(ConverterTable &t) {
  t.add("NegativeLogLikelihoodLoss", 12, convertNllLoss, 2);
  t.add("SoftmaxCrossEntropyLoss", 12, convertSoftmaxCrossEntropy, 2);
}
