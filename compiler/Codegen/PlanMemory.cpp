//===- PlanMemory.cpp - static arena planning ---------------------------------===//
//
// Offline first-fit, in three orders (largest buffer first, definition
// order, largest size x lifetime first), keeping the smallest arena: simple,
// deterministic, and within a few percent of optimal on CNN and transformer
// graphs (tract and TFLite use the same family of heuristics). A reshape of
// an arena tensor is a view: it shares its input's buffer (the buffer lives
// until the last use of either), and the emitter generates no kernel for it.
// An elementwise kernel whose operand dies with it writes its result over
// that operand (in place). A kernel's scratch (tract.scratch_bytes, from
// tract-choose-kernels) is one more buffer, live only while that kernel runs.
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/KernelChoice.h"
#include "compiler/Codegen/Passes.h"

#include "mlir/IR/Builders.h"

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
};

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
          buffers[b].last = std::max(buffers[b].last, last);
          bufferOf[result] = b;
          continue;
        }
        // In place: an operand's buffer whose last reader is this op.
        bool inPlace = false;
        for (unsigned k : inPlaceOperands(op)) {
          auto it = bufferOf.find(op.getOperand(k));
          if (it == bufferOf.end() || buffers[it->second].last != index[&op])
            continue;
          buffers[it->second].last = last;
          bufferOf[result] = it->second;
          inPlace = true;
          break;
        }
        if (inPlace)
          continue;
        bufferOf[result] = buffers.size();
        buffers.push_back({result, nullptr, tensorBytes(result.getType()), index[&op], last});
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
