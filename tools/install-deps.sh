#!/usr/bin/env bash
# Installs the Debian 12 packages tractc needs to build, test and benchmark.
# Idempotent: packages already present are skipped by apt.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ clang-19 lld-19 libclang-rt-19-dev
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools libzstd-dev
  libprotobuf-dev protobuf-compiler libonnx-dev python3-onnx libonnx-testdata
  libfmt-dev libgtest-dev python3-numpy
  python3-torch python3-torchvision
  qemu-user g++-aarch64-linux-gnu g++-arm-linux-gnueabihf
  gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib
  glslang-dev glslang-tools libshaderc-dev spirv-tools libvulkan-dev mesa-vulkan-drivers
  vulkan-tools
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
