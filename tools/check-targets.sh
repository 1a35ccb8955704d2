#!/usr/bin/env bash
# Embedded targets, from tractc's installed CMake package (build/install):
#  - examples/firmware cross-built for aarch64 and armv7 (NEON, VFPv4) and run
#    under qemu-user: the outputs must match torch;
#  - a conformance subset and two real models (kws_cnn, mlp) built by the
#    cross compilers and run under qemu-user (the NEON GEMM micro-kernels);
#  - examples/cortex-m7 linked for a bare-metal Cortex-M7 with newlib: no heap
#    or unwinding symbols in the ELF; its sizes are printed.
# Needs tools/build.sh first. Last line: `N passed, M failed`.
#
#   tools/check-targets.sh [--every N --offset D]
#     the conformance subset on every Nth test only, from the D-th (modulo N):
#     CI's daily sample (run_conformance.py's --every / --offset).
set -uo pipefail
cd "$(dirname "$0")/.."
every=1 offset=0
while [ $# -gt 0 ]; do
  case "$1" in
    --every) every=$2; shift 2 ;;
    --offset) offset=$2; shift 2 ;;
    *) echo "usage: $0 [--every N --offset D]" >&2; exit 2 ;;
  esac
done
passed=0
failed=0
check() { # check NAME COMMAND...: one counted step
  local name=$1
  shift
  if "$@"; then passed=$((passed + 1)); echo "  ok    $name"
  else failed=$((failed + 1)); echo "  FAIL  $name"; fi
}

cmake --install build --prefix build/install > /dev/null || { echo "0 passed, 1 failed"; exit 1; }
pkg="$PWD/build/install/lib/cmake/tractc"

cross_example() { # cross_example TOOLCHAIN QEMU SYSROOT
  local dir=build/example-$1
  rm -rf "$dir"
  cmake -S examples/firmware -B "$dir" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/$1.cmake" \
    -Dtractc_DIR="$pkg" > "$dir.log" 2>&1 && cmake --build "$dir" >> "$dir.log" 2>&1 &&
    "$2" -L "$3" "$dir/firmware" | tee -a "$dir.log" | grep -q "matches torch" ||
    { tail -20 "$dir.log"; return 1; }
}
check "firmware example, aarch64 under qemu" cross_example aarch64-linux-gnu qemu-aarch64 /usr/aarch64-linux-gnu
check "firmware example, armv7 under qemu" cross_example armv7-linux-gnueabihf qemu-arm /usr/arm-linux-gnueabihf

# The ops with NEON code paths or the GEMM under them: convolutions, matmuls,
# pools, activations, softmax, batch norm, element-wise arithmetic (the
# portable ops, layer norm, resize and data movement, ran here too until the
# suite passed 45 minutes: 179 tests then, 89 now).
SUBSET='^node/test_(conv|gemm|matmul|maxpool|averagepool|relu|sigmoid|tanh|softmax|batchnorm|add|mul)'
logged() { # logged LOG COMMAND...: COMMAND's output into LOG, its last line shown
  local log=$1
  shift
  "$@" > "$log" 2>&1
  local rc=$?
  tail -1 "$log"
  return $rc
}
cross_conformance() { # cross_conformance CXX QEMU SYSROOT FLAGS
  logged "build/conformance-$1.log" /usr/bin/python3 test/conformance/run_conformance.py \
    -j "$(nproc)" --filter "$SUBSET" --every "$every" --offset "$offset" --cxx "$1" \
    --emulator "$2 -L $3" --cxxflags="$4"
}
check "conformance subset, aarch64 under qemu" \
  cross_conformance aarch64-linux-gnu-g++ qemu-aarch64 /usr/aarch64-linux-gnu ""
check "conformance subset, armv7 under qemu" \
  cross_conformance arm-linux-gnueabihf-g++ qemu-arm /usr/arm-linux-gnueabihf "-mfpu=neon-vfpv4"

# Two real models (the end-to-end tests' keyword-spotting CNN and MLP), built
# by the cross compilers with -O2 and run under qemu-user: outputs must match
# torch, and match themselves on 2 threads.
cross_models() { # cross_models CXX QEMU SYSROOT FLAGS
  logged "build/e2e-$1.log" /usr/bin/python3 test/e2e/run_e2e.py --only kws_cnn --only mlp \
    --skip-hygiene --workdir "build/e2e-$1" --cxx "$1" --cxxflags="$4" --emulator "$2 -L $3"
}
check "models kws_cnn and mlp, aarch64 under qemu" \
  cross_models aarch64-linux-gnu-g++ qemu-aarch64 /usr/aarch64-linux-gnu ""
check "models kws_cnn and mlp, armv7 under qemu" \
  cross_models arm-linux-gnueabihf-g++ qemu-arm /usr/arm-linux-gnueabihf "-mfpu=neon-vfpv4"

cortex_m7() {
  local dir=build/example-cortex-m7
  rm -rf "$dir"
  cmake -S examples/cortex-m7 -B "$dir" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/cortex-m7.cmake" \
    -Dtractc_DIR="$pkg" > "$dir.log" 2>&1 && cmake --build "$dir" >> "$dir.log" 2>&1 ||
    { tail -20 "$dir.log"; return 1; }
  arm-none-eabi-size "$dir/firmware.elf"
  ! arm-none-eabi-nm -C "$dir/firmware.elf" |
    grep -E ' (malloc|_malloc_r|operator new|operator delete|__cxa_|_Unwind_)'
}
check "Cortex-M7 bare-metal link (newlib), no heap or unwinding" cortex_m7

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
