#!/usr/bin/python3
"""Builds the --target=spirv benchmark binaries here, for the GPU machine.

usage: prepare.py OUT_DIR [--only a,b] [--gemm N] [--fp16-gemm]

tractc does not run on the GPU machine (its LLVM and MLIR libraries are not there), but a binary
built here runs there with the Vulkan loader carried beside it (see bench/gpu/README.md). For each
benchmark model (bench/export_bench_models.py, exported into build/bench/models when missing;
by default the issue's set at batch 1 and 32 and the other CPU benchmark models at batch 1):
`tractc --target=spirv --main`, `g++ -O2 ... -lvulkan`, and the model's input and torch's
output copied next to the binary: OUT_DIR/NAME/{model, input_0.npy, expected_0.npy}.
--gemm N adds OUT_DIR/gemm/{gemm2, gemm12, n}: chains of 2 and 12 N^3 products
(make_gemm_model.py). --fp16-gemm builds each a second time with tractc --fp16-gemm
(OUT_DIR/NAME/model_fp16, OUT_DIR/gemm/gemm*_fp16). bench/gpu/run_gpu_bench.py OUT_DIR runs them
all there.
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MODELS = os.path.join(REPO, "build", "bench", "models")
sys.path.insert(0, os.path.join(REPO, "bench"))

import export_bench_models  # noqa: E402 - the model list

DEFAULT = (export_bench_models.CPU_MODELS + ["resnet50"]
           + [n + "_b32" for n in export_bench_models.GPU_BATCHED])


def build(tractc, onnx_path, out_dir, name, fp16=False):
    name += "_fp16" if fp16 else ""
    cpp = os.path.join(out_dir, name + ".cpp")
    subprocess.run([tractc, onnx_path, "--target=spirv", "--main", "-o", cpp]
                   + (["--fp16-gemm"] if fp16 else []), check=True)
    subprocess.run(["g++", "-std=c++17", "-O2", "-I", os.path.join(REPO, "runtime", "include"),
                    cpp, "-o", os.path.join(out_dir, name), "-lvulkan"], check=True)
    for f in (name + ".cpp", name + ".h"):
        os.remove(os.path.join(out_dir, f))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--only", help="comma-separated, '' for none (default: %s)"
                    % ",".join(DEFAULT))
    ap.add_argument("--gemm", type=int, default=0, help="N: also the N^3 GEMM chains")
    ap.add_argument("--fp16-gemm", action="store_true",
                    help="also each with tractc --fp16-gemm (cooperative matrices)")
    ap.add_argument("--tractc", default=os.path.join(REPO, "build", "bin", "tractc"))
    args = ap.parse_args()
    names = [n for n in args.only.split(",") if n] if args.only is not None else DEFAULT
    missing = [n for n in names if not os.path.isfile(os.path.join(MODELS, n, "model.onnx"))]
    if missing:
        subprocess.run([sys.executable, os.path.join(REPO, "bench", "export_bench_models.py"),
                        MODELS, "--only", ",".join(missing)], check=True)
    for name in names:
        src, dst = os.path.join(MODELS, name), os.path.join(args.out, name)
        os.makedirs(dst, exist_ok=True)
        build(args.tractc, os.path.join(src, "model.onnx"), dst, "model")
        if args.fp16_gemm:
            build(args.tractc, os.path.join(src, "model.onnx"), dst, "model", fp16=True)
        for f in ("input_0.npy", "expected_0.npy"):
            shutil.copy(os.path.join(src, f), dst)
        print("built", name, file=sys.stderr)
    if args.gemm:
        dst = os.path.join(args.out, "gemm")
        os.makedirs(dst, exist_ok=True)
        for count in (2, 12):
            onnx_path = os.path.join(dst, "gemm%d.onnx" % count)
            subprocess.run([sys.executable, os.path.join(HERE, "make_gemm_model.py"), onnx_path,
                            str(args.gemm), str(count)], check=True)
            build(args.tractc, onnx_path, dst, "gemm%d" % count)
            if args.fp16_gemm:
                build(args.tractc, onnx_path, dst, "gemm%d" % count, fp16=True)
            os.remove(onnx_path)
        with open(os.path.join(dst, "n"), "w") as f:
            f.write("%d\n" % args.gemm)
        print("built gemm", args.gemm, file=sys.stderr)


if __name__ == "__main__":
    main()
