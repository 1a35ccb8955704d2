"""The machine a bench figure comes from: CPU model, SIMD flags and measured FMA peak.

`describe(cxxflags)` builds and runs bench/peak/fma_peak_main.cpp with the flags the
bench builds its models with (the peak of the widest vector width those flags enable) and
returns (text, peak GFLOP/s per core); the harnesses print the text above their tables and
GFLOP/s figures as fractions of the peak.
"""
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def describe(cxxflags="-O3 -march=native", cxx="g++"):
    exe = os.path.join(tempfile.mkdtemp(prefix="fma_peak_"), "fma_peak")
    subprocess.run([cxx, "-std=c++17", *cxxflags.split(), "-I", REPO,
                    os.path.join(HERE, "peak", "fma_peak_main.cpp"), "-o", exe], check=True)
    out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    lines = [l for l in out.splitlines() if not l.startswith("peak_gflops ")]
    peak = float(next(l for l in out.splitlines() if l.startswith("peak_gflops ")).split()[1])
    return "\n".join(lines), peak


if __name__ == "__main__":
    text, _ = describe()
    print(text)
