/* ep-cpu-accumulate.c: prod, all, any, cumsum, argmin, argmax on the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ep-cpu-rows-private.h"
#include "ep-tensor-private.h"

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

#define CUMSUM_ROW(name, T, PLUS)                                           \
static void                                                                 \
name (guint8 **rows, const gint64 *s, gpointer u)                           \
{                                                                           \
  const gint64 n = *(const gint64 *) u;   /* the row length */              \
  T acc = 0;                                                                \
  for (gint64 i = 0; i < n; i++)                                            \
    {                                                                       \
      acc = PLUS (acc, *(const T *) (rows[1] + i * s[1]));                  \
      *(T *) (rows[0] + i * s[0]) = acc;                                    \
    }                                                                       \
}

#define PLUS(a, b) ((a) + (b))
#define WRAPPING_PLUS(a, b) ((gint64) ((guint64) (a) + (guint64) (b)))

CUMSUM_ROW (cumsum_f32, gfloat, PLUS)
CUMSUM_ROW (cumsum_f64, gdouble, PLUS)
CUMSUM_ROW (cumsum_i64, gint64, WRAPPING_PLUS)

/* The input of an op along one axis or over the flattened tensor
 * (cumsum, argmin, argmax): a 1-D view when flat (the rule made the input
 * contiguous). Sets the axis. */
static EpTensor *
axis_or_flat (const EpOpCall *call,
              guint          *axis)
{
  EpTensor *input = call->inputs[0];
  gint64 size = ep_layout_get_size (&input->layout);

  *axis = call->attrs.all_axes ? 0 : (guint) call->attrs.axes[0];
  return call->attrs.all_axes ? ep_cpu_view_as (input, &size, 1) : g_object_ref (input);
}

static gboolean
cpu_cumsum (EpOpCall  *call,
            GError   **error)
{
  EpTensor *out = call->outputs[0];
  guint axis;
  g_autoptr(EpTensor) in = axis_or_flat (call, &axis);
  EpTensor *tensors[2] = { out, in };
  gint64 n = in->layout.shape[axis];
  EpCpuRowFunc row;

  switch (out->layout.dtype)
    {
    case EP_DTYPE_FLOAT32: row = cumsum_f32; break;
    case EP_DTYPE_FLOAT64: row = cumsum_f64; break;
    case EP_DTYPE_INT64:   row = cumsum_i64; break;
    default: g_assert_not_reached ();
    }

  ep_cpu_for_each_row (tensors, 2, axis, row, &n);
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
ARG_ROW (argmin_f32, gfloat, <, TRUE)
ARG_ROW (argmin_f64, gdouble, <, TRUE)
ARG_ROW (argmin_i32, gint32, <, FALSE)
ARG_ROW (argmin_i64, gint64, <, FALSE)
ARG_ROW (argmin_b, guint8, <, FALSE)

static const EpCpuRowFunc argmax_rows[5] = {
  argmax_f32, argmax_f64, argmax_i32, argmax_i64, argmax_b
};
static const EpCpuRowFunc argmin_rows[5] = {
  argmin_f32, argmin_f64, argmin_i32, argmin_i64, argmin_b
};

static gboolean
cpu_arg_extremum (EpOpCall  *call,
                  GError   **error)
{
  EpTensor *input = call->inputs[0];
  guint axis;
  g_autoptr(EpTensor) in = axis_or_flat (call, &axis);
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
ep_cpu_register_accumulate (EpKernelFunc *kernels)
{
  kernels[EP_OP_PROD] = cpu_prod;
  kernels[EP_OP_ALL] = cpu_all_any;
  kernels[EP_OP_ANY] = cpu_all_any;
  kernels[EP_OP_CUMSUM] = cpu_cumsum;
  kernels[EP_OP_ARGMIN] = cpu_arg_extremum;
  kernels[EP_OP_ARGMAX] = cpu_arg_extremum;
}
