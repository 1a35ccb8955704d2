#!/usr/bin/python3
"""Writes an .npy file: make_npy.py OUT.npy DTYPE SHAPE VALUES (see check_npy.py)."""
import sys

import numpy as np

path, dtype, shape, values = sys.argv[1:5]
dims = tuple(int(d) for d in shape.split(",") if d != "")
np.save(path, np.array([float(v) for v in values.split(",")], dtype=dtype).reshape(dims))
