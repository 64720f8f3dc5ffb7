/* ops/collective.c: all_reduce, broadcast, all_gather, reduce_scatter:
 * the collectives of the world communicator as ops (issue 18)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Ops, so that tapes record them and staged functions contain them;
 * their public functions are the methods of EpCommunicator
 * (distributed/communicator.c), which is why they are
 * EP_OP_FLAG_NO_FUNCTION. EP_OP_FLAG_COLLECTIVE keeps every call: the
 * graph passes neither fold, merge, prune nor fuse them, and a replay
 * runs each. The kernels (cpu/collective.c, opencl/collective.c) hand
 * host buffers to the world (ep_world_run()).
 *
 * Gradient rules dispatch collectives in turn: every process must take
 * the gradient, and take it in the same order, or the others wait for
 * it (up to the timeout). all_reduce(sum) → all_reduce(sum) of the
 * gradient; mean → all_reduce(mean); max and min → the summed gradient
 * where x is the result, split among the ties of every process, as
 * ops/reduce.c's max does; broadcast → all_reduce(sum) on the root,
 * zeros elsewhere; all_gather → reduce_scatter(sum); reduce_scatter(sum)
 * → all_gather; mean → all_gather / size; max and min as all_reduce's.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>

#include "ep-communicator-private.h"
#include "ep-dispatch-private.h"
#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-grad-private.h"

static EpTensor *
collective (const EpOpDef  *op,
            EpTensor       *x,
            EpReduceOp      reduce,
            gint64          root,
            GError        **error)
{
  EpOpAttrs attrs;

  ep_op_attrs_init (&attrs);
  attrs.collective.op = reduce;
  attrs.collective.root = root;
  return ep_dispatch1 (op, &x, 1, &attrs, error);
}

static gboolean
check_reduce_dtype (EpOpCall  *call,
                    GError   **error)
{
  EpDType dtype = call->inputs[0]->layout.dtype;
  EpReduceOp op = call->attrs.collective.op;

  if (op == EP_REDUCE_OP_SUM && dtype == EP_DTYPE_BOOL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("%s: cannot sum tensors of type bool (max and min take them: or, and)"),
                   call->op->name);
      return FALSE;
    }
  if (op == EP_REDUCE_OP_MEAN && !ep_dtype_is_floating (dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("%s: the mean needs a floating-point tensor, got a tensor of type %s"),
                   call->op->name, ep_dtype_get_name (dtype));
      return FALSE;
    }
  return TRUE;
}

/* The world's size, and a message when @x has no axis 0 */
static int
gather_size (EpOpCall  *call,
             GError   **error)
{
  const EpLayout *x = &call->inputs[0]->layout;

  if (x->ndim == 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: needs a tensor of at least one axis (it works along axis 0), got a 0-d tensor"),
                   call->op->name);
      return -1;
    }
  return ep_world_get_size (error);
}

/* MPI counts elements in an int */
static gboolean
check_count (EpOpCall  *call,
             gint64     count,
             GError   **error)
{
  if (count <= G_MAXINT / 2)
    return TRUE;

  g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
               _("%s: %" PRId64 " elements per process are more than one call can move (%d)"),
               call->op->name, count, G_MAXINT / 2);
  return FALSE;
}

static gboolean
all_reduce_infer (EpOpCall  *call,
                  GError   **error)
{
  const EpLayout *x = &call->inputs[0]->layout;

  if (!check_reduce_dtype (call, error) || ep_world_get_size (error) < 0)
    return FALSE;

  call->contiguous_inputs = 1;
  ep_op_set_output (call, x->dtype, x->shape, x->ndim);
  return TRUE;
}

static gboolean
broadcast_infer (EpOpCall  *call,
                 GError   **error)
{
  const EpLayout *x = &call->inputs[0]->layout;
  gint64 root = call->attrs.collective.root;
  int size = ep_world_get_size (error);

  if (size < 0)
    return FALSE;
  if (root < 0 || root >= size)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: root %" PRId64 " is not a rank: there are %d processes (ranks 0 to %d)"),
                   call->op->name, root, size, size - 1);
      return FALSE;
    }

  call->contiguous_inputs = 1;
  ep_op_set_output (call, x->dtype, x->shape, x->ndim);
  return TRUE;
}

static gboolean
all_gather_infer (EpOpCall  *call,
                  GError   **error)
{
  const EpLayout *x = &call->inputs[0]->layout;
  gint64 shape[EP_MAX_DIMS];
  int size = gather_size (call, error);

  if (size < 0 || !check_count (call, ep_layout_get_size (x), error))
    return FALSE;

  for (guint d = 0; d < x->ndim; d++)
    shape[d] = x->shape[d];
  if (shape[0] > G_MAXINT64 / size)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: %d × %" PRId64 " rows are too many"), call->op->name, size, shape[0]);
      return FALSE;
    }
  shape[0] *= size;

  call->contiguous_inputs = 1;
  ep_op_set_output (call, x->dtype, shape, x->ndim);
  return TRUE;
}

static gboolean
reduce_scatter_infer (EpOpCall  *call,
                      GError   **error)
{
  const EpLayout *x = &call->inputs[0]->layout;
  gint64 shape[EP_MAX_DIMS];
  int size = gather_size (call, error);

  if (size < 0 || !check_reduce_dtype (call, error))
    return FALSE;
  if (x->shape[0] % size != 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: axis 0 of length %" PRId64 " does not split among %d processes"),
                   call->op->name, x->shape[0], size);
      return FALSE;
    }
  if (!check_count (call, ep_layout_get_size (x) / size, error))
    return FALSE;

  for (guint d = 0; d < x->ndim; d++)
    shape[d] = x->shape[d];
  shape[0] /= size;

  call->contiguous_inputs = 1;
  ep_op_set_output (call, x->dtype, shape, x->ndim);
  return TRUE;
}

/* max and min: @g_full (the gradient of the reduced tensor @y_full,
 * shaped as x) where x is the result, split among the processes' ties */
static EpTensor *
extremum_grad (EpTensor  *x,
               EpTensor  *y_full,
               EpTensor  *g_full,
               GError   **error)
{
  g_autoptr(EpTensor) zero = ep_grad_literal (0.0);
  g_autoptr(EpTensor) one = ep_grad_literal (1.0);
  g_autoptr(EpTensor) hit = NULL, mask = NULL, ties = NULL, any = NULL, count = NULL, share = NULL;

  if ((hit = ep_tensor_equal (x, y_full, error))
      && (mask = ep_tensor_astype (hit, g_full->layout.dtype, error))
      && (ties = collective (&ep_op_all_reduce, mask, EP_REDUCE_OP_SUM, 0, error))
      && (any = ep_tensor_greater (ties, zero, error))
      && (count = ep_tensor_where (any, ties, one, error))
      && (share = ep_tensor_div (g_full, count, error)))
    return ep_tensor_mul (mask, share, error);
  return NULL;
}

static gboolean
all_reduce_gradient (const EpOpCall   *call,
                     EpTensor *const  *output_grads,
                     EpTensor        **input_grads,
                     GError          **error)
{
  EpReduceOp op = call->attrs.collective.op;
  g_autoptr(EpTensor) summed = NULL;

  if (op == EP_REDUCE_OP_SUM || op == EP_REDUCE_OP_MEAN)
    input_grads[0] = collective (&ep_op_all_reduce, output_grads[0], op, 0, error);
  else if ((summed = collective (&ep_op_all_reduce, output_grads[0], EP_REDUCE_OP_SUM, 0, error)))
    input_grads[0] = extremum_grad (call->inputs[0], call->outputs[0], summed, error);
  return input_grads[0] != NULL;
}

static gboolean
broadcast_gradient (const EpOpCall   *call,
                    EpTensor *const  *output_grads,
                    EpTensor        **input_grads,
                    GError          **error)
{
  g_autoptr(EpTensor) summed = NULL;
  const EpLayout *x = &call->inputs[0]->layout;

  if (!(summed = collective (&ep_op_all_reduce, output_grads[0], EP_REDUCE_OP_SUM, 0, error)))
    return FALSE;
  if (ep_world_get_rank () == call->attrs.collective.root)
    input_grads[0] = g_steal_pointer (&summed);
  else
    input_grads[0] = ep_grad_zeros (output_grads[0], x->shape, x->ndim, error);
  return input_grads[0] != NULL;
}

static gboolean
all_gather_gradient (const EpOpCall   *call,
                     EpTensor *const  *output_grads,
                     EpTensor        **input_grads,
                     GError          **error)
{
  input_grads[0] = collective (&ep_op_reduce_scatter, output_grads[0], EP_REDUCE_OP_SUM, 0, error);
  return input_grads[0] != NULL;
}

static gboolean
reduce_scatter_gradient (const EpOpCall   *call,
                         EpTensor *const  *output_grads,
                         EpTensor        **input_grads,
                         GError          **error)
{
  EpReduceOp op = call->attrs.collective.op;
  g_autoptr(EpTensor) g_full = collective (&ep_op_all_gather, output_grads[0], 0, 0, error);
  g_autoptr(EpTensor) y_full = NULL, size = NULL;

  if (g_full == NULL)
    return FALSE;
  if (op == EP_REDUCE_OP_SUM)
    input_grads[0] = g_steal_pointer (&g_full);
  else if (op == EP_REDUCE_OP_MEAN)
    {
      int n = ep_world_get_size (error);

      if (n < 0)
        return FALSE;
      size = ep_grad_literal ((gdouble) n);
      input_grads[0] = ep_tensor_div (g_full, size, error);
    }
  else if ((y_full = collective (&ep_op_all_gather, call->outputs[0], 0, 0, error)))
    input_grads[0] = extremum_grad (call->inputs[0], y_full, g_full, error);
  return input_grads[0] != NULL;
}

#define REDUCE_OP_ATTR                                                      \
  EP_ATTR ("op", EP_ATTR_ENUM, EP_FIELD (collective.op),                    \
           EP_DEFAULT (EP_REDUCE_OP_SUM), .enum_type = ep_reduce_op_get_type)

#define COLLECTIVE_FLAGS                                                    \
  (EP_OP_FLAG_NO_FUNCTION | EP_OP_FLAG_COLLECTIVE | EP_OP_FLAG_UINT8)

const EpOpDef ep_op_all_reduce = {
  .id = EP_OP_ALL_REDUCE, .name = "all_reduce",
  .flags = COLLECTIVE_FLAGS,
  EP_INPUTS (EP_INPUT ("x")),
  EP_ATTRS (REDUCE_OP_ATTR),
  .infer = all_reduce_infer,
  .gradient = all_reduce_gradient,
};

const EpOpDef ep_op_broadcast_collective = {
  .id = EP_OP_BROADCAST, .name = "broadcast",
  .flags = COLLECTIVE_FLAGS,
  EP_INPUTS (EP_INPUT ("x")),
  EP_ATTRS (EP_ATTR ("root", EP_ATTR_INT, EP_FIELD (collective.root), EP_DEFAULT (0))),
  .infer = broadcast_infer,
  .gradient = broadcast_gradient,
};

const EpOpDef ep_op_all_gather = {
  .id = EP_OP_ALL_GATHER, .name = "all_gather",
  .flags = COLLECTIVE_FLAGS,
  EP_INPUTS (EP_INPUT ("x")),
  .infer = all_gather_infer,
  .gradient = all_gather_gradient,
};

const EpOpDef ep_op_reduce_scatter = {
  .id = EP_OP_REDUCE_SCATTER, .name = "reduce_scatter",
  .flags = COLLECTIVE_FLAGS,
  EP_INPUTS (EP_INPUT ("x")),
  EP_ATTRS (REDUCE_OP_ATTR),
  .infer = reduce_scatter_infer,
  .gradient = reduce_scatter_gradient,
};
