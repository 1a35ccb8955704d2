#!/usr/bin/python3
"""tractc against ONNX Runtime (CPU) on the benchmark models, in one run, on this machine.

For each model (bench/export_bench_models.py): `tractc model.onnx --main --cpu=native` (--cpu:
another CPU kind), built with
`g++ -O3 -march=native`, timed with the driver's `--repeat N` (median of N runs after a warm-up);
ONNX Runtime 1.30 (onnxruntime-node, installed here on first use) timed by bench/ort_run.js the
same way on the same input. The two alternate for --rounds rounds and each side's figure is the
median of its round medians, so a slow spell on this noisy machine hits both. Before timing,
tractc's output is checked against torch's (max abs diff printed).

Prints a markdown table: times, speedup = ORT time / tractc time (> 1: tractc is faster), and the
median of the rounds' own ratios (each round's two runs back to back: a slow spell that covers
some rounds moves both of a pair).

Usage: run_bench.py [--only NAME,...] [--threads 1,2] [--rounds 5] [--cpu native]
                    [--workdir build/bench]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
ORT_VERSION = "1.30.0"


def sh(argv, **kw):
    return subprocess.run(argv, check=True, capture_output=True, text=True, **kw)


def median_ms(output):
    for line in output.splitlines():
        if line.startswith("median_ms="):
            return float(line.split("=", 1)[1])
    raise RuntimeError("no median_ms in output:\n" + output)


def ensure_ort(workdir):
    mod = os.path.join(workdir, "ort", "node_modules", "onnxruntime-node")
    if not os.path.isdir(mod):
        os.makedirs(os.path.join(workdir, "ort"), exist_ok=True)
        # --ignore-scripts: the install script fetches GPU extras (TOOLCHAIN.md).
        sh(["npm", "install", "--silent", "--ignore-scripts", "--prefix",
            os.path.join(workdir, "ort"), "onnxruntime-node@" + ORT_VERSION])
    return mod


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0,
                    help="target time of one timed batch of runs, per engine and round")
    ap.add_argument("--workdir", default=os.path.join(REPO, "build", "bench"))
    ap.add_argument("--tractc", default=os.path.join(REPO, "build", "bin", "tractc"))
    ap.add_argument("--cpu", default="native",
                    help="tractc --cpu: the CPU kind its choices are priced for (native: this one)")
    ap.add_argument("--cxxflags", default="-O3 -march=native")
    args = ap.parse_args()

    models_dir = os.path.join(args.workdir, "models")
    sys.path.insert(0, HERE)
    import export_bench_models  # noqa: E402 - the model list
    names = [n for n in args.only.split(",") if n] or export_bench_models.CPU_MODELS
    missing = [n for n in names if not os.path.isfile(os.path.join(models_dir, n, "model.onnx"))]
    if missing:
        sh([sys.executable, os.path.join(HERE, "export_bench_models.py"), models_dir,
            "--only", ",".join(missing)])
    ort = ensure_ort(args.workdir)
    import machine  # noqa: E402 - bench/machine.py
    cpu, _ = machine.describe(args.cxxflags)
    print(cpu, file=sys.stderr, flush=True)
    threads = [int(t) for t in args.threads.split(",")]

    rows = []
    for name in names:
        d = os.path.join(models_dir, name)
        work = os.path.join(args.workdir, "build", name)
        os.makedirs(work, exist_ok=True)
        x = np.load(os.path.join(d, "input_0.npy"))
        shape = ",".join(str(v) for v in x.shape)
        x.astype("<f4").tofile(os.path.join(work, "input.f32"))
        sh([args.tractc, os.path.join(d, "model.onnx"), "-o", os.path.join(work, "model.cpp"),
            "--main", "--report", os.path.join(work, "report.json"), "--cpu", args.cpu])
        with open(os.path.join(work, "report.json")) as f:
            cpu_model = json.load(f)["cpu"]  # what --cpu resolved to
        exe = os.path.join(work, "model")
        sh(["g++", "-std=c++17", *args.cxxflags.split(), "-I", os.path.join(REPO, "runtime", "include"),
            os.path.join(work, "model.cpp"), "-o", exe, "-lpthread"])
        out = os.path.join(work, "out")
        os.makedirs(out, exist_ok=True)
        first = sh([exe, os.path.join(d, "input_0.npy"), "-o", out, "--repeat", "3"])
        once = median_ms(first.stdout)
        diff = float(np.abs(np.load(os.path.join(out, "output_0.npy")) -
                            np.load(os.path.join(d, "expected_0.npy"))).max())
        repeat = max(10, min(5000, int(args.seconds * 1000 / max(once, 1e-3))))
        for t in threads:
            ours, theirs = [], []
            for _ in range(args.rounds):
                r = sh([exe, os.path.join(d, "input_0.npy"), "-o", out, "--repeat", str(repeat),
                        "--threads", str(t)])
                ours.append(median_ms(r.stdout))
                r = sh(["node", os.path.join(HERE, "ort_run.js"), ort,
                        os.path.join(d, "model.onnx"), os.path.join(work, "input.f32"), shape,
                        str(t), str(repeat)])
                theirs.append(median_ms(r.stdout))
            a, b = statistics.median(ours), statistics.median(theirs)
            paired = statistics.median(y / x for x, y in zip(ours, theirs))
            rows.append((name, t, a, b, paired, diff))
            print("%-16s threads %d  tractc %9.3f ms  ORT %9.3f ms  speedup %5.2fx  paired %5.2fx"
                  "  |diff| %.2g" % (name, t, a, b, b / a, paired, diff), file=sys.stderr, flush=True)

    print("%s\nBuilt with g++ %s; tractc --cpu=%s (%s).\n" % (cpu, args.cxxflags, args.cpu, cpu_model))
    print("| model | threads | tractc ms | ORT ms | speedup (ORT/tractc) | paired | max abs diff vs torch |")
    print("|---|---|---|---|---|---|---|")
    for name, t, a, b, paired, diff in rows:
        print("| %s | %d | %.3f | %.3f | %.2fx | %.2fx | %.1e |" % (name, t, a, b, b / a, paired, diff))


if __name__ == "__main__":
    main()
