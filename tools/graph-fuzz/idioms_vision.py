"""Convolutional idioms: convs in every padding form (explicit, asymmetric, tf2onnx's auto_pad),
grouped and depthwise, unfused BatchNorm, pools, squeeze-and-excitation, residuals, branches
joined by Concat, channel shuffle, NHWC islands of Transposes, Resize/Upsample and Pad in their
opset forms, depth/space rearrangements, ConvTranspose."""
import numpy as np

from idioms_math import NORM_EPS, activation, clip, reduce_op, scalar
from idioms_registry import Skip, idiom, need
from idioms_tensor import concat

F32 = np.float32


def feature_map(t, spatial=(1, 2, 3)):
    return t.is_float and t.rank - 2 in spatial and t.shape[1] <= 96


def out_size(n, k, s, d, p0, p1):
    return (n + p0 + p1 - d * (k - 1) - 1) // s + 1


def conv(b, x, cout=None, k=None, group=None, stride=None, pads="any", bias=None):
    """A Conv on x ([N, C, *spatial]) with random geometry; returns its output tensor."""
    c, spatial = x.shape[1], x.shape[2:]
    if group is None:
        r = b.rng.random()
        group = c if r < 0.25 else 1
        if 0.25 <= r < 0.35:
            group = b.choice([g for g in (2, 3, 4, 8) if c % g == 0] or [1])
    if cout is None:
        # Mostly small; now and then wide enough to take the GEMM past one block of rows.
        wide = 96 if b.chance(0.2) else 48
        cout = group * b.dim(1, max(1, wide // group)) if group > 1 else b.dim(1, wide)
        if group == c and b.chance(0.7):
            cout = c  # depthwise, multiplier 1
    given_k = k
    k = k or [b.choice([1, 3, 3, 5, 7]) if b.chance(0.85) else b.choice([1, 2, 3])
              for _ in spatial]
    if b.chance(0.15) and len(spatial) == 2 and given_k is None:
        k = b.choice([[1, 3], [3, 1], [1, 7], [7, 1]])
    stride = stride or [b.choice([1, 1, 2]) for _ in spatial]
    dil = [b.choice([1, 1, 1, 2]) for _ in spatial]
    attrs = {"kernel_shape": k, "strides": stride}
    if any(d > 1 for d in dil) or b.chance(0.2):
        attrs["dilations"] = dil
    else:
        dil = [1] * len(spatial)
    if pads == "any" and b.chance(0.15) and all(d == 1 for d in dil):
        attrs["auto_pad"] = b.choice(["SAME_UPPER", "SAME_LOWER", "VALID"])
        if attrs["auto_pad"] == "VALID" and any(n < kk for n, kk in zip(spatial, k)):
            raise Skip()
    else:
        style = b.choice(["same", "zero", "asym"]) if pads == "any" else pads
        half = [dd * (kk - 1) // 2 for kk, dd in zip(k, dil)]
        if style == "same":
            p = half + half
        elif style == "zero":
            p = [0] * (2 * len(spatial))
        else:
            p = [int(b.rng.integers(0, kk)) for kk in k] + [int(b.rng.integers(0, kk)) for kk in k]
        for n, kk, s, d, p0, p1 in zip(spatial, k, stride, dil, p[:len(k)], p[len(k):]):
            if out_size(n, kk, s, d, p0, p1) < 1:
                raise Skip()
        if any(p) or b.chance(0.5):
            attrs["pads"] = p
    if group > 1:
        attrs["group"] = group
    fan_in = c // group * int(np.prod(k))
    w = b.weight([cout, c // group, *k], fan_in)
    args = [x, w]
    if bias if bias is not None else b.chance(0.7):
        args.append(b.const((b.rng.standard_normal([cout]) * 0.1).astype(F32), "bias",
                            as_node=False))
    return b.op1("Conv", args, mag=x.mag + 0.5, **attrs)


def batch_norm(b, x):
    c = x.shape[1]
    params = [b.rng.uniform(0.5, 1.5, c), b.rng.standard_normal(c) * 0.1,
              b.rng.standard_normal(c) * 0.1, b.rng.uniform(0.5, 1.5, c)]
    args = [x] + [b.const(p.astype(F32), n, as_node=False)
                  for p, n in zip(params, ["bn_scale", "bn_bias", "bn_mean", "bn_var"])]
    attrs = {"epsilon": float(b.choice([1e-5, 1e-3]))}
    if b.opset < 9:
        attrs["spatial"] = 1
    return b.op1("BatchNormalization", args, mag=2 * x.mag + 1, **attrs)


@idiom(weight=6)
def conv_block(b):
    """Conv [-> BatchNormalization] [-> activation]: the backbone of every CNN export."""
    x = need(b.pick(feature_map))
    if x.rank == 5 and b.chance(0.5):
        raise Skip()  # 3-D convs: less often, they are slow to run
    y = conv(b, x)
    if b.chance(0.35):
        y = batch_norm(b, y)
    if b.chance(0.75):
        activation(b, y)


@idiom(weight=1, opsets=(9, 17))
def batch_norm_alone(b):
    batch_norm(b, need(b.pick(lambda t: t.is_float and t.rank >= 3 and t.shape[1] <= 256)))


@idiom(weight=2)
def residual(b):
    """y = act(bn(conv(x))) with x's shape, then x + y (ResNet, MobileNetV2's inverted block)."""
    x = need(b.pick(lambda t: feature_map(t, (1, 2))))
    c = x.shape[1]
    y = conv(b, x, cout=c if b.chance(0.5) else None, k=[1] * (x.rank - 2), stride=[1] * (x.rank - 2),
             pads="zero")
    y = activation(b, y, ["relu", "relu6", "silu", "hardswish_hs"])
    y = conv(b, y, cout=c, k=[3] * (x.rank - 2), stride=[1] * (x.rank - 2), pads="same",
             group=b.choice([1, c if y.shape[1] == c else 1]))
    if b.chance(0.5):
        y = batch_norm(b, y)
    s = b.op1("Add", [x, y] if b.chance(0.5) else [y, x], mag=x.mag + y.mag)
    if b.chance(0.5):
        activation(b, s, ["relu", "relu6"])


@idiom(weight=2)
def squeeze_excite(b):
    """Pool -> 1x1 Conv -> Relu -> 1x1 Conv -> Sigmoid / HardSigmoid -> Mul (MobileNetV3, EfficientNet)."""
    x = need(b.pick(lambda t: feature_map(t, (2,))))
    c = x.shape[1]
    if b.chance(0.5):
        p = b.op1("GlobalAveragePool", [x], live=False, mag=x.mag)
    else:
        p = reduce_op(b, "ReduceMean", x, [2, 3], keepdims=1, live=False, mag=x.mag)
    r = max(1, c // b.choice([4, 8, 16]))
    h = conv(b, p, cout=r, k=[1, 1], group=1, stride=[1, 1], pads="zero", bias=True)
    h = b.op1("Relu", [h], live=False, mag=h.mag)
    g = conv(b, h, cout=c, k=[1, 1], group=1, stride=[1, 1], pads="zero", bias=True)
    if b.chance(0.5):
        s = b.op1("Sigmoid", [g], live=False)
    else:
        s = b.op1("HardSigmoid", [g], alpha=1 / 6, beta=0.5, live=False)
    b.op1("Mul", [x, s] if b.chance(0.5) else [s, x], mag=x.mag)


def pool_attrs(b, spatial, op):
    """Random window attributes of a MaxPool / AveragePool over maps of `spatial` sizes."""
    k = [b.choice([2, 3]) for _ in spatial]
    s = [b.choice([1, 2, 2]) for _ in spatial]
    attrs = {"kernel_shape": k, "strides": s}
    if b.chance(0.15):
        attrs["auto_pad"] = "SAME_UPPER"
        return attrs
    p = [int(b.rng.integers(0, kk)) for kk in k] * 2 if b.chance(0.5) else [0] * (2 * len(k))
    if any(p):
        attrs["pads"] = p
    if b.opset >= 10 and b.chance(0.3):
        attrs["ceil_mode"] = 1
    for n, kk, ss, p0, p1 in zip(spatial, k, s, p[:len(k)], p[len(k):]):
        if out_size(n, kk, ss, 1, p0, p1) < 1:
            raise Skip()
        # With ceil_mode, a last window that would start in the end padding is dropped by
        # ORT and not by ONNX 1.12's shape inference: leave that case out.
        o = -(-(n + p0 + p1 - kk) // ss) + 1
        if attrs.get("ceil_mode") and (o - 1) * ss >= n + p0:
            del attrs["ceil_mode"]
    if op == "AveragePool" and any(p) and b.chance(0.5):
        attrs["count_include_pad"] = 1
    return attrs


@idiom(weight=2)
def pool(b):
    x = need(b.pick(lambda t: feature_map(t, (1, 2))))
    if b.chance(0.2):
        b.op1(b.choice(["GlobalAveragePool", "GlobalMaxPool"]), [x], exact=x.exact, mag=x.mag)
        return
    op = b.choice(["MaxPool", "AveragePool"])
    b.op1(op, [x], exact=x.exact and op == "MaxPool", mag=x.mag, **pool_attrs(b, x.shape[2:], op))


@idiom(weight=2)
def stem(b):
    """A network's first conv (few input channels) -> activation -> MaxPool, the pool the conv's
    only reader (ResNet's, SqueezeNet's, ShuffleNet's stem: tractc chains the two kernels)."""
    x = need(b.pick(lambda t: feature_map(t, (1, 2)) and t.shape[1] <= 8 and t.shape[-1] >= 24))
    y = conv(b, x, group=1)
    a = activation(b, y, ["relu", "relu", "relu6", "leaky", "clip_min", "prelu"])
    b.retire(y, a)
    b.op1("MaxPool", [a], exact=a.exact, mag=a.mag, **pool_attrs(b, a.shape[2:], "MaxPool"))


@idiom(weight=2)
def branches_concat(b):
    """Two convs of one input joined on channels (Inception, DenseNet's Concat with its input)."""
    x = need(b.pick(lambda t: feature_map(t, (2,))))
    y1 = conv(b, x, k=[1, 1], stride=[1, 1], pads="zero", group=1)
    if b.chance(0.4):
        parts = [x, y1]
    else:
        y2 = conv(b, x, k=[3, 3], stride=[1, 1], pads="same", group=1)
        parts = [y1, y2] if b.chance(0.5) else [y2, x, y1]
    if sum(p.shape[1] for p in parts) > 128:
        raise Skip()
    concat(b, parts, b.axis(1, 4, 0.5), mag=max(p.mag for p in parts))


@idiom(weight=1)
def channel_shuffle(b):
    """Reshape [N, g, C/g, H, W] -> Transpose -> Reshape back (ShuffleNet)."""
    x = need(b.pick(lambda t: feature_map(t, (2,)) and t.shape[1] % 2 == 0))
    n, c, h, w = x.shape
    g = b.choice([d for d in (2, 3, 4) if c % d == 0])
    r = b.op1("Reshape", [x, b.ints([n, g, c // g, h, w])], exact=x.exact, mag=x.mag, live=False)
    t = b.op1("Transpose", [r], perm=[0, 2, 1, 3, 4], exact=x.exact, mag=x.mag, live=False)
    b.op1("Reshape", [t, b.ints([n, -1, h, w] if b.chance(0.5) else [n, c, h, w])],
          exact=x.exact, mag=x.mag)


@idiom(weight=2)
def nhwc_island(b):
    """tf2onnx's layout: Transpose to NHWC, work on the channels-last tensor, Transpose back."""
    x = need(b.pick(lambda t: feature_map(t, (2,))))
    t = b.op1("Transpose", [x], perm=[0, 2, 3, 1], exact=x.exact, mag=x.mag, live=False)
    c = x.shape[1]
    r = b.rng.random()
    if r < 0.4:  # a 1x1 conv written as MatMul + Add on the channel axis
        c2 = b.dim(1, 32)
        m = b.op1("MatMul", [t, b.weight([c, c2], c)], live=False, mag=x.mag)
        y = b.op1("Add", [m, b.const(np.zeros(c2, F32) + 0.1, "b", as_node=False)], live=False)
    elif r < 0.7:  # per-channel affine: a BatchNorm folded by the converter
        s = b.op1("Mul", [t, b.const(b.rng.uniform(0.5, 1.5, c).astype(F32), "s", as_node=False)],
                  live=False, mag=x.mag * 1.5)
        y = b.op1("Add", [s, b.const((b.rng.standard_normal(c) * 0.1).astype(F32), "b",
                                     as_node=False)], live=False, mag=s.mag + 0.3)
    else:
        y = b.op1("Relu", [t], exact=x.exact, live=False, mag=x.mag)
    if b.chance(0.3):  # back and forth again, as converters leave them
        y = b.op1("Transpose", [y], perm=[0, 3, 1, 2], exact=y.exact, live=False, mag=y.mag)
        y = b.op1("Transpose", [y], perm=[0, 2, 3, 1], exact=y.exact, live=False, mag=y.mag)
    out = b.op1("Transpose", [y], perm=[0, 3, 1, 2], exact=y.exact, mag=y.mag)
    if b.chance(0.3):
        conv(b, out)


@idiom(weight=2, opsets=(7, 17))
def resize(b):
    """Upsample (opsets 7-9), Resize with scales (10), with roi/scales or sizes (11+)."""
    x = need(b.pick(lambda t: feature_map(t, (2,)) and t.shape[2] * t.shape[3] <= 256))
    n, c, h, w = x.shape
    mode = b.choice(["nearest", "linear"])
    factor = b.choice([2.0, 2.0, 3.0, 0.5, 1.5])
    if factor < 1 and min(h, w) < 2:
        factor = 2.0
    if b.opset < 10 and factor < 1:
        factor = 2.0  # Upsample only enlarges
    scales = np.array([1, 1, factor, factor], dtype=F32)
    exact = x.exact and mode == "nearest"
    if b.opset < 10:
        if b.opset < 9:
            b.op1("Upsample", [x], mode=mode, scales=scales.tolist(), exact=exact, mag=x.mag)
        else:
            b.op1("Upsample", [x, b.const(scales, "scales")], mode=mode, exact=exact, mag=x.mag)
        return
    if b.opset == 10:
        b.op1("Resize", [x, b.const(scales, "scales")], mode=mode, exact=exact, mag=x.mag)
        return
    attrs = {"mode": mode}
    ctm = b.choice(["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"])
    if mode == "nearest":
        attrs["nearest_mode"] = b.choice(["round_prefer_floor", "floor", "round_prefer_ceil",
                                          "ceil"])
        if ctm == "align_corners":
            ctm = "asymmetric"
    attrs["coordinate_transformation_mode"] = ctm
    roi = b.const(np.array([], dtype=F32), "roi") if b.opset < 13 or b.chance(0.5) else ""
    # align_corners and pytorch_half_pixel depend on the output length: ONNX's reference takes
    # it as scale x length unrounded, ORT (and torch) as the output's size. Scales that give a
    # whole size keep the two in agreement.
    whole = float(h * factor).is_integer() and float(w * factor).is_integer()
    if b.chance(0.5) and (whole or ctm not in ("align_corners", "pytorch_half_pixel")):
        b.op1("Resize", [x, roi, b.const(scales, "scales")], exact=exact, mag=x.mag, **attrs)
    else:
        sizes = b.ints([n, c, max(1, int(h * factor)), max(1, int(w * factor))], "sizes")
        empty = b.const(np.array([], dtype=F32), "scales")
        if b.opset < 13:  # roi and scales must be given (empty) before opset 13
            args = [x, b.const(np.array([], dtype=F32), "roi"), empty, sizes]
        else:
            args = [x, roi, empty if b.chance(0.5) else "", sizes]
        b.op1("Resize", args, exact=exact, mag=x.mag, **attrs)


@idiom(weight=2)
def pad(b):
    """Pad: attributes before opset 11, pads (and the value) as inputs from 11 on."""
    x = need(b.pick(lambda t: t.is_float and t.rank >= 2 and t.rank <= 5))
    mode = b.choice(["constant", "constant", "reflect", "edge"])
    spatial_only = b.chance(0.7) and x.rank >= 3
    pads = []
    for half in range(2):
        for i, d in enumerate(x.shape):
            if spatial_only and i < 2:
                pads.append(0)
                continue
            hi = d - 1 if mode == "reflect" else 3
            pads.append(int(b.rng.integers(0, max(0, min(hi, 3)) + 1)))
    if mode == "edge" and any(d == 0 for d in x.shape):
        raise Skip()
    value = float(b.choice([0.0, 0.0, -1.0, 0.5]))
    if b.opset < 11:
        attrs = {"pads": pads, "mode": mode}
        if mode == "constant" and value:
            attrs["value"] = value
        b.op1("Pad", [x], exact=x.exact, mag=max(x.mag, 1.0), **attrs)
        return
    args = [x, b.ints(pads, "pads")]
    if mode == "constant" and value:
        args.append(b.const(np.array(value, dtype=F32), "value"))
    b.op1("Pad", args, mode=mode, exact=x.exact, mag=max(x.mag, 1.0))


@idiom(weight=1)
def depth_space(b):
    x = need(b.pick(lambda t: feature_map(t, (2,))))
    n, c, h, w = x.shape
    if c % 4 == 0 and b.chance(0.6):
        attrs = {"blocksize": 2}
        if b.opset >= 11:
            attrs["mode"] = b.choice(["DCR", "CRD"])
        b.op1("DepthToSpace", [x], exact=x.exact, mag=x.mag, **attrs)
    elif h % 2 == 0 and w % 2 == 0:
        b.op1("SpaceToDepth", [x], blocksize=2, exact=x.exact, mag=x.mag)
    else:
        raise Skip()


@idiom(weight=2)
def conv_transpose(b):
    """ConvTranspose [-> BatchNormalization] [-> activation]: decoders, FPN and
    segmentation heads, GAN generators (1-d: vocoders). Strides 1 to 3, pads
    up to k - 1 (deep crops), output_padding, groups."""
    x = need(b.pick(lambda t: feature_map(t) and max(t.shape[2:]) <= 16))
    if x.rank == 5 and (b.chance(0.5) or max(x.shape[2:]) > 8):
        raise Skip()  # 3-D: less often, they are slow to run
    c, spatial = x.shape[1], x.shape[2:]
    k = [b.choice([1, 2, 3, 4, 5]) for _ in spatial]
    s = [b.choice([1, 2, 2, 3]) for _ in spatial]
    r = b.rng.random()
    group = c if r < 0.15 else (2 if r < 0.3 and c % 2 == 0 else 1)
    cout = c if group == c else b.dim(1, 24) // group * group or group
    attrs = {"kernel_shape": k, "strides": s}
    if group > 1:
        attrs["group"] = group
    if b.chance(0.5):
        attrs["pads"] = [int(b.rng.integers(0, kk)) for kk in k] * 2
    if b.chance(0.3):
        attrs["output_padding"] = [int(b.rng.integers(0, ss)) for ss in s]
    w = b.weight([c, cout // group, *k], c // group * int(np.prod(k)))
    args = [x, w]
    if b.chance(0.6):
        args.append(b.const((b.rng.standard_normal(cout) * 0.1).astype(F32), "bias",
                            as_node=False))
    out = [(n - 1) * ss + (kk - 1) + 1 for n, ss, kk in zip(spatial, s, k)]
    if any(o - 2 * p < 1 for o, p in zip(out, attrs.get("pads", [0] * len(k)))):
        raise Skip()
    y = b.op1("ConvTranspose", args, mag=x.mag + 0.5, **attrs)
    if b.chance(0.3):
        y = batch_norm(b, y)
    if b.chance(0.4):
        activation(b, y)


@idiom(weight=1)
def instance_norm(b):
    x = need(b.pick(lambda t: feature_map(t, (1, 2)) and all(d > 1 for d in t.shape[2:])))
    c = x.shape[1]
    b.op1("InstanceNormalization",
          [x, b.const(b.rng.uniform(0.5, 1.5, c).astype(F32), "g", as_node=False),
           b.const((b.rng.standard_normal(c) * 0.1).astype(F32), "b", as_node=False)],
          epsilon=NORM_EPS, mag=4.0)


@idiom(weight=1)
def clip_forms(b):
    """Clip with constant bounds in both opset forms, one bound omitted, or bounds computed."""
    x = need(b.pick(lambda t: t.is_float))
    lo, hi = b.choice([(0.0, 6.0), (-1.0, 1.0), (None, 0.5), (-0.5, None)])
    if b.opset >= 11 and b.chance(0.25):
        # Bounds that are outputs of nodes (paddle2onnx casts them), still constant.
        lo_t = b.op1("Cast", [b.const(np.array(-1.0, dtype=np.float64), "lo")], to=1,
                     exact=True, live=False)
        b.op1("Clip", [x, lo_t, scalar(b, 2.0)], exact=x.exact, mag=min(x.mag, 2.0))
        return
    if lo is None and b.opset < 11:
        lo = -3.4e38
    if hi is None and b.opset < 11:
        hi = 3.4e38
    clip(b, x, lo, hi)
