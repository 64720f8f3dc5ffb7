/* nn/pool-layer.c: what the pooling layers share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>

#include "ep-error.h"
#include "ep-pool-layer-private.h"
#include "ep-tensor-private.h"

gboolean
ep_pool_sizes_check (const EpPoolSizes  *sizes,
                     const char         *layer,
                     GError            **error)
{
  for (guint i = 0; i < 2; i++)
    if (sizes->kernel[i] <= 0 || sizes->strides[i] < 0 || sizes->dilation[i] <= 0
        || sizes->padding[i] < 0 || sizes->padding[i] > sizes->kernel[i] / 2)
      {
        /* TRANSLATORS: the first %s is the layer's name (MaxPool2d) */
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("%s: the kernel and dilation must be positive, strides not negative and padding at most half the kernel (kernel %" PRId64 "×%" PRId64 ", strides %" PRId64 "×%" PRId64 ", padding %" PRId64 "×%" PRId64 ", dilation %" PRId64 "×%" PRId64 ")"),
                     layer, sizes->kernel[0], sizes->kernel[1], sizes->strides[0], sizes->strides[1],
                     sizes->padding[0], sizes->padding[1], sizes->dilation[0], sizes->dilation[1]);
        return FALSE;
      }
  return TRUE;
}

void
ep_pool_sizes_strides (const EpPoolSizes *sizes,
                       gint64             strides[2])
{
  for (guint i = 0; i < 2; i++)
    strides[i] = sizes->strides[i] != 0 ? sizes->strides[i] : sizes->kernel[i];
}

gboolean
ep_pool_check_input (EpTensor      *input,
                     EpDataFormat   data_format,
                     const char    *layer,
                     GError       **error)
{
  const EpLayout *layout = &input->layout;
  g_autofree char *shape = NULL;

  if (layout->ndim == 4)
    return TRUE;

  shape = ep_shape_to_string (layout->shape, layout->ndim);
  /* TRANSLATORS: the first %s is the layer's name (MaxPool2d), the last
   * the input's shape */
  g_set_error (error, EP_ERROR, EP_ERROR_SHAPE, _("%s: takes images of shape %s, not %s"),
               layer, data_format == EP_DATA_FORMAT_NHWC ? "(N, H, W, C)" : "(N, C, H, W)", shape);
  return FALSE;
}
