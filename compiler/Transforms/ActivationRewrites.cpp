//===- ActivationRewrites.cpp - activations written out as graphs ----------===//
//
// Exporters write SiLU, GELU, HardSigmoid and HardSwish as chains of
// elementwise ops (opsets before 14/20 have no op for them). Recognised,
// each becomes one unary op that later fusion puts in a matmul/conv
// epilogue. Matching runs after the arithmetic normal forms: division by a
// constant is already a multiplication.
//
//===----------------------------------------------------------------------===//
#include "compiler/Transforms/DeclutterPatterns.h"
#include "compiler/Transforms/RewriteUtils.h"

#include <cmath>

namespace mlir::tract {
namespace {

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kSqrt2OverPi = 0.79788456080286535588;

// The factors of a product: `root` and the single-use float multiplications
// feeding it, flattened (a * (b * c) -> {a, b, c}).
void flattenProduct(Value v, SmallVectorImpl<Value> &factors, bool isRoot = true) {
  auto mul = v.getDefiningOp<MulOp>();
  if (mul && (isRoot || mul->hasOneUse()) && factors.size() < 8) {
    flattenProduct(mul.getLhs(), factors, false);
    flattenProduct(mul.getRhs(), factors, false);
    return;
  }
  factors.push_back(v);
}

// Removes from `factors` one factor satisfying `pred`; false when none does.
template <class Pred>
bool takeFactor(SmallVectorImpl<Value> &factors, Pred pred) {
  for (auto it = factors.begin(); it != factors.end(); ++it)
    if (pred(*it)) {
      factors.erase(it);
      return true;
    }
  return false;
}

// v == x * c (either order) with c a splat near `c`: returns x.
Value unscaled(Value v, double c) {
  auto mul = v.getDefiningOp<MulOp>();
  if (!mul)
    return Value();
  if (isSplat(mul.getRhs(), c))
    return mul.getLhs();
  if (isSplat(mul.getLhs(), c))
    return mul.getRhs();
  return Value();
}

// v == 1 + f (either order): returns f.
Value plusOne(Value v) {
  auto add = v.getDefiningOp<AddOp>();
  if (!add)
    return Value();
  if (isSplat(add.getRhs(), 1.0))
    return add.getLhs();
  if (isSplat(add.getLhs(), 1.0))
    return add.getRhs();
  return Value();
}

// v == x^3 as pow(x, 3), x * (x * x) or (x * x) * x.
bool isCube(Value v, Value x) {
  if (auto pow = v.getDefiningOp<PowOp>())
    return pow.getLhs() == x && isSplat(pow.getRhs(), 3.0);
  auto mul = v.getDefiningOp<MulOp>();
  if (!mul)
    return false;
  auto isSquare = [&](Value s) {
    auto m = s.getDefiningOp<MulOp>();
    return m && m.getLhs() == x && m.getRhs() == x;
  };
  return (mul.getLhs() == x && isSquare(mul.getRhs())) ||
         (mul.getRhs() == x && isSquare(mul.getLhs()));
}

// A product of exactly {x, extra factors matched by `rest`} whose type is
// x's: replace it by `make(x)`.
template <class MatchRest>
LogicalResult rewriteProductOfX(MulOp root, PatternRewriter &rewriter, MatchRest rest,
                                function_ref<Value(Value)> make) {
  SmallVector<Value> factors;
  flattenProduct(root.getResult(), factors);
  for (Value x : SmallVector<Value>(factors)) {
    if (!isFloatTensor(x) || x.getType() != root.getType())
      continue;
    SmallVector<Value> others(factors);
    takeFactor(others, [&](Value f) { return f == x; });
    if (rest(x, others) && others.empty()) {
      Location loc = subgraphLoc(root, x);
      Value replacement = make(x);
      replacement.getDefiningOp()->setLoc(loc);
      rewriter.replaceOp(root, replacement);
      return success();
    }
  }
  return rewriter.notifyMatchFailure(root, "not the product this pattern recognises");
}

// x * gate(x) ==> result(x) for gates `accepts` admits:
// x * sigmoid(x) ==> silu(x); x * hard_sigmoid(x, 1/6, 1/2) ==> hard_swish(x)
template <class Gate, class Result, bool (*accepts)(Gate)>
struct XTimesGate : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op, PatternRewriter &rewriter) const override {
    return rewriteProductOfX(
        op, rewriter,
        [](Value x, SmallVectorImpl<Value> &others) {
          return takeFactor(others, [&](Value f) {
            auto g = f.getDefiningOp<Gate>();
            return g && g.getInput() == x && accepts(g);
          });
        },
        [&](Value x) { return rewriter.create<Result>(op.getLoc(), x).getResult(); });
  }
};

bool anySigmoid(SigmoidOp) { return true; }
bool isHardSwishGate(HardSigmoidOp h) {
  return std::fabs(h.getAlpha().convertToDouble() - 1.0 / 6) < 1e-6 &&
         std::fabs(h.getBeta().convertToDouble() - 0.5) < 1e-6;
}
using Silu = XTimesGate<SigmoidOp, SiluOp, anySigmoid>;
using HardSwish = XTimesGate<HardSigmoidOp, HardSwishOp, isHardSwishGate>;

// x * 0.5 * (1 + f) ==> result(x), factors in any order, for the f that
// `isInner(f, x)` recognises: both GELU forms.
template <class Result, bool (*isInner)(Value, Value)>
struct HalfXTimesOnePlus : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op, PatternRewriter &rewriter) const override {
    return rewriteProductOfX(
        op, rewriter,
        [](Value x, SmallVectorImpl<Value> &others) {
          return takeFactor(others, [](Value f) { return isSplat(f, 0.5); }) &&
                 takeFactor(others, [&](Value f) {
                   Value inner = plusOne(f);
                   return inner && isInner(inner, x);
                 });
        },
        [&](Value x) { return rewriter.create<Result>(op.getLoc(), x).getResult(); });
  }
};

// erf(x / sqrt 2)
bool isErfGeluInner(Value f, Value x) {
  auto erf = f.getDefiningOp<ErfOp>();
  return erf && unscaled(erf.getInput(), kInvSqrt2) == x;
}

// tanh(sqrt(2/pi) * (x + 0.044715 x^3))
bool isTanhGeluInner(Value f, Value x) {
  auto tanh = f.getDefiningOp<TanhOp>();
  Value inner = tanh ? unscaled(tanh.getInput(), kSqrt2OverPi) : Value();
  auto sum = inner ? inner.getDefiningOp<AddOp>() : AddOp();
  Value other = sum ? otherOperand(sum, x) : Value();
  Value cube = other ? unscaled(other, 0.044715) : Value();
  return cube && isCube(cube, x);
}

using GeluErf = HalfXTimesOnePlus<GeluOp, isErfGeluInner>;
using GeluTanh = HalfXTimesOnePlus<GeluTanhOp, isTanhGeluInner>;

// clip(x + b, 0, m) * s with m * s == 1 ==> hard_sigmoid(x, alpha = s, beta = b * s)
// (torch's relu6(x + 3) / 6 is the case b = 3, m = 6, s = 1/6)
struct HardSigmoidFromClip : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op, PatternRewriter &rewriter) const override {
    for (int side = 0; side < 2; ++side) {
      auto clip = op->getOperand(side).getDefiningOp<ClipOp>();
      std::optional<double> s = splatConstant(op->getOperand(1 - side));
      if (!clip || !s || !clip->hasOneUse() || clip.getMin().convertToDouble() != 0.0)
        continue;
      double m = clip.getMax().convertToDouble();
      if (std::fabs(m * *s - 1.0) > 1e-6)
        continue;
      auto add = clip.getInput().getDefiningOp<AddOp>();
      std::optional<double> b = add ? splatConstant(add.getRhs()) : std::nullopt;
      if (!b || add.getLhs().getType() != op.getType() || !isFloatTensor(add.getLhs()))
        continue;
      Location loc = subgraphLoc(op, add.getLhs());
      rewriter.replaceOpWithNewOp<HardSigmoidOp>(op, add.getLhs(),
                                                 rewriter.getF32FloatAttr((float)*s),
                                                 rewriter.getF32FloatAttr((float)(*b * *s)))
          ->setLoc(loc);
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not clip(x + b, 0, 1/s) * s");
  }
};

} // namespace

void populateActivationDeclutter(RewritePatternSet &patterns) {
  patterns.add<Silu, GeluErf, GeluTanh, HardSigmoidFromClip, HardSwish>(patterns.getContext());
}

} // namespace mlir::tract
