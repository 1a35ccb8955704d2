//===- TractBase.td - tract dialect and op-family base classes -*- tablegen -*-===//
//
// The tract dialect carries ONNX semantics on static, ranked tensors. Op
// families (elementwise unary/binary, reductions, pooling) share base classes
// here so each op in TractOps.td is a few lines.
//
//===----------------------------------------------------------------------===//

#ifndef TRACT_BASE_TD
#define TRACT_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Tract_Dialect : Dialect {
  let name = "tract";
  let summary = "Graph-level neural network ops with ONNX semantics on static shapes";
  let description = [{
    A small orthogonal core: elementwise families, matmul, conv, pooling,
    reductions, data movement, plus composite ops (softmax, layer_norm) that
    keep their identity for fusion. Every tensor is statically shaped: symbolic
    dims are pinned when the model is imported.
  }];
  let cppNamespace = "::mlir::tract";
  let hasConstantMaterializer = 1;
  let useDefaultTypePrinterParser = 1;
}

// ONNX string tensors. Each element is a fixed slot of `bytes` bytes holding
// UTF-8, NUL-padded (at most bytes - 1 of text), so a string tensor has a
// static size like any other and lives in the arena: no heap.
def Tract_StringType : TypeDef<Tract_Dialect, "String"> {
  let mnemonic = "string";
  let summary = "fixed-capacity UTF-8 string element";
  let parameters = (ins "unsigned":$bytes);
  let assemblyFormat = "`<` $bytes `>`";
  let genVerifyDecl = 1;
}

class Tract_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tract_Dialect, mnemonic, traits>;

// I64Attr's getter returns uint64_t; axes and offsets here may be negative.
def Tract_I64Attr : TypedSignlessIntegerAttrBase<I64, "int64_t",
                                                 "64-bit signless integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

// Tensor element types the runtime implements.
def Tract_ElementType : AnyTypeOf<[F16, BF16, F32, F64, I1, I8, I16, I32, I64,
                                   UI8, UI16, UI32, UI64, Tract_StringType]>;
def Tract_Tensor : RankedTensorOf<[Tract_ElementType]>;
def Tract_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def Tract_IndexTensor : RankedTensorOf<[I32, I64]>;

//===----------------------------------------------------------------------===//
// Elementwise unary: y = f(x), same type.
//===----------------------------------------------------------------------===//
class Tract_UnaryOp<string mnemonic, string desc, list<Trait> traits = []>
    : Tract_Op<mnemonic, [Pure, SameOperandsAndResultType] # traits> {
  let summary = "elementwise " # mnemonic;
  let description = desc;
  let arguments = (ins Tract_Tensor:$input);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
}

// Elementwise unary ops with float parameters (LeakyRelu's alpha, ...).
class Tract_UnaryParamOp<string mnemonic, string desc, dag params>
    : Tract_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "elementwise " # mnemonic;
  let description = desc;
  let arguments = !con((ins Tract_Tensor:$input), params);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
}

// Elementwise predicate on one tensor: bool result, same shape.
class Tract_UnaryPredicateOp<string mnemonic, string desc, dag params = (ins)>
    : Tract_Op<mnemonic, [Pure, SameOperandsAndResultShape]> {
  let summary = "elementwise predicate " # mnemonic;
  let description = desc;
  let arguments = !con((ins Tract_FloatTensor:$input), params);
  let results = (outs RankedTensorOf<[I1]>:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

//===----------------------------------------------------------------------===//
// Elementwise binary with numpy (multidirectional) broadcasting.
//===----------------------------------------------------------------------===//
class Tract_BinaryOp<string mnemonic, string desc, list<Trait> traits = []>
    : Tract_Op<mnemonic, [Pure, InferTypeOpAdaptor] # traits> {
  let summary = "elementwise " # mnemonic # " with broadcasting";
  let description = desc;
  let arguments = (ins Tract_Tensor:$lhs, Tract_Tensor:$rhs);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($output)";
  let hasVerifier = 1;
}

// Comparisons: same broadcasting, i1 result.
class Tract_CompareOp<string mnemonic, string desc>
    : Tract_BinaryOp<mnemonic, desc>;

//===----------------------------------------------------------------------===//
// Reductions over a set of axes.
//===----------------------------------------------------------------------===//
class Tract_ReduceOp<string mnemonic, string desc>
    : Tract_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = mnemonic # " over `axes`";
  let description = desc;
  let arguments = (ins Tract_Tensor:$input, DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<BoolAttr, "true">:$keep_dims);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pooling windows (N-d, NC + spatial layout).
//===----------------------------------------------------------------------===//
class Tract_PoolOp<string mnemonic, string desc, dag extra = (ins)>
    : Tract_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = mnemonic # " over N-d windows";
  let description = desc;
  let arguments = !con((ins Tract_Tensor:$input,
                            DenseI64ArrayAttr:$kernel_shape,
                            DenseI64ArrayAttr:$strides,
                            DenseI64ArrayAttr:$dilations,
                            DenseI64ArrayAttr:$pads,
                            DefaultValuedAttr<BoolAttr, "false">:$ceil_mode),
                       extra);
  let results = (outs Tract_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

// Softmax-like ops along one axis, same type.
class Tract_AxisNormOp<string mnemonic, string desc>
    : Tract_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = mnemonic # " along `axis`";
  let description = desc;
  let arguments = (ins Tract_FloatTensor:$input, Tract_I64Attr:$axis);
  let results = (outs Tract_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
  let hasVerifier = 1;
}

#endif // TRACT_BASE_TD
