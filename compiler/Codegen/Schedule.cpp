//===- Schedule.cpp - execution order that lowers the memory peak ------------===//
//
// A greedy list scheduler over the function's single block (every tract op
// is pure, so any topological order computes the same results). Sizes count
// arena values only: results of ops other than constants that are not graph
// outputs.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/Passes.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::tract {
#define GEN_PASS_DEF_TRACTSCHEDULEPASS
#include "compiler/Codegen/Passes.h.inc"

namespace {

bool inArena(Value v) {
  Operation *def = v.getDefiningOp();
  return def && !isa<ConstOp>(def) &&
         llvm::none_of(v.getUsers(), [](Operation *u) { return isa<func::ReturnOp>(u); });
}

int64_t arenaBytes(Value v) { return inArena(v) ? arenaTensorBytes(v) : 0; }

// The peak of live arena bytes when `order` runs: a value is live from its
// definition to its last reader in the order.
int64_t peakOf(ArrayRef<Operation *> order, Block &block) {
  llvm::DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(order))
    position[op] = i;
  std::vector<int64_t> delta(order.size() + 1, 0);
  for (auto [i, op] : llvm::enumerate(order))
    for (Value r : op->getResults()) {
      int64_t bytes = arenaBytes(r);
      if (!bytes)
        continue;
      int64_t last = i;
      for (Operation *u : r.getUsers())
        if (Operation *top = block.findAncestorOpInBlock(*u); top && position.count(top))
          last = std::max(last, position[top]);
      delta[i] += bytes;
      delta[last + 1] -= bytes;
    }
  int64_t live = 0, peak = 0;
  for (int64_t d : delta)
    peak = std::max(peak, live += d);
  return peak;
}

struct Schedule : impl::TractSchedulePassBase<Schedule> {
  void runOnOperation() override {
    Block &block = getOperation().getBody().front();
    SmallVector<Operation *> original;
    for (Operation &op : block.without_terminator())
      original.push_back(&op);

    // Readers not yet run, per value; operands not yet computed, per op.
    llvm::DenseMap<Value, int64_t> pendingReaders;
    llvm::DenseMap<Operation *, int64_t> pendingOperands, index;
    llvm::DenseMap<Operation *, SmallVector<Operation *>> dependents;
    for (size_t i = 0; i < original.size(); ++i) {
      Operation *op = original[i];
      index[op] = i;
      llvm::SmallSetVector<Operation *, 4> producers;
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp(); def && def->getBlock() == &block)
          producers.insert(def);
      // Values read inside a kernel's region count as read by the kernel.
      op->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          if (Operation *def = v.getDefiningOp(); def && def->getBlock() == &block && def != op)
            producers.insert(def);
      });
      pendingOperands[op] = producers.size();
      for (Operation *p : producers)
        dependents[p].push_back(op);
    }
    for (Operation *op : original)
      for (Value r : op->getResults()) {
        llvm::SmallPtrSet<Operation *, 4> readers;
        for (Operation *u : r.getUsers())
          if (Operation *top = block.findAncestorOpInBlock(*u); top && !isa<func::ReturnOp>(top))
            readers.insert(top);
        pendingReaders[r] = readers.size();
      }

    SmallVector<Operation *> ready, order;
    for (Operation *op : original)
      if (pendingOperands[op] == 0)
        ready.push_back(op);
    while (!ready.empty()) {
      // Net live bytes the op adds: its results minus the operands it is the
      // last reader of.
      auto cost = [&](Operation *op) {
        int64_t c = 0;
        for (Value r : op->getResults())
          c += arenaBytes(r);
        llvm::SmallPtrSet<Value, 4> seen;
        for (Value v : op->getOperands())
          if (seen.insert(v).second && pendingReaders.lookup(v) == 1)
            c -= arenaBytes(v);
        return c;
      };
      auto best = std::min_element(ready.begin(), ready.end(), [&](Operation *a, Operation *b) {
        int64_t ca = cost(a), cb = cost(b);
        return ca != cb ? ca < cb : index[a] < index[b];
      });
      Operation *op = *best;
      ready.erase(best);
      order.push_back(op);
      llvm::SmallPtrSet<Value, 4> seen;
      for (Value v : op->getOperands())
        if (seen.insert(v).second && pendingReaders.count(v))
          --pendingReaders[v];
      for (Operation *d : dependents[op])
        if (--pendingOperands[d] == 0)
          ready.push_back(d);
    }
    if (order.size() != original.size() || peakOf(order, block) >= peakOf(original, block))
      return; // keep the importer's order: nothing to gain
    for (Operation *op : order)
      op->moveBefore(block.getTerminator());
  }
};

} // namespace
} // namespace mlir::tract
