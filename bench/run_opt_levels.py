#!/usr/bin/python3
"""tractc's speed at the optimisation levels users build with: -O3, -O2 and -Os, same model.cpp.

For each benchmark model (bench/export_bench_models.py, exported into --workdir by run_bench.py):
`tractc model.onnx --main` once, the same model.cpp built with `g++ -std=c++17 -O3`, `-O2` and
`-Os` (plus --march, -march=native by default), then the three binaries run in turn for --rounds
rounds (`--repeat N`, N chosen so a run takes about --seconds). Prints each level's median of its
round medians and its ratio to -O3 (issue #25 asks for -O2 within 1.1x, -Os within 1.3x).

Usage: run_opt_levels.py [--only NAME,...] [--rounds 5] [--seconds 0.3] [--threads 1]
                         [--march -march=native] [--workdir build/bench]
"""
import argparse
import json
import os
import statistics

import machine  # bench/machine.py (this script's folder is on sys.path when run)
from run_bench import median_ms, sh

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
LEVELS = ["-O3", "-O2", "-Os"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=0.3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--march", default="-march=native")
    ap.add_argument("--workdir", default=os.path.join(REPO, "build", "bench"))
    ap.add_argument("--tractc", default=os.path.join(REPO, "build", "bin", "tractc"))
    ap.add_argument("--cpu", default="native",
                    help="tractc --cpu: the CPU kind its choices are priced for (native: this one)")
    args = ap.parse_args()

    models_dir = os.path.join(args.workdir, "models")
    manifest = os.path.join(models_dir, "manifest.json")
    if not os.path.exists(manifest):
        raise SystemExit("no %s: run bench/run_bench.py once (it exports the models)" % manifest)
    with open(manifest) as f:
        names = sorted(json.load(f))
    if args.only:
        names = [n for n in names if n in args.only.split(",")]

    cpu, _ = machine.describe("-O3 " + args.march)
    print(cpu)
    print("| model | -O3 ms | -O2 ms | -O2 / -O3 | -Os ms | -Os / -O3 |")
    print("|---|---|---|---|---|---|")
    for name in names:
        d = os.path.join(models_dir, name)
        work = os.path.join(args.workdir, "opt_levels", name)
        os.makedirs(os.path.join(work, "out"), exist_ok=True)
        src = os.path.join(work, "model.cpp")
        sh([args.tractc, os.path.join(d, "model.onnx"), "-o", src, "--main", "--cpu", args.cpu])
        exes = {}
        for level in LEVELS:
            exes[level] = os.path.join(work, "model" + level)
            sh(["g++", "-std=c++17", level, args.march, "-I", os.path.join(REPO, "runtime", "include"),
                src, "-o", exes[level], "-lpthread"])
        inp, out = os.path.join(d, "input_0.npy"), os.path.join(work, "out")

        def run(level, repeat):
            return median_ms(sh([exes[level], inp, "-o", out, "--repeat", str(repeat),
                                 "--threads", str(args.threads)]).stdout)

        once = run("-O3", 3)
        repeat = max(10, min(5000, int(args.seconds * 1000 / max(once, 1e-3))))
        times = {level: [] for level in LEVELS}
        for _ in range(args.rounds):
            for level in LEVELS:
                times[level].append(run(level, repeat))
        ms = {level: statistics.median(v) for level, v in times.items()}
        print("| %s | %.3f | %.3f | %.2f | %.3f | %.2f |" % (
            name, ms["-O3"], ms["-O2"], ms["-O2"] / ms["-O3"], ms["-Os"], ms["-Os"] / ms["-O3"]),
            flush=True)


if __name__ == "__main__":
    main()
