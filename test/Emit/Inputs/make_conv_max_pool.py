#!/usr/bin/python3
"""Writes a conv (few input channels, as a network's first) followed by an
activation and a max pool, and its numpy reference.

usage: make_conv_max_pool.py OUT_DIR CASE
  stem:     X[2,3,45,41] -> Conv 3->20 7x7 stride 2 pad 3 (bias) -> Relu ->
            MaxPool 3x3 stride 2 pad 1 (ResNet's stem, batch 2)
  ceil:     X[1,3,37,35] -> Conv 3->16 3x3 stride 2 (no bias) -> LeakyRelu ->
            MaxPool 3x3 stride 2 ceil_mode (SqueezeNet 1.0: the last window
            runs past the end)
  clip:     as stem, Clip(-0.5, 1.5) then Relu instead of Relu (both move
            past the pool, in order)
  1d:       X[1,2,64] -> Conv 2->8 k5 pad 2 -> Relu -> MaxPool k3 stride 2 pad 1
  prelu:    as stem, PRelu with a per-channel slope tensor instead of Relu
            (its fused op reads another tensor: not chained)
  two_uses: as stem, the Relu's output also a graph output (the pool is not
            its only reader: not chained)
  OUT_DIR/model.onnx, OUT_DIR/x.npy, OUT_DIR/want.npy (the pool's output).
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def conv(x, w, b, stride, pad):
    """N-d (1-d or 2-d) conv, NC[H]W, groups 1, dilation 1."""
    rank = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pad, pad)] * rank)
    k = w.shape[2:]
    out = [(xp.shape[2 + d] - k[d]) // stride + 1 for d in range(rank)]
    y = np.zeros((x.shape[0], w.shape[0], *out), np.float64)
    for tap in np.ndindex(*k):
        sl = tuple(slice(tap[d], tap[d] + (out[d] - 1) * stride + 1, stride) for d in range(rank))
        patch = xp[(slice(None), slice(None)) + sl]
        y += np.einsum("nc...,oc->no...", patch, w[(slice(None), slice(None)) + tap])
    if b is not None:
        y += b.reshape((1, -1) + (1,) * rank)
    return y


def max_pool(x, k, stride, pad, ceil):
    rank = x.ndim - 2
    out = []
    for d in range(rank):
        span = x.shape[2 + d] + 2 * pad - k
        o = (-(-span // stride) if ceil else span // stride) + 1
        out.append(o)
    ends = [(out[d] - 1) * stride + k - x.shape[2 + d] - pad for d in range(rank)]
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pad, max(pad, ends[d])) for d in range(rank)],
                constant_values=-np.inf)
    y = np.full((x.shape[0], x.shape[1], *out), -np.inf)
    for tap in np.ndindex(*([k] * rank)):
        sl = tuple(slice(tap[d], tap[d] + (out[d] - 1) * stride + 1, stride) for d in range(rank))
        y = np.maximum(y, xp[(slice(None), slice(None)) + sl])
    return y


def main():
    out, case = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(11)
    if case == "ceil":
        shape, cout, k, stride, pad, bias = [1, 3, 37, 35], 16, 3, 2, 0, False
        pool = dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
        pk, ps, pp, ceil = 3, 2, 0, True
    elif case == "1d":
        shape, cout, k, stride, pad, bias = [1, 2, 64], 8, 5, 1, 2, True
        pool = dict(kernel_shape=[3], strides=[2], pads=[1, 1])
        pk, ps, pp, ceil = 3, 2, 1, False
    else:
        shape, cout, k, stride, pad, bias = [2, 3, 45, 41], 20, 7, 2, 3, True
        pool = dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
        pk, ps, pp, ceil = 3, 2, 1, False
    rank = len(shape) - 2
    x = rng.standard_normal(shape).astype(np.float32)
    w = (rng.standard_normal([cout, shape[1]] + [k] * rank) * 0.3).astype(np.float32)
    b = rng.standard_normal(cout).astype(np.float32)
    slope = (rng.standard_normal(cout) * 0.2).astype(np.float32).reshape([cout] + [1] * rank)
    y = conv(x.astype(np.float64), w.astype(np.float64), b if bias else None, stride, pad)
    inits = [numpy_helper.from_array(w, "W")] + ([numpy_helper.from_array(b, "B")] if bias else [])
    nodes = [helper.make_node("Conv", ["X", "W"] + (["B"] if bias else []), ["C"], name="conv",
                              strides=[stride] * rank, pads=[pad] * (2 * rank))]
    if case == "ceil":
        nodes.append(helper.make_node("LeakyRelu", ["C"], ["A"], name="act", alpha=0.1))
        a = np.where(y > 0, y, 0.1 * y)
    elif case == "prelu":
        inits.append(numpy_helper.from_array(slope, "S"))
        nodes.append(helper.make_node("PRelu", ["C", "S"], ["A"], name="act"))
        a = np.where(y > 0, y, slope[None] * y)
    elif case == "clip":
        inits += [numpy_helper.from_array(np.array(-0.5, np.float32), "LO"),
                  numpy_helper.from_array(np.array(1.5, np.float32), "HI")]
        nodes.append(helper.make_node("Clip", ["C", "LO", "HI"], ["K"], name="clip"))
        nodes.append(helper.make_node("Relu", ["K"], ["A"], name="act"))
        a = np.maximum(np.clip(y, -0.5, 1.5), 0)
    else:
        nodes.append(helper.make_node("Relu", ["C"], ["A"], name="act"))
        a = np.maximum(y, 0)
    nodes.append(helper.make_node("MaxPool", ["A"], ["Y"], name="pool", **pool))
    want = max_pool(a, pk, ps, pp, ceil)
    outputs = [helper.make_tensor_value_info("Y", TensorProto.FLOAT, list(want.shape))]
    if case == "two_uses":
        outputs.append(helper.make_tensor_value_info("A", TensorProto.FLOAT, list(a.shape)))
    graph = helper.make_graph(nodes, "conv_max_pool",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, shape)],
                              outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, out + "/model.onnx")
    np.save(out + "/x.npy", x)
    np.save(out + "/want.npy", want.astype(np.float32))


if __name__ == "__main__":
    main()
