#!/usr/bin/python3
"""Builds the --target=spirv benchmark binaries here, for the GPU machine.

usage: prepare.py OUT_DIR [--only a,b]

tractc does not run on the GPU machine (its LLVM and MLIR libraries are not there), but a binary
built here runs there with the Vulkan loader carried beside it (see bench/README.md). For each
benchmark model (bench/export_bench_models.py, exported into build/bench/models by
bench/run_bench.py): `tractc --target=spirv --main`, `g++ -O2 ... -lvulkan`, and the model's
input and torch's output copied next to the binary: OUT_DIR/NAME/{model, input_0.npy,
expected_0.npy}. bench/gpu/run_gpu_bench.py runs them there.
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MODELS = os.path.join(REPO, "build", "bench", "models")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--only", default="")
    ap.add_argument("--tractc", default=os.path.join(REPO, "build", "bin", "tractc"))
    args = ap.parse_args()
    names = [n for n in args.only.split(",") if n] or sorted(os.listdir(MODELS))
    for name in names:
        src, dst = os.path.join(MODELS, name), os.path.join(args.out, name)
        os.makedirs(dst, exist_ok=True)
        cpp = os.path.join(dst, "model.cpp")
        subprocess.run([args.tractc, os.path.join(src, "model.onnx"), "--target=spirv", "--main",
                        "-o", cpp], check=True)
        subprocess.run(["g++", "-std=c++17", "-O2", "-I", os.path.join(REPO, "runtime", "include"),
                        cpp, "-o", os.path.join(dst, "model"), "-lvulkan"], check=True)
        for f in ("model.cpp", "model.h"):
            os.remove(os.path.join(dst, f))
        for f in ("input_0.npy", "expected_0.npy"):
            shutil.copy(os.path.join(src, f), dst)
        print("built", name, file=sys.stderr)


if __name__ == "__main__":
    main()
