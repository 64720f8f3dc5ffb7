/* cpu/pool.c: max_pool2d, avg_pool2d, their gradients, max_pool2d_indices
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Inputs are contiguous (infer asks). NCHW runs one image plane (n, c)
 * at a time, a window's taps in order, as PyTorch's CPU kernels do, so
 * sums and argmax ties come out the same. NHWC runs one output pixel at
 * a time with the channels innermost (contiguous, vectorized). Work is
 * split between threads by planes (NCHW), output rows (NHWC forward) or
 * images (NHWC gradients, whose windows overlap across rows); every
 * output element is computed by one thread in one order, so results do
 * not depend on the thread count.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ep-cpu-loops-private.h"
#include "ep-cpu-private.h"
#include "ep-pool-private.h"

typedef struct
{
  EpPoolGeometry g;
  const guint8  *x;          /* the input (images, or the gradient) */
  const guint8  *grad;       /* max_pool2d_grad: the output's gradient */
  guint8        *out;
  gint64         n_items;
  gint64         per_task;
  gpointer       item;       /* PoolItemFunc */
} PoolJob;

typedef void (*PoolItemFunc) (const PoolJob *job,
                              gint64         item);

static void
run_task (gpointer data,
          guint    index)
{
  const PoolJob *job = data;
  gint64 start = (gint64) index * job->per_task;
  gint64 end = MIN (start + job->per_task, job->n_items);

  for (gint64 i = start; i < end; i++)
    ((PoolItemFunc) job->item) (job, i);
}

/* Runs @item over @n_items items of about @cost elements' work each */
static void
run_items (PoolJob      *job,
           PoolItemFunc  item,
           gint64        n_items,
           gdouble       cost)
{
  gdouble total = (gdouble) n_items * cost;

  job->item = (gpointer) item;
  job->n_items = n_items;
  if (total < EP_CPU_PARALLEL_MIN || n_items < 2)
    job->per_task = n_items;
  else
    job->per_task = (gint64) MAX (1.0, ceil (EP_CPU_GRAIN / MAX (cost, 1.0)));
  if (n_items / job->per_task >= G_MAXUINT)
    job->per_task = n_items / (G_MAXUINT / 2) + 1;
  if (n_items > 0)
    ep_cpu_parallel_for ((guint) ((n_items + job->per_task - 1) / job->per_task), run_task, job);
}

/* The work of one output element: its taps inside the image, at most */
static gdouble
window_cost (const EpPoolGeometry *g)
{
  return (gdouble) MIN (g->kernel_h, g->height) * (gdouble) MIN (g->kernel_w, g->width);
}

/* The divisor of avg_pool2d's window starting at (@h0, @w0), PyTorch's:
 * the window clipped to the padded image, or to the image */
static gdouble
avg_divisor (const EpPoolGeometry *g,
             gint64                h0,
             gint64                w0)
{
  gint64 h1 = MIN (h0 + g->kernel_h, g->height + g->pad_h);
  gint64 w1 = MIN (w0 + g->kernel_w, g->width + g->pad_w);

  if (!g->count_include_pad)
    {
      h1 = MIN (h1, g->height);
      w1 = MIN (w1, g->width);
      h0 = MAX (h0, 0);
      w0 = MAX (w0, 0);
    }
  /* exact as long as it can be (kernels/pool.cl divides alike) */
  if (w1 - w0 != 0 && h1 - h0 > G_MAXINT64 / (w1 - w0))
    return (gdouble) (h1 - h0) * (gdouble) (w1 - w0);
  return (gdouble) ((h1 - h0) * (w1 - w0));
}

/* The column taps kw that land inside the image for some output
 * column: @kw0 up to @kw1 (bounded by the image, whatever the kernel) */
static inline void
column_taps (const EpPoolGeometry *g,
             gint64               *kw0,
             gint64               *kw1)
{
  gint64 last = (g->out_width - 1) * g->stride_w;

  *kw0 = g->pad_w <= last ? 0 : (g->pad_w - last - 1) / g->dilation_w + 1;
  *kw1 = MIN (g->kernel_w, (g->width - 1 + g->pad_w) / g->dilation_w + 1);
}

/* The output columns in [@ow0, @ow1) whose tap at @off (kw * dilation -
 * padding) lands inside the image: @lo up to @hi */
static inline void
tap_columns (const EpPoolGeometry *g,
             gint64                off,
             gint64                ow0,
             gint64                ow1,
             gint64               *lo,
             gint64               *hi)
{
  gint64 l = off >= 0 ? 0 : (-off - 1) / g->stride_w + 1;
  gint64 h = off < g->width ? (g->width - 1 - off) / g->stride_w + 1 : 0;

  *lo = MAX (l, ow0);
  *hi = MIN (h, ow1);
}

/* Output columns (NCHW) or channels (NHWC) an argmax keeps at once */
#define CHUNK 256

/* One row of windows of a plane (NCHW): for each tap, the output
 * columns it lands inside for, contiguous or strided: vectorized across
 * columns. Each output still takes its taps in window order. */
#define ROW_TAPS(T, STEP)                                                   \
  for (gint64 kh = kh0; kh < kh1; kh++)                                     \
    {                                                                       \
      const T *restrict row = x + (h0 + kh * g->dilation_h) * g->width;     \
                                                                            \
      for (gint64 kw = kw0; kw < kw1; kw++)                                 \
        {                                                                   \
          gint64 off = kw * g->dilation_w - g->pad_w, lo, hi;               \
                                                                            \
          tap_columns (g, off, 0, g->out_width, &lo, &hi);                  \
          if (g->stride_w == 1)                                             \
            for (gint64 ow = lo; ow < hi; ow++)                             \
              { T v = row[ow + off]; STEP; }                                \
          else if (g->stride_w == 2)                                        \
            for (gint64 ow = lo; ow < hi; ow++)                             \
              { T v = row[2 * ow + off]; STEP; }                            \
          else                                                              \
            for (gint64 ow = lo; ow < hi; ow++)                             \
              { T v = row[ow * g->stride_w + off]; STEP; }                  \
        }                                                                   \
    }

#define POOL_KERNELS(T, sfx)                                                \
                                                                            \
EP_CPU_CLONES                                                               \
static void                                                                 \
max_plane_##sfx (const PoolJob *job,                                        \
                 gint64         plane)                                      \
{                                                                           \
  const EpPoolGeometry *g = &job->g;                                        \
  const T *x = (const T *) job->x + plane * g->height * g->width;           \
  T *out = (T *) job->out + plane * g->out_height * g->out_width;           \
  gint64 kw0, kw1;                                                          \
                                                                            \
  column_taps (g, &kw0, &kw1);                                              \
  for (gint64 oh = 0; oh < g->out_height; oh++)                             \
    {                                                                       \
      T *restrict o = out + oh * g->out_width;                              \
      gint64 h0 = oh * g->stride_h - g->pad_h, kh0, kh1;                    \
                                                                            \
      ep_pool_taps (h0, g->kernel_h, g->dilation_h, g->height, &kh0, &kh1); \
      for (gint64 ow = 0; ow < g->out_width; ow++)                          \
        o[ow] = -INFINITY;                                                  \
      ROW_TAPS (T, o[ow] = (v > o[ow] || v != v) ? v : o[ow])                  \
    }                                                                       \
}                                                                           \
                                                                            \
EP_CPU_CLONES                                                               \
static void                                                                 \
avg_plane_##sfx (const PoolJob *job,                                        \
                 gint64         plane)                                      \
{                                                                           \
  const EpPoolGeometry *g = &job->g;                                        \
  const T *x = (const T *) job->x + plane * g->height * g->width;           \
  T *out = (T *) job->out + plane * g->out_height * g->out_width;           \
  gint64 kw0, kw1;                                                          \
                                                                            \
  column_taps (g, &kw0, &kw1);                                              \
  for (gint64 oh = 0; oh < g->out_height; oh++)                             \
    {                                                                       \
      T *restrict o = out + oh * g->out_width;                              \
      gint64 h0 = oh * g->stride_h - g->pad_h, kh0, kh1;                    \
                                                                            \
      ep_pool_taps (h0, g->kernel_h, 1, g->height, &kh0, &kh1);             \
      for (gint64 ow = 0; ow < g->out_width; ow++)                          \
        o[ow] = 0;                                                          \
      ROW_TAPS (T, o[ow] += v)                                                 \
      for (gint64 ow = 0; ow < g->out_width && kh0 < kh1; ow++)             \
        {                                                                   \
          gint64 w0 = ow * g->stride_w - g->pad_w, c0, c1;                  \
                                                                            \
          ep_pool_taps (w0, g->kernel_w, 1, g->width, &c0, &c1);            \
          if (c0 < c1)                                                      \
            o[ow] /= (T) avg_divisor (g, h0, w0);                           \
        }                                                                   \
    }                                                                       \
}                                                                           \
                                                                            \
/* The argmax of the windows of output columns [@ow0, @ow0 + @n) of row   \
 * @oh of a plane (NCHW) in @idx (-1: no tap), the taps in window order   \
 * for each: the first, then any larger one or NaN (PyTorch's rule) */     \
EP_CPU_CLONES                                                               \
static void                                                                 \
argmax_row_##sfx (const EpPoolGeometry *g,                                  \
                  const T              *x,                                  \
                  gint64                oh,                                 \
                  gint64                ow0,                                \
                  gint64                n,                                  \
                  gint64               *restrict idx)                       \
{                                                                           \
  T m[CHUNK];                                                               \
  gint64 h0 = oh * g->stride_h - g->pad_h, kh0, kh1, kw0, kw1;              \
                                                                            \
  ep_pool_taps (h0, g->kernel_h, g->dilation_h, g->height, &kh0, &kh1);     \
  column_taps (g, &kw0, &kw1);                                              \
  for (gint64 i = 0; i < n; i++)                                            \
    {                                                                       \
      m[i] = -INFINITY;                                                     \
      idx[i] = -1;                                                          \
    }                                                                       \
  for (gint64 kh = kh0; kh < kh1; kh++)                                     \
    {                                                                       \
      gint64 ih = h0 + kh * g->dilation_h;                                  \
      const T *restrict row = x + ih * g->width;                            \
                                                                            \
      for (gint64 kw = kw0; kw < kw1; kw++)                                 \
        {                                                                   \
          gint64 off = kw * g->dilation_w - g->pad_w, lo, hi;               \
          gint64 base = ih * g->width + off ;                      \
                                                                            \
          tap_columns (g, off, ow0, ow0 + n, &lo, &hi);                     \
          for (gint64 ow = lo; ow < hi; ow++)                               \
            {                                                               \
              gint64 i = ow - ow0, pos = base + ow * g->stride_w;           \
              T v = row[ow * g->stride_w + off];                            \
              gboolean take = v > m[i] || v != v || idx[i] < 0;             \
                                                                            \
              m[i] = take ? v : m[i];                                       \
              idx[i] = take ? pos : idx[i];                                 \
            }                                                               \
        }                                                                   \
    }                                                                       \
}                                                                           \
                                                                            \
/* The same for the channels [@c0, @c0 + @n) of output pixel (@oh, @ow)   \
 * of an image (NHWC) */                                                   \
EP_CPU_CLONES                                                               \
static void                                                                 \
argmax_pixel_##sfx (const EpPoolGeometry *g,                                \
                    const T              *x,                                \
                    gint64                oh,                               \
                    gint64                ow,                               \
                    gint64                c0,                               \
                    gint64                n,                                \
                    gint64               *restrict idx)                     \
{                                                                           \
  T m[CHUNK];                                                               \
  gint64 h0 = oh * g->stride_h - g->pad_h, w0 = ow * g->stride_w - g->pad_w; \
  gint64 kh0, kh1, kw0, kw1;                                                \
                                                                            \
  ep_pool_taps (h0, g->kernel_h, g->dilation_h, g->height, &kh0, &kh1);     \
  ep_pool_taps (w0, g->kernel_w, g->dilation_w, g->width, &kw0, &kw1);      \
  for (gint64 i = 0; i < n; i++)                                            \
    {                                                                       \
      m[i] = -INFINITY;                                                     \
      idx[i] = -1;                                                          \
    }                                                                       \
  for (gint64 kh = kh0; kh < kh1; kh++)                                     \
    for (gint64 kw = kw0; kw < kw1; kw++)                                   \
      {                                                                     \
        gint64 pos = (h0 + kh * g->dilation_h) * g->width + w0 + kw * g->dilation_w; \
        const T *restrict in = x + pos * g->channels + c0;                  \
                                                                            \
        for (gint64 i = 0; i < n; i++)                                      \
          {                                                                 \
            T v = in[i];                                                    \
            gboolean take = v > m[i] || v != v || idx[i] < 0;               \
                                                                            \
            m[i] = take ? v : m[i];                                         \
            idx[i] = take ? pos : idx[i];                                   \
          }                                                                 \
      }                                                                     \
}                                                                           \
                                                                            \
/* NHWC, one output row (n, oh): each pixel's channels at once */         \
EP_CPU_CLONES                                                               \
static void                                                                 \
max_row_nhwc_##sfx (const PoolJob *job,                                     \
                    gint64         row)                                     \
{                                                                           \
  const EpPoolGeometry *g = &job->g;                                        \
  gint64 n = row / g->out_height, oh = row % g->out_height, c = g->channels; \
  const T *x = (const T *) job->x + n * g->height * g->width * c;           \
  T *restrict out = (T *) job->out + row * g->out_width * c;                \
  gint64 h0 = oh * g->stride_h - g->pad_h, kh0, kh1;                        \
                                                                            \
  ep_pool_taps (h0, g->kernel_h, g->dilation_h, g->height, &kh0, &kh1);     \
  for (gint64 ow = 0; ow < g->out_width; ow++, out += c)                    \
    {                                                                       \
      gint64 w0 = ow * g->stride_w - g->pad_w, kw0, kw1;                    \
                                                                            \
      ep_pool_taps (w0, g->kernel_w, g->dilation_w, g->width, &kw0, &kw1);  \
      for (gint64 k = 0; k < c; k++)                                        \
        out[k] = -INFINITY;                                                 \
      for (gint64 kh = kh0; kh < kh1; kh++)                                 \
        for (gint64 kw = kw0; kw < kw1; kw++)                               \
          {                                                                 \
            const T *restrict in = x + ((h0 + kh * g->dilation_h) * g->width \
                                        + w0 + kw * g->dilation_w) * c;     \
                                                                            \
            for (gint64 k = 0; k < c; k++)                                  \
              {                                                             \
                T v = in[k], m = out[k];                                    \
                out[k] = (v > m || v != v) ? v : m;                         \
              }                                                             \
          }                                                                 \
    }                                                                       \
}                                                                           \
                                                                            \
EP_CPU_CLONES                                                               \
static void                                                                 \
avg_row_nhwc_##sfx (const PoolJob *job,                                     \
                    gint64         row)                                     \
{                                                                           \
  const EpPoolGeometry *g = &job->g;                                        \
  gint64 n = row / g->out_height, oh = row % g->out_height, c = g->channels; \
  const T *x = (const T *) job->x + n * g->height * g->width * c;           \
  T *restrict out = (T *) job->out + row * g->out_width * c;                \
  gint64 h0 = oh * g->stride_h - g->pad_h, kh0, kh1;                        \
                                                                            \
  ep_pool_taps (h0, g->kernel_h, 1, g->height, &kh0, &kh1);                 \
  for (gint64 ow = 0; ow < g->out_width; ow++, out += c)                    \
    {                                                                       \
      gint64 w0 = ow * g->stride_w - g->pad_w, kw0, kw1;                    \
      T divisor;                                                            \
                                                                            \
      ep_pool_taps (w0, g->kernel_w, 1, g->width, &kw0, &kw1);              \
      divisor = (T) avg_divisor (g, h0, w0);                                \
      for (gint64 k = 0; k < c; k++)                                        \
        out[k] = 0;                                                         \
      for (gint64 kh = kh0; kh < kh1; kh++)                                 \
        for (gint64 kw = kw0; kw < kw1; kw++)                               \
          {                                                                 \
            const T *restrict in = x + ((h0 + kh) * g->width + w0 + kw) * c; \
                                                                            \
            for (gint64 k = 0; k < c; k++)                                  \
              out[k] += in[k];                                              \
          }                                                                 \
      if (kh0 < kh1 && kw0 < kw1)                                           \
        for (gint64 k = 0; k < c; k++)                                      \
          out[k] /= divisor;                                                \
    }                                                                       \
}                                                                           \
                                                                            \
static void                                                                 \
max_grad_plane_##sfx (const PoolJob *job,                                   \
                      gint64         plane)                                 \
{                                                                           \
  const EpPoolGeometry *g = &job->g;                                        \
  const T *x = (const T *) job->x + plane * g->height * g->width;           \
  const T *go = (const T *) job->grad + plane * g->out_height * g->out_width; \
  T *gi = (T *) job->out + plane * g->height * g->width;                    \
  gint64 idx[CHUNK];                                                        \
                                                                            \
  memset (gi, 0, g->height * g->width * sizeof (T));                        \
  for (gint64 oh = 0; oh < g->out_height; oh++)                             \
    for (gint64 ow0 = 0; ow0 < g->out_width; ow0 += CHUNK)                  \
      {                                                                     \
        gint64 n = MIN (CHUNK, g->out_width - ow0);                         \
        const T *d = go + oh * g->out_width + ow0;                          \
                                                                            \
        argmax_row_##sfx (g, x, oh, ow0, n, idx);                           \
        for (gint64 i = 0; i < n; i++)                                      \
          if (idx[i] >= 0)                                                  \
            gi[idx[i]] += d[i];                                             \
      }                                                                     \
}                                                                           \
                                                                            \
static void                                                                 \
max_grad_image_nhwc_##sfx (const PoolJob *job,                              \
                           gint64         n)                                \
{                                                                           \
  const EpPoolGeometry *g = &job->g;                                        \
  gint64 c = g->channels;                                                   \
  const T *x = (const T *) job->x + n * g->height * g->width * c;           \
  const T *go = (const T *) job->grad + n * g->out_height * g->out_width * c; \
  T *gi = (T *) job->out + n * g->height * g->width * c;                    \
  gint64 idx[CHUNK];                                                        \
                                                                            \
  memset (gi, 0, g->height * g->width * c * sizeof (T));                    \
  for (gint64 o = 0; o < g->out_height * g->out_width; o++, go += c)        \
    for (gint64 c0 = 0; c0 < c; c0 += CHUNK)                                \
      {                                                                     \
        gint64 nc = MIN (CHUNK, c - c0);                                    \
                                                                            \
        argmax_pixel_##sfx (g, x, o / g->out_width, o % g->out_width, c0, nc, idx); \
        for (gint64 i = 0; i < nc; i++)                                     \
          if (idx[i] >= 0)                                                  \
            gi[idx[i] * c + c0 + i] += go[c0 + i];                          \
      }                                                                     \
}                                                                           \
                                                                            \
static void                                                                 \
indices_plane_##sfx (const PoolJob *job,                                    \
                     gint64         plane)                                  \
{                                                                           \
  const EpPoolGeometry *g = &job->g;                                        \
  const T *x = (const T *) job->x + plane * g->height * g->width;           \
  gint64 *out = (gint64 *) job->out + plane * g->out_height * g->out_width; \
                                                                            \
  for (gint64 oh = 0; oh < g->out_height; oh++)                             \
    for (gint64 ow0 = 0; ow0 < g->out_width; ow0 += CHUNK)                  \
      argmax_row_##sfx (g, x, oh, ow0, MIN (CHUNK, g->out_width - ow0),     \
                        out + oh * g->out_width + ow0);                     \
}                                                                           \
                                                                            \
static void                                                                 \
indices_row_nhwc_##sfx (const PoolJob *job,                                 \
                        gint64         row)                                 \
{                                                                           \
  const EpPoolGeometry *g = &job->g;                                        \
  gint64 n = row / g->out_height, oh = row % g->out_height, c = g->channels; \
  const T *x = (const T *) job->x + n * g->height * g->width * c;           \
  gint64 *out = (gint64 *) job->out + row * g->out_width * c;               \
                                                                            \
  for (gint64 ow = 0; ow < g->out_width; ow++)                              \
    for (gint64 c0 = 0; c0 < c; c0 += CHUNK)                                \
      argmax_pixel_##sfx (g, x, oh, ow, c0, MIN (CHUNK, c - c0),            \
                          out + ow * c + c0);                               \
}                                                                           \
                                                                            \
/* avg_pool2d_grad: job->x is the output's gradient, job->out the         \
 * input's; each gradient element divided by its window's divisor goes    \
 * to every tap, windows in order (PyTorch's) */                           \
static void                                                                 \
avg_grad_plane_##sfx (const PoolJob *job,                                   \
                      gint64         plane)                                 \
{                                                                           \
  const EpPoolGeometry *g = &job->g;                                        \
  const T *go = (const T *) job->x + plane * g->out_height * g->out_width;  \
  T *gi = (T *) job->out + plane * g->height * g->width;                    \
                                                                            \
  memset (gi, 0, g->height * g->width * sizeof (T));                        \
  for (gint64 oh = 0; oh < g->out_height; oh++)                             \
    {                                                                       \
      gint64 h0 = oh * g->stride_h - g->pad_h, kh0, kh1;                    \
                                                                            \
      ep_pool_taps (h0, g->kernel_h, 1, g->height, &kh0, &kh1);             \
      for (gint64 ow = 0; ow < g->out_width; ow++)                          \
        {                                                                   \
          gint64 w0 = ow * g->stride_w - g->pad_w, kw0, kw1;                \
          T delta;                                                          \
                                                                            \
          ep_pool_taps (w0, g->kernel_w, 1, g->width, &kw0, &kw1);          \
          if (kh0 >= kh1 || kw0 >= kw1)                                     \
            continue;                                                       \
          delta = go[oh * g->out_width + ow] / (T) avg_divisor (g, h0, w0); \
          for (gint64 kh = kh0; kh < kh1; kh++)                             \
            {                                                               \
              T *row = gi + (h0 + kh) * g->width + w0;                      \
                                                                            \
              for (gint64 kw = kw0; kw < kw1; kw++)                         \
                row[kw] += delta;                                           \
            }                                                               \
        }                                                                   \
    }                                                                       \
}                                                                           \
                                                                            \
EP_CPU_CLONES                                                               \
static void                                                                 \
avg_grad_image_nhwc_##sfx (const PoolJob *job,                              \
                           gint64         n)                                \
{                                                                           \
  const EpPoolGeometry *g = &job->g;                                        \
  gint64 c = g->channels;                                                   \
  const T *go = (const T *) job->x + n * g->out_height * g->out_width * c;  \
  T *gi = (T *) job->out + n * g->height * g->width * c;                    \
                                                                            \
  memset (gi, 0, g->height * g->width * c * sizeof (T));                    \
  for (gint64 oh = 0; oh < g->out_height; oh++)                             \
    {                                                                       \
      gint64 h0 = oh * g->stride_h - g->pad_h, kh0, kh1;                    \
                                                                            \
      ep_pool_taps (h0, g->kernel_h, 1, g->height, &kh0, &kh1);             \
      for (gint64 ow = 0; ow < g->out_width; ow++, go += c)                 \
        {                                                                   \
          gint64 w0 = ow * g->stride_w - g->pad_w, kw0, kw1;                \
          T divisor;                                                        \
                                                                            \
          ep_pool_taps (w0, g->kernel_w, 1, g->width, &kw0, &kw1);          \
          divisor = (T) avg_divisor (g, h0, w0);                            \
          for (gint64 kh = kh0; kh < kh1; kh++)                             \
            for (gint64 kw = kw0; kw < kw1; kw++)                           \
              {                                                             \
                T *restrict row = gi + ((h0 + kh) * g->width + w0 + kw) * c; \
                const T *restrict d = go;                                   \
                                                                            \
                for (gint64 k = 0; k < c; k++)                              \
                  row[k] += d[k] / divisor;                                 \
              }                                                             \
        }                                                                   \
    }                                                                       \
}

POOL_KERNELS (gfloat, f32)
POOL_KERNELS (gdouble, f64)

static void
job_init (PoolJob        *job,
          const EpOpCall *call,
          const gint64   *input_shape)
{
  memset (job, 0, sizeof *job);
  ep_pool_geometry (call, input_shape, &job->g);
  job->out = ep_tensor_host_data (call->outputs[0]);
}

#define PICK(name, dtype) ((dtype) == EP_DTYPE_FLOAT64 ? name##_f64 : name##_f32)

static gboolean
cpu_pool (EpOpCall  *call,
          GError   **error)
{
  EpTensor *x = call->inputs[0];
  EpDType dtype = x->layout.dtype;
  PoolJob job;
  gboolean nhwc;
  gboolean max = call->op->id != EP_OP_AVG_POOL2D;
  gdouble cost;

  job_init (&job, call, x->layout.shape);
  job.x = ep_tensor_host_data (x);
  nhwc = job.g.format == EP_DATA_FORMAT_NHWC;
  cost = window_cost (&job.g);

  if (nhwc)
    run_items (&job,
               call->op->id == EP_OP_MAX_POOL2D_INDICES ? PICK (indices_row_nhwc, dtype)
               : max ? PICK (max_row_nhwc, dtype) : PICK (avg_row_nhwc, dtype),
               job.g.batch * job.g.out_height, cost * job.g.out_width * job.g.channels);
  else
    run_items (&job,
               call->op->id == EP_OP_MAX_POOL2D_INDICES ? PICK (indices_plane, dtype)
               : max ? PICK (max_plane, dtype) : PICK (avg_plane, dtype),
               job.g.batch * job.g.channels, cost * job.g.out_height * job.g.out_width);
  return TRUE;
}

static gboolean
cpu_max_pool2d_grad (EpOpCall  *call,
                     GError   **error)
{
  EpTensor *x = call->inputs[0];
  EpDType dtype = x->layout.dtype;
  PoolJob job;

  job_init (&job, call, x->layout.shape);
  job.x = ep_tensor_host_data (x);
  job.grad = ep_tensor_host_data (call->inputs[1]);
  if (job.g.format == EP_DATA_FORMAT_NHWC)
    run_items (&job, PICK (max_grad_image_nhwc, dtype), job.g.batch,
               window_cost (&job.g) * job.g.out_height * job.g.out_width * job.g.channels);
  else
    run_items (&job, PICK (max_grad_plane, dtype), job.g.batch * job.g.channels,
               window_cost (&job.g) * job.g.out_height * job.g.out_width);
  return TRUE;
}

static gboolean
cpu_avg_pool2d_grad (EpOpCall  *call,
                     GError   **error)
{
  EpDType dtype = call->inputs[0]->layout.dtype;
  PoolJob job;

  job_init (&job, call, call->attrs.shape);
  job.x = ep_tensor_host_data (call->inputs[0]);
  if (job.g.format == EP_DATA_FORMAT_NHWC)
    run_items (&job, PICK (avg_grad_image_nhwc, dtype), job.g.batch,
               window_cost (&job.g) * job.g.out_height * job.g.out_width * job.g.channels);
  else
    run_items (&job, PICK (avg_grad_plane, dtype), job.g.batch * job.g.channels,
               window_cost (&job.g) * job.g.out_height * job.g.out_width);
  return TRUE;
}

void
ep_cpu_register_pool (EpKernelFunc *kernels)
{
  kernels[EP_OP_MAX_POOL2D] = cpu_pool;
  kernels[EP_OP_AVG_POOL2D] = cpu_pool;
  kernels[EP_OP_MAX_POOL2D_INDICES] = cpu_pool;
  kernels[EP_OP_MAX_POOL2D_GRAD] = cpu_max_pool2d_grad;
  kernels[EP_OP_AVG_POOL2D_GRAD] = cpu_avg_pool2d_grad;
}
