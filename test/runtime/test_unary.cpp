#include "tract/rt/elementwise/unary_ref.h"

#include "test_util.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace tract_test;
namespace rt = tract::rt;
namespace op = tract::rt::op;

namespace {

// Runs the kernel over every tail size and compares with `ref` (computed in
// double, independently of the functor).
template <class T, class F, class R>
void check_unary(F f, R ref, double lo, double hi, double rtol = 2e-6,
                 double atol = 1e-6) {
  for (int64_t n : tail_sizes()) {
    const auto x = random_vec<T>(size_t(n), uint64_t(n) * 31 + 5, lo, hi);
    std::vector<T> y(static_cast<size_t>(n), T(-99)),
        want(static_cast<size_t>(n));
    rt::unary(x.data(), y.data(), n, f);
    for (int64_t i = 0; i < n; ++i)
      want[size_t(i)] = static_cast<T>(ref(static_cast<double>(x[size_t(i)])));
    ASSERT_TRUE(all_near(y, want, rtol, atol)) << "n=" << n;
  }
}

} // namespace

TEST(Unary, KernelWritesExactlyN) {
  std::vector<float> x = {1, 2, 3, 4}, y = {0, 0, 0, 7};
  rt::unary(x.data(), y.data(), 3, op::Neg{});
  EXPECT_EQ(y, (std::vector<float>{-1, -2, -3, 7}));
  rt::unary(x.data(), y.data(), 0, op::Neg{});
}

TEST(Unary, TranscendentalFloatAndDouble) {
  check_unary<float>(
      op::Exp{}, [](double v) { return std::exp(v); }, -5, 5);
  check_unary<double>(
      op::Exp{}, [](double v) { return std::exp(v); }, -5, 5, 1e-14, 0);
  check_unary<float>(
      op::Log{}, [](double v) { return std::log(v); }, 0.01, 9);
  check_unary<float>(
      op::Sqrt{}, [](double v) { return std::sqrt(v); }, 0, 9);
  check_unary<float>(
      op::Erf{}, [](double v) { return std::erf(v); }, -3, 3);
  check_unary<float>(
      op::Tanh{}, [](double v) { return std::tanh(v); }, -4, 4);
  check_unary<float>(
      op::Sin{}, [](double v) { return std::sin(v); }, -4, 4);
  check_unary<float>(
      op::Cos{}, [](double v) { return std::cos(v); }, -4, 4);
  check_unary<float>(
      op::Tan{}, [](double v) { return std::tan(v); }, -1, 1);
  check_unary<float>(
      op::Asin{}, [](double v) { return std::asin(v); }, -1, 1);
  check_unary<float>(
      op::Acos{}, [](double v) { return std::acos(v); }, -1, 1);
  check_unary<float>(
      op::Atan{}, [](double v) { return std::atan(v); }, -4, 4);
  check_unary<float>(
      op::Sinh{}, [](double v) { return std::sinh(v); }, -4, 4);
  check_unary<float>(
      op::Cosh{}, [](double v) { return std::cosh(v); }, -4, 4);
  check_unary<float>(
      op::Asinh{}, [](double v) { return std::asinh(v); }, -4, 4);
  check_unary<float>(
      op::Acosh{}, [](double v) { return std::acosh(v); }, 1, 5);
  check_unary<float>(
      op::Atanh{}, [](double v) { return std::atanh(v); }, -0.9, 0.9);
  check_unary<float>(
      op::Sigmoid{}, [](double v) { return 1.0 / (1.0 + std::exp(-v)); }, -9,
      9);
  check_unary<float>(
      op::Softplus{}, [](double v) { return std::log(1.0 + std::exp(v)); }, -9,
      9);
  check_unary<float>(
      op::Softsign{}, [](double v) { return v / (1.0 + std::fabs(v)); }, -9, 9);
  check_unary<float>(
      op::Mish{},
      [](double v) { return v * std::tanh(std::log(1.0 + std::exp(v))); }, -6,
      6);
  check_unary<float>(
      op::Gelu{},
      [](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); },
      -5, 5);
  check_unary<float>(
      op::GeluTanh{},
      [](double v) {
        return 0.5 * v *
               (1.0 + std::tanh(std::sqrt(2.0 / 3.14159265358979323846) *
                                (v + 0.044715 * v * v * v)));
      },
      -5, 5);
  check_unary<float>(
      op::HardSwish{},
      [](double v) { return v * std::max(0.0, std::min(1.0, v / 6.0 + 0.5)); },
      -7, 7);
  check_unary<float>(
      op::Reciprocal{}, [](double v) { return 1.0 / v; }, 0.1, 5);
}

// HardSwish is written as a choice between products (so GCC vectorises it
// in GEMM epilogues); it must give the clamp's floats bit for bit, zeros'
// signs, NaN and the infinities included.
TEST(Unary, HardSwishIsTheClampBitForBit) {
  auto clamp_form = [](float v) {
    const float t = v * (1.0f / 6.0f) + 0.5f;
    return std::max(0.0f, std::min(1.0f, t)) * v; // std::max(a, b): a < b ? b : a
  };
  std::vector<float> xs = {0.0f, -0.0f, -3.0f, 3.0f, -2.9999998f, 3.0000002f, 1e-30f, -1e-30f,
                           1e30f, -1e30f, INFINITY, -INFINITY, NAN};
  for (float v = -8.0f; v <= 8.0f; v += 0.0078125f)
    xs.push_back(v);
  for (float v : xs) {
    const float got = op::HardSwish{}(v), want = clamp_form(v);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << v;
      continue;
    }
    uint32_t g, w;
    std::memcpy(&g, &got, 4);
    std::memcpy(&w, &want, 4);
    EXPECT_EQ(g, w) << v << ": " << got << " vs " << want;
  }
}

TEST(Unary, ExtremesDoNotOverflow) {
  EXPECT_EQ(op::Sigmoid{}(-1000.0f), 0.0f);
  EXPECT_EQ(op::Sigmoid{}(1000.0f), 1.0f);
  EXPECT_EQ(op::Softplus{}(1000.0f), 1000.0f);
  EXPECT_EQ(op::Softplus{}(-1000.0f), 0.0f);
  EXPECT_TRUE(std::isnan(op::Sigmoid{}(NAN)));
  EXPECT_TRUE(std::isnan(op::Relu{}(NAN)));
}

TEST(Unary, RoundingOps) {
  // ONNX Round: half to even.
  const float in[] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4f, 2.6f, -2.6f};
  const float want[] = {0.f, 2.f, 2.f, -0.f, -2.f, -2.f, 2.f, 3.f, -3.f};
  for (size_t i = 0; i < 9; ++i)
    EXPECT_EQ(op::Round{}(in[i]), want[i]) << in[i];
  EXPECT_EQ(op::Floor{}(-1.5), -2.0);
  EXPECT_EQ(op::Ceil{}(-1.5), -1.0);
  EXPECT_EQ(op::Floor{}(int32_t(-3)), -3);
  EXPECT_EQ(op::Round{}(int64_t(7)), 7);
}

TEST(Unary, IntegerNeverTraps) {
  EXPECT_EQ(op::Neg{}(INT32_MIN), INT32_MIN);
  EXPECT_EQ(op::Neg{}(int8_t(-128)), int8_t(-128));
  EXPECT_EQ(op::Neg{}(int16_t(5)), int16_t(-5));
  EXPECT_EQ(op::Abs{}(INT64_MIN), INT64_MIN);
  EXPECT_EQ(op::Abs{}(int8_t(-7)), 7);
  EXPECT_EQ(op::Abs{}(uint8_t(200)), 200);
  EXPECT_EQ(op::Reciprocal{}(int32_t(0)), 0);
  EXPECT_EQ(op::Reciprocal{}(int32_t(1)), 1);
  EXPECT_EQ(op::Reciprocal{}(int32_t(-1)), -1);
  EXPECT_EQ(op::Reciprocal{}(int32_t(3)), 0);
  EXPECT_EQ(op::Relu{}(int32_t(-3)), 0);
  EXPECT_EQ(op::Relu{}(int8_t(3)), 3);
  EXPECT_EQ(op::Relu{}(uint16_t(3)), 3);
  EXPECT_EQ(op::Sign{}(int32_t(-9)), -1);
  EXPECT_EQ(op::Sign{}(int32_t(0)), 0);
  EXPECT_EQ(op::Sign{}(uint32_t(9)), 1u);
  EXPECT_EQ(op::Sign{}(-2.5f), -1.0f);
  EXPECT_TRUE(std::isnan(op::Sign{}(NAN)));
  // Integer inputs of float math go through double and saturate.
  EXPECT_EQ(op::Sqrt{}(int32_t(17)), 4);
  EXPECT_EQ(op::Exp{}(int32_t(100)), INT32_MAX);
  EXPECT_EQ(op::Log{}(int32_t(0)), INT32_MIN); // -inf saturates
  EXPECT_EQ(op::Sqrt{}(int32_t(-1)), 0);       // NaN -> 0
  EXPECT_EQ(op::Erf{}(int64_t(3)), 0);
  EXPECT_EQ(op::Exp{}(uint8_t(5)), 148);
}

TEST(Unary, LogicalAndClassification) {
  EXPECT_TRUE(op::Not{}(false));
  EXPECT_FALSE(op::Not{}(true));
  EXPECT_TRUE(op::IsNaN{}(NAN));
  EXPECT_FALSE(op::IsNaN{}(1.0));
  EXPECT_FALSE(op::IsNaN{}(int32_t(3)));
  const op::IsInf both{};
  EXPECT_TRUE(both(INFINITY));
  EXPECT_TRUE(both(-INFINITY));
  EXPECT_FALSE(both(1e30f));
  EXPECT_FALSE(both(NAN));
  const op::IsInf pos_only{true, false};
  EXPECT_TRUE(pos_only(INFINITY));
  EXPECT_FALSE(pos_only(-INFINITY));
  const op::IsInf neg_only{false, true};
  EXPECT_FALSE(neg_only(static_cast<double>(INFINITY)));
  EXPECT_TRUE(neg_only(-static_cast<double>(INFINITY)));
  std::vector<float> x = {1.0f, NAN, INFINITY};
  bool y[3];
  rt::unary(x.data(), y, 3, op::IsNaN{});
  EXPECT_FALSE(y[0]);
  EXPECT_TRUE(y[1]);
  EXPECT_FALSE(y[2]);
}

TEST(Unary, Parameterised) {
  check_unary<float>(
      op::LeakyRelu{0.1f}, [](double v) { return v < 0 ? 0.1 * v : v; }, -3, 3);
  check_unary<float>(
      op::HardSigmoid{0.3f, 0.4f},
      [](double v) { return std::max(0.0, std::min(1.0, 0.3 * v + 0.4)); }, -5,
      5);
  check_unary<float>(
      op::Clip<float>{-0.5f, 1.25f},
      [](double v) { return std::min(1.25, std::max(-0.5, v)); }, -3, 3);
  check_unary<float>(
      op::Elu{0.7f},
      [](double v) { return v < 0 ? 0.7 * (std::exp(v) - 1) : v; }, -3, 3);
  check_unary<float>(
      op::Selu{},
      [](double v) {
        const double a = 1.6732632423543772, g = 1.0507009873554805;
        return v > 0 ? g * v : g * (a * std::exp(v) - a);
      },
      -3, 3);
  check_unary<float>(
      op::Celu{2.0f},
      [](double v) {
        return std::max(0.0, v) + std::min(0.0, 2.0 * (std::exp(v / 2.0) - 1));
      },
      -3, 3);
  check_unary<float>(
      op::ThresholdedRelu{0.5f}, [](double v) { return v > 0.5 ? v : 0.0; }, -3,
      3);
  check_unary<float>(
      op::Shrink{0.25f, 0.75f},
      [](double v) {
        return v < -0.75 ? v + 0.25 : (v > 0.75 ? v - 0.25 : 0.0);
      },
      -3, 3);
  // Defaults follow ONNX.
  EXPECT_FLOAT_EQ(op::LeakyRelu{}(-1.0f), -0.01f);
  EXPECT_FLOAT_EQ(op::HardSigmoid{}(0.0f), 0.5f);
  EXPECT_FLOAT_EQ(op::Shrink{}(0.4f), 0.0f);
  // Clip keeps NaN and works on integers.
  EXPECT_TRUE(std::isnan(op::Clip<float>{0.f, 1.f}(NAN)));
  EXPECT_EQ((op::Clip<int8_t>{-3, 5}(int8_t(100))), 5);
  EXPECT_EQ((op::Clip<uint8_t>{}(uint8_t(100))), 100);
  EXPECT_EQ((op::Shrink{1.0f, 1.5f}(int32_t(-4))), -3);
  EXPECT_EQ((op::Shrink{1.0f, 1.5f}(int32_t(1))), 0);
  EXPECT_EQ(op::LeakyRelu{0.5f}(int32_t(-5)), -2);
}

TEST(Unary, DifferentOutputType) {
  std::vector<int32_t> x = {-2, 0, 3};
  std::vector<double> y(3);
  rt::unary(x.data(), y.data(), 3, op::Neg{});
  EXPECT_EQ(y, (std::vector<double>{2.0, 0.0, -3.0}));
}
