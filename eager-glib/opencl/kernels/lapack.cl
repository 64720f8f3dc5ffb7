/* lapack.cl: inv, slogdet, solve
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What LAPACK's getrf/getri/getrs do on the CPU (cpu/lapack.c):
 * an LU factorization with partial pivoting (the first row of largest
 * magnitude), here by one work-group per matrix of the batch, each step
 * shared among its work-items; then forward and back substitution on the
 * right-hand sides (the identity for inv). A zero pivot makes the matrix
 * singular: slogdet gives sign 0 and -inf, inv and solve report the
 * first singular matrix of the batch in *bad.
 */

/* EpCLLapack in lapack.c */
typedef struct
{
  long n;
  long k;                 /* right-hand sides */
  long batch_ndim;
  long a_offset, a_row, a_col;
  long b_offset, b_row, b_col;
  long batch_shape[EP_MAX_DIMS];
  long a_batch[EP_MAX_DIMS];
  long b_batch[EP_MAX_DIMS];
} EpLapack;

#define MODE_SLOGDET 0
#define MODE_INV 1
#define MODE_SOLVE 2

#define LU(sfx, T)                                                          \
__kernel void                                                               \
lu_##sfx (__global T *lu,                                                   \
          __global T *x,                                                    \
          __global const T *a,                                              \
          __global const T *b,                                              \
          __global int *bad,                                                \
          __global T *signs,                                                \
          __global T *logs,                                                 \
          const EpLapack g,                                                 \
          int mode,                                                         \
          __local T *best,                                                  \
          __local long *where)                                              \
{                                                                           \
  long batch = get_group_id (0);                                            \
  long lid = get_local_id (0), size = get_local_size (0);                   \
  long n = g.n, k = g.k;                                                    \
  __global T *m = lu + batch * n * n;                                       \
  __global T *r = x + batch * n * k;                                        \
  long ao = g.a_offset + ep_unravel (batch, g.batch_ndim, g.batch_shape, g.a_batch); \
  int singular = 0;                                                         \
  T sign = 1;                                                               \
  ep_acc logdet = 0;                                                        \
                                                                            \
  for (long t = lid; t < n * n; t += size)                                  \
    m[t] = a[ao + (t / n) * g.a_row + (t % n) * g.a_col];                   \
  if (mode == MODE_INV)                                                     \
    for (long t = lid; t < n * n; t += size)                                \
      r[t] = t / n == t % n ? 1 : 0;                                        \
  if (mode == MODE_SOLVE)                                                   \
    {                                                                       \
      long bo = g.b_offset + ep_unravel (batch, g.batch_ndim, g.batch_shape, g.b_batch); \
      for (long t = lid; t < n * k; t += size)                              \
        r[t] = b[bo + (t / k) * g.b_row + (t % k) * g.b_col];               \
    }                                                                       \
  barrier (CLK_GLOBAL_MEM_FENCE);                                           \
                                                                            \
  for (long c = 0; c < n; c++)                                              \
    {                                                                       \
      T value = -1, pivot;                                                  \
      long at = c, p;                                                       \
                                                                            \
      /* the pivot: the first row of largest magnitude */                   \
      for (long i = c + lid; i < n; i += size)                              \
        if (fabs (m[i * n + c]) > value)                                    \
          {                                                                 \
            value = fabs (m[i * n + c]);                                    \
            at = i;                                                         \
          }                                                                 \
      best[lid] = value;                                                    \
      where[lid] = at;                                                      \
      barrier (CLK_LOCAL_MEM_FENCE);                                        \
      for (long s = size / 2; s > 0; s /= 2)                                \
        {                                                                   \
          if (lid < s && (best[lid + s] > best[lid]                         \
                          || (best[lid + s] == best[lid] && where[lid + s] < where[lid]))) \
            {                                                               \
              best[lid] = best[lid + s];                                    \
              where[lid] = where[lid + s];                                  \
            }                                                               \
          barrier (CLK_LOCAL_MEM_FENCE);                                    \
        }                                                                   \
      value = best[0];                                                      \
      p = where[0];                                                         \
      barrier (CLK_LOCAL_MEM_FENCE);                                        \
      if (!(value > 0))                                                     \
        {                                                                   \
          singular = 1;                                                     \
          break;                                                            \
        }                                                                   \
                                                                            \
      if (p != c)                                                           \
        {                                                                   \
          for (long j = lid; j < n; j += size)                              \
            {                                                               \
              T t = m[c * n + j];                                           \
              m[c * n + j] = m[p * n + j];                                  \
              m[p * n + j] = t;                                             \
            }                                                               \
          if (mode != MODE_SLOGDET)                                         \
            for (long j = lid; j < k; j += size)                            \
              {                                                             \
                T t = r[c * k + j];                                         \
                r[c * k + j] = r[p * k + j];                                \
                r[p * k + j] = t;                                           \
              }                                                             \
          sign = -sign;                                                     \
        }                                                                   \
      barrier (CLK_GLOBAL_MEM_FENCE);                                       \
                                                                            \
      pivot = m[c * n + c];                                                 \
      if (pivot < 0)                                                        \
        sign = -sign;                                                       \
      logdet += log ((ep_acc) fabs (pivot));                                \
      for (long i = c + 1 + lid; i < n; i += size)                          \
        m[i * n + c] /= pivot;                                              \
      barrier (CLK_GLOBAL_MEM_FENCE);                                       \
                                                                            \
      {                                                                     \
        long rest = n - c - 1;                                              \
        for (long t = lid; t < rest * rest; t += size)                      \
          {                                                                 \
            long i = c + 1 + t / rest, j = c + 1 + t % rest;                \
            T product = m[i * n + c] * m[c * n + j];                        \
            m[i * n + j] -= product;                                        \
          }                                                                 \
        if (mode != MODE_SLOGDET)                                           \
          for (long t = lid; t < rest * k; t += size)                       \
            {                                                               \
              long i = c + 1 + t / k, j = t % k;                            \
              T product = m[i * n + c] * r[c * k + j];                      \
              r[i * k + j] -= product;                                      \
            }                                                               \
      }                                                                     \
      barrier (CLK_GLOBAL_MEM_FENCE);                                       \
    }                                                                       \
                                                                            \
  if (mode == MODE_SLOGDET)                                                 \
    {                                                                       \
      if (lid == 0)                                                         \
        {                                                                   \
          signs[batch] = singular ? 0 : sign;                               \
          logs[batch] = singular ? -INFINITY : (T) logdet;                  \
        }                                                                   \
      return;                                                               \
    }                                                                       \
  if (singular)                                                             \
    {                                                                       \
      if (lid == 0)                                                         \
        ep_flag_raise (bad, batch);                                         \
      return;                                                               \
    }                                                                       \
                                                                            \
  /* back substitution with U */                                            \
  for (long c = n - 1; c >= 0; c--)                                         \
    {                                                                       \
      for (long j = lid; j < k; j += size)                                  \
        r[c * k + j] /= m[c * n + c];                                       \
      barrier (CLK_GLOBAL_MEM_FENCE);                                       \
      for (long t = lid; t < c * k; t += size)                              \
        {                                                                   \
          long i = t / k, j = t % k;                                        \
          T product = m[i * n + c] * r[c * k + j];                          \
          r[i * k + j] -= product;                                          \
        }                                                                   \
      barrier (CLK_GLOBAL_MEM_FENCE);                                       \
    }                                                                       \
}

LU (f32, float)
FP64 (LU (f64, double))
