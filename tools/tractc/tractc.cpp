//===- tractc.cpp - the tract ahead-of-time compiler driver -----------------===//
//
// model.onnx -> (Import) tract IR -> (optimize) -> (codegen: memory plan)
// -> (Emit) model.cpp + model.h. --emit=STAGE prints the IR after a stage.
// Exit status: 0 success, 1 error, 2 unsupported model feature. Output files
// are written to temporaries and renamed only once everything succeeded, so a
// failure never leaves a partial file.
//
//===----------------------------------------------------------------------===//

#include "compiler/Emit/CppEmitter.h"
#include "compiler/EmitSpirv/SpirvEmitter.h"
#include "compiler/Import/Importer.h"
#include "compiler/Import/OnnxModel.h"
#include "compiler/Pipelines.h"
#include "compiler/Support/CpuModels.h"
#include "tools/tractc/Fallback.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace mlir;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("tractc options");

cl::opt<std::string> inputPath(cl::Positional, cl::desc("<model.onnx>"), cl::cat(category));
cl::opt<std::string> outputPath("o", cl::desc("Output file: OUT.cpp (OUT.h is written beside "
                                              "it); with --emit=IR stages, '-' or omitted "
                                              "prints to stdout"),
                                cl::value_desc("OUT.cpp"), cl::cat(category));
cl::opt<std::string> target("target",
                            cl::desc("Target: generic, x86-64-avx2, x86-64-avx512, aarch64, "
                                     "armv7-neon or spirv (default generic)"),
                            cl::init("generic"), cl::cat(category));
cl::opt<std::string> cpu("cpu",
                         cl::desc("CPU kind whose costs choose the conv algorithms and the "
                                  "threading: generic, znver4, znver5, icelake-server, or "
                                  "native (the build machine's; default generic). The "
                                  "instruction set stays your compiler flags' choice"),
                         cl::init("generic"), cl::cat(category));
cl::list<std::string> inputShapes("input-shape",
                                  cl::desc("Pin an input's shape: NAME=D0,D1,... (repeatable; "
                                           "NAME= for a scalar)"),
                                  cl::value_desc("NAME=D0,D1,..."), cl::cat(category));
cl::list<std::string> inputValues("input-value",
                                  cl::desc("Fix an input's value at compile time: NAME=V[,V...] "
                                           "(repeatable); what depends on it folds, and the "
                                           "input leaves the C ABI"),
                                  cl::value_desc("NAME=V,..."), cl::cat(category));
cl::opt<std::string> prefix("name", cl::desc("C symbol prefix (default: the output file's name)"),
                            cl::value_desc("PREFIX"), cl::cat(category));
cl::opt<std::string> emitStage("emit",
                               cl::desc("Stop after a stage and print its IR: import, optimize, "
                                        "fuse, plan; with --target=spirv glsl or spirv-asm "
                                        "(the kernels); or cpp (default: write OUT.cpp and "
                                        "OUT.h)"),
                               cl::init("cpp"), cl::cat(category));
cl::opt<bool> withMain("main", cl::desc("Add a main() driver: ./model in0.npy ... -o OUTDIR "
                                        "[--repeat N] [--threads T]"),
                       cl::cat(category));
cl::opt<bool> fp16Gemm("fp16-gemm",
                       cl::desc("With --target=spirv: convs and matmuls on the device's "
                                "cooperative-matrix units, fp16 operands and fp32 sums "
                                "(needs VK_NV_cooperative_matrix)"),
                       cl::cat(category));
cl::opt<bool> alwaysSplit("always-split",
                          cl::desc("Split kernels over model_run_threads' threads even in a "
                                   "model small enough to run faster on one (to test the "
                                   "threaded paths on small models)"),
                          cl::cat(category));
cl::opt<bool> noOptimize("no-optimize",
                         cl::desc("Skip the graph optimizer (declutter): one kernel per "
                                  "imported op, to check that rewrites keep results"),
                         cl::cat(category));
cl::opt<bool> listOps("list-ops",
                      cl::desc("Print the supported ONNX ops as a Markdown table and exit"),
                      cl::cat(category));
// Testing only: make kernel choice fail on one ONNX node, to check that the
// model still compiles with that node in its plain form (Fallback.h).
cl::opt<std::string> injectFailure("inject-failure", cl::Hidden,
                                   cl::desc("Testing: fail kernel choice on this ONNX node"),
                                   cl::value_desc("NODE"), cl::cat(category));
cl::opt<std::string> reportPath("report", cl::desc("Write a JSON description of the kernels"),
                                cl::value_desc("FILE.json"), cl::cat(category));

std::string modelName;
bool sawError = false;
// An op the SPIR-V target does not run yet: exit 2, as for an op the importer
// does not support.
bool unsupportedOnGpu = false;

// "tractc: error: model.onnx: node 'conv1' (Conv): expected ..., got ..."
void printDiagnostic(Diagnostic &diag) {
  const char *kind = diag.getSeverity() == DiagnosticSeverity::Error     ? "error"
                     : diag.getSeverity() == DiagnosticSeverity::Warning ? "warning"
                                                                         : "note";
  std::string where;
  auto nodes = mlir::tract::nodesOfLocation(diag.getLocation());
  if (!nodes.empty())
    where = "node '" + nodes[0].first + "' (" + nodes[0].second + "): ";
  llvm::errs() << "tractc: " << kind << ": " << modelName << ": " << where << diag.str() << "\n";
  if (diag.getSeverity() == DiagnosticSeverity::Error)
    sawError = true;
  if (diag.str().find("not supported by --target=spirv") != std::string::npos)
    unsupportedOnGpu = true;
}

int fail(const llvm::Twine &message) {
  llvm::errs() << "tractc: error: " << message << "\n";
  return 1;
}

bool parseShapes(mlir::tract::ImportOptions &options) {
  for (const std::string &spec : inputShapes) {
    size_t eq = spec.rfind('=');
    if (eq == std::string::npos || eq == 0) {
      fail("--input-shape expects NAME=D0,D1,..., got '" + spec + "'");
      return false;
    }
    std::vector<int64_t> dims;
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(spec).substr(eq + 1).split(parts, ',', -1, false);
    for (llvm::StringRef p : parts) {
      int64_t d;
      if (p.trim().getAsInteger(10, d) || d < 0) {
        fail("--input-shape " + spec + ": '" + p + "' is not a non-negative integer");
        return false;
      }
      dims.push_back(d);
    }
    options.inputShapes[spec.substr(0, eq)] = dims;
  }
  return true;
}

// NAME=V,V,...: the values stay text here; the importer parses them in the
// input's dtype.
bool parseValues(mlir::tract::ImportOptions &options) {
  for (const std::string &spec : inputValues) {
    size_t eq = spec.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
      fail("--input-value expects NAME=V[,V...], got '" + spec + "'");
      return false;
    }
    std::string name = spec.substr(0, eq);
    if (options.inputValues.count(name)) {
      fail("--input-value " + name + " is given twice");
      return false;
    }
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(spec).substr(eq + 1).split(parts, ',', -1, true);
    std::vector<std::string> &values = options.inputValues[name];
    for (llvm::StringRef p : parts)
      values.push_back(p.trim().str());
  }
  return true;
}

// Writes `text` to `path` through a temporary in the same folder.
bool writeTemp(const std::string &path, const std::string &text, std::string &tempPath) {
  tempPath = path + ".tmp-tractc-" + std::to_string(llvm::sys::Process::getProcessId());
  std::error_code ec;
  llvm::raw_fd_ostream os(tempPath, ec);
  if (ec) {
    fail("cannot write '" + path + "': " + ec.message());
    return false;
  }
  os << text;
  os.close();
  if (os.has_error()) {
    llvm::sys::fs::remove(tempPath);
    fail("cannot write '" + path + "'");
    return false;
  }
  return true;
}

bool commitFiles(const std::vector<std::pair<std::string, std::string>> &files) {
  std::vector<std::pair<std::string, std::string>> temps;
  for (const auto &[path, text] : files) {
    std::string temp;
    if (!writeTemp(path, text, temp)) {
      for (auto &t : temps)
        llvm::sys::fs::remove(t.first);
      return false;
    }
    temps.push_back({temp, path});
  }
  for (const auto &[temp, path] : temps)
    if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
      for (auto &t : temps)
        llvm::sys::fs::remove(t.first);
      fail("cannot write '" + path + "': " + ec.message());
      return false;
    }
  return true;
}

int printIR(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  os.flush();
  if (outputPath.empty() || outputPath == "-") {
    llvm::outs() << text;
    return 0;
  }
  return commitFiles({{outputPath, text}}) ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) { os << "tractc " << TRACTC_VERSION << "\n"; });
  // --mlir-print-debuginfo etc. work with --emit; hidden from --help.
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(category);
  std::string commandLine = "tractc";
  for (int i = 1; i < argc; ++i)
    commandLine += std::string(" ") + argv[i];
  cl::ParseCommandLineOptions(
      argc, argv,
      "tractc: compile an ONNX model to heap-free C++ (model.cpp + model.h)\n\n"
      "  tractc model.onnx -o model.cpp [--input-shape x=1,3,224,224] [--main]\n");

  if (listOps) {
    llvm::outs() << "| ONNX op | opsets |\n|---|---|\n";
    for (const auto &[op, since] : mlir::tract::supportedOnnxOps())
      llvm::outs() << "| " << op << " | " << since << "+ |\n";
    return 0;
  }
  if (inputPath.empty())
    return fail("no input model (see --help)");
  modelName = llvm::sys::path::filename(inputPath).str();
  static const char *const stages[] = {"import", "optimize", "fuse",     "plan",
                                       "glsl",   "spirv-asm", "cpp"};
  if (std::find(std::begin(stages), std::end(stages), emitStage.getValue()) == std::end(stages))
    return fail("--emit expects import, optimize, fuse, plan, glsl, spirv-asm or cpp, got '" +
                emitStage + "'");
  static const char *const targets[] = {"generic", "x86-64-avx2", "x86-64-avx512", "aarch64",
                                        "armv7-neon", "spirv"};
  if (std::find(std::begin(targets), std::end(targets), target.getValue()) == std::end(targets))
    return fail("--target expects generic, x86-64-avx2, x86-64-avx512, aarch64, armv7-neon or "
                "spirv, got '" + target + "'");
  bool gpu = target == "spirv";
  std::string hostCpu;
  const mlir::tract::CpuModel *cpuModel = cpu == "native"
                                              ? &mlir::tract::hostCpuModel(hostCpu)
                                              : mlir::tract::lookupCpuModel(cpu);
  if (!cpuModel)
    return fail("--cpu expects " + mlir::tract::cpuModelNames() + ", got '" + cpu + "'");
  std::string cpuNamed = "--cpu=" + cpu;
  if (!hostCpu.empty())
    cpuNamed += " (" + hostCpu + ")";
  if (gpu && cpu != "generic")
    return fail(cpuNamed + " is for the CPU targets, not --target=spirv");
  if (cpuModel->x86 && (target == "aarch64" || target == "armv7-neon"))
    return fail(cpuNamed + " is an x86-64 CPU, not one for --target=" + target);
  if ((emitStage == "glsl" || emitStage == "spirv-asm") && !gpu)
    return fail("--emit=" + emitStage + " needs --target=spirv");
  if (fp16Gemm && !gpu)
    return fail("--fp16-gemm needs --target=spirv");
  if (emitStage == "cpp" && (outputPath.empty() || outputPath == "-"))
    return fail("-o OUT.cpp is required to write C++");
  mlir::tract::ImportOptions importOptions;
  if (!parseShapes(importOptions) || !parseValues(importOptions))
    return 1;

  ::tract::onnx::Model model;
  std::string error;
  if (!::tract::onnx::loadModel(inputPath, model, error))
    return fail(inputPath + ": " + error);

  DialectRegistry registry;
  mlir::tract::registerTractDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  ScopedDiagnosticHandler handler(&context, [](Diagnostic &diag) {
    printDiagnostic(diag);
    return success();
  });

  mlir::tract::ImportResult imported = mlir::tract::importModel(context, model, importOptions);
  if (!imported.module)
    return imported.unsupported ? 2 : 1;
  ModuleOp module = *imported.module;
  // The pass manager verifies after every pass (its default, kept on: a
  // pass that breaks the IR is an error here, not bad code); the imported
  // module is verified here.
  if (failed(mlir::verify(module)))
    return fail(inputPath + ": the imported IR does not verify (an importer bug)");
  if (emitStage == "import")
    return printIR(module);

  mlir::tract::EmitOptions emitOptions;
  std::string stem = llvm::sys::path::stem(outputPath).str();
  emitOptions.prefix = mlir::tract::cIdentifier(prefix.empty() ? stem : prefix.getValue());
  emitOptions.headerName = stem + ".h";
  emitOptions.commandLine = commandLine;
  emitOptions.modelName = modelName;
  emitOptions.target = target;
  emitOptions.cpu = cpuModel->name.str();
  emitOptions.hostCpu = hostCpu;
  emitOptions.oneCoreBytes = cpuModel->l2Bytes;
  emitOptions.smallModelsByRows = cpuModel->smallModelsByRows;
  emitOptions.withMain = withMain;
  emitOptions.fp16Gemm = fp16Gemm;
  emitOptions.alwaysSplit = alwaysSplit;
  mlir::tract::EmittedCpp emitted;
  std::string shaderText;
  bool shaders = emitStage == "glsl" || emitStage == "spirv-asm";
  // One attempt: the pipelines, then the emitter, on a copy of the imported
  // module (Fallback.h retries without what failed).
  auto attempt = [&](ModuleOp m, tractc::AttemptConfig config) -> LogicalResult {
    PassManager pm(&context);
    pm.enableVerifier(true);
    if (config.declutter)
      mlir::tract::buildOptimizePipeline(pm);
    if (config.fuse && emitStage != "optimize")
      mlir::tract::buildFusePipeline(pm);
    if (emitStage != "optimize" && emitStage != "fuse") {
      if (gpu)
        mlir::tract::buildGpuCodegenPipeline(pm);
      else
        mlir::tract::buildCodegenPipeline(pm, cpuModel->name.str(), injectFailure);
    }
    if (failed(pm.run(m)))
      return failure();
    if (shaders) {
      mlir::tract::GlslOptions glslOptions{fp16Gemm};
      FailureOr<std::string> text = emitStage == "glsl"
                                        ? mlir::tract::emitGlsl(m, glslOptions)
                                        : mlir::tract::emitSpirvAsm(m, glslOptions);
      if (failed(text))
        return failure();
      shaderText = *text;
      return success();
    }
    if (emitStage != "cpp")
      return success();
    emitted = mlir::tract::EmittedCpp();
    return gpu ? mlir::tract::emitSpirvCpp(m, emitOptions, emitted)
               : mlir::tract::emitCpp(m, emitOptions, emitted);
  };
  std::vector<tractc::PlainNodes> fallbacks;
  FailureOr<OwningOpRef<ModuleOp>> compiled =
      tractc::compileWithFallback(module, !noOptimize, attempt, fallbacks);
  if (failed(compiled) || sawError)
    return unsupportedOnGpu ? 2 : 1;
  for (const tractc::PlainNodes &f : fallbacks) {
    std::string which = f.nodes.empty() ? std::string("") : "node '" + f.nodes[0] + "'";
    for (size_t i = 1; i < f.nodes.size(); ++i)
      which += ", '" + f.nodes[i] + "'";
    llvm::errs() << "tractc: warning: " << modelName << ": "
                 << (f.nodes.empty() ? "" : which + ": an optimisation failed, kept in plain "
                                                    "form (see --report): ")
                 << f.reason << "\n";
  }
  module = **compiled;
  if (shaders) {
    if (outputPath.empty() || outputPath == "-") {
      llvm::outs() << shaderText;
      return 0;
    }
    return commitFiles({{outputPath, shaderText}}) ? 0 : 1;
  }
  if (emitStage != "cpp")
    return printIR(module);

  llvm::SmallString<256> headerPath(outputPath.getValue());
  llvm::sys::path::replace_extension(headerPath, ".h");
  if (headerPath == outputPath || (!reportPath.empty() && (reportPath == outputPath ||
                                                           reportPath == headerPath.str())))
    return fail("-o " + outputPath + " and --report must name distinct files, and the output "
                "must not end in .h");
  std::vector<std::pair<std::string, std::string>> files = {
      {outputPath, emitted.source}, {headerPath.str().str(), emitted.header}};
  if (!reportPath.empty())
    files.push_back({reportPath, mlir::tract::emitReport(module, emitOptions)});
  return commitFiles(files) ? 0 : 1;
}
