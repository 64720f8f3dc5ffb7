/* test-half.c: float16 and bfloat16 (core/ep-half-private.h,
 * cpu/half.c, dispatch/widen.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Conversions by their bits at the edges (subnormals, infinities, NaN,
 * ties, overflow, -0); the vector runs (F16C, AVX2) against the scalar
 * conversions over every 16-bit pattern; promotion; casts on every
 * device; ops computed in float32 and rounded once; safetensors and
 * DLPack round trips.
 */

#include <eager-glib/eager-glib.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "ep-cpu-half-private.h"
#include "ep-dlpack-private.h"
#include "ep-half-private.h"
#include "ep-safetensors-private.h"
#include "ep-scalar-private.h"
#include "ep-tensor-private.h"
#include "ep-test-util.h"

static guint16
half_of (gfloat x)
{
  return ep_float_to_half (x);
}

static void
test_float16_edges (void)
{
  /* exact values, signs and zeros */
  g_assert_cmphex (half_of (0.0f), ==, 0x0000);
  g_assert_cmphex (half_of (-0.0f), ==, 0x8000);
  g_assert_cmphex (half_of (1.0f), ==, 0x3c00);
  g_assert_cmphex (half_of (-2.0f), ==, 0xc000);
  g_assert_cmphex (half_of (65504.0f), ==, 0x7bff);
  /* overflow: 65520 is the tie between 65504 and 65536, which is even */
  g_assert_cmphex (half_of (65519.99f), ==, 0x7bff);
  g_assert_cmphex (half_of (65520.0f), ==, 0x7c00);
  g_assert_cmphex (half_of (-1e30f), ==, 0xfc00);
  g_assert_cmphex (half_of (INFINITY), ==, 0x7c00);
  g_assert_cmphex (half_of (-INFINITY), ==, 0xfc00);
  /* NaN stays NaN, quiet, with its payload's top bits and sign */
  g_assert_cmphex (half_of (NAN), ==, 0x7e00);
  g_assert_cmphex (half_of (ep_float_from_bits (0xffc02000)), ==, 0xfe01);
  g_assert_cmphex (half_of (ep_float_from_bits (0x7f800001)) & 0x7c00, ==, 0x7c00);
  g_assert_cmphex (half_of (ep_float_from_bits (0x7f800001)) & 0x3ff, !=, 0);
  /* subnormals: 2^-24 is the smallest; half of it is a tie to 0, a bit
   * more rounds up; below 2^-14 the unit is 2^-24 */
  g_assert_cmphex (half_of (0x1p-24f), ==, 0x0001);
  g_assert_cmphex (half_of (0x1p-25f), ==, 0x0000);
  g_assert_cmphex (half_of (0x1.000002p-25f), ==, 0x0001);
  g_assert_cmphex (half_of (0x1.8p-24f), ==, 0x0002);    /* 1.5 units: tie to even 2 */
  g_assert_cmphex (half_of (0x1.4p-23f), ==, 0x0002);    /* 2.5 units: tie to even 2 */
  g_assert_cmphex (half_of (0x1p-14f), ==, 0x0400);
  g_assert_cmphex (half_of (0x1.ff8p-15f), ==, 0x03ff);  /* the largest subnormal */
  g_assert_cmphex (half_of (0x1.ffap-15f), ==, 0x03ff);
  g_assert_cmphex (half_of (0x1.ffcp-15f), ==, 0x0400);  /* a tie: up to the smallest normal */
  g_assert_cmphex (half_of (-0x1p-30f), ==, 0x8000);
  /* ties to even among normals: 1 + 2^-11 is halfway between 1 and 1 + 2^-10 */
  g_assert_cmphex (half_of (1.0f + 0x1p-11f), ==, 0x3c00);
  g_assert_cmphex (half_of (1.0f + 3 * 0x1p-11f), ==, 0x3c02);
  g_assert_cmphex (half_of (1.0f + 0x1.004p-11f), ==, 0x3c01);

  /* and back: exact */
  g_assert_cmpfloat (ep_half_to_float (0x0001), ==, 0x1p-24f);
  g_assert_cmpfloat (ep_half_to_float (0x03ff), ==, 0x1.ff8p-15f);
  g_assert_cmpfloat (ep_half_to_float (0x7bff), ==, 65504.0f);
  g_assert_true (signbit (ep_half_to_float (0x8000)));
  g_assert_true (isinf (ep_half_to_float (0xfc00)) && ep_half_to_float (0xfc00) < 0);
  g_assert_true (isnan (ep_half_to_float (0x7e00)));
}

/* float64 rounds once to float16: through float32 it would round twice */
static void
test_float16_from_double_rounds_once (void)
{
  /* 1 + 2^-11 + 2^-40: above the tie, so up; through float32 it would be
   * the tie itself (1 + 2^-11), which goes down to even */
  gdouble x = 1.0 + 0x1p-11 + 0x1p-40;

  g_assert_cmphex (half_of ((gfloat) x), ==, 0x3c00);
  g_assert_cmphex (ep_double_to_half (x), ==, 0x3c01);
  g_assert_cmphex (ep_double_to_half (-x), ==, 0xbc01);
  g_assert_cmphex (ep_double_to_half (1.0 + 0x1p-11 - 0x1p-40), ==, 0x3c00);
  g_assert_cmphex (ep_double_to_half (65520.0 - 1e-9), ==, 0x7bff);
  g_assert_cmphex (ep_double_to_half (1e300), ==, 0x7c00);
  g_assert_cmphex (ep_double_to_half (NAN), ==, 0x7e00);
  g_assert_cmphex (ep_double_to_half (0x1p-25 + 0x1p-60), ==, 0x0001);
}

static void
test_bfloat16_edges (void)
{
  g_assert_cmphex (ep_float_to_bfloat16 (1.0f), ==, 0x3f80);
  g_assert_cmphex (ep_float_to_bfloat16 (-0.0f), ==, 0x8000);
  /* ties to even: 1 + 2^-8 is halfway between 1 and 1 + 2^-7 */
  g_assert_cmphex (ep_float_to_bfloat16 (1.0f + 0x1p-8f), ==, 0x3f80);
  g_assert_cmphex (ep_float_to_bfloat16 (1.0f + 3 * 0x1p-8f), ==, 0x3f82);
  g_assert_cmphex (ep_float_to_bfloat16 (1.0f + 0x1.02p-8f), ==, 0x3f81);
  /* the largest float32 rounds to infinity; subnormals keep their bits */
  g_assert_cmphex (ep_float_to_bfloat16 (FLT_MAX), ==, 0x7f80);
  g_assert_cmphex (ep_float_to_bfloat16 (INFINITY), ==, 0x7f80);
  g_assert_cmphex (ep_float_to_bfloat16 (ep_float_from_bits (0x00010000)), ==, 0x0001);
  /* NaN stays NaN and quiet, even where rounding would carry it to inf */
  g_assert_cmphex (ep_float_to_bfloat16 (ep_float_from_bits (0x7f800001)), ==, 0x7fc0);
  g_assert_cmphex (ep_float_to_bfloat16 (ep_float_from_bits (0xffffffff)), ==, 0xffff);
  g_assert_cmphex (ep_float_to_bfloat16 (NAN), ==, 0x7fc0);
  g_assert_cmpfloat (ep_bfloat16_to_float (0x3f81), ==, 1.0f + 0x1p-7f);
}

/* The vector runs give the scalar conversions' bits: every 16-bit
 * pattern widened, and float32 patterns (each pattern's neighbours, ties
 * and random bits) rounded; lengths that leave tails. */
static void
test_runs_match_scalar (void)
{
  const EpDType dtypes[] = { EP_DTYPE_FLOAT16, EP_DTYPE_BFLOAT16 };
  g_autofree guint16 *bits = g_new (guint16, 65536);
  g_autofree gfloat *wide = g_new (gfloat, 65536 * 4);
  g_autofree guint16 *narrow = g_new (guint16, 65536 * 4);

  for (guint i = 0; i < 65536; i++)
    bits[i] = (guint16) i;

  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      EpDType dtype = dtypes[d];

      ep_cpu_half_to_float (dtype, bits, wide, 65536);
      for (guint i = 0; i < 65536; i++)
        {
          gfloat expected = dtype == EP_DTYPE_FLOAT16 ? ep_half_to_float (i) : ep_bfloat16_to_float (i);

          g_assert_cmphex (ep_float_bits (wide[i]), ==, ep_float_bits (expected));
        }

      /* each pattern, and float32 values around it: ties and neighbours */
      for (guint i = 0; i < 65536; i++)
        {
          guint32 u = ep_float_bits (wide[i]);

          wide[65536 + i] = ep_float_from_bits (u + (dtype == EP_DTYPE_FLOAT16 ? 0x1000 : 0x8000));
          wide[2 * 65536 + i] = ep_float_from_bits (u + 1);
          wide[3 * 65536 + i] = ep_float_from_bits (g_test_rand_int ());
        }
      for (gsize n = 65536 * 4; n > 65536 * 4 - 9; n--)
        {
          ep_cpu_float_to_half (dtype, wide, narrow, n);
          for (gsize i = 0; i < n; i++)
            {
              guint16 expected = dtype == EP_DTYPE_FLOAT16 ? ep_float_to_half (wide[i])
                                                           : ep_float_to_bfloat16 (wide[i]);

              if (narrow[i] != expected)
                g_error ("%s: %08x gave %04x, not %04x", ep_dtype_get_name (dtype),
                         ep_float_bits (wide[i]), narrow[i], expected);
            }
        }
    }
}

static void
test_promotion (void)
{
  const struct { EpDType a, b, result; } table[] = {
    /* NumPy */
    { EP_DTYPE_FLOAT16, EP_DTYPE_FLOAT16, EP_DTYPE_FLOAT16 },
    { EP_DTYPE_FLOAT16, EP_DTYPE_BOOL, EP_DTYPE_FLOAT16 },
    { EP_DTYPE_FLOAT16, EP_DTYPE_UINT8, EP_DTYPE_FLOAT16 },
    { EP_DTYPE_FLOAT16, EP_DTYPE_INT32, EP_DTYPE_FLOAT64 },
    { EP_DTYPE_FLOAT16, EP_DTYPE_INT64, EP_DTYPE_FLOAT64 },
    { EP_DTYPE_FLOAT16, EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT32 },
    { EP_DTYPE_FLOAT16, EP_DTYPE_FLOAT64, EP_DTYPE_FLOAT64 },
    /* PyTorch */
    { EP_DTYPE_BFLOAT16, EP_DTYPE_BFLOAT16, EP_DTYPE_BFLOAT16 },
    { EP_DTYPE_BFLOAT16, EP_DTYPE_BOOL, EP_DTYPE_BFLOAT16 },
    { EP_DTYPE_BFLOAT16, EP_DTYPE_UINT8, EP_DTYPE_BFLOAT16 },
    { EP_DTYPE_BFLOAT16, EP_DTYPE_INT32, EP_DTYPE_BFLOAT16 },
    { EP_DTYPE_BFLOAT16, EP_DTYPE_INT64, EP_DTYPE_BFLOAT16 },
    { EP_DTYPE_BFLOAT16, EP_DTYPE_FLOAT16, EP_DTYPE_FLOAT32 },
    { EP_DTYPE_BFLOAT16, EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT32 },
    { EP_DTYPE_BFLOAT16, EP_DTYPE_FLOAT64, EP_DTYPE_FLOAT64 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    {
      g_assert_cmpint (ep_dtype_promote (table[i].a, table[i].b), ==, table[i].result);
      g_assert_cmpint (ep_dtype_promote (table[i].b, table[i].a), ==, table[i].result);
    }
}

static void
test_names_and_sizes (void)
{
  EpDType dtype;

  g_assert_cmpstr (ep_dtype_get_name (EP_DTYPE_FLOAT16), ==, "float16");
  g_assert_cmpstr (ep_dtype_get_name (EP_DTYPE_BFLOAT16), ==, "bfloat16");
  g_assert_cmpuint (ep_dtype_get_itemsize (EP_DTYPE_FLOAT16), ==, 2);
  g_assert_cmpuint (ep_dtype_get_itemsize (EP_DTYPE_BFLOAT16), ==, 2);
  g_assert_true (ep_dtype_is_floating (EP_DTYPE_FLOAT16));
  g_assert_true (ep_dtype_is_floating (EP_DTYPE_BFLOAT16));
  g_assert_false (ep_dtype_is_integer (EP_DTYPE_BFLOAT16));
  g_assert_true (ep_dtype_from_name ("bfloat16", &dtype));
  g_assert_cmpint (dtype, ==, EP_DTYPE_BFLOAT16);
  g_assert_true (ep_dtype_is_valid (EP_DTYPE_FLOAT16));
  g_assert_false (ep_dtype_is_valid ((EpDType) 10));
}

/* A cast on each device gives the CPU's bits, special values too */
static void
test_casts_on_every_device (void)
{
  static const gdouble values[] = {
    0.0, -0.0, 1.0, -2.5, 65504.0, 65520.0, 1e6, 0x1p-24, 0x1p-25, 0x1.8p-24, 1.0 + 0x1p-11,
    1.0 + 0x1p-11 + 0x1p-40, 1.0 + 0x1p-8, 3.0e38, 1e-40, 0.1,
  };
  const EpDType halves[] = { EP_DTYPE_FLOAT16, EP_DTYPE_BFLOAT16 };
  const EpDType sources[] = { EP_DTYPE_FLOAT64, EP_DTYPE_FLOAT32, EP_DTYPE_INT64 };
  g_autoptr(GPtrArray) devices = ep_list_devices ();

  for (guint d = 0; d < devices->len; d++)
    {
      EpDevice *device = g_ptr_array_index (devices, d);

      if (!ep_device_supports_dtype (device, EP_DTYPE_FLOAT64))
        continue;
      for (guint s = 0; s < G_N_ELEMENTS (sources); s++)
        for (guint h = 0; h < G_N_ELEMENTS (halves); h++)
          {
            g_autoptr(GError) error = NULL;
            g_autoptr(EpTensor) source = ep_test_vector (values, G_N_ELEMENTS (values), sources[s]);
            g_autoptr(EpTensor) there = ep_tensor_to_device (source, device, &error);
            g_autoptr(EpTensor) cast = ep_tensor_astype (there, halves[h], &error);
            g_autoptr(EpTensor) back = ep_tensor_astype (cast, sources[s], &error);
            g_autoptr(GBytes) bytes = NULL;
            const guint16 *got;

            g_assert_no_error (error);
            bytes = ep_tensor_to_bytes (cast, &error);
            g_assert_no_error (error);
            got = g_bytes_get_data (bytes, NULL);
            for (guint i = 0; i < G_N_ELEMENTS (values); i++)
              {
                guint8 expected[8] = { 0 };
                guint8 wide[8];
                guint16 want;

                /* the CPU's element conversion, through the source type */
                ep_scalar_store (wide, sources[s], values[i]);
                if (sources[s] == EP_DTYPE_FLOAT64)
                  ep_scalar_store (expected, halves[h], values[i]);
                else
                  ep_scalar_store (expected, halves[h], ep_scalar_load (wide, sources[s]));
                memcpy (&want, expected, sizeof want);
                g_assert_cmphex (got[i], ==, want);
              }
            g_assert_cmpint (ep_tensor_get_dtype (back), ==, sources[s]);
          }
    }
}

/* Each op computes in float32 and rounds once: 2049 + 1 in float16 is
 * 2050 (float32 sum, rounded) and the sum of 4096 ones is 4096 (a half
 * accumulator would stop at 2048) */
static void
test_ops_round_once (void)
{
  const EpDType halves[] = { EP_DTYPE_FLOAT16, EP_DTYPE_BFLOAT16 };

  for (guint h = 0; h < G_N_ELEMENTS (halves); h++)
    {
      g_autoptr(GError) error = NULL;
      gint64 shape = 4096;
      g_autoptr(EpTensor) ones = ep_ones (&shape, 1, halves[h], &error);
      g_autoptr(EpTensor) sum = ep_tensor_sum (ones, NULL, 0, FALSE, &error);
      g_autoptr(EpTensor) a = ep_test_new (halves[h], EP_SHAPE (3), EP_VALUES (1.0, 3.0, 1e4));
      g_autoptr(EpTensor) b = ep_test_new (halves[h], EP_SHAPE (3), EP_VALUES (3.0, 7.0, 1e4));
      g_autoptr(EpTensor) q = ep_tensor_div (a, b, &error);
      g_autoptr(EpTensor) p = ep_tensor_mul (a, b, &error);
      gfloat third = 1.0f / 3.0f, three_sevenths = 3.0f / 7.0f;

      g_assert_no_error (error);
      g_assert_cmpint (ep_tensor_get_dtype (sum), ==, halves[h]);
      ep_assert_values (sum, halves[h], EP_SCALAR, EP_VALUES (4096));
      if (halves[h] == EP_DTYPE_FLOAT16)
        {
          ep_assert_values (q, halves[h], EP_SHAPE (3),
                            EP_VALUES (ep_half_to_float (ep_float_to_half (third)),
                                       ep_half_to_float (ep_float_to_half (three_sevenths)), 1));
          /* 1e4 * 1e4 overflows float16 */
          ep_assert_values (p, halves[h], EP_SHAPE (3), EP_VALUES (3, 21, INFINITY));
        }
      else
        {
          gfloat big = ep_bfloat16_to_float (ep_float_to_bfloat16 (1e4f));

          ep_assert_values (q, halves[h], EP_SHAPE (3),
                            EP_VALUES (ep_bfloat16_to_float (ep_float_to_bfloat16 (third)),
                                       ep_bfloat16_to_float (ep_float_to_bfloat16 (three_sevenths)), 1));
          ep_assert_values (p, halves[h], EP_SHAPE (3),
                            EP_VALUES (3, 21, ep_bfloat16_to_float (ep_float_to_bfloat16 (big * big))));
        }
    }
}

static void
test_safetensors_round_trip (void)
{
  static const char *const names[] = { "h", "b" };
  g_autofree char *dir = ep_test_make_dir ();
  g_autofree char *path = g_build_filename (dir, "half.safetensors", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpSafetensors) read = NULL;
  g_autoptr(EpTensor) h = ep_test_new (EP_DTYPE_FLOAT16, EP_SHAPE (2, 2), EP_VALUES (0.1, -0.0, INFINITY, 0x1p-24));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BFLOAT16, EP_SHAPE (3), EP_VALUES (1e30, NAN, -3.5));
  EpTensor *tensors[2] = { h, b };
  g_autofree char *header = NULL;
  g_autofree gchar *contents = NULL;
  gsize length;

  g_assert_true (ep_safetensors_write (file, names, tensors, 2, NULL, "save", NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  header = g_strndup (contents + 8, MIN (length - 8, (gsize) contents[0]));
  g_assert_nonnull (strstr (header, "\"F16\""));
  g_assert_nonnull (strstr (header, "\"BF16\""));

  read = ep_safetensors_read (file, "load", NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(EpTensor) back = ep_safetensors_load_tensor (read, names[i], ep_device_get_default (), &error);
      g_autoptr(GBytes) want = ep_tensor_to_bytes (tensors[i], NULL);
      g_autoptr(GBytes) got = NULL;

      g_assert_no_error (error);
      got = ep_tensor_to_bytes (back, NULL);
      g_assert_true (g_bytes_equal (want, got));
      g_assert_cmpint (ep_tensor_get_dtype (back), ==, ep_tensor_get_dtype (tensors[i]));
    }
  g_file_delete (file, NULL, NULL);
  g_rmdir (dir);
}

static void
test_dlpack_round_trip (void)
{
  const struct { EpDType dtype; guint8 code; } cases[] = {
    { EP_DTYPE_FLOAT16, kDLFloat }, { EP_DTYPE_BFLOAT16, kDLBfloat },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) t = ep_test_new (cases[i].dtype, EP_SHAPE (2, 2), EP_VALUES (0.5, -1, 2, 3));
      g_autoptr(EpTensor) back = NULL;
      DLManagedTensor *managed = ep_tensor_to_dlpack (t, &error);

      g_assert_no_error (error);
      g_assert_cmpint (managed->dl_tensor.dtype.code, ==, cases[i].code);
      g_assert_cmpint (managed->dl_tensor.dtype.bits, ==, 16);
      back = ep_tensor_new_from_dlpack (managed, &error);
      g_assert_no_error (error);
      g_assert_cmpint (ep_tensor_get_dtype (back), ==, cases[i].dtype);
      g_assert_true (ep_tensor_host_data (back) == ep_tensor_host_data (t));
      ep_assert_values (back, cases[i].dtype, EP_SHAPE (2, 2), EP_VALUES (0.5, -1, 2, 3));
    }
}

/* Formatting: the shortest digits that read back as the same element */
static void
test_format (void)
{
  g_autoptr(EpTensor) h = ep_test_new (EP_DTYPE_FLOAT16, EP_SHAPE (2), EP_VALUES (0.1, 1.5));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BFLOAT16, EP_SHAPE (2), EP_VALUES (0.1, 1.5));
  g_autofree char *hs = ep_tensor_to_repr (h, NULL);
  g_autofree char *bs = ep_tensor_to_repr (b, NULL);

  g_assert_cmpstr (hs, ==, "Ep.Tensor([0.1, 1.5], dtype=float16)");
  g_assert_cmpstr (bs, ==, "Ep.Tensor([0.1, 1.5], dtype=bfloat16)");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/half/float16-edges", test_float16_edges);
  g_test_add_func ("/half/float16-from-double", test_float16_from_double_rounds_once);
  g_test_add_func ("/half/bfloat16-edges", test_bfloat16_edges);
  g_test_add_func ("/half/runs-match-scalar", test_runs_match_scalar);
  g_test_add_func ("/half/promotion", test_promotion);
  g_test_add_func ("/half/names-and-sizes", test_names_and_sizes);
  g_test_add_func ("/half/casts-on-every-device", test_casts_on_every_device);
  g_test_add_func ("/half/ops-round-once", test_ops_round_once);
  g_test_add_func ("/half/safetensors", test_safetensors_round_trip);
  g_test_add_func ("/half/dlpack", test_dlpack_round_trip);
  g_test_add_func ("/half/format", test_format);

  return g_test_run ();
}
