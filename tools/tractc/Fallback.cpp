//===- Fallback.cpp - a failed optimisation costs one node, not the model --===//
#include "tools/tractc/Fallback.h"

#include "compiler/Import/Importer.h"
#include "dialects/tract/IR/TractOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

#include <map>
#include <set>

using namespace mlir;

namespace tractc {
namespace {

// Rounds of marking nodes before the next coarser fallback: each round
// names at least one new node, and a model that fails on more nodes than
// this has a problem no node-by-node retreat will hide.
constexpr int kMaxMarkingRounds = 6;

struct Captured {
  Location loc;
  DiagnosticSeverity severity;
  std::string message;
};

void reemit(const std::vector<Captured> &diags) {
  for (const Captured &d : diags) {
    if (d.severity == DiagnosticSeverity::Error)
      emitError(d.loc) << d.message;
    else if (d.severity == DiagnosticSeverity::Warning)
      emitWarning(d.loc) << d.message;
    else
      emitRemark(d.loc) << d.message;
  }
}

// A copy of `imported` with the plain nodes marked and the fallbacks listed
// on the module (tract.fallbacks, for --report).
OwningOpRef<ModuleOp> prepareCopy(ModuleOp imported, const std::vector<PlainNodes> &fallbacks) {
  OwningOpRef<ModuleOp> copy(imported.clone());
  std::map<std::string, std::string> reasonOf;
  for (const PlainNodes &f : fallbacks)
    for (const std::string &n : f.nodes)
      reasonOf.emplace(n, f.reason);
  Builder b(imported.getContext());
  copy->walk([&](Operation *op) {
    for (const auto &[node, type] : mlir::tract::nodesOfLocation(op->getLoc())) {
      auto it = reasonOf.find(node);
      if (it != reasonOf.end()) {
        op->setAttr(mlir::tract::kKeepPlainAttr, b.getStringAttr(it->second));
        break;
      }
    }
  });
  if (!fallbacks.empty()) {
    SmallVector<Attribute> entries;
    for (const PlainNodes &f : fallbacks) {
      SmallVector<Attribute> nodes;
      for (const std::string &n : f.nodes)
        nodes.push_back(b.getStringAttr(n));
      entries.push_back(b.getDictionaryAttr({b.getNamedAttr("nodes", b.getArrayAttr(nodes)),
                                             b.getNamedAttr("reason", b.getStringAttr(f.reason))}));
    }
    (*copy)->setAttr("tract.fallbacks", b.getArrayAttr(entries));
  }
  return copy;
}

} // namespace

FailureOr<OwningOpRef<ModuleOp>>
compileWithFallback(ModuleOp imported, bool optimize,
                    const std::function<LogicalResult(ModuleOp, AttemptConfig)> &attempt,
                    std::vector<PlainNodes> &fallbacks) {
  MLIRContext *context = imported.getContext();
  AttemptConfig config{optimize, optimize};
  std::set<std::string> plain;
  int rounds = 0;
  while (true) {
    OwningOpRef<ModuleOp> copy = prepareCopy(imported, fallbacks);
    std::vector<Captured> diags;
    bool sawError = false;
    LogicalResult result = failure();
    {
      ScopedDiagnosticHandler capture(context, [&](Diagnostic &d) {
        diags.push_back({d.getLocation(), d.getSeverity(), d.str()});
        sawError |= d.getSeverity() == DiagnosticSeverity::Error;
        return success();
      });
      result = attempt(*copy, config);
    }
    if (succeeded(result) && !sawError) {
      reemit(diags);
      return copy;
    }
    // The nodes the errors name that are not plain yet, and the first error.
    std::vector<std::string> named;
    std::string reason;
    bool unsupported = false;
    for (const Captured &d : diags) {
      if (d.severity != DiagnosticSeverity::Error)
        continue;
      if (reason.empty())
        reason = d.message;
      if (d.message.find("not supported") != std::string::npos ||
          d.message.find("unsupported") != std::string::npos)
        unsupported = true;
      for (const auto &[node, type] : mlir::tract::nodesOfLocation(d.loc))
        if (plain.insert(node).second)
          named.push_back(node);
    }
    if (unsupported || reason.empty()) {
      reemit(diags);
      return failure();
    }
    if (!named.empty() && rounds < kMaxMarkingRounds) {
      ++rounds;
      fallbacks.push_back({named, reason});
    } else if (config.declutter) {
      config.declutter = false;
      fallbacks.push_back({{}, "the graph optimizer's rewrites are skipped: " + reason});
    } else if (config.fuse) {
      config.fuse = false;
      fallbacks.push_back({{}, "fusion is skipped: " + reason});
    } else {
      reemit(diags);
      return failure();
    }
  }
}

} // namespace tractc
