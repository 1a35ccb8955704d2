#!/usr/bin/python3
"""Writes three 1x1 convs whose epilogues end in a Clip, are one, or not, and the numpy reference.

usage: make_clip_epilogue.py OUT_DIR
  OUT_DIR/model.onnx: X[1,8,6,7] ->
    Y1 = Clip(Conv 8->32 (X) + X2, 0, 6)        (the Clip last: one pass after the Add's loop)
    Y2 = Clip(Conv 8->16 (X), -1, 1) * 0.5       (the Clip inside the element loop)
    Y3 = Clip(Conv 8->48 (X), 0, 6)              (the Clip alone: a ClipEpilogue)
    Y4 = Relu(Conv 8->24 (X))                    (a ReLU alone: a ClipEpilogue from 0 to +inf)
    Y5 = Relu(Conv 8->32 (X) + X2)               (a ReLU after other ops: in the loop)
  OUT_DIR/x.npy, OUT_DIR/x2.npy, OUT_DIR/want{1,...,5}.npy: inputs with NaNs and
  infinities in a few pixels (they must come out as numpy's clip and maximum leave them: a ReLU
  keeps +inf, NaN) and the expected outputs.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(11)
    w1 = rng.standard_normal((32, 8, 1, 1)).astype(np.float32)
    w2 = rng.standard_normal((16, 8, 1, 1)).astype(np.float32)
    w3 = rng.standard_normal((48, 8, 1, 1)).astype(np.float32)
    w4 = rng.standard_normal((24, 8, 1, 1)).astype(np.float32)
    w5 = rng.standard_normal((32, 8, 1, 1)).astype(np.float32)
    consts = [numpy_helper.from_array(w1, "W1"), numpy_helper.from_array(w2, "W2"),
              numpy_helper.from_array(w3, "W3"), numpy_helper.from_array(w4, "W4"),
              numpy_helper.from_array(w5, "W5"),
              numpy_helper.from_array(np.array(0, np.float32), "lo1"),
              numpy_helper.from_array(np.array(6, np.float32), "hi1"),
              numpy_helper.from_array(np.array(-1, np.float32), "lo2"),
              numpy_helper.from_array(np.array(1, np.float32), "hi2"),
              numpy_helper.from_array(np.array(0.5, np.float32), "half")]
    graph = helper.make_graph(
        [helper.make_node("Conv", ["X", "W1"], ["C1"], name="conv1"),
         helper.make_node("Add", ["C1", "X2"], ["S1"], name="add1"),
         helper.make_node("Clip", ["S1", "lo1", "hi1"], ["Y1"], name="clip1"),
         helper.make_node("Conv", ["X", "W2"], ["C2"], name="conv2"),
         helper.make_node("Clip", ["C2", "lo2", "hi2"], ["K2"], name="clip2"),
         helper.make_node("Mul", ["K2", "half"], ["Y2"], name="mul2"),
         helper.make_node("Conv", ["X", "W3"], ["C3"], name="conv3"),
         helper.make_node("Clip", ["C3", "lo1", "hi1"], ["Y3"], name="clip3"),
         helper.make_node("Conv", ["X", "W4"], ["C4"], name="conv4"),
         helper.make_node("Relu", ["C4"], ["Y4"], name="relu4"),
         helper.make_node("Conv", ["X", "W5"], ["C5"], name="conv5"),
         helper.make_node("Add", ["C5", "X2"], ["S5"], name="add5"),
         helper.make_node("Relu", ["S5"], ["Y5"], name="relu5")],
        "clip_epilogue",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 8, 6, 7]),
         helper.make_tensor_value_info("X2", TensorProto.FLOAT, [1, 32, 6, 7])],
        [helper.make_tensor_value_info("Y1", TensorProto.FLOAT, [1, 32, 6, 7]),
         helper.make_tensor_value_info("Y2", TensorProto.FLOAT, [1, 16, 6, 7]),
         helper.make_tensor_value_info("Y3", TensorProto.FLOAT, [1, 48, 6, 7]),
         helper.make_tensor_value_info("Y4", TensorProto.FLOAT, [1, 24, 6, 7]),
         helper.make_tensor_value_info("Y5", TensorProto.FLOAT, [1, 32, 6, 7])],
        consts)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, f"{out}/model.onnx")
    x = (rng.standard_normal((1, 8, 6, 7)) * 3).astype(np.float32)
    x[0, 2, 1, 3] = np.nan
    x[0, 4, 2, 2] = np.inf  # +inf and -inf through the convs: a ReLU keeps the one, zeroes the other
    x2 = (rng.standard_normal((1, 32, 6, 7)) * 3).astype(np.float32)
    x2[0, 5, 4, 0] = np.inf
    x2[0, 6, 4, 1] = -np.inf
    x2[0, 7, 0, 6] = np.nan
    c1 = np.einsum("oc,nchw->nohw", w1[:, :, 0, 0], x) + x2
    c2 = np.einsum("oc,nchw->nohw", w2[:, :, 0, 0], x)
    c3 = np.einsum("oc,nchw->nohw", w3[:, :, 0, 0], x)
    c4 = np.einsum("oc,nchw->nohw", w4[:, :, 0, 0], x)
    c5 = np.einsum("oc,nchw->nohw", w5[:, :, 0, 0], x) + x2
    np.save(f"{out}/x.npy", x)
    np.save(f"{out}/x2.npy", x2)
    np.save(f"{out}/want1.npy", np.clip(c1, 0, 6).astype(np.float32))
    np.save(f"{out}/want2.npy", (np.clip(c2, -1, 1) * 0.5).astype(np.float32))
    np.save(f"{out}/want3.npy", np.clip(c3, 0, 6).astype(np.float32))
    np.save(f"{out}/want4.npy", np.maximum(c4, 0).astype(np.float32))
    np.save(f"{out}/want5.npy", np.maximum(c5, 0).astype(np.float32))


if __name__ == "__main__":
    main()
