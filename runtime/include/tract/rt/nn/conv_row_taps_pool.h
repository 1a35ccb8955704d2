// tract runtime: a network's first conv (conv_row_taps) and the max pool
// that is the only reader of its output, in one pass.
//
// CNN stems are conv -> ReLU -> 3x3 stride-2 max pool (ResNet, SqueezeNet,
// ShuffleNet, DenseNet, GoogLeNet). The conv's output is the largest tensor
// of such a network (64 x 112 x 112 floats: 3.2 MB, more than L2), written
// once and read once by the pool: both passes ran at memory speed. Here each
// conv output row (all channels) goes into a ring of as many rows as the
// pool window is tall, and each pooled row is computed as soon as its window
// rows are in the ring: the conv's output never leaves L2 and takes no arena.
// The conv rows are conv_row_taps' own (RowTapsRows) and the pooled rows
// max_pool's (stage_window_max, emit_pooled_row), so the outputs are those of
// the two kernels run one after the other, bit for bit.
#pragma once

#include "tract/rt/nn/conv_row_taps.h"
#include "tract/rt/nn/pool_ref.h"

namespace tract {
namespace rt {

// Whether conv_row_taps_max_pool takes conv p followed by max pool pp over
// its output: an ungrouped conv conv_row_taps takes, a 1-d or 2-d pool of the same rank
// over exactly the conv's output without dilation, whose rows fit the pool's
// staged row (max_pool_rows_floats_fit).
inline bool conv_row_taps_max_pool_fits(const ConvParams &p, const PoolParams &pp) {
  if (!conv_row_taps_fits(p) || p.groups > 1 || pp.spatial_rank != p.spatial_rank ||
      pp.batch_channels != p.batch * p.out_channels)
    return false;
  const detail::Conv4 q = detail::conv4(p);
  const detail::Pool4 r = detail::pool4(pp);
  for (int d = 0; d < 4; ++d)
    if (r.in[d] != q.out[d] || r.dil[d] != 1)
      return false;
  return detail::is_rows_pool(r) && detail::max_pool_rows_floats_fit(r);
}

// Scratch floats per task: conv_row_taps' staged input rows, then the ring of
// conv output rows (pool window height x channels x row).
inline int64_t conv_row_taps_max_pool_scratch_floats(const ConvParams &p, const PoolParams &pp) {
  const detail::Conv4 q = detail::conv4(p);
  return conv_row_taps_scratch_floats(p) + detail::pool4(pp).ker[2] * p.out_channels * q.out[3];
}

namespace detail {

// The pooled rows of one output row of the pool, channel after channel,
// from the conv rows of its window (rows(c, i): the window's row i of
// channel c, n of them). Where there are vector registers, max_pool's own
// row kernel: each channel's window staged once, then emitted after the
// next channel's is staged (two staged rows alternate, as in
// max_pool_rows_floats); elsewhere max_pool's scalar row kernel
// (max_pool_row_of). done(c) after channel c's row is stored.
class PooledRows {
public:
  explicit PooledRows(const Pool4 &r) : r_(r) {
#if defined(TRACT_RT_POOL_VECTOR_ROWS)
    for (float &v : staged_[0])
      v = lowest_or_neg_inf<float>();
    for (float &v : staged_[1])
      v = lowest_or_neg_inf<float>();
#endif
  }

  template <class Rows, class Out, class Done>
  void run(int64_t channels, int64_t n, const Rows &rows, const Out &out, const Done &done) {
    const float *win[kMaxPoolVectorRows];
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t i = 0; i < n; ++i)
        win[i] = rows(c, i);
#if defined(TRACT_RT_POOL_VECTOR_ROWS)
      stage_window_max(win, n, r_.in[3], staged_[c & 1] + r_.pb[3]);
      if (c > 0) {
        emit_pooled_row(staged_[(c - 1) & 1], out(c - 1), r_);
        done(c - 1);
      }
#else
      max_pool_row_of([&](const auto &f) {
        for (int64_t i = 0; i < n; ++i)
          f(win[i]);
      }, out(c), r_, folded_);
      done(c);
#endif
    }
#if defined(TRACT_RT_POOL_VECTOR_ROWS)
    if (channels > 0) {
      emit_pooled_row(staged_[(channels - 1) & 1], out(channels - 1), r_);
      done(channels - 1);
    }
#endif
  }

private:
  Pool4 r_;
#if defined(TRACT_RT_POOL_VECTOR_ROWS)
  float staged_[2][kMaxPoolStagedFloats];
#else
  float folded_[kMaxPoolRowElements];
#endif
};

} // namespace detail

// y (the pool's output, NCHW) = max_pool(epi(conv(x, w) + bias)), then
// pool_epi on each pooled row. epi gets each conv output row with its index
// in the conv's (never stored) output, as conv_row_taps gives it (a
// ClipEpilogue is applied in the conv's tiles instead); pool_epi
// gets each pooled row with its index in y. Pooled rows are split over
// par.threads tasks (a task recomputes the conv rows its first window shares
// with the previous task's last). Scratch:
// conv_row_taps_max_pool_scratch_floats per task. Must fit
// (conv_row_taps_max_pool_fits).
template <class Epi, class PoolEpi>
void conv_row_taps_max_pool(const float *x, const float *w, const float *bias, float *y,
                            const ConvParams &p, const PoolParams &pp, const Epi &epi,
                            const PoolEpi &pool_epi, float *scratch,
                            const Parallel &par = Parallel{}) {
  const detail::Conv4 q = detail::conv4(p);
  const detail::Pool4 r = detail::pool4(pp);
  const int64_t cout = p.out_channels, oh_n = q.out[2], ow_n = q.out[3], oplane = q.out_plane;
  const int64_t ph_n = r.out[2], pw_n = r.out[3], pplane = r.out_ps;
  const int64_t ring_rows = r.ker[2], row_floats = cout * ow_n;
  const int64_t units = p.batch * ph_n;
  const int64_t tasks = detail::row_taps_tasks(p, par, units);
  run_tasks(par, tasks, [&](int64_t task) {
    float *own = par.scratch_of(task, scratch);
    float *ring = own + conv_row_taps_scratch_floats(p);
    detail::RowTapsRows rows(x, w, bias, p, own);
    detail::PooledRows pooled(r);
    // Conv rows up to next_oh of image ring_b are in the ring (the last
    // ring_rows of them).
    int64_t ring_b = -1, next_oh = 0;
    for (int64_t u = units * task / tasks; u < units * (task + 1) / tasks; ++u) {
      const int64_t b = u / ph_n, ph = u % ph_n, first = ph * r.st[2] - r.pb[2];
      const int64_t lo = first > 0 ? first : 0;
      const int64_t hi = first + r.ker[2] < oh_n ? first + r.ker[2] : oh_n;
      if (b != ring_b || next_oh < lo) {
        ring_b = b;
        next_oh = lo;
      }
      for (; next_oh < hi; ++next_oh) {
        float *dst = ring + (next_oh % ring_rows) * row_floats;
        rows.compute(b, next_oh, dst, ow_n, lane_clip_of(epi));
        if constexpr (!kClipsInTiles<Epi>)
          for (int64_t c = 0; c < cout; ++c)
            epi(dst + c * ow_n, (b * cout + c) * oplane + next_oh * ow_n, detail::opaque(ow_n));
      }
      const int64_t n = hi > lo ? hi - lo : 0;
      auto out = [&](int64_t c) { return y + (b * cout + c) * pplane + ph * pw_n; };
      pooled.run(
          cout, n,
          [&](int64_t c, int64_t i) {
            return ring + ((lo + i) % ring_rows) * row_floats + c * ow_n;
          },
          out, [&](int64_t c) { pool_epi(out(c), out(c) - y, detail::opaque(pw_n)); });
    }
  });
}

} // namespace rt
} // namespace tract
