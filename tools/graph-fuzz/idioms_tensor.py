"""Data-movement and shape idioms: Shape -> Gather -> Concat -> Reshape chains, Flatten heads,
Slice / Squeeze / Unsqueeze / Split / ReduceSum in their opset forms, Gather with negative
indices, Expand, Tile, Transpose, reductions, ArgMax, TopK, CumSum."""
import numpy as np

from idioms_math import activation, reduce_op
from idioms_registry import Skip, idiom, need

F32 = np.float32
I64_MAX = np.iinfo(np.int64).max


def unsqueeze(b, x, axes, **kw):
    if b.opset >= 13:
        return b.op1("Unsqueeze", [x, b.ints(axes, "axes")], **kw)
    return b.op1("Unsqueeze", [x], axes=list(axes), **kw)


def squeeze(b, x, axes, **kw):
    if b.opset >= 13:
        return b.op1("Squeeze", [x, b.ints(axes, "axes")], **kw)
    return b.op1("Squeeze", [x], axes=list(axes), **kw)


def shape_dim(b, x, axis):
    """x.shape[axis] as a 1-element int64 tensor, the way torch exports x.size(axis)."""
    s = b.op1("Shape", [x], exact=True, live=False)
    if b.opset >= 15 and b.chance(0.3):
        return b.op1("Shape", [x], start=axis, end=axis + 1, exact=True, live=False)
    g = b.op1("Gather", [s, b.ints(np.array(axis), "idx")], axis=0, exact=True, live=False)
    return unsqueeze(b, g, [0], exact=True, live=False)


@idiom(weight=3)
def flatten_head(b):
    """The classifier head: flatten (Flatten, Reshape [0, -1], or a Shape chain) then Gemm or
    MatMul + Add, as torch's Linear exports at each opset."""
    x = need(b.pick(lambda t: t.is_float and t.rank >= 2 and t.size // t.shape[0] <= 4096))
    n = x.shape[0]
    rest = x.size // n
    r = b.rng.random()
    if r < 0.3:
        f = b.op1("Flatten", [x], axis=1, exact=x.exact, mag=x.mag, live=False)
    elif r < 0.6:
        f = b.op1("Reshape", [x, b.ints([0, -1] if b.chance(0.5) else [n, rest])],
                  exact=x.exact, mag=x.mag, live=False)
    else:
        d0 = shape_dim(b, x, 0)
        target = concat(b, [d0, b.ints([-1])], 0, exact=True, live=False)
        f = b.op1("Reshape", [x, target], exact=x.exact, mag=x.mag, live=False,
                  known=[(x.dtype, [n, rest])])
    out = b.dim(1, 64)
    if b.chance(0.6):
        trans_b = b.chance(0.7)
        w = b.weight([out, rest] if trans_b else [rest, out], rest)
        args = [f, w]
        if b.chance(0.8) or b.opset < 11:
            args.append(b.const((b.rng.standard_normal([out] if b.chance(0.7) else [1, out])
                                 * 0.1).astype(F32), "bias", as_node=False))
        attrs = {"transB": 1} if trans_b else {}
        if b.chance(0.2):
            attrs["alpha"] = 0.5
            attrs["beta"] = 2.0
        y = b.op1("Gemm", args, mag=x.mag + 0.5, **attrs)
    else:
        m = b.op1("MatMul", [f, b.weight([rest, out], rest)], live=False, mag=x.mag)
        y = b.op1("Add", [m, b.const(np.full(out, 0.05, F32), "bias", as_node=False)],
                  mag=x.mag + 0.1)
    if b.chance(0.4):
        activation(b, y)


@idiom(weight=2)
def reshape(b):
    """A Reshape to a factorisation of the shape, with 0 (copy) and -1 (infer) entries."""
    x = need(b.pick(lambda t: t.rank >= 1 and t.size > 0))
    dims = list(x.shape)
    r = b.rng.random()
    if r < 0.4 and len(dims) >= 2:       # merge two neighbours
        i = int(b.rng.integers(0, len(dims) - 1))
        dims = dims[:i] + [dims[i] * dims[i + 1]] + dims[i + 2:]
    elif r < 0.7:                          # split a dim that has a factor
        i = int(b.rng.integers(0, len(dims)))
        f = [k for k in (2, 3, 4) if dims[i] % k == 0 and dims[i] > k]
        if not f:
            raise Skip()
        k = b.choice(f)
        dims = dims[:i] + [k, dims[i] // k] + dims[i + 1:]
    else:
        dims = [x.size]
    if len(dims) > 6:
        raise Skip()
    target = list(dims)
    if b.chance(0.5):
        target[int(b.rng.integers(0, len(target)))] = -1
    for i in range(min(len(target), x.rank)):  # 0 copies the input's dim at that index
        if target[i] == x.shape[i] and b.chance(0.3):
            target[i] = 0
    b.op1("Reshape", [x, b.ints(target)], exact=x.exact, mag=x.mag)


@idiom(weight=2)
def transpose(b):
    x = need(b.pick(lambda t: t.rank >= 2))
    perm = [int(p) for p in b.rng.permutation(x.rank)]
    attrs = {"perm": perm} if b.chance(0.85) else {}  # no perm: reverse the axes
    b.op1("Transpose", [x], exact=x.exact, mag=x.mag, **attrs)


@idiom(weight=2)
def slice_(b):
    """Slice with attributes (opset < 10) or inputs: negative starts, ends past the end
    (torch writes INT64_MAX), axes omitted or negative, steps (negative too)."""
    x = need(b.pick(lambda t: t.rank >= 1 and max(t.shape) >= 2))
    axes = sorted(int(a) for a in b.rng.choice(x.rank, size=int(b.rng.integers(1, x.rank + 1)),
                                               replace=False))
    starts, ends, steps = [], [], []
    for a in axes:
        d = x.shape[a]
        step = b.choice([1, 1, 1, 2, -1]) if b.opset >= 10 else 1
        if step > 0:
            s = int(b.rng.integers(0, max(1, d)))
            e = int(b.rng.integers(s + 1, d + 1)) if s + 1 <= d else d
            if b.chance(0.3):
                s -= d  # the same start, negative
            if e == d and b.chance(0.5):
                e = I64_MAX
        else:
            s = int(b.rng.integers(0, d))
            e = int(b.rng.integers(-1, s)) if s > 0 else -1
            if e == -1:
                e = -I64_MAX  # through the first element
        starts.append(s)
        ends.append(e)
        steps.append(step)
    ax = [b.axis(a, x.rank) for a in axes]
    # ONNX 1.12 infers no shape for Slice before opset 10; numpy's slicing says it.
    index = [slice(None)] * x.rank
    for a, s, e, st in zip(axes, starts, ends, steps):
        index[a] = slice(s, None if e == I64_MAX or e == -I64_MAX else e, st)
    known = [(x.dtype, np.zeros(x.shape, np.int8)[tuple(index)].shape)]
    if b.opset < 10:
        attrs = {"starts": starts, "ends": [min(e, 2 ** 31 - 1) for e in ends]}
        if b.chance(0.7) or len(axes) < x.rank:
            attrs["axes"] = ax
        b.op1("Slice", [x], exact=x.exact, mag=x.mag, known=known, **attrs)
        return
    args = [x, b.ints(starts, "starts"), b.ints(ends, "ends")]
    if any(s != 1 for s in steps) or b.chance(0.4) or axes != list(range(len(axes))):
        args.append(b.ints(ax, "axes"))
        if any(s != 1 for s in steps) or b.chance(0.3):
            args.append(b.ints(steps, "steps"))
    y = b.op1("Slice", args, exact=x.exact, mag=x.mag, known=known)
    if y.size == 0:
        raise Skip()


@idiom(weight=2)
def gather(b):
    """Gather with constant indices: a scalar index (drops the axis), a vector with negatives."""
    x = need(b.pick(lambda t: t.rank >= 1 and max(t.shape) >= 1))
    axis = int(b.rng.integers(0, x.rank))
    d = x.shape[axis]
    lo = -d if b.opset >= 11 else 0  # negative indices count from the end from opset 11
    if b.chance(0.4):
        idx = np.array(int(b.rng.integers(lo, d)), dtype=np.int64)
    else:
        idx = b.rng.integers(lo, d, size=[b.dim(1, 6)]).astype(np.int64)
    if b.chance(0.2):
        idx = idx.astype(np.int32)
    b.op1("Gather", [x, b.const(idx, "idx")], axis=b.axis(axis, x.rank),
          exact=x.exact, mag=x.mag)


@idiom(weight=2)
def squeeze_unsqueeze(b):
    x = need(b.pick(lambda t: t.rank <= 5))
    ones = [i for i, d in enumerate(x.shape) if d == 1]
    if ones and b.chance(0.5):
        axes = [b.axis(b.choice(ones), x.rank, 0.5)]
        squeeze(b, x, axes, exact=x.exact, mag=x.mag)
    else:
        unsqueeze(b, x, [int(b.rng.integers(0, x.rank + 1))], exact=x.exact, mag=x.mag)


@idiom(weight=2)
def split(b):
    """Split in two or three, equal or given sizes (attribute before 13, input from 13)."""
    x = need(b.pick(lambda t: t.rank >= 1 and max(t.shape) >= 2))
    axis = b.choice([i for i, d in enumerate(x.shape) if d >= 2])
    d = x.shape[axis]
    parts = b.choice([p for p in (2, 3) if p <= d])
    cuts = sorted(int(c) for c in b.rng.choice(np.arange(1, d), size=parts - 1, replace=False))
    sizes = [e - s for s, e in zip([0] + cuts, cuts + [d])]
    attrs = {"axis": axis}
    args = [x]
    if d % parts == 0 and b.chance(0.4):
        sizes = None
    elif b.opset >= 13:
        args.append(b.ints(sizes, "split"))
    else:
        attrs["split"] = sizes
    outs = b.op("Split", args, n_out=parts, exact=x.exact, mag=x.mag,
                **attrs)
    # Torch often keeps a part and drops the rest; rejoin sometimes (a chunk-and-cat).
    if b.chance(0.3):
        concat(b, list(reversed(outs)), axis, exact=x.exact, mag=x.mag)


@idiom(weight=1)
def expand_tile(b):
    x = need(b.pick(lambda t: t.rank >= 1 and t.size <= 512))
    if b.chance(0.5) and 1 in x.shape and b.opset >= 8:
        target = [d if d != 1 or b.chance(0.3) else b.dim(2, 4) for d in x.shape]
        if b.chance(0.3):
            target = [b.dim(1, 2)] + target
        shape = np.broadcast_shapes(tuple(x.shape), tuple(target))
        b.op1("Expand", [x, b.ints(target)], exact=x.exact, mag=x.mag,
              known=[(x.dtype, shape)])
    else:
        reps = [b.choice([1, 1, 2, 3]) for _ in x.shape]
        b.op1("Tile", [x, b.ints(reps, "repeats")], exact=x.exact, mag=x.mag)


@idiom(weight=2)
def reduce(b):
    x = need(b.pick(lambda t: t.is_float and t.rank >= 1))
    op = b.choice(["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceL2", "ReduceL1",
                   "ReduceSumSquare", "ReduceLogSumExp", "ReduceProd"])
    axes = sorted(int(a) for a in b.rng.choice(x.rank, size=int(b.rng.integers(1, x.rank + 1)),
                                               replace=False))
    axes = [b.axis(a, x.rank) for a in axes]
    keep = int(b.chance(0.5))
    n_reduced = int(np.prod([x.shape[a] for a in axes]))
    if op == "ReduceProd" and n_reduced > 256:
        # A float32 product of thousands of factors near 1 carries ~n x 6e-8 of rounding, in
        # any order (the long run's seed 321191: 6,864 factors, tractc 1.7e-4 and ORT 5.7e-5
        # from float64): past any fair tolerance.
        op = "ReduceSum"
    if op == "ReduceProd":
        x = b.op1("Sigmoid", [x], live=False)
        x = b.op1("Add", [x, b.const(np.array(0.5, F32), "s")], live=False)
    if op == "ReduceLogSumExp" and x.mag > 20:
        x = b.op1("Tanh", [x], live=False)
    n = int(np.prod([x.shape[a] for a in axes]))
    exact = x.exact and op in ("ReduceMax", "ReduceMin")
    mag = x.mag * (n if op in ("ReduceSum", "ReduceL1") else 1) if op != "ReduceSumSquare" \
        else x.mag ** 2 * n
    if op == "ReduceSum" and b.opset < 13 and b.chance(0.2):
        b.op1(op, [x], keepdims=keep, exact=exact, mag=x.mag * x.size)  # all axes
        return
    reduce_op(b, op, x, axes, keepdims=keep, exact=exact, mag=mag)


@idiom(weight=1)
def arg_max(b):
    """ArgMax / ArgMin of exact values (ties are then the same everywhere), as int64 or cast."""
    x = need(b.pick(lambda t: t.is_float and t.exact and t.rank >= 1))
    attrs = {"axis": int(b.rng.integers(0, x.rank)), "keepdims": int(b.chance(0.5))}
    if b.opset >= 12 and b.chance(0.3):
        attrs["select_last_index"] = 1
    i = b.op1(b.choice(["ArgMax", "ArgMin"]), [x], exact=True, mag=max(x.shape), **attrs)
    if b.chance(0.5):
        b.op1("Cast", [i], to=1, exact=True, mag=i.mag)


@idiom(weight=1, opsets=(10, 17))
def top_k(b):
    x = need(b.pick(lambda t: t.is_float and t.exact and t.rank >= 1 and t.shape[-1] >= 2))
    k = int(b.rng.integers(1, x.shape[-1] + 1))
    attrs = {}
    if b.opset >= 11:
        attrs["largest"] = int(b.chance(0.7))
    v, i = b.op("TopK", [x, b.ints([k], "k")], n_out=2, exact=True, mag=x.mag, **attrs)
    if b.chance(0.5):
        b.retire(i)


@idiom(weight=1, opsets=(11, 17))
def cumsum(b):
    x = need(b.pick(lambda t: t.is_float and t.rank >= 1))
    axis = b.const(np.array(int(b.rng.integers(0, x.rank)), dtype=np.int64), "axis")
    b.op1("CumSum", [x, axis], exclusive=int(b.chance(0.3)), reverse=int(b.chance(0.3)),
          mag=x.mag * max(x.shape))


@idiom(weight=1)
def concat_live(b):
    """Concat of two computed tensors that agree off the axis (a skip connection, a cat)."""
    x = need(b.pick(lambda t: t.rank >= 1))
    axis = int(b.rng.integers(0, x.rank))
    y = b.pick(lambda t: t.name != x.name and t.dtype == x.dtype and t.rank == x.rank and all(
        a == c for i, (a, c) in enumerate(zip(t.shape, x.shape)) if i != axis))
    y = need(y)
    if x.shape[axis] + y.shape[axis] > 256:
        raise Skip()
    concat(b, [x, y] if b.chance(0.5) else [y, x], axis, exact=x.exact and y.exact,
           mag=max(x.mag, y.mag))


def concat(b, parts, axis, **kw):
    """Concat; its shape said here (ONNX 1.12 infers none for Concat before opset 11)."""
    shape = list(parts[0].shape)
    shape[axis] = sum(p.shape[axis] for p in parts)
    return b.op1("Concat", parts, axis=axis, known=[(parts[0].dtype, shape)], **kw)
