//===- SpirvEmitter.h - planned tract IR -> SPIR-V kernels + Vulkan host code -*- C++ -*-===//
//
// --target=spirv: each kernel of the planned model becomes a GLSL compute
// shader (GlslKernels.h), compiled and validated inside tractc
// (ShaderCompiler.h) and embedded in OUT.cpp as uint32_t words, with the
// re-laid weights and the model's description for the Vulkan host runtime
// (runtime/include/tract/vk/runtime.h). OUT.h is the CPU's C ABI plus
// PREFIX_gpu_* for the device session.
//
//===----------------------------------------------------------------------===//
#ifndef TRACT_EMITSPIRV_SPIRVEMITTER_H
#define TRACT_EMITSPIRV_SPIRVEMITTER_H

#include "compiler/Emit/CppEmitter.h"
#include "compiler/EmitSpirv/GlslKernels.h"

namespace mlir::tract {

/// The GLSL of every kernel, in execution order (--emit=glsl).
FailureOr<std::string> emitGlsl(ModuleOp module, const GlslOptions &options);
/// The SPIR-V assembly of every kernel (--emit=spirv-asm).
FailureOr<std::string> emitSpirvAsm(ModuleOp module, const GlslOptions &options);
/// OUT.cpp and OUT.h for the Vulkan runtime.
LogicalResult emitSpirvCpp(ModuleOp module, const EmitOptions &options, EmittedCpp &out);

} // namespace mlir::tract

#endif // TRACT_EMITSPIRV_SPIRVEMITTER_H
