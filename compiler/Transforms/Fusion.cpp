//===- Fusion.cpp - the tract-fuse pass --------------------------------------===//
//
// Builds `tract.kernel`s: a conv/matmul with the elementwise chain that
// follows it (its epilogue), or a chain of elementwise ops alone (a map).
// Ops marked tract.keep_plain (an optimisation failed on them) stay out.
// The ops are moved into the kernel's body unchanged; one-element constants
// move with them, and so do single-use transposes feeding the elementwise
// ops (the kernel reads through the permutation); every other operand
// becomes a kernel input.
//
//===----------------------------------------------------------------------===//
#include "compiler/Transforms/Passes.h"
#include "compiler/Transforms/RewriteUtils.h"

#include "mlir/IR/IRMapping.h"

namespace mlir::tract {
#define GEN_PASS_DEF_TRACTFUSEPASS
#include "compiler/Transforms/Passes.h.inc"

namespace {

bool isFloat(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && (tensor.getElementType().isF32() || tensor.getElementType().isF64());
}

// `op` can join a chain whose values have type `type`.
bool fusable(Operation *op, Type type) {
  if (!isElementwise(op) || op->getNumResults() != 1 || op->getResult(0).getType() != type ||
      !isFloat(type))
    return false;
  Type element = cast<RankedTensorType>(type).getElementType();
  return llvm::all_of(op->getOperandTypes(), [&](Type t) {
    return cast<RankedTensorType>(t).getElementType() == element;
  });
}

bool isOneElementConstant(Value v) {
  auto c = v.getDefiningOp<ConstOp>();
  return c && c.getType().getNumElements() == 1;
}

// The chain that starts at `op`: op, then its only user while that user is
// a fusable elementwise op of the same type that no earlier chain took (an
// add of two convs joins the first conv's chain only).
SmallVector<Operation *> chainFrom(Operation &op, const llvm::SmallPtrSetImpl<Operation *> &claimed) {
  if (keepsPlainForm(&op))
    return {};
  bool anchor = isa<ConvOp, MatMulOp>(op) && isFloat(op.getResult(0).getType());
  if (!anchor && !fusable(&op, op.getNumResults() ? op.getResult(0).getType() : Type()))
    return {};
  SmallVector<Operation *> chain{&op};
  Value v = op.getResult(0);
  while (v.hasOneUse()) {
    Operation *user = *v.getUsers().begin();
    if (user->getBlock() != op.getBlock() || claimed.contains(user) || keepsPlainForm(user) ||
        !fusable(user, v.getType()))
      break;
    chain.push_back(user);
    v = user->getResult(0);
  }
  return chain;
}

// A single-use transpose feeding the chain: the kernel reads its input
// through the permutation instead of a transposed copy.
TransposeOp absorbableTranspose(Value v) {
  auto t = v.getDefiningOp<TransposeOp>();
  return t && t->hasOneUse() && !isOneElementConstant(t.getInput()) ? t : TransposeOp();
}

void buildKernel(ArrayRef<Operation *> chain) {
  Operation *last = chain.back();
  Operation *anchor = isa<ConvOp, MatMulOp>(chain.front()) ? chain.front() : nullptr;
  llvm::SmallPtrSet<Value, 8> internal;
  for (Operation *op : chain)
    internal.insert(op->getResult(0));

  // Inputs: the anchor's operands first and in order (as the verifier asks),
  // then every other outside value once.
  SmallVector<Value> inputs;
  llvm::DenseMap<Value, unsigned> inputIndex;
  if (anchor)
    for (Value v : anchor->getOperands()) {
      inputIndex.try_emplace(v, inputs.size());
      inputs.push_back(v);
    }
  for (Operation *op : chain) {
    if (op == anchor)
      continue;
    for (Value v : op->getOperands()) {
      if (TransposeOp t = absorbableTranspose(v))
        v = t.getInput();
      if (!internal.contains(v) && !isOneElementConstant(v) &&
          inputIndex.try_emplace(v, inputs.size()).second)
        inputs.push_back(v);
    }
  }

  // Locations in graph order: each op after the transposes it absorbs.
  SmallVector<Location> locs;
  for (Operation *op : chain) {
    if (op != anchor)
      for (Value v : op->getOperands())
        if (TransposeOp t = absorbableTranspose(v))
          locs.push_back(t.getLoc());
    locs.push_back(op->getLoc());
  }
  SmallVector<Operation *> absorbed; // transposes now read inside the kernel
  OpBuilder b(last);
  Location loc = b.getFusedLoc(locs);
  auto kernel = b.create<KernelOp>(loc, last->getResult(0).getType(), inputs);
  Block *body = new Block();
  kernel.getBody().push_back(body);
  for (Value v : inputs)
    body->addArgument(v.getType(), v.getLoc());

  IRMapping map;
  for (auto [v, index] : inputIndex)
    map.map(v, body->getArgument(index));
  OpBuilder ib = OpBuilder::atBlockEnd(body);
  for (Operation *op : chain) {
    if (op == anchor) {
      Operation *copy = ib.clone(*op);
      for (unsigned i = 0; i < copy->getNumOperands(); ++i)
        copy->setOperand(i, body->getArgument(i));
      map.map(op->getResult(0), copy->getResult(0));
      continue;
    }
    for (Value v : op->getOperands()) {
      if (map.contains(v))
        continue;
      if (isOneElementConstant(v) || absorbableTranspose(v)) {
        absorbed.push_back(v.getDefiningOp());
        map.map(v, ib.clone(*v.getDefiningOp(), map)->getResult(0));
      }
    }
    ib.clone(*op, map);
  }
  ib.create<YieldOp>(loc, map.lookup(last->getResult(0)));

  last->getResult(0).replaceAllUsesWith(kernel.getResult());
  for (Operation *op : llvm::reverse(chain))
    op->erase();
  for (Operation *op : absorbed)
    if (isa<TransposeOp>(op) && op->use_empty())
      op->erase();
}

struct Fuse : impl::TractFusePassBase<Fuse> {
  void runOnOperation() override {
    Block &block = getOperation().getBody().front();
    SmallVector<SmallVector<Operation *>> chains;
    llvm::SmallPtrSet<Operation *, 32> claimed;
    for (Operation &op : block) {
      if (claimed.contains(&op))
        continue;
      SmallVector<Operation *> chain = chainFrom(op, claimed);
      if (chain.size() < 2)
        continue;
      claimed.insert(chain.begin(), chain.end());
      chains.push_back(std::move(chain));
    }
    for (ArrayRef<Operation *> chain : chains)
      buildKernel(chain);
    // A reshape of a kernel's only result is the kernel storing in that
    // shape: its elements are written in order either way.
    for (Operation &op : llvm::make_early_inc_range(block)) {
      auto reshape = dyn_cast<ReshapeOp>(op);
      auto kernel = reshape ? reshape.getInput().getDefiningOp<KernelOp>() : KernelOp();
      if (!kernel || !kernel->hasOneUse())
        continue;
      kernel.getResult().setType(reshape.getType());
      kernel->setLoc(FusedLoc::get(&getContext(), {kernel.getLoc(), reshape.getLoc()}));
      reshape.getResult().replaceAllUsesWith(kernel.getResult());
      reshape.erase();
    }
    // Constants only the fused ops read are dead now.
    for (Operation &op : llvm::make_early_inc_range(block))
      if (isa<ConstOp>(op) && op.use_empty())
        op.erase();
  }
};

} // namespace
} // namespace mlir::tract
