/* ops/einsum.c: einsum (family linalg), a composite of diagonals, sums,
 * transposes, reshapes and batched matmuls
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The plan: each operand first loses its repeated subscripts (a diagonal:
 * the repeated axes moved last, merged by reshape and sliced with the
 * step that walks the diagonal), is broadcast where a subscript has
 * extent 1 against a longer one elsewhere, and sums the subscripts no
 * other operand and not the output names. Then pairs are contracted in
 * opt_einsum's greedy order (the pair whose result grows the least over
 * its two operands, the first such pair on ties): each pair is one
 * batched matmul of (batch, left, summed) by (batch, summed, right),
 * reached by a transpose and a reshape of each. The last operand is
 * transposed to the output's order. Every step is a public op, so the
 * result runs on every device and has their gradient.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ep-dispatch-private.h"
#include "ep-einsum.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-tensor-private.h"

const EpOpDef ep_func_einsum = {
  .id = EP_N_OPS, .name = "einsum",
  EP_INPUTS (EP_INPUT_LIST ("operands")),
  EP_ATTRS (EP_ATTR ("subscripts", EP_ATTR_STRING, EP_NO_FIELD)),
};

/* Labels: the letters A-Z then a-z (NumPy's order of an implicit
 * output), then the axes of '...', right-aligned to the widest. */
#define N_LETTERS 52
#define N_LABELS (N_LETTERS + EP_MAX_DIMS)

typedef struct {
  guint  n_letters;
  gint   ellipsis;              /* letters before '...', or -1 */
  gchar  letters[EP_MAX_DIMS];
} Term;

typedef struct {
  EpTensor *tensor;
  guint     ndim;
  guint8    labels[EP_MAX_DIMS];
} Operand;

typedef struct {
  gint64   extent[N_LABELS];     /* -1: not seen */
  gboolean in_output[N_LABELS];
  guint    n_output;
  guint8   output[EP_MAX_DIMS];
  Operand *operands;
  guint    n_operands;
} Plan;

static guint
letter_label (gchar c)
{
  return c <= 'Z' ? (guint) (c - 'A') : 26 + (guint) (c - 'a');
}

static gchar
label_letter (guint label)
{
  return label < 26 ? (gchar) ('A' + label) : (gchar) ('a' + label - 26);
}

static gboolean
subscripts_error (GError     **error,
                  const char  *message)
{
  g_set_error_literal (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT, message);
  return FALSE;
}

/* Reads the subscripts into one term per operand and the output's term
 * (*explicit: whether an arrow gave it). */
static gboolean
parse_subscripts (const char  *subscripts,
                  guint        n_operands,
                  Term        *inputs,
                  Term        *output,
                  gboolean    *explicit,
                  GError     **error)
{
  const char *arrow = strstr (subscripts, "->");
  guint n_terms = 1, term_index = 0;
  Term *term = &inputs[0];

  for (const char *p = subscripts; *p != '\0' && (arrow == NULL || p < arrow); p++)
    n_terms += *p == ',';
  if (n_terms != n_operands)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   g_dngettext (GETTEXT_PACKAGE,
                                "einsum: the subscripts name %u operand, %u were given",
                                "einsum: the subscripts name %u operands, %u were given", n_terms),
                   n_terms, n_operands);
      return FALSE;
    }

  *explicit = FALSE;
  memset (output, 0, sizeof (Term));
  output->ellipsis = -1;
  for (guint i = 0; i < n_operands; i++)
    {
      memset (&inputs[i], 0, sizeof (Term));
      inputs[i].ellipsis = -1;
    }

  for (const char *p = subscripts; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      if (c == ' ')
        continue;
      if (g_ascii_isalpha (c))
        {
          if (term->n_letters == EP_MAX_DIMS)
            {
              g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                           _("einsum: a term has more than %d subscripts"), EP_MAX_DIMS);
              return FALSE;
            }
          term->letters[term->n_letters++] = (gchar) c;
        }
      else if (c == '.')
        {
          if (strncmp (p, "...", 3) != 0 || term->ellipsis >= 0)
            return subscripts_error (error, _("einsum: a term has a '.' that is not one '...'"));
          term->ellipsis = (gint) term->n_letters;
          p += 2;
        }
      else if (c == ',' && !*explicit)
        term = &inputs[++term_index];
      else if (c == '-' && p[1] == '>' && !*explicit)
        {
          *explicit = TRUE;
          term = output;
          p++;
        }
      else
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("einsum: character %u of the subscripts is not a letter, a comma, '...', a space or one '->'"),
                       (guint) (p - subscripts) + 1);
          return FALSE;
        }
    }

  return TRUE;
}

/* The labels of operand @index's axes, and their extents checked
 * against the other operands' (an extent of 1 broadcasts). */
static gboolean
label_operand (Plan        *plan,
               guint        index,
               const Term  *term,
               guint        n_broadcast,
               GError     **error)
{
  Operand *operand = &plan->operands[index];
  const EpLayout *layout = &operand->tensor->layout;
  guint n_ellipsis = 0, axis = 0;

  operand->ndim = layout->ndim;
  if (term->ellipsis >= 0 ? term->n_letters > layout->ndim : term->n_letters != layout->ndim)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   g_dngettext (GETTEXT_PACKAGE,
                                "einsum: operand %u has %u axis, its subscripts name %u",
                                "einsum: operand %u has %u axes, its subscripts name %u", layout->ndim),
                   index, layout->ndim, term->n_letters);
      return FALSE;
    }
  if (term->ellipsis >= 0)
    n_ellipsis = layout->ndim - term->n_letters;

  for (guint l = 0; l <= term->n_letters; l++)
    {
      if ((gint) l == term->ellipsis)
        for (guint k = 0; k < n_ellipsis; k++)
          operand->labels[axis++] = N_LETTERS + n_broadcast - n_ellipsis + k;
      if (l < term->n_letters)
        operand->labels[axis++] = letter_label (term->letters[l]);
    }

  for (guint d = 0; d < layout->ndim; d++)
    {
      guint label = operand->labels[d];
      gint64 extent = layout->shape[d];
      gint64 *known = &plan->extent[label];

      for (guint e = 0; e < d; e++)
        if (operand->labels[e] == label && layout->shape[e] != extent)
          {
            g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                         _("einsum: subscript '%c' of operand %u is repeated on axes of %" PRId64 " and %" PRId64 " elements"),
                         label_letter (label), index, layout->shape[e], extent);
            return FALSE;
          }
      if (*known < 0 || *known == 1)
        *known = extent;
      else if (extent != 1 && extent != *known)
        {
          if (label < N_LETTERS)
            g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                         _("einsum: subscript '%c' has %" PRId64 " elements in operand %u and %" PRId64 " in an operand before it"),
                         label_letter (label), extent, index, *known);
          else
            g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                         _("einsum: an axis of '...' has %" PRId64 " elements in operand %u and %" PRId64 " in an operand before it"),
                         extent, index, *known);
          return FALSE;
        }
    }

  return TRUE;
}

/* Appends @label to the output's labels, within EP_MAX_DIMS */
static gboolean
push_output (Plan     *plan,
             guint     label,
             GError  **error)
{
  if (plan->n_output == EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("einsum: the output would have more than %d axes"), EP_MAX_DIMS);
      return FALSE;
    }
  plan->in_output[label] = TRUE;
  plan->output[plan->n_output++] = label;
  return TRUE;
}

/* The output's labels: the arrow's term, or NumPy's implicit output
 * ('...' first, then the letters used once, in order) */
static gboolean
label_output (Plan        *plan,
              const Term  *inputs,
              const Term  *output,
              gboolean     explicit,
              guint        n_broadcast,
              GError     **error)
{
  guint count[N_LABELS] = { 0 };

  for (guint i = 0; i < plan->n_operands; i++)
    for (guint d = 0; d < plan->operands[i].ndim; d++)
      count[plan->operands[i].labels[d]]++;

  plan->n_output = 0;
  if (!explicit)
    {
      for (guint k = 0; k < n_broadcast; k++)
        plan->output[plan->n_output++] = N_LETTERS + k;
      for (guint i = 0; i < plan->n_operands; i++)
        for (guint l = 0; l < inputs[i].n_letters; l++)
          {
            guint label = letter_label (inputs[i].letters[l]);

            /* letters in NumPy's order below; mark them here */
            if (count[label] == 1)
              plan->in_output[label] = TRUE;
          }
      for (guint label = 0; label < N_LETTERS; label++)
        if (plan->in_output[label] && !push_output (plan, label, error))
          return FALSE;
      for (guint k = 0; k < n_broadcast; k++)
        plan->in_output[N_LETTERS + k] = TRUE;
      return TRUE;
    }

  if (output->ellipsis < 0 && n_broadcast > 0)
    return subscripts_error (error, _("einsum: the operands have axes for '...', the output has no '...'"));
  for (guint l = 0; l <= output->n_letters; l++)
    {
      if ((gint) l == output->ellipsis)
        for (guint k = 0; k < n_broadcast; k++)
          if (!push_output (plan, N_LETTERS + k, error))
            return FALSE;
      if (l < output->n_letters)
        {
          guint label = letter_label (output->letters[l]);

          if (count[label] == 0)
            {
              g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                           _("einsum: output subscript '%c' is in no operand"), output->letters[l]);
              return FALSE;
            }
          if (plan->in_output[label])
            {
              g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                           _("einsum: output subscript '%c' is repeated"), output->letters[l]);
              return FALSE;
            }
          if (!push_output (plan, label, error))
            return FALSE;
        }
    }

  return TRUE;
}

static gint
find_label (const Operand *operand,
            guint          label)
{
  for (guint d = 0; d < operand->ndim; d++)
    if (operand->labels[d] == label)
      return (gint) d;
  return -1;
}

/* Whether @label is needed past a step on @a and @b: in the output or
 * in an operand other than those two */
static gboolean
label_kept (const Plan *plan,
            guint       label,
            guint       a,
            guint       b)
{
  if (plan->in_output[label])
    return TRUE;
  for (guint i = 0; i < plan->n_operands; i++)
    if (i != a && i != b && find_label (&plan->operands[i], label) >= 0)
      return TRUE;
  return FALSE;
}

static void
operand_replace (Operand  *operand,
                 EpTensor *tensor)
{
  g_object_unref (operand->tensor);
  operand->tensor = tensor;
}

/* Takes the diagonal of the axes that repeat @label (at least two):
 * they go last, merge into one axis of n^r elements, and a slice with
 * step 1 + n + … + n^(r-1) walks the diagonal. */
static gboolean
take_diagonal (Operand  *operand,
               guint     label,
               GError  **error)
{
  gint perm[EP_MAX_DIMS];
  guint8 labels[EP_MAX_DIMS];
  gint64 shape[EP_MAX_DIMS], n = 0, merged = 1, step = 0, power = 1;
  gint64 starts[EP_MAX_DIMS] = { 0 }, stops[EP_MAX_DIMS], steps[EP_MAX_DIMS];
  guint kept = 0, repeated = 0;
  g_autoptr(EpTensor) moved = NULL, flat = NULL;
  EpTensor *diagonal;

  for (guint d = 0; d < operand->ndim; d++)
    if (operand->labels[d] != label)
      {
        labels[kept] = operand->labels[d];
        shape[kept] = operand->tensor->layout.shape[d];
        perm[kept++] = (gint) d;
      }
  for (guint d = 0; d < operand->ndim; d++)
    if (operand->labels[d] == label)
      {
        n = operand->tensor->layout.shape[d];
        perm[kept + repeated++] = (gint) d;
      }
  for (guint r = 0; r < repeated; r++)
    {
      merged *= n;   /* n^r: no larger than the operand's size */
      step += power;
      power *= n;
    }

  shape[kept] = merged;
  labels[kept] = label;
  for (guint d = 0; d <= kept; d++)
    {
      stops[d] = G_MAXINT64;
      steps[d] = 1;
    }
  steps[kept] = MAX (step, 1);
  if ((moved = ep_tensor_transpose (operand->tensor, perm, operand->ndim, error)) == NULL
      || (flat = ep_tensor_reshape (moved, shape, kept + 1, error)) == NULL
      || (diagonal = ep_tensor_slice (flat, starts, kept + 1, stops, kept + 1, steps, kept + 1, error)) == NULL)
    return FALSE;

  operand_replace (operand, diagonal);
  operand->ndim = kept + 1;
  memcpy (operand->labels, labels, operand->ndim);
  return TRUE;
}

/* Sums the axes of @operand whose labels nothing past it needs */
static gboolean
sum_unneeded (Plan     *plan,
              guint     index,
              guint     other,
              GError  **error)
{
  Operand *operand = &plan->operands[index];
  gint axes[EP_MAX_DIMS];
  guint n_axes = 0, kept = 0;
  EpTensor *summed;

  for (guint d = 0; d < operand->ndim; d++)
    {
      guint label = operand->labels[d];

      if ((other < plan->n_operands && find_label (&plan->operands[other], label) >= 0)
          || label_kept (plan, label, index, other))
        operand->labels[kept++] = label;
      else
        axes[n_axes++] = (gint) d;
    }
  if (n_axes == 0)
    return TRUE;
  if ((summed = ep_tensor_sum (operand->tensor, axes, n_axes, FALSE, error)) == NULL)
    return FALSE;
  operand_replace (operand, summed);
  operand->ndim = kept;
  return TRUE;
}

/* A label on two axes of @operand, or -1 */
static gint
repeated_label (const Operand *operand)
{
  for (guint d = 0; d < operand->ndim; d++)
    for (guint e = d + 1; e < operand->ndim; e++)
      if (operand->labels[e] == operand->labels[d])
        return operand->labels[d];
  return -1;
}

/* Diagonals, broadcasts and sums of one operand on its own */
static gboolean
prepare_operand (Plan     *plan,
                 guint     index,
                 GError  **error)
{
  Operand *operand = &plan->operands[index];
  gint64 shape[EP_MAX_DIMS];
  gboolean broadcast = FALSE;

  for (gint label; (label = repeated_label (operand)) >= 0;)
    if (!take_diagonal (operand, (guint) label, error))
      return FALSE;

  for (guint d = 0; d < operand->ndim; d++)
    {
      shape[d] = plan->extent[operand->labels[d]];
      broadcast |= shape[d] != operand->tensor->layout.shape[d];
    }
  if (broadcast)
    {
      EpTensor *wide = ep_tensor_broadcast_to (operand->tensor, shape, operand->ndim, error);

      if (wide == NULL)
        return FALSE;
      operand_replace (operand, wide);
    }

  return sum_unneeded (plan, index, plan->n_operands, error);
}

static gint64
labels_size (const Plan   *plan,
             const guint8 *labels,
             guint         n)
{
  gint64 size = 1;

  for (guint i = 0; i < n; i++)
    size *= plan->extent[labels[i]];
  return size;
}

/* The labels of a contraction of @a and @b: batch (both, kept),
 * summed (both, not kept), left (@a only), right (@b only) */
typedef struct {
  guint8 batch[EP_MAX_DIMS], summed[EP_MAX_DIMS], left[EP_MAX_DIMS], right[EP_MAX_DIMS];
  guint  n_batch, n_summed, n_left, n_right;
} Pairing;

static void
pair_labels (const Plan *plan,
             guint       a,
             guint       b,
             Pairing    *pairing)
{
  const Operand *x = &plan->operands[a], *y = &plan->operands[b];

  memset (pairing, 0, sizeof (Pairing));
  for (guint d = 0; d < x->ndim; d++)
    {
      guint label = x->labels[d];

      if (find_label (y, label) < 0)
        pairing->left[pairing->n_left++] = label;
      else if (label_kept (plan, label, a, b))
        pairing->batch[pairing->n_batch++] = label;
      else
        pairing->summed[pairing->n_summed++] = label;
    }
  for (guint d = 0; d < y->ndim; d++)
    if (find_label (x, y->labels[d]) < 0)
      pairing->right[pairing->n_right++] = y->labels[d];
}

/* @operand transposed to the labels of @groups, then reshaped to one
 * axis per group */
static EpTensor *
group_axes (const Operand *operand,
            const Plan    *plan,
            const guint8  *const *groups,
            const guint   *n_group,
            guint          n_groups,
            GError       **error)
{
  gint perm[EP_MAX_DIMS];
  gint64 shape[3];
  guint n = 0;
  g_autoptr(EpTensor) moved = NULL;

  for (guint g = 0; g < n_groups; g++)
    {
      shape[g] = labels_size (plan, groups[g], n_group[g]);
      for (guint i = 0; i < n_group[g]; i++)
        perm[n++] = find_label (operand, groups[g][i]);
    }
  if ((moved = ep_tensor_transpose (operand->tensor, perm, n, error)) == NULL)
    return NULL;
  return ep_tensor_reshape (moved, shape, n_groups, error);
}

/* Contracts operands @a and @b into @a (one batched matmul), and drops @b */
static gboolean
contract_pair (Plan     *plan,
               guint     a,
               guint     b,
               GError  **error)
{
  Pairing p;
  const guint8 *left_groups[3], *right_groups[3];
  guint left_n[3], right_n[3];
  gint64 shape[3 * EP_MAX_DIMS];
  guint8 labels[3 * EP_MAX_DIMS];
  guint ndim = 0;
  g_autoptr(EpTensor) x = NULL, y = NULL, product = NULL;
  EpTensor *result;

  if (!sum_unneeded (plan, a, b, error) || !sum_unneeded (plan, b, a, error))
    return FALSE;
  pair_labels (plan, a, b, &p);

  left_groups[0] = p.batch, left_n[0] = p.n_batch;
  left_groups[1] = p.left, left_n[1] = p.n_left;
  left_groups[2] = p.summed, left_n[2] = p.n_summed;
  right_groups[0] = p.batch, right_n[0] = p.n_batch;
  right_groups[1] = p.summed, right_n[1] = p.n_summed;
  right_groups[2] = p.right, right_n[2] = p.n_right;
  if ((x = group_axes (&plan->operands[a], plan, left_groups, left_n, 3, error)) == NULL
      || (y = group_axes (&plan->operands[b], plan, right_groups, right_n, 3, error)) == NULL
      || (product = ep_tensor_matmul (x, y, error)) == NULL)
    return FALSE;

  for (guint i = 0; i < p.n_batch; i++)
    labels[ndim++] = p.batch[i];
  for (guint i = 0; i < p.n_left; i++)
    labels[ndim++] = p.left[i];
  for (guint i = 0; i < p.n_right; i++)
    labels[ndim++] = p.right[i];
  if (ndim > EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("einsum: an intermediate product would have %u axes, at most %d are supported"),
                   ndim, EP_MAX_DIMS);
      return FALSE;
    }
  for (guint d = 0; d < ndim; d++)
    shape[d] = plan->extent[labels[d]];
  if ((result = ep_tensor_reshape (product, shape, ndim, error)) == NULL)
    return FALSE;

  operand_replace (&plan->operands[a], result);
  plan->operands[a].ndim = ndim;
  memcpy (plan->operands[a].labels, labels, ndim);
  g_object_unref (plan->operands[b].tensor);
  memmove (&plan->operands[b], &plan->operands[b + 1], (plan->n_operands - b - 1) * sizeof (Operand));
  plan->n_operands--;
  return TRUE;
}

/* opt_einsum's greedy choice: the pair whose kept result is smallest
 * against the sizes of the two operands, the first one on ties */
static void
choose_pair (const Plan *plan,
             guint      *a,
             guint      *b)
{
  gdouble best = G_MAXDOUBLE;

  *a = 0;
  *b = 1;
  for (guint i = 0; i < plan->n_operands; i++)
    for (guint j = i + 1; j < plan->n_operands; j++)
      {
        const Operand *x = &plan->operands[i], *y = &plan->operands[j];
        gdouble size_x = 1, size_y = 1, size_result = 1, cost;

        for (guint d = 0; d < x->ndim; d++)
          {
            guint label = x->labels[d];

            size_x *= (gdouble) plan->extent[label];
            if (label_kept (plan, label, i, j))
              size_result *= (gdouble) plan->extent[label];
          }
        for (guint d = 0; d < y->ndim; d++)
          {
            guint label = y->labels[d];

            size_y *= (gdouble) plan->extent[label];
            if (find_label (x, label) < 0 && label_kept (plan, label, i, j))
              size_result *= (gdouble) plan->extent[label];
          }
        cost = size_result - size_x - size_y;
        if (cost < best)
          {
            best = cost;
            *a = i;
            *b = j;
          }
      }
}

/* The one operand left, in the output's order */
static EpTensor *
finish (Plan     *plan,
        GError  **error)
{
  Operand *operand = &plan->operands[0];
  gint perm[EP_MAX_DIMS];

  if (!sum_unneeded (plan, 0, plan->n_operands, error))
    return NULL;
  for (guint d = 0; d < plan->n_output; d++)
    perm[d] = find_label (operand, plan->output[d]);
  return ep_tensor_transpose (operand->tensor, perm, plan->n_output, error);
}

static EpTensor *
einsum (EpTensor  **operands,
        guint       n_operands,
        const char *subscripts,
        GError    **error)
{
  g_autofree Term *terms = g_new0 (Term, n_operands);
  g_autofree Operand *prepared = g_new0 (Operand, n_operands);
  Plan plan = { .operands = prepared, .n_operands = 0 };
  Term output;
  gboolean explicit;
  guint n_broadcast = 0;
  EpDType dtype = operands[0]->layout.dtype;
  EpTensor *result = NULL;
  g_autoptr(EpTensor) transposed = NULL;

  if (!parse_subscripts (subscripts, n_operands, terms, &output, &explicit, error))
    return NULL;

  for (guint i = 0; i < N_LABELS; i++)
    plan.extent[i] = -1;
  for (guint i = 0; i < n_operands; i++)
    {
      guint ndim = operands[i]->layout.ndim;

      dtype = ep_dtype_promote (dtype, operands[i]->layout.dtype);
      if (terms[i].ellipsis >= 0 && ndim > terms[i].n_letters)
        n_broadcast = MAX (n_broadcast, ndim - terms[i].n_letters);
    }

  for (guint i = 0; i < n_operands; i++)
    {
      prepared[i].tensor = operands[i]->layout.dtype == dtype
                           ? g_object_ref (operands[i])
                           : ep_tensor_astype (operands[i], dtype, error);
      plan.n_operands = i + 1;
      if (prepared[i].tensor == NULL)
        {
          plan.n_operands = i;
          goto out;
        }
      if (!label_operand (&plan, i, &terms[i], n_broadcast, error))
        goto out;
    }
  if (!label_output (&plan, terms, &output, explicit, n_broadcast, error))
    goto out;

  for (guint i = 0; i < plan.n_operands; i++)
    if (!prepare_operand (&plan, i, error))
      goto out;
  while (plan.n_operands > 1)
    {
      guint a, b;

      choose_pair (&plan, &a, &b);
      if (!contract_pair (&plan, a, b, error))
        goto out;
    }

  if ((transposed = finish (&plan, error)) == NULL)
    goto out;
  /* sums of integers give int64: back to the operands' type */
  if (transposed->layout.dtype != dtype)
    result = ep_tensor_astype (transposed, dtype, error);
  else
    result = g_steal_pointer (&transposed);

out:
  for (guint i = 0; i < plan.n_operands; i++)
    g_clear_object (&prepared[i].tensor);
  return result;
}

/**
 * ep_einsum:
 * @operands: (array length=n_operands): the operands, one per term of
 *   @subscripts
 * @n_operands: the number of operands, at least one
 * @subscripts: NumPy's subscripts: one term of letters per operand,
 *   separated by commas, optionally `->` and the output's term; `...`
 *   stands for the axes no letter names (broadcast as in NumPy)
 * @error: return location for an error
 *
 * Einstein summation as NumPy's `einsum`: `"ij,jk->ik"` is a matrix
 * product, `"ii"` a trace, `"ii->i"` a diagonal, `"bi,bij,bj->b"` a
 * batched bilinear form. Without `->` the output takes the letters used
 * once, in alphabetical order (upper case first), after the axes of
 * `...`. A letter repeated in a term takes that operand's diagonal; a
 * letter missing from the output is summed over; an axis of one element
 * broadcasts against a longer axis of the same letter. The operands are
 * promoted to one type as NumPy does.
 *
 * Products are batched [method@Tensor.matmul] calls, pairs chosen as
 * opt_einsum's greedy order does (the pair whose product adds the fewest
 * elements first), reached by transposes and reshapes; letters of one
 * operand alone are summed first. Each step is an op, so einsum runs on
 * every device and has their gradient.
 *
 * Returns: (transfer full): the result, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set if @subscripts cannot be read or
 *   name a different number of operands, %EP_ERROR_SHAPE if a term's
 *   letters do not match its operand's axes or a letter's extents
 *   differ, or the error of a step
 */
EpTensor *
ep_einsum (EpTensor   **operands,
           guint        n_operands,
           const char  *subscripts,
           GError     **error)
{
  g_return_val_if_fail (operands != NULL || n_operands == 0, NULL);
  g_return_val_if_fail (subscripts != NULL, NULL);
  for (guint i = 0; i < n_operands; i++)
    g_return_val_if_fail (EP_IS_TENSOR (operands[i]), NULL);

  if (n_operands == 0)
    {
      g_set_error_literal (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                           _("einsum: at least one operand is needed"));
      return NULL;
    }

  return ep_error_named_result (einsum (operands, n_operands, subscripts, error), error, "einsum");
}
