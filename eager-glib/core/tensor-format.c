/* core/tensor-format.c: printing tensors the way NumPy's str() does
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A port of NumPy's array2string defaults: floats as the shortest
 * decimal that reads back to the same value (at most 8 fractional
 * digits), all elements padded to one width, scientific notation when
 * magnitudes span more than 1e3 or reach 1e8 or go below 1e-4, lines
 * wrapped at 75 columns, and arrays over 1000 elements summarized with
 * "..." around 3 edge items per axis. The same layout serves str()
 * (elements separated by spaces) and repr() (by commas, wrapped to leave
 * room for the class name in front and the dtype behind).
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ep-error-private.h"
#include "ep-join.h"
#include "ep-recorder-private.h"
#include "ep-scalar-private.h"
#include "ep-tensor-private.h"

#define LINE_WIDTH 75
#define PRECISION 8
#define THRESHOLD 1000
#define EDGE_ITEMS 3

/* The shortest decimal that reads back to the same float or double. */
typedef struct
{
  char     digits[24];   /* significant digits, no trailing zeros */
  int      n_digits;
  int      exponent;     /* of the first digit */
  gboolean negative;
} Decimal;

static void
decimal_parse (const char *text,
               Decimal    *d)
{
  const char *p = text;

  d->negative = *p == '-';
  if (*p == '-' || *p == '+')
    p++;
  d->n_digits = 0;
  for (; *p != '\0' && *p != 'e'; p++)
    if (*p != '.')
      d->digits[d->n_digits++] = *p;
  d->exponent = *p == 'e' ? atoi (p + 1) : 0;
  while (d->n_digits > 1 && d->digits[d->n_digits - 1] == '0')
    d->n_digits--;
  d->digits[d->n_digits] = '\0';
}

/* Whether @text reads back as @x in the element type @kind */
static gboolean
rounds_back (const char *text,
             gdouble     x,
             EpDType     kind)
{
  gdouble y = strtod (text, NULL);

  switch (kind)
    {
    case EP_DTYPE_FLOAT32:  return strtof (text, NULL) == (gfloat) x;
    case EP_DTYPE_FLOAT16:  return ep_double_to_half (y) == ep_double_to_half (x);
    case EP_DTYPE_BFLOAT16: return ep_float_to_bfloat16 (strtof (text, NULL)) == ep_float_to_bfloat16 ((gfloat) x);
    default:                return y == x;
    }
}

static void
decimal_shortest (gdouble  x,
                  EpDType  kind,
                  Decimal *d)
{
  char text[40];

  for (int p = 1; p <= 17; p++)
    {
      snprintf (text, sizeof text, "%.*e", p - 1, x);
      if (rounds_back (text, x, kind))
        break;
    }
  decimal_parse (text, d);
}

/* Positional digits, at most @max_frac after the point (rounding the
 * exact value beyond that), trailing zeros trimmed but the point kept. */
static void
format_positional (gdouble  x,
                   EpDType  kind,
                   int      max_frac,
                   GString *int_part,
                   GString *frac_part)
{
  Decimal d;

  g_string_truncate (int_part, 0);
  g_string_truncate (frac_part, 0);

  decimal_shortest (x, kind, &d);
  if (d.n_digits - 1 - d.exponent > max_frac)
    {
      g_autofree char *text = g_strdup_printf ("%.*f", max_frac, x);
      const char *dot = strchr (text, '.');

      g_string_append_len (int_part, text, dot - text);
      g_string_append (frac_part, dot + 1);
      while (frac_part->len > 0 && frac_part->str[frac_part->len - 1] == '0')
        g_string_truncate (frac_part, frac_part->len - 1);
      return;
    }

  if (d.negative)
    g_string_append_c (int_part, '-');

  if (d.exponent < 0)
    {
      g_string_append_c (int_part, '0');
      for (int i = 0; i < -d.exponent - 1; i++)
        g_string_append_c (frac_part, '0');
      if (!(d.n_digits == 1 && d.digits[0] == '0'))
        g_string_append (frac_part, d.digits);
    }
  else
    {
      for (int i = 0; i <= d.exponent; i++)
        g_string_append_c (int_part, i < d.n_digits ? d.digits[i] : '0');
      if (d.n_digits > d.exponent + 1)
        g_string_append (frac_part, d.digits + d.exponent + 1);
    }
}

/* Scientific: mantissa digits (at most PRECISION after the point) and a
 * decimal exponent. */
static void
format_scientific (gdouble   x,
                   EpDType   kind,
                   Decimal  *d)
{
  decimal_shortest (x, kind, d);
  if (d->n_digits - 1 > PRECISION)
    {
      char text[40];

      snprintf (text, sizeof text, "%.*e", PRECISION, x);
      decimal_parse (text, d);
    }
}

typedef struct
{
  EpDType  dtype;
  EpDType  kind;
  /* floats */
  gboolean exp_format;
  int      pad_left;
  int      pad_right;
  int      precision;   /* scientific: fractional digits of the mantissa */
  int      exp_size;    /* scientific: digits of the exponent */
  /* integers and bools */
  int      width;
} Format;

/* The elements of a tensor as the walk reads them: all of them in C
 * order, or for a summary only those it shows (see summary_of()). */
typedef struct
{
  const guint8 *data;
  const EpLayout *layout;
  gsize itemsize;
  gboolean summarize;
} Walk;

/* Whether a summary shows only the edges of an axis of extent @n */
static gboolean
elides (const Walk *w,
        gint64      n)
{
  return w->summarize && n > 2 * EDGE_ITEMS;
}

static const guint8 *
element_data (const Walk   *w,
              const gint64 *index)
{
  gint64 flat = 0;

  for (guint d = 0; d < w->layout->ndim; d++)
    {
      gint64 n = w->layout->shape[d];

      if (elides (w, n))
        flat = flat * 2 * EDGE_ITEMS + (index[d] < EDGE_ITEMS ? index[d] : index[d] - (n - 2 * EDGE_ITEMS));
      else
        flat = flat * n + index[d];
    }

  return w->data + flat * w->itemsize;
}

static gdouble
element (const Walk   *w,
         const gint64 *index)
{
  return ep_scalar_load (element_data (w, index), w->layout->dtype);
}

/* An integer element, exactly (a gdouble holds integers up to 2^53 only) */
static gint64
element_int (const Walk   *w,
             const gint64 *index)
{
  const guint8 *p = element_data (w, index);

  switch (w->layout->dtype)
    {
    case EP_DTYPE_INT32: return *(const gint32 *) p;
    case EP_DTYPE_INT64: return *(const gint64 *) p;
    case EP_DTYPE_UINT8: return *(const guint8 *) p;
    case EP_DTYPE_INT8:  return *(const gint8 *) p;
    case EP_DTYPE_INT16: return *(const gint16 *) p;
    default: return 0;
    }
}

typedef void (*Visit) (const Walk *w, const gint64 *index, gpointer user_data);

/* Visits the elements that will be shown, in order. */
static void
walk_shown (const Walk *w,
            gint64     *index,
            guint       axis,
            Visit       visit,
            gpointer    user_data)
{
  gint64 n;

  if (axis == w->layout->ndim)
    {
      visit (w, index, user_data);
      return;
    }

  n = w->layout->shape[axis];
  for (gint64 i = 0; i < n; i++)
    {
      if (elides (w, n) && i == EDGE_ITEMS)
        i = n - EDGE_ITEMS;
      index[axis] = i;
      walk_shown (w, index, axis + 1, visit, user_data);
    }
}

typedef struct
{
  Format  *format;
  gboolean any_finite, any_nonfinite, any_neg_inf;
  gdouble  max_abs, min_abs;
  gboolean any_nonzero;
  GString *a, *b;
  int      max_int, max_frac, max_exp;
} Survey;

static void
survey_range (const Walk *w, const gint64 *index, gpointer user_data)
{
  Survey *s = user_data;
  gdouble x = element (w, index);

  if (!isfinite (x))
    {
      s->any_nonfinite = TRUE;
      s->any_neg_inf |= isinf (x) && x < 0;
      return;
    }
  s->any_finite = TRUE;
  if (x != 0)
    {
      gdouble a = fabs (x);

      s->max_abs = s->any_nonzero ? MAX (s->max_abs, a) : a;
      s->min_abs = s->any_nonzero ? MIN (s->min_abs, a) : a;
      s->any_nonzero = TRUE;
    }
}

static void
survey_widths (const Walk *w, const gint64 *index, gpointer user_data)
{
  Survey *s = user_data;
  gdouble x = element (w, index);

  if (!isfinite (x))
    return;

  if (s->format->exp_format)
    {
      Decimal d;
      char exp[16];

      format_scientific (x, s->format->kind, &d);
      s->max_int = MAX (s->max_int, 1 + (d.negative ? 1 : 0));
      s->max_frac = MAX (s->max_frac, d.n_digits - 1);
      s->max_exp = MAX (s->max_exp, (int) g_snprintf (exp, sizeof exp, "%d", ABS (d.exponent)));
    }
  else
    {
      format_positional (x, s->format->kind, PRECISION, s->a, s->b);
      s->max_int = MAX (s->max_int, (int) s->a->len);
      s->max_frac = MAX (s->max_frac, (int) s->b->len);
    }
}

static void
survey_int_width (const Walk *w, const gint64 *index, gpointer user_data)
{
  Survey *s = user_data;
  char text[32];

  g_snprintf (text, sizeof text, "%" G_GINT64_FORMAT, element_int (w, index));
  s->format->width = MAX (s->format->width, (int) strlen (text));
}

static void
format_init (Format     *f,
             const Walk *w)
{
  gint64 index[EP_MAX_DIMS];
  Survey s = { .format = f };

  memset (f, 0, sizeof *f);
  f->dtype = w->layout->dtype;
  f->kind = f->dtype;

  if (f->dtype == EP_DTYPE_BOOL)
    {
      /* " True" lines up with "False", except alone in a 0-d tensor */
      f->width = w->layout->ndim > 0 ? 5 : 0;
      return;
    }
  if (!ep_dtype_is_floating (f->dtype))
    {
      walk_shown (w, index, 0, survey_int_width, &s);
      return;
    }

  walk_shown (w, index, 0, survey_range, &s);
  if (s.any_nonzero)
    f->exp_format = s.max_abs >= 1e8 || s.min_abs < 1e-4 || s.max_abs / s.min_abs > 1e3;

  if (s.any_finite)
    {
      s.a = g_string_new (NULL);
      s.b = g_string_new (NULL);
      walk_shown (w, index, 0, survey_widths, &s);
      g_string_free (s.a, TRUE);
      g_string_free (s.b, TRUE);
      f->pad_left = s.max_int;
      if (f->exp_format)
        {
          f->precision = s.max_frac;
          f->exp_size = MAX (s.max_exp, 2);
          f->pad_right = f->exp_size + 2 + f->precision;
        }
      else
        f->pad_right = s.max_frac;
    }

  if (s.any_nonfinite)
    {
      int offset = f->pad_right + 1;

      f->pad_left = MAX (f->pad_left, 3 - offset);
      f->pad_left = MAX (f->pad_left, 3 + (s.any_neg_inf ? 1 : 0) - offset);
    }
}

static void
append_padded (GString    *out,
               const char *text,
               int         width)
{
  for (int i = (int) strlen (text); i < width; i++)
    g_string_append_c (out, ' ');
  g_string_append (out, text);
}

static void
format_float (const Format *f,
              gdouble       x,
              GString      *out)
{
  if (!isfinite (x))
    {
      append_padded (out, isnan (x) ? "nan" : x < 0 ? "-inf" : "inf",
                     f->pad_left + f->pad_right + 1);
      return;
    }

  if (f->exp_format)
    {
      Decimal d;
      g_autoptr(GString) mantissa = g_string_new (NULL);

      format_scientific (x, f->kind, &d);
      if (d.negative)
        g_string_append_c (mantissa, '-');
      g_string_append_c (mantissa, d.digits[0]);
      g_string_append_c (mantissa, '.');
      for (int i = 1; i <= f->precision; i++)
        g_string_append_c (mantissa, i < d.n_digits ? d.digits[i] : '0');
      append_padded (out, mantissa->str, f->pad_left + 1 + f->precision);
      g_string_append_printf (out, "e%c%0*d", d.exponent < 0 ? '-' : '+', f->exp_size, ABS (d.exponent));
    }
  else
    {
      g_autoptr(GString) int_part = g_string_new (NULL);
      g_autoptr(GString) frac_part = g_string_new (NULL);

      format_positional (x, f->kind, PRECISION, int_part, frac_part);
      append_padded (out, int_part->str, f->pad_left);
      g_string_append_c (out, '.');
      g_string_append (out, frac_part->str);
      for (int i = (int) frac_part->len; i < f->pad_right; i++)
        g_string_append_c (out, ' ');
    }
}

static char *
format_element (const Format *f,
                gdouble       x,
                gint64        as_int)
{
  GString *out = g_string_new (NULL);
  char text[32];

  if (f->dtype == EP_DTYPE_BOOL)
    append_padded (out, x != 0 ? "True" : "False", f->width);
  else if (ep_dtype_is_floating (f->dtype))
    format_float (f, x, out);
  else
    {
      g_snprintf (text, sizeof text, "%" G_GINT64_FORMAT, as_int);
      append_padded (out, text, f->width);
    }

  return g_string_free (out, FALSE);
}

/* NumPy's _extendLine: wrap before @word if the line would grow too long,
 * unless wrapping would not help. */
static void
extend_line (GString    *s,
             GString    *line,
             const char *word,
             int         width,
             const char *indent)
{
  if ((int) (line->len + strlen (word)) > width && line->len > strlen (indent))
    {
      while (line->len > 0 && line->str[line->len - 1] == ' ')
        g_string_truncate (line, line->len - 1);
      g_string_append (s, line->str);
      g_string_append_c (s, '\n');
      g_string_assign (line, indent);
    }
  g_string_append (line, word);
}

/* NumPy's _formatArray: @separator goes between elements, its trailing
 * spaces dropped at line ends; rows of higher axes end with it too. */
static char *
recurse (const Walk   *w,
         const Format *f,
         gint64       *index,
         guint         axis,
         const char   *indent,
         int           width,
         const char   *separator)
{
  guint axes_left = w->layout->ndim - axis;
  gint64 n = w->layout->shape[axis];
  gboolean summary = w->summarize && n > 2 * EDGE_ITEMS;
  g_autofree char *next_indent = g_strconcat (indent, " ", NULL);
  GString *s = g_string_new (NULL);
  GString *result;

  if (axes_left == 1)
    {
      g_autoptr(GString) line = g_string_new (indent);
      int elem_width = width - 1;

      for (gint64 i = 0; i < n; i++)
        {
          g_autofree char *word = NULL;

          if (summary && i == EDGE_ITEMS)
            {
              extend_line (s, line, "...", elem_width, indent);
              g_string_append (line, separator);
              i = n - EDGE_ITEMS;
            }
          index[axis] = i;
          word = format_element (f, element (w, index), element_int (w, index));
          extend_line (s, line, word, elem_width, indent);
          if (i + 1 < n)
            g_string_append (line, separator);
        }
      g_string_append (s, line->str);
    }
  else
    {
      g_autoptr(GString) line_sep = g_string_new (separator);

      while (line_sep->len > 0 && line_sep->str[line_sep->len - 1] == ' ')
        g_string_truncate (line_sep, line_sep->len - 1);
      for (guint i = 1; i < axes_left; i++)
        g_string_append_c (line_sep, '\n');

      for (gint64 i = 0; i < n; i++)
        {
          g_autofree char *nested = NULL;

          if (summary && i == EDGE_ITEMS)
            {
              g_string_append_printf (s, "%s...%s", indent, line_sep->str);
              i = n - EDGE_ITEMS;
            }
          index[axis] = i;
          nested = recurse (w, f, index, axis + 1, next_indent, width - 1, separator);
          g_string_append (s, indent);
          g_string_append (s, nested);
          if (i + 1 < n)
            g_string_append (s, line_sep->str);
        }
    }

  result = g_string_new ("[");
  g_string_append (result, s->str + strlen (indent));
  g_string_append_c (result, ']');
  g_string_free (s, TRUE);

  return g_string_free (result, FALSE);
}

/* A 0-d tensor prints like a NumPy scalar: Python's repr of the value. */
static char *
format_scalar (const Walk *w)
{
  gint64 index[1] = { 0 };
  gdouble x = element (w, index);
  Decimal d;

  if (w->layout->dtype == EP_DTYPE_BOOL)
    return g_strdup (x != 0 ? "True" : "False");
  if (!ep_dtype_is_floating (w->layout->dtype))
    return g_strdup_printf ("%" G_GINT64_FORMAT, element_int (w, index));
  if (isnan (x))
    return g_strdup ("nan");
  if (isinf (x))
    return g_strdup (x < 0 ? "-inf" : "inf");

  decimal_shortest (x, w->layout->dtype, &d);
  if (x == 0 || (d.exponent >= -5 && d.exponent < 16))
    {
      g_autoptr(GString) int_part = g_string_new (NULL);
      g_autoptr(GString) frac_part = g_string_new (NULL);

      format_positional (x, w->layout->dtype, 64, int_part, frac_part);
      return g_strdup_printf ("%s.%s", int_part->str, frac_part->len > 0 ? frac_part->str : "0");
    }

  if (d.n_digits == 1)
    return g_strdup_printf ("%s%ce%c%02d", d.negative ? "-" : "", d.digits[0],
                            d.exponent < 0 ? '-' : '+', ABS (d.exponent));
  return g_strdup_printf ("%s%c.%se%c%02d", d.negative ? "-" : "", d.digits[0], d.digits + 1,
                          d.exponent < 0 ? '-' : '+', ABS (d.exponent));
}

/* The elements a summary shows and no others: along each axis of more
 * than 2 * EDGE_ITEMS, the first and last EDGE_ITEMS, sliced (views)
 * and joined, so that only what is printed is read or copied, however
 * large the tensor (a broadcast view of 2 * 10^9 elements prints from
 * 6 * 6 * 5 of them). */
static EpTensor *
summary_of (EpTensor  *self,
            guint      axis,
            GError   **error)
{
  const EpLayout *layout = &self->layout;
  gint64 starts[EP_MAX_DIMS] = { 0 }, stops[EP_MAX_DIMS];
  EpTensor *parts[2] = { NULL, NULL };
  EpTensor *joined = NULL;
  gint64 n;

  if (axis == layout->ndim)
    return g_object_ref (self);
  n = layout->shape[axis];
  if (n <= 2 * EDGE_ITEMS)
    return summary_of (self, axis + 1, error);

  memcpy (stops, layout->shape, layout->ndim * sizeof (gint64));
  for (guint k = 0; k < 2; k++)
    {
      g_autoptr(EpTensor) edge = NULL;

      starts[axis] = k == 0 ? 0 : n - EDGE_ITEMS;
      stops[axis] = k == 0 ? EDGE_ITEMS : n;
      edge = ep_tensor_slice (self, starts, layout->ndim, stops, layout->ndim, NULL, 0, error);
      if (edge == NULL || (parts[k] = summary_of (edge, axis + 1, error)) == NULL)
        goto out;
    }
  joined = ep_concatenate (parts, 2, (gint) axis, error);

out:
  g_clear_object (&parts[0]);
  g_clear_object (&parts[1]);
  return joined;
}

/* Reads the elements the text shows. A summary's slices and joins are
 * the printer's, not the caller's ops: no tape or tracer sees them. */
static gboolean
walk_init (Walk        *walk,
           GBytes     **bytes,
           EpTensor    *self,
           const char  *name,
           GError     **error)
{
  walk->layout = &self->layout;
  walk->itemsize = ep_dtype_get_itemsize (self->layout.dtype);
  walk->summarize = ep_layout_get_size (&self->layout) > THRESHOLD;

  if (walk->summarize)
    {
      EpRecorder *recorders;
      g_autoptr(EpTensor) shown = NULL;

      if (!ep_tensor_check_alive (self, name, error))
        return FALSE;
      recorders = ep_recorders_set_aside ();
      shown = summary_of (self, 0, error);
      ep_recorders_put_back (recorders);
      *bytes = shown != NULL ? ep_tensor_to_bytes (shown, error) : NULL;
    }
  else
    {
      *bytes = ep_tensor_to_bytes (self, error);
    }
  if (*bytes == NULL)
    {
      ep_error_rename_call (error, "to_bytes", name);
      ep_error_rename_call (error, "contiguous", name);
      return FALSE;
    }

  walk->data = g_bytes_get_data (*bytes, NULL);
  return TRUE;
}

typedef char *(*FormatFunc) (EpTensor *self, const Walk *walk);

static char *to_string (EpTensor *self, const Walk *walk);
static char *to_repr (EpTensor *self, const Walk *walk);

/* NumPy prints "1.5" whatever the locale, and the digits are found by
 * printing and parsing: both happen in the C locale, on this thread only,
 * so a German application still reads "1.5", not "1,5". The data is read
 * before, in the user's locale: its errors are in the user's language
 * (gettext translates nothing under the C locale). */
static char *
in_c_locale (FormatFunc   format,
             EpTensor    *self,
             const char  *name,
             GError     **error)
{
  static gsize initialized;
  static locale_t c_locale;
  g_autoptr(GBytes) bytes = NULL;
  locale_t previous;
  char *text;
  Walk walk;

  if (!walk_init (&walk, &bytes, self, name, error))
    return NULL;

  if (g_once_init_enter (&initialized))
    {
      c_locale = newlocale (LC_ALL_MASK, "C", (locale_t) 0);
      g_once_init_leave (&initialized, 1);
    }

  previous = uselocale (c_locale);
  text = format (self, &walk);
  uselocale (previous);

  return text;
}

/**
 * ep_tensor_to_string:
 * @self: a tensor
 * @error: return location for an error
 *
 * Formats the elements as NumPy's `str()` does: `[1. 2. 3.]`, one line per
 * row for matrices, elided with `...` beyond 1000 elements. A 0-d tensor
 * prints as its value. Reads the data from any device; a summary reads
 * only the elements it shows, so a huge (say, broadcast) view prints at
 * once.
 *
 * Returns: (transfer full): the text, or %NULL if reading the device
 *   failed
 */
char *
ep_tensor_to_string (EpTensor  *self,
                     GError   **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return in_c_locale (to_string, self, "to_string", error);
}

static char *
to_string (EpTensor    *self,
           const Walk  *walk)
{
  gint64 index[EP_MAX_DIMS] = { 0 };
  Format format;

  if (self->layout.ndim == 0)
    return format_scalar (walk);
  if (ep_layout_get_size (&self->layout) == 0)
    return g_strdup ("[]");

  format_init (&format, walk);
  return recurse (walk, &format, index, 0, " ", LINE_WIDTH, " ");
}

#define REPR_PREFIX "Ep.Tensor("

/**
 * ep_tensor_to_repr:
 * @self: a tensor
 * @error: return location for an error
 *
 * Formats @self as NumPy's `repr()` formats an array, with `Ep.Tensor` for
 * `array`: `Ep.Tensor([1., 2., 3.], dtype=float32)`. Elements are
 * separated by commas and wrapped at 75 columns below the opening
 * bracket; a 0-d tensor shows its element in the same style
 * (`Ep.Tensor(2.5, dtype=float64)`), an empty one its shape unless that
 * is `(0,)`. Unlike NumPy the dtype is always shown, since the default
 * element type here is float32. The Python `repr()` of a tensor is this.
 *
 * Returns: (transfer full): the text, or %NULL if reading the device
 *   failed
 */
char *
ep_tensor_to_repr (EpTensor  *self,
                   GError   **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return in_c_locale (to_repr, self, "to_repr", error);
}

static char *
to_repr (EpTensor    *self,
         const Walk  *walk)
{
  g_autofree char *body = NULL;
  gint64 index[EP_MAX_DIMS] = { 0 };
  const char *dtype_name;
  GString *out;
  const char *last_line;
  Format format;

  dtype_name = ep_dtype_get_name (self->layout.dtype);
  if (ep_layout_get_size (&self->layout) == 0)
    {
      g_autofree char *shape = ep_shape_to_string (self->layout.shape, self->layout.ndim);

      body = self->layout.ndim == 1 ? g_strdup ("[]") : g_strdup_printf ("[], shape=%s", shape);
    }
  else
    {
      /* the continuation indent: one for "[" and the prefix's width; the
       * "," before the dtype comes off the width */
      g_autofree char *indent = g_strnfill (1 + strlen (REPR_PREFIX), ' ');

      format_init (&format, walk);
      if (self->layout.ndim == 0)
        body = format_element (&format, element (walk, index), element_int (walk, index));
      else
        body = recurse (walk, &format, index, 0, indent, LINE_WIDTH - 1, ", ");
    }

  out = g_string_new (REPR_PREFIX);
  g_string_append (out, body);
  g_string_append_c (out, ',');
  last_line = strrchr (out->str, '\n');
  last_line = last_line != NULL ? last_line + 1 : out->str;
  if (strlen (last_line) + strlen ("dtype=)") + strlen (dtype_name) + 1 > LINE_WIDTH)
    g_string_append_printf (out, "\n%*s", (int) strlen (REPR_PREFIX), "");
  else
    g_string_append_c (out, ' ');
  g_string_append_printf (out, "dtype=%s)", dtype_name);

  return g_string_free (out, FALSE);
}
