// TfIdfVectorizer: the ONNX operator examples (tfidfvectorizer.py) plus a
// naive n-gram counter over random tokens.
#include "tract/rt/text/tfidf_ref.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

namespace rt = tract::rt;

namespace {
// pool: 4 unigrams [2, 3, 5, 4] then 3 bigrams [5,6] [7,8] [6,7].
const int64_t kPool[] = {2, 3, 5, 4, 5, 6, 7, 8, 6, 7};
const int64_t kCounts[] = {0, 4};
const int64_t kIndexes[] = {0, 1, 2, 3, 4, 5, 6};
const int32_t kInput[] = {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8};

std::vector<float> run(int64_t min_gram, int64_t max_gram, int64_t skip, const float *weights = nullptr,
                       int mode = 0) {
  std::vector<float> y(7, -1.0f);
  rt::tfidf(kInput, y.data(), 1, 12, min_gram, max_gram, skip, mode, kPool, 10, kCounts, 2,
            kIndexes, weights, 7);
  return y;
}
} // namespace

TEST(TfIdf, OnlyBigramsSkip0) {
  EXPECT_EQ(run(2, 2, 0), (std::vector<float>{0, 0, 0, 0, 1, 1, 1}));
}

TEST(TfIdf, OnlyBigramsSkip5) {
  EXPECT_EQ(run(2, 2, 5), (std::vector<float>{0, 0, 0, 0, 1, 3, 1}));
}

TEST(TfIdf, UniAndBigramsSkip5) {
  EXPECT_EQ(run(1, 2, 5), (std::vector<float>{0, 3, 1, 0, 1, 3, 1}));
}

TEST(TfIdf, IdfAndTfIdfWeights) {
  const float w[] = {1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(run(1, 2, 5, w, 1), (std::vector<float>{0, 2, 3, 0, 5, 6, 7}));
  EXPECT_EQ(run(1, 2, 5, w, 2), (std::vector<float>{0, 6, 3, 0, 5, 18, 7}));
}

// Bigrams with skips against a direct count, over random rows of tail sizes.
TEST(TfIdf, MatchesNaiveBigramCount) {
  std::mt19937 rng(7);
  for (int64_t len : {1, 2, 3, 7, 9, 17}) {
    std::vector<int64_t> x(len);
    for (auto &v : x)
      v = rng() % 4;
    const int64_t pool[] = {0, 1, 1, 2, 3, 3};
    const int64_t counts[] = {0, 0};
    const int64_t indexes[] = {0, 1, 2};
    for (int64_t skip = 0; skip < 3; ++skip) {
      std::vector<float> y(3);
      rt::tfidf(x.data(), y.data(), 1, len, 2, 2, skip, 0, pool, 6, counts, 2, indexes, nullptr, 3);
      std::vector<float> want(3, 0.0f);
      for (int64_t s = 0; s < skip + 1; ++s)
        for (int64_t i = 0; i + s + 1 < len; ++i)
          for (int g = 0; g < 3; ++g)
            if (x[i] == pool[2 * g] && x[i + s + 1] == pool[2 * g + 1])
              want[g] += 1;
      EXPECT_EQ(y, want) << "len " << len << " skip " << skip;
    }
  }
}
