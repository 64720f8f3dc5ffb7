/* sort.cl: sort, argsort, topk, searchsorted
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every row is copied with its indices into a scratch row padded to a
 * power of two P, sorted there by a bitonic network (log2(P) (log2(P) +
 * 1) / 2 launches of sort_step, one work-item per compared pair), and
 * copied out. Keys compare as on the CPU (ascending with NaN last, or
 * descending with NaN first, for topk) and equal keys by their index,
 * so the order is the CPU's stable merge sort's. Padding (index -1)
 * sorts after everything.
 */

#define FLOAT_ASCENDS(a, b)  ((a) < (b) || (isnan (b) && !isnan (a)))
#define FLOAT_DESCENDS(a, b) ((a) > (b) || (isnan (a) && !isnan (b)))
#define ASCENDS(a, b)        ((a) < (b))
#define DESCENDS(a, b)       ((a) > (b))

#define SORT(sfx, T, UP, DOWN)                                              \
/* rows of the input (operand 2 of g) into the scratch rows */              \
__kernel void                                                               \
sort_load_##sfx (__global T *keys,                                          \
                 __global long *idx,                                        \
                 __global const T *in,                                      \
                 const EpRows g,                                            \
                 long P)                                                    \
{                                                                           \
  for (long t = get_global_id (0); t < g.rows * P; t += get_global_size (0)) \
    {                                                                       \
      long r = t / P, j = t % P;                                            \
      if (j < g.length)                                                     \
        {                                                                   \
          keys[t] = in[ep_row_base (&g, 2, r) + j * g.axis_strides[2]];     \
          idx[t] = j;                                                       \
        }                                                                   \
      else                                                                  \
        idx[t] = -1;                                                        \
    }                                                                       \
}                                                                           \
                                                                            \
inline int                                                                  \
before_##sfx (__global const T *keys, __global const long *idx,             \
              long a, long b, int descending)                               \
{                                                                           \
  T ka, kb;                                                                 \
  if (idx[a] < 0)                                                           \
    return 0;                                                               \
  if (idx[b] < 0)                                                           \
    return 1;                                                               \
  ka = keys[a];                                                             \
  kb = keys[b];                                                             \
  if (descending ? DOWN (ka, kb) : UP (ka, kb))                             \
    return 1;                                                               \
  if (descending ? DOWN (kb, ka) : UP (kb, ka))                             \
    return 0;                                                               \
  return idx[a] < idx[b];                                                   \
}                                                                           \
                                                                            \
/* one stage (k, j) of the network over every row */                       \
__kernel void                                                               \
sort_step_##sfx (__global T *keys,                                          \
                 __global long *idx,                                        \
                 long rows,                                                 \
                 long P,                                                    \
                 long k,                                                    \
                 long j,                                                    \
                 int descending)                                            \
{                                                                           \
  long pairs = P / 2;                                                       \
  for (long t = get_global_id (0); t < rows * pairs; t += get_global_size (0)) \
    {                                                                       \
      long r = t / pairs, q = t % pairs;                                    \
      long i = (q / j) * 2 * j + q % j;                                     \
      long a = r * P + i, b = a + j;                                        \
      int up = (i & k) == 0;                                                \
      if (up ? before_##sfx (keys, idx, b, a, descending)                   \
             : before_##sfx (keys, idx, a, b, descending))                  \
        {                                                                   \
          T key = keys[a];                                                  \
          long index = idx[a];                                              \
          keys[a] = keys[b];                                                \
          idx[a] = idx[b];                                                  \
          keys[b] = key;                                                    \
          idx[b] = index;                                                   \
        }                                                                   \
    }                                                                       \
}                                                                           \
                                                                            \
/* the first @count of each sorted row into the values (operand 0) and   \
 * the indices (operand 1) */                                               \
__kernel void                                                               \
sort_store_##sfx (__global T *values,                                       \
                  __global long *indices,                                   \
                  __global const T *keys,                                   \
                  __global const long *idx,                                 \
                  const EpRows g,                                           \
                  long P,                                                   \
                  long count,                                               \
                  int want_values,                                          \
                  int want_indices)                                         \
{                                                                           \
  for (long t = get_global_id (0); t < g.rows * count; t += get_global_size (0)) \
    {                                                                       \
      long r = t / count, j = t % count;                                    \
      if (want_values)                                                      \
        values[ep_row_base (&g, 0, r) + j * g.axis_strides[0]] = keys[r * P + j]; \
      if (want_indices)                                                     \
        indices[ep_row_base (&g, 1, r) + j * g.axis_strides[1]] = idx[r * P + j]; \
    }                                                                       \
}                                                                           \
                                                                            \
/* topk, unsorted: the chosen elements in their order along the row,     \
 * from flags (rows × length) that mark them; one work-item a row */       \
__kernel void                                                               \
topk_gather_##sfx (__global T *values,                                      \
                   __global long *indices,                                  \
                   __global const T *in,                                    \
                   __global const uchar *chosen,                            \
                   const EpRows g)                                          \
{                                                                           \
  for (long r = get_global_id (0); r < g.rows; r += get_global_size (0))    \
    {                                                                       \
      long v = ep_row_base (&g, 0, r), x = ep_row_base (&g, 1, r);          \
      long p = ep_row_base (&g, 2, r);                                      \
      long out = 0;                                                         \
      for (long i = 0; i < g.length; i++)                                   \
        if (chosen[r * g.length + i])                                       \
          {                                                                 \
            values[v + out * g.axis_strides[0]] = in[p + i * g.axis_strides[2]]; \
            indices[x + out * g.axis_strides[1]] = i;                       \
            out++;                                                          \
          }                                                                 \
    }                                                                       \
}

SORT (f32, float, FLOAT_ASCENDS, FLOAT_DESCENDS)
FP64 (SORT (f64, double, FLOAT_ASCENDS, FLOAT_DESCENDS))
SORT (i32, int, ASCENDS, DESCENDS)
SORT (i64, long, ASCENDS, DESCENDS)
SORT (b, uchar, ASCENDS, DESCENDS)
SORT (u8, uchar, ASCENDS, DESCENDS)
SORT (i8, char, ASCENDS, DESCENDS)
SORT (i16, short, ASCENDS, DESCENDS)

/* marks the first k of each sorted row */
__kernel void
topk_mark (__global uchar *chosen,
           __global const long *idx,
           long rows,
           long length,
           long P,
           long k)
{
  for (long t = get_global_id (0); t < rows * k; t += get_global_size (0))
    {
      long r = t / k, j = t % k;
      chosen[r * length + idx[r * P + j]] = 1;
    }
}

/* searchsorted: one work-item per value, a binary search in its row (the
 * one sequence, or row i / m of a batch); NaN sorts last, as on the CPU */
#define SEARCH(sfx, T, BEFORE)                                              \
__kernel void                                                               \
searchsorted_##sfx (__global long *out,                                     \
                    __global const T *seq,                                  \
                    __global const T *values,                               \
                    const long seq_offset,                                  \
                    const long values_offset,                               \
                    const long n,                                           \
                    const long m,                                           \
                    const long total,                                       \
                    const long seq_batch,                                   \
                    const int right)                                        \
{                                                                           \
  for (long i = get_global_id (0); i < total; i += get_global_size (0))     \
    {                                                                       \
      long row = seq_offset + (m > 0 ? i / m : 0) * seq_batch;              \
      T v = values[values_offset + i];                                      \
      long lo = 0, hi = n;                                                  \
      while (lo < hi)                                                       \
        {                                                                   \
          long mid = lo + (hi - lo) / 2;                                    \
          T s = seq[row + mid];                                             \
          if (right ? !BEFORE (v, s) : BEFORE (s, v))                       \
            lo = mid + 1;                                                   \
          else                                                              \
            hi = mid;                                                       \
        }                                                                   \
      out[i] = lo;                                                          \
    }                                                                       \
}

SEARCH (f32, float, FLOAT_ASCENDS)
FP64 (SEARCH (f64, double, FLOAT_ASCENDS))
SEARCH (i32, int, ASCENDS)
SEARCH (i64, long, ASCENDS)
