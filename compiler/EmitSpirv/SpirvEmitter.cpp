//===- SpirvEmitter.cpp - planned tract IR -> SPIR-V kernels + Vulkan host code ===//
//
// OUT.cpp holds the weights (re-laid in chunks: GpuLayout), one SPIR-V word
// array per kernel with a comment naming its ONNX nodes, the model's
// description for tract::vk::Session, the tensor descriptions, and the C
// ABI: PREFIX_run / PREFIX_run_threads run the model on the device session,
// created on first use (PREFIX_gpu_init creates it explicitly and says why
// it failed); the arena and thread arguments are unused, the arena size is
// 0. Identical shaders are compiled once.
//
//===----------------------------------------------------------------------===//
#include "compiler/EmitSpirv/SpirvEmitter.h"

#include "compiler/Emit/EmitCommon.h"
#include "compiler/EmitSpirv/GlslKernels.h"
#include "compiler/EmitSpirv/PermutedStores.h"
#include "compiler/EmitSpirv/ShaderCompiler.h"
#include "compiler/Support/ElementsData.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"

#include <fmt/format.h>

#include <map>
#include <optional>

namespace mlir::tract {

namespace {

// One dispatch of a planned kernel (a split-K GEMM has two: `name` tells
// the second from the first).
struct CompiledKernel {
  const Kernel *kernel;
  std::string name;
  GlslKernel glsl;
  int words = -1; // index into CompiledModel::spirv
  bool concurrent = false; // no barrier before it (KernelDesc::concurrent)
};

struct CompiledModel {
  PlannedModel pm;
  GpuLayout layout;
  std::vector<CompiledKernel> kernels;
  std::vector<std::vector<uint32_t>> spirv; // distinct shaders
  bool subgroupArithmetic = false;           // some shader uses it
  bool coopMatrix = false;                   // likewise
};

// The arena bytes [begin, end) a dispatch reads or writes.
using ByteRanges = std::vector<std::pair<int64_t, int64_t>>;

bool overlap(const ByteRanges &a, const ByteRanges &b) {
  for (auto [b0, e0] : a)
    for (auto [b1, e1] : b)
      if (b0 < e1 && b1 < e0)
        return true;
  return false;
}

// Orders the dispatches in levels with a barrier between levels and none
// inside one: a dispatch's level is one past the highest of the earlier
// dispatches it conflicts with (it reads what they write, or writes what
// they read or write), so dispatches that conflict keep their order and
// independent ones share a level (ResNet's downsampling conv beside its
// block's first conv; an encoder's q, k and v projections, then their
// split-K sums). A split-K GEMM reads and writes its scratch slot: its two
// dispatches stay ordered, and so do two split GEMMs given the same slot.
void scheduleDispatches(CompiledModel &m) {
  auto range = [&](Value v) {
    auto p = m.layout.permutedStores.find(v);
    if (p != m.layout.permutedStores.end())
      v = p->second.to; // the producer writes the transpose's output
    return m.layout.arenaRange(v); // nothing for a weight: never written
  };
  auto empty = [](const CompiledKernel &c) { // the runtime records nothing for it
    return c.glsl.groups[0] == 0 || c.glsl.groups[1] == 0 || c.glsl.groups[2] == 0;
  };
  size_t n = m.kernels.size();
  std::vector<ByteRanges> reads(n), writes(n);
  std::vector<int> level(n, 0);
  for (size_t i = 0; i < n; ++i) {
    CompiledKernel &c = m.kernels[i];
    if (empty(c))
      continue;
    for (Value v : c.kernel->op->getOperands())
      if (auto r = range(v))
        reads[i].push_back(*r);
    for (Value v : c.kernel->op->getResults())
      if (auto r = range(v))
        writes[i].push_back(*r);
    if (c.glsl.scratchFloats > 0) {
      int64_t at = c.glsl.scratchOffset * 4;
      reads[i].push_back({at, at + c.glsl.scratchFloats * 4});
      writes[i].push_back({at, at + c.glsl.scratchFloats * 4});
    }
    for (size_t j = 0; j < i; ++j)
      if (level[j] >= level[i] &&
          (overlap(reads[i], writes[j]) || overlap(writes[i], writes[j]) ||
           overlap(writes[i], reads[j])))
        level[i] = level[j] + 1;
  }
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return level[a] < level[b]; });
  std::vector<CompiledKernel> sorted;
  int previous = -1;
  for (size_t i : order) {
    CompiledKernel &c = m.kernels[i];
    c.concurrent = !empty(c) && level[i] == previous;
    if (!empty(c))
      previous = level[i];
    sorted.push_back(std::move(c));
  }
  m.kernels = std::move(sorted);
}

FailureOr<CompiledModel> compileModel(ModuleOp module, const GlslOptions &options,
                                      bool toSpirv) {
  FailureOr<PlannedModel> planned = PlannedModel::analyze(module);
  if (failed(planned))
    return failure();
  CompiledModel m;
  m.pm = std::move(*planned);
  auto func = *module.getOps<func::FuncOp>().begin();
  FailureOr<GpuLayout> layout = GpuLayout::build(m.pm, func);
  if (failed(layout))
    return failure();
  m.layout = std::move(*layout);
  findPermutedStores(m.pm, m.layout);
  // The split-K GEMMs' partial sums go to kScratchSlots slots in turn, each
  // as large as the largest: independent GEMMs in a row (an encoder's q, k
  // and v projections) then touch different bytes and run concurrently
  // (scheduleDispatches). Each kernel's dispatches are built once to size the
  // slots, and those that use the scratch again for theirs.
  constexpr int64_t kScratchSlots = 3;
  std::vector<std::vector<GlslKernel>> built;
  int64_t slotFloats = 0;
  for (const Kernel &k : m.pm.kernels) {
    FailureOr<std::vector<GlslKernel>> dispatches =
        buildGlslKernels(k, m.layout, options, m.layout.scratchOffset);
    if (failed(dispatches))
      return failure();
    for (const GlslKernel &g : *dispatches)
      slotFloats = std::max(slotFloats, (g.scratchFloats + 15) / 16 * 16);
    built.push_back(std::move(*dispatches));
  }
  int64_t splitGemms = 0;
  for (auto [k, dispatches] : llvm::zip(m.pm.kernels, built)) {
    if (llvm::none_of(dispatches, [](const GlslKernel &g) { return g.scratchFloats > 0; }))
      continue;
    if (int64_t slot = splitGemms++ % kScratchSlots)
      dispatches = *buildGlslKernels(k, m.layout, options,
                                     m.layout.scratchOffset + slot * slotFloats);
  }
  m.layout.arenaBytes =
      std::max(m.layout.arenaBytes,
               (m.layout.scratchOffset + std::min(splitGemms, kScratchSlots) * slotFloats) * 4);

  std::optional<ShaderCompiler> compiler;
  if (toSpirv)
    compiler.emplace();
  std::map<std::string, int> bySource;
  for (auto [k, dispatches] : llvm::zip(m.pm.kernels, built)) {
    for (auto [i, g] : llvm::enumerate(dispatches)) {
      m.subgroupArithmetic |= g.subgroupArithmetic;
      m.coopMatrix |= g.coopMatrix;
      CompiledKernel c{&k, i ? fmt::format("{}.{}", k.name, i) : k.name, std::move(g), -1};
      if (toSpirv) {
        // The kernel's name line differs between equal shaders: key on the rest.
        std::string key = c.glsl.source.substr(c.glsl.source.find('\n', 13));
        auto [it, inserted] = bySource.insert({key, (int)m.spirv.size()});
        if (inserted) {
          std::vector<uint32_t> words;
          std::string error;
          if (!compiler->compile(c.name, c.glsl.source, words, error))
            return k.op->emitError("tractc's GLSL for this kernel does not compile (a bug): ")
                   << error;
          m.spirv.push_back(std::move(words));
        }
        c.words = it->second;
      }
      m.kernels.push_back(std::move(c));
    }
  }
  scheduleDispatches(m);
  return m;
}

// ModelDesc::features: what the device must offer the shaders.
std::string features(const CompiledModel &m) {
  std::vector<std::string> bits;
  if (m.subgroupArithmetic)
    bits.push_back("tract::vk::kFeatureSubgroupArithmetic");
  if (m.coopMatrix)
    bits.push_back("tract::vk::kFeatureCoopMatrixF16");
  return bits.empty() ? "0u" : llvm::join(bits, " | ");
}

} // namespace

FailureOr<std::string> emitGlsl(ModuleOp module, const GlslOptions &options) {
  FailureOr<CompiledModel> m = compileModel(module, options, false);
  if (failed(m))
    return failure();
  std::string out;
  for (const CompiledKernel &c : m->kernels)
    out += fmt::format("// ----- {} groups ({}, {}, {}), weight chunks {}+{}{}\n{}", c.name,
                       c.glsl.groups[0], c.glsl.groups[1], c.glsl.groups[2], c.glsl.firstChunk,
                       c.glsl.weightChunks, c.concurrent ? ", concurrent" : "", c.glsl.source);
  return out;
}

FailureOr<std::string> emitSpirvAsm(ModuleOp module, const GlslOptions &options) {
  FailureOr<CompiledModel> m = compileModel(module, options, true);
  if (failed(m))
    return failure();
  ShaderCompiler compiler;
  std::string out;
  for (const CompiledKernel &c : m->kernels)
    out += fmt::format("; ----- {}\n{}", c.name,
                       compiler.disassemble(m->spirv[c.words]));
  return out;
}

LogicalResult emitSpirvCpp(ModuleOp module, const EmitOptions &options, EmittedCpp &out) {
  FailureOr<CompiledModel> compiled = compileModel(module, GlslOptions{options.fp16Gemm}, true);
  if (failed(compiled))
    return failure();
  const CompiledModel &m = *compiled;
  const PlannedModel &pm = m.pm;
  const std::string &P = options.prefix;

  std::string src;
  src += fmt::format("// Generated by tractc {} -- do not edit.\n// {}\n// Model: {} ({}, opset {})\n",
                     TRACTC_VERSION, commentSafe(options.commandLine),
                     commentSafe(options.modelName), commentSafe(pm.producer), pm.opset);
  src += fmt::format("// Target: spirv (Vulkan). Device arena: {} bytes. Weights: {} bytes. "
                     "Kernels: {} ({} distinct shaders).\n\n",
                     m.layout.arenaBytes, m.layout.weights.size(), m.kernels.size(),
                     m.spirv.size());
  src += fmt::format("#include \"{}\"\n\n#include \"tract/vk/runtime.h\"\n\n", options.headerName);
  src += "namespace {\n\n";
  if (!m.layout.weights.empty()) {
    src += "#if defined(__GNUC__)\n#pragma GCC diagnostic push\n"
           "#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n#endif\n";
    src += fmt::format("// Weights, little-endian, in chunks of {} bytes (one storage buffer "
                       "range each).\nalignas(64) const unsigned char kWeights[{}] =\n",
                       GpuLayout::kChunkBytes, m.layout.weights.size() + 1);
    appendByteString(src, m.layout.weights);
    src += "    ;\n#if defined(__GNUC__)\n#pragma GCC diagnostic pop\n#endif\n\n";
  }
  for (size_t s = 0; s < m.spirv.size(); ++s) {
    src += fmt::format("const uint32_t kShader{}[] = {{", s);
    for (size_t w = 0; w < m.spirv[s].size(); ++w)
      src += fmt::format("{}0x{:08x}u,", w % 8 ? " " : "\n    ", m.spirv[s][w]);
    src += "\n};\n\n";
  }
  src += "const tract::vk::KernelDesc kKernels[] = {\n";
  for (const CompiledKernel &c : m.kernels) {
    src += fmt::format("    // {}: {} from ONNX {}\n", c.name,
                       c.kernel->op->getName().getStringRef().str(),
                       commentSafe(c.kernel->onnxDescription()));
    src += fmt::format("    {{\"{}\", kShader{}, {}u, {{{}u, {}u, {}u}}, {}u, {}u, {}u}},\n",
                       c.name, c.words, m.spirv[c.words].size(), c.glsl.groups[0],
                       c.glsl.groups[1], c.glsl.groups[2], c.glsl.firstChunk,
                       c.glsl.weightChunks, c.concurrent ? 1 : 0);
  }
  if (m.kernels.empty())
    src += "    {\"\", nullptr, 0u, {0u, 0u, 0u}, 0u, 0u, 0u},\n";
  src += "};\n\n";
  auto ioArray = [&](const char *name, const std::vector<int64_t> &offsets,
                     const std::vector<TensorDesc> &tensors) {
    src += fmt::format("const tract::vk::IoDesc {}[] = {{\n", name);
    for (size_t i = 0; i < offsets.size(); ++i)
      src += fmt::format("    {{{}u, {}u}},\n", offsets[i], tensors[i].bytes);
    if (offsets.empty())
      src += "    {0u, 0u},\n";
    src += "};\n\n";
  };
  ioArray("kInputs", m.layout.inputOffsets, pm.inputs);
  ioArray("kOutputs", m.layout.outputOffsets, pm.outputs);
  src += fmt::format(
      "const tract::vk::ModelDesc kModel = {{\"{}\", {}, {}u, {}u, {}u, {}u, kInputs, {}u, "
      "kOutputs, {}u, kKernels, {}}};\n\n",
      cStringEscape(options.modelName), m.layout.weights.empty() ? "nullptr" : "kWeights",
      m.layout.weights.size(), GpuLayout::kChunkBytes, m.layout.arenaBytes, pm.inputs.size(),
      pm.outputs.size(), m.kernels.size(),
      features(m));
  src += "// The device session: created on first use, released by PREFIX_gpu_release.\n"
         "// Never destroyed by a static destructor: at exit the Vulkan driver's own\n"
         "// may already have run (NVIDIA's driver then crashes in vkDestroyDevice).\n"
         "tract::vk::Session &session() {\n  static tract::vk::Session *s = new tract::vk::Session;\n"
         "  return *s;\n}\n"
         "int sessionState = 0; // 0: not created, 1: ready, < 0: creation failed\n\n";
  src += tensorInfoArrays(pm, P);
  src += fmt::format(R"(int {0}_gpu_init(void) {{
  if (sessionState == 0)
    sessionState = session().init(kModel) == 0 ? 1 : -1;
  return sessionState == 1 ? 0 : -1;
}}

const char *{0}_gpu_message(void) {{ return session().message(); }}

const char *{0}_gpu_device(void) {{ return session().device_name(); }}

void {0}_gpu_release(void) {{
  session().destroy();
  sessionState = 0;
}}

int {0}_run_threads(const void *const *inputs, void *const *outputs, void *arena,
    tract_parallel_for_fn parallel_for, void *pool, int threads) {{
  (void)arena;
  (void)parallel_for;
  (void)pool;
  (void)threads;
  if ({0}_gpu_init() != 0)
    return -1;
  return session().run(inputs, outputs) == 0 ? 0 : -1;
}}

int {0}_run(const void *const *inputs, void *const *outputs, void *arena) {{
  return {0}_run_threads(inputs, outputs, arena, nullptr, nullptr, 1);
}}

}} // extern "C"
)",
                     P);

  std::string note = fmt::format(
      "\n *\n * Target spirv: the model runs on a Vulkan device (tract/vk/runtime.h; link\n"
      " * -lvulkan). {0}_run ignores the arena and the thread arguments (the arena\n"
      " * size is 0), creates the device session on first use and returns -1 when\n"
      " * that or the run fails ({0}_gpu_message says why). The session is one per\n"
      " * process: {0}_run is not reentrant.",
      P);
  std::string decls = fmt::format(
      "/* Creates the device session now (picks the device: TRACT_VK_DEVICE = an\n"
      " * index or part of a name; uploads the weights; records the model once).\n"
      " * Returns 0, or -1 with {0}_gpu_message() saying why. */\n"
      "int {0}_gpu_init(void);\n"
      "const char *{0}_gpu_message(void);\n"
      "/* The Vulkan device's name once the session exists. */\n"
      "const char *{0}_gpu_device(void);\n"
      "/* Destroys the session (the next run creates it again). */\n"
      "void {0}_gpu_release(void);\n",
      P);
  std::vector<std::pair<std::string, std::string>> vars = commonTemplateVars(pm, options);
  vars.insert(vars.end(), {
      {"ARENA_BYTES", "0"},
      {"THREAD_SCRATCH_BYTES", "0"},
      {"WEIGHTS_BYTES", std::to_string(m.layout.weights.size())},
      {"TARGET_NOTE", note},
      {"TARGET_DECLS", decls},
      {"RUN_FAILED", fmt::format("std::fprintf(stderr, \"error: the model failed: %s\\n\", "
                                 "{}_gpu_message());",
                                 P)},
      {"RELEASE", fmt::format("\n  {}_gpu_release();", P)},
  });
  out.header = substitute(kHeaderTemplate, vars);
  if (options.withMain)
    src += substitute(kMainTemplate, vars);
  out.source = std::move(src);
  return success();
}

} // namespace mlir::tract
