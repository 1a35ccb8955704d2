#!/usr/bin/python3
"""Two tractc builds (a change and what it started from) on the same models, in one run.

For each model: `model.cpp` from each tractc (`--main --cpu=native`; --cpu: another CPU kind),
both built with the same flags against this checkout's runtime headers (so the comparison is of
what the compiler generates), their outputs compared with each other, then the two binaries
timed in turn for --rounds rounds (`--repeat N --threads T`, N chosen so a run takes about
--seconds). Prints, per model and
thread count, each side's median of round medians and the median of the rounds' own ratios
new / old (< 1: the change is faster). Pairs a few seconds apart, so this machine's slow spells
hit both sides of a pair; single timings are not comparable across runs.

Usage: compare_builds.py --old-tractc PATH [--new-tractc build/bin/tractc]
                         [--old-runtime DIR] [--only NAME,...] [--threads 1,2] [--rounds 10]
                         [--cpu native]
  --old-runtime: the old side's runtime headers (DIR/runtime/include; a worktree of the base),
  for a change to the runtime (then --old-tractc may be this build's, where the compiler did
  not change).
  Models: the benchmark models (build/bench/models, from bench/run_bench.py or
  bench/export_bench_models.py) or, with --zoo, the zoo's (build/zoo/models and the inputs
  bench/run_zoo_bench.py wrote under build/zoo/bench; compiled with the zoo's own
  --input-shape and --input-value pins, so models with dynamic dims compile).
  To build the old tractc: `git worktree add /tmp/old BASE && cmake -S /tmp/old -B
  /tmp/old/build -G Ninja -DMLIR_DIR=/usr/lib/llvm-19/lib/cmake/mlir && ninja -C
  /tmp/old/build tractc`.
"""
import argparse
import os
import statistics
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "test", "zoo"))
import run_zoo  # noqa: E402
import zoo_models  # noqa: E402


def sh(argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True)


def median_ms(output):
    for line in output.splitlines():
        if line.startswith("median_ms="):
            return float(line.split("=", 1)[1])
    raise RuntimeError("no median_ms in output:\n" + output)


def tractc_argv(tractc, name, onnx, work, zoo):
    """tractc --main into WORK; a zoo model's inputs pinned and fixed as the zoo pins them (its
    dynamic dims: --input-shape, --input-value)."""
    if not zoo:
        return [tractc, onnx, "-o", os.path.join(work, "model.cpp"), "--main"]
    model = zoo_models.BY_NAME[name]
    return run_zoo.tractc_argv(tractc, model, onnx, run_zoo.draw_inputs(model), work)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old-tractc", required=True)
    ap.add_argument("--new-tractc", default=os.path.join(REPO, "build", "bin", "tractc"))
    ap.add_argument("--old-runtime", default=REPO)
    ap.add_argument("--only", default="")
    ap.add_argument("--zoo", action="store_true")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=0.3)
    ap.add_argument("--cxxflags", default="-O3 -march=native")
    ap.add_argument("--cpu", default="native",
                    help="tractc --cpu: the CPU kind its choices are priced for (native: this one)")
    ap.add_argument("--workdir", default=os.path.join(REPO, "build", "compare"))
    args = ap.parse_args()
    root = os.path.join(REPO, "build", "zoo" if args.zoo else "bench")
    models = os.path.join(root, "models")
    names = [n for n in args.only.split(",") if n] or sorted(
        n for n in os.listdir(models) if os.path.isdir(os.path.join(models, n)))
    print(f"tractc --cpu={args.cpu}, g++ {args.cxxflags}")
    print("| model | threads | old ms | new ms | new / old (paired) |\n|---|---|---|---|---|")
    for name in names:
        onnx = os.path.join(models, name, "model.onnx")
        inputs = os.path.join(root, "bench", name) if args.zoo else os.path.join(models, name)
        x = [os.path.join(inputs, f) for f in sorted(os.listdir(inputs))
             if f.startswith("input_") and f.endswith(".npy")]
        exes = {}
        for side, tractc, runtime in (("old", args.old_tractc, args.old_runtime),
                                      ("new", args.new_tractc, REPO)):
            work = os.path.join(args.workdir, name, side)
            os.makedirs(os.path.join(work, "out"), exist_ok=True)
            sh(tractc_argv(tractc, name, onnx, work, args.zoo) + ["--cpu=" + args.cpu])
            exes[side] = os.path.join(work, "model")
            sh(["g++", "-std=c++17", *args.cxxflags.split(), "-I",
                os.path.join(runtime, "runtime", "include"), os.path.join(work, "model.cpp"), "-o",
                exes[side], "-lpthread"])
        outs = {}
        for side, exe in exes.items():
            out = os.path.join(os.path.dirname(exe), "out")
            once = median_ms(sh([exe, *x, "-o", out, "--repeat", "3"]).stdout)
            outs[side] = (out, once)
        a, b = (np.load(os.path.join(outs[s][0], "output_0.npy")) for s in ("old", "new"))
        diff = float(np.abs(a.astype(np.float64) - b.astype(np.float64)).max()) if a.size else 0.0
        repeat = max(5, min(5000, int(args.seconds * 1000 / max(outs["old"][1], 1e-3))))
        for t in [int(v) for v in args.threads.split(",")]:
            times = {"old": [], "new": []}
            for _ in range(args.rounds):
                for side in ("old", "new"):
                    r = sh([exes[side], *x, "-o", outs[side][0], "--repeat", str(repeat),
                            "--threads", str(t)])
                    times[side].append(median_ms(r.stdout))
            paired = statistics.median(n / o for o, n in zip(times["old"], times["new"]))
            print("| %s | %d | %.3f | %.3f | %.3f |" % (
                name, t, statistics.median(times["old"]), statistics.median(times["new"]), paired),
                flush=True)
        if diff > 1e-3:
            print("  (outputs differ: max abs diff %.3g)" % diff, file=sys.stderr)


if __name__ == "__main__":
    main()
