//===- tract/vk/runtime.h - Vulkan host runtime -----------------*- C++ -*-===//
//
// Header-only host side of tractc's SPIR-V backend: generated code fills a
// ModelDesc (SPIR-V words, dispatch sizes, weights, arena layout) and drives a
// Session. init() builds everything once, including one command buffer holding
// the whole model; run() only copies inputs in, submits, waits and copies
// outputs out. See README.md in this folder for the binding convention and the
// environment variables.
//
// No exceptions, RTTI or static constructors; errors are negative return
// codes plus message(). The only heap use is a few small arrays sized by the
// model (kernel handles, I/O slots, descriptor scratch), taken with nothrow
// new.
//
//===----------------------------------------------------------------------===//

#ifndef TRACT_VK_RUNTIME_H
#define TRACT_VK_RUNTIME_H

#include <vulkan/vulkan.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace tract {
namespace vk {

// Error codes of our own. Vulkan's negative VkResults (-1 .. -13 and the
// -1000xxx000 extension range) are returned as they are and do not collide.
//
// The loader or instance is below Vulkan 1.1.
constexpr int kErrInstanceVersion = -1001;
// No device with Vulkan 1.1 and a compute queue, or TRACT_VK_DEVICE matches
// none; the message lists the devices seen.
constexpr int kErrNoDevice = -1002;
// The model exceeds a limit of the chosen device (storage buffer range or
// alignment, bindings per stage, dispatch size).
constexpr int kErrDeviceLimit = -1003;
// An inconsistent ModelDesc: a range outside the arena or the weights, a null
// array, words that do not start with the SPIR-V magic number.
constexpr int kErrBadModel = -1004;
// No memory type can hold one of the buffers.
constexpr int kErrNoMemoryType = -1005;
// A host allocation for the session's bookkeeping failed.
constexpr int kErrHostAlloc = -1006;
// run() without a successful init(), after destroy(), or after a run() that
// failed on the device (the session must be initialised again).
constexpr int kErrNotReady = -1007;
// run() given a null input or output pointer; nothing was submitted.
constexpr int kErrBadArgument = -1008;

// One compute kernel of a model, as generated code describes it.
struct KernelDesc {
  const char *name;      // ONNX-derived kernel name, for error messages
  const uint32_t *spirv; // SPIR-V words; the entry point is "main"
  uint32_t spirv_words;
  uint32_t groups[3]; // vkCmdDispatch group counts
  // The shader's storage buffers, descriptor set 0: binding 0 = the whole
  // activation arena (read/write); bindings 1 .. weight_chunks = weight chunks
  // first_chunk .. first_chunk + weight_chunks - 1.
  uint32_t first_chunk, weight_chunks;
  // 1: the kernel reads and writes nothing that the dispatches since the
  // last barrier write (nor writes what they read), so no barrier is
  // recorded before it and it may overlap them; 0: a barrier first.
  uint32_t concurrent;
};

struct IoDesc {
  uint64_t arena_offset, bytes; // where an input/output lives in the arena
};

// Device capabilities a model's shaders may need beyond Vulkan 1.1 (checked
// at init, with a message naming the device).
constexpr uint32_t kFeatureSubgroupArithmetic = 1; // subgroupAdd/Max in compute
// tractc --fp16-gemm: 16x16x16 fp16 x fp16 + fp32 cooperative matrices
// (VK_NV_cooperative_matrix; with VK_KHR_shader_float16_int8 and
// VK_KHR_vulkan_memory_model, which the shaders' SPIR-V declares), 32-wide
// subgroups and 40 KiB of shared memory (compiler/EmitSpirv/CoopMatrixGemm.h).
constexpr uint32_t kFeatureCoopMatrixF16 = 2;

struct ModelDesc {
  const char *name;
  const void *weights; // copied once into one device-local buffer
  uint64_t weights_bytes;
  // Weight chunk i is bytes [i*chunk_bytes, min((i+1)*chunk_bytes,
  // weights_bytes)), bound as its own range (offset i*chunk_bytes);
  // chunk_bytes is a multiple of 256.
  uint64_t chunk_bytes;
  uint64_t arena_bytes; // device-local activation arena; inputs and outputs
                        // live in it too
  uint32_t num_inputs;
  const IoDesc *inputs;
  uint32_t num_outputs;
  const IoDesc *outputs;
  uint32_t num_kernels;
  const KernelDesc *kernels;
  uint32_t features; // kFeature* bits: what the shaders need of the device
};

namespace detail {

// Names of the results the calls made here can return (constant-initialised: no
// static constructor).
inline const char *result_name(VkResult r) {
#define TRACT_VK_RESULT(name)                                                  \
  { name, #name }
  static const struct {
    VkResult result;
    const char *name;
  } names[] = {
      TRACT_VK_RESULT(VK_SUCCESS),
      TRACT_VK_RESULT(VK_NOT_READY),
      TRACT_VK_RESULT(VK_TIMEOUT),
      TRACT_VK_RESULT(VK_INCOMPLETE),
      TRACT_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY),
      TRACT_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY),
      TRACT_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED),
      TRACT_VK_RESULT(VK_ERROR_DEVICE_LOST),
      TRACT_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED),
      TRACT_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT),
      TRACT_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT),
      TRACT_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT),
      TRACT_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER),
      TRACT_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS),
      TRACT_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED),
      TRACT_VK_RESULT(VK_ERROR_FRAGMENTED_POOL),
      TRACT_VK_RESULT(VK_ERROR_UNKNOWN),
      TRACT_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY),
      TRACT_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE),
      TRACT_VK_RESULT(VK_ERROR_FRAGMENTATION),
      TRACT_VK_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS),
      TRACT_VK_RESULT(VK_ERROR_INVALID_SHADER_NV),
  };
#undef TRACT_VK_RESULT
  for (const auto &n : names)
    if (n.result == r)
      return n.name;
  return "VkResult";
}

inline const char *device_type_name(VkPhysicalDeviceType t) {
  switch (t) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    return "discrete";
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    return "integrated";
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
    return "virtual";
  case VK_PHYSICAL_DEVICE_TYPE_CPU:
    return "cpu";
  default:
    return "other";
  }
}

// Lower is preferred: discrete, integrated, virtual, CPU, anything else.
inline int device_type_rank(VkPhysicalDeviceType t) {
  switch (t) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    return 0;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    return 1;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
    return 2;
  case VK_PHYSICAL_DEVICE_TYPE_CPU:
    return 3;
  default:
    return 4;
  }
}

inline bool is_decimal(const char *s) {
  if (!*s)
    return false;
  for (; *s; ++s)
    if (*s < '0' || *s > '9')
      return false;
  return true;
}

// Appends to a fixed buffer, truncating quietly: used for messages only.
inline void append(char *buf, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
inline void append(char *buf, size_t size, const char *fmt, ...) {
  size_t used = std::strlen(buf);
  if (used + 1 >= size)
    return;
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf + used, size - used, fmt, ap);
  va_end(ap);
}

// A compute-capable queue family (compute implies transfer), or -1.
inline int compute_queue_family(VkPhysicalDevice pd) {
  VkQueueFamilyProperties families[32];
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, nullptr);
  if (count > 32) // devices have a handful; the first 32 are enough to choose
    count = 32;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, families);
  for (uint32_t i = 0; i < count; ++i)
    if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
        families[i].queueCount > 0)
      return static_cast<int>(i);
  return -1;
}

// One memory barrier; the runtime only needs global ones because every
// kernel sees the arena as a whole.
inline void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage,
                    VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                    VkAccessFlags dst_access) {
  VkMemoryBarrier b = {};
  b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  b.srcAccessMask = src_access;
  b.dstAccessMask = dst_access;
  vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &b, 0, nullptr, 0,
                       nullptr);
}

// Vulkan forbids zero-sized buffers; empty models still get valid handles.
inline VkDeviceSize nonzero_size(uint64_t bytes) { return bytes ? bytes : 256; }

// The device extensions kFeatureCoopMatrixF16 enables.
constexpr const char *kPipelineStatsExtension = "VK_KHR_pipeline_executable_properties";
constexpr const char *kCoopMatrixExtensions[3] = {
    "VK_NV_cooperative_matrix", "VK_KHR_shader_float16_int8",
    "VK_KHR_vulkan_memory_model"};

inline VkPhysicalDeviceSubgroupProperties
subgroup_properties(VkPhysicalDevice device) {
  VkPhysicalDeviceSubgroupProperties sub = {};
  sub.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  VkPhysicalDeviceProperties2 props = {};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  props.pNext = &sub;
  vkGetPhysicalDeviceProperties2(device, &props);
  return sub;
}

inline bool has_extension(VkPhysicalDevice device, const char *name) {
  uint32_t count = 0;
  if (vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr) !=
      VK_SUCCESS)
    return false;
  VkExtensionProperties *all = new (std::nothrow) VkExtensionProperties[count];
  if (!all)
    return false;
  bool found = false;
  if (vkEnumerateDeviceExtensionProperties(device, nullptr, &count, all) ==
      VK_SUCCESS)
    for (uint32_t i = 0; i < count && !found; ++i)
      found = std::strcmp(all[i].extensionName, name) == 0;
  delete[] all;
  return found;
}

} // namespace detail

class Session {
public:
  Session() = default;
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;
  ~Session() { destroy(); }

  // Builds instance, device, buffers, pipelines and the recorded command
  // buffer. 0 on success, else a negative code (see kErr*, or a VkResult) and
  // message() says what failed; a failed init leaves nothing allocated. Calling
  // init() again on a live session destroys the old state first.
  int init(const ModelDesc &m);
  // inputs/outputs: host pointers in model order, each of the IoDesc's bytes.
  int run(const void *const *inputs, void *const *outputs);
  void destroy(); // idempotent; waits for the device first
  const char *message() const { return msg_; }
  const char *device_name() const { return device_name_; }

private:
  struct Buffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
  };
  struct Kernel {
    VkShaderModule module = VK_NULL_HANDLE;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkDescriptorSet set = VK_NULL_HANDLE; // freed with the pool
  };
  // Where run() finds an input or output in the staging buffer.
  struct IoSlot {
    uint64_t staging_offset = 0, bytes = 0;
  };

  int fail(int code, const char *fmt, ...)
#if defined(__GNUC__)
      __attribute__((format(printf, 3, 4)))
#endif
      ;
  int check(VkResult r, const char *what);
  int check_kernel(VkResult r, const char *what, const KernelDesc &k);

  int init_impl(const ModelDesc &m);
  int validate_model(const ModelDesc &m);
  int create_instance();
  int pick_device();
  int validate_limits(const ModelDesc &m);
  int validate_coop_matrix();
  int create_device(const ModelDesc &m);
  int create_buffer(Buffer &b, VkDeviceSize size, VkBufferUsageFlags usage,
                    VkMemoryPropertyFlags preferred,
                    VkMemoryPropertyFlags required, const char *what,
                    VkMemoryPropertyFlags *chosen = nullptr);
  void destroy_buffer(Buffer &b);
  int upload_weights(const ModelDesc &m);
  int create_staging(const ModelDesc &m);
  int create_kernels(const ModelDesc &m);
  int create_kernel(const KernelDesc &kd, Kernel &k);
  int write_descriptors(const ModelDesc &m);
  int record(const ModelDesc &m);
  int create_profiler(const ModelDesc &m);
  // Submits `cmd`, waits for it and resets the fence for the next one.
  int submit_and_wait(VkCommandBuffer cmd);
  void print_profile();

  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkPhysicalDeviceLimits limits_ = {};
  VkPhysicalDeviceMemoryProperties memory_props_ = {};
  uint32_t queue_family_ = 0;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  // The whole model, recorded once; freed with command_pool_.
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  Buffer weights_, upload_, arena_, staging_;
  void *staging_map_ = nullptr;
  bool staging_coherent_ = true;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  Kernel *kernels_ = nullptr;
  uint32_t num_kernels_ = 0;
  IoSlot *io_ = nullptr; // inputs, then outputs
  uint32_t num_inputs_ = 0, num_outputs_ = 0;
  bool ready_ = false;
  // TRACT_VK_PROFILE=1: a timestamp after the input copies and after each
  // dispatch; per-kernel device time summed over runs, printed by destroy().
  // TRACT_VK_PROFILE=total: after the input copies and the last dispatch
  // only (a timestamp after each dispatch waits for the dispatches before it,
  // which the kernels of one level would not otherwise do).
  VkQueryPool query_pool_ = VK_NULL_HANDLE;
  uint32_t queries_ = 0;
  double timestamp_ns_ = 0;     // nanoseconds per timestamp tick
  uint64_t *stamps_ = nullptr;  // one run's timestamps
  uint32_t *query_after_ = nullptr; // per kernel: its timestamp, or 0 (none)
  bool profile_total_ = false;
  // TRACT_VK_STATS=1: each pipeline's statistics as the driver reports them
  // (registers, shared memory, spills on NVIDIA) on stderr at init, where the
  // device has VK_KHR_pipeline_executable_properties.
  bool stats_ = false;
  void print_pipeline_stats(const KernelDesc &kd, VkPipeline pipeline);
  double *kernel_ns_ = nullptr; // per kernel, summed over runs
  const char **kernel_names_ = nullptr;
  uint64_t profiled_runs_ = 0;
  char model_name_[64] = {};
  char device_name_[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE] = {};
  char msg_[1024] = {};
};

// --- Errors -----------------------------------------------------------------

inline int Session::fail(int code, const char *fmt, ...) {
  int n = std::snprintf(msg_, sizeof msg_, "tract::vk: %s: ", model_name_);
  if (n < 0 || static_cast<size_t>(n) >= sizeof msg_)
    return code;
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg_ + n, sizeof msg_ - static_cast<size_t>(n), fmt, ap);
  va_end(ap);
  return code;
}

inline int Session::check(VkResult r, const char *what) {
  if (r >= 0)
    return 0;
  return fail(r, "%s failed: %s (%d)", what, detail::result_name(r),
              static_cast<int>(r));
}

inline int Session::check_kernel(VkResult r, const char *what,
                                 const KernelDesc &k) {
  if (r >= 0)
    return 0;
  return fail(r, "kernel '%s': %s failed: %s (%d)", k.name ? k.name : "?", what,
              detail::result_name(r), static_cast<int>(r));
}

// --- Init -------------------------------------------------------------------

inline int Session::init(const ModelDesc &m) {
  destroy();
  msg_[0] = '\0';
  std::snprintf(model_name_, sizeof model_name_, "%s",
                m.name ? m.name : "model");
  int r = init_impl(m);
  if (r < 0) {
    destroy(); // keeps msg_
    return r;
  }
  ready_ = true;
  return 0;
}

inline int Session::init_impl(const ModelDesc &m) {
  int r;
  if ((r = validate_model(m)) < 0 || (r = create_instance()) < 0 ||
      (r = pick_device()) < 0 || (r = validate_limits(m)) < 0 ||
      (r = create_device(m)) < 0 || (r = upload_weights(m)) < 0 ||
      (r = create_staging(m)) < 0 || (r = create_kernels(m)) < 0 ||
      (r = write_descriptors(m)) < 0 || (r = create_profiler(m)) < 0 ||
      (r = record(m)) < 0)
    return r;
  return 0;
}

// Checks that need no device: ranges inside the arena and the weights, and
// that each kernel's words at least start like SPIR-V (drivers are not
// required to survive garbage, so it must not reach them).
inline int Session::validate_model(const ModelDesc &m) {
  if (m.weights_bytes > 0 && !m.weights)
    return fail(kErrBadModel, "weights_bytes is %llu but weights is null",
                static_cast<unsigned long long>(m.weights_bytes));
  if (m.weights_bytes > 0 && m.chunk_bytes == 0)
    return fail(kErrBadModel, "chunk_bytes is 0 with %llu bytes of weights",
                static_cast<unsigned long long>(m.weights_bytes));
  if ((m.num_inputs && !m.inputs) || (m.num_outputs && !m.outputs) ||
      (m.num_kernels && !m.kernels))
    return fail(kErrBadModel,
                "null inputs, outputs or kernels array with a nonzero count");
  if (m.features & ~(kFeatureSubgroupArithmetic | kFeatureCoopMatrixF16))
    return fail(kErrBadModel,
                "features 0x%x name capabilities this runtime does not know "
                "(a newer tractc?)",
                m.features);
  for (uint32_t i = 0; i < m.num_inputs + m.num_outputs; ++i) {
    bool in = i < m.num_inputs;
    const IoDesc &io = in ? m.inputs[i] : m.outputs[i - m.num_inputs];
    if (io.arena_offset > m.arena_bytes ||
        io.bytes > m.arena_bytes - io.arena_offset)
      return fail(kErrBadModel,
                  "%s %u: bytes [%llu, +%llu) lie outside the %llu-byte arena",
                  in ? "input" : "output", in ? i : i - m.num_inputs,
                  static_cast<unsigned long long>(io.arena_offset),
                  static_cast<unsigned long long>(io.bytes),
                  static_cast<unsigned long long>(m.arena_bytes));
  }
  uint64_t num_chunks =
      m.weights_bytes ? (m.weights_bytes + m.chunk_bytes - 1) / m.chunk_bytes
                      : 0;
  for (uint32_t i = 0; i < m.num_kernels; ++i) {
    const KernelDesc &k = m.kernels[i];
    const char *name = k.name ? k.name : "?";
    if (!k.spirv || k.spirv_words < 5 || k.spirv[0] != 0x07230203u)
      return fail(kErrBadModel,
                  "kernel '%s': not SPIR-V (%u words, first word 0x%08x, want "
                  "magic 0x07230203)",
                  name, k.spirv_words,
                  k.spirv && k.spirv_words ? k.spirv[0] : 0u);
    // Without weights every weight binding gets the dummy buffer instead.
    if (m.weights_bytes > 0 && k.weight_chunks > 0 &&
        static_cast<uint64_t>(k.first_chunk) + k.weight_chunks > num_chunks)
      return fail(
          kErrBadModel,
          "kernel '%s': weight chunks %u..%u, but the weights have %llu", name,
          k.first_chunk, k.first_chunk + k.weight_chunks - 1,
          static_cast<unsigned long long>(num_chunks));
  }
  return 0;
}

inline int Session::create_instance() {
  // vkEnumerateInstanceVersion only exists from 1.1 on; its absence means 1.0.
  uint32_t version = VK_API_VERSION_1_0;
  auto enumerate_version = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
      vkGetInstanceProcAddr(VK_NULL_HANDLE, "vkEnumerateInstanceVersion"));
  if (enumerate_version && enumerate_version(&version) != VK_SUCCESS)
    version = VK_API_VERSION_1_0;
  if (version < VK_API_VERSION_1_1)
    return fail(kErrInstanceVersion,
                "the Vulkan instance supports %u.%u, need 1.1",
                VK_VERSION_MAJOR(version), VK_VERSION_MINOR(version));

  // TRACT_VK_VALIDATION=1 asks for the validation layer; missing, it is
  // ignored so that the same binary runs where the SDK is not installed.
  const char *layer = "VK_LAYER_KHRONOS_validation";
  bool validation = false;
  const char *env = std::getenv("TRACT_VK_VALIDATION");
  if (env && std::strcmp(env, "1") == 0) {
    VkLayerProperties layers[64];
    uint32_t count = 64;
    vkEnumerateInstanceLayerProperties(&count, layers); // VK_INCOMPLETE is fine
    for (uint32_t i = 0; i < count && !validation; ++i)
      validation = std::strcmp(layers[i].layerName, layer) == 0;
  }

  VkApplicationInfo app = {};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = model_name_;
  app.pEngineName = "tract";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  info.enabledLayerCount = validation ? 1 : 0;
  info.ppEnabledLayerNames = validation ? &layer : nullptr;
  return check(vkCreateInstance(&info, nullptr, &instance_),
               "vkCreateInstance");
}

// TRACT_VK_DEVICE (index or deviceName substring) wins; otherwise the best
// device type. Usable = Vulkan 1.1 (kernels are compiled for it) and a compute
// queue.
inline int Session::pick_device() {
  constexpr uint32_t kMaxDevices = 16;
  VkPhysicalDevice devices[kMaxDevices];
  uint32_t count = kMaxDevices;
  VkResult vr = vkEnumeratePhysicalDevices(instance_, &count, devices);
  if (int r = check(vr, "vkEnumeratePhysicalDevices"))
    return r;

  VkPhysicalDeviceProperties props[kMaxDevices];
  bool usable[kMaxDevices];
  char seen[512] = "";
  for (uint32_t i = 0; i < count; ++i) {
    vkGetPhysicalDeviceProperties(devices[i], &props[i]);
    usable[i] = props[i].apiVersion >= VK_API_VERSION_1_1 &&
                detail::compute_queue_family(devices[i]) >= 0;
    detail::append(
        seen, sizeof seen, "%s%u '%s' (%s, Vulkan %u.%u%s)", i ? "; " : "", i,
        props[i].deviceName, detail::device_type_name(props[i].deviceType),
        VK_VERSION_MAJOR(props[i].apiVersion),
        VK_VERSION_MINOR(props[i].apiVersion), usable[i] ? "" : ", unusable");
  }
  if (count == 0)
    return fail(kErrNoDevice,
                "no Vulkan device found (is a driver installed?)");

  int chosen = -1;
  const char *env = std::getenv("TRACT_VK_DEVICE");
  if (env && *env) {
    bool matched = false;
    for (uint32_t i = 0; i < count && chosen < 0; ++i) {
      bool match = detail::is_decimal(env)
                       ? std::strtoul(env, nullptr, 10) == i
                       : std::strstr(props[i].deviceName, env) != nullptr;
      matched |= match;
      if (match && usable[i])
        chosen = static_cast<int>(i);
    }
    if (chosen < 0)
      return fail(
          kErrNoDevice, "TRACT_VK_DEVICE='%s' %s; devices: %s", env,
          matched ? "names only devices without Vulkan 1.1 and a compute queue"
                  : "matches no device",
          seen);
  } else {
    for (uint32_t i = 0; i < count; ++i)
      if (usable[i] && (chosen < 0 ||
                        detail::device_type_rank(props[i].deviceType) <
                            detail::device_type_rank(props[chosen].deviceType)))
        chosen = static_cast<int>(i);
    if (chosen < 0)
      return fail(kErrNoDevice,
                  "no device with Vulkan 1.1 and a compute queue; devices: %s",
                  seen);
  }
  physical_ = devices[chosen];
  limits_ = props[chosen].limits;
  queue_family_ =
      static_cast<uint32_t>(detail::compute_queue_family(physical_));
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory_props_);
  std::snprintf(device_name_, sizeof device_name_, "%s",
                props[chosen].deviceName);
  return 0;
}

inline int Session::validate_limits(const ModelDesc &m) {
  const VkPhysicalDeviceLimits &l = limits_;
  if (m.features & kFeatureCoopMatrixF16)
    if (int r = validate_coop_matrix())
      return r;
  if (m.features & kFeatureSubgroupArithmetic) {
    VkPhysicalDeviceSubgroupProperties sub =
        detail::subgroup_properties(physical_);
    if (!(sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ||
        !(sub.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT))
      return fail(kErrDeviceLimit,
                  "'%s' has no subgroup arithmetic in compute shaders (the "
                  "model's row reductions use it)",
                  device_name_);
  }
  if (m.weights_bytes > 0) {
    if (m.chunk_bytes > l.maxStorageBufferRange)
      return fail(kErrDeviceLimit,
                  "chunk_bytes %llu exceeds maxStorageBufferRange %u of '%s'",
                  static_cast<unsigned long long>(m.chunk_bytes),
                  l.maxStorageBufferRange, device_name_);
    if (m.chunk_bytes % l.minStorageBufferOffsetAlignment != 0)
      return fail(
          kErrDeviceLimit,
          "chunk_bytes %llu is not a multiple of "
          "minStorageBufferOffsetAlignment %llu of "
          "'%s'",
          static_cast<unsigned long long>(m.chunk_bytes),
          static_cast<unsigned long long>(l.minStorageBufferOffsetAlignment),
          device_name_);
  }
  if (m.arena_bytes > l.maxStorageBufferRange)
    return fail(kErrDeviceLimit,
                "arena_bytes %llu exceeds maxStorageBufferRange %u of '%s'",
                static_cast<unsigned long long>(m.arena_bytes),
                l.maxStorageBufferRange, device_name_);
  uint64_t total_bindings = 0;
  for (uint32_t i = 0; i < m.num_kernels; ++i) {
    const KernelDesc &k = m.kernels[i];
    const char *name = k.name ? k.name : "?";
    uint64_t bindings = 1ull + k.weight_chunks;
    total_bindings += bindings;
    if (bindings > l.maxPerStageDescriptorStorageBuffers ||
        bindings > l.maxDescriptorSetStorageBuffers)
      return fail(kErrDeviceLimit,
                  "kernel '%s': %llu storage buffers exceed "
                  "maxPerStageDescriptorStorageBuffers "
                  "%u / maxDescriptorSetStorageBuffers %u of '%s'",
                  name, static_cast<unsigned long long>(bindings),
                  l.maxPerStageDescriptorStorageBuffers,
                  l.maxDescriptorSetStorageBuffers, device_name_);
    for (int d = 0; d < 3; ++d)
      if (k.groups[d] > l.maxComputeWorkGroupCount[d])
        return fail(kErrDeviceLimit,
                    "kernel '%s': groups[%d] = %u exceeds "
                    "maxComputeWorkGroupCount %u of '%s'",
                    name, d, k.groups[d], l.maxComputeWorkGroupCount[d],
                    device_name_);
  }
  // The pool's descriptor count is a uint32_t.
  if (total_bindings > UINT32_MAX)
    return fail(kErrDeviceLimit, "%llu descriptors in all",
                static_cast<unsigned long long>(total_bindings));
  return 0;
}

inline int Session::validate_coop_matrix() {
  const char *missing = nullptr;
  for (const char *ext : detail::kCoopMatrixExtensions)
    if (!missing && !detail::has_extension(physical_, ext))
      missing = ext;
  if (missing)
    return fail(kErrDeviceLimit,
                "'%s' lacks %s (the model was compiled with --fp16-gemm)",
                device_name_, missing);
  VkPhysicalDeviceVulkanMemoryModelFeaturesKHR memory_model = {};
  memory_model.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES_KHR;
  VkPhysicalDeviceShaderFloat16Int8FeaturesKHR f16 = {};
  f16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES_KHR;
  f16.pNext = &memory_model;
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coop = {};
  coop.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV;
  coop.pNext = &f16;
  VkPhysicalDeviceFeatures2 features = {};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &coop;
  vkGetPhysicalDeviceFeatures2(physical_, &features);
  if (!coop.cooperativeMatrix || !f16.shaderFloat16 ||
      !memory_model.vulkanMemoryModel)
    return fail(kErrDeviceLimit,
                "'%s' does not enable%s%s%s (the model was compiled with "
                "--fp16-gemm)",
                device_name_, coop.cooperativeMatrix ? "" : " cooperativeMatrix",
                f16.shaderFloat16 ? "" : " shaderFloat16",
                memory_model.vulkanMemoryModel ? "" : " vulkanMemoryModel");
  VkPhysicalDeviceSubgroupProperties sub =
      detail::subgroup_properties(physical_);
  if (sub.subgroupSize != 32 || limits_.maxComputeSharedMemorySize < 40 * 1024)
    return fail(kErrDeviceLimit,
                "'%s' has subgroups of %u and %u bytes of shared memory; the "
                "--fp16-gemm shaders need 32 and 40 KiB",
                device_name_, sub.subgroupSize,
                limits_.maxComputeSharedMemorySize);
  auto properties =
      reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
          vkGetInstanceProcAddr(instance_,
                                "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  VkCooperativeMatrixPropertiesNV shapes[64];
  uint32_t count = 64;
  for (VkCooperativeMatrixPropertiesNV &p : shapes) {
    p = {};
    p.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV;
  }
  if (properties) // VK_INCOMPLETE is fine: the list is long enough to tell
    properties(physical_, &count, shapes);
  else
    count = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const VkCooperativeMatrixPropertiesNV &p = shapes[i];
    if (p.MSize == 16 && p.NSize == 16 && p.KSize == 16 &&
        p.AType == VK_COMPONENT_TYPE_FLOAT16_NV &&
        p.BType == VK_COMPONENT_TYPE_FLOAT16_NV &&
        p.CType == VK_COMPONENT_TYPE_FLOAT32_NV &&
        p.DType == VK_COMPONENT_TYPE_FLOAT32_NV &&
        p.scope == VK_SCOPE_SUBGROUP_NV)
      return 0;
  }
  return fail(kErrDeviceLimit,
              "'%s' has no 16x16x16 fp16 x fp16 + fp32 cooperative matrix "
              "(the model was compiled with --fp16-gemm)",
              device_name_);
}

inline int Session::create_device(const ModelDesc &m) {
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue = {};
  queue.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue.queueFamilyIndex = queue_family_;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkDeviceCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  // What the --fp16-gemm shaders use (validate_coop_matrix checked it).
  VkPhysicalDeviceVulkanMemoryModelFeaturesKHR memory_model = {};
  memory_model.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES_KHR;
  memory_model.vulkanMemoryModel = VK_TRUE;
  VkPhysicalDeviceShaderFloat16Int8FeaturesKHR f16 = {};
  f16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES_KHR;
  f16.pNext = &memory_model;
  f16.shaderFloat16 = VK_TRUE;
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coop = {};
  coop.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV;
  coop.pNext = &f16;
  coop.cooperativeMatrix = VK_TRUE;
  const char *extensions[4] = {};
  if (m.features & kFeatureCoopMatrixF16) {
    info.pNext = &coop;
    for (const char *e : detail::kCoopMatrixExtensions)
      extensions[info.enabledExtensionCount++] = e;
  }
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable = {};
  executable.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
  executable.pipelineExecutableInfo = VK_TRUE;
  const char *stats_env = std::getenv("TRACT_VK_STATS");
  stats_ = stats_env && *stats_env && std::strcmp(stats_env, "0") &&
           detail::has_extension(physical_, detail::kPipelineStatsExtension);
  if (stats_) {
    executable.pNext = const_cast<void *>(info.pNext);
    info.pNext = &executable;
    extensions[info.enabledExtensionCount++] = detail::kPipelineStatsExtension;
  } else if (stats_env && *stats_env && std::strcmp(stats_env, "0")) {
    std::fprintf(stderr, "tract vk: TRACT_VK_STATS: '%s' lacks %s\n", device_name_,
                 detail::kPipelineStatsExtension);
  }
  info.ppEnabledExtensionNames = extensions;
  if (int r = check(vkCreateDevice(physical_, &info, nullptr, &device_),
                    "vkCreateDevice"))
    return r;
  vkGetDeviceQueue(device_, queue_family_, 0, &queue_);

  VkCommandPoolCreateInfo pool = {};
  pool.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool.queueFamilyIndex = queue_family_;
  if (int r =
          check(vkCreateCommandPool(device_, &pool, nullptr, &command_pool_),
                "vkCreateCommandPool"))
    return r;
  VkFenceCreateInfo fence = {};
  fence.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  return check(vkCreateFence(device_, &fence, nullptr, &fence_),
               "vkCreateFence");
}

// Takes the first memory type with all `preferred` flags, else the first with
// all `required` ones (e.g. device-local preferred, anything accepted: some
// drivers expose no DEVICE_LOCAL type that a given buffer may use).
inline int Session::create_buffer(Buffer &b, VkDeviceSize size,
                                  VkBufferUsageFlags usage,
                                  VkMemoryPropertyFlags preferred,
                                  VkMemoryPropertyFlags required,
                                  const char *what,
                                  VkMemoryPropertyFlags *chosen) {
  char call[96];
  VkBufferCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  std::snprintf(call, sizeof call, "vkCreateBuffer (%s)", what);
  if (int r = check(vkCreateBuffer(device_, &info, nullptr, &b.buffer), call))
    return r;
  b.size = size;

  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device_, b.buffer, &req);
  int type = -1;
  for (int pass = 0; pass < 2 && type < 0; ++pass) {
    VkMemoryPropertyFlags want = pass == 0 ? preferred : required;
    for (uint32_t i = 0; i < memory_props_.memoryTypeCount && type < 0; ++i)
      if ((req.memoryTypeBits & (1u << i)) &&
          (memory_props_.memoryTypes[i].propertyFlags & want) == want)
        type = static_cast<int>(i);
  }
  if (type < 0)
    return fail(kErrNoMemoryType,
                "no memory type for the %s buffer (%llu bytes, type bits 0x%x)",
                what, static_cast<unsigned long long>(size),
                req.memoryTypeBits);
  if (chosen)
    *chosen = memory_props_.memoryTypes[type].propertyFlags;

  VkMemoryAllocateInfo alloc = {};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = static_cast<uint32_t>(type);
  std::snprintf(call, sizeof call, "vkAllocateMemory (%s, %llu bytes)", what,
                static_cast<unsigned long long>(req.size));
  if (int r =
          check(vkAllocateMemory(device_, &alloc, nullptr, &b.memory), call))
    return r;
  std::snprintf(call, sizeof call, "vkBindBufferMemory (%s)", what);
  return check(vkBindBufferMemory(device_, b.buffer, b.memory, 0), call);
}

inline void Session::destroy_buffer(Buffer &b) {
  vkDestroyBuffer(device_, b.buffer, nullptr);
  vkFreeMemory(device_, b.memory, nullptr);
  b = Buffer();
}

// Weights go to device-local memory once, through a temporary host-visible
// buffer; a model without weights gets a small dummy buffer so that every
// weight binding still has something valid behind it.
inline int Session::upload_weights(const ModelDesc &m) {
  const VkBufferUsageFlags usage =
      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (int r =
          create_buffer(weights_, detail::nonzero_size(m.weights_bytes), usage,
                        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, "weights"))
    return r;
  if (m.weights_bytes == 0)
    return 0;

  VkMemoryPropertyFlags flags = 0;
  if (int r = create_buffer(
          upload_, m.weights_bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
              VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "weights upload", &flags))
    return r;
  void *map = nullptr;
  if (int r =
          check(vkMapMemory(device_, upload_.memory, 0, VK_WHOLE_SIZE, 0, &map),
                "vkMapMemory (weights upload)"))
    return r;
  std::memcpy(map, m.weights, m.weights_bytes);
  VkMappedMemoryRange range = {};
  range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
  range.memory = upload_.memory;
  range.size = VK_WHOLE_SIZE;
  VkResult flushed = (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)
                         ? VK_SUCCESS
                         : vkFlushMappedMemoryRanges(device_, 1, &range);
  vkUnmapMemory(device_, upload_.memory);
  if (int r = check(flushed, "vkFlushMappedMemoryRanges (weights upload)"))
    return r;

  VkCommandBufferAllocateInfo alloc = {};
  alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  alloc.commandPool = command_pool_;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE; // freed with the pool on failure
  if (int r = check(vkAllocateCommandBuffers(device_, &alloc, &cmd),
                    "vkAllocateCommandBuffers (weights upload)"))
    return r;
  VkCommandBufferBeginInfo begin = {};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (int r = check(vkBeginCommandBuffer(cmd, &begin),
                    "vkBeginCommandBuffer (weights upload)"))
    return r;
  VkBufferCopy copy = {0, 0, m.weights_bytes};
  vkCmdCopyBuffer(cmd, upload_.buffer, weights_.buffer, 1, &copy);
  // Submission order carries this barrier over to the model's later
  // submissions, so kernels see the weights without a barrier of their own.
  detail::barrier(
      cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
  if (int r =
          check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer (weights upload)"))
    return r;
  if (int r = submit_and_wait(cmd))
    return r;
  vkFreeCommandBuffers(device_, command_pool_, 1, &cmd);
  destroy_buffer(upload_);
  return 0;
}

// The arena, and one persistent staging buffer holding all inputs then all
// outputs, mapped for the session's lifetime.
inline int Session::create_staging(const ModelDesc &m) {
  if (int r = create_buffer(arena_, detail::nonzero_size(m.arena_bytes),
                            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                            VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, "arena"))
    return r;

  num_inputs_ = m.num_inputs;
  num_outputs_ = m.num_outputs;
  io_ = new (std::nothrow) IoSlot[num_inputs_ + num_outputs_ + 1];
  if (!io_)
    return fail(kErrHostAlloc, "out of host memory for %u I/O slots",
                num_inputs_ + num_outputs_);
  uint64_t offset = 0;
  for (uint32_t i = 0; i < num_inputs_ + num_outputs_; ++i) {
    const IoDesc &io =
        i < num_inputs_ ? m.inputs[i] : m.outputs[i - num_inputs_];
    io_[i].staging_offset = offset;
    io_[i].bytes = io.bytes;
    offset += io.bytes;
  }

  VkMemoryPropertyFlags flags = 0;
  if (int r = create_buffer(
          staging_, detail::nonzero_size(offset),
          VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
              VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "staging", &flags))
    return r;
  staging_coherent_ = (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  return check(
      vkMapMemory(device_, staging_.memory, 0, VK_WHOLE_SIZE, 0, &staging_map_),
      "vkMapMemory (staging)");
}

inline int Session::create_kernels(const ModelDesc &m) {
  if (m.num_kernels == 0)
    return 0;
  kernels_ = new (std::nothrow) Kernel[m.num_kernels];
  if (!kernels_)
    return fail(kErrHostAlloc, "out of host memory for %u kernels",
                m.num_kernels);
  num_kernels_ = m.num_kernels;

  uint32_t descriptors = 0;
  for (uint32_t i = 0; i < m.num_kernels; ++i)
    descriptors += 1 + m.kernels[i].weight_chunks;
  VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptors};
  VkDescriptorPoolCreateInfo pool = {};
  pool.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  pool.maxSets = m.num_kernels;
  pool.poolSizeCount = 1;
  pool.pPoolSizes = &size;
  if (int r = check(
          vkCreateDescriptorPool(device_, &pool, nullptr, &descriptor_pool_),
          "vkCreateDescriptorPool"))
    return r;

  for (uint32_t i = 0; i < m.num_kernels; ++i)
    if (int r = create_kernel(m.kernels[i], kernels_[i]))
      return r;
  return 0;
}

// Shader module, set layout (1 + weight_chunks storage buffers), pipeline
// layout, pipeline and descriptor set of one kernel. The module is dropped
// once the pipeline exists: the driver has what it needs by then.
inline int Session::create_kernel(const KernelDesc &kd, Kernel &k) {
  VkShaderModuleCreateInfo module = {};
  module.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module.codeSize = static_cast<size_t>(kd.spirv_words) * sizeof(uint32_t);
  module.pCode = kd.spirv;
  if (int r = check_kernel(
          vkCreateShaderModule(device_, &module, nullptr, &k.module),
          "vkCreateShaderModule", kd))
    return r;

  uint32_t count = 1 + kd.weight_chunks;
  VkDescriptorSetLayoutBinding *bindings =
      new (std::nothrow) VkDescriptorSetLayoutBinding[count];
  if (!bindings)
    return fail(kErrHostAlloc, "out of host memory for %u bindings", count);
  for (uint32_t b = 0; b < count; ++b) {
    bindings[b] = VkDescriptorSetLayoutBinding();
    bindings[b].binding = b;
    bindings[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[b].descriptorCount = 1;
    bindings[b].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo set_layout = {};
  set_layout.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  set_layout.bindingCount = count;
  set_layout.pBindings = bindings;
  VkResult vr =
      vkCreateDescriptorSetLayout(device_, &set_layout, nullptr, &k.set_layout);
  delete[] bindings;
  if (int r = check_kernel(vr, "vkCreateDescriptorSetLayout", kd))
    return r;

  VkPipelineLayoutCreateInfo layout = {};
  layout.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout.setLayoutCount = 1;
  layout.pSetLayouts = &k.set_layout;
  if (int r = check_kernel(
          vkCreatePipelineLayout(device_, &layout, nullptr, &k.pipeline_layout),
          "vkCreatePipelineLayout", kd))
    return r;

  VkComputePipelineCreateInfo pipeline = {};
  pipeline.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  pipeline.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipeline.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipeline.stage.module = k.module;
  pipeline.stage.pName = "main";
  pipeline.layout = k.pipeline_layout;
  if (stats_)
    pipeline.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  if (int r = check_kernel(vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1,
                                                    &pipeline, nullptr,
                                                    &k.pipeline),
                           "vkCreateComputePipelines", kd))
    return r;
  if (stats_)
    print_pipeline_stats(kd, k.pipeline);
  vkDestroyShaderModule(device_, k.module, nullptr);
  k.module = VK_NULL_HANDLE;

  VkDescriptorSetAllocateInfo alloc = {};
  alloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  alloc.descriptorPool = descriptor_pool_;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &k.set_layout;
  return check_kernel(vkAllocateDescriptorSets(device_, &alloc, &k.set),
                      "vkAllocateDescriptorSets", kd);
}

// Binding 0 is the whole arena; binding 1 + j is weight chunk first_chunk + j,
// its own range so that a shader's runtime-sized array has the chunk's length.
inline int Session::write_descriptors(const ModelDesc &m) {
  uint32_t max_count = 0;
  for (uint32_t i = 0; i < m.num_kernels; ++i)
    if (1 + m.kernels[i].weight_chunks > max_count)
      max_count = 1 + m.kernels[i].weight_chunks;
  if (max_count == 0)
    return 0;
  VkDescriptorBufferInfo *infos =
      new (std::nothrow) VkDescriptorBufferInfo[max_count];
  if (!infos)
    return fail(kErrHostAlloc, "out of host memory for %u descriptors",
                max_count);

  for (uint32_t i = 0; i < m.num_kernels; ++i) {
    const KernelDesc &k = m.kernels[i];
    infos[0] = {arena_.buffer, 0, arena_.size};
    for (uint32_t j = 0; j < k.weight_chunks; ++j) {
      if (m.weights_bytes == 0) {
        infos[1 + j] = {weights_.buffer, 0, weights_.size};
        continue;
      }
      uint64_t offset =
          (static_cast<uint64_t>(k.first_chunk) + j) * m.chunk_bytes;
      uint64_t end = offset + m.chunk_bytes < m.weights_bytes
                         ? offset + m.chunk_bytes
                         : m.weights_bytes;
      infos[1 + j] = {weights_.buffer, offset, end - offset};
    }
    VkWriteDescriptorSet write = {};
    write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    write.dstSet = kernels_[i].set;
    write.dstBinding = 0;
    write.descriptorCount =
        1 + k.weight_chunks; // consecutive bindings of one type
    write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    write.pBufferInfo = infos;
    vkUpdateDescriptorSets(device_, 1, &write, 0, nullptr);
  }
  delete[] infos;
  return 0;
}

// The whole model as one command buffer, replayed by every run(). Barriers are
// global memory barriers: kernels share one arena buffer, and finer ones would
// cost more to record than they save on a serial chain.
inline int Session::record(const ModelDesc &m) {
  VkCommandBufferAllocateInfo alloc = {};
  alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  alloc.commandPool = command_pool_;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  if (int r = check(vkAllocateCommandBuffers(device_, &alloc, &command_buffer_),
                    "vkAllocateCommandBuffers"))
    return r;
  VkCommandBufferBeginInfo begin = {};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  VkCommandBuffer cmd = command_buffer_;
  if (int r = check(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer"))
    return r;

  if (query_pool_)
    vkCmdResetQueryPool(cmd, query_pool_, 0, queries_);
  // The previous run's kernels and output copies used the arena; this run's
  // input copies must not overtake them (write-after-read/write across
  // submissions, which the host's fence wait alone does not order).
  detail::barrier(cmd,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                      VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  for (uint32_t i = 0; i < m.num_inputs; ++i) {
    if (m.inputs[i].bytes == 0)
      continue;
    VkBufferCopy copy = {io_[i].staging_offset, m.inputs[i].arena_offset,
                         m.inputs[i].bytes};
    vkCmdCopyBuffer(cmd, staging_.buffer, arena_.buffer, 1, &copy);
  }

  bool any_dispatch = false;
  for (uint32_t i = 0; i < m.num_kernels; ++i) {
    const KernelDesc &k = m.kernels[i];
    if (k.groups[0] == 0 || k.groups[1] == 0 || k.groups[2] == 0)
      continue; // an empty tensor: nothing to compute
    if (!any_dispatch)
      detail::barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    else if (!k.concurrent)
      detail::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    if (query_pool_ && !any_dispatch) // the input copies are done
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_, 0);
    any_dispatch = true;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                      kernels_[i].pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                            kernels_[i].pipeline_layout, 0, 1, &kernels_[i].set,
                            0, nullptr);
    vkCmdDispatch(cmd, k.groups[0], k.groups[1], k.groups[2]);
    if (query_pool_ && query_after_[i])
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_,
                          query_after_[i]);
  }

  if (any_dispatch)
    detail::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                    VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                    VK_ACCESS_TRANSFER_READ_BIT);
  else // outputs may be read straight from what the input copies wrote
    detail::barrier(
        cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
        VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  for (uint32_t i = 0; i < m.num_outputs; ++i) {
    if (m.outputs[i].bytes == 0)
      continue;
    VkBufferCopy copy = {m.outputs[i].arena_offset,
                         io_[num_inputs_ + i].staging_offset,
                         m.outputs[i].bytes};
    vkCmdCopyBuffer(cmd, arena_.buffer, staging_.buffer, 1, &copy);
  }
  detail::barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                  VK_ACCESS_HOST_READ_BIT);
  return check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
}

inline int Session::submit_and_wait(VkCommandBuffer cmd) {
  VkSubmitInfo submit = {};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  if (int r = check(vkQueueSubmit(queue_, 1, &submit, fence_), "vkQueueSubmit"))
    return r;
  if (int r = check(vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX),
                    "vkWaitForFences"))
    return r;
  return check(vkResetFences(device_, 1, &fence_), "vkResetFences");
}

// One line per pipeline executable: "tract vk stats KERNEL: name=value ...".
inline void Session::print_pipeline_stats(const KernelDesc &kd, VkPipeline pipeline) {
  auto properties = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
      vkGetDeviceProcAddr(device_, "vkGetPipelineExecutablePropertiesKHR"));
  auto statistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
      vkGetDeviceProcAddr(device_, "vkGetPipelineExecutableStatisticsKHR"));
  if (!properties || !statistics)
    return;
  VkPipelineInfoKHR info = {};
  info.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR;
  info.pipeline = pipeline;
  uint32_t executables = 0;
  if (properties(device_, &info, &executables, nullptr) != VK_SUCCESS)
    return;
  for (uint32_t e = 0; e < executables; ++e) {
    VkPipelineExecutableInfoKHR which = {};
    which.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR;
    which.pipeline = pipeline;
    which.executableIndex = e;
    VkPipelineExecutableStatisticKHR stats[32];
    uint32_t count = 32;
    for (VkPipelineExecutableStatisticKHR &st : stats) {
      st = VkPipelineExecutableStatisticKHR();
      st.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
    }
    VkResult r = statistics(device_, &which, &count, stats);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
      continue;
    std::fprintf(stderr, "tract vk stats %s:", kd.name);
    for (uint32_t i = 0; i < count; ++i) {
      const VkPipelineExecutableStatisticKHR &st = stats[i];
      switch (st.format) {
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
        std::fprintf(stderr, " %s=%u", st.name, st.value.b32);
        break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
        std::fprintf(stderr, " %s=%lld", st.name, static_cast<long long>(st.value.i64));
        break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
        std::fprintf(stderr, " %s=%llu", st.name,
                     static_cast<unsigned long long>(st.value.u64));
        break;
      default:
        std::fprintf(stderr, " %s=%g", st.name, st.value.f64);
      }
    }
    std::fprintf(stderr, "\n");
  }
}

// --- Profiling (TRACT_VK_PROFILE=1 or total) ------------------------------------

inline int Session::create_profiler(const ModelDesc &m) {
  const char *env = std::getenv("TRACT_VK_PROFILE");
  if (!env || !*env || std::strcmp(env, "0") == 0 || m.num_kernels == 0)
    return 0;
  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &families, nullptr);
  VkQueueFamilyProperties props[16];
  families = families < 16 ? families : 16;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &families, props);
  if (queue_family_ >= families || props[queue_family_].timestampValidBits == 0)
    return 0; // no timestamps on this queue: run unprofiled
  query_after_ = new (std::nothrow) uint32_t[m.num_kernels]();
  kernel_ns_ = new (std::nothrow) double[m.num_kernels]();
  kernel_names_ = new (std::nothrow) const char *[m.num_kernels];
  stamps_ = new (std::nothrow) uint64_t[m.num_kernels + 1];
  if (!query_after_ || !kernel_ns_ || !kernel_names_ || !stamps_)
    return fail(kErrHostAlloc, "no host memory for the profiler");
  profile_total_ = std::strcmp(env, "total") == 0;
  queries_ = 1;
  uint32_t last = m.num_kernels;
  for (uint32_t i = 0; i < m.num_kernels; ++i) {
    const KernelDesc &k = m.kernels[i];
    kernel_names_[i] = k.name ? k.name : "?";
    if (k.groups[0] && k.groups[1] && k.groups[2]) {
      if (profile_total_)
        last = i;
      else
        query_after_[i] = queries_++;
    }
  }
  if (last < m.num_kernels)
    query_after_[last] = queries_++;
  timestamp_ns_ = limits_.timestampPeriod;
  VkQueryPoolCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = queries_;
  return check(vkCreateQueryPool(device_, &info, nullptr, &query_pool_), "vkCreateQueryPool");
}

// Per-kernel device time, averaged over the runs, to stderr: asked for
// with TRACT_VK_PROFILE=1 (bench/gpu), never printed otherwise.
inline void Session::print_profile() {
  if (profiled_runs_ > 0 && kernel_ns_) {
    double total = 0;
    for (uint32_t i = 0; i < num_kernels_; ++i)
      total += kernel_ns_[i];
    std::fprintf(stderr, "tract-vk profile: %.3f ms in kernels per run (%llu runs)\n",
                 total / double(profiled_runs_) * 1e-6,
                 static_cast<unsigned long long>(profiled_runs_));
    for (uint32_t i = 0; i < num_kernels_ && !profile_total_; ++i)
      if (query_after_[i])
        std::fprintf(stderr, "%10.1f us  %s\n", kernel_ns_[i] / double(profiled_runs_) * 1e-3,
                     kernel_names_[i]);
  }
  profiled_runs_ = 0;
  delete[] query_after_;
  delete[] kernel_ns_;
  delete[] kernel_names_;
  delete[] stamps_;
  query_after_ = nullptr;
  kernel_ns_ = nullptr;
  kernel_names_ = nullptr;
  stamps_ = nullptr;
}

// --- Run --------------------------------------------------------------------

inline int Session::run(const void *const *inputs, void *const *outputs) {
  if (!ready_)
    return fail(kErrNotReady, "run() on a session that is not initialised "
                              "(init() failed or was not called, "
                              "or an earlier run() failed)");
  if ((num_inputs_ && !inputs) || (num_outputs_ && !outputs))
    return fail(kErrBadArgument, "run() given a null inputs or outputs array");
  char *staging = static_cast<char *>(staging_map_);
  for (uint32_t i = 0; i < num_inputs_; ++i) {
    if (io_[i].bytes == 0)
      continue;
    if (!inputs[i])
      return fail(kErrBadArgument, "run(): input %u is null", i);
    std::memcpy(staging + io_[i].staging_offset, inputs[i], io_[i].bytes);
  }
  for (uint32_t i = 0; i < num_outputs_; ++i)
    if (io_[num_inputs_ + i].bytes && !outputs[i])
      return fail(kErrBadArgument, "run(): output %u is null", i);

  VkMappedMemoryRange range = {};
  range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
  range.memory = staging_.memory;
  range.size =
      VK_WHOLE_SIZE; // whole-memory ranges need no nonCoherentAtomSize rounding
  if (!staging_coherent_)
    if (int r = check(vkFlushMappedMemoryRanges(device_, 1, &range),
                      "vkFlushMappedMemoryRanges"))
      return r;

  // Any failure from here on leaves the fence or the device in doubt: the
  // session refuses further runs rather than submit against a signalled fence.
  ready_ = false;
  if (int r = submit_and_wait(command_buffer_))
    return r;
  if (!staging_coherent_)
    if (int r = check(vkInvalidateMappedMemoryRanges(device_, 1, &range),
                      "vkInvalidateMappedMemoryRanges"))
      return r;
  ready_ = true;
  if (query_pool_ &&
      vkGetQueryPoolResults(device_, query_pool_, 0, queries_,
                            sizeof(uint64_t) * queries_, stamps_, sizeof(uint64_t),
                            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) ==
          VK_SUCCESS) {
    // Dispatches are serialised by barriers: each one's time is from the
    // timestamp before it to its own.
    uint32_t prev = 0;
    for (uint32_t i = 0; i < num_kernels_; ++i)
      if (query_after_[i]) {
        kernel_ns_[i] += double(stamps_[query_after_[i]] - stamps_[prev]) * timestamp_ns_;
        prev = query_after_[i];
      }
    ++profiled_runs_;
  }

  for (uint32_t i = 0; i < num_outputs_; ++i) {
    const IoSlot &slot = io_[num_inputs_ + i];
    if (slot.bytes)
      std::memcpy(outputs[i], staging + slot.staging_offset, slot.bytes);
  }
  return 0;
}

// --- Teardown ---------------------------------------------------------------

// Reverse order of creation. Every handle may be null (a partial init):
// vkDestroy*/vkFree* accept VK_NULL_HANDLE, and nothing below the device is
// touched without one.
inline void Session::destroy() {
  ready_ = false;
  print_profile();
  if (device_ != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(
        device_); // a failure here changes nothing: everything goes anyway
    vkDestroyQueryPool(device_, query_pool_, nullptr);
    query_pool_ = VK_NULL_HANDLE;
    queries_ = 0;
    for (uint32_t i = num_kernels_; i-- > 0;) {
      vkDestroyPipeline(device_, kernels_[i].pipeline, nullptr);
      vkDestroyPipelineLayout(device_, kernels_[i].pipeline_layout, nullptr);
      vkDestroyDescriptorSetLayout(device_, kernels_[i].set_layout, nullptr);
      vkDestroyShaderModule(device_, kernels_[i].module, nullptr);
    }
    vkDestroyDescriptorPool(device_, descriptor_pool_, nullptr);
    if (staging_map_)
      vkUnmapMemory(device_, staging_.memory);
    destroy_buffer(staging_);
    destroy_buffer(arena_);
    destroy_buffer(upload_);
    destroy_buffer(weights_);
    vkDestroyFence(device_, fence_, nullptr);
    vkDestroyCommandPool(device_, command_pool_,
                         nullptr); // frees command_buffer_
    vkDestroyDevice(device_, nullptr);
  }
  if (instance_ != VK_NULL_HANDLE)
    vkDestroyInstance(instance_, nullptr);

  delete[] kernels_;
  delete[] io_;
  kernels_ = nullptr;
  io_ = nullptr;
  num_kernels_ = num_inputs_ = num_outputs_ = 0;
  staging_map_ = nullptr;
  staging_coherent_ = true;
  descriptor_pool_ = VK_NULL_HANDLE;
  fence_ = VK_NULL_HANDLE;
  command_buffer_ = VK_NULL_HANDLE;
  command_pool_ = VK_NULL_HANDLE;
  queue_ = VK_NULL_HANDLE;
  device_ = VK_NULL_HANDLE;
  physical_ = VK_NULL_HANDLE;
  instance_ = VK_NULL_HANDLE;
  device_name_[0] = '\0';
}

} // namespace vk
} // namespace tract

#endif // TRACT_VK_RUNTIME_H
