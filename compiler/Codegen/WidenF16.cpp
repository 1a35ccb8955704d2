//===- WidenF16.cpp - compute float16 arithmetic in float32 --------------------===//
#include "compiler/Codegen/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::tract {
#define GEN_PASS_DEF_TRACTWIDENF16PASS
#include "compiler/Codegen/Passes.h.inc"

namespace {

// Ops that only move or convert elements: they run on f16 storage as is.
bool movesData(Operation *op) {
  return isa<ConstOp, CastOp, ReshapeOp, TransposeOp, ConcatOp, SliceOp, GatherOp,
             GatherElementsOp, GatherNdOp, BroadcastOp, TileOp, DepthToSpaceOp, SpaceToDepthOp,
             ReverseSequenceOp, func::ReturnOp>(op);
}

Type widened(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  if (!tensor || !(tensor.getElementType().isF16() || tensor.getElementType().isBF16()))
    return Type();
  return RankedTensorType::get(tensor.getShape(), Float32Type::get(t.getContext()));
}

struct WidenF16 : impl::TractWidenF16PassBase<WidenF16> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (op->getDialect() && isa<TractDialect>(op->getDialect()) && !movesData(op))
        ops.push_back(op);
    });
    OpBuilder builder(&getContext());
    for (Operation *op : ops) {
      builder.setInsertionPoint(op);
      for (OpOperand &operand : op->getOpOperands())
        if (Type wide = widened(operand.get().getType()))
          operand.set(builder.create<CastOp>(op->getLoc(), wide, operand.get()));
      builder.setInsertionPointAfter(op);
      for (Value result : op->getResults()) {
        Type narrow = result.getType();
        Type wide = widened(narrow);
        if (!wide)
          continue;
        result.setType(wide);
        auto back = builder.create<CastOp>(op->getLoc(), narrow, result);
        result.replaceAllUsesExcept(back, back);
      }
    }
  }
};
} // namespace
} // namespace mlir::tract
