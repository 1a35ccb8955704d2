//===- TractOps.td - tract dialect ops ---------------------*- tablegen -*-===//
//
// Graph-level core op set. ONNX ops that are sugar (Gemm, BatchNormalization,
// Flatten, Squeeze, Split, GlobalAveragePool, ...) expand into these in the
// importer, as tract's ONNX front end does.
//
//===----------------------------------------------------------------------===//

#ifndef TRACT_OPS_TD
#define TRACT_OPS_TD

include "dialects/tract/IR/TractBase.td"

//===----------------------------------------------------------------------===//
// Operator: const
//===----------------------------------------------------------------------===//
def Tract_ConstOp : Tract_Op<"const", [ConstantLike, Pure,
    AllTypesMatch<["value", "output"]>]> {
  let summary = "constant tensor (weights live in dense resources)";
  let description = [{
    Example:
    ```mlir
    %w = tract.const dense_resource<conv1.weight> : tensor<64x3x7x7xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise unary (same type)
//===----------------------------------------------------------------------===//
def Tract_NegOp : Tract_UnaryOp<"neg", "y = -x">;
def Tract_AbsOp : Tract_UnaryOp<"abs", "y = |x|">;
def Tract_SqrtOp : Tract_UnaryOp<"sqrt", "y = sqrt(x)">;
def Tract_ExpOp : Tract_UnaryOp<"exp", "y = e^x">;
def Tract_LogOp : Tract_UnaryOp<"log", "y = ln(x)">;
def Tract_ErfOp : Tract_UnaryOp<"erf", "Gauss error function">;
def Tract_ReluOp : Tract_UnaryOp<"relu", "y = max(x, 0)">;
def Tract_SigmoidOp : Tract_UnaryOp<"sigmoid", "y = 1 / (1 + e^-x)">;
def Tract_TanhOp : Tract_UnaryOp<"tanh", "hyperbolic tangent">;
def Tract_FloorOp : Tract_UnaryOp<"floor", "round toward -inf">;
def Tract_CeilOp : Tract_UnaryOp<"ceil", "round toward +inf">;
def Tract_RoundOp : Tract_UnaryOp<"round", "round half to even">;
def Tract_SinOp : Tract_UnaryOp<"sin", "sine">;
def Tract_CosOp : Tract_UnaryOp<"cos", "cosine">;
def Tract_TanOp : Tract_UnaryOp<"tan", "tangent">;
def Tract_AsinOp : Tract_UnaryOp<"asin", "arc sine">;
def Tract_AcosOp : Tract_UnaryOp<"acos", "arc cosine">;
def Tract_AtanOp : Tract_UnaryOp<"atan", "arc tangent">;
def Tract_SinhOp : Tract_UnaryOp<"sinh", "hyperbolic sine">;
def Tract_CoshOp : Tract_UnaryOp<"cosh", "hyperbolic cosine">;
def Tract_AsinhOp : Tract_UnaryOp<"asinh", "inverse hyperbolic sine">;
def Tract_AcoshOp : Tract_UnaryOp<"acosh", "inverse hyperbolic cosine">;
def Tract_AtanhOp : Tract_UnaryOp<"atanh", "inverse hyperbolic tangent">;
def Tract_ReciprocalOp : Tract_UnaryOp<"reciprocal", "y = 1 / x">;
def Tract_SignOp : Tract_UnaryOp<"sign", "y = -1, 0 or 1">;
def Tract_SoftplusOp : Tract_UnaryOp<"softplus", "y = ln(1 + e^x)">;
def Tract_SoftsignOp : Tract_UnaryOp<"softsign", "y = x / (1 + |x|)">;
def Tract_NotOp : Tract_UnaryOp<"not", "logical not (i1)">;
def Tract_HardSwishOp : Tract_UnaryOp<"hard_swish", "y = x * max(0, min(1, x/6 + 1/2))">;
def Tract_MishOp : Tract_UnaryOp<"mish", "y = x * tanh(softplus(x))">;
// Recognised by the declutter pass (no ONNX op before opset 20).
def Tract_SiluOp : Tract_UnaryOp<"silu", "y = x * sigmoid(x)">;
def Tract_GeluOp : Tract_UnaryOp<"gelu", "y = x/2 * (1 + erf(x / sqrt(2)))">;
def Tract_GeluTanhOp : Tract_UnaryOp<"gelu_tanh",
    "y = x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))">;

//===----------------------------------------------------------------------===//
// Elementwise unary with parameters
//===----------------------------------------------------------------------===//
def Tract_LeakyReluOp : Tract_UnaryParamOp<"leaky_relu", "y = x < 0 ? alpha * x : x",
    (ins F32Attr:$alpha)>;
def Tract_HardSigmoidOp : Tract_UnaryParamOp<"hard_sigmoid",
    "y = max(0, min(1, alpha * x + beta))", (ins F32Attr:$alpha, F32Attr:$beta)>;
def Tract_ClipOp : Tract_UnaryParamOp<"clip", [{
    y = min(max(x, min), max). Bounds are f64 so that every element type is
    exact; the importer folds ONNX's optional bound tensors into them.
  }], (ins F64Attr:$min, F64Attr:$max)>;
def Tract_EluOp : Tract_UnaryParamOp<"elu", "y = x < 0 ? alpha * (e^x - 1) : x",
    (ins F32Attr:$alpha)>;
def Tract_SeluOp : Tract_UnaryParamOp<"selu",
    "y = gamma * (x <= 0 ? alpha * (e^x - 1) : x)", (ins F32Attr:$alpha, F32Attr:$gamma)>;
def Tract_CeluOp : Tract_UnaryParamOp<"celu",
    "y = max(0, x) + min(0, alpha * (e^(x/alpha) - 1))", (ins F32Attr:$alpha)>;
def Tract_ThresholdedReluOp : Tract_UnaryParamOp<"thresholded_relu",
    "y = x > alpha ? x : 0", (ins F32Attr:$alpha)>;
def Tract_ShrinkOp : Tract_UnaryParamOp<"shrink",
    "y = x < -lambd ? x + bias : (x > lambd ? x - bias : 0)",
    (ins F32Attr:$bias, F32Attr:$lambd)>;

//===----------------------------------------------------------------------===//
// Elementwise predicates
//===----------------------------------------------------------------------===//
def Tract_IsNanOp : Tract_UnaryPredicateOp<"is_nan", "y = x != x">;
def Tract_IsInfOp : Tract_UnaryPredicateOp<"is_inf", "y = x is +inf/-inf (as selected)",
    (ins BoolAttr:$detect_positive, BoolAttr:$detect_negative)>;

//===----------------------------------------------------------------------===//
// Elementwise binary (numpy broadcasting)
//===----------------------------------------------------------------------===//
def Tract_AddOp : Tract_BinaryOp<"add", "y = a + b", [Commutative]>;
def Tract_SubOp : Tract_BinaryOp<"sub", "y = a - b">;
def Tract_MulOp : Tract_BinaryOp<"mul", "y = a * b", [Commutative]>;
def Tract_DivOp : Tract_BinaryOp<"div", "y = a / b (integers truncate; x / 0 = 0)">;
def Tract_PowOp : Tract_BinaryOp<"pow", "y = a ^ b (b may have another element type)">;
def Tract_MaxOp : Tract_BinaryOp<"max", "y = max(a, b)", [Commutative]>;
def Tract_MinOp : Tract_BinaryOp<"min", "y = min(a, b)", [Commutative]>;
def Tract_ModOp : Tract_BinaryOp<"mod", "remainder with the sign of the divisor">;
def Tract_FModOp : Tract_BinaryOp<"fmod", "remainder with the sign of the dividend">;
def Tract_PReluOp : Tract_BinaryOp<"prelu", "y = a < 0 ? a * b : a">;
def Tract_ShiftLeftOp : Tract_BinaryOp<"shift_left", "y = a << b (unsigned)">;
def Tract_ShiftRightOp : Tract_BinaryOp<"shift_right", "y = a >> b (unsigned)">;
def Tract_AndOp : Tract_BinaryOp<"and", "logical and (i1)", [Commutative]>;
def Tract_OrOp : Tract_BinaryOp<"or", "logical or (i1)", [Commutative]>;
def Tract_XorOp : Tract_BinaryOp<"xor", "logical xor (i1)", [Commutative]>;

def Tract_EqualOp : Tract_CompareOp<"equal", "y = a == b (i1)">;
def Tract_LessOp : Tract_CompareOp<"less", "y = a < b (i1)">;
def Tract_GreaterOp : Tract_CompareOp<"greater", "y = a > b (i1)">;
def Tract_LessEqualOp : Tract_CompareOp<"less_equal", "y = a <= b (i1)">;
def Tract_GreaterEqualOp : Tract_CompareOp<"greater_equal", "y = a >= b (i1)">;

//===----------------------------------------------------------------------===//
// Operator: select
//===----------------------------------------------------------------------===//
def Tract_SelectOp : Tract_Op<"select", [Pure, InferTypeOpAdaptor]> {
  let summary = "y = cond ? a : b, with broadcasting (ONNX Where)";
  let arguments = (ins RankedTensorOf<[I1]>:$cond, Tract_Tensor:$lhs, Tract_Tensor:$rhs);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$cond `,` $lhs `,` $rhs attr-dict `:` type($cond) `,` "
                       "type($lhs) `,` type($rhs) `->` type($output)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Operator: broadcast
//===----------------------------------------------------------------------===//
def Tract_BroadcastOp : Tract_Op<"broadcast", [Pure]> {
  let summary = "broadcast to the result shape (ONNX Expand)";
  let arguments = (ins Tract_Tensor:$input);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Operator: matmul
//===----------------------------------------------------------------------===//
def Tract_MatMulOp : Tract_Op<"matmul", [Pure, InferTypeOpAdaptor]> {
  let summary = "batched matrix product, batch dims broadcast";
  let description = [{
    Both operands have rank >= 2; the two last dims are the matrix (after the
    optional transposition), the others broadcast like numpy.
    ```mlir
    %c = tract.matmul %a, %b {transpose_b} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Tract_Tensor:$lhs, Tract_Tensor:$rhs,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($output)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Operator: conv
//===----------------------------------------------------------------------===//
def Tract_ConvOp : Tract_Op<"conv", [Pure, InferTypeOpAdaptor]> {
  let summary = "N-d grouped, dilated convolution (NC + spatial layout)";
  let description = [{
    `pads` holds the begin pads of every spatial axis then the end pads.
    ```mlir
    %y = tract.conv %x, %w, %b {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>,
        pads = array<i64: 3, 3, 3, 3>, group = 1}
        : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
    ```
  }];
  let arguments = (ins Tract_FloatTensor:$input, Tract_FloatTensor:$weight,
                       Optional<Tract_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads, Tract_I64Attr:$group);
  let results = (outs Tract_FloatTensor:$output);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Operator: conv_transpose
//===----------------------------------------------------------------------===//
def Tract_ConvTransposeOp : Tract_Op<"conv_transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "N-d transposed convolution (weights [C_in, C_out/group, k...])";
  let description = [{
    Output size per axis: stride * (in - 1) + output_padding + (k - 1) * dilation + 1
    - pad_begin - pad_end.
  }];
  let arguments = (ins Tract_FloatTensor:$input, Tract_FloatTensor:$weight,
                       Optional<Tract_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$output_padding,
                       Tract_I64Attr:$group);
  let results = (outs Tract_FloatTensor:$output);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//
def Tract_MaxPoolOp : Tract_PoolOp<"max_pool", "max over in-bounds window taps">;
def Tract_AvgPoolOp : Tract_PoolOp<"avg_pool", [{
    mean over the window; with count_include_pad the divisor counts padding taps.
  }], (ins DefaultValuedAttr<BoolAttr, "false">:$count_include_pad)>;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//
def Tract_ReduceSumOp : Tract_ReduceOp<"reduce_sum", "sum">;
def Tract_ReduceMeanOp : Tract_ReduceOp<"reduce_mean", "arithmetic mean">;
def Tract_ReduceMaxOp : Tract_ReduceOp<"reduce_max", "maximum">;
def Tract_ReduceMinOp : Tract_ReduceOp<"reduce_min", "minimum">;
def Tract_ReduceProdOp : Tract_ReduceOp<"reduce_prod", "product">;
def Tract_ReduceSumSquareOp : Tract_ReduceOp<"reduce_sum_square", "sum of squares">;
def Tract_ReduceL1Op : Tract_ReduceOp<"reduce_l1", "sum of absolute values">;
def Tract_ReduceL2Op : Tract_ReduceOp<"reduce_l2", "euclidean norm">;
def Tract_ReduceLogSumOp : Tract_ReduceOp<"reduce_log_sum", "ln(sum)">;
def Tract_ReduceLogSumExpOp : Tract_ReduceOp<"reduce_log_sum_exp", "ln(sum(e^x)), stable">;

//===----------------------------------------------------------------------===//
// Operator: arg_max / arg_min
//===----------------------------------------------------------------------===//
class Tract_ArgReduceOp<string mnemonic> : Tract_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = "index of the extreme value along `axis` (i64)";
  let arguments = (ins Tract_Tensor:$input, Tract_I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$keep_dims,
                       DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs RankedTensorOf<[I64]>:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}
def Tract_ArgMaxOp : Tract_ArgReduceOp<"arg_max">;
def Tract_ArgMinOp : Tract_ArgReduceOp<"arg_min">;

//===----------------------------------------------------------------------===//
// Operator: cumsum
//===----------------------------------------------------------------------===//
def Tract_CumSumOp : Tract_Op<"cumsum", [Pure, SameOperandsAndResultType]> {
  let summary = "cumulative sum along `axis`";
  let arguments = (ins Tract_Tensor:$input, Tract_I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
}

//===----------------------------------------------------------------------===//
// Softmax family and normalisations (composite ops kept for fusion)
//===----------------------------------------------------------------------===//
def Tract_SoftmaxOp : Tract_AxisNormOp<"softmax", "e^x / sum(e^x) along axis">;
def Tract_LogSoftmaxOp : Tract_AxisNormOp<"log_softmax", "x - ln(sum(e^x)) along axis">;
def Tract_HardmaxOp : Tract_AxisNormOp<"hardmax", "one-hot of the first maximum along axis">;

def Tract_LayerNormOp : Tract_Op<"layer_norm", [Pure]> {
  let summary = "normalise over the axes from `axis` on, then scale and shift";
  let arguments = (ins Tract_FloatTensor:$input, Tract_FloatTensor:$scale,
                       Optional<Tract_FloatTensor>:$bias, Tract_I64Attr:$axis, F32Attr:$epsilon);
  let results = (outs Tract_FloatTensor:$output);
  let assemblyFormat = "$input `,` $scale (`,` $bias^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tract_InstanceNormOp : Tract_Op<"instance_norm", [Pure]> {
  let summary = "normalise each (n, c) plane, then per-channel scale and shift";
  let arguments = (ins Tract_FloatTensor:$input, Tract_FloatTensor:$scale,
                       Tract_FloatTensor:$bias, F32Attr:$epsilon);
  let results = (outs Tract_FloatTensor:$output);
  let assemblyFormat = "$input `,` $scale `,` $bias attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tract_LrnOp : Tract_Op<"lrn", [Pure, SameOperandsAndResultType]> {
  let summary = "local response normalisation across channels";
  let arguments = (ins Tract_FloatTensor:$input, Tract_I64Attr:$size, F32Attr:$alpha,
                       F32Attr:$beta, F32Attr:$bias);
  let results = (outs Tract_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//
def Tract_ReshapeOp : Tract_Op<"reshape", [Pure]> {
  let summary = "same elements, new static shape";
  let arguments = (ins Tract_Tensor:$input);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tract_TransposeOp : Tract_Op<"transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "permute dims: output dim i is input dim perm[i]";
  let arguments = (ins Tract_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tract_ConcatOp : Tract_Op<"concat", [Pure, InferTypeOpAdaptor]> {
  let summary = "join tensors along `axis`";
  let arguments = (ins Variadic<Tract_Tensor>:$inputs, Tract_I64Attr:$axis);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tract_SliceOp : Tract_Op<"slice", [Pure, InferTypeOpAdaptor]> {
  let summary = "strided window: output index i reads input starts + i * steps";
  let description = [{
    One entry per input dim in `starts`, `limits` (exclusive) and `steps`, all
    already clamped by the importer, so the output size is
    max(0, ceil((limit - start) / step)).
  }];
  let arguments = (ins Tract_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$limits, DenseI64ArrayAttr:$steps);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tract_GatherOp : Tract_Op<"gather", [Pure, InferTypeOpAdaptor]> {
  let summary = "take slices along `axis` at `indices` (negative wraps)";
  let arguments = (ins Tract_Tensor:$input, Tract_IndexTensor:$indices, Tract_I64Attr:$axis);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tract_GatherElementsOp : Tract_Op<"gather_elements", [Pure]> {
  let summary = "y[i..] = x[i.. with dim `axis` replaced by indices[i..]]";
  let arguments = (ins Tract_Tensor:$input, Tract_IndexTensor:$indices, Tract_I64Attr:$axis);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tract_CastOp : Tract_Op<"cast", [Pure, SameOperandsAndResultShape]> {
  let summary = "element type conversion (float to int truncates, saturates)";
  let arguments = (ins Tract_Tensor:$input);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def Tract_PadOp : Tract_Op<"pad", [Pure, InferTypeOpAdaptor, AttrSizedOperandSegments]> {
  let summary = "pad (or crop, with negative pads) every dim";
  let description = [{
    With `runtime_pads` the begin pads are read from that tensor at run time;
    `pads` then only records the static result shape. `runtime_value`, when
    present, replaces `value`.
  }];
  let arguments = (ins Tract_Tensor:$input, Optional<Tract_IndexTensor>:$runtime_pads,
                       Optional<Tract_Tensor>:$runtime_value,
                       DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<StrAttr, "\"constant\"">:$mode,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input (`runtime_pads` $runtime_pads^ `:` type($runtime_pads))? "
                       "(`runtime_value` $runtime_value^ `:` type($runtime_value))? attr-dict `:` "
                       "type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Tract_TileOp : Tract_Op<"tile", [Pure]> {
  let summary = "repeat the input; every output dim is a multiple of the input's";
  let arguments = (ins Tract_Tensor:$input);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Tract_TriluOp : Tract_Op<"trilu", [Pure, SameOperandsAndResultType]> {
  let summary = "keep the upper or lower triangle (diagonal offset k) of the last two dims";
  let arguments = (ins Tract_Tensor:$input, BoolAttr:$upper, Tract_I64Attr:$k);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
}

def Tract_DepthToSpaceOp : Tract_Op<"depth_to_space", [Pure]> {
  let summary = "move channel blocks into spatial blocks (DCR or CRD order)";
  let arguments = (ins Tract_Tensor:$input, Tract_I64Attr:$blocksize, BoolAttr:$crd);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Tract_SpaceToDepthOp : Tract_Op<"space_to_depth", [Pure]> {
  let summary = "move spatial blocks into channels";
  let arguments = (ins Tract_Tensor:$input, Tract_I64Attr:$blocksize);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

//===----------------------------------------------------------------------===//
// Operator: resize
//===----------------------------------------------------------------------===//
def Tract_ResizeOp : Tract_Op<"resize", [Pure, AttrSizedOperandSegments]> {
  let summary = "ONNX Resize: nearest / linear / cubic interpolation over every axis";
  let description = [{
    `scales` holds the effective scale of each axis (output / input when the
    model gave sizes); `roi` its start values then its end values (used by
    tf_crop_and_resize). Modes are ONNX's strings. When the model computes
    scales or roi at run time they are operands instead, overriding the
    attributes (the output shape stays static).
  }];
  let arguments = (ins Tract_FloatTensor:$input,
                       Optional<RankedTensorOf<[F32]>>:$runtime_scales,
                       Optional<RankedTensorOf<[F32]>>:$runtime_roi, StrAttr:$mode,
                       StrAttr:$coordinate_transformation_mode, StrAttr:$nearest_mode,
                       F32Attr:$cubic_coeff_a, BoolAttr:$exclude_outside,
                       F32Attr:$extrapolation_value, DenseF32ArrayAttr:$scales,
                       DenseF32ArrayAttr:$roi);
  let results = (outs Tract_FloatTensor:$output);
  let assemblyFormat = "$input (`scales` $runtime_scales^)? (`roi` $runtime_roi^)? attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Operator: gather_nd
//===----------------------------------------------------------------------===//
def Tract_GatherNdOp : Tract_Op<"gather_nd", [Pure]> {
  let summary = "gather slices addressed by the last dim of `indices` (ONNX GatherND)";
  let arguments = (ins Tract_Tensor:$input, Tract_IndexTensor:$indices, Tract_I64Attr:$batch_dims);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Operator: scatter_elements / scatter_nd
//===----------------------------------------------------------------------===//
def Tract_ScatterElementsOp : Tract_Op<"scatter_elements", [Pure]> {
  let summary = "copy of input with updates written at `indices` along `axis`";
  let arguments = (ins Tract_Tensor:$input, Tract_IndexTensor:$indices, Tract_Tensor:$updates,
                       Tract_I64Attr:$axis, DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)";
}

def Tract_ScatterNdOp : Tract_Op<"scatter_nd", [Pure]> {
  let summary = "copy of input with update slices written at index tuples";
  let arguments = (ins Tract_Tensor:$input, Tract_IndexTensor:$indices, Tract_Tensor:$updates,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Operator: top_k
//===----------------------------------------------------------------------===//
def Tract_TopKOp : Tract_Op<"top_k", [Pure]> {
  let summary = "the k largest (or smallest) values along `axis` and their indices";
  let arguments = (ins Tract_Tensor:$input, Tract_I64Attr:$axis, Tract_I64Attr:$k,
                       BoolAttr:$largest, BoolAttr:$sorted);
  let results = (outs Tract_Tensor:$values, RankedTensorOf<[I64]>:$indices);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($values) `,` type($indices)";
}

//===----------------------------------------------------------------------===//
// Operator: det
//===----------------------------------------------------------------------===//
def Tract_DetOp : Tract_Op<"det", [Pure]> {
  let summary = "determinants of the square matrices in the last two dims";
  let arguments = (ins Tract_FloatTensor:$input);
  let results = (outs Tract_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

//===----------------------------------------------------------------------===//
// Operator: reverse_sequence
//===----------------------------------------------------------------------===//
def Tract_ReverseSequenceOp : Tract_Op<"reverse_sequence", [Pure]> {
  let summary = "reverse the first lengths[b] steps along time_axis for each batch b";
  let arguments = (ins Tract_Tensor:$input, Tract_IndexTensor:$lengths,
                       Tract_I64Attr:$batch_axis, Tract_I64Attr:$time_axis);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input `,` $lengths attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Operator: range
//===----------------------------------------------------------------------===//
def Tract_RangeOp : Tract_Op<"range", [Pure]> {
  let summary = "start + i * delta for i < n, with run-time start and delta (n is static)";
  let arguments = (ins Tract_Tensor:$start, Tract_Tensor:$delta);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$start `,` $delta attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Operator: one_hot
//===----------------------------------------------------------------------===//
def Tract_OneHotOp : Tract_Op<"one_hot", [Pure]> {
  let summary = "values[1] where the new axis equals the index, values[0] elsewhere";
  let arguments = (ins Tract_Tensor:$indices, Tract_Tensor:$values, Tract_I64Attr:$axis);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$indices `,` $values attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Operator: cumsum_dynamic
//===----------------------------------------------------------------------===//
def Tract_CumSumDynamicOp : Tract_Op<"cumsum_dynamic", [Pure]> {
  let summary = "cumulative sum along an axis read at run time";
  let arguments = (ins Tract_Tensor:$input, Tract_IndexTensor:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input `,` $axis attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Operator: grid_sample
//===----------------------------------------------------------------------===//
def Tract_GridSampleOp : Tract_Op<"grid_sample", [Pure]> {
  let summary = "sample input at the normalised coordinates of `grid` (ONNX GridSample, 4-D)";
  let arguments = (ins Tract_FloatTensor:$input, Tract_FloatTensor:$grid, StrAttr:$mode,
                       StrAttr:$padding_mode, BoolAttr:$align_corners);
  let results = (outs Tract_FloatTensor:$output);
  let assemblyFormat = "$input `,` $grid attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Operator: roi_align
//===----------------------------------------------------------------------===//
def Tract_RoiAlignOp : Tract_Op<"roi_align", [Pure]> {
  let summary = "average or max of bilinear samples in each region of interest";
  let arguments = (ins Tract_FloatTensor:$input, Tract_FloatTensor:$rois,
                       Tract_IndexTensor:$batch_indices, Tract_I64Attr:$sampling_ratio,
                       F32Attr:$spatial_scale, BoolAttr:$max_mode, BoolAttr:$half_pixel);
  let results = (outs Tract_FloatTensor:$output);
  let assemblyFormat = "$input `,` $rois `,` $batch_indices attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Operator: non_max_suppression
//===----------------------------------------------------------------------===//
def Tract_NonMaxSuppressionOp : Tract_Op<"non_max_suppression",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "indices [batch, class, box] of the boxes kept by greedy NMS";
  let description = [{
    The number of selected boxes depends on the data: the result has a static
    number of rows (an upper bound); rows past the run-time count hold -1.
    The limits are operands because models usually compute or feed them.
  }];
  let arguments = (ins Tract_FloatTensor:$boxes, Tract_FloatTensor:$scores,
                       Optional<RankedTensorOf<[I64]>>:$max_output_boxes_per_class,
                       Optional<RankedTensorOf<[F32]>>:$iou_threshold,
                       Optional<RankedTensorOf<[F32]>>:$score_threshold,
                       BoolAttr:$center_point_box);
  let results = (outs RankedTensorOf<[I64]>:$selected);
  let assemblyFormat = "$boxes `,` $scores (`max` $max_output_boxes_per_class^)? "
                       "(`iou` $iou_threshold^)? (`score` $score_threshold^)? attr-dict `:` "
                       "functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Operator: max_pool_with_indices
//===----------------------------------------------------------------------===//
def Tract_MaxPoolWithIndicesOp : Tract_Op<"max_pool_with_indices", [Pure]> {
  let summary = "max pooling that also returns the flat input index of each maximum";
  let arguments = (ins Tract_Tensor:$input, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads, BoolAttr:$column_major);
  let results = (outs Tract_Tensor:$output, RankedTensorOf<[I64]>:$indices);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output) `,` type($indices)";
}

//===----------------------------------------------------------------------===//
// Operator: max_unpool
//===----------------------------------------------------------------------===//
def Tract_MaxUnpoolOp : Tract_Op<"max_unpool", [Pure]> {
  let summary = "zeros, with input values written at their flat `indices`";
  let arguments = (ins Tract_Tensor:$input, Tract_IndexTensor:$indices);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Operator: slice_dynamic
//===----------------------------------------------------------------------===//
def Tract_SliceDynamicOp : Tract_Op<"slice_dynamic", [Pure, AttrSizedOperandSegments]> {
  let summary = "ONNX Slice with starts/ends/axes/steps read at run time (static result shape)";
  let arguments = (ins Tract_Tensor:$input, Tract_IndexTensor:$starts, Tract_IndexTensor:$ends,
                       Optional<Tract_IndexTensor>:$axes, Optional<Tract_IndexTensor>:$steps);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input `,` $starts `,` $ends (`axes` $axes^)? (`steps` $steps^)? attr-dict `:` "
                       "functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Operator: reduce_dynamic
//===----------------------------------------------------------------------===//
def Tract_ReduceDynamicOp : Tract_Op<"reduce_dynamic", [Pure]> {
  let summary = "a reduction whose axes are read at run time (static result shape)";
  let description = [{
    `kind` names the reducer: sum, mean, max, min, prod, sum_square, l1, l2,
    log_sum, log_sum_exp.
  }];
  let arguments = (ins Tract_Tensor:$input, Tract_IndexTensor:$axes, StrAttr:$kind,
                       BoolAttr:$noop_with_empty_axes);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input `,` $axes attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Data-dependent output sizes: a static upper bound, unused slots filled.
//===----------------------------------------------------------------------===//
def Tract_NonZeroOp : Tract_Op<"nonzero", [Pure]> {
  let summary = "indices [rank, count] of the nonzero elements (count padded with -1)";
  let arguments = (ins Tract_Tensor:$input);
  let results = (outs RankedTensorOf<[I64]>:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Tract_CompressOp : Tract_Op<"compress", [Pure]> {
  let summary = "slices along `axis` where cond is true (count padded with zeros)";
  let arguments = (ins Tract_Tensor:$input, Tract_Tensor:$cond, Tract_I64Attr:$axis);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input `,` $cond attr-dict `:` functional-type(operands, results)";
}

def Tract_UniqueOp : Tract_Op<"unique", [Pure]> {
  let summary = "unique slices along `axis`, with first indices, inverse map and counts";
  let arguments = (ins Tract_Tensor:$input, Tract_I64Attr:$axis, BoolAttr:$sorted);
  let results = (outs Tract_Tensor:$output, RankedTensorOf<[I64]>:$indices,
                      RankedTensorOf<[I64]>:$inverse, RankedTensorOf<[I64]>:$counts);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type(results)";
}

//===----------------------------------------------------------------------===//
// Signal processing
//===----------------------------------------------------------------------===//
def Tract_DftOp : Tract_Op<"dft", [Pure]> {
  let summary = "discrete Fourier transform along `axis` (last dim: 1 real or 2 complex)";
  let arguments = (ins Tract_FloatTensor:$input, Tract_I64Attr:$axis, Tract_I64Attr:$dft_length,
                       BoolAttr:$inverse, BoolAttr:$onesided);
  let results = (outs Tract_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Tract_StftOp : Tract_Op<"stft", [Pure, AttrSizedOperandSegments]> {
  let summary = "short-time Fourier transform of [batch, length, 1|2] signals";
  let description = [{
    A frame step or length computed at run time is an operand (the frame
    and bin counts then come from the model's declared result shape; a
    run-time length that disagrees with the bins falls back to the static one).
  }];
  let arguments = (ins Tract_FloatTensor:$signal, Optional<Tract_FloatTensor>:$window,
                       Optional<Tract_IndexTensor>:$runtime_frame_step,
                       Optional<Tract_IndexTensor>:$runtime_frame_length,
                       Tract_I64Attr:$frame_step, Tract_I64Attr:$frame_length, BoolAttr:$onesided);
  let results = (outs Tract_FloatTensor:$output);
  let assemblyFormat = "$signal (`window` $window^)? (`step` $runtime_frame_step^)? "
                       "(`length` $runtime_frame_length^)? attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Operator: tfidf
//===----------------------------------------------------------------------===//
def Tract_TfIdfOp : Tract_Op<"tfidf", [Pure]> {
  let summary = "n-gram counts of integer token rows against a static pool (ONNX TfIdfVectorizer)";
  let description = [{
    `mode`: 0 TF, 1 IDF, 2 TFIDF. An empty `weights` means all ones.
  }];
  let arguments = (ins Tract_IndexTensor:$input, Tract_I64Attr:$min_gram, Tract_I64Attr:$max_gram,
                       Tract_I64Attr:$max_skip, Tract_I64Attr:$mode, DenseI64ArrayAttr:$pool,
                       DenseI64ArrayAttr:$ngram_counts, DenseI64ArrayAttr:$ngram_indexes,
                       DenseF32ArrayAttr:$weights);
  let results = (outs RankedTensorOf<[F32]>:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

//===----------------------------------------------------------------------===//
// Operator: mel_weight_matrix
//===----------------------------------------------------------------------===//
def Tract_MelWeightMatrixOp : Tract_Op<"mel_weight_matrix", [Pure]> {
  let summary = "mel filter bank [dft_length/2 + 1, num_mel_bins] from run-time scalars";
  let arguments = (ins Tract_Tensor:$num_mel_bins, Tract_Tensor:$dft_length,
                       Tract_Tensor:$sample_rate, Tract_FloatTensor:$lower_edge_hertz,
                       Tract_FloatTensor:$upper_edge_hertz);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Operator: dropout
//===----------------------------------------------------------------------===//
def Tract_DropoutOp : Tract_Op<"dropout", [Pure]> {
  let summary = "Dropout whose ratio or training mode is known only at run time";
  let description = [{
    With `training` false or `ratio` 0 the identity (mask all true);
    otherwise numpy's MT19937 seeded with `seed` picks the kept elements, as
    ONNX's reference does, and kept elements are scaled by 1 / (1 - ratio).
    Re-seeded on every run, so a run depends on its inputs only.
  }];
  let arguments = (ins Tract_FloatTensor:$input, Tract_FloatTensor:$ratio,
                       RankedTensorOf<[I1]>:$training, Tract_I64Attr:$seed);
  let results = (outs Tract_FloatTensor:$output, RankedTensorOf<[I1]>:$mask);
  let assemblyFormat = "$input `,` $ratio `,` $training attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Fused kernels (codegen level, made by tract-fuse)
//===----------------------------------------------------------------------===//
def Tract_KernelOp : Tract_Op<"kernel", [Pure, IsolatedFromAbove, SingleBlock]> {
  let summary = "one generated kernel: an optional conv/matmul and an elementwise epilogue";
  let description = [{
    The body's arguments are the kernel's inputs. Its first op may be an
    anchor (`tract.conv` or `tract.matmul`) that reads only block arguments,
    in order, starting at the first; every other op is an elementwise tract
    op (unary, parameterised unary or binary with broadcasting) producing
    the kernel's result type, a one-element `tract.const`, or a
    `tract.transpose` of a body argument (read through the permutation). The emitters
    print the anchor as its kernel and the elementwise ops as scalar code
    applied to each output element, so the intermediates never reach memory.
    The result type may be a reshape of the yielded type (same elements in
    the same order): a reshape after the kernel is absorbed into its store.
    A kernel may chain a second conv or a max pool, its tail (tract-choose-kernels
    fuses a 1x1 expand into the depthwise conv that reads it, and a network's
    first conv into the max pool that reads it): the tail's input is
    the value the anchor's elementwise ops end with (of the anchor's type),
    its other operands the next body arguments in order; the elementwise ops
    after it produce the kernel's result type.
    ```mlir
    %y = tract.kernel (%x, %w, %b, %res) : (...) -> tensor<1x64x56x56xf32> {
    ^bb0(%x: ..., %w: ..., %b: ..., %res: ...):
      %c = tract.conv %x, %w, %b {...}
      %s = tract.add %c, %res : ...
      %r = tract.relu %s : ...
      tract.yield %r : tensor<1x64x56x56xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Tract_Tensor>:$inputs);
  let results = (outs Tract_Tensor:$output);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "`(` $inputs `)` attr-dict `:` functional-type($inputs, results) $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The conv or matmul the body starts with, or null.
    Operation *getAnchor();
    /// The second conv (or the max pool) of a chained kernel, or null.
    Operation *getTail();
  }];
}

def Tract_YieldOp : Tract_Op<"yield", [Pure, Terminator, HasParent<"KernelOp">]> {
  let summary = "the value a kernel body produces";
  let arguments = (ins Tract_Tensor:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

//===----------------------------------------------------------------------===//
// Operator: string_normalizer
//===----------------------------------------------------------------------===//
def Tract_StringNormalizerOp : Tract_Op<"string_normalizer", [Pure]> {
  let summary = "drops stopwords, then changes case (ONNX StringNormalizer)";
  let description = [{
    Input [C] or [1, C]; the output has the same rank with the kept strings
    along the last dim. Its static length is the one the model declares (or
    C): slots past the run-time count hold empty strings. When every string is
    dropped the output holds one empty string, as ONNX asks. `case_change` is
    "LOWER", "UPPER" or "NONE".
  }];
  let arguments = (ins RankedTensorOf<[Tract_StringType]>:$input, StrAttr:$case_change,
                       BoolAttr:$case_sensitive, StrArrayAttr:$stopwords);
  let results = (outs RankedTensorOf<[Tract_StringType]>:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

#endif // TRACT_OPS_TD
