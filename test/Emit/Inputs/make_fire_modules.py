#!/usr/bin/python3
"""Writes a small SqueezeNet-like network on 13 x 13 and 27 x 27 maps, whose
tensors tract-pad-planes pads, and the numpy reference.

usage: make_fire_modules.py OUT_DIR
  OUT_DIR/model.onnx:
    X[1,8,27,27] -> Conv 1x1 8->12 -> Relu                            (27 x 27)
      -> fire 1: squeeze 1x1 ->16, Relu; expand 1x1 ->16 and 3x3 ->16, Relu;
         Concat (32 channels)
      -> MaxPool 3x3 stride 2 (ceil_mode: 13 x 13)
      -> fire 2: squeeze ->4, expands ->8 and ->8 (16 channels)
      -> Conv 1x1 16->32 plus the pool's output plus a second graph input
         R[1,32,13,13] (residuals: the conv's epilogue looks them up by
         index, and R, a graph input, is dense, so the conv's output and the
         pool's stay dense; the conv reads fire 2's padded output)
      -> Conv 3x3 32->6 -> Relu, read by an AveragePool 3x3 stride 1 pad 1
         (-> Z[1,6,13,13], a graph output: dense) and a GlobalAveragePool
         (-> Y[1,6,1,1]).
  OUT_DIR/x.npy, OUT_DIR/r.npy, OUT_DIR/want_y.npy, OUT_DIR/want_z.npy.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def conv(x, w, b, pad):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    y = np.zeros((n, o, h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i:i + y.shape[2], j:j + y.shape[3]]
            y += np.einsum("oc,nchw->nohw", w[:, :, i, j], patch)
    return y + b[None, :, None, None]


def max_pool_3x3_s2_ceil(x):
    h = (x.shape[2] - 3 + 1) // 2 + 1  # ceil((27 - 3) / 2) + 1 = 13
    xp = np.pad(x, ((0, 0), (0, 0), (0, 2), (0, 2)), constant_values=-np.inf)
    return np.stack([np.stack([xp[:, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3].max(axis=(2, 3))
                               for j in range(h)], axis=-1) for i in range(h)], axis=-2)


def avg_pool_3x3_pad1(x):
    """count_include_pad 0: each window's mean over its taps inside the map."""
    return conv_sum(x) / conv_sum(np.ones_like(x))


def conv_sum(x):
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    return sum(xp[:, :, i:i + x.shape[2], j:j + x.shape[3]] for i in range(3) for j in range(3))


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(11)
    inits, nodes = [], []

    def weight(name, shape):
        a = (rng.standard_normal(shape) / np.sqrt(np.prod(shape[1:]))).astype(np.float32)
        inits.append(numpy_helper.from_array(a, name))
        return a

    params = {}

    def conv_node(name, x, cin, cout, k, relu=True):
        w = weight(f"{name}_w", (cout, cin, k, k))
        b = weight(f"{name}_b", (cout,))
        params[name] = (w, b, k // 2)
        y = f"{name}_y"
        nodes.append(helper.make_node("Conv", [x, f"{name}_w", f"{name}_b"], [y], name=name,
                                      pads=[k // 2] * 4))
        if not relu:
            return y
        nodes.append(helper.make_node("Relu", [y], [f"{name}_r"], name=f"{name}_relu"))
        return f"{name}_r"

    def fire(name, x, cin, squeeze, expand):
        s = conv_node(f"{name}_squeeze", x, cin, squeeze, 1)
        e1 = conv_node(f"{name}_e1", s, squeeze, expand, 1)
        e3 = conv_node(f"{name}_e3", s, squeeze, expand, 3)
        nodes.append(helper.make_node("Concat", [e1, e3], [f"{name}_cat"], name=f"{name}_cat",
                                      axis=1))
        return f"{name}_cat"

    h = conv_node("stem", "X", 8, 12, 1)
    h = fire("fire1", h, 12, 16, 16)
    nodes.append(helper.make_node("MaxPool", [h], ["pooled"], name="pool", kernel_shape=[3, 3],
                                  strides=[2, 2], ceil_mode=1))
    h = fire("fire2", "pooled", 32, 4, 8)
    r = conv_node("mix", h, 16, 32, 1, relu=False)
    nodes.append(helper.make_node("Add", [r, "pooled"], ["res0"], name="residual"))
    nodes.append(helper.make_node("Add", ["res0", "R"], ["res"], name="residual_input"))
    c = conv_node("head", "res", 32, 6, 3)
    nodes.append(helper.make_node("AveragePool", [c], ["Z"], name="avg", kernel_shape=[3, 3],
                                  pads=[1, 1, 1, 1]))
    nodes.append(helper.make_node("GlobalAveragePool", [c], ["Y"], name="gap"))
    graph = helper.make_graph(
        nodes, "fire_modules",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 8, 27, 27]),
         helper.make_tensor_value_info("R", TensorProto.FLOAT, [1, 32, 13, 13])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 6, 1, 1]),
         helper.make_tensor_value_info("Z", TensorProto.FLOAT, [1, 6, 13, 13])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, f"{out}/model.onnx")

    def run_conv(name, x, relu=True):
        w, b, pad = params[name]
        y = conv(x, w.astype(np.float64), b.astype(np.float64), pad)
        return np.maximum(y, 0) if relu else y

    def run_fire(name, x):
        s = run_conv(f"{name}_squeeze", x)
        return np.concatenate([run_conv(f"{name}_e1", s), run_conv(f"{name}_e3", s)], axis=1)

    x = rng.standard_normal((1, 8, 27, 27)).astype(np.float32)
    h = run_fire("fire1", run_conv("stem", x.astype(np.float64)))
    pooled = max_pool_3x3_s2_ceil(h)
    h = run_fire("fire2", pooled)
    r_in = rng.standard_normal((1, 32, 13, 13)).astype(np.float32)
    res = run_conv("mix", h, relu=False) + pooled + r_in
    c = run_conv("head", res)
    z = avg_pool_3x3_pad1(c)
    np.save(f"{out}/x.npy", x)
    np.save(f"{out}/r.npy", r_in)
    np.save(f"{out}/want_y.npy", c.mean(axis=(2, 3), keepdims=True).astype(np.float32))
    np.save(f"{out}/want_z.npy", z.astype(np.float32))


if __name__ == "__main__":
    main()
