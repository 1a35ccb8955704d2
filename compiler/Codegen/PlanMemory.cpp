//===- PlanMemory.cpp - static arena planning ---------------------------------===//
//
// Offline first-fit, in three orders (largest buffer first, definition
// order, largest size x lifetime first), keeping the smallest arena: simple,
// deterministic, and within a few percent of optimal on CNN and transformer
// graphs (tract and TFLite use the same family of heuristics). A reshape of
// an arena tensor is a view: it shares its input's buffer (the buffer lives
// until the last use of either), and the emitter generates no kernel for it.
// A concat whose operands are consecutive byte ranges of its result (only
// unit dims before the axis: SqueezeNet's fire modules) is one too: each
// operand's producer writes straight into its range of the result's buffer,
// which lives from the first operand's producer to the last use of any of
// them. An elementwise kernel whose operand dies with it writes its result
// over that operand (in place), and so does a depthwise conv in lane layout
// at stride 1 over its input (conv_depthwise_in_place_fits: output rows
// overwrite input rows already staged). A kernel's scratch (tract.scratch_bytes,
// from tract-choose-kernels) is one more buffer, live only while that
// kernel runs. A result with padded planes (tract-pad-planes) takes its
// padded bytes.
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/KernelChoice.h"
#include "compiler/Codegen/Passes.h"

#include "tract/rt/nn/conv_depthwise.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::tract {
#define GEN_PASS_DEF_TRACTPLANMEMORYPASS
#include "compiler/Codegen/Passes.h.inc"

namespace {

// Operands whose buffer `op` may overwrite with its result: an elementwise
// op (or a fused chain of them with no conv/matmul and no transposed
// loads) reads element i of such an operand, of the result's type, right
// before it writes element i.
SmallVector<unsigned> inPlaceOperands(Operation &op) {
  Type result = op.getNumResults() == 1 ? op.getResult(0).getType() : Type();
  auto algorithm = op.getAttrOfType<StringAttr>(kAlgorithmAttr);
  if (algorithm && algorithm.getValue() == "depthwise_lanes") {
    auto conv = cast<ConvOp>(gemmAnchor(&op));
    if (::tract::rt::conv_depthwise_in_place_fits(convParamsOf(conv)) &&
        op.getOperand(0).getType() == result)
      return {0};
    return {};
  }
  bool candidate = false;
  if (auto kernel = dyn_cast<KernelOp>(op)) {
    Block &body = kernel.getBody().front();
    candidate = !kernel.getAnchor() &&
                llvm::none_of(body, [](Operation &inner) { return isa<TransposeOp>(inner); }) &&
                body.getTerminator()->getOperand(0).getType() == result;
  } else {
    candidate = isElementwise(&op);
  }
  SmallVector<unsigned> positions;
  if (candidate)
    for (OpOperand &operand : op.getOpOperands())
      if (operand.get().getType() == result)
        positions.push_back(operand.getOperandNumber());
  return positions;
}

struct Buffer {
  Value value; // null for a kernel's scratch
  Operation *scratchOf = nullptr;
  int64_t bytes;
  int64_t first, last; // live interval, in op indices
  int64_t offset = -1;
  // A concat operand's buffer lies inside the concat's: `parent` (an index
  // into the buffers), `offsetInParent` bytes in. Only roots are placed.
  int64_t parent = -1, offsetInParent = 0;
};

// Extends buffer `b`'s live interval to `last`, and its enclosing buffers'.
void extendTo(std::vector<Buffer> &buffers, size_t b, int64_t last) {
  for (int64_t i = (int64_t)b; i >= 0; i = buffers[i].parent)
    buffers[i].last = std::max(buffers[i].last, last);
}

// The buffers of `concat`'s operands, when it can be a view of them
// (concatOfByteRanges) and each operand is an arena tensor with a buffer of
// its own (not a view of or written in place over another value, not inside
// another concat), each a different one.
std::optional<SmallVector<size_t>> concatParts(ConcatOp concat,
                                               const llvm::DenseMap<Value, size_t> &bufferOf,
                                               const std::vector<Buffer> &buffers) {
  if (!concatOfByteRanges(concat))
    return std::nullopt;
  SmallVector<size_t> parts;
  for (Value in : concat.getInputs()) {
    auto it = bufferOf.find(in);
    if (it == bufferOf.end())
      return std::nullopt;
    const Buffer &b = buffers[it->second];
    if (b.value != in || b.parent >= 0 || llvm::is_contained(parts, it->second))
      return std::nullopt;
    parts.push_back(it->second);
  }
  return parts;
}

// Places the buffers in `order`, each at the lowest aligned offset clear of
// the placed buffers live at the same time; returns the arena's bytes.
int64_t firstFit(const std::vector<Buffer *> &order, int64_t alignment) {
  int64_t arenaBytes = 0;
  std::vector<Buffer *> placed;
  for (Buffer *b : order) {
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (Buffer *p : placed)
      if (p->first <= b->last && b->first <= p->last)
        busy.push_back({p->offset, p->offset + p->bytes});
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (offset + b->bytes <= begin)
        break;
      offset = std::max(offset, (end + alignment - 1) / alignment * alignment);
    }
    b->offset = offset;
    arenaBytes = std::max(arenaBytes, offset + b->bytes);
    placed.push_back(b);
  }
  return arenaBytes;
}

struct PlanMemory : impl::TractPlanMemoryPassBase<PlanMemory> {
  using TractPlanMemoryPassBase::TractPlanMemoryPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (alignment < 1 || (alignment & (alignment - 1)) != 0) {
      func.emitError("expected a power-of-two alignment, got ") << alignment;
      return signalPassFailure();
    }
    llvm::DenseMap<Operation *, int64_t> index;
    int64_t i = 0;
    for (Operation &op : func.getBody().front())
      index[&op] = i++;

    auto isOutput = [](Value v) {
      return llvm::any_of(v.getUsers(), [](Operation *user) { return isa<func::ReturnOp>(user); });
    };
    std::vector<Buffer> buffers;
    llvm::DenseMap<Value, size_t> bufferOf; // every arena value, views included
    for (Operation &op : func.getBody().front()) {
      if (isa<ConstOp, func::ReturnOp>(op) || op.getNumResults() == 0)
        continue;
      for (Value result : op.getResults()) {
        // Kept even when unused: the kernel still writes it.
        if (isOutput(result))
          continue;
        int64_t last = index[&op];
        // Users nested in regions count at their ancestor in this block.
        for (Operation *user : result.getUsers())
          if (Operation *top = func.getBody().front().findAncestorOpInBlock(*user))
            last = std::max(last, index[top]);
        // A reshape of an arena tensor: a view of the same bytes.
        auto reshape = dyn_cast<ReshapeOp>(op);
        if (reshape && bufferOf.count(reshape.getInput())) {
          size_t b = bufferOf.lookup(reshape.getInput());
          extendTo(buffers, b, last);
          bufferOf[result] = b;
          continue;
        }
        // A concat of byte ranges: its operands' buffers move inside its own.
        if (auto concat = dyn_cast<ConcatOp>(op)) {
          if (auto parts = concatParts(concat, bufferOf, buffers)) {
            size_t whole = buffers.size();
            buffers.push_back({result, nullptr, arenaTensorBytes(result), index[&op], last});
            int64_t at = 0;
            for (size_t b : *parts) {
              buffers[b].parent = (int64_t)whole;
              buffers[b].offsetInParent = at;
              at += buffers[b].bytes;
              buffers[whole].first = std::min(buffers[whole].first, buffers[b].first);
              buffers[whole].last = std::max(buffers[whole].last, buffers[b].last);
            }
            bufferOf[result] = whole;
            continue;
          }
          // No concat kernel reads or writes padded planes: tract-pad-planes
          // pads a concat only where it can be a view.
          if (planeStrideOf(result) > 0) {
            concat.emitError("a concat of padded planes that is not a view of its operands");
            return signalPassFailure();
          }
        }
        // In place: an operand's buffer whose last reader is this op (never
        // a concat operand's: the concat's result still holds those bytes).
        bool inPlace = false;
        for (unsigned k : inPlaceOperands(op)) {
          auto it = bufferOf.find(op.getOperand(k));
          if (it == bufferOf.end() || buffers[it->second].last != index[&op] ||
              buffers[it->second].parent >= 0)
            continue;
          extendTo(buffers, it->second, last);
          bufferOf[result] = it->second;
          inPlace = true;
          break;
        }
        if (inPlace)
          continue;
        bufferOf[result] = buffers.size();
        buffers.push_back({result, nullptr, arenaTensorBytes(result), index[&op], last});
      }
    }
    for (Operation &op : func.getBody().front())
      if (auto scratch = op.getAttrOfType<IntegerAttr>(kScratchBytesAttr); scratch && scratch.getInt() > 0)
        buffers.push_back({Value(), &op, scratch.getInt(), index[&op], index[&op]});

    // First fit in a few orders, keeping the smallest arena: largest first
    // is usually best, but a run of shrinking tensors (an inverted
    // residual's, once its expand is fused) packs better in definition
    // order. Ties broken by definition order for determinism.
    auto bySize = [](const Buffer *a, const Buffer *b) {
      return a->bytes != b->bytes ? a->bytes > b->bytes : a->first < b->first;
    };
    auto byStart = [](const Buffer *a, const Buffer *b) {
      return a->first != b->first ? a->first < b->first : a->bytes > b->bytes;
    };
    auto byArea = [](const Buffer *a, const Buffer *b) {
      int64_t x = a->bytes * (a->last - a->first + 1), y = b->bytes * (b->last - b->first + 1);
      return x != y ? x > y : a->first < b->first;
    };
    int64_t arenaBytes = -1;
    std::vector<int64_t> best;
    for (bool (*less)(const Buffer *, const Buffer *) : {+bySize, +byStart, +byArea}) {
      std::vector<Buffer *> order;
      for (Buffer &b : buffers)
        if (b.parent < 0)
          order.push_back(&b);
      std::sort(order.begin(), order.end(), less);
      int64_t bytes = firstFit(order, alignment);
      if (arenaBytes < 0 || bytes < arenaBytes) {
        arenaBytes = bytes;
        best.clear();
        for (Buffer &b : buffers)
          best.push_back(b.offset);
      }
    }
    for (size_t b = 0; b < buffers.size(); ++b)
      buffers[b].offset = best[b];
    // Concat operands after their concat's buffer (created after them).
    for (size_t b = buffers.size(); b-- > 0;)
      if (buffers[b].parent >= 0)
        buffers[b].offset = buffers[buffers[b].parent].offset + buffers[b].offsetInParent;

    llvm::DenseMap<Value, int64_t> offsets;
    for (auto [value, b] : bufferOf)
      offsets[value] = buffers[b].offset;
    Builder builder(func.getContext());
    for (Buffer &b : buffers)
      if (b.scratchOf)
        b.scratchOf->setAttr(kScratchOffsetAttr, builder.getI64IntegerAttr(b.offset));
    for (Operation &op : func.getBody().front()) {
      if (isa<ConstOp, func::ReturnOp>(op) || op.getNumResults() == 0)
        continue;
      SmallVector<int64_t> resultOffsets;
      for (Value result : op.getResults())
        resultOffsets.push_back(offsets.count(result) ? offsets.lookup(result) : -1);
      op.setAttr(kArenaOffsetsAttr, builder.getDenseI64ArrayAttr(resultOffsets));
    }
    arenaBytes = (arenaBytes + alignment - 1) / alignment * alignment;
    func->setAttr(kArenaBytesAttr, builder.getI64IntegerAttr(arenaBytes));
  }
};
} // namespace
} // namespace mlir::tract
