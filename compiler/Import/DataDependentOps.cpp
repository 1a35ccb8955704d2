//===- DataDependentOps.cpp - NonZero, Compress, Unique; DFT and STFT -----------===//
//
// NonZero, Compress and Unique produce as many elements as the data asks
// for. The static size is the one the model declares when it does (exact),
// otherwise the upper bound; slots past the run-time count are padded
// (rt::kPaddingIndex for indices: a Gather through it reads zeros, a Scatter
// writes nothing; zeros for values). Never a heap allocation.
//
//===----------------------------------------------------------------------===//
#include "compiler/Import/NodeContext.h"

using namespace mlir;
using namespace mlir::tract;

namespace {

// Dim `d` of output i as the model declares it, or `fallback`.
int64_t declaredDim(NodeContext &c, size_t i, int64_t rank, int64_t d, int64_t fallback) {
  RankedTensorType t = c.declaredOutputType(i);
  return t && t.getRank() == rank ? t.getDimSize(d) : fallback;
}

LogicalResult convertNonZero(NodeContext &c) {
  auto xt = c.inputType(0);
  if (xt.getRank() == 0)
    return c.unsupported("NonZero of a scalar");
  int64_t count = declaredDim(c, 0, 2, 1, xt.getNumElements());
  auto type = RankedTensorType::get({xt.getRank(), count}, c.builder().getI64Type());
  c.setOutput(0, c.makeTyped<NonZeroOp>(type, c.input(0)));
  return success();
}

// Compress and Unique work along `axis`, or on the flattened input without it.
FailureOr<std::pair<Value, int64_t>> alongAxisOrFlat(NodeContext &c) {
  auto xt = c.inputType(0);
  if (!c.hasAttr("axis"))
    return std::make_pair(c.reshape(c.input(0), {xt.getNumElements()}), int64_t(0));
  auto a = normalizeAxis(c.attrInt("axis", 0), xt.getRank());
  if (failed(a)) {
    (void)c.fail("expected an axis in range");
    return failure();
  }
  return std::make_pair(c.input(0), *a);
}

LogicalResult convertCompress(NodeContext &c) {
  auto xt = c.inputType(0);
  auto along = alongAxisOrFlat(c);
  if (failed(along))
    return failure();
  auto [x, axis] = *along;
  auto flat = cast<RankedTensorType>(x.getType());
  int64_t bound = std::min(flat.getDimSize(axis), c.inputType(1).getNumElements());
  SmallVector<int64_t> shape(flat.getShape());
  shape[axis] = declaredDim(c, 0, flat.getRank(), axis, bound);
  c.setOutput(0, c.makeTyped<CompressOp>(RankedTensorType::get(shape, xt.getElementType()), x,
                                         c.input(1), axis));
  return success();
}

LogicalResult convertUnique(NodeContext &c) {
  auto xt = c.inputType(0);
  auto along = alongAxisOrFlat(c);
  if (failed(along))
    return failure();
  auto [x, axis] = *along;
  auto flat = cast<RankedTensorType>(x.getType());
  int64_t len = flat.getDimSize(axis);
  int64_t count = declaredDim(c, 0, flat.getRank(), axis, len);
  if (count == len)
    count = declaredDim(c, 1, 1, 0, len);
  SmallVector<int64_t> shape(flat.getShape());
  shape[axis] = count;
  Type i64 = c.builder().getI64Type();
  auto op = c.builder().create<UniqueOp>(
      c.loc, RankedTensorType::get(shape, xt.getElementType()), RankedTensorType::get({count}, i64),
      RankedTensorType::get({len}, i64), RankedTensorType::get({count}, i64), x, axis,
      c.attrInt("sorted", 1) != 0);
  for (size_t i = 0; i < 4; ++i)
    c.setOutput(i, op->getResult(i));
  return success();
}

LogicalResult convertDft(NodeContext &c) {
  auto xt = c.inputType(0);
  if (xt.getRank() < 3 || (xt.getShape().back() != 1 && xt.getShape().back() != 2))
    return c.fail("expected [batch, signal..., 1 or 2]");
  auto axis = normalizeAxis(c.attrInt("axis", 1), xt.getRank() - 1);
  if (failed(axis) || *axis == 0)
    return c.fail("expected a signal axis in [1, rank - 1)");
  bool onesided = c.attrInt("onesided", 0) != 0, inverse = c.attrInt("inverse", 0) != 0;
  int64_t length = xt.getDimSize(*axis);
  if (c.hasInput(1)) {
    auto l = c.constInts(1);
    if (l && l->size() == 1)
      length = (*l)[0];
    else if (RankedTensorType d = c.declaredOutputType(0); d && !onesided && d.getRank() == xt.getRank())
      length = d.getDimSize(*axis);
    else
      return c.unsupported("a DFT length computed at run time");
  }
  if (length < 1)
    return c.fail("expected a positive DFT length");
  SmallVector<int64_t> shape(xt.getShape());
  shape[*axis] = onesided ? length / 2 + 1 : length;
  shape.back() = 2;
  c.setOutput(0, c.makeTyped<DftOp>(RankedTensorType::get(shape, xt.getElementType()), c.input(0),
                                    *axis, length, inverse, onesided));
  return success();
}

LogicalResult convertStft(NodeContext &c) {
  auto st = c.inputType(0);
  if (st.getRank() != 3 || (st.getShape().back() != 1 && st.getShape().back() != 2))
    return c.fail("expected a signal of shape [batch, length, 1 or 2]");
  auto step = c.constInts(1);
  Value runtimeStep;
  RankedTensorType declared = c.declaredOutputType(0);
  if (!step && declared && declared.getRank() == 4 && c.inputType(1).getNumElements() == 1) {
    runtimeStep = c.cast(c.input(1), c.builder().getI64Type());
    step = SmallVector<int64_t>{1}; // placeholder; frames come from the declared shape
  }
  if (!step || step->size() != 1 || (*step)[0] < 1)
    return c.unsupported("an STFT frame_step computed at run time");
  int64_t frameLength = -1;
  bool onesidedAttr = c.attrInt("onesided", 1) != 0;
  Value runtimeLength;
  if (c.hasInput(3)) {
    auto l = c.constInts(3);
    if (l && l->size() == 1) {
      frameLength = (*l)[0];
    } else if (declared && declared.getRank() == 4 && c.inputType(3).getNumElements() == 1) {
      // The static length implied by the declared bins; the kernel reads the real one.
      int64_t bins = declared.getDimSize(2);
      frameLength = onesidedAttr ? 2 * (bins - 1) : bins;
      runtimeLength = c.cast(c.input(3), c.builder().getI64Type());
    } else {
      return c.unsupported("an STFT frame_length computed at run time");
    }
  } else if (c.hasInput(2)) {
    frameLength = c.inputType(2).getNumElements();
  }
  if (frameLength < 1 || frameLength > st.getDimSize(1))
    return c.fail("expected a frame length in [1, signal length]");
  bool onesided = c.attrInt("onesided", 1) != 0;
  int64_t frames = runtimeStep || runtimeLength ? declared.getDimSize(1)
                               : (st.getDimSize(1) - frameLength) / (*step)[0] + 1;
  auto type = RankedTensorType::get(
      {st.getDimSize(0), frames, onesided ? frameLength / 2 + 1 : frameLength, 2},
      st.getElementType());
  Value window = c.hasInput(2) ? c.cast(c.input(2), st.getElementType()) : Value();
  c.setOutput(0, c.makeTyped<StftOp>(type, c.input(0), window, runtimeStep, runtimeLength,
                                     (*step)[0], frameLength, onesided));
  return success();
}

LogicalResult convertTfIdf(NodeContext &c) {
  auto xt = c.inputType(0);
  if (xt.getRank() < 1 || xt.getRank() > 2)
    return c.fail("expected a 1-D or 2-D input");
  if (!xt.getElementType().isInteger(32) && !xt.getElementType().isInteger(64))
    return c.unsupported("TfIdfVectorizer on strings");
  SmallVector<int64_t> pool = c.attrInts("pool_int64s"), counts = c.attrInts("ngram_counts"),
                       indexes = c.attrInts("ngram_indexes");
  SmallVector<float> weights = c.attrFloats("weights");
  std::string mode = c.attrString("mode", "TF");
  int64_t modeId = mode == "TF" ? 0 : mode == "IDF" ? 1 : mode == "TFIDF" ? 2 : -1;
  if (modeId < 0)
    return c.fail("expected mode TF, IDF or TFIDF, got '" + mode + "'");
  if (pool.empty() || counts.empty() || indexes.empty())
    return c.fail("expected pool_int64s, ngram_counts and ngram_indexes");
  int64_t features = 0;
  for (int64_t i : indexes)
    features = std::max(features, i + 1);
  SmallVector<int64_t> shape;
  if (xt.getRank() == 2)
    shape.push_back(xt.getDimSize(0));
  shape.push_back(features);
  auto &b = c.builder();
  c.setOutput(0, c.makeTyped<TfIdfOp>(
                     RankedTensorType::get(shape, b.getF32Type()), c.input(0),
                     b.getI64IntegerAttr(c.attrInt("min_gram_length", 1)),
                     b.getI64IntegerAttr(c.attrInt("max_gram_length", 1)),
                     b.getI64IntegerAttr(c.attrInt("max_skip_count", 0)),
                     b.getI64IntegerAttr(modeId), b.getDenseI64ArrayAttr(pool),
                     b.getDenseI64ArrayAttr(counts), b.getDenseI64ArrayAttr(indexes),
                     b.getDenseF32ArrayAttr(weights)));
  return success();
}

// MelWeightMatrix: its shape [dft_length/2 + 1, num_mel_bins] from constants
// or the declared result; its values computed at run time.
LogicalResult convertMelWeightMatrix(NodeContext &c) {
  int64_t rows = -1, cols = -1;
  auto mel = c.constInts(0), dft = c.constInts(1);
  if (mel && dft && mel->size() == 1 && dft->size() == 1) {
    cols = (*mel)[0];
    rows = (*dft)[0] / 2 + 1;
  } else if (RankedTensorType d = c.declaredOutputType(0); d && d.getRank() == 2) {
    rows = d.getDimSize(0);
    cols = d.getDimSize(1);
  }
  if (rows < 0 || cols < 0)
    return c.unsupported("a MelWeightMatrix shape computed at run time");
  for (size_t i = 0; i < 5; ++i)
    if (c.inputType(i).getNumElements() != 1)
      return c.fail("expected scalar inputs");
  Type element = elementTypeFor(c.context(), (int32_t)c.attrInt("output_datatype", ::tract::onnx::kFloat));
  if (!element)
    return c.unsupported("a MelWeightMatrix output type");
  c.setOutput(0, c.makeTyped<MelWeightMatrixOp>(RankedTensorType::get({rows, cols}, element),
                                                c.input(0), c.input(1), c.input(2), c.input(3),
                                                c.input(4)));
  return success();
}

} // namespace

void mlir::tract::registerDataDependentConverters(ConverterTable &t) {
  t.add("NonZero", 9, convertNonZero);
  t.add("Compress", 9, convertCompress, 2);
  t.add("Unique", 11, convertUnique);
  t.add("DFT", 17, convertDft);
  t.add("STFT", 17, convertStft, 2);
  t.add("TfIdfVectorizer", 9, convertTfIdf);
  t.add("MelWeightMatrix", 17, convertMelWeightMatrix, 5);
}
