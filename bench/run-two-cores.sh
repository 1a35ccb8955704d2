#!/usr/bin/env bash
# Builds and runs bench/peak/two_cores_main.cpp: what two threads of this
# machine get from its caches and memory (FMA peak alone and together, a
# cache line's round trip, reading the other core's output, DRAM with one
# and two streams). Read 2-thread figures in bench/README.md against it.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/bench
g++ -std=c++17 ${CXXFLAGS:--O3 -march=native} -pthread -I. bench/peak/two_cores_main.cpp \
  -o build/bench/two_cores
build/bench/two_cores "$@"
