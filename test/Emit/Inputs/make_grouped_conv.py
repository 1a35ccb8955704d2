#!/usr/bin/python3
"""Writes grouped convs side by side and their numpy reference.

usage: make_grouped_conv.py OUT_DIR
  X[2,32,18,20] ->
    G4:  Conv 32->48, 8 groups of 4 inputs -> 6 outputs, 3x3 pad 1, bias, Relu
         (ResNeXt's shape of group: conv_row_taps group by group)
    DW:  Conv 32->32 depthwise 3x3 stride 2 pad 1 (conv_depthwise)
    G16: Conv 32->32, 2 groups of 16, 3x3 pad 1 (too many channels per group:
         im2col)
  OUT_DIR/model.onnx, OUT_DIR/x.npy, OUT_DIR/want_{G4,DW,G16}.npy.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def conv(x, w, b, groups, stride, pad):
    """2-d grouped conv, NCHW, dilation 1, in float64."""
    xp = np.pad(x, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    k = w.shape[2:]
    out = [(xp.shape[2 + d] - k[d]) // stride + 1 for d in range(2)]
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    y = np.zeros((x.shape[0], w.shape[0], *out), np.float64)
    for g in range(groups):
        for tap in np.ndindex(*k):
            sl = tuple(slice(tap[d], tap[d] + (out[d] - 1) * stride + 1, stride) for d in range(2))
            patch = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + sl]
            y[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch,
                                                  w[g * og:(g + 1) * og, :, tap[0], tap[1]])
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(13)
    x = rng.standard_normal([2, 32, 18, 20]).astype(np.float32)
    w4 = (rng.standard_normal([48, 4, 3, 3]) * 0.3).astype(np.float32)
    b4 = rng.standard_normal(48).astype(np.float32)
    wd = (rng.standard_normal([32, 1, 3, 3]) * 0.3).astype(np.float32)
    w16 = (rng.standard_normal([32, 16, 3, 3]) * 0.2).astype(np.float32)
    x64 = x.astype(np.float64)
    want = {
        "G4": np.maximum(conv(x64, w4.astype(np.float64), b4, 8, 1, 1), 0),
        "DW": conv(x64, wd.astype(np.float64), None, 32, 2, 1),
        "G16": conv(x64, w16.astype(np.float64), None, 2, 1, 1),
    }
    inits = [numpy_helper.from_array(w4, "W4"), numpy_helper.from_array(b4, "B4"),
             numpy_helper.from_array(wd, "Wd"), numpy_helper.from_array(w16, "W16")]
    nodes = [
        helper.make_node("Conv", ["X", "W4", "B4"], ["C4"], name="G4conv", group=8, pads=[1] * 4),
        helper.make_node("Relu", ["C4"], ["G4"], name="G4relu"),
        helper.make_node("Conv", ["X", "Wd"], ["DW"], name="DW", group=32, pads=[1] * 4,
                         strides=[2, 2]),
        helper.make_node("Conv", ["X", "W16"], ["G16"], name="G16", group=2, pads=[1] * 4),
    ]
    outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(want[n].shape))
               for n in ("G4", "DW", "G16")]
    graph = helper.make_graph(nodes, "grouped_convs",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x.shape))],
                              outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, out + "/model.onnx")
    np.save(out + "/x.npy", x)
    for n, v in want.items():
        np.save(out + "/want_" + n + ".npy", v.astype(np.float32))


if __name__ == "__main__":
    main()
