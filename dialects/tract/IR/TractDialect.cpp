//===- TractDialect.cpp - tract dialect registration ------------------------===//
#include "dialects/tract/IR/TractDialect.h"
#include "dialects/tract/IR/TractOps.h"

using namespace mlir;
using namespace mlir::tract;

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include "dialects/tract/IR/TractDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/tract/IR/TractTypes.cpp.inc"

LogicalResult StringType::verify(function_ref<InFlightDiagnostic()> emitError, unsigned bytes) {
  // 2 is the least that holds one byte of text and its terminator.
  if (bytes < 2)
    return emitError() << "expected a string slot of at least 2 bytes, got " << bytes;
  return success();
}

void TractDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/tract/IR/TractTypes.cpp.inc"
      >();
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
