#!/usr/bin/python3
"""Writes a chain of fp32 matmuls for the GPU GEMM figure.

usage: make_gemm_model.py OUT.onnx N COUNT

Y = (((A @ B) @ B) ... @ B), COUNT products of N x N x N, A and B inputs (no weights, so the
binary stays small). Timing a chain of 2 and of 12 and taking the difference / 10 gives one
product's device time without the inputs' upload and the output's read-back
(bench/gpu/run_gpu_bench.py --gemm).
"""
import sys

import onnx
from onnx import TensorProto, helper


def main():
    out, n, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    nodes, prev = [], "A"
    for i in range(count):
        y = "Y" if i == count - 1 else "T%d" % i
        nodes.append(helper.make_node("MatMul", [prev, "B"], [y], name="mm%d" % i))
        prev = y
    graph = helper.make_graph(
        nodes, "gemm_chain",
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [n, n]) for x in ("A", "B")],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [n, n])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, out)


if __name__ == "__main__":
    main()
