/* pool.cl: max_pool2d, avg_pool2d, their gradients, max_pool2d_indices
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/pool.c: one kernel per type, the op as an argument. One
 * work-item per output element; the gradients gather, one work-item per
 * input element, visiting the windows that hold it in the order the
 * CPU's scatter adds them (row by row), so the sums are the CPU's bits.
 */

/* As EpCLPool in opencl/pool.c */
typedef struct
{
  long n;
  long batch, channels, height, width;
  long out_height, out_width;
  long kernel_h, kernel_w;
  long stride_h, stride_w;
  long pad_h, pad_w;
  long dilation_h, dilation_w;
  long count_include_pad;
  long nhwc;
  long x_offset, grad_offset;
} EpPool;

/* ep_pool_taps () (ops/ep-pool-private.h) */
inline void
ep_pool_taps (long start, long size, long dilation, long extent, long *first, long *end)
{
  long lo, hi;

  if (dilation == 1)
    {
      lo = start < 0 ? -start : 0;
      hi = extent - start;
    }
  else
    {
      lo = start < 0 ? (-start - 1) / dilation + 1 : 0;
      hi = start < extent ? (extent - 1 - start) / dilation + 1 : 0;
    }
  *first = lo;
  *end = hi < size ? hi : size;
}

/* The window's height and width for avg_pool2d's divisor, PyTorch's:
 * clipped to the padded image, or to the image (avg_divisor () of
 * cpu/pool.c) */
inline void
ep_pool_window (const EpPool *g, long h0, long w0, long *a, long *b)
{
  long h1 = min (h0 + g->kernel_h, g->height + g->pad_h);
  long w1 = min (w0 + g->kernel_w, g->width + g->pad_w);

  if (!g->count_include_pad)
    {
      h1 = min (h1, g->height);
      w1 = min (w1, g->width);
      h0 = max (h0, 0L);
      w0 = max (w0, 0L);
    }
  *a = h1 - h0;
  *b = w1 - w0;
}

/* The element of output position (oh, ow) and the plane's base and
 * pixel stride, by data format, for output element i */
inline void
ep_pool_locate (const EpPool *g, long i, long plane_size, long *base, long *cs, long *oh, long *ow)
{
  long n, c;

  if (g->nhwc)
    {
      c = i % g->channels;
      *ow = (i / g->channels) % g->out_width;
      *oh = (i / (g->channels * g->out_width)) % g->out_height;
      n = i / (g->channels * g->out_width * g->out_height);
      *base = n * plane_size * g->channels + c;
      *cs = g->channels;
    }
  else
    {
      *ow = i % g->out_width;
      *oh = (i / g->out_width) % g->out_height;
      n = i / (g->out_width * g->out_height);
      *base = n * plane_size;
      *cs = 1;
    }
}

#define POOL_KERNEL(T, sfx)                                                 \
inline T                                                                    \
ep_pool_divide_##sfx (const EpPool *g, T value, long h0, long w0)           \
{                                                                           \
  long a, b;                                                                \
                                                                            \
  ep_pool_window (g, h0, w0, &a, &b);                                       \
  if (b != 0 && a > LONG_MAX / b)                                           \
    return value / ((T) a * (T) b);                                         \
  return value / (T) (a * b);                                               \
}                                                                           \
                                                                            \
/* window_argmax () of cpu/pool.c */                                       \
inline long                                                                 \
ep_pool_argmax_##sfx (const EpPool *g, __global const T *x, long cs, long oh, long ow) \
{                                                                           \
  long h0 = oh * g->stride_h - g->pad_h, w0 = ow * g->stride_w - g->pad_w;  \
  long kh0, kh1, kw0, kw1, best = -1;                                       \
  T m = -INFINITY;                                                          \
                                                                            \
  ep_pool_taps (h0, g->kernel_h, g->dilation_h, g->height, &kh0, &kh1);     \
  ep_pool_taps (w0, g->kernel_w, g->dilation_w, g->width, &kw0, &kw1);      \
  for (long kh = kh0; kh < kh1; kh++)                                       \
    for (long kw = kw0; kw < kw1; kw++)                                     \
      {                                                                     \
        long pos = (h0 + kh * g->dilation_h) * g->width + w0 + kw * g->dilation_w; \
        T v = x[pos * cs];                                                  \
                                                                            \
        if (best < 0 || v > m || isnan (v))                                 \
          {                                                                 \
            m = v;                                                          \
            best = pos;                                                     \
          }                                                                 \
      }                                                                     \
  return best;                                                              \
}                                                                           \
                                                                            \
__kernel void                                                               \
pool_##sfx (int op,                                                         \
            __global T *out,                                                \
            __global const T *x_data,                                       \
            __global const T *grad_data,                                    \
            const EpPool g)                                                 \
{                                                                           \
  __global const T *x = x_data + g.x_offset;                                \
  __global const T *grad = grad_data + g.grad_offset;                      \
  long plane = g.height * g.width;                                          \
                                                                            \
  switch (op)                                                               \
    {                                                                       \
    case EP_OP_max_pool2d:                                                  \
    case EP_OP_avg_pool2d:                                                  \
    case EP_OP_max_pool2d_indices:                                          \
      for (long i = get_global_id (0); i < g.n; i += get_global_size (0))   \
        {                                                                   \
          long base, cs, oh, ow, h0, w0, kh0, kh1, kw0, kw1;                \
          __global const T *p;                                              \
                                                                            \
          ep_pool_locate (&g, i, plane, &base, &cs, &oh, &ow);              \
          p = x + base;                                                     \
          if (op == EP_OP_max_pool2d_indices)                               \
            {                                                               \
              ((__global long *) out)[i] = ep_pool_argmax_##sfx (&g, p, cs, oh, ow); \
              continue;                                                     \
            }                                                               \
          h0 = oh * g.stride_h - g.pad_h;                                   \
          w0 = ow * g.stride_w - g.pad_w;                                   \
          ep_pool_taps (h0, g.kernel_h, g.dilation_h, g.height, &kh0, &kh1); \
          ep_pool_taps (w0, g.kernel_w, g.dilation_w, g.width, &kw0, &kw1); \
          if (op == EP_OP_max_pool2d)                                       \
            {                                                               \
              T m = -INFINITY;                                              \
              for (long kh = kh0; kh < kh1; kh++)                           \
                for (long kw = kw0; kw < kw1; kw++)                         \
                  {                                                         \
                    T v = p[((h0 + kh * g.dilation_h) * g.width + w0 + kw * g.dilation_w) * cs]; \
                    m = (v > m || isnan (v)) ? v : m;                       \
                  }                                                         \
              out[i] = m;                                                   \
            }                                                               \
          else                                                              \
            {                                                               \
              T sum = 0;                                                    \
              for (long kh = kh0; kh < kh1; kh++)                           \
                for (long kw = kw0; kw < kw1; kw++)                         \
                  sum += p[((h0 + kh) * g.width + w0 + kw) * cs];           \
              out[i] = kh0 < kh1 && kw0 < kw1 ? ep_pool_divide_##sfx (&g, sum, h0, w0) : 0; \
            }                                                               \
        }                                                                   \
      break;                                                                \
    case EP_OP_max_pool2d_grad:                                             \
    case EP_OP_avg_pool2d_grad:                                             \
      for (long i = get_global_id (0); i < g.n; i += get_global_size (0))   \
        {                                                                   \
          long n, c, ih, iw, xbase, gbase, cs;                              \
          long span_h = (g.kernel_h - 1) * g.dilation_h;                    \
          long span_w = (g.kernel_w - 1) * g.dilation_w;                    \
          long oh0, oh1, ow0, ow1, lo;                                      \
          T acc = 0;                                                        \
                                                                            \
          if (g.nhwc)                                                       \
            {                                                               \
              c = i % g.channels;                                           \
              iw = (i / g.channels) % g.width;                              \
              ih = (i / (g.channels * g.width)) % g.height;                 \
              n = i / (g.channels * plane);                                 \
              xbase = n * plane * g.channels + c;                           \
              gbase = n * g.out_height * g.out_width * g.channels + c;      \
              cs = g.channels;                                              \
            }                                                               \
          else                                                              \
            {                                                               \
              iw = i % g.width;                                             \
              ih = (i / g.width) % g.height;                                \
              n = i / plane;                                                \
              xbase = n * plane;                                            \
              gbase = n * g.out_height * g.out_width;                       \
              cs = 1;                                                       \
            }                                                               \
          /* windows whose span holds (ih, iw): start <= ih <= start + span */ \
          lo = ih + g.pad_h - span_h;                                       \
          oh0 = lo <= 0 ? 0 : (lo + g.stride_h - 1) / g.stride_h;           \
          oh1 = min ((ih + g.pad_h) / g.stride_h + 1, g.out_height);        \
          lo = iw + g.pad_w - span_w;                                       \
          ow0 = lo <= 0 ? 0 : (lo + g.stride_w - 1) / g.stride_w;           \
          ow1 = min ((iw + g.pad_w) / g.stride_w + 1, g.out_width);         \
          for (long oh = oh0; oh < oh1; oh++)                               \
            for (long ow = ow0; ow < ow1; ow++)                             \
              {                                                             \
                long h0 = oh * g.stride_h - g.pad_h, w0 = ow * g.stride_w - g.pad_w; \
                T go = grad[gbase + (oh * g.out_width + ow) * cs];          \
                                                                            \
                if (op == EP_OP_avg_pool2d_grad)                            \
                  acc += ep_pool_divide_##sfx (&g, go, h0, w0);             \
                else if (ep_pool_argmax_##sfx (&g, x + xbase, cs, oh, ow) == ih * g.width + iw) \
                  acc += go;                                                \
              }                                                             \
          out[i] = acc;                                                     \
        }                                                                   \
      break;                                                                \
    }                                                                       \
}

POOL_KERNEL (float, f32)
FP64 (POOL_KERNEL (double, f64))
