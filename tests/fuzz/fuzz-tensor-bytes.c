/* fuzz-tensor-bytes.c: tensors from bytes, of any dtype and shape
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The input: a dtype, a shape (any extents, any number of dimensions up
 * to one past the limit), a byte saying how the data come, then the
 * data. The tensor is made the way bindings make one (from GBytes, from
 * a copy, from doubles) and then read back and printed, the paths a
 * user's data take first.
 */

#include <eager-glib/eager-glib.h>

#include "ep-fuzz.h"

/* Data for @nbytes, made from what is left of the input: repeated, and
 * bounded so that a huge shape is left to fail as it should. */
#define MAX_FITTED_BYTES (8 * 1024)

static GBytes *
take_data (EpFuzzInput *in,
           gboolean     fit,
           gsize        nbytes)
{
  gsize have = ep_fuzz_remaining (in);
  guint8 *data;

  if (!fit || nbytes > MAX_FITTED_BYTES || have == 0)
    return g_bytes_new (in->data + in->pos, have);

  data = g_malloc (MAX (nbytes, 1));
  for (gsize i = 0; i < nbytes; i++)
    data[i] = in->data[in->pos + i % have];
  return g_bytes_new_take (data, nbytes);
}

static gsize
expected_nbytes (EpDType       dtype,
                 const gint64 *shape,
                 guint         ndim)
{
  guint64 n = ep_dtype_get_itemsize (dtype);

  for (guint d = 0; d < ndim; d++)
    {
      if (shape[d] < 0 || (shape[d] > 0 && n > G_MAXSIZE / (guint64) shape[d]))
        return G_MAXSIZE;
      n *= (guint64) shape[d];
    }
  return n;
}

static EpTensor *
make_tensor (EpFuzzInput *in,
             GError     **error)
{
  EpDType dtype = ep_fuzz_dtype (in);
  guint ndim = ep_fuzz_below (in, EP_MAX_DIMS + 2);
  gint64 shape[EP_MAX_DIMS + 1];
  guint8 how;
  g_autoptr(GBytes) data = NULL;

  for (guint d = 0; d < ndim; d++)
    shape[d] = ep_fuzz_int (in);
  how = ep_fuzz_u8 (in);
  data = take_data (in, how & 1, expected_nbytes (dtype, shape, ndim));

  switch ((how >> 1) % 3)
    {
    case 0:
      return ep_tensor_new_from_bytes (data, dtype, shape, ndim, error);
    case 1:
      return ep_tensor_new_from_data (g_bytes_get_data (data, NULL), g_bytes_get_size (data),
                                      dtype, shape, ndim, error);
    default:
      {
        /* the doubles the data make, whole ones only */
        gsize n = g_bytes_get_size (data) / sizeof (gdouble);
        g_autofree gdouble *values = g_memdup2 (g_bytes_get_data (data, NULL), n * sizeof (gdouble));

        return ep_tensor_new_from_doubles (values, n, shape, ndim, dtype, error);
      }
    }
}

/* A view of @tensor, or a reference to it, as the second byte of the
 * input says: printing walks views as they are */
static EpTensor *
make_view (EpTensor *tensor,
           guint8    how)
{
  g_autoptr(GError) error = NULL;
  EpTensor *view = NULL;

  switch (how % 4)
    {
    case 1:
      view = ep_tensor_transpose (tensor, NULL, 0, &error);
      break;
    case 2:
      view = ep_tensor_flip (tensor, NULL, 0, &error);
      break;
    case 3:
      {
        gint64 shape[EP_MAX_DIMS] = { 2 };
        guint ndim = ep_tensor_get_ndim (tensor);
        const gint64 *own = ep_tensor_get_shape (tensor, NULL);

        if (ndim < EP_MAX_DIMS)
          {
            memcpy (shape + 1, own, ndim * sizeof (gint64));
            view = ep_tensor_broadcast_to (tensor, shape, ndim + 1, &error);
          }
        break;
      }
    default:
      break;
    }

  return view != NULL ? view : g_object_ref (tensor);
}

static void
read_back (EpTensor *tensor)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = ep_tensor_to_bytes (tensor, &error);
  g_autofree char *text = NULL;
  g_autofree char *repr = NULL;

  g_assert (bytes != NULL || error != NULL);
  g_clear_error (&error);
  text = ep_tensor_to_string (tensor, &error);
  g_assert (text != NULL || error != NULL);
  g_clear_error (&error);
  repr = ep_tensor_to_repr (tensor, &error);
  g_assert (repr != NULL || error != NULL);
  g_clear_error (&error);
  if (ep_tensor_get_size (tensor) == 1)
    {
      ep_tensor_item_double (tensor, &error);
      g_clear_error (&error);
      ep_tensor_item_int64 (tensor, &error);
      g_clear_error (&error);
    }
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) tensor = NULL;
  g_autoptr(EpTensor) view = NULL;
  EpFuzzInput in;
  guint8 view_kind;

  ep_fuzz_init_once ();
  ep_fuzz_input_init (&in, data, size);
  view_kind = ep_fuzz_u8 (&in);
  tensor = make_tensor (&in, &error);
  if (tensor == NULL)
    {
      g_assert (error != NULL && error->domain == EP_ERROR);
      return 0;
    }
  g_assert_no_error (error);

  view = make_view (tensor, view_kind);
  read_back (view);
  return 0;
}
