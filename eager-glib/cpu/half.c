/* half.c: float16 and bfloat16 runs to and from float32
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every half-precision op computes in float32 (dispatch widens its
 * inputs, cast.c converts), so these loops carry the conversions. On
 * x86-64 float16 goes through F16C (vcvtph2ps, vcvtps2ph rounding to
 * nearest even) and bfloat16 through AVX2 integer arithmetic, chosen at
 * run time; elsewhere, and for the tails, ep-half-private.h's scalar
 * conversions, which give the same bits.
 */

#include "config.h"

#include "ep-cpu-half-private.h"
#include "ep-cpu-private.h"
#include "ep-fuse-private.h"
#include "ep-half-private.h"
#include "ep-tensor-private.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define EP_HALF_X86 1
#endif

#ifdef EP_HALF_X86
__attribute__ ((target ("avx,f16c")))
static gsize
f16_to_f32_f16c (const guint16 *in, gfloat *out, gsize n)
{
  gsize i = 0;

  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps (out + i, _mm256_cvtph_ps (_mm_loadu_si128 ((const __m128i *) (in + i))));
  return i;
}

__attribute__ ((target ("avx,f16c")))
static gsize
f32_to_f16_f16c (const gfloat *in, guint16 *out, gsize n)
{
  gsize i = 0;

  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128 ((__m128i *) (out + i),
                      _mm256_cvtps_ph (_mm256_loadu_ps (in + i), _MM_FROUND_TO_NEAREST_INT));
  return i;
}

__attribute__ ((target ("avx2")))
static gsize
bf16_to_f32_avx2 (const guint16 *in, gfloat *out, gsize n)
{
  gsize i = 0;

  for (; i + 8 <= n; i += 8)
    {
      __m256i w = _mm256_cvtepu16_epi32 (_mm_loadu_si128 ((const __m128i *) (in + i)));

      _mm256_storeu_si256 ((__m256i *) (out + i), _mm256_slli_epi32 (w, 16));
    }
  return i;
}

/* ep_float_to_bfloat16() eight at a time */
__attribute__ ((target ("avx2")))
static gsize
f32_to_bf16_avx2 (const gfloat *in, guint16 *out, gsize n)
{
  const __m256i one = _mm256_set1_epi32 (1), bias = _mm256_set1_epi32 (0x7fff);
  const __m256i quiet = _mm256_set1_epi32 (0x40);
  gsize i = 0;

  for (; i + 8 <= n; i += 8)
    {
      __m256 x = _mm256_loadu_ps (in + i);
      __m256i u = _mm256_castps_si256 (x);
      __m256i odd = _mm256_and_si256 (_mm256_srli_epi32 (u, 16), one);
      __m256i rounded = _mm256_srli_epi32 (_mm256_add_epi32 (u, _mm256_add_epi32 (bias, odd)), 16);
      __m256i nan = _mm256_or_si256 (_mm256_srli_epi32 (u, 16), quiet);
      __m256i is_nan = _mm256_castps_si256 (_mm256_cmp_ps (x, x, _CMP_UNORD_Q));
      __m256i r = _mm256_blendv_epi8 (rounded, nan, is_nan);

      _mm_storeu_si128 ((__m128i *) (out + i),
                        _mm_packus_epi32 (_mm256_castsi256_si128 (r), _mm256_extracti128_si256 (r, 1)));
    }
  return i;
}
#endif

typedef struct
{
  gboolean f16c;
  gboolean avx2;
} Features;

static const Features *
features (void)
{
  static Features f;
  static gsize once = 0;

  if (g_once_init_enter (&once))
    {
#ifdef EP_HALF_X86
      unsigned int eax, ebx, ecx = 0, edx;

      /* F16C from CPUID itself: clang 14's __builtin_cpu_supports()
       * does not know "f16c" */
      __builtin_cpu_init ();
      __get_cpuid (1, &eax, &ebx, &ecx, &edx);
      f.f16c = __builtin_cpu_supports ("avx") && (ecx & bit_F16C) != 0;
      f.avx2 = __builtin_cpu_supports ("avx2");
#endif
      /* EP_HALF_SCALAR=1: the scalar loops only (to test them) */
      if (g_strcmp0 (g_getenv ("EP_HALF_SCALAR"), "1") == 0)
        f.f16c = f.avx2 = FALSE;
      g_once_init_leave (&once, 1);
    }
  return &f;
}

void
ep_cpu_half_to_float (EpDType        dtype,
                      const guint16 *in,
                      gfloat        *out,
                      gsize          n)
{
  gsize i = 0;

  if (dtype == EP_DTYPE_FLOAT16)
    {
#ifdef EP_HALF_X86
      if (features ()->f16c)
        i = f16_to_f32_f16c (in, out, n);
#endif
      for (; i < n; i++)
        out[i] = ep_half_to_float (in[i]);
    }
  else
    {
#ifdef EP_HALF_X86
      if (features ()->avx2)
        i = bf16_to_f32_avx2 (in, out, n);
#endif
      for (; i < n; i++)
        out[i] = ep_bfloat16_to_float (in[i]);
    }
}

void
ep_cpu_float_to_half (EpDType       dtype,
                      const gfloat *in,
                      guint16      *out,
                      gsize         n)
{
  gsize i = 0;

  if (dtype == EP_DTYPE_FLOAT16)
    {
#ifdef EP_HALF_X86
      if (features ()->f16c)
        i = f32_to_f16_f16c (in, out, n);
#endif
      for (; i < n; i++)
        out[i] = ep_float_to_half (in[i]);
    }
  else
    {
#ifdef EP_HALF_X86
      if (features ()->avx2)
        i = f32_to_bf16_avx2 (in, out, n);
#endif
      for (; i < n; i++)
        out[i] = ep_float_to_bfloat16 (in[i]);
    }
}

/* Elementwise ops, run by run: each run of the half inputs widened into
 * float32 buffers on the stack (one element for a broadcast operand),
 * the op's float32 loop, the result rounded into the output. No whole
 * tensor is widened, so an add of float16 reads and writes 2 bytes an
 * element, as PyTorch's kernels do. */
#define HALF_RUN 256

typedef struct
{
  EpDType        dtype;      /* of the half inputs */
  EpDType        out_dtype;  /* dtype, or bool */
  guint          n_inputs;
  EpCpuLoop      loop;       /* the float32 loop */
  gconstpointer  loop_data;
} HalfRun;

static void
half_run_loop (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)
{
  const HalfRun *r = u;
  gfloat in[EP_CPU_MAX_OPERANDS - 1][HALF_RUN];
  gfloat out[HALF_RUN];
  gboolean half_out = r->out_dtype == r->dtype;
  gsize out_size = ep_dtype_itemsize (r->out_dtype);

  for (gint64 i = 0; i < n; i += HALF_RUN)
    {
      gint64 m = MIN (HALF_RUN, n - i);
      guint8 *q[EP_CPU_MAX_OPERANDS];
      gint64 qs[EP_CPU_MAX_OPERANDS];

      for (guint k = 0; k < r->n_inputs; k++)
        {
          const guint8 *src = p[k + 1] + i * s[k + 1];

          if (s[k + 1] == 2)
            ep_cpu_half_to_float (r->dtype, (const guint16 *) src, in[k], m);
          else if (s[k + 1] == 0)
            ep_cpu_half_to_float (r->dtype, (const guint16 *) src, in[k], 1);
          else
            for (gint64 j = 0; j < m; j++)
              ep_cpu_half_to_float (r->dtype, (const guint16 *) (src + j * s[k + 1]), &in[k][j], 1);
          q[k + 1] = (guint8 *) in[k];
          qs[k + 1] = s[k + 1] == 0 ? 0 : sizeof (gfloat);
        }
      q[0] = half_out ? (guint8 *) out : p[0] + i * out_size;
      qs[0] = half_out ? sizeof (gfloat) : out_size;
      r->loop (q, qs, m, r->loop_data);
      if (half_out)
        ep_cpu_float_to_half (r->dtype, out, (guint16 *) (p[0] + i * 2), m);
    }
}

gboolean
ep_cpu_run_half (EpOpCall  *call,
                 gboolean  *ran,
                 GError   **error)
{
  EpDType dtype = call->output_layouts[0].dtype;
  EpFusedStep step;
  HalfRun run;

  *ran = FALSE;
  /* bfloat16 products on oneDNN (cpu/linalg.c), where it has them */
  if (call->op->id == EP_OP_MATMUL)
    return ep_cpu_matmul_bf16 (call, ran, error);
  /* plain elementwise ops, as the fusion pass takes them (their loops do
   * not see attributes) */
  if (call->n_outputs != 1 || call->n_inputs != call->op->n_inputs || call->n_inputs == 0
      || call->n_inputs >= EP_CPU_MAX_OPERANDS || call->op->n_attrs != 0
      || (call->op->flags & (EP_OP_FLAG_VIEW | EP_OP_FLAG_TRANSFER | EP_OP_FLAG_READS_DATA
                             | EP_OP_FLAG_CHECKS_DATA | EP_OP_FLAG_RANDOM | EP_OP_FLAG_DATA_SHAPED
                             | EP_OP_FLAG_COLLECTIVE)))
    return TRUE;
  if (dtype == EP_DTYPE_BOOL)
    dtype = call->inputs[0]->layout.dtype;
  if (!ep_dtype_is_half (dtype))
    return TRUE;
  for (guint i = 0; i < call->n_inputs; i++)
    if (call->inputs[i]->layout.dtype != dtype)
      return TRUE;
  if (!ep_fused_step_init (&step, call->op, EP_DTYPE_FLOAT32,
                           call->output_layouts[0].dtype == EP_DTYPE_BOOL ? EP_DTYPE_BOOL : EP_DTYPE_FLOAT32)
      || call->op->id == EP_OP_ASTYPE)
    return TRUE;

  run.dtype = dtype;
  run.out_dtype = call->output_layouts[0].dtype;
  run.n_inputs = call->n_inputs;
  run.loop = step.loop;
  run.loop_data = step.loop_data;
  ep_cpu_map (call, half_run_loop, &run);
  *ran = TRUE;
  return TRUE;
}
