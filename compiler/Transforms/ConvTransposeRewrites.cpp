//===- ConvTransposeRewrites.cpp - transposed convs as convs plus an interleave -===//
//
// A transposed conv with stride s scatters each input pixel to s apart
// outputs; read from the output side, output u = Q*s + R (phase R in [0, s))
// collects x[Q - j] * w[R + j*s] for j = 0 .. J-1, J = ceil(k / s). Each phase
// is therefore an ordinary stride-1 conv over x with J taps, and all phases
// together are one conv with C_out * s^d output channels (channel oc*S + R,
// S = prod(s), phases row-major), whose output interleaved
//   [N, C_out*S, Q...] -> [N, C_out, s..., Q...] -> [N, C_out, Q1, s1, Q2, s2, ...]
// and cropped to the transposed conv's window is the result. The conv runs on
// the GEMM kernels the CPU target has for convs (and the GPU's), instead of a
// scatter loop. Taps past the kernel's end (k not a multiple of s) are zero
// weights: k = 3, s = 2 does 16 taps' work for 9 per output in 2-d.
//
// Before that, per-channel Mul/Add after a transposed conv (its bias written
// as an Add, a BatchNormalization) fold into its weights and bias, as they do
// for convs (ConvRewrites.cpp); the lowering waits while such a user remains.
//
// Left as they are: dilations other than 1, depthwise transposed convs (one
// input channel per group: as a conv they would have S output channels per
// group, which no fast conv kernel takes), non-constant or non-f32/f64
// weights, windows that crop more than a kernel's reach at the start, and
// strides so far beyond the kernel that the phase weights would be mostly
// zeros (over 4x the kernel's taps: k = 1, s = 2 in 3-d).
//
//===----------------------------------------------------------------------===//
#include "compiler/Transforms/DeclutterPatterns.h"
#include "compiler/Transforms/RewriteUtils.h"

namespace mlir::tract {
namespace {

// A per-channel Mul or Add after a transposed conv that folds into it.
std::optional<ConvThenPerChannel<ConvTransposeOp>> matchThenPerChannel(Operation *user) {
  if (!isa<MulOp, AddOp>(user))
    return std::nullopt;
  return matchConvThenPerChannel<ConvTransposeOp>(user);
}

// The bias as values (zeros when there is none); nullopt when it is not an
// f32/f64 constant.
std::optional<SmallVector<double>> biasValues(ConvTransposeOp conv) {
  if (!conv.getBias())
    return SmallVector<double>(conv.getType().getDimSize(1), 0.0);
  return floatConstant(conv.getBias());
}

ConvTransposeOp rebuild(PatternRewriter &rewriter, ConvTransposeOp conv, Value weight, Value bias,
                        Operation *absorbed) {
  return rewriter.create<ConvTransposeOp>(
      fusedLoc({conv, absorbed}), conv.getType(), conv.getInput(), weight, bias,
      conv.getStridesAttr(), conv.getDilationsAttr(), conv.getPadsAttr(),
      conv.getOutputPaddingAttr(), conv.getGroupAttr());
}

// conv_transpose(x, w, b) * a ==> conv_transpose(x, w * a, b * a)
// (w is [C_in, C_out/group, k...]: output channel g * C_out/group + o of
// group g = input channel / (C_in/group) is w's dim 1 within the group).
struct TransposedTimesPerChannel : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op, PatternRewriter &rewriter) const override {
    auto m = matchThenPerChannel(op);
    if (!m)
      return rewriter.notifyMatchFailure(op, "not conv_transpose * per-channel constant");
    ConvTransposeOp conv = m->conv;
    auto w = floatConstant(conv.getWeight());
    auto b = biasValues(conv);
    if (!w || !b)
      return rewriter.notifyMatchFailure(op, "weights or bias are not f32/f64 constants");
    RankedTensorType wt = tensorType(conv.getWeight());
    const int64_t cin = wt.getDimSize(0), coutG = wt.getDimSize(1);
    const int64_t cinG = cin / conv.getGroup(), taps = wt.getNumElements() / (cin * coutG);
    for (int64_t ic = 0; ic < cin; ++ic)
      for (int64_t o = 0; o < coutG; ++o)
        for (int64_t t = 0; t < taps; ++t)
          (*w)[(ic * coutG + o) * taps + t] *= m->perChannel[ic / cinG * coutG + o];
    Value weight = createFloatConstant(rewriter, conv.getLoc(), wt, *w);
    Value bias; // no bias stays none: zeros scale to zeros
    if (conv.getBias()) {
      for (size_t o = 0; o < b->size(); ++o)
        (*b)[o] *= m->perChannel[o];
      bias = createFloatConstant(rewriter, conv.getLoc(), tensorType(conv.getBias()), *b);
    }
    rewriter.replaceOp(op, rebuild(rewriter, conv, weight, bias, op).getResult());
    return success();
  }
};

// conv_transpose(x, w, b) + c ==> conv_transpose(x, w, b + c)
struct TransposedPlusPerChannel : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp op, PatternRewriter &rewriter) const override {
    auto m = matchThenPerChannel(op);
    if (!m)
      return rewriter.notifyMatchFailure(op, "not conv_transpose + per-channel constant");
    ConvTransposeOp conv = m->conv;
    auto b = biasValues(conv);
    if (!b)
      return rewriter.notifyMatchFailure(op, "bias is not a constant");
    for (size_t o = 0; o < b->size(); ++o)
      (*b)[o] += m->perChannel[o];
    auto biasType = RankedTensorType::get({(int64_t)b->size()}, conv.getType().getElementType());
    Value bias = createFloatConstant(rewriter, conv.getLoc(), biasType, *b);
    rewriter.replaceOp(op, rebuild(rewriter, conv, conv.getWeight(), bias, op).getResult());
    return success();
  }
};

// One spatial axis of the lowering.
struct PhaseAxis {
  int64_t s, k, taps;   // stride, kernel, J = ceil(k / s)
  int64_t padBegin;     // the conv's (J - 1 - floor(pad / s))
  int64_t padEnd;
  int64_t convOut;      // Q positions the conv computes
  int64_t cropBegin;    // where the transposed conv's window starts in Q*s + R
  int64_t out;          // the transposed conv's output size
};

// The axis, or nullopt when its window starts more than a kernel's reach
// into the uncropped output (the conv would need a negative begin pad).
std::optional<PhaseAxis> phaseAxis(int64_t in, int64_t out, int64_t s, int64_t k,
                                   int64_t pad) {
  PhaseAxis a{s, k, (k + s - 1) / s, 0, 0, 0, 0, out};
  // Output o is uncropped position u = o + pad; u = Q*s + R needs Q from
  // floor(pad / s) to floor((pad + out - 1) / s).
  const int64_t q0 = pad / s, qn = (pad + out - 1) / s - q0 + 1;
  a.padBegin = a.taps - 1 - q0;
  if (a.padBegin < 0)
    return std::nullopt;
  // Conv output size in + begin + end - J + 1 must reach qn; more is cropped.
  a.padEnd = std::max<int64_t>(0, qn - in - a.padBegin + a.taps - 1);
  a.convOut = in + a.padBegin + a.padEnd - a.taps + 1;
  a.cropBegin = pad - q0 * s;
  return a;
}

// conv_transpose ==> slice(reshape(transpose(reshape(conv(x, phase weights)))))
struct TransposedAsConv : OpRewritePattern<ConvTransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvTransposeOp op, PatternRewriter &rewriter) const override {
    auto xt = dyn_cast<RankedTensorType>(op.getInput().getType());
    RankedTensorType wt = tensorType(op.getWeight()), yt = op.getType();
    if (!xt || !xt.hasStaticShape() || !wt.hasStaticShape() || !yt.hasStaticShape() ||
        !op.getWeight().getDefiningOp<ConstOp>())
      return rewriter.notifyMatchFailure(op, "shapes not static or weights not constant");
    const int64_t spatial = xt.getRank() - 2;
    if (spatial < 1 || spatial > 3)
      return rewriter.notifyMatchFailure(op, "not 1, 2 or 3 spatial dims");
    if (llvm::any_of(op.getDilations(), [](int64_t d) { return d != 1; }))
      return rewriter.notifyMatchFailure(op, "dilated");
    const int64_t group = op.getGroup(), cin = wt.getDimSize(0), coutG = wt.getDimSize(1);
    const int64_t cinG = cin / group, cout = coutG * group;
    if (group > 1 && cinG < 2)
      return rewriter.notifyMatchFailure(op, "depthwise: one input channel per group");
    // Per-channel Mul/Add after it fold in first (see the file comment).
    if (op->hasOneUse() && matchThenPerChannel(*op->getUsers().begin()))
      return rewriter.notifyMatchFailure(op, "a per-channel affine op folds in first");
    SmallVector<PhaseAxis> axes;
    int64_t phases = 1, convTaps = 1, kernelTaps = 1;
    for (int64_t d = 0; d < spatial; ++d) {
      auto a = phaseAxis(xt.getDimSize(2 + d), yt.getDimSize(2 + d), op.getStrides()[d],
                         wt.getDimSize(2 + d), op.getPads()[d]);
      if (!a)
        return rewriter.notifyMatchFailure(op, "crops more than a kernel at the start");
      if (a->s > 64)
        return rewriter.notifyMatchFailure(op, "stride over 64");
      axes.push_back(*a);
      phases *= a->s;
      convTaps *= a->taps;
      kernelTaps *= a->k;
    }
    // Zero taps past the kernel's end cost work and weight bytes: at most 4x
    // the transposed conv's (k = 1, s = 2 in 2-d; a stride far beyond the
    // kernel would build a huge, nearly empty weight tensor).
    if (phases * convTaps > 4 * kernelTaps)
      return rewriter.notifyMatchFailure(op, "phase weights over 4x the kernel's taps");
    auto w = floatConstant(op.getWeight());
    std::optional<SmallVector<double>> b;
    if (op.getBias())
      b = floatConstant(op.getBias());
    if (!w || (op.getBias() && !b))
      return rewriter.notifyMatchFailure(op, "weights or bias are not f32/f64 constants");

    // Conv weights [C_out * S, C_in/group, J...]: channel oc*S + R, tap j of
    // the phase's conv reads x[Q - (J-1) + j], which the transposed conv
    // weighs with w[ic, o, R + (J-1-j) * s] (zero past the kernel).
    SmallVector<double> v(cout * phases * cinG * convTaps, 0.0);
    for (int64_t oc = 0; oc < cout; ++oc) {
      const int64_t g = oc / coutG, o = oc % coutG;
      for (int64_t r = 0; r < phases; ++r)
        for (int64_t icl = 0; icl < cinG; ++icl)
          for (int64_t j = 0; j < convTaps; ++j) {
            // Per axis, from the last: phase R_d and tap j_d -> kernel tap t_d.
            int64_t rr = r, jj = j, flat = 0, scale = 1;
            bool inside = true;
            for (int64_t d = spatial - 1; d >= 0; --d) {
              const PhaseAxis &a = axes[d];
              const int64_t t = rr % a.s + (a.taps - 1 - jj % a.taps) * a.s;
              inside = inside && t < a.k;
              flat += t * scale;
              scale *= a.k;
              rr /= a.s;
              jj /= a.taps;
            }
            if (inside)
              v[((oc * phases + r) * cinG + icl) * convTaps + j] =
                  (*w)[((g * cinG + icl) * coutG + o) * kernelTaps + flat];
          }
    }
    Type element = yt.getElementType();
    SmallVector<int64_t> vShape{cout * phases, cinG};
    SmallVector<int64_t> ones(spatial, 1), convPads(2 * spatial);
    for (int64_t d = 0; d < spatial; ++d) {
      vShape.push_back(axes[d].taps);
      convPads[d] = axes[d].padBegin;
      convPads[spatial + d] = axes[d].padEnd;
    }
    Location loc = op.getLoc();
    Value weight = createFloatConstant(rewriter, loc, RankedTensorType::get(vShape, element), v);
    Value bias;
    if (b) {
      SmallVector<double> repeated;
      for (double value : *b)
        repeated.append(phases, value);
      bias = createFloatConstant(rewriter, loc, RankedTensorType::get({cout * phases}, element),
                                 repeated);
    }
    Value y = rewriter.create<ConvOp>(loc, op.getInput(), weight, bias,
                                      rewriter.getDenseI64ArrayAttr(ones),
                                      rewriter.getDenseI64ArrayAttr(ones),
                                      rewriter.getDenseI64ArrayAttr(convPads), op.getGroupAttr());
    const int64_t n = xt.getDimSize(0);
    if (phases > 1) {
      // [N, C_out*S, Q...] -> [N, C_out, s..., Q...] -> [N, C_out, Q1, s1, ...]
      SmallVector<int64_t> split{n, cout}, perm{0, 1}, merged{n, cout};
      for (const PhaseAxis &a : axes)
        split.push_back(a.s);
      for (int64_t d = 0; d < spatial; ++d) {
        split.push_back(axes[d].convOut);
        perm.append({2 + spatial + d, 2 + d});
        merged.push_back(axes[d].convOut * axes[d].s);
      }
      y = rewriter.create<ReshapeOp>(loc, RankedTensorType::get(split, element), y);
      y = rewriter.create<TransposeOp>(loc, y, rewriter.getDenseI64ArrayAttr(perm));
      y = rewriter.create<ReshapeOp>(loc, RankedTensorType::get(merged, element), y);
    }
    SmallVector<int64_t> starts{0, 0}, limits{n, cout}, steps(2 + spatial, 1);
    bool crops = false;
    for (const PhaseAxis &a : axes) {
      starts.push_back(a.cropBegin);
      limits.push_back(a.cropBegin + a.out);
      crops = crops || a.cropBegin != 0 || a.out != a.convOut * a.s;
    }
    if (crops)
      y = rewriter.create<SliceOp>(loc, y, rewriter.getDenseI64ArrayAttr(starts),
                                   rewriter.getDenseI64ArrayAttr(limits),
                                   rewriter.getDenseI64ArrayAttr(steps));
    rewriter.replaceOp(op, y);
    return success();
  }
};

} // namespace

void populateConvTransposeDeclutter(RewritePatternSet &patterns) {
  patterns.add<TransposedTimesPerChannel, TransposedPlusPerChannel, TransposedAsConv>(
      patterns.getContext());
}

} // namespace mlir::tract
