/* ep-cpu-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-device-private.h"
#include "ep-op-private.h"

G_BEGIN_DECLS

/* The number of dtypes: the columns of the tables of loops by dtype */
#define EP_CPU_N_DTYPES (EP_DTYPE_INT16 + 1)

#define EP_CPU_MAX_OPERANDS 4

/* Buffer alignment: wide enough for any vector unit. */
#define EP_CPU_ALIGNMENT 64

/*
 * EpCpuIter:
 *
 * Walks operands of one common shape in step, NumPy-style: operand 0 is
 * usually the output, the others are inputs seen through broadcast
 * strides (0 along broadcast dimensions). Dimensions of extent 1 are
 * dropped and neighbours that are contiguous for every operand are
 * merged, so the innermost loop is as long as it can be. Strides are in
 * bytes.
 */
typedef struct
{
  guint    n_operands;
  guint    ndim;
  gint64   shape[EP_MAX_DIMS];
  gint64   strides[EP_CPU_MAX_OPERANDS][EP_MAX_DIMS];
  guint8  *base[EP_CPU_MAX_OPERANDS];
} EpCpuIter;

/* Called for each run along the innermost dimension. */
typedef void (*EpCpuLoop) (guint8       **ptrs,
                           const gint64  *strides,
                           gint64         n,
                           gconstpointer  user_data);

void     ep_cpu_iter_init       (EpCpuIter      *iter,
                                 const gint64   *shape,
                                 guint           ndim);
void     ep_cpu_iter_add        (EpCpuIter      *iter,
                                 EpTensor       *tensor);
void     ep_cpu_iter_add_reduced (EpCpuIter     *iter,
                                  EpTensor      *output,
                                  const gint    *axes,
                                  guint          n_axes);
void     ep_cpu_iter_run        (EpCpuIter      *iter,
                                 EpCpuLoop       loop,
                                 gconstpointer   user_data);
/* The same split between threads when large, along a dimension where
 * operand 0 moves: @loop may run on several threads at once and must
 * only read @user_data. Results do not depend on the thread count. */
void     ep_cpu_iter_run_parallel (EpCpuIter    *iter,
                                   EpCpuLoop     loop,
                                   gconstpointer user_data);
/* The same when each element costs about @cost elements' work (a row
 * of that length, say): the split threshold counts that work. */
void     ep_cpu_iter_run_parallel_cost (EpCpuIter    *iter,
                                        EpCpuLoop     loop,
                                        gconstpointer user_data,
                                        gint64        cost);

/* One iterator over the output and every input of @call, broadcast to
 * the output's shape, run with @loop (by ep_cpu_iter_run_parallel: the
 * same rules for @loop and @user_data). */
gboolean ep_cpu_map_loop        (EpOpCall       *call,
                                 EpCpuLoop       loop,
                                 gconstpointer   user_data,
                                 GError        **error);
void     ep_cpu_map             (EpOpCall       *call,
                                 EpCpuLoop       loop,
                                 gconstpointer   user_data);

/* parallel.c: worker threads. Iterations smaller than
 * EP_CPU_PARALLEL_MIN elements run on the calling thread; larger ones
 * in parts of at least EP_CPU_GRAIN elements. */
#define EP_CPU_PARALLEL_MIN 65536
#define EP_CPU_GRAIN 16384

typedef void (*EpCpuTaskFunc) (gpointer data,
                               guint    index);

guint    ep_cpu_get_n_threads   (void);
void     ep_cpu_set_n_threads   (guint           n_threads);
void     ep_cpu_parallel_for    (guint           n_tasks,
                                 EpCpuTaskFunc   func,
                                 gpointer        data);

/* vmath.c: vectorized transcendental functions. The loop found
 * takes @user_data as given back here. */
typedef enum {
  EP_CPU_VMATH_EXP,
  EP_CPU_VMATH_EXPM1,
  EP_CPU_VMATH_LOG,
  EP_CPU_VMATH_LOG1P,
  EP_CPU_VMATH_LOG2,
  EP_CPU_VMATH_LOG10,
  EP_CPU_VMATH_SIN,
  EP_CPU_VMATH_COS,
  EP_CPU_VMATH_TAN,
  EP_CPU_VMATH_SINH,
  EP_CPU_VMATH_COSH,
  EP_CPU_VMATH_TANH,
  EP_CPU_VMATH_ARCSIN,
  EP_CPU_VMATH_ARCCOS,
  EP_CPU_VMATH_ARCTAN,
  EP_CPU_VMATH_ARCSINH,
  EP_CPU_VMATH_ARCCOSH,
  EP_CPU_VMATH_ARCTANH,
  EP_CPU_VMATH_SIGMOID,
  EP_CPU_VMATH_ERF,
  EP_CPU_VMATH_ERFC,
  EP_CPU_N_VMATH
} EpCpuVmath;

gboolean    ep_cpu_vmath_lookup  (EpCpuVmath     func,
                                  EpDType        dtype,
                                  EpCpuLoop     *loop,
                                  gconstpointer *user_data);
/* At a given instruction set: 0 AVX-512F, 1 AVX2, 2 SSE2; FALSE where
 * this processor (or build) has not got it. For tests. */
gboolean    ep_cpu_vmath_lookup_at (EpCpuVmath   func,
                                    EpDType      dtype,
                                    guint        level,
                                    EpCpuLoop   *loop,
                                    gconstpointer *user_data);
/* Runs a unary @call (exp, log, sin, …) with its vector function;
 * FALSE when it has none for this op and dtype. */
gboolean    ep_cpu_vmath_map     (EpOpCall      *call);
/* The loop ep_cpu_vmath_map() would run for @op on @dtype */
gboolean    ep_cpu_vmath_op_loop (EpOpId         op,
                                  EpDType        dtype,
                                  EpCpuLoop     *loop,
                                  gconstpointer *user_data);

/* reduce.c: the NaN-propagating maximum of m, x[0] … x[n-1]
 * (the first NaN; of equal values the later), vectorized */
gfloat   ep_cpu_fold_max_f32    (gfloat          m,
                                 const gfloat   *x,
                                 gint64          n);
gdouble  ep_cpu_fold_max_f64    (gdouble         m,
                                 const gdouble  *x,
                                 gint64          n);

/* reduce.c: the sum of @n elements of a float @dtype that @produce
 * makes, a part at a time (elements @offset to @offset + @n, into
 * @buffer or elsewhere: it returns where), on several threads: the bits
 * cpu_sum() gives for a whole contiguous tensor of them. Into *@out;
 * FALSE when a part found no memory for its buffer (*@out is then
 * meaningless). */
typedef const guint8 *(*EpCpuProduceFunc) (gpointer  data,
                                           gint64    offset,
                                           gint64    n,
                                           guint8   *buffer);

gboolean ep_cpu_sum_produced    (EpDType           dtype,
                                 gint64            n,
                                 EpCpuProduceFunc  produce,
                                 gpointer          data,
                                 gpointer          out);
/* Called once row @row is summed, with its elements (@made) still in
 * the cache and its sum */
typedef void (*EpCpuRowDoneFunc) (gpointer       data,
                                  gint64         row,
                                  const guint8  *made,
                                  const guint8  *sum);

/* The same along the last axis: @n_rows sums of @row_length elements
 * each (rows one after the other), as cpu_sum() gives them; @done (or
 * NULL) after each row, for more than one row */
gboolean ep_cpu_sum_rows_produced (EpDType           dtype,
                                   gint64            n_rows,
                                   gint64            row_length,
                                   EpCpuProduceFunc  produce,
                                   EpCpuRowDoneFunc  done,
                                   gpointer          data,
                                   gpointer          out);

/* cache.c: where CPU buffers come from and go back to */
gpointer ep_cpu_cache_alloc     (gsize           nbytes);
void     ep_cpu_cache_release   (gpointer        data,
                                 gsize           nbytes);
void     ep_cpu_cache_trim      (void);
void     ep_cpu_cache_get_stats (gsize          *cached_bytes,
                                 gsize          *limit);

/* cast.c: the copy loop for elements of @itemsize bytes (1, 4 or 8) */
EpCpuLoop ep_cpu_copy_loop_for_itemsize (gsize itemsize);

/* The kernels of each op family, one file each (<family>.c), set in
 * the CPU backend's table by device.c */
void     ep_cpu_register_creation    (EpKernelFunc *kernels);
void     ep_cpu_register_random      (EpKernelFunc *kernels);
void     ep_cpu_register_cast        (EpKernelFunc *kernels);
void     ep_cpu_register_elementwise (EpKernelFunc *kernels);
void     ep_cpu_register_math        (EpKernelFunc *kernels);
void     ep_cpu_register_logical     (EpKernelFunc *kernels);
void     ep_cpu_register_reduce      (EpKernelFunc *kernels);
void     ep_cpu_register_scan        (EpKernelFunc *kernels);
void     ep_cpu_register_sort        (EpKernelFunc *kernels);
void     ep_cpu_register_softmax     (EpKernelFunc *kernels);
void     ep_cpu_register_norm        (EpKernelFunc *kernels);
void     ep_cpu_register_join        (EpKernelFunc *kernels);
void     ep_cpu_register_index       (EpKernelFunc *kernels);
void     ep_cpu_register_linalg      (EpKernelFunc *kernels);
void     ep_cpu_register_lapack      (EpKernelFunc *kernels);
void     ep_cpu_register_conv        (EpKernelFunc *kernels);
gboolean ep_cpu_dnnl_matmul_bf16     (const EpOpCall *call,
                                      gint64          batch_a,
                                      gint64          batch_b,
                                      gint64          batch,
                                      gint64          n,
                                      gint64          k,
                                      gint64          m,
                                      gboolean        trans_a,
                                      gboolean        trans_b,
                                      gconstpointer   a,
                                      gconstpointer   b,
                                      gpointer        c,
                                      gboolean       *ran,
                                      GError        **error);
gboolean ep_cpu_matmul_bf16          (EpOpCall       *call,
                                      gboolean       *ran,
                                      GError        **error);

void     ep_cpu_register_pool        (EpKernelFunc *kernels);
void     ep_cpu_register_fft         (EpKernelFunc *kernels);
/* issue 18 */
void     ep_cpu_register_collective  (EpKernelFunc *kernels);

/* The inner loops the elementwise kernels run, for graph fusion
 * (cpu/fused.c): NULL where the op has none for that dtype */
EpCpuLoop ep_cpu_math_loop        (EpOpId         op,
                                   EpDType        dtype,
                                   gconstpointer *user_data);
EpCpuLoop ep_cpu_binary_loop      (EpOpId         op,
                                   EpDType        dtype);
EpCpuLoop ep_cpu_logical_loop     (EpOpId         op,
                                   EpDType        dtype);
EpCpuLoop ep_cpu_cast_loop        (EpDType        from,
                                   EpDType        to);

/* ops/cast.c: the device-neutral copy behind to_device */
gboolean ep_copy_to_device_kernel    (EpOpCall     *call,
                                      GError      **error);

/* Advances @index over the first @n axes of @shape like an odometer
 * (the last of them fastest); FALSE after the last index, which leaves
 * @index all zeros. */
static inline gboolean
ep_cpu_index_next (gint64       *index,
                   const gint64 *shape,
                   guint         n)
{
  for (guint d = n; d-- > 0;)
    {
      if (++index[d] < shape[d])
        return TRUE;
      index[d] = 0;
    }

  return FALSE;
}

G_END_DECLS
