#!/usr/bin/python3
"""Runs tractc on every model of the hostile corpus and checks what it did.

usage: run_hostile.py TRACTC CORPUS_DIR EXPECTED [--timeout S] [--memory-mib M]

EXPECTED has a line per case: `NAME EXIT REGEX [-- ARGS...]`. NAME may end in
`*` (a prefix), EXIT is 1, 2 or `any` (0 with output, or 1 / 2), REGEX must be
found in tractc's stderr when it fails, ARGS are passed to tractc. For every
case, within the time and address-space limits:
  - no crash: the exit code is 0, 1 or 2, with no assertion or stack dump;
  - a failure prints "tractc: error:" and leaves no OUT.cpp / OUT.h behind;
  - a success writes both.
Every case in the corpus must have a line, and every line a case.
The last line is "N passed, M failed"; exit 1 on any failure.
"""
import argparse
import fnmatch
import os
import re
import resource
import subprocess
import sys
import tempfile

CRASH_SIGNS = ("Assertion", "Stack dump", "LLVM ERROR", "PLEASE submit", "terminate called",
               "AddressSanitizer", "runtime error:")


def read_expected(path):
    rules = []
    for n, line in enumerate(open(path), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        line, _, args = line.partition(" -- ")
        parts = line.split(None, 2)
        if len(parts) < 2:
            sys.exit("%s:%d: expected NAME EXIT [REGEX]" % (path, n))
        rules.append({"name": parts[0], "exit": parts[1],
                      "regex": parts[2] if len(parts) > 2 else "", "args": args.split(),
                      "used": False})
    return rules


def cases(corpus):
    for entry in sorted(os.listdir(corpus)):
        path = os.path.join(corpus, entry)
        if entry.endswith(".onnx"):
            yield entry[:-5], path
        elif os.path.isfile(os.path.join(path, "model.onnx")):
            yield entry, os.path.join(path, "model.onnx")


def limit(memory_mib):
    def apply():
        size = memory_mib << 20
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    return apply


def check(tractc, name, model, rule, timeout, memory_mib):
    with tempfile.TemporaryDirectory(prefix="tractc-hostile-") as tmp:
        out_cpp, out_h = os.path.join(tmp, "out.cpp"), os.path.join(tmp, "out.h")
        argv = [tractc, model, "-o", out_cpp] + rule["args"]
        try:
            res = subprocess.run(argv, capture_output=True, text=True, errors="replace",
                                 timeout=timeout, preexec_fn=limit(memory_mib))
        except subprocess.TimeoutExpired:
            return "no answer within %gs" % timeout
        err = res.stderr
        if res.returncode not in (0, 1, 2):
            return "exit %d (a crash?): %s" % (res.returncode, err[-300:])
        for sign in CRASH_SIGNS:
            if sign in err:
                return "'%s' in stderr: %s" % (sign, err[-300:])
        left = [os.path.basename(p) for p in (out_cpp, out_h) if os.path.exists(p)]
        if res.returncode == 0:
            if rule["exit"] != "any" and rule["exit"] != "0":
                return "compiled, expected exit %s matching '%s'" % (rule["exit"], rule["regex"])
            if len(left) != 2:
                return "exit 0 without OUT.cpp and OUT.h"
            return None
        if rule["exit"] not in ("any", str(res.returncode)):
            return "exit %d, expected %s: %s" % (res.returncode, rule["exit"], err.strip())
        if "tractc: error:" not in err:
            return "failed without 'tractc: error:': %s" % err.strip()
        if rule["regex"] and not re.search(rule["regex"], err):
            return "stderr does not match '%s': %s" % (rule["regex"], err.strip())
        if left:
            return "failed but left %s behind" % ", ".join(left)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tractc")
    ap.add_argument("corpus")
    ap.add_argument("expected")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--memory-mib", type=int, default=4096)
    args = ap.parse_args()
    rules = read_expected(args.expected)
    passed = failed = 0
    for name, model in cases(args.corpus):
        matching = [r for r in rules if fnmatch.fnmatchcase(name, r["name"])]
        if not matching:
            print("FAIL %s: no line in %s" % (name, args.expected))
            failed += 1
            continue
        rule = matching[0]
        rule["used"] = True
        problem = check(args.tractc, name, model, rule, args.timeout, args.memory_mib)
        if problem:
            print("FAIL %s: %s" % (name, problem))
            failed += 1
        else:
            passed += 1
    for r in rules:
        if not r["used"]:
            print("FAIL %s: listed, but not in the corpus" % r["name"])
            failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
