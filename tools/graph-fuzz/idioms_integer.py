"""Integer idioms: int64/int32 index arithmetic, indices computed by the graph (ArgMax into
Gather, GatherElements, OneHot, Range, ConstantOfShape), Trilu masks, MaxPool's indices, the
quantized operators (QuantizeLinear / DequantizeLinear, QLinearConv, QLinearMatMul,
ConvInteger, MatMulInteger) on exact values, and If on a computed condition.

Integers are exact everywhere, so these compare exactly; float operands of an integer-producing
op are exact ones (see grammar.py) and quantisation scales are powers of two, so x / scale
rounds the same in every correct implementation (ties go to even, as ONNX says)."""
import numpy as np
from onnx import helper, mapping

from idioms_registry import idiom, need

F32 = np.float32


def integer(t):
    return t.dtype.kind in "iu" and t.rank >= 1 and t.dtype != np.uint64


@idiom(weight=2)
def int_arith(b):
    """Index arithmetic as exporters write it around shapes and token ids."""
    x = need(b.pick(lambda t: integer(t) and t.dtype in (np.int64, np.int32)))
    op = b.choice(["Add", "Sub", "Mul", "Div", "Max", "Min", "Mod", "Neg", "Abs"] if b.opset >= 10
                  else ["Add", "Sub", "Mul", "Div", "Neg", "Abs"])
    if op in ("Neg", "Abs"):
        b.op1(op, [x], exact=True, mag=x.mag)
        return
    c = b.const(np.array(b.choice([1, 2, 3, -2, 7] if op != "Div" else [1, 2, 3, 7]),
                         dtype=x.dtype), "k")
    attrs = {}
    if op == "Mod":
        attrs["fmod"] = int(b.chance(0.5))
    if op in ("Max", "Min") and b.opset < 12:
        op = "Add"  # integer Max/Min arrive at opset 12
    b.op1(op, [x, c], exact=True, mag=x.mag * 7 + 7, **attrs)


@idiom(weight=2)
def computed_gather(b):
    """Indices from the graph: ArgMax of exact values gathers along the same axis."""
    x = need(b.pick(lambda t: t.is_float and t.exact and t.rank >= 2))
    axis = int(b.rng.integers(0, x.rank))
    i = b.op1("ArgMax", [x], axis=axis, keepdims=1, exact=True, live=False)
    if b.opset >= 11 and b.chance(0.6):
        b.op1("GatherElements", [x, i], axis=axis, exact=True, mag=x.mag)
    else:
        flat = b.op1("Reshape", [i, b.ints([-1])], exact=True, live=False)
        b.op1("Gather", [x, flat], axis=axis, exact=True, mag=x.mag)


@idiom(weight=1, opsets=(11, 17))
def one_hot(b):
    x = need(b.pick(lambda t: integer(t) and t.rank <= 3 and t.size <= 256 and t.mag <= 64))
    depth = int(x.mag) + 1
    values = b.const(np.array([0.0, 1.0], F32), "onoff")
    axis = b.choice([-1, 0])
    shape = list(x.shape) + [depth] if axis == -1 else [depth] + list(x.shape)
    b.op1("OneHot", [x, b.const(np.array(depth, np.int64), "depth"), values], axis=axis,
          exact=True, mag=1.0, known=[(np.dtype(F32), shape)])


@idiom(weight=1, opsets=(11, 17))
def range_positions(b):
    """Positions as torch exports arange(L): Range(0, L, 1) from the shape, then a gather."""
    x = need(b.pick(lambda t: t.rank >= 2 and t.shape[1] <= 64))
    n = x.shape[1]
    s = b.op1("Shape", [x], exact=True, live=False)
    l = b.op1("Gather", [s, b.ints(np.array(1), "idx")], axis=0, exact=True, live=False)
    r = b.op1("Range", [b.ints(np.array(0), "start"), l, b.ints(np.array(1), "delta")],
              exact=True, live=False, known=[(np.dtype(np.int64), [n])])
    table = b.const(b.rng.standard_normal([n, b.dim(1, 16)]).astype(F32), "pos", as_node=False)
    b.op1("Gather", [table, r], axis=0, exact=True, mag=4.0)


@idiom(weight=1, opsets=(9, 17))
def constant_of_shape(b):
    """A tensor filled with a constant, shaped like another one (torch's zeros_like / ones)."""
    x = need(b.pick(lambda t: t.rank >= 1))
    s = b.op1("Shape", [x], exact=True, live=False)
    fill = b.choice([0.0, 1.0, -2.5])
    c = b.op1("ConstantOfShape", [s], value=helper.make_tensor("v", 1, [1], [fill]), exact=True,
              live=False, mag=abs(fill), known=[(np.dtype(F32), list(x.shape))])
    if x.is_float:
        b.op1("Add", [x, c], exact=False, mag=x.mag + abs(fill))
    else:
        b.live.append(c)


@idiom(weight=1, opsets=(14, 17))
def trilu(b):
    x = need(b.pick(lambda t: t.rank >= 2 and t.is_float))
    args = [x]
    if b.chance(0.5):
        args.append(b.const(np.array(int(b.rng.integers(-2, 3)), np.int64), "k"))
    b.op1("Trilu", args, upper=int(b.chance(0.5)), exact=x.exact, mag=x.mag)


@idiom(weight=1, opsets=(8, 17))
def max_pool_indices(b):
    x = need(b.pick(lambda t: t.is_float and t.exact and t.rank == 4 and min(t.shape[2:]) >= 2))
    y, idx = b.op("MaxPool", [x], n_out=2, kernel_shape=[2, 2], strides=[2, 2], exact=True,
                  mag=x.mag)
    if b.chance(0.5):
        b.retire(y)


def int_to_unit(b, y):
    """int32 sums as floats near 1: Cast, then a power-of-two scale (exact). Left at their size
    (up to 1e6), a product after them cancels sums of 1e5 down to outputs of 1: float32 noise of
    1e-2 in tractc and ORT alike (the long run's seed 326286)."""
    f = b.op1("Cast", [y], to=1, exact=True, live=False, mag=1e6)
    return b.op1("Mul", [f, b.const(np.array(2.0 ** -16, F32), "unit")], exact=True, mag=16.0)


def _scale(b):
    return float(2.0 ** -int(b.rng.integers(2, 6)))  # 1/4 .. 1/32: exact divisions


def quantize(b, x, dtype=np.uint8, live=False):
    """QuantizeLinear of exact floats; returns the quantized tensor and its (scale, zero)."""
    scale = _scale(b)
    zero = int(b.rng.integers(100, 156)) if dtype == np.uint8 else int(b.rng.integers(-20, 21))
    args = [x, b.const(np.array(scale, F32), "qs"), b.const(np.array(zero, dtype), "qz")]
    q = b.op1("QuantizeLinear", args, exact=True, live=live, mag=255)
    return q, scale, zero


@idiom(weight=2, opsets=(10, 17))
def qdq(b):
    """QuantizeLinear -> DequantizeLinear on exact values (the QDQ form torch and ORT's
    quantizer write around every op)."""
    x = need(b.pick(lambda t: t.is_float and t.exact))
    dtype = np.uint8 if b.chance(0.6) else np.int8
    q, scale, zero = quantize(b, x, dtype)
    b.op1("DequantizeLinear", [q, b.const(np.array(scale, F32), "ds"),
                               b.const(np.array(zero, dtype), "dz")], exact=True, mag=x.mag + 1)


@idiom(weight=2, opsets=(10, 17))
def qlinear_conv(b):
    """QLinearConv / ConvInteger on a quantized feature map, per-tensor or per-channel weights."""
    x = need(b.pick(lambda t: t.is_float and t.exact and t.rank == 4 and t.shape[1] <= 32))
    q, sx, zx = quantize(b, x, np.uint8)
    c = x.shape[1]
    cout = b.dim(1, 24)
    k = b.choice([1, 3])
    w = b.rng.integers(-100, 101, size=[cout, c, k, k]).astype(np.int8)
    attrs = {"kernel_shape": [k, k], "pads": [k // 2] * 4}
    if b.chance(0.3):
        attrs["strides"] = [2, 2]
    wt = b.const(w, "qw", as_node=False)
    if b.chance(0.4):  # the integer form: int32 out
        y = b.op1("ConvInteger", [q, wt, b.const(np.array(zx, np.uint8), "xz")], exact=True,
                  live=False, mag=1e6, **attrs)
        int_to_unit(b, y)
        return
    per_channel = b.chance(0.5)
    sw = (np.array([_scale(b) for _ in range(cout)], F32) if per_channel
          else np.array(_scale(b), F32))
    sy = float(2.0 ** int(b.rng.integers(-1, 3)))
    args = [q, b.const(np.array(sx, F32), "sx"), b.const(np.array(zx, np.uint8), "zx"),
            wt, b.const(sw, "sw"), b.const(np.zeros(sw.shape, np.int8), "zw"),
            b.const(np.array(sy, F32), "sy"), b.const(np.array(128, np.uint8), "zy")]
    if b.chance(0.5):
        args.append(b.const(b.rng.integers(-1000, 1001, size=[cout]).astype(np.int32), "qb",
                            as_node=False))
    y = b.op1("QLinearConv", args, exact=False, live=False, mag=255, **attrs)
    b.op1("DequantizeLinear", [y, b.const(np.array(sy, F32), "ds"),
                               b.const(np.array(128, np.uint8), "dz")], exact=False, mag=64)


@idiom(weight=1, opsets=(10, 17))
def qlinear_matmul(b):
    x = need(b.pick(lambda t: t.is_float and t.exact and t.rank in (2, 3) and t.shape[-1] <= 64))
    q, sx, zx = quantize(b, x, np.uint8)
    kdim, n = x.shape[-1], b.dim(1, 32)
    w = b.const(b.rng.integers(-100, 101, size=[kdim, n]).astype(np.int8), "qw", as_node=False)
    if b.chance(0.4):
        y = b.op1("MatMulInteger", [q, w, b.const(np.array(zx, np.uint8), "xz")], exact=True,
                  live=False, mag=1e6)
        int_to_unit(b, y)
        return
    sy = float(2.0 ** int(b.rng.integers(0, 4)))
    y = b.op1("QLinearMatMul", [q, b.const(np.array(sx, F32), "sx"),
                                b.const(np.array(zx, np.uint8), "zx"), w,
                                b.const(np.array(_scale(b), F32), "sw"),
                                b.const(np.array(0, np.int8), "zw"),
                                b.const(np.array(sy, F32), "sy"),
                                b.const(np.array(128, np.uint8), "zy")],
              exact=False, live=False, mag=255)
    b.op1("DequantizeLinear", [y, b.const(np.array(sy, F32), "ds"),
                               b.const(np.array(128, np.uint8), "dz")], exact=False, mag=64)


@idiom(weight=1, opsets=(11, 17))
def if_computed(b):
    """If on a condition computed from exact data: both branches read an outer value."""
    x = need(b.pick(lambda t: t.is_float and t.exact and t.rank >= 1))
    m = b.op1("ReduceMax", [x], keepdims=0, exact=True, live=False)
    cond = b.op1("Greater", [m, b.const(np.array(0.0, F32), "z")], exact=True, live=False)
    elem = mapping.NP_TYPE_TO_TENSOR_TYPE[x.dtype]

    def branch(op, name):
        out = b.fresh(name)
        node = helper.make_node(op, [x.name], [out])
        return helper.make_graph([node], name, [],
                                 [helper.make_tensor_value_info(out, elem, list(x.shape))])

    then_op, else_op = b.choice([("Relu", "Neg"), ("Abs", "Identity"), ("Neg", "Relu")])
    b.op1("If", [cond], then_branch=branch(then_op, "then"), else_branch=branch(else_op, "else"),
          exact=True, mag=x.mag, known=[(x.dtype, list(x.shape))])



@idiom(weight=1, opsets=(11, 17))
def scatter_rows(b):
    """torch's out.scatter_(0, idx.view(-1, 1, ...).expand_as(u), u) (MultiScaleRoIAlign
    putting each level's rows back): ScatterElements with one index per row of u, distinct
    rows (a repeated one would make the result depend on the write order), some negative."""
    u = need(b.pick(lambda t: t.is_float and t.rank >= 2 and 2 <= t.shape[0] <= 32))
    m, rest = u.shape[0], list(u.shape[1:])
    rows = m + int(b.rng.integers(0, 4))
    # Indices computed at run time, as the detector's are (constant ones fold away): the
    # top m of a fresh input's `rows` values, distinct.
    v = b.add_input(F32, [rows])
    _, top = b.op("TopK", [v, b.ints([m], "k")], n_out=2, axis=0, exact=True, live=False)
    if b.chance(0.3):
        top = b.op1("Sub", [top, b.ints(np.array(rows), "rows")], exact=True, live=False)
    i = b.op1("Reshape", [top, b.ints([m] + [1] * len(rest))], exact=True, live=False)
    e = b.op1("Expand", [i, b.ints(u.shape)], exact=True, live=False)
    data = b.const(b.rng.standard_normal([rows] + rest).astype(F32), "data", as_node=False)
    attrs = {"axis": 0}
    if b.opset >= 16 and b.chance(0.3):
        attrs["reduction"] = "add"
    b.op1("ScatterElements", [data, e, u], exact=u.exact, mag=u.mag + 4.0, **attrs)
