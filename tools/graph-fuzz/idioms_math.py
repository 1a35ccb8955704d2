"""Element-wise idioms: activations in every form exporters write them, broadcasting binaries,
comparisons and selects, casts, and the decomposed norms and GELUs torch emits."""
import numpy as np

from idioms_registry import idiom, need

F32 = np.float32
# Normalisations divide by sqrt(variance + eps), and a row can be constant (a nearest Resize, an
# Expand): with torch's 1e-5 the rounding noise of x - mean is amplified 300 times, past any
# fair tolerance. 1e-3 keeps it within float32's noise.
NORM_EPS = 1e-3


def scalar(b, v, dtype=F32):
    return b.const(np.array(v, dtype=dtype), "s")


def bounded(b, x, limit=4.0):
    """x itself when its magnitude is small enough for Exp and friends, else Tanh(x) * limit."""
    if x.mag <= limit:
        return x
    t = b.op1("Tanh", [x])
    return b.op1("Mul", [t, scalar(b, limit)], mag=limit)


def positive(b, x):
    """|x| + 0.5: a safe denominator, logarithm or square-root operand."""
    a = b.op1("Abs", [x], exact=x.exact, mag=x.mag)
    return b.op1("Add", [a, scalar(b, 0.5)], mag=x.mag + 0.5)


def clip(b, x, lo, hi):
    """Clip as the graph's opset writes it: attributes before 11, inputs from 11 on."""
    if b.opset < 11:
        bounds = {k: float(v) for k, v in (("min", lo), ("max", hi)) if v is not None}
        return b.op1("Clip", [x], exact=x.exact, mag=x.mag if hi is None else min(x.mag, hi),
                     **bounds)
    args = [x, scalar(b, lo) if lo is not None else "", scalar(b, hi) if hi is not None else ""]
    while args and args[-1] == "":
        args.pop()
    return b.op1("Clip", args, exact=x.exact, mag=x.mag if hi is None else min(x.mag, abs(hi)))


def activation(b, x, kinds=None):
    """One activation in one of its exported forms; returns the new tensor."""
    forms = ["relu", "relu6", "leaky", "sigmoid", "tanh", "silu", "hardswish_hs",
             "hardswish_clip", "hardsigmoid", "prelu", "elu", "gelu_tanh", "softplus", "selu",
             "mish", "clip_min"]
    if b.opset >= 9:
        forms.append("gelu_erf")
    if b.opset >= 14:
        forms.append("hardswish")
    if b.opset >= 12:
        forms.append("celu")
    kind = b.choice(kinds or forms)
    m = x.mag
    if kind == "relu":
        return b.op1("Relu", [x], exact=x.exact, mag=m)
    if kind == "relu6":
        return clip(b, x, 0.0, 6.0)
    if kind == "clip_min":     # Clip with a min only (paddle's relu)
        return clip(b, x, -0.5, None)
    if kind == "leaky":
        return b.op1("LeakyRelu", [x], alpha=float(b.choice([0.01, 0.1, 0.2])), mag=m)
    if kind == "sigmoid":
        return b.op1("Sigmoid", [x], mag=1.0)
    if kind == "tanh":
        return b.op1("Tanh", [x], mag=1.0)
    if kind == "silu":          # torch's SiLU before opset 14: x * sigmoid(x)
        s = b.op1("Sigmoid", [x], mag=1.0)
        return b.op1("Mul", [x, s], mag=m)
    if kind == "hardsigmoid":
        return b.op1("HardSigmoid", [x], alpha=float(b.choice([0.2, 1 / 6])), beta=0.5, mag=1.0)
    if kind == "hardswish_hs":  # tf2onnx / paddle2onnx: HardSigmoid(1/6, 0.5) * x
        s = b.op1("HardSigmoid", [x], alpha=1 / 6, beta=0.5, mag=1.0)
        return b.op1("Mul", [x, s], mag=m)
    if kind == "hardswish_clip":  # x * clip(x + 3, 0, 6) / 6
        a = b.op1("Add", [x, scalar(b, 3.0)], mag=m + 3)
        c = clip(b, a, 0.0, 6.0)
        p = b.op1("Mul", [x, c], mag=6 * m)
        return b.op1("Div", [p, scalar(b, 6.0)], mag=m)
    if kind == "hardswish":
        return b.op1("HardSwish", [x], mag=m)
    if kind == "prelu":
        # Slope per channel, shaped to broadcast against dim 1 (torch writes [C, 1, 1]).
        if x.rank >= 2:
            shape = [x.shape[1]] + [1] * (x.rank - 2)
        else:
            shape = [x.shape[-1]] if x.rank else []
        slope = b.const((b.rng.uniform(0.05, 0.3, size=shape)).astype(F32), "slope", as_node=False)
        return b.op1("PRelu", [x, slope], mag=m)
    if kind == "elu":
        return b.op1("Elu", [bounded(b, x, 20)], alpha=1.0, mag=m)
    if kind == "selu":
        return b.op1("Selu", [bounded(b, x, 20)], mag=1.1 * m)
    if kind == "celu":
        return b.op1("Celu", [bounded(b, x, 20)], alpha=float(b.choice([1.0, 0.5])), mag=m)
    if kind == "softplus":
        return b.op1("Softplus", [bounded(b, x, 20)], mag=m)
    if kind == "mish":          # x * tanh(softplus(x))
        sp = b.op1("Softplus", [bounded(b, x, 20)], mag=m)
        t = b.op1("Tanh", [sp], mag=1.0)
        return b.op1("Mul", [x, t], mag=m)
    if kind == "gelu_erf":      # torch: x * 0.5 * (1 + erf(x / sqrt(2)))
        d = b.op1("Div", [x, scalar(b, 1.4142135)], mag=m)
        e = b.op1("Erf", [d], mag=1.0)
        a = b.op1("Add", [e, scalar(b, 1.0)], mag=2.0)
        p = b.op1("Mul", [x, a], mag=2 * m)
        return b.op1("Mul", [p, scalar(b, 0.5)], mag=m)
    if kind == "gelu_tanh":     # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        xb = bounded(b, x, 8)
        c = b.op1("Pow", [xb, scalar(b, 3.0)], mag=xb.mag ** 3)
        k = b.op1("Mul", [c, scalar(b, 0.044715)], mag=xb.mag ** 3 * 0.05)
        s = b.op1("Add", [xb, k])
        r = b.op1("Mul", [s, scalar(b, 0.7978846)])
        t = b.op1("Tanh", [r], mag=1.0)
        a = b.op1("Add", [t, scalar(b, 1.0)], mag=2.0)
        p = b.op1("Mul", [xb, a], mag=2 * xb.mag)
        return b.op1("Mul", [p, scalar(b, 0.5)], mag=xb.mag)
    raise AssertionError(kind)


def is_float(t):
    return t.is_float and t.rank >= 1


@idiom(weight=3)
def act(b):
    activation(b, need(b.pick(is_float)))


def broadcast_shape(b, shape):
    """A shape that broadcasts to `shape`: some dims set to 1, maybe leading dims dropped."""
    out = [d if b.chance(0.5) else 1 for d in shape]
    drop = int(b.rng.integers(0, len(shape) + 1)) if b.chance(0.5) else 0
    return out[drop:]


UNARY = {"Abs": True, "Neg": True, "Exp": False, "Log": False, "Sqrt": False, "Reciprocal": False,
         "Sin": False, "Cos": False, "Erf": False, "Softsign": False, "Floor": True, "Ceil": True,
         "Round": True, "Sign": True, "Atan": False, "Identity": True}


@idiom(weight=2)
def unary(b):
    x = need(b.pick(is_float))
    op = b.choice([u for u in UNARY if b.opset >= 9 or u not in ("Erf", "Sign")])
    if op in ("Floor", "Ceil", "Round", "Sign") and not x.exact:
        op = "Abs"  # a rounding difference upstream would flip them
    if op == "Round" and b.opset < 11:
        op = "Floor"
    if op == "Exp":
        x = bounded(b, x, 4.0)
        b.op1("Exp", [x], mag=float(np.exp(x.mag)))
    elif op in ("Log", "Sqrt", "Reciprocal"):
        b.op1(op, [positive(b, x)], mag=2.0 + x.mag)
    elif op in ("Sin", "Cos", "Atan"):
        b.op1(op, [bounded(b, x, 6.0)], mag=1.6)
    else:
        b.op1(op, [x], exact=x.exact and UNARY[op], mag=x.mag + 1)


@idiom(weight=4)
def binary_const(b):
    """x (op) constant: a bias per channel, a scale, a scalar; the way exporters fold params."""
    x = need(b.pick(is_float))
    shape = broadcast_shape(b, x.shape)
    op = b.choice(["Add", "Sub", "Mul", "Div", "Max", "Min", "Pow"])
    if op == "Div":
        c = (b.rng.uniform(0.5, 2.0, size=shape) * b.choice([1, -1])).astype(F32)
    elif op == "Pow":
        x = positive(b, bounded(b, x, 4.0))
        c = np.full(shape, b.choice([2.0, 0.5, 3.0]), dtype=F32)
    else:
        c = b.rng.standard_normal(shape).astype(F32)
    if b.opset < 8 and op in ("Max", "Min"):
        c = b.rng.standard_normal(x.shape).astype(F32)  # Max-6 and Min-6 do not broadcast
    const = b.const(c, "k", as_node=False if c.size > 1 else None)
    exact = x.exact and op in ("Max", "Min")
    ops = [const, x] if b.chance(0.3) and op in ("Add", "Mul", "Max", "Min") else [x, const]
    b.op1(op, ops, exact=exact, mag=x.mag * (3 if op in ("Mul", "Div") else 1) + 3)


@idiom(weight=3)
def binary_live(b):
    """Two computed tensors combined with broadcasting (a residual, a gate, a mask)."""
    x = need(b.pick(is_float))
    y = b.pick(lambda t: t.is_float and t.name != x.name and _broadcasts(t.shape, x.shape))
    if y is None:
        y = b.op1("Identity", [x], exact=x.exact, mag=x.mag) if b.chance(0.3) else None
        y = need(y)
    op = b.choice(["Add", "Sub", "Mul", "Max", "Min", "Div", "Sum", "Mean"])
    if op == "Div":
        y = positive(b, y)
    args = [x, y] if b.chance(0.5) or op == "Div" else [y, x]
    if b.opset < 8 and x.shape != y.shape:
        op = "Add"  # the variadic ops broadcast from opset 8 on
    if op in ("Sum", "Mean", "Max", "Min") and b.chance(0.4):
        args.append(x)  # the variadic forms
    exact = x.exact and y.exact and op in ("Max", "Min")
    b.op1(op, args, exact=exact, mag=(x.mag + 1) * (y.mag + 1) if op == "Mul" else x.mag + y.mag)


def _broadcasts(small, big):
    if len(small) > len(big):
        return False
    return all(s in (1, d) for s, d in zip(reversed(small), reversed(big)))


@idiom(weight=2, opsets=(9, 17))
def select(b):
    """Where(cond, x, y) with cond from a comparison of exact values (masks, relu-by-select)."""
    x = need(b.pick(lambda t: t.is_float and t.exact and t.rank >= 1))
    cmp = b.choice(["Greater", "Less", "Equal", "GreaterOrEqual", "LessOrEqual"]
                   if b.opset >= 12 else ["Greater", "Less", "Equal"] if b.opset >= 11
                   else ["Greater", "Less"])
    thr = b.const(np.array(b.choice([0.0, 0.5, -0.25]), dtype=F32), "thr")
    cond = b.op1(cmp, [x, thr], exact=True, live=False)
    if b.chance(0.3):
        cond = b.op1("Not", [cond], exact=True, live=False)
    y = b.pick(lambda t: t.is_float and _broadcasts(t.shape, x.shape)) or x
    # Fills of magnitude 1: a -1e4 fill (a mask) is for Softmax, which the attention idiom
    # builds itself; through a normalisation it makes rows whose float32 variance ORT gets
    # wrong (an InstanceNormalization over a row of -1e4s was 7e-3 off in ORT, 3e-7 here).
    other = b.const(np.array(b.choice([0.0, -1.0, 1.0]), dtype=F32), "fill")
    args = [cond, y, other] if b.chance(0.5) else [cond, other, y]
    b.op1("Where", args, exact=y.exact, mag=max(y.mag, 1.0))


@idiom(weight=1)
def cast_round_trip(b):
    """Exact floats through an integer type and back (index arithmetic, quantisation-ish)."""
    x = need(b.pick(lambda t: t.is_float and t.exact and t.mag < 1e6))
    to = b.choice([7, 6]) if b.opset >= 6 else 7  # int64, int32
    i = b.op1("Cast", [x], to=to, exact=True, mag=x.mag, live=False)
    if b.chance(0.5):
        i = b.op1("Add", [i, b.const(np.array(1, dtype=np.int64 if to == 7 else np.int32))],
                  exact=True, mag=x.mag + 1, live=False)
    b.op1("Cast", [i], to=1, exact=True, mag=x.mag + 1)


@idiom(weight=1)
def double_precision(b):
    """A stretch computed in float64 (tf2onnx keeps doubles where TensorFlow had them)."""
    x = need(b.pick(is_float))
    d = b.op1("Cast", [x], to=11, exact=x.exact, mag=x.mag, live=False)
    k = b.const(b.rng.standard_normal(broadcast_shape(b, x.shape)).astype(np.float64), "k64")
    m = b.op1(b.choice(["Mul", "Add", "Sub"]), [d, k], live=False, mag=x.mag * 3 + 3)
    b.op1("Cast", [m], to=1, mag=m.mag)


@idiom(weight=2)
def layer_norm(b):
    """LayerNorm over the last axis: torch's decomposed form, or the op from opset 17."""
    x = need(b.pick(lambda t: t.is_float and t.rank >= 2 and t.shape[-1] >= 2))
    d = x.shape[-1]
    gamma = b.const(b.rng.uniform(0.5, 1.5, size=[d]).astype(F32), "gamma", as_node=False)
    beta = b.const((b.rng.standard_normal([d]) * 0.1).astype(F32), "beta", as_node=False)
    if b.opset >= 17 and b.chance(0.4):
        b.op1("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=NORM_EPS, mag=3.0)
        return
    axes = [-1]
    mean = reduce_op(b, "ReduceMean", x, axes, keepdims=1, live=False)
    c = b.op1("Sub", [x, mean], live=False, mag=x.mag)
    if b.chance(0.5):
        sq = b.op1("Pow", [c, scalar(b, 2.0)], live=False, mag=x.mag ** 2)
    else:
        sq = b.op1("Mul", [c, c], live=False, mag=x.mag ** 2)
    var = reduce_op(b, "ReduceMean", sq, axes, keepdims=1, live=False)
    ve = b.op1("Add", [var, scalar(b, NORM_EPS)], live=False)
    sd = b.op1("Sqrt", [ve], live=False)
    n = b.op1("Div", [c, sd], live=False, mag=4.0)
    g = b.op1("Mul", [n, gamma], live=False, mag=6.0)
    b.op1("Add", [g, beta], mag=6.0)


def reduce_op(b, op, x, axes, keepdims, **kw):
    """A reduction as the opset writes it (ReduceSum's axes became an input at 13)."""
    if op == "ReduceSum" and b.opset >= 13:
        return b.op1(op, [x, b.ints(axes, "axes")], keepdims=keepdims, **kw)
    return b.op1(op, [x], axes=list(axes), keepdims=keepdims, **kw)


@idiom(weight=2)
def softmax(b):
    """Softmax / LogSoftmax on an axis: before opset 13 the input is coerced to 2-D at `axis`."""
    x = need(b.pick(lambda t: t.is_float and t.rank >= 1))
    axis = b.axis(int(b.rng.integers(0, x.rank)) if b.chance(0.4) else x.rank - 1, x.rank, 0.7)
    x = bounded(b, x, 30.0)
    op = "Softmax" if b.chance(0.75) else "LogSoftmax"
    b.op1(op, [x], axis=axis, mag=1.0 if op == "Softmax" else 60.0)
