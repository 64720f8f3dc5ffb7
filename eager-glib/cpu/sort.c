/* sort.c: sort, argsort, topk on the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each row is copied out with its indices and merge-sorted (stable,
 * O(n log n) for every input): insertion sort of short runs, then
 * bottom-up merges between two buffers.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ep-cpu-rows-private.h"
#include "ep-tensor-private.h"

#define RUN 16

/* Ascending with NaN last; descending (for topk) with NaN first. Ties
 * keep their order either way. */
#define FLOAT_ASCENDS(a, b)  ((a) < (b) || (isnan (b) && !isnan (a)))
#define FLOAT_DESCENDS(a, b) ((a) > (b) || (isnan (a) && !isnan (b)))
#define ASCENDS(a, b)        ((a) < (b))
#define DESCENDS(a, b)       ((a) > (b))

/* Sorts keys[0..n) with their indices; tk and ti are scratch of n.
 * Returns whichever buffer pair ends up holding the result. */
#define MERGE_SORT(name, T, BEFORE)                                         \
static void                                                                 \
name (T *keys, gint64 *idx, T *tk, gint64 *ti, gint64 n,                    \
      T **out_keys, gint64 **out_idx)                                       \
{                                                                           \
  T *src_k = keys, *dst_k = tk;                                             \
  gint64 *src_i = idx, *dst_i = ti;                                         \
  for (gint64 start = 0; start < n; start += RUN)                           \
    {                                                                       \
      gint64 end = MIN (start + RUN, n);                                    \
      for (gint64 i = start + 1; i < end; i++)                              \
        {                                                                   \
          T k = keys[i];                                                    \
          gint64 x = idx[i], j = i;                                         \
          while (j > start && BEFORE (k, keys[j - 1]))                      \
            {                                                               \
              keys[j] = keys[j - 1];                                        \
              idx[j] = idx[j - 1];                                          \
              j--;                                                          \
            }                                                               \
          keys[j] = k;                                                      \
          idx[j] = x;                                                       \
        }                                                                   \
    }                                                                       \
  for (gint64 width = RUN; width < n; width *= 2)                           \
    {                                                                       \
      for (gint64 lo = 0; lo < n; lo += 2 * width)                          \
        {                                                                   \
          gint64 mid = MIN (lo + width, n), hi = MIN (lo + 2 * width, n);   \
          gint64 a = lo, b = mid, o = lo;                                   \
          while (a < mid && b < hi)                                         \
            {                                                               \
              if (BEFORE (src_k[b], src_k[a]))                              \
                { dst_k[o] = src_k[b]; dst_i[o++] = src_i[b++]; }           \
              else                                                          \
                { dst_k[o] = src_k[a]; dst_i[o++] = src_i[a++]; }           \
            }                                                               \
          while (a < mid)                                                   \
            { dst_k[o] = src_k[a]; dst_i[o++] = src_i[a++]; }               \
          while (b < hi)                                                    \
            { dst_k[o] = src_k[b]; dst_i[o++] = src_i[b++]; }               \
        }                                                                   \
      { T *t = src_k; src_k = dst_k; dst_k = t; }                           \
      { gint64 *t = src_i; src_i = dst_i; dst_i = t; }                      \
    }                                                                       \
  *out_keys = src_k;                                                        \
  *out_idx = src_i;                                                         \
}

/* One row: copy in, sort, write the values (out 0) and/or the indices
 * (out 1) of the first @k; with !sorted, in their order along the row. */
typedef struct
{
  gint64    n;
  gint64    k;
  gboolean  sorted;
  gboolean  want_values;
  gboolean  want_indices;
  gpointer  keys, scratch_keys;
  gint64   *idx, *scratch_idx;
  guint8   *chosen;
} SortRows;

#define SORT_ROW(name, T, SORT)                                             \
static void                                                                 \
name (guint8 **rows, const gint64 *s, gpointer u)                           \
{                                                                           \
  SortRows *r = u;                                                          \
  const guint8 *in = rows[r->want_values && r->want_indices ? 2 : 1];       \
  gint64 in_stride = s[r->want_values && r->want_indices ? 2 : 1];          \
  guint8 *values = r->want_values ? rows[0] : NULL;                         \
  guint8 *indices = r->want_indices ? rows[r->want_values ? 1 : 0] : NULL;  \
  gint64 vs = s[0], is = s[r->want_values ? 1 : 0];                         \
  T *keys = r->keys, *sk;                                                   \
  gint64 *si;                                                               \
  for (gint64 i = 0; i < r->n; i++)                                         \
    {                                                                       \
      keys[i] = *(const T *) (in + i * in_stride);                          \
      r->idx[i] = i;                                                        \
    }                                                                       \
  SORT (keys, r->idx, r->scratch_keys, r->scratch_idx, r->n, &sk, &si);     \
  if (r->sorted)                                                            \
    {                                                                       \
      for (gint64 j = 0; j < r->k; j++)                                     \
        {                                                                   \
          if (values != NULL)                                               \
            *(T *) (values + j * vs) = sk[j];                               \
          if (indices != NULL)                                              \
            *(gint64 *) (indices + j * is) = si[j];                         \
        }                                                                   \
      return;                                                               \
    }                                                                       \
  memset (r->chosen, 0, r->n);                                              \
  for (gint64 j = 0; j < r->k; j++)                                         \
    r->chosen[si[j]] = 1;                                                   \
  for (gint64 i = 0, j = 0; i < r->n; i++)                                  \
    if (r->chosen[i])                                                       \
      {                                                                     \
        if (values != NULL)                                                 \
          *(T *) (values + j * vs) = *(const T *) (in + i * in_stride);     \
        if (indices != NULL)                                                \
          *(gint64 *) (indices + j * is) = i;                               \
        j++;                                                                \
      }                                                                     \
}

/* topk with k much smaller than the row: one pass keeping the best k
 * in order, O(n) for most inputs. A later element enters only if it
 * comes strictly before the k-th, and goes after its equals, so the
 * result is the stable sort's. Writes the sorted best k into r->keys
 * and r->idx. */
#define SELECT_ROW(name, T, BEFORE)                                         \
static void                                                                 \
name (const guint8 *in, gint64 in_stride, SortRows *r)                      \
{                                                                           \
  T *keys = r->keys;                                                        \
  gint64 *idx = r->idx, filled = 0;                                         \
  for (gint64 i = 0; i < r->n; i++)                                         \
    {                                                                       \
      T x = *(const T *) (in + i * in_stride);                              \
      gint64 j;                                                             \
      if (filled == r->k && !BEFORE (x, keys[filled - 1]))                  \
        continue;                                                           \
      j = filled < r->k ? filled++ : filled - 1;                            \
      while (j > 0 && BEFORE (x, keys[j - 1]))                              \
        {                                                                   \
          keys[j] = keys[j - 1];                                            \
          idx[j] = idx[j - 1];                                              \
          j--;                                                              \
        }                                                                   \
      keys[j] = x;                                                          \
      idx[j] = i;                                                           \
    }                                                                       \
}

#define SELECT_TOPK_ROW(name, T, SELECT)                                    \
static void                                                                 \
name (guint8 **rows, const gint64 *s, gpointer u)                           \
{                                                                           \
  SortRows *r = u;                                                          \
  const T *keys = r->keys;                                                  \
  SELECT (rows[2], s[2], r);                                                \
  if (!r->sorted)                                                           \
    {                                                                       \
      memset (r->chosen, 0, r->n);                                          \
      for (gint64 j = 0; j < r->k; j++)                                     \
        r->chosen[r->idx[j]] = 1;                                           \
      for (gint64 i = 0, j = 0; i < r->n; i++)                              \
        if (r->chosen[i])                                                   \
          {                                                                 \
            *(T *) (rows[0] + j * s[0]) = *(const T *) (rows[2] + i * s[2]);\
            *(gint64 *) (rows[1] + j * s[1]) = i;                           \
            j++;                                                            \
          }                                                                 \
      return;                                                               \
    }                                                                       \
  for (gint64 j = 0; j < r->k; j++)                                         \
    {                                                                       \
      *(T *) (rows[0] + j * s[0]) = keys[j];                                \
      *(gint64 *) (rows[1] + j * s[1]) = r->idx[j];                         \
    }                                                                       \
}

#define SORTS_FOR(SUFFIX, T, UP, DOWN)                                      \
  MERGE_SORT (ascend_##SUFFIX, T, UP)                                       \
  MERGE_SORT (descend_##SUFFIX, T, DOWN)                                    \
  SORT_ROW (ascend_row_##SUFFIX, T, ascend_##SUFFIX)                        \
  SORT_ROW (descend_row_##SUFFIX, T, descend_##SUFFIX)                      \
  SELECT_ROW (select_##SUFFIX, T, DOWN)                                     \
  SELECT_TOPK_ROW (select_row_##SUFFIX, T, select_##SUFFIX)

SORTS_FOR (f32, gfloat, FLOAT_ASCENDS, FLOAT_DESCENDS)
SORTS_FOR (f64, gdouble, FLOAT_ASCENDS, FLOAT_DESCENDS)
SORTS_FOR (i32, gint32, ASCENDS, DESCENDS)
SORTS_FOR (i64, gint64, ASCENDS, DESCENDS)
SORTS_FOR (b, guint8, ASCENDS, DESCENDS)
SORTS_FOR (i8, gint8, ASCENDS, DESCENDS)
SORTS_FOR (i16, gint16, ASCENDS, DESCENDS)

/* uint8 sorts as bool does: guint8 compared as numbers */
static const EpCpuRowFunc ascend_rows[EP_CPU_N_DTYPES] = {
  ascend_row_f32, ascend_row_f64, ascend_row_i32, ascend_row_i64, ascend_row_b, ascend_row_b, ascend_row_i8, ascend_row_i16
};
static const EpCpuRowFunc descend_rows[EP_CPU_N_DTYPES] = {
  descend_row_f32, descend_row_f64, descend_row_i32, descend_row_i64, descend_row_b, descend_row_b, descend_row_i8, descend_row_i16
};
static const EpCpuRowFunc select_rows[EP_CPU_N_DTYPES] = {
  select_row_f32, select_row_f64, select_row_i32, select_row_i64, select_row_b, select_row_b, select_row_i8, select_row_i16
};

/* Below this k / n the one-pass selection beats sorting the row. */
#define SELECT_FRACTION 16

static gboolean
sort_rows (EpOpCall  *call,
           guint      axis,
           gboolean   descending,
           SortRows  *r,
           GError   **error)
{
  EpTensor *in = call->inputs[0];
  EpDType dtype = in->layout.dtype;
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  EpTensor *tensors[3];
  guint n = 0;
  gboolean ok = FALSE;

  r->n = in->layout.shape[axis];
  r->keys = ep_cpu_scratch (call->op->name, r->n, itemsize, error);
  r->scratch_keys = r->keys ? ep_cpu_scratch (call->op->name, r->n, itemsize, error) : NULL;
  r->idx = r->scratch_keys ? ep_cpu_scratch (call->op->name, r->n, sizeof (gint64), error) : NULL;
  r->scratch_idx = r->idx ? ep_cpu_scratch (call->op->name, r->n, sizeof (gint64), error) : NULL;
  r->chosen = r->scratch_idx ? ep_cpu_scratch (call->op->name, r->n, 1, error) : NULL;

  if (r->chosen != NULL)
    {
      if (r->want_values)
        tensors[n++] = call->outputs[0];
      if (r->want_indices)
        tensors[n++] = call->outputs[r->want_values ? 1 : 0];
      tensors[n++] = in;
      const EpCpuRowFunc *rows = descending ? descend_rows : ascend_rows;

      if (descending && r->k > 0 && r->k * SELECT_FRACTION <= r->n)
        rows = select_rows;
      ep_cpu_for_each_row (tensors, n, axis, rows[dtype], r);
      ok = TRUE;
    }

  g_free (r->keys);
  g_free (r->scratch_keys);
  g_free (r->idx);
  g_free (r->scratch_idx);
  g_free (r->chosen);
  return ok;
}

static gboolean
cpu_sort (EpOpCall  *call,
          GError   **error)
{
  guint axis = call->attrs.axes[0];
  SortRows r = {
    .k = call->inputs[0]->layout.shape[axis],
    .sorted = TRUE,
    .want_values = call->op->id == EP_OP_SORT,
    .want_indices = call->op->id == EP_OP_ARGSORT,
  };

  return sort_rows (call, axis, FALSE, &r, error);
}

static gboolean
cpu_topk (EpOpCall  *call,
          GError   **error)
{
  SortRows r = {
    .k = call->attrs.topk.k,
    .sorted = call->attrs.topk.sorted,
    .want_values = TRUE,
    .want_indices = TRUE,
  };

  return sort_rows (call, call->inputs[0]->layout.ndim - 1, TRUE, &r, error);
}

/* searchsorted: one binary search per value; NaN sorts last */
#define FLOAT_BEFORE(a, b) ((a) < (b) || (isnan (b) && !isnan (a)))
#define PLAIN_BEFORE(a, b) ((a) < (b))

#define SEARCH_LOOP(name, T, BEFORE)                                        \
static void                                                                 \
name (const T *seq, const T *values, gint64 *out, gint64 n, gint64 m,       \
      gint64 total, gint64 seq_batch, gboolean right)                       \
{                                                                           \
  for (gint64 i = 0; i < total; i++)                                        \
    {                                                                       \
      const T *row = seq + (m > 0 ? i / m : 0) * seq_batch;                 \
      T v = values[i];                                                      \
      gint64 lo = 0, hi = n;                                                \
      while (lo < hi)                                                       \
        {                                                                   \
          gint64 mid = lo + (hi - lo) / 2;                                  \
          if (right ? !BEFORE (v, row[mid]) : BEFORE (row[mid], v))         \
            lo = mid + 1;                                                   \
          else                                                              \
            hi = mid;                                                       \
        }                                                                   \
      out[i] = lo;                                                          \
    }                                                                       \
}

SEARCH_LOOP (search_f32, gfloat, FLOAT_BEFORE)
SEARCH_LOOP (search_f64, gdouble, FLOAT_BEFORE)
SEARCH_LOOP (search_i32, gint32, PLAIN_BEFORE)
SEARCH_LOOP (search_i64, gint64, PLAIN_BEFORE)

static gboolean
cpu_searchsorted (EpOpCall  *call,
                  GError   **error)
{
  const EpLayout *seq = &call->inputs[0]->layout, *values = &call->inputs[1]->layout;
  gsize itemsize = ep_dtype_get_itemsize (seq->dtype);
  const guint8 *s = (const guint8 *) call->inputs[0]->storage->data + seq->offset * itemsize;
  const guint8 *v = (const guint8 *) call->inputs[1]->storage->data + values->offset * itemsize;
  gint64 *out = call->outputs[0]->storage->data;
  gint64 n = seq->shape[seq->ndim - 1];
  gint64 total = ep_layout_get_size (values);
  /* values per row of a batch; the whole of @values for one sequence */
  gint64 m = seq->ndim > 1 ? values->shape[values->ndim - 1] : total;
  gint64 seq_batch = seq->ndim > 1 ? n : 0;
  gboolean right = call->attrs.searchsorted.side == EP_SEARCH_SIDE_RIGHT;

  switch (seq->dtype)
    {
    case EP_DTYPE_FLOAT32:
      search_f32 ((const gfloat *) s, (const gfloat *) v, out, n, m, total, seq_batch, right);
      return TRUE;
    case EP_DTYPE_FLOAT64:
      search_f64 ((const gdouble *) s, (const gdouble *) v, out, n, m, total, seq_batch, right);
      return TRUE;
    case EP_DTYPE_INT32:
      search_i32 ((const gint32 *) s, (const gint32 *) v, out, n, m, total, seq_batch, right);
      return TRUE;
    case EP_DTYPE_INT64:
      search_i64 ((const gint64 *) s, (const gint64 *) v, out, n, m, total, seq_batch, right);
      return TRUE;
    default:
      break;
    }

  return ep_op_error_dtype (call, seq->dtype, error);
}

void
ep_cpu_register_sort (EpKernelFunc *kernels)
{
  kernels[EP_OP_SEARCHSORTED] = cpu_searchsorted;
  kernels[EP_OP_SORT] = cpu_sort;
  kernels[EP_OP_ARGSORT] = cpu_sort;
  kernels[EP_OP_TOPK] = cpu_topk;
}
