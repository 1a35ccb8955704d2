//===- RewriteUtils.h - reading and making constants in patterns --*- C++ -*-===//
//
// What the declutter patterns need to know about constant operands: their
// values as doubles, whether every element is one value, and which values
// broadcast along the channel dim only.
//
//===----------------------------------------------------------------------===//
#ifndef TRACT_TRANSFORMS_REWRITEUTILS_H
#define TRACT_TRANSFORMS_REWRITEUTILS_H

#include "dialects/tract/IR/TractOps.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir::tract {

/// True for f16, bf16, f32 and f64 tensors.
bool isFloatTensor(Value v);
RankedTensorType tensorType(Value v);

/// The elements of a tract.const of f32 or f64 as doubles; nullopt for other
/// values, other element types, or more than `maxElements` elements.
std::optional<SmallVector<double>> floatConstant(Value v, int64_t maxElements = 1 << 26);
/// The single value of a constant whose elements are all equal (any integer
/// or f32/f64 element type), or nullopt.
std::optional<double> splatConstant(Value v);
/// splatConstant(v) is within 1e-6 relative of `expected`.
bool isSplat(Value v, double expected);

/// A tract.const of `type` (f32 or f64 elements) holding `values`.
Value createFloatConstant(PatternRewriter &rewriter, Location loc, RankedTensorType type,
                          ArrayRef<double> values);

/// For an operand that broadcasts against `out` ([N, C, spatial...]) along
/// C only -- shapes [C, 1, ...], [1, C, 1, ...] or a single element -- its
/// C per-channel values. nullopt otherwise.
std::optional<SmallVector<double>> perChannelConstant(Value operand, RankedTensorType out);

/// A conv-like op (ConvOp, ConvTransposeOp) that only `user` consumes, with
/// constant weights and user's type, and the per-channel values of user's
/// other operand (a BatchNormalization's scale or shift, a bias Add).
template <class ConvLike>
struct ConvThenPerChannel {
  ConvLike conv;
  SmallVector<double> perChannel;
};
template <class ConvLike>
std::optional<ConvThenPerChannel<ConvLike>> matchConvThenPerChannel(Operation *user) {
  if (user->getNumOperands() != 2 || user->getNumResults() != 1)
    return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    auto conv = user->getOperand(side).getDefiningOp<ConvLike>();
    if (!conv || !conv->hasOneUse() || conv.getType() != user->getResult(0).getType() ||
        !conv.getWeight().template getDefiningOp<ConstOp>())
      continue;
    if (auto c = perChannelConstant(user->getOperand(1 - side), conv.getType()))
      return ConvThenPerChannel<ConvLike>{conv, std::move(*c)};
  }
  return std::nullopt;
}

/// For a binary op(a, b) one of whose operands is `x`, the other one (null
/// when neither is `x`).
Value otherOperand(Operation *binary, Value x);

/// The fused location of `root` and every op between it and `input` (not
/// constants): a recognised subgraph's replacement carries the ONNX nodes it
/// stands for, so --report can list them all.
Location subgraphLoc(Operation *root, Value input);
/// The fused location of `ops`.
Location fusedLoc(ArrayRef<Operation *> ops);

} // namespace mlir::tract

#endif // TRACT_TRANSFORMS_REWRITEUTILS_H
