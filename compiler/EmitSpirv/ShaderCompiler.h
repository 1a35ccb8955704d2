//===- ShaderCompiler.h - GLSL -> validated SPIR-V, inside tractc --*- C++ -*-===//
//
// shaderc (glslang) compiles each kernel's GLSL compute shader for Vulkan
// 1.1, SPIRV-Tools validates the result and prints it as assembly for
// --emit=spirv-asm. Both are linked statically (Debian's libshaderc.so lacks
// its dependencies: TOOLCHAIN.md) and used through their C APIs, which
// neither throw nor need RTTI, as LLVM-built code is compiled without both.
//
//===----------------------------------------------------------------------===//
#ifndef TRACT_EMITSPIRV_SHADERCOMPILER_H
#define TRACT_EMITSPIRV_SHADERCOMPILER_H

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::tract {

class ShaderCompiler {
public:
  ShaderCompiler();
  ~ShaderCompiler();
  ShaderCompiler(const ShaderCompiler &) = delete;
  ShaderCompiler &operator=(const ShaderCompiler &) = delete;

  /// Compiles `glsl` (a compute shader named `name` in messages) and
  /// validates it. False with `error` set (glslang's or the validator's
  /// message) when either fails.
  bool compile(const std::string &name, const std::string &glsl, std::vector<uint32_t> &words,
               std::string &error);
  /// SPIR-V assembly of `words`, with friendly names.
  std::string disassemble(const std::vector<uint32_t> &words);

private:
  struct Impl;
  Impl *impl;
};

} // namespace mlir::tract

#endif // TRACT_EMITSPIRV_SHADERCOMPILER_H
