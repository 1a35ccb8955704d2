#!/usr/bin/python3
"""The differential graph fuzzer: random valid ONNX graphs through tractc against ONNX Runtime.

    graph_fuzz.py [--seed S] (--count N | --minutes M) [-j J] [--round R] [--no-shrink]
                  [--findings DIR] [--tractc build/bin/tractc] [--workdir build/graph-fuzz]
    graph_fuzz.py --replay test/graph-fuzz/regressions
    graph_fuzz.py --compile-only --tractc build-fuzz/bin/tractc --count N   (ASan + UBSan)

Graphs come from generate.py (seeds S, S+1, ...), R at a time (one ORT process, the C++ of a
round built in batches). Each failure (see differential.py) is shrunk (shrink.py) and written
to FINDINGS/<kind>-<seed>/: model.onnx, inputs.npz and finding.txt (what failed, how, and the
graph a line per node). Copy it into test/graph-fuzz/regressions/ once fixed: --replay runs
every case there and each must match ORT. The last line is `N passed, M failed` (failures are
crashes, refusals of a valid model, compiles that needed tractc's fallback, generated code that
does not build, and mismatches; `unsupported` and ORT's refusals are counted apart).
"""
import argparse
import collections
import os
import re
import sys
import time

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "test", "oracle"))
import ort_oracle  # noqa: E402
from differential import FAILURES, Runner  # noqa: E402
from generate import Case, generate  # noqa: E402
from shrink import describe, shrink, values_from_ort  # noqa: E402


def save_finding(folder, case, outcome, shrunk_from):
    os.makedirs(folder, exist_ok=True)
    onnx.save(case.model, os.path.join(folder, "model.onnx"))
    np.savez(os.path.join(folder, "inputs.npz"), **case.feeds)
    with open(os.path.join(folder, "finding.txt"), "w") as f:
        f.write(f"{outcome.kind} ({outcome.variant or 'both'}): {outcome.detail}\n")
        f.write(f"from seed {shrunk_from.seed}, idioms {', '.join(shrunk_from.idioms)}; "
                f"shrunk from {len(shrunk_from.model.graph.node)} to "
                f"{len(case.model.graph.node)} nodes\n\n")
        f.write(describe(case.model) + "\n")


def load_case(folder):
    model = onnx.load(os.path.join(folder, "model.onnx"))
    with np.load(os.path.join(folder, "inputs.npz")) as z:
        feeds = {vi.name: z[vi.name] for vi in model.graph.input}
    return Case(None, model, feeds)


def reason_key(detail):
    """An unsupported message without its node names and numbers, for the summary."""
    text = re.sub(r"'[^']*'", "'…'", detail.split("error:")[-1])
    return re.sub(r"\d+", "N", text).strip()[:110]


def replay(args, runner):
    folders = sorted(os.path.join(args.replay, d) for d in os.listdir(args.replay)
                     if os.path.isfile(os.path.join(args.replay, d, "model.onnx")))
    results = runner.check([load_case(f) for f in folders]) if folders else []
    failed = 0
    for f, o in zip(folders, results):
        ok = o.kind == "ok"
        failed += not ok
        print(f"{'ok' if ok else 'FAIL'} {os.path.basename(f)}"
              f"{'' if ok else f': {o.kind} ({o.variant}) {o.detail}'}")
    print(f"{len(folders) - failed} passed, {failed} failed")
    return 1 if failed else 0


def fuzz(args, runner):
    ort_values = None if args.compile_only else values_from_ort(args.ort, ort_oracle)
    kinds, unsupported, oracle_errors = collections.Counter(), collections.Counter(), []
    generator_errors = collections.Counter()
    findings = []
    seed, graphs, nodes = args.seed, 0, 0
    t0 = time.time()
    deadline = t0 + args.minutes * 60 if args.minutes else None
    while True:
        if args.count and graphs >= args.count:
            break
        if deadline and time.time() > deadline:
            break
        want = args.round if not args.count else min(args.round, args.count - graphs)
        cases = []
        while len(cases) < want:
            try:
                c = generate(seed)
            except Exception as e:  # noqa: BLE001 (an idiom built a node ONNX rejects)
                generator_errors[f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"] += 1
                c = None
            seed += 1
            if c is not None:
                cases.append(c)
        results = runner.check(cases)
        for case, outcome in zip(cases, results):
            graphs += 1
            nodes += len(case.model.graph.node)
            kinds[outcome.kind] += 1
            if outcome.kind == "unsupported":
                unsupported[reason_key(outcome.detail)] += 1
            elif outcome.kind == "oracle-error":
                oracle_errors.append((case.seed, outcome.detail[:200]))
            elif outcome.failed:
                print(f"FAIL seed {case.seed}: {outcome.kind} ({outcome.variant}) "
                      f"{outcome.detail[:400]}", flush=True)
                small, why = case, outcome
                if not args.no_shrink:
                    small, why = shrink(case, outcome, runner.check, ort_values, log=print)
                folder = os.path.join(args.findings, f"{why.kind}-{case.seed}")
                save_finding(folder, small, why, case)
                findings.append(folder)
                print(f"  -> {folder} ({len(small.model.graph.node)} nodes)", flush=True)
        elapsed = time.time() - t0
        print(f"[{elapsed:.0f} s] {graphs} graphs ({graphs / elapsed:.1f}/s), "
              + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())), flush=True)

    print(f"\nseeds {args.seed}..{seed - 1}: {graphs} graphs, {nodes} nodes "
          f"({nodes / max(1, graphs):.1f} a graph), {time.time() - t0:.0f} s")
    for kind, n in sorted(kinds.items()):
        print(f"  {kind}: {n}")
    if unsupported:
        print("unsupported, by reason:")
        for reason, n in unsupported.most_common(12):
            print(f"  {n:5d}  {reason}")
    if oracle_errors:
        print(f"ORT refused {len(oracle_errors)} graphs (generator mistakes), e.g.:")
        for s, d in oracle_errors[:5]:
            print(f"  seed {s}: {d}")
    if generator_errors:
        print("generator errors:")
        for e, n in generator_errors.most_common(8):
            print(f"  {n:5d}  {e}")
    for f in findings:
        print(f"finding: {f}")
    failed = sum(kinds[k] for k in FAILURES)
    print(f"{graphs - failed} passed, {failed} failed")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=0)
    ap.add_argument("--minutes", type=float, default=0)
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--round", type=int, default=96, help="graphs checked together")
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--findings", default=os.path.join(REPO, "build", "graph-fuzz", "findings"))
    ap.add_argument("--replay", default="")
    ap.add_argument("--tractc", default=os.path.join(REPO, "build", "bin", "tractc"))
    ap.add_argument("--workdir", default=os.path.join(REPO, "build", "graph-fuzz"))
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--cxxflags", default="-O0 -march=native")
    ap.add_argument("--compile-only", action="store_true",
                    help="run tractc only (with a sanitized --tractc): crashes are the findings")
    args = ap.parse_args()
    if not args.replay and not args.count and not args.minutes:
        ap.error("give --count N, --minutes M or --replay DIR")
    if args.compile_only:
        args.no_shrink = True
        # LLVM's uninstrumented libraries make ASan's container checks report falsely.
        os.environ.setdefault("ASAN_OPTIONS", "detect_container_overflow=0:allow_user_poisoning=0")
        os.environ.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
    args.ort = None if args.compile_only else ort_oracle.ensure_ort(args.workdir)
    runner = Runner(os.path.abspath(args.tractc), os.path.join(args.workdir, "work"), args.ort,
                    jobs=args.jobs, cxx=args.cxx, cxxflags=args.cxxflags,
                    compile_only=args.compile_only)
    sys.exit(replay(args, runner) if args.replay else fuzz(args, runner))


if __name__ == "__main__":
    main()
