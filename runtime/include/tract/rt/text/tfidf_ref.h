// tract runtime: ONNX TfIdfVectorizer over integer tokens.
//
// For every row, every n in [min_gram, max_gram] and every skip in
// [0, max_skip] (unigrams once), the n-gram x[s], x[s + skip + 1], ... is
// looked up among the pool's n-grams; a hit increments its output slot.
// mode: 0 TF (counts), 1 IDF (weight if present), 2 TFIDF (count * weight).
// The pool is small and static: linear search, no heap.
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

template <class TI>
void tfidf(const TI *x, float *y, int64_t batch, int64_t len, int64_t min_gram, int64_t max_gram,
           int64_t max_skip, int mode, const int64_t *pool, int64_t pool_size,
           const int64_t *ngram_counts, int64_t n_counts, const int64_t *ngram_indexes,
           const float *weights, int64_t num_features) {
  for (int64_t i = 0; i < batch * num_features; ++i)
    y[i] = 0.0f;
  // Segment m (m-grams) spans pool [counts[m-1], counts[m]); n-grams are
  // numbered across segments, in pool order, for ngram_indexes/weights.
  auto segment_end = [&](int64_t m) { return m < n_counts ? ngram_counts[m] : pool_size; };
  auto first_gram_of = [&](int64_t n) {
    int64_t index = 0;
    for (int64_t m = 1; m < n; ++m)
      index += (segment_end(m) - ngram_counts[m - 1]) / m;
    return index;
  };
  const int64_t total_grams = first_gram_of(n_counts + 1);
  for (int64_t b = 0; b < batch; ++b) {
    const TI *row = x + b * len;
    float *out = y + b * num_features;
    for (int64_t n = min_gram < 1 ? 1 : min_gram; n <= max_gram && n <= n_counts; ++n) {
      // Pool entries [begin, end) hold the n-grams, n values each.
      const int64_t begin = ngram_counts[n - 1];
      const int64_t end = segment_end(n);
      if (begin < 0 || end > pool_size || begin > end)
        continue;
      const int64_t first_gram = first_gram_of(n);
      for (int64_t skip = 0; skip <= (n == 1 ? 0 : max_skip); ++skip) {
        const int64_t span = (n - 1) * (skip + 1);
        for (int64_t s = 0; s + span < len; ++s) {
          for (int64_t g = begin; g + n <= end; g += n) {
            bool match = true;
            for (int64_t k = 0; k < n && match; ++k)
              match = static_cast<int64_t>(row[s + k * (skip + 1)]) == pool[g + k];
            if (!match)
              continue;
            const int64_t gram = first_gram + (g - begin) / n;
            const int64_t slot = gram < total_grams ? ngram_indexes[gram] : -1;
            if (slot >= 0 && slot < num_features)
              out[slot] += 1.0f;
            break;
          }
        }
      }
    }
    for (int64_t f = 0; f < num_features; ++f) {
      // Weights are per pool n-gram; find the n-gram mapped to slot f.
      float w = 1.0f;
      if (weights) {
        for (int64_t gram = 0; gram < total_grams; ++gram)
          if (ngram_indexes[gram] == f) {
            w = weights[gram];
            break;
          }
      }
      if (mode == 1)
        out[f] = out[f] > 0.0f ? w : 0.0f;
      else if (mode == 2)
        out[f] *= w;
    }
  }
}

} // namespace rt
} // namespace tract
