/* random.c: uniform and normal on the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>

#include "ep-cpu-private.h"
#include "ep-philox-private.h"
#include "ep-tensor-private.h"

/* Random numbers: see ep-philox-private.h for the recipe every device
 * follows. */
#define TWO_TO_MINUS_24 (1.0f / 16777216.0f)
#define TWO_TO_MINUS_53 (1.0 / 9007199254740992.0)
#define BITS53(a, b) ((gdouble) ((a) >> 5) * 67108864.0 + (gdouble) ((b) >> 6))

/* Keeps the interval half-open when rounding lands on @high. */
#define BELOW(T, NEXT, value, low, high) \
  ((high) > (low) && (value) >= (high) ? NEXT ((high), (low)) : (value))

/* Element i takes word(s) of block i / per_block (see the recipe in
 * ep-philox-private.h). */
static inline void
element_words (guint64  seed,
               guint64  stream,
               guint64  i,
               guint    per_block,
               guint64 *cached,
               guint32  block[4],
               guint32  words[2])
{
  guint64 b = i / per_block;
  guint first = (guint) (i % per_block) * (4 / per_block);

  if (*cached != b)
    {
      ep_philox_block (seed, stream, b, block);
      *cached = b;
    }
  words[0] = block[first];
  words[1] = per_block == 4 ? 0 : block[first + 1];
}

/* Separate products and sums, as the recipe says, even where the
 * compiler could fuse them. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__ ((optimize ("fp-contract=off")))
#endif
static gboolean
cpu_random (EpOpCall  *call,
            GError   **error)
{
  EpTensor *out = call->outputs[0];
  const EpOpAttrs *attrs = &call->attrs;
  guint64 seed = attrs->random.seed;
  guint64 stream = attrs->random.stream;
  guint64 size = (guint64) ep_layout_get_size (&out->layout);
  gboolean normal = call->op->id == EP_OP_NORMAL;
  gdouble a = attrs->random.a, b = attrs->random.b;
  guint64 cached = G_MAXUINT64;
  guint32 block[4], w[2];

  if (out->layout.dtype == EP_DTYPE_FLOAT32)
    {
      gfloat *data = ep_tensor_host_data (out);
      gfloat fa = (gfloat) a, fb = (gfloat) b;
      gfloat span = fb - fa;

      for (guint64 i = 0; i < size; i++)
        {
          element_words (seed, stream, i, normal ? 2 : 4, &cached, block, w);
          if (normal)
            {
              gfloat u1 = (gfloat) ((w[0] >> 8) + 1) * TWO_TO_MINUS_24;
              gfloat u2 = (gfloat) (w[1] >> 8) * TWO_TO_MINUS_24;
              gfloat r = sqrtf (-2.0f * logf (u1));
              gfloat z = r * cosf (6.2831855f * u2);
              gfloat scaled = fb * z;

              data[i] = fa + scaled;
            }
          else
            {
              gfloat u = (gfloat) (w[0] >> 8) * TWO_TO_MINUS_24;
              gfloat scaled = span * u;
              gfloat value = fa + scaled;

              data[i] = BELOW (gfloat, nextafterf, value, fa, fb);
            }
        }
    }
  else
    {
      gdouble *data = ep_tensor_host_data (out);
      gdouble span = b - a;

      for (guint64 i = 0; i < size; i++)
        {
          if (normal)
            {
              gdouble u1, u2, z, scaled;

              ep_philox_block (seed, stream, i, block);
              u1 = (BITS53 (block[0], block[1]) + 1.0) * TWO_TO_MINUS_53;
              u2 = BITS53 (block[2], block[3]) * TWO_TO_MINUS_53;
              z = sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2);
              scaled = b * z;
              data[i] = a + scaled;
            }
          else
            {
              gdouble u, scaled, value;

              element_words (seed, stream, i, 2, &cached, block, w);
              u = BITS53 (w[0], w[1]) * TWO_TO_MINUS_53;
              scaled = span * u;
              value = a + scaled;
              data[i] = BELOW (gdouble, nextafter, value, a, b);
            }
        }
    }

  return TRUE;
}

void
ep_cpu_register_random (EpKernelFunc *kernels)
{
  kernels[EP_OP_UNIFORM] = cpu_random;
  kernels[EP_OP_NORMAL] = cpu_random;
}
