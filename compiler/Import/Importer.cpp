//===- Importer.cpp - ONNX model -> tract dialect -----------------------------===//
//
// Walks the (topologically sorted) ONNX graph once. Each node goes through its
// converter; afterwards the new ops are verified and, when every operand is a
// compile-time constant, evaluated on the host (HostEval.cpp) so that shape
// subgraphs (Shape -> Gather -> Concat -> Reshape) vanish at import time.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/Importer.h"

#include "compiler/Import/FixedInputs.h"
#include "compiler/Import/HostEval.h"
#include "compiler/Support/ElementsData.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"

#include <functional>
#include <optional>
#include <set>

using namespace mlir;
using namespace mlir::tract;
namespace onnx = ::tract::onnx;

Location mlir::tract::nodeLocation(MLIRContext *ctx, StringRef nodeName,
                                   StringRef opType) {
  return NameLoc::get(StringAttr::get(ctx, nodeName),
                      NameLoc::get(StringAttr::get(ctx, opType)));
}

SmallVector<std::pair<std::string, std::string>>
mlir::tract::nodesOfLocation(Location loc) {
  SmallVector<std::pair<std::string, std::string>> out;
  loc->walk([&](Location l) {
    if (auto name = dyn_cast<NameLoc>(l))
      if (auto op = dyn_cast<NameLoc>(name.getChildLoc()))
        out.push_back({name.getName().str(), op.getName().str()});
    return WalkResult::advance();
  });
  return out;
}

Importer::Importer(MLIRContext &context, const onnx::Model &model)
    : builder(&context), opset(model.opset), context(context), model(model) {
  registerAllConverters(converters);
}

void mlir::tract::registerAllConverters(ConverterTable &table) {
  registerMathConverters(table);
  registerNNConverters(table);
  registerTensorConverters(table);
  registerReduceConverters(table);
  registerLossConverters(table);
  registerIndexingConverters(table);
  registerGeneratorConverters(table);
  registerResizeConverters(table);
  registerQuantConverters(table);
  registerDetectionConverters(table);
  registerRecurrentConverters(table);
  registerTrainingConverters(table);
  registerEinsumConverters(table);
  registerSequenceConverters(table);
  registerDataDependentConverters(table);
  registerControlFlowConverters(table);
  registerStringConverters(table);
}

std::vector<std::pair<std::string, int64_t>> mlir::tract::supportedOnnxOps() {
  ConverterTable table;
  registerAllConverters(table);
  return table.entries();
}

GraphValue *Importer::lookup(const std::string &name) {
  auto it = values.find(name);
  return it == values.end() ? nullptr : &it->second;
}

RankedTensorType Importer::declaredType(const std::string &name) {
  auto find = [&](const std::vector<onnx::ValueInfo> &list) -> const onnx::ValueInfo * {
    for (const onnx::ValueInfo &v : list)
      if (v.name == name)
        return &v;
    return nullptr;
  };
  const onnx::ValueInfo *info = find(model.outputs);
  if (!info)
    info = find(model.valueInfos);
  if (!info || !info->hasShape)
    return RankedTensorType();
  SmallVector<int64_t> shape;
  for (const onnx::Dim &d : info->dims) {
    if (d.value < 0)
      return RankedTensorType();
    shape.push_back(d.value);
  }
  Type element = elementTypeFor(&context, info->elemType, /*allowString=*/true);
  return element ? RankedTensorType::get(shape, element) : RankedTensorType();
}

void Importer::bind(const std::string &name, GraphValue v) {
  if (v.value && v.constant)
    constants[v.value] = v.constant;
  // A converter that passes a known value through (a Cast to its own type,
  // a Reshape to its own shape) binds the SSA value alone: its contents stay
  // known, so what reads it still folds (Silero VAD's STFT pads).
  if (v.value && !v.constant)
    if (auto it = constants.find(v.value); it != constants.end())
      v.constant = it->second;
  values[name] = std::move(v);
}

Value Importer::materialize(GraphValue &v, const std::string &name) {
  if (!v.value && v.constant) {
    auto type = RankedTensorType::get(v.constant->dims,
                                      elementTypeFor(&context, v.constant->dataType));
    v.value = builder.create<ConstOp>(builder.getUnknownLoc(), type,
                                      makeElementsAttr(type, v.constant->bytes, name));
    constants[v.value] = v.constant;
  }
  return v.value;
}

// Ops of the default domain are keyed by op type, others by "domain.type".
static std::string converterKey(const onnx::Node &node) {
  if (node.domain.empty() || node.domain == "ai.onnx")
    return node.opType;
  return node.domain + "." + node.opType;
}

// Every unsupported node is reported in one error, before any conversion.
LogicalResult Importer::checkSupported() {
  std::string list;
  std::set<std::string> types;
  // Every node, subgraph bodies included.
  std::vector<const onnx::Node *> nodes;
  std::function<void(const std::vector<onnx::Node> &)> collect = [&](const std::vector<onnx::Node> &ns) {
    for (const onnx::Node &n : ns) {
      nodes.push_back(&n);
      for (const onnx::Attribute &a : n.attributes)
        if (a.g)
          collect(a.g->nodes);
    }
  };
  collect(model.nodes);
  for (const onnx::Node *nodePtr : nodes) {
    const onnx::Node &node = *nodePtr;
    std::string type = converterKey(node);
    if (converters.lookup(type, opset))
      continue;
    list += "\n  node '" + node.name + "' (" + type + ")";
    types.insert(type);
  }
  if (list.empty())
    return success();
  unsupported = true;
  std::string summary;
  for (const std::string &t : types)
    summary += (summary.empty() ? "" : ", ") + t;
  emitError(builder.getUnknownLoc())
      << "unsupported op types at opset " << opset << ": " << summary << list;
  return failure();
}

LogicalResult Importer::createFunction(const ImportOptions &options) {
  std::set<std::string> initializerNames;
  for (const onnx::Tensor &t : model.initializers) {
    initializerNames.insert(t.name);
    if (!elementTypeFor(&context, t.dataType)) {
      unsupported = true;
      return emitError(builder.getUnknownLoc())
             << "initializer '" << t.name << "' has unsupported data type "
             << onnx::dataTypeName(t.dataType);
    }
    bind(t.name, {Value(), std::make_shared<const HostTensor>(t)});
  }
  std::set<std::string> inputNames;
  SmallVector<Type> argTypes;
  SmallVector<const onnx::ValueInfo *> args;
  SmallVector<Attribute> fixed;
  for (const onnx::ValueInfo &in : model.inputs) {
    inputNames.insert(in.name);
    if (auto value = options.inputValues.find(in.name); value != options.inputValues.end()) {
      auto pinned = options.inputShapes.find(in.name);
      FailureOr<HostTensor> t =
          fixedInputTensor(in, value->second,
                           pinned == options.inputShapes.end() ? nullptr : &pinned->second,
                           builder.getUnknownLoc());
      if (failed(t))
        return failure();
      auto type = RankedTensorType::get(t->dims, elementTypeFor(&context, t->dataType));
      fixed.push_back(builder.getDictionaryAttr(
          {builder.getNamedAttr("name", builder.getStringAttr(in.name)),
           builder.getNamedAttr("value", makeElementsAttr(type, t->bytes, in.name))}));
      // It replaces the initializer a default-valued input may have.
      bind(in.name, {Value(), std::make_shared<const HostTensor>(std::move(*t))});
      continue;
    }
    if (initializerNames.count(in.name))
      continue; // an input with a default: treated as the constant
    Type element = elementTypeFor(&context, in.elemType, /*allowString=*/true);
    if (!element) {
      unsupported = true;
      return emitError(builder.getUnknownLoc())
             << "input '" << in.name << "' has unsupported data type "
             << onnx::dataTypeName(in.elemType);
    }
    SmallVector<int64_t> shape;
    auto pinned = options.inputShapes.find(in.name);
    if (pinned != options.inputShapes.end()) {
      if (in.hasShape && in.dims.size() != pinned->second.size())
        return emitError(builder.getUnknownLoc())
               << "--input-shape " << in.name << " has rank "
               << pinned->second.size() << ", but the model declares rank "
               << in.dims.size();
      for (size_t i = 0; i < pinned->second.size(); ++i) {
        int64_t d = pinned->second[i];
        if (in.hasShape && in.dims[i].value >= 0 && in.dims[i].value != d)
          return emitError(builder.getUnknownLoc())
                 << "--input-shape " << in.name << ": dim " << i << " is "
                 << in.dims[i].value << " in the model, got " << d;
        shape.push_back(d);
      }
    } else {
      if (!in.hasShape)
        return emitError(builder.getUnknownLoc())
               << "input '" << in.name
               << "' has no shape in the model; pin it with --input-shape "
               << in.name << "=D0,D1,...";
      for (size_t i = 0; i < in.dims.size(); ++i) {
        if (in.dims[i].value < 0)
          return emitError(builder.getUnknownLoc())
                 << "input '" << in.name << "' has an unknown dim " << i
                 << (in.dims[i].param.empty() ? "" : " ('" + in.dims[i].param + "')")
                 << "; pin it with --input-shape " << in.name << "=D0,D1,...";
        shape.push_back(in.dims[i].value);
      }
    }
    auto argType = RankedTensorType::get(shape, element);
    if (failed(checkTensorType(argType, builder.getUnknownLoc())))
      return failure();
    argTypes.push_back(argType);
    args.push_back(&in);
  }
  for (const auto &[name, shape] : options.inputShapes)
    if (!inputNames.count(name) || initializerNames.count(name))
      return emitError(builder.getUnknownLoc())
             << "--input-shape names '" << name << "', which is not a model input";
  for (const auto &[name, values] : options.inputValues)
    if (!inputNames.count(name))
      return emitError(builder.getUnknownLoc())
             << "--input-value names '" << name << "', which is not a model input";

  module = ModuleOp::create(builder.getUnknownLoc());
  if (!fixed.empty())
    module->getOperation()->setAttr("tract.fixed_inputs", builder.getArrayAttr(fixed));
  builder.setInsertionPointToEnd(module->getBody());
  func = builder.create<func::FuncOp>(builder.getUnknownLoc(), "main",
                                      builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  for (auto [i, in] : llvm::enumerate(args)) {
    bind(in->name, {entry->getArgument(i), nullptr});
    func.setArgAttr(i, "tract.name", builder.getStringAttr(in->name));
  }
  builder.setInsertionPointToEnd(entry);
  return success();
}

// The runtime's N-d kernels handle rank <= 8, and sizes must stay far from
// int64 overflow so every later product of dims is exact.
LogicalResult mlir::tract::checkTensorType(RankedTensorType type, Location loc) {
  if (type.getRank() > kMaxTensorRank)
    return emitError(loc) << "unsupported: a tensor of rank " << type.getRank()
                          << " (at most " << kMaxTensorRank << ")";
  if (failed(checkedNumElements(type.getShape())))
    return emitError(loc) << "expected a tensor of at most 2^" << kMaxElementsLog2
                          << " elements with non-negative dims, got " << type;
  return success();
}

FailureOr<int64_t> mlir::tract::checkedNumElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && n > (int64_t(1) << kMaxElementsLog2) / d))
      return failure();
    n *= d;
  }
  return n;
}

// An op that makes a non-empty result from an empty tensor reduces or
// contracts over an empty axis (or indexes into nothing): its operand 0, or
// either operand of a product. Padding and scatters keep their data input.
static bool reducesEmpty(Operation *op) {
  auto empty = [](Value v) { return cast<RankedTensorType>(v.getType()).getNumElements() == 0; };
  if (isa<ConstOp, ScatterElementsOp, ScatterNdOp, ConcatOp>(op) || op->getNumOperands() == 0 ||
      llvm::all_of(op->getResultTypes(),
                   [](Type t) { return cast<RankedTensorType>(t).getNumElements() == 0; }))
    return false;
  if (auto pad = dyn_cast<PadOp>(op))
    return pad.getMode() != "constant" && empty(op->getOperand(0));
  if (isa<MatMulOp, ConvOp, ConvTransposeOp>(op))
    return empty(op->getOperand(0)) || empty(op->getOperand(1));
  return empty(op->getOperand(0));
}

// Tensors with no elements: a result with none becomes an empty constant, so
// no kernel runs on it (tiling, packing and loops divide by dims); an op that
// would make a non-empty result from an empty operand is refused.
LogicalResult Importer::replaceEmptyResults(SmallVectorImpl<Operation *> &created,
                                            const onnx::Node &node) {
  SmallVector<Operation *> kept;
  for (Operation *op : created) {
    if (reducesEmpty(op)) {
      unsupported = true;
      Value empty = *llvm::find_if(op->getOperands(), [](Value v) {
        return cast<RankedTensorType>(v.getType()).getNumElements() == 0;
      });
      return emitError(op->getLoc())
             << "unsupported: " << op->getName() << " over an empty tensor (of type "
             << empty.getType() << ")";
    }
    if (isa<ConstOp>(op)) {
      kept.push_back(op);
      continue;
    }
    builder.setInsertionPointAfter(op);
    for (OpResult r : op->getResults()) {
      auto type = cast<RankedTensorType>(r.getType());
      if (type.getNumElements() != 0)
        continue;
      auto contents = std::make_shared<HostTensor>();
      contents->dataType = onnxTypeFor(type.getElementType());
      contents->dims.assign(type.getShape().begin(), type.getShape().end());
      Value empty = builder.create<ConstOp>(op->getLoc(), type,
                                            makeElementsAttr(type, "", "empty"));
      kept.push_back(empty.getDefiningOp());
      r.replaceAllUsesWith(empty);
      // Later nodes see its (lack of) contents, as they would a folded value's.
      for (const std::string &out : node.outputs)
        if (GraphValue *gv = lookup(out); gv && gv->value == r)
          *gv = {empty, contents};
    }
    kept.push_back(op); // (dead now, erased once the graph is imported)
  }
  created.assign(kept.begin(), kept.end());
  builder.setInsertionPointToEnd(&func.getBody().front());
  return success();
}

LogicalResult Importer::finishNode(Operation *lastBefore, const onnx::Node &node,
                                   Location loc) {
  Block *block = &func.getBody().front();
  Operation *first = lastBefore    ? lastBefore->getNextNode()
                     : block->empty() ? nullptr
                                      : &block->front();
  SmallVector<Operation *> created;
  for (Operation *op = first; op; op = op->getNextNode())
    created.push_back(op);
  for (Operation *op : created) {
    for (Type t : op->getResultTypes())
      if (failed(checkTensorType(cast<RankedTensorType>(t), op->getLoc())))
        return failure();
    if (failed(mlir::verify(op)))
      return failure();
  }
  if (failed(replaceEmptyResults(created, node)))
    return failure();

  // Fold ops whose operands are all known, in creation order.
  auto &known = constants;
  for (Operation *op : created) {
    if (auto c = dyn_cast<ConstOp>(op)) {
      if (!known.count(c.getResult())) {
        HostTensor t;
        t.dataType = onnxTypeFor(c.getType().getElementType());
        t.dims.assign(c.getType().getShape().begin(), c.getType().getShape().end());
        t.bytes = elementsBytes(c.getValue());
        known[c.getResult()] = std::make_shared<const HostTensor>(std::move(t));
      }
      continue;
    }
    SmallVector<const HostTensor *> operands;
    for (Value v : op->getOperands()) {
      auto it = known.find(v);
      if (it == known.end())
        break;
      operands.push_back(it->second.get());
    }
    if (operands.size() != op->getNumOperands())
      continue;
    std::optional<HostTensor> result = evaluateOnHost(op, operands);
    if (!result)
      continue;
    builder.setInsertionPoint(op);
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    auto shared = std::make_shared<const HostTensor>(std::move(*result));
    Value folded = builder.create<ConstOp>(
        op->getLoc(), type, makeElementsAttr(type, shared->bytes,
                                      node.outputs.empty() ? node.name : node.outputs[0]));
    known[folded] = shared;
    op->getResult(0).replaceAllUsesWith(folded);
    // The node's outputs bound to the folded value now carry its contents.
    for (const std::string &out : node.outputs)
      if (GraphValue *gv = lookup(out); gv && gv->value == op->getResult(0))
        *gv = {folded, shared};
    known.erase(op->getResult(0));
    op->erase();
  }
  builder.setInsertionPointToEnd(block);
  (void)loc;
  return success();
}

LogicalResult Importer::convertNode(const onnx::Node &node) {
  Location loc = nodeLocation(&context, node.name, node.opType);
  const ConverterTable::Entry *converter = converters.lookup(converterKey(node), opset);
  if (!converter) {
    unsupported = true;
    return emitError(loc) << "unsupported op type " << converterKey(node) << " at opset " << opset;
  }
  for (unsigned i = 0; i < converter->minInputs; ++i)
    if (i >= node.inputs.size() || node.inputs[i].empty())
      return emitError(loc) << "expected at least " << converter->minInputs
                            << " inputs, got " << node.inputs.size();
  static const std::set<std::string> takesSequences = {
      "SequenceAt", "SequenceInsert", "SequenceErase", "SequenceLength", "ConcatFromSequence",
      "Identity"};
  // String tensors travel only through ops whose kernels are written for
  // them (data movement copies slots; Cast prints and parses numbers).
  static const std::set<std::string> takesStrings = {
      "Cast", "CastLike", "StringNormalizer", "Identity", "Reshape", "Flatten",
      "Squeeze", "Unsqueeze", "Shape", "Size"};
  for (const std::string &in : node.inputs) {
    if (in.empty())
      continue;
    GraphValue *v = lookup(in);
    if (!v)
      return emitError(loc) << "input '" << in
                            << "' is not produced by any earlier node (the "
                               "graph is not topologically sorted or is malformed)";
    if (v->sequence && !takesSequences.count(node.opType)) {
      unsupported = true;
      return emitError(loc) << "unsupported: sequence input '" << in << "' to " << node.opType;
    }
    if (v->value && !takesStrings.count(node.opType) &&
        isa<StringType>(cast<RankedTensorType>(v->value.getType()).getElementType())) {
      unsupported = true;
      return emitError(loc) << "unsupported: string input '" << in << "' to " << node.opType
                            << " (strings pass through Cast, CastLike, StringNormalizer and "
                               "reshaping ops only)";
    }
  }
  Block *block = &func.getBody().front();
  Operation *lastBefore = block->empty() ? nullptr : &block->back();
  NodeContext ctx(*this, node, loc);
  LogicalResult converted = converter->fn(ctx);
  if (!ctx.attributeTypeError().empty())
    return emitError(loc) << ctx.attributeTypeError();
  if (failed(converted))
    return failure();
  for (const std::string &out : node.outputs)
    if (!out.empty() && !lookup(out))
      return emitError(loc) << "output '" << out << "' was not produced";
  return finishNode(lastBefore, node, loc);
}

FailureOr<SmallVector<GraphValue>> Importer::inlineGraph(const onnx::Graph &graph,
                                                         ArrayRef<GraphValue> args) {
  if (args.size() != graph.inputs.size()) {
    emitError(builder.getUnknownLoc())
        << "expected " << graph.inputs.size() << " subgraph inputs, got " << args.size();
    return failure();
  }
  // Names the body defines shadow outer ones until it is done.
  std::vector<std::pair<std::string, std::optional<GraphValue>>> saved;
  std::set<std::string> savedNames;
  auto save = [&](const std::string &name) {
    if (name.empty() || !savedNames.insert(name).second)
      return;
    GraphValue *old = lookup(name);
    saved.push_back({name, old ? std::optional<GraphValue>(*old) : std::nullopt});
  };
  auto restore = [&] {
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
      if (it->second)
        values[it->first] = *it->second;
      else
        values.erase(it->first);
    }
  };
  for (size_t i = 0; i < args.size(); ++i) {
    save(graph.inputs[i].name);
    bind(graph.inputs[i].name, args[i]);
  }
  for (const onnx::Tensor &t : graph.initializers) {
    save(t.name);
    bind(t.name, {Value(), std::make_shared<const HostTensor>(t)});
  }
  for (const onnx::Node &node : graph.nodes) {
    for (const std::string &out : node.outputs)
      save(out);
    if (failed(convertNode(node))) {
      restore();
      return failure();
    }
  }
  SmallVector<GraphValue> results;
  for (const onnx::ValueInfo &out : graph.outputs) {
    GraphValue *v = lookup(out.name);
    if (!v) {
      restore();
      emitError(builder.getUnknownLoc()) << "subgraph output '" << out.name << "' is not produced";
      return failure();
    }
    results.push_back(*v);
  }
  restore();
  return results;
}

// A graph output whose declared dtype or static dims differ from what the
// graph computes would hand the caller buffers of the wrong size: refused.
// Symbolic or missing dims and an undefined dtype declare nothing.
LogicalResult Importer::checkDeclaredOutput(const onnx::ValueInfo &out, Value computed) {
  auto type = cast<RankedTensorType>(computed.getType());
  Type declaredElement = elementTypeFor(&context, out.elemType, /*allowString=*/true);
  bool elementDiffers = declaredElement && declaredElement != type.getElementType();
  bool shapeDiffers = out.hasShape && (int64_t)out.dims.size() != type.getRank();
  for (size_t i = 0; out.hasShape && !shapeDiffers && i < out.dims.size(); ++i)
    shapeDiffers = out.dims[i].value >= 0 && out.dims[i].value != type.getDimSize(i);
  if (!elementDiffers && !shapeDiffers)
    return success();
  std::string declared;
  llvm::raw_string_ostream os(declared);
  if (out.hasShape)
    for (const onnx::Dim &d : out.dims)
      os << (d.value >= 0 ? std::to_string(d.value) : d.param.empty() ? "?" : d.param) << "x";
  else
    os << "*x";
  if (declaredElement)
    os << declaredElement;
  else
    os << "?";
  std::string computedText;
  llvm::raw_string_ostream(computedText) << type;
  return emitError(builder.getUnknownLoc())
         << "graph output '" << out.name << "' is declared tensor<" << declared
         << ">, but the graph computes " << computedText;
}

ImportResult Importer::run(const ImportOptions &options) {
  ImportResult result;
  if (failed(checkSupported()) || failed(createFunction(options))) {
    result.unsupported = unsupported;
    return result;
  }
  for (const onnx::Node &node : model.nodes) {
    if (failed(convertNode(node))) {
      result.unsupported = unsupported;
      return result;
    }
  }
  SmallVector<Value> outputs;
  for (const onnx::ValueInfo &out : model.outputs) {
    GraphValue *v = lookup(out.name);
    if (!v) {
      emitError(builder.getUnknownLoc())
          << "graph output '" << out.name << "' is not produced by any node";
      return result;
    }
    if (v->sequence) {
      result.unsupported = true;
      emitError(builder.getUnknownLoc())
          << "unsupported: graph output '" << out.name << "' is a sequence";
      return result;
    }
    outputs.push_back(materialize(*v, out.name));
    if (failed(checkDeclaredOutput(out, outputs.back())))
      return result;
  }
  if (outputs.empty()) {
    emitError(builder.getUnknownLoc()) << "the graph has no outputs";
    return result;
  }
  builder.create<func::ReturnOp>(builder.getUnknownLoc(), outputs);
  // Ops nothing uses (results replaced by constants, node outputs the graph
  // does not read) go now: later passes, with --no-optimize codegen, would
  // otherwise still see them.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(func.getBody().front())))
    if (op.use_empty() && isMemoryEffectFree(&op) && !op.hasTrait<OpTrait::IsTerminator>())
      op.erase();
  func.setFunctionType(builder.getFunctionType(
      func.getArgumentTypes(), ValueRange(outputs).getTypes()));
  for (auto [i, out] : llvm::enumerate(model.outputs))
    func.setResultAttr(i, "tract.name", builder.getStringAttr(out.name));
  module->getOperation()->setAttr("tract.producer",
                                  builder.getStringAttr(model.producerName + " " +
                                                        model.producerVersion));
  module->getOperation()->setAttr("tract.opset", builder.getI64IntegerAttr(opset));
  if (failed(mlir::verify(*module)))
    return result;
  result.module = std::move(module);
  return result;
}

ImportResult mlir::tract::importModel(MLIRContext &context, const onnx::Model &model,
                                      const ImportOptions &options) {
  Importer importer(context, model);
  return importer.run(options);
}
