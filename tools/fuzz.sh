#!/usr/bin/env bash
# Builds the libFuzzer target (build-fuzz/: clang-19, every tractc source with
# ASan + UBSan) and fuzzes the importer and the pipelines for SECONDS
# (default 60), seeded with the hostile corpus, the example model and the
# ONNX node tests' models (Debian's libonnx-testdata). Every input that ever
# crashed it is replayed first (test/Hostile/fuzz-regressions/). On a finding
# the input is left in build-fuzz/findings/ and the exit code is 1.
# The last line is "N passed, M failed" (the replays and the fuzzing run).
# --build-only builds the target (and a sanitized build-fuzz/bin/tractc, which
# the zoo runs through) and stops (run-tests.sh builds it early, on
# the core the end-to-end tests leave idle).
#
#   tools/fuzz.sh [SECONDS | --build-only]
set -uo pipefail
cd "$(dirname "$0")/.."
build_only=0
[ "${1:-}" = "--build-only" ] && { build_only=1; shift; }
seconds=${1:-60}

mkdir -p build-fuzz
if [ ! -f build-fuzz/build.ninja ]; then
  cmake -S . -B build-fuzz -G Ninja -DTRACT_FUZZ=ON \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DMLIR_DIR=/usr/lib/llvm-19/lib/cmake/mlir > build-fuzz/configure.log 2>&1 ||
    { cat build-fuzz/configure.log; echo "0 passed, 1 failed"; exit 1; }
fi
cmake --build build-fuzz --target tractc-fuzz tractc || { echo "0 passed, 1 failed"; exit 1; }
[ "$build_only" = 1 ] && exit 0
fuzz=build-fuzz/bin/tractc-fuzz
# LLVM's and MLIR's libraries are Debian's, not instrumented, while their
# headers' inline code in tractc is: the vector annotations and the
# allocators' manual poisoning then disagree (false container-overflow and
# use-after-poison reports), so both are off.
export ASAN_OPTIONS=detect_container_overflow=0:allow_user_poisoning=0:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1

passed=0 failed=0
regressions=(test/Hostile/fuzz-regressions/*)
if [ -e "${regressions[0]}" ]; then
  if "$fuzz" -runs=0 -timeout=30 -rss_limit_mb=4096 -malloc_limit_mb=2048 "${regressions[@]}"; then
    passed=$((passed + 1))
  else
    echo "FAIL: a fuzz regression crashes again"; failed=$((failed + 1))
  fi
fi

# A fixed seed and an empty working corpus: a run here retraces CI's.
seeds=build-fuzz/seeds work=build-fuzz/corpus
rm -rf "$seeds" "$work" && mkdir -p "$seeds" "$work" build-fuzz/findings
cp test/Hostile/corpus/*.onnx examples/models/tiny_cnn.onnx "$seeds"/
for m in /usr/share/libonnx-testdata/data/node/*/model.onnx; do
  [ "$(stat -c %s "$m")" -le 65536 ] && cp "$m" "$seeds/$(basename "$(dirname "$m")").onnx"
done
# The seeds as a sorted list, not a folder (whose order is the file
# system's): with the fixed seed, the same inputs run in the same order on
# every machine, and a machine only gets further or less far in 60 s.
ls "$seeds"/* | LC_ALL=C sort | paste -sd, > build-fuzz/seed-list
if "$fuzz" -seed=1 -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 -malloc_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix=build-fuzz/findings/ \
    -seed_inputs=@build-fuzz/seed-list "$work"; then
  passed=$((passed + 1))
else
  echo "FAIL: the fuzzer found an input: build-fuzz/findings/"; failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
