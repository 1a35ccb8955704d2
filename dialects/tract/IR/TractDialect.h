//===- TractDialect.h - tract dialect declaration -----------------*- C++ -*-===//
#ifndef TRACT_IR_TRACTDIALECT_H
#define TRACT_IR_TRACTDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/tract/IR/TractDialect.h.inc"

#include "mlir/IR/BuiltinTypes.h"

#define GET_TYPEDEF_CLASSES
#include "dialects/tract/IR/TractTypes.h.inc"

#endif // TRACT_IR_TRACTDIALECT_H
