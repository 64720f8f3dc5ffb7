/* graph/executor.c: replaying a graph
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A replay runs each node's rule and its device's kernel, as ep_dispatch()
 * does, without a host language, a recorder or a GObject per
 * intermediate: each node output has a slot in a frame, a tensor object
 * made once and given new storage at each replay; storage goes to the
 * frame's arena after its last use (graph/arena.c), where the next ops,
 * and the next replays, find it again, or an elementwise op writes its
 * output over it (output_storage()). The rules run again (on the attributes
 * the nodes were given), so a graph replays on other shapes where its
 * signature allows them; random ops draw their numbers as the eager calls
 * would; variables read what the replay assigned before, and change only
 * when the whole replay has succeeded.
 *
 * With a recorder active (a tape around a staged call, a function being
 * traced), ep_graph_replay_eagerly() dispatches each node instead, so
 * that recorders see the ops.
 */

#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-arena-private.h"
#include "ep-device-private.h"
#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-executor-private.h"
#include "ep-fuse-private.h"
#include "ep-random-private.h"
#include "ep-autodiff-private.h"

#define INLINE_INPUTS 8

struct _EpFrame
{
  EpGraph   *graph;
  guint     *first_slot;   /* per node */
  guint      n_slots;
  EpTensor **slots;
  guint     *last_use;     /* per slot: the last node that reads it;
                            * G_MAXUINT for an output of the graph */
  EpArena   *arena;        /* the buffers kept from replay to replay */
};

static void
note_use (EpFrame          *self,
          const EpValueRef *ref,
          guint             node)
{
  if (ref->kind == EP_VALUE_NODE)
    {
      guint slot = self->first_slot[ref->index] + ref->output;

      if (self->last_use[slot] != G_MAXUINT)
        self->last_use[slot] = MAX (self->last_use[slot], node);
    }
}

EpFrame *
ep_frame_new (EpGraph *graph)
{
  EpFrame *self = g_new0 (EpFrame, 1);
  guint n_nodes = ep_graph_get_n_nodes (graph);

  self->graph = ep_graph_ref (graph);
  self->first_slot = g_new (guint, MAX (n_nodes, 1));
  for (guint n = 0; n < n_nodes; n++)
    {
      self->first_slot[n] = self->n_slots;
      self->n_slots += ep_graph_get_node (graph, n)->n_outputs;
    }

  self->slots = g_new0 (EpTensor *, MAX (self->n_slots, 1));
  self->arena = ep_arena_new (self->n_slots + graph->variables->len);
  self->last_use = g_new0 (guint, MAX (self->n_slots, 1));
  for (guint s = 0; s < self->n_slots; s++)
    self->slots[s] = g_object_new (EP_TYPE_TENSOR, NULL);

  for (guint o = 0; o < graph->n_outputs; o++)
    if (graph->outputs[o].kind == EP_VALUE_NODE)
      self->last_use[self->first_slot[graph->outputs[o].index] + graph->outputs[o].output] = G_MAXUINT;
  for (guint n = 0; n < n_nodes; n++)
    {
      EpGraphNode *node = ep_graph_get_node (graph, n);

      for (guint i = 0; i < node->n_inputs; i++)
        note_use (self, &node->inputs[i], n);
    }

  return self;
}

/* The buffers the frame keeps for its next replay (tests) */
guint
ep_frame_get_n_buffers (EpFrame *self)
{
  return ep_arena_get_n_buffers (self->arena);
}

/* Takes @storage (a reference) for the frame's next replay to write in,
 * if nothing else holds it: a variable's old value, once an async
 * call has set the variable (graph/function.c) */
void
ep_frame_give_buffer (EpFrame   *self,
                      EpStorage *storage)
{
  ep_arena_give (self->arena, storage);
}

static void
drop_storage (EpTensor *slot)
{
  g_clear_pointer (&slot->storage, ep_storage_unref);
}

/* A slot's storage goes to the frame's arena, which keeps it if nothing
 * else holds it (graph/arena.c). */
static void
recycle_storage (EpFrame  *self,
                 EpTensor *slot)
{
  if (slot->storage != NULL)
    ep_arena_give (self->arena, g_steal_pointer (&slot->storage));
}

void
ep_frame_free (EpFrame *self)
{
  for (guint s = 0; s < self->n_slots; s++)
    {
      drop_storage (self->slots[s]);
      g_object_unref (self->slots[s]);
    }
  g_free (self->slots);
  g_free (self->first_slot);
  g_free (self->last_use);
  ep_arena_free (self->arena);
  ep_graph_unref (self->graph);
  g_free (self);
}

/* One replay: the frame, the caller's inputs, the values the caller
 * gave the variables (NULL: their own), and the values the replay
 * assigned them so far (NULL where none) */
typedef struct
{
  EpGraph          *graph;
  EpFrame          *frame;
  EpTensor *const  *inputs;
  EpTensor        **variables;
  EpTensor        **assigned;
  GPtrArray        *temporaries;
} Replay;

static EpTensor *
value_of (Replay           *r,
          const EpValueRef *ref)
{
  switch (ref->kind)
    {
    case EP_VALUE_INPUT:
      return r->inputs[ref->index];
    case EP_VALUE_CONSTANT:
      return g_ptr_array_index (r->graph->constants, ref->index);
    case EP_VALUE_NODE:
      return r->frame->slots[r->frame->first_slot[ref->index] + ref->output];
    }

  g_return_val_if_reached (NULL);
}

static void
fill_slot (EpTensor       *slot,
           const EpLayout *layout,
           EpStorage      *storage)
{
  drop_storage (slot);
  slot->layout = *layout;
  slot->storage = ep_storage_ref (storage);
}

/* What the rule asked for and the recorded conversions did not already
 * give (on other shapes, a view may not be contiguous any more): done
 * as dispatch does it, with temporaries. Rare. */
static gboolean
convert_inputs (Replay    *r,
                EpOpCall  *call,
                GError   **error)
{
  for (guint i = 0; i < call->n_inputs; i++)
    {
      EpTensor *input = call->inputs[i];
      gboolean wants_contiguous = i < 32 && (call->contiguous_inputs & (1u << i));
      g_autoptr(EpTensor) converted = NULL;

      if (input->layout.dtype == call->input_dtypes[i]
          && (!wants_contiguous || ep_layout_is_contiguous (&input->layout)))
        continue;

      converted = ep_tensor_astype (input, call->input_dtypes[i], error);
      if (converted != NULL && wants_contiguous)
        {
          EpTensor *compact = ep_tensor_compact (converted, error);

          g_object_unref (converted);
          converted = compact;
        }
      if (converted == NULL)
        return FALSE;
      call->inputs[i] = converted;
      g_ptr_array_add (r->temporaries, g_steal_pointer (&converted));
    }

  return TRUE;
}

static gboolean
run_kernel (EpOpCall  *call,
            GError   **error)
{
  EpKernelFunc kernel = call->device->backend->kernels[call->op->id];
  gboolean empty = TRUE;

  for (guint o = 0; o < call->n_outputs; o++)
    empty &= ep_layout_get_size (&call->output_layouts[o]) == 0;
  if (empty && !(call->op->flags & (EP_OP_FLAG_CHECKS_DATA | EP_OP_FLAG_COLLECTIVE)))
    return TRUE;

  if (kernel == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DEVICE,
                   _("%s: not implemented on device %s"),
                   call->op->name, call->device->name);
      return FALSE;
    }

  return ep_kernel_run (call, kernel, error);
}

/* Ops whose CPU kernels may write their output over an input of the
 * same layout: each element is read before the same element is written,
 * and nothing reads it again (the restrict-qualified loops of
 * cpu/ep-cpu-loops-private.h and cpu/elementwise.c, SLEEF's vector
 * loops). Not log1p, sinh, cosh, arcsinh, arccosh: their vector loops
 * read the input again after writing, to redo lanes out of SLEEF's
 * domain (cpu/vmath.c). */
static gboolean
op_runs_in_place (EpOpId id)
{
  switch (id)
    {
    case EP_OP_ADD: case EP_OP_SUB: case EP_OP_MUL: case EP_OP_DIV: case EP_OP_POW:
    case EP_OP_FLOORDIV: case EP_OP_MOD: case EP_OP_MINIMUM: case EP_OP_MAXIMUM:
    case EP_OP_WHERE: case EP_OP_CLIP:
    case EP_OP_NEG: case EP_OP_ABS: case EP_OP_SIGN: case EP_OP_SQUARE: case EP_OP_SQRT:
    case EP_OP_EXP: case EP_OP_EXPM1: case EP_OP_LOG: case EP_OP_LOG2: case EP_OP_LOG10:
    case EP_OP_SIN: case EP_OP_COS: case EP_OP_TAN: case EP_OP_TANH:
    case EP_OP_ARCSIN: case EP_OP_ARCCOS: case EP_OP_ARCTAN: case EP_OP_ARCTANH:
    case EP_OP_SIGMOID: case EP_OP_RELU: case EP_OP_SOFTPLUS:
    case EP_OP_ROUND: case EP_OP_CEIL: case EP_OP_FLOOR: case EP_OP_ERF:
    case EP_OP_ERFC:
      return TRUE;
    default:
      return FALSE;
    }
}

/* An input of node @n that dies there, held by nothing else (not a
 * view's base still alive, a variable's value, a result), contiguous
 * from the start of its storage on @device, of @layout's dtype and
 * shape: its storage, for the output to take over. NULL when there is
 * none. */
static EpStorage *
dying_input_storage (Replay          *r,
                     guint            n,
                     EpGraphNode     *node,
                     EpTensor *const *inputs,
                     EpDevice        *device,
                     const EpLayout  *layout)
{
  for (guint i = 0; i < node->n_inputs; i++)
    {
      const EpValueRef *ref = &node->inputs[i];
      EpTensor *input = inputs[i];

      if (ref->kind != EP_VALUE_NODE
          || r->frame->last_use[r->frame->first_slot[ref->index] + ref->output] != n
          || input != value_of (r, ref)    /* converted: a temporary */
          || input->storage->device != device
          || !ep_storage_is_exclusive (input->storage)
          || input->layout.offset != 0
          || !ep_layout_is_contiguous (&input->layout)
          || input->layout.dtype != layout->dtype
          || !ep_layout_same_shape (&input->layout, layout))
        continue;

      return ep_storage_ref (input->storage);
    }

  return NULL;
}

/* The storage of an input of node @n, an elementwise op on the CPU,
 * that its output can write over (dying_input_storage()) */
static EpStorage *
storage_to_write_over (Replay         *r,
                       guint           n,
                       EpGraphNode    *node,
                       const EpOpCall *call,
                       const EpLayout *layout)
{
  if (!op_runs_in_place (node->op->id) || call->n_outputs != 1
      || call->device != ep_device_get_cpu ())
    return NULL;

  return dying_input_storage (r, n, node, call->inputs, call->device, layout);
}

/* Storage for output @o of node @n, laid out contiguously in @layout:
 * an input's, written over; else a buffer of the frame's arena; else
 * the device's. The graph's results always come from the device: they
 * go to the caller, and the arena would lose them. */
static EpStorage *
output_storage (Replay       *r,
                guint         n,
                EpGraphNode  *node,
                EpOpCall     *call,
                guint         o,
                EpLayout     *layout,
                GError      **error)
{
  EpFrame *frame = r->frame;
  EpStorage *storage;
  gsize nbytes;

  ep_layout_set_contiguous (layout);
  if (!ep_layout_compute_nbytes (layout, &nbytes))
    return ep_layout_alloc (layout, call->device, error);

  if (o == 0 && (storage = storage_to_write_over (r, n, node, call, layout)) != NULL)
    return storage;
  if (frame->last_use[frame->first_slot[n] + o] != G_MAXUINT
      && (storage = ep_arena_take (frame->arena, call->device, nbytes)) != NULL)
    return storage;

  return ep_device_alloc (call->device, nbytes, error);
}

static gboolean
run_op (Replay       *r,
        guint         n,
        EpGraphNode  *node,
        GError      **error)
{
  EpTensor *inline_inputs[INLINE_INPUTS];
  EpDType inline_dtypes[INLINE_INPUTS];
  g_autofree EpTensor **heap_inputs = NULL;
  g_autofree EpDType *heap_dtypes = NULL;
  guint first = r->frame->first_slot[n];
  EpOpCall call = { 0 };

  if (node->n_inputs > INLINE_INPUTS)
    {
      heap_inputs = g_new (EpTensor *, node->n_inputs);
      heap_dtypes = g_new (EpDType, node->n_inputs);
    }
  call.op = node->op;
  call.n_inputs = node->n_inputs;
  call.inputs = heap_inputs != NULL ? heap_inputs : inline_inputs;
  call.input_dtypes = heap_dtypes != NULL ? heap_dtypes : inline_dtypes;
  call.attrs = node->attrs;
  call.given_attrs = &node->attrs;
  call.n_outputs = 1;
  if (node->op->flags & EP_OP_FLAG_RANDOM)
    ep_random_next_stream (&call.attrs.random.seed, &call.attrs.random.stream);

  for (guint i = 0; i < node->n_inputs; i++)
    {
      call.inputs[i] = value_of (r, &node->inputs[i]);
      call.input_dtypes[i] = call.inputs[i]->layout.dtype;
    }

  if (!ep_op_check_call (node->op, call.inputs, call.n_inputs, &call.attrs, error)
      || !node->op->infer (&call, error)
      || !convert_inputs (r, &call, error))
    return FALSE;

  if (node->op->flags & EP_OP_FLAG_VIEW)
    {
      EpTensor *slot = r->frame->slots[first];

      fill_slot (slot, &call.output_layouts[0], call.inputs[0]->storage);
      return TRUE;
    }

  call.device = node->device;
  for (guint o = 0; o < call.n_outputs; o++)
    {
      EpTensor *slot = r->frame->slots[first + o];
      EpLayout layout = call.output_layouts[o];
      g_autoptr(EpStorage) storage = output_storage (r, n, node, &call, o, &layout, error);

      if (storage == NULL)
        {
          g_prefix_error (error, "%s: ", node->op->name);
          return FALSE;
        }
      fill_slot (slot, &layout, storage);
      call.outputs[o] = slot;
    }

  return run_kernel (&call, error);
}

typedef struct
{
  Replay          *r;
  guint            n;
  EpGraphNode     *node;
  EpTensor *const *inputs;
} FusedOutputs;

/* as output_storage(): the elementwise result of a group on the CPU
 * written over an input that dies there (each tile or row reads its
 * inputs' elements before it writes its own, at the same places), else
 * a buffer of the arena */
static EpStorage *
fused_output_storage (gpointer         data,
                      guint            o,
                      const EpLayout  *layout,
                      gsize            nbytes,
                      GError         **error)
{
  FusedOutputs *outputs = data;
  EpFrame *frame = outputs->r->frame;
  EpFusedProgram *program = outputs->node->fused;
  EpStorage *storage;

  if (o == 0 && outputs->node->device == ep_device_get_cpu ()
      && (!program->reduce || program->epilogue)
      && (storage = dying_input_storage (outputs->r, outputs->n, outputs->node, outputs->inputs,
                                         outputs->node->device, layout)) != NULL)
    return storage;

  if (frame->last_use[frame->first_slot[outputs->n] + o] != G_MAXUINT
      && (storage = ep_arena_take (frame->arena, outputs->node->device, nbytes)) != NULL)
    return storage;

  return ep_device_alloc (outputs->node->device, nbytes, error);
}

/* A fused group (graph/passes/fuse.c), run by cpu/fused.c */
static gboolean
run_fused (Replay       *r,
           guint         n,
           EpGraphNode  *node,
           GError      **error)
{
  g_autofree EpTensor **inputs = g_new (EpTensor *, MAX (node->n_inputs, 1));
  EpStorage *storages[2] = { NULL, NULL };
  EpLayout layouts[2];
  FusedOutputs outputs = { r, n, node, inputs };

  for (guint i = 0; i < node->n_inputs; i++)
    inputs[i] = value_of (r, &node->inputs[i]);
  if (!ep_fused_run (node->fused, inputs, fused_output_storage, &outputs, layouts, storages, error))
    return FALSE;
  for (guint o = 0; o < node->n_outputs; o++)
    {
      fill_slot (r->frame->slots[r->frame->first_slot[n] + o], &layouts[o], storages[o]);
      ep_storage_unref (storages[o]);
    }
  return TRUE;
}

/* The value the variable has so far in this replay */
static EpTensor *
current_value (Replay *r,
               guint   variable)
{
  if (r->assigned[variable] != NULL)
    return g_object_ref (r->assigned[variable]);
  if (r->variables != NULL)
    return g_object_ref (r->variables[variable]);
  return ep_variable_peek (g_ptr_array_index (r->graph->variables, variable));
}

/* The value was made to fit the variable when traced (cast and checked
 * as the eager assignment does); on other extents its shape may not. */
static gboolean
run_assign (Replay       *r,
            EpGraphNode  *node,
            GError      **error)
{
  EpTensor *value = value_of (r, &node->inputs[0]);
  g_autoptr(EpTensor) current = current_value (r, node->variable);
  const EpLayout *want = &current->layout;

  if (!ep_layout_same_shape (&value->layout, want))
    {
      g_autofree char *got_text = ep_shape_to_string (value->layout.shape, value->layout.ndim);
      g_autofree char *want_text = ep_shape_to_string (want->shape, want->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: a value of shape %s cannot go in a variable of shape %s"),
                   "assign", got_text, want_text);
      return FALSE;
    }

  g_clear_object (&r->assigned[node->variable]);
  r->assigned[node->variable] = ep_tensor_new_with_storage (&value->layout, value->storage);
  return TRUE;
}

static gboolean
run_read (Replay       *r,
          guint         n,
          EpGraphNode  *node)
{
  g_autoptr(EpTensor) value = current_value (r, node->variable);

  fill_slot (r->frame->slots[r->frame->first_slot[n]], &value->layout, value->storage);
  return TRUE;
}

/* The callback's results must be what the graph was traced with: their
 * number, dtypes and ranks, and their shapes but on other extents of
 * the inputs; on the devices they were then. */
static gboolean
take_host_results (const EpGraphNode  *node,
                   gboolean            traced_shapes,
                   GPtrArray          *results,
                   GError            **error)
{
  if (results->len != node->n_outputs)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   g_dngettext (GETTEXT_PACKAGE,
                                "host_call: the callback returned %u tensor, not %u as when it was traced",
                                "host_call: the callback returned %u tensors, not %u as when it was traced",
                                results->len),
                   results->len, node->n_outputs);
      return FALSE;
    }

  for (guint o = 0; o < node->n_outputs; o++)
    {
      EpTensor *result = g_ptr_array_index (results, o);
      const EpLayout *want = &node->outputs[o];

      if (result->layout.dtype != want->dtype || result->layout.ndim != want->ndim
          || (traced_shapes && !ep_layout_same_shape (&result->layout, want)))
        {
          g_autofree char *got_text = ep_shape_to_string (result->layout.shape, result->layout.ndim);
          g_autofree char *want_text = ep_shape_to_string (want->shape, want->ndim);

          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("host_call: result %u is %s %s, not %s %s as when the function was traced"),
                       o, ep_dtype_get_name (result->layout.dtype), got_text,
                       ep_dtype_get_name (want->dtype), want_text);
          return FALSE;
        }
      if (result->storage->device != node->devices[o])
        {
          EpTensor *moved = ep_tensor_to_device (result, node->devices[o], error);

          if (moved == NULL)
            return FALSE;
          g_ptr_array_index (results, o) = moved;
          g_object_unref (result);
        }
    }

  return TRUE;
}

/* A host callback: its arguments are objects of their own (it may keep
 * them), its results fill the node's slots. */
static gboolean
run_host (Replay       *r,
          guint         n,
          EpGraphNode  *node,
          GError      **error)
{
  g_autoptr(GPtrArray) args = ep_tensor_array_new (node->n_inputs);
  g_autoptr(GPtrArray) results = NULL;

  for (guint i = 0; i < node->n_inputs; i++)
    g_ptr_array_add (args, ep_tensor_new_alias (value_of (r, &node->inputs[i])));

  results = ep_host_call_invoke (node->host, (EpTensor **) args->pdata, args->len, error);
  if (results == NULL
      || !take_host_results (node, ep_graph_inputs_fit_trace (r->graph, r->inputs), results, error))
    return FALSE;

  for (guint o = 0; o < node->n_outputs; o++)
    {
      EpTensor *result = g_ptr_array_index (results, o);

      fill_slot (r->frame->slots[r->frame->first_slot[n] + o], &result->layout, result->storage);
    }

  return TRUE;
}

/* Storage nothing reads any more goes back to its device now. */
static void
release_dead (Replay *r,
              guint   n)
{
  EpGraphNode *node = ep_graph_get_node (r->graph, n);

  for (guint i = 0; i < node->n_inputs; i++)
    {
      const EpValueRef *ref = &node->inputs[i];
      guint slot;

      if (ref->kind != EP_VALUE_NODE)
        continue;
      slot = r->frame->first_slot[ref->index] + ref->output;
      if (r->frame->last_use[slot] == n)
        recycle_storage (r->frame, r->frame->slots[slot]);
    }
}

static EpTensor *
output_tensor (Replay           *r,
               const EpValueRef *ref)
{
  return ep_tensor_new_alias (value_of (r, ref));
}

/* Variables updated in place, in effect: the replay wrote the new value
 * into a buffer of the frame (an op's output, often written over its
 * input), the variable takes it now, and the storage of its old value,
 * if nothing else holds it then, goes to the arena for the next replay
 * to write the next value in. The variables' buffers and the arena's
 * trade places at each step, and a step allocates nothing; nothing is
 * written into a variable's storage while the replay may still fail,
 * so variables change only when the whole replay succeeded, and a
 * tensor read from a variable before keeps its value (it holds the
 * storage: the arena does not take it). Returns a reference to the old
 * value's storage. */
static EpStorage *
commit_variable (EpVariable *variable,
                 EpTensor   *value)
{
  g_autoptr(EpTensor) old = ep_variable_exchange_value (variable, value);

  return old->storage != NULL ? ep_storage_ref (old->storage) : NULL;
}

/*
 * ep_graph_replay:
 * @graph: the graph
 * @frame: a frame of @graph that no other replay uses now
 * @inputs: tensors fitting @graph's inputs
 * @variables: (inout) (nullable): the value of each captured variable to
 *   read, or %NULL to read the variables themselves
 * @outputs: (out): room for @graph->n_outputs new tensors
 * @cancellable: (nullable): checked between nodes
 * @error: return location for an error
 *
 * Runs @graph without recorders. With @variables %NULL, the variables
 * take the values the replay assigned when it succeeds. Otherwise the
 * replay touches no variable (it may run on another thread than theirs):
 * on success each element of @variables becomes the variable's value
 * after the replay, for the caller to set. On failure or cancellation
 * nothing changes and @outputs are untouched.
 */
gboolean
ep_graph_replay (EpGraph          *graph,
                 EpFrame          *frame,
                 EpTensor *const  *inputs,
                 EpTensor        **variables,
                 EpTensor        **outputs,
                 GCancellable     *cancellable,
                 GError          **error)
{
  return ep_graph_replay_full (graph, frame, inputs, variables, outputs, NULL, cancellable, error);
}

/*
 * ep_graph_replay_full:
 * @leaves: (out) (nullable): room for one new tensor per leaf node
 *   (ep_graph_node_is_leaf()), in node order: the values the replay read
 *   from variables and drew at random; set back to %NULL on failure
 *
 * ep_graph_replay(), also handing out the leaves' values: a staged
 * backward pass recomputes the forward one from them (see
 * graph/staged-gradient.c).
 */
gboolean
ep_graph_replay_full (EpGraph          *graph,
                      EpFrame          *frame,
                      EpTensor *const  *inputs,
                      EpTensor        **variables,
                      EpTensor        **outputs,
                      EpTensor        **leaves,
                      GCancellable     *cancellable,
                      GError          **error)
{
  guint n_variables = graph->variables->len;
  g_autofree EpTensor **assigned = g_new0 (EpTensor *, MAX (n_variables, 1));
  g_autofree EpStorage **old_values = g_new0 (EpStorage *, MAX (n_variables, 1));
  g_autoptr(GPtrArray) temporaries = g_ptr_array_new_with_free_func (g_object_unref);
  Replay r = { graph, frame, inputs, variables, assigned, temporaries };
  gboolean ok = TRUE;
  guint n, n_leaves = 0;

  g_return_val_if_fail (frame->graph == graph, FALSE);

  for (n = 0; ok && n < ep_graph_get_n_nodes (graph); n++)
    {
      EpGraphNode *node = ep_graph_get_node (graph, n);

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          ok = FALSE;
          break;
        }

      switch (node->kind)
        {
        case EP_NODE_OP:
          ok = run_op (&r, n, node, error);
          break;
        case EP_NODE_READ:
          ok = run_read (&r, n, node);
          break;
        case EP_NODE_ASSIGN:
          ok = run_assign (&r, node, error);
          break;
        case EP_NODE_HOST:
          ok = run_host (&r, n, node, error);
          break;
        case EP_NODE_FUSED:
          ok = run_fused (&r, n, node, error);
          break;
        }
      if (ok && leaves != NULL && ep_graph_node_is_leaf (node))
        {
          EpValueRef ref = { EP_VALUE_NODE, n, 0 };

          leaves[n_leaves++] = output_tensor (&r, &ref);
        }
      release_dead (&r, n);
    }

  if (ok)
    {
      for (guint o = 0; o < graph->n_outputs; o++)
        outputs[o] = output_tensor (&r, &graph->outputs[o]);
      for (guint v = 0; v < n_variables; v++)
        {
          if (assigned[v] == NULL)
            continue;
          if (variables == NULL)
            old_values[v] = commit_variable (g_ptr_array_index (graph->variables, v), assigned[v]);
          else
            g_set_object (&variables[v], assigned[v]);
        }
    }

  else
    {
      for (guint k = 0; k < n_leaves; k++)
        g_clear_object (&leaves[k]);
    }

  for (guint v = 0; v < n_variables; v++)
    g_clear_object (&assigned[v]);
  for (guint s = 0; s < frame->n_slots; s++)
    recycle_storage (frame, frame->slots[s]);
  for (guint v = 0; v < n_variables; v++)
    if (old_values[v] != NULL)
      ep_arena_give (frame->arena, old_values[v]);

  return ok;
}

/* The same through ep_dispatch() and the variables' own functions, node
 * by node, so that active recorders see every op: a tape records them,
 * a tracer stages them into its own graph. */
gboolean
ep_graph_replay_eagerly (EpGraph          *graph,
                         EpTensor *const  *inputs,
                         EpTensor        **outputs,
                         GError          **error)
{
  return ep_graph_replay_eagerly_full (graph, inputs, outputs, NULL, error);
}

/*
 * ep_graph_replay_eagerly_full:
 * @values: (nullable): an array of tensors that gets a reference to each
 *   node's outputs, in node order (none for an assignment)
 *
 * ep_graph_replay_eagerly(), also handing out every value it made: a
 * staged backward pass finds where the forward values are in its own
 * graph by returning them (see graph/staged-gradient.c).
 */
gboolean
ep_graph_replay_eagerly_full (EpGraph          *graph,
                              EpTensor *const  *inputs,
                              EpTensor        **outputs,
                              GPtrArray        *values_out,
                              GError          **error)
{
  guint n_nodes = ep_graph_get_n_nodes (graph);
  g_autoptr(GPtrArray) values = g_ptr_array_new_full (n_nodes, NULL);
  g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree guint *first_output = g_new (guint, MAX (n_nodes, 1));

#define VALUE(ref)                                                          \
  ((ref)->kind == EP_VALUE_INPUT ? inputs[(ref)->index]                     \
   : (ref)->kind == EP_VALUE_CONSTANT                                       \
     ? (EpTensor *) g_ptr_array_index (graph->constants, (ref)->index)      \
     : (EpTensor *) g_ptr_array_index (values, first_output[(ref)->index] + (ref)->output))

  for (guint n = 0; n < n_nodes; n++)
    {
      EpGraphNode *node = ep_graph_get_node (graph, n);
      EpVariable *variable = node->kind == EP_NODE_READ || node->kind == EP_NODE_ASSIGN
                             ? g_ptr_array_index (graph->variables, node->variable) : NULL;
      EpTensor *node_outputs[EP_MAX_OUTPUTS] = { NULL };
      g_autofree EpTensor **node_inputs = g_new (EpTensor *, MAX (node->n_inputs, 1));
      EpOpAttrs attrs = node->attrs;

      first_output[n] = values->len;
      for (guint i = 0; i < node->n_inputs; i++)
        node_inputs[i] = VALUE (&node->inputs[i]);

      switch (node->kind)
        {
        case EP_NODE_OP:
          if (node->op->flags & EP_OP_FLAG_RANDOM)
            ep_random_next_stream (&attrs.random.seed, &attrs.random.stream);
          {
            gpointer pending = ep_custom_gradient_set_pending (node->backward);
            gboolean ok = ep_dispatch (node->op, node_inputs, node->n_inputs, &attrs, node_outputs, error);

            ep_custom_gradient_set_pending (pending);
            if (!ok)
              return FALSE;
          }
          if (node->backward != NULL)
            ep_custom_gradient_set_backward (node_outputs[0], node->backward);
          break;
        case EP_NODE_READ:
          node_outputs[0] = node->peek ? ep_variable_read_for_update (variable)
                                       : ep_variable_read (variable);
          break;
        case EP_NODE_ASSIGN:
          if (!ep_variable_assign (variable, node_inputs[0], error))
            return FALSE;
          break;
        case EP_NODE_HOST:
          {
            g_autoptr(GPtrArray) results = ep_host_call_run (node->host, node_inputs, node->n_inputs, error);

            if (results == NULL
                || !take_host_results (node, ep_graph_inputs_fit_trace (graph, inputs), results, error))
              return FALSE;
            for (guint o = 0; o < node->n_outputs; o++)
              node_outputs[o] = g_object_ref (g_ptr_array_index (results, o));
          }
          break;
        case EP_NODE_FUSED:
          if (!ep_fused_dispatch (node->fused, node_inputs, node_outputs, error))
            return FALSE;
          break;
        }

      for (guint o = 0; o < node->n_outputs; o++)
        {
          g_ptr_array_add (values, node_outputs[o]);
          g_ptr_array_add (owned, node_outputs[o]);
        }
    }

  for (guint o = 0; o < graph->n_outputs; o++)
    outputs[o] = g_object_ref (VALUE (&graph->outputs[o]));
  for (guint v = 0; values_out != NULL && v < values->len; v++)
    g_ptr_array_add (values_out, g_object_ref (g_ptr_array_index (values, v)));
#undef VALUE

  return TRUE;
}
