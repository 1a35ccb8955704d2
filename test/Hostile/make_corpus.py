#!/usr/bin/python3
"""Writes the hostile-input corpus: malformed and hostile models that tractc
must refuse with a clear error (and a few valid edge cases it must compile).

usage: /usr/bin/python3 make_corpus.py [OUT_DIR]   (default: corpus/ beside this script)

Each case is OUT_DIR/NAME.onnx (or a folder NAME/ holding model.onnx, for
external data). What tractc must do with each is in expected.txt, checked by
run_hostile.py. The files are committed: the corpus is the regression test, and
this script says how each was made. Deterministic (fixed seeds).
"""
import os
import random
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
REAL_MODEL = os.path.join(HERE, "..", "..", "examples", "models", "tiny_cnn.onnx")
F = TensorProto.FLOAT


def vi(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, inits=(), opset=13, domain_opsets=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in domain_opsets]
    m = helper.make_model(graph, opset_imports=opsets)
    m.ir_version = 8
    return m


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def cases():
    """Yields (name, bytes or ModelProto)."""
    yield "empty", b""
    real = open(REAL_MODEL, "rb").read()
    yield "truncated_half", real[: len(real) // 2]
    yield "truncated_header", real[:7]
    rnd = random.Random(1234)
    yield "random_bytes", bytes(rnd.randrange(256) for _ in range(4096))
    yield "zeros", bytes(4096)
    yield "text_file", b"ir_version: 8\ngraph { name: 'g' }\n" * 20
    # A TensorProto where a ModelProto is expected: parses, wrong fields.
    yield "tensor_proto", numpy_helper.from_array(np.ones((4, 4), np.float32), "W").SerializeToString()
    yield "no_graph", onnx.ModelProto(ir_version=8, opset_import=[helper.make_opsetid("", 13)])

    x = vi("X", [1, 4])
    y = vi("Y", [1, 4])
    yield "undefined_input", model([helper.make_node("Add", ["X", "nowhere"], ["Y"], name="add")],
                                   [x], [y])
    yield "undefined_output", model([helper.make_node("Relu", ["X"], ["Z"], name="relu")], [x], [y])
    yield "cycle", model([helper.make_node("Add", ["X", "B"], ["A"], name="a"),
                          helper.make_node("Relu", ["A"], ["B"], name="b"),
                          helper.make_node("Identity", ["A"], ["Y"], name="out")], [x], [y])
    yield "self_loop", model([helper.make_node("Add", ["X", "Y"], ["Y"], name="selfadd")], [x], [y])

    bad = TensorProto(name="W", data_type=F, dims=[4, 4], raw_data=np.ones(3, np.float32).tobytes())
    yield "raw_data_short", model([helper.make_node("MatMul", ["X", "W"], ["Y"], name="mm")],
                                  [x], [y], [bad])
    bad = TensorProto(name="W", data_type=F, dims=[4], float_data=[1.0] * 7)
    yield "float_data_count", model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")],
                                    [x], [y], [bad])
    bad = TensorProto(name="W", data_type=F, dims=[-4, 1], raw_data=b"")
    yield "negative_dim_initializer", model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")],
                                            [x], [y], [bad])
    yield "negative_dim_input", model([helper.make_node("Relu", ["X"], ["Y"], name="relu")],
                                      [vi("X", [1, -5])], [y])
    big = 1 << 32
    bad = TensorProto(name="W", data_type=F, dims=[big, big, big], raw_data=b"\0" * 16)
    yield "dims_overflow_initializer", model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")],
                                             [x], [y], [bad])
    yield "dims_overflow_input", model([helper.make_node("Relu", ["X"], ["Y"], name="relu")],
                                       [vi("X", [big, big, big])], [vi("Y", [big, big, big])])
    yield "absurd_input", model([helper.make_node("Relu", ["X"], ["Y"], name="relu")],
                                [vi("X", [100000, 100000, 100000])], [vi("Y", [100000, 100000, 100000])])
    yield "absurd_intermediate", model(
        [helper.make_node("Expand", ["X", "S"], ["E"], name="expand"),
         helper.make_node("ReduceSum", ["E"], ["Y"], name="sum", keepdims=0)],
        [vi("X", [1])], [vi("Y", [])], [const("S", np.array([1 << 20, 1 << 20, 1 << 20], np.int64))])
    bad = TensorProto(name="W", data_type=0, dims=[4], raw_data=b"\0" * 16)
    yield "undefined_dtype", model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")],
                                   [x], [y], [bad])

    conv_x = vi("X", [1, 1, 8, 8])
    w = const("W", np.ones((1, 1, 3, 3), np.float32))
    node = helper.make_node("Conv", ["X", "W"], ["Y"], name="conv")
    node.attribute.append(helper.make_attribute("strides", [1.5, 1.5]))
    yield "attr_wrong_type", model([node], [conv_x], [vi("Y", [1, 1, 6, 6])], [w])
    node = helper.make_node("Conv", ["X", "W"], ["Y"], name="conv", strides=[0, 0])
    yield "attr_zero_stride", model([node], [conv_x], [vi("Y", [1, 1, 6, 6])], [w])
    node = helper.make_node("Conv", ["X", "W"], ["Y"], name="conv", pads=[1, 1])
    yield "attr_wrong_length", model([node], [conv_x], [vi("Y", [1, 1, 8, 8])], [w])
    yield "unknown_domain", model([helper.make_node("Relu", ["X"], ["Y"], name="evil", domain="com.evil")],
                                  [x], [y], domain_opsets=[("com.evil", 1)])
    yield "unknown_op", model([helper.make_node("NoSuchOp", ["X"], ["Y"], name="nope")], [x], [y])
    yield "opset_too_new", model([helper.make_node("Relu", ["X"], ["Y"], name="relu")], [x], [y],
                                 opset=99)
    yield "opset_negative", model([helper.make_node("Relu", ["X"], ["Y"], name="relu")], [x], [y],
                                  opset=-3)
    yield "duplicate_output_name", model([helper.make_node("Relu", ["X"], ["Y"], name="r1"),
                                          helper.make_node("Sigmoid", ["X"], ["Y"], name="r2")],
                                         [x], [y])
    yield "duplicate_graph_outputs", model([helper.make_node("Relu", ["X"], ["Y"], name="relu")],
                                           [x], [y, vi("Y", [1, 4])])
    yield "duplicate_inputs", model([helper.make_node("Relu", ["X"], ["Y"], name="relu")],
                                    [x, vi("X", [1, 4])], [y])
    yield "no_outputs", model([helper.make_node("Relu", ["X"], ["Y"], name="relu")], [x], [])
    yield "empty_op_type", model([helper.make_node("", ["X"], ["Y"], name="blank")], [x], [y])

    w9 = const("W", np.ones((1, 1, 9, 9), np.float32))
    yield "kernel_larger_than_input", model([helper.make_node("Conv", ["X", "W"], ["Y"], name="conv")],
                                            [conv_x], [vi("Y", [1, 1, 1, 1])], [w9])
    wch = const("W", np.ones((1, 3, 3, 3), np.float32))
    yield "conv_channel_mismatch", model([helper.make_node("Conv", ["X", "W"], ["Y"], name="conv")],
                                         [conv_x], [vi("Y", [1, 1, 6, 6])], [wch])
    yield "reshape_incompatible", model(
        [helper.make_node("Reshape", ["X", "S"], ["Y"], name="reshape")], [x], [vi("Y", [3, 3])],
        [const("S", np.array([3, 3], np.int64))])
    yield "reshape_two_minus_one", model(
        [helper.make_node("Reshape", ["X", "S"], ["Y"], name="reshape")], [x], [vi("Y", [2, 2])],
        [const("S", np.array([-1, -1], np.int64))])
    yield "matmul_mismatch", model([helper.make_node("MatMul", ["X", "W"], ["Y"], name="mm")],
                                   [x], [vi("Y", [1, 4])], [const("W", np.ones((5, 4), np.float32))])
    yield "gather_index_out_of_range", model(
        [helper.make_node("Gather", ["X", "I"], ["Y"], name="gather", axis=1)], [x], [vi("Y", [1, 2])],
        [const("I", np.array([0, 7], np.int64))])
    yield "gather_axis_out_of_range", model(
        [helper.make_node("Gather", ["X", "I"], ["Y"], name="gather", axis=5)], [x], [vi("Y", [1, 2])],
        [const("I", np.array([0, 1], np.int64))])
    yield "concat_axis_out_of_range", model(
        [helper.make_node("Concat", ["X", "X"], ["Y"], name="concat", axis=3)], [x], [vi("Y", [1, 8])])
    yield "transpose_bad_perm", model(
        [helper.make_node("Transpose", ["X"], ["Y"], name="transpose", perm=[0, 0])], [x], [y])
    yield "slice_zero_step", model(
        [helper.make_node("Slice", ["X", "s", "e", "a", "st"], ["Y"], name="slice")], [x], [y],
        [const("s", np.array([0], np.int64)), const("e", np.array([4], np.int64)),
         const("a", np.array([1], np.int64)), const("st", np.array([0], np.int64))])
    yield "add_broadcast_mismatch", model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")],
                                          [x], [y], [const("W", np.ones((3,), np.float32))])
    yield "split_sizes_mismatch", model(
        [helper.make_node("Split", ["X", "s"], ["Y", "Z"], name="split", axis=1)], [x],
        [vi("Y", [1, 2]), vi("Z", [1, 2])], [const("s", np.array([3, 3], np.int64))])
    yield "einsum_label_two_sizes", model(
        [helper.make_node("Einsum", ["X"], ["Y"], name="einsum", equation="ii->i")],
        [vi("X", [3, 4])], [vi("Y", [3])], opset=12)
    yield "constant_no_value", model([helper.make_node("Constant", [], ["C"], name="c"),
                                      helper.make_node("Add", ["X", "C"], ["Y"], name="add")], [x], [y])

    # Control flow: bodies nested past the limit, a loop whose trip count
    # would unroll forever.
    body = helper.make_graph([helper.make_node("Identity", ["X"], ["B0"], name="leaf")], "b0",
                             [], [vi("B0", [1, 4])])
    leaf = body
    for depth in range(1, 20):  # (the else branch a leaf: the file stays small)
        node = helper.make_node("If", ["cond"], ["B%d" % depth], name="if%d" % depth,
                                then_branch=body, else_branch=leaf)
        body = helper.make_graph([node], "b%d" % depth, [], [vi("B%d" % depth, [1, 4])])
    yield "nested_too_deep", model(list(body.node), [x, vi("cond", [], TensorProto.BOOL)],
                                   [vi("B19", [1, 4])])
    loop_body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"], name="keep"),
         helper.make_node("Relu", ["v_in"], ["v_out"], name="step")], "body",
        [vi("i", [], TensorProto.INT64), vi("c_in", [], TensorProto.BOOL), vi("v_in", [1, 4])],
        [vi("c_out", [], TensorProto.BOOL), vi("v_out", [1, 4])])
    yield "loop_huge_trip_count", model(
        [helper.make_node("Loop", ["M", "", "X"], ["Y"], name="loop", body=loop_body)], [x], [y],
        [const("M", np.array(1 << 40, np.int64))])
    sparse = model([helper.make_node("Relu", ["X"], ["Y"], name="relu")], [x], [y])
    sparse.graph.sparse_initializer.add().values.name = "S"
    yield "sparse_initializer", sparse
    strings = TensorProto(name="W", data_type=TensorProto.STRING, dims=[1], string_data=[b"a"])
    yield "string_initializer_to_add", model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")],
                                             [x], [y], [strings])

    # Declared graph outputs that disagree with what the graph computes.
    yield "output_declared_shape_mismatch", model(
        [helper.make_node("Relu", ["X"], ["Y"], name="relu")], [x], [vi("Y", [7, 9])])
    yield "output_declared_type_mismatch", model(
        [helper.make_node("Relu", ["X"], ["Y"], name="relu")], [x], [vi("Y", [1, 4], TensorProto.INT64)])

    # Window attributes whose sizes would overflow int64 arithmetic.
    node = helper.make_node("Conv", ["X", "W"], ["Y"], name="conv", pads=[1 << 62] * 4)
    yield "conv_pads_overflow", model([node], [conv_x], [vi("Y", None)], [w])
    node = helper.make_node("Conv", ["X", "W"], ["Y"], name="conv", dilations=[1 << 40, 1 << 40])
    yield "conv_dilation_huge", model([node], [conv_x], [vi("Y", None)], [w])
    node = helper.make_node("Conv", ["X", "W"], ["Y"], name="conv", group=0)
    yield "conv_group_zero", model([node], [conv_x], [vi("Y", None)], [w])
    node = helper.make_node("ConvTranspose", ["X", "W"], ["Y"], name="convt", strides=[1 << 40, 1 << 40])
    yield "conv_transpose_stride_huge", model([node], [conv_x], [vi("Y", None)], [w])
    node = helper.make_node("MaxPool", ["X"], ["Y"], name="pool", kernel_shape=[0, 0])
    yield "pool_kernel_zero", model([node], [conv_x], [vi("Y", None)])

    # Sizes the compiler would generate on the host: bounded (a 2^30-element
    # fill and a 2^28-element range become run-time ops; a huge EyeLike is refused).
    yield "valid_large_constant_of_shape", model(
        [helper.make_node("ConstantOfShape", ["S"], ["Y"], name="fill")], [],
        [vi("Y", [1 << 10, 1 << 10, 1 << 10])], [const("S", np.array([1 << 10] * 3, np.int64))])
    yield "valid_large_range", model(
        [helper.make_node("Range", ["a", "b", "d"], ["Y"], name="range")], [],
        [vi("Y", [1 << 28], TensorProto.INT64)],
        [const("a", np.array(0, np.int64)), const("b", np.array(1 << 28, np.int64)),
         const("d", np.array(1, np.int64))])
    yield "eye_like_huge", model([helper.make_node("EyeLike", ["X"], ["Y"], name="eye")],
                                 [vi("X", [1 << 16, 1 << 16])], [vi("Y", [1 << 16, 1 << 16])])

    # Tensors with no elements: a reduction over an empty axis is refused, an
    # empty result is a constant (no kernel runs on it), an RNN needs a step.
    yield "reduce_over_empty_axis", model(
        [helper.make_node("ArgMax", ["X"], ["Y"], name="argmax", keepdims=1)],
        [vi("X", [0, 3])], [vi("Y", [1, 3], TensorProto.INT64)])
    yield "valid_conv_zero_channels", model(
        [helper.make_node("Conv", ["X", "W"], ["Y"], name="conv")],
        [vi("X", [1, 0, 4, 4]), vi("W", [0, 0, 1, 1])], [vi("Y", [1, 0, 4, 4])])
    lstm_w = const("W", np.ones((1, 8, 3), np.float32))
    lstm_r = const("R", np.ones((1, 8, 2), np.float32))
    yield "lstm_empty_sequence", model(
        [helper.make_node("LSTM", ["X", "W", "R"], ["Y"], name="lstm", hidden_size=2)],
        [vi("X", [0, 1, 3])], [vi("Y", None)], [lstm_w, lstm_r])

    # Valid edge cases that must still compile.
    yield "valid_opset_1", model([helper.make_node("Relu", ["X"], ["Y"], name="relu")], [x], [y],
                                 opset=1)
    yield "valid_identity", model([helper.make_node("Identity", ["X"], ["Y"], name="id")], [x], [y])
    yield "valid_input_is_output", model([], [x], [vi("X", [1, 4])])
    yield "valid_symbolic_batch", model([helper.make_node("Relu", ["X"], ["Y"], name="relu")],
                                        [vi("X", ["N", 4])], [vi("Y", ["N", 4])])

    # Bit flips in the real model: each must compile or fail cleanly.
    for i in range(24):
        data = bytearray(real)
        pos = rnd.randrange(len(data))
        data[pos] ^= 1 << rnd.randrange(8)
        yield "bitflip_%02d" % i, bytes(data)


def external_cases(out):
    """Folders NAME/model.onnx whose W is external data (weights.bin holds
    it; LINKS are symbolic links made in the folder: name -> target)."""
    w = np.array([1, 2, 3, 4], dtype=np.float32)
    for name, location, offset, length, links in [
            ("external_escape", "../outside.bin", "0", "16", {}),
            ("external_escape_deep", "a/../../../../etc/passwd", "0", "16", {}),
            ("external_absolute", "/etc/passwd", "0", "16", {}),
            ("external_missing", "nope.bin", "0", "16", {}),
            ("external_past_end", "weights.bin", "0", "32", {}),
            ("external_huge_offset", "weights.bin", str(1 << 62), "16", {}),
            ("external_directory", ".", "0", "16", {}),
            # (links that leave the folder but stay in the corpus: tools that
            # walk the repository must not wander into /etc or /dev)
            ("external_symlink_out", "w.bin", "0", "16",
             {"w.bin": "../external_escape/weights.bin"}),
            ("external_symlink_folder_out", "sub/weights.bin", "0", "16",
             {"sub": "../external_escape"}),
            ("external_offset_not_a_number", "weights.bin", "abc", "16", {}),
            ("external_offset_overflow", "weights.bin", "99999999999999999999", "16", {}),
            ("external_length_negative", "weights.bin", "0", "-16", {}),
            ("external_nul_in_path", "weights.bin\0../../etc/passwd", "0", "16", {}),
            ("valid_external_in_subfolder", "sub/w.bin", "0", "16", {}),
            ("valid_external_no_length", "weights.bin", None, None, {})]:
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "weights.bin"), "wb") as f:
            f.write(w.tobytes())
        if location.startswith("sub/") and "sub" not in links:
            os.makedirs(os.path.join(d, "sub"))
            with open(os.path.join(d, location), "wb") as f:
                f.write(w.tobytes())
        for link, target in links.items():
            os.symlink(target, os.path.join(d, link))
        init = TensorProto(name="W", data_type=F, dims=[4], data_location=TensorProto.EXTERNAL)
        for k, v in [("location", location), ("offset", offset), ("length", length)]:
            if v is not None:
                e = init.external_data.add()
                e.key, e.value = k, v
        m = model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")],
                  [vi("X", [4])], [vi("Y", [4])], [init])
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(m.SerializeToString())


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus")
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    for name, data in cases():
        if isinstance(data, onnx.ModelProto):
            data = data.SerializeToString()
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(data)
    external_cases(out)


if __name__ == "__main__":
    main()
