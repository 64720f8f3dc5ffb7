/* core/error.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-error.h"
#include "ep-quark-private.h"

/**
 * ep_error_quark:
 *
 * Returns the quark of the %EP_ERROR domain.
 *
 * Returns: the error quark
 */
EP_DEFINE_QUARK (ep-error, ep_error)
