//===- NNOps.cpp - ONNX neural-network ops -> tract ----------------------------===//
#include "compiler/Import/NodeContext.h"
#include "compiler/Import/WindowAttrs.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::tract;
namespace onnx = ::tract::onnx;

namespace {

LogicalResult convertMatMul(NodeContext &c) {
  Value a = c.input(0), b = c.input(1);
  auto at = c.inputType(0), bt = c.inputType(1);
  if (at.getRank() == 0 || bt.getRank() == 0)
    return c.fail("expected operands of rank >= 1, got a scalar");
  bool vecA = at.getRank() == 1, vecB = bt.getRank() == 1;
  if (vecA)
    a = c.reshape(a, {1, at.getDimSize(0)});
  if (vecB)
    b = c.reshape(b, {bt.getDimSize(0), 1});
  FailureOr<Value> v = c.make<MatMulOp>(a, b, false, false);
  if (failed(v))
    return failure();
  if (vecA || vecB) {
    auto shape = SmallVector<int64_t>(cast<RankedTensorType>(v->getType()).getShape());
    if (vecB)
      shape.erase(shape.end() - 1);
    if (vecA)
      shape.erase(shape.end() - (vecB ? 1 : 2));
    *v = c.reshape(*v, shape);
  }
  c.setOutput(0, *v);
  return success();
}

// Gemm: alpha * op(A) @ op(B) + beta * C, as matmul + mul + add.
LogicalResult convertGemm(NodeContext &c) {
  if (c.inputType(0).getRank() != 2 || c.inputType(1).getRank() != 2)
    return c.fail("expected 2-D A and B");
  FailureOr<Value> v = c.make<MatMulOp>(c.input(0), c.input(1), c.attrInt("transA", 0) != 0,
                                        c.attrInt("transB", 0) != 0);
  if (failed(v))
    return failure();
  Type element = c.inputType(0).getElementType();
  float alpha = c.attrFloat("alpha", 1.0f), beta = c.attrFloat("beta", 1.0f);
  if (alpha != 1.0f)
    if (failed(v = c.make<MulOp>(*v, c.constantScalar(element, alpha))))
      return failure();
  if (c.hasInput(2) && beta != 0.0f) {
    Value bias = c.input(2);
    if (beta != 1.0f) {
      FailureOr<Value> scaled = c.make<MulOp>(bias, c.constantScalar(element, beta));
      if (failed(scaled))
        return failure();
      bias = *scaled;
    }
    v = c.make<AddOp>(*v, bias);
  }
  return c.bind(v);
}


LogicalResult convertConv(NodeContext &c) {
  auto xt = c.inputType(0), wt = c.inputType(1);
  if (xt.getRank() < 3 || wt.getRank() != xt.getRank())
    return c.fail("expected input and weights of one rank >= 3, got " +
                  std::to_string(xt.getRank()) + " and " + std::to_string(wt.getRank()));
  SmallVector<int64_t> kernel = c.attrInts("kernel_shape", wt.getShape().drop_front(2));
  auto w = readWindow(c, xt.getShape().drop_front(2), kernel);
  if (!w)
    return failure();
  return c.bind(c.make<ConvOp>(c.input(0), c.input(1), c.input(2), w->strides,
                                      w->dilations, w->pads, c.attrInt("group", 1)));
}

LogicalResult convertConvTranspose(NodeContext &c) {
  auto xt = c.inputType(0), wt = c.inputType(1);
  if (xt.getRank() < 3 || wt.getRank() != xt.getRank())
    return c.fail("expected input and weights of one rank >= 3");
  size_t n = xt.getRank() - 2;
  SmallVector<int64_t> kernel = c.attrInts("kernel_shape", wt.getShape().drop_front(2));
  SmallVector<int64_t> strides = c.attrInts("strides", SmallVector<int64_t>(n, 1));
  SmallVector<int64_t> dilations = c.attrInts("dilations", SmallVector<int64_t>(n, 1));
  SmallVector<int64_t> outPad = c.attrInts("output_padding", SmallVector<int64_t>(n, 0));
  SmallVector<int64_t> pads = c.attrInts("pads", SmallVector<int64_t>(2 * n, 0));
  SmallVector<int64_t> outShape = c.attrInts("output_shape");
  std::string autoPad = c.attrString("auto_pad", "NOTSET");
  if (kernel.size() != n || strides.size() != n || dilations.size() != n ||
      outPad.size() != n || pads.size() != 2 * n)
    return c.fail("expected " + std::to_string(n) + " values in every window attribute");
  if (failed(checkWindowValues(c, "strides", strides, 1)) ||
      failed(checkWindowValues(c, "dilations", dilations, 1)) ||
      failed(checkWindowValues(c, "kernel dims", kernel, 1)) ||
      failed(checkWindowValues(c, "output paddings", outPad, 0)) ||
      failed(checkWindowValues(c, "pads", pads, 0)))
    return failure();
  for (int64_t d : outShape)
    if (d < 1 || d > (int64_t(1) << 36))
      return c.fail("expected an output_shape of positive dims, got " + std::to_string(d));
  if (!outShape.empty() && outShape.size() != n && outShape.size() != n + 2)
    return c.fail("expected an output_shape of " + std::to_string(n) + " or " +
                  std::to_string(n + 2) + " dims, got " + std::to_string(outShape.size()));
  if (outShape.size() > n)
    outShape.erase(outShape.begin(), outShape.begin() + (outShape.size() - n));
  if (!outShape.empty() || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i) {
      int64_t in = xt.getDimSize(2 + i);
      int64_t target = outShape.empty() ? in * strides[i] : outShape[i];
      int64_t total = strides[i] * (in - 1) + outPad[i] + (kernel[i] - 1) * dilations[i] +
                      1 - target;
      // Negative totals mean the output is larger: grow output_padding.
      if (total < 0) {
        outPad[i] -= total;
        total = 0;
      }
      bool lower = autoPad == "SAME_LOWER";
      pads[i] = lower ? total - total / 2 : total / 2;
      pads[n + i] = total - pads[i];
    }
  } else if (autoPad == "VALID") {
    pads.assign(2 * n, 0);
  }
  return c.bind(c.make<ConvTransposeOp>(c.input(0), c.input(1), c.input(2), strides,
                                               dilations, pads, outPad, c.attrInt("group", 1)));
}

template <typename OpT>
LogicalResult convertPool(NodeContext &c) {
  auto xt = c.inputType(0);
  if (xt.getRank() < 3)
    return c.fail("expected an input of rank >= 3, got " + std::to_string(xt.getRank()));
  auto w = readWindow(c, xt.getShape().drop_front(2), c.attrInts("kernel_shape"));
  if (!w)
    return failure();
  bool ceil = c.attrInt("ceil_mode", 0) != 0;
  if (c.numOutputs() > 1 && !c.node.outputs[1].empty()) {
    // MaxPool's Indices: the plain op gives the output type, then is replaced.
    if (ceil)
      return c.unsupported("MaxPool's Indices output with ceil_mode");
    FailureOr<Value> plain = c.make<MaxPoolOp>(c.input(0), w->kernel, w->strides, w->dilations,
                                               w->pads, false);
    if (failed(plain))
      return failure();
    auto type = cast<RankedTensorType>(plain->getType());
    plain->getDefiningOp()->erase();
    auto op = c.builder().create<MaxPoolWithIndicesOp>(
        c.loc, type, RankedTensorType::get(type.getShape(), c.builder().getI64Type()), c.input(0),
        w->kernel, w->strides, w->dilations, w->pads, c.attrInt("storage_order", 0) != 0);
    c.setOutput(0, op.getOutput());
    c.setOutput(1, op.getIndices());
    return success();
  }
  if constexpr (std::is_same_v<OpT, AvgPoolOp>)
    return c.bind(c.make<AvgPoolOp>(c.input(0), w->kernel, w->strides, w->dilations,
                                           w->pads, ceil, c.attrInt("count_include_pad", 0) != 0));
  else
    return c.bind(c.make<MaxPoolOp>(c.input(0), w->kernel, w->strides, w->dilations,
                                           w->pads, ceil));
}

template <typename OpT>
LogicalResult convertGlobalPool(NodeContext &c) {
  auto xt = c.inputType(0);
  if (xt.getRank() < 3)
    return c.fail("expected an input of rank >= 3, got " + std::to_string(xt.getRank()));
  SmallVector<int64_t> axes;
  for (int64_t i = 2; i < xt.getRank(); ++i)
    axes.push_back(i);
  return c.bind(c.make<OpT>(c.input(0), axes, true));
}

// BatchNormalization (inference): y = x * a + b with a = scale / sqrt(var + eps)
// and b = bias - mean * a, per channel. With constant statistics a and b are
// computed here; otherwise as ops.
// Training mode (opset 14+): normalise with the batch statistics and output
// the updated running mean and variance.
LogicalResult convertBatchNormTraining(NodeContext &c) {
  auto xt = c.inputType(0);
  if (xt.getRank() < 2)
    return c.fail("expected an input of rank >= 2");
  int64_t channels = xt.getDimSize(1);
  for (size_t i = 1; i <= 4; ++i)
    if (!c.hasInput(i) || c.inputType(i).getNumElements() != channels ||
        c.inputType(i).getElementType() != xt.getElementType())
      return c.fail("expected scale, bias, mean and var of " + std::to_string(channels) +
                    " elements of the input's type");
  Type element = xt.getElementType();
  SmallVector<int64_t> axes{0}, paramShape(xt.getRank() - 1, 1);
  for (int64_t i = 2; i < xt.getRank(); ++i)
    axes.push_back(i);
  paramShape[0] = channels;
  auto v = [&](FailureOr<Value> x) { return *x; };
  Value mean = v(c.make<ReduceMeanOp>(c.input(0), axes, true)); // [1, C, 1...]
  Value d = v(c.make<SubOp>(c.input(0), mean));
  Value var = v(c.make<ReduceMeanOp>(v(c.make<MulOp>(d, d)), axes, true));
  Value inv = c.builder().create<ReciprocalOp>(
      c.loc, c.builder().create<SqrtOp>(c.loc, v(c.make<AddOp>(var, c.constantScalar(element, c.attrFloat("epsilon", 1e-5f))))));
  Value y = v(c.make<MulOp>(v(c.make<MulOp>(d, inv)), c.reshape(c.input(1), paramShape)));
  y = v(c.make<AddOp>(y, c.reshape(c.input(2), paramShape)));
  c.setOutput(0, y);
  float momentum = c.attrFloat("momentum", 0.9f);
  auto running = [&](size_t in, Value batch) {
    Value flat = c.reshape(batch, {channels});
    Value old = v(c.make<MulOp>(c.reshape(c.input(in), {channels}), c.constantScalar(element, momentum)));
    return v(c.make<AddOp>(old, v(c.make<MulOp>(flat, c.constantScalar(element, 1 - momentum)))));
  };
  c.setOutput(1, running(3, mean));
  c.setOutput(2, running(4, var));
  return success();
}

LogicalResult convertBatchNorm(NodeContext &c) {
  if (c.attrInt("training_mode", 0))
    return convertBatchNormTraining(c);
  for (size_t i = 1; i < c.numOutputs(); ++i)
    if (!c.node.outputs[i].empty())
      return c.unsupported("BatchNormalization's running statistics outside training mode");
  auto xt = c.inputType(0);
  if (xt.getRank() < 2)
    return c.fail("expected an input of rank >= 2");
  int64_t channels = xt.getDimSize(1);
  for (size_t i = 1; i <= 4; ++i)
    if (!c.hasInput(i) || c.inputType(i).getNumElements() != channels)
      return c.fail("expected scale, bias, mean and var of " + std::to_string(channels) +
                    " elements");
  float eps = c.attrFloat("epsilon", 1e-5f);
  SmallVector<int64_t> paramShape(xt.getRank() - 1, 1);
  paramShape[0] = channels;
  Type element = xt.getElementType();
  auto scale = c.constDoubles(1), bias = c.constDoubles(2), mean = c.constDoubles(3),
       var = c.constDoubles(4);
  Value a, b;
  if (scale && bias && mean && var && element.isF32()) {
    HostTensor ta, tb;
    ta.dataType = tb.dataType = onnx::kFloat;
    ta.dims = tb.dims = std::vector<int64_t>(paramShape.begin(), paramShape.end());
    for (int64_t ch = 0; ch < channels; ++ch) {
      float s = (float)(*scale)[ch] / std::sqrt((float)(*var)[ch] + eps);
      float o = (float)(*bias)[ch] - (float)(*mean)[ch] * s;
      ta.bytes.append(reinterpret_cast<const char *>(&s), 4);
      tb.bytes.append(reinterpret_cast<const char *>(&o), 4);
    }
    a = c.constant(ta);
    b = c.constant(tb);
  } else {
    FailureOr<Value> sd = c.make<AddOp>(c.reshape(c.input(4), paramShape),
                                        c.constantScalar(element, eps));
    if (failed(sd) || failed(sd = c.make<SqrtOp>(*sd)))
      return failure();
    FailureOr<Value> av = c.make<DivOp>(c.reshape(c.input(1), paramShape), *sd);
    if (failed(av))
      return failure();
    FailureOr<Value> mb = c.make<MulOp>(c.reshape(c.input(3), paramShape), *av);
    if (failed(mb))
      return failure();
    FailureOr<Value> bv = c.make<SubOp>(c.reshape(c.input(2), paramShape), *mb);
    if (failed(bv))
      return failure();
    a = *av;
    b = *bv;
  }
  FailureOr<Value> y = c.make<MulOp>(c.input(0), a);
  if (failed(y))
    return failure();
  return c.bind(c.make<AddOp>(*y, b));
}

// Softmax-like ops: before opset 13 they work on the input flattened to 2-D
// at `axis` (default 1); from 13 on a single axis (default -1).
template <typename OpT>
LogicalResult convertSoftmaxLike(NodeContext &c) {
  auto xt = c.inputType(0);
  int64_t rank = xt.getRank();
  if (rank == 0)
    return c.fail("expected an input of rank >= 1");
  bool legacy = c.opset() < 13;
  int64_t axis = c.attrInt("axis", legacy ? 1 : -1);
  auto norm = normalizeAxis(axis, rank);
  if (failed(norm))
    return c.fail("expected an axis in [" + std::to_string(-rank) + ", " +
                  std::to_string(rank) + "), got " + std::to_string(axis));
  if (!legacy) {
    c.setOutput(0, c.builder().create<OpT>(c.loc, c.input(0), *norm));
    return success();
  }
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i)
    (i < *norm ? outer : inner) *= xt.getDimSize(i);
  Value flat = c.reshape(c.input(0), {outer, inner});
  Value y = c.builder().create<OpT>(c.loc, flat, 1);
  c.setOutput(0, c.reshape(y, xt.getShape()));
  return success();
}

// With its Mean / InvStdDev outputs requested, LayerNormalization expands
// into reductions so that the statistics exist as tensors.
LogicalResult convertLayerNormWithStats(NodeContext &c, int64_t axis) {
  auto xt = c.inputType(0);
  SmallVector<int64_t> axes;
  for (int64_t i = axis; i < xt.getRank(); ++i)
    axes.push_back(i);
  Type element = xt.getElementType();
  FailureOr<Value> mean = c.make<ReduceMeanOp>(c.input(0), axes, true);
  if (failed(mean))
    return failure();
  FailureOr<Value> d = c.make<SubOp>(c.input(0), *mean);
  if (failed(d))
    return failure();
  FailureOr<Value> sq = c.make<MulOp>(*d, *d);
  if (failed(sq))
    return failure();
  FailureOr<Value> var = c.make<ReduceMeanOp>(*sq, axes, true);
  if (failed(var) || failed(var = c.make<AddOp>(*var, c.constantScalar(element, c.attrFloat("epsilon", 1e-5f)))))
    return failure();
  Value inv = c.builder().create<ReciprocalOp>(c.loc, c.builder().create<SqrtOp>(c.loc, *var));
  FailureOr<Value> y = c.make<MulOp>(*d, inv);
  if (failed(y) || failed(y = c.make<MulOp>(*y, c.input(1))))
    return failure();
  if (c.hasInput(2) && failed(y = c.make<AddOp>(*y, c.input(2))))
    return failure();
  c.setOutput(0, *y);
  c.setOutput(1, *mean);
  c.setOutput(2, inv);
  return success();
}

LogicalResult convertLayerNorm(NodeContext &c) {
  auto xt = c.inputType(0);
  for (size_t i = 1; i < c.numOutputs(); ++i)
    if (!c.node.outputs[i].empty()) {
      auto axis = normalizeAxis(c.attrInt("axis", -1), xt.getRank());
      if (failed(axis))
        return c.fail("expected an axis in range");
      return convertLayerNormWithStats(c, *axis);
    }
  int64_t axis = c.attrInt("axis", -1);
  auto norm = normalizeAxis(axis, xt.getRank());
  if (failed(norm))
    return c.fail("expected an axis in range, got " + std::to_string(axis));
  auto normalized = xt.getShape().drop_front(*norm);
  auto normType = RankedTensorType::get(normalized, xt.getElementType());
  auto expand = [&](Value v) -> Value {
    if (cast<RankedTensorType>(v.getType()).getShape() == normalized)
      return v;
    return c.makeTyped<BroadcastOp>(normType, v);
  };
  Value scale = expand(c.input(1));
  Value bias = c.hasInput(2) ? expand(c.input(2)) : Value();
  c.setOutput(0, c.makeTyped<LayerNormOp>(xt, c.input(0), scale, bias,
                                          c.builder().getI64IntegerAttr(*norm),
                                          c.builder().getF32FloatAttr(c.attrFloat("epsilon", 1e-5f))));
  return success();
}

LogicalResult convertInstanceNorm(NodeContext &c) {
  c.setOutput(0, c.makeTyped<InstanceNormOp>(c.inputType(0), c.input(0), c.input(1),
                                             c.input(2), c.builder().getF32FloatAttr(c.attrFloat("epsilon", 1e-5f))));
  return success();
}

LogicalResult convertLrn(NodeContext &c) {
  if (c.inputType(0).getRank() < 3)
    return c.fail("expected an input of rank >= 3");
  c.setOutput(0, c.builder().create<LrnOp>(c.loc, c.input(0),
                                           c.builder().getI64IntegerAttr(c.attrInt("size", 1)),
                                           c.builder().getF32FloatAttr(c.attrFloat("alpha", 1e-4f)),
                                           c.builder().getF32FloatAttr(c.attrFloat("beta", 0.75f)),
                                           c.builder().getF32FloatAttr(c.attrFloat("bias", 1.0f))));
  return success();
}

// Inference: Dropout is the identity and its mask all true. In training mode
// (opset 12+, a `training_mode` input that is not a constant false) it draws
// the reference's random numbers at run time (tract.dropout).
LogicalResult convertDropout(NodeContext &c) {
  if (c.hasInput(2)) {
    auto ratio = c.hasInput(1) ? c.constDoubles(1) : std::optional<SmallVector<double>>(SmallVector<double>{0.5});
    bool dropsNothing = ratio && ratio->size() == 1 && (*ratio)[0] == 0;
    auto training = c.constInts(2);
    bool inference = training && (training->size() == 1 && (*training)[0] == 0);
    if (!dropsNothing && !inference) {
      auto xt = c.inputType(0);
      if (c.hasInput(1) && c.inputType(1).getNumElements() != 1)
        return c.fail("expected a scalar ratio");
      if (c.inputType(2).getNumElements() != 1)
        return c.fail("expected a scalar training_mode");
      Value r = c.hasInput(1) ? c.input(1) : c.constantScalar(xt.getElementType(), 0.5);
      auto op = c.builder().create<DropoutOp>(
          c.loc, xt, RankedTensorType::get(xt.getShape(), c.builder().getI1Type()), c.input(0), r,
          c.input(2), (int64_t)(uint32_t)c.attrInt("seed", 0));
      c.setOutput(0, op.getOutput());
      if (c.numOutputs() > 1)
        c.setOutput(1, op.getMask());
      return success();
    }
  }
  c.forward(0, 0);
  if (c.numOutputs() > 1) {
    HostTensor keep;
    keep.dataType = onnx::kBool;
    keep.bytes.assign(1, '\1');
    c.setFilledOutput(1, std::move(keep), c.inputType(0).getShape());
  }
  return success();
}

// MeanVarianceNormalization: (x - mean) / sqrt(var) over `axes`, with the
// function body's epsilon (1e-9) guarding the division.
LogicalResult convertMeanVarianceNorm(NodeContext &c) {
  auto xt = c.inputType(0);
  SmallVector<int64_t> axes = c.attrInts("axes", {0, 2, 3});
  for (int64_t &a : axes) {
    auto n = normalizeAxis(a, xt.getRank());
    if (failed(n))
      return c.fail("expected axes in range");
    a = *n;
  }
  llvm::sort(axes);
  Type element = xt.getElementType();
  FailureOr<Value> mean = c.make<ReduceMeanOp>(c.input(0), axes, true);
  if (failed(mean))
    return failure();
  FailureOr<Value> d = c.make<SubOp>(c.input(0), *mean);
  FailureOr<Value> sq = failed(d) ? d : c.make<MulOp>(*d, *d);
  FailureOr<Value> var = failed(sq) ? sq : c.make<ReduceMeanOp>(*sq, axes, true);
  if (failed(var))
    return failure();
  Value sd = c.builder().create<SqrtOp>(c.loc, *var);
  FailureOr<Value> denom = c.make<AddOp>(sd, c.constantScalar(element, 1e-9));
  if (failed(denom))
    return failure();
  return c.bind(c.make<DivOp>(*d, *denom));
}

} // namespace

void mlir::tract::registerNNConverters(ConverterTable &t) {
  t.add("MatMul", 1, convertMatMul, 2);
  t.add("Gemm", 1, convertGemm, 2);
  t.add("Conv", 1, convertConv, 2);
  t.add("ConvTranspose", 1, convertConvTranspose, 2);
  t.add("MaxPool", 1, convertPool<MaxPoolOp>);
  t.add("AveragePool", 1, convertPool<AvgPoolOp>);
  t.add("GlobalAveragePool", 1, convertGlobalPool<ReduceMeanOp>);
  t.add("GlobalMaxPool", 1, convertGlobalPool<ReduceMaxOp>);
  t.add("BatchNormalization", 1, convertBatchNorm, 5);
  t.add("Softmax", 1, convertSoftmaxLike<SoftmaxOp>);
  t.add("LogSoftmax", 1, convertSoftmaxLike<LogSoftmaxOp>);
  t.add("Hardmax", 1, convertSoftmaxLike<HardmaxOp>);
  t.add("LayerNormalization", 17, convertLayerNorm, 2);
  t.add("InstanceNormalization", 6, convertInstanceNorm, 3);
  t.add("LRN", 1, convertLrn);
  t.add("Dropout", 1, convertDropout);
  t.add("MeanVarianceNormalization", 9, convertMeanVarianceNorm);
}
