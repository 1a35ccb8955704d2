#!/usr/bin/python3
"""On the GPU machine: tractc's Vulkan binaries beside PyTorch, batch 1.

usage: run_gpu_bench.py BIN_DIR [--repeat N] [--no-torch]

BIN_DIR/NAME/{model, input_0.npy, expected_0.npy} come from bench/gpu/prepare.py. For each:
the binary's output against torch's (max abs diff; the issue's bound is 1e-3), then its
`--repeat N` median (one run = inputs staged in, the recorded command buffer submitted, outputs
read back). PyTorch (the machine's own, CUDA) times the same architecture with random weights,
input already on the GPU: eager, and replaying a CUDA graph; medians of N runs timed with CUDA
events. Prints a Markdown table.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def tractc_run(d, repeat):
    out = os.path.join(d, "out")
    os.makedirs(out, exist_ok=True)
    exe, x = os.path.join(d, "model"), os.path.join(d, "input_0.npy")
    r = subprocess.run([exe, x, "-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        return None, None, (r.stdout + r.stderr).strip()
    y, want = np.load(os.path.join(out, "output_0.npy")), np.load(os.path.join(d, "expected_0.npy"))
    diff = float(np.abs(y.astype(np.float64) - want).max())
    r = subprocess.run([exe, x, "-o", out, "--repeat", str(repeat)], capture_output=True, text=True)
    m = re.search(r"median_ms=([\d.]+)", r.stdout)
    return diff, float(m.group(1)) if m else None, ""


def torch_times(name, repeat):
    import torch
    sys.path.insert(0, os.path.join(REPO, "bench"))
    sys.path.insert(0, os.path.join(REPO, "test", "e2e"))
    sys.dont_write_bytecode = True
    import export_bench_models  # noqa: F401 - fills export_models.MODELS with the bench set
    import export_models as em
    ctor, shape, _, _ = em.MODELS[name]
    torch.manual_seed(0)
    model = ctor().eval().cuda()
    x = torch.randn(*shape, device="cuda")

    def median_ms(fn):
        for _ in range(10):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(repeat):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b))
        return float(np.median(times))

    with torch.no_grad():
        eager = median_ms(lambda: model(x))
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                model(x)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            model(x)
        graph = median_ms(g.replay)
    return eager, graph


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bins")
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--no-torch", action="store_true")
    args = ap.parse_args()
    print("| model | tractc Vulkan ms | PyTorch eager ms | PyTorch CUDA graph ms | max abs diff vs torch |")
    print("|---|---|---|---|---|")
    for name in sorted(os.listdir(args.bins)):
        d = os.path.join(args.bins, name)
        if not os.path.isfile(os.path.join(d, "model")):
            continue
        diff, ms, err = tractc_run(d, args.repeat)
        eager = graph = None
        if not args.no_torch:
            try:
                eager, graph = torch_times(name, args.repeat)
            except Exception as e:  # noqa: BLE001
                err += " (torch: %s)" % e
        fmt = lambda v, f: f % v if v is not None else "n/a"  # noqa: E731
        print("| %s | %s | %s | %s | %s |%s" % (name, fmt(ms, "%.3f"), fmt(eager, "%.3f"),
                                               fmt(graph, "%.3f"), fmt(diff, "%.1e"),
                                               " " + err if err else ""), flush=True)


if __name__ == "__main__":
    main()
