// tract runtime: the `--main` driver's .npy and thread-pool functions as
// declarations, their definitions compiled once in one translation unit.
//
// npy.h and thread_pool.h are inline, so every generated driver compiles
// them again (with <thread>, <mutex>...: about 0.85 s of a small model's
// 1.2 s of g++ -O1). A harness that builds many models (the conformance
// suite) builds the definitions once:
//
//   // io.cpp
//   #define TRACT_PREBUILT_IO_IMPLEMENTATION
//   #include "tract/rt/io/prebuilt_io.h"
//
// and each model with -DTRACT_PREBUILT_IO, linked with io.o. The functions
// are npy.h's and thread_pool.h's (tract::rt::prebuilt forwards to them).
#pragma once

#include "tract/rt/io/npy_array.h"
#include "tract/rt/parallel.h"

namespace tract {
namespace rt {
namespace prebuilt {

bool npy_read(const char *path, NpyArray *out, char *err, size_t err_len);
bool npy_read_strings(const char *path, size_t slot_bytes, NpyArray *out, char *err,
                      size_t err_len);
bool npy_write(const char *path, const char *dtype, int rank, const int64_t *shape,
               const void *data, size_t bytes);
bool npy_write_strings(const char *path, int rank, const int64_t *shape, const void *slots,
                       size_t slot_bytes);
void npy_free(NpyArray *a);

// tract::rt::ThreadPool behind a pointer.
class ThreadPool {
public:
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;
  static void parallel_for(void *pool, int64_t count, tract_task_fn task, void *ctx);

private:
  void *pool_;
};

} // namespace prebuilt
} // namespace rt
} // namespace tract

#ifdef TRACT_PREBUILT_IO_IMPLEMENTATION
#include "tract/rt/io/npy.h"
#include "tract/rt/io/thread_pool.h"

namespace tract {
namespace rt {
namespace prebuilt {

bool npy_read(const char *path, NpyArray *out, char *err, size_t err_len) {
  return rt::npy_read(path, out, err, err_len);
}
bool npy_read_strings(const char *path, size_t slot_bytes, NpyArray *out, char *err,
                      size_t err_len) {
  return rt::npy_read_strings(path, slot_bytes, out, err, err_len);
}
bool npy_write(const char *path, const char *dtype, int rank, const int64_t *shape,
               const void *data, size_t bytes) {
  return rt::npy_write(path, dtype, rank, shape, data, bytes);
}
bool npy_write_strings(const char *path, int rank, const int64_t *shape, const void *slots,
                       size_t slot_bytes) {
  return rt::npy_write_strings(path, rank, shape, slots, slot_bytes);
}
void npy_free(NpyArray *a) { rt::npy_free(a); }

ThreadPool::ThreadPool(int threads) : pool_(new rt::ThreadPool(threads)) {}
ThreadPool::~ThreadPool() { delete static_cast<rt::ThreadPool *>(pool_); }
void ThreadPool::parallel_for(void *pool, int64_t count, tract_task_fn task, void *ctx) {
  rt::ThreadPool::parallel_for(static_cast<ThreadPool *>(pool)->pool_, count, task, ctx);
}

} // namespace prebuilt
} // namespace rt
} // namespace tract
#endif
