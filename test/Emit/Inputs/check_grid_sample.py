"""Checks grid-sample-blocks.onnxtext's outputs against numpy GridSample.

check_grid_sample.py X.npy G.npy H.npy K.npy OUT_DIR...: each OUT_DIR holds the
model's three outputs; they must be equal to each other bit for bit (1 and
2 threads) and, within float rounding, to ONNX GridSample (opset 16) in
float64: Y = X sampled at G, bilinear / zeros / align_corners 0; Z = H at
G[:2], nearest / border / align_corners 1; B = K at G[:1], bicubic / zeros /
align_corners 0 (the reference path).
"""
import sys

import numpy as np


def unnormalize(g, size, align):
    return (g + 1) / 2 * (size - 1) if align else ((g + 1) * size - 1) / 2


def tap(x, yi, xi, border):
    """x[n, :, yi, xi] per grid point (0 outside, or clamped with border)."""
    n, c, h, w = x.shape
    if border:
        yi, xi = np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)
    inside = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
    yc, xc = np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)
    b = np.arange(n)[:, None, None]
    v = x[b, :, yc, xc]  # (n, oh, ow, c)
    return np.where(inside[..., None], v, 0.0).transpose(0, 3, 1, 2)


def bilinear(x, g):
    _, _, h, w = x.shape
    px, py = unnormalize(g[..., 0], w, False), unnormalize(g[..., 1], h, False)
    x0, y0 = np.floor(px), np.floor(py)
    lx, ly = (px - x0)[:, None], (py - y0)[:, None]
    x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
    return ((1 - lx) * (1 - ly) * tap(x, y0, x0, False) + lx * (1 - ly) * tap(x, y0, x0 + 1, False)
            + (1 - lx) * ly * tap(x, y0 + 1, x0, False) + lx * ly * tap(x, y0 + 1, x0 + 1, False))


def nearest_border(x, g):
    _, _, h, w = x.shape
    px = np.clip(unnormalize(g[..., 0], w, True), 0, w - 1)
    py = np.clip(unnormalize(g[..., 1], h, True), 0, h - 1)
    return tap(x, np.rint(py).astype(np.int64), np.rint(px).astype(np.int64), True)


def cubic(d):
    a, d = -0.75, np.abs(d)
    return np.where(d <= 1, ((a + 2) * d - (a + 3)) * d * d + 1,
                    np.where(d < 2, ((a * d - 5 * a) * d + 8 * a) * d - 4 * a, 0.0))


def bicubic(x, g):
    _, _, h, w = x.shape
    px, py = unnormalize(g[..., 0], w, False), unnormalize(g[..., 1], h, False)
    x0, y0 = np.floor(px), np.floor(py)
    out = 0
    for i in range(-1, 3):
        for j in range(-1, 3):
            wgt = (cubic(px - (x0 + j)) * cubic(py - (y0 + i)))[:, None]
            out = out + wgt * tap(x, (y0 + i).astype(np.int64), (x0 + j).astype(np.int64), False)
    return out


def main():
    x, g, h, k = (np.load(p).astype(np.float64) for p in sys.argv[1:5])
    want = [bilinear(x, g), nearest_border(h, g[:2]), bicubic(k, g[:1])]
    dirs = sys.argv[5:]
    got = [[np.load("%s/output_%d.npy" % (d, i)) for i in range(3)] for d in dirs]
    for other in got[1:]:
        for a, b in zip(got[0], other):
            np.testing.assert_array_equal(a, b)
    for gv, wv in zip(got[0], want):
        np.testing.assert_allclose(gv, wv, rtol=1e-5, atol=1e-5)
    print("ok")


if __name__ == "__main__":
    main()
