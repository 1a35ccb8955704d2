// Instantiates every kernel and functor with every element type the
// compiler may emit, through the umbrella header, so that a warning in any
// instantiation (built with -Wall -Wextra -Wpedantic) shows up here, and
// checks a few cross-type results at run time.
#include "tract/rt/all.h"

#include "test_util.h"

#include <tuple>

namespace rt = tract::rt;
namespace op = tract::rt::op;

namespace {

using Numeric = std::tuple<float, double, int8_t, uint8_t, int16_t, uint16_t,
                           int32_t, uint32_t, int64_t, uint64_t>;
using Floats = std::tuple<float, double>;

template <class Tuple, class F> void for_types(F &&f) {
  std::apply([&](auto... t) { (f(t), ...); }, Tuple{});
}

template <class T> void unary_all() {
  T x[4] = {T(1), T(2), T(0), T(3)};
  T y[4];
  bool b[4];
  rt::unary(x, y, 4, op::Neg{});
  rt::unary(x, y, 4, op::Abs{});
  rt::unary(x, y, 4, op::Sqrt{});
  rt::unary(x, y, 4, op::Exp{});
  rt::unary(x, y, 4, op::Log{});
  rt::unary(x, y, 4, op::Erf{});
  rt::unary(x, y, 4, op::Relu{});
  rt::unary(x, y, 4, op::Sigmoid{});
  rt::unary(x, y, 4, op::Tanh{});
  rt::unary(x, y, 4, op::Floor{});
  rt::unary(x, y, 4, op::Ceil{});
  rt::unary(x, y, 4, op::Round{});
  rt::unary(x, y, 4, op::Sin{});
  rt::unary(x, y, 4, op::Cos{});
  rt::unary(x, y, 4, op::Tan{});
  rt::unary(x, y, 4, op::Asin{});
  rt::unary(x, y, 4, op::Acos{});
  rt::unary(x, y, 4, op::Atan{});
  rt::unary(x, y, 4, op::Sinh{});
  rt::unary(x, y, 4, op::Cosh{});
  rt::unary(x, y, 4, op::Asinh{});
  rt::unary(x, y, 4, op::Acosh{});
  rt::unary(x, y, 4, op::Atanh{});
  rt::unary(x, y, 4, op::Reciprocal{});
  rt::unary(x, y, 4, op::Sign{});
  rt::unary(x, y, 4, op::Softplus{});
  rt::unary(x, y, 4, op::Softsign{});
  rt::unary(x, b, 4, op::IsNaN{});
  rt::unary(x, b, 4, op::IsInf{});
  rt::unary(x, y, 4, op::LeakyRelu{0.1f});
  rt::unary(x, y, 4, op::HardSigmoid{0.2f, 0.5f});
  rt::unary(x, y, 4, op::Clip<T>{T(0), T(2)});
  rt::unary(x, y, 4, op::Elu{1.0f});
  rt::unary(x, y, 4, op::Selu{1.67f, 1.05f});
  rt::unary(x, y, 4, op::Celu{1.0f});
  rt::unary(x, y, 4, op::ThresholdedRelu{1.0f});
  rt::unary(x, y, 4, op::HardSwish{});
  rt::unary(x, y, 4, op::Shrink{0.0f, 0.5f});
  rt::unary(x, y, 4, op::Mish{});
  rt::unary(x, y, 4, op::Gelu{});
  rt::unary(x, y, 4, op::GeluTanh{});
  rt::unary(x, y, 4, [](T v) { return v; });
  EXPECT_EQ(op::Abs{}(T(3)), T(3));
}

template <class T> void binary_all() {
  const T a[6] = {T(1), T(2), T(3), T(4), T(5), T(6)};
  const T bb[3] = {T(2), T(0), T(3)};
  const int64_t ys[2] = {2, 3}, as[2] = {3, 1}, bs[2] = {0, 1};
  T y[6];
  bool z[6];
  rt::binary_bcast(a, as, bb, bs, y, ys, 2, op::Add{});
  rt::binary_bcast(a, as, bb, bs, y, ys, 2, op::Sub{});
  rt::binary_bcast(a, as, bb, bs, y, ys, 2, op::Mul{});
  rt::binary_bcast(a, as, bb, bs, y, ys, 2, op::Div{});
  rt::binary_bcast(a, as, bb, bs, y, ys, 2, op::Pow{});
  rt::binary_bcast(a, as, bb, bs, y, ys, 2, op::Max{});
  rt::binary_bcast(a, as, bb, bs, y, ys, 2, op::Min{});
  rt::binary_bcast(a, as, bb, bs, y, ys, 2, op::Mod{});
  rt::binary_bcast(a, as, bb, bs, y, ys, 2, op::FMod{});
  rt::binary_bcast(a, as, bb, bs, y, ys, 2, op::PRelu{});
  rt::binary_bcast(a, as, bb, bs, z, ys, 2, op::Equal{});
  rt::binary_bcast(a, as, bb, bs, z, ys, 2, op::Less{});
  rt::binary_bcast(a, as, bb, bs, z, ys, 2, op::Greater{});
  rt::binary_bcast(a, as, bb, bs, z, ys, 2, op::LessOrEqual{});
  rt::binary_bcast(a, as, bb, bs, z, ys, 2, op::GreaterOrEqual{});
  rt::binary_flat(a, a, y, 6, op::Add{});
  rt::select_bcast(z, as, a, as, bb, bs, y, ys, 2);
  rt::broadcast(bb, bs, y, ys, 2);
  if constexpr (std::is_integral<T>::value) {
    rt::binary_flat(a, a, y, 6, op::BitwiseAnd{});
    rt::binary_flat(a, a, y, 6, op::BitwiseOr{});
    rt::binary_flat(a, a, y, 6, op::BitwiseXor{});
    rt::unary(a, y, 6, op::BitwiseNot{});
    rt::binary_flat(a, a, y, 6, op::BitShiftLeft{});
    rt::binary_flat(a, a, y, 6, op::BitShiftRight{});
  }
  EXPECT_EQ(op::Div{}(T(6), T(0)),
            std::is_floating_point<T>::value ? T(6) / T(0) : T(0));
}

template <class T> void other_kernels() {
  T x[64] = {};
  T y[64] = {};
  T w[64] = {};
  const int64_t s2[2] = {4, 4}, perm[2] = {1, 0}, st[2] = {0, 0},
                steps[2] = {1, 1}, pb[2] = {1, 1}, o2[2] = {6, 6};
  rt::matmul(x, w, y, 0, nullptr, nullptr, nullptr, 4, 4, 4, 4, 1, 4, 1);
  rt::ConvParams cp{2,      1,      1,      1,      1,     {4, 4},
                    {4, 4}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  rt::conv(x, w, static_cast<const T *>(nullptr), y, cp);
  rt::conv_transpose(x, w, x, y, cp);
  rt::PoolParams pp{2,      1,      {4, 4}, {2, 2}, {2, 2},
                    {2, 2}, {1, 1}, {0, 0}, {0, 0}, false};
  rt::max_pool(x, y, pp);
  rt::avg_pool(x, y, pp);
  rt::reduce<op::ReduceSum>(x, s2, 2, 1u, y);
  rt::reduce<op::ReduceMean>(x, s2, 2, 1u, y);
  rt::reduce<op::ReduceMax>(x, s2, 2, 1u, y);
  rt::reduce<op::ReduceMin>(x, s2, 2, 1u, y);
  rt::reduce<op::ReduceProd>(x, s2, 2, 1u, y);
  rt::reduce<op::ReduceSumSquare>(x, s2, 2, 1u, y);
  rt::reduce<op::ReduceL1>(x, s2, 2, 1u, y);
  rt::reduce<op::ReduceL2>(x, s2, 2, 1u, y);
  rt::reduce<op::ReduceLogSum>(x, s2, 2, 1u, y);
  rt::reduce<op::ReduceLogSumExp>(x, s2, 2, 1u, y);
  int64_t idx[4];
  int32_t idx32[4];
  rt::arg_reduce(x, idx, 1, 4, 4, true, false);
  rt::arg_reduce(x, idx32, 1, 4, 4, false, true);
  rt::cumsum(x, y, 1, 4, 4, false, false);
  rt::copy(x, y, 16);
  rt::transpose(x, y, s2, 2, perm);
  rt::concat_part(x, y, 4, 2, 4, 2);
  rt::slice(x, y, s2, 2, st, steps, s2);
  const int64_t gi[2] = {0, -1};
  rt::gather(x, gi, y, 2, 4, 2, 2);
  rt::gather_elements(x, gi, y, s2, steps, 2, 1);
  rt::pad(x, y, s2, 2, pb, o2, rt::PadMode::Reflect, T(0));
  rt::tile(x, y, s2, 2, s2);
  rt::trilu(x, y, 1, 4, 4, 0, true);
  rt::depth_to_space(x, y, 1, 4, 2, 2, 2, true);
  rt::space_to_depth(x, y, 1, 1, 4, 4, 2);
  for_types<Numeric>([&](auto t) {
    using TO = decltype(t);
    TO out[4];
    rt::cast(x, out, 4);
  });
  bool bo[4];
  rt::cast(x, bo, 4);
  rt::cast(bo, y, 4);
}

template <class T> void float_kernels() {
  T x[64] = {}, y[64] = {},
    s[8] = {T(1), T(1), T(1), T(1), T(1), T(1), T(1), T(1)};
  rt::PoolParams pp{1, 2, {8}, {4}, {2}, {2}, {1}, {0}, {0}, true};
  rt::lp_pool(x, y, pp, 2);
  rt::softmax(x, y, 2, 4, 8);
  rt::log_softmax(x, y, 2, 4, 8);
  rt::hardmax(x, y, 2, 4, 8);
  rt::layer_norm(x, s, s, y, 8, 8, 1e-5f);
  rt::instance_norm(x, s, static_cast<const T *>(nullptr), y, 2, 4, 8, 1e-5f);
  rt::lrn(x, y, 2, 4, 8, 3, 1e-4f, 0.75f, 1.0f);
  EXPECT_EQ(y[0], T(0));
}

} // namespace

TEST(AllTypes, EveryKernelInstantiates) {
  for_types<Numeric>([](auto t) {
    using T = decltype(t);
    unary_all<T>();
    binary_all<T>();
    other_kernels<T>();
  });
  for_types<Floats>([](auto t) { float_kernels<decltype(t)>(); });
  // bool: logic, select, data movement.
  bool x[4] = {true, false, true, false}, y[4];
  rt::unary(x, y, 4, op::Not{});
  EXPECT_FALSE(y[0]);
  rt::binary_flat(x, x, y, 4, op::And{});
  rt::binary_flat(x, x, y, 4, op::Or{});
  rt::binary_flat(x, x, y, 4, op::Xor{});
  rt::binary_flat(x, x, y, 4, op::Equal{});
  EXPECT_TRUE(y[1]);
  const int64_t s[1] = {4}, p[1] = {0};
  rt::transpose(x, y, s, 1, p);
  rt::copy(x, y, 4);
  rt::tile(x, y, s, 1, s);
  const int64_t pb[1] = {0};
  rt::pad(x, y, s, 1, pb, s, rt::PadMode::Constant, false);
  rt::cast(x, y, 4);
}
