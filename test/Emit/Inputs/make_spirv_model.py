#!/usr/bin/python3
"""Writes a small model covering what --target=spirv runs, and an input.

usage: make_spirv_model.py OUT_DIR
  OUT_DIR/model.onnx: X[1,4,7,7], M[3,5] ->
    Y1 = tanh(flatten(sigmoid(grouped dilated conv(relu(strided conv(X)))) + relu(...)) @ W3 + B3)
    Y2 = transpose(M) * 2 - 1            (a transposed read in an element-wise chain)
    Y3 = M                               (an output that is an input)
    Y4 = Gemm(M, W4, B4, transB=1)       (a matmul reading its weights transposed)
    Y5 = AveragePool(X, 3x3, stride 2, pads 1, count_include_pad)
    Y6 = MaxPool(X, 2x2, stride 2, ceil_mode)
    Y7 = LogSoftmax(M, axis 0)
    Y8 = ReduceMax(X, axes [1, 3], keepdims 0)
    Y9 = Concat(M reversed along dim 1 (a Slice with step -1), Expand(B4[:3] as [3, 1] to [3, 2]))
  and, big enough for the tiled GEMM shader (edges not multiples of its 64 x 64 x 16 tiles), from
  X2[2,8,54,30] and PX[2,1,70,33]:
    Y10 = relu(Conv(X2, W5[32,4,3,2], B5, group 2, stride (2,1), pads 1))
    Y11 = relu(MatMul(PX, Q[3,33,130]) + B6)   (batch dims broadcast to [2,3])
    Y12 = Gemm(P2 = reshape(PX, [140, 33]), W6[150,33], B7, transB=1)
    Y13 = tanh(MatMul(RX[1420, 20], W7[20, 1420]))   (enough tiles for 128 x 128 ones)
  and on the split-K shader (few tiles, long K):
    Y14 = relu(MatMul(V[1, 300], W8[300, 1000]))      (a batch-1 fully connected layer)
    Y15 = relu(Conv(X3[1, 256, 7, 7], W9[96, 256, 3, 3], B9, pads 1))
  and rows of 32 or more on a workgroup each:
    Y16 = Softmax(Z[4, 40, 3], axis 1)       (a strided row)
    Y17 = LogSoftmax(Z2[4, 3, 200], axis 2)
    Y18 = Relu(L[70, 700] @ W10 + B10)   (K split over 9 workgroups, ragged)
    Y19 = Relu(Conv1x1(X2, W11, B11, group 2))
  and a squeeze-and-excitation's parts:
    Y20 = ReduceMean(X2, axes [2, 3])        (runs of 1620: a workgroup per output)
    Y21 = Sigmoid(Conv1x1(GlobalAveragePool(X3), W12[48, 256, 1, 1], B12))   (one column: dot
                                                                              products)
  and Y22 = Relu(ConvTranspose(X, W13[4, 3, 3, 3], B13, group 2, strides 2, dilations (1, 2),
                               pads 1, output_padding 1))
  and Y23 = Resize(X, scales [1, 1, 2, 1.5], linear, half_pixel)
      Y24 = Resize(X, sizes [1, 4, 3, 11], nearest, asymmetric, floor)
      Y25 = Resize(X, scales [1, 1, 0.6, 1.3], cubic, exclude_outside)
  and an attention head split, its transpose stored by the split-K GEMM before it:
    Y26 = Transpose(Reshape(L @ WH[700, 64] + BH, [70, 4, 16]), perm (1, 0, 2))
    Y27 = Transpose(Y18, perm (1, 0))   (Y18 is an output too: a transpose of its own)
  and a fourth split-K GEMM, in the first one's scratch slot (after a barrier):
    Y28 = Relu(L @ WS[700, 32])
  and int64 indices: Y29 = ArgMax(X2, axis 1, keepdims 0), Y30 = ArgMin(Z, axis 2, select_last_index)
  OUT_DIR/x.npy, OUT_DIR/m.npy: inputs.
The test compares the SPIR-V build's outputs with the C++ build's.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(3)

    def init(name, shape, scale=0.5):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)

    inits = [init("W1", (8, 4, 3, 3)), init("B1", (8,)), init("W2", (8, 2, 3, 3)),
             init("W3", (128, 10), 0.1), init("B3", (10,)), init("W4", (4, 5)), init("B4", (4,)),
             numpy_helper.from_array(np.array([1, 128], np.int64), "flat"),
             numpy_helper.from_array(np.float32(2), "two"),
             numpy_helper.from_array(np.float32(1), "one")]
    nodes = [
        helper.make_node("Conv", ["X", "W1", "B1"], ["C1"], name="conv1", pads=[1, 1, 1, 1],
                         strides=[2, 2]),
        helper.make_node("Relu", ["C1"], ["R1"], name="relu1"),
        helper.make_node("Conv", ["R1", "W2"], ["C2"], name="conv2", group=4, pads=[2, 2, 2, 2],
                         dilations=[2, 2]),
        helper.make_node("Sigmoid", ["C2"], ["S2"], name="sigmoid2"),
        helper.make_node("Add", ["S2", "R1"], ["A"], name="residual"),
        helper.make_node("Reshape", ["A", "flat"], ["F"], name="flatten"),
        helper.make_node("MatMul", ["F", "W3"], ["P"], name="fc"),
        helper.make_node("Add", ["P", "B3"], ["PB"], name="fc_bias"),
        helper.make_node("Tanh", ["PB"], ["Y1"], name="tanh"),
        helper.make_node("Transpose", ["M"], ["MT"], name="transpose", perm=[1, 0]),
        helper.make_node("Mul", ["MT", "two"], ["M2"], name="double"),
        helper.make_node("Sub", ["M2", "one"], ["Y2"], name="minus_one"),
        helper.make_node("Identity", ["M"], ["Y3"], name="same"),
        helper.make_node("Gemm", ["M", "W4", "B4"], ["Y4"], name="gemm", transB=1),
        helper.make_node("AveragePool", ["X"], ["Y5"], name="avgpool", kernel_shape=[3, 3],
                         strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1),
        helper.make_node("MaxPool", ["X"], ["Y6"], name="maxpool", kernel_shape=[2, 2],
                         strides=[2, 2], ceil_mode=1),
        helper.make_node("LogSoftmax", ["M"], ["Y7"], name="logsoftmax", axis=0),
        helper.make_node("ReduceMax", ["X"], ["Y8"], name="reducemax", axes=[1, 3], keepdims=0),
        helper.make_node("Slice", ["M", "starts", "ends", "axes", "steps"], ["MR"], name="reverse"),
        helper.make_node("Slice", ["B4", "zero", "three", "zero"], ["B4H"], name="b3"),
        helper.make_node("Reshape", ["B4H", "col"], ["BC"], name="bcol"),
        helper.make_node("Expand", ["BC", "shape32"], ["BE"], name="expand"),
        helper.make_node("Concat", ["MR", "BE"], ["Y9"], name="concat", axis=1),
        helper.make_node("Conv", ["X2", "W5", "B5"], ["C5"], name="conv5", group=2,
                         strides=[2, 1], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["C5"], ["Y10"], name="relu5"),
        helper.make_node("MatMul", ["PX", "Q"], ["PQ"], name="batched"),
        helper.make_node("Add", ["PQ", "B6"], ["PQB"], name="batched_bias"),
        helper.make_node("Relu", ["PQB"], ["Y11"], name="batched_relu"),
        helper.make_node("Reshape", ["PX", "p2"], ["P2"], name="p2"),
        helper.make_node("Gemm", ["P2", "W6", "B7"], ["Y12"], name="gemm_t", transB=1),
        helper.make_node("MatMul", ["RX", "W7"], ["RW"], name="wide"),
        helper.make_node("Tanh", ["RW"], ["Y13"], name="wide_tanh"),
    ]
    inits.append(init("W7", (20, 1420), 0.3))
    nodes += [
        helper.make_node("MatMul", ["V", "W8"], ["VW"], name="gemv"),
        helper.make_node("Relu", ["VW"], ["Y14"], name="gemv_relu"),
        helper.make_node("Conv", ["X3", "W9", "B9"], ["C9"], name="conv9", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["C9"], ["Y15"], name="relu9"),
    ]
    inits += [init("W8", (300, 1000), 0.1), init("W9", (96, 256, 3, 3), 0.05), init("B9", (96,))]
    nodes += [
        helper.make_node("Softmax", ["Z"], ["Y16"], name="softmax_rows", axis=1),
        helper.make_node("LogSoftmax", ["Z2"], ["Y17"], name="logsoftmax_rows", axis=2),
        # K = 700 over 2 tiles: 9 ranges of 80, the last one 60 (ragged).
        helper.make_node("MatMul", ["L", "W10"], ["LW"], name="ragged"),
        helper.make_node("Add", ["LW", "B10"], ["LWB"], name="ragged_bias"),
        helper.make_node("Relu", ["LWB"], ["Y18"], name="ragged_relu"),
        # A grouped 1x1 conv: both operands read as vec4s.
        helper.make_node("Conv", ["X2", "W11", "B11"], ["C11"], name="pointwise", group=2),
        helper.make_node("Relu", ["C11"], ["Y19"], name="pointwise_relu"),
    ]
    inits += [init("W10", (700, 50), 0.05), init("B10", (50,)), init("W11", (96, 4, 1, 1)),
              init("B11", (96,))]
    nodes += [
        helper.make_node("ReduceMean", ["X2"], ["Y20"], name="plane_mean", axes=[2, 3]),
        helper.make_node("GlobalAveragePool", ["X3"], ["G3"], name="squeeze"),
        helper.make_node("Conv", ["G3", "W12", "B12"], ["C12"], name="excite"),
        helper.make_node("Sigmoid", ["C12"], ["Y21"], name="excite_sigmoid"),
    ]
    inits += [init("W12", (48, 256, 1, 1), 0.1), init("B12", (48,))]
    nodes += [
        helper.make_node("ConvTranspose", ["X", "W13", "B13"], ["T13"], name="deconv", group=2,
                         strides=[2, 2], dilations=[1, 2], pads=[1, 1, 1, 1],
                         output_padding=[1, 1]),
        helper.make_node("Relu", ["T13"], ["Y22"], name="deconv_relu"),
    ]
    inits += [init("W13", (4, 3, 3, 3)), init("B13", (6,))]
    nodes += [
        helper.make_node("Resize", ["X", "", "scales23"], ["Y23"], name="upsample",
                         mode="linear", coordinate_transformation_mode="half_pixel"),
        helper.make_node("Resize", ["X", "", "", "sizes24"], ["Y24"], name="nearest",
                         mode="nearest", coordinate_transformation_mode="asymmetric",
                         nearest_mode="floor"),
        helper.make_node("Resize", ["X", "", "scales25"], ["Y25"], name="cubic", mode="cubic",
                         exclude_outside=1),
    ]
    nodes += [
        helper.make_node("MatMul", ["L", "WH"], ["LH"], name="heads"),
        helper.make_node("Add", ["LH", "BH"], ["LHB"], name="heads_bias"),
        helper.make_node("Reshape", ["LHB", "split_heads"], ["LHS"], name="heads_reshape"),
        helper.make_node("Transpose", ["LHS"], ["Y26"], name="heads_transpose", perm=[1, 0, 2]),
        helper.make_node("Transpose", ["Y18"], ["Y27"], name="ragged_transpose", perm=[1, 0]),
        helper.make_node("MatMul", ["L", "WS"], ["LS"], name="slot_reuse"),
        helper.make_node("Relu", ["LS"], ["Y28"], name="slot_reuse_relu"),
        helper.make_node("ArgMax", ["X2"], ["Y29"], name="argmax", axis=1, keepdims=0),
        helper.make_node("ArgMin", ["Z"], ["Y30"], name="argmin", axis=2, select_last_index=1),
    ]
    inits += [init("WH", (700, 64), 0.05), init("BH", (64,)), init("WS", (700, 32), 0.05),
              numpy_helper.from_array(np.array([70, 4, 16], np.int64), "split_heads")]
    inits += [numpy_helper.from_array(np.array(v, np.float32), n) for n, v in
              (("scales23", [1, 1, 2, 1.5]), ("scales25", [1, 1, 0.6, 1.3]))]
    inits += [numpy_helper.from_array(np.array([1, 4, 3, 11], np.int64), "sizes24")]
    inits += [init("W5", (32, 4, 3, 2)), init("B5", (32,)), init("Q", (3, 33, 130), 0.3),
              init("B6", (130,)), init("W6", (150, 33), 0.3), init("B7", (150,)),
              numpy_helper.from_array(np.array([140, 33], np.int64), "p2")]
    inits += [numpy_helper.from_array(np.array(v, np.int64), n) for n, v in
              (("starts", [-1]), ("ends", [-100]), ("axes", [1]), ("steps", [-1]),
               ("zero", [0]), ("three", [3]), ("col", [3, 1]), ("shape32", [3, 2]))]
    graph = helper.make_graph(
        nodes, "spirv_model",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 4, 7, 7]),
         helper.make_tensor_value_info("M", TensorProto.FLOAT, [3, 5]),
         helper.make_tensor_value_info("X2", TensorProto.FLOAT, [2, 8, 54, 30]),
         helper.make_tensor_value_info("PX", TensorProto.FLOAT, [2, 1, 70, 33]),
         helper.make_tensor_value_info("RX", TensorProto.FLOAT, [1420, 20]),
         helper.make_tensor_value_info("V", TensorProto.FLOAT, [1, 300]),
         helper.make_tensor_value_info("X3", TensorProto.FLOAT, [1, 256, 7, 7]),
         helper.make_tensor_value_info("Z", TensorProto.FLOAT, [4, 40, 3]),
         helper.make_tensor_value_info("Z2", TensorProto.FLOAT, [4, 3, 200]),
         helper.make_tensor_value_info("L", TensorProto.FLOAT, [70, 700])],
        [helper.make_tensor_value_info("Y1", TensorProto.FLOAT, [1, 10]),
         helper.make_tensor_value_info("Y2", TensorProto.FLOAT, [5, 3]),
         helper.make_tensor_value_info("Y3", TensorProto.FLOAT, [3, 5]),
         helper.make_tensor_value_info("Y4", TensorProto.FLOAT, [3, 4]),
         helper.make_tensor_value_info("Y5", TensorProto.FLOAT, [1, 4, 4, 4]),
         helper.make_tensor_value_info("Y6", TensorProto.FLOAT, [1, 4, 4, 4]),
         helper.make_tensor_value_info("Y7", TensorProto.FLOAT, [3, 5]),
         helper.make_tensor_value_info("Y8", TensorProto.FLOAT, [1, 7]),
         helper.make_tensor_value_info("Y9", TensorProto.FLOAT, [3, 7]),
         helper.make_tensor_value_info("Y10", TensorProto.FLOAT, [2, 32, 27, 31]),
         helper.make_tensor_value_info("Y11", TensorProto.FLOAT, [2, 3, 70, 130]),
         helper.make_tensor_value_info("Y12", TensorProto.FLOAT, [140, 150]),
         helper.make_tensor_value_info("Y13", TensorProto.FLOAT, [1420, 1420]),
         helper.make_tensor_value_info("Y14", TensorProto.FLOAT, [1, 1000]),
         helper.make_tensor_value_info("Y15", TensorProto.FLOAT, [1, 96, 7, 7]),
         helper.make_tensor_value_info("Y16", TensorProto.FLOAT, [4, 40, 3]),
         helper.make_tensor_value_info("Y17", TensorProto.FLOAT, [4, 3, 200]),
         helper.make_tensor_value_info("Y18", TensorProto.FLOAT, [70, 50]),
         helper.make_tensor_value_info("Y19", TensorProto.FLOAT, [2, 96, 54, 30]),
         helper.make_tensor_value_info("Y20", TensorProto.FLOAT, [2, 8, 1, 1]),
         helper.make_tensor_value_info("Y21", TensorProto.FLOAT, [1, 48, 1, 1]),
         helper.make_tensor_value_info("Y22", TensorProto.FLOAT, [1, 6, 14, 16]),
         helper.make_tensor_value_info("Y23", TensorProto.FLOAT, [1, 4, 14, 10]),
         helper.make_tensor_value_info("Y24", TensorProto.FLOAT, [1, 4, 3, 11]),
         helper.make_tensor_value_info("Y25", TensorProto.FLOAT, [1, 4, 4, 9]),
         helper.make_tensor_value_info("Y26", TensorProto.FLOAT, [4, 70, 16]),
         helper.make_tensor_value_info("Y27", TensorProto.FLOAT, [50, 70]),
         helper.make_tensor_value_info("Y28", TensorProto.FLOAT, [70, 32]),
         helper.make_tensor_value_info("Y29", TensorProto.INT64, [2, 54, 30]),
         helper.make_tensor_value_info("Y30", TensorProto.INT64, [4, 40, 1])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, f"{out}/model.onnx")
    np.save(f"{out}/x.npy", rng.standard_normal((1, 4, 7, 7)).astype(np.float32))
    np.save(f"{out}/m.npy", rng.standard_normal((3, 5)).astype(np.float32))
    np.save(f"{out}/x2.npy", rng.standard_normal((2, 8, 54, 30)).astype(np.float32))
    np.save(f"{out}/p.npy", rng.standard_normal((2, 1, 70, 33)).astype(np.float32))
    np.save(f"{out}/r.npy", rng.standard_normal((1420, 20)).astype(np.float32))
    np.save(f"{out}/v.npy", rng.standard_normal((1, 300)).astype(np.float32))
    np.save(f"{out}/x3.npy", rng.standard_normal((1, 256, 7, 7)).astype(np.float32))
    np.save(f"{out}/z.npy", (rng.standard_normal((4, 40, 3)) * 4).astype(np.float32))
    np.save(f"{out}/z2.npy", (rng.standard_normal((4, 3, 200)) * 4).astype(np.float32))
    np.save(f"{out}/l.npy", rng.standard_normal((70, 700)).astype(np.float32))


if __name__ == "__main__":
    main()
