//===- EinsumOps.cpp - ONNX Einsum -> transposes, matmul and reductions ---------===//
//
// One or two operands. Repeated labels within an operand (diagonals) become
// a multiplication by an identity mask and a sum; labels only one operand
// has and the output lacks are summed away; then the two operands are laid
// out as [batch, free, contracted] x [batch, contracted, free] for one
// batched matmul, and the result is transposed to the output's order.
//
//===----------------------------------------------------------------------===//
#include "compiler/Import/NodeContext.h"

#include <map>
#include <set>

using namespace mlir;
using namespace mlir::tract;

namespace {

struct Operand {
  Value value;
  std::string labels; // one char per dim
};

// Dims the "..." of `term` stands for in an operand of `rank`.
int64_t ellipsisDims(StringRef term, int64_t rank) {
  return term.contains("...") ? rank - ((int64_t)term.size() - 3) : 0;
}

// Expands "..." into digit labels, right-aligned against the longest
// ellipsis (`total` dims) as numpy broadcasting aligns them.
std::optional<std::string> expandEllipsis(StringRef term, int64_t rank, int64_t total) {
  size_t dots = term.find("...");
  if (dots == StringRef::npos)
    return term.str();
  int64_t n = ellipsisDims(term, rank);
  if (n < 0 || total > 10)
    return std::nullopt;
  std::string fill;
  for (int64_t i = 0; i < n; ++i)
    fill.push_back((char)('0' + (total - n) + i));
  return term.substr(0, dots).str() + fill + term.substr(dots + 3).str();
}

struct Einsum {
  NodeContext &c;

  FailureOr<Value> sumAxes(Value v, SmallVector<int64_t> axes) {
    if (axes.empty())
      return v;
    llvm::sort(axes);
    return c.make<ReduceSumOp>(v, axes, false);
  }

  // Removes repeated labels: x[..i..i..] -> x[..i..] (the diagonal; the
  // caller checked that a label's dims agree).
  FailureOr<Operand> diagonal(Operand o) {
    for (size_t i = 0; i < o.labels.size(); ++i)
      for (size_t j = i + 1; j < o.labels.size(); ++j)
        if (o.labels[i] == o.labels[j]) {
          auto t = cast<RankedTensorType>(o.value.getType());
          int64_t n = t.getDimSize(i);
          SmallVector<int64_t> shape(t.getRank(), 1);
          shape[i] = shape[j] = n;
          Value mask = eyeMask(t.getElementType(), shape, n);
          FailureOr<Value> masked = c.make<MulOp>(o.value, mask);
          if (failed(masked))
            return failure();
          FailureOr<Value> summed = sumAxes(*masked, {(int64_t)j});
          if (failed(summed))
            return failure();
          o.value = *summed;
          o.labels.erase(j, 1);
          return diagonal(o);
        }
    return o;
  }

  // An n x n identity shaped to broadcast over the two repeated dims; built
  // as i64 and cast, exact for every element type.
  Value eyeMask(Type element, ArrayRef<int64_t> shape, int64_t n) {
    SmallVector<int64_t> values;
    for (int64_t a = 0; a < n; ++a)
      for (int64_t b = 0; b < n; ++b)
        values.push_back(a == b ? 1 : 0);
    Value eye = c.constantI64(values, {n, n});
    return c.cast(c.reshape(eye, shape), element);
  }
};

LogicalResult convertEinsum(NodeContext &c) {
  std::string equation;
  for (char ch : c.attrString("equation", ""))
    if (ch != ' ')
      equation.push_back(ch);
  size_t arrow = equation.find("->");
  std::string lhs = arrow == std::string::npos ? equation : equation.substr(0, arrow);
  SmallVector<StringRef> terms;
  StringRef(lhs).split(terms, ',');
  if (terms.size() != c.numInputs() || terms.empty() || terms.size() > 2)
    return terms.size() > 2 ? c.unsupported("Einsum with more than two operands")
                            : c.fail("expected one equation term per input");
  int64_t ellipsisRank = 0;
  for (size_t k = 0; k < terms.size(); ++k)
    ellipsisRank = std::max(ellipsisRank, ellipsisDims(terms[k], c.inputType(k).getRank()));
  SmallVector<Operand> ops;
  for (size_t k = 0; k < terms.size(); ++k) {
    auto labels = expandEllipsis(terms[k], c.inputType(k).getRank(), ellipsisRank);
    if (!labels || (int64_t)labels->size() != c.inputType(k).getRank())
      return c.fail("expected term '" + terms[k].str() + "' to match input " +
                    std::to_string(k) + "'s rank");
    ops.push_back({c.input(k), *labels});
  }
  std::string output;
  if (arrow != std::string::npos) {
    StringRef out = StringRef(equation).drop_front(arrow + 2);
    size_t dots = out.find("...");
    if (dots != StringRef::npos) {
      std::string fill;
      for (int64_t i = 0; i < ellipsisRank; ++i)
        fill.push_back((char)('0' + i));
      output = out.substr(0, dots).str() + fill + out.substr(dots + 3).str();
    } else {
      output = out.str();
    }
  } else {
    // Implicit output: ellipsis dims, then labels seen once, alphabetically.
    std::map<char, int> count;
    for (auto &o : ops)
      for (char ch : o.labels)
        count[ch]++;
    for (int64_t i = 0; i < ellipsisRank; ++i)
      output.push_back((char)('0' + i));
    for (auto [ch, n] : count)
      if (n == 1 && !isdigit((unsigned char)ch))
        output.push_back(ch);
  }
  // A letter stands for one size wherever it appears (numpy refuses the
  // rest too); an output label appears once.
  std::map<char, int64_t> sizeOf;
  for (const Operand &o : ops)
    for (size_t d = 0; d < o.labels.size(); ++d) {
      char ch = o.labels[d];
      int64_t n = cast<RankedTensorType>(o.value.getType()).getDimSize(d);
      if (isdigit((unsigned char)ch))
        continue; // ellipsis dims: broadcast is checked below
      auto [it, inserted] = sizeOf.emplace(ch, n);
      if (!inserted && it->second != n)
        return c.fail(std::string("label '") + ch + "' stands for dims of " +
                      std::to_string(it->second) + " and " + std::to_string(n));
    }
  for (size_t i = 0; i < output.size(); ++i)
    if (output.find(output[i], i + 1) != std::string::npos)
      return c.fail(std::string("output label '") + output[i] + "' appears twice");
  Einsum e{c};
  for (auto &o : ops) {
    FailureOr<Operand> d = e.diagonal(o);
    if (failed(d))
      return failure();
    o = *d;
  }

  // Sum labels that appear in one operand only and not in the output.
  for (size_t k = 0; k < ops.size(); ++k) {
    SmallVector<int64_t> axes;
    std::string kept;
    for (size_t d = 0; d < ops[k].labels.size(); ++d) {
      char ch = ops[k].labels[d];
      bool inOther = ops.size() == 2 && ops[1 - k].labels.find(ch) != std::string::npos;
      if (output.find(ch) == std::string::npos && !inOther)
        axes.push_back(d);
      else
        kept.push_back(ch);
    }
    FailureOr<Value> summed = e.sumAxes(ops[k].value, axes);
    if (failed(summed))
      return failure();
    ops[k].value = *summed;
    ops[k].labels = kept;
  }

  Value result;
  std::string labels;
  if (ops.size() == 1) {
    result = ops[0].value;
    labels = ops[0].labels;
  } else {
    auto &a = ops[0], &b = ops[1];
    std::string batch, left, right, contracted;
    for (char ch : a.labels) {
      bool inB = b.labels.find(ch) != std::string::npos;
      bool inOut = output.find(ch) != std::string::npos;
      if (inB && inOut)
        batch.push_back(ch);
      else if (inB)
        contracted.push_back(ch);
      else
        left.push_back(ch);
    }
    for (char ch : b.labels)
      if (a.labels.find(ch) == std::string::npos)
        right.push_back(ch);
    auto dimOf = [&](Operand &o, char ch) {
      return cast<RankedTensorType>(o.value.getType()).getDimSize(o.labels.find(ch));
    };
    auto arrange = [&](Operand &o, const std::string &order, ArrayRef<std::string> groups) {
      SmallVector<int64_t> perm;
      for (char ch : order)
        perm.push_back(o.labels.find(ch));
      FailureOr<Value> v = o.labels == order ? o.value : c.make<TransposeOp>(o.value, perm);
      if (failed(v))
        return v;
      SmallVector<int64_t> shape;
      for (const std::string &g : groups) {
        int64_t n = 1;
        for (char ch : g)
          n *= dimOf(o, ch);
        shape.push_back(n);
      }
      return FailureOr<Value>(c.reshape(*v, shape));
    };
    // Broadcast batch dims of size 1 are not supported by this layout.
    for (char ch : batch)
      if (dimOf(a, ch) != dimOf(b, ch))
        return c.unsupported("Einsum with broadcast batch dims");
    FailureOr<Value> am = arrange(a, batch + left + contracted, {batch, left, contracted});
    FailureOr<Value> bm = arrange(b, batch + contracted + right, {batch, contracted, right});
    if (failed(am) || failed(bm))
      return failure();
    FailureOr<Value> prod = c.make<MatMulOp>(*am, *bm, false, false);
    if (failed(prod))
      return failure();
    SmallVector<int64_t> shape;
    for (char ch : batch)
      shape.push_back(dimOf(a, ch));
    for (char ch : left)
      shape.push_back(dimOf(a, ch));
    for (char ch : right)
      shape.push_back(dimOf(b, ch));
    result = c.reshape(*prod, shape);
    labels = batch + left + right;
  }
  // Transpose to the output's order.
  if (labels.size() != output.size())
    return c.fail("expected the output labels to appear in the inputs");
  SmallVector<int64_t> perm;
  for (char ch : output) {
    size_t at = labels.find(ch);
    if (at == std::string::npos)
      return c.fail(std::string("output label '") + ch + "' is not in any input");
    perm.push_back(at);
  }
  if (labels == output) {
    c.setOutput(0, result);
    return success();
  }
  return c.bind(c.make<TransposeOp>(result, perm));
}

} // namespace

void mlir::tract::registerEinsumConverters(ConverterTable &t) { t.add("Einsum", 12, convertEinsum); }
