#!/usr/bin/python3
"""Writes a chain of two 1x1 convs on a 5x5 plane and the numpy reference.

usage: make_pointwise_chain.py OUT_DIR
  OUT_DIR/model.onnx: X[1,8,5,5] -> Conv 8->72 -> Relu -> Conv 72->8 -> Y
  OUT_DIR/x.npy, OUT_DIR/want.npy: an input and its expected output.
The first conv has 9 row panels of output channels (B packed per block), the
second one (B read in place; 25 pixels = 16 + a 9-column panel packed alone).
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(5)
    w1 = rng.standard_normal((72, 8, 1, 1)).astype(np.float32)
    w2 = rng.standard_normal((8, 72, 1, 1)).astype(np.float32)
    b2 = rng.standard_normal(8).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["X", "W1"], ["H"], name="expand"),
         helper.make_node("Relu", ["H"], ["R"], name="relu"),
         helper.make_node("Conv", ["R", "W2", "B2"], ["Y"], name="project")],
        "pointwise_chain",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 8, 5, 5])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 8, 5, 5])],
        [numpy_helper.from_array(w1, "W1"), numpy_helper.from_array(w2, "W2"),
         numpy_helper.from_array(b2, "B2")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, f"{out}/model.onnx")
    x = rng.standard_normal((1, 8, 5, 5)).astype(np.float32)
    h = np.maximum(np.einsum("oc,nchw->nohw", w1[:, :, 0, 0], x), 0)
    y = np.einsum("oc,nchw->nohw", w2[:, :, 0, 0], h) + b2[None, :, None, None]
    np.save(f"{out}/x.npy", x)
    np.save(f"{out}/want.npy", y.astype(np.float32))


if __name__ == "__main__":
    main()
