/* random.cl: uniform, normal
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/random.c. Random numbers follow the recipe of
 * ep-philox-private.h step for step, so uniform ones are bit-identical
 * to the CPU's and normal ones agree to the accuracy of log, sqrt, cos.
 */

/* Philox 4x32-10: block @index of stream @stream under @seed */
inline uint4
ep_philox (ulong seed, ulong stream, ulong index)
{
  uint c0 = (uint) index, c1 = (uint) (index >> 32);
  uint c2 = (uint) stream, c3 = (uint) (stream >> 32);
  uint k0 = (uint) seed, k1 = (uint) (seed >> 32);

  for (int round = 0; round < 10; round++)
    {
      uint hi0 = mul_hi (0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
      uint hi1 = mul_hi (0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;

      if (round > 0)
        {
          k0 += 0x9E3779B9u;
          k1 += 0xBB67AE85u;
        }
      c0 = hi1 ^ c1 ^ k0;
      c1 = lo1;
      c2 = hi0 ^ c3 ^ k1;
      c3 = lo0;
    }

  return (uint4) (c0, c1, c2, c3);
}

#define TWO_TO_MINUS_24 (1.0f / 16777216.0f)

inline uint
ep_word (uint4 block, int q)
{
  return q == 0 ? block.x : q == 1 ? block.y : q == 2 ? block.z : block.w;
}

/* One work-item a block; a value that rounds up to @high is replaced by
 * the largest number below it. */
__kernel void
uniform_f32 (__global float *out,
             ulong seed,
             ulong stream,
             long size,
             float low,
             float high,
             float span)
{
  long blocks = (size + 3) / 4;

  for (long b = get_global_id (0); b < blocks; b += get_global_size (0))
    {
      uint4 block = ep_philox (seed, stream, (ulong) b);

      for (int q = 0; q < 4 && 4 * b + q < size; q++)
        {
          float u = (float) (ep_word (block, q) >> 8) * TWO_TO_MINUS_24;
          float scaled = span * u;
          float value = low + scaled;

          out[4 * b + q] = (high > low && value >= high) ? nextafter (high, low) : value;
        }
    }
}

__kernel void
normal_f32 (__global float *out,
            ulong seed,
            ulong stream,
            long size,
            float mean,
            float stddev)
{
  long blocks = (size + 1) / 2;

  for (long b = get_global_id (0); b < blocks; b += get_global_size (0))
    {
      uint4 block = ep_philox (seed, stream, (ulong) b);

      for (int q = 0; q < 2 && 2 * b + q < size; q++)
        {
          uint w0 = ep_word (block, 2 * q), w1 = ep_word (block, 2 * q + 1);
          float u1 = (float) ((w0 >> 8) + 1) * TWO_TO_MINUS_24;
          float u2 = (float) (w1 >> 8) * TWO_TO_MINUS_24;
          float r = sqrt (-2.0f * log (u1));
          float z = r * cos (6.2831855f * u2);
          float scaled = stddev * z;

          out[2 * b + q] = mean + scaled;
        }
    }
}

#ifdef EP_FP64
#define TWO_TO_MINUS_53 (1.0 / 9007199254740992.0)
#define BITS53(a, b) ((double) ((a) >> 5) * 67108864.0 + (double) ((b) >> 6))

__kernel void
uniform_f64 (__global double *out,
             ulong seed,
             ulong stream,
             long size,
             double low,
             double high,
             double span)
{
  long blocks = (size + 1) / 2;

  for (long b = get_global_id (0); b < blocks; b += get_global_size (0))
    {
      uint4 block = ep_philox (seed, stream, (ulong) b);

      for (int q = 0; q < 2 && 2 * b + q < size; q++)
        {
          double u = BITS53 (ep_word (block, 2 * q), ep_word (block, 2 * q + 1)) * TWO_TO_MINUS_53;
          double scaled = span * u;
          double value = low + scaled;

          out[2 * b + q] = (high > low && value >= high) ? nextafter (high, low) : value;
        }
    }
}

__kernel void
normal_f64 (__global double *out,
            ulong seed,
            ulong stream,
            long size,
            double mean,
            double stddev)
{
  for (long i = get_global_id (0); i < size; i += get_global_size (0))
    {
      uint4 block = ep_philox (seed, stream, (ulong) i);
      double u1 = (BITS53 (block.x, block.y) + 1.0) * TWO_TO_MINUS_53;
      double u2 = BITS53 (block.z, block.w) * TWO_TO_MINUS_53;
      double z = sqrt (-2.0 * log (u1)) * cos (2.0 * M_PI * u2);
      double scaled = stddev * z;

      out[i] = mean + scaled;
    }
}
#endif
