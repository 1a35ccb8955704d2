//===- EmitCommon.cpp - what every backend needs to know of a planned model ---===//
#include "compiler/Emit/EmitCommon.h"

#include "compiler/Codegen/KernelChoice.h"

#include "compiler/Emit/CppEmitter.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "compiler/Codegen/Passes.h"
#include "compiler/Import/Importer.h"
#include "compiler/Support/ElementsData.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <set>

using namespace mlir;
using namespace mlir::tract;

Type mlir::tract::elementTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

std::string mlir::tract::cStringEscape(StringRef s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (c < 0x20 || c >= 0x7f || c == '?')
      out += fmt::format("\\{:03o}", c);
    else
      out += c;
  }
  return out;
}

const char *mlir::tract::dtypeName(Type t) {
  if (t.isF32()) return "f32";
  if (t.isF16()) return "f16";
  if (t.isBF16()) return "bf16";
  if (isa<StringType>(t)) return "string";
  if (t.isF64()) return "f64";
  if (t.isInteger(1)) return "bool";
  if (auto i = dyn_cast<IntegerType>(t)) {
    bool u = i.isUnsigned();
    switch (i.getWidth()) {
    case 8: return u ? "u8" : "i8";
    case 16: return u ? "u16" : "i16";
    case 32: return u ? "u32" : "i32";
    case 64: return u ? "u64" : "i64";
    default: break;
    }
  }
  return "unknown";
}

std::string Kernel::onnxDescription() const {
  if (nodes.empty())
    return "(no ONNX node: compiler-generated)";
  std::string s;
  for (auto &[node, type] : nodes)
    s += (s.empty() ? "" : ", ") + type + " '" + node + "'";
  return s;
}

static TensorDesc describe(Value v, std::string name) {
  auto t = cast<RankedTensorType>(v.getType());
  TensorDesc d;
  d.name = std::move(name);
  d.shape.assign(t.getShape().begin(), t.getShape().end());
  d.onnxType = onnxTypeFor(t.getElementType());
  d.bytes = tensorBytes(t);
  return d;
}

// Whether tract-plan-memory placed each of `concat`'s operands at its byte
// range of the result (concatOfByteRanges), so the concat is already done.
static bool isConcatView(ConcatOp concat, const llvm::DenseMap<Value, int64_t> &arenaOffsets) {
  auto offsets = concat->getAttrOfType<DenseI64ArrayAttr>(kArenaOffsetsAttr);
  if (!offsets || offsets.size() != 1 || offsets[0] < 0 || !concatOfByteRanges(concat))
    return false;
  int64_t at = offsets[0];
  for (Value in : concat.getInputs()) {
    auto it = arenaOffsets.find(in);
    if (it == arenaOffsets.end() || it->second != at)
      return false;
    at += arenaTensorBytes(in);
  }
  return true;
}

FailureOr<PlannedModel> PlannedModel::analyze(ModuleOp module) {
  PlannedModel pm;
  func::FuncOp func;
  module.walk([&](func::FuncOp f) { func = f; });
  if (!func || func.getBody().getBlocks().size() != 1)
    return module.emitError("expected one func.func with one block");
  auto arena = func->getAttrOfType<IntegerAttr>(kArenaBytesAttr);
  if (!arena)
    return func.emitError("expected a memory plan (run the codegen pipeline first)");
  pm.arenaBytes = arena.getInt();
  if (auto p = module->getAttrOfType<StringAttr>("tract.producer"))
    pm.producer = p.str();
  if (auto o = module->getAttrOfType<IntegerAttr>("tract.opset"))
    pm.opset = o.getInt();
  if (auto fixed = module->getAttrOfType<ArrayAttr>("tract.fixed_inputs"))
    for (auto entry : fixed.getAsRange<DictionaryAttr>()) {
      auto name = entry.getAs<StringAttr>("name");
      auto value = entry.getAs<ElementsAttr>("value");
      if (!name || !value)
        return module.emitError("expected tract.fixed_inputs entries {name, value}");
      auto type = cast<RankedTensorType>(value.getType());
      pm.fixedInputs.push_back({name.str(), type, elementsText(type, elementsBytes(value))});
    }

  Block &block = func.getBody().front();
  for (BlockArgument arg : block.getArguments()) {
    auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "tract.name");
    std::string n = name ? name.str() : fmt::format("input_{}", arg.getArgNumber());
    pm.argIndex[arg] = arg.getArgNumber();
    pm.names[arg] = n;
    pm.inputs.push_back(describe(arg, n));
  }
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    auto name = func.getResultAttrOfType<StringAttr>(i, "tract.name");
    std::string n = name ? name.str() : fmt::format("output_{}", i);
    pm.outputs.push_back(describe(v, n));
    bool producedInPlace = v.getDefiningOp() && !isa<ConstOp>(v.getDefiningOp()) &&
                           !pm.outputIndex.count(v);
    if (producedInPlace) {
      pm.outputIndex[v] = i;
      pm.names[v] = n;
    } else {
      pm.outputCopies.push_back({(int)i, v, tensorBytes(v.getType())});
    }
  }

  // Weights: each distinct constant once, 64-byte aligned.
  llvm::DenseMap<Attribute, int64_t> byAttr;
  std::vector<std::pair<int64_t, int64_t>> placed; // (offset, bytes) of each stored tensor
  std::set<std::string> kernelNames;
  int index = 0;
  for (Operation &op : block.without_terminator()) {
    if (auto c = dyn_cast<ConstOp>(op)) {
      if (c->use_empty())
        continue;
      // GEMM weights go in packed (tract-choose-kernels decided which).
      std::optional<std::string> packed = packedWeightBytes(c);
      auto it = byAttr.find(c.getValue());
      if (packed || it == byAttr.end()) {
        pm.weights.resize((pm.weights.size() + 63) / 64 * 64, '\0');
        int64_t offset = (int64_t)pm.weights.size();
        pm.weights += packed ? *packed : elementsBytes(c.getValue());
        placed.push_back({offset, (int64_t)pm.weights.size() - offset});
        // One literal holds each tensor whole (see weightParts).
        if (placed.back().second > PlannedModel::kMaxWeightTensorBytes)
          return c.emitError("unsupported: a weight tensor of ")
                 << placed.back().second << " bytes (g++ takes string literals of at most "
                 << PlannedModel::kMaxWeightTensorBytes << " bytes)";
        if (!packed)
          it = byAttr.insert({c.getValue(), offset}).first;
        pm.weightOffsets[c.getResult()] = offset;
      } else {
        pm.weightOffsets[c.getResult()] = it->second;
      }
      int64_t offset = pm.weightOffsets[c.getResult()];
      if (auto r = dyn_cast<DenseResourceElementsAttr>(c.getValue()))
        pm.names[c.getResult()] = r.getRawHandle().getKey().str();
      else
        pm.names[c.getResult()] = fmt::format("const_{}", offset);
      continue;
    }
    // A reshape the memory plan made a view of its input (same arena bytes):
    // no kernel, and the report names both by the input's tensor.
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      auto offsets = op.getAttrOfType<DenseI64ArrayAttr>(kArenaOffsetsAttr);
      auto in = pm.arenaOffsets.find(reshape.getInput());
      if (offsets && offsets.size() == 1 && offsets[0] >= 0 && in != pm.arenaOffsets.end() &&
          in->second == offsets[0]) {
        pm.arenaOffsets[reshape.getResult()] = offsets[0];
        pm.names[reshape.getResult()] = pm.tensorName(reshape.getInput());
        continue;
      }
    }
    // A concat the memory plan made a view of its operands (each already
    // at its place in the result's bytes): no kernel; the report lists it.
    if (auto concat = dyn_cast<ConcatOp>(op); concat && isConcatView(concat, pm.arenaOffsets)) {
      Value result = concat.getResult();
      pm.arenaOffsets[result] = op.getAttrOfType<DenseI64ArrayAttr>(kArenaOffsetsAttr)[0];
      auto nodes = nodesOfLocation(op.getLoc());
      pm.names[result] = nodes.empty() ? fmt::format("concat_{}", pm.concatViews.size())
                                       : nodes[0].first + ":0";
      pm.concatViews.push_back(concat);
      continue;
    }
    Kernel k;
    k.op = &op;
    k.nodes = nodesOfLocation(op.getLoc());
    std::string base = k.nodes.empty() ? op.getName().stripDialect().str() : k.nodes[0].first;
    k.name = fmt::format("k{}_{}", index++, cIdentifier(base));
    if (k.name.size() > 64)
      k.name.resize(64);
    if (failed(buildKernelCall(&op, k.call)))
      return failure();
    if (auto a = op.getAttrOfType<StringAttr>(kAlgorithmAttr))
      k.algorithm = a.str();
    if (auto s = op.getAttrOfType<IntegerAttr>(kScratchBytesAttr); s && s.getInt() > 0) {
      auto off = op.getAttrOfType<IntegerAttr>(kScratchOffsetAttr);
      if (!off)
        return op.emitError("expected a scratch offset (run tract-plan-memory)");
      k.scratchBytes = s.getInt();
      k.scratchOffset = off.getInt();
    }
    auto offsets = op.getAttrOfType<DenseI64ArrayAttr>(kArenaOffsetsAttr);
    if (!offsets || offsets.size() != (int64_t)op.getNumResults())
      return op.emitError("expected arena offsets on every kernel");
    for (auto [r, off] : llvm::zip(op.getResults(), offsets.asArrayRef())) {
      if (off >= 0)
        pm.arenaOffsets[r] = off;
      else if (!pm.outputIndex.count(r))
        return op.emitError("expected a graph output for a result outside the arena");
      if (!pm.names.count(r))
        pm.names[r] = fmt::format("{}:{}", base, r.getResultNumber());
    }
    pm.kernels.push_back(std::move(k));
  }
  // Parts cut at tensor starts, each at most kWeightsPartBytes (tensors are
  // placed in offset order).
  pm.weightParts = {0};
  for (auto [offset, bytes] : placed)
    if (offset + bytes - pm.weightParts.back() > PlannedModel::kWeightsPartBytes)
      pm.weightParts.push_back(offset);
  return pm;
}

std::string PlannedModel::weightsArray(size_t i) const {
  return weightParts.size() == 1 ? std::string("kWeights") : fmt::format("kWeights{}", i);
}

std::string PlannedModel::pointer(Value v, bool &usesArena, bool &usesInputs) const {
  std::string type = cppElementType(elementTypeOf(v));
  if (auto it = argIndex.find(v); it != argIndex.end()) {
    usesInputs = true;
    return fmt::format("static_cast<const {} *>(inputs[{}])", type, it->second);
  }
  if (auto it = weightOffsets.find(v); it != weightOffsets.end()) {
    if (tensorBytes(v.getType()) == 0) // an empty constant: nothing to point at
      return fmt::format("static_cast<const {} *>(nullptr)", type);
    size_t part = std::upper_bound(weightParts.begin(), weightParts.end(), it->second) -
                  weightParts.begin() - 1;
    return fmt::format("reinterpret_cast<const {} *>({} + {})", type, weightsArray(part),
                       it->second - weightParts[part]);
  }
  if (auto it = outputIndex.find(v); it != outputIndex.end())
    return fmt::format("static_cast<{} *>(outputs[{}])", type, it->second);
  auto it = arenaOffsets.find(v);
  usesArena = true;
  return fmt::format("reinterpret_cast<{} *>(a + {})", type, it == arenaOffsets.end() ? 0 : it->second);
}

std::string PlannedModel::tensorName(Value v) const {
  auto it = names.find(v);
  return it == names.end() ? std::string("?") : it->second;
}

// Appends `bytes` as a C string literal, 64 bytes a line. Octal escapes are
// always three digits so a following digit never extends them.
void mlir::tract::appendByteString(std::string &out, StringRef bytes) {
  for (size_t i = 0; i < bytes.size(); i += 64) {
    out += "    \"";
    for (size_t j = i; j < std::min(bytes.size(), i + 64); ++j) {
      unsigned char c = bytes[j];
      if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?')
        out.push_back(c);
      else
        out += fmt::format("\\{:03o}", c);
    }
    out += "\"\n";
  }
}

std::string mlir::tract::commentSafe(std::string s) {
  for (size_t p; (p = s.find("*/")) != std::string::npos;)
    s.replace(p, 2, "* /");
  for (char &c : s)
    if (c == '\n' || c == '\r')
      c = ' ';
  return s;
}

std::string mlir::tract::substitute(std::string text,
                                     const std::vector<std::pair<std::string, std::string>> &vars) {
  for (const auto &[key, value] : vars) {
    std::string pattern = "@" + key + "@";
    for (size_t p = 0; (p = text.find(pattern, p)) != std::string::npos; p += value.size())
      text.replace(p, pattern.size(), value);
  }
  return text;
}

std::string mlir::tract::tensorInfoArrays(const PlannedModel &pm, const std::string &P) {
  auto tensorInfos = [&](const std::vector<TensorDesc> &list, StringRef what) {
    std::string s;
    for (size_t i = 0; i < list.size(); ++i)
      if (!list[i].shape.empty())
        s += fmt::format("constexpr int64_t k{}Shape{}[] = {{{}}};\n", what.str(), i,
                         fmt::join(list[i].shape, ", "));
    return s;
  };
  std::string src = tensorInfos(pm.inputs, "Input") + tensorInfos(pm.outputs, "Output");
  src += "\n} // namespace\n\nextern \"C\" {\n\n";
  auto infoArray = [&](const std::vector<TensorDesc> &list, StringRef what, StringRef name) {
    std::string s = fmt::format("const tract_tensor_info {}_{}[] = {{\n", P, name.str());
    for (size_t i = 0; i < list.size(); ++i)
      s += fmt::format("    {{\"{}\", {}, {}, {}, {}u}},\n", cStringEscape(list[i].name),
                       list[i].onnxType, list[i].shape.size(),
                       list[i].shape.empty() ? std::string("nullptr")
                                             : fmt::format("k{}Shape{}", what.str(), i),
                       list[i].bytes);
    if (list.empty())
      s += "    {\"\", 0, 0, nullptr, 0u},\n";
    return s + "};\n\n";
  };
  src += infoArray(pm.inputs, "Input", "inputs") + infoArray(pm.outputs, "Output", "outputs");
  return src;

}

// The header's list of the inputs --input-value fixed (not in PREFIX_inputs).
static std::string fixedInputsNote(const PlannedModel &pm, const std::string &prefix) {
  if (pm.fixedInputs.empty())
    return "";
  std::string s = fmt::format("\n *\n * Inputs fixed at compile time (--input-value), not in {}_inputs:", prefix);
  for (const FixedInput &f : pm.fixedInputs) {
    std::string shape = f.type.getRank() == 0
                            ? "scalar"
                            : fmt::format("[{}]", fmt::join(f.type.getShape(), ", "));
    // Long value lists are cut: the report has them all.
    std::vector<std::string> shown(f.values.begin(),
                                   f.values.begin() + std::min<size_t>(f.values.size(), 8));
    if (shown.size() < f.values.size())
      shown.push_back("...");
    s += fmt::format("\n *   {} ({} {}) = {}", commentSafe(f.name), dtypeName(f.type.getElementType()), shape,
                     fmt::join(shown, ", "));
  }
  return s;
}

std::vector<std::pair<std::string, std::string>>
mlir::tract::commonTemplateVars(const PlannedModel &pm, const EmitOptions &options) {
  std::string macro = options.prefix;
  for (char &c : macro)
    c = toupper((unsigned char)c);
  return {
      {"VERSION", TRACTC_VERSION},
      {"COMMAND", commentSafe(options.commandLine)},
      {"MODEL", commentSafe(options.modelName)},
      {"PRODUCER", commentSafe(pm.producer)},
      {"OPSET", std::to_string(pm.opset)},
      {"GUARD", "TRACT_MODEL_" + macro + "_H"},
      {"PREFIX", options.prefix},
      {"MACRO", macro},
      {"ABI", std::to_string(kRuntimeAbiVersion)},
      {"STRING_BYTES", std::to_string(kStringSlotBytes)},
      {"NUM_INPUTS", std::to_string(pm.inputs.size())},
      {"NUM_OUTPUTS", std::to_string(pm.outputs.size())},
      {"FIXED_INPUTS", fixedInputsNote(pm, options.prefix)},
  };
}
