//===- PermutedStores.cpp - transposes done by their producers' stores -----===//
#include "compiler/EmitSpirv/PermutedStores.h"

#include "dialects/tract/IR/TractOps.h"

#include <fmt/format.h>

namespace mlir::tract {

namespace {

using ByteRange = std::pair<int64_t, int64_t>;

bool touches(const GpuLayout &layout, Operation *op, ByteRange r, Value except) {
  auto hits = [&](Value v) {
    if (v == except)
      return false;
    std::optional<ByteRange> b = layout.arenaRange(v);
    return b && b->first < r.second && r.first < b->second;
  };
  return llvm::any_of(op->getOperands(), hits) || llvm::any_of(op->getResults(), hits);
}

} // namespace

void findPermutedStores(const PlannedModel &pm, GpuLayout &layout) {
  llvm::DenseMap<Operation *, size_t> position;
  for (auto [i, k] : llvm::enumerate(pm.kernels))
    position[k.op] = i;
  for (auto [i, k] : llvm::enumerate(pm.kernels)) {
    auto transpose = dyn_cast<TransposeOp>(k.op);
    if (!transpose)
      continue;
    Value x = transpose.getInput();
    Operation *producer = x.getDefiningOp();
    auto at = position.find(producer);
    // (f32 only: an int64 result's shader stores words, not through load().)
    if (at == position.end() || !x.hasOneUse() || producer->getNumResults() != 1 ||
        !cast<RankedTensorType>(x.getType()).getElementType().isF32() ||
        layout.absorbed.count(producer) || layout.where.lookup(x).chunk >= 0)
      continue;
    std::optional<ByteRange> target = layout.arenaRange(transpose.getResult());
    if (!target)
      continue;
    bool clear = true;
    for (size_t j = at->second; j < i && clear; ++j)
      clear = !touches(layout, pm.kernels[j].op, *target, x);
    if (!clear)
      continue;
    layout.permutedStores[x] = {transpose.getResult(),
                                SmallVector<int64_t>(transpose.getPerm())};
    layout.absorbed.insert(transpose);
  }
}

std::string permutedIndex(ArrayRef<int64_t> from, ArrayRef<int64_t> perm,
                          const std::string &index) {
  // Output dim j is input dim perm[j]: input coordinate d lands at stride
  // outStride[j] where perm[j] == d.
  int64_t rank = (int64_t)from.size();
  SmallVector<int64_t> inStride(rank, 1), outStride(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d) {
    inStride[d] = inStride[d + 1] * from[d + 1];
    outStride[d] = outStride[d + 1] * from[perm[d + 1]];
  }
  std::string sum;
  for (int64_t j = 0; j < rank; ++j) {
    int64_t d = perm[j];
    if (from[d] == 1)
      continue;
    std::string coord = fmt::format("({})", index);
    if (inStride[d] > 1)
      coord = fmt::format("{} / {}u", coord, inStride[d]);
    if (d > 0)
      coord = fmt::format("{} % {}u", coord, from[d]);
    if (outStride[j] > 1)
      coord = fmt::format("{} * {}u", coord, outStride[j]);
    sum += (sum.empty() ? "" : " + ") + coord;
  }
  return sum.empty() ? std::string("0u") : sum;
}

} // namespace mlir::tract
