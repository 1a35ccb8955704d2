#!/usr/bin/python3
"""Per-kernel times of one tractc-compiled model: where a model's time goes.

Compiles MODEL.onnx with `tractc --main --report`, wraps every kernel call of the generated
PREFIX_run in a steady_clock timer (a copy of the .cpp; the real output is untouched), builds with
`g++ -O3 -march=native` (or --cxxflags), runs --repeat times and prints the CPU and its measured
FMA peak (bench/machine.py), then each kernel's mean time with its op, algorithm (from --report),
GFLOP/s and that as a fraction of the peak, then totals per algorithm/op.

Usage: kernel_times.py MODEL.onnx INPUT.npy [--repeat 30] [--top 25] [--workdir DIR]
                       [--threads T] [--cxxflags "-O2 -march=native"]
"""
import argparse
import collections
import json
import os
import re
import subprocess
import tempfile

import machine  # bench/machine.py (this script's folder is on sys.path when run)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def rewrite_kernel_calls(src, wrap):
    """src with each kernel call line of PREFIX_run_threads replaced by wrap(n, line) (its
    lines), n counting the calls from 0; returns (new src, number of calls)."""
    start = src.index("{", src.index("_run_threads(const void *const *inputs")) + 1
    end = src.index("  return 0;\n}", start)
    out, n = [], 0
    for line in src[start:end].split("\n"):
        if re.match(r"\s+k\d+_\w*\(", line):
            out += wrap(n, line)
            n += 1
        else:
            out.append(line)
    return src[:start] + "\n".join(out) + src[end:], n


def instrument(src):
    src, n = rewrite_kernel_calls(src, lambda n, line: [
        "  { const auto t0 = std::chrono::steady_clock::now();", line,
        "    g_kernel_seconds[%d] += std::chrono::duration<double>("
        "std::chrono::steady_clock::now() - t0).count(); }" % n])
    header = ("#include <chrono>\n#include <cstdio>\nstatic double g_kernel_seconds[%d];\n"
              "static struct KernelTimesDump { ~KernelTimesDump() { for (int i = 0; i < %d; ++i) "
              "std::fprintf(stderr, \"kernel_seconds %%d %%.9f\\n\", i, g_kernel_seconds[i]); } } "
              "g_kernel_times_dump;\n" % (max(n, 1), n))
    return header + src


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("input", nargs="+", help="the model's inputs (.npy), in order")
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--threads", type=int, default=1, help="the generated main's --threads")
    ap.add_argument("--tractc", default=os.path.join(REPO, "build", "bin", "tractc"))
    ap.add_argument("--cpu", default="native",
                    help="tractc --cpu: the CPU kind its choices are priced for (native: this one)")
    ap.add_argument("--cxxflags", default="-O3 -march=native")
    ap.add_argument("--input-shape", action="append", default=[],
                    help="passed to tractc (NAME=D0,D1,...): pins a model's dynamic dims")
    args = ap.parse_args()
    work = args.workdir or tempfile.mkdtemp(prefix="kernel_times_")
    os.makedirs(work, exist_ok=True)
    cpp, report = os.path.join(work, "model.cpp"), os.path.join(work, "report.json")
    subprocess.run([args.tractc, args.model, "-o", cpp, "--main", "--report", report,
                    "--cpu", args.cpu, *[f"--input-shape={v}" for v in args.input_shape]],
                   check=True)
    with open(cpp) as f:
        src = instrument(f.read())
    with open(os.path.join(work, "timed.cpp"), "w") as f:
        f.write(src)
    exe = os.path.join(work, "timed")
    subprocess.run(["g++", "-std=c++17", *args.cxxflags.split(), "-I",
                    os.path.join(REPO, "runtime", "include"), os.path.join(work, "timed.cpp"),
                    "-o", exe], check=True)
    os.makedirs(os.path.join(work, "out"), exist_ok=True)
    r = subprocess.run([exe, *args.input, "-o", os.path.join(work, "out"), "--repeat",
                        str(args.repeat), "--threads", str(args.threads)], check=True,
                       capture_output=True, text=True)
    runs = args.repeat + 2  # the first run, the warm-up, the timed runs
    seconds = {}
    for line in r.stderr.splitlines():
        if line.startswith("kernel_seconds "):
            _, i, s = line.split()
            seconds[int(i)] = float(s) / runs
    with open(report) as f:
        kernels = json.load(f)["kernels"]
    rows = []
    for i, k in enumerate(kernels):
        body = k.get("fused_ops", [k["op"]])
        kind = "%s %s" % (body[0] if k["op"] == "tract.kernel" else k["op"], k.get("algorithm", ""))
        rows.append((seconds.get(i, 0.0), k["name"], kind, k["flops"]))
    total = sum(r[0] for r in rows)
    cpu, peak = machine.describe(args.cxxflags)
    print(cpu)
    print("%s; %d kernels, %.3f ms in kernels (%s)" % (args.model, len(rows), total * 1e3,
                                                       r.stdout.strip()))
    for s, name, kind, flops in sorted(rows, reverse=True)[:args.top]:
        gflops = flops / s * 1e-9 if s else 0
        print("%8.3f ms %5.1f%% %7.1f GFLOP/s %3.0f%% of peak  %-28s %s" % (
            s * 1e3, 100 * s / total, gflops, 100 * gflops / peak if peak else 0, kind, name))
    by_kind = collections.defaultdict(float)
    for s, _, kind, _ in rows:
        by_kind[kind] += s
    print("-- by op / algorithm")
    for kind, s in sorted(by_kind.items(), key=lambda kv: -kv[1]):
        print("%8.3f ms %5.1f%%  %s" % (s * 1e3, 100 * s / total, kind))


if __name__ == "__main__":
    main()
