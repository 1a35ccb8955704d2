#!/usr/bin/python3
"""Asserts that an .npy file holds the expected values.

usage: check_npy.py FILE.npy DTYPE SHAPE VALUES [--atol A]
  SHAPE: comma-separated dims ('' for a scalar); VALUES: comma-separated.
Prints 'ok' or the mismatch and exits 1.
"""
import sys

import numpy as np


def main():
    path, dtype, shape, values = sys.argv[1:5]
    atol = float(sys.argv[sys.argv.index("--atol") + 1]) if "--atol" in sys.argv else 1e-6
    got = np.load(path)
    want_shape = tuple(int(d) for d in shape.split(",") if d != "")
    want = np.array([float(v) for v in values.split(",")], dtype=np.float64).reshape(want_shape)
    if got.dtype != np.dtype(dtype) or got.shape != want_shape:
        print(f"mismatch: got {got.dtype}{got.shape}, want {dtype}{want_shape}")
        sys.exit(1)
    if not np.allclose(got.astype(np.float64), want, atol=atol, rtol=0, equal_nan=True):
        print(f"mismatch: got {got.ravel().tolist()}, want {want.ravel().tolist()}")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
