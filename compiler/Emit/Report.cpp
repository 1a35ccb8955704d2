//===- Report.cpp - the --report JSON ------------------------------------------===//
#include "compiler/Codegen/Passes.h"
#include "compiler/Emit/CppEmitter.h"
#include "compiler/Emit/EmitCommon.h"
#include "compiler/Emit/ThreadChoice.h"
#include "compiler/Support/ElementsData.h"
#include "dialects/tract/IR/TractOps.h"

#include "llvm/Support/FormatVariadic.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tract;

std::string mlir::tract::emitReport(ModuleOp module, const EmitOptions &options) {
  FailureOr<PlannedModel> planned = PlannedModel::analyze(module);
  if (failed(planned))
    return "";
  const PlannedModel &pm = *planned;
  // ONNX names are arbitrary bytes; JSON strings must be UTF-8.
  auto utf8 = [](const std::string &s) { return llvm::json::isUTF8(s) ? s : llvm::json::fixUTF8(s); };
  auto tensor = [&](Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    llvm::json::Array shape;
    for (int64_t d : t.getShape())
      shape.push_back(d);
    auto off = pm.arenaOffsets.find(v);
    // (Padded planes, tract-pad-planes: the bytes the arena holds, and the
    // floats from one plane to the next.)
    llvm::json::Object o{
        {"tensor", utf8(pm.tensorName(v))},
        {"shape", std::move(shape)},
        {"dtype", dtypeName(t.getElementType())},
        {"bytes", arenaTensorBytes(v)},
        {"arena_offset", off == pm.arenaOffsets.end() ? llvm::json::Value(nullptr)
                                                      : llvm::json::Value(off->second)}};
    if (int64_t stride = planeStrideOf(v))
      o["plane_stride"] = stride;
    return o;
  };
  llvm::json::Array kernels;
  for (const Kernel &k : pm.kernels) {
    llvm::json::Array nodes, ops, inputs, outputs;
    std::vector<std::string> seenOps;
    for (auto &[node, type] : k.nodes) {
      nodes.push_back(utf8(node));
      if (std::find(seenOps.begin(), seenOps.end(), type) == seenOps.end()) {
        seenOps.push_back(type);
        ops.push_back(utf8(type));
      }
    }
    for (Value v : k.op->getOperands())
      inputs.push_back(tensor(v));
    for (Value v : k.op->getResults())
      outputs.push_back(tensor(v));
    llvm::json::Object kernel{{"name", k.name},
                                         {"op", k.op->getName().getStringRef().str()},
                                         {"onnx_nodes", std::move(nodes)},
                                         {"onnx_ops", std::move(ops)},
                                         {"flops", k.call.flops},
                                         {"algorithm", !k.algorithm.empty()     ? k.algorithm
                                                       : !k.call.path.empty() ? k.call.path
                                                                              : std::string("reference")},
                                         {"scratch_bytes", k.scratchBytes},
                                         {"scratch_offset", k.scratchBytes > 0 ? llvm::json::Value(k.scratchOffset) : llvm::json::Value(nullptr)},
                                         {"inputs", std::move(inputs)},
                                         {"outputs", std::move(outputs)}};
    // An optimisation failed on it: it runs its plain (reference) form.
    if (auto why = k.op->getAttrOfType<StringAttr>(kKeepPlainAttr))
      kernel["plain_because"] = utf8(why.getValue().str());
    // A fused kernel also lists the tract ops it runs, in order.
    if (auto fused = dyn_cast<KernelOp>(k.op)) {
      llvm::json::Array body;
      for (Operation &op : fused.getBody().front().without_terminator())
        if (!isa<ConstOp>(op))
          body.push_back(op.getName().getStringRef().str());
      kernel["fused_ops"] = std::move(body);
    }
    kernels.push_back(std::move(kernel));
  }
  // Concats with no kernel: their operands were written in place.
  llvm::json::Array views;
  for (ConcatOp concat : pm.concatViews) {
    llvm::json::Array parts;
    for (Value v : concat.getInputs())
      parts.push_back(tensor(v));
    views.push_back(llvm::json::Object{{"tensor", tensor(concat.getResult())},
                                       {"concat_of", std::move(parts)}});
  }
  // Inputs --input-value fixed at compile time: not in the C ABI.
  llvm::json::Array fixed;
  for (const FixedInput &f : pm.fixedInputs) {
    llvm::json::Array shape, values;
    for (int64_t d : f.type.getShape())
      shape.push_back(d);
    for (const std::string &v : f.values)
      values.push_back(utf8(v));
    fixed.push_back(llvm::json::Object{{"name", utf8(f.name)},
                                       {"dtype", dtypeName(f.type.getElementType())},
                                       {"shape", std::move(shape)},
                                       {"values", std::move(values)}});
  }
  // What tractc fell back from (tools/tractc/Fallback.h): nodes kept plain,
  // or whole stages skipped (no nodes), each with the error that caused it.
  llvm::json::Array fallbacks;
  if (auto list = module->getAttrOfType<ArrayAttr>("tract.fallbacks"))
    for (auto entry : list.getAsRange<DictionaryAttr>()) {
      llvm::json::Array nodes;
      if (auto names = entry.getAs<ArrayAttr>("nodes"))
        for (auto n : names.getAsRange<StringAttr>())
          nodes.push_back(utf8(n.getValue().str()));
      auto reason = entry.getAs<StringAttr>("reason");
      fallbacks.push_back(llvm::json::Object{
          {"onnx_nodes", std::move(nodes)},
          {"reason", reason ? utf8(reason.getValue().str()) : std::string()}});
    }
  const ThreadPlan plan = chooseThreadPlan(pm, options.oneCoreBytes, options.smallModelsByRows,
                                             options.alwaysSplit);
  llvm::json::Object root{{"model", utf8(options.modelName)},
                          {"target", options.target},
                          {"cpu", options.target == "spirv" ? "" : options.cpu},
                          {"host_cpu", options.hostCpu},
                          {"arena_bytes", pm.arenaBytes},
                          {"weights_bytes", (int64_t)pm.weights.size()},
                          {"one_thread", plan == ThreadPlan::OneThread},
                          {"by_rows", plan == ThreadPlan::ByRows},
                          {"fixed_inputs", std::move(fixed)},
                          {"fallbacks", std::move(fallbacks)},
                          {"kernels", std::move(kernels)},
                          {"views", std::move(views)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return os.str();
}
