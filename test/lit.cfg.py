# lit configuration for tractc: dialect, importer, codegen and emitter tests.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "TRACTC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".onnxtext", ".test"]
config.excludes = ["Inputs", "runtime", "conformance", "e2e", "zoo", "oracle", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tractc_obj_root, "test")

# Debian's python with onnx/numpy is /usr/bin/python3 (TOOLCHAIN.md).
config.substitutions.append(("%python", "/usr/bin/python3"))
config.substitutions.append(("%onnxtext", "/usr/bin/python3 %s/test/Inputs/onnxtext.py" % config.tractc_src_root))
config.substitutions.append(("%rt_include", os.path.join(config.tractc_src_root, "runtime", "include")))
# --target=spirv tests run on Mesa's lavapipe unless VK_DRIVER_FILES names
# another driver (TOOLCHAIN.md).
config.environment["VK_DRIVER_FILES"] = os.environ.get(
    "VK_DRIVER_FILES", "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json")
config.substitutions.append(("%check_npy", "/usr/bin/python3 %s/test/Inputs/check_npy.py" % config.tractc_src_root))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.tractc_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["tractc", "tract-opt", "FileCheck", "not"], tool_dirs)
