//===- LayoutRewrites.cpp - transposes that move or vanish ------------------===//
//
// Transposes are pure data movement: pushed below elementwise ops they meet
// each other and cancel (TransposeOp's canonicalisation composes pairs), and
// one that swaps a matmul operand's two last dims is the matmul's own
// transpose flag. A Resize to its input's own shape is no movement at all.
//
//===----------------------------------------------------------------------===//
#include "compiler/Transforms/DeclutterPatterns.h"
#include "compiler/Transforms/RewriteUtils.h"

namespace mlir::tract {
namespace {

// unary(transpose(x)) ==> transpose(unary(x)), so that transposes sink
// towards the next transpose or layout-sensitive op.
struct SinkTransposeThroughUnary : RewritePattern {
  explicit SinkTransposeThroughUnary(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    // Elementwise only: softmax and friends have an axis a transpose moves.
    if (!isElementwiseUnary(op))
      return rewriter.notifyMatchFailure(op, "not an elementwise unary op");
    auto t = op->getOperand(0).getDefiningOp<TransposeOp>();
    if (!t || !t->hasOneUse())
      return rewriter.notifyMatchFailure(op, "operand is not a single-use transpose");
    Operation *moved = rewriter.clone(*op);
    moved->setOperand(0, t.getInput());
    moved->getResult(0).setType(t.getInput().getType());
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op->getResult(0).getType(), moved->getResult(0),
                                             t.getPermAttr());
    return success();
  }
};

// binary(transpose(a, p), transpose(b, p)) ==> transpose(binary(a, b), p)
// when a and b have the same shape (no broadcasting to reorder).
template <class Op>
struct SinkTransposeThroughBinary : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;
  LogicalResult matchAndRewrite(Op op, PatternRewriter &rewriter) const override {
    auto ta = op.getLhs().template getDefiningOp<TransposeOp>();
    auto tb = op.getRhs().template getDefiningOp<TransposeOp>();
    if (!ta || !tb || ta.getPerm() != tb.getPerm() ||
        ta.getInput().getType() != tb.getInput().getType() ||
        op.getLhs().getType() != op.getType())
      return rewriter.notifyMatchFailure(op, "not two equal transposes of equal shapes");
    auto inner = rewriter.create<Op>(op.getLoc(), ta.getInput(), tb.getInput());
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), inner.getResult(),
                                             ta.getPermAttr());
    return success();
  }
};

// True when perm swaps the last two dims and keeps the others.
bool swapsLastTwo(ArrayRef<int64_t> perm) {
  int64_t r = perm.size();
  if (r < 2 || perm[r - 1] != r - 2 || perm[r - 2] != r - 1)
    return false;
  for (int64_t i = 0; i < r - 2; ++i)
    if (perm[i] != i)
      return false;
  return true;
}

// perm with its last two entries swapped, when perm moves the last dim and
// the swapped one keeps it: attention's K^T from [b, s, h, d], (0, 2, 3, 1),
// moves single floats with a stride, where (0, 2, 1, 3) copies rows of d.
std::optional<SmallVector<int64_t>> keepsRowsOnceSwapped(ArrayRef<int64_t> perm) {
  int64_t r = perm.size();
  if (r < 2 || perm[r - 1] == r - 1 || perm[r - 2] != r - 1)
    return std::nullopt;
  SmallVector<int64_t> swapped(perm);
  std::swap(swapped[r - 1], swapped[r - 2]);
  return swapped;
}

// matmul(transpose(a), b) ==> matmul(a, b) {transpose_a}, likewise for b.
// A transpose that also moves other dims keeps them moved, and hands the
// swap of the last two to the matmul's flag when that lets it copy whole
// rows (keepsRowsOnceSwapped; the GEMM packs a transposed operand as fast).
struct TransposeIntoMatMul : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatMulOp op, PatternRewriter &rewriter) const override {
    SmallVector<Operation *> absorbed{op};
    // The operand with its transpose folded, or null if there is none to fold.
    auto fold = [&](Value operand) -> Value {
      auto t = operand.getDefiningOp<TransposeOp>();
      if (!t)
        return {};
      if (swapsLastTwo(t.getPerm())) {
        absorbed.push_back(t);
        return t.getInput();
      }
      std::optional<SmallVector<int64_t>> perm = keepsRowsOnceSwapped(t.getPerm());
      if (!perm || !t->hasOneUse())
        return {};
      auto in = cast<RankedTensorType>(t.getInput().getType());
      SmallVector<int64_t> shape;
      for (int64_t d : *perm)
        shape.push_back(in.getDimSize(d));
      return rewriter.create<TransposeOp>(t.getLoc(), in.clone(shape), t.getInput(),
                                          rewriter.getDenseI64ArrayAttr(*perm));
    };
    Value a = fold(op.getLhs()), b = fold(op.getRhs());
    if (!a && !b)
      return rewriter.notifyMatchFailure(op, "no operand transpose to hand to the matmul");
    bool transA = op.getTransposeA() != bool(a), transB = op.getTransposeB() != bool(b);
    auto mm = rewriter.create<MatMulOp>(fusedLoc(absorbed), op.getType(), a ? a : op.getLhs(),
                                        b ? b : op.getRhs(), transA, transB);
    rewriter.replaceOp(op, mm.getResult());
    return success();
  }
};

// x * 0 ==> 0 for integers (for floats, inf * 0 and NaN * 0 are NaN).
struct IntegerMulByZero : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op, PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (!isa<IntegerType>(type.getElementType()) ||
        !(isSplat(op.getLhs(), 0.0) || isSplat(op.getRhs(), 0.0)))
      return rewriter.notifyMatchFailure(op, "not an integer product with a zero");
    rewriter.replaceOpWithNewOp<ConstOp>(op, type, DenseElementsAttr::get(
        type, rewriter.getZeroAttr(type.getElementType())));
    return success();
  }
};

// resize(x) to x's own shape, every scale 1 ==> x. Each output coordinate
// maps to itself under every coordinate mode but tf_half_pixel_for_nn (x +
// 0.5) and tf_crop_and_resize (its roi), and nearest, linear and cubic all
// read that one sample there (cubic's taps at +-1 and +-2 weigh 0, so
// exclude_outside changes nothing). Detectors' transforms resize the image
// to the size it already has; FPN top-down paths do it on equal maps.
struct ResizeToItsOwnShape : OpRewritePattern<ResizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ResizeOp op, PatternRewriter &rewriter) const override {
    if (op.getRuntimeScales() || op.getRuntimeRoi())
      return rewriter.notifyMatchFailure(op, "scales or roi computed at run time");
    if (op.getInput().getType() != op.getType())
      return rewriter.notifyMatchFailure(op, "the shape changes");
    StringRef coords = op.getCoordinateTransformationMode();
    if (coords == "tf_half_pixel_for_nn" || coords == "tf_crop_and_resize")
      return rewriter.notifyMatchFailure(op, "a coordinate mode that moves the samples");
    if (llvm::any_of(op.getScales(), [](float s) { return s != 1.0f; }))
      return rewriter.notifyMatchFailure(op, "a scale other than 1");
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};

} // namespace

void populateLayoutDeclutter(RewritePatternSet &patterns) {
  patterns.add<SinkTransposeThroughUnary, SinkTransposeThroughBinary<AddOp>,
               SinkTransposeThroughBinary<MulOp>, SinkTransposeThroughBinary<SubOp>,
               SinkTransposeThroughBinary<DivOp>, TransposeIntoMatMul, IntegerMulByZero,
               ResizeToItsOwnShape>(patterns.getContext());
}

} // namespace mlir::tract
