/* test-dispatch.c: the one dispatch path, seen by recorders
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Private API: a test recorder on the per-thread stack keeps a copy of
 * every call it is handed (op, canonical attributes, inputs after
 * conversion, outputs, device).
 */

#include "ep-test-util.h"

#include "ep-device-private.h"
#include "ep-autodiff-private.h"
#include "ep-dispatch-private.h"
#include "ep-grad-private.h"
#include "ep-recorder-private.h"

typedef struct
{
  const EpOpDef *op;
  EpOpAttrs      attrs;
  guint          n_inputs;
  EpTensor      *inputs[4];
  EpTensor      *output;
  EpDevice      *device;
} Recorded;

static void
recorded_free (Recorded *r)
{
  for (guint i = 0; i < r->n_inputs; i++)
    g_object_unref (r->inputs[i]);
  g_clear_object (&r->output);
  g_free (r);
}

typedef struct
{
  EpRecorder  parent;
  const char *name;
  GPtrArray  *calls;
  GString    *log;      /* shared by several recorders: who saw what, in order */
  gboolean    fail;
} TestRecorder;

static gboolean
test_record (EpRecorder      *recorder,
             const EpOpCall  *call,
             GError         **error)
{
  TestRecorder *self = (TestRecorder *) recorder;
  Recorded *r;

  if (self->log != NULL)
    g_string_append_printf (self->log, "%s:%s ", self->name, call->op->name);

  if (self->fail)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_GRADIENT, "recorder: refused %s", call->op->name);
      return FALSE;
    }

  r = g_new0 (Recorded, 1);
  r->op = call->op;
  r->attrs = call->attrs;
  r->n_inputs = MIN (call->n_inputs, G_N_ELEMENTS (r->inputs));
  for (guint i = 0; i < r->n_inputs; i++)
    r->inputs[i] = g_object_ref (call->inputs[i]);
  r->output = call->outputs[0] != NULL ? g_object_ref (call->outputs[0]) : NULL;
  r->device = call->device;
  g_ptr_array_add (self->calls, r);

  return TRUE;
}

static guint
test_mark (EpRecorder *recorder)
{
  return ((TestRecorder *) recorder)->calls->len;
}

static void
test_rollback (EpRecorder *recorder,
               guint       mark)
{
  g_ptr_array_set_size (((TestRecorder *) recorder)->calls, mark);
}

static void
test_recorder_init (TestRecorder *self,
                    const char   *name,
                    GString      *log)
{
  memset (self, 0, sizeof *self);
  self->parent.record = test_record;
  self->parent.mark = test_mark;
  self->parent.rollback = test_rollback;
  self->name = name;
  self->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) recorded_free);
  self->log = log;
}

static void
test_recorder_clear (TestRecorder *self)
{
  if (ep_recorder_is_active (&self->parent))
    ep_recorder_pop (&self->parent);
  g_clear_pointer (&self->calls, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TestRecorder, test_recorder_clear)

static Recorded *
nth (TestRecorder *self,
     guint         i)
{
  g_assert_cmpuint (i, <, self->calls->len);
  return g_ptr_array_index (self->calls, i);
}

/* Starts a recorder that a test clears automatically. */
#define RECORDING(var)                                                      \
  g_auto(TestRecorder) var;                                                 \
  test_recorder_init (&var, #var, NULL);                                    \
  ep_recorder_push (&var.parent)

/* each op once */

static void
test_records_each_op_once (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  RECORDING (rec);
  g_autoptr(EpTensor) y = ep_tensor_exp (x, &error);
  g_autoptr(EpTensor) z = ep_tensor_add (y, x, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (rec.calls->len, ==, 2);
  g_assert_true (nth (&rec, 0)->op == &ep_op_exp);
  g_assert_true (nth (&rec, 0)->inputs[0] == x);
  g_assert_true (nth (&rec, 0)->output == y);
  g_assert_true (nth (&rec, 1)->op == &ep_op_add);
  g_assert_true (nth (&rec, 1)->inputs[0] == y);
  g_assert_true (nth (&rec, 1)->inputs[1] == x);
  g_assert_true (nth (&rec, 1)->output == z);
}

static void
test_nothing_recorded_without_recorder (void)
{
  TestRecorder rec;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) y = NULL;

  g_assert_false (ep_recorders_any ());
  test_recorder_init (&rec, "rec", NULL);
  ep_recorder_push (&rec.parent);
  g_assert_true (ep_recorders_any ());
  ep_recorder_pop (&rec.parent);
  g_assert_false (ep_recorders_any ());

  y = ep_tensor_neg (x, NULL);
  g_assert_cmpuint (rec.calls->len, ==, 0);
  test_recorder_clear (&rec);
}

static void
test_nested_recorders_each_see_once (void)
{
  g_autoptr(GString) log = g_string_new (NULL);
  g_auto(TestRecorder) outer;
  g_auto(TestRecorder) inner;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) y = NULL;

  test_recorder_init (&outer, "outer", log);
  test_recorder_init (&inner, "inner", log);
  ep_recorder_push (&outer.parent);
  ep_recorder_push (&inner.parent);
  y = ep_tensor_square (x, NULL);

  g_assert_cmpuint (outer.calls->len, ==, 1);
  g_assert_cmpuint (inner.calls->len, ==, 1);
  g_assert_cmpstr (log->str, ==, "inner:square outer:square ");
}

/* canonical attributes */

static void
test_reduce_axes_canonical (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (2, 3, 4), EP_DTYPE_FLOAT32, &error);
  RECORDING (rec);
  g_autoptr(EpTensor) a = ep_tensor_sum (x, EP_AXES (-1, 0), TRUE, &error);
  g_autoptr(EpTensor) b = ep_tensor_max (x, NULL, 0, FALSE, &error);
  Recorded *r;

  g_assert_no_error (error);
  r = nth (&rec, 0);
  g_assert_false (r->attrs.all_axes);
  g_assert_cmpuint (r->attrs.n_axes, ==, 2);
  g_assert_cmpint (r->attrs.axes[0], ==, 0);
  g_assert_cmpint (r->attrs.axes[1], ==, 2);
  g_assert_true (r->attrs.keepdims);
  r = nth (&rec, 1);
  g_assert_false (r->attrs.all_axes);
  g_assert_cmpuint (r->attrs.n_axes, ==, 3);
  for (gint i = 0; i < 3; i++)
    g_assert_cmpint (r->attrs.axes[i], ==, i);
}

static void
test_transpose_axes_canonical (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (2, 3, 4), EP_DTYPE_FLOAT32, &error);
  RECORDING (rec);
  g_autoptr(EpTensor) a = ep_tensor_transpose (x, NULL, 0, &error);
  g_autoptr(EpTensor) b = ep_tensor_transpose (x, EP_AXES (-1, 0, -2), &error);

  g_assert_no_error (error);
  g_assert_cmpuint (nth (&rec, 0)->attrs.n_axes, ==, 3);
  g_assert_cmpint (nth (&rec, 0)->attrs.axes[0], ==, 2);
  g_assert_cmpint (nth (&rec, 0)->attrs.axes[1], ==, 1);
  g_assert_cmpint (nth (&rec, 0)->attrs.axes[2], ==, 0);
  g_assert_cmpint (nth (&rec, 1)->attrs.axes[0], ==, 2);
  g_assert_cmpint (nth (&rec, 1)->attrs.axes[1], ==, 0);
  g_assert_cmpint (nth (&rec, 1)->attrs.axes[2], ==, 1);
}

static void
test_reshape_shape_canonical (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (2, 3, 4), EP_DTYPE_FLOAT32, &error);
  RECORDING (rec);
  g_autoptr(EpTensor) a = ep_tensor_reshape (x, EP_SHAPE (-1, 4), &error);

  g_assert_no_error (error);
  g_assert_cmpuint (nth (&rec, 0)->attrs.ndim, ==, 2);
  g_assert_cmpint (nth (&rec, 0)->attrs.shape[0], ==, 6);
  g_assert_cmpint (nth (&rec, 0)->attrs.shape[1], ==, 4);
}

static void
test_expand_squeeze_axes_canonical (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (1, 3, 1), EP_DTYPE_FLOAT32, &error);
  RECORDING (rec);
  g_autoptr(EpTensor) a = ep_tensor_expand_dims (x, -1, &error);
  g_autoptr(EpTensor) b = ep_tensor_squeeze (x, NULL, 0, &error);
  g_autoptr(EpTensor) c = ep_tensor_squeeze (x, EP_AXES (-1), &error);

  g_assert_no_error (error);
  g_assert_cmpint (nth (&rec, 0)->attrs.axes[0], ==, 3);
  g_assert_false (nth (&rec, 1)->attrs.all_axes);
  g_assert_cmpuint (nth (&rec, 1)->attrs.n_axes, ==, 2);
  g_assert_cmpint (nth (&rec, 1)->attrs.axes[0], ==, 0);
  g_assert_cmpint (nth (&rec, 1)->attrs.axes[1], ==, 2);
  g_assert_cmpuint (nth (&rec, 2)->attrs.n_axes, ==, 1);
  g_assert_cmpint (nth (&rec, 2)->attrs.axes[0], ==, 2);
}

static void
test_creation_attrs (void)
{
  g_autoptr(GError) error = NULL;
  RECORDING (rec);
  g_autoptr(EpTensor) a = ep_full (EP_SHAPE (2, 5), 3.5, EP_DTYPE_FLOAT64, &error);
  g_autoptr(EpTensor) b = ep_arange (1, 7, 2, EP_DTYPE_INT32, &error);
  Recorded *r;

  g_assert_no_error (error);
  g_assert_cmpuint (rec.calls->len, ==, 2);
  r = nth (&rec, 0);
  g_assert_true (r->op == &ep_op_full);
  g_assert_cmpuint (r->n_inputs, ==, 0);
  g_assert_cmpuint (r->attrs.ndim, ==, 2);
  g_assert_cmpint (r->attrs.shape[1], ==, 5);
  g_assert_cmpfloat (r->attrs.full.value.f, ==, 3.5);
  g_assert_cmpint (r->attrs.dtype, ==, EP_DTYPE_FLOAT64);
  g_assert_true (r->output == a);
  r = nth (&rec, 1);
  g_assert_true (r->op == &ep_op_arange);
  g_assert_cmpfloat (r->attrs.arange.step.f, ==, 2);
  g_assert_true (r->output == b);
}

/* converted inputs */

static void
test_promotion_dispatches_astype_first (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  RECORDING (rec);
  g_autoptr(EpTensor) c = ep_tensor_add (a, b, &error);
  Recorded *add;

  g_assert_no_error (error);
  g_assert_cmpuint (rec.calls->len, ==, 3);
  g_assert_true (nth (&rec, 0)->op == &ep_op_astype);
  g_assert_true (nth (&rec, 0)->inputs[0] == a);
  g_assert_cmpint (nth (&rec, 0)->attrs.dtype, ==, EP_DTYPE_FLOAT64);
  g_assert_true (nth (&rec, 1)->op == &ep_op_astype);
  g_assert_true (nth (&rec, 1)->inputs[0] == b);
  add = nth (&rec, 2);
  g_assert_true (add->op == &ep_op_add);
  g_assert_true (add->inputs[0] == nth (&rec, 0)->output);
  g_assert_true (add->inputs[1] == nth (&rec, 1)->output);
  g_assert_cmpint (ep_tensor_get_dtype (add->inputs[0]), ==, EP_DTYPE_FLOAT64);
  g_assert_cmpint (ep_tensor_get_dtype (add->inputs[1]), ==, EP_DTYPE_FLOAT64);
}

static void
test_unary_cast_recorded (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (2), EP_VALUES (1, 2));
  RECORDING (rec);
  g_autoptr(EpTensor) e = ep_tensor_exp (a, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (rec.calls->len, ==, 2);
  g_assert_true (nth (&rec, 0)->op == &ep_op_astype);
  g_assert_true (nth (&rec, 1)->op == &ep_op_exp);
  g_assert_cmpint (ep_tensor_get_dtype (nth (&rec, 1)->inputs[0]), ==, EP_DTYPE_FLOAT64);
}

/* A weak literal is converted without an op: it has no history. */
static void
test_weak_literal_is_not_an_op (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  RECORDING (rec);
  g_autoptr(EpTensor) y = ep_tensor_mul_scalar (x, 2.5, &error);
  Recorded *r;

  g_assert_no_error (error);
  g_assert_cmpuint (rec.calls->len, ==, 1);
  r = nth (&rec, 0);
  g_assert_true (r->op == &ep_op_mul);
  g_assert_true (r->inputs[0] == x);
  g_assert_cmpint (ep_tensor_get_dtype (r->inputs[1]), ==, EP_DTYPE_FLOAT32);
  g_assert_cmpuint (ep_tensor_get_ndim (r->inputs[1]), ==, 0);
  g_assert_cmpfloat (ep_tensor_item_double (r->inputs[1], NULL), ==, 2.5);
}

static void
test_weak_literal_with_promotion (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (1, 2));
  RECORDING (rec);
  g_autoptr(EpTensor) y = ep_tensor_mul_scalar (x, 2.5, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (rec.calls->len, ==, 2);
  g_assert_true (nth (&rec, 0)->op == &ep_op_astype);
  g_assert_true (nth (&rec, 0)->inputs[0] == x);
  g_assert_true (nth (&rec, 1)->op == &ep_op_mul);
  g_assert_cmpint (ep_tensor_get_dtype (nth (&rec, 1)->inputs[1]), ==, EP_DTYPE_FLOAT64);
}

static void
test_reshape_copy_dispatches_contiguous (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (2, 3), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, NULL, 0, &error);
  RECORDING (rec);
  g_autoptr(EpTensor) y = ep_tensor_reshape (t, EP_SHAPE (6), &error);

  g_assert_no_error (error);
  g_assert_cmpuint (rec.calls->len, ==, 2);
  g_assert_true (nth (&rec, 0)->op == &ep_op_contiguous);
  g_assert_true (nth (&rec, 0)->inputs[0] == t);
  g_assert_true (nth (&rec, 1)->op == &ep_op_reshape);
  g_assert_true (nth (&rec, 1)->inputs[0] == nth (&rec, 0)->output);
  g_assert_true (ep_tensor_shares_storage (y, nth (&rec, 0)->output));
}

static void
test_matmul_compacts_for_blas (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (2, 3, 4), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, NULL, 0, &error);
  g_autoptr(EpTensor) m = ep_zeros (EP_SHAPE (4, 3), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) mt = ep_tensor_transpose (m, NULL, 0, &error);
  g_autoptr(EpTensor) b = ep_zeros (EP_SHAPE (2, 5), EP_DTYPE_FLOAT32, &error);
  RECORDING (rec);
  g_autoptr(EpTensor) c = ep_tensor_matmul (t, b, &error);
  g_autoptr(EpTensor) d = ep_tensor_matmul (mt, m, &error);

  g_assert_no_error (error);
  /* t's matrices have no unit stride: compacted; a plain transpose is not */
  g_assert_cmpuint (rec.calls->len, ==, 3);
  g_assert_true (nth (&rec, 0)->op == &ep_op_contiguous);
  g_assert_true (nth (&rec, 1)->op == &ep_op_matmul);
  g_assert_true (nth (&rec, 2)->op == &ep_op_matmul);
  g_assert_true (nth (&rec, 2)->inputs[0] == mt);
}

/* views */

static void
test_views_are_recorded (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (2, 3), EP_DTYPE_FLOAT32, &error);
  RECORDING (rec);
  g_autoptr(EpTensor) a = ep_tensor_reshape (x, EP_SHAPE (3, 2), &error);
  g_autoptr(EpTensor) b = ep_tensor_transpose (x, NULL, 0, &error);
  g_autoptr(EpTensor) c = ep_tensor_expand_dims (x, 0, &error);
  g_autoptr(EpTensor) d = ep_tensor_squeeze (c, NULL, 0, &error);
  const EpOpDef *ops[] = { &ep_op_reshape, &ep_op_transpose, &ep_op_expand_dims, &ep_op_squeeze };

  g_assert_no_error (error);
  g_assert_cmpuint (rec.calls->len, ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      Recorded *r = nth (&rec, i);

      g_assert_true (r->op == ops[i]);
      g_assert_true (ep_tensor_shares_storage (r->output, x));
      g_assert_true (r->device == ep_device_get_default ());
    }
}

/* Conversions with nothing to do give new tensor objects on the same
 * data (never @x itself, which a release of the result would reach),
 * recorded as identities: tapes follow them back to @x. */
static void
test_no_op_shortcuts_are_identities (void)
{
  g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (2), EP_DTYPE_FLOAT32, NULL);
  RECORDING (rec);
  g_autoptr(EpTensor) a = ep_tensor_astype (x, EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) b = ep_tensor_contiguous (x, NULL);
  g_autoptr(EpTensor) c = ep_tensor_to_device (x, ep_device_get_default (), NULL);
  EpTensor *results[] = { a, b, c };

  g_assert_cmpuint (rec.calls->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      Recorded *r = nth (&rec, i);

      g_assert_true (r->op == &ep_op_identity);
      g_assert_true (r->output == results[i]);
      g_assert_true (results[i] != x);
      g_assert_true (ep_tensor_shares_storage (results[i], x));
    }
}

/* failures */

static void
test_nothing_recorded_on_failure (void)
{
  g_autoptr(EpTensor) i = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) f = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (1, 0));
  g_autoptr(GError) e1 = NULL;
  g_autoptr(GError) e2 = NULL;
  g_autoptr(GError) e3 = NULL;
  g_autoptr(GError) e4 = NULL;
  g_autoptr(GError) e5 = NULL;
  g_autoptr(GError) e6 = NULL;
  RECORDING (rec);
  /* would need casts: none may be recorded either */
  g_autoptr(EpTensor) r1 = ep_tensor_add (i, f, &e1);
  g_autoptr(EpTensor) r2 = ep_tensor_sub (b, b, &e2);
  g_autoptr(EpTensor) r3 = ep_tensor_reshape (f, EP_SHAPE (2), &e3);
  g_autoptr(EpTensor) r4 = ep_tensor_mean (i, NULL, 0, FALSE, &e4);
  g_autoptr(EpTensor) r5 = ep_tensor_matmul (i, f, &e5);
  g_autoptr(EpTensor) r6 = ep_zeros (EP_SHAPE (G_GINT64_CONSTANT (1) << 40, G_GINT64_CONSTANT (1) << 40),
                                     EP_DTYPE_FLOAT32, &e6);

  g_assert_true (r1 == NULL && r2 == NULL && r3 == NULL && r4 == NULL && r5 == NULL && r6 == NULL);
  g_assert_true (e1 != NULL && e2 != NULL && e3 != NULL && e4 != NULL && e5 != NULL && e6 != NULL);
  g_assert_cmpuint (rec.calls->len, ==, 0);
}

/* An allocation that fails in the run step, after the rule accepted the
 * call: not recorded either. */
static void
test_failed_allocation_not_recorded (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) big = ep_zeros (EP_SHAPE (G_GINT64_CONSTANT (1) << 40, 1), EP_DTYPE_FLOAT32, &error);
  RECORDING (rec);
  g_autoptr(EpTensor) x = NULL;

  g_assert_null (big);
  ep_assert_error (error, EP_ERROR_OUT_OF_MEMORY, "zeros", NULL);
  g_clear_error (&error);
  x = ep_zeros (EP_SHAPE (G_GINT64_CONSTANT (1) << 40, G_GINT64_CONSTANT (1) << 20), EP_DTYPE_FLOAT32, &error);
  g_assert_null (x);
  ep_assert_error (error, EP_ERROR_OUT_OF_MEMORY, "zeros", NULL);
  g_assert_cmpuint (rec.calls->len, ==, 0);
}

static void
test_failing_recorder_fails_the_op (void)
{
  g_autoptr(GString) log = g_string_new (NULL);
  g_auto(TestRecorder) outer;
  g_auto(TestRecorder) inner;
  g_autoptr(GError) error = NULL;
  EpTensor *x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) y = NULL;

  test_recorder_init (&outer, "outer", log);
  test_recorder_init (&inner, "inner", log);
  inner.fail = TRUE;
  ep_recorder_push (&outer.parent);
  ep_recorder_push (&inner.parent);
  y = ep_tensor_exp (x, &error);

  g_assert_null (y);
  g_assert_error (error, EP_ERROR, EP_ERROR_GRADIENT);
  g_assert_cmpstr (log->str, ==, "inner:exp ");
  g_assert_cmpuint (outer.calls->len, ==, 0);
  /* the input is not kept by the failed call */
  test_recorder_clear (&inner);
  test_recorder_clear (&outer);
  g_assert_finalize_object (x);
}

/* recorders leave out of order */

static void
test_pop_out_of_order (void)
{
  g_autoptr(GString) log = g_string_new (NULL);
  g_auto(TestRecorder) a;
  g_auto(TestRecorder) b;
  g_auto(TestRecorder) c;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) z = NULL;
  g_autoptr(EpTensor) w = NULL;

  test_recorder_init (&a, "a", log);
  test_recorder_init (&b, "b", log);
  test_recorder_init (&c, "c", log);
  ep_recorder_push (&a.parent);
  ep_recorder_push (&b.parent);
  ep_recorder_push (&c.parent);

  ep_recorder_pop (&b.parent);
  g_assert_false (ep_recorder_is_active (&b.parent));
  g_assert_true (ep_recorder_is_active (&a.parent));
  g_assert_true (ep_recorder_is_active (&c.parent));
  y = ep_tensor_neg (x, NULL);
  g_assert_cmpstr (log->str, ==, "c:neg a:neg ");

  ep_recorder_pop (&a.parent);
  z = ep_tensor_abs (x, NULL);
  g_assert_cmpstr (log->str, ==, "c:neg a:neg c:abs ");

  /* b comes back on top */
  ep_recorder_push (&b.parent);
  w = ep_tensor_relu (x, NULL);
  g_assert_cmpstr (log->str, ==, "c:neg a:neg c:abs b:relu c:relu ");

  ep_recorder_pop (&c.parent);
  ep_recorder_pop (&b.parent);
  g_assert_false (ep_recorders_any ());
}

static void
test_pop_inactive_is_critical (void)
{
  if (g_test_subprocess ())
    {
      TestRecorder rec;

      test_recorder_init (&rec, "rec", NULL);
      ep_recorder_pop (&rec.parent);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*ep_recorder_pop*active*");
}

static void
test_push_twice_is_critical (void)
{
  if (g_test_subprocess ())
    {
      TestRecorder rec;

      test_recorder_init (&rec, "rec", NULL);
      ep_recorder_push (&rec.parent);
      ep_recorder_push (&rec.parent);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*ep_recorder_push*active*");
}

/* Recorders are per thread. */
static gpointer
run_neg (gpointer data)
{
  return ep_tensor_neg (data, NULL);
}

static void
test_recorders_are_per_thread (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  RECORDING (rec);
  GThread *thread = g_thread_new ("other", run_neg, x);
  g_autoptr(EpTensor) y = g_thread_join (thread);

  g_assert_nonnull (y);
  g_assert_cmpuint (rec.calls->len, ==, 0);
}

/* Two threads taking turns: each waits for the stage the other sets. */
typedef struct
{
  GMutex    lock;
  GCond     changed;
  gint      stage;
  EpTensor *x;
  guint     recorded_there;
  gboolean  any_there;
} Turns;

static void
turns_set (Turns *t,
           gint   stage)
{
  g_mutex_lock (&t->lock);
  t->stage = stage;
  g_cond_broadcast (&t->changed);
  g_mutex_unlock (&t->lock);
}

static void
turns_wait (Turns *t,
            gint   stage)
{
  g_mutex_lock (&t->lock);
  while (t->stage < stage)
    g_cond_wait (&t->changed, &t->lock);
  g_mutex_unlock (&t->lock);
}

static gpointer
record_one_op_and_wait (gpointer data)
{
  Turns *t = data;
  RECORDING (rec);
  g_autoptr(EpTensor) y = ep_tensor_neg (t->x, NULL);

  turns_set (t, 1);             /* its recorder is active */
  turns_wait (t, 2);            /* the main thread ran its ops */
  t->recorded_there = rec.calls->len;
  t->any_there = ep_recorders_any ();

  return NULL;
}

/* The other way round: a recorder active on another thread sees none
 * of this thread's ops, and this thread has no recorder. */
static void
test_recorders_of_another_thread_are_not_seen (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) z = NULL;
  Turns t = { .x = x };
  GThread *thread;

  g_mutex_init (&t.lock);
  g_cond_init (&t.changed);
  thread = g_thread_new ("recording", record_one_op_and_wait, &t);

  turns_wait (&t, 1);
  g_assert_false (ep_recorders_any ());
  y = ep_tensor_exp (x, NULL);
  z = ep_tensor_add (y, x, NULL);
  turns_set (&t, 2);
  g_thread_join (thread);

  g_assert_cmpuint (t.recorded_there, ==, 1);
  g_assert_true (t.any_there);
  ep_assert_values (z, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (G_E + 1, G_E * G_E + 2));
  g_mutex_clear (&t.lock);
  g_cond_clear (&t.changed);
}

/* The gradient context (which inputs a rule should differentiate) is per
 * thread too: a tape's backward pass on one thread does not change what
 * a rule computes on another. */
static gpointer
grad_needed_here (gpointer data)
{
  return GINT_TO_POINTER (ep_grad_needed (data, 0));
}

static void
test_grad_context_is_per_thread (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  EpTensor *inputs[1] = { x };
  EpOpCall call = { .op = &ep_op_neg, .inputs = inputs, .n_inputs = 1 };
  EpGradContext context = { .call = &call, .needed = 0 };
  EpGradContext *previous;
  GThread *thread;
  gboolean there;

  g_assert_true (ep_grad_needed (&call, 0));
  previous = ep_grad_context_push (&context);
  g_assert_false (ep_grad_needed (&call, 0));
  thread = g_thread_new ("other", grad_needed_here, &call);
  there = GPOINTER_TO_INT (g_thread_join (thread));
  ep_grad_context_pop (previous);

  g_assert_true (there);
  g_assert_null (previous);
  g_assert_true (ep_grad_needed (&call, 0));
}

/* Ops from several threads at once give the same answers. */
static gpointer
run_chain (gpointer data)
{
  gdouble *result = data;

  for (guint i = 0; i < 100; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) flat = ep_arange (0, 64, 1, EP_DTYPE_FLOAT64, &error);
      g_autoptr(EpTensor) x = ep_tensor_reshape (flat, EP_SHAPE (8, 8), &error);
      g_autoptr(EpTensor) t = ep_tensor_transpose (x, NULL, 0, &error);
      g_autoptr(EpTensor) y = ep_tensor_matmul (x, t, &error);
      g_autoptr(EpTensor) i32 = ep_tensor_astype (y, EP_DTYPE_INT32, &error);
      g_autoptr(EpTensor) s = ep_tensor_sum (i32, NULL, 0, FALSE, &error);

      g_assert_no_error (error);
      *result = ep_tensor_item_double (s, NULL);
    }

  return NULL;
}

static void
test_concurrent_ops (void)
{
  GThread *threads[4];
  gdouble results[4];
  gdouble want = 0;

  /* sum of x @ x.T over all entries = |sum of rows|^2 */
  for (guint j = 0; j < 8; j++)
    {
      gdouble column = 0;

      for (guint i = 0; i < 8; i++)
        column += i * 8 + j;
      want += column * column;
    }

  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    threads[t] = g_thread_new ("worker", run_chain, &results[t]);
  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    {
      g_thread_join (threads[t]);
      g_assert_cmpfloat (results[t], ==, want);
    }
}

/* placement */

static void
test_default_placement (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  RECORDING (rec);
  g_autoptr(EpTensor) y = ep_tensor_add_scalar (x, 1, NULL);
  g_autoptr(EpTensor) z = ep_zeros (EP_SHAPE (2), EP_DTYPE_FLOAT32, NULL);

  g_assert_null (ep_device_get_current ());
  g_assert_true (nth (&rec, 0)->device == ep_device_get_default ());
  g_assert_true (nth (&rec, 1)->device == ep_device_get_default ());
  g_assert_cmpstr (ep_device_get_name (ep_tensor_get_device (y)), ==, "cpu:0");
}

/* Only weak literals: no tensor says where, so the default device. */
static void
test_weak_only_placement (void)
{
  g_autoptr(EpTensor) a = ep_tensor_new_weak_scalar (1, EP_DTYPE_INT64);
  g_autoptr(EpTensor) b = ep_tensor_new_weak_scalar (2, EP_DTYPE_INT64);
  RECORDING (rec);
  g_autoptr(EpTensor) c = ep_tensor_add (a, b, NULL);

  g_assert_true (nth (&rec, 0)->device == ep_device_get_default ());
  ep_assert_values (c, EP_DTYPE_INT64, EP_SCALAR, EP_VALUES (3));
}

static void
test_scope_placement (void)
{
  EpDevice *cpu = ep_device_get_default ();
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  RECORDING (rec);
  g_autoptr(EpTensor) y = NULL;

  ep_test_push (cpu);
  g_assert_true (ep_device_get_current () == cpu);
  y = ep_tensor_exp (x, NULL);
  ep_test_pop (cpu);
  g_assert_null (ep_device_get_current ());
  g_assert_true (nth (&rec, 0)->device == cpu);
}

/* the op table */

static void
test_op_table (void)
{
  for (guint id = 0; id < EP_N_OPS; id++)
    {
      const EpOpDef *op = ep_op_get (id);

      g_assert_nonnull (op);
      g_assert_cmpint (op->id, ==, id);
      g_assert_nonnull (op->name);
      g_assert_nonnull (op->infer);
      g_assert_true (ep_op_lookup (op->name) == op);
      g_test_message ("%s", op->name);
      /* views run no kernel; every other op has one on the CPU */
      if (op->flags & EP_OP_FLAG_VIEW)
        g_assert_null (ep_device_get_default ()->backend->kernels[id]);
      else
        g_assert_nonnull (ep_device_get_default ()->backend->kernels[id]);
    }
  g_assert_true (ep_op_lookup ("matmul") == &ep_op_matmul);
  g_assert_null (ep_op_lookup ("no_such_op"));
}

/* Values in rules: only mask (its output's length) and pow (no negative
 * integer exponents) read data there. The gathers and scatters leave
 * indices to their kernels, so their rules accept any index: what a
 * tracer sees holds for other indices too. */
static void
test_reads_data (void)
{
  const char *const readers[] = { "mask", "pow" };
  const char *const indexed[] = { "take", "take_along_axis", "index_update", "scatter_add" };
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (0, 1, 2, 3, 4, 5));
  g_autoptr(EpTensor) bad = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (2, 1), EP_VALUES (99, -99));
  g_autoptr(EpTensor) values = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (1));

  for (guint i = 0; i < G_N_ELEMENTS (readers); i++)
    g_assert_true (ep_op_lookup (readers[i])->flags & EP_OP_FLAG_READS_DATA);

  for (guint i = 0; i < G_N_ELEMENTS (indexed); i++)
    {
      const EpOpDef *op = ep_op_lookup (indexed[i]);
      EpTensor *inputs[3] = { x, bad, values };
      EpDType dtypes[3];
      g_autoptr(GError) error = NULL;
      EpOpCall call;

      g_assert_false (op->flags & EP_OP_FLAG_READS_DATA);

      memset (&call, 0, sizeof call);
      call.op = op;
      call.inputs = inputs;
      call.n_inputs = op->n_inputs;
      call.input_dtypes = dtypes;
      for (guint k = 0; k < call.n_inputs; k++)
        dtypes[k] = inputs[k]->layout.dtype;
      ep_op_attrs_init (&call.attrs);
      ep_op_attrs_set_axis (&call.attrs, 1);
      g_assert_true (op->infer (&call, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (call.n_outputs, ==, 1);
    }
}

/* A bad index fails in the kernel: nothing is recorded, no output */
static void
test_bad_index_not_recorded (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) idx = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (2), EP_VALUES (0, 3));
  g_autoptr(EpTensor) one = ep_tensor_new_weak_scalar (1, EP_DTYPE_FLOAT64);
  g_autoptr(GError) e1 = NULL;
  g_autoptr(GError) e2 = NULL;
  RECORDING (rec);
  g_autoptr(EpTensor) r1 = ep_tensor_take (x, idx, 0, &e1);
  g_autoptr(EpTensor) r2 = ep_tensor_scatter_add (x, idx, one, 0, &e2);

  g_assert_null (r1);
  g_assert_null (r2);
  ep_assert_error (e1, EP_ERROR_INDEX, "take", "index 3 is out of range for axis 0 of extent 3");
  ep_assert_error (e2, EP_ERROR_INDEX, "scatter_add", "index 3");
  g_assert_cmpuint (rec.calls->len, ==, 0);
}

/* Recording is all or nothing per op: a kernel that fails leaves no
 * record of the casts dispatch made for it (the values are cast to
 * float32 here, before the index is found bad). */
static void
test_failed_op_leaves_no_conversions (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) idx = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (2), EP_VALUES (0, 5));
  g_autoptr(EpTensor) values = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(EpTensor) y = NULL;

  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, values);
  y = ep_tensor_scatter_add (x, idx, values, 0, &error);
  ep_gradient_tape_stop (tape, NULL);

  ep_assert_error (error, EP_ERROR_INDEX, "scatter_add", "index 5");
  g_assert_null (y);
  g_assert_cmpuint (ep_gradient_tape_get_n_entries (tape), ==, 0);
}

/* An op that a recorder further out refuses fails, and the recorders
 * inside, which took it first, forget it. */
static void
test_refused_op_is_forgotten_inside (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) z = NULL;
  RECORDING (outer);

  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, x);
  y = ep_tensor_exp (x, &error);
  g_assert_no_error (error);
  outer.fail = TRUE;
  z = ep_tensor_log (x, &error);
  ep_gradient_tape_stop (tape, NULL);

  ep_assert_error (error, EP_ERROR_GRADIENT, "recorder", "refused log");
  g_assert_null (z);
  g_assert_cmpuint (ep_gradient_tape_get_n_entries (tape), ==, 1);   /* exp */
  g_assert_cmpuint (outer.calls->len, ==, 1);
}

/* A CPU kernel handed a dtype its table has no loop for (a rule that
 * let it through) fails with EP_ERROR_DEVICE instead of aborting. */
static void
test_cpu_kernel_without_loop (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) out = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (0, 0));
  EpTensor *inputs[1] = { x };
  EpDevice *cpu = ep_device_get_default ();
  EpOpCall call;

  memset (&call, 0, sizeof call);
  call.op = &ep_op_sin;
  call.inputs = inputs;
  call.n_inputs = 1;
  call.n_outputs = 1;
  call.outputs[0] = out;
  call.device = cpu;
  ep_op_attrs_init (&call.attrs);

  g_assert_false (cpu->backend->kernels[EP_OP_SIN] (&call, &error));
  ep_assert_error (error, EP_ERROR_DEVICE, "sin", "no kernel for int32");
  ep_assert_values (out, EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (0, 0));
}

/* ep_dispatch itself */

static void
test_dispatch_direct (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (-1, 2));
  EpTensor *inputs[1] = { x };
  EpTensor *outputs[EP_MAX_OUTPUTS] = { NULL };
  g_autoptr(EpTensor) y = NULL;

  g_assert_true (ep_dispatch (&ep_op_relu, inputs, 1, NULL, outputs, &error));
  g_assert_no_error (error);
  y = outputs[0];
  ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (0, 2));
  g_assert_null (outputs[1]);
}

static void
test_dispatch_failure_leaves_outputs (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  EpTensor *inputs[2] = { a, b };
  EpTensor *outputs[EP_MAX_OUTPUTS] = { NULL };

  g_assert_false (ep_dispatch (&ep_op_add, inputs, 2, NULL, outputs, &error));
  ep_assert_error (error, EP_ERROR_SHAPE, "add", NULL);
  for (guint o = 0; o < EP_MAX_OUTPUTS; o++)
    g_assert_null (outputs[o]);
}

static void
test_dispatch_wrong_arity_is_critical (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (1));

      ep_dispatch1 (&ep_op_add, &a, 1, NULL, NULL);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*ep_dispatch*n_inputs*");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/dispatch/record/each-op-once", test_records_each_op_once);
  g_test_add_func ("/dispatch/record/none-without-recorder", test_nothing_recorded_without_recorder);
  g_test_add_func ("/dispatch/record/nested", test_nested_recorders_each_see_once);
  g_test_add_func ("/dispatch/record/failed-op-leaves-no-conversions", test_failed_op_leaves_no_conversions);
  g_test_add_func ("/dispatch/record/refused-op-forgotten-inside", test_refused_op_is_forgotten_inside);
  g_test_add_func ("/dispatch/cpu-kernel-without-loop", test_cpu_kernel_without_loop);
  g_test_add_func ("/dispatch/canonical/reduce-axes", test_reduce_axes_canonical);
  g_test_add_func ("/dispatch/canonical/transpose-axes", test_transpose_axes_canonical);
  g_test_add_func ("/dispatch/canonical/reshape-shape", test_reshape_shape_canonical);
  g_test_add_func ("/dispatch/canonical/expand-squeeze-axes", test_expand_squeeze_axes_canonical);
  g_test_add_func ("/dispatch/canonical/creation", test_creation_attrs);
  g_test_add_func ("/dispatch/convert/promotion-astype-first", test_promotion_dispatches_astype_first);
  g_test_add_func ("/dispatch/convert/unary-cast", test_unary_cast_recorded);
  g_test_add_func ("/dispatch/convert/weak-literal-is-not-an-op", test_weak_literal_is_not_an_op);
  g_test_add_func ("/dispatch/convert/weak-literal-with-promotion", test_weak_literal_with_promotion);
  g_test_add_func ("/dispatch/convert/reshape-copy", test_reshape_copy_dispatches_contiguous);
  g_test_add_func ("/dispatch/convert/matmul-compacts-for-blas", test_matmul_compacts_for_blas);
  g_test_add_func ("/dispatch/record/views", test_views_are_recorded);
  g_test_add_func ("/dispatch/record/no-op-shortcuts", test_no_op_shortcuts_are_identities);
  g_test_add_func ("/dispatch/failure/nothing-recorded", test_nothing_recorded_on_failure);
  g_test_add_func ("/dispatch/failure/allocation", test_failed_allocation_not_recorded);
  g_test_add_func ("/dispatch/failure/failing-recorder", test_failing_recorder_fails_the_op);
  g_test_add_func ("/dispatch/recorders/pop-out-of-order", test_pop_out_of_order);
  g_test_add_func ("/dispatch/recorders/pop-inactive", test_pop_inactive_is_critical);
  g_test_add_func ("/dispatch/recorders/push-twice", test_push_twice_is_critical);
  g_test_add_func ("/dispatch/recorders/per-thread", test_recorders_are_per_thread);
  g_test_add_func ("/dispatch/recorders/other-thread", test_recorders_of_another_thread_are_not_seen);
  g_test_add_func ("/dispatch/context/grad-per-thread", test_grad_context_is_per_thread);
  g_test_add_func ("/dispatch/threads/concurrent-ops", test_concurrent_ops);
  g_test_add_func ("/dispatch/place/default", test_default_placement);
  g_test_add_func ("/dispatch/place/weak-only", test_weak_only_placement);
  g_test_add_func ("/dispatch/place/scope", test_scope_placement);
  g_test_add_func ("/dispatch/op-table", test_op_table);
  g_test_add_func ("/dispatch/reads-data", test_reads_data);
  g_test_add_func ("/dispatch/failure/bad-index", test_bad_index_not_recorded);
  g_test_add_func ("/dispatch/direct/values", test_dispatch_direct);
  g_test_add_func ("/dispatch/direct/failure-leaves-outputs", test_dispatch_failure_leaves_outputs);
  g_test_add_func ("/dispatch/direct/wrong-arity", test_dispatch_wrong_arity_is_critical);

  return g_test_run ();
}
