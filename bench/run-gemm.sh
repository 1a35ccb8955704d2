#!/usr/bin/env bash
# Builds bench/gemm/gemm_bench.cpp with -O3 -march=native, or $CXXFLAGS (the
# runtime's AVX-512 / AVX2 / NEON micro-kernel for this machine; firmware
# builds use -O2: CXXFLAGS="-O2 -march=native") and runs it: GFLOP/s
# per shape, medians of --runs runs, each as a fraction of the FMA peak it
# measures first on this CPU (named with its SIMD flags). The runtime
# compiles as at -O3 under GCC whatever the level (tract/rt/optimize_push.h).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/bench
g++ -std=c++17 ${CXXFLAGS:--O3 -march=native} -I. -Iruntime/include bench/gemm/gemm_bench.cpp -o build/bench/gemm_bench
build/bench/gemm_bench "$@"
