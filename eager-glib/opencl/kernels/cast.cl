/* cast.cl: astype and contiguous
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/cast.c: floats to integers truncate toward zero,
 * what does not fit gives the type's minimum; integers wrap when
 * narrowed; anything to bool tests for non-zero; floats to uint8 go
 * through int32 and keep the low 8 bits (int8: 8, int16: 16), as the
 * CPU does.
 */

/* One kernel per source type (cast_from_f32 …); @to, an EpDType, picks
 * the target type once, outside the loop. */
#define TO(DST, dtype, CONVERT)                                             \
  case dtype:                                                               \
    for (long i = get_global_id (0); i < g.n; i += get_global_size (0))     \
      {                                                                     \
        SRC_T x = in[ep_map_offset (&g, 1, i)];                             \
        ((__global DST *) out)[i] = CONVERT;                                \
      }                                                                     \
    break;

#define AS(T) ((T) x)
#define TO_BOOL ((uchar) (x != 0))
#define WRAP_TO_I32 as_int ((uint) (ulong) x)
#define WRAP_TO_U8 ((uchar) (ulong) x)
#define WRAP_TO_I8 as_char ((uchar) (ulong) x)
#define WRAP_TO_I16 as_short ((ushort) (ulong) x)
/* the narrow integer types as integers: uint8, int8, int16 */
#define TO_NARROW(F32_TO_INT)                                               \
  TO (uchar, EP_UINT8, (uchar) (uint) F32_TO_INT)                           \
  TO (char, EP_INT8, as_char ((uchar) (uint) F32_TO_INT))                   \
  TO (short, EP_INT16, as_short ((ushort) (uint) F32_TO_INT))
#define WRAP_TO_NARROW                                                      \
  TO (uchar, EP_UINT8, WRAP_TO_U8)                                          \
  TO (char, EP_INT8, WRAP_TO_I8)                                            \
  TO (short, EP_INT16, WRAP_TO_I16)

#define CAST_FROM(name, CASES)                                              \
__kernel void                                                               \
name (__global uchar *out,                                                  \
      __global const SRC_T *in,                                             \
      const EpMap g,                                                        \
      int to)                                                               \
{                                                                           \
  switch (to)                                                               \
    {                                                                       \
    CASES                                                                   \
    }                                                                       \
}

#define SRC_T float
CAST_FROM (cast_from_f32,
  TO (float, EP_FLOAT32, x)
  FP64 (TO (double, EP_FLOAT64, AS (double)))
  TO (int, EP_INT32, EP_F_TO_I32 (x))
  TO (long, EP_INT64, EP_F_TO_I64 (x))
  TO (uchar, EP_BOOL, TO_BOOL)
  TO_NARROW (EP_F_TO_I32 (x)))
#undef SRC_T

#ifdef EP_FP64
#define SRC_T double
CAST_FROM (cast_from_f64,
  TO (float, EP_FLOAT32, AS (float))
  TO (double, EP_FLOAT64, x)
  TO (int, EP_INT32, EP_D_TO_I32 (x))
  TO (long, EP_INT64, EP_D_TO_I64 (x))
  TO (uchar, EP_BOOL, TO_BOOL)
  TO_NARROW (EP_D_TO_I32 (x)))
#undef SRC_T
#endif

#define SRC_T int
CAST_FROM (cast_from_i32,
  TO (float, EP_FLOAT32, AS (float))
  FP64 (TO (double, EP_FLOAT64, AS (double)))
  TO (int, EP_INT32, x)
  TO (long, EP_INT64, AS (long))
  TO (uchar, EP_BOOL, TO_BOOL)
  WRAP_TO_NARROW)
#undef SRC_T

#define SRC_T long
CAST_FROM (cast_from_i64,
  TO (float, EP_FLOAT32, AS (float))
  FP64 (TO (double, EP_FLOAT64, AS (double)))
  TO (int, EP_INT32, WRAP_TO_I32)
  TO (long, EP_INT64, x)
  TO (uchar, EP_BOOL, TO_BOOL)
  WRAP_TO_NARROW)
#undef SRC_T

#define SRC_T uchar
CAST_FROM (cast_from_b,
  TO (float, EP_FLOAT32, AS (float))
  FP64 (TO (double, EP_FLOAT64, AS (double)))
  TO (int, EP_INT32, AS (int))
  TO (long, EP_INT64, AS (long))
  TO (uchar, EP_BOOL, x)
  WRAP_TO_NARROW)
#undef SRC_T

/* uint8, int8 and int16: every value fits the wider types; to bool
 * tests for non-zero; between them they wrap */
#define NARROW_CAST_FROM(name)                                              \
  CAST_FROM (name,                                                          \
    TO (float, EP_FLOAT32, AS (float))                                      \
    FP64 (TO (double, EP_FLOAT64, AS (double)))                             \
    TO (int, EP_INT32, AS (int))                                            \
    TO (long, EP_INT64, AS (long))                                          \
    TO (uchar, EP_BOOL, TO_BOOL)                                            \
    WRAP_TO_NARROW)

#define SRC_T uchar
NARROW_CAST_FROM (cast_from_u8)
#undef SRC_T

#define SRC_T char
NARROW_CAST_FROM (cast_from_i8)
#undef SRC_T

#define SRC_T short
NARROW_CAST_FROM (cast_from_i16)
#undef SRC_T

#define COPY(name, T)                                                       \
__kernel void                                                               \
name (__global T *out,                                                      \
      __global const T *in,                                                 \
      const EpMap g)                                                        \
{                                                                           \
  for (long i = get_global_id (0); i < g.n; i += get_global_size (0))       \
    out[i] = in[ep_map_offset (&g, 1, i)];                                  \
}

/* contiguous (and index_update's copy of self): by item size */
COPY (copy_1, uchar)
COPY (copy_2, ushort)
COPY (copy_4, uint)
COPY (copy_8, ulong)
