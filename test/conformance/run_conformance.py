#!/usr/bin/python3
"""ONNX backend conformance harness for tractc.

Runs tractc over Debian's libonnx-testdata
(/usr/share/libonnx-testdata/data/{node,simple,pytorch-converted,pytorch-operator}/<test>/),
compiling each model ahead of time with `tractc --main`, building it with g++, running the
binary on every test_data_set_N and comparing with the reference outputs.

Each test is classified as one of:
  pass           all data sets match
  wrong          value mismatch, bad shape or dtype, missing/unreadable output .npy
  unsupported    tractc exited 2 (or the harness cannot feed the model: sequence/optional/string I/O)
  compile-error  tractc exited 1 (or did not write OUT.cpp/OUT.h), or g++ failed
  crash          tractc or the model binary was killed by a signal (or tractc exited with an
                 undocumented code), or the model binary exited non-zero
  timeout        a step ran past --timeout seconds
  harness-error  a bug/unexpected condition in this script (should stay at 0)

The last line printed is exactly `N passed, M failed` (N = tests passing, M = tests listed in the
expected file that did not pass); the exit status is 1 iff M > 0.

Needs /usr/bin/python3 (onnx + numpy).
"""

import argparse
import atexit
import collections
import concurrent.futures
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA_ROOT = "/usr/share/libonnx-testdata/data"
ALL_SUITES = ["node", "simple", "pytorch-converted", "pytorch-operator"]
DEFAULT_EXPECTED = os.path.join(REPO, "test", "conformance", "expected_pass.txt")
DEFAULT_EXPECTED_SPIRV = os.path.join(REPO, "test", "conformance", "expected_pass_spirv.txt")
CLASSES = ["pass", "wrong", "unsupported", "compile-error", "crash", "timeout", "harness-error"]

RTOL = 1e-3
ATOL = 1e-7

# TensorProto data types that cannot travel through a .npy file to the model binary.
_NON_NPY_TYPES = {
    onnx.TensorProto.UNDEFINED: "undefined",
    onnx.TensorProto.COMPLEX64: "complex64",
    onnx.TensorProto.COMPLEX128: "complex128",
}


# --------------------------------------------------------------------------------------------
# subprocess helper: runs in its own session so that a timeout kills the whole process group
# (g++ spawns cc1plus/as/ld; killing only g++ would leave them running).
# --------------------------------------------------------------------------------------------
class StepResult:
    def __init__(self, rc, out, timed_out, seconds):
        self.rc = rc              # None when timed out; negative = killed by signal -rc
        self.out = out            # stdout + stderr, decoded
        self.timed_out = timed_out
        self.seconds = seconds


def run_step(argv, cwd, timeout):
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as e:
        return StepResult(127, "cannot execute %s: %s" % (argv[0], e), False, 0.0)
    try:
        out, _ = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        out, _ = proc.communicate()
        timed_out = True
    text = out.decode("utf-8", errors="replace") if out else ""
    return StepResult(None if timed_out else proc.returncode, text, timed_out,
                      time.monotonic() - t0)


def signame(rc):
    try:
        return signal.Signals(-rc).name
    except (ValueError, TypeError):
        return "signal %d" % -rc


# --------------------------------------------------------------------------------------------
# reason helpers
# --------------------------------------------------------------------------------------------
def first_lines(text, n=2, width=300):
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    s = " | ".join(lines[:n])
    return s if len(s) <= width else s[:width - 3] + "..."


def tractc_message(text):
    """The most informative line of tractc's output (prefers lines mentioning an error)."""
    lines = [re.sub(r"^(\S*/)?tractc:\s*", "", l.strip())
             for l in text.strip().splitlines() if l.strip()]
    for key in ("unsupported", "error", "Error", "ERROR"):
        for l in lines:
            if key in l:
                return l[:300]
    return first_lines("\n".join(lines))


def gxx_message(text):
    for l in text.splitlines():
        if "error:" in l or "Error:" in l or "undefined reference" in l:
            return l.strip()[:300]
    return first_lines(text)


def model_op_types(graph, acc=None):
    """All op types of a graph, including those of subgraphs (If/Loop/Scan bodies)."""
    if acc is None:
        acc = set()
    for node in graph.node:
        acc.add(node.op_type)
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                model_op_types(attr.g, acc)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for g in attr.graphs:
                    model_op_types(g, acc)
    return acc


_OPTYPE_RE = re.compile(r"op[ _-]?types?\b\s*[:=]?\s*(.*)", re.IGNORECASE)
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def unsupported_op_types(message, ops_in_model):
    """Op type names mentioned in tractc's 'unsupported' message.

    Prefers identifiers that follow the phrase 'op type(s)' and are op types of the model; then
    any op type of the model named on a line that says 'unsupported'; then capitalised identifiers
    following 'op type(s)'."""
    lines = [l for l in message.splitlines() if l.strip()]
    after = []
    for l in lines:
        for m in _OPTYPE_RE.finditer(l):
            after.extend(_IDENT_RE.findall(m.group(1)))
    found = [t for t in after if t in ops_in_model]
    if not found:
        for l in lines:
            if "unsupported" in l.lower():
                found.extend(t for t in _IDENT_RE.findall(l) if t in ops_in_model)
    if not found:
        found = [t for t in after if t[:1].isupper()]
    seen, out = set(), []
    for t in found:
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


def normalize_reason(reason):
    """Shrink a reason to a category key for the summary (numbers/paths/quoted names blurred)."""
    s = re.sub(r"(?<![\w)\]])/(?:[\w.+-]+/)+([\w.+-]+)", r"\1", reason)  # paths -> basenames
    s = re.sub(r"\bmodel\.(cpp|h):\d+(:\d+)?:\s*", "", s)   # generated code: drop position
    s = re.sub(r"\b([\w.+-]+\.(?:cpp|h|hpp|cc)):\d+(:\d+)?:", r"\1:", s)  # others: keep file
    s = re.sub(r"'[^']*'", "'…'", s)
    s = re.sub(r"\"[^\"]*\"", "\"…\"", s)
    s = re.sub(r"(?<![\w.])-?\d+(\.\d+)?(e[-+]?\d+)?\b", "N", s)
    return s[:160]


# --------------------------------------------------------------------------------------------
# comparison
# --------------------------------------------------------------------------------------------
def compare(actual, expected):
    """None if equal within tolerance, else a short reason."""
    if expected.dtype == object and actual.dtype.kind == "U":
        # Strings: numpy_helper gives object arrays of str, the driver writes
        # unicode ('<U'); compare the texts.
        expected = expected.astype(str)
        if expected.size == 0 or actual.dtype.itemsize == 0:
            actual = actual.astype(expected.dtype)
    if actual.dtype.kind == "U" and expected.dtype.kind == "U":
        if actual.shape != expected.shape:
            return "shape %s, expected %s" % (list(actual.shape), list(expected.shape))
        if np.array_equal(actual, expected):
            return None
        bad = actual != expected
        idx = np.unravel_index(int(np.argmax(bad)), bad.shape)
        return ("%d/%d strings differ (first at %s: got %r, expected %r)"
                % (int(bad.sum()), expected.size, list(map(int, idx)),
                   str(actual[idx]), str(expected[idx])))
    if actual.dtype != expected.dtype:
        return "dtype %s, expected %s" % (actual.dtype, expected.dtype)
    if actual.shape != expected.shape:
        return "shape %s, expected %s" % (list(actual.shape), list(expected.shape))
    if expected.size == 0:
        return None
    kind = expected.dtype.kind
    if kind in "fc":
        a = actual.astype(np.float64) if kind == "f" else actual
        e = expected.astype(np.float64) if kind == "f" else expected
        ok = np.isclose(a, e, rtol=RTOL, atol=ATOL, equal_nan=True)
        if ok.all():
            return None
        bad = np.logical_not(ok)
        nbad = int(bad.sum())
        with np.errstate(invalid="ignore"):
            diff = np.abs(a - e)
        finite = diff[np.isfinite(diff)]
        maxd = float(finite.max()) if finite.size else float("nan")
        idx = np.unravel_index(int(np.argmax(bad)), bad.shape)
        return ("%d/%d values differ (max abs diff %.3g; first at %s: got %r, expected %r)"
                % (nbad, expected.size, maxd, list(map(int, idx)),
                   actual[idx].item(), expected[idx].item()))
    # bool / integers: exact
    if np.array_equal(actual, expected):
        return None
    bad = actual != expected
    idx = np.unravel_index(int(np.argmax(bad)), bad.shape)
    return ("%d/%d values differ (first at %s: got %r, expected %r)"
            % (int(bad.sum()), expected.size, list(map(int, idx)),
               actual[idx].item(), expected[idx].item()))


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t


def numbered(folder, prefix):
    """folder/prefix_K.pb sorted by K."""
    files = glob.glob(os.path.join(folder, prefix + "_*.pb"))
    key = lambda p: int(re.search(r"_(\d+)\.pb$", p).group(1))
    return sorted((f for f in files if re.search(r"_(\d+)\.pb$", f)), key=key)


# --------------------------------------------------------------------------------------------
# one test
# --------------------------------------------------------------------------------------------
def result(test_id, status, reason="", **extra):
    d = {"id": test_id, "status": status, "reason": reason}
    d.update(extra)
    return d


def run_test(test_id, test_dir, opts):
    t0 = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="tractc-conf-")
    r = result(test_id, "harness-error", "interrupted")
    try:
        r = _run_test(test_id, test_dir, tmp, opts)
    except Exception as e:  # noqa: BLE001 - classify, never kill the whole run
        r = result(test_id, "harness-error", "%s: %s" % (type(e).__name__, e))
    finally:
        if opts["keep_temp"]:
            r.setdefault("tmpdir", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    r["seconds"] = round(time.monotonic() - t0, 2)
    return r


def _run_test(test_id, test_dir, tmp, opts):
    timeout = opts["timeout"]
    model_path = os.path.join(test_dir, "model.onnx")
    model = onnx.load(model_path, load_external_data=False)
    graph = model.graph
    ops = model_op_types(graph)
    inits = {i.name for i in graph.initializer}
    inputs = [i for i in graph.input if i.name not in inits]

    sets = sorted(glob.glob(os.path.join(test_dir, "test_data_set_*")),
                  key=lambda p: int(re.search(r"(\d+)$", p).group(1)))
    if not sets:
        return result(test_id, "harness-error", "no test_data_set_* folder")

    # Which I/O can travel as .npy? (checked on the graph and on every .pb)
    not_npy = []
    for vi in list(inputs) + list(graph.output):
        kind = vi.type.WhichOneof("value")
        if kind != "tensor_type":
            not_npy.append("%s is %s" % (vi.name or "?", kind))
        elif vi.type.tensor_type.elem_type in _NON_NPY_TYPES:
            not_npy.append("%s is %s" % (vi.name, _NON_NPY_TYPES[vi.type.tensor_type.elem_type]))
    set0_pbs = numbered(sets[0], "input")
    if len(set0_pbs) != len(inputs):
        return result(test_id, "harness-error", "%d input .pb files but %d graph inputs"
                      % (len(set0_pbs), len(inputs)))
    set0_inputs = []  # TensorProto, or None where the .pb is not a tensor (sequence/optional)
    for k, pb in enumerate(set0_pbs):
        t = None
        if inputs[k].type.WhichOneof("value") == "tensor_type":
            try:
                t = load_pb(pb)
            except Exception as e:  # noqa: BLE001
                not_npy.append("input_%d.pb unreadable as TensorProto (%s)" % (k, e))
        if t is not None and t.data_type in _NON_NPY_TYPES:
            not_npy.append("input_%d.pb is %s" % (k, _NON_NPY_TYPES[t.data_type]))
        set0_inputs.append(t)

    # ---- 1. tractc
    out_cpp = os.path.join(tmp, "model.cpp")
    out_h = os.path.join(tmp, "model.h")
    argv = [opts["tractc"], model_path, "-o", out_cpp, "--main"] + opts["target"]
    for vi, t in zip(inputs, set0_inputs):
        if t is not None:  # pin every tensor input, scalars with an empty list
            argv += ["--input-shape", "%s=%s" % (vi.name, ",".join(str(int(d)) for d in t.dims))]
    res = run_step(argv, tmp, timeout)
    if opts["verbose"] >= 2:
        sys.stderr.write("[%s] %s\n%s" % (test_id, " ".join(argv), res.out))
    if res.timed_out:
        return result(test_id, "timeout", "tractc timed out after %gs" % timeout, step="tractc",
                      category="tractc timed out")
    if res.rc == 2:
        msg = tractc_message(res.out.replace(tmp + os.sep, ""))
        return result(test_id, "unsupported", msg, step="tractc",
                      unsupported_ops=unsupported_op_types(res.out, ops))
    if res.rc == 1:
        msg = tractc_message(res.out.replace(tmp + os.sep, ""))
        return result(test_id, "compile-error", "tractc: " + msg, step="tractc")
    if res.rc != 0:
        why = ("killed by %s" % signame(res.rc)) if res.rc < 0 else ("exit status %d" % res.rc)
        msg = ("tractc %s: %s" % (why, first_lines(res.out, 1))).rstrip(": ")
        return result(test_id, "crash", msg, step="tractc", category="tractc " + why)
    if not_npy:
        kinds = sorted({w.split(" is ")[-1].split(" ")[0] for w in not_npy})
        return result(test_id, "unsupported",
                      "harness: I/O not representable as .npy (%s)" % "; ".join(not_npy[:3]),
                      step="harness", unsupported_ops=[],
                      category="harness: %s I/O not representable as .npy" % "/".join(kinds))
    missing = [os.path.basename(p) for p in (out_cpp, out_h) if not os.path.isfile(p)]
    if missing:
        return result(test_id, "compile-error", "tractc exited 0 but did not write %s"
                      % ", ".join(missing), step="tractc")

    # ---- 2. g++
    exe = os.path.join(tmp, "model")
    argv = [opts["cxx"], "-std=c++17", opts["opt"], "-I" + os.path.join(REPO, "runtime", "include"),
            out_cpp, "-o", exe, "-lm"] + opts["cxxflags"] + opts["io"] + opts["libs"]
    res = run_step(argv, tmp, timeout)
    if res.timed_out:
        return result(test_id, "timeout", "g++ timed out after %gs" % timeout, step="g++",
                      category="g++ timed out")
    if res.rc != 0:
        return result(test_id, "compile-error", "g++: " + gxx_message(res.out.replace(tmp + os.sep, "")),
                      step="g++")

    # ---- 3. run on every data set
    for s_idx, set_dir in enumerate(sets):
        set_name = os.path.basename(set_dir)
        work = os.path.join(tmp, set_name)
        out_dir = os.path.join(work, "out")
        os.makedirs(out_dir)
        in_files = []
        in_pbs = numbered(set_dir, "input")
        if len(in_pbs) != len(inputs):
            return result(test_id, "harness-error", "%s: %d input .pb files but %d graph inputs"
                          % (set_name, len(in_pbs), len(inputs)))
        for k, pb in enumerate(in_pbs):
            t = set0_inputs[k] if s_idx == 0 else load_pb(pb)
            # (not np.ascontiguousarray: it turns 0-d arrays into shape [1])
            arr = np.require(numpy_helper.to_array(t), requirements="C")
            f = os.path.join(work, "input_%d.npy" % k)
            # String tensors come out of numpy_helper as object arrays; np.save
            # pickles those, which is what the generated driver must read.
            np.save(f, arr, allow_pickle=arr.dtype == object)
            in_files.append(f)
        res = run_step(opts["emulator"] + [exe] + in_files + ["-o", out_dir], work, timeout)
        if opts["verbose"] >= 2 and res.out.strip():
            sys.stderr.write("[%s] %s output:\n%s" % (test_id, set_name, res.out))
        if res.timed_out:
            return result(test_id, "timeout", "%s: model timed out after %gs" % (set_name, timeout),
                          step="run", category="model timed out")
        if res.rc != 0:
            why = ("killed by %s" % signame(res.rc)) if res.rc < 0 else ("exit status %d" % res.rc)
            return result(test_id, "crash", ("%s: model %s: %s"
                                             % (set_name, why, first_lines(res.out, 1))).rstrip(": "),
                          step="run", category="model " + why)
        out_pbs = numbered(set_dir, "output")
        if len(out_pbs) != len(graph.output):
            return result(test_id, "harness-error", "%s: %d output .pb files but %d graph outputs"
                          % (set_name, len(out_pbs), len(graph.output)))
        for k, pb in enumerate(out_pbs):
            expected = numpy_helper.to_array(load_pb(pb))
            f = os.path.join(out_dir, "output_%d.npy" % k)
            if not os.path.isfile(f):
                return result(test_id, "wrong", "%s: output_%d.npy not written" % (set_name, k),
                              step="compare", category="output .npy not written")
            try:
                actual = np.load(f, allow_pickle=False)
            except Exception as e:  # noqa: BLE001
                return result(test_id, "wrong", "%s: output_%d.npy unreadable (%s)"
                              % (set_name, k, e), step="compare",
                              category="output .npy unreadable")
            why = compare(actual, expected)
            if why:
                if actual.dtype != expected.dtype:
                    cat = "dtype %s instead of %s" % (actual.dtype, expected.dtype)
                elif actual.shape != expected.shape:
                    cat = "shape mismatch"
                else:
                    cat = "value mismatch (%s)" % expected.dtype
                return result(test_id, "wrong", "%s: output_%d (%s): %s"
                              % (set_name, k, graph.output[k].name, why), step="compare",
                              category=cat)
    return result(test_id, "pass", "")


# --------------------------------------------------------------------------------------------
# expected list
# --------------------------------------------------------------------------------------------
def read_expected(path):
    ids = []
    if not os.path.exists(path):
        return ids
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                ids.append(line)
    return ids


def write_expected(path, ids):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("# Conformance tests that tractc is expected to pass (one <suite>/<test> per line).\n")
        f.write("# A test listed here that does not pass is a REGRESSION (run_conformance.py exits 1).\n")
        f.write("# Regenerate with: test/conformance/run_conformance.py --update-expected\n")
        for i in sorted(set(ids)):
            f.write(i + "\n")


# --------------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------------
def discover(suites, regex):
    tests = []
    for suite in suites:
        sdir = os.path.join(DATA_ROOT, suite)
        if not os.path.isdir(sdir):
            sys.exit("error: no such suite folder: %s" % sdir)
        for name in sorted(os.listdir(sdir)):
            d = os.path.join(sdir, name)
            if not os.path.isfile(os.path.join(d, "model.onnx")):
                continue
            tid = "%s/%s" % (suite, name)
            if regex and not regex.search(tid):
                continue
            tests.append((tid, d))
    return tests


def print_summary(results, suites, top):
    by_suite = collections.OrderedDict((s, collections.Counter()) for s in suites)
    for r in results:
        by_suite[r["id"].split("/", 1)[0]][r["status"]] += 1
    cols = [c for c in CLASSES if c != "harness-error" or any(
        r["status"] == "harness-error" for r in results)]
    w = max([len(s) for s in suites] + [5])
    header = "%-*s %6s " % (w, "suite", "total") + " ".join("%*s" % (len(c), c) for c in cols)
    print(header)
    print("-" * len(header))
    total = collections.Counter()
    for s, c in by_suite.items():
        total.update(c)
        print("%-*s %6d " % (w, s, sum(c.values())) + " ".join("%*d" % (len(k), c[k]) for k in cols))
    print("-" * len(header))
    print("%-*s %6d " % (w, "all", sum(total.values()))
          + " ".join("%*d" % (len(k), total[k]) for k in cols))

    # top unsupported op types
    op_count = collections.Counter()
    feature = collections.Counter()
    for r in results:
        if r["status"] != "unsupported":
            continue
        if r.get("unsupported_ops"):
            op_count.update(r["unsupported_ops"])
        else:
            feature[r.get("category") or normalize_reason(r["reason"])] += 1
    if op_count:
        print("\nTop unsupported op types (tests blocked):")
        for op, n in op_count.most_common(top):
            print("  %5d  %s" % (n, op))
        if len(op_count) > top:
            print("  ... %d more op types" % (len(op_count) - top))
    if feature:
        print("\nOther unsupported reasons:")
        for k, n in feature.most_common(top):
            print("  %5d  %s" % (n, k))
    for cls in ("compile-error", "crash", "wrong", "timeout", "harness-error"):
        cnt = collections.Counter(r.get("category") or normalize_reason(r["reason"])
                                  for r in results if r["status"] == cls)
        if not cnt:
            continue
        print("\nTop %s reasons:" % cls)
        for k, n in cnt.most_common(top):
            print("  %5d  %s" % (n, k))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tractc", default=os.path.join(REPO, "build", "bin", "tractc"))
    ap.add_argument("--suites", default=",".join(ALL_SUITES),
                    help="comma-separated suites (default: %(default)s)")
    ap.add_argument("--filter", default=None, help="only test ids (suite/test) matching REGEX")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="seconds per step (tractc, g++, each model run); default %(default)s")
    ap.add_argument("--expected", default=DEFAULT_EXPECTED)
    ap.add_argument("--update-expected", action="store_true",
                    help="rewrite --expected with the passing tests (entries of tests not run "
                         "this time, because of --suites/--filter, are kept)")
    ap.add_argument("--report", default=None, help="write per-test JSON report here")
    ap.add_argument("--status", default=None,
                    help="write a Markdown page listing every test that does not pass, with its "
                         "class and reason (test/conformance/STATUS.md)")
    ap.add_argument("-v", "--verbose", action="count", default=0,
                    help="print every test's result (-vv: also commands and tool output)")
    ap.add_argument("--keep-temp", action="store_true", help="keep each test's temp dir")
    ap.add_argument("--every", type=int, default=1,
                    help="run every Nth selected test only (a deterministic sample)")
    ap.add_argument("--offset", type=int, default=0,
                    help="with --every N: start the sample at this test (taken modulo N), so "
                    "runs with offsets 0 .. N-1 cover every test")
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--inline-io", action="store_true",
                    help="compile the --main driver's .npy / thread-pool code into every test "
                         "(default: once, tract/rt/io/prebuilt_io.h)")
    ap.add_argument("--emulator", default="",
                    help="run the model binaries under this command, space-separated "
                         "(e.g. \"qemu-aarch64 -L /usr/aarch64-linux-gnu\" with "
                         "--cxx aarch64-linux-gnu-g++)")
    ap.add_argument("--opt", default="-O1", help="g++ optimisation flag, e.g. --opt=-O2 (default -O1)")
    ap.add_argument("--cxxflags", default="", help="extra g++ flags, space-separated, e.g. --cxxflags=\"-g -Wall\"")
    ap.add_argument("--top", type=int, default=15, help="entries per summary list")
    ap.add_argument("--spirv", action="store_true",
                    help="compile with --target=spirv, link -lvulkan and run on the Vulkan driver "
                         "VK_DRIVER_FILES names (default Mesa's lavapipe); the expected list "
                         "defaults to expected_pass_spirv.txt")
    args = ap.parse_args()
    if args.spirv:
        os.environ.setdefault("VK_DRIVER_FILES", "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json")
        if args.expected == DEFAULT_EXPECTED:
            args.expected = DEFAULT_EXPECTED_SPIRV
    sys.stdout.reconfigure(line_buffering=True)  # keep stdout/stderr in order when piped

    suites = [s for s in args.suites.split(",") if s]
    regex = re.compile(args.filter) if args.filter else None
    tractc = os.path.abspath(args.tractc) if os.sep in args.tractc else (
        shutil.which(args.tractc) or args.tractc)
    if not (os.path.isfile(tractc) and os.access(tractc, os.X_OK)):
        # keep the `N passed, M failed` contract: every selected expected test is a regression
        print("error: tractc not found or not executable: %s" % tractc)
        m = sum(1 for t in read_expected(args.expected) if t.split("/", 1)[0] in suites
                and (not regex or regex.search(t)))
        print("0 passed, %d failed" % m)
        return 1 if m else 2
    opts = {"tractc": tractc, "timeout": args.timeout, "verbose": args.verbose,
            "keep_temp": args.keep_temp, "cxx": args.cxx, "opt": args.opt,
            "emulator": args.emulator.split(),
            "cxxflags": args.cxxflags.split(),
            "target": ["--target=spirv"] if args.spirv else [],
            "libs": ["-lvulkan"] if args.spirv else []}

    opts["io"] = []
    if not args.inline_io:
        # The driver's .npy and thread-pool code (tract/rt/io/prebuilt_io.h)
        # compiled once: it was ~0.85 s of each small model's 1.2 s of g++.
        io_dir = tempfile.mkdtemp(prefix="tractc-conf-io-")
        atexit.register(shutil.rmtree, io_dir, True)
        io_cpp, io_obj = os.path.join(io_dir, "io.cpp"), os.path.join(io_dir, "io.o")
        with open(io_cpp, "w") as f:
            f.write('#define TRACT_PREBUILT_IO_IMPLEMENTATION\n'
                    '#include "tract/rt/io/prebuilt_io.h"\n')
        res = subprocess.run([args.cxx, "-std=c++17", args.opt,
                              "-I" + os.path.join(REPO, "runtime", "include"), "-c", io_cpp,
                              "-o", io_obj] + opts["cxxflags"], capture_output=True, text=True)
        if res.returncode != 0:
            print("error: cannot build the driver's I/O object:\n" + res.stdout + res.stderr)
            print("0 passed, 1 failed")
            return 1
        opts["io"] = ["-DTRACT_PREBUILT_IO", io_obj]

    if args.every > 1 and args.update_expected:
        ap.error("--update-expected needs every selected test (no --every)")
    tests = discover(suites, regex)[args.offset % args.every::args.every]
    selected = {tid for tid, _ in tests}
    if not tests:
        print("no tests selected")
    t_start = time.monotonic()
    results = []

    def done(r):
        results.append(r)
        if args.verbose:
            print("%-13s %s%s" % (r["status"].upper() if r["status"] != "pass" else "pass",
                                  r["id"], ("  -- " + r["reason"]) if r["reason"] else ""),
                  flush=True)
        elif len(results) % 50 == 0 or len(results) == len(tests):
            sys.stderr.write("[%d/%d] %.0fs\n" % (len(results), len(tests),
                                                   time.monotonic() - t_start))
            sys.stderr.flush()

    jobs = max(1, args.jobs)
    if jobs == 1:
        for tid, d in tests:
            done(run_test(tid, d, opts))
    else:
        ex = concurrent.futures.ProcessPoolExecutor(max_workers=jobs)
        try:
            futs = {ex.submit(run_test, tid, d, opts): tid for tid, d in tests}
            for f in concurrent.futures.as_completed(futs):
                try:
                    done(f.result())
                except Exception as e:  # noqa: BLE001 - e.g. a worker died
                    done(result(futs[f], "harness-error", "%s: %s" % (type(e).__name__, e)))
        except KeyboardInterrupt:
            ex.shutdown(wait=False, cancel_futures=True)
            raise
        ex.shutdown()

    results.sort(key=lambda r: r["id"])
    by_id = {r["id"]: r for r in results}
    passing = [r["id"] for r in results if r["status"] == "pass"]

    # expected list / regressions
    expected = read_expected(args.expected)
    selected_suites = set(suites)
    regressions = []
    for tid in expected:
        if tid.split("/", 1)[0] not in selected_suites or (regex and not regex.search(tid)):
            continue  # not part of this run
        if args.every > 1 and tid not in selected:
            continue  # left out of the sample
        r = by_id.get(tid)
        if r is None:
            regressions.append((tid, "missing", "test not found in %s" % DATA_ROOT))
        elif r["status"] != "pass":
            regressions.append((tid, r["status"], r["reason"]))
    expected_set = set(expected)
    new_passes = [t for t in passing if t not in expected_set]

    print()
    print("tractc: %s   (%d tests, %.0fs, -j%d)" % (tractc, len(results),
                                                   time.monotonic() - t_start, jobs))
    print_summary(results, suites, args.top)

    if new_passes:
        print("\nNewly passing (not in %s): %d" % (os.path.relpath(args.expected), len(new_passes)))
        for t in new_passes[: args.top if not args.verbose else None]:
            print("  " + t)
        if not args.verbose and len(new_passes) > args.top:
            print("  ... (use --verbose or --update-expected)")

    print("\nREGRESSIONS (%d):" % len(regressions))
    for tid, st, why in regressions:
        print("  %-60s %-13s %s" % (tid, st, why))

    if args.update_expected:
        ran = set(by_id)
        keep = [t for t in expected if t not in ran and not (
            t.split("/", 1)[0] in selected_suites and (not regex or regex.search(t)))]
        write_expected(args.expected, keep + passing)
        print("\nwrote %s (%d tests)" % (args.expected, len(set(keep + passing))))

    if args.report:
        report = {
            "tractc": tractc,
            "suites": suites,
            "filter": args.filter,
            "counts": dict(collections.Counter(r["status"] for r in results)),
            "regressions": [{"id": t, "status": s, "reason": w} for t, s, w in regressions],
            "tests": {r["id"]: {k: v for k, v in r.items() if k != "id"} for r in results},
        }
        with open(args.report, "w") as f:
            json.dump(report, f, indent=1, sort_keys=True)

    if args.status:
        write_status(args.status, results, suites)

    print("%d passed, %d failed" % (len(passing), len(regressions)))
    return 1 if regressions else 0


# Why the tests that do not pass do not, where the runner's own reason (the
# error or the first differing value) does not say it. First match wins.
KNOWN_CAUSES = [
    (r"test_bernoulli", "random draws (numpy's binomial sampler) that a compiled model does not "
     "reproduce; tractc has no Bernoulli/RandomUniformLike"),
    (r"test_castlike_.*BFLOAT16", "the test data's `like` input has shape [1] where the "
     "model declares [3, 4]; pinning it contradicts the model (ONNX Runtime rejects it too)"),
    (r"test_cast_FLOAT_to_BFLOAT16",
     "ONNX 1.12's data truncates float to bfloat16; tractc rounds to nearest even, as the Cast "
     "spec asks from ONNX 1.13 on"),
    (r"test_adam_multiple", "the data was generated with a different epsilon than the node's "
     "attribute; test_adam (single tensor) passes"),
    (r"(hann|hamming|blackman)window.*_expanded", "Range's length depends on the run-time `size` "
     "input and no intermediate declares it (the function-op form, HannWindow etc., passes)"),
    (r"test_sequence_model8", "SplitToSequence with split sizes computed at run time: the "
     "sequence's length would depend on data"),
    (r"optional|_opt$|_seq|sequence_(insert|map)|identity_sequence",
     "sequence- or optional-typed graph inputs/outputs: the C ABI passes tensors only "
     "(sequences inside a graph are supported)"),
    (r"test_gradient_of", "ai.onnx.preview.training.Gradient: training graphs are out of scope"),
]


def known_cause(test_id):
    for pattern, cause in KNOWN_CAUSES:
        if re.search(pattern, test_id):
            return cause
    return ""


def write_status(path, results, suites):
    """STATUS.md: counts per suite, then every failing test with its reason."""
    lines = ["# Conformance status", "",
             "Generated by `test/conformance/run_conformance.py --status %s` over Debian's "
             "libonnx-testdata (ONNX 1.12). Regenerate after changing the importer or runtime." %
             os.path.relpath(path), "",
             "| suite | tests | pass | not passing |", "|---|---|---|---|"]
    for suite in suites:
        rs = [r for r in results if r["id"].startswith(suite + "/")]
        ok = sum(1 for r in rs if r["status"] == "pass")
        lines.append("| %s | %d | %d | %d |" % (suite, len(rs), ok, len(rs) - ok))
    lines += ["", "## Tests that do not pass", "", "| test | class | reason | cause |",
              "|---|---|---|---|"]
    for r in results:
        if r["status"] == "pass":
            continue
        reason = r["reason"].replace("|", "\\|").replace("\n", " ")
        if len(reason) > 220:
            reason = reason[:217] + "..."
        lines.append("| %s | %s | %s | %s |" % (r["id"], r["status"], reason,
                                                known_cause(r["id"])))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
