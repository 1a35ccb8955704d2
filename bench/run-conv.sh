#!/usr/bin/env bash
# Builds bench/conv/conv_bench.cpp with -O3 -march=native and runs it: 3x3
# convs as im2col GEMM vs Winograd F(2x2,3x3) / F(4x4,3x3) (and the tile size
# the compiler's cost model picks), the cost model's constants that choose
# best on this CPU, conv_by_taps vs F(2x2) on maps 5-8 wide and the width up
# to which taps win, conv_by_taps vs im2col on deeper convs and the outputs
# from which im2col wins (--fit-only stops there), stems, depthwise convs per
# channel. One thread.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/bench
g++ -std=c++17 -O3 -march=native -I. -Iruntime/include bench/conv/conv_bench.cpp -o build/bench/conv_bench
build/bench/conv_bench "$@"
