// ONNX Resize (data/resize_ref.h) against the ONNX Python reference
// implementation, evaluated at test time by resize_reference.py with
// /usr/bin/python3 (skipped when it cannot import numpy and onnx), for every
// mode x coordinate transform x nearest_mode on small inputs with up- and
// down-scaling, and for the parameters of the Debian test_resize_* cases
// (also checked against their stored outputs when installed).
#include "tract/rt/data/resize_ref.h"

#include "test_util.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace tract_test;
namespace rt = tract::rt;

namespace {

using rt::ResizeCoord;
using rt::ResizeMode;
using rt::ResizeNearest;

const char *mode_name(ResizeMode m) {
  switch (m) {
  case ResizeMode::Nearest:
    return "nearest";
  case ResizeMode::Linear:
    return "linear";
  case ResizeMode::Cubic:
    return "cubic";
  }
  return "?";
}
const char *coord_name(ResizeCoord c) {
  switch (c) {
  case ResizeCoord::HalfPixel:
    return "half_pixel";
  case ResizeCoord::PytorchHalfPixel:
    return "pytorch_half_pixel";
  case ResizeCoord::AlignCorners:
    return "align_corners";
  case ResizeCoord::Asymmetric:
    return "asymmetric";
  case ResizeCoord::TfCropAndResize:
    return "tf_crop_and_resize";
  case ResizeCoord::TfHalfPixelForNN:
    return "tf_half_pixel_for_nn";
  }
  return "?";
}
const char *nearest_name(ResizeNearest n) {
  switch (n) {
  case ResizeNearest::RoundPreferFloor:
    return "round_prefer_floor";
  case ResizeNearest::RoundPreferCeil:
    return "round_prefer_ceil";
  case ResizeNearest::Floor:
    return "floor";
  case ResizeNearest::Ceil:
    return "ceil";
  }
  return "?";
}

const ResizeCoord kCoords[] = {
    ResizeCoord::HalfPixel,       ResizeCoord::PytorchHalfPixel,
    ResizeCoord::AlignCorners,    ResizeCoord::Asymmetric,
    ResizeCoord::TfCropAndResize, ResizeCoord::TfHalfPixelForNN};
const ResizeNearest kNearest[] = {
    ResizeNearest::RoundPreferFloor, ResizeNearest::RoundPreferCeil,
    ResizeNearest::Floor, ResizeNearest::Ceil};

struct RCase {
  std::string name;
  rt::ResizeParams p;
  bool use_scales;
  std::vector<float> data;
  std::string debian; // Debian ONNX test directory name, or "-"
};

rt::ResizeParams base_params(ResizeMode m, ResizeCoord c, ResizeNearest n,
                             const Shape &in) {
  rt::ResizeParams p{};
  p.rank = int(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    p.in_shape[d] = in[d];
    p.roi_start[d] = 0.f;
    p.roi_end[d] = 1.f;
  }
  p.mode = m;
  p.coord = c;
  p.nearest = n;
  p.cubic_coeff_a = -0.75f;
  p.exclude_outside = false;
  p.extrapolation_value = 0.f;
  return p;
}

// Output sizes given: scales are out/in (rounded to float).
void set_sizes(rt::ResizeParams &p, const Shape &out) {
  for (int d = 0; d < p.rank; ++d) {
    p.out_shape[d] = out[size_t(d)];
    p.scales[d] = float(double(out[size_t(d)]) / double(p.in_shape[d]));
  }
}
// Scales given: out = floor(scale * in) as the reference computes it.
void set_scales(rt::ResizeParams &p, const std::vector<float> &s) {
  for (int d = 0; d < p.rank; ++d) {
    p.scales[d] = s[size_t(d)];
    p.out_shape[d] =
        int64_t(std::floor(double(s[size_t(d)]) * double(p.in_shape[d])));
  }
}

std::string case_line(const RCase &c) {
  const rt::ResizeParams &p = c.p;
  std::string s;
  char buf[64];
  auto addf = [&](double v) {
    std::snprintf(buf, sizeof buf, " %.9g", v);
    s += buf;
  };
  auto addi = [&](long long v) {
    std::snprintf(buf, sizeof buf, " %lld", v);
    s += buf;
  };
  s = c.name + " " + mode_name(p.mode) + " " + coord_name(p.coord) + " " +
      nearest_name(p.nearest);
  addf(p.cubic_coeff_a);
  addi(p.exclude_outside ? 1 : 0);
  addf(p.extrapolation_value);
  addi(c.use_scales ? 1 : 0);
  addi(p.rank);
  for (int d = 0; d < p.rank; ++d)
    addi(p.in_shape[d]);
  for (int d = 0; d < p.rank; ++d)
    addi(p.out_shape[d]);
  for (int d = 0; d < p.rank; ++d)
    addf(double(p.scales[d]));
  for (int d = 0; d < p.rank; ++d)
    addf(double(p.roi_start[d]));
  for (int d = 0; d < p.rank; ++d)
    addf(double(p.roi_end[d]));
  for (float v : c.data)
    addf(double(v));
  s += " " + c.debian + "\n";
  return s;
}

// -------------------------------------------------------------------------
// Case sets.

struct ShapeSpec {
  Shape in;
  bool use_scales;
  Shape out;                 // when !use_scales
  std::vector<float> scales; // when use_scales
  std::vector<float> roi;    // 2 * rank (start..., end...) for tf_crop
  float extrap;
};

std::vector<ShapeSpec> shape_specs() {
  std::vector<ShapeSpec> v;
  // Upsampling, sizes.
  v.push_back({{1, 2, 3, 4}, false, {1, 2, 5, 9}, {},
               {0, 0, 0.1f, -0.2f, 1, 1, 0.85f, 1.3f}, 10.f});
  // Downsampling by non-dyadic ratios (3/5, 2/3), sizes.
  v.push_back({{2, 1, 5, 6}, false, {2, 1, 3, 4}, {},
               {0, 0, 0.25f, 0.9f, 1, 1, 0.75f, 0.2f}, -3.5f});
  // Mixed up/down.
  v.push_back({{1, 1, 4, 5}, false, {1, 1, 7, 2}, {},
               {0, 0, -0.1f, 0.3f, 1, 1, 1.1f, 0.7f}, 2.f});
  // N and C resized too.
  v.push_back({{2, 3, 2, 3}, false, {3, 1, 4, 5}, {},
               {0.1f, 0.2f, 0, 0.5f, 0.9f, 0.7f, 1, 1.5f}, 1.f});
  // Output size 1 (output_width == 1 branches).
  v.push_back({{1, 2, 4, 3}, false, {1, 1, 1, 1}, {},
               {0, 0.3f, 0.2f, 0.5f, 1, 0.9f, 0.6f, 1.4f}, 7.f});
  // Scales given: non-integral products.
  v.push_back({{1, 1, 3, 4}, true, {}, {1, 1, 2.5f, 0.75f},
               {0, 0, 0.3f, 0, 1, 1, 1, 0.5f}, 5.f});
  v.push_back({{1, 2, 5, 4}, true, {}, {1, 1, 0.65f, 1.7f},
               {0, 0, 0, -0.5f, 1, 1, 1, 1.5f}, -1.f});
  // scale * in = 1.2 -> one output, output_width - 1 = 0.2.
  v.push_back({{1, 1, 4, 4}, true, {}, {1, 1, 0.3f, 1.3f},
               {0, 0, 0.4f, 0.1f, 1, 1, 0.6f, 0.8f}, 3.f});
  // Other ranks.
  v.push_back({{5}, false, {8}, {}, {-0.1f, 1.2f}, 4.f});
  v.push_back({{3, 4, 2}, false, {2, 6, 3}, {},
               {0, 0.2f, 0, 1, 0.8f, 1}, 0.5f});
  v.push_back({{1, 2, 2, 3, 2}, false, {2, 1, 3, 2, 3}, {},
               {0, 0, 0, 0, 0, 1, 1, 1, 1, 1}, 0.f});
  return v;
}

std::vector<RCase> generated_cases() {
  std::vector<RCase> cases;
  const auto specs = shape_specs();
  int si = 0;
  for (const auto &sp : specs) {
    ++si;
    struct MV {
      ResizeMode m;
      ResizeNearest n;
      float a;
      bool excl;
    };
    std::vector<MV> mvs;
    for (auto n : kNearest)
      mvs.push_back({ResizeMode::Nearest, n, -0.75f, false});
    mvs.push_back({ResizeMode::Linear, ResizeNearest::RoundPreferFloor,
                   -0.75f, false});
    mvs.push_back({ResizeMode::Linear, ResizeNearest::RoundPreferFloor,
                   -0.75f, true});
    mvs.push_back({ResizeMode::Cubic, ResizeNearest::RoundPreferFloor,
                   -0.75f, false});
    mvs.push_back({ResizeMode::Cubic, ResizeNearest::RoundPreferFloor, -0.5f,
                   true});
    mvs.push_back({ResizeMode::Cubic, ResizeNearest::RoundPreferFloor, -0.6f,
                   false});
    for (const auto &mv : mvs)
      for (auto c : kCoords) {
        RCase rc;
        rc.p = base_params(mv.m, c, mv.n, sp.in);
        rc.p.cubic_coeff_a = mv.a;
        rc.p.exclude_outside = mv.excl;
        rc.p.extrapolation_value = sp.extrap;
        const int r = rc.p.rank;
        for (int d = 0; d < r; ++d) {
          rc.p.roi_start[d] = sp.roi[size_t(d)];
          rc.p.roi_end[d] = sp.roi[size_t(r + d)];
        }
        rc.use_scales = sp.use_scales;
        if (sp.use_scales)
          set_scales(rc.p, sp.scales);
        else
          set_sizes(rc.p, sp.out);
        rc.data = random_vec<float>(size_t(numel(sp.in)),
                                    uint64_t(si * 1000 + int(c)));
        rc.name = "g" + std::to_string(si) + "_" + mode_name(mv.m) + "_" +
                  coord_name(c) + "_" + nearest_name(mv.n) + "_a" +
                  std::to_string(int(-mv.a * 100)) + (mv.excl ? "_excl" : "");
        rc.debian = "-";
        cases.push_back(rc);
      }
  }
  return cases;
}

std::vector<float> iota_f(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[size_t(i)] = float(i + 1);
  return v;
}

// The parameters of Debian's /usr/share/libonnx-testdata/data/node/
// test_resize_* (ONNX 1.12 backend tests; data = 1, 2, 3, ...).
std::vector<RCase> debian_cases() {
  std::vector<RCase> cases;
  auto add = [&](const char *name, ResizeMode m, ResizeCoord c,
                 ResizeNearest n, float a, bool excl, const Shape &in,
                 bool scales, const std::vector<float> &sc, const Shape &out) {
    RCase rc;
    rc.p = base_params(m, c, n, in);
    rc.p.cubic_coeff_a = a;
    rc.p.exclude_outside = excl;
    rc.use_scales = scales;
    if (scales)
      set_scales(rc.p, sc);
    else
      set_sizes(rc.p, out);
    rc.data = iota_f(numel(in));
    rc.name = name;
    rc.debian = name;
    cases.push_back(rc);
    return &cases.back();
  };
  const auto M = ResizeMode::Nearest, L = ResizeMode::Linear,
             C = ResizeMode::Cubic;
  const auto HP = ResizeCoord::HalfPixel, AC = ResizeCoord::AlignCorners,
             AS = ResizeCoord::Asymmetric;
  const auto RPF = ResizeNearest::RoundPreferFloor;
  const Shape s44 = {1, 1, 4, 4}, s24 = {1, 1, 2, 4}, s22 = {1, 1, 2, 2};
  const std::vector<float> d08 = {1, 1, 0.8f, 0.8f}, d06 = {1, 1, 0.6f, 0.6f},
                           u2 = {1, 1, 2, 2};
  add("test_resize_downsample_scales_cubic", C, HP, RPF, -0.75f, false, s44,
      true, d08, {});
  add("test_resize_downsample_scales_cubic_A_n0p5_exclude_outside", C, HP, RPF,
      -0.5f, true, s44, true, d08, {});
  add("test_resize_downsample_scales_cubic_align_corners", C, AC, RPF, -0.75f,
      false, s44, true, d08, {});
  add("test_resize_downsample_scales_linear", L, HP, RPF, -0.75f, false, s24,
      true, d06, {});
  add("test_resize_downsample_scales_linear_align_corners", L, AC, RPF, -0.75f,
      false, s24, true, d06, {});
  add("test_resize_downsample_scales_nearest", M, HP, RPF, -0.75f, false, s24,
      true, d06, {});
  add("test_resize_downsample_sizes_cubic", C, HP, RPF, -0.75f, false, s44,
      false, {}, {1, 1, 3, 3});
  add("test_resize_downsample_sizes_linear_pytorch_half_pixel", L,
      ResizeCoord::PytorchHalfPixel, RPF, -0.75f, false, s44, false, {},
      {1, 1, 3, 1});
  add("test_resize_downsample_sizes_nearest", M, HP, RPF, -0.75f, false, s24,
      false, {}, {1, 1, 1, 3});
  add("test_resize_downsample_sizes_nearest_tf_half_pixel_for_nn", M,
      ResizeCoord::TfHalfPixelForNN, RPF, -0.75f, false, s44, false, {},
      {1, 1, 3, 2});
  {
    RCase *rc = add("test_resize_tf_crop_and_resize", L,
                    ResizeCoord::TfCropAndResize, RPF, -0.75f, false, s44,
                    false, {}, {1, 1, 3, 3});
    const float roi[8] = {0, 0, 0.4f, 0.6f, 1, 1, 1.2f, 1.7f};
    for (int d = 0; d < 4; ++d) {
      rc->p.roi_start[d] = roi[d];
      rc->p.roi_end[d] = roi[4 + d];
    }
    rc->p.extrapolation_value = 10.f;
    // Same without extrapolation (resize.py's other tf_crop example).
    RCase c2 = *rc;
    c2.name = "resize_py_tf_crop_and_resize";
    c2.debian = "-";
    const float roi2[8] = {0, 0, 0.4f, 0.6f, 1, 1, 0.6f, 0.8f};
    for (int d = 0; d < 4; ++d) {
      c2.p.roi_start[d] = roi2[d];
      c2.p.roi_end[d] = roi2[4 + d];
    }
    c2.p.extrapolation_value = 0.f;
    cases.push_back(c2);
  }
  add("test_resize_upsample_scales_cubic", C, HP, RPF, -0.75f, false, s44,
      true, u2, {});
  add("test_resize_upsample_scales_cubic_A_n0p5_exclude_outside", C, HP, RPF,
      -0.5f, true, s44, true, u2, {});
  add("test_resize_upsample_scales_cubic_align_corners", C, AC, RPF, -0.75f,
      false, s44, true, u2, {});
  add("test_resize_upsample_scales_cubic_asymmetric", C, AS, RPF, -0.75f,
      false, s44, true, u2, {});
  add("test_resize_upsample_scales_linear", L, HP, RPF, -0.75f, false, s22,
      true, u2, {});
  add("test_resize_upsample_scales_linear_align_corners", L, AC, RPF, -0.75f,
      false, s22, true, u2, {});
  add("test_resize_upsample_scales_nearest", M, HP, RPF, -0.75f, false, s22,
      true, {1, 1, 2, 3}, {});
  add("test_resize_upsample_sizes_cubic", C, HP, RPF, -0.75f, false, s44,
      false, {}, {1, 1, 9, 10});
  add("test_resize_upsample_sizes_nearest", M, HP, RPF, -0.75f, false, s22,
      false, {}, {1, 1, 7, 8});
  add("test_resize_upsample_sizes_nearest_ceil_half_pixel", M, HP,
      ResizeNearest::Ceil, -0.75f, false, s44, false, {}, {1, 1, 8, 8});
  add("test_resize_upsample_sizes_nearest_floor_align_corners", M, AC,
      ResizeNearest::Floor, -0.75f, false, s44, false, {}, {1, 1, 8, 8});
  add("test_resize_upsample_sizes_nearest_round_prefer_ceil_asymmetric", M, AS,
      ResizeNearest::RoundPreferCeil, -0.75f, false, s44, false, {},
      {1, 1, 8, 8});
  return cases;
}

// -------------------------------------------------------------------------
// Running the Python reference.

std::string test_dir() {
#ifdef TRACT_RT_TEST_DIR
  return TRACT_RT_TEST_DIR;
#else
  std::string f = __FILE__;
  const size_t k = f.find_last_of('/');
  return k == std::string::npos ? std::string(".") : f.substr(0, k);
#endif
}

struct RefRun {
  bool available = false;
  bool failed = false; // the script ran and failed: a test failure
  std::string why;
  std::map<std::string, std::vector<double>> values;
};

const RefRun &reference(const std::vector<RCase> &cases) {
  static RefRun run;
  static bool done = false;
  if (done)
    return run;
  done = true;
  const std::string script = test_dir() + "/resize_reference.py";
  if (std::system("/usr/bin/python3 -c 'import numpy, "
                  "onnx.backend.test.case.node.resize' >/dev/null 2>&1") != 0) {
    run.why = "/usr/bin/python3 cannot import numpy and onnx";
    return run;
  }
  if (!std::ifstream(script).good()) {
    run.why = "cannot find " + script;
    return run;
  }
  const std::string tmp =
      "/tmp/tract_rt_resize_" + std::to_string(long(::getpid()));
  const std::string in = tmp + "_cases.txt", out = tmp + "_ref.txt";
  {
    std::ofstream f(in);
    for (const auto &c : cases)
      f << case_line(c);
  }
  const std::string cmd = "/usr/bin/python3 '" + script + "' '" + in + "' '" +
                          out + "'";
  const int rc = std::system(cmd.c_str());
  std::ifstream f(out);
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream ls(line);
    std::string name;
    size_t n = 0;
    ls >> name >> n;
    std::vector<double> v(n);
    for (auto &e : v)
      ls >> e;
    run.values[name] = v;
  }
  std::remove(in.c_str());
  std::remove(out.c_str());
  if (rc != 0) {
    run.why = "resize_reference.py failed (exit status " +
              std::to_string(rc) + ")";
    run.failed = true;
    return run;
  }
  run.available = true;
  return run;
}

std::vector<RCase> all_cases() {
  auto g = generated_cases();
  auto d = debian_cases();
  g.insert(g.end(), d.begin(), d.end());
  return g;
}

template <class T> std::vector<T> run_resize(const RCase &c) {
  std::vector<T> x(c.data.begin(), c.data.end());
  std::vector<T> y(static_cast<size_t>(rt::num_elements(c.p.out_shape, c.p.rank)));
  rt::resize(x.data(), y.data(), c.p);
  return y;
}

// Compares every case with the reference; returns the number checked.
int check_against_reference(const std::vector<RCase> &cases,
                            bool debian_outputs) {
  static const auto all = all_cases();
  const RefRun &ref = reference(all);
  if (ref.failed)
    ADD_FAILURE() << ref.why;
  if (!ref.available)
    return -1;
  int checked = 0, failures = 0;
  for (const auto &c : cases) {
    const std::string key = c.name + (debian_outputs ? "#debian" : "");
    auto it = ref.values.find(key);
    if (it == ref.values.end()) {
      if (!debian_outputs)
        ADD_FAILURE() << c.name << ": no reference output";
      continue;
    }
    const std::vector<double> &want = it->second;
    const auto yf = run_resize<float>(c);
    const auto yd = run_resize<double>(c);
    if (yf.size() != want.size()) {
      ADD_FAILURE() << c.name << ": size " << yf.size() << " vs "
                    << want.size();
      ++failures;
      continue;
    }
    const bool exact = c.p.mode == ResizeMode::Nearest;
    for (size_t i = 0; i < want.size(); ++i) {
      // float: the reference result rounded to float (exact for nearest).
      const float wf = float(want[i]);
      const auto rf = debian_outputs ? near(yf[i], wf, 1e-5, 1e-5)
                      : exact        ? near(yf[i], wf, 0.0, 0.0)
                                     : near(yf[i], wf, 1e-6, 1e-6);
      // double: the reference itself, to rounding.
      const auto rd = debian_outputs ? near(yd[i], want[i], 1e-5, 1e-5)
                      : exact        ? near(yd[i], double(wf), 0.0, 0.0)
                                     : near(yd[i], want[i], 1e-12, 1e-12);
      if (!rf || !rd) {
        if (++failures <= 20)
          ADD_FAILURE() << key << " at " << i << " (out "
                        << shape_str(Shape(c.p.out_shape,
                                           c.p.out_shape + c.p.rank))
                        << "): float " << rf.message() << " / double "
                        << rd.message();
        break;
      }
    }
    ++checked;
  }
  EXPECT_EQ(failures, 0);
  return checked;
}

} // namespace

TEST(ResizeOnnxReference, AllModesCoordsNearestModes) {
  const auto cases = generated_cases();
  const int n = check_against_reference(cases, false);
  if (n < 0)
    GTEST_SKIP() << reference(all_cases()).why;
  EXPECT_EQ(n, int(cases.size()));
}

TEST(ResizeOnnxReference, DebianCasesParameters) {
  const auto cases = debian_cases();
  ASSERT_GE(cases.size(), 23u);
  const int n = check_against_reference(cases, false);
  if (n < 0)
    GTEST_SKIP() << reference(all_cases()).why;
  EXPECT_EQ(n, int(cases.size()));
}

TEST(ResizeOnnxReference, DebianStoredOutputs) {
  const auto cases = debian_cases();
  const int n = check_against_reference(cases, true);
  if (n < 0)
    GTEST_SKIP() << reference(all_cases()).why;
  if (n == 0)
    GTEST_SKIP() << "Debian onnx test data not installed";
  EXPECT_EQ(n, 23);
}

// Nearest on integers copies exactly the element the float path selects
// (int64 beyond 2^53 included).
TEST(Resize, NearestIntegerCopiesSameElement) {
  for (const auto &c : generated_cases()) {
    if (c.p.mode != ResizeMode::Nearest)
      continue;
    const int64_t n = rt::num_elements(c.p.in_shape, c.p.rank);
    const int64_t big = int64_t(1) << 60;
    std::vector<int64_t> xi(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      xi[size_t(i)] = big + i;
    std::vector<int64_t> yi(static_cast<size_t>(rt::num_elements(c.p.out_shape, c.p.rank)));
    rt::resize(xi.data(), yi.data(), c.p);
    const auto yf = run_resize<float>(c);
    const int64_t ext = int64_t(std::nearbyint(c.p.extrapolation_value));
    for (size_t i = 0; i < yi.size(); ++i) {
      if (yi[i] == ext) {
        ASSERT_EQ(yf[i], c.p.extrapolation_value) << c.name;
        continue;
      }
      const int64_t src = yi[i] - big;
      ASSERT_TRUE(src >= 0 && src < n) << c.name << " " << yi[i];
      ASSERT_EQ(yf[i], c.data[size_t(src)]) << c.name << " at " << i;
    }
  }
}

// Hand-computed values from resize.py's comments (no Python needed).
TEST(Resize, TfCropAndResizeDocValues) {
  const Shape in = {1, 1, 4, 4};
  std::vector<float> x = iota_f(16);
  auto p = base_params(ResizeMode::Linear, ResizeCoord::TfCropAndResize,
                       ResizeNearest::RoundPreferFloor, in);
  set_sizes(p, {1, 1, 3, 3});
  const float r1[8] = {0, 0, 0.4f, 0.6f, 1, 1, 0.6f, 0.8f};
  for (int d = 0; d < 4; ++d) {
    p.roi_start[d] = r1[d];
    p.roi_end[d] = r1[4 + d];
  }
  std::vector<float> y(9);
  rt::resize(x.data(), y.data(), p);
  EXPECT_TRUE(all_near(y, {7.6f, 7.9f, 8.2f, 8.8f, 9.1f, 9.4f, 10.f, 10.3f,
                           10.6f}));
  p.roi_end[2] = 1.2f;
  p.roi_end[3] = 1.7f;
  p.extrapolation_value = 10.f;
  rt::resize(x.data(), y.data(), p);
  EXPECT_TRUE(
      all_near(y, {7.6f, 10.f, 10.f, 12.4f, 10.f, 10.f, 10.f, 10.f, 10.f}));
}

// Upsample linear align_corners 2 -> 3 on uint8: the midpoint 127.5 rounds
// (to even) instead of truncating; exact integer blends stay exact.
TEST(Resize, IntegerLinearRounds) {
  const Shape in = {1, 2};
  auto p = base_params(ResizeMode::Linear, ResizeCoord::AlignCorners,
                       ResizeNearest::RoundPreferFloor, in);
  set_sizes(p, {1, 3});
  const uint8_t x[2] = {0, 255};
  uint8_t y[3] = {};
  rt::resize(x, y, p);
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[1], 128);
  EXPECT_EQ(y[2], 255);
  set_sizes(p, {1, 4});
  const int32_t xi[2] = {0, 30};
  int32_t yi[4] = {};
  rt::resize(xi, yi, p);
  EXPECT_EQ(std::vector<int32_t>(yi, yi + 4),
            (std::vector<int32_t>{0, 10, 20, 30}));
}

TEST(Resize, Rank0AndIdentity) {
  rt::ResizeParams p = base_params(ResizeMode::Cubic, ResizeCoord::HalfPixel,
                                   ResizeNearest::RoundPreferFloor, {});
  const float x0 = 3.5f;
  float y0 = 0.f;
  rt::resize(&x0, &y0, p);
  EXPECT_EQ(y0, 3.5f);
  // Every mode and transform is the identity at scale 1 (except
  // tf_crop_and_resize with a non-trivial roi, not used here).
  for (auto m : {ResizeMode::Nearest, ResizeMode::Linear, ResizeMode::Cubic})
    for (auto c : kCoords) {
      if (c == ResizeCoord::TfHalfPixelForNN && m != ResizeMode::Nearest)
        continue; // (x + 0.5) / 1 is a half-pixel shift
      const Shape in = {2, 3, 5};
      auto q = base_params(m, c, ResizeNearest::RoundPreferFloor, in);
      set_sizes(q, in);
      const auto x = random_vec<float>(30, 4);
      std::vector<float> y(30);
      rt::resize(x.data(), y.data(), q);
      EXPECT_TRUE(all_near(y, x, 1e-6, 1e-6))
          << mode_name(m) << " " << coord_name(c);
    }
}

// A NaN next to the selected element does not leak into nearest outputs,
// and NaN itself is copied.
TEST(Resize, NearestIgnoresNeighbours) {
  auto p = base_params(ResizeMode::Nearest, ResizeCoord::Asymmetric,
                       ResizeNearest::Floor, {1, 4});
  set_sizes(p, {1, 8});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float x[4] = {1, nan, 3, 4};
  float y[8];
  rt::resize(x, y, p);
  EXPECT_EQ(y[0], 1.f);
  EXPECT_EQ(y[1], 1.f);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_EQ(y[4], 3.f);
  EXPECT_EQ(y[7], 4.f);
}

// Degenerate parameters never read out of bounds (run under ASan/UBSan to
// make this meaningful) and empty inputs give zeros.
TEST(Resize, DegenerateParametersStayInBounds) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float bad[] = {0.f, -1.f, inf, -inf, nan, 1e-30f, 1e30f, 0.37f};
  for (auto m : {ResizeMode::Nearest, ResizeMode::Linear, ResizeMode::Cubic})
    for (auto c : kCoords)
      for (float s : bad) {
        const Shape in = {3, 4};
        auto p = base_params(m, c, ResizeNearest::Ceil, in);
        p.out_shape[0] = 5;
        p.out_shape[1] = 2;
        p.scales[0] = s;
        p.scales[1] = 2.f; // inconsistent with out_shape on purpose
        p.roi_start[0] = nan;
        p.roi_end[0] = 1e30f;
        p.roi_start[1] = -inf;
        p.exclude_outside = true;
        const auto x = random_vec<float>(12, 9);
        std::vector<float> y(10, 0.f);
        rt::resize(x.data(), y.data(), p);
        SUCCEED();
      }
  auto p = base_params(ResizeMode::Linear, ResizeCoord::HalfPixel,
                       ResizeNearest::RoundPreferFloor, {2, 0});
  p.out_shape[0] = 2;
  p.out_shape[1] = 3;
  p.scales[0] = 1.f;
  p.scales[1] = 1.f;
  float y[6] = {1, 1, 1, 1, 1, 1};
  rt::resize(static_cast<const float *>(nullptr), y, p);
  EXPECT_EQ(std::vector<float>(y, y + 6), std::vector<float>(6, 0.f));
}

// Float resizes of the last two axes take the per-plane path (column taps
// once per chunk, row taps once per row): over 2 x 3 planes and a width
// past one 64-column chunk, every mode matches the double walk to float
// rounding; an infinity beside a tap of weight zero (2x linear,
// align_corners: every other output lands on an input) stays out of the
// sums, as in the reference.
TEST(Resize, PlanesOfTheLastTwoAxesMatchTheDoubleWalk) {
  const Shape in = {2, 3, 5, 37};
  for (ResizeMode m : {ResizeMode::Nearest, ResizeMode::Linear, ResizeMode::Cubic})
    for (ResizeCoord c : {ResizeCoord::HalfPixel, ResizeCoord::AlignCorners,
                          ResizeCoord::Asymmetric, ResizeCoord::PytorchHalfPixel}) {
      auto p = base_params(m, c, ResizeNearest::RoundPreferFloor, in);
      set_sizes(p, {2, 3, 9, 71});
      const int64_t nx = rt::num_elements(p.in_shape, 4), ny = rt::num_elements(p.out_shape, 4);
      std::vector<float> xf(static_cast<size_t>(nx)), yf(static_cast<size_t>(ny));
      std::vector<double> xd(static_cast<size_t>(nx)), yd(static_cast<size_t>(ny));
      for (int64_t i = 0; i < nx; ++i)
        xd[size_t(i)] = xf[size_t(i)] = float((i * 37) % 101) / 16.0f - 3.0f;
      rt::resize(xf.data(), yf.data(), p);
      rt::resize(xd.data(), yd.data(), p);
      for (int64_t i = 0; i < ny; ++i)
        ASSERT_NEAR(yf[size_t(i)], yd[size_t(i)], 1e-5 * (1.0 + std::fabs(yd[size_t(i)])))
            << "mode " << int(m) << " coord " << int(c) << " at " << i;
    }
  const float inf = std::numeric_limits<float>::infinity();
  auto p = base_params(ResizeMode::Linear, ResizeCoord::AlignCorners, ResizeNearest::Floor,
                       {1, 1, 2, 3});
  set_sizes(p, {1, 1, 3, 5});
  const float x[6] = {1, 2, inf, 4, 5, 6};
  float y[15];
  rt::resize(x, y, p);
  EXPECT_EQ(y[0], 1.f); // row 0 reads input row 0 alone, column 0 alone
  EXPECT_EQ(y[1], 1.5f);
  EXPECT_EQ(y[2], 2.f);
  EXPECT_EQ(y[10], 4.f); // row 2: input row 1 alone
  EXPECT_EQ(y[12], 5.f);
  EXPECT_EQ(y[3], inf);
}
