#!/usr/bin/python3
"""Converts ONNX textual syntax (onnx.parser) to a binary model.

usage: onnxtext.py IN.onnxtext OUT.onnx [--raw-initializers]

Nodes are named after their first output. Lines starting with '//' or '#' (lit RUN/CHECK lines) are dropped first, so a
lit test can hold its model inline. Initializers given in the text are stored
as typed fields; --raw-initializers rewrites them as raw_data.
"""
import sys

import onnx
from onnx import numpy_helper, parser


def main():
    src, dst = sys.argv[1], sys.argv[2]
    lines = [l for l in open(src) if not l.lstrip().startswith(("//", "#"))]
    model = parser.parse_model("".join(lines))
    # The 1.12 text syntax cannot name nodes: name each after its first output.
    for node in model.graph.node:
        if not node.name and node.output:
            node.name = node.output[0]
    if "--raw-initializers" in sys.argv:
        for i, t in enumerate(model.graph.initializer):
            model.graph.initializer[i].CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t), t.name))
    onnx.save(model, dst)


if __name__ == "__main__":
    main()
