/* graph/host-call.c: host callbacks, opaque steps of staged functions
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A host call runs a function of the host language on tensors, with the
 * thread's recorders paused: no tape records the ops it runs, no tracer
 * stages them. Instead the recorders see the call as one step: a tracer
 * writes down an EP_NODE_HOST node that holds the callback (EpHostCall),
 * which each replay calls again; a gradient tape records a composite
 * step whose rule is the gradient callback, itself run as a host call
 * (so that a tape around it, or a tracer staging a backward pass, sees
 * it as one step too).
 *
 * A replay on a worker thread (ep_function_call_async()) cannot call
 * the host language there (gjs runs JavaScript on its main thread only):
 * the thread's context names the main context the call came from, and
 * each callback runs there while the replay waits.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-autodiff-private.h"
#include "ep-context-private.h"
#include "ep-error.h"
#include "ep-host-call-private.h"
#include "ep-recorder-private.h"
#include "ep-tensor-private.h"

static const char NAME[] = "host_call";

EpHostCall *
ep_host_call_new (EpTensorsFunc       func,
                  gpointer            func_data,
                  GDestroyNotify      func_destroy,
                  EpHostGradientFunc  gradient,
                  gpointer            gradient_data,
                  GDestroyNotify      gradient_destroy)
{
  EpHostCall *self = g_new0 (EpHostCall, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->func = func;
  self->func_data = func_data;
  self->func_destroy = func_destroy;
  self->gradient = gradient;
  self->gradient_data = gradient_data;
  self->gradient_destroy = gradient_destroy;
  return self;
}

EpHostCall *
ep_host_call_ref (EpHostCall *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
ep_host_call_unref (EpHostCall *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  if (self->func_destroy != NULL)
    self->func_destroy (self->func_data);
  if (self->gradient_destroy != NULL)
    self->gradient_destroy (self->gradient_data);
  g_free (self);
}

/* Running the callback */

/* The callback's results as fresh tensors of ours: it may return its
 * arguments, or tensors it keeps. */
static GPtrArray *
own_results (GPtrArray  *returned,
             GError    **error)
{
  g_autoptr(GPtrArray) taken = NULL;
  GPtrArray *own;

  if (returned == NULL)
    return ep_tensor_array_new (0);
  taken = ep_autodiff_take_tensors (returned, FALSE, NAME, "results", error);
  if (taken == NULL)
    return NULL;
  if (taken->len > EP_HOST_CALL_MAX_RESULTS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: the callback returned %u tensors; it may return at most %d"),
                   NAME, taken->len, EP_HOST_CALL_MAX_RESULTS);
      return NULL;
    }

  own = ep_tensor_array_new (taken->len);
  for (guint o = 0; o < taken->len; o++)
    {
      EpTensor *result = g_ptr_array_index (taken, o);

      if (!ep_tensor_check_alive (result, NAME, error))
        {
          g_ptr_array_unref (own);
          return NULL;
        }
      g_ptr_array_add (own, ep_tensor_new_alias (result));
    }

  return own;
}

/* The callback, here, with this thread's recorders paused */
static GPtrArray *
invoke_here (EpHostCall  *self,
             EpTensor   **args,
             guint        n_args,
             GError     **error)
{
  EpContext *context = ep_context_get ();
  EpRecorder *recorders = context->recorders;
  EpRecorder **link;
  GError *local_error = NULL;
  GPtrArray *returned;

  context->recorders = NULL;
  returned = self->func (args, n_args, self->func_data, &local_error);
  /* tapes the callback started and left active stay so, above the
   * paused ones */
  for (link = &context->recorders; *link != NULL; link = &(*link)->below)
    ;
  *link = recorders;

  if (local_error != NULL)
    {
      if (returned != NULL)
        g_ptr_array_unref (ep_autodiff_take_tensors (returned, TRUE, NAME, "results", NULL));
      g_propagate_error (error, local_error);
      return NULL;
    }

  return own_results (returned, error);
}

/* A callback to run on another thread's main context, and its outcome */
typedef struct
{
  EpHostCall   *call;
  EpTensor    **args;
  guint         n_args;
  GMainContext *main_context;
  GPtrArray    *results;
  GError       *error;
  gboolean      done;
  GMutex        lock;
  GCond         cond;
} Job;

/* The jobs waiting for their main context, so that code that blocks on
 * that context's thread until a replay is done (ep_trainer_snapshot_variables())
 * can run them meanwhile (ep_host_call_wait_pending()) rather than wait
 * forever for a replay that waits for it. A job runs once: whoever takes
 * it off the queue first, its idle source or a waiter. */
static GMutex pending_lock;
static GCond pending_cond;
static GQueue pending = G_QUEUE_INIT;

static void
run_taken_job (Job *job)
{
  GPtrArray *results = invoke_here (job->call, job->args, job->n_args, &job->error);

  g_mutex_lock (&job->lock);
  job->results = results;
  job->done = TRUE;
  g_cond_signal (&job->cond);
  g_mutex_unlock (&job->lock);
}

static gboolean
run_job (gpointer data)
{
  Job *job = data;
  gboolean taken;

  g_mutex_lock (&pending_lock);
  taken = g_queue_remove (&pending, job);
  g_mutex_unlock (&pending_lock);
  if (taken)
    run_taken_job (job);

  return G_SOURCE_REMOVE;
}

/*
 * ep_host_call_wait_pending:
 * @main_context: a main context the calling thread owns
 * @timeout_us: how long to wait for a job, in µs
 *
 * Runs a host call that a replay on another thread waits for on
 * @main_context, if there is one, else waits up to @timeout_us for one
 * (and runs it). For code that must block the thread of @main_context
 * until a replay ends.
 */
void
ep_host_call_wait_pending (GMainContext *main_context,
                           gint64        timeout_us)
{
  gint64 end_time = g_get_monotonic_time () + timeout_us;
  Job *job = NULL;

  g_mutex_lock (&pending_lock);
  for (;;)
    {
      for (GList *l = pending.head; l != NULL && job == NULL; l = l->next)
        if (((Job *) l->data)->main_context == main_context)
          job = l->data;
      if (job != NULL || !g_cond_wait_until (&pending_cond, &pending_lock, end_time))
        break;
    }
  if (job != NULL)
    g_queue_remove (&pending, job);
  g_mutex_unlock (&pending_lock);

  if (job != NULL)
    run_taken_job (job);
}

static GPtrArray *
invoke_on (GMainContext  *main_context,
           EpHostCall    *self,
           EpTensor     **args,
           guint          n_args,
           GError       **error)
{
  Job job = { self, args, n_args, main_context };
  GSource *source = g_idle_source_new ();

  g_mutex_init (&job.lock);
  g_cond_init (&job.cond);
  g_mutex_lock (&pending_lock);
  g_queue_push_tail (&pending, &job);
  g_cond_broadcast (&pending_cond);
  g_mutex_unlock (&pending_lock);

  /* a source, not g_main_context_invoke(): that runs the job here when
   * the context is the global default and nobody owns it yet */
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, run_job, &job, NULL);
  g_source_set_static_name (source, "[eager-glib] host_call");
  g_source_attach (source, main_context);
  g_mutex_lock (&job.lock);
  while (!job.done)
    g_cond_wait (&job.cond, &job.lock);
  g_mutex_unlock (&job.lock);
  /* a waiter may have run the job: its source must not find it gone */
  g_source_destroy (source);
  g_source_unref (source);

  g_mutex_clear (&job.lock);
  g_cond_clear (&job.cond);
  if (job.error != NULL)
    g_propagate_error (error, job.error);
  return job.results;
}

/*
 * ep_host_call_invoke:
 * @args: (array length=n_args): what the callback gets
 *
 * Runs the callback with this thread's recorders paused, on the main
 * context this thread's replay came from (ep_context_get ()->host_context)
 * if there is one.
 *
 * Returns: its results, fresh tensors, or %NULL with @error set
 */
GPtrArray *
ep_host_call_invoke (EpHostCall  *self,
                     EpTensor   **args,
                     guint        n_args,
                     GError     **error)
{
  GMainContext *main_context = ep_context_get ()->host_context;

  if (main_context != NULL && !g_main_context_is_owner (main_context))
    return invoke_on (main_context, self, args, n_args, error);

  return invoke_here (self, args, n_args, error);
}

/* The gradient, as a host call of its own */

typedef struct
{
  EpHostCall *forward;
  guint       n_inputs;
} GradientArgs;

static void
gradient_args_free (gpointer data)
{
  GradientArgs *args = data;

  ep_host_call_unref (args->forward);
  g_free (args);
}

/* The gradient callback on (inputs, output gradients) */
static GPtrArray *
run_gradient (EpTensor  **args,
              guint       n_args,
              gpointer    user_data,
              GError    **error)
{
  GradientArgs *gradient = user_data;
  EpHostCall *forward = gradient->forward;

  return forward->gradient (args, gradient->n_inputs, args + gradient->n_inputs,
                            n_args - gradient->n_inputs, forward->gradient_data, error);
}

/* What a tape keeps of a host call: the callback, and the shapes of its
 * arguments and results (zeros stand for missing gradients) */
typedef struct
{
  EpHostCall *call;
  guint       n_inputs;
  guint       n_outputs;
  EpTensor  **inputs;    /* n_inputs, then n_outputs */
} Step;

static void
step_free (gpointer data)
{
  Step *step = data;

  for (guint i = 0; i < step->n_inputs + step->n_outputs; i++)
    g_object_unref (step->inputs[i]);
  g_free (step->inputs);
  ep_host_call_unref (step->call);
  g_free (step);
}

/* The gradients the callback returned, checked against the arguments */
static gboolean
take_gradients (Step       *step,
                GPtrArray  *grads,
                EpTensor  **input_grads,
                GError    **error)
{
  if (grads->len != step->n_inputs)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_GRADIENT,
                   _("%s: the gradient callback returns one gradient per argument (%u); it returned %u"),
                   NAME, step->n_inputs, grads->len);
      return FALSE;
    }

  for (guint i = 0; i < step->n_inputs; i++)
    {
      EpTensor *grad = g_ptr_array_index (grads, i);
      const EpLayout *want = &step->inputs[i]->layout;

      if (!ep_layout_same_shape (&grad->layout, want))
        {
          g_autofree char *got_text = ep_shape_to_string (grad->layout.shape, grad->layout.ndim);
          g_autofree char *want_text = ep_shape_to_string (want->shape, want->ndim);

          g_set_error (error, EP_ERROR, EP_ERROR_GRADIENT,
                       _("%s: the gradient of argument %u has shape %s, not the argument's %s"),
                       NAME, i, got_text, want_text);
          return FALSE;
        }
    }

  for (guint i = 0; i < step->n_inputs; i++)
    input_grads[i] = g_object_ref (g_ptr_array_index (grads, i));
  return TRUE;
}

/* The tape's rule for a host call. The results of the gradient callback
 * are all tensors: an argument without a gradient gets zeros. */
static gboolean
step_gradient (EpComposite      *composite,
               EpTensor *const  *output_grads,
               const gboolean   *needed,
               EpTensor        **input_grads,
               GError          **error)
{
  Step *step = composite->data;
  GradientArgs *args = g_new (GradientArgs, 1);
  g_autoptr(GPtrArray) call_args = ep_tensor_array_new (step->n_inputs + step->n_outputs);
  g_autoptr(GPtrArray) grads = NULL;
  EpHostCall *gradient;

  args->forward = ep_host_call_ref (step->call);
  args->n_inputs = step->n_inputs;
  gradient = ep_host_call_new (run_gradient, args, gradient_args_free, NULL, NULL, NULL);

  for (guint i = 0; i < step->n_inputs; i++)
    g_ptr_array_add (call_args, g_object_ref (step->inputs[i]));
  for (guint o = 0; o < step->n_outputs; o++)
    {
      EpTensor *output = step->inputs[step->n_inputs + o];
      EpTensor *grad = output_grads[o] != NULL ? g_object_ref (output_grads[o])
                                               : ep_tensor_zeros_like (output, error);

      if (grad == NULL)
        {
          ep_host_call_unref (gradient);
          return FALSE;
        }
      g_ptr_array_add (call_args, grad);
    }

  grads = ep_host_call_run (gradient, (EpTensor **) call_args->pdata, call_args->len, error);
  ep_host_call_unref (gradient);

  return grads != NULL && take_gradients (step, grads, input_grads, error);
}

/* Recorders */

/* Tells this thread's recorders that @self ran from @inputs to
 * @outputs: a tracer stages it, a tape records it as one step if it has
 * a gradient (without one, its results have no history). */
static gboolean
notify_recorders (EpHostCall       *self,
                  EpTensor *const  *inputs,
                  guint             n_inputs,
                  EpTensor *const  *outputs,
                  guint             n_outputs,
                  GError          **error)
{
  g_autoptr(EpComposite) composite = NULL;

  for (EpRecorder *r = ep_recorders_innermost (); r != NULL; r = r->below)
    {
      if (r->host != NULL)
        {
          if (!r->host (r, self, inputs, n_inputs, outputs, n_outputs, error))
            return FALSE;
          continue;
        }
      if (r->composite == NULL || self->gradient == NULL)
        continue;

      if (composite == NULL)
        {
          Step *step = g_new0 (Step, 1);

          step->call = ep_host_call_ref (self);
          step->n_inputs = n_inputs;
          step->n_outputs = n_outputs;
          step->inputs = g_new (EpTensor *, MAX (n_inputs + n_outputs, 1));
          for (guint i = 0; i < n_inputs; i++)
            step->inputs[i] = g_object_ref (inputs[i]);
          for (guint o = 0; o < n_outputs; o++)
            step->inputs[n_inputs + o] = g_object_ref (outputs[o]);
          composite = ep_composite_new (NAME, step_gradient, step, step_free);
        }
      if (!r->composite (r, composite, inputs, n_inputs, outputs, n_outputs, error))
        return FALSE;
    }

  return TRUE;
}

/*
 * ep_host_call_run:
 *
 * One eager host call: runs the callback (ep_host_call_invoke()) and
 * tells the recorders.
 *
 * Returns: the results, or %NULL with @error set
 */
GPtrArray *
ep_host_call_run (EpHostCall  *self,
                  EpTensor   **inputs,
                  guint        n_inputs,
                  GError     **error)
{
  g_autoptr(GPtrArray) args = ep_tensor_array_new (n_inputs);
  g_autoptr(GPtrArray) results = NULL;

  /* the callback gets objects of its own, which it may keep */
  for (guint i = 0; i < n_inputs; i++)
    {
      if (!ep_tensor_check_alive (inputs[i], NAME, error))
        return NULL;
      g_ptr_array_add (args, ep_tensor_new_alias (inputs[i]));
    }

  results = ep_host_call_invoke (self, (EpTensor **) args->pdata, n_inputs, error);
  if (results == NULL)
    return NULL;
  if (ep_recorders_any ()
      && !notify_recorders (self, inputs, n_inputs, (EpTensor *const *) results->pdata, results->len, error))
    return NULL;

  return g_steal_pointer (&results);
}

/**
 * ep_host_call:
 * @func: (scope notified) (closure func_data) (destroy func_destroy): the
 *   host function: its arguments, then its results
 * @func_data: data for @func
 * @func_destroy: (nullable): frees @func_data
 * @gradient: (scope notified) (closure gradient_data) (destroy gradient_destroy) (nullable):
 *   the gradient of @func's results with respect to its arguments, or
 *   %NULL for none
 * @gradient_data: data for @gradient
 * @gradient_destroy: (nullable): frees @gradient_data
 * @inputs: (array length=n_inputs): the arguments
 * @n_inputs: the number of arguments
 * @error: return location for an error
 *
 * Calls @func, a function of the host language, on @inputs: the escape
 * hatch of staged functions, for logging, or for data a graph cannot
 * express. Eagerly it is a plain call. In a function being traced it is
 * one opaque step: each replay calls @func again, on that replay's
 * values, and takes its results as they come (so the same ops compute
 * the same results as eagerly, for one callback's output as for
 * another's).
 *
 * @func runs with gradient tapes and tracers paused: they do not see the
 * ops it runs. A tape sees the whole call as one step, differentiated by
 * @gradient (itself run as a host call), or, without @gradient, as
 * giving its results no history. A staged call with a host call in it,
 * replayed under a tape, runs its ops one by one.
 *
 * @func must return at most %EP_HOST_CALL_MAX_RESULTS tensors (none is
 * fine: a logging callback). On replays, they must have the dtypes and
 * numbers of dimensions they had when traced, and their shapes too
 * unless the replay's inputs have other extents than the trace's (a
 * relaxed signature); tensors on another device than at trace time are
 * copied there. A function that calls a host callback cannot be saved
 * ([method@Function.save]): a file holds no host code. A replay from
 * [method@Function.call_async] runs @func on the calling thread's main
 * context, and waits for it.
 *
 * Returns: (transfer container) (element-type EpTensor): the results, or
 *   %NULL with @error set: the error @func set, or
 *   %EP_ERROR_INVALID_ARGUMENT for results that are not tensors or too
 *   many
 */
GPtrArray *
ep_host_call (EpTensorsFunc       func,
              gpointer            func_data,
              GDestroyNotify      func_destroy,
              EpHostGradientFunc  gradient,
              gpointer            gradient_data,
              GDestroyNotify      gradient_destroy,
              EpTensor          **inputs,
              guint               n_inputs,
              GError            **error)
{
  EpHostCall *call;
  GPtrArray *results;

  g_return_val_if_fail (func != NULL, NULL);
  g_return_val_if_fail (inputs != NULL || n_inputs == 0, NULL);
  for (guint i = 0; i < n_inputs; i++)
    g_return_val_if_fail (EP_IS_TENSOR (inputs[i]), NULL);

  call = ep_host_call_new (func, func_data, func_destroy, gradient, gradient_data, gradient_destroy);
  results = ep_host_call_run (call, inputs, n_inputs, error);
  ep_host_call_unref (call);

  return results;
}
