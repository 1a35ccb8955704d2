//===- GeneratorOps.cpp - ONNX ops that generate tensors from sizes -> tract ---===//
//
// Range, EyeLike and the window functions depend on their inputs' values
// only through sizes, which are static here: with constant operands (or a
// declared result shape) they become constants.
//
//===----------------------------------------------------------------------===//
#include "compiler/Import/NodeContext.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tract;
namespace onnx = ::tract::onnx;

namespace {

// EyeLike and the window functions are computed here, whatever their size:
// bounded so that a hostile shape cannot exhaust the compiler's memory.
constexpr int64_t kMaxGeneratedElements = int64_t(1) << 24;

// start + i * delta computed at run time, for a length of n.
Value runtimeRange(NodeContext &c, int64_t n) {
  auto type = RankedTensorType::get({n}, c.inputType(0).getElementType());
  return c.makeTyped<RangeOp>(type, c.reshape(c.input(0), {}), c.reshape(c.input(2), {}));
}

// Range: constant when its bounds are (and it is small); otherwise start +
// i * delta at run time with the length the bounds or the model declare.
LogicalResult convertRange(NodeContext &c) {
  auto start = c.constDoubles(0), limit = c.constDoubles(1), delta = c.constDoubles(2);
  if (start && limit && delta) {
    if (start->size() != 1 || limit->size() != 1 || delta->size() != 1)
      return c.fail("expected scalar start, limit and delta");
    double s = (*start)[0], l = (*limit)[0], d = (*delta)[0];
    double count = std::ceil((l - s) / d);
    if (d == 0 || !std::isfinite(count) || count > std::ldexp(1.0, 32))
      return c.fail("expected a non-zero delta and a finite length below 2^32");
    int64_t n = std::max<int64_t>(0, (int64_t)count);
    HostTensor t;
    t.dataType = c.constInput(0)->dataType;
    if (t.dataType != onnx::kFloat && t.dataType != onnx::kDouble && t.dataType != onnx::kInt16 &&
        t.dataType != onnx::kInt32 && t.dataType != onnx::kInt64)
      return c.unsupported(Twine("Range of ") + onnx::dataTypeName(t.dataType));
    if (n > kMaxFoldElements) {
      c.setOutput(0, runtimeRange(c, n));
      return success();
    }
    t.dims = {n};
    for (int64_t i = 0; i < n; ++i) {
      if (t.dataType == onnx::kFloat)
        appendScalar(t, (float)s + (float)i * (float)d);
      else if (t.dataType == onnx::kInt64 || t.dataType == onnx::kInt32)
        appendScalar(t, (double)((int64_t)s + i * (int64_t)d));
      else
        appendScalar(t, s + i * d);
    }
    c.setConstOutput(0, t);
    return success();
  }
  RankedTensorType declared = c.declaredOutputType(0);
  if (!declared || declared.getRank() != 1)
    return c.unsupported("Range with bounds computed at run time and no declared length");
  if (declared.getElementType() != c.inputType(0).getElementType())
    return c.fail("expected a declared Range output of its start's element type");
  c.setOutput(0, runtimeRange(c, declared.getDimSize(0)));
  return success();
}

LogicalResult convertEyeLike(NodeContext &c) {
  auto xt = c.inputType(0);
  if (xt.getRank() != 2)
    return c.fail("expected a 2-D input");
  HostTensor t;
  t.dataType = c.hasAttr("dtype") ? (int32_t)c.attrInt("dtype", 1) : onnxTypeFor(xt.getElementType());
  if (!elementTypeFor(c.context(), t.dataType))
    return c.unsupported(Twine("EyeLike of ") + onnx::dataTypeName(t.dataType));
  int64_t k = c.attrInt("k", 0);
  t.dims = {xt.getDimSize(0), xt.getDimSize(1)};
  if (t.numElements() > kMaxGeneratedElements)
    return c.unsupported("an EyeLike of more than 2^24 elements");
  for (int64_t r = 0; r < t.dims[0]; ++r)
    for (int64_t col = 0; col < t.dims[1]; ++col)
      appendScalar(t, col - r == k ? 1.0 : 0.0);
  c.setConstOutput(0, t);
  return success();
}

enum class Window { Hann, Hamming, Blackman };

template <Window W>
LogicalResult convertWindow(NodeContext &c) {
  int64_t size = -1;
  if (auto s = c.constInts(0); s && s->size() == 1)
    size = (*s)[0];
  else if (RankedTensorType declared = c.declaredOutputType(0); declared && declared.getRank() == 1)
    size = declared.getDimSize(0);
  if (size < 0)
    return c.unsupported("a window size computed at run time");
  if (size > kMaxGeneratedElements)
    return c.unsupported("a window of more than 2^24 elements");
  HostTensor t;
  t.dataType = (int32_t)c.attrInt("output_datatype", onnx::kFloat);
  if (!elementTypeFor(c.context(), t.dataType))
    return c.unsupported(Twine("a window of ") + onnx::dataTypeName(t.dataType));
  t.dims = {size};
  // ONNX: N = size when periodic, size - 1 when symmetric.
  double n = c.attrInt("periodic", 1) ? (double)size : (double)(size - 1);
  const double pi = 3.14159265358979323846;
  for (int64_t i = 0; i < size; ++i) {
    double x = 2 * pi * i / n, v;
    if (W == Window::Hann)
      v = 0.5 - 0.5 * std::cos(x);
    else if (W == Window::Hamming)
      v = 25.0 / 46.0 - (1 - 25.0 / 46.0) * std::cos(x);
    else
      v = 0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2 * x);
    appendScalar(t, (float)v);
  }
  c.setConstOutput(0, t);
  return success();
}

} // namespace

void mlir::tract::registerGeneratorConverters(ConverterTable &t) {
  t.add("Range", 11, convertRange, 3);
  t.add("EyeLike", 9, convertEyeLike);
  t.add("HannWindow", 17, convertWindow<Window::Hann>);
  t.add("HammingWindow", 17, convertWindow<Window::Hamming>);
  t.add("BlackmanWindow", 17, convertWindow<Window::Blackman>);
}
