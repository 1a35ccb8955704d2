//===- FixedInputs.cpp - --input-value: an input's value fixed at compile time -===//
//
// `--input-value sr=16000` turns a graph input into a constant before any
// node is converted, as if it were an initializer: everything that depends
// on it folds at import (If conditions, Pad's pads, Reshape's shape, ...),
// and the input is not an argument of @main, hence not in the C ABI. The
// module's `tract.fixed_inputs` records each one (name and value) for the
// header comment and --report.
//
// The value's dtype is the input's; its shape is the one --input-shape pins,
// else the model's declared static shape, else (the model says nothing or
// leaves a one-dim shape open) a scalar for one value and a vector for more.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/FixedInputs.h"

#include "compiler/Support/ElementsData.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"

#include <cstring>

using namespace mlir;
using namespace mlir::tract;
namespace onnx = ::tract::onnx;

namespace {

template <typename T> void append(std::string &bytes, T v) {
  char raw[sizeof(T)];
  std::memcpy(raw, &v, sizeof(T));
  bytes.append(raw, sizeof(T));
}

// One value in the input's dtype, appended little-endian; false when `text`
// is not such a value.
bool appendValue(std::string &bytes, int32_t type, StringRef text) {
  text = text.trim();
  auto asInt = [&](int64_t lo, int64_t hi) -> std::optional<int64_t> {
    int64_t v;
    if (text.getAsInteger(10, v) || v < lo || v > hi)
      return std::nullopt;
    return v;
  };
  switch (type) {
  case onnx::kFloat:
  case onnx::kDouble:
  case onnx::kFloat16:
  case onnx::kBFloat16: {
    double d;
    if (text.getAsDouble(d))
      return false;
    if (type == onnx::kDouble) {
      append(bytes, d);
    } else if (type == onnx::kFloat) {
      append(bytes, static_cast<float>(d));
    } else {
      llvm::APFloat f(d);
      bool lost;
      f.convert(type == onnx::kFloat16 ? llvm::APFloat::IEEEhalf() : llvm::APFloat::BFloat(),
                llvm::APFloat::rmNearestTiesToEven, &lost);
      append(bytes, static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue()));
    }
    return true;
  }
  case onnx::kBool: {
    if (text == "true" || text == "1")
      bytes.push_back(1);
    else if (text == "false" || text == "0")
      bytes.push_back(0);
    else
      return false;
    return true;
  }
  case onnx::kUInt64: {
    uint64_t v;
    if (text.getAsInteger(10, v))
      return false;
    append(bytes, v);
    return true;
  }
  default:
    break;
  }
  struct Range {
    int32_t type;
    int64_t lo, hi;
    int bytes;
  };
  static const Range ranges[] = {
      {onnx::kInt8, INT8_MIN, INT8_MAX, 1},     {onnx::kUInt8, 0, UINT8_MAX, 1},
      {onnx::kInt16, INT16_MIN, INT16_MAX, 2},  {onnx::kUInt16, 0, UINT16_MAX, 2},
      {onnx::kInt32, INT32_MIN, INT32_MAX, 4},  {onnx::kUInt32, 0, UINT32_MAX, 4},
      {onnx::kInt64, INT64_MIN, INT64_MAX, 8},
  };
  for (const Range &r : ranges) {
    if (r.type != type)
      continue;
    std::optional<int64_t> v = asInt(r.lo, r.hi);
    if (!v)
      return false;
    append(bytes, *v); // little-endian: the low bytes first
    bytes.resize(bytes.size() - (8 - r.bytes));
    return true;
  }
  return false;
}

} // namespace

FailureOr<HostTensor> mlir::tract::fixedInputTensor(const onnx::ValueInfo &in,
                                                    ArrayRef<std::string> values,
                                                    const std::vector<int64_t> *pinned,
                                                    Location loc) {
  const char *typeName = onnx::dataTypeName(in.elemType);
  if (in.elemType == onnx::kString || onnx::dataTypeBytes(in.elemType) == 0)
    return emitError(loc) << "--input-value " << in.name << ": the input is of type "
                          << typeName << ", which --input-value cannot give";
  HostTensor t;
  t.name = in.name;
  t.dataType = in.elemType;
  int64_t count = static_cast<int64_t>(values.size());
  bool declaredStatic = in.hasShape && llvm::all_of(in.dims, [](const onnx::Dim &d) {
                          return d.value >= 0;
                        });
  if (pinned) {
    t.dims = *pinned;
  } else if (declaredStatic) {
    for (const onnx::Dim &d : in.dims)
      t.dims.push_back(d.value);
  } else if (!in.hasShape || in.dims.size() <= 1) {
    if (!in.hasShape && count == 1)
      t.dims = {};
    else
      t.dims = {count};
  } else {
    return emitError(loc) << "--input-value " << in.name << ": the model leaves dims of its "
                          << in.dims.size() << "-d shape open; pin them with --input-shape "
                          << in.name << "=D0,D1,...";
  }
  FailureOr<int64_t> n = checkedNumElements(t.dims);
  if (failed(n) || *n > kMaxFoldElements)
    return emitError(loc) << "--input-value " << in.name << ": at most " << kMaxFoldElements
                          << " values";
  if (*n != count) {
    std::string shape = "[" + llvm::join(llvm::map_range(t.dims, [](int64_t d) {
                          return std::to_string(d);
                        }), ", ") + "]";
    return emitError(loc) << "--input-value " << in.name << ": the input has shape " << shape
                          << " (" << *n << (*n == 1 ? " value" : " values") << "), got "
                          << count;
  }
  for (const std::string &v : values)
    if (!appendValue(t.bytes, in.elemType, v))
      return emitError(loc) << "--input-value " << in.name << ": '" << v
                            << "' is not a value of type " << typeName;
  return t;
}
