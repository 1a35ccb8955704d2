//===- HostEval.cpp - evaluate tract ops on compile-time constants -----------===//
//
// Runs the runtime's own reference kernels (runtime/include, header-only) so
// constant folding and generated code agree bit for bit. Only data-movement,
// elementwise and reduction ops are folded, and only up to kMaxFoldElements:
// folding exists to erase shape subgraphs, not to precompute the model.
//
//===----------------------------------------------------------------------===//
#include "compiler/Import/HostEval.h"

#include "compiler/Support/ElementsData.h"
#include "tract/rt/all.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tract;
namespace onnx = ::tract::onnx;
namespace rt = ::tract::rt;

namespace {

// Calls f(T{}) with the C++ type of an ONNX element type.
template <typename F>
bool dispatch(int32_t dtype, F &&f) {
  switch (dtype) {
  case onnx::kFloat: f(float{}); return true;
  case onnx::kDouble: f(double{}); return true;
  case onnx::kInt64: f(int64_t{}); return true;
  case onnx::kInt32: f(int32_t{}); return true;
  case onnx::kInt16: f(int16_t{}); return true;
  case onnx::kInt8: f(int8_t{}); return true;
  case onnx::kUInt8: f(uint8_t{}); return true;
  case onnx::kUInt16: f(uint16_t{}); return true;
  case onnx::kUInt32: f(uint32_t{}); return true;
  case onnx::kUInt64: f(uint64_t{}); return true;
  case onnx::kBool: f(bool{}); return true;
  default: return false;
  }
}

HostTensor emptyLike(RankedTensorType type) {
  HostTensor t;
  t.dataType = onnxTypeFor(type.getElementType());
  t.dims.assign(type.getShape().begin(), type.getShape().end());
  t.bytes.assign(tensorBytes(type), '\0');
  return t;
}

template <typename T>
const T *data(const HostTensor *t) {
  return reinterpret_cast<const T *>(t->bytes.data());
}
template <typename T>
T *data(HostTensor &t) {
  return reinterpret_cast<T *>(t.bytes.data());
}

SmallVector<int64_t> shapeOf(Value v) {
  auto s = cast<RankedTensorType>(v.getType()).getShape();
  return SmallVector<int64_t>(s.begin(), s.end());
}

template <typename Functor>
std::optional<HostTensor> binary(Operation *op, ArrayRef<const HostTensor *> in,
                                 bool boolResult) {
  if (in[0]->dataType != in[1]->dataType)
    return std::nullopt;
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  HostTensor out = emptyLike(outType);
  SmallVector<int64_t> shape = shapeOf(op->getResult(0));
  SmallVector<int64_t> sa = broadcastStrides(shapeOf(op->getOperand(0)), shape);
  SmallVector<int64_t> sb = broadcastStrides(shapeOf(op->getOperand(1)), shape);
  bool ok = false;
  dispatch(in[0]->dataType, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool> &&
                  !(std::is_same_v<Functor, rt::op::And> || std::is_same_v<Functor, rt::op::Or> ||
                    std::is_same_v<Functor, rt::op::Xor> ||
                    std::is_same_v<Functor, rt::op::Equal>))
      return;
    else if constexpr (!std::is_same_v<T, bool> &&
                       (std::is_same_v<Functor, rt::op::And> ||
                        std::is_same_v<Functor, rt::op::Or> ||
                        std::is_same_v<Functor, rt::op::Xor>))
      return;
    else if (boolResult) {
      rt::binary_bcast(data<T>(in[0]), sa.data(), data<T>(in[1]), sb.data(), data<bool>(out),
                       shape.data(), (int)shape.size(), Functor{});
      ok = true;
    } else {
      rt::binary_bcast(data<T>(in[0]), sa.data(), data<T>(in[1]), sb.data(), data<T>(out),
                       shape.data(), (int)shape.size(), Functor{});
      ok = true;
    }
  });
  if (!ok)
    return std::nullopt;
  return out;
}

template <typename Functor>
std::optional<HostTensor> unaryFloat(Operation *op, ArrayRef<const HostTensor *> in) {
  HostTensor out = emptyLike(cast<RankedTensorType>(op->getResult(0).getType()));
  int64_t n = in[0]->numElements();
  if (in[0]->dataType == onnx::kFloat)
    rt::unary(data<float>(in[0]), data<float>(out), n, Functor{});
  else if (in[0]->dataType == onnx::kDouble)
    rt::unary(data<double>(in[0]), data<double>(out), n, Functor{});
  else if (in[0]->dataType == onnx::kInt64)
    rt::unary(data<int64_t>(in[0]), data<int64_t>(out), n, Functor{});
  else if (in[0]->dataType == onnx::kInt32)
    rt::unary(data<int32_t>(in[0]), data<int32_t>(out), n, Functor{});
  else
    return std::nullopt;
  return out;
}

std::optional<HostTensor> castOp(CastOp op, const HostTensor *in) {
  HostTensor out = emptyLike(op.getType());
  int64_t n = in->numElements();
  bool ok = false;
  dispatch(in->dataType, [&](auto from) {
    using TI = decltype(from);
    ok = dispatch(out.dataType, [&](auto to) {
      using TO = decltype(to);
      rt::cast(data<TI>(in), data<TO>(out), n);
    });
  });
  if (!ok)
    return std::nullopt;
  return out;
}

// A reduction over `axes` (torchvision's detection transforms reduce
// constant image sizes with ReduceMax before their size arithmetic).
template <typename Reducer>
std::optional<HostTensor> reduceOp(Operation *op, const HostTensor *in) {
  SmallVector<int64_t> shape = shapeOf(op->getOperand(0));
  if (shape.size() > (size_t)rt::kMaxRank)
    return std::nullopt;
  uint32_t mask = 0;
  for (int64_t axis : op->getAttrOfType<DenseI64ArrayAttr>("axes").asArrayRef())
    mask |= 1u << axis;
  HostTensor out = emptyLike(cast<RankedTensorType>(op->getResult(0).getType()));
  bool ok = false;
  dispatch(in->dataType, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      rt::reduce<Reducer>(data<T>(in), shape.data(), (int)shape.size(), mask, data<T>(out));
      ok = true;
    }
  });
  if (!ok)
    return std::nullopt;
  return out;
}

// Data movement works on bytes: dispatch on the element size only.
template <typename F>
bool dispatchSize(int32_t dtype, F &&f) {
  switch (onnx::dataTypeBytes(dtype)) {
  case 1: f(uint8_t{}); return true;
  case 2: f(uint16_t{}); return true;
  case 4: f(uint32_t{}); return true;
  case 8: f(uint64_t{}); return true;
  default: return false;
  }
}

std::optional<HostTensor> evaluate(Operation *op, ArrayRef<const HostTensor *> in) {
  using R = std::optional<HostTensor>;
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case([&](AddOp) { return binary<rt::op::Add>(op, in, false); })
      .Case([&](SubOp) { return binary<rt::op::Sub>(op, in, false); })
      .Case([&](MulOp) { return binary<rt::op::Mul>(op, in, false); })
      .Case([&](DivOp) { return binary<rt::op::Div>(op, in, false); })
      .Case([&](MaxOp) { return binary<rt::op::Max>(op, in, false); })
      .Case([&](MinOp) { return binary<rt::op::Min>(op, in, false); })
      .Case([&](ModOp) { return binary<rt::op::Mod>(op, in, false); })
      .Case([&](AndOp) { return binary<rt::op::And>(op, in, false); })
      .Case([&](OrOp) { return binary<rt::op::Or>(op, in, false); })
      .Case([&](XorOp) { return binary<rt::op::Xor>(op, in, false); })
      .Case([&](EqualOp) { return binary<rt::op::Equal>(op, in, true); })
      .Case([&](LessOp) { return binary<rt::op::Less>(op, in, true); })
      .Case([&](GreaterOp) { return binary<rt::op::Greater>(op, in, true); })
      .Case([&](NegOp) { return unaryFloat<rt::op::Neg>(op, in); })
      .Case([&](AbsOp) { return unaryFloat<rt::op::Abs>(op, in); })
      .Case([&](SqrtOp) { return unaryFloat<rt::op::Sqrt>(op, in); })
      .Case([&](ReciprocalOp) { return unaryFloat<rt::op::Reciprocal>(op, in); })
      .Case([&](FloorOp) { return unaryFloat<rt::op::Floor>(op, in); })
      .Case([&](CeilOp) { return unaryFloat<rt::op::Ceil>(op, in); })
      .Case([&](NotOp) -> R {
        HostTensor out = emptyLike(resultType);
        rt::unary(data<bool>(in[0]), data<bool>(out), in[0]->numElements(), rt::op::Not{});
        return out;
      })
      .Case([&](CastOp c) { return castOp(c, in[0]); })
      .Case([&](ReduceSumOp) { return reduceOp<rt::op::ReduceSum>(op, in[0]); })
      .Case([&](ReduceMeanOp) { return reduceOp<rt::op::ReduceMean>(op, in[0]); })
      .Case([&](ReduceMaxOp) { return reduceOp<rt::op::ReduceMax>(op, in[0]); })
      .Case([&](ReduceMinOp) { return reduceOp<rt::op::ReduceMin>(op, in[0]); })
      .Case([&](ReduceProdOp) { return reduceOp<rt::op::ReduceProd>(op, in[0]); })
      .Case([&](ReshapeOp) -> R {
        HostTensor out = *in[0];
        out.dims.assign(resultType.getShape().begin(), resultType.getShape().end());
        return out;
      })
      .Case([&](TransposeOp t) -> R {
        HostTensor out = emptyLike(resultType);
        SmallVector<int64_t> shape = shapeOf(t.getInput());
        dispatchSize(in[0]->dataType, [&](auto tag) {
          using T = decltype(tag);
          rt::transpose(data<T>(in[0]), data<T>(out), shape.data(), (int)shape.size(),
                        t.getPerm().data());
        });
        return out;
      })
      .Case([&](SliceOp s) -> R {
        HostTensor out = emptyLike(resultType);
        SmallVector<int64_t> shape = shapeOf(s.getInput());
        dispatchSize(in[0]->dataType, [&](auto tag) {
          using T = decltype(tag);
          rt::slice(data<T>(in[0]), data<T>(out), shape.data(), (int)shape.size(),
                    s.getStarts().data(), s.getSteps().data(), resultType.getShape().data());
        });
        return out;
      })
      .Case([&](ConcatOp c) -> R {
        HostTensor out = emptyLike(resultType);
        int64_t axis = c.getAxis(), outer = 1, yInner = 1;
        for (int64_t i = 0; i < resultType.getRank(); ++i)
          (i < axis ? outer : yInner) *= resultType.getDimSize(i);
        int64_t offset = 0;
        for (size_t k = 0; k < in.size(); ++k) {
          auto t = cast<RankedTensorType>(c.getInputs()[k].getType());
          int64_t inner = 1;
          for (int64_t i = axis; i < t.getRank(); ++i)
            inner *= t.getDimSize(i);
          dispatchSize(in[k]->dataType, [&](auto tag) {
            using T = decltype(tag);
            rt::concat_part(data<T>(in[k]), data<T>(out), outer, inner, yInner, offset);
          });
          offset += inner;
        }
        return out;
      })
      .Case([&](GatherOp g) -> R {
        HostTensor out = emptyLike(resultType);
        auto xt = g.getInput().getType();
        int64_t axis = g.getAxis(), outer = 1, inner = 1;
        for (int64_t i = 0; i < xt.getRank(); ++i)
          if (i < axis)
            outer *= xt.getDimSize(i);
          else if (i > axis)
            inner *= xt.getDimSize(i);
        int64_t nIdx = in[1]->numElements();
        dispatchSize(in[0]->dataType, [&](auto tag) {
          using T = decltype(tag);
          if (in[1]->dataType == onnx::kInt64)
            rt::gather(data<T>(in[0]), data<int64_t>(in[1]), data<T>(out), outer,
                       xt.getDimSize(axis), inner, nIdx);
          else
            rt::gather(data<T>(in[0]), data<int32_t>(in[1]), data<T>(out), outer,
                       xt.getDimSize(axis), inner, nIdx);
        });
        return out;
      })
      .Case([&](BroadcastOp b) -> R {
        HostTensor out = emptyLike(resultType);
        SmallVector<int64_t> shape = shapeOf(b.getOutput());
        SmallVector<int64_t> strides = broadcastStrides(shapeOf(b.getInput()), shape);
        dispatchSize(in[0]->dataType, [&](auto tag) {
          using T = decltype(tag);
          rt::broadcast(data<T>(in[0]), strides.data(), data<T>(out), shape.data(),
                        (int)shape.size());
        });
        return out;
      })
      .Case([&](SelectOp s) -> R {
        HostTensor out = emptyLike(resultType);
        SmallVector<int64_t> shape = shapeOf(s.getOutput());
        SmallVector<int64_t> sc = broadcastStrides(shapeOf(s.getCond()), shape);
        SmallVector<int64_t> sa = broadcastStrides(shapeOf(s.getLhs()), shape);
        SmallVector<int64_t> sb = broadcastStrides(shapeOf(s.getRhs()), shape);
        dispatchSize(in[1]->dataType, [&](auto tag) {
          using T = decltype(tag);
          rt::select_bcast(data<bool>(in[0]), sc.data(), data<T>(in[1]), sa.data(),
                           data<T>(in[2]), sb.data(), data<T>(out), shape.data(),
                           (int)shape.size());
        });
        return out;
      })
      .Default([&](Operation *) -> R { return std::nullopt; });
}

} // namespace

std::optional<HostTensor> mlir::tract::evaluateOnHost(Operation *op,
                                                      ArrayRef<const HostTensor *> operands) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || type.getNumElements() > kMaxFoldElements)
    return std::nullopt;
  return evaluate(op, operands);
}
