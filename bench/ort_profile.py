#!/usr/bin/python3
"""Where ONNX Runtime's time goes on one model: per op type and per node, mean ms per run.

The peer of kernel_times.py (tractc's per-kernel profile): run both on a model to see which layers
the other engine runs faster. Uses ORT's built-in profiler through bench/ort_profile.js (ORT 1.30,
onnxruntime-node, installed into build/bench/ort by run_bench.py); one thread unless --threads.

Usage: ort_profile.py MODEL.onnx [--runs 50] [--top 25]
"""
import argparse
import collections
import glob
import json
import os
import subprocess
import tempfile

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--threads", type=int, default=1, help="intra-op threads")
    ap.add_argument("--ort", default=os.path.join(REPO, "build", "bench", "ort", "node_modules",
                                                  "onnxruntime-node"))
    args = ap.parse_args()
    if not os.path.isdir(args.ort):
        raise SystemExit("no onnxruntime-node at %s: run bench/run_bench.py once" % args.ort)
    dims = [d.dim_value or 1 for d in onnx.load(args.model).graph.input[0].type.tensor_type.shape.dim]
    work = tempfile.mkdtemp(prefix="ort_profile_")
    subprocess.run(["node", os.path.join(HERE, "ort_profile.js"), args.ort, args.model,
                    ",".join(map(str, dims)), str(args.runs), os.path.join(work, "profile"),
                    str(args.threads)],
                   check=True)
    events = json.load(open(glob.glob(os.path.join(work, "profile*.json"))[0]))
    by_op, by_node = collections.defaultdict(float), collections.defaultdict(float)
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            by_op[e["args"]["op_name"]] += e["dur"] / 1000.0 / args.runs
            by_node[e["name"][:-len("_kernel_time")]] += e["dur"] / 1000.0 / args.runs
    print("%s; ORT per run: %.3f ms in nodes" % (args.model, sum(by_op.values())))
    for name, ms in sorted(by_node.items(), key=lambda kv: -kv[1])[:args.top]:
        print("%8.3f ms  %s" % (ms, name))
    print("-- by op")
    for op, ms in sorted(by_op.items(), key=lambda kv: -kv[1]):
        print("%8.3f ms  %s" % (ms, op))


if __name__ == "__main__":
    main()
