/* graph/function.c: EpFunction, a function staged once per signature
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "ep-autodiff-private.h"
#include "ep-device-private.h"
#include "ep-error.h"
#include "ep-executor-private.h"
#include "ep-function-private.h"
#include "ep-function.h"
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
 * A signature of [struct@TensorSpec]s with unknown extents
 * ([ctor@Function.new_with_signature]) makes one graph serve, say, every
 * batch size: the ops' rules run again at each replay to size the
 * results.
 *
 * A gradient tape around a replayed call records the whole call as one
 * step, and its backward pass is staged too: written down from the ops'
 * gradient rules the first time a gradient goes through the call, then
 * replayed in C, without the intermediate results the tape would
 * otherwise record one by one. The gradients, with respect to the inputs
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

typedef struct
{
  EpGraph          *graph;
  GPtrArray        *frames;      /* EpFrame, free to use; under the lock */
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

static void
concrete_free (gpointer data)
{
  Concrete *concrete = data;

  g_ptr_array_unref (concrete->frames);
  g_clear_pointer (&concrete->gradient, ep_staged_gradient_unref);
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
 *   function to stage; it returns at least one tensor
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
 *   function to stage; it returns at least one tensor
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data with the function
 * @signature: (array length=n_signature): what each input may be
 * @n_signature: the number of inputs
 *
 * Creates a staged function of @func that takes @n_signature inputs, each
 * matching its spec: calls with inputs that match share one graph (one
 * for each combination of devices), whatever the extents the specs leave
 * unknown.
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

/* The key of the graph that serves @inputs: the dtype, shape (the specs'
 * when there are some), device and weakness of each. */
static char *
signature_key (EpFunction        *self,
               EpTensor *const   *inputs,
               guint              n_inputs)
{
  GString *key = g_string_new (NULL);

  for (guint i = 0; i < n_inputs; i++)
    {
      const EpLayout *layout = &inputs[i]->layout;
      const gint64 *shape = layout->shape;

      if (self->signature != NULL)
        shape = ep_tensor_spec_get_shape (g_ptr_array_index (self->signature, i), NULL);
      g_string_append_printf (key, "%s%s[", ep_dtype_get_name (layout->dtype),
                              inputs[i]->weak ? "~" : "");
      for (guint d = 0; d < layout->ndim; d++)
        g_string_append_printf (key, d > 0 ? ",%" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, shape[d]);
      g_string_append_printf (key, "]@%s;", inputs[i]->storage->device->name);
    }

  return g_string_free (key, FALSE);
}

static gboolean
check_inputs (EpFunction       *self,
              EpTensor *const  *inputs,
              guint             n_inputs,
              GError          **error)
{
  if (self->func == NULL)
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
                   _("function: %u inputs given, the signature has %u"),
                   n_inputs, self->signature->len);
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
                       _("function: input %u, a %s tensor of shape %s, does not fit the signature's %s %s"),
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

/* The first call of a signature: the function, eagerly, under a tracer;
 * its results are the call's. */
static GPtrArray *
trace (EpFunction       *self,
       char             *key,
       EpTensor *const  *inputs,
       guint             n_inputs,
       GError          **error)
{
  g_autoptr(GPtrArray) own = own_inputs (inputs, n_inputs, error);
  g_autoptr(EpTracer) tracer = NULL;
  g_autoptr(GPtrArray) outputs = NULL;
  GError *local_error = NULL;
  GPtrArray *returned;
  Concrete *concrete;

  if (own == NULL)
    {
      g_free (key);
      return NULL;
    }
  tracer = ep_tracer_new ((EpTensor *const *) own->pdata, n_inputs);

  ep_tracer_begin (tracer);
  returned = self->func ((EpTensor **) own->pdata, n_inputs, self->user_data, &local_error);
  ep_tracer_end (tracer);

  if (local_error != NULL)
    {
      if (returned != NULL)
        g_ptr_array_unref (ep_autodiff_take_tensors (returned, TRUE, "function", "results", NULL));
      g_propagate_error (error, local_error);
      g_free (key);
      return NULL;
    }
  if (returned == NULL || returned->len == 0)
    {
      if (returned != NULL)
        g_ptr_array_unref (returned);
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: the function returned no tensor"), "function");
      g_free (key);
      return NULL;
    }
  outputs = ep_autodiff_take_tensors (returned, FALSE, "function", "results", error);
  if (outputs == NULL)
    {
      g_free (key);
      return NULL;
    }

  concrete = g_new0 (Concrete, 1);
  concrete->graph = ep_tracer_finish (tracer, (EpTensor *const *) outputs->pdata, outputs->len);
  if (self->pruning)
    {
      EpGraph *pruned = ep_graph_prune (concrete->graph);

      ep_graph_unref (concrete->graph);
      concrete->graph = pruned;
    }
  concrete->frames = g_ptr_array_new_with_free_func ((GDestroyNotify) ep_frame_free);

  g_mutex_lock (&self->lock);
  if (!g_hash_table_contains (self->concrete, key))
    {
      g_hash_table_insert (self->concrete, key, concrete);
      self->trace_count++;
    }
  else
    {
      /* another thread traced it meanwhile */
      concrete_free (concrete);
      g_free (key);
    }
  g_mutex_unlock (&self->lock);

  return g_steal_pointer (&outputs);
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
  EpGraph *graph = concrete->graph;
  GPtrArray *outputs = ep_tensor_array_new (graph->n_outputs);
  EpFrame *frame = NULL;
  gboolean ok;

  g_ptr_array_set_size (outputs, graph->n_outputs);

  if (ep_recorders_any () && !ep_recorders_take_composites ())
    ok = ep_graph_replay_eagerly (graph, inputs, (EpTensor **) outputs->pdata, error);
  else
    {
      g_mutex_lock (&self->lock);
      if (concrete->frames->len > 0)
        frame = g_ptr_array_steal_index_fast (concrete->frames, concrete->frames->len - 1);
      g_mutex_unlock (&self->lock);
      if (frame == NULL)
        frame = ep_frame_new (graph);

      if (ep_recorders_any ())
        {
          g_autoptr(EpStagedGradient) gradient = gradient_of (self, concrete);

          ok = ep_staged_gradient_replay (gradient, frame, inputs, (EpTensor **) outputs->pdata, error);
        }
      else
        ok = ep_graph_replay (graph, frame, inputs, (EpTensor **) outputs->pdata, NULL, error);

      g_mutex_lock (&self->lock);
      g_ptr_array_add (concrete->frames, frame);
      g_mutex_unlock (&self->lock);
    }

  if (!ok)
    {
      g_ptr_array_set_size (outputs, 0);
      g_ptr_array_unref (outputs);
      return NULL;
    }

  return outputs;
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
  g_autofree char *key = NULL;
  Concrete *concrete;

  g_return_val_if_fail (EP_IS_FUNCTION (self), NULL);
  g_return_val_if_fail (inputs != NULL || n_inputs == 0, NULL);
  for (guint i = 0; i < n_inputs; i++)
    g_return_val_if_fail (EP_IS_TENSOR (inputs[i]), NULL);

  if (!check_inputs (self, inputs, n_inputs, error))
    return NULL;

  key = signature_key (self, inputs, n_inputs);
  g_mutex_lock (&self->lock);
  concrete = g_hash_table_lookup (self->concrete, key);
  g_mutex_unlock (&self->lock);

  if (concrete == NULL)
    return trace (self, g_steal_pointer (&key), inputs, n_inputs, error);

  return replay (self, concrete, inputs, error);
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

/* The graph that serves @inputs, or NULL when the function has traced
 * none for their signature: for tests, and for saving. */
EpGraph *
ep_function_lookup_graph (EpFunction       *self,
                          EpTensor *const  *inputs,
                          guint             n_inputs)
{
  g_autofree char *key = signature_key (self, inputs, n_inputs);
  Concrete *concrete;
  EpGraph *graph = NULL;

  g_mutex_lock (&self->lock);
  concrete = g_hash_table_lookup (self->concrete, key);
  if (concrete != NULL)
    graph = ep_graph_ref (concrete->graph);
  g_mutex_unlock (&self->lock);

  return graph;
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
  g_autofree char *key = signature_key (self, inputs, n_inputs);
  Concrete *concrete;
  EpStagedGradient *gradient = NULL;

  g_mutex_lock (&self->lock);
  concrete = g_hash_table_lookup (self->concrete, key);
  if (concrete != NULL && concrete->gradient != NULL)
    gradient = ep_staged_gradient_ref (concrete->gradient);
  g_mutex_unlock (&self->lock);

  return gradient;
}
