/* common.cl: what every eager-glib OpenCL program starts with
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element types: float32 float, float64 double (only with EP_FP64, set
 * when the device has cl_khr_fp64), int32 int, int64 long, bool uchar
 * (0 or 1), uint8 uchar, int8 char, int16 short. Kernel names end in
 * the type: _f32 _f64 _i32 _i64 _b _u8 _i8 _i16.
 *
 * Results must match the CPU's: no contraction of a * b + c into a fused
 * multiply-add, and integer arithmetic wraps (done in unsigned types).
 */

#pragma OPENCL FP_CONTRACT OFF
#ifdef EP_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* FP64 (…): code only for devices with cl_khr_fp64 (float64 kernels) */
#ifdef EP_FP64
#define FP64(x) x
#else
#define FP64(x)
#endif

/* U8 (…): the narrow integer types' kernels (uint8, int8, int16). Not
 * in fused programs: they stay out of fusion, and uint8's element
 * functions (ep_fn_<op>_uchar) would clash with bool's. */
#ifdef EP_FUSED
#define U8(x)
#else
#define U8(x) x
#endif

/* EpDType values */
#define EP_FLOAT32 0
#define EP_FLOAT64 1
#define EP_INT32 2
#define EP_INT64 3
#define EP_BOOL 4
#define EP_UINT8 5
#define EP_INT8 6
#define EP_INT16 7
#define EP_FLOAT16 8
#define EP_BFLOAT16 9

#define EP_MAX_DIMS 8
#define EP_MAX_OPERANDS 4

/* A fused program (opencl/fused.c) defines EP_MAP_OPERANDS: its map has
 * an operand per input of the group, and the output. */
#ifndef EP_MAP_OPERANDS
#define EP_MAP_OPERANDS EP_MAX_OPERANDS
#endif

#define EP_STRIDED 0
#define EP_CONTIGUOUS 1
#define EP_SCALAR 2

/* EpCLMap in ep-opencl-private.h: operand 0 is the contiguous output. */
typedef struct
{
  long n;
  long ndim;
  long shape[EP_MAX_DIMS];
  long offsets[EP_MAP_OPERANDS];
  long kinds[EP_MAP_OPERANDS];
  long strides[EP_MAP_OPERANDS][EP_MAX_DIMS];
} EpMap;

/* EpCLReduce in ep-opencl-private.h */
typedef struct
{
  long m;
  long k;
  long offset;
  long out_ndim;
  long red_ndim;
  long out_shape[EP_MAX_DIMS];
  long out_strides[EP_MAX_DIMS];
  long red_shape[EP_MAX_DIMS];
  long red_strides[EP_MAX_DIMS];
} EpReduce;

/* EpCLRows in ep-opencl-private.h: the rows along one axis of up to
 * three operands whose other dimensions agree. */
typedef struct
{
  long rows;
  long length;
  long outer_ndim;
  long outer_shape[EP_MAX_DIMS];
  long offsets[3];
  long axis_strides[3];
  long outer_strides[3][EP_MAX_DIMS];
} EpRows;

/* Where operand k's element for output element i lives. */
inline long
ep_map_offset (const EpMap *g, int k, long i)
{
  long offset = g->offsets[k];

  if (g->kinds[k] == EP_CONTIGUOUS)
    return offset + i;
  if (g->kinds[k] == EP_SCALAR)
    return offset;

  for (int d = (int) g->ndim - 1; d > 0; d--)
    {
      long extent = g->shape[d];

      offset += (i % extent) * g->strides[k][d];
      i /= extent;
    }

  return g->ndim > 0 ? offset + i * g->strides[k][0] : offset;
}

/* The element index i of a row-major walk over (shape, strides). */
inline long
ep_unravel (long i, long ndim, const long *shape, const long *strides)
{
  long offset = 0;

  for (int d = (int) ndim - 1; d > 0; d--)
    {
      offset += (i % shape[d]) * strides[d];
      i /= shape[d];
    }

  return ndim > 0 ? offset + i * strides[0] : 0;
}

/* A check that depends on data (an index out of range, a singular
 * matrix) raises a flag, which the host reads after the launch
 * (ep_cl_flag_read): it keeps the lowest position at fault, clamped
 * below INT_MAX (EP_CL_FLAG_LAST, "there or later"). */
inline void
ep_flag_raise (__global int *flag, long position)
{
  atomic_min (flag, (int) min (position, (long) INT_MAX - 1));
}

/* Marks a flag without saying where (position 0): a plain store, for
 * hot loops, where an atomic would keep PoCL from vectorizing the
 * work-items; every writer stores the same value. The host then finds
 * the position with a kernel of its own. */
inline void
ep_flag_mark (__global int *flag)
{
  *flag = 0;
}

#define EP_WRAP32(e) as_int ((uint) (e))
#define EP_WRAP64(e) as_long ((ulong) (e))

/* Float to integer as NumPy does on x86-64: what does not fit (NaN,
 * infinities, out of range) becomes the type's minimum. */
#define EP_F_TO_I32(x) (((x) >= -2147483648.0f && (x) < 2147483648.0f) ? (int) (x) : INT_MIN)
#define EP_F_TO_I64(x) (((x) >= -9223372036854775808.0f && (x) < 9223372036854775808.0f) ? (long) (x) : LONG_MIN)
#define EP_D_TO_I32(x) (((x) >= -2147483648.0 && (x) < 2147483648.0) ? (int) (x) : INT_MIN)
#define EP_D_TO_I64(x) (((x) >= -9223372036854775808.0 && (x) < 9223372036854775808.0) ? (long) (x) : LONG_MIN)

/* The first element of row r of operand k. */
inline long
ep_row_base (const EpRows *g, int k, long r)
{
  return g->offsets[k] + ep_unravel (r, g->outer_ndim, g->outer_shape, g->outer_strides[k]);
}

/* Sums of exponentials accumulate in double where the device has it, as
 * on the CPU. */
#ifdef EP_FP64
typedef double ep_acc;
#else
typedef float ep_acc;
#endif

/* NaN-propagating maximum */
#define EP_NAN_MAX(m, x) (((m) > (x) || isnan (m)) ? (m) : (x))

/* Kernels of an elementwise family (elementwise.cl, math.cl,
 * logical.cl): one per group and type, @op (an EpOpId) picking the case
 * once, outside the loop over elements.
 *
 * In a fused program (EP_FUSED, opencl/fused.c) the same cases become
 * functions of the elements instead, ep_fn_<op>_<type> (x[, y]), which
 * its one kernel calls step by step: each op is written once for both. */

#ifdef EP_FUSED

#define BIN(OUT_T, T, name, EXPR)                                           \
  inline OUT_T ep_fn_##name##_##T (T x, T y) { return (OUT_T) (EXPR); }

#define UN(OUT_T, T, name, EXPR)                                            \
  inline OUT_T ep_fn_##name##_##T (T x) { return (OUT_T) (EXPR); }

#define BINARY_KERNEL(name, T, OUT_T, CASES) CASES
#define UNARY_KERNEL(name, T, OUT_T, CASES) CASES

#else

/* A case of a two-input kernel: out[i] = EXPR (x, y) */
#define BIN(OUT_T, T, name, EXPR)                                           \
  case EP_OP_##name:                                                        \
    for (long i = get_global_id (0); i < g.n; i += get_global_size (0))     \
      {                                                                     \
        T x = pa[ep_map_offset (&g, 1, i)];                                 \
        T y = pb[ep_map_offset (&g, 2, i)];                                 \
        out[i] = (OUT_T) (EXPR);                                            \
      }                                                                     \
    break;

/* A case of a one-input kernel: out[i] = EXPR (x) */
#define UN(OUT_T, T, name, EXPR)                                            \
  case EP_OP_##name:                                                        \
    for (long i = get_global_id (0); i < g.n; i += get_global_size (0))     \
      {                                                                     \
        T x = pa[ep_map_offset (&g, 1, i)];                                 \
        out[i] = (OUT_T) (EXPR);                                            \
      }                                                                     \
    break;

#define BINARY_KERNEL(name, T, OUT_T, CASES)                                \
__kernel void                                                               \
name (__global OUT_T *out,                                                  \
      __global const T *pa,                                                 \
      __global const T *pb,                                                 \
      const EpMap g,                                                        \
      int op)                                                               \
{                                                                           \
  switch (op)                                                               \
    {                                                                       \
    CASES                                                                   \
    }                                                                       \
}

#define UNARY_KERNEL(name, T, OUT_T, CASES)                                 \
__kernel void                                                               \
name (__global OUT_T *out,                                                  \
      __global const T *pa,                                                 \
      const EpMap g,                                                        \
      int op)                                                               \
{                                                                           \
  switch (op)                                                               \
    {                                                                       \
    CASES                                                                   \
    }                                                                       \
}

#endif /* EP_FUSED */
