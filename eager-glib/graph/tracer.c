/* graph/tracer.c: a recorder that writes down a graph
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Tracing runs the function once, eagerly, with the tracer as the
 * innermost recorder of the thread: every op that runs becomes a node, with the
 * attributes it was given and the device it ran on; every variable read
 * or assigned becomes a read or an assignment of the captured variable.
 * A tensor the graph did not make (made outside, a Python number, data
 * from the host) is a constant, kept by value. What the function decides
 * on the host (Python control flow, a value read with item()) is fixed
 * at trace time, as TensorFlow's tracing does.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-autodiff-private.h"
#include "ep-context-private.h"
#include "ep-device-private.h"
#include "ep-error.h"
#include "ep-tracer-private.h"

struct _EpTracer
{
  EpRecorder   recorder;
  EpGraph     *graph;
  GHashTable  *values;     /* EpTensor (referenced) -> EpValueRef */
};

static EpTracer *
tracer_of (EpRecorder *recorder)
{
  return (EpTracer *) recorder;
}

static void
bind (EpTracer   *self,
      EpTensor   *tensor,
      EpValueRef  ref)
{
  EpValueRef *copy = g_new (EpValueRef, 1);

  *copy = ref;
  g_hash_table_replace (self->values, g_object_ref (tensor), copy);
}

/* Where @tensor comes from: made by the graph, or a constant from now. */
static EpValueRef
ref_of (EpTracer *self,
        EpTensor *tensor)
{
  EpValueRef *found = g_hash_table_lookup (self->values, tensor);
  EpValueRef constant = { EP_VALUE_CONSTANT, 0, 0 };
  g_autoptr(EpTensor) own = NULL;

  if (found != NULL)
    return *found;

  /* an object of the graph's own: releasing the caller's must not take
   * the data from under the replays */
  own = ep_tensor_new_alias (tensor);
  constant.index = ep_graph_add_constant (self->graph, own);
  bind (self, tensor, constant);
  return constant;
}

static gboolean
tracer_record (EpRecorder      *recorder,
               const EpOpCall  *call,
               GError         **error)
{
  EpTracer *self = tracer_of (recorder);
  guint index = ep_graph_get_n_nodes (self->graph);
  EpValueRef *inputs = g_newa (EpValueRef, MAX (call->n_inputs, 1));
  EpGraphNode *node;

  if (ep_context_get ()->grad != NULL)
    self->graph->fixed_shapes = TRUE;

  /* an identity is the same value: no node (eager replays under a tape
   * differentiate through the input itself) */
  if (call->op == &ep_op_identity)
    {
      bind (self, call->outputs[0], ref_of (self, call->inputs[0]));
      return TRUE;
    }

  /* constants first: adding one does not move the nodes, but keeps the
   * node pointer's lifetime obvious */
  for (guint i = 0; i < call->n_inputs; i++)
    inputs[i] = ref_of (self, call->inputs[i]);

  node = ep_graph_add_node (self->graph, EP_NODE_OP, call->n_inputs);
  node->op = call->op;
  if (call->given_attrs != NULL)
    node->attrs = *call->given_attrs;
  node->device = call->device;
  memcpy (node->inputs, inputs, call->n_inputs * sizeof (EpValueRef));
  node->n_outputs = call->n_outputs;
  for (guint o = 0; o < call->n_outputs; o++)
    {
      EpValueRef ref = { EP_VALUE_NODE, index, o };

      node->outputs[o] = call->outputs[o]->layout;
      bind (self, call->outputs[o], ref);
    }

  return TRUE;
}

static void
tracer_variable (EpRecorder       *recorder,
                 GObject          *object,
                 EpTensor         *value,
                 EpVariableAccess  access)
{
  EpTracer *self = tracer_of (recorder);
  guint variable = ep_graph_add_variable (self->graph, EP_VARIABLE (object));
  guint index = ep_graph_get_n_nodes (self->graph);
  EpGraphNode *node;

  if (access == EP_VARIABLE_ASSIGN)
    {
      EpValueRef ref = ref_of (self, value);

      node = ep_graph_add_node (self->graph, EP_NODE_ASSIGN, 1);
      node->variable = variable;
      node->inputs[0] = ref;
      return;
    }

  node = ep_graph_add_node (self->graph, EP_NODE_READ, 0);
  node->variable = variable;
  node->peek = access == EP_VARIABLE_PEEK;
  node->device = value->storage->device;
  node->n_outputs = 1;
  node->outputs[0] = value->layout;
  bind (self, value, (EpValueRef) { EP_VALUE_NODE, index, 0 });
}

/* A host callback is one node, which calls it again at each replay. */
static gboolean
tracer_host (EpRecorder       *recorder,
             EpHostCall       *call,
             EpTensor *const  *inputs,
             guint             n_inputs,
             EpTensor *const  *outputs,
             guint             n_outputs,
             GError          **error)
{
  EpTracer *self = tracer_of (recorder);
  guint index = ep_graph_get_n_nodes (self->graph);
  EpValueRef *refs = g_newa (EpValueRef, MAX (n_inputs, 1));
  EpGraphNode *node;

  for (guint i = 0; i < n_inputs; i++)
    refs[i] = ref_of (self, inputs[i]);

  node = ep_graph_add_node (self->graph, EP_NODE_HOST, n_inputs);
  node->host = ep_host_call_ref (call);
  memcpy (node->inputs, refs, n_inputs * sizeof (EpValueRef));
  node->n_outputs = n_outputs;
  for (guint o = 0; o < n_outputs; o++)
    {
      node->outputs[o] = outputs[o]->layout;
      node->devices[o] = outputs[o]->storage->device;
      bind (self, outputs[o], (EpValueRef) { EP_VALUE_NODE, index, o });
    }
  self->graph->has_host_calls = TRUE;

  return TRUE;
}

/* A tracer for a function of @inputs: each is graph input i. */
EpTracer *
ep_tracer_new (EpTensor *const *inputs,
               guint            n_inputs)
{
  EpTracer *self = g_new0 (EpTracer, 1);

  self->recorder.record = tracer_record;
  self->recorder.variable = tracer_variable;
  self->recorder.host = tracer_host;
  self->graph = ep_graph_new ();
  self->values = g_hash_table_new_full (NULL, NULL, g_object_unref, g_free);

  self->graph->n_inputs = n_inputs;
  self->graph->inputs = g_new (EpLayout, MAX (n_inputs, 1));
  self->graph->input_devices = g_new (EpDevice *, MAX (n_inputs, 1));
  for (guint i = 0; i < n_inputs; i++)
    {
      self->graph->inputs[i] = inputs[i]->layout;
      self->graph->input_devices[i] = inputs[i]->storage->device;
      bind (self, inputs[i], (EpValueRef) { EP_VALUE_INPUT, i, 0 });
    }

  return self;
}

void
ep_tracer_free (EpTracer *self)
{
  if (self->recorder.active)
    ep_tracer_end (self);
  g_clear_pointer (&self->graph, ep_graph_unref);
  g_hash_table_unref (self->values);
  g_free (self);
}

/* From now on, this thread's ops go to the tracer too: innermost, above
 * the recorders already active (an outer tape records the traced ops as
 * it would the eager ones; an outer tracer stages them into its graph). */
void
ep_tracer_begin (EpTracer *self)
{
  ep_recorder_push (&self->recorder);
}

void
ep_tracer_end (EpTracer *self)
{
  ep_recorder_pop (&self->recorder);
}

/* The backward functions of the custom gradients the function used: set
 * on their outputs once ep_custom_gradient() returned them, kept with
 * their nodes now. */
static void
keep_backward_functions (EpTracer *self)
{
  GHashTableIter iter;
  gpointer tensor, value;

  g_hash_table_iter_init (&iter, self->values);
  while (g_hash_table_iter_next (&iter, &tensor, &value))
    {
      EpValueRef *ref = value;
      EpGraphNode *node;

      if (ref->kind != EP_VALUE_NODE)
        continue;
      node = ep_graph_get_node (self->graph, ref->index);
      if (node->kind == EP_NODE_OP && node->op == &ep_op_custom_gradient && node->backward == NULL)
        node->backward = ep_custom_gradient_ref_backward (tensor);
    }
}

/* The graph, returning @outputs. The tracer is done with. */
EpGraph *
ep_tracer_finish (EpTracer        *self,
                  EpTensor *const *outputs,
                  guint            n_outputs)
{
  EpGraph *graph = self->graph;

  keep_backward_functions (self);

  graph->n_outputs = n_outputs;
  graph->outputs = g_new (EpValueRef, MAX (n_outputs, 1));
  for (guint o = 0; o < n_outputs; o++)
    graph->outputs[o] = ref_of (self, outputs[o]);

  self->graph = NULL;
  return graph;
}
