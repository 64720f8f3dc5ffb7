/* autodiff/jvp-rules.c: forward rules (Jacobian-vector products)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every op with a reverse rule has a forward rule, found by its kind
 * (ep_jvp_kind()):
 *
 * - direct: written here for the common ops (arithmetic, matmul, sums,
 *   reshapes and transposes, softmax), each taking an optional leading
 *   batch dimension on its tangents, which is how a jacobian computes all
 *   its columns in one pass (gradient-tape.c);
 * - diagonal: an elementwise op of one input has a diagonal Jacobian, its
 *   own transpose, so its reverse rule applied to the tangent is its
 *   forward rule (and broadcasts over a batch of tangents);
 * - elementwise: the same for an op of several inputs (pow, maximum …),
 *   input by input, once every operand is broadcast to the output's shape
 *   (with the batch in front), where the reverse rule sums nothing;
 * - linear, multilinear: an op linear in its floating inputs (views,
 *   gathers, scatters, pads, pools of averages, cumsum) is its own
 *   derivative: the op run on the tangents; one linear in each (conv2d
 *   and its gradients) sums the op run with each tangent in turn;
 * - derived, for the rest: a reverse rule computes u ↦ Jᵀu, linear in u.
 *   Run on a watched u under a tape of our own, then
 *   d/du <Jᵀu, t> = J t: the forward rule, exact, for about twice the
 *   cost of the reverse rule (the "double-VJP" trick).
 *
 * Rules use public ops only: a tape or accumulator outside the one
 * asking records them, which gives higher derivatives.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-autodiff-private.h"
#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-grad-private.h"
#include "ep-gradient-tape.h"
#include "ep-jvp-private.h"

EpJvpKind
ep_jvp_kind (const EpOpDef *op)
{
  if (op->gradient == NULL)
    return EP_JVP_NONE;

  switch (op->id)
    {
    case EP_OP_ADD: case EP_OP_SUB: case EP_OP_MUL: case EP_OP_DIV:
    case EP_OP_WHERE: case EP_OP_MATMUL:
    case EP_OP_SUM: case EP_OP_MEAN:
    case EP_OP_RESHAPE: case EP_OP_EXPAND_DIMS: case EP_OP_SQUEEZE:
    case EP_OP_TRANSPOSE: case EP_OP_BROADCAST_TO:
    case EP_OP_SOFTMAX: case EP_OP_LOG_SOFTMAX:
    case EP_OP_ASTYPE: case EP_OP_CONTIGUOUS: case EP_OP_TO_DEVICE:
    case EP_OP_IDENTITY:
      return EP_JVP_DIRECT;

    case EP_OP_NEG: case EP_OP_ABS: case EP_OP_SIGN: case EP_OP_SQUARE:
    case EP_OP_SQRT: case EP_OP_EXP: case EP_OP_EXPM1: case EP_OP_LOG:
    case EP_OP_LOG1P: case EP_OP_LOG2: case EP_OP_LOG10: case EP_OP_SIN:
    case EP_OP_COS: case EP_OP_TAN: case EP_OP_SINH: case EP_OP_COSH:
    case EP_OP_TANH: case EP_OP_ARCSIN: case EP_OP_ARCCOS: case EP_OP_ARCTAN:
    case EP_OP_ARCSINH: case EP_OP_ARCCOSH: case EP_OP_ARCTANH:
    case EP_OP_SIGMOID: case EP_OP_RELU: case EP_OP_SOFTPLUS:
    case EP_OP_ROUND: case EP_OP_CEIL: case EP_OP_FLOOR:
    case EP_OP_ERF: case EP_OP_ERFC: case EP_OP_GELU: case EP_OP_CLIP:
      return EP_JVP_DIAGONAL;

    case EP_OP_POW: case EP_OP_FLOORDIV: case EP_OP_MOD:
    case EP_OP_MINIMUM: case EP_OP_MAXIMUM:
      return EP_JVP_ELEMENTWISE;

    case EP_OP_CUMSUM: case EP_OP_FLIP: case EP_OP_SLICE:
    case EP_OP_CONCATENATE: case EP_OP_TILE: case EP_OP_PAD:
    case EP_OP_TAKE: case EP_OP_TAKE_ALONG_AXIS: case EP_OP_MASK:
    case EP_OP_INDEX_UPDATE: case EP_OP_SCATTER_ADD:
    case EP_OP_AVG_POOL2D: case EP_OP_AVG_POOL2D_GRAD:
      return EP_JVP_LINEAR;

    case EP_OP_CONV2D: case EP_OP_CONV2D_INPUT_GRAD: case EP_OP_CONV2D_WEIGHT_GRAD:
      return EP_JVP_MULTILINEAR;

    default:
      return EP_JVP_DERIVED;
    }
}

/* Helpers */

static gboolean
has_floating_output (const EpOpCall *call)
{
  for (guint o = 0; o < call->n_outputs; o++)
    if (ep_dtype_is_floating (call->outputs[o]->layout.dtype))
      return TRUE;

  return FALSE;
}

/* The attributes to run @call's op again with: as the caller gave them
 * where known (canonical ones need not mean the same again: a slice's
 * stop of -1 before a negative step is "the end" when read anew), else
 * the canonical ones (a recorded step's: casts, copies) */
static const EpOpAttrs *
given_attrs (const EpOpCall *call)
{
  return call->given_attrs != NULL ? call->given_attrs : &call->attrs;
}

/* @op on @inputs with @attrs, or the attributes it was called with */
static EpTensor *
redispatch (const EpOpCall   *call,
            EpTensor *const  *inputs,
            const EpOpAttrs  *attrs,
            GError          **error)
{
  return ep_dispatch1 (call->op, inputs, call->n_inputs, attrs != NULL ? attrs : given_attrs (call), error);
}

/* A batch of tangents (k, *s) as (k, 1, …, 1, *s) with @ndim dimensions
 * after the batch one, so that it broadcasts against tensors of @ndim
 * dimensions as its elements do. */
static EpTensor *
lift (EpTensor  *t,
      guint      lead,
      guint      ndim,
      GError   **error)
{
  const EpLayout *l = &t->layout;
  gint64 shape[EP_MAX_DIMS];
  guint rank = l->ndim - lead, n = 0;

  if (lead == 0 || rank >= ndim)
    return g_object_ref (t);

  shape[n++] = l->shape[0];
  for (guint d = rank; d < ndim; d++)
    shape[n++] = 1;
  for (guint d = 1; d < l->ndim; d++)
    shape[n++] = l->shape[d];

  return ep_tensor_reshape (t, shape, n, error);
}

/* The output shape with the batch dimension of @like in front */
static guint
batch_shape (EpTensor        *like,
             guint            lead,
             const EpLayout  *out,
             gint64          *shape)
{
  guint n = 0;

  if (lead > 0)
    shape[n++] = like->layout.shape[0];
  for (guint d = 0; d < out->ndim; d++)
    shape[n++] = out->shape[d];

  return n;
}

/* @t (owned) brought to output @o's shape (with the batch in front) and
 * type: tangents of broadcast inputs spread, promoted ones converted. */
static EpTensor *
fit (const EpOpCall  *call,
     guint            o,
     EpTensor        *t,
     guint            lead,
     GError         **error)
{
  g_autoptr(EpTensor) owned = t;
  g_autoptr(EpTensor) spread = NULL;
  const EpLayout *out = &call->outputs[o]->layout;
  gint64 shape[EP_MAX_DIMS + 1];
  guint n;

  if (t == NULL)
    return NULL;
  n = batch_shape (t, lead, out, shape);
  if (n > EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("jvp: a batch of tangents of %s would have more than %d dimensions"),
                   call->op->name, EP_MAX_DIMS);
      return NULL;
    }
  if (t->layout.ndim == n && memcmp (t->layout.shape, shape, n * sizeof (gint64)) == 0)
    spread = g_steal_pointer (&owned);
  else
    {
      g_autoptr(EpTensor) lifted = lift (t, lead, out->ndim, error);

      spread = lifted != NULL ? ep_tensor_broadcast_to (lifted, shape, n, error) : NULL;
      if (spread == NULL)
        return NULL;
    }

  if (spread->layout.dtype == out->dtype && !spread->weak)
    return g_steal_pointer (&spread);
  return ep_tensor_astype (spread, out->dtype, error);
}

static EpTensor *
add_terms (EpTensor  *a,
           EpTensor  *b,
           GError   **error)
{
  g_autoptr(EpTensor) owned_a = a;
  g_autoptr(EpTensor) owned_b = b;

  if (a == NULL)
    return g_steal_pointer (&owned_b);
  if (b == NULL)
    return g_steal_pointer (&owned_a);
  return ep_tensor_add (a, b, error);
}

/* Direct rules: @lead is 0, or 1 for a batch of tangents */

static gboolean
arithmetic_jvp (const EpOpCall   *call,
                EpTensor *const  *t,
                guint             lead,
                EpTensor        **out,
                GError          **error)
{
  EpTensor *a = call->inputs[0], *b = call->inputs[1], *y = call->outputs[0];
  guint ndim = y->layout.ndim;
  g_autoptr(EpTensor) ta = t[0] != NULL ? lift (t[0], lead, ndim, error) : NULL;
  g_autoptr(EpTensor) tb = t[1] != NULL ? lift (t[1], lead, ndim, error) : NULL;
  EpTensor *sum = NULL;

  if ((t[0] != NULL && ta == NULL) || (t[1] != NULL && tb == NULL))
    return FALSE;

  switch (call->op->id)
    {
    case EP_OP_ADD:
      sum = ta == NULL ? g_object_ref (tb) : tb == NULL ? g_object_ref (ta) : ep_tensor_add (ta, tb, error);
      break;
    case EP_OP_SUB:
      sum = tb == NULL ? g_object_ref (ta) : ta == NULL ? ep_tensor_neg (tb, error) : ep_tensor_sub (ta, tb, error);
      break;
    case EP_OP_MUL:
      {
        EpTensor *pa = ta != NULL ? ep_tensor_mul (ta, b, error) : NULL;
        EpTensor *pb = (ta == NULL || pa != NULL) && tb != NULL ? ep_tensor_mul (a, tb, error) : NULL;

        if ((ta != NULL && pa == NULL) || (tb != NULL && pb == NULL))
          {
            g_clear_object (&pa);
            return FALSE;
          }
        sum = add_terms (pa, pb, error);
      }
      break;
    case EP_OP_DIV:
      {
        /* (ta - y tb) / b */
        g_autoptr(EpTensor) ytb = tb != NULL ? ep_tensor_mul (y, tb, error) : NULL;
        g_autoptr(EpTensor) top = NULL;

        if (tb != NULL && ytb == NULL)
          return FALSE;
        top = ta == NULL ? ep_tensor_neg (ytb, error) : ytb == NULL ? g_object_ref (ta) : ep_tensor_sub (ta, ytb, error);
        sum = top != NULL ? ep_tensor_div (top, b, error) : NULL;
      }
      break;
    default:
      g_assert_not_reached ();
    }

  out[0] = fit (call, 0, sum, lead, error);
  return out[0] != NULL;
}

static gboolean
where_jvp (const EpOpCall   *call,
           EpTensor *const  *t,
           guint             lead,
           EpTensor        **out,
           GError          **error)
{
  guint ndim = call->outputs[0]->layout.ndim;
  g_autoptr(EpTensor) zero = ep_grad_literal (0.0);
  g_autoptr(EpTensor) ta = t[1] != NULL ? lift (t[1], lead, ndim, error) : g_object_ref (zero);
  g_autoptr(EpTensor) tb = ta != NULL && t[2] != NULL ? lift (t[2], lead, ndim, error) : g_object_ref (zero);

  if (ta == NULL || tb == NULL)
    return FALSE;

  out[0] = fit (call, 0, ep_tensor_where (call->inputs[0], ta, tb, error), lead, error);
  return out[0] != NULL;
}

/* Moves the last axis of @t to the front. */
static EpTensor *
last_to_front (EpTensor  *t,
               GError   **error)
{
  gint axes[EP_MAX_DIMS];
  guint ndim = t->layout.ndim;

  axes[0] = ndim - 1;
  for (guint d = 1; d < ndim; d++)
    axes[d] = d - 1;

  return ep_tensor_transpose (t, axes, ndim, error);
}

/* (k, *s) as (k, 1, …, 1, 1, n) with @ndim dimensions after k: a batch of
 * vectors as a batch of one-row matrices broadcast over @ndim - 2 batch
 * dimensions */
static EpTensor *
vector_rows (EpTensor  *t,
             guint      ndim,
             GError   **error)
{
  gint64 shape[EP_MAX_DIMS];

  shape[0] = t->layout.shape[0];
  for (guint d = 1; d < ndim; d++)
    shape[d] = 1;
  shape[ndim] = t->layout.shape[1];

  return ep_tensor_reshape (t, shape, ndim + 1, error);
}

/* matmul (ta, b) + matmul (a, tb). A batch of tangents is lifted so that
 * its batch dimension stays in front of matmul's broadcast batch. */
static gboolean
matmul_jvp (const EpOpCall   *call,
            EpTensor *const  *t,
            guint             lead,
            EpTensor        **out,
            GError          **error)
{
  EpTensor *a = call->inputs[0], *b = call->inputs[1];
  guint na = a->layout.ndim, nb = b->layout.ndim, nmax = MAX (na, nb);
  EpTensor *ta_term = NULL, *tb_term = NULL;

  if (lead > 0 && nmax + 1 > EP_MAX_DIMS)
    return TRUE;   /* caller sees no tangent set: treated as not batchable */

  if (t[0] != NULL)
    {
      g_autoptr(EpTensor) ta = NULL;

      if (lead == 0 || nb == 1)
        ta = g_object_ref (t[0]);
      else if (na == 1)
        ta = vector_rows (t[0], nb, error);
      else
        ta = lift (t[0], lead, nmax, error);
      if (ta == NULL || (ta_term = ep_tensor_matmul (ta, b, error)) == NULL)
        return FALSE;
    }
  if (t[1] != NULL)
    {
      g_autoptr(EpTensor) tb = NULL;
      g_autoptr(EpTensor) product = NULL;

      if (lead > 0 && nb == 1)
        {
          /* a @ tbᵀ: (…, m, k), the batch last */
          g_autoptr(EpTensor) columns = ep_grad_swap_last (t[1], error);

          product = columns != NULL ? ep_tensor_matmul (a, columns, error) : NULL;
          tb_term = product == NULL ? NULL : na == 1 ? g_object_ref (product) : last_to_front (product, error);
        }
      else
        {
          tb = lead > 0 && na > 1 ? lift (t[1], lead, nmax, error) : g_object_ref (t[1]);
          tb_term = tb != NULL ? ep_tensor_matmul (a, tb, error) : NULL;
        }
      if (tb_term == NULL)
        {
          g_clear_object (&ta_term);
          return FALSE;
        }
    }

  /* a vector operand's row comes back as a dimension of 1: reshape */
  if (lead > 0)
    {
      gint64 shape[EP_MAX_DIMS + 1];
      EpTensor *any = ta_term != NULL ? ta_term : tb_term;
      guint n = any != NULL ? batch_shape (any, lead, &call->outputs[0]->layout, shape) : 0;

      for (guint k = 0; k < 2; k++)
        {
          EpTensor **term = k == 0 ? &ta_term : &tb_term;
          EpTensor *reshaped;

          if (*term == NULL)
            continue;
          reshaped = ep_tensor_reshape (*term, shape, n, error);
          g_object_unref (*term);
          *term = reshaped;
          if (reshaped == NULL)
            {
              g_clear_object (&ta_term);
              g_clear_object (&tb_term);
              return FALSE;
            }
        }
    }

  out[0] = fit (call, 0, add_terms (ta_term, tb_term, error), lead, error);
  return out[0] != NULL;
}

/* The op itself on the tangent, its axes moved past the batch */
static gboolean
shifted_jvp (const EpOpCall   *call,
             EpTensor *const  *t,
             guint             lead,
             EpTensor        **out,
             GError          **error)
{
  EpOpAttrs attrs = call->attrs;
  EpTensor *y = call->outputs[0];
  gint64 shape[EP_MAX_DIMS + 1];
  guint n;

  if (t[0] == NULL)
    return TRUE;
  if (lead > 0 && t[0]->layout.ndim > EP_MAX_DIMS - 1 + lead && call->op->id != EP_OP_RESHAPE)
    return TRUE;

  switch (call->op->id)
    {
    case EP_OP_RESHAPE:
    case EP_OP_EXPAND_DIMS:
    case EP_OP_SQUEEZE:
      n = batch_shape (t[0], lead, &y->layout, shape);
      if (n > EP_MAX_DIMS)
        return TRUE;
      out[0] = ep_tensor_reshape (t[0], shape, n, error);
      return out[0] != NULL;
    case EP_OP_BROADCAST_TO:
      out[0] = fit (call, 0, g_object_ref (t[0]), lead, error);
      return out[0] != NULL;
    case EP_OP_TRANSPOSE:
      if (lead > 0)
        {
          for (guint d = attrs.n_axes; d > 0; d--)
            attrs.axes[d] = attrs.axes[d - 1] + 1;
          attrs.axes[0] = 0;
          attrs.n_axes++;
        }
      break;
    case EP_OP_SUM:
    case EP_OP_MEAN:
      for (guint a = 0; a < attrs.n_axes; a++)
        attrs.axes[a] += lead;
      break;
    default:
      g_assert_not_reached ();
    }

  out[0] = fit (call, 0, ep_dispatch1 (call->op, &t[0], 1, &attrs, error), lead, error);
  return out[0] != NULL;
}

/* softmax: y (t - Σ y t); log_softmax: t - Σ softmax t */
static gboolean
softmax_jvp (const EpOpCall   *call,
             EpTensor *const  *t,
             guint             lead,
             EpTensor        **out,
             GError          **error)
{
  gint axis = call->attrs.axes[0] + lead;
  gboolean log = call->op->id == EP_OP_LOG_SOFTMAX;
  g_autoptr(EpTensor) p = NULL, pt = NULL, s = NULL, d = NULL;

  if (t[0] == NULL)
    return TRUE;

  p = log ? ep_tensor_exp (call->outputs[0], error) : g_object_ref (call->outputs[0]);
  if (p == NULL || (pt = ep_tensor_mul (p, t[0], error)) == NULL
      || (s = ep_tensor_sum (pt, &axis, 1, TRUE, error)) == NULL
      || (d = ep_tensor_sub (t[0], s, error)) == NULL)
    return FALSE;

  out[0] = fit (call, 0, log ? g_steal_pointer (&d) : ep_tensor_mul (p, d, error), lead, error);
  return out[0] != NULL;
}

/* identity, contiguous, astype, to_device: the op on the tangent */
static gboolean
pass_jvp (const EpOpCall   *call,
          EpTensor *const  *t,
          guint             lead,
          EpTensor        **out,
          GError          **error)
{
  if (t[0] == NULL || !ep_dtype_is_floating (call->outputs[0]->layout.dtype))
    return TRUE;

  out[0] = fit (call, 0, redispatch (call, &t[0], NULL, error), lead, error);
  return out[0] != NULL;
}

static gboolean
direct_jvp (const EpOpCall   *call,
            EpTensor *const  *t,
            guint             lead,
            EpTensor        **out,
            GError          **error)
{
  switch (call->op->id)
    {
    case EP_OP_ADD: case EP_OP_SUB: case EP_OP_MUL: case EP_OP_DIV:
      return arithmetic_jvp (call, t, lead, out, error);
    case EP_OP_WHERE:
      return where_jvp (call, t, lead, out, error);
    case EP_OP_MATMUL:
      return matmul_jvp (call, t, lead, out, error);
    case EP_OP_SOFTMAX: case EP_OP_LOG_SOFTMAX:
      return softmax_jvp (call, t, lead, out, error);
    case EP_OP_ASTYPE: case EP_OP_CONTIGUOUS: case EP_OP_TO_DEVICE: case EP_OP_IDENTITY:
      return pass_jvp (call, t, lead, out, error);
    default:
      return shifted_jvp (call, t, lead, out, error);
    }
}

/* The reverse rule of an elementwise op of one input, on the tangent */
static gboolean
diagonal_jvp (const EpOpCall   *call,
              EpTensor *const  *t,
              guint             lead,
              EpTensor        **out,
              gboolean         *batchable,
              GError          **error)
{
  EpTensor *input_grads[1] = { NULL };
  EpTensor *output_grads[EP_MAX_OUTPUTS] = { t[0] };
  EpGradContext context = { .call = call, .needed = 1 };
  EpGradContext *previous;
  gboolean ok;

  if (t[0] == NULL)
    return TRUE;

  previous = ep_grad_context_push (&context);
  ok = call->op->gradient (call, output_grads, input_grads, error);
  ep_grad_context_pop (previous);
  if (!ok)
    return FALSE;
  if (input_grads[0] == NULL)
    return TRUE;
  if (!ep_layout_same_shape (&input_grads[0]->layout, &t[0]->layout))
    {
      g_object_unref (input_grads[0]);
      *batchable = FALSE;
      return TRUE;
    }

  out[0] = fit (call, 0, input_grads[0], lead, error);
  return out[0] != NULL;
}

/* Each input's reverse rule on its tangent, with every operand (and the
 * output) broadcast to the output's shape, the batch in front: there the
 * rule sums nothing, and its Jacobian for each input is diagonal */
static gboolean
elementwise_jvp (const EpOpCall   *call,
                 EpTensor *const  *t,
                 guint             lead,
                 EpTensor        **out,
                 gboolean         *batchable,
                 GError          **error)
{
  EpTensor *y = call->outputs[0];
  g_autoptr(GPtrArray) operands = ep_tensor_array_new (call->n_inputs);
  g_autoptr(EpTensor) spread_y = NULL;
  EpTensor *sum = NULL, *any = NULL;
  gint64 shape[EP_MAX_DIMS + 1];
  EpOpCall wide;
  guint n;

  for (guint i = 0; i < call->n_inputs && any == NULL; i++)
    any = t[i];
  n = batch_shape (any, lead, &y->layout, shape);
  if (n > EP_MAX_DIMS)
    {
      *batchable = FALSE;
      return TRUE;
    }

  for (guint i = 0; i < call->n_inputs; i++)
    {
      EpTensor *operand = ep_tensor_broadcast_to (call->inputs[i], shape, n, error);

      if (operand == NULL)
        return FALSE;
      g_ptr_array_add (operands, operand);
    }
  spread_y = ep_tensor_broadcast_to (y, shape, n, error);
  if (spread_y == NULL)
    return FALSE;
  wide = *call;
  wide.inputs = (EpTensor **) operands->pdata;
  wide.outputs[0] = spread_y;
  wide.output_layouts[0] = spread_y->layout;

  for (guint i = 0; i < call->n_inputs; i++)
    {
      g_autoptr(EpTensor) lifted = NULL, g = NULL;
      EpTensor *output_grads[EP_MAX_OUTPUTS] = { NULL };
      EpTensor *input_grads[EP_MAX_OUTPUTS] = { NULL };
      EpGradContext context = { .call = &wide, .needed = 1u << i };
      EpGradContext *previous;
      gboolean ok;

      if (t[i] == NULL)
        continue;
      lifted = lift (t[i], lead, y->layout.ndim, error);
      g = lifted != NULL ? ep_tensor_broadcast_to (lifted, shape, n, error) : NULL;
      if (g == NULL)
        {
          g_clear_object (&sum);
          return FALSE;
        }
      output_grads[0] = g;
      previous = ep_grad_context_push (&context);
      ok = call->op->gradient (&wide, output_grads, input_grads, error);
      ep_grad_context_pop (previous);
      for (guint j = 0; j < call->n_inputs; j++)
        if (j != i)
          g_clear_object (&input_grads[j]);
      if (!ok)
        {
          g_clear_object (&input_grads[i]);
          g_clear_object (&sum);
          return FALSE;
        }
      if (input_grads[i] == NULL)
        continue;
      sum = add_terms (sum, input_grads[i], error);
      if (sum == NULL)
        return FALSE;
    }

  out[0] = fit (call, 0, sum, lead, error);
  return sum == NULL || out[0] != NULL;
}

/* Zeros for an input without a tangent, where the op needs one */
static EpTensor *
tangent_or_zeros (EpTensor  *input,
                  EpTensor  *tangent,
                  GError   **error)
{
  if (tangent != NULL)
    return g_object_ref (tangent);
  if (!ep_dtype_is_floating (input->layout.dtype))
    return g_object_ref (input);

  return ep_tensor_zeros_like (input, error);
}

static gboolean
linear_jvp (const EpOpCall   *call,
            EpTensor *const  *t,
            EpTensor        **out,
            GError          **error)
{
  g_autoptr(GPtrArray) inputs = ep_tensor_array_new (call->n_inputs);
  EpOpAttrs attrs = *given_attrs (call);

  for (guint i = 0; i < call->n_inputs; i++)
    {
      EpTensor *input = tangent_or_zeros (call->inputs[i], t[i], error);

      if (input == NULL)
        return FALSE;
      g_ptr_array_add (inputs, input);
    }
  /* a constant pad is affine: its tangent pads with zeros */
  if (call->op->id == EP_OP_PAD)
    attrs.pad.value = 0.0;

  out[0] = fit (call, 0, redispatch (call, (EpTensor **) inputs->pdata, &attrs, error), 0, error);
  return out[0] != NULL;
}

static gboolean
multilinear_jvp (const EpOpCall   *call,
                 EpTensor *const  *t,
                 EpTensor        **out,
                 GError          **error)
{
  g_autofree EpTensor **inputs = g_new (EpTensor *, MAX (call->n_inputs, 1));
  EpTensor *sum = NULL;

  for (guint i = 0; i < call->n_inputs; i++)
    {
      EpTensor *term;

      if (t[i] == NULL)
        continue;
      memcpy (inputs, call->inputs, call->n_inputs * sizeof (EpTensor *));
      inputs[i] = t[i];
      term = redispatch (call, inputs, NULL, error);
      if (term == NULL)
        {
          g_clear_object (&sum);
          return FALSE;
        }
      sum = add_terms (sum, term, error);
      if (sum == NULL)
        return FALSE;
    }

  out[0] = fit (call, 0, sum, 0, error);
  return sum == NULL || out[0] != NULL;
}

/* The transpose of the reverse rule: see the top of the file */
static gboolean
derived_jvp (const EpOpCall   *call,
             EpTensor *const  *t,
             EpTensor        **out,
             GError          **error)
{
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(GPtrArray) probes = ep_tensor_array_new (call->n_outputs);
  g_autoptr(GPtrArray) watched = ep_tensor_array_new (call->n_outputs);
  g_autoptr(GPtrArray) grads = NULL;
  g_autoptr(EpTensor) total = NULL;
  EpTensor *input_grads_inline[8] = { NULL };
  EpTensor **input_grads = call->n_inputs <= 8 ? input_grads_inline : g_new0 (EpTensor *, call->n_inputs);
  EpGradContext context = { .call = call, .needed = 0 };
  EpGradContext *previous;
  gboolean ok = TRUE;

  for (guint i = 0; i < call->n_inputs && i < 32; i++)
    if (t[i] != NULL)
      context.needed |= 1u << i;

  if (!ep_gradient_tape_start (tape, error))
    return FALSE;
  for (guint o = 0; o < call->n_outputs && ok; o++)
    {
      /* any u does, the rule being linear in it; not zeros, which some
       * rules (svd's, eigh's) skip as an unconnected output */
      gboolean floating = ep_dtype_is_floating (call->outputs[o]->layout.dtype);
      EpTensor *probe = floating ? ep_tensor_ones_like (call->outputs[o], error)
                                 : ep_tensor_zeros_like (call->outputs[o], error);

      ok = probe != NULL;
      if (!ok)
        break;
      g_ptr_array_add (probes, probe);
      if (floating)
        {
          ep_gradient_tape_watch (tape, probe);
          g_ptr_array_add (watched, g_object_ref (probe));
        }
    }

  if (ok)
    {
      previous = ep_grad_context_push (&context);
      ok = call->op->gradient (call, (EpTensor *const *) probes->pdata, input_grads, error);
      ep_grad_context_pop (previous);
    }

  /* <Jᵀu, t> */
  for (guint i = 0; i < call->n_inputs && ok; i++)
    {
      g_autoptr(EpTensor) product = NULL;
      EpTensor *part;

      if (t[i] == NULL || input_grads[i] == NULL)
        continue;
      product = ep_tensor_mul (input_grads[i], t[i], error);
      part = product != NULL ? ep_tensor_sum (product, NULL, 0, FALSE, error) : NULL;
      ok = part != NULL;
      if (ok)
        total = add_terms (g_steal_pointer (&total), part, error);
      ok = ok && total != NULL;
    }
  ep_gradient_tape_stop (tape, NULL);

  for (guint i = 0; i < call->n_inputs; i++)
    g_clear_object (&input_grads[i]);
  if (input_grads != input_grads_inline)
    g_free (input_grads);

  if (!ok || total == NULL)
    return ok;

  grads = ep_gradient_tape_gradient_tensors (tape, &total, 1, (EpTensor **) watched->pdata,
                                             watched->len, NULL, 0, error);
  if (grads == NULL)
    return FALSE;

  for (guint o = 0, w = 0; o < call->n_outputs; o++)
    {
      if (!ep_dtype_is_floating (call->outputs[o]->layout.dtype))
        continue;
      out[o] = fit (call, o, g_object_ref (g_ptr_array_index (grads, w++)), 0, error);
      if (out[o] == NULL)
        return FALSE;
    }

  return TRUE;
}

gboolean
ep_jvp_rule (const EpOpCall   *call,
             EpTensor *const  *tangents,
             guint             lead,
             EpTensor        **output_tangents,
             gboolean         *batchable,
             GError          **error)
{
  EpJvpKind kind = ep_jvp_kind (call->op);
  gboolean any = FALSE;

  *batchable = TRUE;
  for (guint o = 0; o < call->n_outputs; o++)
    output_tangents[o] = NULL;
  for (guint i = 0; i < call->n_inputs && !any; i++)
    any = tangents[i] != NULL;
  if (!any || kind == EP_JVP_NONE || !has_floating_output (call))
    return TRUE;

  switch (kind)
    {
    case EP_JVP_DIRECT:
      {
        gboolean ok = direct_jvp (call, tangents, lead, output_tangents, error);

        /* a batched rule that set nothing could not take the batch */
        if (ok && lead > 0 && output_tangents[0] == NULL)
          *batchable = FALSE;
        return ok;
      }
    case EP_JVP_DIAGONAL:
      return diagonal_jvp (call, tangents, lead, output_tangents, batchable, error);
    case EP_JVP_ELEMENTWISE:
      return elementwise_jvp (call, tangents, lead, output_tangents, batchable, error);
    case EP_JVP_NONE:
      return TRUE;
    default:
      break;
    }

  if (lead > 0)
    {
      *batchable = FALSE;
      return TRUE;
    }
  if (kind == EP_JVP_LINEAR)
    return linear_jvp (call, tangents, output_tangents, error);
  if (kind == EP_JVP_MULTILINEAR)
    return multilinear_jvp (call, tangents, output_tangents, error);

  return derived_jvp (call, tangents, output_tangents, error);
}
