#!/usr/bin/python3
"""Writes small control-flow models for the importer tests.

usage: make_control_flow.py KIND OUT.onnx
  if_const:   If on a constant condition (only the then branch remains)
  if_runtime: If on an input condition (both branches, then a select)
  loop_const: Loop with trip count 3 accumulating x (unrolled exactly)
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def branch(name, value):
    out = helper.make_tensor_value_info(name + "_out", TensorProto.FLOAT, [2])
    node = helper.make_node("Add", ["x", name + "_c"], [name + "_out"], name=name + "_add")
    c = numpy_helper.from_array(np.array([value, value], dtype=np.float32), name + "_c")
    return helper.make_graph([node], name, [], [out], [c])


def main():
    kind, path = sys.argv[1], sys.argv[2]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    inputs, inits, nodes = [x], [], []
    if kind.startswith("if"):
        if kind == "if_const":
            inits.append(numpy_helper.from_array(np.array(True), "cond"))
        else:
            inputs.append(helper.make_tensor_value_info("cond", TensorProto.BOOL, []))
        nodes.append(helper.make_node("If", ["cond"], ["y"], name="choose",
                                      then_branch=branch("then", 1.0),
                                      else_branch=branch("else", -1.0)))
    else:
        body = helper.make_graph(
            [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep"),
             helper.make_node("Add", ["acc_in", "x"], ["acc_out"], name="accumulate")],
            "body",
            [helper.make_tensor_value_info("i", TensorProto.INT64, []),
             helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
             helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [2])],
            [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
             helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [2])])
        inits.append(numpy_helper.from_array(np.array(3, dtype=np.int64), "trips"))
        inits.append(numpy_helper.from_array(np.zeros(2, dtype=np.float32), "zero"))
        nodes.append(helper.make_node("Loop", ["trips", "", "zero"], ["y"], name="repeat", body=body))
    graph = helper.make_graph(nodes, "g", inputs, [y], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


if __name__ == "__main__":
    main()
