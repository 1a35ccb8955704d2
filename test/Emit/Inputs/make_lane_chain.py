#!/usr/bin/python3
"""Writes an inverted residual block (MobileNetV2) and its numpy reference.

usage: make_lane_chain.py OUT_DIR [H W E [se | gap]]
  OUT_DIR/model.onnx: X[1,16,H,W] -> 1x1 conv 16->E, Clip(0, 6) -> 3x3
  depthwise conv (pad 1), Clip(0, 6) -> 1x1 conv E->16 -> + X -> Y
  (H, W, E default to 9, 10, 32). With `se`, a squeeze-and-excitation
  block (EfficientNet's) between the depthwise conv and the project:
  GlobalAveragePool -> 1x1 conv E->8, Relu -> 1x1 conv 8->E, Sigmoid ->
  times the depthwise conv's output. With `gap`, no residual: Y[1,16,1,1] is
  the project's output averaged over the plane (GlobalAveragePool).
  OUT_DIR/x.npy, OUT_DIR/want.npy: an input and its expected output.
The tensors between the convs have E channels (a multiple of 16), one use
each: tractc keeps them in 16-channel lane layout, and fuses the expand into
the depthwise conv when the expanded tensor is large (E x H x W x 4 bytes
of 512 KiB or more).
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
    h, w, e = (int(a) for a in sys.argv[2:5]) if len(sys.argv) >= 5 else (9, 10, 32)
    se = sys.argv[5:] == ["se"]
    gap = sys.argv[5:] == ["gap"]
    rng = np.random.default_rng(7)
    w1 = (rng.standard_normal((e, 16, 1, 1)) * 0.5).astype(np.float32)
    b1 = rng.standard_normal(e).astype(np.float32)
    wd = rng.standard_normal((e, 1, 3, 3)).astype(np.float32)
    bd = rng.standard_normal(e).astype(np.float32)
    w2 = (rng.standard_normal((16, e, 1, 1)) * 0.3).astype(np.float32)
    b2 = rng.standard_normal(16).astype(np.float32)
    ws1 = (rng.standard_normal((8, e, 1, 1)) * 0.2).astype(np.float32)
    bs1 = rng.standard_normal(8).astype(np.float32)
    ws2 = (rng.standard_normal((e, 8, 1, 1)) * 0.5).astype(np.float32)
    bs2 = rng.standard_normal(e).astype(np.float32)
    lo, hi = numpy_helper.from_array(np.float32(0), "lo"), numpy_helper.from_array(np.float32(6), "hi")
    nodes = [
        helper.make_node("Conv", ["X", "W1", "B1"], ["E"], name="expand"),
        helper.make_node("Clip", ["E", "lo", "hi"], ["E6"], name="expand_clip"),
        helper.make_node("Conv", ["E6", "WD", "BD"], ["D"], name="depthwise", group=e,
                         pads=[1, 1, 1, 1]),
        helper.make_node("Clip", ["D", "lo", "hi"], ["D6"], name="depthwise_clip"),
    ]
    if se:
        nodes += [
            helper.make_node("GlobalAveragePool", ["D6"], ["S"], name="squeeze"),
            helper.make_node("Conv", ["S", "WS1", "BS1"], ["S1"], name="fc1"),
            helper.make_node("Relu", ["S1"], ["S1R"], name="fc1_relu"),
            helper.make_node("Conv", ["S1R", "WS2", "BS2"], ["S2"], name="fc2"),
            helper.make_node("Sigmoid", ["S2"], ["G"], name="gate"),
            helper.make_node("Mul", ["D6", "G"], ["DS"], name="excite"),
        ]
    nodes += [
        helper.make_node("Conv", ["DS" if se else "D6", "W2", "B2"], ["P"], name="project"),
        helper.make_node("GlobalAveragePool", ["P"], ["Y"], name="pool") if gap else
        helper.make_node("Add", ["P", "X"], ["Y"], name="residual"),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in
             ((w1, "W1"), (b1, "B1"), (wd, "WD"), (bd, "BD"), (w2, "W2"), (b2, "B2"))]
    if se:
        inits += [numpy_helper.from_array(a, n) for a, n in
                  ((ws1, "WS1"), (bs1, "BS1"), (ws2, "WS2"), (bs2, "BS2"))]
    graph = helper.make_graph(
        nodes, "lane_chain",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 16, h, w])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 16, 1, 1] if gap else [1, 16, h, w])],
        inits + [lo, hi])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, f"{out}/model.onnx")
    x = rng.standard_normal((1, 16, h, w)).astype(np.float64)
    ex = np.clip(np.einsum("oc,nchw->nohw", w1[:, :, 0, 0], x) + b1[None, :, None, None], 0, 6)
    d = np.clip(depthwise3x3(ex, wd, bd), 0, 6)
    if se:
        s = d.mean(axis=(2, 3))
        s1 = np.maximum(s @ ws1[:, :, 0, 0].T + bs1, 0)
        gate = 1 / (1 + np.exp(-(s1 @ ws2[:, :, 0, 0].T + bs2)))
        d = d * gate[:, :, None, None]
    y = np.einsum("oc,nchw->nohw", w2[:, :, 0, 0], d) + b2[None, :, None, None]
    y = y.mean(axis=(2, 3), keepdims=True) if gap else y + x
    np.save(f"{out}/x.npy", x.astype(np.float32))
    np.save(f"{out}/want.npy", y.astype(np.float32))


if __name__ == "__main__":
    main()
