// tract::vk::Session on small hand-written kernels (shaders/*.comp): results
// against host computations, the binding convention (arena + weight chunks),
// replay of the recorded command buffer, and the error paths.
//
// Inputs and weights are dyadic rationals with few significant bits, so every
// product and sum below is exact in float: results are equal bit for bit
// whether or not the driver fuses multiply-add, and are compared exactly.

#include "tract/vk/runtime.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "copy_chunk_local64.spv.h"
#include "mul_add_one.spv.h"
#include "mul_add_two_chunks.spv.h"
#include "negate_local64.spv.h"
#include "scale_shift_local64.spv.h"
#include "square_sub_local64.spv.h"

namespace {

using tract::vk::IoDesc;
using tract::vk::KernelDesc;
using tract::vk::ModelDesc;
using tract::vk::Session;

template <size_t N>
KernelDesc kernel(const char *name, const uint32_t (&spirv)[N],
                  uint32_t groups_x, uint32_t first_chunk = 0,
                  uint32_t weight_chunks = 0) {
  KernelDesc k = {};
  k.name = name;
  k.spirv = spirv;
  k.spirv_words = static_cast<uint32_t>(N);
  k.groups[0] = groups_x;
  k.groups[1] = 1;
  k.groups[2] = 1;
  k.first_chunk = first_chunk;
  k.weight_chunks = weight_chunks;
  return k;
}

ModelDesc model(const char *name, const std::vector<IoDesc> &inputs,
                const std::vector<IoDesc> &outputs,
                const std::vector<KernelDesc> &kernels, uint64_t arena_bytes) {
  ModelDesc m = {};
  m.name = name;
  m.arena_bytes = arena_bytes;
  m.num_inputs = static_cast<uint32_t>(inputs.size());
  m.inputs = inputs.data();
  m.num_outputs = static_cast<uint32_t>(outputs.size());
  m.outputs = outputs.data();
  m.num_kernels = static_cast<uint32_t>(kernels.size());
  m.kernels = kernels.data();
  return m;
}

bool contains(const char *haystack, const std::string &needle) {
  return std::strstr(haystack, needle.c_str()) != nullptr;
}

// Index of the first element that differs, or -1.
long first_mismatch(const std::vector<float> &got,
                    const std::vector<float> &want) {
  if (got.size() != want.size())
    return 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      return static_cast<long>(i);
  return -1;
}

// Sets (or with nullptr unsets) an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name)) {
      had_ = true;
      old_ = old;
    }
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char *name_;
  bool had_ = false;
  std::string old_;
};

// What the tests need to know about the device a default Session picks: its
// name comes from a Session, the rest from our own instance.
struct DeviceInfo {
  std::string name;
  VkPhysicalDeviceProperties props = {};
  uint32_t subgroup_size = 0;
};

DeviceInfo query_device() {
  DeviceInfo info;
  Session s;
  ModelDesc empty = model("probe", {}, {}, {}, 0);
  if (s.init(empty) != 0) {
    ADD_FAILURE() << s.message();
    return info;
  }
  info.name = s.device_name();

  VkApplicationInfo app = {};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo create = {};
  create.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  create.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  if (vkCreateInstance(&create, nullptr, &instance) != VK_SUCCESS)
    return info;
  VkPhysicalDevice devices[16];
  uint32_t count = 16;
  vkEnumeratePhysicalDevices(instance, &count, devices);
  for (uint32_t i = 0; i < count; ++i) {
    VkPhysicalDeviceSubgroupProperties subgroup = {};
    subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    VkPhysicalDeviceProperties2 props = {};
    props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props.pNext = &subgroup;
    vkGetPhysicalDeviceProperties2(devices[i], &props);
    if (info.name == props.properties.deviceName) {
      info.props = props.properties;
      info.subgroup_size = subgroup.subgroupSize;
      break;
    }
  }
  vkDestroyInstance(instance, nullptr);
  return info;
}

const DeviceInfo &device() {
  static const DeviceInfo info = query_device();
  return info;
}

// --- Results
// ------------------------------------------------------------------

TEST(VkSession, DeviceLimits) {
  const DeviceInfo &d = device();
  ASSERT_FALSE(d.name.empty());
  const VkPhysicalDeviceLimits &l = d.props.limits;
  std::printf(
      "device: %s (Vulkan %u.%u.%u)\n"
      "  maxStorageBufferRange %u, minStorageBufferOffsetAlignment "
      "%llu,\n"
      "  maxPerStageDescriptorStorageBuffers %u, "
      "maxComputeWorkGroupCount %u x %u x %u,\n"
      "  maxComputeWorkGroupInvocations %u, subgroup size %u\n",
      d.name.c_str(), VK_VERSION_MAJOR(d.props.apiVersion),
      VK_VERSION_MINOR(d.props.apiVersion),
      VK_VERSION_PATCH(d.props.apiVersion), l.maxStorageBufferRange,
      static_cast<unsigned long long>(l.minStorageBufferOffsetAlignment),
      l.maxPerStageDescriptorStorageBuffers, l.maxComputeWorkGroupCount[0],
      l.maxComputeWorkGroupCount[1], l.maxComputeWorkGroupCount[2],
      l.maxComputeWorkGroupInvocations, d.subgroup_size);
}

// y = x * w + 1, one weight chunk; the second run replays the same recorded
// command buffer on new inputs.
TEST(VkSession, OneKernelReplays) {
  constexpr uint32_t n = 1000;
  std::vector<float> w(n);
  for (uint32_t i = 0; i < n; ++i)
    w[i] = static_cast<float>(static_cast<int>(i % 7) - 3) * 0.5f;
  std::vector<KernelDesc> kernels = {
      kernel("mul_add_one", mul_add_one_spv, n / 8, 0, 1)};
  std::vector<IoDesc> inputs = {{0, n * 4}}, outputs = {{4096, n * 4}};
  ModelDesc m = model("one_kernel", inputs, outputs, kernels, 8192);
  m.weights = w.data();
  m.weights_bytes = n * 4;
  m.chunk_bytes = 4096;

  Session s;
  ASSERT_EQ(s.init(m), 0) << s.message();
  for (int run = 0; run < 2; ++run) {
    std::vector<float> x(n), y(n), want(n);
    for (uint32_t i = 0; i < n; ++i) {
      x[i] = (static_cast<float>(i) - 500.f) * (run ? -0.25f : 0.125f);
      want[i] = x[i] * w[i] + 1.f;
    }
    const void *in[] = {x.data()};
    void *out[] = {y.data()};
    ASSERT_EQ(s.run(in, out), 0) << s.message();
    EXPECT_EQ(first_mismatch(y, want), -1) << "run " << run;
  }
}

// The two chained kernels (t = 2x + 3, then y = t*t - x) in 64-wide groups
// over kChainN floats, and a third with a zero group count.
constexpr uint32_t kChainN = 1000;
std::vector<KernelDesc> chain_kernels() {
  constexpr uint32_t groups = (kChainN + 63) / 64;
  std::vector<KernelDesc> kernels = {
      kernel("scale_shift", scale_shift_local64_spv, groups),
      kernel("square_sub", square_sub_local64_spv, groups),
      kernel("negate_skipped", negate_local64_spv, groups)};
  kernels[2].groups[2] = 0;
  return kernels;
}

// t = 2x + 3 then y = t*t - x: the second kernel reads what the first wrote
// (the barrier between dispatches), in 64-wide groups over 1000 elements. A
// third kernel with a zero group count must not run. No weights at all.
TEST(VkSession, ChainedKernelsWithoutWeights) {
  constexpr uint32_t n = kChainN;
  std::vector<KernelDesc> kernels = chain_kernels();
  std::vector<IoDesc> inputs = {{0, n * 4}};
  std::vector<IoDesc> outputs = {{2048 * 4, n * 4}, {1024 * 4, n * 4}};
  ModelDesc m = model("chain", inputs, outputs, kernels, 3072 * 4);

  Session s;
  ASSERT_EQ(s.init(m), 0) << s.message();
  std::vector<float> x(n), y(n), t(n), want_y(n), want_t(n);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(static_cast<int>(i % 97) - 48);
    want_t[i] = x[i] * 2.f + 3.f;
    want_y[i] = want_t[i] * want_t[i] - x[i];
  }
  const void *in[] = {x.data()};
  void *out[] = {y.data(), t.data()};
  ASSERT_EQ(s.run(in, out), 0) << s.message();
  EXPECT_EQ(first_mismatch(t, want_t), -1);
  EXPECT_EQ(first_mismatch(y, want_y), -1);
}

// The chain model as a one-output ModelDesc (it points into this).
struct ChainModel {
  std::vector<KernelDesc> kernels = chain_kernels();
  std::vector<IoDesc> inputs = {{0, kChainN * 4}};
  std::vector<IoDesc> outputs = {{2048 * 4, kChainN * 4}};
  ModelDesc desc(const char *name) { return model(name, inputs, outputs, kernels, 3072 * 4); }
};

// Runs an initialised chain session `runs` times and checks its result.
void run_chain(Session &s, int runs) {
  std::vector<float> x(kChainN, 1.5f), y(kChainN);
  const void *in[] = {x.data()};
  void *out[] = {y.data()};
  for (int r = 0; r < runs; ++r)
    ASSERT_EQ(s.run(in, out), 0) << s.message();
  EXPECT_EQ(y[7], (1.5f * 2.f + 3.f) * (1.5f * 2.f + 3.f) - 1.5f);
}

// The chain model run `runs` times with TRACT_VK_PROFILE=`mode`: checks
// the results and returns what destroy() printed.
std::string profiled_chain(const char *mode, int runs) {
  ScopedEnv profile("TRACT_VK_PROFILE", mode);
  ChainModel chain;
  Session s;
  EXPECT_EQ(s.init(chain.desc("profiled")), 0) << s.message();
  run_chain(s, runs);
  testing::internal::CaptureStderr();
  s.destroy();
  return testing::internal::GetCapturedStderr();
}

// TRACT_VK_PROFILE=1: the results do not change, and destroy() prints each
// dispatched kernel's device time (not the skipped one's) and the total.
TEST(VkSession, ProfileNamesEachDispatchedKernel) {
  std::string printed = profiled_chain("1", 2);
  EXPECT_TRUE(contains(printed.c_str(), "in kernels per run (2 runs)")) << printed;
  EXPECT_TRUE(contains(printed.c_str(), "us  scale_shift")) << printed;
  EXPECT_TRUE(contains(printed.c_str(), "us  square_sub")) << printed;
  EXPECT_FALSE(contains(printed.c_str(), "negate_skipped")) << printed;
}

// TRACT_VK_PROFILE=total: the same results, the total alone.
TEST(VkSession, ProfileTotalPrintsNoKernel) {
  std::string printed = profiled_chain("total", 1);
  EXPECT_TRUE(contains(printed.c_str(), "in kernels per run (1 runs)")) << printed;
  EXPECT_FALSE(contains(printed.c_str(), "us  ")) << printed;
}

// TRACT_VK_STATS=1: init prints a statistics line per pipeline where the
// driver has VK_KHR_pipeline_executable_properties, else says it lacks it;
// either way the session works.
TEST(VkSession, StatsPrintedOrExtensionNamed) {
  ScopedEnv stats("TRACT_VK_STATS", "1");
  ChainModel chain;
  Session s;
  testing::internal::CaptureStderr();
  int r = s.init(chain.desc("stats"));
  std::string printed = testing::internal::GetCapturedStderr();
  ASSERT_EQ(r, 0) << s.message();
  EXPECT_TRUE(contains(printed.c_str(), "tract vk stats scale_shift:") ||
              contains(printed.c_str(), "lacks VK_KHR_pipeline_executable_properties"))
      << printed;
  run_chain(s, 1);
}

// Weights in two chunks, the second one partial. One kernel binds both
// (bindings 1 and 2) and reports each array's length, i.e. the bound range;
// another binds only chunk 1 (first_chunk = 1) and copies it out.
TEST(VkSession, WeightsInTwoChunks) {
  const DeviceInfo &d = device();
  ASSERT_FALSE(d.name.empty());
  // 256 on every conforming device (the limit is at most 256); written out as
  // generated code would compute it.
  uint64_t align = d.props.limits.minStorageBufferOffsetAlignment;
  uint64_t chunk_bytes = (align + 255) / 256 * 256;
  if (chunk_bytes < 256)
    chunk_bytes = 256;
  const uint32_t len0 = static_cast<uint32_t>(chunk_bytes / 4);
  const uint32_t len1 = len0 * 5 / 8;
  ASSERT_LE(len1, 256u) << "copy_chunk_local64 covers 256 floats";
  std::vector<float> w(len0 + len1);
  for (uint32_t i = 0; i < len0; ++i)
    w[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
  for (uint32_t i = 0; i < len1; ++i)
    w[len0 + i] = static_cast<float>(i) * 0.5f;

  constexpr uint32_t n = 300;
  std::vector<KernelDesc> kernels = {
      kernel("mul_add_two_chunks", mul_add_two_chunks_spv, (n + 63) / 64, 0, 2),
      kernel("copy_chunk_1", copy_chunk_local64_spv, 4, 1, 1)};
  std::vector<IoDesc> inputs = {{0, n * 4}};
  std::vector<IoDesc> outputs = {
      {512 * 4, n * 4}, {1024 * 4, 2 * 4}, {2048 * 4, len1 * 4}};
  ModelDesc m = model("two_chunks", inputs, outputs, kernels, 4096 * 4);
  m.weights = w.data();
  m.weights_bytes = w.size() * 4;
  m.chunk_bytes = chunk_bytes;

  Session s;
  ASSERT_EQ(s.init(m), 0) << s.message();
  std::vector<float> x(n), y(n), want(n), lens(2), z(len1);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = (static_cast<float>(i) - 150.f) * 0.25f;
    want[i] = x[i] * w[i % len0] + w[len0 + i % len1];
  }
  const void *in[] = {x.data()};
  void *out[] = {y.data(), lens.data(), z.data()};
  ASSERT_EQ(s.run(in, out), 0) << s.message();
  EXPECT_EQ(lens[0], static_cast<float>(len0));
  EXPECT_EQ(lens[1], static_cast<float>(len1));
  EXPECT_EQ(first_mismatch(y, want), -1);
  EXPECT_EQ(first_mismatch(z, std::vector<float>(w.begin() + len0, w.end())),
            -1);
}

// No kernels: outputs read back the arena ranges the inputs were copied to,
// in the opposite order and at odd sizes and offsets (transfers need no
// alignment). Then init() again on the same session with another layout.
TEST(VkSession, NoKernelsCopiesThrough) {
  std::vector<unsigned char> a(400), b(37), a_out(400), b_out(37);
  Session s; // shared by both layouts: the second init() re-initialises
  for (int layout = 0; layout < 2; ++layout) {
    uint64_t b_offset = layout ? 403 : 1001;
    std::vector<IoDesc> inputs = {{0, a.size()}, {b_offset, b.size()}};
    std::vector<IoDesc> outputs = {inputs[1], inputs[0]};
    ModelDesc m = model("copy_through", inputs, outputs, {}, 2048);
    ASSERT_EQ(s.init(m), 0) << s.message();
    for (int run = 0; run < 2; ++run) {
      for (size_t i = 0; i < a.size(); ++i)
        a[i] = static_cast<unsigned char>(i * 7 + run + layout);
      for (size_t i = 0; i < b.size(); ++i)
        b[i] = static_cast<unsigned char>(255 - i - run);
      const void *in[] = {a.data(), b.data()};
      void *out[] = {b_out.data(), a_out.data()};
      ASSERT_EQ(s.run(in, out), 0) << s.message();
      EXPECT_EQ(a_out, a) << "layout " << layout << " run " << run;
      EXPECT_EQ(b_out, b) << "layout " << layout << " run " << run;
    }
  }
}

// --- Errors
// -------------------------------------------------------------------

TEST(VkSessionErrors, DeviceEnvMatchingNothing) {
  const DeviceInfo &d = device();
  ModelDesc empty = model("empty", {}, {}, {}, 0);
  for (const char *value : {"no-such-gpu-42", "99"}) {
    ScopedEnv env("TRACT_VK_DEVICE", value);
    Session s;
    EXPECT_EQ(s.init(empty), tract::vk::kErrNoDevice);
    EXPECT_TRUE(contains(s.message(), value)) << s.message();
    // The message lists what it saw, so the user can pick.
    EXPECT_TRUE(contains(s.message(), d.name)) << s.message();
  }
}

TEST(VkSessionErrors, DeviceEnvSelects) {
  const DeviceInfo &d = device();
  ASSERT_FALSE(d.name.empty());
  ModelDesc empty = model("empty", {}, {}, {}, 0);
  std::string part = d.name.substr(0, 4);
  for (const char *value : {"0", part.c_str()}) {
    ScopedEnv env("TRACT_VK_DEVICE", value);
    Session s;
    ASSERT_EQ(s.init(empty), 0) << s.message();
    EXPECT_EQ(d.name, s.device_name()) << "TRACT_VK_DEVICE=" << value;
  }
}

TEST(VkSessionErrors, GarbageSpirvNamesTheKernel) {
  static const uint32_t garbage[] = {0xdeadbeef, 1, 2, 3, 4, 5, 6, 7};
  std::vector<KernelDesc> kernels = {
      kernel("scale_shift", scale_shift_local64_spv, 1),
      kernel("Conv_17_garbage", garbage, 1)};
  ModelDesc m = model("garbage", {}, {}, kernels, 8192);
  Session s;
  EXPECT_EQ(s.init(m), tract::vk::kErrBadModel);
  EXPECT_TRUE(contains(s.message(), "Conv_17_garbage")) << s.message();
  EXPECT_EQ(s.run(nullptr, nullptr), tract::vk::kErrNotReady);
  s.destroy();
  s.destroy();
}

TEST(VkSessionErrors, ChunkBytesAgainstDeviceLimits) {
  const DeviceInfo &d = device();
  ASSERT_FALSE(d.name.empty());
  const VkPhysicalDeviceLimits &l = d.props.limits;
  float w[64] = {};
  ModelDesc m = model("chunks", {}, {}, {}, 256);
  m.weights = w;
  m.weights_bytes = sizeof w;

  Session s;
  m.chunk_bytes = uint64_t{l.maxStorageBufferRange} + 256;
  EXPECT_EQ(s.init(m), tract::vk::kErrDeviceLimit);
  EXPECT_TRUE(contains(s.message(), "maxStorageBufferRange")) << s.message();
  if (l.minStorageBufferOffsetAlignment > 4) {
    m.chunk_bytes = 4;
    EXPECT_EQ(s.init(m), tract::vk::kErrDeviceLimit);
    EXPECT_TRUE(contains(s.message(), "minStorageBufferOffsetAlignment"))
        << s.message();
  }
  m.chunk_bytes = 256;
  EXPECT_EQ(s.init(m), 0) << s.message();
}

// Capabilities the runtime does not know are refused; one the device lacks
// (lavapipe has no cooperative matrices; a device that has them must
// initialise) names what is missing.
TEST(VkSessionErrors, ModelFeatures) {
  ModelDesc m = model("features", {}, {}, {}, 256);
  Session s;
  m.features = 1u << 30;
  EXPECT_EQ(s.init(m), tract::vk::kErrBadModel);
  EXPECT_TRUE(contains(s.message(), "features 0x40000000")) << s.message();
  m.features = tract::vk::kFeatureCoopMatrixF16;
  int r = s.init(m);
  if (device().name.find("llvmpipe") != std::string::npos) {
    EXPECT_EQ(r, tract::vk::kErrDeviceLimit);
    EXPECT_TRUE(contains(s.message(), "lacks VK_NV_cooperative_matrix")) << s.message();
  } else if (r != 0) {
    EXPECT_EQ(r, tract::vk::kErrDeviceLimit) << s.message();
  }
}

TEST(VkSessionErrors, RangesOutsideTheModel) {
  Session s;
  std::vector<IoDesc> outside = {{4000, 200}};
  ModelDesc m = model("ranges", {}, outside, {}, 4096);
  EXPECT_EQ(s.init(m), tract::vk::kErrBadModel);
  EXPECT_TRUE(contains(s.message(), "output 0")) << s.message();

  // Chunk 1 of weights that have only one.
  float w[64] = {};
  std::vector<KernelDesc> kernels = {
      kernel("copy_missing_chunk", copy_chunk_local64_spv, 4, 1, 1)};
  m = model("ranges", {}, {}, kernels, 8192 * 4);
  m.weights = w;
  m.weights_bytes = sizeof w;
  m.chunk_bytes = 256;
  EXPECT_EQ(s.init(m), tract::vk::kErrBadModel);
  EXPECT_TRUE(contains(s.message(), "copy_missing_chunk")) << s.message();
}

// A null host pointer is refused before anything is submitted, so the session
// stays usable; after destroy() (twice) it is not.
TEST(VkSessionErrors, RunArgumentsAndDestroy) {
  constexpr uint32_t n = 16;
  std::vector<IoDesc> io = {{0, n * 4}};
  ModelDesc m = model("run_args", io, io, {}, n * 4);
  Session s;
  ASSERT_EQ(s.init(m), 0) << s.message();
  std::vector<float> x(n, 2.5f), y(n);
  const void *null_in[] = {nullptr};
  void *out[] = {y.data()};
  EXPECT_EQ(s.run(null_in, out), tract::vk::kErrBadArgument);
  const void *in[] = {x.data()};
  ASSERT_EQ(s.run(in, out), 0) << s.message();
  EXPECT_EQ(y, x);
  s.destroy();
  s.destroy();
  EXPECT_EQ(s.run(in, out), tract::vk::kErrNotReady);
  EXPECT_STREQ(s.device_name(), "");
}

} // namespace
