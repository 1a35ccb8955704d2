#!/usr/bin/python3
"""Each parallel kernel's task times at T threads, on T cores and on one core in turn.

Compiles MODEL.onnx with `tractc --main --report`, marks each kernel call of the generated run
(a copy of the .cpp, as kernel_times.py does) and builds it with TRACT_POOL_TASK_TIMES, so the
driver's thread pool records every job's (one parallel_for call's) task times
(runtime/include/tract/rt/io/task_times.h). Runs it twice at --threads T: the tasks on their
cores as usual, then one after the other on the calling core (TRACT_POOL_IN_TURN: same split,
same code). Per kernel, per run: the mean task and the longest task in each mode; a task that
takes longer on T cores than in turn pays for sharing (data another core wrote, memory
bandwidth), a longest task far above the mean for an uneven split or a slower core.

Usage: task_times.py MODEL.onnx INPUT.npy [--threads 2] [--repeat 200] [--top 25]
                     [--workdir DIR] [--cxxflags "-O3 -march=native"]
"""
import argparse
import collections
import json
import os
import subprocess
import tempfile

import kernel_times  # bench/kernel_times.py: the copy of the run with each kernel call marked
import machine

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def mark_kernels(src):
    src, _ = kernel_times.rewrite_kernel_calls(src, lambda n, line: [
        "  tract::rt::TaskTimes::current_kernel() = %d;" % n, line])
    return "#define TRACT_POOL_TASK_TIMES\n#include \"tract/rt/io/task_times.h\"\n" + src


def per_kernel(path, runs):
    """{kernel: [sum of mean task seconds, sum of longest task seconds]} per run, over the
    last `runs` runs' jobs (the first ones are the driver's first run and warm-up)."""
    with open(path) as f:
        jobs = [line.split() for line in f if line.strip()]
    per_run = len(jobs) // (runs + 2)
    out = collections.defaultdict(lambda: [0.0, 0.0])
    for job in jobs[2 * per_run:]:
        times = [float(t) for t in job[2:]]
        if times:
            out[int(job[0])][0] += sum(times) / len(times) / runs
            out[int(job[0])][1] += max(times) / runs
    return out, per_run


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("input")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--tractc", default=os.path.join(REPO, "build", "bin", "tractc"))
    ap.add_argument("--cpu", default="native",
                    help="tractc --cpu: the CPU kind its choices are priced for (native: this one)")
    ap.add_argument("--cxxflags", default="-O3 -march=native")
    args = ap.parse_args()
    work = args.workdir or tempfile.mkdtemp(prefix="task_times_")
    os.makedirs(os.path.join(work, "out"), exist_ok=True)
    cpp, report = os.path.join(work, "model.cpp"), os.path.join(work, "report.json")
    subprocess.run([args.tractc, args.model, "-o", cpp, "--main", "--report", report,
                    "--cpu", args.cpu], check=True)
    with open(cpp) as f:
        src = mark_kernels(f.read())
    with open(os.path.join(work, "marked.cpp"), "w") as f:
        f.write(src)
    exe = os.path.join(work, "marked")
    subprocess.run(["g++", "-std=c++17", *args.cxxflags.split(), "-pthread", "-I",
                    os.path.join(REPO, "runtime", "include"), os.path.join(work, "marked.cpp"),
                    "-o", exe], check=True)
    modes = {}
    for mode, env in (("cores", {}), ("in turn", {"TRACT_POOL_IN_TURN": "1"})):
        path = os.path.join(work, "times-%s.txt" % mode.replace(" ", "-"))
        r = subprocess.run([exe, args.input, "-o", os.path.join(work, "out"), "--repeat",
                            str(args.repeat), "--threads", str(args.threads)], check=True,
                           capture_output=True, text=True,
                           env=dict(os.environ, TRACT_POOL_TIMES=path, **env))
        modes[mode] = per_kernel(path, args.repeat) + (r.stdout.strip(),)
    with open(report) as f:
        kernels = json.load(f)["kernels"]
    cores, jobs, cores_run = modes["cores"]
    turn, _, turn_run = modes["in turn"]
    print(machine.describe(args.cxxflags)[0])
    print("%s at --threads %d: %d parallel jobs a run; whole run on %d cores %s, in turn %s"
          % (args.model, args.threads, jobs, args.threads, cores_run, turn_run))
    print("%-44s %-18s %23s %23s %8s" % ("kernel", "algorithm", "cores: mean / longest us",
                                         "in turn: mean / longest", "mean x"))
    rows = sorted(cores.items(), key=lambda kv: -kv[1][1])
    for k, (mean, longest) in rows[:args.top]:
        name = kernels[k]["name"] if 0 <= k < len(kernels) else "(outside a kernel)"
        algo = kernels[k].get("algorithm", "") if 0 <= k < len(kernels) else ""
        tm, tl = turn.get(k, (0.0, 0.0))
        print("%-44s %-18s %11.1f / %9.1f %11.1f / %9.1f %8.2f" % (
            name[:44], algo[:18], mean * 1e6, longest * 1e6, tm * 1e6, tl * 1e6,
            mean / tm if tm else 0))
    for label, table in (("cores", cores), ("in turn", turn)):
        mean = sum(v[0] for v in table.values())
        longest = sum(v[1] for v in table.values())
        print("total %-8s mean task %.3f ms, longest %.3f ms, imbalance (longest - mean) / "
              "longest %.1f%%" % (label, mean * 1e3, longest * 1e3,
                                  100 * (longest - mean) / longest if longest else 0))


if __name__ == "__main__":
    main()
