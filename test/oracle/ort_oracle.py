"""ONNX Runtime as the oracle, and the scale-relative comparison the zoo and the fuzzer share.

ensure_ort(workdir)         installs onnxruntime-node into WORKDIR/ort once (npm, --ignore-scripts:
                            the install script fetches GPU extras) and returns the module folder.
run_ort(ort, model, feeds)  runs MODEL on {name: ndarray} in ORT (node ort_reference.js) and returns
                            its outputs as ndarrays, in the model's output order.
run_ort_batch(ort, jobs)    the same for [(model, feeds, optimize)] in one node process; each
                            result is a list of outputs or an OracleError.
time_ort(ort, model, feeds, threads, repeat)
                            ORT's median time in ms (all graph optimisations on), for bench/.
compare(got, want)          None when `got` matches `want`, else a one-line reason: floats within
                            `rtol` of the reference's scale (its largest magnitude, at least
                            `min_scale`, 1e-6 by default),
                            integers and booleans exactly, NaN where the reference has NaN.
"""
import json
import os
import subprocess
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_VERSION = "1.30.0"

# ORT's tensor type names and numpy's.
_DTYPES = {
    "float32": np.float32, "float64": np.float64, "int8": np.int8, "uint8": np.uint8,
    "int16": np.int16, "uint16": np.uint16, "int32": np.int32, "int64": np.int64,
    "uint64": np.uint64, "bool": np.bool_,
}


def ensure_ort(workdir):
    prefix = os.path.join(os.path.abspath(workdir), "ort")
    mod = os.path.join(prefix, "node_modules", "onnxruntime-node")
    if not os.path.isdir(mod):
        os.makedirs(prefix, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--ignore-scripts", "--prefix", prefix,
                        "onnxruntime-node@" + ORT_VERSION], check=True)
    return mod


class OracleError(RuntimeError):
    """ORT refused or failed on the model (its message is the exception's)."""


def _ort_name(dtype):
    for name, t in _DTYPES.items():
        if np.dtype(t) == dtype:
            return name
    raise OracleError(f"no ORT tensor type for {dtype}")


def _job(model, feeds, optimize, outdir):
    inputs = []
    for k, (name, value) in enumerate(feeds.items()):
        value = np.ascontiguousarray(value)
        path = os.path.join(outdir, f"input_{k}.bin")
        value.tofile(path)
        inputs.append({"name": name, "dtype": _ort_name(value.dtype),
                       "shape": list(value.shape), "path": path})
    return {"model": os.path.abspath(model), "inputs": inputs, "outdir": outdir,
            "optimize": optimize}


def _outputs(outdir, failure="ORT wrote no outputs"):
    error = os.path.join(outdir, "error.txt")
    if os.path.exists(error):
        with open(error) as f:
            return OracleError(f.read().strip() or "ORT failed")
    if not os.path.exists(os.path.join(outdir, "outputs.json")):
        return OracleError(failure)
    with open(os.path.join(outdir, "outputs.json")) as f:
        described = json.load(f)
    outs = []
    for k, d in enumerate(described):
        if d["dtype"] not in _DTYPES:
            return OracleError(f"output '{d['name']}': ORT type {d['dtype']} not handled")
        data = np.fromfile(os.path.join(outdir, f"output_{k}.bin"), dtype=_DTYPES[d["dtype"]])
        outs.append(data.reshape(d["shape"]))
    return outs


def _node(ort, spec_path, timeout):
    try:
        r = subprocess.run(["node", os.path.join(HERE, "ort_reference.js"), ort, spec_path],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise OracleError(f"ORT took over {timeout} s")
    if r.returncode != 0:
        raise OracleError((r.stderr.strip().splitlines() or ["ORT failed"])[-1])


def run_ort(ort, model, feeds, timeout=300, optimize=False):
    with tempfile.TemporaryDirectory(prefix="ort-") as tmp:
        spec = os.path.join(tmp, "spec.json")
        with open(spec, "w") as f:
            json.dump(_job(model, feeds, optimize, tmp), f)
        _node(ort, spec, timeout)
        outs = _outputs(tmp)
        if isinstance(outs, OracleError):
            raise outs
        return outs


def time_ort(ort, model, feeds, threads=1, repeat=20, timeout=1800):
    """Median ms of `repeat` runs of MODEL in ORT with all graph optimisations, on `threads`."""
    with tempfile.TemporaryDirectory(prefix="ort-") as tmp:
        spec = os.path.join(tmp, "spec.json")
        job = _job(model, feeds, True, tmp)
        job.update(threads=threads, repeat=repeat)
        with open(spec, "w") as f:
            json.dump(job, f)
        _node(ort, spec, timeout)
        with open(os.path.join(tmp, "timing.json")) as f:
            return float(json.load(f)["median_ms"])


def run_ort_batch(ort, jobs, timeout=1800):
    with tempfile.TemporaryDirectory(prefix="ort-") as tmp:
        specs = []
        for k, (model, feeds, optimize) in enumerate(jobs):
            outdir = os.path.join(tmp, str(k))
            os.makedirs(outdir)
            specs.append(_job(model, feeds, optimize, outdir))
        spec = os.path.join(tmp, "spec.json")
        pending, failures = specs, {}
        while pending:
            with open(spec, "w") as f:
                json.dump({"jobs": pending}, f)
            try:
                _node(ort, spec, timeout)
                break
            except OracleError as e:
                # ORT died (an assertion in ORT aborts the process): the first job with no
                # result is the one that killed it; the ones after it run again.
                done = [os.path.exists(os.path.join(s["outdir"], "outputs.json"))
                        or os.path.exists(os.path.join(s["outdir"], "error.txt"))
                        for s in pending]
                if all(done):
                    break
                first = done.index(False)
                failures[pending[first]["outdir"]] = f"ORT died: {e}"
                pending = pending[first + 1:]
        return [_outputs(s["outdir"], failures.get(s["outdir"], "ORT wrote no outputs"))
                for s in specs]


def compare(got, want, rtol=1e-4, min_scale=1e-6):
    if got.shape != want.shape:
        return f"shape {list(got.shape)} against {list(want.shape)}"
    if want.size == 0:
        return None
    if want.dtype.kind in "biu" or got.dtype.kind in "biu":
        if got.dtype.kind not in "biu":
            return f"dtype {got.dtype} against {want.dtype}"
        bad = np.flatnonzero(got.astype(np.int64) != want.astype(np.int64))
        if bad.size:
            i = bad[0]
            return (f"{bad.size} of {want.size} integers differ, first at {i}: "
                    f"{got.flat[i]} against {want.flat[i]}")
        return None
    g, w = got.astype(np.float64), want.astype(np.float64)
    nan = np.isnan(w)
    if (np.isnan(g) != nan).any():
        return "NaN where the reference has none, or the other way round"
    finite = ~nan & np.isfinite(w)
    if (g[~finite & ~nan] != w[~finite & ~nan]).any():
        return "an infinity differs"
    if not finite.any():
        return None
    scale = max(min_scale, float(np.abs(w[finite]).max()))
    err = float(np.abs(g[finite] - w[finite]).max())
    if not err <= rtol * scale:
        return f"max abs diff {err:.3g} over scale {scale:.3g} (rtol {rtol:g})"
    return None


def relative_error(got, want):
    """max |got - want| / max(1e-6, max |want|) over the finite elements (0 for integers)."""
    if want.size == 0 or want.dtype.kind in "biu":
        return 0.0
    g, w = got.astype(np.float64), want.astype(np.float64)
    finite = np.isfinite(w) & np.isfinite(g)
    if not finite.any():
        return 0.0
    return float(np.abs(g[finite] - w[finite]).max() / max(1e-6, np.abs(w[finite]).max()))
