/* linalg.cl: matrix products that CLBlast does not do
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Integers and bools as the loops of cpu/linalg.c: wrapping sums
 * of products; for bool, "or" of "and"s. Floats when the product is
 * small (large ones go to CLBlast). One work-item per output element;
 * operands are strided matrices, batch dimensions broadcast (stride 0).
 */

/* EpCLMatmul in linalg.c */
typedef struct
{
  long batch_ndim;
  long n, k, m;
  long a_offset, b_offset;
  long a_row, a_col, b_row, b_col;
  long batch_shape[EP_MAX_DIMS];
  long a_batch[EP_MAX_DIMS];
  long b_batch[EP_MAX_DIMS];
} EpMatmul;

#define MATMUL(name, T, ACC, MUL, ADD, OUT)                                 \
__kernel void                                                               \
name (__global T *c,                                                        \
      __global const T *a,                                                  \
      __global const T *b,                                                  \
      const EpMatmul g,                                                     \
      long total)                                                           \
{                                                                           \
  for (long idx = get_global_id (0); idx < total; idx += get_global_size (0)) \
    {                                                                       \
      long j = idx % g.m, rest = idx / g.m;                                 \
      long i = rest % g.n, batch = rest / g.n;                              \
      long ao = g.a_offset + ep_unravel (batch, g.batch_ndim, g.batch_shape, g.a_batch) \
                + i * g.a_row;                                              \
      long bo = g.b_offset + ep_unravel (batch, g.batch_ndim, g.batch_shape, g.b_batch) \
                + j * g.b_col;                                              \
      ACC acc = 0;                                                          \
                                                                            \
      for (long q = 0; q < g.k; q++)                                        \
        acc = ADD (acc, MUL ((ACC) a[ao + q * g.a_col], (ACC) b[bo + q * g.b_row])); \
      c[idx] = OUT (acc);                                                   \
    }                                                                       \
}

#define UMUL(x, y) ((x) * (y))
#define UADD(x, y) ((x) + (y))
#define AND(x, y) ((x) & (y))
#define OR(x, y) ((x) | (y))

#define SAME(x) (x)

MATMUL (matmul_f32, float, float, UMUL, UADD, SAME)
FP64 (MATMUL (matmul_f64, double, double, UMUL, UADD, SAME))
MATMUL (matmul_i32, int, uint, UMUL, UADD, as_int)
MATMUL (matmul_i64, long, ulong, UMUL, UADD, as_long)
MATMUL (matmul_b, uchar, uchar, AND, OR, )
