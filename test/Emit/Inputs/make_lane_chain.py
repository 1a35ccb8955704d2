#!/usr/bin/python3
"""Writes an inverted residual block (MobileNetV2) and its numpy reference.

usage: make_lane_chain.py OUT_DIR
  OUT_DIR/model.onnx: X[1,16,9,10] -> 1x1 conv 16->32, Clip(0, 6) -> 3x3
  depthwise conv (pad 1), Clip(0, 6) -> 1x1 conv 32->16 -> + X -> Y
  OUT_DIR/x.npy, OUT_DIR/want.npy: an input and its expected output.
The tensors between the convs have 32 channels, one use each: tractc keeps
them in 16-channel lane layout.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def depthwise3x3(x, w, b):
    n, c, h, wd = x.shape
    p = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    y = np.zeros_like(x)
    for i in range(3):
        for j in range(3):
            y += p[:, :, i:i + h, j:j + wd] * w[None, :, 0, i, j, None, None]
    return y + b[None, :, None, None]


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(7)
    w1 = (rng.standard_normal((32, 16, 1, 1)) * 0.5).astype(np.float32)
    b1 = rng.standard_normal(32).astype(np.float32)
    wd = rng.standard_normal((32, 1, 3, 3)).astype(np.float32)
    bd = rng.standard_normal(32).astype(np.float32)
    w2 = (rng.standard_normal((16, 32, 1, 1)) * 0.3).astype(np.float32)
    b2 = rng.standard_normal(16).astype(np.float32)
    lo, hi = numpy_helper.from_array(np.float32(0), "lo"), numpy_helper.from_array(np.float32(6), "hi")
    nodes = [
        helper.make_node("Conv", ["X", "W1", "B1"], ["E"], name="expand"),
        helper.make_node("Clip", ["E", "lo", "hi"], ["E6"], name="expand_clip"),
        helper.make_node("Conv", ["E6", "WD", "BD"], ["D"], name="depthwise", group=32,
                         pads=[1, 1, 1, 1]),
        helper.make_node("Clip", ["D", "lo", "hi"], ["D6"], name="depthwise_clip"),
        helper.make_node("Conv", ["D6", "W2", "B2"], ["P"], name="project"),
        helper.make_node("Add", ["P", "X"], ["Y"], name="residual"),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in
             ((w1, "W1"), (b1, "B1"), (wd, "WD"), (bd, "BD"), (w2, "W2"), (b2, "B2"))]
    graph = helper.make_graph(
        nodes, "lane_chain",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 16, 9, 10])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 16, 9, 10])],
        inits + [lo, hi])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, f"{out}/model.onnx")
    x = rng.standard_normal((1, 16, 9, 10)).astype(np.float64)
    e = np.clip(np.einsum("oc,nchw->nohw", w1[:, :, 0, 0], x) + b1[None, :, None, None], 0, 6)
    d = np.clip(depthwise3x3(e, wd, bd), 0, 6)
    y = np.einsum("oc,nchw->nohw", w2[:, :, 0, 0], d) + b2[None, :, None, None] + x
    np.save(f"{out}/x.npy", x.astype(np.float32))
    np.save(f"{out}/want.npy", y.astype(np.float32))


if __name__ == "__main__":
    main()
