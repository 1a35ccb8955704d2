// The median wall time of repeated runs of a callable, in microseconds: the
// bench harnesses' timer (medians, since these VMs are noisy).
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace bench {

template <class F> double median_us(F f, int runs) {
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e6);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

} // namespace bench
