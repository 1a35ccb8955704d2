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
//   writers: convs on gemm_pointwise, im2col_gemm, winograd_f2/f4,
//            row_taps_max_pool and pointwise_from_lanes, standalone max
//            and average pools, and a concat of byte ranges (a view: its
//            operands' producers write into it) whose operands are all
//            padded;
//   readers: those convs (but the stem's) and pointwise_to_lanes through
//            their input (operand 0), those pools, a ReduceSum /
//            ReduceMean over the two spatial axes (a global average pool),
//            and such a concat.
// A kernel's fused element-wise ops find the other tensors they read (a
// residual add's) by the output's flat index: its output is padded only
// with each of those, all of its own type (the same stride, so the same
// padded index), and with none of another shape. Graph inputs and outputs
// stay dense. Padding is worth it only where it adds at most an eighth to
// the plane (169 -> 176 floats, 196 -> 208, not 49 -> 64).
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

// Kernels that write NCHW through the strides: those convs, the stem's conv
// with its pool, and a 1x1 conv out of lane layout.
bool writesStrided(Operation *top) {
  StringRef a = algorithmOf(top);
  return isStridedConv(top) || a == "row_taps_max_pool" || a == "pointwise_from_lanes";
}

// Kernels that read their NCHW input (operand 0) through the strides: those
// convs and a 1x1 conv into lane layout.
bool readsStrided(Operation *top) {
  return isStridedConv(top) || algorithmOf(top) == "pointwise_to_lanes";
}

// The operands of `top` that its fused element-wise ops read (a residual
// add's other tensor), each of the kernel's own result type: the epilogue
// reads them at the output's flat index, which with padded planes is the
// same padded index in a tensor padded the same way. None where the
// epilogue cannot run on padded planes: a fused op that is not
// element-wise, or reads a tensor of another shape (a broadcast finds its
// element from the index by dense plane sizes).
std::optional<SmallVector<unsigned>> epilogueOperands(Operation *top) {
  auto kernel = dyn_cast<KernelOp>(top);
  if (!kernel)
    return SmallVector<unsigned>{};
  Operation *anchor = kernel.getAnchor(), *tail = kernel.getTail();
  Operation *last = tail ? tail : anchor;
  Type result = kernel.getResult().getType();
  if (!anchor || result != last->getResult(0).getType())
    return std::nullopt;
  SmallVector<unsigned> operands;
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (&op == anchor || &op == tail)
      continue;
    if (!isElementwise(&op))
      return std::nullopt;
    for (Value v : op.getOperands()) {
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        if (arg.getType() != result)
          return std::nullopt;
        operands.push_back(arg.getArgNumber());
      }
    }
  }
  return operands;
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
  return writesStrided(op) && epilogueOperands(op).has_value();
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
      if (llvm::count(user->getOperands(), use.get()) != 1)
        return false;
      // Read by the epilogue at the output's index: only where the output
      // is padded too (the same type, so the same stride).
      if (std::optional<SmallVector<unsigned>> epi = epilogueOperands(user);
          epi && llvm::is_contained(*epi, use.getOperandNumber()))
        return padded.count(user->getResult(0)) > 0;
      // (A kernel whose epilogue reads other tensors still reads its input
      // through the strides: the epilogue's indices are the output's.)
      return use.getOperandNumber() == 0 &&
             (isStandalonePool(user) || isSpatialSum(user) || readsStrided(user));
    };
    // Drop what one reader or writer cannot take, until nothing changes: a
    // concat stays padded only with all its operands, and an operand only
    // with a padded concat; a kernel's output only with every tensor its
    // epilogue reads, and those only with the output.
    for (bool changed = true; changed;) {
      SmallVector<Value> drop;
      for (auto [value, stride] : padded) {
        Operation *def = value.getDefiningOp();
        bool keep = llvm::all_of(value.getUses(), readsPadded);
        if (auto concat = dyn_cast<ConcatOp>(def))
          keep = keep && llvm::all_of(concat.getInputs(), [&](Value in) {
                   return padded.count(in) > 0;
                 });
        if (std::optional<SmallVector<unsigned>> epi = epilogueOperands(def); epi && keep)
          keep = llvm::all_of(*epi, [&](unsigned i) {
            return padded.count(def->getOperand(i)) > 0;
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
