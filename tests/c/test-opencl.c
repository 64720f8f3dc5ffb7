/* test-opencl.c: the OpenCL device: discovery, placement, faults
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Op results are compared with the CPU in test-backend-ops; this checks
 * what is particular to OpenCL. Faults a healthy device never shows (a
 * lost device, memory running out mid-way) are injected through a
 * private hook: the next checked OpenCL call fails with a given status.
 */

#include <string.h>

#include <eager-glib/eager-glib.h>

#include "ep-device-private.h"
#include "ep-opencl-private.h"
#include "ep-tensor-private.h"
#include "ep-test-util.h"

static EpDevice *
opencl0 (void)
{
  EpDevice *device = ep_device_get ("opencl:0", NULL);

  if (device == NULL)
    g_test_skip_printf ("no OpenCL device: %s", ep_device_get_unavailable_reason ("opencl"));

  return device;
}

static void
assert_values (EpTensor      *t,
               const gdouble *expected,
               gsize          n)
{
  gsize size;
  g_autofree gdouble *data = ep_test_get_values (t, &size);

  g_assert_cmpint (size, ==, n);
  for (gsize i = 0; i < n; i++)
    g_assert_cmpfloat (data[i], ==, expected[i]);
}

/* Discovery */

static void
test_discovery (void)
{
  g_autoptr(GPtrArray) devices = ep_list_devices ();
  EpDevice *device = opencl0 ();
  g_autofree char *name = NULL, *kind = NULL, *vendor = NULL, *description = NULL;
  guint64 memory = 0;
  guint index = 0;

  if (device == NULL)
    return;

  g_assert_cmpstr (ep_device_get_name (g_ptr_array_index (devices, 0)), ==, "cpu:0");
  for (guint i = 1; i < devices->len; i++)
    {
      g_autofree char *expected = g_strdup_printf ("opencl:%u", index++);

      g_assert_cmpstr (ep_device_get_name (g_ptr_array_index (devices, i)), ==, expected);
      g_assert_cmpstr (ep_device_get_kind (g_ptr_array_index (devices, i)), ==, "opencl");
    }

  g_object_get (device, "name", &name, "kind", &kind, "vendor", &vendor,
                "description", &description, "memory-size", &memory, NULL);
  g_assert_cmpstr (name, ==, "opencl:0");
  g_assert_cmpstr (kind, ==, "opencl");
  g_assert_cmpuint (strlen (vendor), >, 0);
  g_assert_nonnull (strstr (description, "OpenCL"));
  g_assert_cmpuint (memory, >, 0);
  g_assert_cmpstr (ep_device_get_vendor (device), ==, vendor);

  g_assert_true (ep_device_get ("opencl", NULL) == device);
  g_assert_null (ep_device_get_unavailable_reason ("opencl"));
  g_assert_null (ep_device_get_unavailable_reason ("cpu"));
  g_assert_nonnull (ep_device_get_unavailable_reason ("tpu"));
  g_assert_true (ep_device_supports_dtype (device, EP_DTYPE_FLOAT32));
}

/* With no OpenCL driver the library works on cpu:0 and says why. The
 * ICD loader reads its drivers from OCL_ICD_VENDORS. */
static void
test_no_driver (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(GPtrArray) devices = ep_list_devices ();
      g_autoptr(GError) error = NULL;
      const char *reason = ep_device_get_unavailable_reason ("opencl");
      g_autoptr(EpTensor) t = NULL;

      g_assert_cmpuint (devices->len, ==, 1);
      g_assert_nonnull (reason);
      g_assert_nonnull (strstr (reason, "ICD"));
      g_assert_null (ep_device_get ("opencl:0", &error));
      g_assert_error (error, EP_ERROR, EP_ERROR_DEVICE);

      t = ep_zeros ((gint64[]) { 3 }, 1, EP_DTYPE_FLOAT32, NULL);
      g_assert_nonnull (t);
      return;
    }

  g_setenv ("OCL_ICD_VENDORS", "/nonexistent", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_unsetenv ("OCL_ICD_VENDORS");
  g_test_trap_assert_passed ();
}

/* Placement */

static void
test_round_trip (void)
{
  EpDevice *device = opencl0 ();
  const gdouble values[] = { 1, -2.5, 3, 0, 1e30 };

  if (device == NULL)
    return;

  for (EpDType dtype = 0; dtype <= EP_DTYPE_INT16; dtype++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) cpu = ep_test_vector (values, G_N_ELEMENTS (values), dtype);
      g_autoptr(EpTensor) there = ep_tensor_to_device (cpu, device, &error);
      g_autoptr(GBytes) want = NULL, got = NULL;

      g_assert_no_error (error);
      g_assert_true (ep_tensor_get_device (there) == device);
      g_assert_true (there->storage->handle != NULL);
      g_assert_null (there->storage->data);

      want = ep_tensor_to_bytes (cpu, &error);
      got = ep_tensor_to_bytes (there, &error);
      g_assert_no_error (error);
      g_assert_true (g_bytes_equal (want, got));
    }
}

/* astype between every pair of dtypes matches the CPU bit for bit,
 * uint8's wrapping and out-of-range floats included. */
static void
test_astype_matches_cpu (void)
{
  EpDevice *device = opencl0 ();
  const gdouble values[] = { 1, -2.5, 3, 0, 255, 256, -1, 300.7, 1e30, NAN, -INFINITY };

  if (device == NULL)
    return;

  for (EpDType from = 0; from <= EP_DTYPE_INT16; from++)
    for (EpDType to = 0; to <= EP_DTYPE_INT16; to++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(EpTensor) cpu = ep_test_vector (values, G_N_ELEMENTS (values), from);
        g_autoptr(EpTensor) there = NULL, cast_there = NULL, cast_cpu = NULL;
        g_autoptr(GBytes) want = NULL, got = NULL;

        if (!ep_device_supports_dtype (device, from) || !ep_device_supports_dtype (device, to))
          continue;
        g_test_message ("%s to %s", ep_dtype_get_name (from), ep_dtype_get_name (to));
        there = ep_tensor_to_device (cpu, device, &error);
        g_assert_no_error (error);
        cast_there = ep_tensor_astype (there, to, &error);
        g_assert_no_error (error);
        cast_cpu = ep_tensor_astype (cpu, to, &error);
        g_assert_no_error (error);
        want = ep_tensor_to_bytes (cast_cpu, &error);
        got = ep_tensor_to_bytes (cast_there, &error);
        g_assert_no_error (error);
        g_assert_true (g_bytes_equal (want, got));
      }
}

static void
test_scope (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) made = NULL;
  g_autoptr(EpTensor) sum = NULL;
  g_autoptr(EpTensor) after = NULL;
  g_autofree char *text = NULL;
  const gdouble values[] = { 1, 2, 3 };

  if (device == NULL)
    return;

  ep_test_push (device);
  g_assert_true (ep_device_get_current () == device);
  made = ep_test_vector (values, 3, EP_DTYPE_FLOAT32);
  sum = ep_tensor_sum (made, NULL, 0, FALSE, &error);
  g_assert_no_error (error);
  ep_test_push (ep_device_get_cpu ());
  after = ep_zeros ((gint64[]) { 2 }, 1, EP_DTYPE_INT32, &error);
  ep_test_pop (ep_device_get_cpu ());
  ep_test_pop (device);
  g_assert_null (ep_device_get_current ());

  g_assert_true (ep_tensor_get_device (made) == device);
  g_assert_true (ep_tensor_get_device (sum) == device);
  g_assert_true (ep_tensor_get_device (after) == ep_device_get_cpu ());
  g_assert_cmpfloat (ep_tensor_item_double (sum, &error), ==, 6.0);
  g_assert_cmpint (ep_tensor_item_int64 (sum, &error), ==, 6);
  g_assert_true (ep_tensor_item_boolean (sum, &error));
  text = ep_tensor_to_string (made, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "[1. 2. 3.]");
}

/* Inputs on different devices: placed by the first, the other copied. */
static void
test_mixed_devices (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;
  const gdouble a_values[] = { 1, 2, 3 }, b_values[] = { 10, 20, 30 };
  const gdouble sums[] = { 11, 22, 33 };
  g_autoptr(EpTensor) a = NULL, b = NULL, b_cl = NULL, on_cl = NULL, on_cpu = NULL, scoped = NULL;

  if (device == NULL)
    return;

  a = ep_test_vector (a_values, 3, EP_DTYPE_FLOAT32);
  b = ep_test_vector (b_values, 3, EP_DTYPE_INT32);
  b_cl = ep_tensor_to_device (b, device, &error);
  g_assert_no_error (error);

  on_cl = ep_tensor_add (b_cl, a, &error);
  g_assert_no_error (error);
  g_assert_true (ep_tensor_get_device (on_cl) == device);
  assert_values (on_cl, sums, 3);

  on_cpu = ep_tensor_add (a, b_cl, &error);
  g_assert_no_error (error);
  g_assert_true (ep_tensor_get_device (on_cpu) == ep_device_get_cpu ());
  assert_values (on_cpu, sums, 3);

  ep_test_push (device);
  scoped = ep_tensor_add (a, b, &error);
  ep_test_pop (device);
  g_assert_no_error (error);
  g_assert_true (ep_tensor_get_device (scoped) == device);
  assert_values (scoped, sums, 3);
}

/* A non-contiguous CPU tensor copied or read inside an OpenCL scope: it
 * is compacted where it lives, not copied to the scope's device first
 * (which would need compacting again, without end). */
static void
test_strided_copy_in_scope (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;
  const gdouble values[] = { 0, 1, 2, 3, 4, 5 };
  const gdouble transposed[] = { 0, 3, 1, 4, 2, 5 };
  g_autoptr(EpTensor) flat = NULL, matrix = NULL, t = NULL, moved = NULL;
  g_autoptr(GBytes) bytes = NULL;

  if (device == NULL)
    return;

  flat = ep_test_vector (values, 6, EP_DTYPE_INT64);
  matrix = ep_tensor_reshape (flat, (gint64[]) { 2, 3 }, 2, &error);
  t = ep_tensor_transpose (matrix, NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_false (ep_tensor_is_contiguous (t));

  ep_test_push (device);
  moved = ep_tensor_to_device (t, device, &error);
  g_assert_no_error (error);
  bytes = ep_tensor_to_bytes (t, &error);
  g_assert_no_error (error);
  ep_test_pop (device);

  g_assert_true (ep_tensor_get_device (moved) == device);
  assert_values (moved, transposed, 6);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 6 * sizeof (gint64));
  for (guint i = 0; i < 6; i++)
    g_assert_cmpint (((const gint64 *) g_bytes_get_data (bytes, NULL))[i], ==, (gint64) transposed[i]);
}

static void
test_synchronize (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;

  if (device == NULL)
    return;

  g_assert_true (ep_device_synchronize (device, &error));
  g_assert_no_error (error);
  g_assert_true (ep_device_synchronize (ep_device_get_cpu (), &error));
  g_assert_no_error (error);
}

/* Ops from several threads share the device's kernels: every result
 * must still be right. */
static gpointer
worker (gpointer data)
{
  EpDevice *device = data;
  g_autoptr(GError) error = NULL;
  gdouble total = 0;

  ep_test_push (device);
  for (guint i = 0; i < 50; i++)
    {
      g_autoptr(EpTensor) a = ep_arange (0, 1000, 1, EP_DTYPE_FLOAT64, &error);
      g_autoptr(EpTensor) b = ep_tensor_mul (a, a, &error);
      g_autoptr(EpTensor) s = ep_tensor_sum (b, NULL, 0, FALSE, &error);

      g_assert_no_error (error);
      g_assert_true (ep_tensor_get_device (s) == device);
      total += ep_tensor_item_double (s, &error);
    }
  ep_test_pop (device);

  g_assert_cmpfloat (total, ==, 50 * 332833500.0);
  return NULL;
}

static void
test_threads (void)
{
  EpDevice *device = opencl0 ();
  GThread *threads[4];

  if (device == NULL)
    return;

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("ep-worker", worker, device);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
}

/* The tape works unchanged on any device: the gradient of
 * sum (x * x + x.T @ x) at an OpenCL x is computed on the device. */
static void
test_gradient_tape (void)
{
  EpDevice *device = opencl0 ();
  const gdouble values[] = { 1, -2, 3, 0.5 };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) flat = NULL, x = NULL, squares = NULL, xt = NULL, gram = NULL;
  g_autoptr(EpTensor) s1 = NULL, s2 = NULL, total = NULL;
  g_autoptr(EpGradientTape) tape = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  EpTensor *grad;

  if (device == NULL)
    return;

  flat = ep_test_vector (values, 4, EP_DTYPE_FLOAT64);
  x = ep_tensor_reshape (flat, (gint64[]) { 2, 2 }, 2, &error);
  g_assert_no_error (error);
  g_clear_object (&flat);
  flat = g_steal_pointer (&x);
  x = ep_tensor_to_device (flat, device, &error);
  g_assert_no_error (error);

  tape = ep_gradient_tape_new (FALSE);
  g_assert_true (ep_gradient_tape_start (tape, &error));
  ep_gradient_tape_watch (tape, x);
  squares = ep_tensor_mul (x, x, &error);
  xt = ep_tensor_transpose (x, NULL, 0, &error);
  gram = ep_tensor_matmul (xt, x, &error);
  s1 = ep_tensor_sum (squares, NULL, 0, FALSE, &error);
  s2 = ep_tensor_sum (gram, NULL, 0, FALSE, &error);
  total = ep_tensor_add (s1, s2, &error);
  g_assert_no_error (error);
  g_assert_true (ep_gradient_tape_stop (tape, &error));

  grads = ep_gradient_tape_gradient (tape, &total, 1, (GObject **) &x, 1, NULL, 0, &error);
  g_assert_no_error (error);
  grad = g_ptr_array_index (grads, 0);
  g_assert_true (ep_tensor_get_device (grad) == device);

  /* d/dx sum (x * x) = 2x; sum (xᵀx) is the sum of the squared row sums,
   * so each element also gets twice its row's sum (-1 and 3.5). */
  assert_values (grad, (const gdouble[]) { 2 * 1 + 2 * -1, 2 * -2 + 2 * -1, 2 * 3 + 2 * 3.5, 2 * 0.5 + 2 * 3.5 }, 4);
}

/* Faults */

static void
test_absurd_allocation (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;

  if (device == NULL)
    return;

  ep_test_push (device);
  t = ep_zeros ((gint64[]) { 1 << 20, 1 << 20 }, 2, EP_DTYPE_FLOAT32, &error);
  ep_test_pop (device);

  g_assert_null (t);
  g_assert_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY);
  g_assert_nonnull (strstr (error->message, "opencl:0"));
}

/* Larger than one buffer may be, though the device has that much. */
static void
test_allocation_over_buffer_limit (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;
  gsize max_alloc;

  if (device == NULL)
    return;

  max_alloc = ep_opencl_device (device)->max_alloc;
  if ((guint64) max_alloc + 4 > ep_device_get_memory_size (device))
    {
      g_test_skip ("this device allocates all its memory at once");
      return;
    }

  ep_test_push (device);
  t = ep_zeros ((gint64[]) { max_alloc / 4 + 1 }, 1, EP_DTYPE_FLOAT32, &error);
  ep_test_pop (device);

  g_assert_null (t);
  g_assert_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY);
  g_assert_nonnull (strstr (error->message, "opencl:0"));
  g_assert_nonnull (strstr (error->message, "at once"));
}

static EpTensor *
on_device (EpDevice *device,
           EpDType   dtype)
{
  const gdouble values[] = { 1, 2, 3, 4 };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) cpu = ep_test_vector (values, 4, dtype);
  EpTensor *t = ep_tensor_to_device (cpu, device, &error);

  g_assert_no_error (error);
  return t;
}

/* After a fault the device goes on working. */
static void
assert_still_works (EpDevice *device)
{
  const gdouble squares[] = { 1, 4, 9, 16 };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = on_device (device, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) s = ep_tensor_square (t, &error);

  g_assert_no_error (error);
  g_assert_true (ep_tensor_get_device (s) == device);
  assert_values (s, squares, 4);
}

static void
assert_device_error (GError     *error,
                     gint        code,
                     const char *status_name)
{
  g_assert_error (error, EP_ERROR, code);
  g_assert_nonnull (strstr (error->message, "opencl:0"));
  g_assert_nonnull (strstr (error->message, status_name));
}

static void
test_fault_on_allocation (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;

  if (device == NULL)
    return;

  ep_opencl_inject_fault (device, "clCreateBuffer", 0, CL_MEM_OBJECT_ALLOCATION_FAILURE);
  ep_test_push (device);
  t = ep_zeros ((gint64[]) { 16 }, 1, EP_DTYPE_FLOAT32, &error);
  ep_test_pop (device);

  g_assert_null (t);
  assert_device_error (error, EP_ERROR_OUT_OF_MEMORY, "CL_MEM_OBJECT_ALLOCATION_FAILURE");
  assert_still_works (device);
}

/* The reduction's buffer of partial results, after its output. */
static void
test_fault_on_reduction_buffer (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;
  g_autoptr(EpTensor) s = NULL;

  if (device == NULL)
    return;

  ep_test_push (device);
  t = ep_ones ((gint64[]) { 100000 }, 1, EP_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);
  ep_opencl_inject_fault (device, "clCreateBuffer", 1, CL_OUT_OF_RESOURCES);
  s = ep_tensor_sum (t, NULL, 0, FALSE, &error);
  ep_test_pop (device);

  g_assert_null (s);
  assert_device_error (error, EP_ERROR_OUT_OF_MEMORY, "CL_OUT_OF_RESOURCES");
  g_assert_true (g_str_has_prefix (error->message, "cannot allocate"));
  assert_still_works (device);
}

/* Kernels that need scratch buffers or a flag read back: each of those
 * can fail too, after the outputs are allocated. */
static EpTensor *
matrix_on (EpDevice *device,
           gint64    rows,
           gint64    cols,
           EpDType   dtype)
{
  g_autoptr(GError) error = NULL;
  g_autofree gdouble *values = g_new (gdouble, rows * cols);
  g_autoptr(EpTensor) cpu = NULL;
  EpTensor *t;

  for (gint64 i = 0; i < rows * cols; i++)
    values[i] = (i * 7) % 5 + (i / cols == i % cols ? rows : 0);
  cpu = ep_tensor_new_from_doubles (values, rows * cols, (gint64[]) { rows, cols }, 2, dtype, &error);
  g_assert_no_error (error);
  t = ep_tensor_to_device (cpu, device, &error);
  g_assert_no_error (error);
  return t;
}

typedef enum {
  SCRATCH_SORT,
  SCRATCH_TOPK_UNSORTED,
  SCRATCH_MASK,
  SCRATCH_CROSSENTROPY,
  SCRATCH_ONEHOT,
  SCRATCH_INV,
  SCRATCH_SOLVE,
  SCRATCH_TAKE,
  SCRATCH_SCATTER_ADD,
  N_SCRATCH
} ScratchOp;

static gboolean
run_scratch_op (EpDevice  *device,
                ScratchOp  which,
                GError   **error)
{
  g_autoptr(EpTensor) x = matrix_on (device, 4, 4, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) cpu_labels = ep_test_vector ((const gdouble[]) { 0, 3, 1, 2 }, 4, EP_DTYPE_INT64);
  g_autoptr(EpTensor) flat = NULL, mask = NULL, out = NULL, values = NULL, indices = NULL;
  g_autoptr(GError) local_error = NULL;

  flat = ep_tensor_to_device (cpu_labels, device, &local_error);
  g_assert_no_error (local_error);

  switch (which)
    {
    case SCRATCH_SORT:
      out = ep_tensor_sort (x, -1, error);
      return out != NULL;
    case SCRATCH_TOPK_UNSORTED:
      return ep_tensor_topk (x, 2, FALSE, &values, &indices, error);
    case SCRATCH_MASK:
      values = ep_tensor_transpose (x, NULL, 0, &local_error);
      mask = ep_tensor_greater (x, values, &local_error);
      g_assert_no_error (local_error);
      out = ep_tensor_mask (x, mask, error);
      return out != NULL;
    case SCRATCH_CROSSENTROPY:
      out = ep_tensor_crossentropy (x, flat, error);
      return out != NULL;
    case SCRATCH_ONEHOT:
      out = ep_tensor_onehot_like (x, flat, 1.0, error);
      return out != NULL;
    case SCRATCH_INV:
      out = ep_tensor_inv (x, error);
      return out != NULL;
    case SCRATCH_SOLVE:
      out = ep_tensor_solve (x, x, error);
      return out != NULL;
    case SCRATCH_TAKE:
      out = ep_tensor_take (x, flat, 1, error);
      return out != NULL;
    case SCRATCH_SCATTER_ADD:
      out = ep_tensor_scatter_add (x, flat, x, 0, error);
      return out != NULL;
    default:
      g_assert_not_reached ();
    }
}

static void
test_fault_on_scratch (void)
{
  EpDevice *device = opencl0 ();
  /* the buffers to let through: the inputs (two, three with a mask)
   * and the outputs */
  const guint before[N_SCRATCH] = { 3, 4, 4, 3, 3, 3, 3, 3, 3 };
  const char *const names[N_SCRATCH] = {
    "sort", "topk", "mask", "crossentropy", "onehot_like", "inv", "solve", "take", "scatter_add"
  };

  if (device == NULL)
    return;

  for (ScratchOp which = 0; which < N_SCRATCH; which++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *scratch = NULL;

      /* once right, so that the programs are there */
      g_assert_true (run_scratch_op (device, which, &error));
      g_assert_no_error (error);

      ep_opencl_inject_fault (device, "clCreateBuffer", before[which], CL_MEM_OBJECT_ALLOCATION_FAILURE);
      scratch = g_strdup_printf ("%s: clCreateBuffer failed", names[which]);
      g_assert_false (run_scratch_op (device, which, &error));
      assert_device_error (error, EP_ERROR_OUT_OF_MEMORY, "CL_MEM_OBJECT_ALLOCATION_FAILURE");
      /* the kernel's own buffer failed, not an output */
      g_assert_nonnull (strstr (error->message, scratch));
      ep_opencl_inject_fault (device, NULL, 0, CL_SUCCESS);
    }

  assert_still_works (device);
}

/* A flag read back after a kernel (labels in range) from a lost device */
static void
test_fault_on_flag_read (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;

  if (device == NULL)
    return;

  g_assert_true (run_scratch_op (device, SCRATCH_CROSSENTROPY, &error));
  ep_opencl_inject_fault (device, "clEnqueueReadBuffer", 0, CL_DEVICE_NOT_AVAILABLE);
  g_assert_false (run_scratch_op (device, SCRATCH_CROSSENTROPY, &error));
  assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
  g_clear_error (&error);

  ep_opencl_inject_fault (device, "clEnqueueReadBuffer", 0, CL_DEVICE_NOT_AVAILABLE);
  g_assert_false (run_scratch_op (device, SCRATCH_INV, &error));
  assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
  g_clear_error (&error);

  ep_opencl_inject_fault (device, "clEnqueueFillBuffer", 0, CL_DEVICE_NOT_AVAILABLE);
  g_assert_false (run_scratch_op (device, SCRATCH_ONEHOT, &error));
  assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
  g_clear_error (&error);

  /* the gathers and scatters read a flag too, not their indices */
  g_assert_true (run_scratch_op (device, SCRATCH_TAKE, &error));
  ep_opencl_inject_fault (device, "clEnqueueReadBuffer", 0, CL_DEVICE_NOT_AVAILABLE);
  g_assert_false (run_scratch_op (device, SCRATCH_TAKE, &error));
  assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
  g_assert_nonnull (strstr (error->message, "take: clEnqueueReadBuffer failed"));
  g_clear_error (&error);

  ep_opencl_inject_fault (device, "clEnqueueReadBuffer", 0, CL_DEVICE_NOT_AVAILABLE);
  g_assert_false (run_scratch_op (device, SCRATCH_SCATTER_ADD, &error));
  assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
  assert_still_works (device);
}

/* The second kernel that finds which index was bad, and its flag:
 * a failure there is the device's error, not an index error */
static void
test_fault_finding_bad_index (void)
{
  EpDevice *device = opencl0 ();
  const char *const calls[] = { "clEnqueueFillBuffer", "clEnqueueNDRangeKernel", "clEnqueueReadBuffer" };
  g_autoptr(EpTensor) x = NULL;
  g_autoptr(EpTensor) cpu_bad = ep_test_vector ((const gdouble[]) { 0, 3, 9, 1 }, 4, EP_DTYPE_INT64);
  g_autoptr(EpTensor) bad = NULL;
  g_autoptr(EpTensor) r = NULL;
  g_autoptr(GError) error = NULL;

  if (device == NULL)
    return;

  x = matrix_on (device, 4, 4, EP_DTYPE_FLOAT32);
  bad = ep_tensor_to_device (cpu_bad, device, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < G_N_ELEMENTS (calls); i++)
    {
      /* the take's own call of each goes through */
      ep_opencl_inject_fault (device, calls[i], 1, CL_DEVICE_NOT_AVAILABLE);
      r = ep_tensor_take (x, bad, 1, &error);
      g_assert_null (r);
      assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
      g_clear_error (&error);
      ep_opencl_inject_fault (device, NULL, 0, CL_SUCCESS);
    }

  r = ep_tensor_take (x, bad, 1, &error);
  g_assert_null (r);
  g_assert_error (error, EP_ERROR, EP_ERROR_INDEX);
  g_assert_cmpstr (error->message, ==, "take: index 9 is out of range for axis 1 of extent 4");
  assert_still_works (device);
}

static void
test_fault_on_write (void)
{
  EpDevice *device = opencl0 ();
  const gdouble values[] = { 1, 2 };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) cpu = ep_test_vector (values, 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) there = NULL;
  g_autoptr(EpTensor) made = NULL;

  if (device == NULL)
    return;

  ep_opencl_inject_fault (device, "clEnqueueWriteBuffer", 0, CL_DEVICE_NOT_AVAILABLE);
  there = ep_tensor_to_device (cpu, device, &error);
  g_assert_null (there);
  assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
  g_clear_error (&error);

  ep_opencl_inject_fault (device, "clEnqueueWriteBuffer", 0, CL_OUT_OF_HOST_MEMORY);
  ep_test_push (device);
  made = ep_tensor_new_from_doubles (values, 2, (gint64[]) { 2 }, 1, EP_DTYPE_FLOAT32, &error);
  ep_test_pop (device);
  g_assert_null (made);
  assert_device_error (error, EP_ERROR_OUT_OF_MEMORY, "CL_OUT_OF_HOST_MEMORY");
  assert_still_works (device);
}

/* A weak scalar is written to the device before the op runs. */
static void
test_fault_on_scalar_operand (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;
  g_autoptr(EpTensor) r = NULL;

  if (device == NULL)
    return;

  t = on_device (device, EP_DTYPE_FLOAT32);
  ep_opencl_inject_fault (device, "clEnqueueWriteBuffer", 0, CL_DEVICE_NOT_AVAILABLE);
  r = ep_tensor_mul_scalar (t, 2.5, &error);
  g_assert_null (r);
  assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
  assert_still_works (device);
}

/* A lost device: reads fail, and so does everything that needs them. */
static void
test_fault_on_read (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;
  g_autoptr(EpTensor) s = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *text = NULL;
  g_autoptr(EpTensor) back = NULL;

  if (device == NULL)
    return;

  t = on_device (device, EP_DTYPE_INT32);
  s = ep_tensor_sum (t, NULL, 0, FALSE, &error);
  g_assert_no_error (error);

  ep_opencl_inject_fault (device, "clEnqueueReadBuffer", 0, CL_DEVICE_NOT_AVAILABLE);
  bytes = ep_tensor_to_bytes (t, &error);
  g_assert_null (bytes);
  assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
  g_clear_error (&error);

  ep_opencl_inject_fault (device, "clEnqueueReadBuffer", 0, CL_DEVICE_NOT_AVAILABLE);
  text = ep_tensor_to_string (t, &error);
  g_assert_null (text);
  assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
  g_clear_error (&error);

  ep_opencl_inject_fault (device, "clEnqueueReadBuffer", 0, CL_DEVICE_NOT_AVAILABLE);
  back = ep_tensor_to_device (t, ep_device_get_cpu (), &error);
  g_assert_null (back);
  assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
  g_clear_error (&error);

  ep_opencl_inject_fault (device, "clEnqueueReadBuffer", 0, CL_DEVICE_NOT_AVAILABLE);
  g_assert_cmpfloat (ep_tensor_item_double (s, &error), ==, 0.0);
  assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
  g_clear_error (&error);

  ep_opencl_inject_fault (device, "clEnqueueReadBuffer", 0, CL_DEVICE_NOT_AVAILABLE);
  g_assert_cmpint (ep_tensor_item_int64 (s, &error), ==, 0);
  assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
  g_clear_error (&error);

  ep_opencl_inject_fault (device, "clEnqueueReadBuffer", 0, CL_DEVICE_NOT_AVAILABLE);
  g_assert_false (ep_tensor_item_boolean (s, &error));
  assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
  g_clear_error (&error);

  g_assert_cmpint (ep_tensor_item_int64 (s, &error), ==, 10);
  g_assert_no_error (error);
}

static void
test_fault_on_kernel (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;
  g_autoptr(EpTensor) r = NULL;

  if (device == NULL)
    return;

  t = on_device (device, EP_DTYPE_FLOAT32);

  ep_opencl_inject_fault (device, "clEnqueueNDRangeKernel", 0, CL_OUT_OF_RESOURCES);
  r = ep_tensor_exp (t, &error);
  g_assert_null (r);
  assert_device_error (error, EP_ERROR_OUT_OF_MEMORY, "CL_OUT_OF_RESOURCES");
  g_assert_true (g_str_has_prefix (error->message, "exp: "));
  g_clear_error (&error);

  ep_opencl_inject_fault (device, "clEnqueueNDRangeKernel", 0, CL_DEVICE_NOT_AVAILABLE);
  r = ep_tensor_max (t, NULL, 0, FALSE, &error);
  g_assert_null (r);
  assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
  g_assert_true (g_str_has_prefix (error->message, "max: "));
  assert_still_works (device);
}

static void
test_fault_on_fill (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;
  g_autoptr(EpTensor) a = NULL;
  g_autoptr(EpTensor) b = NULL;
  g_autoptr(EpTensor) p = NULL;

  if (device == NULL)
    return;

  ep_test_push (device);
  ep_opencl_inject_fault (device, "clEnqueueFillBuffer", 0, CL_DEVICE_NOT_AVAILABLE);
  t = ep_zeros ((gint64[]) { 4 }, 1, EP_DTYPE_INT64, &error);
  g_assert_null (t);
  assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
  g_clear_error (&error);

  /* a product with an empty inner dimension is a fill too */
  a = ep_zeros ((gint64[]) { 2, 0 }, 2, EP_DTYPE_FLOAT32, &error);
  b = ep_zeros ((gint64[]) { 0, 3 }, 2, EP_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);
  ep_opencl_inject_fault (device, "clEnqueueFillBuffer", 0, CL_DEVICE_NOT_AVAILABLE);
  p = ep_tensor_matmul (a, b, &error);
  ep_test_pop (device);
  g_assert_null (p);
  assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
  assert_still_works (device);
}

static void
test_fault_in_clblast (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;
  g_autoptr(EpTensor) p = NULL;

  if (device == NULL)
    return;

  /* large enough to go to CLBlast */
  ep_test_push (device);
  t = ep_ones ((gint64[]) { 64, 64 }, 2, EP_DTYPE_FLOAT32, &error);
  ep_test_pop (device);
  g_assert_no_error (error);
  ep_opencl_inject_fault (device, "CLBlast", 0, -2044);
  p = ep_tensor_matmul (t, t, &error);
  g_assert_null (p);
  assert_device_error (error, EP_ERROR_DEVICE, "CLBlastNoDoublePrecision");
  g_assert_true (g_str_has_prefix (error->message, "matmul: "));
  assert_still_works (device);
}

static void
test_fault_on_synchronize (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;

  if (device == NULL)
    return;

  ep_opencl_inject_fault (device, "clFinish", 0, CL_DEVICE_NOT_AVAILABLE);
  g_assert_false (ep_device_synchronize (device, &error));
  assert_device_error (error, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE");
}

/* A program that does not compile: the compiler's log, in a GError. */
static void
test_broken_program (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;
  cl_program program = NULL;

  if (device == NULL)
    return;

  g_assert_false (ep_opencl_build_source (device, "broken",
                                          "__kernel void f (__global float *x) { x[0] = undeclared; }",
                                          &program, &error));
  g_assert_null (program);
  g_assert_error (error, EP_ERROR, EP_ERROR_DEVICE);
  g_assert_nonnull (strstr (error->message, "“broken”"));
  g_assert_nonnull (strstr (error->message, "opencl:0"));
  g_assert_nonnull (strstr (error->message, "CL_BUILD_PROGRAM_FAILURE"));
  g_assert_nonnull (strstr (error->message, "undeclared"));
  g_clear_error (&error);

  ep_opencl_inject_fault (device, "clBuildProgram", 0, CL_OUT_OF_HOST_MEMORY);
  g_assert_false (ep_opencl_build_source (device, "fine", "__kernel void f (void) { }",
                                          &program, &error));
  assert_device_error (error, EP_ERROR_DEVICE, "CL_OUT_OF_HOST_MEMORY");
  g_clear_error (&error);

  g_assert_true (ep_opencl_build_source (device, "fine", "__kernel void f (void) { }",
                                         &program, &error));
  g_assert_no_error (error);
  clReleaseProgram (program);
}

/* A device without cl_khr_fp64 refuses float64 work, but stores it. */
static void
test_no_fp64 (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;
  g_autoptr(EpTensor) r = NULL;
  g_autoptr(EpTensor) c = NULL;
  g_autoptr(EpTensor) back = NULL;
  gboolean fp64;

  if (device == NULL)
    return;

  t = on_device (device, EP_DTYPE_FLOAT64);
  fp64 = ep_opencl_device (device)->fp64;
  ep_opencl_device (device)->fp64 = FALSE;

  g_assert_false (ep_device_supports_dtype (device, EP_DTYPE_FLOAT64));
  g_assert_true (ep_device_supports_dtype (device, EP_DTYPE_INT64));
  r = ep_tensor_exp (t, &error);
  g_assert_null (r);
  g_assert_error (error, EP_ERROR, EP_ERROR_DEVICE);
  g_assert_nonnull (strstr (error->message, "float64"));
  g_assert_nonnull (strstr (error->message, "opencl:0"));
  g_clear_error (&error);

  /* moving bytes needs no float64 arithmetic */
  c = ep_tensor_transpose (t, NULL, 0, &error);
  back = ep_tensor_to_device (c, ep_device_get_cpu (), &error);
  g_assert_no_error (error);

  ep_opencl_device (device)->fp64 = fp64;
  assert_values (back, (const gdouble[]) { 1, 2, 3, 4 }, 4);
}

/* Ops without a kernel on a device fail cleanly (dispatch's error). */
static void
test_missing_kernel (void)
{
  EpDevice *device = opencl0 ();
  EpKernelFunc *kernels;
  EpKernelFunc saved;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;
  g_autoptr(EpTensor) r = NULL;

  if (device == NULL)
    return;

  t = on_device (device, EP_DTYPE_FLOAT32);
  kernels = (EpKernelFunc *) device->backend->kernels;
  saved = kernels[EP_OP_TANH];
  kernels[EP_OP_TANH] = NULL;
  r = ep_tensor_tanh (t, &error);
  kernels[EP_OP_TANH] = saved;

  g_assert_null (r);
  g_assert_error (error, EP_ERROR, EP_ERROR_DEVICE);
  g_assert_nonnull (strstr (error->message, "tanh"));
  g_assert_nonnull (strstr (error->message, "opencl:0"));
}

/* How OpenCL statuses map to error codes. */
static void
test_status_mapping (void)
{
  EpDevice *device = opencl0 ();
  const struct { cl_int status; gint code; const char *name; } statuses[] = {
    { CL_MEM_OBJECT_ALLOCATION_FAILURE, EP_ERROR_OUT_OF_MEMORY, "CL_MEM_OBJECT_ALLOCATION_FAILURE" },
    { CL_OUT_OF_RESOURCES, EP_ERROR_OUT_OF_MEMORY, "CL_OUT_OF_RESOURCES" },
    { CL_OUT_OF_HOST_MEMORY, EP_ERROR_OUT_OF_MEMORY, "CL_OUT_OF_HOST_MEMORY" },
    { CL_INVALID_BUFFER_SIZE, EP_ERROR_OUT_OF_MEMORY, "CL_INVALID_BUFFER_SIZE" },
    { CL_DEVICE_NOT_AVAILABLE, EP_ERROR_DEVICE, "CL_DEVICE_NOT_AVAILABLE" },
    { CL_INVALID_COMMAND_QUEUE, EP_ERROR_DEVICE, "CL_INVALID_COMMAND_QUEUE" },
    { CL_BUILD_PROGRAM_FAILURE, EP_ERROR_DEVICE, "CL_BUILD_PROGRAM_FAILURE" },
    { -1001, EP_ERROR_DEVICE, "CL_PLATFORM_NOT_FOUND_KHR" },
    { -2039, EP_ERROR_DEVICE, "CLBlastUnexpectedError" },
    { -4242, EP_ERROR_DEVICE, "unknown status" },
  };

  if (device == NULL)
    return;

  for (guint i = 0; i < G_N_ELEMENTS (statuses); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GError) no_op = NULL;

      g_assert_false (ep_opencl_set_error (&error, device, "add", "clSomething", statuses[i].status));
      g_assert_error (error, EP_ERROR, statuses[i].code);
      g_assert_nonnull (strstr (error->message, statuses[i].name));
      g_assert_true (g_str_has_prefix (error->message, "add: clSomething failed on opencl:0"));

      ep_opencl_set_error (&no_op, device, NULL, "clSomething", statuses[i].status);
      g_assert_true (g_str_has_prefix (no_op->message, "clSomething failed on opencl:0"));
    }
}

/* exp (x * 2) + x, then sin (@data 1) or cos (@data 2) */
static GPtrArray *
fusible_chain (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) a = ep_tensor_mul_scalar (in[0], 2, error);
  g_autoptr(EpTensor) b = a != NULL ? ep_tensor_exp (a, error) : NULL;
  g_autoptr(EpTensor) c = b != NULL ? ep_tensor_add (b, in[0], error) : NULL;
  GPtrArray *out = g_ptr_array_new_with_free_func (g_object_unref);

  if (c == NULL)
    return NULL;
  g_ptr_array_add (out, data == NULL ? g_object_ref (c)
                        : GPOINTER_TO_INT (data) == 1 ? ep_tensor_sin (c, error)
                        : ep_tensor_cos (c, error));
  return out;
}

/* Traces @fn, then replays it (its plan, fused) */
static GPtrArray *
trace_and_replay (EpFunction *fn, EpTensor *x, GError **error)
{
  g_autoptr(GPtrArray) traced = ep_function_call (fn, &x, 1, error);

  if (traced == NULL)
    return NULL;
  return ep_function_call (fn, &x, 1, error);
}

/* A fused group's kernel is a program of its own, named after its
 * source's hash: the same group in two functions is built once, another
 * group is another program */
static void
test_fused_programs (void)
{
  EpDevice *device = opencl0 ();
  EpOpenCLDevice *cl;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) host = NULL, x = NULL;
  g_autoptr(EpFunction) first = NULL, second = NULL, other = NULL;
  g_autoptr(GPtrArray) a = NULL, b = NULL, c = NULL;
  guint n_programs;

  if (device == NULL)
    return;
  cl = ep_opencl_device (device);
  host = ep_test_iota (EP_DIMS (64), 1, EP_DTYPE_FLOAT32);
  x = ep_tensor_to_device (host, device, &error);
  g_assert_no_error (error);

  first = ep_function_new (fusible_chain, NULL, NULL);
  a = trace_and_replay (first, x, &error);
  g_assert_no_error (error);
  n_programs = g_hash_table_size (cl->programs);

  second = ep_function_new (fusible_chain, NULL, NULL);
  b = trace_and_replay (second, x, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_hash_table_size (cl->programs), ==, n_programs);

  other = ep_function_new (fusible_chain, GINT_TO_POINTER (1), NULL);
  c = trace_and_replay (other, x, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_hash_table_size (cl->programs), ==, n_programs + 1);
}

/* A fused kernel that fails to build is an error of the call; the next
 * call builds it */
static void
test_fused_build_failure (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) host = NULL, x = NULL;
  g_autoptr(EpFunction) fn = NULL;
  g_autoptr(GPtrArray) traced = NULL, failed = NULL, built = NULL;
  EpTensor *input;

  if (device == NULL)
    return;
  host = ep_test_iota (EP_DIMS (33), 1, EP_DTYPE_FLOAT32);
  x = ep_tensor_to_device (host, device, &error);
  g_assert_no_error (error);
  input = x;

  /* a group no other test builds */
  fn = ep_function_new (fusible_chain, GINT_TO_POINTER (2), NULL);
  traced = ep_function_call (fn, &input, 1, &error);
  g_assert_no_error (error);

  ep_opencl_inject_fault (device, "clBuildProgram", 0, CL_BUILD_PROGRAM_FAILURE);
  failed = ep_function_call (fn, &input, 1, &error);
  g_assert_null (failed);
  g_assert_error (error, EP_ERROR, EP_ERROR_DEVICE);
  g_assert_nonnull (strstr (error->message, "fused_"));
  g_clear_error (&error);

  built = ep_function_call (fn, &input, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (built->len, ==, 1);
}

/* A fused kernel whose launch fails is an error of the call, its output
 * buffer let go; the next call runs */
static void
test_fused_launch_failure (void)
{
  EpDevice *device = opencl0 ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) host = NULL, x = NULL;
  g_autoptr(EpFunction) fn = NULL;
  g_autoptr(GPtrArray) traced = NULL, failed = NULL, ran = NULL;
  EpTensor *input;

  if (device == NULL)
    return;
  host = ep_test_iota (EP_DIMS (40), 1, EP_DTYPE_FLOAT32);
  x = ep_tensor_to_device (host, device, &error);
  g_assert_no_error (error);
  input = x;

  fn = ep_function_new (fusible_chain, NULL, NULL);
  traced = trace_and_replay (fn, x, &error);   /* the plan made and its kernel built */
  g_assert_no_error (error);

  ep_opencl_inject_fault (device, "clEnqueueNDRangeKernel", 0, CL_OUT_OF_RESOURCES);
  failed = ep_function_call (fn, &input, 1, &error);
  g_assert_null (failed);
  g_assert_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY);
  g_assert_nonnull (strstr (error->message, "fused"));
  g_clear_error (&error);

  ran = ep_function_call (fn, &input, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ran->len, ==, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/opencl/discovery", test_discovery);
  g_test_add_func ("/opencl/no-driver", test_no_driver);
  g_test_add_func ("/opencl/round-trip", test_round_trip);
  g_test_add_func ("/opencl/astype-matches-cpu", test_astype_matches_cpu);
  g_test_add_func ("/opencl/scope", test_scope);
  g_test_add_func ("/opencl/mixed-devices", test_mixed_devices);
  g_test_add_func ("/opencl/strided-copy-in-scope", test_strided_copy_in_scope);
  g_test_add_func ("/opencl/synchronize", test_synchronize);
  g_test_add_func ("/opencl/threads", test_threads);
  g_test_add_func ("/opencl/fused/programs", test_fused_programs);
  g_test_add_func ("/opencl/fused/build-failure", test_fused_build_failure);
  g_test_add_func ("/opencl/fused/launch-failure", test_fused_launch_failure);
  g_test_add_func ("/opencl/gradient-tape", test_gradient_tape);
  g_test_add_func ("/opencl/fault/absurd-allocation", test_absurd_allocation);
  g_test_add_func ("/opencl/fault/allocation-over-buffer-limit", test_allocation_over_buffer_limit);
  g_test_add_func ("/opencl/fault/allocation", test_fault_on_allocation);
  g_test_add_func ("/opencl/fault/reduction-buffer", test_fault_on_reduction_buffer);
  g_test_add_func ("/opencl/fault/write", test_fault_on_write);
  g_test_add_func ("/opencl/fault/scratch", test_fault_on_scratch);
  g_test_add_func ("/opencl/fault/flag-read", test_fault_on_flag_read);
  g_test_add_func ("/opencl/fault/finding-bad-index", test_fault_finding_bad_index);
  g_test_add_func ("/opencl/fault/scalar-operand", test_fault_on_scalar_operand);
  g_test_add_func ("/opencl/fault/read", test_fault_on_read);
  g_test_add_func ("/opencl/fault/kernel", test_fault_on_kernel);
  g_test_add_func ("/opencl/fault/fill", test_fault_on_fill);
  g_test_add_func ("/opencl/fault/clblast", test_fault_in_clblast);
  g_test_add_func ("/opencl/fault/synchronize", test_fault_on_synchronize);
  g_test_add_func ("/opencl/fault/broken-program", test_broken_program);
  g_test_add_func ("/opencl/fault/no-fp64", test_no_fp64);
  g_test_add_func ("/opencl/fault/missing-kernel", test_missing_kernel);
  g_test_add_func ("/opencl/fault/status-mapping", test_status_mapping);

  return g_test_run ();
}
