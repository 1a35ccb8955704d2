"""The differential check: each case through ONNX Runtime (the oracle) and through tractc
twice, optimised and with --no-optimize, built and run (the optimised one also split into
tasks, as model_run_threads does), outputs compared.

Runner(...).check(cases) -> [Outcome]. Per case the worst of its two variants:
  ok            both match ORT at the tolerance
  unsupported   tractc said so (exit 2); counted, not a failure
  mismatch      an output differs from ORT's (shape, dtype or values)
  crash         tractc died on a signal or a sanitizer report, or the model's program did
  rejected      tractc refused the valid model with exit 1
  fallback      tractc compiled it only by keeping nodes plain after an optimisation failed
  build-error   the generated C++ did not compile
  oracle-error  ORT refused the graph: the generator's fault, not tractc's
Tolerance: floats within max(rtol, 4 x ORT's own spread) of the output's scale (its largest
magnitude, at least 0.01), as the zoo; ORT's spread is its optimised graph against its
unoptimised one. The floor on the scale is for outputs that are tiny differences of values
near 1: float32 leaves those about 1e-7 of absolute error whatever their own size.
"""
import concurrent.futures
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "test", "oracle"))
import ort_oracle  # noqa: E402

VARIANTS = {"opt": [], "plain": ["--no-optimize"]}
# The optimised build also runs split into this many tasks (model_run_threads, the tasks run
# one after another by the driver): the kernels' splits and per-task scratch are checked too.
THREADS = 3
MIN_SCALE = 1e-2
FAILURES = ("crash", "rejected", "fallback", "build-error", "mismatch")
# Worst first: a case's outcome is the worst of its variants'.
SEVERITY = ["crash", "rejected", "fallback", "build-error", "mismatch", "oracle-error",
            "unsupported", "ok"]
DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32,
          7: np.int64, 9: np.bool_, 11: np.float64, 12: np.uint32, 13: np.uint64}


@dataclass
class Outcome:
    kind: str
    detail: str = ""
    variant: str = ""
    rel_err: float = 0.0

    @property
    def failed(self):
        return self.kind in FAILURES

    def signature(self):
        """What the shrinker keeps constant: the kind, and for refusals the message's start."""
        head = self.detail.split(":")[0][:60] if self.kind in ("rejected", "crash") else ""
        return (self.kind, head)


def _tail(text, n=4):
    return " | ".join(text.strip().splitlines()[-n:])[-600:]


class Runner:
    def __init__(self, tractc, workdir, ort, jobs=2, cxx="g++", cxxflags="-O0 -march=native",
                 batch=24, rtol=1e-4, timeout=120, compile_only=False):
        self.tractc, self.workdir, self.ort = tractc, os.path.abspath(workdir), ort
        # compile_only: tractc alone (a sanitized tractc's run over the graphs); no oracle.
        self.compile_only = compile_only
        self.jobs, self.cxx, self.cxxflags = max(1, jobs), cxx, cxxflags.split()
        self.batch, self.rtol, self.timeout = batch, rtol, timeout
        self._round = 0
        os.makedirs(self.workdir, exist_ok=True)

    # ---- one round -----------------------------------------------------------------------
    def check(self, cases):
        self._round += 1
        root = os.path.join(self.workdir, f"round{self._round % 2}")
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        dirs = []
        for k, case in enumerate(cases):
            d = os.path.join(root, f"c{k}")
            os.makedirs(d)
            onnx.save(case.model, os.path.join(d, "model.onnx"))
            for i, value in enumerate(case.feeds.values()):
                np.ascontiguousarray(value).tofile(os.path.join(d, f"input_{i}.bin"))
            dirs.append(d)
        if self.compile_only:
            return self._compile_all(dirs)
        jobs = []
        for d, case in zip(dirs, cases):
            model = os.path.join(d, "model.onnx")
            jobs += [(model, case.feeds, False), (model, case.feeds, True)]
        ort = ort_oracle.run_ort_batch(self.ort, jobs)
        expected = [(ort[2 * k], ort[2 * k + 1]) for k in range(len(cases))]

        names = [(k, v) for k in range(len(cases)) for v in VARIANTS]
        outcome = {}
        with concurrent.futures.ThreadPoolExecutor(self.jobs) as pool:
            for (k, v), o in zip(names, pool.map(lambda kv: self._compile(dirs[kv[0]], *kv),
                                                  names)):
                if o is not None:
                    outcome[(k, v)] = o
            built = [kv for kv in names if kv not in outcome]
            groups = [built[i:i + self.batch] for i in range(0, len(built), self.batch)]
            exe = {}
            for group, result in zip(groups, pool.map(lambda g: self._build(root, dirs, g),
                                                      enumerate(groups))):
                for kv, r in zip(group, result):
                    if isinstance(r, Outcome):
                        outcome[kv] = r
                    else:
                        exe[kv] = r
            # Each build runs once on one thread; the optimised one again on THREADS tasks.
            runs = [(kv, path, 1) for kv, path in exe.items()]
            runs += [(kv, path, THREADS) for kv, path in exe.items() if kv[1] == "opt"]
            for (kv, _, threads), o in zip(runs, pool.map(
                    lambda r: self._run(dirs[r[0][0]], r[0], r[1], expected[r[0][0]], r[2]),
                    runs)):
                outcome[kv + (threads,)] = o
        results = []
        for k in range(len(cases)):
            per = [o for key, o in outcome.items() if key[0] == k]
            if isinstance(expected[k][0], ort_oracle.OracleError):
                # No reference; tractc must still not crash on the graph ORT refused.
                crashes = [o for o in per if o.kind == "crash" and o.detail.startswith("tractc")]
                results.append(crashes[0] if crashes else
                               Outcome("oracle-error", str(expected[k][0])[:300]))
                continue
            results.append(min(per, key=lambda o: SEVERITY.index(o.kind)))
        return results

    def _compile_all(self, dirs):
        names = [(k, v) for k in range(len(dirs)) for v in VARIANTS]
        with concurrent.futures.ThreadPoolExecutor(self.jobs) as pool:
            got = list(pool.map(lambda kv: self._compile(dirs[kv[0]], *kv), names))
        results = []
        for k in range(len(dirs)):
            per = [o or Outcome("ok", "", v) for (kk, v), o in zip(names, got) if kk == k]
            results.append(min(per, key=lambda o: SEVERITY.index(o.kind)))
        return results

    # ---- the steps -----------------------------------------------------------------------
    def _compile(self, d, k, variant):
        name = f"c{k}_{variant}"
        argv = [self.tractc, os.path.join(d, "model.onnx"), "-o", os.path.join(d, name + ".cpp"),
                "--name", name, *VARIANTS[variant]]
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return Outcome("crash", f"tractc took over {self.timeout} s", variant)
        if r.returncode < 0 or r.returncode > 2 or "Sanitizer" in r.stderr \
                or "runtime error:" in r.stderr:
            return Outcome("crash", f"tractc exit {r.returncode}: {_tail(r.stderr)}", variant)
        if r.returncode == 2:
            return Outcome("unsupported", _tail(r.stderr, 1), variant)
        if r.returncode == 1:
            return Outcome("rejected", _tail(r.stderr, 2), variant)
        if "tractc: warning:" in r.stderr and ("an optimisation failed" in r.stderr
                                               or "is skipped" in r.stderr
                                               or "are skipped" in r.stderr):
            # It compiled, but only because tractc fell back (tools/tractc/Fallback.h): the
            # optimisation that failed is the finding.
            return Outcome("fallback", _tail(r.stderr, 2), variant)
        return None

    def _build(self, root, dirs, indexed_group):
        """Builds a group of compiled variants as one program; a group that fails to build is
        built again one model at a time, to blame the right ones."""
        g, group = indexed_group
        exe = os.path.join(root, f"batch{g}")
        err = self._compile_tu(exe, [(dirs[k], f"c{k}_{v}") for k, v in group])
        if err is None:
            return [exe] * len(group)
        if len(group) == 1:
            return [Outcome("build-error", err, group[0][1])]
        out = []
        for i, (k, v) in enumerate(group):
            one = f"{exe}_{i}"
            e = self._compile_tu(one, [(dirs[k], f"c{k}_{v}")])
            out.append(one if e is None else Outcome("build-error", e, v))
        return out

    def _compile_tu(self, exe, models):
        # The models' headers first: they define tract_tensor_info for the driver.
        lines = [f'#include "{os.path.join(d, name)}.h"' for d, name in models]
        lines.append('#include "batch_driver.h"')
        for d, name in models:
            lines += [f"namespace {name}_ns {{", f'#include "{os.path.join(d, name)}.cpp"', "}"]
        lines.append("const FuzzModel kModels[] = {")
        for _, name in models:
            up = name.upper()
            # The namespace's own definitions: a const table defined there has internal
            # linkage, apart from the header's global declaration.
            ns = f"{name}_ns::{name}"
            lines.append(f'  {{"{name}", {ns}_run, {ns}_run_threads, {ns}_inputs, {up}_NUM_INPUTS, '
                         f'{ns}_outputs, {up}_NUM_OUTPUTS, {up}_ARENA_BYTES, '
                         f'{up}_THREAD_SCRATCH_BYTES, {up}_ARENA_ALIGN}},')
        lines += ["};", f"const int kNumModels = {len(models)};", ""]
        src = exe + ".cpp"
        with open(src, "w") as f:
            f.write("\n".join(lines))
        argv = [self.cxx, "-std=c++17", *self.cxxflags, "-w", "-I", HERE, "-I",
                os.path.join(REPO, "runtime", "include"), src, "-o", exe, "-lpthread"]
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            return "the C++ compiler took over 600 s"
        return None if r.returncode == 0 else _tail(r.stderr, 6)

    def _run(self, d, kv, exe, expected, threads):
        k, variant = kv
        name = f"c{k}_{variant}"
        want, optimized = expected
        outputs = name if threads == 1 else f"{name}.t{threads}"
        if threads > 1:
            variant = f"{variant}, {threads} threads"
        try:
            r = subprocess.run([exe, name, d, str(threads)], capture_output=True, text=True,
                               timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return Outcome("crash", f"the model ran over {self.timeout} s", variant)
        if r.returncode != 0:
            return Outcome("crash", f"the model's program exited {r.returncode}: "
                                    f"{_tail(r.stderr)}", variant)
        if isinstance(want, ort_oracle.OracleError):
            return Outcome("oracle-error", str(want), variant)
        lines = [ln.split() for ln in r.stdout.splitlines() if ln.startswith("output ")]
        if len(lines) != len(want):
            return Outcome("mismatch", f"{len(lines)} outputs against ORT's {len(want)}", variant)
        spread = 0.0
        if not isinstance(optimized, ort_oracle.OracleError):
            spread = max([ort_oracle.relative_error(a, b) for a, b in zip(optimized, want)] + [0])
        rtol = max(self.rtol, 4 * spread)
        worst = 0.0
        for i, (fields, w) in enumerate(zip(lines, want)):
            dtype = DTYPES.get(int(fields[2]))
            shape = [int(x) for x in fields[4:]]
            if dtype is None:
                return Outcome("mismatch", f"output {i}: dtype code {fields[2]}", variant)
            got = np.fromfile(os.path.join(d, f"{outputs}.output_{i}.bin"), dtype=dtype)
            if got.size != int(np.prod(shape, dtype=np.int64)):
                return Outcome("mismatch", f"output {i}: {got.size} elements for {shape}", variant)
            got = got.reshape(shape)
            if got.dtype != w.dtype:
                return Outcome("mismatch", f"output {i}: dtype {got.dtype} against {w.dtype}",
                               variant)
            why = ort_oracle.compare(got, w, rtol, min_scale=MIN_SCALE)
            if why:
                return Outcome("mismatch", f"output {i}: {why}", variant,
                               ort_oracle.relative_error(got, w))
            worst = max(worst, ort_oracle.relative_error(got, w))
        return Outcome("ok", "", variant, worst)
