/* norm.cl: layer_norm and batch_norm
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/norm.c: the mean, then the mean of the squared deviations
 * from it (the biased variance), each summed in ep_acc by the work-items
 * of a group and reduced in local memory (a power-of-two size); then
 * the output. A work-group per row or channel, looping over the rest.
 */

/* The sum of every work-item's @value in the group, for all of them */
static ep_acc
ep_group_sum (ep_acc value, __local ep_acc *scratch)
{
  long lid = get_local_id (0), size = get_local_size (0);
  ep_acc total;

  scratch[lid] = value;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (long s = size / 2; s > 0; s /= 2)
    {
      if (lid < s)
        scratch[lid] += scratch[lid + s];
      barrier (CLK_LOCAL_MEM_FENCE);
    }
  total = scratch[0];
  barrier (CLK_LOCAL_MEM_FENCE);
  return total;
}

/* y = (x - mean) rstd w + b over rows of n elements */
#define LAYER_NORM(sfx, T)                                                  \
__kernel void                                                               \
layer_norm_##sfx (__global T *y,                                            \
                  __global const T *x, long xo,                             \
                  __global const T *w, long wo,                             \
                  __global const T *b, long bo,                             \
                  long rows,                                                \
                  long n,                                                   \
                  ep_acc epsilon,                                           \
                  __local ep_acc *scratch)                                  \
{                                                                           \
  long lid = get_local_id (0), size = get_local_size (0);                   \
  for (long r = get_group_id (0); r < rows; r += get_num_groups (0))        \
    {                                                                       \
      __global const T *row = x + xo + r * n;                               \
      ep_acc acc = 0, mean, var;                                            \
      T m, rstd;                                                            \
      for (long i = lid; i < n; i += size)                                  \
        acc += (ep_acc) row[i];                                             \
      mean = ep_group_sum (acc, scratch) / (ep_acc) n;                      \
      acc = 0;                                                              \
      for (long i = lid; i < n; i += size)                                  \
        {                                                                   \
          ep_acc d = (ep_acc) row[i] - mean;                                \
          acc += d * d;                                                     \
        }                                                                   \
      var = ep_group_sum (acc, scratch) / (ep_acc) n;                       \
      m = (T) mean;                                                         \
      rstd = (T) ((ep_acc) 1 / sqrt (var + epsilon));                       \
      for (long i = lid; i < n; i += size)                                  \
        y[r * n + i] = (row[i] - m) * rstd * w[wo + i] + b[bo + i];         \
    }                                                                       \
}

LAYER_NORM (f32, float)
FP64 (LAYER_NORM (f64, double))

/* The input as (outer, c, inner): channel k's elements are
 * x[(o c + k) inner + i]. Training takes the batch's statistics,
 * inference the running ones; both are written to mean and var. */
#define BATCH_NORM(sfx, T)                                                  \
__kernel void                                                               \
batch_norm_##sfx (__global T *y,                                            \
                  __global T *mean_out,                                     \
                  __global T *var_out,                                      \
                  __global const T *x, long xo,                             \
                  __global const T *rm, long rmo,                           \
                  __global const T *rv, long rvo,                           \
                  __global const T *w, long wo,                             \
                  __global const T *b, long bo,                             \
                  long outer,                                               \
                  long c,                                                   \
                  long inner,                                               \
                  int training,                                             \
                  ep_acc epsilon,                                           \
                  __local ep_acc *scratch)                                  \
{                                                                           \
  long lid = get_local_id (0), size = get_local_size (0);                   \
  long count = outer * inner;                                               \
  for (long k = get_group_id (0); k < c; k += get_num_groups (0))           \
    {                                                                       \
      ep_acc mean, var;                                                     \
      T m, scale, shift;                                                    \
      if (training)                                                         \
        {                                                                   \
          ep_acc acc = 0;                                                   \
          for (long j = lid; j < count; j += size)                          \
            acc += (ep_acc) x[xo + ((j / inner) * c + k) * inner + j % inner]; \
          mean = ep_group_sum (acc, scratch) / (ep_acc) count;              \
          acc = 0;                                                          \
          for (long j = lid; j < count; j += size)                          \
            {                                                               \
              ep_acc d = (ep_acc) x[xo + ((j / inner) * c + k) * inner + j % inner] - mean; \
              acc += d * d;                                                 \
            }                                                               \
          var = ep_group_sum (acc, scratch) / (ep_acc) count;               \
        }                                                                   \
      else                                                                  \
        {                                                                   \
          mean = rm[rmo + k];                                               \
          var = rv[rvo + k];                                                \
        }                                                                   \
      if (lid == 0)                                                         \
        {                                                                   \
          mean_out[k] = (T) mean;                                           \
          var_out[k] = (T) var;                                             \
        }                                                                   \
      m = (T) mean;                                                         \
      scale = (T) ((ep_acc) w[wo + k] * ((ep_acc) 1 / sqrt (var + epsilon))); \
      shift = b[bo + k];                                                    \
      for (long j = lid; j < count; j += size)                              \
        {                                                                   \
          long at = ((j / inner) * c + k) * inner + j % inner;              \
          y[at] = (x[xo + at] - m) * scale + shift;                         \
        }                                                                   \
    }                                                                       \
}

BATCH_NORM (f32, float)
FP64 (BATCH_NORM (f64, double))
