#!/usr/bin/python3
"""On the GPU machine: tractc's Vulkan binaries beside PyTorch.

usage: run_gpu_bench.py BIN_DIR... [--repeat N] [--no-torch]

BIN_DIR/NAME/{model, input_0.npy, expected_0.npy} come from bench/gpu/prepare.py. For each:
the binary's output against torch's (max abs diff; the issue's bound is 1e-3), then its
`--repeat N` median (one run = inputs staged in, the recorded command buffer submitted, outputs
read back), and the device's time in its kernels (TRACT_VK_PROFILE=total: a timestamp after
the input copies and one after the last kernel). PyTorch (the machine's own, CUDA) times the same architecture with random weights,
input already on the GPU: eager, and replaying a CUDA graph; medians of N runs timed with CUDA
events. Prints a Markdown table, then for a BIN_DIR/gemm (prepare.py --gemm N) the GEMM's
TFLOP/s beside cuBLAS's. Where prepare.py --fp16-gemm built BIN_DIR/NAME/model_fp16, a second row
"NAME fp16-gemm" times it, and its last column adds its output's max abs diff from the fp32
build's (the accuracy of the cooperative-matrix path against the fp32 one).
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def tractc_run(d, repeat, binary="model"):
    out = os.path.join(d, "out_" + binary)
    os.makedirs(out, exist_ok=True)
    exe, x = os.path.join(d, binary), os.path.join(d, "input_0.npy")
    r = subprocess.run([exe, x, "-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        return None, None, None, (r.stdout + r.stderr).strip()
    y, want = np.load(os.path.join(out, "output_0.npy")), np.load(os.path.join(d, "expected_0.npy"))
    diff = float(np.abs(y.astype(np.float64) - want).max())
    r = subprocess.run([exe, x, "-o", out, "--repeat", str(repeat)], capture_output=True, text=True)
    m = re.search(r"median_ms=([\d.]+)", r.stdout)
    # The device's own time: the kernels' timestamps (TRACT_VK_PROFILE=total: the first and
    # the last only, so concurrent kernels stay concurrent), without the host's staging
    # copies, submission and fence wait; the mean over the runs.
    env = dict(os.environ, TRACT_VK_PROFILE="total")
    p = subprocess.run([exe, x, "-o", out, "--repeat", str(repeat)], capture_output=True,
                       text=True, env=env)
    k = re.search(r"([\d.]+) ms in kernels per run", p.stdout + p.stderr)
    return diff, float(m.group(1)) if m else None, float(k.group(1)) if k else None, ""


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


def gemm_chains(d, suffix, a, b, repeat):
    """Host-to-host medians and kernels' device times (TRACT_VK_PROFILE=total, mean) of the
    2- and 12-product chains gemmC<suffix>, and the 2-chain's max error against numpy relative
    to its max |y|; None when a binary fails."""
    times, device = {}, {}
    for c in (2, 12):
        out = os.path.join(d, "out%d%s" % (c, suffix))
        os.makedirs(out, exist_ok=True)
        argv = [os.path.join(d, "gemm%d%s" % (c, suffix)), os.path.join(d, "a.npy"),
                os.path.join(d, "b.npy"), "-o", out, "--repeat", str(repeat)]
        r = subprocess.run(argv, capture_output=True, text=True)
        m = re.search(r"median_ms=([\d.]+)", r.stdout)
        p = subprocess.run(argv, capture_output=True, text=True,
                           env=dict(os.environ, TRACT_VK_PROFILE="total"))
        k = re.search(r"([\d.]+) ms in kernels per run", p.stdout + p.stderr)
        if not m or not k:
            print("gemm%d%s failed: %s" % (c, suffix, (r.stdout + r.stderr).strip()))
            return None
        times[c], device[c] = float(m.group(1)), float(k.group(1))
    want = (a.astype(np.float64) @ b) @ b
    got = np.load(os.path.join(d, "out2" + suffix, "output_0.npy"))
    return times, device, float(np.abs(got - want).max() / np.abs(want).max())


def gemm_figure(d, n, repeat):
    """TFLOP/s of one n^3 product: (device time of a 12-product chain - a 2-product one) / 10.
    Also checks the 2-product chain against numpy, and times torch's fp32 matmul (no TF32);
    the same for the --fp16-gemm build where prepare.py made one, beside torch's fp16."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = (rng.standard_normal((n, n), dtype=np.float32) / np.sqrt(n)).astype(np.float32)
    np.save(os.path.join(d, "a.npy"), a)
    np.save(os.path.join(d, "b.npy"), b)
    for suffix, what, dtype in (("", "fp32", "float32"), ("_fp16", "fp16 x fp16 + fp32 "
                                                          "(--fp16-gemm)", "float16")):
        if not os.path.isfile(os.path.join(d, "gemm2" + suffix)):
            continue
        chains = gemm_chains(d, suffix, a, b, repeat)
        if chains is None:
            continue
        times, device, rel = chains
        # The kernels' device time (the host's staging of 2 x 64 MB, in both chains, moves by
        # several ms between runs: a tenth of that lands on a product timed host to host).
        ms, host_ms = (device[12] - device[2]) / 10, (times[12] - times[2]) / 10
        line = "GEMM %d^3 %s: tractc %.3f ms = %.1f TFLOP/s of kernels (chains of 2 / 12: " \
               "%.2f / %.2f ms; host to host %.1f TFLOP/s; max error %.1e of max |y|)" % (
                   n, what, ms, 2 * n ** 3 / ms * 1e-9, device[2], device[12],
                   2 * n ** 3 / host_ms * 1e-9, rel)
        try:
            import torch
            torch.backends.cuda.matmul.allow_tf32 = False
            ta = torch.from_numpy(a).cuda().to(getattr(torch, dtype))
            tb = torch.from_numpy(b).cuda().to(getattr(torch, dtype))
            for _ in range(3):
                ta @ tb
            torch.cuda.synchronize()
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            for _ in range(repeat):
                ta @ tb
            e1.record()
            e1.synchronize()
            tms = e0.elapsed_time(e1) / repeat
            line += "; PyTorch (cuBLAS %s%s) %.3f ms = %.1f TFLOP/s" % (
                dtype, ", no TF32" if suffix == "" else "", tms, 2 * n ** 3 / tms * 1e-9)
        except Exception as e:  # noqa: BLE001
            line += " (torch: %s)" % e
        print(line, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bins", nargs="+", help="directories written by prepare.py")
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--no-torch", action="store_true")
    args = ap.parse_args()
    print("| model | tractc Vulkan ms | tractc kernels ms | PyTorch eager ms | PyTorch CUDA graph ms "
          "| max abs diff vs torch |")
    print("|---|---|---|---|---|---|")
    gemms = []
    for bins in args.bins:
        for name in sorted(os.listdir(bins)):
            d = os.path.join(bins, name)
            if os.path.isfile(os.path.join(d, "gemm2")) or os.path.isfile(os.path.join(d, "gemm2_fp16")):
                gemms.append(d)
            if not os.path.isfile(os.path.join(d, "model")):
                continue
            diff, ms, kernels_ms, err = tractc_run(d, args.repeat)
            eager = graph = None
            if not args.no_torch:
                try:
                    eager, graph = torch_times(name, args.repeat)
                except Exception as e:  # noqa: BLE001
                    err += " (torch: %s)" % e
            fmt = lambda v, f: f % v if v is not None else "n/a"  # noqa: E731
            print("| %s | %s | %s | %s | %s | %s |%s"
                  % (name, fmt(ms, "%.3f"), fmt(kernels_ms, "%.3f"), fmt(eager, "%.3f"),
                     fmt(graph, "%.3f"), fmt(diff, "%.1e"), " " + err if err else ""), flush=True)
            if os.path.isfile(os.path.join(d, "model_fp16")):
                diff16, ms16, kernels16, err16 = tractc_run(d, args.repeat, "model_fp16")
                vs32 = None
                if diff16 is not None and diff is not None:
                    y16, y32 = (np.load(os.path.join(d, "out_" + b, "output_0.npy"))
                                for b in ("model_fp16", "model"))
                    vs32 = float(np.abs(y16.astype(np.float64) - y32).max())
                print("| %s fp16-gemm | %s | %s | | | %s (%s from fp32) |%s"
                      % (name, fmt(ms16, "%.3f"), fmt(kernels16, "%.3f"), fmt(diff16, "%.1e"),
                         fmt(vs32, "%.1e"), " " + err16 if err16 else ""), flush=True)
    for d in gemms:
        with open(os.path.join(d, "n")) as f:
            gemm_figure(d, int(f.read()), args.repeat)


if __name__ == "__main__":
    main()
