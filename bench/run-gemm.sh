#!/usr/bin/env bash
# Builds bench/gemm/gemm_bench.cpp with -O3 -march=native, or $CXXFLAGS (the
# runtime's AVX-512 / AVX2 / NEON micro-kernel for this machine; firmware
# builds use -O2: CXXFLAGS="-O2 -march=native") and runs it: GFLOP/s
# per shape, medians of --runs runs. Compare against the FMA peak (117
# GFLOP/s per core on the CI machines: 2 x 256-bit FMA per cycle at ~3.7 GHz).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/bench
g++ -std=c++17 ${CXXFLAGS:--O3 -march=native} -Iruntime/include bench/gemm/gemm_bench.cpp -o build/bench/gemm_bench
build/bench/gemm_bench "$@"
