// tract runtime: ONNX DepthToSpace (DCR and CRD modes) and SpaceToDepth, on
// NCHW tensors. n, c, h, w are always the *input* dims.
#pragma once

#include "tract/rt/common.h"

namespace tract {
namespace rt {

// x [n, c, h, w] -> y [n, c / (b*b), h*b, w*b] with
//   DCR: y[n, oc, h*b + i, w*b + j] = x[n, (i*b + j) * (c/(b*b)) + oc, h, w]
//   CRD: y[n, oc, h*b + i, w*b + j] = x[n, oc*b*b + i*b + j, h, w]
template <class T>
void depth_to_space(const T *x, T *y, int64_t n, int64_t c, int64_t h,
                    int64_t w, int64_t blocksize, bool crd_mode) {
  const int64_t b = blocksize > 0 ? blocksize : 1;
  const int64_t oc_n = c / (b * b);
  const int64_t ow = w * b, hw = h * w;
  for (int64_t bn = 0; bn < n; ++bn)
    for (int64_t oc = 0; oc < oc_n; ++oc)
      for (int64_t hh = 0; hh < h; ++hh)
        for (int64_t i = 0; i < b; ++i) {
          T *yr = y + ((bn * oc_n + oc) * h * b + hh * b + i) * ow;
          for (int64_t j = 0; j < b; ++j) {
            const int64_t ic =
                crd_mode ? oc * b * b + i * b + j : (i * b + j) * oc_n + oc;
            const T *xr = x + (bn * c + ic) * hw + hh * w;
            for (int64_t ww = 0; ww < w; ++ww)
              yr[ww * b + j] = xr[ww];
          }
        }
}

// x [n, c, h, w] -> y [n, c*b*b, h/b, w/b] with
//   y[n, (i*b + j) * c + ic, oh, ow] = x[n, ic, oh*b + i, ow*b + j]
template <class T>
void space_to_depth(const T *x, T *y, int64_t n, int64_t c, int64_t h,
                    int64_t w, int64_t blocksize) {
  const int64_t b = blocksize > 0 ? blocksize : 1;
  const int64_t oh = h / b, ow = w / b;
  for (int64_t bn = 0; bn < n; ++bn)
    for (int64_t i = 0; i < b; ++i)
      for (int64_t j = 0; j < b; ++j)
        for (int64_t ic = 0; ic < c; ++ic) {
          const int64_t oc = (i * b + j) * c + ic;
          for (int64_t hh = 0; hh < oh; ++hh) {
            T *yr = y + ((bn * c * b * b + oc) * oh + hh) * ow;
            const T *xr = x + ((bn * c + ic) * h + hh * b + i) * w + j;
            for (int64_t ww = 0; ww < ow; ++ww)
              yr[ww] = xr[ww * b];
          }
        }
}

} // namespace rt
} // namespace tract
