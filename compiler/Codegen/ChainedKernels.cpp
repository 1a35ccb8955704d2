//===- ChainedKernels.cpp - two kernels that become one, and the choice helpers -===//
//
// After tract-choose-kernels has picked every op's algorithm, some pairs of
// ops run better as one kernel whose intermediate never reaches the arena:
// a producer and its only reader become one chained tract.kernel, the
// reader as its tail (TractOps.td). LaneChains.cpp chains a 1x1 expand into
// its depthwise conv; here a network's first conv (on conv_row_taps) is
// chained into the max pool that reads it (conv_row_taps_pool.h: the stem's
// output, the largest tensor of a CNN, stays in a ring of rows in L2).
// Conditions for the pool tail:
//   - the max pool is f32, has no indices output and is the conv's only
//     reader;
//   - the conv's fused ops read no other tensor and store the conv's shape
//     (its epilogue runs on rows of a ring, not of the conv's output);
//   - conv_row_taps_max_pool_fits (same rank, no dilation, rows the pool's
//     row kernel takes).
// ReLUs and clips between the two then run after the pool, on its output.
// The pair is chained wherever it fits: measured on a Sapphire Rapids class
// Xeon (bench/README.md), the two kernels take 3-33% less time on stems
// with maps of 112 x 112 at one thread and 5-40% less at two; on maps that
// fit L2 anyway they are within 8% either way; and the conv's output takes
// no arena.
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/KernelChoice.h"

#include "tract/rt/nn/conv_row_taps_pool.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::tract {
namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

// The ops of `top` (a conv, or a tract.kernel's body) cloned at `b`'s
// insertion point with `map` (which maps `top`'s inputs); returns the value
// `top` produces.
Value cloneComputation(Operation *top, OpBuilder &b, IRMapping &map) {
  auto kernel = dyn_cast<KernelOp>(top);
  if (!kernel) {
    Operation *copy = b.clone(*top, map);
    // The choices are the fused kernel's, not its body's.
    for (StringRef attr : {kAlgorithmAttr, kScratchBytesAttr, kPackedWeightsAttr})
      copy->removeAttr(attr);
    return copy->getResult(0);
  }
  Block &body = kernel.getBody().front();
  for (auto [arg, in] : llvm::zip(body.getArguments(), kernel.getInputs()))
    map.map(arg, map.lookup(in));
  for (Operation &op : body.without_terminator())
    b.clone(op, map);
  return map.lookup(body.getTerminator()->getOperand(0));
}

// The ReLUs and clips between the conv and the max pool of a chained stem
// moved past the pool: a max over a window of f(x) is f of the max for any
// non-decreasing f, and the pool's output is a quarter of the conv's (3x3
// stride 2). In the kernel they run on the pooled rows (the epilogue after
// the tail) instead of every conv row in the ring: SqueezeNet 1.1's stem
// (3 -> 64 channels, 111 x 111, then 55 x 55) 507 -> 481 us on a Sapphire
// Rapids class Xeon. Only a window of NaNs alone comes out otherwise: the
// pool skips NaNs, so -inf before, 0 after.
void sinkMonotoneOpsPastPool(KernelOp kernel) {
  Operation *pool = kernel.getTail();
  SmallVector<Operation *> chain; // from the pool's input back to the conv
  Value v = pool->getOperand(0);
  while (Operation *op = v.getDefiningOp()) {
    if (!isa<ReluOp, ClipOp>(op) || !v.hasOneUse())
      break;
    chain.push_back(op);
    v = op->getOperand(0);
  }
  if (chain.empty())
    return;
  pool->setOperand(0, v);
  Value pooled = pool->getResult(0), last = pooled;
  OpBuilder b(pool->getBlock(), std::next(pool->getIterator()));
  Operation *first = nullptr;
  for (Operation *op : llvm::reverse(chain)) {
    Operation *moved = b.clone(*op);
    moved->setOperand(0, last);
    moved->getResult(0).setType(pooled.getType());
    first = first ? first : moved;
    last = moved->getResult(0);
  }
  pooled.replaceAllUsesExcept(last, first);
  for (Operation *op : chain)
    op->erase();
}

} // namespace

StringRef algorithmOf(Operation *top) {
  auto a = top->getAttrOfType<StringAttr>(kAlgorithmAttr);
  return a ? a.getValue() : StringRef();
}

void setAlgorithm(Operation *top, StringRef algorithm, int64_t scratchFloats) {
  Builder b(top->getContext());
  top->setAttr(kAlgorithmAttr, b.getStringAttr(algorithm));
  top->setAttr(kScratchBytesAttr, b.getI64IntegerAttr(scratchFloats * 4));
}

bool epilogueReadsNothing(Operation *top) {
  auto kernel = dyn_cast<KernelOp>(top);
  if (!kernel)
    return true;
  Operation *anchor = kernel.getAnchor();
  if (!anchor || typeOf(kernel.getResult()) != typeOf(anchor->getResult(0)))
    return false;
  for (Operation &op : kernel.getBody().front().without_terminator())
    if (&op != anchor)
      for (Value v : op.getOperands())
        if (isa<BlockArgument>(v))
          return false;
  return true;
}

KernelOp chainIntoKernel(Operation *producer, Operation *top, StringRef algorithm,
                         int64_t scratchFloats) {
  SmallVector<Value> inputs(producer->getOperands());
  llvm::append_range(inputs, top->getOperands().drop_front());
  OpBuilder b(top);
  Location loc = b.getFusedLoc({producer->getLoc(), top->getLoc()});
  auto kernel = b.create<KernelOp>(loc, top->getResult(0).getType(), inputs);
  Block *body = new Block();
  kernel.getBody().push_back(body);
  for (Value v : inputs)
    body->addArgument(v.getType(), v.getLoc());
  OpBuilder ib = OpBuilder::atBlockEnd(body);
  IRMapping map;
  for (auto [i, v] : llvm::enumerate(producer->getOperands()))
    map.map(v, body->getArgument(i));
  Value produced = cloneComputation(producer, ib, map);
  IRMapping tailMap;
  tailMap.map(top->getOperand(0), produced);
  for (auto [i, v] : llvm::enumerate(top->getOperands().drop_front()))
    tailMap.map(v, body->getArgument(producer->getNumOperands() + i));
  ib.create<YieldOp>(loc, cloneComputation(top, ib, tailMap));
  // The weights arrive as the producer's choice packed them.
  if (producer->hasAttr(kPackedWeightsAttr))
    kernel->setAttr(kPackedWeightsAttr, b.getUnitAttr());
  setAlgorithm(kernel, algorithm, scratchFloats);
  top->getResult(0).replaceAllUsesWith(kernel.getResult());
  top->erase();
  producer->erase();
  return kernel;
}

void fuseMaxPoolTails(Block &body) {
  SmallVector<MaxPoolOp> pools;
  for (Operation &op : body)
    if (auto pool = dyn_cast<MaxPoolOp>(op))
      pools.push_back(pool);
  for (MaxPoolOp pool : pools) {
    Value x = pool.getInput();
    Operation *producer = x.getDefiningOp();
    if (!producer || !x.hasOneUse() || algorithmOf(producer) != "conv_row_taps" ||
        !typeOf(pool.getResult()).getElementType().isF32() || !epilogueReadsNothing(producer))
      continue;
    ::tract::rt::ConvParams p = convParamsOf(cast<ConvOp>(gemmAnchor(producer)));
    ::tract::rt::PoolParams pp = poolParamsOf(pool);
    if (!::tract::rt::conv_row_taps_max_pool_fits(p, pp))
      continue;
    sinkMonotoneOpsPastPool(
        chainIntoKernel(producer, pool, "row_taps_max_pool",
                        ::tract::rt::conv_row_taps_max_pool_scratch_floats(p, pp)));
  }
}

} // namespace mlir::tract
