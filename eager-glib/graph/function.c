/* graph/function.c: EpFunction, a function staged once per signature
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-autodiff-private.h"
#include "ep-context-private.h"
#include "ep-device-private.h"
#include "ep-error.h"
#include "ep-executor-private.h"
#include "ep-function-private.h"
#include "ep-function.h"
#include "ep-memory-private.h"
#include "ep-passes-private.h"
#include "ep-staged-gradient-private.h"
#include "ep-tracer-private.h"

/**
 * EpFunction:
 *
 * A function of tensors staged into a graph: its first call with a new
 * input signature (the dtype, shape and device of every input) runs it
 * once, eagerly, and writes down the ops that ran; later calls with that
 * signature replay the graph in C, without calling the function again,
 * without the host language, and without a tensor object for any
 * intermediate result. This is TensorFlow's `tf.function`, and the way
 * around the cost of calling ops one by one from Python or JavaScript.
 *
 * A replay computes what the function computes eagerly, with the same
 * kernels. What the function decides on the host is fixed when it is
 * traced: control flow, values it reads with [method@Tensor.item_double],
 * tensors it makes from host data (they become constants), and
 * attributes it computes from shapes. Variables it reads are captured by
 * reference: a replay reads their current values, and assignments it
 * makes change them (they change when the whole call has succeeded).
 * Random ops draw new numbers at each call, as the eager calls would.
 *
 * The only objects a replay makes are its results. A function may return
 * none: a training step that keeps its loss in a variable makes no
 * object at all per call, which keeps a JavaScript training loop's
 * memory flat (gjs frees the objects it is given only when its garbage
 * collector runs, and it does not see their size).
 *
 * A signature of [struct@TensorSpec]s with unknown extents
 * ([ctor@Function.new_with_signature]) makes one graph serve, say, every
 * batch size: the ops' rules run again at each replay to size the
 * results. The first call with other extents than the trace's traces
 * again, to check that the function computes the same whatever they
 * are; where it does not (it sized something from them on the host: a
 * mean's 1/n in a gradient, a value read from a shape), each shape gets a
 * graph of its own, so that a replay never gives what the function would
 * not. A trace that ran gradient rules (a training step with a tape)
 * gets a graph per shape at once: the rules compute with the shapes they
 * see.
 *
 * A gradient tape around a replayed call records the whole call as one
 * step, and its backward pass is staged too: written down from the ops'
 * gradient rules the first time a gradient goes through the call, then
 * replayed in C, without the intermediate results the tape would
 * otherwise record one by one (per shape of the inputs, for a graph that
 * serves several). The gradients, with respect to the inputs
 * and to the variables the function reads (the values it read, as
 * eagerly), are those of the function's ops run eagerly; a random op
 * gives the backward pass the numbers that call drew. The backward pass
 * is itself a staged call, so nested tapes give higher derivatives. A
 * tape inside the function (a training step: loss, gradient, update) is
 * staged with the rest. Two cases dispatch the graph's ops one by one
 * instead: a call made while another function is being traced (the outer
 * function stages them), and, under a tape, a function with an op whose
 * result's shape depends on values ([method@Tensor.mask]).
 */

/* What inputs a graph serves, for a signature with unknown extents:
 * traced once, it serves only the extents of its trace, until a second
 * trace on other extents shows whether the function computes the same
 * whatever they are (then it serves them all) or sizes something from
 * them on the host (then each shape gets a graph of its own). */
typedef enum
{
  GRAPH_EXACT,          /* the shapes of its trace (no unknown extents) */
  GRAPH_UNVERIFIED,     /* the same, until a call with other extents */
  GRAPH_RELAXED,        /* every extent the signature leaves unknown */
  GRAPH_SPECIALIZED,    /* none: graphs of this key go by exact shapes */
} GraphKind;

typedef struct
{
  EpGraph          *graph;       /* as traced: for tapes, tracers, files */
  EpGraph          *plan;        /* what the passes made of it
                                  * (graph/passes/), made on the first
                                  * plain replay; under the lock */
  GPtrArray        *frames;      /* EpFrame of @plan, free to use; under
                                  * the lock */
  GPtrArray        *traced_frames; /* EpFrame of @graph, the same */
  GraphKind         kind;        /* under the lock */
  EpStagedGradient *gradient;    /* made on the first replay under a
                                  * tape; under the lock */
} Concrete;

struct _EpFunction
{
  GObject          parent_instance;

  EpTensorsFunc    func;
  gpointer         user_data;
  GDestroyNotify   destroy;
  GPtrArray       *signature;   /* EpTensorSpec, or NULL */

  GMutex           lock;
  GHashTable      *concrete;    /* signature key -> Concrete */
  guint            trace_count;
  gboolean         pruning;     /* ep_function_set_pruning() */
};

G_DEFINE_FINAL_TYPE (EpFunction, ep_function, G_TYPE_OBJECT)

static Concrete *
concrete_new (EpGraph   *graph,
              GraphKind  kind)
{
  Concrete *concrete = g_new0 (Concrete, 1);

  concrete->graph = ep_graph_ref (graph);
  concrete->frames = g_ptr_array_new_with_free_func ((GDestroyNotify) ep_frame_free);
  concrete->traced_frames = g_ptr_array_new_with_free_func ((GDestroyNotify) ep_frame_free);
  concrete->kind = kind;
  return concrete;
}

static void
concrete_free (gpointer data)
{
  Concrete *concrete = data;

  g_ptr_array_unref (concrete->frames);
  g_ptr_array_unref (concrete->traced_frames);
  g_clear_pointer (&concrete->gradient, ep_staged_gradient_unref);
  g_clear_pointer (&concrete->plan, ep_graph_unref);
  ep_graph_unref (concrete->graph);
  g_free (concrete);
}

static void
ep_function_finalize (GObject *object)
{
  EpFunction *self = EP_FUNCTION (object);

  if (self->destroy != NULL)
    self->destroy (self->user_data);
  g_clear_pointer (&self->signature, g_ptr_array_unref);
  g_hash_table_unref (self->concrete);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (ep_function_parent_class)->finalize (object);
}

static void
ep_function_class_init (EpFunctionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ep_function_finalize;
}

static void
ep_function_init (EpFunction *self)
{
  g_mutex_init (&self->lock);
  self->concrete = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, concrete_free);
}

/**
 * ep_function_new:
 * @func: (scope notified) (closure user_data) (destroy destroy): the
 *   function to stage; it returns its results, maybe none (an empty
 *   array, or %NULL without an error)
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data with the function
 *
 * Creates a staged function of @func, traced once for each input
 * signature it is called with.
 *
 * Returns: (transfer full): the function
 */
EpFunction *
ep_function_new (EpTensorsFunc   func,
                 gpointer        user_data,
                 GDestroyNotify  destroy)
{
  return ep_function_new_with_signature (func, user_data, destroy, NULL, 0);
}

/**
 * ep_function_new_with_signature:
 * @func: (scope notified) (closure user_data) (destroy destroy): the
 *   function to stage; it returns its results, maybe none (an empty
 *   array, or %NULL without an error)
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data with the function
 * @signature: (array length=n_signature): what each input may be
 * @n_signature: the number of inputs
 *
 * Creates a staged function of @func that takes @n_signature inputs, each
 * matching its spec: calls with inputs that match share one graph (one
 * for each combination of devices), whatever the extents the specs leave
 * unknown, once a second trace on other extents has shown that @func
 * computes the same on them (else each shape gets its own graph).
 *
 * Returns: (transfer full): the function
 */
EpFunction *
ep_function_new_with_signature (EpTensorsFunc   func,
                                gpointer        user_data,
                                GDestroyNotify  destroy,
                                EpTensorSpec  **signature,
                                guint           n_signature)
{
  EpFunction *self;

  g_return_val_if_fail (func != NULL, NULL);
  g_return_val_if_fail (signature != NULL || n_signature == 0, NULL);

  self = g_object_new (EP_TYPE_FUNCTION, NULL);
  self->func = func;
  self->user_data = user_data;
  self->destroy = destroy;
  if (signature != NULL)
    {
      self->signature = g_ptr_array_new_full (n_signature, (GDestroyNotify) ep_tensor_spec_unref);
      for (guint i = 0; i < n_signature; i++)
        g_ptr_array_add (self->signature, ep_tensor_spec_ref (signature[i]));
    }

  return self;
}

static GString *
scope_key (EpFunction *self)
{
  EpDevice *scope = self->func != NULL ? ep_context_get_device () : NULL;
  GString *key = g_string_new (scope != NULL ? scope->name : "");

  g_string_append_c (key, '|');
  return key;
}

static void
append_key (GString       *key,
            EpDType        dtype,
            gboolean       weak,
            const gint64  *shape,
            guint          ndim,
            EpDevice      *device)
{
  g_string_append_printf (key, "%s%s[", ep_dtype_get_name (dtype), weak ? "~" : "");
  for (guint d = 0; d < ndim; d++)
    g_string_append_printf (key, d > 0 ? ",%" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, shape[d]);
  g_string_append_printf (key, "]@%s;", device->name);
}

/* The key of the graphs for @inputs: the dtype, shape, device and
 * weakness of each, with the signature's unknown extents as -1 unless
 * @exact; and for a function it traces, the device scope of the call,
 * where the traced ops ran (the graph runs them there again, whatever
 * the scope of a later call). A graph loaded from a file names its
 * devices. */
static char *
signature_key (EpFunction        *self,
               EpTensor *const   *inputs,
               guint              n_inputs,
               gboolean           exact)
{
  GString *key = scope_key (self);

  for (guint i = 0; i < n_inputs; i++)
    append_key (key, inputs[i]->layout.dtype, inputs[i]->weak,
                self->signature != NULL && !exact
                ? ep_tensor_spec_get_shape (g_ptr_array_index (self->signature, i), NULL)
                : inputs[i]->layout.shape,
                inputs[i]->layout.ndim, inputs[i]->storage->device);

  return g_string_free (key, FALSE);
}

/* The exact key of the inputs @graph was traced on, which had the
 * dtypes, devices and weakness of @inputs. */
static char *
trace_key (EpFunction       *self,
           EpGraph          *graph,
           EpTensor *const  *inputs,
           guint             n_inputs)
{
  GString *key = scope_key (self);

  for (guint i = 0; i < n_inputs; i++)
    append_key (key, inputs[i]->layout.dtype, inputs[i]->weak, graph->inputs[i].shape,
                inputs[i]->layout.ndim, inputs[i]->storage->device);

  return g_string_free (key, FALSE);
}

static gboolean
has_unknown_extents (EpFunction *self)
{
  for (guint i = 0; self->signature != NULL && i < self->signature->len; i++)
    {
      guint ndim;
      const gint64 *shape = ep_tensor_spec_get_shape (g_ptr_array_index (self->signature, i), &ndim);

      for (guint d = 0; d < ndim; d++)
        if (shape[d] < 0)
          return TRUE;
    }

  return FALSE;
}

static gboolean
check_inputs (EpFunction       *self,
              EpTensor *const  *inputs,
              guint             n_inputs,
              GError          **error)
{
  /* a function from ep_function_new_for_graph() has a signature */
  if (self->func == NULL && self->signature == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("function: made without a function to stage (use Function.new)"));
      return FALSE;
    }

  for (guint i = 0; i < n_inputs; i++)
    if (!ep_tensor_check_alive (inputs[i], "function", error))
      return FALSE;

  if (self->signature == NULL)
    return TRUE;

  if (n_inputs != self->signature->len)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   g_dngettext (GETTEXT_PACKAGE,
                                "function: the signature has %u input, %u given",
                                "function: the signature has %u inputs, %u given",
                                self->signature->len),
                   self->signature->len, n_inputs);
      return FALSE;
    }
  for (guint i = 0; i < n_inputs; i++)
    {
      EpTensorSpec *spec = g_ptr_array_index (self->signature, i);

      if (!ep_tensor_spec_matches (spec, inputs[i]))
        {
          guint ndim;
          const gint64 *shape = ep_tensor_spec_get_shape (spec, &ndim);
          g_autofree char *want = ep_shape_to_string (shape, ndim);
          g_autofree char *got = ep_shape_to_string (inputs[i]->layout.shape, inputs[i]->layout.ndim);

          g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                       _("function: input %u, of type %s and shape %s, does not fit the signature's %s %s"),
                       i, ep_dtype_get_name (inputs[i]->layout.dtype), got,
                       ep_dtype_get_name (ep_tensor_spec_get_dtype (spec)), want);
          return FALSE;
        }
    }

  return TRUE;
}

/* Fresh tensor objects for the function's arguments, so that the tracer
 * tells f(x, x)'s two arguments apart: identities, so that a tape
 * around the call follows them back to the caller's tensors. */
static GPtrArray *
own_inputs (EpTensor *const  *inputs,
            guint             n_inputs,
            GError          **error)
{
  g_autoptr(GPtrArray) own = ep_tensor_array_new (n_inputs);

  for (guint i = 0; i < n_inputs; i++)
    {
      EpTensor *copy = ep_identity (inputs[i], error);

      if (copy == NULL)
        return NULL;
      copy->weak = inputs[i]->weak;
      g_ptr_array_add (own, copy);
    }

  return g_steal_pointer (&own);
}

/* The function, eagerly, under a tracer: its results, and in @graph
 * what it computed. */
static GPtrArray *
run_traced (EpFunction       *self,
            EpTensor *const  *inputs,
            guint             n_inputs,
            EpGraph         **graph,
            GError          **error)
{
  g_autoptr(GPtrArray) own = own_inputs (inputs, n_inputs, error);
  g_autoptr(EpTracer) tracer = NULL;
  g_autoptr(GPtrArray) outputs = NULL;
  GError *local_error = NULL;
  GPtrArray *returned;

  if (own == NULL)
    return NULL;
  tracer = ep_tracer_new ((EpTensor *const *) own->pdata, n_inputs);

  ep_tracer_begin (tracer);
  returned = self->func ((EpTensor **) own->pdata, n_inputs, self->user_data, &local_error);
  ep_tracer_end (tracer);

  if (local_error != NULL)
    {
      if (returned != NULL)
        g_ptr_array_unref (ep_autodiff_take_tensors (returned, TRUE, "function", "results", NULL));
      g_propagate_error (error, local_error);
      return NULL;
    }
  if (returned == NULL)
    returned = ep_tensor_array_new (0);
  outputs = ep_autodiff_take_tensors (returned, FALSE, "function", "results", error);
  if (outputs == NULL)
    return NULL;

  *graph = ep_tracer_finish (tracer, (EpTensor *const *) outputs->pdata, outputs->len);
  if (self->pruning)
    {
      EpGraph *pruned = ep_graph_prune (*graph);

      ep_graph_unref (*graph);
      *graph = pruned;
    }
  return g_steal_pointer (&outputs);
}

static void
insert_new (EpFunction *self,
            char       *key,
            EpGraph    *graph,
            GraphKind   kind)
{
  if (g_hash_table_contains (self->concrete, key))
    g_free (key);
  else
    g_hash_table_insert (self->concrete, key, concrete_new (graph, kind));
}

/* Keeps @graph, traced on @inputs. Under the lock. */
static void
store_trace (EpFunction       *self,
             EpTensor *const  *inputs,
             guint             n_inputs,
             EpGraph          *graph)
{
  g_autofree char *key = signature_key (self, inputs, n_inputs, FALSE);
  Concrete *relaxed = g_hash_table_lookup (self->concrete, key);

  self->trace_count++;

  if (relaxed == NULL && graph->fixed_shapes && has_unknown_extents (self))
    {
      /* no need of a second trace to know */
      insert_new (self, g_steal_pointer (&key), graph, GRAPH_SPECIALIZED);
      insert_new (self, signature_key (self, inputs, n_inputs, TRUE), graph, GRAPH_EXACT);
      return;
    }
  if (relaxed == NULL)
    {
      insert_new (self, g_steal_pointer (&key), graph,
                  has_unknown_extents (self) ? GRAPH_UNVERIFIED : GRAPH_EXACT);
      return;
    }

  if (relaxed->kind == GRAPH_UNVERIFIED && !ep_graph_inputs_fit_trace (relaxed->graph, inputs))
    {
      if (ep_graph_same_computation (relaxed->graph, graph))
        {
          relaxed->kind = GRAPH_RELAXED;
          return;
        }
      relaxed->kind = GRAPH_SPECIALIZED;
      insert_new (self, trace_key (self, relaxed->graph, inputs, n_inputs), relaxed->graph, GRAPH_EXACT);
    }

  /* specialized; or another thread traced these inputs meanwhile */
  if (relaxed->kind == GRAPH_SPECIALIZED)
    insert_new (self, signature_key (self, inputs, n_inputs, TRUE), graph, GRAPH_EXACT);
}

/* A call no graph serves yet: its results are the eager ones. */
static GPtrArray *
trace (EpFunction       *self,
       EpTensor *const  *inputs,
       guint             n_inputs,
       GError          **error)
{
  g_autoptr(EpGraph) graph = NULL;
  GPtrArray *outputs = run_traced (self, inputs, n_inputs, &graph, error);

  if (outputs == NULL)
    return NULL;

  g_mutex_lock (&self->lock);
  store_trace (self, inputs, n_inputs, graph);
  g_mutex_unlock (&self->lock);

  return outputs;
}

/* What a plain replay of @concrete runs: its graph through the passes,
 * made once (a new reference). */
static EpGraph *
plan_of (EpFunction *self,
         Concrete   *concrete)
{
  EpGraph *plan;

  g_mutex_lock (&self->lock);
  plan = concrete->plan != NULL ? ep_graph_ref (concrete->plan) : NULL;
  g_mutex_unlock (&self->lock);
  if (plan != NULL)
    return plan;

  /* outside the lock: folding runs kernels */
  plan = ep_graph_optimize (concrete->graph);
  g_mutex_lock (&self->lock);
  if (concrete->plan == NULL)
    concrete->plan = ep_graph_ref (plan);
  else
    {
      ep_graph_unref (plan);
      plan = ep_graph_ref (concrete->plan);
    }
  g_mutex_unlock (&self->lock);

  return plan;
}

/* A frame of @graph (@concrete's plan, or its traced graph: @pool holds
 * the frames of that one) for one replay; give it back after. */
static EpFrame *
take_frame (EpFunction *self,
            GPtrArray  *pool,
            EpGraph    *graph)
{
  EpFrame *frame = NULL;

  g_mutex_lock (&self->lock);
  if (pool->len > 0)
    frame = g_ptr_array_steal_index_fast (pool, pool->len - 1);
  g_mutex_unlock (&self->lock);

  return frame != NULL ? frame : ep_frame_new (graph);
}

static void
give_frame (EpFunction *self,
            GPtrArray  *pool,
            EpFrame    *frame)
{
  g_mutex_lock (&self->lock);
  g_ptr_array_add (pool, frame);
  g_mutex_unlock (&self->lock);
}

static GPtrArray *
new_outputs (EpGraph *graph)
{
  GPtrArray *outputs = ep_tensor_array_new (graph->n_outputs);

  g_ptr_array_set_size (outputs, graph->n_outputs);
  return outputs;
}

/* The gradient of @concrete's graph, made on first need. */
static EpStagedGradient *
gradient_of (EpFunction *self,
             Concrete   *concrete)
{
  EpStagedGradient *gradient;

  g_mutex_lock (&self->lock);
  if (concrete->gradient == NULL)
    concrete->gradient = ep_staged_gradient_new (concrete->graph);
  gradient = ep_staged_gradient_ref (concrete->gradient);
  g_mutex_unlock (&self->lock);

  return gradient;
}

/* Without recorders, the graph runs in C. Gradient tapes around the call
 * get it as one step whose backward pass is staged too (see
 * graph/staged-gradient.c). A recorder that must see every op (a
 * function being traced) gets the graph's ops dispatched one by one. */
static GPtrArray *
replay (EpFunction       *self,
        Concrete         *concrete,
        EpTensor *const  *inputs,
        GError          **error)
{
  g_autoptr(GPtrArray) outputs = new_outputs (concrete->graph);
  EpTensor **out = (EpTensor **) outputs->pdata;
  gboolean ok;

  if (ep_recorders_any () && (!ep_recorders_take_composites () || concrete->graph->has_host_calls))
    ok = ep_graph_replay_eagerly (concrete->graph, inputs, out, error);
  else if (ep_recorders_any ())
    {
      g_autoptr(EpStagedGradient) gradient = gradient_of (self, concrete);
      EpFrame *frame = take_frame (self, concrete->traced_frames, concrete->graph);

      ok = ep_staged_gradient_replay (gradient, frame, inputs, out, error);
      give_frame (self, concrete->traced_frames, frame);
    }
  else
    {
      g_autoptr(EpGraph) plan = plan_of (self, concrete);
      EpFrame *frame = take_frame (self, concrete->frames, plan);

      ok = ep_graph_replay (plan, frame, inputs, NULL, out, NULL, error);
      give_frame (self, concrete->frames, frame);
    }

  if (!ok)
    {
      g_ptr_array_set_size (outputs, 0);
      return NULL;
    }

  return g_steal_pointer (&outputs);
}

/* The graph that serves @inputs, if one does. */
static Concrete *
lookup_concrete (EpFunction       *self,
                 EpTensor *const  *inputs,
                 guint             n_inputs)
{
  g_autofree char *key = signature_key (self, inputs, n_inputs, FALSE);
  Concrete *concrete;

  g_mutex_lock (&self->lock);
  concrete = g_hash_table_lookup (self->concrete, key);
  if (concrete != NULL && concrete->kind == GRAPH_UNVERIFIED
      && !ep_graph_inputs_fit_trace (concrete->graph, inputs))
    concrete = NULL;
  else if (concrete != NULL && concrete->kind == GRAPH_SPECIALIZED)
    {
      g_autofree char *exact = signature_key (self, inputs, n_inputs, TRUE);

      concrete = g_hash_table_lookup (self->concrete, exact);
    }
  g_mutex_unlock (&self->lock);

  return concrete;
}

/* Inputs that fit the signature of a function made from a graph, but
 * on other devices (or weak literals): the graph does not serve them and
 * there is no function to trace. */
static GPtrArray *
no_trace_error (EpFunction  *self,
                const char  *key,
                GError     **error)
{
  GHashTableIter iter;
  const char *graph_key = "";

  g_mutex_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->concrete);
  g_hash_table_iter_next (&iter, (gpointer *) &graph_key, NULL);
  g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
               _("function: it has no function to trace, only a graph for inputs %s, not %s"),
               graph_key, key);
  g_mutex_unlock (&self->lock);
  return NULL;
}

static GPtrArray *
call_pinned (EpFunction  *self,
             EpTensor   **inputs,
             guint        n_inputs,
             GError     **error)
{
  Concrete *concrete = lookup_concrete (self, inputs, n_inputs);

  if (concrete == NULL && self->func == NULL)
    {
      g_autofree char *key = signature_key (self, inputs, n_inputs, TRUE);

      return no_trace_error (self, key, error);
    }
  if (concrete == NULL)
    return trace (self, inputs, n_inputs, error);

  return replay (self, concrete, inputs, error);
}

/**
 * ep_function_call:
 * @self: a staged function
 * @inputs: (array length=n_inputs): the arguments
 * @n_inputs: the number of arguments
 * @error: return location for an error
 *
 * Calls the function: traces it if no graph serves this input signature
 * yet (running it eagerly), else replays the graph.
 *
 * Returns: (transfer container) (element-type EpTensor): the results,
 *   or %NULL with @error set: the error the function gives eagerly, or
 *   %EP_ERROR_SHAPE for inputs that do not fit the signature
 */
GPtrArray *
ep_function_call (EpFunction  *self,
                  EpTensor   **inputs,
                  guint        n_inputs,
                  GError     **error)
{
  GPtrArray *outputs;

  g_return_val_if_fail (EP_IS_FUNCTION (self), NULL);
  g_return_val_if_fail (inputs != NULL || n_inputs == 0, NULL);
  for (guint i = 0; i < n_inputs; i++)
    g_return_val_if_fail (EP_IS_TENSOR (inputs[i]), NULL);

  /* a release on another thread waits for this call to let go */
  if (!check_inputs (self, inputs, n_inputs, error)
      || !ep_tensors_pin (inputs, n_inputs, "function", error))
    return NULL;

  outputs = call_pinned (self, inputs, n_inputs, error);
  ep_tensors_unpin (inputs, n_inputs);

  return outputs;
}

/* A replay and never a trace, for a caller on a thread where the
 * function may not run (graph/trainer.c's worker): no graph for these
 * inputs is an error. */
GPtrArray *
ep_function_replay_only (EpFunction  *self,
                         EpTensor   **inputs,
                         guint        n_inputs,
                         GError     **error)
{
  GPtrArray *outputs;
  Concrete *concrete;

  if (!check_inputs (self, inputs, n_inputs, error)
      || !ep_tensors_pin (inputs, n_inputs, "function", error))
    return NULL;

  concrete = lookup_concrete (self, inputs, n_inputs);
  if (concrete == NULL)
    {
      g_autofree char *key = signature_key (self, inputs, n_inputs, TRUE);

      outputs = no_trace_error (self, key, error);
    }
  else
    outputs = replay (self, concrete, inputs, error);
  ep_tensors_unpin (inputs, n_inputs);

  return outputs;
}

/* Async calls: the replay runs on a worker thread and touches no
 * variable there; the values it read were taken on the caller's thread,
 * and the values it assigned are set there, once it has succeeded. */

typedef struct
{
  Concrete   *concrete;
  GPtrArray  *inputs;       /* EpTensor */
  EpTensor  **variables;    /* the values to read; then, those to set */
  guint       n_variables;
  GPtrArray  *outputs;      /* EpTensor, once replayed */
  EpFrame    *frame;        /* the replay's, until the variables are set */
} AsyncCall;

static void
async_call_free (gpointer data)
{
  AsyncCall *call = data;

  g_clear_pointer (&call->frame, ep_frame_free);
  g_ptr_array_unref (call->inputs);
  for (guint v = 0; v < call->n_variables; v++)
    g_clear_object (&call->variables[v]);
  g_free (call->variables);
  g_clear_pointer (&call->outputs, g_ptr_array_unref);
  g_free (call);
}

static AsyncCall *
async_call_new (Concrete         *concrete,
                EpTensor *const  *inputs,
                guint             n_inputs)
{
  AsyncCall *call = g_new0 (AsyncCall, 1);
  GPtrArray *variables = concrete->graph->variables;

  call->concrete = concrete;
  /* objects of its own: the caller may release its tensors meanwhile */
  call->inputs = ep_tensor_array_new (n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    {
      EpTensor *own = ep_tensor_new_alias (inputs[i]);

      /* a tidy scope closing meanwhile must not take them either */
      ep_tidy_untrack (own);
      g_ptr_array_add (call->inputs, own);
    }
  call->n_variables = variables->len;
  call->variables = g_new0 (EpTensor *, MAX (variables->len, 1));
  for (guint v = 0; v < variables->len; v++)
    call->variables[v] = ep_variable_peek (g_ptr_array_index (variables, v));

  return call;
}

static void
replay_in_thread (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  EpFunction *self = source_object;
  AsyncCall *call = task_data;
  g_autoptr(GPtrArray) outputs = new_outputs (call->concrete->graph);
  g_autoptr(EpGraph) plan = plan_of (self, call->concrete);
  EpFrame *frame = take_frame (self, call->concrete->frames, plan);
  GError *error = NULL;
  gboolean ok;

  ep_context_get ()->host_context = g_task_get_context (task);
  ok = ep_graph_replay (plan, frame, (EpTensor *const *) call->inputs->pdata,
                        call->variables, (EpTensor **) outputs->pdata, cancellable, &error);
  ep_context_get ()->host_context = NULL;
  /* kept until the variables are set, for their old buffers */
  call->frame = frame;

  if (!ok)
    {
      g_ptr_array_set_size (outputs, 0);
      g_task_return_error (task, error);
      return;
    }
  call->outputs = g_steal_pointer (&outputs);
  g_task_return_boolean (task, TRUE);
}

/* Back on the caller's thread: the variables change now, all of them, or
 * none when the call failed or was cancelled meanwhile. */
static void
replayed (GObject      *source_object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AsyncCall *call = g_task_get_task_data (G_TASK (result));
  GPtrArray *variables = call->concrete->graph->variables;
  EpFunction *self = EP_FUNCTION (g_task_get_source_object (task));
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error)
      || g_cancellable_set_error_if_cancelled (g_task_get_cancellable (task), &error))
    {
      give_frame (self, call->concrete->frames, g_steal_pointer (&call->frame));
      g_task_return_error (task, error);
      return;
    }

  /* the old values' buffers, where nothing else holds them, go to the
   * frame's arena for the next replay to write the next values in, as
   * a plain call's do (commit_variable() in graph/executor.c) */
  for (guint v = 0; v < variables->len; v++)
    {
      EpVariable *variable = g_ptr_array_index (variables, v);
      g_autoptr(EpTensor) current = ep_variable_peek (variable);
      g_autoptr(EpTensor) replaced = NULL;
      /* the worker may hold the call a while yet: it keeps no value */
      g_autoptr(EpTensor) value = g_steal_pointer (&call->variables[v]);
      EpStorage *old;

      if (value == current)
        continue;
      g_clear_object (&current);
      /* the value it replaces, whatever another thread assigned meanwhile */
      replaced = ep_variable_exchange_value (variable, value);
      old = replaced->storage != NULL ? ep_storage_ref (replaced->storage) : NULL;
      g_clear_object (&replaced);
      if (old != NULL)
        ep_frame_give_buffer (call->frame, old);
    }
  give_frame (self, call->concrete->frames, g_steal_pointer (&call->frame));
  g_task_return_pointer (task, g_steal_pointer (&call->outputs), (GDestroyNotify) g_ptr_array_unref);
}

/**
 * ep_function_call_async:
 * @self: a staged function
 * @inputs: (array length=n_inputs): the arguments
 * @n_inputs: the number of arguments
 * @cancellable: (nullable): stops the replay between two ops
 * @callback: (scope async): called on the thread-default main context of
 *   the calling thread when the call is done
 * @user_data: data for @callback
 *
 * Calls the function without blocking: the replay runs on a worker
 * thread, and @callback runs on this thread's main context, where
 * [method@Function.call_finish] gives the results. This is how a GTK
 * application trains a model without freezing its window.
 *
 * Variables change all together, on this thread, when the call has
 * succeeded, just before @callback runs; the replay reads the values they
 * had when this function was called. A call that fails or is cancelled
 * (%G_IO_ERROR_CANCELLED, noticed between two ops or once the replay
 * is done) leaves every variable as it was.
 *
 * Host callbacks in the graph ([func@host_call]) run on this thread's
 * main context while the replay waits for them: a language like
 * JavaScript runs only there.
 *
 * Tracing runs the function, which may only run on this thread: the
 * first call with a new input signature traces here, before returning,
 * and so does a call made while a gradient tape or a tracer is active on
 * this thread (so that it records the ops); @callback still runs from
 * the main context.
 */
void
ep_function_call_async (EpFunction           *self,
                        EpTensor            **inputs,
                        guint                 n_inputs,
                        GCancellable         *cancellable,
                        GAsyncReadyCallback   callback,
                        gpointer              user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) worker = NULL;
  GError *error = NULL;
  Concrete *concrete;

  g_return_if_fail (EP_IS_FUNCTION (self));
  g_return_if_fail (inputs != NULL || n_inputs == 0);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));
  for (guint i = 0; i < n_inputs; i++)
    g_return_if_fail (EP_IS_TENSOR (inputs[i]));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ep_function_call_async);

  if (!check_inputs (self, inputs, n_inputs, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  concrete = lookup_concrete (self, inputs, n_inputs);
  if (concrete == NULL || ep_recorders_any ())
    {
      GPtrArray *outputs = ep_function_call (self, inputs, n_inputs, &error);

      if (outputs == NULL)
        g_task_return_error (task, error);
      else
        g_task_return_pointer (task, outputs, (GDestroyNotify) g_ptr_array_unref);
      return;
    }

  worker = g_task_new (self, cancellable, replayed, g_steal_pointer (&task));
  g_task_set_check_cancellable (worker, FALSE);
  g_task_set_task_data (worker, async_call_new (concrete, inputs, n_inputs), async_call_free);
  g_task_run_in_thread (worker, replay_in_thread);
}

/**
 * ep_function_call_finish:
 * @self: a staged function
 * @result: the result given to the callback of
 *   [method@Function.call_async]
 * @error: return location for an error
 *
 * Finishes a call begun with [method@Function.call_async].
 *
 * Returns: (transfer container) (element-type EpTensor): the results, or
 *   %NULL with @error set: as [method@Function.call], or
 *   %G_IO_ERROR_CANCELLED
 */
GPtrArray *
ep_function_call_finish (EpFunction    *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (EP_IS_FUNCTION (self), NULL);

  if (!g_task_is_valid (result, self)
      || g_task_get_source_tag (G_TASK (result)) != ep_function_call_async)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("call_finish: the result is not of a call_async of this function"));
      return NULL;
    }

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * ep_function_get_trace_count:
 * @self: a staged function
 *
 * Tells how many graphs the function has traced: one per input signature
 * it was called with.
 *
 * Returns: the number of traces
 */
guint
ep_function_get_trace_count (EpFunction *self)
{
  guint count;

  g_return_val_if_fail (EP_IS_FUNCTION (self), 0);

  g_mutex_lock (&self->lock);
  count = self->trace_count;
  g_mutex_unlock (&self->lock);

  return count;
}

/**
 * ep_function_get_signature:
 * @self: a staged function
 * @n_signature: (out) (optional): return location for the number of specs
 *
 * Gives the specs the function takes its inputs by: those it was made
 * with ([ctor@Function.new_with_signature]), or those of the graph it
 * was loaded from ([ctor@Function.load]).
 *
 * Returns: (array length=n_signature) (transfer none) (nullable): the
 *   specs, or %NULL for a function that takes any signature
 */
EpTensorSpec **
ep_function_get_signature (EpFunction *self,
                           guint      *n_signature)
{
  g_return_val_if_fail (EP_IS_FUNCTION (self), NULL);

  if (n_signature != NULL)
    *n_signature = self->signature != NULL ? self->signature->len : 0;
  return self->signature != NULL ? (EpTensorSpec **) self->signature->pdata : NULL;
}

/* The graph that serves @inputs, or NULL when the function has traced
 * none for their signature: for tests, and for saving. */
EpGraph *
ep_function_lookup_graph (EpFunction       *self,
                          EpTensor *const  *inputs,
                          guint             n_inputs)
{
  Concrete *concrete;

  if (self->signature != NULL && n_inputs != self->signature->len)
    return NULL;

  concrete = lookup_concrete (self, inputs, n_inputs);
  return concrete != NULL ? ep_graph_ref (concrete->graph) : NULL;
}

/* A function that replays @graph for inputs that fit @signature (one
 * spec per input of @graph) on the devices the graph takes them on; it
 * has no function to trace a graph for other inputs. Graph files load
 * into one. */
EpFunction *
ep_function_new_for_graph (EpGraph              *graph,
                           EpTensorSpec *const  *signature)
{
  EpFunction *self = g_object_new (EP_TYPE_FUNCTION, NULL);
  GString *key = scope_key (self);

  self->signature = g_ptr_array_new_full (graph->n_inputs, (GDestroyNotify) ep_tensor_spec_unref);
  for (guint i = 0; i < graph->n_inputs; i++)
    {
      guint ndim;
      const gint64 *shape = ep_tensor_spec_get_shape (signature[i], &ndim);

      g_ptr_array_add (self->signature, ep_tensor_spec_ref (signature[i]));
      append_key (key, ep_tensor_spec_get_dtype (signature[i]), FALSE, shape, ndim,
                  graph->input_devices[i]);
    }

  /* saved graphs served every extent their signature leaves unknown */
  g_hash_table_insert (self->concrete, g_string_free (key, FALSE), concrete_new (graph, GRAPH_RELAXED));

  return self;
}

/* The graph plain replays of @inputs run (the passes' work), or NULL
 * when none has run yet: for the passes' tests. */
EpGraph *
ep_function_lookup_plan (EpFunction       *self,
                         EpTensor *const  *inputs,
                         guint             n_inputs)
{
  Concrete *concrete = lookup_concrete (self, inputs, n_inputs);
  EpGraph *plan = NULL;

  g_mutex_lock (&self->lock);
  if (concrete != NULL && concrete->plan != NULL)
    plan = ep_graph_ref (concrete->plan);
  g_mutex_unlock (&self->lock);

  return plan;
}

/* Graphs traced from now on drop the nodes nothing needs
 * (ep_graph_prune()): for staged backward functions, which recompute the
 * forward pass and use only part of it. */
void
ep_function_set_pruning (EpFunction *self,
                         gboolean    pruning)
{
  self->pruning = pruning;
}

/* The gradient of the graph that serves @inputs, if it was replayed
 * under a tape (transfer full), else NULL: for tests. */
EpStagedGradient *
ep_function_lookup_gradient (EpFunction       *self,
                             EpTensor *const  *inputs,
                             guint             n_inputs)
{
  Concrete *concrete = lookup_concrete (self, inputs, n_inputs);
  EpStagedGradient *gradient = NULL;

  g_mutex_lock (&self->lock);
  if (concrete != NULL && concrete->gradient != NULL)
    gradient = ep_staged_gradient_ref (concrete->gradient);
  g_mutex_unlock (&self->lock);

  return gradient;
}
