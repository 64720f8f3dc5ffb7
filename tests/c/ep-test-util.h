/* ep-test-util.h: building tensors from arrays and checking them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Shared by the C tests, which link the internal library: the strided
 * constructor reaches private API to make views no public op makes yet
 * (gaps and an offset). The op tests (tests/c/ops/) share what two
 * families need; their gradient checks are in ep-test-gradient.h.
 *
 *   g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
 *   ep_assert_values (y, EP_DTYPE_INT32, EP_SHAPE (2, 2), EP_VALUES (2, 4, 6, 8));
 *   ep_assert_error (error, EP_ERROR_SHAPE, "add", "(2, 2) and (3,)");
 */

#pragma once

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include <eager-glib/eager-glib.h>

#include "ep-scalar-private.h"
#include "ep-tensor-private.h"

G_BEGIN_DECLS

/* A shape or a list of values as (pointer, count); EP_SCALAR is the
 * shape of a 0-d tensor. */
#define EP_SHAPE(...) \
  ((const gint64[]) { __VA_ARGS__ }), ((guint) (sizeof ((const gint64[]) { __VA_ARGS__ }) / sizeof (gint64)))
#define EP_SCALAR NULL, 0u
#define EP_VALUES(...) \
  ((const gdouble[]) { __VA_ARGS__ }), (sizeof ((const gdouble[]) { __VA_ARGS__ }) / sizeof (gdouble))
#define EP_AXES(...) \
  ((const gint[]) { __VA_ARGS__ }), ((guint) (sizeof ((const gint[]) { __VA_ARGS__ }) / sizeof (gint)))

/* Bare arrays, for calls that take their length separately:
 * ep_tensor_tile (x, EP_DIMS (2, 2), 2, &error) */
#define EP_DIMS(...) ((const gint64[]) { __VA_ARGS__ })
#define EP_DOUBLES(...) ((const gdouble[]) { __VA_ARGS__ })

/* 2^40: two such extents make a shape larger than any memory */
#define EP_TERA (G_GINT64_CONSTANT (1) << 40)

typedef EpTensor *(*EpTestBinaryFunc) (EpTensor *, EpTensor *, GError **);

/* every dtype */
static const EpDType ep_test_dtypes[] = {
  EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64, EP_DTYPE_INT32, EP_DTYPE_INT64, EP_DTYPE_BOOL,
};

#define EP_TEST_FAIL(...)                                                   \
  G_STMT_START {                                                            \
    g_autofree char *ep_test_msg_ = g_strdup_printf (__VA_ARGS__);          \
    g_assertion_message (G_LOG_DOMAIN, file, line, func, ep_test_msg_);     \
  } G_STMT_END

/* The results of a staged function's callback: @tensor (taken), or none
 * when it is NULL (the callback's error is then set) */
static inline GPtrArray *
ep_test_one (EpTensor *tensor)
{
  GPtrArray *result = g_ptr_array_new_with_free_func (g_object_unref);

  if (tensor != NULL)
    g_ptr_array_add (result, tensor);
  return result;
}

/* Contiguous, on the current device; aborts the test on error. */
static inline EpTensor *
ep_test_new (EpDType        dtype,
             const gint64  *shape,
             guint          ndim,
             const gdouble *values,
             gsize          n_values)
{
  g_autoptr(GError) error = NULL;
  EpTensor *t = ep_tensor_new_from_doubles (values, n_values, shape, ndim, dtype, &error);

  g_assert_no_error (error);
  g_assert_nonnull (t);
  return t;
}

/* A 1-D tensor of @n values */
static inline EpTensor *
ep_test_vector (const gdouble *values,
                gsize          n,
                EpDType        dtype)
{
  gint64 shape = n;

  return ep_test_new (dtype, &shape, 1, values, n);
}

/* A (@rows, @cols) matrix of @values */
static inline EpTensor *
ep_test_matrix (const gdouble *values,
                gint64         rows,
                gint64         cols,
                EpDType        dtype)
{
  const gint64 shape[2] = { rows, cols };

  return ep_test_new (dtype, shape, 2, values, rows * cols);
}

/* 0, 1, 2, … in @shape */
static inline EpTensor *
ep_test_iota (const gint64 *shape,
              guint         ndim,
              EpDType       dtype)
{
  g_autoptr(GError) error = NULL;
  gint64 size = 1;
  g_autoptr(EpTensor) flat = NULL;
  EpTensor *t;

  for (guint d = 0; d < ndim; d++)
    size *= shape[d];
  flat = ep_arange (0, size, 1, dtype == EP_DTYPE_BOOL ? EP_DTYPE_INT64 : dtype, &error);
  g_assert_no_error (error);
  if (dtype == EP_DTYPE_BOOL)
    {
      EpTensor *b = ep_tensor_astype (flat, dtype, &error);

      g_object_unref (flat);
      flat = b;
    }
  t = ep_tensor_reshape (flat, shape, ndim, &error);
  g_assert_no_error (error);
  return t;
}

/* The same elements, but every other element of a larger buffer and at
 * offset 1: not contiguous, with garbage (NaN or 99) in the gaps. */
static inline EpTensor *
ep_test_new_strided (EpDType        dtype,
                     const gint64  *shape,
                     guint          ndim,
                     const gdouble *values,
                     gsize          n_values)
{
  g_autofree gdouble *spread = g_new (gdouble, 2 * n_values + 1);
  gint64 flat_shape[1] = { 2 * (gint64) n_values + 1 };
  g_autoptr(EpTensor) flat = NULL;
  EpLayout layout;
  EpTensor *t;
  gint64 stride = 2;

  for (gsize i = 0; i < 2 * n_values + 1; i++)
    spread[i] = ep_dtype_is_floating (dtype) ? NAN : 99;
  for (gsize i = 0; i < n_values; i++)
    spread[1 + 2 * i] = values[i];
  flat = ep_test_new (dtype, flat_shape, 1, spread, 2 * n_values + 1);

  memset (&layout, 0, sizeof layout);
  layout.dtype = dtype;
  layout.ndim = ndim;
  for (guint d = ndim; d-- > 0;)
    {
      layout.shape[d] = shape[d];
      layout.strides[d] = stride;
      stride *= MAX (shape[d], 1);
    }
  layout.offset = 1;
  g_assert_cmpint (ep_layout_get_size (&layout), ==, (gint64) n_values);

  t = ep_tensor_new_with_storage (&layout, flat->storage);
  return t;
}

static inline void
ep_test_assert_shape_ (const char   *file,
                       int           line,
                       const char   *func,
                       EpTensor     *t,
                       const gint64 *shape,
                       guint         ndim)
{
  guint have_ndim;
  const gint64 *have;

  if (t == NULL)
    {
      EP_TEST_FAIL ("tensor is NULL");
      return;
    }
  have = ep_tensor_get_shape (t, &have_ndim);
  if (have_ndim != ndim || (ndim > 0 && memcmp (have, shape, ndim * sizeof (gint64)) != 0))
    {
      g_autofree char *a = ep_shape_to_string (have, have_ndim);
      g_autofree char *b = ep_shape_to_string (shape, ndim);

      EP_TEST_FAIL ("shape %s, expected %s", a, b);
    }
}

#define ep_assert_shape(t, ...) \
  ep_test_assert_shape_ (__FILE__, __LINE__, G_STRFUNC, (t), __VA_ARGS__)

/* The elements in C order as doubles (g_free the result). */
static inline gdouble *
ep_test_get_values (EpTensor *t,
                    gsize    *n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = ep_tensor_to_bytes (t, &error);
  EpDType dtype = ep_tensor_get_dtype (t);
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  gsize size;
  const guint8 *data;
  gdouble *values;

  g_assert_no_error (error);
  data = g_bytes_get_data (bytes, &size);
  g_assert_cmpuint (size, ==, itemsize * (gsize) ep_tensor_get_size (t));
  *n = size / itemsize;
  values = g_new0 (gdouble, MAX (*n, 1));
  for (gsize i = 0; i < *n; i++)
    {
      const guint8 *p = data + i * itemsize;

      switch (dtype)
        {
        case EP_DTYPE_FLOAT32: { gfloat v; memcpy (&v, p, 4); values[i] = v; } break;
        case EP_DTYPE_FLOAT64: memcpy (&values[i], p, 8); break;
        case EP_DTYPE_INT32: { gint32 v; memcpy (&v, p, 4); values[i] = v; } break;
        case EP_DTYPE_INT64: { gint64 v; memcpy (&v, p, 8); values[i] = (gdouble) v; } break;
        case EP_DTYPE_BOOL:
        case EP_DTYPE_UINT8: values[i] = *p; break;
        case EP_DTYPE_INT8: values[i] = (gint8) *p; break;
        case EP_DTYPE_INT16: { gint16 v; memcpy (&v, p, 2); values[i] = v; } break;
        case EP_DTYPE_FLOAT16:
        case EP_DTYPE_BFLOAT16: values[i] = ep_scalar_load (p, dtype); break;
        }
    }

  return values;
}

static inline gboolean
ep_test_close (gdouble  have,
               gdouble  want,
               EpDType  dtype)
{
  gdouble tol;

  if (isnan (want))
    return isnan (have);
  if (isinf (want) || !ep_dtype_is_floating (dtype))
    return have == want;
  tol = dtype == EP_DTYPE_FLOAT32 ? 1e-6 : 1e-12;
  return fabs (have - want) <= tol * MAX (1.0, fabs (want));
}

/* Checks dtype, shape and every element (floats to about 1e-6 relative
 * for float32, 1e-12 for float64; NaN matches NaN). */
static inline void
ep_test_assert_values_ (const char    *file,
                        int            line,
                        const char    *func,
                        EpTensor      *t,
                        EpDType        dtype,
                        const gint64  *shape,
                        guint          ndim,
                        const gdouble *values,
                        gsize          n_values)
{
  g_autofree gdouble *have = NULL;
  gsize n;

  if (t == NULL)
    {
      EP_TEST_FAIL ("tensor is NULL");
      return;
    }
  if (ep_tensor_get_dtype (t) != dtype)
    {
      EP_TEST_FAIL ("dtype %s, expected %s",
                    ep_dtype_get_name (ep_tensor_get_dtype (t)), ep_dtype_get_name (dtype));
      return;
    }
  ep_test_assert_shape_ (file, line, func, t, shape, ndim);
  have = ep_test_get_values (t, &n);
  if (n != n_values)
    {
      EP_TEST_FAIL ("%" G_GSIZE_FORMAT " values, expected %" G_GSIZE_FORMAT, n, n_values);
      return;
    }
  for (gsize i = 0; i < n; i++)
    if (!ep_test_close (have[i], values[i], dtype))
      {
        EP_TEST_FAIL ("element %" G_GSIZE_FORMAT " is %.17g, expected %.17g", i, have[i], values[i]);
        return;
      }
}

#define ep_assert_values(t, dtype, ...) \
  ep_test_assert_values_ (__FILE__, __LINE__, G_STRFUNC, (t), (dtype), __VA_ARGS__)

/* @t (any type) equals @expected elementwise, to 1e-6 relative; NaN
 * equals NaN */
static inline void
ep_test_assert_close (EpTensor      *t,
                      const gdouble *expected,
                      gsize          n)
{
  gsize size;
  g_autofree gdouble *got = ep_test_get_values (t, &size);

  g_assert_cmpint (size, ==, n);
  for (gsize i = 0; i < n; i++)
    if (isinf (expected[i]))
      g_assert_cmpfloat (got[i], ==, expected[i]);
    else if (!(isnan (expected[i]) && isnan (got[i])))
      g_assert_cmpfloat_with_epsilon (got[i], expected[i], 1e-6 * MAX (1.0, fabs (expected[i])));
}

/* Checks @t's shape and its elements (as doubles, in C order, to 1e-9),
 * whatever its dtype. */
static inline void
ep_test_assert_tensor (EpTensor      *t,
                       const gint64  *shape,
                       guint          ndim,
                       const gdouble *values)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) as_double = NULL;
  g_autoptr(GBytes) bytes = NULL;
  const gdouble *data;
  gsize n;
  guint t_ndim;
  const gint64 *t_shape;

  g_assert_nonnull (t);
  t_shape = ep_tensor_get_shape (t, &t_ndim);
  g_assert_cmpuint (t_ndim, ==, ndim);
  for (guint d = 0; d < ndim; d++)
    g_assert_cmpint (t_shape[d], ==, shape[d]);

  as_double = ep_tensor_astype (t, EP_DTYPE_FLOAT64, &error);
  g_assert_no_error (error);
  bytes = ep_tensor_to_bytes (as_double, &error);
  g_assert_no_error (error);
  data = g_bytes_get_data (bytes, &n);
  g_assert_cmpuint (n, ==, ep_tensor_get_size (t) * sizeof (gdouble));
  for (gsize i = 0; i < n / sizeof (gdouble); i++)
    g_assert_cmpfloat_with_epsilon (data[i], values[i], 1e-9);
}

/* Checks that @t is a 1-dimensional int64 tensor of exactly @expected
 * (no trip through doubles, which hold integers up to 2^53 only). */
#define ep_assert_int64_values(t, ...) \
  G_STMT_START { \
    const gint64 expected_[] = { __VA_ARGS__ }; \
    ep_test_assert_int64_values ((t), expected_, G_N_ELEMENTS (expected_)); \
  } G_STMT_END

static inline void
ep_test_assert_int64_values (EpTensor     *t,
                             const gint64 *expected,
                             gsize         n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  const gint64 *data;
  gsize size;

  g_assert_nonnull (t);
  g_assert_cmpint (ep_tensor_get_dtype (t), ==, EP_DTYPE_INT64);
  bytes = ep_tensor_to_bytes (t, &error);
  g_assert_no_error (error);
  data = g_bytes_get_data (bytes, &size);
  g_assert_cmpuint (size, ==, n * sizeof (gint64));
  for (gsize i = 0; i < n; i++)
    g_assert_cmpint (data[i], ==, expected[i]);
}

/* Checks the error's domain and code, that its message starts with
 * "@op: ", and (unless NULL) that it contains @fragment. */
static inline void
ep_test_assert_error_ (const char *file,
                       int         line,
                       const char *func,
                       GError     *error,
                       gint        code,
                       const char *op,
                       const char *fragment)
{
  g_autofree char *prefix = g_strconcat (op, ": ", NULL);

  if (error == NULL)
    {
      EP_TEST_FAIL ("no error, expected code %d from %s", code, op);
      return;
    }
  if (error->domain != EP_ERROR || error->code != code)
    {
      EP_TEST_FAIL ("error %s:%d (%s), expected EP_ERROR:%d",
                    g_quark_to_string (error->domain), error->code, error->message, code);
      return;
    }
  if (!g_str_has_prefix (error->message, prefix))
    EP_TEST_FAIL ("message “%s” does not start with “%s”", error->message, prefix);
  else if (fragment != NULL && strstr (error->message, fragment) == NULL)
    EP_TEST_FAIL ("message “%s” does not contain “%s”", error->message, fragment);
}

#define ep_assert_error(error, code, op, fragment) \
  ep_test_assert_error_ (__FILE__, __LINE__, G_STRFUNC, (error), (code), (op), (fragment))

/* A failed call: no @result, and @error has @code and a message that
 * starts with @op. */
static inline void
ep_test_assert_failed (EpTensor   *result,
                       GError     *error,
                       gint        code,
                       const char *op)
{
  g_assert_null (result);
  g_assert_error (error, EP_ERROR, code);
  g_assert_true (g_str_has_prefix (error->message, op));
}

/* Opens and closes a device scope; an error fails the test. */
static inline void
ep_test_push (EpDevice *device)
{
  g_autoptr(GError) error = NULL;
  gboolean ok = ep_device_push (device, &error);

  g_assert_no_error (error);
  g_assert_true (ok);
}

static inline void
ep_test_pop (EpDevice *device)
{
  g_autoptr(GError) error = NULL;
  gboolean ok = ep_device_pop (device, &error);

  g_assert_no_error (error);
  g_assert_true (ok);
}

/* A new empty folder for a test's files (g_free it after
 * ep_test_remove_dir ()) */
static inline char *
ep_test_make_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("ep-test-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

/* Removes @dir and the files in it */
static inline void
ep_test_remove_dir (const char *dir)
{
  g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

G_END_DECLS
