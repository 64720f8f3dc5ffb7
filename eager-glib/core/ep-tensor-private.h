/* ep-tensor-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <string.h>

#include "ep-tensor.h"
#include "ep-storage-private.h"

G_BEGIN_DECLS

/*
 * EpLayout:
 *
 * What a tensor is, apart from its data: element type, shape, strides
 * (in elements) and offset (in elements) into its storage. Op rules
 * compute layouts; views share the storage of their source.
 */
typedef struct
{
  EpDType dtype;
  guint   ndim;
  gint64  shape[EP_MAX_DIMS];
  gint64  strides[EP_MAX_DIMS];
  gint64  offset;
} EpLayout;

struct _EpTensor
{
  GObject    parent_instance;

  EpLayout   layout;
  gboolean   weak;
  gint       pins;      /* atomic: see ep_tensor_pin() in core/tensor.c */
  EpStorage *storage;
  /* the slot of the tidy scope that will release it, or NULL
   * (core/memory.c; atomic) */
  EpTensor **tidy_slot;
};

EpTensor  *ep_tensor_new_with_storage (const EpLayout *layout,
                                       EpStorage      *storage);
EpTensor  *ep_tensor_new_alias        (EpTensor       *tensor);
EpTensor  *ep_tensor_new_empty        (EpDevice       *device,
                                       const EpLayout *layout,
                                       GError        **error);
EpTensor  *ep_tensor_new_from_host    (EpDevice       *device,
                                       const EpLayout *layout,
                                       gconstpointer   data,
                                       const char     *op_name,
                                       GError        **error);

gint64     ep_layout_get_size         (const EpLayout *layout);
EpStorage *ep_layout_alloc            (EpLayout       *layout,
                                       EpDevice       *device,
                                       GError        **error);
gboolean   ep_layout_compute_nbytes   (const EpLayout *layout,
                                       gsize          *nbytes);
void       ep_layout_set_contiguous   (EpLayout       *layout);
gboolean   ep_layout_is_contiguous    (const EpLayout *layout);
gboolean   ep_layout_init             (EpLayout       *layout,
                                       EpDType         dtype,
                                       const gint64   *shape,
                                       guint           ndim,
                                       const char     *op_name,
                                       GError        **error);

gboolean   ep_tensor_check_alive      (EpTensor       *self,
                                       const char     *op_name,
                                       GError        **error);
gboolean   ep_tensor_pin              (EpTensor       *self,
                                       const char     *op_name,
                                       GError        **error);
void       ep_tensor_unpin            (EpTensor       *self);
gboolean   ep_tensors_pin             (EpTensor *const *tensors,
                                       guint           n_tensors,
                                       const char     *op_name,
                                       GError        **error);
void       ep_tensors_unpin           (EpTensor *const *tensors,
                                       guint           n_tensors);

char      *ep_shape_to_string         (const gint64   *shape,
                                       guint           ndim);

/* For g_return_val_if_fail at the public entry points that take a dtype:
 * an integer from a binding that is no EpDType must not reach a kernel
 * table. */
/* Whether @a and @b have the same shape (dtypes aside) */
static inline gboolean
ep_layout_same_shape (const EpLayout *a,
                      const EpLayout *b)
{
  return a->ndim == b->ndim && memcmp (a->shape, b->shape, a->ndim * sizeof (gint64)) == 0;
}

/* The defined EpDType values */
static inline gboolean
ep_dtype_is_valid (EpDType dtype)
{
  switch (dtype)
    {
    case EP_DTYPE_FLOAT32:
    case EP_DTYPE_FLOAT64:
    case EP_DTYPE_INT32:
    case EP_DTYPE_INT64:
    case EP_DTYPE_BOOL:
    case EP_DTYPE_UINT8:
    case EP_DTYPE_INT8:
    case EP_DTYPE_INT16:
    case EP_DTYPE_FLOAT16:
    case EP_DTYPE_BFLOAT16:
      return TRUE;
    }
  return FALSE;
}

/* The narrow integer types (uint8, int8, int16): the ops that take them
 * carry EP_OP_FLAG_UINT8 */
static inline gboolean
ep_dtype_is_narrow_int (EpDType dtype)
{
  return dtype == EP_DTYPE_UINT8 || dtype == EP_DTYPE_INT8 || dtype == EP_DTYPE_INT16;
}

/* Whether @dtype is float16 or bfloat16: stored in 16 bits, computed in
 * float32 (dispatch widens the kernels of the ops that have none) */
static inline gboolean
ep_dtype_is_half (EpDType dtype)
{
  return dtype == EP_DTYPE_FLOAT16 || dtype == EP_DTYPE_BFLOAT16;
}

gboolean   ep_dtype_from_name         (const char     *name,
                                       EpDType        *dtype);

/* ep_dtype_get_itemsize() for a dtype known to be valid (a layout's):
 * inline, for the paths every op takes */
static inline gsize
ep_dtype_itemsize (EpDType dtype)
{
  static const guint8 sizes[] = {
    [EP_DTYPE_FLOAT32] = 4, [EP_DTYPE_FLOAT64] = 8, [EP_DTYPE_INT32] = 4,
    [EP_DTYPE_INT64] = 8, [EP_DTYPE_BOOL] = 1, [EP_DTYPE_UINT8] = 1,
    [EP_DTYPE_INT8] = 1, [EP_DTYPE_INT16] = 2,
    [EP_DTYPE_FLOAT16] = 2, [EP_DTYPE_BFLOAT16] = 2,
  };

  return sizes[dtype];
}

static inline gpointer
ep_tensor_host_data (EpTensor *self)
{
  return (guint8 *) self->storage->data
         + self->layout.offset * (gint64) ep_dtype_itemsize (self->layout.dtype);
}

G_END_DECLS
