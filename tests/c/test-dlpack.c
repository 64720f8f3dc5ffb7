/* test-dlpack.c: DLPack export and import (core/dlpack.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <eager-glib/eager-glib.h>

#include <string.h>

#include "ep-dlpack-private.h"
#include "ep-tensor-private.h"
#include "ep-test-util.h"

/* Export */

static const struct
{
  EpDType dtype;
  guint8  code;
  guint8  bits;
} dtypes[] = {
  { EP_DTYPE_FLOAT32, kDLFloat, 32 },
  { EP_DTYPE_FLOAT64, kDLFloat, 64 },
  { EP_DTYPE_INT32, kDLInt, 32 },
  { EP_DTYPE_INT64, kDLInt, 64 },
  { EP_DTYPE_BOOL, kDLBool, 8 },
  { EP_DTYPE_UINT8, kDLUInt, 8 },
  { EP_DTYPE_INT8, kDLInt, 8 },
  { EP_DTYPE_INT16, kDLInt, 16 },
};

/* Each dtype exports with its DLPack type, the tensor's address, shape and
 * strides, and imports back as the same tensor on the same memory. */
static void
test_round_trip_dtypes (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (dtypes); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) t = ep_test_iota (EP_DIMS (2, 3), 2, dtypes[i].dtype);
      g_autoptr(EpTensor) back = NULL;
      DLManagedTensor *managed = ep_tensor_to_dlpack (t, &error);
      const DLTensor *dl;

      g_assert_no_error (error);
      dl = &managed->dl_tensor;
      g_assert_cmpint (dl->device.device_type, ==, kDLCPU);
      g_assert_cmpint (dl->device.device_id, ==, 0);
      g_assert_cmpint (dl->dtype.code, ==, dtypes[i].code);
      g_assert_cmpint (dl->dtype.bits, ==, dtypes[i].bits);
      g_assert_cmpint (dl->dtype.lanes, ==, 1);
      g_assert_cmpint (dl->ndim, ==, 2);
      g_assert_cmpint (dl->shape[0], ==, 2);
      g_assert_cmpint (dl->shape[1], ==, 3);
      g_assert_cmpint (dl->strides[0], ==, 3);
      g_assert_cmpint (dl->strides[1], ==, 1);
      g_assert_cmpuint (dl->byte_offset, ==, 0);
      g_assert_true (dl->data == ep_tensor_host_data (t));

      back = ep_tensor_new_from_dlpack (managed, &error);
      g_assert_no_error (error);
      g_assert_cmpint (ep_tensor_get_dtype (back), ==, dtypes[i].dtype);
      g_assert_true (ep_tensor_host_data (back) == ep_tensor_host_data (t));
      if (dtypes[i].dtype == EP_DTYPE_BOOL)
        ep_assert_values (back, dtypes[i].dtype, EP_SHAPE (2, 3), EP_VALUES (0, 1, 1, 1, 1, 1));
      else
        ep_assert_values (back, dtypes[i].dtype, EP_SHAPE (2, 3), EP_VALUES (0, 1, 2, 3, 4, 5));
    }
}

/* The export holds the buffer: releasing and finalizing the tensor leave
 * the data readable until the deleter runs. */
static void
test_export_outlives_the_tensor (void)
{
  g_autoptr(GError) error = NULL;
  EpTensor *t = ep_test_iota (EP_DIMS (1000), 1, EP_DTYPE_FLOAT64);
  DLManagedTensor *managed = ep_tensor_to_dlpack (t, &error);
  const double *data;

  g_assert_no_error (error);
  ep_tensor_release (t);
  g_assert_finalize_object (t);

  data = managed->dl_tensor.data;
  for (int i = 0; i < 1000; i++)
    g_assert_cmpfloat (data[i], ==, i);
  managed->deleter (managed);
}

/* A transposed slice exports its strides and the address of its first
 * element (byte offset 0, as PyTorch needs). */
static void
test_export_view (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_test_iota (EP_DIMS (4, 5), 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) sliced = ep_tensor_slice (t, EP_DIMS (1, 2), 2, EP_DIMS (3, 5), 2, NULL, 0, &error);
  g_autoptr(EpTensor) view = NULL;
  DLManagedTensor *managed;
  const float *data;

  g_assert_no_error (error);
  view = ep_tensor_transpose (sliced, NULL, 0, &error);
  g_assert_no_error (error);
  managed = ep_tensor_to_dlpack (view, &error);
  g_assert_no_error (error);

  g_assert_cmpint (managed->dl_tensor.shape[0], ==, 3);
  g_assert_cmpint (managed->dl_tensor.shape[1], ==, 2);
  g_assert_cmpint (managed->dl_tensor.strides[0], ==, 1);
  g_assert_cmpint (managed->dl_tensor.strides[1], ==, 5);
  data = managed->dl_tensor.data;
  g_assert_cmpfloat (data[0], ==, 7);          /* t[1, 2] */
  g_assert_cmpfloat (data[1 * 1 + 1 * 5], ==, 13);   /* t[2, 3] */
  managed->deleter (managed);
}

/* Negative strides (flip) are copied to C order: consumers refuse them. */
static void
test_export_negative_strides_copies (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_test_iota (EP_DIMS (4), 1, EP_DTYPE_INT32);
  g_autoptr(EpTensor) flipped = ep_tensor_flip (t, NULL, 0, &error);
  DLManagedTensor *managed;
  const gint32 *data;

  g_assert_no_error (error);
  managed = ep_tensor_to_dlpack (flipped, &error);
  g_assert_no_error (error);
  g_assert_cmpint (managed->dl_tensor.strides[0], ==, 1);
  data = managed->dl_tensor.data;
  g_assert_cmpint (data[0], ==, 3);
  g_assert_cmpint (data[3], ==, 0);
  g_assert_true (managed->dl_tensor.data != ep_tensor_host_data (t));
  managed->deleter (managed);
}

static void
test_export_scalar_and_empty (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) scalar = ep_tensor_new_scalar (2.5, EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) empty = ep_zeros (EP_DIMS (0, 3), 2, EP_DTYPE_FLOAT32, &error);
  DLManagedTensor *managed = ep_tensor_to_dlpack (scalar, &error);

  g_assert_no_error (error);
  g_assert_cmpint (managed->dl_tensor.ndim, ==, 0);
  g_assert_cmpfloat (*(const float *) managed->dl_tensor.data, ==, 2.5);
  managed->deleter (managed);

  managed = ep_tensor_to_dlpack (empty, &error);
  g_assert_no_error (error);
  g_assert_cmpint (managed->dl_tensor.shape[0], ==, 0);
  managed->deleter (managed);
}

static void
test_export_released_fails (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_test_iota (EP_DIMS (3), 1, EP_DTYPE_FLOAT32);

  ep_tensor_release (t);
  g_assert_null (ep_tensor_to_dlpack (t, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
}

static void
test_export_opencl_fails (void)
{
  g_autoptr(GError) error = NULL;
  EpDevice *opencl = ep_device_get ("opencl:0", NULL);
  g_autoptr(EpTensor) t = NULL;
  g_autoptr(EpTensor) moved = NULL;

  if (opencl == NULL)
    {
      g_test_skip ("no OpenCL device");
      return;
    }
  t = ep_test_iota (EP_DIMS (3), 1, EP_DTYPE_FLOAT32);
  moved = ep_tensor_to_device (t, opencl, &error);
  g_assert_no_error (error);
  g_assert_null (ep_tensor_to_dlpack (moved, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_DEVICE);
  g_assert_nonnull (strstr (error->message, "to_dlpack:"));
  g_assert_nonnull (strstr (error->message, ".to(\"cpu\")"));
}

/* Import */

typedef struct
{
  DLManagedTensor managed;
  int64_t         shape[EP_MAX_DIMS + 1];
  int64_t         strides[EP_MAX_DIMS + 1];
  guint8         *memory;
  int            deleted;
} Producer;

static void
producer_delete (DLManagedTensor *managed)
{
  Producer *self = managed->manager_ctx;

  self->deleted++;
}

/* A producer of @n_bytes of memory holding 0, 1, 2, … as @dtype (C
 * order), described as @ndim/@shape/@strides from @byte_offset */
static void
producer_init (Producer       *self,
               const DLDataType dtype,
               gsize           n_bytes,
               int32_t         ndim,
               const int64_t  *shape,
               const int64_t  *strides,
               guint64         byte_offset)
{
  memset (self, 0, sizeof *self);
  self->memory = g_malloc0 (n_bytes);
  if (dtype.code == kDLFloat && dtype.bits == 64)
    for (gsize i = 0; i < n_bytes / 8; i++)
      ((double *) self->memory)[i] = (double) i;
  for (int i = 0; i < ndim && i <= EP_MAX_DIMS; i++)
    {
      self->shape[i] = shape[i];
      if (strides != NULL)
        self->strides[i] = strides[i];
    }
  self->managed.dl_tensor = (DLTensor) {
    .data = self->memory,
    .device = { kDLCPU, 0 },
    .ndim = ndim,
    .dtype = dtype,
    .shape = self->shape,
    .strides = strides != NULL ? self->strides : NULL,
    .byte_offset = byte_offset,
  };
  self->managed.manager_ctx = self;
  self->managed.deleter = producer_delete;
}

static const DLDataType f64 = { kDLFloat, 64, 1 };

/* The memory is wrapped, not copied; the deleter runs once, when the last
 * tensor on it (a view here) is gone. */
static void
test_import_wraps_and_deletes_once (void)
{
  g_autoptr(GError) error = NULL;
  Producer p;
  EpTensor *t, *view;

  producer_init (&p, f64, 6 * 8, 2, (int64_t[]) { 2, 3 }, NULL, 0);
  t = ep_tensor_new_from_dlpack (&p.managed, &error);
  g_assert_no_error (error);
  g_assert_true (ep_tensor_host_data (t) == p.memory);
  ep_assert_values (t, EP_DTYPE_FLOAT64, EP_SHAPE (2, 3), EP_VALUES (0, 1, 2, 3, 4, 5));

  view = ep_tensor_transpose (t, NULL, 0, &error);
  g_assert_no_error (error);
  ep_tensor_release (t);
  g_assert_finalize_object (t);
  g_assert_cmpint (p.deleted, ==, 0);
  ep_assert_values (view, EP_DTYPE_FLOAT64, EP_SHAPE (3, 2), EP_VALUES (0, 3, 1, 4, 2, 5));
  g_assert_finalize_object (view);
  g_assert_cmpint (p.deleted, ==, 1);
  g_free (p.memory);
}

/* Strides and a byte offset: element [i, j] at offset + i*s0 + j*s1. */
static void
test_import_strides_and_offset (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;
  Producer p;

  /* memory 0..19; a (3, 2) view from element 2 with strides (5, 2) */
  producer_init (&p, f64, 20 * 8, 2, (int64_t[]) { 3, 2 }, (int64_t[]) { 5, 2 }, 2 * 8);
  t = ep_tensor_new_from_dlpack (&p.managed, &error);
  g_assert_no_error (error);
  g_assert_false (ep_tensor_is_contiguous (t));
  ep_assert_values (t, EP_DTYPE_FLOAT64, EP_SHAPE (3, 2), EP_VALUES (2, 4, 7, 9, 12, 14));
  g_clear_object (&t);
  g_assert_cmpint (p.deleted, ==, 1);
  g_free (p.memory);
}

/* Negative and zero strides are taken as they are. */
static void
test_import_negative_and_zero_strides (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;
  g_autoptr(EpTensor) sum = NULL;
  Producer p;

  /* from element 4 backwards, each row the same: [[4, 3, 2, 1, 0]] * 2 */
  producer_init (&p, f64, 5 * 8, 2, (int64_t[]) { 2, 5 }, (int64_t[]) { 0, -1 }, 4 * 8);
  t = ep_tensor_new_from_dlpack (&p.managed, &error);
  g_assert_no_error (error);
  ep_assert_values (t, EP_DTYPE_FLOAT64, EP_SHAPE (2, 5), EP_VALUES (4, 3, 2, 1, 0, 4, 3, 2, 1, 0));
  sum = ep_tensor_sum (t, NULL, 0, FALSE, &error);
  g_assert_no_error (error);
  ep_assert_values (sum, EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (20));
  g_clear_object (&t);
  g_assert_cmpint (p.deleted, ==, 1);
  g_free (p.memory);
}

/* Data not aligned to its element size is copied (and the deleter runs at
 * once). */
static void
test_import_unaligned_copies (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;
  Producer p;
  double values[3] = { 1.5, -2.0, 8.25 };

  producer_init (&p, f64, 3 * 8 + 1, 1, (int64_t[]) { 3 }, NULL, 1);
  memcpy (p.memory + 1, values, sizeof values);
  t = ep_tensor_new_from_dlpack (&p.managed, &error);
  g_assert_no_error (error);
  g_assert_cmpint (p.deleted, ==, 1);
  g_assert_true ((guint8 *) ep_tensor_host_data (t) != p.memory + 1);
  g_free (p.memory);
  ep_assert_values (t, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (1.5, -2.0, 8.25));
}

static void
test_import_empty (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;
  Producer p;

  producer_init (&p, f64, 8, 2, (int64_t[]) { 0, 4 }, NULL, 0);
  p.managed.dl_tensor.data = NULL;
  t = ep_tensor_new_from_dlpack (&p.managed, &error);
  g_assert_no_error (error);
  ep_assert_shape (t, EP_SHAPE (0, 4));
  g_assert_cmpint (p.deleted, ==, 1);
  g_free (p.memory);
}

/* Each bad tensor is an error with its code, and the deleter is not
 * called: the caller keeps the tensor. */
static void
assert_import_error (Producer   *p,
                     gint        code,
                     const char *fragment)
{
  g_autoptr(GError) error = NULL;

  g_assert_null (ep_tensor_new_from_dlpack (&p->managed, &error));
  g_assert_error (error, EP_ERROR, code);
  g_assert_true (g_str_has_prefix (error->message, "new_from_dlpack: "));
  if (fragment != NULL && strstr (error->message, fragment) == NULL)
    g_error ("'%s' does not say '%s'", error->message, fragment);
  g_assert_cmpint (p->deleted, ==, 0);
  g_free (p->memory);
}

static void
test_import_errors (void)
{
  g_autoptr(GError) error = NULL;
  Producer p;

  g_assert_null (ep_tensor_new_from_dlpack (NULL, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);

  producer_init (&p, (DLDataType) { kDLUInt, 16, 1 }, 8, 1, (int64_t[]) { 4 }, NULL, 0);
  assert_import_error (&p, EP_ERROR_DTYPE, "uint16");
  producer_init (&p, (DLDataType) { kDLComplex, 64, 1 }, 8, 1, (int64_t[]) { 1 }, NULL, 0);
  assert_import_error (&p, EP_ERROR_DTYPE, "complex64");
  producer_init (&p, (DLDataType) { 77, 32, 1 }, 8, 1, (int64_t[]) { 1 }, NULL, 0);
  assert_import_error (&p, EP_ERROR_DTYPE, "type code 77");
  producer_init (&p, (DLDataType) { kDLFloat, 32, 4 }, 16, 1, (int64_t[]) { 1 }, NULL, 0);
  assert_import_error (&p, EP_ERROR_DTYPE, "4 lanes");

  producer_init (&p, f64, 8, 1, (int64_t[]) { 1 }, NULL, 0);
  p.managed.dl_tensor.device.device_type = kDLCUDA;
  assert_import_error (&p, EP_ERROR_DEVICE, "CPU");

  producer_init (&p, f64, 8, 1, (int64_t[]) { 1 }, NULL, 0);
  p.managed.dl_tensor.ndim = -1;
  assert_import_error (&p, EP_ERROR_SHAPE, NULL);
  producer_init (&p, f64, 8, EP_MAX_DIMS + 1,
                 (int64_t[EP_MAX_DIMS + 1]) { 1, 1, 1, 1, 1, 1, 1, 1, 1 }, NULL, 0);
  assert_import_error (&p, EP_ERROR_SHAPE, "dimensions");
  producer_init (&p, f64, 8, 2, (int64_t[]) { 2, -3 }, NULL, 0);
  assert_import_error (&p, EP_ERROR_SHAPE, "negative");

  producer_init (&p, f64, 8, 1, (int64_t[]) { 1 }, NULL, 0);
  p.managed.dl_tensor.shape = NULL;
  assert_import_error (&p, EP_ERROR_INVALID_ARGUMENT, "no shape");
  producer_init (&p, f64, 8, 1, (int64_t[]) { 2 }, NULL, 0);
  g_free (g_steal_pointer (&p.memory));
  p.managed.dl_tensor.data = NULL;
  assert_import_error (&p, EP_ERROR_INVALID_ARGUMENT, "NULL");

  /* strides and offsets beyond the address space */
  producer_init (&p, f64, 8, 2, (int64_t[]) { 3, 3 }, (int64_t[]) { G_MAXINT64 / 2, 1 }, 0);
  assert_import_error (&p, EP_ERROR_INVALID_ARGUMENT, "address space");
  producer_init (&p, f64, 8, 1, (int64_t[]) { 2 }, (int64_t[]) { G_MININT64 / 4 }, 0);
  assert_import_error (&p, EP_ERROR_INVALID_ARGUMENT, "address space");
  producer_init (&p, f64, 8, 1, (int64_t[]) { 1 }, NULL, G_MAXUINT64 - 2);
  assert_import_error (&p, EP_ERROR_INVALID_ARGUMENT, "address space");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/dlpack/round-trip-dtypes", test_round_trip_dtypes);
  g_test_add_func ("/dlpack/export/outlives-the-tensor", test_export_outlives_the_tensor);
  g_test_add_func ("/dlpack/export/view", test_export_view);
  g_test_add_func ("/dlpack/export/negative-strides", test_export_negative_strides_copies);
  g_test_add_func ("/dlpack/export/scalar-and-empty", test_export_scalar_and_empty);
  g_test_add_func ("/dlpack/export/released", test_export_released_fails);
  g_test_add_func ("/dlpack/export/opencl", test_export_opencl_fails);
  g_test_add_func ("/dlpack/import/wraps-and-deletes-once", test_import_wraps_and_deletes_once);
  g_test_add_func ("/dlpack/import/strides-and-offset", test_import_strides_and_offset);
  g_test_add_func ("/dlpack/import/negative-and-zero-strides", test_import_negative_and_zero_strides);
  g_test_add_func ("/dlpack/import/unaligned", test_import_unaligned_copies);
  g_test_add_func ("/dlpack/import/empty", test_import_empty);
  g_test_add_func ("/dlpack/import/errors", test_import_errors);

  return g_test_run ();
}
