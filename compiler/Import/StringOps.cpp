//===- StringOps.cpp - StringNormalizer -------------------------------------===//
//
// String tensors are fixed slots (`!tract.string<N>`, N = kStringSlotBytes
// in compiler/Support/ElementsData.h); Cast to and from them is in
// TensorOps.cpp. StringNormalizer drops stopwords, so its length is known
// only at run time: the static length is the one the model declares, or the
// input's (an upper bound), and the slots past the run-time count hold empty
// strings.
//
//===----------------------------------------------------------------------===//
#include "compiler/Import/NodeContext.h"

using namespace mlir;
using namespace mlir::tract;

namespace {

LogicalResult convertStringNormalizer(NodeContext &c) {
  RankedTensorType in = c.inputType(0);
  if (!isa<StringType>(in.getElementType()))
    return c.fail("expected a string input");
  if (!(in.getRank() == 1 || (in.getRank() == 2 && in.getDimSize(0) == 1)))
    return c.fail("expected an input of shape [C] or [1, C]");
  std::string change = c.attrString("case_change_action", "NONE");
  if (change != "LOWER" && change != "UPPER" && change != "NONE")
    return c.fail("expected case_change_action LOWER, UPPER or NONE, got '" + change + "'");

  int64_t bound = std::max<int64_t>(in.getNumElements(), 1);
  SmallVector<int64_t> shape(in.getShape());
  shape.back() = bound;
  if (RankedTensorType declared = c.declaredOutputType(0);
      declared && declared.getRank() == in.getRank() && declared.getShape().back() >= 1)
    shape.back() = declared.getShape().back();

  Builder &b = c.builder();
  SmallVector<Attribute> stopwords;
  for (const std::string &w : c.attrStrings("stopwords"))
    stopwords.push_back(b.getStringAttr(w));
  c.setOutput(0, c.makeTyped<StringNormalizerOp>(
                     RankedTensorType::get(shape, in.getElementType()), c.input(0),
                     b.getStringAttr(change), b.getBoolAttr(c.attrInt("is_case_sensitive", 0) != 0),
                     b.getArrayAttr(stopwords)));
  return success();
}

} // namespace

void mlir::tract::registerStringConverters(ConverterTable &t) {
  t.add("StringNormalizer", 10, convertStringNormalizer);
}
