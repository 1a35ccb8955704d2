#!/usr/bin/python3
"""The real-world zoo (test/zoo) timed: tractc against ONNX Runtime, model by model, in one run.

For each zoo model: its inputs as the zoo draws them (and its --input-value inputs), `tractc
--main --report --cpu=native` (--cpu: another CPU kind), built with the C++ compiler (`-O3
-march=native` by default; firmware builds use -O2: `--cxxflags "-O2 -march=native"`); tractc's
driver (`--repeat N --threads T`, median of N after a warm-up) and ONNX Runtime (all graph
optimisations, T intra-op threads, 5 warm-up runs, median of N; test/oracle/ort_reference.js)
alternate for --rounds rounds; each side's figure is
the median of its round medians. Where tractc is slower, the table says where its time goes: the
generated run timed kernel by kernel (bench/kernel_times.py's instrumentation), kernels grouped by
op and algorithm ("reference": no optimised kernel), the largest groups with their share.

Usage: run_zoo_bench.py [--only A,B] [--threads 1] [--rounds 3] [--seconds 0.5] [--cpu native]
                        [--cxxflags "-O3 -march=native"] [--workdir build/zoo] [--where]
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "test", "zoo"))
sys.path.insert(0, os.path.join(REPO, "test", "oracle"))
import kernel_times  # noqa: E402
import machine  # noqa: E402
import ort_oracle  # noqa: E402
import run_zoo  # noqa: E402
import zoo_models  # noqa: E402


def sh(argv, timeout=1800):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"{os.path.basename(argv[0])} exited {r.returncode}: "
                           f"{run_zoo.tail(r.stderr)}")
    return r


def median_ms(stdout):
    for line in stdout.splitlines():
        if line.startswith("median_ms="):
            return float(line.split("=", 1)[1])
    raise RuntimeError("no median_ms in the driver's output")


def build(args, work, src, exe):
    sh([args.cxx, "-std=c++17", *args.cxxflags.split(), "-I",
        os.path.join(REPO, "runtime", "include"), src, "-o", exe, "-lpthread"])


def where_time_goes(args, work, in_paths, outdir):
    """Kernel groups (op, algorithm) by share of the run, largest first."""
    with open(os.path.join(work, "model.cpp")) as f:
        src = kernel_times.instrument(f.read())
    timed = os.path.join(work, "timed.cpp")
    with open(timed, "w") as f:
        f.write(src)
    exe = os.path.join(work, "timed")
    build(args, work, timed, exe)
    repeat = 10
    r = sh([exe, *in_paths, "-o", outdir, "--repeat", str(repeat), "--threads",
            str(args.threads)])
    seconds = {}
    for line in r.stderr.splitlines():
        if line.startswith("kernel_seconds "):
            _, i, s = line.split()
            seconds[int(i)] = float(s)
    with open(os.path.join(work, "report.json")) as f:
        kernels = json.load(f)["kernels"]
    groups = collections.Counter()
    for i, k in enumerate(kernels):
        body = k.get("fused_ops", [k["op"]])
        op = (body[0] if k["op"] == "tract.kernel" else k["op"]).replace("tract.", "")
        groups[f"{op}/{k.get('algorithm', 'reference')}"] += seconds.get(i, 0.0)
    total = sum(groups.values()) or 1.0
    return [(g, s / total) for g, s in groups.most_common()]


def bench_one(model, args):
    work = os.path.join(args.workdir, "bench", model.name)
    os.makedirs(work, exist_ok=True)
    path = run_zoo.prepare(model, args)
    feeds = run_zoo.draw_inputs(model)
    fixed = run_zoo.fixed_values(model)
    sh(run_zoo.tractc_argv(args.tractc, model, path, feeds, work) + ["--cpu", args.cpu])
    exe = os.path.join(work, "model")
    build(args, work, os.path.join(work, "model.cpp"), exe)
    in_paths = run_zoo.save_inputs(feeds, work)
    outdir = os.path.join(work, "out")
    os.makedirs(outdir, exist_ok=True)
    once = median_ms(sh([exe, *in_paths, "-o", outdir, "--repeat", "3"]).stdout)
    repeat = max(5, min(2000, int(args.seconds * 1000 / max(once, 1e-3))))
    ours, theirs = [], []
    for _ in range(args.rounds):
        ours.append(median_ms(sh([exe, *in_paths, "-o", outdir, "--repeat", str(repeat),
                                  "--threads", str(args.threads)]).stdout))
        theirs.append(ort_oracle.time_ort(args.ort, path, {**feeds, **fixed}, args.threads,
                                          repeat))
    a, b = statistics.median(ours), statistics.median(theirs)
    paired = statistics.median(y / x for x, y in zip(ours, theirs))
    where = where_time_goes(args, work, in_paths, outdir) if paired < 1.0 or args.where else []
    return a, b, paired, where


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=0.5,
                    help="target time of one timed batch of runs, per engine and round")
    ap.add_argument("--workdir", default=os.path.join(REPO, "build", "zoo"))
    ap.add_argument("--tractc", default=os.path.join(REPO, "build", "bin", "tractc"))
    ap.add_argument("--cpu", default="native",
                    help="tractc --cpu: the CPU kind its choices are priced for (native: this one)")
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--cxxflags", default="-O3 -march=native")
    ap.add_argument("--where", action="store_true", help="where the time goes for every model")
    args = ap.parse_args()
    args.workdir = os.path.abspath(args.workdir)
    models = zoo_models.MODELS
    if args.only:
        models = [zoo_models.BY_NAME[n] for n in args.only.split(",")]
    to_export = [m.name for m in models if m.source[0] == "torch" and not os.path.isfile(
        os.path.join(args.workdir, "models", m.name, "model.onnx"))]
    if to_export:
        sh([sys.executable, os.path.join(REPO, "test", "zoo", "export_torch_zoo.py"),
            os.path.join(args.workdir, "models"), "--only", ",".join(to_export)], timeout=3600)
    args.ort = ort_oracle.ensure_ort(args.workdir)
    cpu, _ = machine.describe(args.cxxflags, args.cxx)
    print(cpu, file=sys.stderr, flush=True)

    rows = []
    for model in models:
        try:
            a, b, paired, where = bench_one(model, args)
        except (RuntimeError, subprocess.TimeoutExpired, run_zoo.Failure) as e:
            print(f"{model.name}: {e}", file=sys.stderr, flush=True)
            rows.append((model.name, None, None, None, str(e)[:120]))
            continue
        note = ", ".join(f"{g} {100 * s:.0f}%" for g, s in where[:4])
        rows.append((model.name, a, b, paired, note))
        print(f"{model.name:24s} tractc {a:9.3f} ms  ORT {b:9.3f} ms  ORT/tractc {paired:5.2f}"
              f"  {note}", file=sys.stderr, flush=True)

    print("%s\nBuilt with %s %s, %d thread(s); tractc --cpu=%s.\n" % (cpu, args.cxx, args.cxxflags,
                                                                   args.threads, args.cpu))
    print("| model | tractc ms | ORT ms | ORT/tractc (paired) | where tractc's time goes, "
          "when slower |")
    print("|---|---|---|---|---|")
    for name, a, b, paired, note in rows:
        if a is None:
            print(f"| {name} | — | — | — | failed: {note} |")
        else:
            print(f"| {name} | {a:.3f} | {b:.3f} | {paired:.2f}x | {note} |")
    timed = [r[3] for r in rows if r[3]]
    if timed:
        geo = float(np.exp(np.mean(np.log(timed))))
        print(f"\ngeomean ORT/tractc {geo:.2f}x over {len(timed)} models; slower on "
              f"{sum(p < 1 for p in timed)}")


if __name__ == "__main__":
    main()
