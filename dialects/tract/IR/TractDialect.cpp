//===- TractDialect.cpp - tract dialect registration ------------------------===//
#include "dialects/tract/IR/TractDialect.h"
#include "dialects/tract/IR/TractOps.h"

using namespace mlir;
using namespace mlir::tract;

#include "dialects/tract/IR/TractDialect.cpp.inc"

void TractDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tract/IR/TractOps.cpp.inc"
      >();
}

Operation *TractDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                             Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstOp>(loc, type, elements);
}
