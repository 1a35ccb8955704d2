#!/usr/bin/python3
"""End-to-end test of tractc on real networks exported from torch.

For each model made by export_models.py: `tractc model.onnx -o model.cpp --main --input-shape
input=<shape of input_0.npy>` (the symbolic batch dim of the CNNs is pinned to 1, the MLP's is 4),
`g++ -std=c++17 -O2 -I runtime/include model.cpp -o model -lm`, `./model input_0.npy -o out`,
then out/output_0.npy is compared with torch's expected_0.npy (same shape and dtype, max abs
diff <= --atol, default 1e-4). Each model is also compiled with --no-optimize, whose output
must equal the optimized one within 1e-5 relative: no graph rewrite changes results; and the
generated code (without --main) must build with g++ and clang++ under `-fno-exceptions -fno-rtti
-Wall -Wextra -Werror` referencing no heap or unwinding symbols and holding no static
constructors. With --extra-checks-every N --offset D only every Nth model (from the
D-th, modulo N) gets the --no-optimize comparison and the hygiene builds: CI's daily sample. With
--spirv each model is also compiled with --target=spirv, built with
-lvulkan and run on the Vulkan driver VK_DRIVER_FILES names (Mesa's lavapipe by default), its
output compared with torch's within --atol. The last line printed is exactly
`N passed, M failed`; the exit status is 1 iff M > 0.

Needs /usr/bin/python3 (torch, torchvision, onnx, numpy).
"""

import argparse
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

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
EXPORT = os.path.join(HERE, "export_models.py")


def run_step(argv, cwd, timeout):
    """(rc or None on timeout, output, seconds); the whole process group dies on timeout."""
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as e:
        return 127, "cannot execute %s: %s" % (argv[0], e), 0.0
    try:
        out, _ = proc.communicate(timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        out, _ = proc.communicate()
        rc = None
    return rc, (out or b"").decode("utf-8", errors="replace"), time.monotonic() - t0


def describe(rc, timeout):
    if rc is None:
        return "timed out after %gs" % timeout
    if rc < 0:
        try:
            return "killed by %s" % signal.Signals(-rc).name
        except ValueError:
            return "killed by signal %d" % -rc
    return "exit status %d" % rc


def tail(text, n=15):
    lines = text.rstrip().splitlines()
    return "".join("\n    | " + l for l in lines[-n:])


def model_input_name(path):
    import onnx
    m = onnx.load(path, load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    names = [i.name for i in m.graph.input if i.name not in inits]
    if len(names) != 1:
        raise RuntimeError("expected exactly one graph input, got %s" % names)
    return names[0]


# Elementwise tract ops: after fusion none of them may be a kernel of its own
# (their work rides in a conv/matmul epilogue or a fused chain), except the
# ones a model lists here.
ELEMENTWISE_OPS = {
    "tract." + n for n in (
        "neg abs sqrt exp log erf relu sigmoid tanh floor ceil round reciprocal sign softplus "
        "softsign hard_swish mish silu gelu gelu_tanh leaky_relu hard_sigmoid clip elu selu celu "
        "add sub mul div pow max min prelu").split()}
FUSION_EXPECTATIONS = {
    # model: (standalone elementwise kernels allowed, other kernel ops forbidden)
    "resnet18": (set(), set()),
    "mobilenet_v2": (set(), set()),
    "squeezenet1_1": (set(), set()),
    "kws_cnn": (set(), set()),
    # The squeeze-excitation gates multiply a whole feature map by a per-channel
    # scale computed from it: a kernel of its own.
    "efficientnet_b0": ({"tract.mul"}, set()),
    "mlp": (set(), set()),
    # Layer norms recognised (no reductions left), GELU fused (no Erf).
    "bert_opset17": (set(), {"tract.reduce_mean", "tract.erf"}),
    "bert_opset13": (set(), {"tract.reduce_mean", "tract.erf"}),
}


def check_plan(report_path):
    """None, or why the memory plan in the --report is wrong or loose: two arena tensors live at
    once must not overlap (except a kernel's output written in place over an input that dies
    there), and the arena must be within 5% of the peak of live bytes and within 25% of the largest
    single kernel's arena inputs, outputs and scratch. A kernel's scratch is a tensor live during
    that kernel only; a concat done in place (the report's "views") is one tensor holding its
    operands, each at its byte range."""
    with open(report_path) as f:
        report = json.load(f)
    # A concat done in place (a "view") holds its operands' bytes: each
    # operand counts as the whole concat, live from the first operand's
    # producer to the concat's last reader.
    whole_of = {}
    for v in report.get("views", []):
        at = v["tensor"]["arena_offset"]
        for part in v["concat_of"]:
            if part["arena_offset"] != at:
                return "memory plan: %s is not at its place in %s" % (part["tensor"],
                                                                     v["tensor"]["tensor"])
            at += part["bytes"]
            whole_of[part["tensor"]] = v["tensor"]

    def resolve(t):
        while t["tensor"] in whole_of:
            t = whole_of[t["tensor"]]
        return t
    first, last, size, offset = {}, {}, {}, {}
    in_place = set()  # (input, output) pairs sharing bytes in one kernel
    for k in report["kernels"]:
        for o in k["outputs"]:
            for t in k["inputs"]:
                if o["arena_offset"] is not None and o["arena_offset"] == t["arena_offset"]:
                    in_place.add((resolve(t)["tensor"], resolve(o)["tensor"]))
    for i, k in enumerate(report["kernels"]):
        for t in k["outputs"] + k["inputs"]:
            if t["arena_offset"] is None:
                continue
            t = resolve(t)
            name = t["tensor"]
            first.setdefault(name, i)
            last[name] = i
            size[name] = max(size.get(name, 0), t["bytes"])
            offset[name] = t["arena_offset"]
        if k.get("scratch_bytes", 0) > 0:
            name = "scratch of " + k["name"]
            first[name] = last[name] = i
            size[name] = k["scratch_bytes"]
            offset[name] = k["scratch_offset"]
    names = sorted(size, key=lambda n: first[n])
    for a, x in enumerate(names):
        for y in names[a + 1:]:
            live_together = first[x] <= last[y] and first[y] <= last[x]
            handed_over = (last[x] == first[y] and (x, y) in in_place) or (
                last[y] == first[x] and (y, x) in in_place)
            if (live_together and not handed_over and offset[x] < offset[y] + size[y]
                    and offset[y] < offset[x] + size[x]):
                return "memory plan: %s and %s are live together and overlap" % (x, y)
    # Live bytes at each kernel; an input a kernel overwrites in place counts once.
    peak = max([sum(size[n] for n in names if first[n] <= i <= last[n]) -
                sum(size[x] for x, y in in_place if last[x] == i == first[y])
                for i in range(len(report["kernels"]))] or [0])
    if report["arena_bytes"] > 1.05 * peak + 64:
        return "memory plan: arena %d bytes, peak of live bytes %d" % (report["arena_bytes"], peak)
    # Nor more than 25% above what the hungriest single kernel needs at once: its arena inputs,
    # outputs and scratch.
    largest = max([sum(t["bytes"] for t in k["inputs"] + k["outputs"]
                       if t["arena_offset"] is not None) + k.get("scratch_bytes", 0)
                   for k in report["kernels"]] or [0])
    if report["arena_bytes"] > 1.25 * largest + 64:
        return "memory plan: arena %d bytes, largest kernel needs %d" % (report["arena_bytes"],
                                                                       largest)
    return None


def check_fusion(name, report_path):
    """None, or why the kernels in the --report break the model's fusion expectations."""
    allowed, forbidden = FUSION_EXPECTATIONS.get(name, (set(), set()))
    with open(report_path) as f:
        kernels = json.load(f)["kernels"]
    bad = [k["op"] for k in kernels
           if (k["op"] in ELEMENTWISE_OPS and k["op"] not in allowed) or k["op"] in forbidden]
    if bad:
        return "standalone kernels that should be fused or gone: %s" % ", ".join(sorted(set(bad)))
    return None


# Symbols generated model code must not reference: no heap, no exceptions or
# unwinding (DESIGN.md: firmware code).
FORBIDDEN_SYMBOLS = re.compile(
    r"\b(malloc|calloc|realloc|free|aligned_alloc|posix_memalign|operator new|operator delete"
    r"|__cxa_\w+|_Unwind_\w+|__gxx_personality\w*)\b")
HYGIENE_FLAGS = ["-std=c++17", "-O2", "-fno-exceptions", "-fno-rtti", "-Wall", "-Wextra",
                 "-Werror", "-c"]


def check_hygiene(model, inp, shape, work, args):
    """None, or why the model's generated code (no --main) is not firmware-clean under g++ 12
    and clang 19: warnings, references to the heap or unwinding, static constructors, iostream."""
    os.makedirs(work)
    cpp = os.path.join(work, "model.cpp")
    rc, out, _ = run_step([args.tractc, model, "-o", cpp,
                           "--input-shape", "%s=%s" % (inp, ",".join(str(d) for d in shape))],
                          work, args.timeout)
    if rc != 0:
        return "hygiene: tractc %s%s" % (describe(rc, args.timeout), tail(out))
    with open(cpp) as f:
        if re.search(r"#include\s*<iostream>", f.read()):
            return "hygiene: model.cpp includes <iostream>"
    for cxx in ("g++", "clang++-19"):
        obj = os.path.join(work, "model-%s.o" % cxx)
        argv = [cxx] + HYGIENE_FLAGS + ["-I", os.path.join(REPO, "runtime", "include"), cpp,
                                        "-o", obj]
        rc, out, _ = run_step(argv, work, args.timeout)
        if rc != 0:
            return "hygiene: %s %s%s" % (cxx, describe(rc, args.timeout), tail(out))
        rc, out, _ = run_step(["nm", "-C", "--undefined-only", obj], work, args.timeout)
        bad = sorted(set(FORBIDDEN_SYMBOLS.findall(out)))
        if rc != 0 or bad:
            return "hygiene: %s object references %s" % (cxx, ", ".join(bad) or "(nm failed)")
        rc, out, _ = run_step(["readelf", "-SW", obj], work, args.timeout)
        if rc != 0 or re.search(r"\.(init_array|ctors)\b", out):
            return "hygiene: %s object has static constructors (.init_array/.ctors)" % cxx
    return None


def compile_and_run(model, inp, x_path, shape, work, args, extra, times):
    """tractc + g++ + run in `work`; returns (output array, None) or (None, failure)."""
    os.makedirs(work)
    cpp = os.path.join(work, "model.cpp")
    exe = os.path.join(work, "model")
    out_dir = os.path.join(work, "out")
    os.makedirs(out_dir)
    tag = " ".join(extra)

    argv = [args.tractc, model, "-o", cpp, "--main", "--report", os.path.join(work, "report.json"),
            "--input-shape", "%s=%s" % (inp, ",".join(str(d) for d in shape))] + extra
    if args.verbose:
        print("  $ " + " ".join(argv), flush=True)
    rc, out, t = run_step(argv, work, args.timeout)
    times.append("tractc%s %.1fs" % (" " + tag if tag else "", t))
    if rc != 0:
        kind = {2: "unsupported", 1: "error"}.get(rc, "crash")
        return None, "tractc %s (%s)%s" % (describe(rc, args.timeout), kind, tail(out))
    if not os.path.isfile(cpp) or not os.path.isfile(os.path.splitext(cpp)[0] + ".h"):
        return None, "tractc exited 0 but did not write model.cpp and model.h"

    argv = [args.cxx, "-std=c++17", "-O2", "-I", os.path.join(REPO, "runtime", "include"),
            cpp, "-o", exe, "-lm"] + args.cxxflags.split()
    if args.verbose:
        print("  $ " + " ".join(argv), flush=True)
    rc, out, t = run_step(argv, work, args.timeout)
    times.append("g++ %.1fs" % t)
    if rc != 0:
        return None, "g++ %s%s" % (describe(rc, args.timeout), tail(out))

    emulator = args.emulator.split()
    argv = emulator + [exe, x_path, "-o", out_dir]
    if args.verbose:
        print("  $ " + " ".join(argv), flush=True)
    rc, out, t = run_step(argv, work, args.timeout)
    times.append("run %.2fs" % t)
    if rc != 0:
        return None, "model %s%s" % (describe(rc, args.timeout), tail(out))
    f = os.path.join(out_dir, "output_0.npy")
    if not os.path.isfile(f):
        return None, "output_0.npy not written"
    try:
        y = np.load(f, allow_pickle=False)
    except Exception as e:  # noqa: BLE001
        return None, "output_0.npy unreadable: %s" % e
    # Split over 2 threads (the driver's std::thread pool through the
    # parallel-for hook), every output element is computed by one task in the
    # same order: the result must be identical.
    out2 = os.path.join(work, "out_threads")
    os.makedirs(out2)
    rc, out, t = run_step(emulator + [exe, x_path, "-o", out2, "--threads", "2"], work,
                          args.timeout)
    times.append("run --threads 2 %.2fs" % t)
    if rc != 0:
        return None, "model --threads 2 %s%s" % (describe(rc, args.timeout), tail(out))
    y2 = np.load(os.path.join(out2, "output_0.npy"), allow_pickle=False)
    if y2.shape != y.shape or not np.array_equal(y2, y, equal_nan=True):
        return None, "--threads 2 changed the output (max abs diff %.3g)" % float(
            np.abs(y2.astype(np.float64) - y.astype(np.float64)).max())
    return y, None


def test_model(name, mdir, work, args, extra_checks=True):
    """Returns (ok, max_abs_diff or None, message).

    The model is compiled twice: as tractc compiles it, and with --no-optimize;
    the first must match torch within --atol and the second within 1e-5
    relative (of the output's largest magnitude): no rewrite may change results.
    Without extra_checks only the first build runs (no --no-optimize, no hygiene).
    """
    shutil.rmtree(work, ignore_errors=True)  # no stale model.cpp / outputs from an earlier run
    os.makedirs(work)
    model = os.path.join(mdir, "model.onnx")
    x_path = os.path.join(mdir, "input_0.npy")
    x = np.load(x_path)
    expected = np.load(os.path.join(mdir, "expected_0.npy"))
    inp = model_input_name(model)
    times = []
    y, why = compile_and_run(model, inp, x_path, x.shape, os.path.join(work, "optimized"), args,
                             [], times)
    if why:
        return False, None, why
    why = (check_fusion(name, os.path.join(work, "optimized", "report.json")) or
           check_plan(os.path.join(work, "optimized", "report.json")))
    if why:
        return False, None, why
    why = None if args.skip_hygiene or not extra_checks else check_hygiene(model, inp, x.shape,
                                                          os.path.join(work, "hygiene"), args)
    if why:
        return False, None, why
    outputs = [(y, "")]
    if extra_checks:
        y0, why = compile_and_run(model, inp, x_path, x.shape, os.path.join(work, "unoptimized"),
                                  args, ["--no-optimize"], times)
        if why:
            return False, None, "--no-optimize: " + why
        outputs.append((y0, "--no-optimize: "))
    timing = " [" + ", ".join(times) + "]"
    for got, what in outputs:
        if got.dtype != expected.dtype:
            return False, None, what + "dtype %s, expected %s" % (got.dtype, expected.dtype) + timing
        if got.shape != expected.shape:
            return False, None, what + "shape %s, expected %s" % (list(got.shape),
                                                                 list(expected.shape)) + timing
        if not np.isfinite(got).all():
            return False, None, what + "output has %d non-finite values" % int(
                (~np.isfinite(got)).sum()) + timing
    diff = np.abs(y.astype(np.float64) - expected.astype(np.float64))
    maxd = float(diff.max()) if diff.size else 0.0
    if maxd > args.atol:
        return False, maxd, "max abs diff %.3g > atol %g" % (maxd, args.atol) + timing
    if not extra_checks:
        return True, maxd, "ok (--no-optimize and hygiene not sampled today)" + timing
    scale = max(float(np.abs(y0).max()) if y0.size else 0.0, 1e-30)
    rel = float(np.abs(y.astype(np.float64) - y0.astype(np.float64)).max()) / scale if y.size else 0.0
    if rel > 1e-5:
        return False, maxd, ("optimized vs --no-optimize differ by %.3g relative (> 1e-5)"
                             % rel) + timing
    return True, maxd, "ok (optimized vs unoptimized %.2g relative)" % rel + timing


def test_model_spirv(mdir, work, args):
    """--target=spirv: tractc, g++ with -lvulkan, a run on the Vulkan driver VK_DRIVER_FILES
    names (Mesa's lavapipe by default); returns (ok, max_abs_diff or None, message)."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    model = os.path.join(mdir, "model.onnx")
    x_path = os.path.join(mdir, "input_0.npy")
    x = np.load(x_path)
    expected = np.load(os.path.join(mdir, "expected_0.npy"))
    cpp, exe, out_dir = (os.path.join(work, f) for f in ("model.cpp", "model", "out"))
    os.makedirs(out_dir)
    times = []
    steps = [
        ("tractc", [args.tractc, model, "-o", cpp, "--main", "--target=spirv", "--input-shape",
                    "%s=%s" % (model_input_name(model), ",".join(str(d) for d in x.shape))]),
        ("g++", [args.cxx, "-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-I",
                 os.path.join(REPO, "runtime", "include"), cpp, "-o", exe, "-lvulkan"]),
        ("run", [exe, x_path, "-o", out_dir]),
    ]
    for what, argv in steps:
        if args.verbose:
            print("  $ " + " ".join(argv), flush=True)
        rc, out, t = run_step(argv, work, args.timeout)
        times.append("%s %.1fs" % (what, t))
        if rc != 0:
            return False, None, "%s %s%s" % (what, describe(rc, args.timeout), tail(out))
    timing = " [" + ", ".join(times) + "]"
    y = np.load(os.path.join(out_dir, "output_0.npy"), allow_pickle=False)
    if y.shape != expected.shape or y.dtype != expected.dtype:
        return False, None, "shape %s %s, expected %s %s" % (list(y.shape), y.dtype,
                                                            list(expected.shape), expected.dtype)
    maxd = float(np.abs(y.astype(np.float64) - expected.astype(np.float64)).max()) if y.size else 0.0
    if not np.isfinite(y).all() or maxd > args.atol:
        return False, maxd, "max abs diff %.3g > atol %g" % (maxd, args.atol) + timing
    return True, maxd, "ok" + timing


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tractc", default=os.path.join(REPO, "build", "bin", "tractc"))
    ap.add_argument("--only", action="append", default=[],
                    help="model name(s), comma-separated or repeated (default: all)")
    ap.add_argument("--workdir", default=None,
                    help="keep models and build products here (default: a temp dir, removed)")
    ap.add_argument("--reuse", action="store_true",
                    help="with --workdir: do not re-export models that already exist there")
    ap.add_argument("--atol", type=float, default=1e-4)
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per step")
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--cxxflags", default="", help="extra g++ flags, space-separated, e.g. --cxxflags=\"-g -Wall\"")
    ap.add_argument("--emulator", default="",
                    help="run the built models under this command, e.g. \"qemu-aarch64 -L /usr/aarch64-linux-gnu\"")
    ap.add_argument("--skip-hygiene", action="store_true",
                    help="skip the host-compiler hygiene checks (for cross builds)")
    ap.add_argument("--spirv", action="store_true",
                    help="also compile each model with --target=spirv and run it on Vulkan "
                         "(VK_DRIVER_FILES, default Mesa's lavapipe)")
    ap.add_argument("--extra-checks-every", type=int, default=1, metavar="N",
                    help="the --no-optimize comparison and the hygiene builds on every Nth model "
                         "only (from --offset, modulo N): a deterministic sample")
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.extra_checks_every < 1:
        ap.error("--extra-checks-every must be >= 1")
    if args.spirv:
        os.environ.setdefault("VK_DRIVER_FILES", "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json")
    sys.stdout.reconfigure(line_buffering=True)  # keep stdout/stderr in order when piped

    args.tractc = os.path.abspath(args.tractc) if os.sep in args.tractc else (
        shutil.which(args.tractc) or args.tractc)
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    sys.path.insert(0, HERE)
    import export_models  # noqa: E402 - only for the list of names
    only = [n for o in args.only for n in o.split(",") if n]
    unknown = [n for n in only if n not in export_models.MODELS]
    if unknown:
        sys.exit("unknown model(s): %s (known: %s)"
                 % (", ".join(unknown), ", ".join(export_models.MODELS)))
    names = only or list(export_models.MODELS)

    if not (os.path.isfile(args.tractc) and os.access(args.tractc, os.X_OK)):
        print("error: tractc not found or not executable: %s" % args.tractc)
        print("0 passed, %d failed" % len(names))
        return 1

    if args.workdir:
        root = os.path.abspath(args.workdir)
        os.makedirs(root, exist_ok=True)
    else:
        root = tempfile.mkdtemp(prefix="tractc-e2e-")
    try:
        models_dir = os.path.join(root, "models")
        todo = [n for n in names if not (args.reuse and all(
            os.path.isfile(os.path.join(models_dir, n, f))
            for f in ("model.onnx", "input_0.npy", "expected_0.npy")))]
        if todo:
            argv = [sys.executable, EXPORT, models_dir, "--only", ",".join(todo)]
            print("exporting: " + ", ".join(todo), flush=True)
            rc, out, t = run_step(argv, root, args.timeout * len(todo))
            print(out.rstrip(), flush=True)
            if rc != 0:
                print("export_models.py %s" % describe(rc, args.timeout * len(todo)))
                print("0 passed, %d failed" % len(names))
                return 1

        results = []
        for i, n in enumerate(names):
            print("%s:" % n, flush=True)
            extra = i % args.extra_checks_every == args.offset % args.extra_checks_every
            try:
                ok, maxd, msg = test_model(n, os.path.join(models_dir, n),
                                           os.path.join(root, "build", n), args, extra)
            except Exception as e:  # noqa: BLE001
                ok, maxd, msg = False, None, "harness error: %s: %s" % (type(e).__name__, e)
            results.append((n, ok, maxd))
            print("  %s  max abs diff %s  %s" % ("PASS" if ok else "FAIL",
                                                 "%.3g" % maxd if maxd is not None else "n/a",
                                                 msg), flush=True)
            if args.spirv:
                try:
                    ok, maxd, msg = test_model_spirv(os.path.join(models_dir, n),
                                                     os.path.join(root, "build", n, "spirv"), args)
                except Exception as e:  # noqa: BLE001
                    ok, maxd, msg = False, None, "harness error: %s: %s" % (type(e).__name__, e)
                results.append((n + " (spirv)", ok, maxd))
                print("  %s  spirv: max abs diff %s  %s" % (
                    "PASS" if ok else "FAIL", "%.3g" % maxd if maxd is not None else "n/a", msg),
                    flush=True)
    finally:
        if not args.workdir:
            shutil.rmtree(root, ignore_errors=True)

    print()
    for n, ok, maxd in results:
        print("  %-16s %s  max abs diff %s" % (n, "pass" if ok else "FAIL",
                                               "%.3g" % maxd if maxd is not None else "n/a"))
    npass = sum(1 for _, ok, _ in results if ok)
    nfail = len(results) - npass
    print("%d passed, %d failed" % (npass, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
