/* test-communicator.c: EpCommunicator and the collective ops
 * (distributed/, ops/collective.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The same tests run in one process (the world of size 1) and under
 * `mpirun -np 2` and `-np 3` (tests/c/meson.build): every expected value
 * is written for n processes, rank r. Under mpirun only rank 0 writes
 * TAP; a failure on another rank aborts it, which fails mpirun.
 *
 * With EP_TEST_COMMUNICATOR_FAILURE set, only the failure named there
 * runs (tests/mpi-failures.py drives them: each leaves the world failed
 * or a process dead).
 */

#include "ep-test-util.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ep-dispatch-private.h"
#include "ep-graph-private.h"
#include "ep-function-private.h"
#include "ep-passes-private.h"

static int n, r;

static EpCommunicator *
world (void)
{
  g_autoptr(GError) error = NULL;
  EpCommunicator *c = ep_communicator_get_world (&error);

  g_assert_no_error (error);
  g_assert_nonnull (c);
  return c;
}

static void
test_world (void)
{
  g_autoptr(EpCommunicator) a = world ();
  g_autoptr(EpCommunicator) b = world ();
  const char *launched = g_getenv ("OMPI_COMM_WORLD_SIZE");
  int size = 0, rank = -1;

  g_assert_true (a == b);
  g_object_get (a, "size", &size, "rank", &rank, NULL);
  g_assert_cmpint (size, ==, launched != NULL ? atoi (launched) : 1);
  g_assert_cmpint (rank, ==, launched != NULL ? atoi (g_getenv ("OMPI_COMM_WORLD_RANK")) : 0);
  g_assert_cmpint (ep_communicator_get_size (a), ==, size);
  g_assert_cmpint (ep_communicator_get_rank (a), ==, rank);
  g_assert_false (ep_communicator_get_failed (a));
}

static void
count_notify (GObject *object, GParamSpec *pspec, gpointer data)
{
  (*(guint *) data)++;
}

static void
test_timeout (void)
{
  g_autoptr(EpCommunicator) c = world ();
  guint notified = 0, timeout = 0;

  /* PyTorch's 30 minutes */
  g_assert_cmpuint (ep_communicator_get_timeout (c), ==, 30 * 60 * 1000);
  g_signal_connect (c, "notify::timeout", G_CALLBACK (count_notify), &notified);
  ep_communicator_set_timeout (c, 5000);
  ep_communicator_set_timeout (c, 5000);
  g_object_get (c, "timeout", &timeout, NULL);
  g_assert_cmpuint (timeout, ==, 5000);
  g_assert_cmpuint (notified, ==, 1);
  g_object_set (c, "timeout", 30 * 60 * 1000, NULL);
  g_assert_cmpuint (ep_communicator_get_timeout (c), ==, 30 * 60 * 1000);
  g_signal_handlers_disconnect_by_data (c, &notified);
}

/* A communicator not made by get_world is refused, never crashes */
static void
test_bare (void)
{
  g_autoptr(EpCommunicator) bare = g_object_new (EP_TYPE_COMMUNICATOR, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) y = NULL;

  g_assert_cmpint (ep_communicator_get_rank (bare), ==, -1);
  g_assert_cmpint (ep_communicator_get_size (bare), ==, 0);
  g_assert_false (ep_communicator_get_failed (bare));
  ep_communicator_set_timeout (bare, 10);
  g_assert_cmpuint (ep_communicator_get_timeout (bare), ==, 0);

  y = ep_communicator_all_reduce (bare, x, EP_REDUCE_OP_SUM, &error);
  ep_test_assert_failed (y, error, EP_ERROR_INVALID_ARGUMENT, "all_reduce");
  g_clear_error (&error);
  y = ep_communicator_broadcast (bare, x, 0, &error);
  ep_test_assert_failed (y, error, EP_ERROR_INVALID_ARGUMENT, "broadcast");
  g_clear_error (&error);
  y = ep_communicator_all_gather (bare, x, &error);
  ep_test_assert_failed (y, error, EP_ERROR_INVALID_ARGUMENT, "all_gather");
  g_clear_error (&error);
  y = ep_communicator_reduce_scatter (bare, x, EP_REDUCE_OP_SUM, &error);
  ep_test_assert_failed (y, error, EP_ERROR_INVALID_ARGUMENT, "reduce_scatter");
  g_clear_error (&error);
  g_assert_false (ep_communicator_barrier (bare, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "barrier", "get_world");
}

/* rank r holds (r + 1) * base; the sum is n (n + 1) / 2 * base */
static void
test_all_reduce_sum (void)
{
  static const EpDType dtypes[] = {
    EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64, EP_DTYPE_INT32, EP_DTYPE_INT64,
    EP_DTYPE_UINT8, EP_DTYPE_INT8, EP_DTYPE_INT16, EP_DTYPE_FLOAT16, EP_DTYPE_BFLOAT16,
  };
  g_autoptr(EpCommunicator) c = world ();
  gdouble s = n * (n + 1) / 2.0;

  for (guint i = 0; i < G_N_ELEMENTS (dtypes); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) x = ep_test_new (dtypes[i], EP_SHAPE (2, 2),
                                           EP_VALUES (r + 1, 2 * (r + 1), 0, -(r + 1) * (dtypes[i] != EP_DTYPE_UINT8)));
      g_autoptr(EpTensor) y = ep_communicator_all_reduce (c, x, EP_REDUCE_OP_SUM, &error);

      g_assert_no_error (error);
      ep_assert_values (y, dtypes[i], EP_SHAPE (2, 2),
                        EP_VALUES (s, 2 * s, 0, -s * (dtypes[i] != EP_DTYPE_UINT8)));
    }
}

static void
test_all_reduce_ops (void)
{
  g_autoptr(EpCommunicator) c = world ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (r, -r, 7));
  g_autoptr(EpTensor) mean = ep_communicator_all_reduce (c, x, EP_REDUCE_OP_MEAN, &error);
  g_autoptr(EpTensor) max = NULL, min = NULL, imax = NULL, bor = NULL, band = NULL;
  g_autoptr(EpTensor) ix = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (2), EP_VALUES (r, -r));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (3), EP_VALUES (r == 0, 1, 0));

  g_assert_no_error (error);
  ep_assert_values (mean, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES ((n - 1) / 2.0, -(n - 1) / 2.0, 7));
  max = ep_communicator_all_reduce (c, x, EP_REDUCE_OP_MAX, &error);
  g_assert_no_error (error);
  ep_assert_values (max, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (n - 1, 0, 7));
  min = ep_communicator_all_reduce (c, x, EP_REDUCE_OP_MIN, &error);
  g_assert_no_error (error);
  ep_assert_values (min, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (0, -(n - 1), 7));
  imax = ep_communicator_all_reduce (c, ix, EP_REDUCE_OP_MAX, &error);
  g_assert_no_error (error);
  ep_assert_int64_values (imax, n - 1, 0);
  /* bool: max is "any", min "all" */
  bor = ep_communicator_all_reduce (c, b, EP_REDUCE_OP_MAX, &error);
  g_assert_no_error (error);
  ep_assert_values (bor, EP_DTYPE_BOOL, EP_SHAPE (3), EP_VALUES (1, 1, 0));
  band = ep_communicator_all_reduce (c, b, EP_REDUCE_OP_MIN, &error);
  g_assert_no_error (error);
  ep_assert_values (band, EP_DTYPE_BOOL, EP_SHAPE (3), EP_VALUES (n == 1, 1, 0));
}

/* Views are made contiguous; empty and 0-d tensors work */
static void
test_all_reduce_layouts (void)
{
  g_autoptr(EpCommunicator) c = world ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) m = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) t = ep_tensor_transpose (m, NULL, 0, &error);
  g_autoptr(EpTensor) y = ep_communicator_all_reduce (c, t, EP_REDUCE_OP_SUM, &error);
  g_autoptr(EpTensor) empty = ep_ones (EP_DIMS (0, 4), 2, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) ye = NULL, scalar = NULL, ys = NULL;

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (3, 2), EP_VALUES (n, 4 * n, 2 * n, 5 * n, 3 * n, 6 * n));
  ye = ep_communicator_all_reduce (c, empty, EP_REDUCE_OP_SUM, &error);
  g_assert_no_error (error);
  ep_assert_shape (ye, EP_SHAPE (0, 4));
  scalar = ep_test_new (EP_DTYPE_INT32, EP_SCALAR, EP_VALUES (r));
  ys = ep_communicator_all_reduce (c, scalar, EP_REDUCE_OP_SUM, &error);
  g_assert_no_error (error);
  ep_assert_values (ys, EP_DTYPE_INT32, EP_SCALAR, EP_VALUES (n * (n - 1) / 2));
}

static void
test_all_reduce_errors (void)
{
  g_autoptr(EpCommunicator) c = world ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (1, 0));
  g_autoptr(EpTensor) i = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (1, 0));
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 0));
  g_autoptr(EpTensor) y = NULL;

  y = ep_communicator_all_reduce (c, b, EP_REDUCE_OP_SUM, &error);
  ep_test_assert_failed (y, error, EP_ERROR_DTYPE, "all_reduce");
  g_clear_error (&error);
  y = ep_communicator_all_reduce (c, i, EP_REDUCE_OP_MEAN, &error);
  ep_assert_error (error, EP_ERROR_DTYPE, "all_reduce", "int32");
  g_clear_error (&error);
  y = ep_communicator_reduce_scatter (c, i, EP_REDUCE_OP_MEAN, &error);
  ep_assert_error (error, EP_ERROR_DTYPE, "reduce_scatter", NULL);
  g_clear_error (&error);
  y = ep_communicator_all_reduce (c, x, (EpReduceOp) 17, &error);
  ep_test_assert_failed (y, error, EP_ERROR_INVALID_ARGUMENT, "all_reduce");
  g_clear_error (&error);
  ep_tensor_release (x);
  y = ep_communicator_all_reduce (c, x, EP_REDUCE_OP_SUM, &error);
  g_assert_null (y);
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
}

static void
test_broadcast (void)
{
  g_autoptr(EpCommunicator) c = world ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (2), EP_VALUES (r, 10 * r));
  g_autoptr(EpTensor) y = ep_communicator_broadcast (c, x, n - 1, &error);
  g_autoptr(EpTensor) bad = NULL;

  g_assert_no_error (error);
  ep_assert_int64_values (y, n - 1, 10 * (n - 1));

  bad = ep_communicator_broadcast (c, x, -1, &error);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "broadcast", "-1");
  g_clear_error (&error);
  bad = ep_communicator_broadcast (c, x, n, &error);
  ep_test_assert_failed (bad, error, EP_ERROR_INVALID_ARGUMENT, "broadcast");
  g_clear_error (&error);
  bad = ep_communicator_broadcast (c, x, G_MAXINT, &error);
  ep_test_assert_failed (bad, error, EP_ERROR_INVALID_ARGUMENT, "broadcast");
}

static void
test_all_gather (void)
{
  g_autoptr(EpCommunicator) c = world ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1, 2), EP_VALUES (r, 10 * r));
  g_autoptr(EpTensor) y = ep_communicator_all_gather (c, x, &error);
  g_autoptr(EpTensor) scalar = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (1));
  g_autoptr(EpTensor) bad = NULL;
  g_autofree gdouble *want = g_new (gdouble, 2 * n);

  g_assert_no_error (error);
  for (int k = 0; k < n; k++)
    {
      want[2 * k] = k;
      want[2 * k + 1] = 10 * k;
    }
  ep_test_assert_values_ (__FILE__, __LINE__, G_STRFUNC, y, EP_DTYPE_FLOAT32,
                          EP_DIMS (n, 2), 2, want, 2 * n);

  bad = ep_communicator_all_gather (c, scalar, &error);
  ep_assert_error (error, EP_ERROR_SHAPE, "all_gather", "0-d");
}

static void
test_reduce_scatter (void)
{
  g_autoptr(EpCommunicator) c = world ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) flat = NULL, x = NULL, y = NULL, ym = NULL, bad = NULL, odd = NULL;
  g_autofree gdouble *values = g_new (gdouble, 2 * n);
  g_autoptr(EpTensor) scalar = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (1));

  /* rank r holds k + r at row k: the sum at row k is n k + n (n - 1) / 2 */
  for (int k = 0; k < 2 * n; k++)
    values[k] = k + r;
  x = ep_test_new (EP_DTYPE_FLOAT64, EP_DIMS (2 * n, 1), 2, values, 2 * n);
  y = ep_communicator_reduce_scatter (c, x, EP_REDUCE_OP_SUM, &error);
  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT64, EP_SHAPE (2, 1),
                    EP_VALUES (n * 2 * r + n * (n - 1) / 2.0, n * (2 * r + 1) + n * (n - 1) / 2.0));
  ym = ep_communicator_reduce_scatter (c, x, EP_REDUCE_OP_MAX, &error);
  g_assert_no_error (error);
  ep_assert_values (ym, EP_DTYPE_FLOAT64, EP_SHAPE (2, 1), EP_VALUES (2 * r + n - 1, 2 * r + n));

  bad = ep_communicator_reduce_scatter (c, scalar, EP_REDUCE_OP_SUM, &error);
  ep_assert_error (error, EP_ERROR_SHAPE, "reduce_scatter", "0-d");
  g_clear_error (&error);
  if (n > 1)
    {
      odd = ep_test_new (EP_DTYPE_FLOAT64, EP_DIMS (2 * n - 1), 1, values, 2 * n - 1);
      bad = ep_communicator_reduce_scatter (c, odd, EP_REDUCE_OP_SUM, &error);
      ep_assert_error (error, EP_ERROR_SHAPE, "reduce_scatter", "does not split");
    }
}

static void
test_barrier (void)
{
  g_autoptr(EpCommunicator) c = world ();
  g_autoptr(GError) error = NULL;

  g_assert_true (ep_communicator_barrier (c, &error));
  g_assert_no_error (error);
}

/* On OpenCL by a host round trip: the result stays on the device */
static void
test_opencl (void)
{
  g_autoptr(EpCommunicator) c = world ();
  g_autoptr(GError) error = NULL;
  EpDevice *device = ep_device_get ("opencl:0", NULL);
  g_autoptr(EpTensor) host = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (r, 1, 2, 3));
  g_autoptr(EpTensor) x = NULL, y = NULL, g = NULL, empty = NULL, ye = NULL;

  if (device == NULL)
    {
      g_test_skip ("no OpenCL device");
      return;
    }
  x = ep_tensor_to_device (host, device, &error);
  g_assert_no_error (error);
  y = ep_communicator_all_reduce (c, x, EP_REDUCE_OP_SUM, &error);
  g_assert_no_error (error);
  g_assert_true (ep_tensor_get_device (y) == device);
  ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (n * (n - 1) / 2.0, n, 2 * n, 3 * n));
  g = ep_communicator_all_gather (c, x, &error);
  g_assert_no_error (error);
  ep_assert_shape (g, EP_SHAPE (2 * n, 2));
  empty = ep_tensor_slice (x, EP_DIMS (0), 1, EP_DIMS (0), 1, NULL, 0, &error);
  g_assert_no_error (error);
  ye = ep_communicator_all_reduce (c, empty, EP_REDUCE_OP_MAX, &error);
  g_assert_no_error (error);
  ep_assert_shape (ye, EP_SHAPE (0, 2));
}

/* Ranks that pass different shapes or dtypes all fail, with every
 * rank's tensor in the message; the world goes on working */
static void
test_mismatch (void)
{
  g_autoptr(EpCommunicator) c = world ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = NULL, y = NULL, ok = NULL;
  g_autoptr(EpTensor) one = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (1));

  if (n == 1)
    {
      g_test_skip ("one process");
      return;
    }
  x = r == 1 ? ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3))
             : ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  y = ep_communicator_all_reduce (c, x, EP_REDUCE_OP_SUM, &error);
  ep_assert_error (error, EP_ERROR_SHAPE, "all_reduce", "rank 1: float32 (3,)");
  g_assert_nonnull (strstr (error->message, "rank 0: float32 (2,)"));
  g_clear_error (&error);
  g_clear_object (&x);

  x = ep_test_new (r == 0 ? EP_DTYPE_FLOAT64 : EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  y = ep_communicator_broadcast (c, x, 0, &error);
  ep_assert_error (error, EP_ERROR_SHAPE, "broadcast", "rank 0: float64 (2,)");
  g_clear_error (&error);

  /* different collectives: all fail */
  if (r == 0)
    y = ep_communicator_all_gather (c, one, &error);
  else
    y = ep_communicator_all_reduce (c, one, EP_REDUCE_OP_SUM, &error);
  g_assert_null (y);
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "rank 0: all_gather"));
  g_clear_error (&error);

  ok = ep_communicator_all_reduce (c, one, EP_REDUCE_OP_SUM, &error);
  g_assert_no_error (error);
  ep_assert_values (ok, EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (n));
  g_assert_false (ep_communicator_get_failed (c));
}

/* Gradients: every rank takes them, and each rule's collectives meet */
static EpTensor *
grad_of (EpTensor *loss, EpGradientTape *tape, EpTensor *x)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) g = ep_gradient_tape_gradient_tensors (tape, &loss, 1, &x, 1, NULL, 0, &error);

  g_assert_no_error (error);
  g_assert_nonnull (g_ptr_array_index (g, 0));
  return g_object_ref (g_ptr_array_index (g, 0));
}

static void
test_gradients (void)
{
  g_autoptr(EpCommunicator) c = world ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (r, 5));
  g_autoptr(EpTensor) w = NULL, g1 = NULL, g2 = NULL, g3 = NULL, g4 = NULL, g5 = NULL, g6 = NULL;
  g_autofree gdouble *iota = g_new (gdouble, 2 * n);

  /* sum(all_reduce(x²)): 2 x times n (every rank's loss sees x) */
  {
    g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
    g_autoptr(EpTensor) sq = NULL, y = NULL, loss = NULL;

    ep_gradient_tape_watch (tape, x);
    g_assert_true (ep_gradient_tape_start (tape, &error));
    sq = ep_tensor_square (x, &error);
    y = ep_communicator_all_reduce (c, sq, EP_REDUCE_OP_SUM, &error);
    loss = ep_tensor_sum (y, NULL, 0, FALSE, &error);
    g_assert_true (ep_gradient_tape_stop (tape, &error));
    g_assert_no_error (error);
    g1 = grad_of (loss, tape, x);
    ep_assert_values (g1, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (2.0 * r * n, 10.0 * n));
  }
  /* max: x = (r, 5): rank n-1 alone holds the max of element 0; element 1
   * ties everywhere, its summed gradient n split n ways */
  {
    g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
    g_autoptr(EpTensor) y = NULL, loss = NULL;

    ep_gradient_tape_watch (tape, x);
    g_assert_true (ep_gradient_tape_start (tape, &error));
    y = ep_communicator_all_reduce (c, x, EP_REDUCE_OP_MAX, &error);
    loss = ep_tensor_sum (y, NULL, 0, FALSE, &error);
    g_assert_true (ep_gradient_tape_stop (tape, &error));
    g_assert_no_error (error);
    g2 = grad_of (loss, tape, x);
    ep_assert_values (g2, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (r == n - 1 ? n : 0, 1));
  }
  /* mean: all_reduce(mean) of the gradient */
  {
    g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
    g_autoptr(EpTensor) y = NULL, loss = NULL;

    ep_gradient_tape_watch (tape, x);
    g_assert_true (ep_gradient_tape_start (tape, &error));
    y = ep_communicator_all_reduce (c, x, EP_REDUCE_OP_MEAN, &error);
    loss = ep_tensor_sum (y, NULL, 0, FALSE, &error);
    g_assert_true (ep_gradient_tape_stop (tape, &error));
    g_assert_no_error (error);
    g3 = grad_of (loss, tape, x);
    ep_assert_values (g3, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (1, 1));
  }
  /* broadcast from 0: the root gets every rank's gradient, the others 0 */
  {
    g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
    g_autoptr(EpTensor) y = NULL, loss = NULL;

    ep_gradient_tape_watch (tape, x);
    g_assert_true (ep_gradient_tape_start (tape, &error));
    y = ep_communicator_broadcast (c, x, 0, &error);
    loss = ep_tensor_sum (y, NULL, 0, FALSE, &error);
    g_assert_true (ep_gradient_tape_stop (tape, &error));
    g_assert_no_error (error);
    g4 = grad_of (loss, tape, x);
    ep_assert_values (g4, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (r == 0 ? n : 0, r == 0 ? n : 0));
  }
  /* all_gather, weighted by 0, 1, …: rank r gets n times its rows' weights */
  for (int k = 0; k < 2 * n; k++)
    iota[k] = k;
  w = ep_test_new (EP_DTYPE_FLOAT64, EP_DIMS (2 * n), 1, iota, 2 * n);
  {
    g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
    g_autoptr(EpTensor) y = NULL, yw = NULL, loss = NULL;

    ep_gradient_tape_watch (tape, x);
    g_assert_true (ep_gradient_tape_start (tape, &error));
    y = ep_communicator_all_gather (c, x, &error);
    yw = ep_tensor_mul (y, w, &error);
    loss = ep_tensor_sum (yw, NULL, 0, FALSE, &error);
    g_assert_true (ep_gradient_tape_stop (tape, &error));
    g_assert_no_error (error);
    g5 = grad_of (loss, tape, x);
    ep_assert_values (g5, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (2.0 * r * n, (2.0 * r + 1) * n));
  }
  /* reduce_scatter of w, weighted by r + 1: every rank's w gets the
   * gathered weights, two rows each */
  {
    g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
    g_autoptr(EpTensor) y = NULL, yw = NULL, loss = NULL, scale = NULL;
    g_autofree gdouble *want = g_new (gdouble, 2 * n);

    ep_gradient_tape_watch (tape, w);
    g_assert_true (ep_gradient_tape_start (tape, &error));
    y = ep_communicator_reduce_scatter (c, w, EP_REDUCE_OP_SUM, &error);
    scale = ep_tensor_new_weak_scalar (r + 1.0, EP_DTYPE_FLOAT64);
    yw = ep_tensor_mul (y, scale, &error);
    loss = ep_tensor_sum (yw, NULL, 0, FALSE, &error);
    g_assert_true (ep_gradient_tape_stop (tape, &error));
    g_assert_no_error (error);
    g6 = grad_of (loss, tape, w);
    for (int k = 0; k < 2 * n; k++)
      want[k] = k / 2 + 1;
    ep_test_assert_values_ (__FILE__, __LINE__, G_STRFUNC, g6, EP_DTYPE_FLOAT64,
                            EP_DIMS (2 * n), 1, want, 2 * n);
  }
}

/* Staged: an all_reduce whose result nobody uses still runs on every
 * rank, and two identical ones both run: rank 0 replays such a function
 * while the others call the three all_reduces eagerly. */
static GPtrArray *
staged_collectives (EpTensor **inputs, guint n_inputs, gpointer data, GError **error)
{
  g_autoptr(EpCommunicator) c = ep_communicator_get_world (error);
  g_autoptr(EpTensor) unused = NULL, a = NULL, b = NULL;

  if (c == NULL
      || !(unused = ep_communicator_all_reduce (c, inputs[0], EP_REDUCE_OP_SUM, error))
      || !(a = ep_communicator_all_reduce (c, inputs[0], EP_REDUCE_OP_MAX, error))
      || !(b = ep_communicator_all_reduce (c, inputs[0], EP_REDUCE_OP_MAX, error)))
    return NULL;
  return ep_test_one (ep_tensor_add (a, b, error));
}

static void
test_staged (void)
{
  g_autoptr(EpCommunicator) c = world ();
  g_autoptr(EpFunction) fn = ep_function_new (staged_collectives, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (r, 1));
  g_autoptr(GError) error = NULL;

  for (int call = 0; call < 3; call++)
    {
      if (r == 0)
        {
          g_autoptr(GPtrArray) out = ep_function_call (fn, &x, 1, &error);

          g_assert_no_error (error);
          ep_assert_values (g_ptr_array_index (out, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2),
                            EP_VALUES (2 * (n - 1), 2));
        }
      else
        {
          g_autoptr(EpTensor) s = ep_communicator_all_reduce (c, x, EP_REDUCE_OP_SUM, &error);
          g_autoptr(EpTensor) a = ep_communicator_all_reduce (c, x, EP_REDUCE_OP_MAX, &error);
          g_autoptr(EpTensor) b = ep_communicator_all_reduce (c, x, EP_REDUCE_OP_MAX, &error);

          g_assert_no_error (error);
          ep_assert_values (s, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (n * (n - 1) / 2.0, n));
          ep_assert_values (b, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (n - 1, 1));
        }
    }
  g_assert_cmpuint (ep_function_get_trace_count (fn), ==, r == 0 ? 1 : 0);
}

/* In one process, the passes keep all three nodes */
static void
test_passes_keep (void)
{
  g_autoptr(EpFunction) fn = ep_function_new (staged_collectives, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (r, 1));
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) out = ep_function_call (fn, &x, 1, &error);
  g_autoptr(EpGraph) graph = NULL;
  g_autoptr(EpGraph) optimized = NULL;
  guint count = 0;

  g_assert_no_error (error);
  graph = ep_function_lookup_graph (fn, &x, 1);
  g_assert_nonnull (graph);
  optimized = ep_graph_optimize (graph);
  for (guint k = 0; k < ep_graph_get_n_nodes (optimized); k++)
    {
      EpGraphNode *node = ep_graph_get_node (optimized, k);

      count += node->kind == EP_NODE_OP && node->op == &ep_op_all_reduce;
    }
  g_assert_cmpuint (count, ==, 3);
}

/* Two threads calling collectives at once: serialized, each result
 * whole. Every rank's threads call the same sequence, so whatever the
 * pairing across ranks, each sum is n times the value. */
static gpointer
collectives_thread (gpointer data)
{
  g_autoptr(EpCommunicator) c = world ();

  for (int i = 0; i < 50; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) ones = ep_ones (EP_DIMS (64), 1, EP_DTYPE_FLOAT64, &error);
      g_autoptr(EpTensor) y = ep_communicator_all_reduce (c, ones, EP_REDUCE_OP_SUM, &error);
      g_autoptr(EpTensor) total = NULL;

      g_assert_no_error (error);
      total = ep_tensor_sum (y, NULL, 0, FALSE, &error);
      g_assert_no_error (error);
      ep_assert_values (total, EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (64.0 * n));
    }
  return NULL;
}

static void
test_threads (void)
{
  GThread *a = g_thread_new ("collectives-a", collectives_thread, NULL);
  GThread *b = g_thread_new ("collectives-b", collectives_thread, NULL);

  g_thread_join (a);
  g_thread_join (b);
}

/* Failures (EP_TEST_COMMUNICATOR_FAILURE, one per process run) */

/* rank 1 skips a collective: the others fail within the timeout, and
 * every later call fails at once */
static void
failure_skip (void)
{
  g_autoptr(EpCommunicator) c = world ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) y = NULL, again = NULL;
  gint64 start;

  ep_communicator_set_timeout (c, 1000);
  if (r == 1)
    {
      /* out of step: wait until the others gave up, then leave */
      g_usleep (3 * G_USEC_PER_SEC);
      return;
    }
  start = g_get_monotonic_time ();
  y = ep_communicator_all_reduce (c, x, EP_REDUCE_OP_SUM, &error);
  ep_test_assert_failed (y, error, EP_ERROR_COMMUNICATION, "all_reduce");
  g_assert_cmpint (g_get_monotonic_time () - start, <, 2500000);
  g_assert_true (ep_communicator_get_failed (c));
  g_clear_error (&error);
  again = ep_communicator_all_reduce (c, x, EP_REDUCE_OP_SUM, &error);
  ep_assert_error (error, EP_ERROR_COMMUNICATION, "all_reduce", "earlier");
  g_clear_error (&error);
  g_assert_false (ep_communicator_barrier (c, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_COMMUNICATION);
}

/* rank 1 dies before a collective: the others get an error, not a hang */
static void
failure_die (void)
{
  g_autoptr(EpCommunicator) c = world ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) y = NULL;

  ep_communicator_set_timeout (c, 5000);
  g_assert_true (ep_communicator_barrier (c, &error));
  if (r == 1)
    _exit (3);
  y = ep_communicator_all_reduce (c, x, EP_REDUCE_OP_SUM, &error);
  ep_test_assert_failed (y, error, EP_ERROR_COMMUNICATION, "all_reduce");
  g_test_message ("survivor's error: %s", error->message);
}

int
main (int argc, char *argv[])
{
  g_autoptr(EpCommunicator) c = NULL;
  const char *failure = g_getenv ("EP_TEST_COMMUNICATOR_FAILURE");

  g_test_init (&argc, &argv, NULL);
  c = world ();
  n = ep_communicator_get_size (c);
  r = ep_communicator_get_rank (c);
  /* one TAP stream: rank 0's */
  if (r != 0 && freopen ("/dev/null", "w", stdout) == NULL)
    return 1;

  if (failure != NULL)
    {
      if (g_strcmp0 (failure, "skip") == 0)
        g_test_add_func ("/communicator/failure/skip", failure_skip);
      else if (g_strcmp0 (failure, "die") == 0)
        g_test_add_func ("/communicator/failure/die", failure_die);
      return g_test_run ();
    }

  g_test_add_func ("/communicator/world", test_world);
  g_test_add_func ("/communicator/timeout", test_timeout);
  g_test_add_func ("/communicator/bare", test_bare);
  g_test_add_func ("/communicator/all-reduce/sum", test_all_reduce_sum);
  g_test_add_func ("/communicator/all-reduce/ops", test_all_reduce_ops);
  g_test_add_func ("/communicator/all-reduce/layouts", test_all_reduce_layouts);
  g_test_add_func ("/communicator/all-reduce/errors", test_all_reduce_errors);
  g_test_add_func ("/communicator/broadcast", test_broadcast);
  g_test_add_func ("/communicator/all-gather", test_all_gather);
  g_test_add_func ("/communicator/reduce-scatter", test_reduce_scatter);
  g_test_add_func ("/communicator/barrier", test_barrier);
  g_test_add_func ("/communicator/opencl", test_opencl);
  g_test_add_func ("/communicator/mismatch", test_mismatch);
  g_test_add_func ("/communicator/gradients", test_gradients);
  g_test_add_func ("/communicator/staged", test_staged);
  g_test_add_func ("/communicator/passes-keep", test_passes_keep);
  g_test_add_func ("/communicator/threads", test_threads);
  return g_test_run ();
}
