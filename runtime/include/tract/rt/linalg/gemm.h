// tract runtime: blocked f32 GEMM (BLIS-style) with a fused epilogue.
//
//   C[M x N] = A[M x K] * B[K x N]  (+ per-row bias, then epilogue)
//
// Operands come as *sources* that hand the driver panels of the micro-kernel
// layout (gemm_microkernels.h): A in panels of MR rows (kb x MR), B in panels
// of NR columns (kb x NR), zero-padded past the matrix edge.
//   PackedA / PackedB   packed at compile time over the whole K (weights);
//                       a K block is an offset into each panel, no copy.
//   StridedA / StridedB any strided matrix, packed per block into scratch.
//   Im2colB (conv_gemm.h) gathers convolution taps straight into B panels.
// Blocking: K in blocks of KC (a B block of KC x NC floats, 512 KB, stays in
// L2), the A sliver of MR x KC (16 KB) stays in L1 while the B panels stream
// past. KC/MC/NC were tuned on Zen 4 with bench/gemm (see bench/README.md);
// A packed per block against compile-time weights takes K twice as deep
// (kDeepKC) and B half as wide per sweep.
// Partial sums of earlier K blocks are read back from C; the bias and the
// epilogue run once, on the last K block, on the tile before it is stored.
//
// The epilogue is a functor `void(float *row, int64_t index, int64_t count)`
// that rewrites `count` values of one tile row in place; `index` is the flat
// position of row[0] in the output (c_index0 + row * ldc + column), which is
// how fused element-wise ops find their other operands.
#pragma once

#include "tract/rt/common.h"
#include "tract/rt/elementwise/clip_in_place.h"
#include "tract/rt/linalg/gemm_microkernels.h"
#include "tract/rt/parallel.h"

#include <cstring>
#include <type_traits>

namespace tract {
namespace rt {
namespace gemm {

constexpr int64_t KC = 512;
constexpr int64_t MC = 96;
constexpr int64_t NC = 256;
// K blocks of A packed per block against a B packed at compile time (see
// gemm()).
constexpr int64_t kDeepKC = 2 * KC;

constexpr int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }
constexpr int64_t panels(int64_t n, int64_t width) { return (n + width - 1) / width; }
constexpr int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
constexpr int64_t max64(int64_t a, int64_t b) { return a < b ? b : a; }

// Floats of a whole-K packed A (M x K) or B (K x N).
constexpr int64_t packed_a_floats(int64_t m, int64_t k) { return panels(m, MR) * k * MR; }
constexpr int64_t packed_b_floats(int64_t k, int64_t n) { return panels(n, NR) * k * NR; }

// The depth of gemm()'s K blocks: k split into equal blocks of at most
// `most` (576 = 288 + 288, not 512 + 64: a short last block runs short
// kernels and reads all of C back for little).
constexpr int64_t even_k_block(int64_t k, int64_t most = KC) {
  return k <= most ? max64(k, 1) : (k + panels(k, most) - 1) / panels(k, most);
}

// The shallowest K block a B block packed per block is cut to before it
// loses columns instead: shallower blocks cost more in passes over C than
// they save (SqueezeNet 1.0's 16 -> 64 channel 3x3 conv on 14x14, K 144,
// in blocks of 48: 1.33x the time of 144 deep by 80 columns; 192 deep:
// 1.00x).
constexpr int64_t kMinPackedDepth = 192;

// The K depth and the columns of the B blocks a source packs into scratch.
// A packed block (depth x cols) never outgrows C itself (m x n), so a small
// layer's scratch stays within its own output's size (the arena of a
// microcontroller build is the graph's, not the GEMM's): the K blocks get
// shallower first, down to kMinPackedDepth, and only then the block loses
// columns. Columns cost more on deep layers: A streams once per column
// block, and a block of one panel has no pair or tall kernel (ResNet-18's
// 3x3 stride-2 conv of 256 -> 512 channels onto 7x7, K 2304, the 256 rows
// one of two threads takes: 16-column blocks 527-591 us, all 49 columns in
// K blocks of 192 424-521, runs alternating; the conv in the model at two
// threads 0.73-0.85 -> 0.54-0.66 ms; Zen 5). (`n`: the problem's columns,
// which also decide streams_whole_k.)
struct BlockShape {
  int64_t depth = 0, cols = 0, n = 0;
};
constexpr BlockShape packed_b_block(int64_t m, int64_t n, int64_t k) {
  const int64_t all = round_up(min64(n, NC), NR), c_floats = m * n;
  const int64_t depth = even_k_block(k, max64(kMinPackedDepth, min64(KC, c_floats / all)));
  const int64_t fit = c_floats / depth / NR * NR;
  return {depth, min64(all, fit < NR ? NR : fit), n};
}

// Floats between the B panels a source packs per block (kb rows each): an
// odd number of cache lines. Panels kb * 64 bytes apart put the same row of
// every panel in one L1 set when kb is a multiple of 64 (a packing pass
// writes row p of each panel in turn, and the pair kernel reads two
// panels): 16 streams on a 12-way set, a third of a 64-channel 56x56
// conv's time went to packing its B.
constexpr int64_t packed_panel_stride(int64_t kb) { return (kb | 1) * NR; }

// Whether gemm() takes K whole instead of in blocks of KC: when A is not
// packed per block (weights packed at compile time, or a row read in place)
// and B is one panel (a conv on a 2x2 map). Each row panel of A then
// streams whole, and one panel after the other, front to back through the
// weights: a single stream from DRAM, where K blocks are a short stream per
// panel and block (ResNeXt-50's 8 MB 1x1 convs at 2x2, B read in place:
// 1.06 -> 0.8 ms with the narrow kernel's prefetch; Wide ResNet-50's 9.4 MB
// 3x3 convs at 2x2, B gathered: 15 -> 18.5 GB/s on Zen 5). A gathered B
// panel is then K x NR floats in scratch (a 4608-deep one: 295 KB).
constexpr bool streams_whole_k(bool a_packs_per_block, int64_t n) {
  return !a_packs_per_block && n <= NR;
}

// Scratch floats gemm() needs for the sources that pack per block.
constexpr int64_t scratch_floats(int64_t m, int64_t n, int64_t k, bool packs_a,
                                 bool packs_b) {
  const BlockShape b = packed_b_block(m, n, k);
  // (A packed per block takes K blocks up to kDeepKC deep where B does not
  // pack: gemm()'s kDeepA, or fewer, against a B read in place.)
  const int64_t kb = streams_whole_k(packs_a, n)
                         ? max64(k, 1)
                         : (packs_b ? b.depth : even_k_block(k, packs_a ? kDeepKC : KC));
  return (packs_a ? kb * round_up(min64(m, MC), MR) : 0) +
         (packs_b ? panels(b.cols, NR) * packed_panel_stride(kb) : 0);
}

// A(i, p) = a[i * rs + p * cs] into whole-K MR panels (dst: packed_a_floats).
template <class T>
inline void pack_a(const T *a, int64_t rs, int64_t cs, int64_t m, int64_t k,
                   float *dst) {
  for (int64_t i0 = 0; i0 < m; i0 += MR, dst += k * MR) {
    if (i0 + MR <= m) {
      for (int64_t p = 0; p < k; ++p)
        for (int64_t i = 0; i < MR; ++i)
          dst[p * MR + i] = static_cast<float>(a[(i0 + i) * rs + p * cs]);
      continue;
    }
    // The last, partial panel: zeros, then its rows one at a time (a row
    // test inside the loop vectorised into masked loads that stall on the
    // store of the previous kernel's output: 7 us for a 512-float vector).
    for (int64_t f = 0; f < k * MR; ++f)
      dst[f] = 0.0f;
    for (int64_t i = 0; i < m - i0; ++i)
      for (int64_t p = 0; p < k; ++p)
        dst[p * MR + i] = static_cast<float>(a[(i0 + i) * rs + p * cs]);
  }
}

// B(p, j) = b[p * rs + j * cs] into whole-K NR panels (dst: packed_b_floats).
template <class T>
inline void pack_b(const T *b, int64_t rs, int64_t cs, int64_t k, int64_t n,
                   float *dst) {
  for (int64_t j0 = 0; j0 < n; j0 += NR)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < NR; ++j, ++dst)
        *dst = j0 + j < n ? static_cast<float>(b[p * rs + (j0 + j) * cs]) : 0.0f;
}

// The first panel of a block, the distance between its panels and between
// the rows of one panel (NR when packed).
struct Panels {
  const float *base;
  int64_t stride;
  int64_t row_stride = NR;
  int64_t a_step = MR; // A only: floats between K steps (RowA: its column stride)
};

struct PackedA {
  const float *p;
  int64_t k;
  static constexpr bool kPacks = false;
  static constexpr bool kWholeK = false;
  Panels block(int64_t i0, int64_t, int64_t k0, int64_t, float *) const {
    return {p + (i0 / MR) * k * MR + k0 * MR, k * MR};
  }
  PackedA rows_from(int64_t i0) const { return {p + (i0 / MR) * k * MR, k}; } // i0 % MR == 0
};

// A single row (a matrix-vector product: a fully connected layer at batch
// 1) read where it lies: no packing pass and no scratch, and K is not
// blocked (the row is all the A there is), so a packed B streams through
// once, front to back, instead of in K blocks per panel.
struct RowA {
  const float *a;
  int64_t cs;
  static constexpr bool kPacks = false;
  static constexpr bool kWholeK = true;
  Panels block(int64_t, int64_t, int64_t k0, int64_t, float *) const {
    return {a + k0 * cs, 0, NR, cs};
  }
  RowA rows_from(int64_t) const { return *this; } // one row: never split
};

struct PackedB {
  const float *p;
  int64_t k;
  static constexpr bool kPacks = false;
  static constexpr bool kBlockCols = false;
  Panels block(int64_t j0, int64_t, int64_t k0, int64_t, float *) const {
    return {p + (j0 / NR) * k * NR + k0 * NR, k * NR};
  }
  PackedB cols_from(int64_t j0) const { return {p + (j0 / NR) * k * NR, k}; } // j0 % NR == 0
};

struct StridedA {
  const float *a;
  int64_t rs, cs;
  static constexpr bool kPacks = true;
  static constexpr bool kWholeK = false;
  Panels block(int64_t i0, int64_t mb, int64_t k0, int64_t kb, float *dst) const {
    pack_a(a + i0 * rs + k0 * cs, rs, cs, mb, kb, dst);
    return {dst, kb * MR};
  }
  StridedA rows_from(int64_t i0) const { return {a + i0 * rs, rs, cs}; }
};

// Rows of B ahead of the one StridedB copies that it asks the cache for.
constexpr int64_t kPackAheadRows = 8;

struct StridedB {
  const float *b;
  int64_t rs, cs;
  static constexpr bool kPacks = true;
  static constexpr bool kBlockCols = true;
  StridedB cols_from(int64_t j0) const { return {b + j0 * cs, rs, cs}; }
  Panels block(int64_t j0, int64_t nb, int64_t k0, int64_t kb, float *dst) const {
    const float *src = b + k0 * rs + j0 * cs;
    const int64_t stride = packed_panel_stride(kb);
    if (cs != 1) {
      for (int64_t jp = 0; jp < nb; jp += NR)
        pack_b(src + jp * cs, rs, cs, kb, min64(NR, nb - jp), dst + (jp / NR) * stride);
      return {dst, stride};
    }
    // Rows of B are contiguous: each panel row is a plain copy, row by row
    // (each row read front to back, a line eight rows ahead asked for
    // first: B is often larger than L2); the zero columns of a last partial
    // panel after. Against panel by panel (k strided rows per panel), the
    // two alternating in one process on Zen 5: a 64-row conv's GEMM
    // (64 x 3136 x 576, bench/run-gemm.sh's shape) 0.90-0.96 of the time;
    // 256 x 196 x 2304, 1000 x 169 x 512 and two K = 24 shapes 0.99-1.01.
    const int64_t whole = nb / NR * NR;
    for (int64_t p = 0; p < kb; ++p) {
      const float *row = src + p * rs;
      const float *ahead = p + kPackAheadRows < kb ? row + kPackAheadRows * rs : row;
      for (int64_t jp = 0; jp < whole; jp += NR) {
        __builtin_prefetch(ahead + jp);
        // A fixed-size memcpy: one vector move.
        std::memcpy(dst + (jp / NR) * stride + p * NR, row + jp, sizeof(float) * NR);
      }
    }
    if (whole < nb) {
      float *d = dst + (whole / NR) * stride;
      for (int64_t p = 0; p < kb; ++p) {
        for (int64_t j = nb - whole; j < NR; ++j)
          d[p * NR + j] = 0.0f;
        std::memcpy(d + p * NR, src + p * rs + whole,
                    sizeof(float) * static_cast<size_t>(nb - whole));
      }
    }
    return {dst, stride};
  }
};

// B read where it lies (row-major, row stride ldb): no packing pass. A last
// partial panel is read by the narrow kernel, which reads just its columns
// (8 and the rest when wider than kMaxNarrowCols), in the same pass over A
// as the whole panels. Pays
// when each B panel feeds few row panels or B stays cached (see conv_gemm);
// packing wins for large matrices (contiguous panels prefetch better than
// k strided rows).
struct InPlaceB {
  const float *b;
  int64_t ldb;
  static constexpr bool kPacks = false;
  static constexpr bool kBlockCols = true;
  InPlaceB cols_from(int64_t j0) const { return {b + j0, ldb}; }
  Panels block(int64_t j0, int64_t, int64_t k0, int64_t, float *) const {
    return {b + k0 * ldb + j0, NR, ldb};
  }
};

// Whether a B of contiguous rows `ldb` floats apart (m x n output) is read
// in place (InPlaceB) instead of packed per block (StridedB{b, ldb, 1}): a
// pointwise conv's input, k channel planes of n pixels. In place saves the
// packing pass; packed panels are contiguous, so a panel stays in L1 while
// every A panel sweeps it, where k strided rows of B span twice the cache
// lines. With the AVX-512 pair kernel (two panels' 32 columns per row of B)
// in place wins almost everywhere; elsewhere when few row panels (output
// channels) share each B panel or B is 64 pixels or wider (on a 7x7 map, 49
// columns, packing wins on AVX2). Measured on Zen 4 with the GEMM driver,
// the weights in L3 (m x k x n, in place vs packed, us), AVX-512:
// 96x16x12544 430 vs 449, 144x24x3136 219 vs 228, 576x96x196 198 vs 202,
// 320x960x49 294 vs 314, 320x1152x49 350 vs 380, 1280x320x49 385 vs 389;
// AVX2: 96x576x196 248 vs 265, 320x960x49 443 vs 362, 1280x320x49 581 vs
// 438. On Zen 5, AVX-512, m x n x k: 64x3136x576 0.91 of the packed time,
// 256x196x2304 0.92, 1000x169x512 0.94.
constexpr bool reads_b_in_place(int64_t m, int64_t n, int64_t ldb,
                                bool pair_kernel = kHasPairKernel) {
  // Rows a multiple of 4 KB apart all fall in one L1 set (x86 cores' ways
  // are 4 KB; two sets where a way is 8 KB, as on some ARM cores), so a
  // panel's k rows evict each other while every A panel sweeps them: pack
  // (a 32x32 or 64x64 map's planes).
  // Zen 5, m x n x k, in place / packed: AVX2 64x1024x64 1.65,
  // 128x4096x128 1.73, 64x3072x64 1.77; AVX-512 1.06-1.15. Rows 2 KB apart
  // (two sets) cost 0.91-1.10.
  if (ldb % 1024 == 0)
    return false;
  // A few row panels over a wide map whose input comes from L3 pack after
  // all: the packing pass reads each row 256 columns at a time, where the
  // panel loop reads 64 bytes from each of k rows per panel (EfficientNet's
  // 16x32x12544 projection in the model: 256 -> 209 us packed).
  if (m <= 4 * MR && n >= 4096)
    return false;
  // Fewer pixels than a panel: every tile is the narrow kernel's, which
  // reads just its columns of B where they lie (packing would only pad them
  // with zeros).
  if (n < NR)
    return true;
  return pair_kernel || m <= 8 * MR || n >= 4 * NR;
}

struct NoEpilogue {
  void operator()(float *, int64_t, int64_t) const {}
};

using rt::detail::opaque; // common.h: a count the optimiser cannot see through

// An epilogue whose loop may see a whole tile's count as a constant: its
// loop is marked TRACT_UNROLL(1) (the compiler's generated epilogues), so
// GCC keeps it whole and vectorises 16 floats into one vector operation,
// with none of the checks and remainder a run-time count takes (opaque).
// Unmarked, GCC would unroll such a loop before vectorising it and run a
// fused ReLU as 16 scalar branches. A bias add and ReLU in 16-float calls:
// 0.11 -> 0.085 ns per float on a Sapphire Rapids class Xeon.
template <class F> struct KnownCountEpilogue {
  F f;
  template <class T> void operator()(T *v, int64_t i0, int64_t count) const { f(v, i0, count); }
};
template <class F> KnownCountEpilogue<F> known_count(F f) { return KnownCountEpilogue<F>{f}; }
template <class E> struct TakesKnownCount : std::false_type {};
template <class F> struct TakesKnownCount<KnownCountEpilogue<F>> : std::true_type {};

// Adds the earlier K blocks' partial sums, then (after the last block) the
// bias and the epilogue, and stores `rows` x `cols` of the tile to C. Cols is
// the compile-time NR for whole tiles, so every row loop is a vector op.
template <int64_t kCols, class Epi>
inline void finish_tile(float *tile, int64_t rows, int64_t cols_rt, float *c,
                        int64_t ldc, int64_t index, bool first, bool last,
                        const float *bias, const Epi &epi) {
  const int64_t cols = kCols ? kCols : cols_rt;
  // C is only touched through memcpy: the compiler cannot tell C from the
  // tile apart, and element loops over both would be scalarised.
  const size_t bytes = sizeof(float) * static_cast<size_t>(cols);
  for (int64_t r = 0; r < rows; ++r) {
    float *t = tile + r * NR;
    float *dst = c + r * ldc;
    if (!first) {
      float prev[NR];
      std::memcpy(prev, dst, bytes);
      for (int64_t j = 0; j < cols; ++j)
        t[j] += prev[j];
    }
    if (last) {
      if (bias) {
        const float b = bias[r];
        for (int64_t j = 0; j < cols; ++j)
          t[j] += b;
      }
      if constexpr (kCols != 0 && TakesKnownCount<Epi>::value)
        epi(t, index + r * ldc, kCols);
      else
        epi(t, index + r * ldc, opaque(cols));
    }
    std::memcpy(dst, t, bytes);
  }
}

// Epilogues the pair kernels apply in registers (nothing, or a clip: a
// conv's ReLU or ReLU6): whole tiles of the last K block are then stored to
// C by the micro-kernels themselves, earlier blocks' sums and the bias added
// (TileStore). The K blocks before the last store their sums straight into
// C whatever the epilogue (nothing to apply yet).
template <class Epi>
constexpr bool kStoresDirect =
    kHasPairKernel && (std::is_same<Epi, NoEpilogue>::value || kClipsInTiles<Epi>);
template <class Epi>
TileStore direct_store(int64_t ldc, const float *bias, const Epi &epi, bool first, bool last) {
  TileStore st;
  st.ldt = ldc;
  st.accumulate = !first;
  if (!last)
    return st;
  st.bias = bias;
  if constexpr (kClipsInTiles<Epi>) {
    st.clip = true;
    st.lo = epi.lo;
    st.hi = epi.hi;
  }
  return st;
}

// Row panels up to this many per A block take the B panel loop outside.
constexpr int64_t kFewRowPanels = 4;

// C (row stride ldc) = A * B + row_bias, then epi. `scratch` holds
// scratch_floats(m, n, k, ASrc::kPacks, BSrc::kPacks) floats, or, with
// `blocks` given, those of the problem `blocks` was computed for (a task's
// share of gemm_parallel's problem blocks as the whole problem does).
template <class ASrc, class BSrc, class Epi>
void gemm(int64_t m, int64_t n, int64_t k, const ASrc &a, const BSrc &b,
          float *c, int64_t ldc, int64_t c_index0, const float *row_bias,
          const Epi &epi, float *scratch, BlockShape blocks = BlockShape{}) {
  if (m <= 0 || n <= 0)
    return;
  if (blocks.depth == 0)
    blocks = packed_b_block(m, n, k);
  // A prepacked B needs no column blocks: one pass over all of it per A
  // block packs A once (not once per block of columns). B read in place is
  // taken NC columns at a time, so each block stays in cache while all the
  // row panels sweep it.
  const int64_t all = round_up(n, NR);
  const int64_t nc = BSrc::kPacks ? blocks.cols : (BSrc::kBlockCols ? min64(all, NC) : all);
  // K blocks of equal depth (even_k_block; packed_b_block's when B packs),
  // or K whole (streams_whole_k).
  const bool whole_k = ASrc::kWholeK || streams_whole_k(ASrc::kPacks, blocks.n);
  // A packed per block against weights packed at compile time (a Linear
  // layer on a batch of rows): K in blocks of up to kDeepKC, the B block
  // swept half as many columns at a time (kb x NC / 2 floats, as many
  // bytes as KC x NC). The sums of fewer K blocks go through C fewer times
  // (Zen 5, against blocks of KC: 1024^3 0.96 of the time, 128 x 4096 x
  // 1024 0.94, 1024 x 1024 x 768 0.94 with AVX-512; 0.88-0.97 with AVX2;
  // K of KC or less unchanged).
  constexpr bool kDeepA = ASrc::kPacks && !BSrc::kPacks && !BSrc::kBlockCols;
  const int64_t kcb = whole_k ? max64(k, 1)
                              : (BSrc::kPacks ? blocks.depth
                                              : even_k_block(k, kDeepA ? kDeepKC : KC));
  float *b_scratch = scratch;
  float *a_scratch = scratch + (BSrc::kPacks ? panels(nc, NR) * packed_panel_stride(kcb) : 0);
  alignas(64) float tile[MR * NR];
  for (int64_t jc = 0; jc < n; jc += nc) {
    const int64_t nb = min64(nc, n - jc);
    for (int64_t kc = 0; kc < k || kc == 0; kc += kcb) {
      const int64_t kb = min64(kcb, k - kc);
      const bool first = kc == 0, last = kc + kb >= k;
      // The pair kernels store their accumulators straight into C, adding
      // what earlier K blocks left there: no round trip through a tile
      // buffer, which with a short K cost about as much as the FMAs
      // (Winograd's products, 1x1 convs of few channels); with K in blocks,
      // the last block only where the kernels apply the epilogue (Zen 5,
      // against the tile buffer for every block: 256 x 196 x 2304 0.97 of
      // the time, 64 x 3136 x 576 and 1024^3 0.99, bit for bit the same).
      const bool direct = kHasPairKernel && (!last || kStoresDirect<Epi>);
      const Panels bp = b.block(jc, nb, kc, kb, b_scratch);
      for (int64_t ic = 0; ic < m; ic += MC) {
        const int64_t mb = min64(MC, m - ic);
        const Panels ap = a.block(ic, mb, kc, kb, a_scratch);
        auto tile_at = [&](int64_t ir, int64_t jr) {
          const int64_t rows = min64(MR, mb - ir), cols = min64(NR, nb - jr);
          const float *apanel = ap.base + (ir / MR) * ap.stride;
          if (!first) // the partial sums to add: fetch them during the FMAs
            for (int64_t r = 0; r < rows; ++r)
              __builtin_prefetch(c + (ic + ir + r) * ldc + jc + jr);
          const float *bpanel = bp.base + (jr / NR) * bp.stride;
          const int64_t ldb = bp.row_stride;
          // (The narrow kernel first: it reads only its columns of B, which
          // lets InPlaceB end in a partial panel.)
          // (A row read in place, RowA, has no 8-row panel: the narrow and
          // full kernels would read 7 rows past it.)
          if (!ASrc::kWholeK && cols <= kMaxNarrowCols)
            micro_kernel_narrow(cols, kb, apanel, bpanel, tile, ldb);
          else if (!ASrc::kWholeK && std::is_same<BSrc, InPlaceB>::value && cols < NR &&
                   kHasNarrowPairKernel) {
            // (One panel as a pair with itself: the sums of the pair and quad
            // kernels that take the other rows, bit for bit. As 8 columns
            // and the rest, the rest's columns would be summed in another
            // order, so a row's output would depend on the thread split.)
            alignas(64) float unused[MR * NR];
            micro_kernel_narrow_pair(cols, kb, apanel, apanel, bpanel, tile, unused, ldb);
          } else if (!ASrc::kWholeK && std::is_same<BSrc, InPlaceB>::value && cols < NR) {
            micro_kernel_narrow(kMaxNarrowCols, kb, apanel, bpanel, tile, ldb);
            micro_kernel_narrow(cols - kMaxNarrowCols, kb, apanel, bpanel + kMaxNarrowCols,
                                tile + kMaxNarrowCols, ldb);
          } else if (!ASrc::kWholeK && rows == 1)
            micro_kernel_rows<1>(kb, apanel, bpanel, tile, ldb);
          else if (ASrc::kWholeK && ap.a_step == 1)
            micro_kernel_rows<1, 1>(kb, apanel, bpanel, tile, ldb);
          else if (ASrc::kWholeK)
            micro_kernel_rows<1, 0>(kb, apanel, bpanel, tile, ldb, ap.a_step);
          else if (rows == 2)
            micro_kernel_rows<2>(kb, apanel, bpanel, tile, ldb);
          else
            micro_kernel(kb, apanel, bpanel, tile, ldb);
          const int64_t row0 = ic + ir, col0 = jc + jr;
          if (cols == NR)
            finish_tile<NR>(tile, rows, NR, c + row0 * ldc + col0, ldc,
                            c_index0 + row0 * ldc + col0, first, last,
                            row_bias ? row_bias + row0 : nullptr, epi);
          else
            finish_tile<0>(tile, rows, cols, c + row0 * ldc + col0, ldc,
                           c_index0 + row0 * ldc + col0, first, last,
                           row_bias ? row_bias + row0 : nullptr, epi);
        };
        // Whole row panels take pairs of whole column panels at once
        // (micro_kernel_pair) up to `paired` columns.
        auto paired_end = [&](int64_t j0, int64_t j1) {
          return kHasPairKernel ? j0 + (j1 - j0) / (2 * NR) * (2 * NR) : j0;
        };
        auto pair_at = [&](int64_t ir, int64_t jr) {
          if (mb - ir < MR) {
            tile_at(ir, jr);
            tile_at(ir, jr + NR);
            return;
          }
          alignas(64) float tile1[MR * NR];
          const int64_t row0 = ic + ir, col0 = jc + jr;
          if (!first) // the partial sums to add: fetch them during the FMAs
            for (int64_t r = 0; r < MR; ++r)
              __builtin_prefetch(c + (row0 + r) * ldc + col0);
          if (direct) {
            float *to = c + row0 * ldc + col0;
            micro_kernel_pair(
                kb, ap.base + (ir / MR) * ap.stride, bp.base + (jr / NR) * bp.stride, bp.stride,
                to, to + NR, bp.row_stride,
                direct_store(ldc, row_bias ? row_bias + row0 : nullptr, epi, first, last));
            return;
          }
          micro_kernel_pair(kb, ap.base + (ir / MR) * ap.stride, bp.base + (jr / NR) * bp.stride,
                            bp.stride, tile, tile1, bp.row_stride);
          const float *bias0 = row_bias ? row_bias + row0 : nullptr;
          finish_tile<NR>(tile, MR, NR, c + row0 * ldc + col0, ldc, c_index0 + row0 * ldc + col0,
                          first, last, bias0, epi);
          finish_tile<NR>(tile1, MR, NR, c + row0 * ldc + col0 + NR, ldc,
                          c_index0 + row0 * ldc + col0 + NR, first, last, bias0, epi);
        };
        // Three whole row panels as two tall tiles of 12 rows per pair of
        // column panels (micro_kernel_tall_pair: B read a third less).
        // (first_cols: the first tiles of these row panels, which fetch the
        // next three panels' A when A is read where it lies, weights packed
        // at compile time, and there are three more in this block.)
        auto tall_pairs_at = [&](int64_t ir, int64_t jr, bool first_cols) {
          alignas(64) float tile0[kTallRows * NR], tile1[kTallRows * NR];
          const float *a0 = ap.base + (ir / MR) * ap.stride;
          const float *b0 = bp.base + (jr / NR) * bp.stride;
          const float *next = !ASrc::kPacks && first_cols && ir + 6 * MR <= mb
                                  ? a0 + 3 * ap.stride
                                  : nullptr;
          for (int64_t half = 0; half < 2; ++half) {
            const int64_t row0 = ic + ir + half * kTallRows, col0 = jc + jr;
            if (!first)
              for (int64_t r = 0; r < kTallRows; ++r) {
                __builtin_prefetch(c + (row0 + r) * ldc + col0);
                __builtin_prefetch(c + (row0 + r) * ldc + col0 + NR);
              }
            if (direct) {
              float *to = c + row0 * ldc + col0;
              const TileStore st = direct_store(ldc, row_bias ? row_bias + row0 : nullptr, epi,
                                                first, last);
              if (half == 0)
                micro_kernel_tall_pair<0>(kb, a0, a0 + ap.stride, b0, bp.stride, to, to + NR,
                                          bp.row_stride, next, ap.stride, st);
              else
                micro_kernel_tall_pair<kTallRows - MR>(kb, a0 + ap.stride, a0 + 2 * ap.stride,
                                                       b0, bp.stride, to, to + NR,
                                                       bp.row_stride, nullptr, 0, st);
              continue;
            }
            if (half == 0)
              micro_kernel_tall_pair<0>(kb, a0, a0 + ap.stride, b0, bp.stride, tile0, tile1,
                                        bp.row_stride, next, ap.stride);
            else
              micro_kernel_tall_pair<kTallRows - MR>(kb, a0 + ap.stride, a0 + 2 * ap.stride, b0,
                                                     bp.stride, tile0, tile1, bp.row_stride);
            const float *bias0 = row_bias ? row_bias + row0 : nullptr;
            finish_tile<NR>(tile0, kTallRows, NR, c + row0 * ldc + col0, ldc,
                            c_index0 + row0 * ldc + col0, first, last, bias0, epi);
            finish_tile<NR>(tile1, kTallRows, NR, c + row0 * ldc + col0 + NR, ldc,
                            c_index0 + row0 * ldc + col0 + NR, first, last, bias0, epi);
          }
        };
        // A last column panel the narrow kernels take (8 columns or fewer;
        // read in place, any fewer than NR): two whole row panels at once
        // where the target has micro_kernel_narrow_pair.
        const int64_t tail_cols = nb % NR;
        const bool narrow_tail =
            kHasNarrowPairKernel && !ASrc::kWholeK && tail_cols > 0 &&
            (tail_cols <= kMaxNarrowCols || std::is_same<BSrc, InPlaceB>::value);
        const int64_t whole_end = nb - tail_cols;
        auto narrow_rows_at = [&](int64_t ir) {
          alignas(64) float tile1[MR * NR];
          const int64_t row0 = ic + ir, col0 = jc + whole_end;
          if (!first)
            for (int64_t r = 0; r < 2 * MR; ++r)
              __builtin_prefetch(c + (row0 + r) * ldc + col0);
          const float *a0 = ap.base + (ir / MR) * ap.stride, *a1 = a0 + ap.stride;
          const float *b0 = bp.base + (whole_end / NR) * bp.stride;
          micro_kernel_narrow_pair(tail_cols, kb, a0, a1, b0, tile, tile1, bp.row_stride);
          const float *bias0 = row_bias ? row_bias + row0 : nullptr;
          finish_tile<0>(tile, MR, tail_cols, c + row0 * ldc + col0, ldc,
                         c_index0 + row0 * ldc + col0, first, last, bias0, epi);
          finish_tile<0>(tile1, MR, tail_cols, c + (row0 + MR) * ldc + col0, ldc,
                         c_index0 + (row0 + MR) * ldc + col0, first, last,
                         bias0 ? bias0 + MR : nullptr, epi);
        };
        // Four row panels at once where the target has
        // micro_kernel_narrow_quad and the tail is narrow enough.
        auto narrow_quad_at = [&](int64_t ir) {
          alignas(64) float tiles[4][MR * NR];
          float *const tile_ptrs[4] = {tiles[0], tiles[1], tiles[2], tiles[3]};
          const int64_t row0 = ic + ir, col0 = jc + whole_end;
          if (!first)
            for (int64_t r = 0; r < 4 * MR; ++r)
              __builtin_prefetch(c + (row0 + r) * ldc + col0);
          micro_kernel_narrow_quad(tail_cols, kb, ap.base + (ir / MR) * ap.stride, ap.stride,
                                   bp.base + (whole_end / NR) * bp.stride, tile_ptrs,
                                   bp.row_stride);
          for (int64_t h = 0; h < 4; ++h) {
            const int64_t r0 = row0 + h * MR;
            finish_tile<0>(tiles[h], MR, tail_cols, c + r0 * ldc + col0, ldc,
                           c_index0 + r0 * ldc + col0, first, last,
                           row_bias ? row_bias + r0 : nullptr, epi);
          }
        };
        auto narrow_tail_at = [&]() {
          int64_t ir = 0;
          if (kHasNarrowQuadKernel && tail_cols <= kMaxQuadCols)
            for (; mb - ir >= 4 * MR; ir += 4 * MR)
              narrow_quad_at(ir);
          for (; mb - ir >= 2 * MR; ir += 2 * MR)
            narrow_rows_at(ir);
          for (; ir < mb; ir += MR)
            tile_at(ir, whole_end);
        };
        if (mb <= kFewRowPanels * MR) {
          // Few row panels (a 16-channel projection): each B panel feeds
          // all of them while it is in L1, instead of B streaming past once
          // per row panel (from L3 when B is read in place and large). Pairs
          // of B panels where the target has the pair kernel (two cache
          // lines of each B row at once): SqueezeNet's squeeze convs, 16 x
          // 3025 x 128 and 32 x 729 x 256 read in place, 104 -> 88 and 98 ->
          // 84 us alone on a Sapphire Rapids class Xeon; a 16-channel
          // projection at 112 x 112, packed (16 x 12544 x 32), 177 -> 158.
          // (On Zen 4, before B was packed panel by panel, single panels
          // had measured faster there: 0.25 -> 0.30 ms paired.)
          const int64_t cols_end = narrow_tail ? whole_end : nb;
          const int64_t pairs = paired_end(0, cols_end);
          for (int64_t jr = 0; jr < pairs; jr += 2 * NR)
            for (int64_t ir = 0; ir < mb; ir += MR)
              pair_at(ir, jr);
          for (int64_t jr = pairs; jr < cols_end; jr += NR)
            for (int64_t ir = 0; ir < mb; ir += MR)
              tile_at(ir, jr);
          if (narrow_tail)
            narrow_tail_at();
        } else {
          // A prepacked B is not blocked by columns above (A is packed
          // once per block), so its columns are taken NC at a time here:
          // the row panels sweep a B block that stays in L2 with A's
          // (1024^3: 2 MB of B streamed from L3 once per row panel before).
          const int64_t sweep = BSrc::kPacks || BSrc::kBlockCols ? nb : (kcb > KC ? NC / 2 : NC);
          const int64_t cols_end = narrow_tail ? whole_end : nb;
          for (int64_t j0 = 0; j0 < cols_end; j0 += sweep) {
            const int64_t j1 = min64(cols_end, j0 + sweep), pairs = paired_end(j0, j1);
            int64_t ir = 0;
            if constexpr (kHasTallKernel && !ASrc::kWholeK)
              for (; mb - ir >= 3 * MR; ir += 3 * MR) {
                for (int64_t jr = j0; jr < pairs; jr += 2 * NR)
                  tall_pairs_at(ir, jr, jr == 0);
                for (int64_t r = ir; r < ir + 3 * MR; r += MR)
                  for (int64_t jr = pairs; jr < j1; jr += NR)
                    tile_at(r, jr);
              }
            for (; ir < mb; ir += MR) {
              for (int64_t jr = j0; jr < pairs; jr += 2 * NR)
                pair_at(ir, jr);
              for (int64_t jr = pairs; jr < j1; jr += NR)
                tile_at(ir, jr);
            }
          }
          if (narrow_tail)
            narrow_tail_at();
        }
      }
      if (k == 0)
        break;
    }
  }
}

// gemm() split over par.threads tasks, by column panels or by row panels:
// each task reads all of the operand the split does not cut, so the larger
// one is cut (by columns, each task packs only its own B). A 1x1 conv on a
// 7x7 map with 1280 x 320 weights was cut into 32 + 17 columns: both cores
// streamed all 1.6 MB of weights, one of them twice as long as the other.
// Task t uses par.scratch_of(t, scratch), each sized for the whole problem,
// and blocks its share as the whole problem would (the K blocks as deep).
template <class ASrc, class BSrc, class Epi>
void gemm_parallel(const Parallel &par, int64_t m, int64_t n, int64_t k, const ASrc &a,
                   const BSrc &b, float *c, int64_t ldc, int64_t c_index0,
                   const float *row_bias, const Epi &epi, float *scratch) {
  const int64_t col_panels = panels(n, NR), row_panels = panels(m, MR);
  if (!par.parallel_for || par.threads <= 1 || (col_panels < 2 && row_panels < 2) ||
      m * n * k < kMinParallelWork) {
    gemm(m, n, k, a, b, c, ldc, c_index0, row_bias, epi, scratch);
    return;
  }
  const BlockShape blocks = packed_b_block(m, n, k);
  if (row_panels < 2 || (col_panels >= 2 && n >= m)) {
    const int64_t tasks = min64(par.threads, col_panels);
    run_tasks(par, tasks, [&](int64_t t) {
      const int64_t j0 = col_panels * t / tasks * NR;
      const int64_t j1 = min64(n, col_panels * (t + 1) / tasks * NR);
      gemm(m, j1 - j0, k, a, b.cols_from(j0), c + j0, ldc, c_index0 + j0, row_bias, epi,
           par.scratch_of(t, scratch), blocks);
    });
    return;
  }
  const int64_t tasks = min64(par.threads, row_panels);
  run_tasks(par, tasks, [&](int64_t t) {
    const int64_t i0 = row_panels * t / tasks * MR;
    const int64_t i1 = min64(m, row_panels * (t + 1) / tasks * MR);
    gemm(i1 - i0, n, k, a.rows_from(i0), b, c + i0 * ldc, ldc, c_index0 + i0 * ldc,
         row_bias ? row_bias + i0 : nullptr, epi, par.scratch_of(t, scratch), blocks);
  });
}

} // namespace gemm
} // namespace rt
} // namespace tract
