#!/usr/bin/python3
"""Writes DIR/model.onnx whose weight W lives in an external data file.

usage: make_external.py DIR MODE
  good:     W in DIR/weights.bin (valid)
  escape:   location '../outside.bin' (must be refused)
  absolute: location '/etc/passwd' (must be refused)
  missing:  location 'nope.bin' (file does not exist)
  short:    location 'weights.bin' with a length past the end of the file
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def main():
    out, mode = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    w = np.array([1, 2, 3, 4], dtype=np.float32)
    with open(os.path.join(out, "weights.bin"), "wb") as f:
        f.write(w.tobytes())
    location = {"good": "weights.bin", "escape": "../outside.bin", "absolute": "/etc/passwd",
                "missing": "nope.bin", "short": "weights.bin"}[mode]
    init = TensorProto()
    init.name = "W"
    init.data_type = TensorProto.FLOAT
    init.dims.extend([4])
    init.data_location = TensorProto.EXTERNAL
    for k, v in [("location", location), ("offset", "0"),
                 ("length", "32" if mode == "short" else "16")]:
        e = init.external_data.add()
        e.key, e.value = k, v
    graph = helper.make_graph([helper.make_node("Add", ["X", "W"], ["Y"], name="add")], "g",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [4])], [init])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    with open(os.path.join(out, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main()
