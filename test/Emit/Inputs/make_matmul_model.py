#!/usr/bin/python3
"""Writes Y = X @ W with random weights, an input and numpy's result.

usage: make_matmul_model.py OUT_DIR M K N
  OUT_DIR/model.onnx: X[M,K] -> MatMul with W[K,N] (a float32 initializer) -> Y[M,N]
  OUT_DIR/x.npy, OUT_DIR/want.npy: an input and its expected output.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    m, k, n = (int(a) for a in sys.argv[2:5])
    rng = np.random.default_rng(11)
    w = rng.standard_normal((k, n)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["X", "W"], ["Y"], name="mm")],
        "matmul",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [m, k])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [m, n])],
        [numpy_helper.from_array(w, "W")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, f"{out}/model.onnx")
    x = rng.standard_normal((m, k)).astype(np.float32)
    np.save(f"{out}/x.npy", x)
    np.save(f"{out}/want.npy", (x.astype(np.float64) @ w.astype(np.float64)).astype(np.float32))


if __name__ == "__main__":
    main()
