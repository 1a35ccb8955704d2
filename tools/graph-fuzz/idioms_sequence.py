"""Sequence and text idioms: linear layers on [N, L, D], multi-head attention as torch and
optimum export it (with a padding mask built from int64 token ids), embeddings, batched MatMul
with broadcasting, Einsum, and LSTM / GRU layers."""
import numpy as np

from idioms_math import activation, scalar
from idioms_registry import idiom, need
from idioms_tensor import unsqueeze

F32 = np.float32


def sequence(t):
    return t.is_float and t.rank == 3 and t.shape[2] <= 128 and t.shape[1] <= 64


@idiom(weight=3)
def linear(b):
    """MatMul with a [D, E] weight then Add bias (torch's Linear on a 3-D input)."""
    x = need(b.pick(lambda t: t.is_float and t.rank >= 2 and t.shape[-1] <= 256))
    d = x.shape[-1]
    e = b.dim(1, 128 if b.chance(0.2) else 64)
    y = b.op1("MatMul", [x, b.weight([d, e], d)], mag=x.mag + 0.5, live=b.chance(0.3))
    if b.chance(0.8):
        y = b.op1("Add", [y, b.const((b.rng.standard_normal(e) * 0.1).astype(F32), "bias",
                                     as_node=False)], mag=y.mag + 0.3)
    if b.chance(0.5):
        activation(b, y)


@idiom(weight=2)
def attention(b):
    """Multi-head self-attention: q, k, v projections, heads by Reshape + Transpose, scaled
    scores, an optional additive mask, Softmax, and the heads merged back."""
    x = need(b.pick(sequence))
    n, l, d = x.shape
    heads = b.choice([h for h in (1, 2, 4) if d % h == 0])
    hd = d // heads

    def proj():
        m = b.op1("MatMul", [x, b.weight([d, d], d)], live=False, mag=x.mag)
        a = b.op1("Add", [m, b.const((b.rng.standard_normal(d) * 0.1).astype(F32), "b",
                                     as_node=False)], live=False, mag=x.mag)
        r = b.op1("Reshape", [a, b.ints([n, l, heads, hd] if b.chance(0.5) else [0, 0, heads, hd])],
                  live=False, mag=x.mag)
        return r

    q, k, v = proj(), proj(), proj()
    q = b.op1("Transpose", [q], perm=[0, 2, 1, 3], live=False, mag=x.mag)
    if b.chance(0.5):
        kt = b.op1("Transpose", [k], perm=[0, 2, 3, 1], live=False, mag=x.mag)
    else:  # transposed twice, as some exporters write k^T
        kt = b.op1("Transpose", [k], perm=[0, 2, 1, 3], live=False, mag=x.mag)
        kt = b.op1("Transpose", [kt], perm=[0, 1, 3, 2], live=False, mag=x.mag)
    v = b.op1("Transpose", [v], perm=[0, 2, 1, 3], live=False, mag=x.mag)
    s = b.op1("MatMul", [q, kt], live=False, mag=x.mag ** 2 * hd)
    if b.chance(0.5):
        s = b.op1("Div", [s, scalar(b, float(np.sqrt(hd)))], live=False, mag=s.mag)
    else:
        s = b.op1("Mul", [s, scalar(b, float(1 / np.sqrt(hd)))], live=False, mag=s.mag)
    if s.mag > 30:
        s = b.op1("Tanh", [s], live=False, mag=1.0)
    mask = b.pick(lambda t: t.name.startswith("mask") and t.shape == (n, 1, 1, l))
    if mask is not None:
        s = b.op1("Add", [s, mask], live=False, mag=1e4)
    elif b.chance(0.3):  # a causal mask as a constant
        causal = np.triu(np.full((l, l), -1e4, F32), 1)
        s = b.op1("Add", [s, b.const(causal, "causal", as_node=False)], live=False, mag=1e4)
    p = b.op1("Softmax", [s], axis=-1 if b.opset >= 13 else 3, live=False, mag=1.0)
    o = b.op1("MatMul", [p, v], live=False, mag=x.mag)
    o = b.op1("Transpose", [o], perm=[0, 2, 1, 3], live=False, mag=x.mag)
    o = b.op1("Reshape", [o, b.ints([n, l, d])], live=False, mag=x.mag)
    y = b.op1("MatMul", [o, b.weight([d, d], d)], live=False, mag=x.mag)
    if b.chance(0.6):
        b.op1("Add", [x, y], mag=x.mag + y.mag)  # the residual
    else:
        b.live.append(y)


@idiom(weight=2)
def embedding(b):
    """Token ids (int64) -> Gather from a table, + positions; the padding mask the BERT
    exporters build: Equal(ids, 0) -> Cast -> Mul(-10000) -> Unsqueeze twice."""
    ids = need(b.pick(lambda t: t.dtype == np.int64 and t.rank == 2 and t.name.startswith("in")))
    vocab = b.input_dists[ids.name][1]
    n, l = ids.shape
    d = b.dim(2, 32)
    table = b.const((b.rng.standard_normal([int(vocab), d])).astype(F32), "table", as_node=False)
    e = b.op1("Gather", [table, ids], axis=0, exact=True, mag=4.0)
    if b.chance(0.5):
        pos = b.const((b.rng.standard_normal([l, d]) * 0.1).astype(F32), "pos", as_node=False)
        b.op1("Add", [e, pos], mag=4.5)
    if b.chance(0.6):
        eq = b.op1("Equal", [ids, b.const(np.array(0, np.int64), "pad")], exact=True, live=False)
        c = b.op1("Cast", [eq], to=1, exact=True, live=False)
        m = b.op1("Mul", [c, scalar(b, -1e4)], exact=True, live=False, mag=1e4)
        # The attention idiom finds masks by their name.
        unsqueeze(b, m, [1, 2], exact=True, mag=1e4, hint="mask")


@idiom(weight=2)
def batched_matmul(b):
    """MatMul of two computed tensors with batch broadcasting ([B, M, K] x [K, N], [1, M, K]...)."""
    x = need(b.pick(lambda t: t.is_float and t.rank >= 2 and t.shape[-1] <= 128))
    k = x.shape[-1]
    y = b.pick(lambda t: t.is_float and t.rank >= 2 and t.shape[-2] == k and t.name != x.name
               and t.shape[-1] <= 64 and _batch_ok(x.shape[:-2], t.shape[:-2]))
    if y is None:
        y = b.weight([*([1] if b.chance(0.3) and x.rank > 2 else []), k, b.dim(1, 32)], k)
    b.op1("MatMul", [x, y], mag=x.mag * max(1.0, y.mag))


def _batch_ok(a, c):
    for p, q in zip(reversed(a), reversed(c)):
        if p != q and p != 1 and q != 1:
            return False
    return True


@idiom(weight=1, opsets=(12, 17))
def einsum(b):
    x = need(b.pick(lambda t: t.is_float and t.rank == 3 and t.shape[-1] <= 64))
    n, l, d = x.shape
    eq = b.choice(["bld,de->ble", "bld,bmd->blm", "bld->bdl", "bld,d->bl"])
    if eq == "bld,de->ble":
        y = b.weight([d, b.dim(1, 16)], d)
    elif eq == "bld,bmd->blm":
        y = x
    elif eq == "bld,d->bl":
        y = b.weight([d], d)
    else:
        y = None
    # ONNX 1.12 infers only Einsum's rank; numpy says the shape.
    operands = [x] if y is None else [x, y]
    shape = np.einsum(eq, *[np.zeros(t.shape, F32) for t in operands]).shape
    b.op1("Einsum", operands, equation=eq, mag=x.mag * (1.0 if y is None else max(1.0, y.mag)),
          exact=x.exact and y is None, known=[(x.dtype, shape)])


@idiom(weight=1)
def recurrent(b):
    """An LSTM or GRU layer over [L, N, I] (torch's layout), forward or bidirectional."""
    x = need(b.pick(lambda t: t.is_float and t.rank == 3 and t.shape[0] <= 16
                    and t.shape[2] <= 32))
    l, n, i = x.shape
    h = b.dim(1, 16)
    op = b.choice(["LSTM", "GRU"])
    gates = 4 if op == "LSTM" else 3
    dirs = 2 if b.chance(0.3) else 1
    w = b.weight([dirs, gates * h, i], i)
    r = b.weight([dirs, gates * h, h], h)
    bias = b.const((b.rng.standard_normal([dirs, 2 * gates * h]) * 0.1).astype(F32), "rb",
                   as_node=False)
    attrs = {"hidden_size": h}
    if dirs == 2:
        attrs["direction"] = "bidirectional"
    if op == "GRU" and b.chance(0.5):
        attrs["linear_before_reset"] = 1
    y, yh = b.op(op, [x, w, r, bias], n_out=2, mag=1.0, **attrs)[:2]
    if b.chance(0.5):
        b.retire(yh)
