/* cast.cl: astype and contiguous
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/cast.c: floats to integers truncate toward zero,
 * what does not fit gives the type's minimum; integers wrap when
 * narrowed; anything to bool tests for non-zero; floats to uint8 go
 * through int32 and keep the low 8 bits (int8: 8, int16: 16), as the
 * CPU does.
 *
 * float16 is stored as half and moved by vload_half and vstore_half_rte
 * (rounding to nearest even), which OpenCL has without cl_khr_fp16: no
 * kernel computes in half (dispatch/widen.c). bfloat16 is stored as
 * ushort, the upper half of a float32, rounded to nearest even as on
 * the CPU (ep-half-private.h). float64 to float16 rounds once, directly;
 * other types reach the half types through float.
 */

/* vstore_half_rte(), but NaN as the CPU writes it (quiet, the payload's
 * top bits: ep_float_to_half()), which devices differ on */
static void
ep_store_half_f (float x, long i, __global half *out)
{
  uint u = as_uint (x);

  if (isnan (x))
    ((__global ushort *) out)[i] = (ushort) (((u >> 16) & 0x8000u) | 0x7e00u | ((u >> 13) & 0x3ffu));
  else
    vstore_half_rte (x, i, out);
}

#ifdef EP_FP64
static void
ep_store_half_d (double x, long i, __global half *out)
{
  if (isnan (x))
    ep_store_half_f ((float) x, i, out);
  else
    vstore_half_rte (x, i, out);
}
#endif

/* ep_float_to_bfloat16() */
static ushort
ep_f32_to_bf16 (float x)
{
  uint u = as_uint (x);

  if ((u & 0x7fffffffu) > 0x7f800000u)
    return (ushort) ((u >> 16) | 0x40u);
  return (ushort) ((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* One kernel per source type (cast_from_f32 …); @to, an EpDType, picks
 * the target type once, outside the loop. */
#define TO(DST, dtype, CONVERT)                                             \
  case dtype:                                                               \
    for (long i = get_global_id (0); i < g.n; i += get_global_size (0))     \
      {                                                                     \
        SRC_T x = LOAD (ep_map_offset (&g, 1, i));                          \
        ((__global DST *) out)[i] = CONVERT;                                \
      }                                                                     \
    break;

/* to float16 and bfloat16, from @WIDE (x as float, or double), stored
 * by @STORE (ep_store_half_f or _d) */
#define TO_HALVES(WIDE, STORE)                                                 \
  case EP_FLOAT16:                                                          \
    for (long i = get_global_id (0); i < g.n; i += get_global_size (0))     \
      {                                                                     \
        SRC_T x = LOAD (ep_map_offset (&g, 1, i));                          \
        STORE (WIDE, i, (__global half *) out);                             \
      }                                                                     \
    break;                                                                  \
  TO (ushort, EP_BFLOAT16, ep_f32_to_bf16 ((float) x))

#define LOAD(k) in[k]

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
      __global const IN_T *in,                                              \
      const EpMap g,                                                        \
      int to)                                                               \
{                                                                           \
  switch (to)                                                               \
    {                                                                       \
    CASES                                                                   \
    }                                                                       \
}

#define IN_T SRC_T
#define SRC_T float
CAST_FROM (cast_from_f32,
  TO (float, EP_FLOAT32, x)
  FP64 (TO (double, EP_FLOAT64, AS (double)))
  TO (int, EP_INT32, EP_F_TO_I32 (x))
  TO (long, EP_INT64, EP_F_TO_I64 (x))
  TO (uchar, EP_BOOL, TO_BOOL)
  TO_NARROW (EP_F_TO_I32 (x))
  TO_HALVES ((float) x, ep_store_half_f))
#undef SRC_T
#undef IN_T

#ifdef EP_FP64
#define IN_T SRC_T
#define SRC_T double
CAST_FROM (cast_from_f64,
  TO (float, EP_FLOAT32, AS (float))
  TO (double, EP_FLOAT64, x)
  TO (int, EP_INT32, EP_D_TO_I32 (x))
  TO (long, EP_INT64, EP_D_TO_I64 (x))
  TO (uchar, EP_BOOL, TO_BOOL)
  TO_NARROW (EP_D_TO_I32 (x))
  TO_HALVES (x, ep_store_half_d))
#undef SRC_T
#undef IN_T
#endif

#define IN_T SRC_T
#define SRC_T int
CAST_FROM (cast_from_i32,
  TO (float, EP_FLOAT32, AS (float))
  FP64 (TO (double, EP_FLOAT64, AS (double)))
  TO (int, EP_INT32, x)
  TO (long, EP_INT64, AS (long))
  TO (uchar, EP_BOOL, TO_BOOL)
  WRAP_TO_NARROW
  TO_HALVES ((float) x, ep_store_half_f))
#undef SRC_T
#undef IN_T

#define IN_T SRC_T
#define SRC_T long
CAST_FROM (cast_from_i64,
  TO (float, EP_FLOAT32, AS (float))
  FP64 (TO (double, EP_FLOAT64, AS (double)))
  TO (int, EP_INT32, WRAP_TO_I32)
  TO (long, EP_INT64, x)
  TO (uchar, EP_BOOL, TO_BOOL)
  WRAP_TO_NARROW
  TO_HALVES ((float) x, ep_store_half_f))
#undef SRC_T
#undef IN_T

#define IN_T SRC_T
#define SRC_T uchar
CAST_FROM (cast_from_b,
  TO (float, EP_FLOAT32, AS (float))
  FP64 (TO (double, EP_FLOAT64, AS (double)))
  TO (int, EP_INT32, AS (int))
  TO (long, EP_INT64, AS (long))
  TO (uchar, EP_BOOL, x)
  WRAP_TO_NARROW
  TO_HALVES ((float) x, ep_store_half_f))
#undef SRC_T
#undef IN_T

/* uint8, int8 and int16: every value fits the wider types; to bool
 * tests for non-zero; between them they wrap */
#define NARROW_CAST_FROM(name)                                              \
  CAST_FROM (name,                                                          \
    TO (float, EP_FLOAT32, AS (float))                                      \
    FP64 (TO (double, EP_FLOAT64, AS (double)))                             \
    TO (int, EP_INT32, AS (int))                                            \
    TO (long, EP_INT64, AS (long))                                          \
    TO (uchar, EP_BOOL, TO_BOOL)                                            \
    WRAP_TO_NARROW                                                          \
    TO_HALVES ((float) x, ep_store_half_f))

#define IN_T SRC_T
#define SRC_T uchar
NARROW_CAST_FROM (cast_from_u8)
#undef SRC_T

#define SRC_T char
NARROW_CAST_FROM (cast_from_i8)
#undef SRC_T

#define SRC_T short
NARROW_CAST_FROM (cast_from_i16)
#undef SRC_T
#undef IN_T

/* from float16 and bfloat16: through float, exactly */
#define FROM_HALF_CASES(SELF)                                               \
  TO (float, EP_FLOAT32, x)                                                 \
  FP64 (TO (double, EP_FLOAT64, AS (double)))                               \
  TO (int, EP_INT32, EP_F_TO_I32 (x))                                       \
  TO (long, EP_INT64, EP_F_TO_I64 (x))                                      \
  TO (uchar, EP_BOOL, TO_BOOL)                                              \
  TO_NARROW (EP_F_TO_I32 (x))                                               \
  SELF

#undef LOAD
#define LOAD(k) vload_half (k, in)
#define IN_T half
#define SRC_T float
CAST_FROM (cast_from_f16,
  FROM_HALF_CASES (TO (ushort, EP_FLOAT16, as_ushort (((__global const ushort *) in)[ep_map_offset (&g, 1, i)]))
                   TO (ushort, EP_BFLOAT16, ep_f32_to_bf16 (x))))
#undef SRC_T
#undef IN_T
#undef LOAD

#define LOAD(k) as_float ((uint) in[k] << 16)
#define IN_T ushort
#define SRC_T float
CAST_FROM (cast_from_bf16,
  FROM_HALF_CASES (TO (ushort, EP_BFLOAT16, in[ep_map_offset (&g, 1, i)])
                   case EP_FLOAT16:
                     for (long i = get_global_id (0); i < g.n; i += get_global_size (0))
                       ep_store_half_f (LOAD (ep_map_offset (&g, 1, i)), i, (__global half *) out);
                     break;))
#undef SRC_T
#undef IN_T
#undef LOAD
#define LOAD(k) in[k]

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
