#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install packages, build tractc,
# install it (with its CMake package) under build/install, then build
# examples/firmware -- a firmware-style CMake project that compiles
# examples/models/tiny_cnn.onnx with tractc_add_model() at build time -- and
# run it.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = "--no-install" ] || tools/install-deps.sh
tools/build.sh
cmake --install build --prefix build/install > /dev/null
cmake -S examples/firmware -B build/example -G Ninja \
  -Dtractc_DIR="$PWD/build/install/lib/cmake/tractc"
cmake --build build/example
build/example/firmware
