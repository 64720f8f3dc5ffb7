/* creation.cl: arange (full is a buffer fill)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/ep-cpu-creation.c and NumPy's fill: the host converts the
 * first two values; the rest are first + i * (second - first) in the
 * element type.
 */

#define ARANGE(name, T, EXPR)                                               \
__kernel void                                                               \
name (__global T *out,                                                      \
      long n,                                                               \
      T first,                                                              \
      T second,                                                             \
      T delta)                                                              \
{                                                                           \
  for (long i = get_global_id (0); i < n; i += get_global_size (0))         \
    out[i] = i == 0 ? first : i == 1 ? second : (EXPR);                     \
}

ARANGE (arange_f32, float, first + (float) i * delta)
#ifdef EP_FP64
ARANGE (arange_f64, double, first + (double) i * delta)
#endif
ARANGE (arange_i32, int, EP_WRAP32 ((uint) first + (uint) i * (uint) delta))
ARANGE (arange_i64, long, EP_WRAP64 ((ulong) first + (ulong) i * (ulong) delta))
