#!/usr/bin/env bash
# Builds and runs bench/gemm/plane_lines.cpp: the pointwise convs on NCHW
# planes of 55x55, 27x27 and 13x13 floats against the same planes padded to
# whole cache lines, one GEMM at a time (one thread) and three chained as in
# a SqueezeNet fire module (one and two threads): what a layout whose
# planes (or pixels) are whole lines would save.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/bench
g++ -std=c++17 ${CXXFLAGS:--O3 -march=native} -pthread -I. -Iruntime/include \
  bench/gemm/plane_lines.cpp -o build/bench/plane_lines
build/bench/plane_lines "$@"
