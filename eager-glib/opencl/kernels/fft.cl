/* fft.cl: the packing around clFFT's transforms (opencl/fft.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * fft_pack reads the rows of the input, (outer, in_len, inner) real or
 * (outer, in_len, inner, 2) complex, into `rows` contiguous complex rows
 * of n points for clFFT: cropped or padded with zeros, real rows with
 * zero imaginary parts, irfft's half spectrum completed by its
 * conjugates. fft_unpack writes the transformed rows out, scaled: rfft
 * keeps n/2 + 1 bins, irfft the real parts.
 */

#define FFT(sfx, T)                                                         \
__kernel void                                                               \
fft_pack_##sfx (__global T *work,                                           \
                __global const T *in,                                       \
                long offset,                                                \
                long in_len,                                                \
                long inner,                                                 \
                long n,                                                     \
                long total,                                                 \
                int op)                                                     \
{                                                                           \
  long g = get_global_id (0);                                               \
  long r, j, base, k;                                                       \
  T re = 0, im = 0;                                                         \
                                                                            \
  if (g >= total)                                                           \
    return;                                                                 \
  r = g / n;                                                                \
  j = g % n;                                                                \
  base = offset + (r / inner) * in_len * inner + r % inner;                 \
  if (op == EP_OP_rfft)                                                     \
    {                                                                       \
      if (j < in_len)                                                       \
        re = in[base + j * inner];                                          \
    }                                                                       \
  else if (op == EP_OP_irfft)                                               \
    {                                                                       \
      k = j <= n / 2 ? j : n - j;                                           \
      if (k < in_len)                                                       \
        {                                                                   \
          re = in[2 * (base + k * inner)];                                  \
          im = in[2 * (base + k * inner) + 1];                              \
          if (k != j)                                                       \
            im = -im;                                                       \
        }                                                                   \
    }                                                                       \
  else if (j < in_len)                                                      \
    {                                                                       \
      re = in[2 * (base + j * inner)];                                      \
      im = in[2 * (base + j * inner) + 1];                                  \
    }                                                                       \
  work[2 * g] = re;                                                         \
  work[2 * g + 1] = im;                                                     \
}                                                                           \
                                                                            \
__kernel void                                                               \
fft_unpack_##sfx (__global T *out,                                          \
                  __global const T *work,                                   \
                  long out_len,                                             \
                  long inner,                                               \
                  long n,                                                   \
                  long total,                                               \
                  int op,                                                   \
                  T scale)                                                  \
{                                                                           \
  long g = get_global_id (0);                                               \
  long r, j, dst, src;                                                      \
                                                                            \
  if (g >= total)                                                           \
    return;                                                                 \
  r = g / out_len;                                                          \
  j = g % out_len;                                                          \
  dst = ((r / inner) * out_len + j) * inner + r % inner;                    \
  src = r * n + j;                                                          \
  if (op == EP_OP_irfft)                                                    \
    out[dst] = work[2 * src] * scale;                                       \
  else                                                                      \
    {                                                                       \
      out[2 * dst] = work[2 * src] * scale;                                 \
      out[2 * dst + 1] = work[2 * src + 1] * scale;                         \
    }                                                                       \
}

FFT (f32, float)
FP64 (FFT (f64, double))
