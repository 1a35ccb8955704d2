#!/usr/bin/python3
"""Writes small control-flow models for the importer tests.

usage: make_control_flow.py KIND OUT.onnx
  if_const:   If on a constant condition (only the then branch remains)
  if_runtime: If on an input condition (both branches, then a select)
  loop_const: Loop with trip count 3 accumulating x (unrolled exactly)
  if_rate:    a sample rate input `sr` (int64 scalar) picks a branch, as Silero VAD's does:
              sr == 16000 pads x [1, 8] by sr / 8000 zeros and adds 1 ([1, 10]); otherwise
              x * 2 ([1, 8]). Only a fixed sr (--input-value) makes the shapes static.
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


def rate_model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])
    sr = helper.make_tensor_value_info("sr", TensorProto.INT64, [])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, None])
    c = lambda name, v: numpy_helper.from_array(np.array(v, dtype=np.int64), name)  # noqa: E731
    then = helper.make_graph(
        [helper.make_node("Div", ["sr", "per"], ["n"], name="zeros_per_rate"),
         helper.make_node("Unsqueeze", ["n", "axis0"], ["n1"], name="as_list"),
         helper.make_node("Concat", ["lead", "n1"], ["pads"], axis=0, name="pads"),
         helper.make_node("Pad", ["x", "pads"], ["padded"], name="pad"),
         helper.make_node("Add", ["padded", "one"], ["then_out"], name="plus_one")],
        "then", [], [helper.make_tensor_value_info("then_out", TensorProto.FLOAT, [1, None])],
        [c("per", 8000), c("axis0", [0]), c("lead", [0, 0, 0]),
         numpy_helper.from_array(np.array(1, dtype=np.float32), "one")])
    other = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["else_out"], name="times_two")],
        "else", [], [helper.make_tensor_value_info("else_out", TensorProto.FLOAT, [1, 8])],
        [numpy_helper.from_array(np.array(2, dtype=np.float32), "two")])
    nodes = [helper.make_node("Equal", ["sr", "rate16k"], ["is16k"], name="is_16k"),
             helper.make_node("If", ["is16k"], ["y"], name="by_rate", then_branch=then,
                              else_branch=other)]
    graph = helper.make_graph(nodes, "rate", [x, sr], [y], [c("rate16k", 16000)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def main():
    kind, path = sys.argv[1], sys.argv[2]
    if kind == "if_rate":
        onnx.save(rate_model(), path)
        return
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
