//===- PadPlanes.cpp - NCHW planes padded to whole cache lines ----------------===//
//
// An NCHW plane of 13 x 13, 27 x 27 or 55 x 55 floats is not a whole number
// of 64-byte lines, so each plane starts mid-line. A 1x1 conv reads each
// plane as a row of its GEMM's B with vector loads that straddle two lines,
// and where two threads' shares of a plane meet, and where one plane ends
// and the next begins, both threads write one line that the next kernel
// then reads partly from the other core. Measured on SqueezeNet's shapes
// (bench/run-plane-lines.sh), padding each plane to a multiple of 16 floats
// makes three chained 1x1 convs 4-15% faster on one thread and 9-33% on
// two.
//
// tract-pad-planes gives a tensor padded planes (kPlaneStrideAttr on its
// producer: the floats from one plane to the next) when every kernel that
// writes or reads it takes plane strides:
//   writers: convs on gemm_pointwise, im2col_gemm, winograd_f2/f4 and
//            row_taps_max_pool, standalone max and average pools, and a
//            concat of byte ranges (a view: its operands' producers write
//            into it) whose operands are all padded;
//   readers: those convs through their input (operand 0), those pools, a
//            ReduceSum / ReduceMean over the two spatial axes (a global
//            average pool), and such a concat.
// A conv fused with element-wise ops that read other tensors writes dense
// planes (its epilogue finds them by the output's flat index), though it
// may read padded ones, unless its input is one of those. Graph inputs
// and outputs stay dense. Padding is worth it only where it adds at most an
// eighth to the plane (169 -> 176 floats, not 49 -> 64).
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/KernelChoice.h"
#include "compiler/Codegen/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::tract {
#define GEN_PASS_DEF_TRACTPADPLANESPASS
#include "compiler/Codegen/Passes.h.inc"

namespace {

constexpr int64_t kLineFloats = 16;

// The padded plane stride of an NCHW f32 tensor of type `t`, or 0 where
// its planes are whole lines already or padding would add over an eighth.
int64_t paddedStride(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || !t.hasStaticShape() || t.getRank() != 4 || !t.getElementType().isF32())
    return 0;
  const int64_t plane = t.getDimSize(2) * t.getDimSize(3);
  const int64_t stride = (plane + kLineFloats - 1) / kLineFloats * kLineFloats;
  if (plane == 0 || stride == plane || (stride - plane) * 8 > plane)
    return 0;
  return stride;
}

bool isGraphOutput(Value v) {
  return llvm::any_of(v.getUsers(), [](Operation *u) { return isa<func::ReturnOp>(u); });
}

// A conv whose runtime call honours ConvParams' plane strides in x and y.
bool isStridedConv(Operation *top) {
  StringRef a = algorithmOf(top);
  return a == "gemm_pointwise" || a == "im2col_gemm" || a == "winograd_f2" ||
         a == "winograd_f4";
}

// `top`'s fused ops are element-wise and read nothing but the chain from
// its anchor (and tail): its epilogue never looks another tensor up by the
// output's flat index, which padding would shift.
bool epilogueReadsOnlyItsChain(Operation *top) {
  auto kernel = dyn_cast<KernelOp>(top);
  if (!kernel)
    return true;
  Operation *anchor = kernel.getAnchor(), *tail = kernel.getTail();
  Operation *last = tail ? tail : anchor;
  if (!anchor || kernel.getResult().getType() != last->getResult(0).getType())
    return false;
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (&op == anchor || &op == tail)
      continue;
    if (!isElementwise(&op) || llvm::any_of(op.getOperands(), [](Value v) {
          return isa<BlockArgument>(v);
        }))
      return false;
  }
  return true;
}

bool isStandalonePool(Operation *op) { return isa<MaxPoolOp, AvgPoolOp>(op); }

// A ReduceSum / ReduceMean over exactly the two spatial axes of NCHW: the
// runtime's sum_rows, one row per plane, which takes a row stride.
bool isSpatialSum(Operation *op) {
  if (!isa<ReduceSumOp, ReduceMeanOp>(op) || op->getNumOperands() != 1)
    return false;
  auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes");
  if (!axes || axes.size() != 2)
    return false;
  SmallVector<int64_t> sorted(axes.asArrayRef());
  llvm::sort(sorted);
  return sorted[0] == 2 && sorted[1] == 3;
}

// A concat along channels that can be a view of its operands: distinct
// values, each from an op of its own (not a graph input, not a concat).
bool isChannelConcatView(Operation *op) {
  auto concat = dyn_cast<ConcatOp>(op);
  if (!concat || concat.getAxis() != 1 || !concatOfByteRanges(concat))
    return false;
  SmallVector<Value> seen;
  for (Value in : concat.getInputs()) {
    Operation *def = in.getDefiningOp();
    if (!def || isa<ConcatOp, ConstOp>(def) || llvm::is_contained(seen, in))
      return false;
    seen.push_back(in);
  }
  return true;
}

bool writesPadded(Operation *op) {
  if (op->getNumResults() != 1)
    return false;
  if (isStandalonePool(op) || isChannelConcatView(op))
    return true;
  return (isStridedConv(op) || algorithmOf(op) == "row_taps_max_pool") &&
         epilogueReadsOnlyItsChain(op);
}

struct PadPlanes : impl::TractPadPlanesPassBase<PadPlanes> {
  void runOnOperation() override {
    Block &body = getOperation().getBody().front();
    llvm::MapVector<Value, int64_t> padded;
    for (Operation &op : body)
      if (writesPadded(&op) && !isGraphOutput(op.getResult(0)))
        if (int64_t stride = paddedStride(op.getResult(0).getType()))
          padded[op.getResult(0)] = stride;

    auto readsPadded = [&](OpOperand &use) {
      Operation *user = use.getOwner();
      if (isa<ConcatOp>(user))
        return padded.count(user->getResult(0)) > 0;
      if (use.getOperandNumber() != 0 || llvm::count(user->getOperands(), use.get()) != 1)
        return false;
      // (A conv whose epilogue reads other tensors still reads its input
      // through the strides: the epilogue's indices are the output's.)
      return isStandalonePool(user) || isSpatialSum(user) || isStridedConv(user);
    };
    // Drop what one reader or writer cannot take, until nothing changes: a
    // concat stays padded only with all its operands, and an operand only
    // with a padded concat.
    for (bool changed = true; changed;) {
      SmallVector<Value> drop;
      for (auto [value, stride] : padded) {
        Operation *def = value.getDefiningOp();
        bool keep = llvm::all_of(value.getUses(), readsPadded);
        if (auto concat = dyn_cast<ConcatOp>(def))
          keep = keep && llvm::all_of(concat.getInputs(), [&](Value in) {
                   return padded.count(in) > 0;
                 });
        if (!keep)
          drop.push_back(value);
      }
      for (Value v : drop)
        padded.erase(v);
      changed = !drop.empty();
    }
    Builder b(&getContext());
    for (auto [value, stride] : padded)
      value.getDefiningOp()->setAttr(kPlaneStrideAttr, b.getI64IntegerAttr(stride));
  }
};

} // namespace
} // namespace mlir::tract
