/* graph/staged-gradient.c: gradients through staged calls
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A staged call replayed under gradient tapes runs its graph in C, as it
 * does without them (ep_graph_replay_full()), and each tape records the
 * whole call as one step (an EpComposite): its inputs are the call's
 * inputs and the values it read from variables, its outputs the call's.
 * The step's gradient rule is itself a staged function, the backward
 * function, made once per forward graph and traced on first need:
 *
 *   backward (inputs, leaves, output gradients) -> one gradient per source
 *
 * Its body replays the forward graph op by op under a tape of its own and
 * asks that tape for the vector-Jacobian product, so the backward graph is
 * the forward ops the gradient rules use (recomputed) followed by the
 * rules' ops: the rules are public ops, and the tracer writes them down
 * like any other. Pruning (graph/prune.c) drops the recomputed ops no rule
 * needs.
 *
 * Why recompute rather than have the forward replay also return the
 * intermediates the rules use: the step's outputs are exactly the call's,
 * so the backward function is an ordinary function of tensors, and so is
 * its own backward function. A tape around a tape around a staged call
 * records the inner gradient's backward call as one step with a staged
 * backward of its own, recursively, with one cache entry per level; the
 * intermediates would instead be outputs of the forward step that a
 * second derivative has to flow through as well. The price is one more
 * forward pass inside each backward pass, paid in C.
 *
 * Recomputing must see the values the forward replay saw, and two kinds
 * of node do not compute theirs from the inputs: variable reads (the
 * variable may change in between, by the call's own assignments too)
 * and random draws (each replay draws new numbers). These are the
 * graph's leaves (ep_graph_node_is_leaf()). The forward replay hands out
 * the values they had, and the backward function takes them as inputs:
 * it differentiates the "pure" graph, where each leaf is an input and
 * assignments are dropped. A dropout mask is thus the same tensor in the
 * forward replay and in its backward pass, whatever the random sequence
 * did in between, and gradients with respect to a variable are taken
 * with respect to the values read, as eagerly.
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

/* What the backward function needs, made once per forward graph and
 * immutable, but for @unconnected. */
typedef struct
{
  gatomicrefcount  ref_count;
  /* the forward graph as a function of its inputs and then its leaves */
  EpGraph         *pure;
  guint            n_inputs;
  guint            n_leaves;
  /* the sources: the floating-point inputs of the recorded step, each an
   * argument of the backward function (an input, or a leaf) */
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
} Plan;

struct _EpStagedGradient
{
  gatomicrefcount  ref_count;
  EpGraph         *graph;
  Plan            *plan;
  /* the user's reads (not assign_add's own): each a leaf of a variable */
  guint            n_reads;
  guint           *read_leaf;
  guint           *read_variable;

  GMutex           lock;
  EpFunction      *backward;   /* under the lock; made on first need */
};

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

/* The pure graph */

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

/* Where a value of @graph is in the pure graph: leaf k is input
 * n_inputs + k, other nodes are renumbered (@moved). */
static EpValueRef
pure_ref (EpGraph          *graph,
          const EpValueRef *ref,
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
make_pure (EpGraph *graph,
           guint    n_leaves)
{
  guint n_nodes = ep_graph_get_n_nodes (graph);
  g_autofree EpValueRef *moved = g_new0 (EpValueRef, MAX (n_nodes, 1));
  EpGraph *pure = ep_graph_new ();
  guint leaf = 0;

  pure->n_inputs = graph->n_inputs + n_leaves;
  pure->inputs = g_new (EpLayout, MAX (pure->n_inputs, 1));
  pure->input_devices = g_new (EpDevice *, MAX (pure->n_inputs, 1));
  for (guint i = 0; i < graph->n_inputs; i++)
    {
      pure->inputs[i] = graph->inputs[i];
      pure->input_devices[i] = graph->input_devices[i];
    }
  for (guint c = 0; c < graph->constants->len; c++)
    ep_graph_add_constant (pure, g_ptr_array_index (graph->constants, c));

  for (guint n = 0; n < n_nodes; n++)
    {
      EpGraphNode *node = ep_graph_get_node (graph, n);
      EpGraphNode *copy;
      g_autofree EpValueRef *inputs = NULL;

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

      moved[n] = (EpValueRef) { EP_VALUE_NODE, ep_graph_get_n_nodes (pure), 0 };
      copy = ep_graph_add_node (pure, EP_NODE_OP, node->n_inputs);
      inputs = copy->inputs;
      *copy = *node;
      copy->inputs = g_steal_pointer (&inputs);
      for (guint i = 0; i < node->n_inputs; i++)
        copy->inputs[i] = pure_ref (graph, &node->inputs[i], moved);
    }

  pure->n_outputs = graph->n_outputs;
  pure->outputs = g_new (EpValueRef, MAX (graph->n_outputs, 1));
  for (guint o = 0; o < graph->n_outputs; o++)
    pure->outputs[o] = pure_ref (graph, &graph->outputs[o], moved);

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

static Plan *
make_plan (EpStagedGradient *self)
{
  EpGraph *graph = self->graph;
  Plan *plan = g_new0 (Plan, 1);
  guint n_step_inputs = graph->n_inputs + self->n_reads;

  g_atomic_ref_count_init (&plan->ref_count);
  plan->n_inputs = graph->n_inputs;
  plan->n_leaves = ep_graph_count_leaves (graph);
  plan->pure = make_pure (graph, plan->n_leaves);

  plan->source_arg = g_new (guint, MAX (n_step_inputs, 1));
  plan->source_input = g_new (guint, MAX (n_step_inputs, 1));
  for (guint i = 0; i < n_step_inputs; i++)
    {
      guint arg = i < graph->n_inputs ? i : graph->n_inputs + self->read_leaf[i - graph->n_inputs];

      if (!ep_dtype_is_floating (plan->pure->inputs[arg].dtype))
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
 * rule gives none there either). */
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
  g_autoptr(GPtrArray) grads = NULL;
  g_autoptr(GPtrArray) result = ep_tensor_array_new (plan->n_sources);
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
  ok = ep_graph_replay_eagerly (plan->pure, args, (EpTensor **) outputs->pdata, error);
  ep_gradient_tape_stop (tape, NULL);
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

  return g_steal_pointer (&result);
}

/* The backward function of @self's graph, made now if it was not yet:
 * traced on its first call (per signature), replayed after. */
EpFunction *
ep_staged_gradient_get_backward (EpStagedGradient *self)
{
  EpFunction *backward;

  g_mutex_lock (&self->lock);
  if (self->backward == NULL)
    {
      self->backward = ep_function_new (backward_body, plan_ref (self->plan),
                                        (GDestroyNotify) plan_unref);
      ep_function_set_pruning (self->backward, TRUE);
    }
  backward = self->backward;
  g_mutex_unlock (&self->lock);

  return backward;
}

/* The backward function if it was made, else NULL: for tests. */
EpFunction *
ep_staged_gradient_peek_backward (EpStagedGradient *self)
{
  EpFunction *backward;

  g_mutex_lock (&self->lock);
  backward = self->backward;
  g_mutex_unlock (&self->lock);

  return backward;
}

/* One recorded call */

/* What the rule of one recorded call needs: the backward function's
 * arguments but the output gradients, and the targets (for the zeros of
 * those that get no gradient). */
typedef struct
{
  EpStagedGradient *owner;
  GPtrArray        *args;
  GPtrArray        *targets;
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

  return record;
}

/* Which sources get a gradient: those the tape wants that reach a
 * target with a gradient. */
static gboolean
find_wanted (const Plan       *plan,
             EpTensor *const  *output_grads,
             const gboolean   *needed,
             gboolean         *wanted)
{
  gboolean any = FALSE;

  for (guint s = 0; s < plan->n_sources; s++)
    {
      wanted[s] = FALSE;
      if (!needed[plan->source_input[s]])
        continue;
      for (guint t = 0; t < plan->n_targets && !wanted[s]; t++)
        wanted[s] = output_grads[plan->target_output[t]] != NULL
                    && plan->reaches[s * plan->n_targets + t];
      any |= wanted[s];
    }

  return any;
}

/* The rule of a recorded call (EpCompositeGradFunc): a call of the
 * backward function, which an outer tape records as one step in turn. */
static gboolean
call_gradient (EpComposite      *composite,
               EpTensor *const  *output_grads,
               const gboolean   *needed,
               EpTensor        **input_grads,
               GError          **error)
{
  CallRecord *record = composite->data;
  const Plan *plan = record->owner->plan;
  g_autofree gboolean *wanted = g_new (gboolean, MAX (plan->n_sources, 1));
  g_autoptr(GPtrArray) args = NULL;
  g_autoptr(GPtrArray) grads = NULL;

  if (!find_wanted (plan, output_grads, needed, wanted))
    return TRUE;

  args = ep_tensor_array_new (record->args->len + plan->n_targets);
  for (guint a = 0; a < record->args->len; a++)
    g_ptr_array_add (args, g_object_ref (g_ptr_array_index (record->args, a)));
  for (guint t = 0; t < plan->n_targets; t++)
    {
      EpTensor *grad = output_grads[plan->target_output[t]];

      grad = grad != NULL ? g_object_ref (grad)
                          : ep_tensor_zeros_like (g_ptr_array_index (record->targets, t), error);
      if (grad == NULL)
        return FALSE;
      g_ptr_array_add (args, grad);
    }

  grads = ep_function_call (ep_staged_gradient_get_backward (record->owner),
                            (EpTensor **) args->pdata, args->len, error);
  if (grads == NULL)
    return FALSE;

  /* the flags are final once the backward function was traced */
  for (guint s = 0; s < plan->n_sources; s++)
    if (wanted[s] && !g_atomic_int_get (&plan->unconnected[s]))
      input_grads[plan->source_input[s]] = g_object_ref (g_ptr_array_index (grads, s));

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
 * Replays the graph and hands the call to the active recorders as one
 * step, which the gradient tapes among them record if it depends on what
 * they watch. The values read from variables are read as
 * ep_variable_read() reads them: tapes watch them as they would eagerly
 * (trainable variables, when they watch accessed variables).
 */
gboolean
ep_staged_gradient_replay (EpStagedGradient  *self,
                           EpFrame           *frame,
                           EpTensor *const   *inputs,
                           EpTensor         **outputs,
                           GError           **error)
{
  EpGraph *graph = self->graph;
  const Plan *plan = self->plan;
  g_autoptr(GPtrArray) leaves = ep_tensor_array_new (plan->n_leaves);
  g_autofree EpTensor **step_inputs = g_new (EpTensor *, MAX (graph->n_inputs + self->n_reads, 1));
  g_autoptr(EpComposite) composite = NULL;
  CallRecord *record;

  g_ptr_array_set_size (leaves, plan->n_leaves);
  if (!ep_graph_replay_full (graph, frame, inputs, outputs, (EpTensor **) leaves->pdata, NULL, error))
    return FALSE;

  for (guint i = 0; i < graph->n_inputs; i++)
    step_inputs[i] = inputs[i];
  for (guint r = 0; r < self->n_reads; r++)
    {
      EpTensor *value = g_ptr_array_index (leaves, self->read_leaf[r]);

      ep_recorders_notify_variable (g_ptr_array_index (graph->variables, self->read_variable[r]),
                                    value, EP_VARIABLE_READ);
      step_inputs[graph->n_inputs + r] = value;
    }

  record = call_record_new (self, inputs, leaves, outputs);
  composite = ep_composite_new ("function", call_gradient, record, call_record_free);
  if (!ep_recorders_notify_composite (composite, step_inputs, graph->n_inputs + self->n_reads,
                                      outputs, graph->n_outputs, error))
    {
      for (guint o = 0; o < graph->n_outputs; o++)
        g_clear_object (&outputs[o]);
      return FALSE;
    }

  return TRUE;
}

EpStagedGradient *
ep_staged_gradient_new (EpGraph *graph)
{
  EpStagedGradient *self = g_new0 (EpStagedGradient, 1);
  guint n_nodes = ep_graph_get_n_nodes (graph);
  guint leaf = 0;

  g_atomic_ref_count_init (&self->ref_count);
  g_mutex_init (&self->lock);
  self->graph = ep_graph_ref (graph);

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
      leaf++;
    }

  self->plan = make_plan (self);

  return self;
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

  g_clear_object (&self->backward);
  plan_unref (self->plan);
  ep_graph_unref (self->graph);
  g_free (self->read_leaf);
  g_free (self->read_variable);
  g_mutex_clear (&self->lock);
  g_free (self);
}
