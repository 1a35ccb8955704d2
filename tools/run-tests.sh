#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (packages), builds tractc and runs every
# test suite: lit (dialect, importer, passes, emitter), the runtime's gtests,
# the end-to-end torchvision/BERT models (on the CPU and on the SPIR-V target
# on Mesa's lavapipe), the real-world zoo against ONNX Runtime (test/zoo; again
# through a tractc built with ASan + UBSan), the differential graph fuzzer
# against ONNX Runtime (tools/graph-fuzz) and its regressions, the embedded targets (aarch64 and armv7 under
# qemu-user, a Cortex-M7 link), the ONNX conformance suite (CPU and
# SPIR-V), generated code under ASan + UBSan and 60 s of fuzzing. The zoo, the
# conformance suite and the fuzzer's graphs through the ASan tractc run a third
# of their tests each day; the e2e models' --no-optimize and hygiene builds and
# the cross-built conformance subset half (see below).
# The last line is "N passed, M failed" over all of them; exit 1 on any failure.
#
#   tools/run-tests.sh [--no-install] [--quick] [--full]
#     --quick: skip the e2e models and embedded targets, and run conformance on
#              the node suite only.
#     --full:  every test of the sampled stages, not the day's share (CI's
#              sample, below).
set -uo pipefail
cd "$(dirname "$0")/.."

install=1 quick=0 every=3 every_half=2
for arg in "$@"; do
  case "$arg" in
    --no-install) install=0 ;;
    --quick) quick=1 ;;
    --full) every=1 every_half=1 ;;
    *) echo "usage: $0 [--no-install] [--quick] [--full]" >&2; exit 2 ;;
  esac
done

[ "$install" = 1 ] && { tools/install-deps.sh || exit 1; }
tools/build.sh || exit 1

# Generated code must build warning-free: every conformance model is compiled
# with these, so a warning in any kernel instantiation fails its test.
CONF_FLAGS=(--cxxflags="-Wall -Wextra -Wpedantic -Werror")

passed=0 failed=0
log=$(mktemp -d)
# Each stage's header says when it began: CI's time is measured per stage.
stage() { echo "== $1  [$(date +%T), ${SECONDS} s in]"; }
add() { passed=$((passed + $1)); failed=$((failed + $2)); }
# Reads the "N passed, M failed" line a harness printed last.
add_closing() {
  local line
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -1)
  if [ -z "$line" ]; then add 0 1; return; fi
  add "$(echo "$line" | cut -d' ' -f1)" "$(echo "$line" | cut -d' ' -f3)"
}

stage "lit"
/usr/lib/llvm-19/build/utils/lit/lit.py -sv build/test | tee "$log/lit"
lit_pass=$(grep -Eo 'Passed *: *[0-9]+' "$log/lit" | grep -Eo '[0-9]+' | tail -1)
lit_fail=0
for n in $(grep -Eo '(Failed|Unresolved|Timed Out) *: *[0-9]+' "$log/lit" | grep -Eo '[0-9]+$'); do
  lit_fail=$((lit_fail + n))
done
add "${lit_pass:-0}" "${lit_fail:-0}"
[ -z "$lit_pass" ] && add 0 1

stage "runtime gtest"
# The main suite, then the GEMM tests built again for each x86 instruction
# set this CPU runs (test/runtime/CMakeLists.txt), so every micro-kernel runs.
for suite in build/bin/tract-runtime-tests build/bin/tract-isa-tests-* build/bin/tract-vk-tests; do
  [ -x "$suite" ] || continue
  "$suite" --gtest_brief=1 | tee "$log/gtest"
  g_pass=$(grep -Eo '\[  PASSED  \] [0-9]+' "$log/gtest" | grep -Eo '[0-9]+$')
  g_fail=$(grep -Eo '\[  FAILED  \] [0-9]+ test' "$log/gtest" | grep -Eo '[0-9]+' | head -1)
  add "${g_pass:-0}" "${g_fail:-0}"
  [ -z "$g_pass" ] && add 0 1
done

if [ "$quick" = 0 ]; then
  # The fuzz target's build (every tractc source again, with sanitizers) runs
  # in the background from here, one job at low priority: the end-to-end
  # tests use one core, and the fuzz stage then only waits for what is left.
  CMAKE_BUILD_PARALLEL_LEVEL=1 nice -n 15 tools/fuzz.sh --build-only > "$log/fuzz-build" 2>&1 &
  fuzz_build=$!
  # The ONNX conformance suite and the zoo run a third of their tests each
  # day, the rest the next two (run_conformance.py / run_zoo.py --every 3
  # --offset <days since 1970>; --full: all of them). With halves the whole
  # run took 53 minutes on a Zen 5 VM (e2e 11, zoo 7, conformance 6 + 3,
  # embedded targets 5, the ASan stages 8), past CI's 50.
  day=$(( $(date +%s) / 86400 ))
  stage "end-to-end models (torch export, compile, compare)"
  # (--spirv: each model on the SPIR-V target too, on Mesa's lavapipe; half
  # the models a day are also built with --no-optimize and checked for
  # firmware hygiene, the other half the next.)
  /usr/bin/python3 test/e2e/run_e2e.py --spirv --workdir "$log/e2e-work" \
    --extra-checks-every "$every_half" --offset "$day" | tee "$log/e2e"
  add_closing "$log/e2e"
  stage "real-world zoo (third-party npm models, torchvision and torch.nn exports) against ONNX Runtime"
  /usr/bin/python3 test/zoo/run_zoo.py -j "$(nproc)" --workdir build/zoo --every "$every" \
    --offset "$day" | tee "$log/zoo"
  add_closing "$log/zoo"
  stage "differential graph fuzzer against ONNX Runtime (fixed seeds, then its regressions)"
  # 600 random graphs of exporter idioms (tools/graph-fuzz), each compiled
  # optimised and with --no-optimize; a failure names its seed, which
  # graph_fuzz.py --seed S --count 1 shrinks locally.
  /usr/bin/python3 tools/graph-fuzz/graph_fuzz.py --seed 1 --count 600 --no-shrink \
    --workdir build/graph-fuzz --findings "$log/graph-fuzz-findings" | tee "$log/gfuzz"
  add_closing "$log/gfuzz"
  /usr/bin/python3 tools/graph-fuzz/graph_fuzz.py --replay test/graph-fuzz/regressions \
    --workdir build/graph-fuzz | tee "$log/gfuzz"
  add_closing "$log/gfuzz"
  stage "embedded targets (aarch64, armv7 under qemu; Cortex-M7)"
  tools/check-targets.sh --every "$every_half" --offset "$day" | tee "$log/targets"
  add_closing "$log/targets"
  stage "ONNX conformance"
  /usr/bin/python3 test/conformance/run_conformance.py -j "$(nproc)" --every "$every" \
    --offset "$day" "${CONF_FLAGS[@]}" | tee "$log/conf"
  add_closing "$log/conf"
  stage "ONNX conformance on the SPIR-V target (Mesa lavapipe)"
  # -O0: the generated host code only stages buffers and records commands
  # (the kernels are SPIR-V); its build was most of each test's time (-O1:
  # 13% longer). test/Emit/spirv-run.test builds it at -O1 with -Werror.
  # A third of the tests the CPU run above left out today.
  /usr/bin/python3 test/conformance/run_conformance.py -j "$(nproc)" --spirv --opt=-O0 \
    --every "$every" --offset "$(( day + 1 ))" "${CONF_FLAGS[@]}" | tee "$log/conf"
  add_closing "$log/conf"
  stage "generated code under ASan + UBSan (a conformance sample, five e2e models)"
  # Every other test of the families with the most index arithmetic, and
  # models already exported above; a sanitizer report fails the test.
  san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
  families="conv|convtranspose|maxpool|averagepool|gather|scatter|resize|slice|pad|edge_pad"
  families+="|reflect_pad|lstm|gru|einsum|top_k|cumsum|nonzero|depthtospace|roialign"
  families+="|nonmaxsuppression|unique|onehot|strnorm|softmax_axis|gemm|matmul|qlinear"
  /usr/bin/python3 test/conformance/run_conformance.py -j "$(nproc)" --suites node --every 2 \
    --filter "^node/test_($families)(?!.*expanded)" \
    --cxxflags="$san -Wall -Wextra -Wpedantic -Werror" | tee "$log/san"
  add_closing "$log/san"
  /usr/bin/python3 test/e2e/run_e2e.py --workdir "$log/e2e-work" --reuse --skip-hygiene \
    --only kws_cnn,mlp,squeezenet1_1,mobilenet_v2,bert_opset17 --cxxflags="$san" | tee "$log/san"
  add_closing "$log/san"
  stage "fuzzing the importer and the pipelines (60 s, ASan + UBSan)"
  wait "$fuzz_build" || tail -20 "$log/fuzz-build"
  tools/fuzz.sh 60 | tee "$log/fuzz"
  add_closing "$log/fuzz"
  stage "the zoo through a tractc built with ASan + UBSan (compile only)"
  /usr/bin/python3 test/zoo/run_zoo.py -j "$(nproc)" --workdir build/zoo --compile-only \
    --every "$every" --offset "$day" --tractc build-fuzz/bin/tractc | tee "$log/zoo-san"
  add_closing "$log/zoo-san"
  stage "the graph fuzzer's graphs through the ASan + UBSan tractc (compile only)"
  # The 600 graphs of the stage against ONNX Runtime, a third each day (seeds
  # 1-200, 201-400 or 401-600; --full: all): 3 graphs a second.
  san_count=$(( 600 / every ))
  san_seed=$(( 1 + san_count * (day % every) ))
  /usr/bin/python3 tools/graph-fuzz/graph_fuzz.py --compile-only --tractc build-fuzz/bin/tractc \
    --seed "$san_seed" --count "$san_count" --workdir build/graph-fuzz-san | tee "$log/gfuzz-san"
  add_closing "$log/gfuzz-san"
  # (the hostile-model corpus runs in lit: test/Hostile/hostile.test)
else
  stage "ONNX conformance (node suite)"
  /usr/bin/python3 test/conformance/run_conformance.py -j "$(nproc)" --suites node "${CONF_FLAGS[@]}" | tee "$log/conf"
  add_closing "$log/conf"
fi

rm -rf "$log"
echo
stage "done"
echo "all suites: $passed passed, $failed failed"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
