/* conv.cl: 2-D convolutions and their gradients, direct
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One kernel per type for the three ops (the op picks the case, outside
 * the loop): one work-item per element of the result, which sums its
 * terms in a fixed order, so no atomics. NCHW or NHWC images and
 * outputs, weights (o, c / groups, kh, kw), groups and dilation: what
 * CLBlast's single-group NCHW convgemm (opencl/conv.c) does not cover.
 */

/* EpCLConv in conv.c */
typedef struct
{
  long n, c, h, w;
  long o, kh, kw;
  long oh, ow;
  long stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  long groups, nhwc;
} EpConv;

static inline long
ep_conv_image_at (const EpConv *g, long n, long c, long y, long x)
{
  return g->nhwc ? ((n * g->h + y) * g->w + x) * g->c + c : ((n * g->c + c) * g->h + y) * g->w + x;
}

static inline long
ep_conv_output_at (const EpConv *g, long n, long o, long y, long x)
{
  return g->nhwc ? ((n * g->oh + y) * g->ow + x) * g->o + o : ((n * g->o + o) * g->oh + y) * g->ow + x;
}

/* (n, channel, y, x) of element idx of an image-shaped tensor */
static inline void
ep_conv_unravel (const EpConv *g, long idx, long channels, long h, long w,
                 long *n, long *ch, long *y, long *x)
{
  if (g->nhwc)
    {
      *ch = idx % channels; idx /= channels;
      *x = idx % w; idx /= w;
      *y = idx % h; *n = idx / h;
    }
  else
    {
      *x = idx % w; idx /= w;
      *y = idx % h; idx /= h;
      *ch = idx % channels; *n = idx / channels;
    }
}

#define CONV(suffix, T)                                                     \
/* out: the output; a: the images; b: the weight */                         \
static void                                                                 \
conv_forward_##suffix (__global T *out, __global const T *a,                \
                       __global const T *b, const EpConv *g, long total)    \
{                                                                           \
  long cg = g->c / g->groups, og = g->o / g->groups;                        \
                                                                            \
  for (long idx = get_global_id (0); idx < total; idx += get_global_size (0)) \
    {                                                                       \
      long n, o, oy, ox;                                                    \
      T acc = 0;                                                            \
                                                                            \
      ep_conv_unravel (g, idx, g->o, g->oh, g->ow, &n, &o, &oy, &ox);       \
      for (long ci = 0; ci < cg; ci++)                                      \
        for (long i = 0; i < g->kh; i++)                                    \
          {                                                                 \
            long y = oy * g->stride_h - g->pad_h + i * g->dilation_h;       \
                                                                            \
            if (y < 0 || y >= g->h)                                         \
              continue;                                                     \
            for (long j = 0; j < g->kw; j++)                                \
              {                                                             \
                long x = ox * g->stride_w - g->pad_w + j * g->dilation_w;   \
                                                                            \
                if (x >= 0 && x < g->w)                                     \
                  acc += a[ep_conv_image_at (g, n, o / og * cg + ci, y, x)] \
                         * b[((o * cg + ci) * g->kh + i) * g->kw + j];      \
              }                                                             \
          }                                                                 \
      out[idx] = acc;                                                       \
    }                                                                       \
}                                                                           \
                                                                            \
/* out: the images' gradient; a: the output's; b: the weight */            \
static void                                                                 \
conv_data_##suffix (__global T *out, __global const T *a,                   \
                    __global const T *b, const EpConv *g, long total)       \
{                                                                           \
  long cg = g->c / g->groups, og = g->o / g->groups;                        \
                                                                            \
  for (long idx = get_global_id (0); idx < total; idx += get_global_size (0)) \
    {                                                                       \
      long n, c, y, x;                                                      \
      T acc = 0;                                                            \
                                                                            \
      ep_conv_unravel (g, idx, g->c, g->h, g->w, &n, &c, &y, &x);           \
      for (long o = c / cg * og; o < (c / cg + 1) * og; o++)                \
        for (long i = 0; i < g->kh; i++)                                    \
          {                                                                 \
            long ty = y + g->pad_h - i * g->dilation_h, oy = ty / g->stride_h; \
                                                                            \
            if (ty < 0 || ty % g->stride_h != 0 || oy >= g->oh)             \
              continue;                                                     \
            for (long j = 0; j < g->kw; j++)                                \
              {                                                             \
                long tx = x + g->pad_w - j * g->dilation_w, ox = tx / g->stride_w; \
                                                                            \
                if (tx >= 0 && tx % g->stride_w == 0 && ox < g->ow)         \
                  acc += a[ep_conv_output_at (g, n, o, oy, ox)]             \
                         * b[((o * cg + c % cg) * g->kh + i) * g->kw + j];  \
              }                                                             \
          }                                                                 \
      out[idx] = acc;                                                       \
    }                                                                       \
}                                                                           \
                                                                            \
/* out: the weight's gradient; a: the images; b: the output's gradient */   \
static void                                                                 \
conv_weights_##suffix (__global T *out, __global const T *a,                \
                       __global const T *b, const EpConv *g, long total)    \
{                                                                           \
  long cg = g->c / g->groups, og = g->o / g->groups;                        \
                                                                            \
  for (long idx = get_global_id (0); idx < total; idx += get_global_size (0)) \
    {                                                                       \
      long j = idx % g->kw, i = idx / g->kw % g->kh;                        \
      long ci = idx / (g->kw * g->kh) % cg, o = idx / (g->kw * g->kh * cg); \
      long c = o / og * cg + ci;                                            \
      T acc = 0;                                                            \
                                                                            \
      for (long n = 0; n < g->n; n++)                                       \
        for (long oy = 0; oy < g->oh; oy++)                                 \
          {                                                                 \
            long y = oy * g->stride_h - g->pad_h + i * g->dilation_h;       \
                                                                            \
            if (y < 0 || y >= g->h)                                         \
              continue;                                                     \
            for (long ox = 0; ox < g->ow; ox++)                             \
              {                                                             \
                long x = ox * g->stride_w - g->pad_w + j * g->dilation_w;   \
                                                                            \
                if (x >= 0 && x < g->w)                                     \
                  acc += a[ep_conv_image_at (g, n, c, y, x)]                \
                         * b[ep_conv_output_at (g, n, o, oy, ox)];          \
              }                                                             \
          }                                                                 \
      out[idx] = acc;                                                       \
    }                                                                       \
}                                                                           \
                                                                            \
__kernel void                                                               \
conv_##suffix (long op,                                                     \
               __global T *out,                                             \
               __global const T *a,                                         \
               __global const T *b,                                         \
               const EpConv g,                                              \
               long total)                                                  \
{                                                                           \
  switch (op)                                                               \
    {                                                                       \
    case EP_OP_conv2d:                                                      \
      conv_forward_##suffix (out, a, b, &g, total);                         \
      break;                                                                \
    case EP_OP_conv2d_input_grad:                                           \
      conv_data_##suffix (out, a, b, &g, total);                            \
      break;                                                                \
    case EP_OP_conv2d_weight_grad:                                          \
      conv_weights_##suffix (out, a, b, &g, total);                         \
      break;                                                                \
    }                                                                       \
}

CONV (f32, float)
FP64 (CONV (f64, double))
