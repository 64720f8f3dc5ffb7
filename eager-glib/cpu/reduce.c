/* reduce.c: reductions on the CPU: sum, mean, max, min, prod, all, any,
 * argmin and argmax
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The output walks with the input, standing still (stride 0) along the
 * reduced axes. When the innermost run is a reduced axis the loop folds
 * it into one value (pairwise for float sums, as NumPy does); otherwise
 * it folds the input into a run of outputs. argmin and argmax walk the
 * rows along their axis.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ep-cpu-loops-private.h"
#include "ep-cpu-rows-private.h"
#include "ep-tensor-private.h"

/* Pairwise summation: the error grows with log n instead of n. The
 * leaves are blocks of up to 2048 elements summed in 64 running sums
 * (each of at most 32 elements), which are then added pairwise: four
 * to sixteen independent vector additions per step keep the vector
 * unit busy where one chain would wait on each addition's latency. The
 * order of the additions is fixed by the code, so every instruction
 * set and every thread count give the same bits. (NumPy sums blocks of
 * 128 in 8 running sums: a little more accurate, a few times slower.) */
#define PAIRWISE_BLOCK 2048
#define PAIRWISE_LANES 64

/* where a run of n > PAIRWISE_BLOCK is cut in two */
static inline gint64
pairwise_half (gint64 n)
{
  return (n / 2) / PAIRWISE_LANES * PAIRWISE_LANES;
}

/* the running sums added pairwise, halving: written out so that each
 * step is a few vector additions */
#define PAIRWISE_FOLD(acc, width)                                           \
  for (guint k = 0; k < (width); k++)                                       \
    (acc)[k] += (acc)[k + (width)]

G_STATIC_ASSERT (PAIRWISE_LANES == 64);

/* 64 bytes of elements: GCC's vector extension, which each clone maps
 * to its registers (one zmm, two ymm or four xmm) */
typedef gfloat VecF32 __attribute__ ((vector_size (64)));
typedef gdouble VecF64 __attribute__ ((vector_size (64)));

#define PAIRWISE_SUM(name, T, VT)                                           \
EP_CPU_CLONES                                                               \
static T                                                                    \
name (const guint8 *p, gint64 stride, gint64 n)                             \
{                                                                           \
  if (n <= 8)                                                               \
    {                                                                       \
      /* the tree below on its first 8 lanes, the others zeros (each        \
       * lane is added a zero first, as there: -0 becomes +0); in           \
       * scalars, which the compiler keeps in registers */                  \
      T a[8];                                                               \
      for (guint k = 0; k < 8; k++)                                         \
        a[k] = (k < n ? *(const T *) (p + k * stride) : (T) 0) + (T) 0;     \
      return ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7])); \
    }                                                                       \
  if (n <= PAIRWISE_BLOCK)                                                  \
    {                                                                       \
      enum { PER_VEC = sizeof (VT) / sizeof (T), N_VEC = PAIRWISE_LANES / PER_VEC }; \
      T acc[PAIRWISE_LANES];                                                \
      gint64 i = 0;                                                         \
      if (stride == sizeof (T))                                             \
        {                                                                   \
          /* acc[k] collects x[k], x[k + 64], …: in vector registers */     \
          const T *x = (const T *) p;                                       \
          VT sums[N_VEC] = { 0 };                                           \
          for (; i + PAIRWISE_LANES <= n; i += PAIRWISE_LANES)              \
            _Pragma ("GCC unroll 8")                                        \
            for (guint v = 0; v < N_VEC; v++)                               \
              {                                                             \
                VT chunk;                                                   \
                memcpy (&chunk, x + i + v * PER_VEC, sizeof chunk);         \
                sums[v] += chunk;                                           \
              }                                                             \
          memcpy (acc, sums, sizeof acc);                                   \
        }                                                                   \
      else                                                                  \
        memset (acc, 0, sizeof acc);                                        \
      for (; i < n; i++)                                                    \
        acc[i % PAIRWISE_LANES] += *(const T *) (p + i * stride);           \
      PAIRWISE_FOLD (acc, 32);                                              \
      PAIRWISE_FOLD (acc, 16);                                              \
      PAIRWISE_FOLD (acc, 8);                                               \
      PAIRWISE_FOLD (acc, 4);                                               \
      PAIRWISE_FOLD (acc, 2);                                               \
      PAIRWISE_FOLD (acc, 1);                                               \
      return acc[0];                                                        \
    }                                                                       \
  else                                                                      \
    {                                                                       \
      gint64 half = pairwise_half (n);                                      \
      return name (p, stride, half) + name (p + half * stride, stride, n - half); \
    }                                                                       \
}

PAIRWISE_SUM (pairwise_f32, gfloat, VecF32)
PAIRWISE_SUM (pairwise_f64, gdouble, VecF64)

static gint64
run_sum_i64 (const guint8 *p, gint64 stride, gint64 n)
{
  guint64 total = 0;

  for (gint64 i = 0; i < n; i++)
    total += (guint64) *(const gint64 *) (p + i * stride);

  return (gint64) total;
}

#define SUM_LOOP(name, T, RUN, ADD)                                         \
EP_CPU_CLONES                                                               \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  T *out = (T *) p[0];                                                      \
  if (s[0] == 0)                                                            \
    *out = ADD (*out, RUN (p[1], s[1], n));                                 \
  else if (s[1] == sizeof (T))                                              \
    {                                                                       \
      const T *restrict x = (const T *) p[1];                               \
      T *restrict o = out;                                                  \
      for (gint64 i = 0; i < n; i++)                                        \
        o[i] = ADD (o[i], x[i]);                                            \
    }                                                                       \
  else                                                                      \
    for (gint64 i = 0; i < n; i++)                                          \
      out[i] = ADD (out[i], *(const T *) (p[1] + i * s[1]));                \
}

#define PLUS(a, b) ((a) + (b))
#define WRAPPING_PLUS(a, b) ((gint64) ((guint64) (a) + (guint64) (b)))

SUM_LOOP (sum_f32, gfloat, pairwise_f32, PLUS)
SUM_LOOP (sum_f64, gdouble, pairwise_f64, PLUS)
SUM_LOOP (sum_i64, gint64, run_sum_i64, WRAPPING_PLUS)

/* Rows of 2 to ROWS_MAX elements summed one after another in one call
 * (a reduction over a short innermost axis): the loop runs over rows,
 * its user data the row length, and sums each row into its output as
 * SUM_LOOP's one-row call does, ADD (*out, RUN (row, 1, n)), bit for
 * bit. For n <= 16 PAIRWISE_SUM's order is, written out: the block path
 * (9 to 16) zeroes 64 lanes, adds x[k] to lane k and folds them, so
 * lanes 8 to 15 meet lanes 0 to 7 and then the n <= 8 tree follows,
 * which is the n <= 8 path's too (there a[k] + 0 is a[k]: a[k] = x + 0
 * is never -0). Only the grouping of the additions fixes a result that
 * is not NaN (each addition is exact up to its rounding, whichever
 * operand comes first); of two NaNs though the first operand wins, and
 * the compiler may swap operands, so a NaN row is summed again by RUN
 * itself, for the very NaN it gives. tests/c/ops/reduce.c checks this
 * against rows reduced one by one. */
#define ROWS_MAX 16
G_STATIC_ASSERT (ROWS_MAX <= 16);

#define PAIRWISE_16(name, T)                                                \
static inline __attribute__ ((always_inline)) T                             \
name (const guint8 *p, gint64 n)                                            \
{                                                                           \
  const T *x = (const T *) p;                                               \
  T a[16], c[8];                                                            \
  for (guint k = 0; k < 16; k++)                                            \
    a[k] = (k < n ? x[k] : (T) 0) + (T) 0;                                  \
  for (guint k = 0; k < 8; k++)                                             \
    c[k] = a[k] + a[k + 8];                                                 \
  return ((c[0] + c[4]) + (c[2] + c[6])) + ((c[1] + c[5]) + (c[3] + c[7])); \
}

PAIRWISE_16 (pairwise_16_f32, gfloat)
PAIRWISE_16 (pairwise_16_f64, gdouble)

#define SUM_ROWS_FLOAT(name, T, RUN16, RUN)                                 \
EP_CPU_CLONES                                                               \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 rows, gconstpointer u)            \
{                                                                           \
  const gint64 n = *(const gint64 *) u;                                     \
  g_assert (n <= 16);             /* the tree above is for 16 lanes */    \
  for (gint64 r = 0; r < rows; r++)                                         \
    {                                                                       \
      T *out = (T *) (p[0] + r * s[0]);                                     \
      const guint8 *x = p[1] + r * s[1];                                    \
      T sum = RUN16 (x, n);                                                 \
      if (G_UNLIKELY (isnan (sum)))                                         \
        sum = RUN (x, sizeof (T), n);                                       \
      *out = *out + sum;                                                    \
    }                                                                       \
}

SUM_ROWS_FLOAT (sum_rows_f32, gfloat, pairwise_16_f32, pairwise_f32)
SUM_ROWS_FLOAT (sum_rows_f64, gdouble, pairwise_16_f64, pairwise_f64)

EP_CPU_CLONES
static void
sum_rows_i64 (guint8 **p, const gint64 *s, gint64 rows, gconstpointer u)
{
  const gint64 n = *(const gint64 *) u;

  for (gint64 r = 0; r < rows; r++)
    {
      gint64 *out = (gint64 *) (p[0] + r * s[0]);

      *out = WRAPPING_PLUS (*out, run_sum_i64 (p[1] + r * s[1], sizeof (gint64), n));
    }
}

/* Extrema propagate NaN: once the running value is NaN it stays. Of
 * equal values the later wins, which only shows with 0 and -0. */
#define FMAX(m, x) (((m) > (x) || isnan (m)) ? (m) : (x))
#define FMIN(m, x) (((m) < (x) || isnan (m)) ? (m) : (x))
#define IMAX(m, x) ((m) > (x) ? (m) : (x))
#define IMIN(m, x) ((m) < (x) ? (m) : (x))

/* The fold of PICK over m, x[0] … x[n-1] of a contiguous float run,
 * vectorized: lanes keep their extremum and note any NaN. With a NaN
 * the plain fold runs (it returns the first NaN); a zero result is
 * looked up again, so that it has the sign the plain fold would give
 * (the last zero wins). Any other value is the same in every lane. */
#define FLOAT_RUN(name, T, PICK, BETTER)                                    \
EP_CPU_CLONES                                                               \
static T                                                                    \
name (T m, const T *restrict x, gint64 n)                                   \
{                                                                           \
  T lanes[16];                                                              \
  gint32 nans[16] = { 0 };                                                  \
  guint32 nan = 0;                                                          \
  gint64 i = 0;                                                             \
  T best;                                                                   \
  if (isnan (m))                                                            \
    return m;                                                               \
  for (guint k = 0; k < 16; k++)                                            \
    lanes[k] = m;                                                           \
  for (; i + 16 <= n; i += 16)                                              \
    for (guint k = 0; k < 16; k++)                                          \
      {                                                                     \
        T v = x[i + k];                                                     \
        nans[k] |= v != v;                                                  \
        lanes[k] = v BETTER lanes[k] ? v : lanes[k];                        \
      }                                                                     \
  for (guint k = 0; k < 16; k++)                                            \
    nan |= nans[k];                                                         \
  for (; i < n; i++)                                                        \
    {                                                                       \
      nan |= x[i] != x[i];                                                  \
      lanes[0] = x[i] BETTER lanes[0] ? x[i] : lanes[0];                    \
    }                                                                       \
  if (nan)                                                                  \
    {                                                                       \
      for (i = 0; i < n; i++)                                               \
        m = PICK (m, x[i]);                                                 \
      return m;                                                             \
    }                                                                       \
  best = lanes[0];                                                          \
  for (guint k = 1; k < 16; k++)                                            \
    best = lanes[k] BETTER best ? lanes[k] : best;                          \
  if (best == 0)                                                            \
    {                                                                       \
      for (i = n; i-- > 0;)                                                 \
        if (x[i] == 0)                                                      \
          return x[i];                                                      \
      return m;                                                             \
    }                                                                       \
  return best;                                                              \
}

FLOAT_RUN (max_run_f32, gfloat, FMAX, >)
FLOAT_RUN (max_run_f64, gdouble, FMAX, >)
FLOAT_RUN (min_run_f32, gfloat, FMIN, <)
FLOAT_RUN (min_run_f64, gdouble, FMIN, <)

gfloat
ep_cpu_fold_max_f32 (gfloat        m,
                     const gfloat *x,
                     gint64        n)
{
  return max_run_f32 (m, x, n);
}

gdouble
ep_cpu_fold_max_f64 (gdouble        m,
                     const gdouble *x,
                     gint64         n)
{
  return max_run_f64 (m, x, n);
}

/* Integer runs need no care: the plain fold vectorizes. */
#define INT_RUN(name, T, PICK)                                              \
EP_CPU_CLONES                                                               \
static T                                                                    \
name (T m, const T *restrict x, gint64 n)                                   \
{                                                                           \
  for (gint64 i = 0; i < n; i++)                                            \
    m = PICK (m, x[i]);                                                     \
  return m;                                                                 \
}

INT_RUN (max_run_i32, gint32, IMAX)
INT_RUN (max_run_i64, gint64, IMAX)
INT_RUN (max_run_b, guint8, IMAX)
INT_RUN (max_run_i8, gint8, IMAX)
INT_RUN (max_run_i16, gint16, IMAX)
INT_RUN (min_run_i32, gint32, IMIN)
INT_RUN (min_run_i64, gint64, IMIN)
INT_RUN (min_run_b, guint8, IMIN)
INT_RUN (min_run_i8, gint8, IMIN)
INT_RUN (min_run_i16, gint16, IMIN)

#define EXTREMUM_LOOP(name, T, PICK, RUN)                                   \
EP_CPU_CLONES                                                               \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  T *out = (T *) p[0];                                                      \
  if (s[0] == 0 && s[1] == sizeof (T))                                      \
    *out = RUN (*out, (const T *) p[1], n);                                 \
  else if (s[0] == 0)                                                       \
    {                                                                       \
      T m = *out;                                                           \
      for (gint64 i = 0; i < n; i++)                                        \
        m = PICK (m, *(const T *) (p[1] + i * s[1]));                       \
      *out = m;                                                             \
    }                                                                       \
  else if (s[1] == sizeof (T))                                              \
    {                                                                       \
      const T *restrict x = (const T *) p[1];                               \
      T *restrict o = out;                                                  \
      for (gint64 i = 0; i < n; i++)                                        \
        o[i] = PICK (o[i], x[i]);                                           \
    }                                                                       \
  else                                                                      \
    for (gint64 i = 0; i < n; i++)                                          \
      out[i] = PICK (out[i], *(const T *) (p[1] + i * s[1]));               \
}

EXTREMUM_LOOP (max_f32, gfloat, FMAX, max_run_f32)
EXTREMUM_LOOP (max_f64, gdouble, FMAX, max_run_f64)
EXTREMUM_LOOP (max_i32, gint32, IMAX, max_run_i32)
EXTREMUM_LOOP (max_i64, gint64, IMAX, max_run_i64)
EXTREMUM_LOOP (max_b, guint8, IMAX, max_run_b)
EXTREMUM_LOOP (max_i8, gint8, IMAX, max_run_i8)
EXTREMUM_LOOP (max_i16, gint16, IMAX, max_run_i16)
EXTREMUM_LOOP (min_f32, gfloat, FMIN, min_run_f32)
EXTREMUM_LOOP (min_f64, gdouble, FMIN, min_run_f64)
EXTREMUM_LOOP (min_i32, gint32, IMIN, min_run_i32)
EXTREMUM_LOOP (min_i64, gint64, IMIN, min_run_i64)
EXTREMUM_LOOP (min_b, guint8, IMIN, min_run_b)
EXTREMUM_LOOP (min_i8, gint8, IMIN, min_run_i8)
EXTREMUM_LOOP (min_i16, gint16, IMIN, min_run_i16)

/* Extrema of short contiguous rows, as EXTREMUM_LOOP's one-row call:
 * the same RUN on each row. */
#define EXTREMUM_ROWS(name, T, RUN)                                         \
EP_CPU_CLONES                                                               \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 rows, gconstpointer u)            \
{                                                                           \
  const gint64 n = *(const gint64 *) u;                                     \
  for (gint64 r = 0; r < rows; r++)                                         \
    {                                                                       \
      T *out = (T *) (p[0] + r * s[0]);                                     \
      *out = RUN (*out, (const T *) (p[1] + r * s[1]), n);                  \
    }                                                                       \
}

EXTREMUM_ROWS (max_rows_f32, gfloat, max_run_f32)
EXTREMUM_ROWS (max_rows_f64, gdouble, max_run_f64)
EXTREMUM_ROWS (max_rows_i32, gint32, max_run_i32)
EXTREMUM_ROWS (max_rows_i64, gint64, max_run_i64)
EXTREMUM_ROWS (max_rows_b, guint8, max_run_b)
EXTREMUM_ROWS (max_rows_i8, gint8, max_run_i8)
EXTREMUM_ROWS (max_rows_i16, gint16, max_run_i16)
EXTREMUM_ROWS (min_rows_f32, gfloat, min_run_f32)
EXTREMUM_ROWS (min_rows_f64, gdouble, min_run_f64)
EXTREMUM_ROWS (min_rows_i32, gint32, min_run_i32)
EXTREMUM_ROWS (min_rows_i64, gint64, min_run_i64)
EXTREMUM_ROWS (min_rows_b, guint8, min_run_b)
EXTREMUM_ROWS (min_rows_i8, gint8, min_run_i8)
EXTREMUM_ROWS (min_rows_i16, gint16, min_run_i16)

/* Whole contiguous tensors into one value, on several threads. Sums of
 * floats cut the pairwise tree at the same nodes a single thread would
 * (leaves of at most `leaf` elements, `leaf` a function of n alone),
 * sum the leaves in parallel and join them up the tree: the result is
 * bit for bit the serial one. Extrema and integer sums fold parts and
 * then the parts in order, which for them is the serial result too (see
 * the comment on FMAX: ties and NaN keep the same winner). */

#define MAX_LEAVES 512

typedef struct
{
  const guint8 *data;
  gsize         itemsize;
  gint64        leaf;
  gint64        offsets[MAX_LEAVES];
  gint64        sizes[MAX_LEAVES];
  gdouble       values[MAX_LEAVES];
  guint         n_leaves;
  guint         n_parts;
  EpDType       dtype;
} Tree;

static void
tree_collect (Tree   *tree,
              gint64  offset,
              gint64  n)
{
  if (n <= tree->leaf)
    {
      tree->offsets[tree->n_leaves] = offset;
      tree->sizes[tree->n_leaves] = n;
      tree->n_leaves++;
      return;
    }

  /* the split of PAIRWISE_SUM */
  {
    gint64 half = pairwise_half (n);

    tree_collect (tree, offset, half);
    tree_collect (tree, offset + half, n - half);
  }
}

static gdouble
tree_join (const Tree *tree,
           gint64      n,
           guint      *next)
{
  gint64 half;
  gdouble left;

  if (n <= tree->leaf)
    return tree->values[(*next)++];

  half = pairwise_half (n);
  left = tree_join (tree, half, next);
  /* in the element type, as the serial sum adds */
  if (tree->dtype == EP_DTYPE_FLOAT32)
    return (gfloat) ((gfloat) left + (gfloat) tree_join (tree, n - half, next));
  return left + tree_join (tree, n - half, next);
}

static void
tree_sum_part (gpointer data,
               guint    part)
{
  Tree *tree = data;
  guint first = tree->n_leaves * part / tree->n_parts;
  guint last = tree->n_leaves * (part + 1) / tree->n_parts;

  for (guint i = first; i < last; i++)
    {
      const guint8 *p = tree->data + tree->offsets[i] * tree->itemsize;

      tree->values[i] = tree->dtype == EP_DTYPE_FLOAT32
                        ? pairwise_f32 (p, sizeof (gfloat), tree->sizes[i])
                        : pairwise_f64 (p, sizeof (gdouble), tree->sizes[i]);
    }
}

/* A whole contiguous tensor that is large: worth the threads. */
static gboolean
is_whole_and_large (EpOpCall *call)
{
  EpTensor *in = call->inputs[0];
  gint64 n = ep_layout_get_size (&in->layout);

  return ep_layout_get_size (&call->outputs[0]->layout) == 1
         && n >= EP_CPU_PARALLEL_MIN && ep_cpu_get_n_threads () > 1
         && ep_layout_is_contiguous (&in->layout);
}

static void
sum_whole_float (EpOpCall *call)
{
  EpTensor *in = call->inputs[0];
  gint64 n = ep_layout_get_size (&in->layout);
  Tree tree;
  guint next = 0;
  gdouble total;

  tree.data = ep_tensor_host_data (in);
  tree.dtype = in->layout.dtype;
  tree.itemsize = ep_dtype_get_itemsize (tree.dtype);
  /* leaves hold between leaf/2 and leaf elements: at most MAX_LEAVES */
  tree.leaf = MAX ((gint64) EP_CPU_GRAIN, (n + MAX_LEAVES / 2 - 1) / (MAX_LEAVES / 2));
  tree.n_leaves = 0;
  tree_collect (&tree, 0, n);
  tree.n_parts = MIN (tree.n_leaves, 4 * ep_cpu_get_n_threads ());

  ep_cpu_parallel_for (tree.n_parts, tree_sum_part, &tree);
  total = tree_join (&tree, n, &next);

  if (tree.dtype == EP_DTYPE_FLOAT32)
    *(gfloat *) call->outputs[0]->storage->data = (gfloat) total;
  else
    *(gdouble *) call->outputs[0]->storage->data = total;
}

/* A sum of elements made on the fly (graph fusion, cpu/fused.c): the
 * same leaves as sum_whole_float(), each made into a buffer of its own
 * and summed there, so that the result is cpu_sum()'s bit for bit. */
typedef struct
{
  Tree              tree;
  EpCpuProduceFunc  produce;
  gpointer          data;
  gint              out_of_memory;  /* a part found no buffer */
} ProducedTree;

static void
produced_sum_part (gpointer data,
                   guint    part)
{
  ProducedTree *produced = data;
  Tree *tree = &produced->tree;
  guint first = tree->n_leaves * part / tree->n_parts;
  guint last = tree->n_leaves * (part + 1) / tree->n_parts;
  gsize nbytes = tree->leaf * tree->itemsize;
  guint8 *buffer = ep_cpu_cache_alloc (nbytes);

  if (buffer == NULL)
    {
      for (guint i = first; i < last; i++)
        tree->values[i] = 0;
      g_atomic_int_set (&produced->out_of_memory, TRUE);
      return;
    }
  for (guint i = first; i < last; i++)
    {
      const guint8 *made = produced->produce (produced->data, tree->offsets[i], tree->sizes[i], buffer);

      tree->values[i] = tree->dtype == EP_DTYPE_FLOAT32
                        ? pairwise_f32 (made, sizeof (gfloat), tree->sizes[i])
                        : pairwise_f64 (made, sizeof (gdouble), tree->sizes[i]);
    }
  ep_cpu_cache_release (buffer, nbytes);
}

gboolean
ep_cpu_sum_produced (EpDType           dtype,
                     gint64            n,
                     EpCpuProduceFunc  produce,
                     gpointer          data,
                     gpointer          out)
{
  ProducedTree produced = { .produce = produce, .data = data };
  Tree *tree = &produced.tree;
  /* as sum_into() chooses: the serial kernel sums the whole run into a
   * zeroed output, 0 + pairwise (x, n), which the tree's leaves give too,
   * joined as the serial recursion adds them */
  gboolean serial = n < EP_CPU_PARALLEL_MIN || ep_cpu_get_n_threads () <= 1;
  guint next = 0;
  gdouble total;

  g_return_val_if_fail (ep_dtype_is_floating (dtype), FALSE);

  tree->data = NULL;
  tree->dtype = dtype;
  tree->itemsize = ep_dtype_get_itemsize (dtype);
  tree->leaf = MAX ((gint64) EP_CPU_GRAIN, (n + MAX_LEAVES / 2 - 1) / (MAX_LEAVES / 2));
  tree->n_leaves = 0;
  tree_collect (tree, 0, n);
  tree->n_parts = serial ? 1 : MIN (tree->n_leaves, 4 * ep_cpu_get_n_threads ());
  if (serial)
    produced_sum_part (&produced, 0);
  else
    ep_cpu_parallel_for (tree->n_parts, produced_sum_part, &produced);
  total = tree_join (tree, n, &next);

  if (dtype == EP_DTYPE_FLOAT32)
    *(gfloat *) out = serial ? 0.0f + (gfloat) total : (gfloat) total;
  else
    *(gdouble *) out = serial ? 0.0 + total : total;
  return !produced.out_of_memory;
}

/* Sums along the last axis of elements made on the fly: rows of
 * @row_length, each made into a buffer and summed into a zeroed output
 * (SUM_LOOP's 0 + pairwise (row)), as cpu_sum() does for more than one
 * row; any split of the rows between threads gives the same bits. */
typedef struct
{
  EpDType           dtype;
  gint64            n_rows;
  gint64            row_length;
  gint64            rows_per_part;
  EpCpuProduceFunc  produce;
  EpCpuRowDoneFunc  done;
  gpointer          data;
  guint8           *out;
  gint              out_of_memory;  /* a part found no buffer */
} ProducedRows;

static void
produced_rows_part (gpointer data,
                    guint    part)
{
  ProducedRows *rows = data;
  gsize itemsize = ep_dtype_get_itemsize (rows->dtype);
  gsize nbytes = MAX (rows->row_length, 1) * itemsize;
  guint8 *buffer = ep_cpu_cache_alloc (nbytes);
  gint64 first = part * rows->rows_per_part;
  gint64 last = MIN (first + rows->rows_per_part, rows->n_rows);

  if (buffer == NULL)
    {
      g_atomic_int_set (&rows->out_of_memory, TRUE);
      return;
    }
  for (gint64 r = first; r < last; r++)
    {
      const guint8 *made = rows->produce (rows->data, r * rows->row_length, rows->row_length, buffer);

      if (rows->dtype == EP_DTYPE_FLOAT32)
        ((gfloat *) rows->out)[r] = 0.0f + pairwise_f32 (made, sizeof (gfloat), rows->row_length);
      else
        ((gdouble *) rows->out)[r] = 0.0 + pairwise_f64 (made, sizeof (gdouble), rows->row_length);
      if (rows->done != NULL)
        rows->done (rows->data, r, made, rows->out + r * itemsize);
    }
  ep_cpu_cache_release (buffer, nbytes);
}

gboolean
ep_cpu_sum_rows_produced (EpDType           dtype,
                          gint64            n_rows,
                          gint64            row_length,
                          EpCpuProduceFunc  produce,
                          EpCpuRowDoneFunc  done,
                          gpointer          data,
                          gpointer          out)
{
  ProducedRows rows = { dtype, n_rows, row_length, n_rows, produce, done, data, out };
  gint64 total = n_rows * row_length;

  g_return_val_if_fail (ep_dtype_is_floating (dtype), FALSE);
  g_return_val_if_fail (done == NULL || n_rows != 1, FALSE);

  /* one output: the whole sum's path */
  if (n_rows == 1)
    return ep_cpu_sum_produced (dtype, row_length, produce, data, out);
  if (n_rows == 0)
    return TRUE;

  if (total >= EP_CPU_PARALLEL_MIN)
    rows.rows_per_part = MAX (1, 2 * EP_CPU_GRAIN / MAX (row_length, 1));
  ep_cpu_parallel_for ((guint) ((n_rows + rows.rows_per_part - 1) / rows.rows_per_part),
                       produced_rows_part, &rows);
  return !rows.out_of_memory;
}

/* Parts folded by the op's own loop, then the parts in order. */
typedef struct
{
  const guint8 *data;
  gsize         itemsize;
  gint64        n;
  guint         n_parts;
  EpCpuLoop     loop;
  gboolean      from_zero;
  guint64       results[MAX_LEAVES];   /* one element each, aligned */
} Parts;

static void
fold_part (gpointer data,
           guint    part)
{
  Parts *parts = data;
  gint64 start = parts->n * part / parts->n_parts;
  gint64 end = parts->n * (part + 1) / parts->n_parts;
  guint8 *ptrs[2];
  const gint64 strides[2] = { 0, (gint64) parts->itemsize };

  /* a sum starts from zero; an extremum from the part's first element,
   * which the fold keeps */
  if (parts->from_zero)
    memset (&parts->results[part], 0, parts->itemsize);
  else
    memcpy (&parts->results[part], parts->data + start * parts->itemsize, parts->itemsize);
  ptrs[0] = (guint8 *) &parts->results[part];
  ptrs[1] = (guint8 *) parts->data + start * parts->itemsize;
  parts->loop (ptrs, strides, end - start, NULL);
}

static void
fold_whole (EpOpCall  *call,
            EpCpuLoop  loop,
            gboolean   from_zero)
{
  EpTensor *in = call->inputs[0];
  guint8 *out = call->outputs[0]->storage->data;
  Parts parts;
  guint8 *ptrs[2];
  const gint64 strides[2] = { 0, 0 };

  parts.data = ep_tensor_host_data (in);
  parts.itemsize = ep_dtype_get_itemsize (in->layout.dtype);
  parts.n = ep_layout_get_size (&in->layout);
  parts.n_parts = (guint) MIN (parts.n / EP_CPU_GRAIN, 4 * (gint64) ep_cpu_get_n_threads ());
  parts.n_parts = MAX (parts.n_parts, 1);
  parts.loop = loop;
  parts.from_zero = from_zero;
  ep_cpu_parallel_for (parts.n_parts, fold_part, &parts);

  /* the parts in order, into the output */
  if (from_zero)
    memset (out, 0, parts.itemsize);
  else
    memcpy (out, &parts.results[0], parts.itemsize);
  ptrs[0] = out;
  for (guint i = from_zero ? 0 : 1; i < parts.n_parts; i++)
    {
      ptrs[1] = (guint8 *) &parts.results[i];
      loop (ptrs, strides, 1, NULL);
    }
}

/* uint8's extrema are bool's loops: both are guint8 compared as numbers.
 * (Sums and products of integers run in int64, as the rules cast.) */
#define max_u8 max_b
#define min_u8 min_b
#define max_rows_u8 max_rows_b
#define min_rows_u8 min_rows_b

static const EpCpuLoop max_loops[EP_CPU_N_DTYPES] = ROW_U8 (max);
static const EpCpuLoop min_loops[EP_CPU_N_DTYPES] = ROW_U8 (min);
static const EpCpuLoop sum_loops[EP_CPU_N_DTYPES] = { sum_f32, sum_f64, NULL, sum_i64 };
static const EpCpuLoop max_rows_loops[EP_CPU_N_DTYPES] = ROW_U8 (max_rows);
static const EpCpuLoop min_rows_loops[EP_CPU_N_DTYPES] = ROW_U8 (min_rows);
static const EpCpuLoop sum_rows_loops[EP_CPU_N_DTYPES] = { sum_rows_f32, sum_rows_f64, NULL, sum_rows_i64 };

/* Starts every output at the first element of its reduction, which is
 * the identity that works for extrema of every type (and keeps NaN). */
static void
fill_first (EpOpCall *call)
{
  EpTensor *in = call->inputs[0];
  EpTensor *out = call->outputs[0];
  const gint *axes = call->attrs.axes;
  guint n_axes = call->attrs.n_axes;
  EpLayout first = in->layout;
  g_autoptr(EpTensor) view = NULL;
  EpCpuIter iter;

  for (guint a = 0; a < n_axes; a++)
    first.shape[axes[a]] = 1;
  view = ep_tensor_new_with_storage (&first, in->storage);

  ep_cpu_iter_init (&iter, first.shape, first.ndim);
  ep_cpu_iter_add_reduced (&iter, out, axes, n_axes);
  ep_cpu_iter_add (&iter, view);
  ep_cpu_iter_run_parallel (&iter, ep_cpu_copy_loop_for_itemsize (ep_dtype_get_itemsize (in->layout.dtype)), NULL);
}

/* The row length when @call reduces a contiguous input over its
 * innermost axes (extent-1 axes aside) into rows of 2 to ROWS_MAX
 * elements, of which there are several (*n_rows); else 0. */
static gint64
short_rows (EpOpCall *call,
            gint64   *n_rows)
{
  const EpLayout *layout = &call->inputs[0]->layout;
  gboolean in_row = FALSE;
  gint64 n = 1;
  gint64 rows = 1;

  if (!ep_layout_is_contiguous (layout))
    return 0;

  for (guint d = 0; d < layout->ndim; d++)
    {
      gboolean reduced = FALSE;

      for (guint a = 0; a < call->attrs.n_axes; a++)
        reduced |= call->attrs.axes[a] == (gint) d;

      if (layout->shape[d] == 1)
        continue;
      if (reduced)
        {
          n *= layout->shape[d];
          in_row = TRUE;
          if (n > ROWS_MAX)
            return 0;
        }
      else if (in_row)
        return 0;
      else if (__builtin_mul_overflow (rows, layout->shape[d], &rows))
        return 0;
    }

  if (n < 2 || rows < 2)
    return 0;
  *n_rows = rows;
  return n;
}

/* The rows one after another: each call of @rows_loop folds a run of
 * rows, the threads splitting the rows between them. */
static void
reduce_rows (EpOpCall  *call,
             EpCpuLoop  rows_loop,
             gint64     n_rows,
             gint64     n)
{
  EpTensor *in = call->inputs[0];
  EpTensor *out = call->outputs[0];
  gint64 itemsize = ep_dtype_itemsize (in->layout.dtype);
  EpCpuIter iter;

  g_assert (out->layout.dtype == in->layout.dtype);

  ep_cpu_iter_init (&iter, &n_rows, 1);
  iter.n_operands = 2;
  iter.base[0] = ep_tensor_host_data (out);
  iter.strides[0][0] = itemsize;
  iter.base[1] = ep_tensor_host_data (in);
  iter.strides[1][0] = n * itemsize;
  ep_cpu_iter_run_parallel_cost (&iter, rows_loop, &n, n);
}

static void
reduce_into (EpOpCall  *call,
             EpCpuLoop  loop,
             EpCpuLoop  rows_loop)
{
  EpTensor *in = call->inputs[0];
  EpCpuIter iter;
  gint64 n_rows;
  gint64 n;

  if (rows_loop != NULL && (n = short_rows (call, &n_rows)) > 0)
    {
      reduce_rows (call, rows_loop, n_rows, n);
      return;
    }

  ep_cpu_iter_init (&iter, in->layout.shape, in->layout.ndim);
  ep_cpu_iter_add_reduced (&iter, call->outputs[0], call->attrs.axes, call->attrs.n_axes);
  ep_cpu_iter_add (&iter, in);
  ep_cpu_iter_run_parallel (&iter, loop, NULL);
}

static void
zero (EpTensor *out)
{
  memset (out->storage->data, 0, out->storage->nbytes);
}

/* The sum of @call's input into its output, of the output's type (the
 * rules cast the input to it). */
static void
sum_into (EpOpCall *call)
{
  EpDType dtype = call->inputs[0]->layout.dtype;

  if (is_whole_and_large (call))
    {
      if (ep_dtype_is_floating (dtype))
        sum_whole_float (call);
      else
        fold_whole (call, sum_loops[dtype], TRUE);
      return;
    }

  zero (call->outputs[0]);
  reduce_into (call, sum_loops[dtype], sum_rows_loops[dtype]);
}

static gboolean
cpu_sum (EpOpCall  *call,
         GError   **error)
{
  sum_into (call);
  return TRUE;
}

static gboolean
cpu_mean (EpOpCall  *call,
          GError   **error)
{
  EpTensor *out = call->outputs[0];
  gint64 n = ep_layout_get_size (&out->layout);
  gdouble count = 1;

  for (guint a = 0; a < call->attrs.n_axes; a++)
    count *= call->inputs[0]->layout.shape[call->attrs.axes[a]];

  sum_into (call);

  if (out->layout.dtype == EP_DTYPE_FLOAT32)
    for (gint64 i = 0; i < n; i++)
      ((gfloat *) out->storage->data)[i] = (gfloat) (((gfloat *) out->storage->data)[i] / count);
  else
    for (gint64 i = 0; i < n; i++)
      ((gdouble *) out->storage->data)[i] /= count;

  return TRUE;
}

static gboolean
cpu_extremum (EpOpCall  *call,
              GError   **error)
{
  EpDType dtype = call->inputs[0]->layout.dtype;
  gboolean max = call->op->id == EP_OP_MAX;
  EpCpuLoop loop = max ? max_loops[dtype] : min_loops[dtype];

  if (is_whole_and_large (call))
    {
      fold_whole (call, loop, FALSE);
      return TRUE;
    }

  fill_first (call);
  reduce_into (call, loop, max ? max_rows_loops[dtype] : min_rows_loops[dtype]);
  return TRUE;
}

/* Reductions with an identity: the output starts at it and folds the
 * input in, standing still along the reduced axes. */
#define FOLD_LOOP(name, T, FOLD)                                            \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  T *out = (T *) p[0];                                                      \
  if (s[0] == 0)                                                            \
    {                                                                       \
      T acc = *out;                                                         \
      for (gint64 i = 0; i < n; i++)                                        \
        acc = FOLD (acc, *(const T *) (p[1] + i * s[1]));                   \
      *out = acc;                                                           \
    }                                                                       \
  else                                                                      \
    for (gint64 i = 0; i < n; i++)                                          \
      out[i] = FOLD (out[i], *(const T *) (p[1] + i * s[1]));               \
}

#define TIMES(a, b) ((a) * (b))
#define WRAPPING_TIMES(a, b) ((gint64) ((guint64) (a) * (guint64) (b)))
#define AND(a, b) ((a) & (b))
#define OR(a, b) ((a) | (b))

FOLD_LOOP (prod_f32, gfloat, TIMES)
FOLD_LOOP (prod_f64, gdouble, TIMES)
FOLD_LOOP (prod_i64, gint64, WRAPPING_TIMES)
FOLD_LOOP (all_b, guint8, AND)
FOLD_LOOP (any_b, guint8, OR)

#define FILL(T, tensor, value)                                              \
  G_STMT_START {                                                            \
    T *dst = (T *) ep_tensor_host_data (tensor);                            \
    gint64 size = ep_layout_get_size (&(tensor)->layout);                   \
    for (gint64 i = 0; i < size; i++)                                       \
      dst[i] = (value);                                                     \
  } G_STMT_END

static gboolean
cpu_prod (EpOpCall  *call,
          GError   **error)
{
  EpTensor *out = call->outputs[0];
  EpCpuLoop loop;

  switch (out->layout.dtype)
    {
    case EP_DTYPE_FLOAT32: FILL (gfloat, out, 1.0f); loop = prod_f32; break;
    case EP_DTYPE_FLOAT64: FILL (gdouble, out, 1.0); loop = prod_f64; break;
    case EP_DTYPE_INT64:   FILL (gint64, out, 1); loop = prod_i64; break;
    default: g_assert_not_reached ();
    }

  ep_cpu_reduce_run (call->inputs[0], out, NULL, call->attrs.axes, call->attrs.n_axes, loop, NULL);
  return TRUE;
}

static gboolean
cpu_all_any (EpOpCall  *call,
             GError   **error)
{
  EpTensor *out = call->outputs[0];
  gboolean all = call->op->id == EP_OP_ALL;

  memset (ep_tensor_host_data (out), all ? 1 : 0, out->storage->nbytes);
  ep_cpu_reduce_run (call->inputs[0], out, NULL, call->attrs.axes, call->attrs.n_axes,
                     all ? all_b : any_b, NULL);
  return TRUE;
}

/* argmin, argmax: the first extreme element; the first NaN wins. */
#define ARG_ROW(name, T, BETTER, FLOATING)                                  \
static void                                                                 \
name (guint8 **rows, const gint64 *s, gpointer u)                           \
{                                                                           \
  const gint64 n = *(const gint64 *) u;   /* the row length */              \
  T best = *(const T *) rows[1];                                            \
  gint64 at = 0;                                                            \
  if (!(FLOATING && isnan ((gdouble) best)))                                \
    for (gint64 i = 1; i < n; i++)                                          \
      {                                                                     \
        T x = *(const T *) (rows[1] + i * s[1]);                            \
        if (FLOATING && isnan ((gdouble) x))                                \
          {                                                                 \
            at = i;                                                         \
            break;                                                          \
          }                                                                 \
        if (x BETTER best)                                                  \
          {                                                                 \
            best = x;                                                       \
            at = i;                                                         \
          }                                                                 \
      }                                                                     \
  *(gint64 *) rows[0] = at;                                                 \
}

ARG_ROW (argmax_f32, gfloat, >, TRUE)
ARG_ROW (argmax_f64, gdouble, >, TRUE)
ARG_ROW (argmax_i32, gint32, >, FALSE)
ARG_ROW (argmax_i64, gint64, >, FALSE)
ARG_ROW (argmax_b, guint8, >, FALSE)
ARG_ROW (argmax_i8, gint8, >, FALSE)
ARG_ROW (argmax_i16, gint16, >, FALSE)
ARG_ROW (argmin_f32, gfloat, <, TRUE)
ARG_ROW (argmin_f64, gdouble, <, TRUE)
ARG_ROW (argmin_i32, gint32, <, FALSE)
ARG_ROW (argmin_i64, gint64, <, FALSE)
ARG_ROW (argmin_b, guint8, <, FALSE)
ARG_ROW (argmin_i8, gint8, <, FALSE)
ARG_ROW (argmin_i16, gint16, <, FALSE)

/* uint8 searches as bool does: guint8 compared as numbers */
static const EpCpuRowFunc argmax_rows[EP_CPU_N_DTYPES] = {
  argmax_f32, argmax_f64, argmax_i32, argmax_i64, argmax_b, argmax_b, argmax_i8, argmax_i16
};
static const EpCpuRowFunc argmin_rows[EP_CPU_N_DTYPES] = {
  argmin_f32, argmin_f64, argmin_i32, argmin_i64, argmin_b, argmin_b, argmin_i8, argmin_i16
};

static gboolean
cpu_arg_extremum (EpOpCall  *call,
                  GError   **error)
{
  EpTensor *input = call->inputs[0];
  guint axis;
  g_autoptr(EpTensor) in = ep_cpu_axis_or_flat (call, &axis);
  g_autoptr(EpTensor) out = NULL;
  gint64 shape[EP_MAX_DIMS];
  EpTensor *tensors[2];
  gint64 n = in->layout.shape[axis];
  EpDType dtype = input->layout.dtype;

  /* the output seen with the searched axis kept as 1 */
  memcpy (shape, in->layout.shape, in->layout.ndim * sizeof (gint64));
  shape[axis] = 1;
  out = ep_cpu_view_as (call->outputs[0], shape, in->layout.ndim);
  tensors[0] = out;
  tensors[1] = in;

  ep_cpu_for_each_row (tensors, 2, axis,
                       call->op->id == EP_OP_ARGMAX ? argmax_rows[dtype] : argmin_rows[dtype],
                       &n);
  return TRUE;
}

void
ep_cpu_register_reduce (EpKernelFunc *kernels)
{
  kernels[EP_OP_SUM] = cpu_sum;
  kernels[EP_OP_MEAN] = cpu_mean;
  kernels[EP_OP_MAX] = cpu_extremum;
  kernels[EP_OP_MIN] = cpu_extremum;
  kernels[EP_OP_PROD] = cpu_prod;
  kernels[EP_OP_ALL] = cpu_all_any;
  kernels[EP_OP_ANY] = cpu_all_any;
  kernels[EP_OP_ARGMIN] = cpu_arg_extremum;
  kernels[EP_OP_ARGMAX] = cpu_arg_extremum;
}
