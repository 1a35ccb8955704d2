// Prints the CPU (model name, SIMD flags) and its measured FP32 FMA peak per
// core, then "peak_gflops N" (the widest width's), for bench/machine.py.
#include "bench/peak/fma_peak.h"

int main() {
  bench::print_cpu();
  const bench::FmaPeak peak = bench::measure_fma_peak();
  bench::print_fma_peak(peak);
  std::printf("peak_gflops %.1f\n", peak.best());
  return 0;
}
