#!/usr/bin/env bash
# Builds and runs bench/conv/lanes: the convs on the lane kernels' register
# tiles (MobileNetV2's pointwise convs into and out of lane layout, a stem,
# convs by taps, depthwise convs alone and after a fused expand), one
# thread, GFLOP/s and fraction of the FMA peak; 3x3 convs on Winograd F(4x4).
#   --against REF   the same convs on the runtime at git revision REF and on
#                   the working tree's, paired in one process: new / base.
#   --only TEXT     (last) the cases whose kernel's name holds TEXT
#                   ("winograd", "depthwise", "taps", ...).
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/bench/lanes
mkdir -p "$out"
flags=(-std=c++17 ${CXXFLAGS:--O3 -march=native} -I.)
only=()
if [[ "${1:-}" == "--only" ]]; then only=(--only "$2"); shift 2; fi
if [[ "${3:-}" == "--only" ]]; then only=(--only "$4"); fi
if [[ "${1:-}" == "--against" ]]; then
  rm -rf "$out/base" && mkdir -p "$out/base"
  git archive "$2" runtime | tar -x -C "$out/base"
  g++ "${flags[@]}" -Iruntime/include -DLANES_TIME_FN=lanes_time_new \
    -c bench/conv/lanes/lanes_time.cpp -o "$out/new.o"
  g++ "${flags[@]}" -I"$out/base/runtime/include" -DLANES_TIME_FN=lanes_time_base \
    -Dtract=tract_base -c bench/conv/lanes/lanes_time.cpp -o "$out/base.o"
  g++ "${flags[@]}" -DLANES_PAIRED bench/conv/lanes/lanes_main.cpp "$out/new.o" "$out/base.o" \
    -o "$out/lanes_paired"
  exec "$out/lanes_paired" "${only[@]}"
fi
g++ "${flags[@]}" -Iruntime/include bench/conv/lanes/lanes_main.cpp \
  bench/conv/lanes/lanes_time.cpp -o "$out/lanes_bench"
exec "$out/lanes_bench" "${only[@]}"
