/* test-threads.c: what docs/threads.md promises, under load
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Four threads each run the same rounds of mixed work: ops and tapes on
 * tensors of their own, ops on tensors they all share, reads, tapes and
 * assignments of one shared variable, releases of shared tensors while
 * others use them, and (every few rounds) ops on the OpenCL device. Run
 * once thread after thread, then all at once, every result that does not
 * depend on the interleaving must be the same bytes; the others (the
 * variable's value, a tensor released meanwhile) must be one of the
 * values they may be. ThreadSanitizer runs it in a build of its own
 * (build-aux/check, suite "thread"; tests/tsan.supp).
 */

#include "ep-test-util.h"

#include <string.h>

#define N_THREADS 4
#define N_ROUNDS 10000
#define N_DOOMED 64
#define OPENCL_EVERY 256
#define VARIABLE_SIZE 16

typedef struct
{
  EpTensor   *matrix;               /* (4, 4), read by every thread */
  EpTensor   *row;                  /* (4,) */
  EpVariable *variable;             /* VARIABLE_SIZE zeros, then fills */
  EpTensor   *fills[N_THREADS];     /* thread t assigns t + 1 everywhere */
  EpTensor   *doomed[N_DOOMED];     /* (3,) ones, released one by one */
  EpDevice   *opencl;               /* or NULL */
  gboolean    concurrent;           /* whether this run releases doomed */
  guint       n_rounds;
} Shared;

typedef struct
{
  Shared   *shared;
  guint     index;
  GChecksum *checksum;              /* of the results fixed by the inputs */
  guint     n_released_seen;
} Worker;

static EpTensor *
checked (EpTensor *t,
         GError   *error)
{
  g_assert_no_error (error);
  g_assert_nonnull (t);
  return t;
}

static void
add_to_checksum (Worker   *worker,
                 EpTensor *t)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = ep_tensor_to_bytes (t, &error);
  gsize size;
  gconstpointer data;

  g_assert_no_error (error);
  data = g_bytes_get_data (bytes, &size);
  g_checksum_update (worker->checksum, data, size);
}

/* Tensors of the thread's own: the same values for the same round */
static EpTensor *
private_input (Worker *worker,
               guint   round)
{
  gdouble values[VARIABLE_SIZE];

  for (guint i = 0; i < VARIABLE_SIZE; i++)
    values[i] = (i + worker->index * 16 + round % 7) / 8.0;
  return ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (VARIABLE_SIZE), values, VARIABLE_SIZE);
}

/* Ops on a private tensor and the shared ones */
static void
run_ops (Worker   *worker,
         EpTensor *x)
{
  static const gint axes[] = { 1 };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) square = checked (ep_tensor_reshape (x, EP_SHAPE (4, 4), &error), error);
  g_autoptr(EpTensor) product = checked (ep_tensor_matmul (square, worker->shared->matrix, &error), error);
  g_autoptr(EpTensor) shifted = checked (ep_tensor_add (product, worker->shared->row, &error), error);
  g_autoptr(EpTensor) squashed = checked (ep_tensor_tanh (shifted, &error), error);
  g_autoptr(EpTensor) sums = checked (ep_tensor_sum (squashed, axes, 1, FALSE, &error), error);
  g_autoptr(EpTensor) view = checked (ep_tensor_transpose (square, NULL, 0, &error), error);
  g_autoptr(EpTensor) compact = checked (ep_tensor_contiguous (view, &error), error);

  add_to_checksum (worker, sums);
  add_to_checksum (worker, compact);
}

/* A tape of the thread's own: d/dx sum (x² · row) = 2 x row */
static void
run_tape (Worker   *worker,
          EpTensor *x)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) square = NULL;
  g_autoptr(EpTensor) x2 = NULL;
  g_autoptr(EpTensor) weighted = NULL;
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  GObject *source;

  square = checked (ep_tensor_reshape (x, EP_SHAPE (4, 4), &error), error);
  source = G_OBJECT (square);
  ep_gradient_tape_watch (tape, square);
  g_assert_true (ep_gradient_tape_start (tape, &error));
  x2 = checked (ep_tensor_mul (square, square, &error), error);
  weighted = checked (ep_tensor_mul (x2, worker->shared->row, &error), error);
  y = checked (ep_tensor_sum (weighted, NULL, 0, FALSE, &error), error);
  g_assert_true (ep_gradient_tape_stop (tape, &error));
  grads = ep_gradient_tape_gradient (tape, &y, 1, &source, 1, NULL, 0, &error);
  g_assert_no_error (error);

  add_to_checksum (worker, y);
  add_to_checksum (worker, g_ptr_array_index (grads, 0));
}

/* Whatever another thread assigned, a read is one whole value: every
 * element 0 (the initial value) or the fill of one thread. */
static void
check_whole_value (EpTensor *value)
{
  g_autoptr(GError) error = NULL;
  float elements[VARIABLE_SIZE];

  g_assert_true (ep_tensor_read_data (value, elements, sizeof elements, &error));
  g_assert_no_error (error);
  for (guint i = 1; i < VARIABLE_SIZE; i++)
    g_assert_cmpfloat (elements[i], ==, elements[0]);
  g_assert_cmpfloat (elements[0], >=, 0);
  g_assert_cmpfloat (elements[0], <=, N_THREADS);
  g_assert_cmpfloat (elements[0], ==, (gint) elements[0]);
}

/* The shared variable: read, differentiated through (d/dv sum (v x) = x,
 * whatever v holds), assigned in turns, and its read value released. */
static void
run_variable (Worker   *worker,
              EpTensor *x,
              guint     round)
{
  Shared *shared = worker->shared;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) read = NULL;
  g_autoptr(EpTensor) taped = NULL;
  g_autoptr(EpTensor) product = NULL;
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  GObject *source = G_OBJECT (shared->variable);

  read = ep_variable_read (shared->variable);
  check_whole_value (read);
  ep_tensor_release (read);

  g_assert_true (ep_gradient_tape_start (tape, &error));
  taped = ep_variable_read (shared->variable);
  product = checked (ep_tensor_mul (taped, x, &error), error);
  y = checked (ep_tensor_sum (product, NULL, 0, FALSE, &error), error);
  g_assert_true (ep_gradient_tape_stop (tape, &error));
  grads = ep_gradient_tape_gradient (tape, &y, 1, &source, 1, NULL, 0, &error);
  g_assert_no_error (error);
  add_to_checksum (worker, g_ptr_array_index (grads, 0));
  check_whole_value (taped);

  if (round % N_THREADS == worker->index)
    {
      g_assert_true (ep_variable_assign (shared->variable, shared->fills[worker->index], &error));
      g_assert_no_error (error);
    }
}

/* A shared tensor that thread 0 releases while the others sum it: each
 * sum is the whole value or the error of a released tensor. */
static void
run_doomed (Worker *worker,
            guint   round)
{
  Shared *shared = worker->shared;
  guint spacing = MAX (shared->n_rounds / N_DOOMED, 1);
  EpTensor *doomed = shared->doomed[(round / spacing) % N_DOOMED];
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) sum = NULL;

  if (!shared->concurrent)
    return;
  if (worker->index == 0 && round % spacing == spacing / 2)
    ep_tensor_release (doomed);

  sum = ep_tensor_sum (doomed, NULL, 0, FALSE, &error);
  if (sum == NULL)
    {
      g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
      worker->n_released_seen++;
      return;
    }
  ep_assert_values (sum, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (3));
}

/* The same ops on the OpenCL device, in a device scope of the thread */
static void
run_opencl (Worker   *worker,
            EpTensor *x)
{
  EpDevice *opencl = worker->shared->opencl;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) there = NULL;
  g_autoptr(EpTensor) square = NULL;
  g_autoptr(EpTensor) product = NULL;
  g_autoptr(EpTensor) sum = NULL;

  there = checked (ep_tensor_to_device (x, opencl, &error), error);
  g_assert_true (ep_device_push (opencl, &error));
  square = ep_tensor_reshape (there, EP_SHAPE (4, 4), &error);
  product = square != NULL ? ep_tensor_matmul (square, worker->shared->matrix, &error) : NULL;
  sum = product != NULL ? ep_tensor_sum (product, NULL, 0, FALSE, &error) : NULL;
  g_assert_true (ep_device_pop (opencl, NULL));
  g_assert_no_error (error);

  g_assert_true (ep_tensor_get_device (sum) == opencl);
  add_to_checksum (worker, product);
  add_to_checksum (worker, sum);
}

static gpointer
work (gpointer data)
{
  Worker *worker = data;

  for (guint round = 0; round < worker->shared->n_rounds; round++)
    {
      g_autoptr(EpTensor) x = private_input (worker, round);

      run_ops (worker, x);
      run_tape (worker, x);
      run_variable (worker, x, round);
      run_doomed (worker, round);
      if (worker->shared->opencl != NULL && round % OPENCL_EVERY == 0)
        run_opencl (worker, x);
    }

  return NULL;
}

static void
shared_init (Shared *shared)
{
  g_autoptr(GPtrArray) devices = ep_list_devices ();
  g_autoptr(EpTensor) zeros = NULL;
  const char *rounds = g_getenv ("EP_TEST_THREAD_ROUNDS");

  memset (shared, 0, sizeof *shared);
  shared->n_rounds = rounds != NULL ? (guint) g_ascii_strtoull (rounds, NULL, 10) : N_ROUNDS;
  shared->matrix = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4, 4),
                                EP_VALUES (0.5, -1, 0.25, 2, 1, 0, -0.5, 1, -2, 1, 1, 0.125, 0, 3, -1, 1));
  shared->row = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (-1, 0.5, 2, 0));
  zeros = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (VARIABLE_SIZE), (gdouble[VARIABLE_SIZE]) { 0 },
                       VARIABLE_SIZE);
  shared->variable = ep_variable_new (zeros, "shared");
  for (guint t = 0; t < N_THREADS; t++)
    {
      gdouble fill[VARIABLE_SIZE];

      for (guint i = 0; i < VARIABLE_SIZE; i++)
        fill[i] = t + 1;
      shared->fills[t] = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (VARIABLE_SIZE), fill, VARIABLE_SIZE);
    }
  for (guint k = 0; k < N_DOOMED; k++)
    shared->doomed[k] = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 1, 1));
  for (guint d = 0; d < devices->len; d++)
    if (g_str_equal (ep_device_get_kind (g_ptr_array_index (devices, d)), "opencl")
        && g_getenv ("EP_TEST_THREADS_NO_OPENCL") == NULL)
      {
        shared->opencl = g_ptr_array_index (devices, d);
        break;
      }
}

static void
shared_clear (Shared *shared)
{
  g_clear_object (&shared->matrix);
  g_clear_object (&shared->row);
  g_clear_object (&shared->variable);
  for (guint t = 0; t < N_THREADS; t++)
    g_clear_object (&shared->fills[t]);
  for (guint k = 0; k < N_DOOMED; k++)
    g_clear_object (&shared->doomed[k]);
}

/* Each worker's checksum, run one after the other or all at once */
static void
run (Shared   *shared,
     gboolean  concurrent,
     char    **digests,
     guint    *n_released_seen)
{
  Worker workers[N_THREADS];
  GThread *threads[N_THREADS] = { NULL };

  shared->concurrent = concurrent;
  for (guint t = 0; t < N_THREADS; t++)
    {
      workers[t] = (Worker) { shared, t, g_checksum_new (G_CHECKSUM_SHA256), 0 };
      if (concurrent)
        threads[t] = g_thread_new ("worker", work, &workers[t]);
      else
        work (&workers[t]);
    }

  *n_released_seen = 0;
  for (guint t = 0; t < N_THREADS; t++)
    {
      if (threads[t] != NULL)
        g_thread_join (threads[t]);
      digests[t] = g_strdup (g_checksum_get_string (workers[t].checksum));
      g_checksum_free (workers[t].checksum);
      *n_released_seen += workers[t].n_released_seen;
    }
}

static void
test_threads_match_serial (void)
{
  Shared shared;
  char *serial[N_THREADS], *concurrent[N_THREADS];
  guint n_released_seen;
  g_autoptr(EpTensor) last = NULL;

  shared_init (&shared);
  if (shared.opencl == NULL)
    g_test_message ("no OpenCL device: cpu:0 only (%s)", ep_device_get_unavailable_reason ("opencl"));
  g_test_message ("%u threads, %u rounds each", N_THREADS, shared.n_rounds);

  run (&shared, FALSE, serial, &n_released_seen);
  run (&shared, TRUE, concurrent, &n_released_seen);
  for (guint t = 0; t < N_THREADS; t++)
    {
      g_assert_cmpstr (concurrent[t], ==, serial[t]);
      g_free (serial[t]);
      g_free (concurrent[t]);
    }

  /* every doomed tensor was released, and the sums after it failed */
  for (guint k = 0; k < MIN (shared.n_rounds, N_DOOMED); k++)
    g_assert_true (ep_tensor_is_released (shared.doomed[k]));
  g_assert_cmpuint (n_released_seen, >, 0);
  last = ep_variable_read (shared.variable);
  check_whole_value (last);

  shared_clear (&shared);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/threads/match-serial", test_threads_match_serial);

  return g_test_run ();
}
