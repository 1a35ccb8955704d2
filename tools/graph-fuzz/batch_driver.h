// The graph fuzzer's driver: many tractc models linked into one program.
//
// Building each fuzzed graph as its own program would cost a C++ compile of
// the runtime per graph (about 1.5 s); one translation unit holding a batch of
// models instantiates the runtime's kernels once. The harness
// (differential.py) writes the unit: the models' headers (they define
// tract_tensor_info), this header, then each generated model
// inside a namespace of its own (their internal names repeat), then the table
// kModels. Each run is one process, so a model that crashes takes no other
// with it:
//
//   ./batch NAME DIR [THREADS]
//        reads DIR/input_K.bin (raw, exactly the input's bytes), runs model
//        NAME, writes DIR/NAME.output_K.bin (NAME.tT.output_K.bin with
//        THREADS) and prints "output K DTYPE RANK D0 D1 ..." per output.
//        THREADS > 1 runs NAME_run_threads with a parallel_for that runs the
//        tasks one after the other, last first: the split of each kernel into
//        tasks and their scratch are checked, deterministically.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tract/rt/all.h"

struct FuzzModel {
  const char *name;
  int (*run)(const void *const *inputs, void *const *outputs, void *arena);
  int (*runThreads)(const void *const *inputs, void *const *outputs, void *arena,
                    tract_parallel_for_fn parallelFor, void *pool, int threads);
  const tract_tensor_info *inputs;
  int numInputs;
  const tract_tensor_info *outputs;
  int numOutputs;
  size_t arenaBytes;
  size_t threadScratchBytes; // per thread past the first
  size_t arenaAlign;
};

extern const FuzzModel kModels[];
extern const int kNumModels;

namespace fuzz_driver {

inline bool readExact(const char *path, void *data, size_t bytes) {
  FILE *f = std::fopen(path, "rb");
  if (!f)
    return false;
  size_t got = bytes ? std::fread(data, 1, bytes, f) : 0;
  bool atEnd = std::fgetc(f) == EOF;
  std::fclose(f);
  return got == bytes && atEnd;
}

inline void serialParallelFor(void *, int64_t count, tract_task_fn task, void *ctx) {
  for (int64_t i = count - 1; i >= 0; --i)
    task(ctx, i);
}

inline int runModel(const FuzzModel &m, const char *dir, int threads) {
  const void *inputs[64] = {};
  void *outputs[64] = {};
  if (m.numInputs > 64 || m.numOutputs > 64)
    return 3;
  char path[4096];
  for (int i = 0; i < m.numInputs; ++i) {
    void *data = std::calloc(m.inputs[i].bytes + 1, 1);
    std::snprintf(path, sizeof path, "%s/input_%d.bin", dir, i);
    if (!data || !readExact(path, data, m.inputs[i].bytes)) {
      std::fprintf(stderr, "driver: %s does not hold %zu bytes\n", path, m.inputs[i].bytes);
      return 3;
    }
    inputs[i] = data;
  }
  for (int k = 0; k < m.numOutputs; ++k)
    outputs[k] = std::calloc(m.outputs[k].bytes + 1, 1);
  size_t align = m.arenaAlign ? m.arenaAlign : 64;
  size_t needed = m.arenaBytes + (size_t)(threads - 1) * m.threadScratchBytes;
  size_t arenaBytes = (needed + align - 1) / align * align;
  void *arena = arenaBytes ? std::aligned_alloc(align, arenaBytes) : nullptr;
  int rc = threads > 1 ? m.runThreads(inputs, outputs, arena, serialParallelFor, nullptr, threads)
                       : m.run(inputs, outputs, arena);
  if (rc != 0) {
    std::fprintf(stderr, "driver: the model returned an error\n");
    return 4;
  }
  for (int k = 0; k < m.numOutputs; ++k) {
    const tract_tensor_info &info = m.outputs[k];
    if (threads > 1)
      std::snprintf(path, sizeof path, "%s/%s.t%d.output_%d.bin", dir, m.name, threads, k);
    else
      std::snprintf(path, sizeof path, "%s/%s.output_%d.bin", dir, m.name, k);
    FILE *f = std::fopen(path, "wb");
    if (!f || (info.bytes && std::fwrite(outputs[k], 1, info.bytes, f) != info.bytes))
      return 3;
    std::fclose(f);
    std::printf("output %d %d %d", k, (int)info.dtype, (int)info.rank);
    for (int d = 0; d < info.rank; ++d)
      std::printf(" %lld", (long long)info.shape[d]);
    std::printf("\n");
  }
  return 0;
}

} // namespace fuzz_driver

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s MODEL_NAME DIR [THREADS]\n", argv[0]);
    return 2;
  }
  int threads = argc == 4 ? std::atoi(argv[3]) : 1;
  if (threads < 1 || threads > 64)
    return 2;
  for (int i = 0; i < kNumModels; ++i)
    if (!std::strcmp(kModels[i].name, argv[1]))
      return fuzz_driver::runModel(kModels[i], argv[2], threads);
  std::fprintf(stderr, "driver: no model %s\n", argv[1]);
  return 2;
}
