/* ep-quark-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

/* G_DEFINE_QUARK without its data race: the first calls of two threads
 * may both look the quark up, and both store the same value, atomically
 * (tests/c/test-threads.c under ThreadSanitizer). */
#define EP_DEFINE_QUARK(QN, q_n)                                          \
GQuark                                                                    \
q_n##_quark (void)                                                        \
{                                                                         \
  static gint cached;                                                     \
  GQuark quark = (GQuark) g_atomic_int_get (&cached);                     \
                                                                          \
  if (G_UNLIKELY (quark == 0))                                            \
    {                                                                     \
      quark = g_quark_from_static_string (#QN);                           \
      g_atomic_int_set (&cached, (gint) quark);                           \
    }                                                                     \
                                                                          \
  return quark;                                                           \
}
