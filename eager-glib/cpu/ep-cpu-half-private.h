/* ep-cpu-half-private.h: float16 and bfloat16 runs to and from float32
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-cpu-private.h"

G_BEGIN_DECLS

/* Contiguous runs of @n elements; float16 through F16C and bfloat16
 * through AVX2 where the processor has them (checked once), else one
 * element at a time (ep-half-private.h): the results are the same. */
void  ep_cpu_half_to_float   (EpDType        dtype,
                              const guint16 *in,
                              gfloat        *out,
                              gsize          n);
void  ep_cpu_float_to_half   (EpDType        dtype,
                              const gfloat  *in,
                              guint16       *out,
                              gsize          n);

/* EpDeviceBackend.run_half: elementwise ops (the loops of fused groups)
 * on float16 or bfloat16 through their float32 loops, run by run */
gboolean  ep_cpu_run_half    (EpOpCall      *call,
                              gboolean      *ran,
                              GError       **error);

G_END_DECLS
