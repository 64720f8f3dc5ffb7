/* optimizer.cl: the fused updates of the optimizers (autodiff/sgd.c,
 * adam.c, rmsprop.c, adagrad.c), one launch per variable and step,
 * writing the variable and its slots in place
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The arithmetic is the CPU loops', operation for operation (the
 * constants come converted to T by the host as the CPU's (T) casts do),
 * so that results agree to the last bit. Every kernel takes the same
 * arguments: the variable, three slots (unused ones are the variable's
 * buffer, never touched), the gradient and its offset, the element count,
 * eight constants and flags (EP_OPT_*, opencl/optimizer.c).
 */

#define EP_OPT_DECAY      1
#define EP_OPT_DECOUPLED  2   /* Adam: AdamW's decay; SGD: Nesterov */
#define EP_OPT_SLOT_A     4   /* RMSprop: grad_avg; SGD: momentum_buffer */
#define EP_OPT_SLOT_B     8   /* RMSprop: momentum_buffer */
#define EP_OPT_NEAR_LOW  16   /* lerp from the start (weight < 0.5) */

#define OPT_ARGS(T)                                                          \
  global T *p, global T *s0, global T *s1, global T *s2,                    \
  global const T *g, long g_offset, long n,                                 \
  T c0, T c1, T c2, T c3, T c4, T c5, T c6, T c7, int flags

#define OPT_KERNELS(T, S)                                                     \
/* c0 weight decay, c1 momentum, c2 share kept, c3 learning rate */          \
kernel void sgd_update_##S (OPT_ARGS (T))                                    \
{                                                                            \
  long i = get_global_id (0);                                               \
  T gi;                                                                      \
                                                                             \
  if (i >= n)                                                                \
    return;                                                                  \
  gi = g[g_offset + i];                                                      \
  if (flags & EP_OPT_DECAY)                                                  \
    gi = gi + p[i] * c0;                                                     \
  if (flags & EP_OPT_SLOT_A)                                                 \
    {                                                                        \
      s0[i] = s0[i] * c1 + gi * c2;                                          \
      gi = (flags & EP_OPT_DECOUPLED) ? gi + s0[i] * c1 : s0[i];             \
    }                                                                        \
  p[i] = p[i] - gi * c3;                                                     \
}                                                                            \
                                                                             \
/* s0 m, s1 v; c0 weight decay, c1 shrink, c2 lerp weight (nearer end),      \
 * c3 beta2, c4 1 - beta2, c5 sqrt of the second correction, c6 epsilon,     \
 * c7 step size */                                                           \
kernel void adam_update_##S (OPT_ARGS (T))                                   \
{                                                                            \
  long i = get_global_id (0);                                               \
  T gi;                                                                      \
                                                                             \
  if (i >= n)                                                                \
    return;                                                                  \
  gi = g[g_offset + i];                                                      \
  if ((flags & EP_OPT_DECAY) && (flags & EP_OPT_DECOUPLED))                  \
    p[i] = p[i] * c1;                                                        \
  else if (flags & EP_OPT_DECAY)                                             \
    gi = gi + p[i] * c0;                                                     \
  s0[i] = (flags & EP_OPT_NEAR_LOW) ? s0[i] + (gi - s0[i]) * c2              \
                                    : gi - (gi - s0[i]) * c2;                \
  s1[i] = s1[i] * c3 + (gi * c4) * gi;                                       \
  p[i] = p[i] - (s0[i] * c7) / (sqrt (s1[i]) / c5 + c6);                     \
}                                                                            \
                                                                             \
/* s0 square_avg, s1 grad_avg, s2 momentum_buffer; c0 weight decay,          \
 * c1 alpha, c2 1 - alpha, c3 lerp weight (nearer end), c4 epsilon,          \
 * c5 momentum, c6 learning rate */                                          \
kernel void rmsprop_update_##S (OPT_ARGS (T))                                \
{                                                                            \
  long i = get_global_id (0);                                               \
  T gi, d;                                                                   \
                                                                             \
  if (i >= n)                                                                \
    return;                                                                  \
  gi = g[g_offset + i];                                                      \
  if (flags & EP_OPT_DECAY)                                                  \
    gi = gi + p[i] * c0;                                                     \
  s0[i] = s0[i] * c1 + (gi * c2) * gi;                                       \
  if (flags & EP_OPT_SLOT_A)                                                 \
    {                                                                        \
      s1[i] = (flags & EP_OPT_NEAR_LOW) ? s1[i] + (gi - s1[i]) * c3          \
                                        : gi - (gi - s1[i]) * c3;            \
      d = sqrt (s0[i] - s1[i] * s1[i]) + c4;                                 \
    }                                                                        \
  else                                                                       \
    d = sqrt (s0[i]) + c4;                                                   \
  if (flags & EP_OPT_SLOT_B)                                                 \
    {                                                                        \
      s2[i] = s2[i] * c5 + gi / d;                                           \
      p[i] = p[i] - s2[i] * c6;                                              \
    }                                                                        \
  else                                                                       \
    p[i] = p[i] - (gi * c6) / d;                                             \
}                                                                            \
                                                                             \
/* s0 sum; c0 weight decay, c1 epsilon, c2 decayed learning rate */          \
kernel void adagrad_update_##S (OPT_ARGS (T))                                \
{                                                                            \
  long i = get_global_id (0);                                               \
  T gi;                                                                      \
                                                                             \
  if (i >= n)                                                                \
    return;                                                                  \
  gi = g[g_offset + i];                                                      \
  if (flags & EP_OPT_DECAY)                                                  \
    gi = gi + p[i] * c0;                                                     \
  s0[i] = s0[i] + gi * gi;                                                   \
  p[i] = p[i] - (gi * c2) / (sqrt (s0[i]) + c1);                             \
}

OPT_KERNELS (float, f32)
FP64 (OPT_KERNELS (double, f64))
