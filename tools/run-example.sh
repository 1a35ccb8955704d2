#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install packages, build tractc,
# then build examples/firmware (a firmware-style CMake project that compiles
# examples/models/tiny_cnn.onnx with tractc at build time) and run it.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = "--no-install" ] || tools/install-deps.sh
tools/build.sh
cmake -S examples/firmware -B build/example -G Ninja \
  -DTRACTC="$PWD/build/bin/tractc" -DTRACT_RUNTIME_INCLUDE="$PWD/runtime/include"
cmake --build build/example
build/example/firmware
