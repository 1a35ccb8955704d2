#!/usr/bin/python3
# Expected values for test_resize.cpp from the ONNX Python reference
# implementation of Resize (onnx/backend/test/case/node/resize.py).
#
# usage: resize_reference.py CASES OUT
# CASES: one case per line, whitespace separated:
#   name mode coord nearest_mode cubic_a exclude_outside extrapolation_value
#   use_scales rank in_shape[rank] out_shape[rank] scales[rank] roi[2*rank]
#   data[prod(in_shape)] debian_test_name_or_-
# OUT: for each case "name n v..." (float64 results, before any cast), and
# for cases naming a Debian ONNX test that is installed, also
# "name#debian n v..." with that test's expected output.
# Exit status 3 when onnx/numpy cannot be imported.
import os
import sys

try:
    import numpy as np
    from onnx.backend.test.case.node import resize as R
except Exception as e:  # pragma: no cover
    sys.stderr.write("resize_reference.py: %s\n" % e)
    sys.exit(3)

DEBIAN = "/usr/share/libonnx-testdata/data/node"


def coeff_fn(mode, nearest_mode, a):
    if mode == "nearest":
        return lambda r: R.nearest_coeffs(r, mode=nearest_mode)
    # float64 arrays: linear_coeffs(1) is an int64 array, which the
    # reference's in-place exclude_outside renormalisation cannot divide.
    if mode == "linear":
        return lambda r: np.asarray(R.linear_coeffs(r), dtype=np.float64)
    return lambda r: np.asarray(R.cubic_coeffs(r, A=a), dtype=np.float64)


def run_case(tok):
    it = iter(tok)
    name = next(it)
    mode, coord, nearest_mode = next(it), next(it), next(it)
    a = float(np.float32(float(next(it))))
    exclude = next(it) == "1"
    extrap = float(np.float32(float(next(it))))
    use_scales = next(it) == "1"
    rank = int(next(it))
    in_shape = [int(next(it)) for _ in range(rank)]
    out_shape = [int(next(it)) for _ in range(rank)]
    scales = np.array([float(next(it)) for _ in range(rank)], dtype=np.float32)
    roi = np.array([float(next(it)) for _ in range(2 * rank)], dtype=np.float32)
    n = int(np.prod(in_shape))
    data = np.array([float(next(it)) for _ in range(n)],
                    dtype=np.float32).reshape(in_shape)
    debian = next(it)
    f = coeff_fn(mode, nearest_mode, a)
    kw = dict(extrapolation_value=extrap, exclude_outside=exclude)
    if coord != "tf_half_pixel_for_nn":
        kw["coordinate_transformation_mode"] = coord
        if use_scales:
            out = R.interpolate_nd(data, f, scale_factors=scales, roi=roi, **kw)
        else:
            out = R.interpolate_nd(data, f, output_size=out_shape, roi=roi, **kw)
    else:
        # Not in this reference (dropped after opset 12): x_ori = (x + 0.5) / s,
        # i.e. 'asymmetric' evaluated at x + 0.5.
        kw["coordinate_transformation_mode"] = "asymmetric"
        if use_scales:
            sf = scales
            osz = (scales * np.array(data.shape)).astype(int)
        else:
            sf = np.array(out_shape) / np.array(data.shape)
            osz = np.array(out_shape)
        out = np.zeros(osz)
        for x in R.cartesian([list(range(d)) for d in osz]):
            out[tuple(x)] = R.interpolate_nd_with_x(
                data, rank, sf, x + 0.5, f, roi=roi, **kw)
    if list(out.shape) != out_shape:
        raise SystemExit("%s: output shape %s != %s" % (name, out.shape, out_shape))
    lines = ["%s %d %s" % (name, out.size,
                           " ".join(repr(float(v)) for v in out.reshape(-1)))]
    if debian != "-":
        p = os.path.join(DEBIAN, debian, "test_data_set_0", "output_0.pb")
        if os.path.exists(p):
            import onnx
            from onnx import numpy_helper
            t = onnx.TensorProto()
            with open(p, "rb") as fh:
                t.ParseFromString(fh.read())
            e = numpy_helper.to_array(t).astype(np.float64).reshape(-1)
            lines.append("%s#debian %d %s" % (name, e.size,
                                              " ".join(repr(float(v)) for v in e)))
    return lines


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: resize_reference.py CASES OUT")
    res = []
    with open(sys.argv[1]) as fh:
        for line in fh:
            tok = line.split()
            if tok:
                res.extend(run_case(tok))
    with open(sys.argv[2], "w") as fh:
        fh.write("\n".join(res) + "\n")


if __name__ == "__main__":
    main()
