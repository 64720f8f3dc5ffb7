/* test-device.c: devices, scopes, placement and copies between devices
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Besides cpu:0, the tests make a private "fake:0" device: the CPU's
 * kernels over its own host buffers, but not host-visible, so data goes
 * through its read and write functions as it would for a GPU. It is not
 * listed; scopes and to_device reach it directly.
 */

#include "ep-test-util.h"

#include "ep-device-private.h"
#include "ep-recorder-private.h"

/* the fake device */

typedef struct
{
  guint reads;
  guint writes;
  guint live_buffers;
} FakeStats;

static FakeStats fake_stats;

static gboolean
fake_alloc (EpDevice   *device,
            EpStorage  *storage,
            GError    **error)
{
  storage->data = g_try_malloc (MAX (storage->nbytes, 1));
  if (storage->data == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY, "fake: out of memory");
      return FALSE;
    }
  fake_stats.live_buffers++;
  return TRUE;
}

static void
fake_release (EpDevice  *device,
              EpStorage *storage)
{
  fake_stats.live_buffers--;
  g_free (storage->data);
}

static gboolean
fake_write (EpDevice      *device,
            EpStorage     *storage,
            gsize          offset,
            gconstpointer  src,
            gsize          nbytes,
            GError       **error)
{
  g_assert_cmpuint (offset + nbytes, <=, storage->nbytes);
  fake_stats.writes++;
  if (nbytes > 0)
    memcpy ((guint8 *) storage->data + offset, src, nbytes);
  return TRUE;
}

static gboolean
fake_read (EpDevice   *device,
           EpStorage  *storage,
           gsize       offset,
           gpointer    dest,
           gsize       nbytes,
           GError    **error)
{
  g_assert_cmpuint (offset + nbytes, <=, storage->nbytes);
  fake_stats.reads++;
  if (nbytes > 0)
    memcpy (dest, (const guint8 *) storage->data + offset, nbytes);
  return TRUE;
}

static EpDeviceBackend fake_backend = {
  .kind = "fake",
  .alloc = fake_alloc,
  .release = fake_release,
  .write = fake_write,
  .read = fake_read,
};

#define FAKE_MEMORY (1024 * 1024)

static EpDevice *
fake_device_new (void)
{
  memcpy (fake_backend.kernels, ep_device_get_default ()->backend->kernels, sizeof fake_backend.kernels);
  memset (&fake_stats, 0, sizeof fake_stats);

  return ep_device_new (&fake_backend, "fake:0", "a test device", "eager-glib", FAKE_MEMORY, FALSE, NULL);
}

/* Every tensor on it is gone: the device finalizes and no buffer is left. */
static void
fake_device_finish (EpDevice *fake)
{
  g_assert_finalize_object (fake);
  g_assert_cmpuint (fake_stats.live_buffers, ==, 0);
}

/* listing and finding */

static void
test_list_devices (void)
{
  g_autoptr(GPtrArray) devices = ep_list_devices ();
  EpDevice *cpu;

  g_assert_cmpuint (devices->len, >=, 1);
  cpu = g_ptr_array_index (devices, 0);
  g_assert_cmpstr (ep_device_get_name (cpu), ==, "cpu:0");
  g_assert_cmpstr (ep_device_get_kind (cpu), ==, "cpu");
  g_assert_true (cpu == ep_device_get_default ());
  for (guint i = 0; i < devices->len; i++)
    {
      EpDevice *d = g_ptr_array_index (devices, i);
      g_autoptr(GError) error = NULL;

      g_assert_true (ep_device_get (ep_device_get_name (d), &error) == d);
      g_assert_no_error (error);
      for (guint j = 0; j < i; j++)
        g_assert_cmpstr (ep_device_get_name (d), !=, ep_device_get_name (g_ptr_array_index (devices, j)));
    }
}

static void
test_cpu_properties (void)
{
  EpDevice *cpu = ep_device_get_default ();
  g_autofree char *name = NULL;
  g_autofree char *kind = NULL;
  g_autofree char *description = NULL;
  guint64 memory;

  g_object_get (cpu, "name", &name, "kind", &kind, "description", &description,
                "memory-size", &memory, NULL);
  g_assert_cmpstr (name, ==, "cpu:0");
  g_assert_cmpstr (kind, ==, "cpu");
  g_assert_cmpstr (description, ==, ep_device_get_description (cpu));
  g_assert_cmpuint (strlen (description), >, 0);
  g_assert_cmpuint (memory, >, 0);
  g_assert_cmpuint (memory, ==, ep_device_get_memory_size (cpu));
}

static void
test_get_by_kind (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (ep_device_get ("cpu", &error) == ep_device_get_default ());
  g_assert_true (ep_device_get ("cpu:0", &error) == ep_device_get_default ());
  g_assert_no_error (error);
}

static void
test_get_unknown (void)
{
  static const char *names[] = { "tpu:3", "cpu:1", "", "opencl:99", "CPU:0" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_null (ep_device_get (names[i], &error));
      ep_assert_error (error, EP_ERROR_DEVICE, "device", names[i]);
    }
}

/* scopes */

static void
test_scope_nesting (void)
{
  EpDevice *cpu = ep_device_get_default ();
  EpDevice *fake = fake_device_new ();

  g_assert_null (ep_device_get_current ());
  ep_test_push (cpu);
  g_assert_true (ep_device_get_current () == cpu);
  ep_test_push (fake);
  g_assert_true (ep_device_get_current () == fake);
  ep_test_push (cpu);
  g_assert_true (ep_device_get_current () == cpu);
  ep_test_pop (cpu);
  g_assert_true (ep_device_get_current () == fake);
  ep_test_pop (fake);
  g_assert_true (ep_device_get_current () == cpu);
  ep_test_pop (cpu);
  g_assert_null (ep_device_get_current ());

  fake_device_finish (fake);
}

static gpointer
current_device (gpointer data)
{
  return ep_device_get_current ();
}

static void
test_scope_is_per_thread (void)
{
  GThread *thread;

  ep_test_push (ep_device_get_default ());
  thread = g_thread_new ("other", current_device, NULL);
  g_assert_null (g_thread_join (thread));
  ep_test_pop (ep_device_get_default ());
}

/* A thread that exits with a scope still open: the scope is not seen
 * elsewhere, and the thread's context lets go of the device. */
static gpointer
push_and_exit (gpointer data)
{
  EpDevice *fake = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) z = NULL;

  ep_test_push (fake);       /* never popped */
  z = ep_zeros (EP_SHAPE (3), EP_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);

  return GINT_TO_POINTER (ep_tensor_get_device (z) == fake && ep_device_get_current () == fake);
}

static void
test_scope_freed_with_its_thread (void)
{
  EpDevice *fake = fake_device_new ();
  GThread *thread = g_thread_new ("scoped", push_and_exit, fake);

  g_assert_true (GPOINTER_TO_INT (g_thread_join (thread)));
  g_assert_null (ep_device_get_current ());
  fake_device_finish (fake);
}

static void
test_creation_follows_scope (void)
{
  EpDevice *fake = fake_device_new ();

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GBytes) bytes = g_bytes_new_static ("\1\0\1", 3);
    g_autoptr(EpTensor) z = NULL;
    g_autoptr(EpTensor) a = NULL;
    g_autoptr(EpTensor) d = NULL;
    g_autoptr(EpTensor) b = NULL;
    g_autoptr(EpTensor) s = NULL;
    g_autoptr(EpTensor) outside = NULL;

    ep_test_push (fake);
    z = ep_zeros (EP_SHAPE (2), EP_DTYPE_FLOAT32, &error);
    a = ep_arange (0, 3, 1, EP_DTYPE_INT32, &error);
    d = ep_tensor_new_from_doubles ((const gdouble[]) { 1, 2 }, 2, EP_SHAPE (2), EP_DTYPE_FLOAT64, &error);
    b = ep_tensor_new_from_bytes (bytes, EP_DTYPE_BOOL, EP_SHAPE (3), &error);
    s = ep_tensor_new_scalar (4, EP_DTYPE_INT64, &error);
    ep_test_pop (fake);
    outside = ep_zeros (EP_SHAPE (2), EP_DTYPE_FLOAT32, &error);

    g_assert_no_error (error);
    g_assert_true (ep_tensor_get_device (z) == fake);
    g_assert_true (ep_tensor_get_device (a) == fake);
    g_assert_true (ep_tensor_get_device (d) == fake);
    g_assert_true (ep_tensor_get_device (b) == fake);
    g_assert_true (ep_tensor_get_device (s) == fake);
    g_assert_true (ep_tensor_get_device (outside) == ep_device_get_default ());
    ep_assert_values (a, EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (0, 1, 2));
    ep_assert_values (d, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (1, 2));
    ep_assert_values (b, EP_DTYPE_BOOL, EP_SHAPE (3), EP_VALUES (1, 0, 1));
  }

  fake_device_finish (fake);
}

/* copies */

static void
test_to_device_and_back (void)
{
  EpDevice *fake = fake_device_new ();

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
    g_autoptr(EpTensor) f = ep_tensor_to_device (x, fake, &error);
    g_autoptr(EpTensor) back = ep_tensor_to_device (f, ep_device_get_default (), &error);

    g_assert_no_error (error);
    g_assert_true (ep_tensor_get_device (f) == fake);
    g_assert_false (ep_tensor_shares_storage (f, x));
    g_assert_true (ep_tensor_get_device (back) == ep_device_get_default ());
    ep_assert_values (back, EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
    ep_assert_values (f, EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
  }

  fake_device_finish (fake);
}

/* A new tensor object on the same data: releasing it leaves @x alone. */
static void
test_to_device_same_device_shares (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (1));
  g_autoptr(EpTensor) y = ep_tensor_to_device (x, ep_device_get_default (), NULL);

  g_assert_true (x != y);
  g_assert_true (ep_tensor_shares_storage (x, y));
  ep_tensor_release (y);
  ep_assert_values (x, EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (1));
}

/* A view is compacted before it moves: the copy is C order. */
static void
test_to_device_of_view (void)
{
  EpDevice *fake = fake_device_new ();

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
    g_autoptr(EpTensor) t = ep_tensor_transpose (x, NULL, 0, &error);
    g_autoptr(EpTensor) s = ep_test_new_strided (EP_DTYPE_INT64, EP_SHAPE (3), EP_VALUES (7, 8, 9));
    g_autoptr(EpTensor) ft = ep_tensor_to_device (t, fake, &error);
    g_autoptr(EpTensor) fs = ep_tensor_to_device (s, fake, &error);

    g_assert_no_error (error);
    ep_assert_values (ft, EP_DTYPE_INT32, EP_SHAPE (3, 2), EP_VALUES (1, 4, 2, 5, 3, 6));
    ep_assert_values (fs, EP_DTYPE_INT64, EP_SHAPE (3), EP_VALUES (7, 8, 9));
  }

  fake_device_finish (fake);
}

/* Reading from a device that is not host-visible copies through read(). */
static void
test_read_back_from_device (void)
{
  EpDevice *fake = fake_device_new ();

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (0.5, 1, 2));
    g_autoptr(EpTensor) f = ep_tensor_to_device (x, fake, &error);
    g_autoptr(EpTensor) one = NULL;
    g_autoptr(GBytes) bytes = NULL;
    g_autofree char *text = NULL;
    guint reads;

    g_assert_no_error (error);
    reads = fake_stats.reads;
    bytes = ep_tensor_to_bytes (f, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (fake_stats.reads, ==, reads + 1);
    g_assert_true (g_bytes_get_data (bytes, NULL) != f->storage->data);
    g_assert_cmpuint (g_bytes_get_size (bytes), ==, 3 * sizeof (gdouble));

    text = ep_tensor_to_string (f, &error);
    g_assert_cmpstr (text, ==, "[0.5 1.  2. ]");

    ep_test_push (fake);
    one = ep_full (EP_SHAPE (1, 1), 7, EP_DTYPE_INT32, &error);
    ep_test_pop (fake);
    g_assert_cmpint (ep_tensor_item_int64 (one, &error), ==, 7);
    g_assert_no_error (error);
  }

  fake_device_finish (fake);
}

/* placement */

static void
test_ops_stay_on_input_device (void)
{
  EpDevice *fake = fake_device_new ();

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, -2, 3, -4));
    g_autoptr(EpTensor) f = ep_tensor_to_device (x, fake, &error);
    g_autoptr(EpTensor) n = ep_tensor_neg (f, &error);
    g_autoptr(EpTensor) s = ep_tensor_sum (n, EP_AXES (0), FALSE, &error);
    g_autoptr(EpTensor) m = ep_tensor_matmul (f, f, &error);
    g_autoptr(EpTensor) w = ep_tensor_mul_scalar (f, 2, &error);
    g_autoptr(EpTensor) z = ep_tensor_zeros_like (f, &error);
    g_autoptr(EpTensor) t = ep_tensor_transpose (f, NULL, 0, &error);
    g_autoptr(EpTensor) c = ep_tensor_astype (t, EP_DTYPE_INT32, &error);

    g_assert_no_error (error);
    g_assert_true (ep_tensor_get_device (n) == fake);
    g_assert_true (ep_tensor_get_device (s) == fake);
    g_assert_true (ep_tensor_get_device (m) == fake);
    g_assert_true (ep_tensor_get_device (w) == fake);
    g_assert_true (ep_tensor_get_device (z) == fake);
    g_assert_true (ep_tensor_get_device (t) == fake);
    g_assert_true (ep_tensor_get_device (c) == fake);
    ep_assert_values (s, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (-4, 6));
    ep_assert_values (m, EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (-5, 6, -9, 10));
    ep_assert_values (w, EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (2, -4, 6, -8));
    ep_assert_values (c, EP_DTYPE_INT32, EP_SHAPE (2, 2), EP_VALUES (1, 3, -2, -4));
  }

  fake_device_finish (fake);
}

/* Without a scope, the first input's device wins and the others are
 * copied there. */
static void
test_mixed_inputs_follow_first (void)
{
  EpDevice *fake = fake_device_new ();

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
    g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (10, 20));
    g_autoptr(EpTensor) fx = ep_tensor_to_device (x, fake, &error);
    g_autoptr(EpTensor) a = ep_tensor_add (fx, y, &error);
    g_autoptr(EpTensor) b = ep_tensor_add (y, fx, &error);

    g_assert_no_error (error);
    g_assert_true (ep_tensor_get_device (a) == fake);
    g_assert_true (ep_tensor_get_device (b) == ep_device_get_default ());
    ep_assert_values (a, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (11, 22));
    ep_assert_values (b, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (11, 22));
  }

  fake_device_finish (fake);
}

/* A weak literal has no home: the tensor decides. */
static void
test_weak_literal_does_not_place (void)
{
  EpDevice *fake = fake_device_new ();

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (1, 2));
    g_autoptr(EpTensor) fx = ep_tensor_to_device (x, fake, &error);
    g_autoptr(EpTensor) w = ep_tensor_new_weak_scalar (10, EP_DTYPE_INT64);
    g_autoptr(EpTensor) r = ep_tensor_sub (w, fx, &error);

    g_assert_no_error (error);
    g_assert_true (ep_tensor_get_device (r) == fake);
    ep_assert_values (r, EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (9, 8));
  }

  fake_device_finish (fake);
}

typedef struct
{
  EpRecorder parent;
  GString   *log;
} LogRecorder;

static gboolean
log_record (EpRecorder      *recorder,
            const EpOpCall  *call,
            GError         **error)
{
  LogRecorder *self = (LogRecorder *) recorder;

  g_string_append_printf (self->log, "%s@%s ", call->op->name, call->device->name);
  return TRUE;
}

/* In a scope, inputs from elsewhere are copied there transparently, and
 * the copies are ops of their own. */
static void
test_scope_moves_inputs (void)
{
  EpDevice *fake = fake_device_new ();

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GString) log = g_string_new (NULL);
    LogRecorder rec = { { log_record, NULL, FALSE }, log };
    g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
    g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (10, 20));
    g_autoptr(EpTensor) r = NULL;

    ep_recorder_push (&rec.parent);
    ep_test_push (fake);
    r = ep_tensor_add (x, y, &error);
    ep_test_pop (fake);
    ep_recorder_pop (&rec.parent);

    g_assert_no_error (error);
    g_assert_true (ep_tensor_get_device (r) == fake);
    ep_assert_values (r, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (11, 22));
    /* the casts are ops in the scope too: move, cast there, then add */
    g_assert_cmpstr (log->str, ==,
                     "to_device@fake:0 astype@fake:0 to_device@fake:0 astype@fake:0 add@fake:0 ");
  }

  fake_device_finish (fake);
}

/* Views follow the scope as every op does (TensorFlow's rule): a view
 * of a tensor that lives elsewhere is a view of its copy on the scope's
 * device. */
static void
test_views_follow_scope (void)
{
  EpDevice *fake = fake_device_new ();

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
    g_autoptr(EpTensor) t = NULL;
    g_autoptr(EpTensor) r = NULL;

    ep_test_push (fake);
    t = ep_tensor_transpose (x, NULL, 0, &error);
    r = ep_tensor_reshape (x, EP_SHAPE (3, 2), &error);
    ep_test_pop (fake);

    g_assert_no_error (error);
    g_assert_true (ep_tensor_get_device (t) == fake);
    g_assert_true (ep_tensor_get_device (r) == fake);
    g_assert_false (ep_tensor_shares_storage (r, x));
    ep_assert_values (t, EP_DTYPE_FLOAT32, EP_SHAPE (3, 2), EP_VALUES (1, 4, 2, 5, 3, 6));
  }

  fake_device_finish (fake);
}

/* A view of a tensor already on the scope's device shares its data. */
static void
test_views_in_scope_share (void)
{
  EpDevice *fake = fake_device_new ();

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
    g_autoptr(EpTensor) fx = ep_tensor_to_device (x, fake, &error);
    g_autoptr(EpTensor) r = NULL;

    ep_test_push (fake);
    r = ep_tensor_reshape (fx, EP_SHAPE (3, 2), &error);
    ep_test_pop (fake);

    g_assert_no_error (error);
    g_assert_true (ep_tensor_shares_storage (r, fx));
  }

  fake_device_finish (fake);
}

/* contiguous() of a compact tensor and astype() to its own type follow
 * the scope too. */
static void
test_no_op_conversions_follow_scope (void)
{
  EpDevice *fake = fake_device_new ();

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
    g_autoptr(EpTensor) c = NULL;
    g_autoptr(EpTensor) a = NULL;

    ep_test_push (fake);
    c = ep_tensor_contiguous (x, &error);
    a = ep_tensor_astype (x, EP_DTYPE_FLOAT32, &error);
    ep_test_pop (fake);

    g_assert_no_error (error);
    g_assert_true (ep_tensor_get_device (c) == fake);
    g_assert_true (ep_tensor_get_device (a) == fake);
    ep_assert_values (a, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  }

  fake_device_finish (fake);
}

static void
test_like_follows_input_or_scope (void)
{
  EpDevice *fake = fake_device_new ();

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
    g_autoptr(EpTensor) fx = ep_tensor_to_device (x, fake, &error);
    g_autoptr(EpTensor) a = ep_tensor_ones_like (fx, &error);
    g_autoptr(EpTensor) b = NULL;

    ep_test_push (fake);
    b = ep_tensor_full_like (x, 3, &error);
    ep_test_pop (fake);

    g_assert_no_error (error);
    g_assert_true (ep_tensor_get_device (a) == fake);
    g_assert_true (ep_tensor_get_device (b) == fake);
    ep_assert_values (b, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 3));
  }

  fake_device_finish (fake);
}

/* device errors */

static void
test_larger_than_device_memory (void)
{
  EpDevice *fake = fake_device_new ();

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) x = NULL;

    ep_test_push (fake);
    x = ep_zeros (EP_SHAPE (FAKE_MEMORY), EP_DTYPE_FLOAT32, &error);
    ep_test_pop (fake);

    g_assert_null (x);
    ep_assert_error (error, EP_ERROR_OUT_OF_MEMORY, "zeros", "fake:0");
  }

  fake_device_finish (fake);
}

static void
test_copy_larger_than_device_memory (void)
{
  EpDevice *fake = fake_device_new ();

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (FAKE_MEMORY), EP_DTYPE_INT32, &error);
    g_autoptr(EpTensor) f = ep_tensor_to_device (x, fake, &error);

    g_assert_null (f);
    ep_assert_error (error, EP_ERROR_OUT_OF_MEMORY, "to_device", NULL);
  }

  fake_device_finish (fake);
}

static void
test_missing_kernel (void)
{
  EpDevice *fake = fake_device_new ();

  fake_backend.kernels[EP_OP_EXP] = NULL;
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GString) log = g_string_new (NULL);
    LogRecorder rec = { { log_record, NULL, FALSE }, log };
    g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
    g_autoptr(EpTensor) fx = ep_tensor_to_device (x, fake, &error);
    g_autoptr(EpTensor) y = NULL;
    g_autoptr(EpTensor) empty = ep_zeros (EP_SHAPE (0), EP_DTYPE_FLOAT32, &error);
    g_autoptr(EpTensor) fempty = ep_tensor_to_device (empty, fake, &error);
    g_autoptr(EpTensor) z = NULL;

    g_assert_no_error (error);
    ep_recorder_push (&rec.parent);
    y = ep_tensor_exp (fx, &error);
    ep_recorder_pop (&rec.parent);

    g_assert_null (y);
    ep_assert_error (error, EP_ERROR_DEVICE, "exp", "not implemented on device fake:0");
    g_assert_cmpstr (log->str, ==, "");

    /* nothing to compute: no kernel needed */
    g_clear_error (&error);
    z = ep_tensor_exp (fempty, &error);
    g_assert_no_error (error);
    ep_assert_shape (z, EP_SHAPE (0));
  }

  fake_device_finish (fake);
}

/* Gradient rules and the scope: the constants a rule makes (zeros,
 * index ranges) go where its input lives, without opening a scope of
 * their own, so what ep_device_get_current() returns stays the user's
 * at every op of the backward pass. A recorder looks at each op. */

typedef struct
{
  EpRecorder  parent;
  EpDevice   *expected;
  guint       calls;
  guint       changed;
} ScopeWatch;

static gboolean
scope_watch_record (EpRecorder      *recorder,
                    const EpOpCall  *call,
                    GError         **error)
{
  ScopeWatch *self = (ScopeWatch *) recorder;

  self->calls++;
  if (ep_device_get_current () != self->expected)
    self->changed++;

  return TRUE;
}

typedef EpTensor *(*GatherFunc) (EpTensor *x, EpTensor *v, GError **error);

static EpTensor *
gather_take (EpTensor *x, EpTensor *v, GError **error)
{
  g_autoptr(EpTensor) indices = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (3), EP_VALUES (2, 0, 2));

  return ep_tensor_take (x, indices, 0, error);
}

static EpTensor *
gather_take_along_axis (EpTensor *x, EpTensor *v, GError **error)
{
  g_autoptr(EpTensor) indices = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (3), EP_VALUES (3, 3, 0));

  return ep_tensor_take_along_axis (x, indices, 0, error);
}

static EpTensor *
gather_sort (EpTensor *x, EpTensor *v, GError **error)
{
  return ep_tensor_sort (x, -1, error);
}

static EpTensor *
gather_topk (EpTensor *x, EpTensor *v, GError **error)
{
  g_autoptr(EpTensor) indices = NULL;
  EpTensor *values = NULL;

  if (!ep_tensor_topk (x, 2, TRUE, &values, &indices, error))
    return NULL;
  return values;
}

static EpTensor *
gather_index_update (EpTensor *x, EpTensor *v, GError **error)
{
  g_autoptr(EpTensor) indices = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (1), EP_VALUES (1));

  return ep_tensor_index_update (x, indices, v, 0, error);
}

static EpTensor *
gather_slice_step (EpTensor *x, EpTensor *v, GError **error)
{
  return ep_tensor_slice (x, (gint64[]) { 0 }, 1, (gint64[]) { 4 }, 1, (gint64[]) { 2 }, 1, error);
}

/* d/dx and d/dv of sum (f (x, v) * [1, 2, …]) at x = [3, 1, 2, 5],
 * v = [7] (zeros where f does not read v), with the current device
 * @expected all along the backward pass. */
static void
check_rule_keeps_scope (GatherFunc     f,
                        const gdouble *want_x,
                        gdouble        want_v,
                        EpDevice      *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (3, 1, 2, 5));
  g_autoptr(EpTensor) v = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (7));
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) y = NULL, range = NULL, w = NULL, yw = NULL, target = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  GObject *sources[2] = { G_OBJECT (x), G_OBJECT (v) };
  ScopeWatch watch = { .parent.record = scope_watch_record, .expected = expected };

  g_assert_true (ep_gradient_tape_start (tape, &error));
  ep_gradient_tape_watch (tape, x);
  ep_gradient_tape_watch (tape, v);
  y = f (x, v, &error);
  g_assert_no_error (error);
  range = ep_arange (1, ep_tensor_get_size (y) + 1, 1, EP_DTYPE_FLOAT32, &error);
  w = ep_tensor_reshape (range, ep_tensor_get_shape (y, NULL), ep_tensor_get_ndim (y), &error);
  yw = ep_tensor_mul (y, w, &error);
  target = ep_tensor_sum (yw, NULL, 0, FALSE, &error);
  g_assert_true (ep_gradient_tape_stop (tape, &error));
  g_assert_no_error (error);

  if (expected != NULL)
    ep_test_push (expected);
  ep_recorder_push (&watch.parent);
  grads = ep_gradient_tape_gradient (tape, &target, 1, sources, 2, NULL, 0, &error);
  ep_recorder_pop (&watch.parent);
  if (expected != NULL)
    ep_test_pop (expected);

  g_assert_no_error (error);
  g_assert_cmpuint (watch.calls, >, 0);
  g_assert_cmpuint (watch.changed, ==, 0);
  ep_assert_values (g_ptr_array_index (grads, 0), EP_DTYPE_FLOAT32, EP_SHAPE (4),
                    want_x, 4);
  ep_assert_values (g_ptr_array_index (grads, 1), EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (want_v));
}

static const struct
{
  const char *name;
  GatherFunc  f;
  gdouble     want_x[4];
  gdouble     want_v;
} rule_cases[] = {
  { "take", gather_take, { 2, 0, 4, 0 }, 0 },
  { "take_along_axis", gather_take_along_axis, { 3, 0, 0, 3 }, 0 },
  { "sort", gather_sort, { 3, 1, 2, 4 }, 0 },
  { "topk", gather_topk, { 2, 0, 0, 1 }, 0 },
  { "index_update", gather_index_update, { 1, 0, 3, 4 }, 2 },
  { "slice-step", gather_slice_step, { 1, 0, 2, 0 }, 0 },
};

static void
test_rules_keep_the_scope (void)
{
  EpDevice *fake = fake_device_new ();

  for (guint i = 0; i < G_N_ELEMENTS (rule_cases); i++)
    {
      g_test_message ("%s", rule_cases[i].name);
      check_rule_keeps_scope (rule_cases[i].f, rule_cases[i].want_x, rule_cases[i].want_v, NULL);
      check_rule_keeps_scope (rule_cases[i].f, rule_cases[i].want_x, rule_cases[i].want_v, fake);
    }

  fake_device_finish (fake);
}

/* Pushes and pops pair up: a pop names the device it closes. */

static void
test_pop_without_scope_is_an_error (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (ep_device_pop (ep_device_get_default (), &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "device", "cannot pop cpu:0: no device scope is open");
  g_assert_null (ep_device_get_current ());
}

static void
test_pop_of_another_device_is_an_error (void)
{
  EpDevice *cpu = ep_device_get_default ();
  EpDevice *fake = fake_device_new ();
  g_autoptr(GError) error = NULL;

  ep_test_push (cpu);
  ep_test_push (fake);
  g_assert_false (ep_device_pop (cpu, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "device", "cannot pop cpu:0: the innermost device scope on this thread is fake:0");
  g_assert_true (ep_device_get_current () == fake);   /* nothing closed */
  ep_test_pop (fake);
  ep_test_pop (cpu);
  g_assert_null (ep_device_get_current ());

  fake_device_finish (fake);
}

static gpointer
pop_here (gpointer data)
{
  GError *error = NULL;

  if (ep_device_pop (data, &error))
    return NULL;
  return error;
}

/* A scope belongs to the thread that opened it. */
static void
test_pop_on_another_thread_is_an_error (void)
{
  EpDevice *cpu = ep_device_get_default ();
  g_autoptr(GError) error = NULL;

  ep_test_push (cpu);
  error = g_thread_join (g_thread_new ("other", pop_here, cpu));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "device", "no device scope is open on this thread");
  g_assert_true (ep_device_get_current () == cpu);
  ep_test_pop (cpu);
}

/* A device made with g_object_new() (as a binding can: Ep.Device())
 * stands for no hardware: using it is an error, dropping it is safe. */
static void
test_half_made_device (void)
{
  EpDevice *device = g_object_new (EP_TYPE_DEVICE, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_false (ep_device_push (device, &error));
  ep_assert_error (error, EP_ERROR_DEVICE, "device", "not a device of this machine");
  g_assert_null (ep_device_get_current ());
  g_clear_error (&error);

  g_assert_false (ep_device_pop (device, &error));
  ep_assert_error (error, EP_ERROR_DEVICE, "device", "not a device of this machine");
  g_clear_error (&error);

  y = ep_tensor_to_device (x, device, &error);
  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_DEVICE, "to_device", "not a device of this machine");
  g_clear_error (&error);

  g_assert_false (ep_device_synchronize (device, &error));
  ep_assert_error (error, EP_ERROR_DEVICE, "synchronize", "not a device of this machine");

  g_assert_null (ep_device_get_name (device));
  g_assert_null (ep_device_get_kind (device));
  g_assert_false (ep_device_supports_dtype (device, EP_DTYPE_FLOAT32));
  g_assert_cmpuint (ep_device_get_memory_size (device), ==, 0);
  g_assert_finalize_object (device);
}

/* criticals */

static void
test_push_null_is_critical (void)
{
  if (g_test_subprocess ())
    {
      ep_device_push (NULL, NULL);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*ep_device_push*EP_IS_DEVICE*");
}

static void
test_pop_null_is_critical (void)
{
  if (g_test_subprocess ())
    {
      ep_device_pop (NULL, NULL);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*ep_device_pop*EP_IS_DEVICE*");
}

static void
test_get_null_is_critical (void)
{
  if (g_test_subprocess ())
    {
      ep_device_get (NULL, NULL);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*ep_device_get*name != NULL*");
}

static void
test_to_device_null_is_critical (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (1));

      ep_tensor_to_device (x, NULL, NULL);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*ep_tensor_to_device*EP_IS_DEVICE*");
}

/* The device list: a GListModel of every device, with the current
 * device of this thread's scopes, notified on push and pop here only. */
static void
count_notify (GObject    *object,
              GParamSpec *pspec,
              gpointer    user_data)
{
  (*(guint *) user_data)++;
}

static gpointer
push_elsewhere (gpointer data)
{
  EpDevice *cpu = data;
  g_autoptr(GError) error = NULL;

  g_assert_true (ep_device_push (cpu, &error));
  g_assert_true (ep_device_pop (cpu, &error));
  return NULL;
}

static void
test_device_list_model (void)
{
  EpDeviceList *list = ep_device_list_get_default ();
  g_autoptr(GPtrArray) devices = ep_list_devices ();
  g_autoptr(EpDeviceList) other = g_object_new (EP_TYPE_DEVICE_LIST, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GObject) beyond = NULL;
  EpDevice *cpu = ep_device_get_default ();
  EpDevice *last = g_ptr_array_index (devices, devices->len - 1);
  GThread *thread;
  guint notified = 0;

  g_assert_true (ep_device_list_get_default () == list);
  g_assert_true (g_list_model_get_item_type (G_LIST_MODEL (list)) == EP_TYPE_DEVICE);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, devices->len);
  for (guint i = 0; i < devices->len; i++)
    {
      g_autoptr(EpDevice) item = g_list_model_get_item (G_LIST_MODEL (list), i);
      g_autofree char *name = NULL;

      g_assert_true (item == g_ptr_array_index (devices, i));
      g_object_get (item, "name", &name, NULL);
      g_assert_cmpstr (name, ==, ep_device_get_name (item));
      g_assert_cmpuint (ep_device_list_find (list, item), ==, i);
    }
  beyond = g_list_model_get_item (G_LIST_MODEL (list), devices->len);
  g_assert_null (beyond);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (other)), ==, devices->len);

  g_assert_true (ep_device_list_get_current_device (list) == cpu);
  g_signal_connect (list, "notify::current-device", G_CALLBACK (count_notify), &notified);

  /* a scope on another thread changes nothing here */
  thread = g_thread_new ("push-elsewhere", push_elsewhere, last);
  g_thread_join (thread);
  g_assert_cmpuint (notified, ==, 0);

  g_assert_true (ep_device_push (last, &error));
  g_assert_cmpuint (notified, ==, last != cpu ? 1 : 0);
  g_assert_true (ep_device_list_get_current_device (list) == last);
  g_assert_true (ep_device_list_get_current_device (other) == last);
  /* a nested scope of the same device changes nothing */
  g_assert_true (ep_device_push (last, &error));
  g_assert_true (ep_device_pop (last, &error));
  g_assert_cmpuint (notified, ==, last != cpu ? 1 : 0);
  g_assert_true (ep_device_pop (last, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notified, ==, last != cpu ? 2 : 0);
  g_assert_true (ep_device_list_get_current_device (list) == cpu);
  g_signal_handlers_disconnect_by_data (list, &notified);
}

/* bytes-in-use and n-tensors: the memory counters as properties */
static void
test_device_memory_properties (void)
{
  EpDevice *cpu = ep_device_get_default ();
  guint64 bytes0, tensors0, bytes1, tensors1;
  g_autoptr(EpTensor) t = NULL;
  gint64 shape[1] = { 1000 };

  g_object_get (cpu, "bytes-in-use", &bytes0, "n-tensors", &tensors0, NULL);
  g_assert_cmpuint (bytes0, ==, ep_device_get_bytes_in_use (cpu));
  t = ep_zeros (shape, 1, EP_DTYPE_FLOAT64, NULL);
  g_assert_nonnull (t);
  g_object_get (cpu, "bytes-in-use", &bytes1, "n-tensors", &tensors1, NULL);
  g_assert_cmpuint (bytes1, >=, bytes0 + 8000);
  g_assert_cmpuint (tensors1, ==, tensors0 + 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/device/list", test_list_devices);
  g_test_add_func ("/device/cpu-properties", test_cpu_properties);
  g_test_add_func ("/device/get/by-kind", test_get_by_kind);
  g_test_add_func ("/device/get/unknown", test_get_unknown);
  g_test_add_func ("/device/scope/nesting", test_scope_nesting);
  g_test_add_func ("/device/scope/per-thread", test_scope_is_per_thread);
  g_test_add_func ("/device/scope/freed-with-thread", test_scope_freed_with_its_thread);
  g_test_add_func ("/device/scope/creation", test_creation_follows_scope);
  g_test_add_func ("/device/scope/pop-without-scope", test_pop_without_scope_is_an_error);
  g_test_add_func ("/device/scope/pop-another-device", test_pop_of_another_device_is_an_error);
  g_test_add_func ("/device/scope/pop-another-thread", test_pop_on_another_thread_is_an_error);
  g_test_add_func ("/device/half-made", test_half_made_device);
  g_test_add_func ("/device/copy/to-and-back", test_to_device_and_back);
  g_test_add_func ("/device/copy/same-device", test_to_device_same_device_shares);
  g_test_add_func ("/device/copy/view", test_to_device_of_view);
  g_test_add_func ("/device/copy/read-back", test_read_back_from_device);
  g_test_add_func ("/device/place/stay-on-input-device", test_ops_stay_on_input_device);
  g_test_add_func ("/device/place/mixed-inputs", test_mixed_inputs_follow_first);
  g_test_add_func ("/device/place/weak-literal", test_weak_literal_does_not_place);
  g_test_add_func ("/device/place/scope-moves-inputs", test_scope_moves_inputs);
  g_test_add_func ("/device/place/views-follow-scope", test_views_follow_scope);
  g_test_add_func ("/device/place/views-in-scope-share", test_views_in_scope_share);
  g_test_add_func ("/device/place/no-op-conversions-follow-scope", test_no_op_conversions_follow_scope);
  g_test_add_func ("/device/place/like", test_like_follows_input_or_scope);
  g_test_add_func ("/device/place/rules-keep-the-scope", test_rules_keep_the_scope);
  g_test_add_func ("/device/error/larger-than-memory", test_larger_than_device_memory);
  g_test_add_func ("/device/error/copy-larger-than-memory", test_copy_larger_than_device_memory);
  g_test_add_func ("/device/error/missing-kernel", test_missing_kernel);
  g_test_add_func ("/device/list/model", test_device_list_model);
  g_test_add_func ("/device/list/memory-properties", test_device_memory_properties);
  g_test_add_func ("/device/critical/push-null", test_push_null_is_critical);
  g_test_add_func ("/device/critical/pop-null", test_pop_null_is_critical);
  g_test_add_func ("/device/critical/get-null", test_get_null_is_critical);
  g_test_add_func ("/device/critical/to-device-null", test_to_device_null_is_critical);

  return g_test_run ();
}
