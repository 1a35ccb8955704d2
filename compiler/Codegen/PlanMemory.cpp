//===- PlanMemory.cpp - static arena planning ---------------------------------===//
//
// Offline first-fit, largest buffer first: simple, deterministic, and within a
// few percent of optimal on CNN and transformer graphs (tract and TFLite use
// the same family of heuristics). Aliasing of reshapes and in-place kernels
// come with issue #6.
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::tract {
#define GEN_PASS_DEF_TRACTPLANMEMORYPASS
#include "compiler/Codegen/Passes.h.inc"

namespace {
struct Buffer {
  Value value;
  int64_t bytes;
  int64_t first, last; // live interval, in op indices
  int64_t offset = -1;
};

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

    std::vector<Buffer> buffers;
    for (Operation &op : func.getBody().front()) {
      if (isa<ConstOp, func::ReturnOp>(op) || op.getNumResults() == 0)
        continue;
      for (Value result : op.getResults()) {
        bool isOutput = llvm::any_of(result.getUsers(), [](Operation *user) {
          return isa<func::ReturnOp>(user);
        });
        // Kept even when unused: the kernel still writes it.
        if (isOutput)
          continue;
        int64_t last = index[&op];
        // Users nested in regions count at their ancestor in this block.
        for (Operation *user : result.getUsers())
          if (Operation *top = func.getBody().front().findAncestorOpInBlock(*user))
            last = std::max(last, index[top]);
        buffers.push_back({result, tensorBytes(result.getType()), index[&op], last});
      }
    }

    // Largest first; ties broken by definition order for determinism.
    std::vector<Buffer *> order;
    for (Buffer &b : buffers)
      order.push_back(&b);
    std::sort(order.begin(), order.end(), [](Buffer *a, Buffer *b) {
      return a->bytes != b->bytes ? a->bytes > b->bytes : a->first < b->first;
    });
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

    llvm::DenseMap<Value, int64_t> offsets;
    for (Buffer &b : buffers)
      offsets[b.value] = b.offset;
    Builder builder(func.getContext());
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
