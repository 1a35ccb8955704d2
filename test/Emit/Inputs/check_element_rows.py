"""The outputs of test/Emit/element-rows.onnxtext against numpy.

check_element_rows.py REPORT.json X.npy OUTDIR...: each OUTDIR's output_0..2.npy,
the report's BatchNorm + ReLU kernel (k1_M) writing over its input, and the
report's algorithm names."""
import json
import sys

import numpy as np

kernels = {k["name"]: k for k in json.load(open(sys.argv[1]))["kernels"]}
bn = kernels["k1_M"]
assert bn["inputs"][0]["arena_offset"] is not None, bn
assert bn["inputs"][0]["arena_offset"] == bn["outputs"][0]["arena_offset"], bn
# The report names the paths these kernels take (none is the reference).
assert [(k["name"], k["algorithm"]) for k in kernels.values()] == [
    ("k0_P", "pool_rows"), ("k1_M", "elementwise"), ("k2_Y", "pool_rows"),
    ("k3_Q", "pool_rows"), ("k4_N", "elementwise"), ("k5_G", "elementwise")], kernels.keys()
x = np.load(sys.argv[2])
scale = np.array([0.5, -1, 2, 0.25], np.float32).reshape(4, 1, 1)
shift = np.array([0.1, 0.2, -0.3, 0.4], np.float32).reshape(4, 1, 1)
bias = np.array([1, 2, 3, 4, 5, -1, -2, -3, -4, -5, 0.5, 1.5, 2.5, 3.5, 4.5,
                 -0.5, -1.5, -2.5, -3.5, -4.5], np.float32).reshape(4, 1, 5)
p = np.maximum(x[:, :, :-1], x[:, :, 1:])                 # MaxPool 2x1
r = np.maximum(p * scale + shift, 0)
y = np.maximum(r[..., :-1], r[..., 1:])                   # MaxPool 1x2
q = np.maximum(x[:, :, 0::2], x[:, :, 1::2])              # MaxPool 2x1, stride 2
z = 1 / (1 + np.exp(-(q * scale + bias)))
s = np.abs(x) * x
for out in sys.argv[3:]:
    for k, want in enumerate((y, z, s)):
        got = np.load(f"{out}/output_{k}.npy")
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"{out} output {k}")
print("ok")
