/* graph/staged-gradient.c: gradients through staged calls
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A staged call replayed under gradient tapes runs in C, as it does
 * without them, and each tape records the whole call as one step (an
 * EpComposite): its inputs are the call's inputs and the values it read
 * from variables, its outputs the call's. The step's gradient rule is
 * staged too. It comes in two forms, both made on first need.
 *
 * The backward function (recomputing) is the definition:
 *
 *   backward (inputs, leaves, output gradients) -> one gradient per source
 *
 * Its body replays the forward graph op by op under a tape of its own and
 * asks that tape for the vector-Jacobian product; tracing it writes down
 * the forward ops the rules use, recomputed, and the rules' ops (public
 * ops, which the tracer stages like any other). Its steps' outputs are
 * exactly the call's, so it is an ordinary function of tensors, and so
 * is its own backward function: a tape around a tape around a staged call
 * records the inner gradient's backward call as one step with a staged
 * backward of its own, recursively, one cache entry per level.
 *
 * Recomputing costs a forward pass in every backward pass, so once the
 * backward function has been traced for a signature, its graph is split
 * (see "Splitting" below): what does not depend on the output gradients
 * (the forward values the rules use, and what the rules compute from
 * them alone) moves into the forward replay, which outputs it as
 * residuals, and the rest is a backward graph of the residuals and the
 * output gradients. Later replays with that signature record a step whose
 * outputs are the call's and the residuals: the tape keeps the
 * residuals, as it keeps intermediates eagerly, and a first derivative
 * runs only the rest. A higher derivative flows into the residuals too;
 * the step's rule then takes the recomputing path, the backward function
 * of the forward graph with its residual outputs.
 *
 * Both forms must see the values the forward replay saw, and two kinds
 * of node do not compute theirs from the inputs: variable reads (the
 * variable may change in between, by the call's own assignments too)
 * and random draws (each replay draws new numbers). These are the
 * graph's leaves (ep_graph_node_is_leaf()). The forward replay hands out
 * the values they had, and the backward function takes them as inputs:
 * it differentiates the "pure" graph, where each leaf is an input and
 * assignments are dropped. A dropout mask is thus the same tensor in the
 * forward replay and in its backward pass, whatever the random sequence
 * did in between, and gradients with respect to a variable are taken
 * with respect to the values read, as eagerly. (The split form needs no
 * more: a mask the rules use is a residual.)
 *
 * The rule must also give no gradient where a tape running the ops one
 * by one would give none: a source is unconnected to an output if no
 * chain of ops with gradient rules joins them (found from the graph, as
 * the tape would record it), or if the backward tape found no gradient
 * for it when the backward function was traced.
 */

#include "config.h"

#include <string.h>

#include "ep-autodiff-private.h"
#include "ep-device-private.h"
#include "ep-function-private.h"
#include "ep-recorder-private.h"
#include "ep-staged-gradient-private.h"

/* What a backward function needs, made once per forward graph and set
 * of sources and immutable, but for @unconnected. */
typedef struct
{
  gatomicrefcount  ref_count;
  /* the forward graph as a function of its inputs and then its leaves */
  EpGraph         *pure;
  guint            n_inputs;
  guint            n_leaves;
  /* the sources: floating-point inputs of the recorded step (all, or
   * those a tape wanted), each an argument of the backward function (an
   * input, or a leaf) */
  guint            n_sources;
  guint           *source_arg;
  guint           *source_input;
  /* the targets: the floating-point outputs */
  guint            n_targets;
  guint           *target_output;
  /* [s * n_targets + t]: ops with gradient rules join source s to
   * target t */
  gboolean        *reaches;
  /* per source, atomic: the backward tape had no gradient for it */
  gint            *unconnected;
  /* the backward function also returns every value of the pure graph,
   * so that its graph can be split */
  gboolean         returns_values;
} Plan;

/* A backward function, for one set of sources */
typedef struct
{
  Plan       *plan;
  EpFunction *function;
} Backward;

typedef struct _Split Split;

struct _EpStagedGradient
{
  gatomicrefcount  ref_count;
  EpGraph         *graph;
  /* the pure graph; @origin: each of its nodes' node in @graph */
  EpGraph         *pure;
  guint           *origin;
  /* per leaf: its node */
  guint           *leaf_node;
  /* the user's reads (not assign_add's own): each a leaf of a variable */
  guint            n_reads;
  guint           *read_leaf;
  guint           *read_variable;
  /* the step's inputs (the call's, then the values read) */
  guint            n_step_inputs;
  /* every floating-point step input a source: which ones reach which
   * targets, to find those a tape wants */
  Plan            *plan;
  /* replays of this graph are split once they can be */
  gboolean         splits_replays;
  /* an op's output shape depends on data: replays under tapes run op by
   * op (a traced rule holds the shapes it saw) */
  gboolean         data_shaped;

  GMutex           lock;
  GHashTable      *backwards;  /* source set -> Backward, made on first need */
  GHashTable      *splits;     /* input signature -> Split */
};

static EpStagedGradient *staged_gradient_new (EpGraph  *graph,
                                              gboolean  splits_replays);

static Plan *
plan_ref (Plan *plan)
{
  g_atomic_ref_count_inc (&plan->ref_count);
  return plan;
}

static void
plan_unref (Plan *plan)
{
  if (!g_atomic_ref_count_dec (&plan->ref_count))
    return;

  ep_graph_unref (plan->pure);
  g_free (plan->source_arg);
  g_free (plan->source_input);
  g_free (plan->target_output);
  g_free (plan->reaches);
  g_free (plan->unconnected);
  g_free (plan);
}

/* Graph helpers */

static EpDType
ref_dtype (EpGraph          *graph,
           const EpValueRef *ref)
{
  switch (ref->kind)
    {
    case EP_VALUE_INPUT:
      return graph->inputs[ref->index].dtype;
    case EP_VALUE_CONSTANT:
      return ep_tensor_get_dtype (g_ptr_array_index (graph->constants, ref->index));
    case EP_VALUE_NODE:
      return ep_graph_get_node (graph, ref->index)->outputs[ref->output].dtype;
    }

  g_return_val_if_reached (EP_DTYPE_FLOAT32);
}

/* The layout and device of an input's or a node's value */
static void
ref_layout (EpGraph          *graph,
            const EpValueRef *ref,
            EpLayout         *layout,
            EpDevice        **device)
{
  if (ref->kind == EP_VALUE_INPUT)
    {
      *layout = graph->inputs[ref->index];
      *device = graph->input_devices[ref->index];
    }
  else
    {
      EpGraphNode *node = ep_graph_get_node (graph, ref->index);

      *layout = node->outputs[ref->output];
      *device = node->device;
    }
}

static void
set_inputs (EpGraph          *graph,
            guint             n_inputs,
            const EpLayout   *layouts,
            EpDevice *const  *devices)
{
  graph->n_inputs = n_inputs;
  graph->inputs = g_new (EpLayout, MAX (n_inputs, 1));
  graph->input_devices = g_new (EpDevice *, MAX (n_inputs, 1));
  if (n_inputs > 0)     /* (memcpy from NULL is undefined, even of 0 bytes) */
    {
      memcpy (graph->inputs, layouts, n_inputs * sizeof (EpLayout));
      memcpy (graph->input_devices, devices, n_inputs * sizeof (EpDevice *));
    }
}

/* A copy of @graph's inputs, constants, variables and nodes; its outputs
 * are the caller's to set. */
static EpGraph *
copy_body (EpGraph *graph)
{
  EpGraph *copy = ep_graph_new ();

  set_inputs (copy, graph->n_inputs, graph->inputs, graph->input_devices);
  for (guint c = 0; c < graph->constants->len; c++)
    ep_graph_add_constant (copy, g_ptr_array_index (graph->constants, c));
  for (guint v = 0; v < graph->variables->len; v++)
    ep_graph_add_variable (copy, g_ptr_array_index (graph->variables, v));
  for (guint n = 0; n < ep_graph_get_n_nodes (graph); n++)
    {
      EpGraphNode *node = ep_graph_get_node (graph, n);
      EpGraphNode *added = ep_graph_append_copy (copy, node);

      memcpy (added->inputs, node->inputs, node->n_inputs * sizeof (EpValueRef));
    }

  return copy;
}

/* The pure graph */

/* Where a value of @graph is in the pure graph: leaf k is input
 * n_inputs + k, other nodes are renumbered (@moved). */
static EpValueRef
pure_ref (const EpValueRef *ref,
          const EpValueRef *moved)
{
  if (ref->kind != EP_VALUE_NODE)
    return *ref;

  return (EpValueRef) { moved[ref->index].kind, moved[ref->index].index,
                        moved[ref->index].kind == EP_VALUE_NODE ? ref->output : 0 };
}

/* @graph with each leaf an input (after its own) and without its
 * assignments: what the backward function differentiates. */
static EpGraph *
make_pure (EpGraph  *graph,
           guint     n_leaves,
           guint   **origin)
{
  guint n_nodes = ep_graph_get_n_nodes (graph);
  g_autofree EpValueRef *moved = g_new0 (EpValueRef, MAX (n_nodes, 1));
  EpGraph *pure = ep_graph_new ();
  guint leaf = 0;

  *origin = g_new (guint, MAX (n_nodes, 1));
  pure->n_inputs = graph->n_inputs + n_leaves;
  pure->inputs = g_new (EpLayout, MAX (pure->n_inputs, 1));
  pure->input_devices = g_new (EpDevice *, MAX (pure->n_inputs, 1));
  memcpy (pure->inputs, graph->inputs, graph->n_inputs * sizeof (EpLayout));
  memcpy (pure->input_devices, graph->input_devices, graph->n_inputs * sizeof (EpDevice *));
  for (guint c = 0; c < graph->constants->len; c++)
    ep_graph_add_constant (pure, g_ptr_array_index (graph->constants, c));

  for (guint n = 0; n < n_nodes; n++)
    {
      EpGraphNode *node = ep_graph_get_node (graph, n);
      EpGraphNode *copy;

      if (ep_graph_node_is_leaf (node))
        {
          guint input = graph->n_inputs + leaf++;

          pure->inputs[input] = node->outputs[0];
          pure->input_devices[input] = node->device;
          moved[n] = (EpValueRef) { EP_VALUE_INPUT, input, 0 };
          continue;
        }
      if (node->kind == EP_NODE_ASSIGN)
        continue;

      (*origin)[ep_graph_get_n_nodes (pure)] = n;
      moved[n] = (EpValueRef) { EP_VALUE_NODE, ep_graph_get_n_nodes (pure), 0 };
      copy = ep_graph_append_copy (pure, node);
      for (guint i = 0; i < node->n_inputs; i++)
        copy->inputs[i] = pure_ref (&node->inputs[i], moved);
    }

  pure->n_outputs = graph->n_outputs;
  pure->outputs = g_new (EpValueRef, MAX (graph->n_outputs, 1));
  for (guint o = 0; o < graph->n_outputs; o++)
    pure->outputs[o] = pure_ref (&graph->outputs[o], moved);

  return pure;
}

/* Which targets source @s reaches in the pure graph, following what a
 * tape records: an op with a gradient rule one of whose inputs is
 * reached, and its floating-point outputs. */
static void
find_reach (Plan *plan,
            guint s)
{
  EpGraph *pure = plan->pure;
  guint n_nodes = ep_graph_get_n_nodes (pure);
  g_autofree gboolean *reached = g_new0 (gboolean, MAX (n_nodes, 1) * EP_MAX_OUTPUTS);
  guint source = plan->source_arg[s];

#define REACHED(ref)                                                        \
  ((ref)->kind == EP_VALUE_INPUT ? (ref)->index == source                   \
   : (ref)->kind == EP_VALUE_NODE && reached[(ref)->index * EP_MAX_OUTPUTS + (ref)->output])

  for (guint n = 0; n < n_nodes; n++)
    {
      EpGraphNode *node = ep_graph_get_node (pure, n);
      gboolean connected = FALSE;

      if (node->op->gradient == NULL)
        continue;
      for (guint i = 0; i < node->n_inputs && !connected; i++)
        connected = REACHED (&node->inputs[i]);
      for (guint o = 0; connected && o < node->n_outputs; o++)
        reached[n * EP_MAX_OUTPUTS + o] = ep_dtype_is_floating (node->outputs[o].dtype);
    }

  for (guint t = 0; t < plan->n_targets; t++)
    plan->reaches[s * plan->n_targets + t] = REACHED (&pure->outputs[plan->target_output[t]]);
#undef REACHED
}

/* The plan for the step inputs @sources says (every floating-point one
 * for %NULL) */
static Plan *
make_plan (EpStagedGradient *self,
           const gboolean   *sources)
{
  EpGraph *graph = self->graph;
  Plan *plan = g_new0 (Plan, 1);
  guint n_step_inputs = self->n_step_inputs;

  g_atomic_ref_count_init (&plan->ref_count);
  plan->n_inputs = graph->n_inputs;
  plan->n_leaves = self->pure->n_inputs - graph->n_inputs;
  plan->pure = ep_graph_ref (self->pure);
  plan->returns_values = self->splits_replays;

  plan->source_arg = g_new (guint, MAX (n_step_inputs, 1));
  plan->source_input = g_new (guint, MAX (n_step_inputs, 1));
  for (guint i = 0; i < n_step_inputs; i++)
    {
      guint arg = i < graph->n_inputs ? i : graph->n_inputs + self->read_leaf[i - graph->n_inputs];

      if (!ep_dtype_is_floating (plan->pure->inputs[arg].dtype) || (sources != NULL && !sources[i]))
        continue;
      plan->source_arg[plan->n_sources] = arg;
      plan->source_input[plan->n_sources++] = i;
    }

  plan->target_output = g_new (guint, MAX (graph->n_outputs, 1));
  for (guint o = 0; o < graph->n_outputs; o++)
    if (ep_dtype_is_floating (ref_dtype (graph, &graph->outputs[o])))
      plan->target_output[plan->n_targets++] = o;

  plan->reaches = g_new0 (gboolean, MAX (plan->n_sources * plan->n_targets, 1));
  plan->unconnected = g_new0 (gint, MAX (plan->n_sources, 1));
  for (guint s = 0; s < plan->n_sources; s++)
    find_reach (plan, s);

  return plan;
}

/* The backward function */

/* Its body, run when it is traced: the pure graph op by op under a tape
 * watching the sources, then the tape's gradient of the targets weighted
 * by the output gradients. Arguments: the forward inputs, the leaves,
 * one output gradient per target. Results: one gradient per source,
 * zeros where the tape found none (noted in the plan, so that the step's
 * rule gives none there either); then, when the plan says so, every
 * value of the pure graph, so that its graph tells where they are. */
static GPtrArray *
backward_body (EpTensor  **args,
               guint       n_args,
               gpointer    user_data,
               GError    **error)
{
  Plan *plan = user_data;
  EpTensor **upstream = args + plan->n_inputs + plan->n_leaves;
  g_autoptr(EpGradientTape) tape = NULL;
  g_autoptr(GPtrArray) outputs = ep_tensor_array_new (plan->pure->n_outputs);
  g_autoptr(GPtrArray) values = ep_tensor_array_new (0);
  g_autoptr(GPtrArray) grads = NULL;
  g_autoptr(GPtrArray) result = ep_tensor_array_new (plan->n_sources + values->len);
  g_autofree GObject **sources = g_new (GObject *, MAX (plan->n_sources, 1));
  g_autofree EpTensor **targets = g_new (EpTensor *, MAX (plan->n_targets, 1));
  gboolean ok;

  tape = g_object_new (EP_TYPE_GRADIENT_TAPE,
                       "watch-accessed-variables", FALSE,
                       "unconnected-gradients", EP_UNCONNECTED_GRADIENTS_NONE,
                       NULL);
  for (guint s = 0; s < plan->n_sources; s++)
    {
      sources[s] = G_OBJECT (args[plan->source_arg[s]]);
      ep_gradient_tape_watch (tape, args[plan->source_arg[s]]);
    }

  g_ptr_array_set_size (outputs, plan->pure->n_outputs);
  if (!ep_gradient_tape_start (tape, error))
    return NULL;
  ok = ep_graph_replay_eagerly_full (plan->pure, args, (EpTensor **) outputs->pdata,
                                     plan->returns_values ? values : NULL, error);
  if (!ep_gradient_tape_stop (tape, ok ? error : NULL))
    ok = FALSE;
  if (!ok)
    return NULL;

  for (guint t = 0; t < plan->n_targets; t++)
    targets[t] = g_ptr_array_index (outputs, plan->target_output[t]);
  grads = ep_gradient_tape_gradient (tape, targets, plan->n_targets, sources, plan->n_sources,
                                     upstream, plan->n_targets, error);
  if (grads == NULL)
    return NULL;

  for (guint s = 0; s < plan->n_sources; s++)
    {
      EpTensor *grad = g_ptr_array_index (grads, s);

      if (grad == NULL)
        {
          g_atomic_int_set (&plan->unconnected[s], TRUE);
          grad = ep_tensor_zeros_like (EP_TENSOR (sources[s]), error);
          if (grad == NULL)
            return NULL;
        }
      else
        g_object_ref (grad);
      g_ptr_array_add (result, grad);
    }
  for (guint v = 0; v < values->len; v++)
    g_ptr_array_add (result, g_object_ref (g_ptr_array_index (values, v)));

  return g_steal_pointer (&result);
}

static void
backward_free (gpointer data)
{
  Backward *backward = data;

  g_object_unref (backward->function);
  plan_unref (backward->plan);
  g_free (backward);
}

/* Which step inputs are sources, as a key: '1' for a floating-point
 * input that @sources says (every one for %NULL), '0' for the others */
static char *
sources_key (EpStagedGradient *self,
             const gboolean   *sources)
{
  char *key = g_malloc (self->n_step_inputs + 1);

  for (guint i = 0; i < self->n_step_inputs; i++)
    key[i] = '0';
  for (guint s = 0; s < self->plan->n_sources; s++)
    {
      guint i = self->plan->source_input[s];

      key[i] = sources == NULL || sources[i] ? '1' : '0';
    }
  key[self->n_step_inputs] = '\0';

  return key;
}

/* The backward function for the step inputs @sources says, made now if
 * it was not yet: traced on its first call (per signature), replayed
 * after. Rules differentiate only what a tape wants (ep_grad_needed()),
 * and so does a backward function: a tape that watches a model's
 * variables and not its data gets no product for the data. */
static Backward *
get_backward (EpStagedGradient *self,
              const gboolean   *sources)
{
  g_autofree char *key = sources_key (self, sources);
  Backward *backward;

  g_mutex_lock (&self->lock);
  backward = g_hash_table_lookup (self->backwards, key);
  if (backward == NULL)
    {
      backward = g_new0 (Backward, 1);
      backward->plan = make_plan (self, sources);
      backward->function = ep_function_new (backward_body, plan_ref (backward->plan),
                                            (GDestroyNotify) plan_unref);
      ep_function_set_pruning (backward->function, TRUE);
      g_hash_table_insert (self->backwards, g_steal_pointer (&key), backward);
    }
  g_mutex_unlock (&self->lock);

  /* never removed before @self is freed */
  return backward;
}

/* The backward function for @sources (every floating-point step input
 * for %NULL), if it was made, else NULL: for tests. */
EpFunction *
ep_staged_gradient_peek_backward (EpStagedGradient *self,
                                  const gboolean   *sources)
{
  g_autofree char *key = sources_key (self, sources);
  Backward *backward;

  g_mutex_lock (&self->lock);
  backward = g_hash_table_lookup (self->backwards, key);
  g_mutex_unlock (&self->lock);

  return backward != NULL ? backward->function : NULL;
}

/* Splitting
 *
 * The backward function's graph B, for one signature, takes (inputs,
 * leaves, output gradients) and returns the gradients, then every value
 * of the pure graph: so the values B recomputes are known by where B
 * returns them. Its nodes that do not depend on the output gradients
 * are "known" at forward time. The known nodes that recompute a forward
 * value are that value; the others (what the rules compute from forward
 * values alone: a transpose, 1 - y²) are appended to a copy of the
 * forward graph, F. The known values that the other nodes of B use are
 * the residuals: F outputs them after the forward graph's outputs, and
 * the rest of B, R, takes them, then the output gradients.
 *
 * A graph is split per input signature: B holds decisions made from
 * shapes (which axes a broadcast sums over). (A graph whose shapes
 * depend on data, EP_OP_FLAG_DATA_SHAPED, is replayed op by op under
 * tapes: neither form of backward pass would fit it.)
 */

struct _Split
{
  gatomicrefcount   ref_count;
  /* F: the forward graph and the residuals; its backward function is
   * the recomputing one, for derivatives that flow into residuals */
  EpStagedGradient *forward;
  guint             n_outputs;     /* the forward graph's */
  guint             n_residuals;
  /* (residuals, output gradients) -> one gradient per source of @plan,
   * the forward graph's for the step inputs @sources says */
  EpFunction       *rest;
  Plan             *plan;
  gboolean         *sources;

  GMutex            lock;
  GPtrArray        *frames;        /* EpFrame of F, free to use */
};

static Split *
split_ref (Split *split)
{
  g_atomic_ref_count_inc (&split->ref_count);
  return split;
}

static void
split_unref (Split *split)
{
  if (!g_atomic_ref_count_dec (&split->ref_count))
    return;

  ep_staged_gradient_unref (split->forward);
  g_object_unref (split->rest);
  plan_unref (split->plan);
  g_free (split->sources);
  g_ptr_array_unref (split->frames);
  g_mutex_clear (&split->lock);
  g_free (split);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Split, split_unref)

/* A signature whose graph could not be split maps to NULL */
static void
split_unref_nullable (gpointer split)
{
  if (split != NULL)
    split_unref (split);
}

/* The key of a split: each input's dtype, weakness, shape and device */
static char *
signature_of (EpTensor *const *inputs,
              guint            n_inputs)
{
  GString *key = g_string_new (NULL);

  for (guint i = 0; i < n_inputs; i++)
    {
      const EpLayout *layout = &inputs[i]->layout;

      g_string_append_printf (key, "%d%s[", layout->dtype, inputs[i]->weak ? "~" : "");
      for (guint d = 0; d < layout->ndim; d++)
        g_string_append_printf (key, "%" G_GINT64_FORMAT ",", layout->shape[d]);
      g_string_append_printf (key, "]@%s;", inputs[i]->storage->device->name);
    }

  return g_string_free (key, FALSE);
}

/* Where each value of B is in F (or nothing yet), per node and output */
typedef struct
{
  EpStagedGradient *self;
  const Plan       *plan;
  EpGraph          *b;
  EpGraph          *f;
  guint             n_known_args;   /* B's inputs before the gradients */
  gboolean         *known;          /* per node of B */
  gboolean         *placed;         /* per value of B */
  EpValueRef       *in_f;           /* per value of B */
  GHashTable       *constants;      /* B's constant + 1 -> F's + 1 */
} Deriving;

#define VALUE_INDEX(ref) ((ref)->index * EP_MAX_OUTPUTS + (ref)->output)

static gboolean
is_gradient_arg (Deriving         *d,
                 const EpValueRef *ref)
{
  return ref->kind == EP_VALUE_INPUT && ref->index >= d->n_known_args;
}

static guint
f_constant (Deriving *d,
            guint     b_constant)
{
  gpointer found = g_hash_table_lookup (d->constants, GUINT_TO_POINTER (b_constant + 1));
  guint index;

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;

  index = ep_graph_add_constant (d->f, g_ptr_array_index (d->b->constants, b_constant));
  g_hash_table_insert (d->constants, GUINT_TO_POINTER (b_constant + 1), GUINT_TO_POINTER (index + 1));
  return index;
}

/* Where a known value of B is in F */
static EpValueRef
f_ref (Deriving         *d,
       const EpValueRef *ref)
{
  guint n_inputs = d->self->graph->n_inputs;

  switch (ref->kind)
    {
    case EP_VALUE_INPUT:
      if (ref->index < n_inputs)
        return *ref;
      return (EpValueRef) { EP_VALUE_NODE, d->self->leaf_node[ref->index - n_inputs], 0 };
    case EP_VALUE_CONSTANT:
      return (EpValueRef) { EP_VALUE_CONSTANT, f_constant (d, ref->index), 0 };
    case EP_VALUE_NODE:
      g_assert (d->placed[VALUE_INDEX (ref)]);
      return d->in_f[VALUE_INDEX (ref)];
    }

  g_return_val_if_reached (*ref);
}

static void
place (Deriving         *d,
       const EpValueRef *b_ref,
       EpValueRef        in_f)
{
  d->placed[VALUE_INDEX (b_ref)] = TRUE;
  d->in_f[VALUE_INDEX (b_ref)] = in_f;
}

/* The forward values B recomputes are where B returns them; FALSE if B
 * does not look as expected (then no split). */
static gboolean
place_recomputed (Deriving *d)
{
  const Plan *plan = d->plan;
  EpGraph *pure = plan->pure;
  guint k = plan->n_sources;

  for (guint p = 0; p < ep_graph_get_n_nodes (pure); p++)
    for (guint o = 0; o < ep_graph_get_node (pure, p)->n_outputs; o++, k++)
      {
        const EpValueRef *ref;

        if (k >= d->b->n_outputs)
          return FALSE;
        ref = &d->b->outputs[k];
        if (ref->kind != EP_VALUE_NODE || !d->known[ref->index])
          return FALSE;
        place (d, ref, (EpValueRef) { EP_VALUE_NODE, d->self->origin[p], o });
      }

  return k == d->b->n_outputs;
}

/* Marks B's nodes that do not depend on the output gradients. */
static void
find_known (Deriving *d)
{
  for (guint n = 0; n < ep_graph_get_n_nodes (d->b); n++)
    {
      EpGraphNode *node = ep_graph_get_node (d->b, n);

      d->known[n] = TRUE;
      for (guint i = 0; i < node->n_inputs && d->known[n]; i++)
        {
          const EpValueRef *ref = &node->inputs[i];

          d->known[n] = !is_gradient_arg (d, ref)
                        && (ref->kind != EP_VALUE_NODE || d->known[ref->index]);
        }
    }
}

/* The known nodes of B that recompute nothing go to the end of F. */
static void
append_known (Deriving *d)
{
  for (guint n = 0; n < ep_graph_get_n_nodes (d->b); n++)
    {
      EpGraphNode *node = ep_graph_get_node (d->b, n);
      EpValueRef first = { EP_VALUE_NODE, n, 0 };
      guint index = ep_graph_get_n_nodes (d->f);
      g_autofree EpValueRef *inputs = NULL;
      EpGraphNode *copy;

      if (!d->known[n] || d->placed[VALUE_INDEX (&first)])
        continue;

      inputs = g_new (EpValueRef, MAX (node->n_inputs, 1));
      for (guint i = 0; i < node->n_inputs; i++)
        inputs[i] = f_ref (d, &node->inputs[i]);
      copy = ep_graph_append_copy (d->f, node);
      memcpy (copy->inputs, inputs, node->n_inputs * sizeof (EpValueRef));
      for (guint o = 0; o < node->n_outputs; o++)
        place (d, &(EpValueRef) { EP_VALUE_NODE, n, o }, (EpValueRef) { EP_VALUE_NODE, index, o });
    }
}

/* The residual a known value of B is, added if new: its index. */
static guint
residual_of (Deriving         *d,
             GArray           *residuals,
             const EpValueRef *b_ref)
{
  EpValueRef in_f = f_ref (d, b_ref);

  for (guint r = 0; r < residuals->len; r++)
    {
      EpValueRef *seen = &g_array_index (residuals, EpValueRef, r);

      if (seen->kind == in_f.kind && seen->index == in_f.index && seen->output == in_f.output)
        return r;
    }
  g_array_append_val (residuals, in_f);
  return residuals->len - 1;
}

/* Where a value of B is in R: a residual, an output gradient, a
 * constant, or a node of R (@moved). */
static EpValueRef
rest_ref (Deriving         *d,
          GArray           *residuals,
          const guint      *moved,
          EpGraph          *rest,
          const EpValueRef *ref)
{
  if (is_gradient_arg (d, ref))
    return (EpValueRef) { EP_VALUE_INPUT, residuals->len + ref->index - d->n_known_args, 0 };
  if (ref->kind == EP_VALUE_CONSTANT)
    return (EpValueRef) { EP_VALUE_CONSTANT,
                          ep_graph_add_constant (rest, g_ptr_array_index (d->b->constants, ref->index)), 0 };
  if (ref->kind == EP_VALUE_NODE && !d->known[ref->index])
    return (EpValueRef) { EP_VALUE_NODE, moved[ref->index], ref->output };

  return (EpValueRef) { EP_VALUE_INPUT, residual_of (d, residuals, ref), 0 };
}

/* R: B's other nodes, of the residuals and the output gradients; the
 * residuals are found on the way (a first pass counts them, so that the
 * output gradients can come after them). */
static EpGraph *
make_rest (Deriving *d,
           GArray   *residuals)
{
  guint n_nodes = ep_graph_get_n_nodes (d->b);
  guint n_grads = d->plan->n_sources;
  g_autofree guint *moved = g_new0 (guint, MAX (n_nodes, 1));
  g_autoptr(EpGraph) scratch = ep_graph_new ();
  guint n_gradient_args = d->b->n_inputs - d->n_known_args;
  g_autofree EpLayout *layouts = NULL;
  g_autofree EpDevice **devices = NULL;
  EpGraph *rest = ep_graph_new ();

  for (guint pass = 0; pass < 2; pass++)
    {
      EpGraph *into = pass == 0 ? scratch : rest;

      for (guint n = 0; n < n_nodes; n++)
        {
          EpGraphNode *node = ep_graph_get_node (d->b, n);
          g_autofree EpValueRef *inputs = NULL;
          EpGraphNode *copy;

          if (d->known[n])
            continue;
          inputs = g_new (EpValueRef, MAX (node->n_inputs, 1));
          for (guint i = 0; i < node->n_inputs; i++)
            inputs[i] = rest_ref (d, residuals, moved, into, &node->inputs[i]);
          moved[n] = ep_graph_get_n_nodes (into);
          copy = ep_graph_append_copy (into, node);
          memcpy (copy->inputs, inputs, node->n_inputs * sizeof (EpValueRef));
        }
      into->n_outputs = n_grads;
      into->outputs = g_new (EpValueRef, MAX (n_grads, 1));
      for (guint o = 0; o < n_grads; o++)
        into->outputs[o] = rest_ref (d, residuals, moved, into, &d->b->outputs[o]);
    }

  layouts = g_new (EpLayout, residuals->len + n_gradient_args);
  devices = g_new (EpDevice *, residuals->len + n_gradient_args);
  for (guint r = 0; r < residuals->len; r++)
    ref_layout (d->f, &g_array_index (residuals, EpValueRef, r), &layouts[r], &devices[r]);
  for (guint g = 0; g < n_gradient_args; g++)
    {
      layouts[residuals->len + g] = d->b->inputs[d->n_known_args + g];
      devices[residuals->len + g] = d->b->input_devices[d->n_known_args + g];
    }
  set_inputs (rest, residuals->len + n_gradient_args, layouts, devices);

  return rest;
}

/* A function that replays a graph it is given: R as a staged function,
 * whose own replays under tapes are steps with a staged backward. */
static GPtrArray *
replay_body (EpTensor  **args,
             guint       n_args,
             gpointer    user_data,
             GError    **error)
{
  EpGraph *graph = user_data;
  g_autoptr(GPtrArray) outputs = ep_tensor_array_new (graph->n_outputs);

  g_ptr_array_set_size (outputs, graph->n_outputs);
  if (!ep_graph_replay_eagerly (graph, args, (EpTensor **) outputs->pdata, error))
    return NULL;

  return g_steal_pointer (&outputs);
}

/* The split of @self's graph by the graph @b of @backward, the backward
 * function for the step inputs @sources says; NULL if @b does not look
 * as expected. */
static Split *
derive_split (EpStagedGradient *self,
              Backward         *backward,
              const gboolean   *sources,
              EpGraph          *b)
{
  guint n_values = ep_graph_get_n_nodes (b) * EP_MAX_OUTPUTS;
  g_autoptr(GArray) residuals = g_array_new (FALSE, FALSE, sizeof (EpValueRef));
  g_autoptr(GHashTable) constants = g_hash_table_new (NULL, NULL);
  g_autofree gboolean *known = g_new0 (gboolean, MAX (ep_graph_get_n_nodes (b), 1));
  g_autofree gboolean *placed = g_new0 (gboolean, MAX (n_values, 1));
  g_autofree EpValueRef *in_f = g_new0 (EpValueRef, MAX (n_values, 1));
  g_autoptr(EpGraph) f = copy_body (self->graph);
  g_autoptr(EpGraph) pruned = NULL;
  g_autoptr(EpGraph) rest = NULL;
  Deriving d = { self, backward->plan, b, f, self->plan->n_inputs + self->plan->n_leaves,
                 known, placed, in_f, constants };
  Split *split;

  find_known (&d);
  if (!place_recomputed (&d))
    return NULL;
  append_known (&d);
  rest = make_rest (&d, residuals);

  f->n_outputs = self->graph->n_outputs + residuals->len;
  f->outputs = g_new (EpValueRef, MAX (f->n_outputs, 1));
  memcpy (f->outputs, self->graph->outputs, self->graph->n_outputs * sizeof (EpValueRef));
  if (residuals->len > 0)
    memcpy (f->outputs + self->graph->n_outputs, residuals->data, residuals->len * sizeof (EpValueRef));
  pruned = ep_graph_prune (f);

  split = g_new0 (Split, 1);
  g_atomic_ref_count_init (&split->ref_count);
  g_mutex_init (&split->lock);
  split->forward = staged_gradient_new (pruned, FALSE);
  split->n_outputs = self->graph->n_outputs;
  split->n_residuals = residuals->len;
  split->rest = ep_function_new (replay_body, ep_graph_ref (rest), (GDestroyNotify) ep_graph_unref);
  ep_function_set_pruning (split->rest, TRUE);
  split->plan = plan_ref (backward->plan);
  split->sources = g_memdup2 (sources, MAX (self->n_step_inputs, 1) * sizeof (gboolean));
  split->frames = g_ptr_array_new_with_free_func ((GDestroyNotify) ep_frame_free);

  return split;
}

static gboolean
same_sources (EpStagedGradient *self,
              const gboolean   *a,
              const gboolean   *b)
{
  return memcmp (a, b, self->n_step_inputs * sizeof (gboolean)) == 0;
}

/* Splits @self's graph for the signature of @args (the arguments
 * @backward, for the step inputs @sources says, has just been called
 * with), unless it is split for these sources already, or could not be.
 * A split for other sources gives way: the caller asks for those it
 * covered too, so that sets of sources only grow. */
static void
maybe_split (EpStagedGradient  *self,
             Backward          *backward,
             const gboolean    *sources,
             EpTensor *const   *args)
{
  g_autofree char *key = signature_of (args, self->plan->n_inputs);
  g_autoptr(EpGraph) b = NULL;
  Split *split;
  gboolean done;

  g_mutex_lock (&self->lock);
  split = g_hash_table_lookup (self->splits, key);
  done = g_hash_table_contains (self->splits, key)
         && (split == NULL || same_sources (self, split->sources, sources));
  g_mutex_unlock (&self->lock);
  if (done)
    return;

  b = ep_function_lookup_graph (backward->function, (EpTensor **) args,
                                self->plan->n_inputs + self->plan->n_leaves + self->plan->n_targets);
  split = b != NULL ? derive_split (self, backward, sources, b) : NULL;

  g_mutex_lock (&self->lock);
  g_hash_table_replace (self->splits, g_steal_pointer (&key), split);
  g_mutex_unlock (&self->lock);
}

static Split *lookup_split (EpStagedGradient  *self,
                            EpTensor *const   *inputs);

/* The rest of the split for @inputs, if it was made: for tests. */
EpFunction *
ep_staged_gradient_peek_rest (EpStagedGradient  *self,
                              EpTensor *const   *inputs)
{
  g_autoptr(Split) split = lookup_split (self, inputs);

  return split != NULL ? split->rest : NULL;
}

/* One recorded call */

/* What the recomputing rule of one recorded call needs: the backward
 * function's arguments but the output gradients, and the targets (for
 * the zeros of those that get no gradient). */
typedef struct
{
  EpStagedGradient *owner;
  GPtrArray        *args;
  GPtrArray        *targets;
  gboolean          may_split;   /* split the graph after the call */
} CallRecord;

static void
call_record_free (gpointer data)
{
  CallRecord *record = data;

  ep_staged_gradient_unref (record->owner);
  g_ptr_array_unref (record->args);
  g_ptr_array_unref (record->targets);
  g_free (record);
}

static CallRecord *
call_record_new (EpStagedGradient  *owner,
                 EpTensor *const   *inputs,
                 GPtrArray         *leaves,
                 EpTensor *const   *outputs)
{
  const Plan *plan = owner->plan;
  CallRecord *record = g_new0 (CallRecord, 1);

  record->owner = ep_staged_gradient_ref (owner);
  record->args = ep_tensor_array_new (plan->n_inputs + plan->n_leaves);
  for (guint i = 0; i < plan->n_inputs; i++)
    g_ptr_array_add (record->args, g_object_ref (inputs[i]));
  for (guint k = 0; k < plan->n_leaves; k++)
    g_ptr_array_add (record->args, g_object_ref (g_ptr_array_index (leaves, k)));
  record->targets = ep_tensor_array_new (plan->n_targets);
  for (guint t = 0; t < plan->n_targets; t++)
    g_ptr_array_add (record->targets, g_object_ref (outputs[plan->target_output[t]]));
  record->may_split = owner->splits_replays;

  return record;
}

/* Which step inputs get a gradient (@wanted, one per step input): the
 * floating-point ones the tape wants that reach a target with a
 * gradient. */
static gboolean
find_wanted (EpStagedGradient  *self,
             EpTensor *const   *output_grads,
             const gboolean    *needed,
             gboolean          *wanted)
{
  const Plan *plan = self->plan;
  gboolean any = FALSE;

  memset (wanted, 0, MAX (self->n_step_inputs, 1) * sizeof (gboolean));
  for (guint s = 0; s < plan->n_sources; s++)
    {
      guint i = plan->source_input[s];

      if (!needed[i])
        continue;
      for (guint t = 0; t < plan->n_targets && !wanted[i]; t++)
        wanted[i] = output_grads[plan->target_output[t]] != NULL
                    && plan->reaches[s * plan->n_targets + t];
      any |= wanted[i];
    }

  return any;
}

/* What a call kept may have been released since (ep_tensor_release()) */
static gboolean
check_alive (GPtrArray  *tensors,
             GError    **error)
{
  for (guint k = 0; k < tensors->len; k++)
    if (!ep_tensor_check_alive (g_ptr_array_index (tensors, k), "function", error))
      return FALSE;

  return TRUE;
}

/* Adds one output gradient per target to @args: the one given, or zeros */
static gboolean
add_output_grads (GPtrArray        *args,
                  const Plan       *plan,
                  EpTensor *const  *output_grads,
                  GPtrArray        *targets,
                  GError          **error)
{
  for (guint t = 0; t < plan->n_targets; t++)
    {
      EpTensor *grad = output_grads[plan->target_output[t]];

      grad = grad != NULL ? g_object_ref (grad)
                          : ep_tensor_zeros_like (g_ptr_array_index (targets, t), error);
      if (grad == NULL)
        return FALSE;
      g_ptr_array_add (args, grad);
    }

  return TRUE;
}

/* Sets the gradients of the wanted step inputs from @grads (one per
 * source of @plan) */
static void
give_grads (const Plan      *plan,
            const gboolean  *wanted,
            GPtrArray       *grads,
            EpTensor       **input_grads)
{
  /* the flags are final once the backward function was traced */
  for (guint s = 0; s < plan->n_sources; s++)
    {
      guint i = plan->source_input[s];

      if (wanted[i] && !g_atomic_int_get (&plan->unconnected[s]))
        input_grads[i] = g_object_ref (g_ptr_array_index (grads, s));
    }
}

/* The split for @inputs, if there is one (transfer full). */
static Split *
lookup_split (EpStagedGradient  *self,
              EpTensor *const   *inputs)
{
  g_autofree char *key = NULL;
  Split *split;

  if (!self->splits_replays)
    return NULL;

  key = signature_of (inputs, self->graph->n_inputs);
  g_mutex_lock (&self->lock);
  split = g_hash_table_lookup (self->splits, key);
  if (split != NULL)
    split_ref (split);
  g_mutex_unlock (&self->lock);

  return split;
}

/* The recomputing rule: a call of the backward function, which outer
 * tapes record as one step in turn. */
static gboolean
record_gradient (CallRecord       *record,
                 EpTensor *const  *output_grads,
                 const gboolean   *needed,
                 EpTensor        **input_grads,
                 GError          **error)
{
  EpStagedGradient *self = record->owner;
  const Plan *plan = self->plan;
  g_autofree gboolean *wanted = g_new (gboolean, MAX (self->n_step_inputs, 1));
  g_autofree gboolean *sources = NULL;
  g_autoptr(GPtrArray) args = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  g_autoptr(Split) split = NULL;
  Backward *backward;

  if (!find_wanted (self, output_grads, needed, wanted))
    return TRUE;
  if (!check_alive (record->args, error))
    return FALSE;

  /* what the split covers too, so that it only grows */
  sources = g_memdup2 (wanted, MAX (self->n_step_inputs, 1) * sizeof (gboolean));
  split = record->may_split ? lookup_split (self, (EpTensor *const *) record->args->pdata) : NULL;
  for (guint i = 0; split != NULL && i < self->n_step_inputs; i++)
    sources[i] |= split->sources[i];
  backward = get_backward (self, sources);

  args = ep_tensor_array_new (record->args->len + plan->n_targets);
  for (guint a = 0; a < record->args->len; a++)
    g_ptr_array_add (args, g_object_ref (g_ptr_array_index (record->args, a)));
  if (!add_output_grads (args, plan, output_grads, record->targets, error))
    return FALSE;

  grads = ep_function_call (backward->function, (EpTensor **) args->pdata, args->len, error);
  if (grads == NULL)
    return FALSE;
  if (record->may_split)
    maybe_split (self, backward, sources, (EpTensor *const *) args->pdata);

  give_grads (backward->plan, wanted, grads, input_grads);
  return TRUE;
}

static gboolean
call_gradient (EpComposite      *composite,
               EpTensor *const  *output_grads,
               const gboolean   *needed,
               EpTensor        **input_grads,
               GError          **error)
{
  return record_gradient (composite->data, output_grads, needed, input_grads, error);
}

/* A call replayed split: F's step, whose outputs are the call's and
 * the residuals */
typedef struct
{
  Split      *split;
  CallRecord *call;         /* the forward graph's recomputing rule */
  CallRecord *whole;        /* F's */
  GPtrArray  *residuals;
} SplitRecord;

static void
split_record_free (gpointer data)
{
  SplitRecord *record = data;

  split_unref (record->split);
  call_record_free (record->call);
  call_record_free (record->whole);
  g_ptr_array_unref (record->residuals);
  g_free (record);
}

/* The rule of a split call: R on the residuals for a first derivative
 * with respect to sources the split covers; the forward graph's
 * recomputing rule for other sources (which splits it again, for them
 * too); F's when a gradient flows into the residuals (a higher
 * derivative through the backward pass). */
static gboolean
split_gradient (EpComposite      *composite,
                EpTensor *const  *output_grads,
                const gboolean   *needed,
                EpTensor        **input_grads,
                GError          **error)
{
  SplitRecord *record = composite->data;
  EpStagedGradient *self = record->call->owner;
  Split *split = record->split;
  const Plan *plan = split->plan;
  g_autofree gboolean *wanted = g_new (gboolean, MAX (self->n_step_inputs, 1));
  g_autoptr(GPtrArray) args = NULL;
  g_autoptr(GPtrArray) grads = NULL;

  for (guint r = 0; r < split->n_residuals; r++)
    if (output_grads[split->n_outputs + r] != NULL)
      return record_gradient (record->whole, output_grads, needed, input_grads, error);

  if (!find_wanted (self, output_grads, needed, wanted))
    return TRUE;
  if (!check_alive (record->call->args, error))
    return FALSE;
  for (guint i = 0; i < self->n_step_inputs; i++)
    if (wanted[i] && !split->sources[i])
      return record_gradient (record->call, output_grads, needed, input_grads, error);

  args = ep_tensor_array_new (record->residuals->len + plan->n_targets);
  for (guint r = 0; r < record->residuals->len; r++)
    g_ptr_array_add (args, g_object_ref (g_ptr_array_index (record->residuals, r)));
  if (!add_output_grads (args, plan, output_grads, record->call->targets, error))
    return FALSE;

  grads = ep_function_call (split->rest, (EpTensor **) args->pdata, args->len, error);
  if (grads == NULL)
    return FALSE;

  give_grads (plan, wanted, grads, input_grads);
  return TRUE;
}

/* Replays */

/* Tells the recorders of the user's reads, as ep_variable_read() would,
 * and gathers the step's inputs: the call's, then the values read. */
static EpTensor **
step_inputs (EpStagedGradient  *self,
             EpTensor *const   *inputs,
             GPtrArray         *leaves)
{
  EpGraph *graph = self->graph;
  EpTensor **step = g_new (EpTensor *, MAX (graph->n_inputs + self->n_reads, 1));

  for (guint i = 0; i < graph->n_inputs; i++)
    step[i] = inputs[i];
  for (guint r = 0; r < self->n_reads; r++)
    {
      EpTensor *value = g_ptr_array_index (leaves, self->read_leaf[r]);

      ep_recorders_notify_variable (g_ptr_array_index (graph->variables, self->read_variable[r]),
                                    value, EP_VARIABLE_READ);
      step[graph->n_inputs + r] = value;
    }

  return step;
}

static gboolean
record_step (EpStagedGradient     *self,
             EpTensor *const      *inputs,
             GPtrArray            *leaves,
             EpTensor *const      *outputs,
             guint                 n_outputs,
             EpCompositeGradFunc   gradient,
             gpointer              data,
             GDestroyNotify        destroy,
             GError              **error)
{
  g_autofree EpTensor **step = step_inputs (self, inputs, leaves);
  g_autoptr(EpComposite) composite = ep_composite_new ("function", gradient, data, destroy);

  return ep_recorders_notify_composite (composite, step, self->graph->n_inputs + self->n_reads,
                                        outputs, n_outputs, error);
}

/* A replay of F: the call's outputs and the residuals */
static gboolean
replay_split (EpStagedGradient  *self,
              Split             *split,
              EpTensor *const   *inputs,
              EpTensor         **outputs,
              GError           **error)
{
  EpStagedGradient *forward = split->forward;
  EpGraph *f = forward->graph;
  g_autoptr(GPtrArray) all = ep_tensor_array_new (f->n_outputs);
  g_autoptr(GPtrArray) leaves = ep_tensor_array_new (forward->plan->n_leaves);
  EpFrame *frame = NULL;
  SplitRecord *record;
  gboolean ok;

  g_ptr_array_set_size (all, f->n_outputs);
  g_ptr_array_set_size (leaves, forward->plan->n_leaves);
  g_mutex_lock (&split->lock);
  if (split->frames->len > 0)
    frame = g_ptr_array_steal_index_fast (split->frames, split->frames->len - 1);
  g_mutex_unlock (&split->lock);
  if (frame == NULL)
    frame = ep_frame_new (f);

  ok = ep_graph_replay_full (f, frame, inputs, NULL, (EpTensor **) all->pdata,
                             (EpTensor **) leaves->pdata, NULL, error);

  g_mutex_lock (&split->lock);
  g_ptr_array_add (split->frames, frame);
  g_mutex_unlock (&split->lock);
  if (!ok)
    return FALSE;

  record = g_new0 (SplitRecord, 1);
  record->split = split_ref (split);
  record->call = call_record_new (self, inputs, leaves, (EpTensor *const *) all->pdata);
  record->whole = call_record_new (forward, inputs, leaves, (EpTensor *const *) all->pdata);
  record->residuals = ep_tensor_array_new (split->n_residuals);
  for (guint r = 0; r < split->n_residuals; r++)
    g_ptr_array_add (record->residuals, g_object_ref (g_ptr_array_index (all, split->n_outputs + r)));

  if (!record_step (forward, inputs, leaves, (EpTensor *const *) all->pdata, f->n_outputs,
                    split_gradient, record, split_record_free, error))
    return FALSE;

  for (guint o = 0; o < split->n_outputs; o++)
    outputs[o] = g_object_ref (g_ptr_array_index (all, o));
  return TRUE;
}

/*
 * ep_staged_gradient_replay:
 * @self: the gradient of the graph to replay
 * @frame: a frame of that graph that no other replay uses now
 * @inputs: tensors fitting the graph's inputs
 * @outputs: (out): room for the graph's outputs
 * @error: return location for an error
 *
 * Replays the graph (or, once it is split for these inputs' signature,
 * the graph and the residuals) and hands the call to the active recorders
 * as one step, which the gradient tapes among them record if it depends
 * on what they watch. The values read from variables are read as
 * ep_variable_read() reads them: tapes watch them as they would eagerly
 * (trainable variables, when they watch accessed variables). A graph
 * whose shapes depend on data is replayed op by op instead
 * (ep_graph_replay_eagerly()).
 */
gboolean
ep_staged_gradient_replay (EpStagedGradient  *self,
                           EpFrame           *frame,
                           EpTensor *const   *inputs,
                           EpTensor         **outputs,
                           GError           **error)
{
  EpGraph *graph = self->graph;
  g_autoptr(Split) split = NULL;
  g_autoptr(GPtrArray) leaves = NULL;
  CallRecord *record;

  if (self->data_shaped)
    return ep_graph_replay_eagerly (graph, inputs, outputs, error);

  split = lookup_split (self, inputs);
  if (split != NULL)
    return replay_split (self, split, inputs, outputs, error);

  leaves = ep_tensor_array_new (self->plan->n_leaves);
  g_ptr_array_set_size (leaves, self->plan->n_leaves);
  if (!ep_graph_replay_full (graph, frame, inputs, NULL, outputs, (EpTensor **) leaves->pdata, NULL, error))
    return FALSE;

  record = call_record_new (self, inputs, leaves, outputs);
  if (!record_step (self, inputs, leaves, outputs, graph->n_outputs,
                    call_gradient, record, call_record_free, error))
    {
      for (guint o = 0; o < graph->n_outputs; o++)
        g_clear_object (&outputs[o]);
      return FALSE;
    }

  return TRUE;
}

static gboolean
is_data_shaped (EpGraph *graph)
{
  for (guint n = 0; n < ep_graph_get_n_nodes (graph); n++)
    {
      EpGraphNode *node = ep_graph_get_node (graph, n);

      if (node->kind == EP_NODE_OP && (node->op->flags & EP_OP_FLAG_DATA_SHAPED))
        return TRUE;
    }

  return FALSE;
}

static EpStagedGradient *
staged_gradient_new (EpGraph  *graph,
                     gboolean  splits_replays)
{
  EpStagedGradient *self = g_new0 (EpStagedGradient, 1);
  guint n_nodes = ep_graph_get_n_nodes (graph);
  guint leaf = 0;

  g_atomic_ref_count_init (&self->ref_count);
  g_mutex_init (&self->lock);
  self->graph = ep_graph_ref (graph);
  self->data_shaped = is_data_shaped (graph);
  self->splits_replays = splits_replays && !self->data_shaped;
  self->splits = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, split_unref_nullable);
  self->backwards = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, backward_free);

  self->leaf_node = g_new (guint, MAX (n_nodes, 1));
  self->read_leaf = g_new (guint, MAX (n_nodes, 1));
  self->read_variable = g_new (guint, MAX (n_nodes, 1));
  for (guint n = 0; n < n_nodes; n++)
    {
      EpGraphNode *node = ep_graph_get_node (graph, n);

      if (!ep_graph_node_is_leaf (node))
        continue;
      if (node->kind == EP_NODE_READ && !node->peek)
        {
          self->read_leaf[self->n_reads] = leaf;
          self->read_variable[self->n_reads++] = node->variable;
        }
      self->leaf_node[leaf++] = n;
    }
  self->n_step_inputs = graph->n_inputs + self->n_reads;
  self->pure = make_pure (graph, leaf, &self->origin);
  self->plan = make_plan (self, NULL);

  return self;
}

/* The gradient of a function's graph: replays under tapes are split once
 * they can be. */
EpStagedGradient *
ep_staged_gradient_new (EpGraph *graph)
{
  return staged_gradient_new (graph, TRUE);
}

EpStagedGradient *
ep_staged_gradient_ref (EpStagedGradient *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
ep_staged_gradient_unref (EpStagedGradient *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  g_hash_table_unref (self->backwards);
  g_hash_table_unref (self->splits);
  plan_unref (self->plan);
  ep_graph_unref (self->pure);
  g_free (self->origin);
  ep_graph_unref (self->graph);
  g_free (self->leaf_node);
  g_free (self->read_leaf);
  g_free (self->read_variable);
  g_mutex_clear (&self->lock);
  g_free (self);
}
