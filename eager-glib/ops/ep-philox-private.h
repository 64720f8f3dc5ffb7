/* ep-philox-private.h: the Philox 4x32-10 counter-based generator
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as
 * 1, 2, 3" (SC 2011), as in Random123: a 128-bit counter and a 64-bit
 * key give 128 random bits in ten rounds of
 *
 *   (hi0, lo0) = 0xD2511F53 * c0    (32 x 32 -> 64 bits)
 *   (hi1, lo1) = 0xCD9E8D57 * c2
 *   c = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0)
 *
 * with the key bumped by (0x9E3779B9, 0xBB67AE85) before rounds 2 to 10.
 * Known answers (Random123's kat_vectors) are checked in
 * tests/c/ops/random.c.
 *
 * How eager-glib uses it (ops/random.c; every device must do the same to
 * give the same numbers): a call of uniform or normal has a seed (the
 * key: k0 = low 32 bits, k1 = high 32 bits) and a stream number (the
 * count of random calls since ep_set_seed). Block b of a call is the one
 * with counter (b & 0xffffffff, b >> 32, stream & 0xffffffff,
 * stream >> 32); its words are x0 … x3. Element i (its index in C order)
 * takes words from one block only, so its value depends only on seed,
 * stream and i:
 *
 * - uniform, float32: word x[i % 4] of block i / 4, x;
 *   u = (x >> 8) * 2^-24 in [0, 1);
 *   value = low + (high - low) * u in float32 arithmetic;
 * - uniform, float64: words x[2j], x[2j+1] with j = i % 2 of block i / 2;
 *   u = ((x[2j] >> 5) * 2^26 + (x[2j+1] >> 6)) * 2^-53;
 *   value = low + (high - low) * u in float64 arithmetic;
 *   either way a value that rounds up to high (when high > low) is
 *   replaced by the largest number below it, so the interval stays
 *   half-open;
 * - normal, float32 (Box-Muller, the cosine of the pair): words
 *   x[2j], x[2j+1] with j = i % 2 of block i / 2;
 *   u1 = ((x[2j] >> 8) + 1) * 2^-24 in (0, 1], u2 = (x[2j+1] >> 8) * 2^-24,
 *   z = sqrt (-2 log u1) * cos (2 pi u2) in float32 (2 pi as the float
 *   6.2831855f), value = mean + stddev * z;
 * - normal, float64: all of block i,
 *   u1 = ((x0 >> 5) * 2^26 + (x1 >> 6) + 1) * 2^-53 in (0, 1],
 *   u2 = ((x2 >> 5) * 2^26 + (x3 >> 6)) * 2^-53, the same in float64.
 *
 * Products and sums are separate operations (no fused multiply-add).
 * Uniform numbers are then bit-identical on every device; normal ones
 * agree to the accuracy of the device's log, sqrt and cos.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

static inline void
ep_philox4x32_10 (const guint32 counter[4],
                  const guint32 key[2],
                  guint32       out[4])
{
  guint32 c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3];
  guint32 k0 = key[0], k1 = key[1];

  for (guint round = 0; round < 10; round++)
    {
      guint64 p0 = (guint64) 0xD2511F53u * c0;
      guint64 p1 = (guint64) 0xCD9E8D57u * c2;

      if (round > 0)
        {
          k0 += 0x9E3779B9u;
          k1 += 0xBB67AE85u;
        }
      c0 = (guint32) (p1 >> 32) ^ c1 ^ k0;
      c1 = (guint32) p1;
      c2 = (guint32) (p0 >> 32) ^ c3 ^ k1;
      c3 = (guint32) p0;
    }

  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/* Block @index of random stream @stream under @seed. */
static inline void
ep_philox_block (guint64 seed,
                 guint64 stream,
                 guint64 index,
                 guint32 out[4])
{
  const guint32 counter[4] = {
    (guint32) index, (guint32) (index >> 32), (guint32) stream, (guint32) (stream >> 32)
  };
  const guint32 key[2] = { (guint32) seed, (guint32) (seed >> 32) };

  ep_philox4x32_10 (counter, key, out);
}

G_END_DECLS
