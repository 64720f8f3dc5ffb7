/* softmax.cl: softmax, log_softmax, crossentropy, logsumexp
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/softmax.c. softmax and log_softmax give one work-item to
 * each row, walked in order as the CPU walks it, crossentropy one to
 * each sample; logsumexp is a reduction (EpReduce) like those of
 * reduce.cl.
 */

/* softmax and log_softmax of each row: subtract the maximum, sum the
 * exponentials in ep_acc. Operand 0 the output, 1 the input. */
#define SOFTMAX(name, T, LOG)                                               \
__kernel void                                                               \
name (__global T *out,                                                      \
      __global const T *in,                                                 \
      const EpRows g)                                                       \
{                                                                           \
  for (long r = get_global_id (0); r < g.rows; r += get_global_size (0))    \
    {                                                                       \
      long o = ep_row_base (&g, 0, r), p = ep_row_base (&g, 1, r);          \
      long os = g.axis_strides[0], ps = g.axis_strides[1];                  \
      T m = -INFINITY;                                                      \
      ep_acc total = 0;                                                     \
      for (long i = 0; i < g.length; i++)                                   \
        m = EP_NAN_MAX (m, in[p + i * ps]);                                 \
      for (long i = 0; i < g.length; i++)                                   \
        {                                                                   \
          T e = exp (in[p + i * ps] - m);                                   \
          total += e;                                                       \
          if (!LOG)                                                         \
            out[o + i * os] = e;                                            \
        }                                                                   \
      if (LOG)                                                              \
        {                                                                   \
          T shift = (T) log (total);                                        \
          for (long i = 0; i < g.length; i++)                               \
            out[o + i * os] = (in[p + i * ps] - m) - shift;                 \
        }                                                                   \
      else                                                                  \
        {                                                                   \
          ep_acc scale = (ep_acc) 1 / total;                                \
          for (long i = 0; i < g.length; i++)                               \
            out[o + i * os] = (T) (out[o + i * os] * scale);                \
        }                                                                   \
    }                                                                       \
}

SOFTMAX (softmax_f32, float, 0)
FP64 (SOFTMAX (softmax_f64, double, 0))
SOFTMAX (log_softmax_f32, float, 1)
FP64 (SOFTMAX (log_softmax_f64, double, 1))

/* A maximum that is not finite shifts by 0, as in SciPy. */
#define SHIFT(m) (isfinite (m) ? (m) : (ep_acc) 0)

/* crossentropy: logits (n, c), labels (n,) int64. A label out of range
 * leaves the lowest such sample in *bad for the host to report. */
#define CROSSENTROPY(name, T)                                               \
__kernel void                                                               \
name (__global T *loss,                                                     \
      __global const T *x,                                                  \
      __global const long *labels,                                          \
      __global int *bad,                                                    \
      long n,                                                               \
      long c,                                                               \
      long x_offset,                                                        \
      long x_row,                                                           \
      long x_col,                                                           \
      long y_offset,                                                        \
      long y_stride)                                                        \
{                                                                           \
  for (long i = get_global_id (0); i < n; i += get_global_size (0))         \
    {                                                                       \
      long row = x_offset + i * x_row;                                      \
      long label = labels[y_offset + i * y_stride];                         \
      ep_acc m = -INFINITY, total = 0;                                      \
      if (label < 0 || label >= c)                                          \
        {                                                                   \
          ep_flag_raise (bad, i);                                           \
          loss[i] = NAN;                                                    \
          continue;                                                         \
        }                                                                   \
      for (long j = 0; j < c; j++)                                          \
        m = EP_NAN_MAX (m, (ep_acc) x[row + j * x_col]);                    \
      for (long j = 0; j < c; j++)                                          \
        total += exp ((ep_acc) x[row + j * x_col] - SHIFT (m));             \
      loss[i] = (T) (log (total) + (SHIFT (m) - (ep_acc) x[row + label * x_col])); \
    }                                                                       \
}

CROSSENTROPY (crossentropy_f32, float)
FP64 (CROSSENTROPY (crossentropy_f64, double))

/* logsumexp over any axes: the maximum, then the sum of exponentials
 * shifted by it, in ep_acc; one work-item or one work-group per output
 * as in reduce.cl. */
#define LOGSUMEXP(sfx, T)                                                   \
__kernel void                                                               \
logsumexp_wi_##sfx (__global T *out,                                        \
                    __global const T *in,                                   \
                    const EpReduce g)                                       \
{                                                                           \
  for (long m = get_global_id (0); m < g.m; m += get_global_size (0))       \
    {                                                                       \
      long base = g.offset + ep_unravel (m, g.out_ndim, g.out_shape, g.out_strides); \
      ep_acc mx = -INFINITY, acc = 0;                                       \
      for (long r = 0; r < g.k; r++)                                        \
        mx = EP_NAN_MAX (mx, (ep_acc) in[base + ep_unravel (r, g.red_ndim, g.red_shape, g.red_strides)]); \
      for (long r = 0; r < g.k; r++)                                        \
        acc += exp ((ep_acc) in[base + ep_unravel (r, g.red_ndim, g.red_shape, g.red_strides)] - SHIFT (mx)); \
      out[m] = (T) (log (acc) + SHIFT (mx));                                \
    }                                                                       \
}                                                                           \
                                                                            \
__kernel void                                                               \
logsumexp_wg_##sfx (__global T *out,                                        \
                    __global const T *in,                                   \
                    const EpReduce g,                                       \
                    __local ep_acc *scratch)                                \
{                                                                           \
  long m = get_group_id (0);                                                \
  long lid = get_local_id (0), size = get_local_size (0);                   \
  long base = g.offset + ep_unravel (m, g.out_ndim, g.out_shape, g.out_strides); \
  ep_acc mx = -INFINITY, acc = 0, shift;                                    \
                                                                            \
  for (long r = lid; r < g.k; r += size)                                    \
    mx = EP_NAN_MAX (mx, (ep_acc) in[base + ep_unravel (r, g.red_ndim, g.red_shape, g.red_strides)]); \
  scratch[lid] = mx;                                                        \
  barrier (CLK_LOCAL_MEM_FENCE);                                            \
  for (long s = size / 2; s > 0; s /= 2)                                    \
    {                                                                       \
      if (lid < s)                                                          \
        scratch[lid] = EP_NAN_MAX (scratch[lid], scratch[lid + s]);         \
      barrier (CLK_LOCAL_MEM_FENCE);                                        \
    }                                                                       \
  mx = scratch[0];                                                          \
  shift = SHIFT (mx);                                                       \
  barrier (CLK_LOCAL_MEM_FENCE);                                            \
                                                                            \
  for (long r = lid; r < g.k; r += size)                                    \
    acc += exp ((ep_acc) in[base + ep_unravel (r, g.red_ndim, g.red_shape, g.red_strides)] - shift); \
  scratch[lid] = acc;                                                       \
  barrier (CLK_LOCAL_MEM_FENCE);                                            \
  for (long s = size / 2; s > 0; s /= 2)                                    \
    {                                                                       \
      if (lid < s)                                                          \
        scratch[lid] += scratch[lid + s];                                   \
      barrier (CLK_LOCAL_MEM_FENCE);                                        \
    }                                                                       \
  if (lid == 0)                                                             \
    out[m] = (T) (log (scratch[0]) + shift);                                \
}

LOGSUMEXP (f32, float)
FP64 (LOGSUMEXP (f64, double))
