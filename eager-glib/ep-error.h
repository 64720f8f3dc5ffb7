/* ep-error.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <glib.h>

#include "ep-version.h"

G_BEGIN_DECLS

/**
 * EP_ERROR:
 *
 * The error domain of eager-glib.
 */
#define EP_ERROR (ep_error_quark ())

/**
 * EpError:
 * @EP_ERROR_SHAPE: shapes do not fit together (broadcasting, matmul, reshape)
 * @EP_ERROR_DTYPE: an operation does not take this element type
 * @EP_ERROR_AXIS: an axis is out of range or repeated
 * @EP_ERROR_INDEX: an index is out of range
 * @EP_ERROR_DEVICE: a device is missing, failed, or cannot run an operation
 * @EP_ERROR_OUT_OF_MEMORY: a buffer could not be allocated
 * @EP_ERROR_GRADIENT: a gradient cannot be computed
 * @EP_ERROR_INVALID_ARGUMENT: any other invalid argument
 * @EP_ERROR_IO: a file could not be read or written (missing, no
 *   permission, disk full …); the message says which and why
 * @EP_ERROR_FORMAT: a file was read but is not what it should be:
 *   truncated, inconsistent, or written in a newer version of its format
 * @EP_ERROR_COMMUNICATION: processes could not work together: another
 *   process failed or did not join a collective within the
 *   communicator's timeout ([class@Communicator]); the communicator is
 *   failed from then on
 *
 * Error codes in the %EP_ERROR domain.
 */
typedef enum {
  EP_ERROR_SHAPE,
  EP_ERROR_DTYPE,
  EP_ERROR_AXIS,
  EP_ERROR_INDEX,
  EP_ERROR_DEVICE,
  EP_ERROR_OUT_OF_MEMORY,
  EP_ERROR_GRADIENT,
  EP_ERROR_INVALID_ARGUMENT,
  EP_ERROR_IO,
  EP_ERROR_FORMAT,
  EP_ERROR_COMMUNICATION,
} EpError;

EP_EXPORT
GQuark ep_error_quark (void);

G_END_DECLS
