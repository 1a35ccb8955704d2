//===- ShaderCompiler.cpp - GLSL -> validated SPIR-V ----------------------===//
#include "compiler/EmitSpirv/ShaderCompiler.h"

#include <shaderc/shaderc.h>
#include <spirv-tools/libspirv.h>

namespace mlir::tract {

struct ShaderCompiler::Impl {
  shaderc_compiler_t compiler = shaderc_compiler_initialize();
  shaderc_compile_options_t options = shaderc_compile_options_initialize();
  spv_context context = spvContextCreate(SPV_ENV_VULKAN_1_1);
  Impl() {
    shaderc_compile_options_set_target_env(options, shaderc_target_env_vulkan,
                                           shaderc_env_version_vulkan_1_1);
    shaderc_compile_options_set_optimization_level(options,
                                                   shaderc_optimization_level_performance);
  }
  ~Impl() {
    spvContextDestroy(context);
    shaderc_compile_options_release(options);
    shaderc_compiler_release(compiler);
  }
};

ShaderCompiler::ShaderCompiler() : impl(new Impl) {}
ShaderCompiler::~ShaderCompiler() { delete impl; }

bool ShaderCompiler::compile(const std::string &name, const std::string &glsl,
                             std::vector<uint32_t> &words, std::string &error) {
  shaderc_compilation_result_t result =
      shaderc_compile_into_spv(impl->compiler, glsl.data(), glsl.size(),
                               shaderc_compute_shader, name.c_str(), "main", impl->options);
  bool ok = shaderc_result_get_compilation_status(result) == shaderc_compilation_status_success;
  if (!ok) {
    error = shaderc_result_get_error_message(result);
  } else {
    const auto *bytes = reinterpret_cast<const uint32_t *>(shaderc_result_get_bytes(result));
    words.assign(bytes, bytes + shaderc_result_get_length(result) / sizeof(uint32_t));
  }
  shaderc_result_release(result);
  if (!ok)
    return false;
  spv_diagnostic diagnostic = nullptr;
  if (spvValidateBinary(impl->context, words.data(), words.size(), &diagnostic) != SPV_SUCCESS) {
    error = diagnostic && diagnostic->error ? diagnostic->error : "SPIR-V validation failed";
    spvDiagnosticDestroy(diagnostic);
    return false;
  }
  spvDiagnosticDestroy(diagnostic);
  return true;
}

std::string ShaderCompiler::disassemble(const std::vector<uint32_t> &words) {
  spv_text text = nullptr;
  spv_diagnostic diagnostic = nullptr;
  std::string out;
  if (spvBinaryToText(impl->context, words.data(), words.size(),
                      SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT,
                      &text, &diagnostic) == SPV_SUCCESS)
    out.assign(text->str, text->length);
  else
    out = diagnostic && diagnostic->error ? diagnostic->error : "cannot disassemble";
  spvTextDestroy(text);
  spvDiagnosticDestroy(diagnostic);
  return out;
}

} // namespace mlir::tract
