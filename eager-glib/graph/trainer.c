/* trainer.c: a training loop on a worker thread
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * EpTrainer:
 *
 * Runs a staged training step many times on a worker thread, so that an
 * application's main loop stays free while a model trains.
 *
 * The step is an [class@Function] taking a batch of inputs and a batch
 * of targets and returning the loss first; its trace applies the
 * optimizer (see [Staged functions](staging.html)). The trainer slices
 * the batches from two tensors, `x` and `y`, along their first axis,
 * in an order shuffled anew each epoch with the library's random
 * sequence ([func@set_seed] makes it repeatable) unless
 * [property@Trainer:shuffle] is off. Every batch has
 * [property@Trainer:batch-size] rows: the rows an epoch leaves over go
 * to no batch, so that the step keeps one trace.
 *
 * [method@Trainer.run_async] traces the step on the calling thread if
 * it was not traced for these batches yet (the first step then runs
 * there, since only that thread may run a Python or JavaScript
 * function), and replays it on a worker thread for the other steps. The
 * [signal@Trainer::progress] signal reports on the calling thread's
 * main context, at most once per [property@Trainer:progress-interval],
 * and once more at the end.
 *
 * A step is atomic: cancellation and pausing take effect between two
 * steps, so a cancelled run leaves the variables as after its last whole
 * step. Each variable is replaced at once, but a step replaces several
 * one after the other: code that reads them while a run goes on may see
 * some after a step and others before it.
 * [method@Trainer.snapshot_variables] gives them all as between two
 * steps.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ep-autodiff-private.h"
#include "ep-context-private.h"
#include "ep-error.h"
#include "ep-function-private.h"
#include "ep-host-call-private.h"
#include "ep-random-private.h"
#include "ep-trainer.h"

struct _EpTrainer
{
  GObject       parent_instance;

  EpFunction   *step_fn;
  EpTensor     *x;
  EpTensor     *y;
  guint         batch_size;
  gboolean      shuffle;

  /* held through each step: a snapshot never sees half of one */
  GMutex        step_lock;

  /* guards what follows */
  GMutex        lock;
  GCond         cond;
  guint         progress_interval;   /* ms */
  gboolean      paused;
  gboolean      running;
  guint         snapshots_waiting;    /* the next step waits for them */
  guint64       step;
  gdouble       loss;
  gdouble       steps_per_second;
  gint64        window_start;         /* µs, the rate's window */
  guint64       window_steps;
  gint64        last_progress;        /* µs */
  GSource      *progress_source;      /* pending on the run's context */
  GMainContext *context;              /* the run's caller's */
  guint         worker_steps;         /* the steps left to the worker */
  EpDevice     *worker_scope;         /* the caller's device scope, if any */

  /* the epoch: touched by one run at a time */
  GRand        *rand;
  gint64       *order;
  gint64        n_rows;
  gint64        cursor;
};

G_DEFINE_FINAL_TYPE (EpTrainer, ep_trainer, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_STEP_FUNCTION,
  PROP_X,
  PROP_Y,
  PROP_BATCH_SIZE,
  PROP_SHUFFLE,
  PROP_PROGRESS_INTERVAL,
  PROP_PAUSED,
  PROP_RUNNING,
  PROP_STEP,
  PROP_LOSS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_PROGRESS,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
ep_trainer_finalize (GObject *object)
{
  EpTrainer *self = EP_TRAINER (object);

  g_clear_object (&self->step_fn);
  g_clear_object (&self->x);
  g_clear_object (&self->y);
  g_clear_pointer (&self->rand, g_rand_free);
  g_free (self->order);
  g_mutex_clear (&self->step_lock);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);

  G_OBJECT_CLASS (ep_trainer_parent_class)->finalize (object);
}

static void
ep_trainer_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  EpTrainer *self = EP_TRAINER (object);

  switch (prop_id)
    {
    case PROP_STEP_FUNCTION:
      g_value_set_object (value, self->step_fn);
      break;
    case PROP_X:
      g_value_set_object (value, self->x);
      break;
    case PROP_Y:
      g_value_set_object (value, self->y);
      break;
    case PROP_BATCH_SIZE:
      g_value_set_uint (value, self->batch_size);
      break;
    case PROP_SHUFFLE:
      g_value_set_boolean (value, self->shuffle);
      break;
    case PROP_PROGRESS_INTERVAL:
      g_value_set_uint (value, ep_trainer_get_progress_interval (self));
      break;
    case PROP_PAUSED:
      g_value_set_boolean (value, ep_trainer_get_paused (self));
      break;
    case PROP_RUNNING:
      g_value_set_boolean (value, ep_trainer_get_running (self));
      break;
    case PROP_STEP:
      g_value_set_uint64 (value, ep_trainer_get_step (self));
      break;
    case PROP_LOSS:
      g_value_set_double (value, ep_trainer_get_loss (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_trainer_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  EpTrainer *self = EP_TRAINER (object);

  switch (prop_id)
    {
    case PROP_STEP_FUNCTION:
      self->step_fn = g_value_dup_object (value);
      break;
    case PROP_X:
      self->x = g_value_dup_object (value);
      break;
    case PROP_Y:
      self->y = g_value_dup_object (value);
      break;
    case PROP_BATCH_SIZE:
      self->batch_size = g_value_get_uint (value);
      break;
    case PROP_SHUFFLE:
      self->shuffle = g_value_get_boolean (value);
      break;
    case PROP_PROGRESS_INTERVAL:
      ep_trainer_set_progress_interval (self, g_value_get_uint (value));
      break;
    case PROP_PAUSED:
      ep_trainer_set_paused (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_trainer_class_init (EpTrainerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ep_trainer_finalize;
  object_class->get_property = ep_trainer_get_property;
  object_class->set_property = ep_trainer_set_property;

  /**
   * EpTrainer:step-function:
   *
   * The staged training step: called with a batch of `x` and one of
   * `y`, it returns the loss first.
   */
  properties[PROP_STEP_FUNCTION] =
    g_param_spec_object ("step-function", NULL, NULL, EP_TYPE_FUNCTION,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * EpTrainer:x:
   *
   * The inputs, one sample per row of the first axis.
   */
  properties[PROP_X] =
    g_param_spec_object ("x", NULL, NULL, EP_TYPE_TENSOR,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * EpTrainer:y:
   *
   * The targets, one per row of [property@Trainer:x].
   */
  properties[PROP_Y] =
    g_param_spec_object ("y", NULL, NULL, EP_TYPE_TENSOR,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * EpTrainer:batch-size:
   *
   * The rows of each batch.
   */
  properties[PROP_BATCH_SIZE] =
    g_param_spec_uint ("batch-size", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * EpTrainer:shuffle:
   *
   * Whether each epoch takes the rows in a new random order; if not,
   * in their order.
   */
  properties[PROP_SHUFFLE] =
    g_param_spec_boolean ("shuffle", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * EpTrainer:progress-interval:
   *
   * The least time between two [signal@Trainer::progress] emissions,
   * in milliseconds.
   */
  properties[PROP_PROGRESS_INTERVAL] =
    g_param_spec_uint ("progress-interval", NULL, NULL, 0, G_MAXUINT, 100,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY
                       | G_PARAM_STATIC_STRINGS);
  /**
   * EpTrainer:paused:
   *
   * Whether the run waits before its next step.
   */
  properties[PROP_PAUSED] =
    g_param_spec_boolean ("paused", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * EpTrainer:running:
   *
   * Whether a run is under way. Notified on the run's main context.
   */
  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * EpTrainer:step:
   *
   * The steps done by every run so far. Not notified: the
   * [signal@Trainer::progress] signal reports it.
   */
  properties[PROP_STEP] =
    g_param_spec_uint64 ("step", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * EpTrainer:loss:
   *
   * The loss of the last step done, NaN before the first. Not
   * notified: the [signal@Trainer::progress] signal reports it.
   */
  properties[PROP_LOSS] =
    g_param_spec_double ("loss", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * EpTrainer::progress:
   * @self: the trainer
   * @step: the steps done by every run so far
   * @loss: the loss of the last step
   * @steps_per_second: the steps per second since the last emission
   *
   * Reports a run's progress on the main context of the thread that
   * called [method@Trainer.run_async]: at most once per
   * [property@Trainer:progress-interval], the latest figures only, and
   * once at the end of a run that did a step, before its callback.
   */
  signals[SIGNAL_PROGRESS] =
    g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                  G_TYPE_UINT64, G_TYPE_DOUBLE, G_TYPE_DOUBLE);
}

static void
ep_trainer_init (EpTrainer *self)
{
  g_mutex_init (&self->step_lock);
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->shuffle = TRUE;
  self->progress_interval = 100;
  self->loss = NAN;
}

/**
 * ep_trainer_new:
 * @step: the staged training step: called with a batch of @x and one
 *   of @y, it returns the loss first
 * @x: the inputs, one sample per row of the first axis
 * @y: the targets, one per row of @x
 * @batch_size: the rows of each batch
 *
 * Makes a trainer. Its arguments are checked when a run starts.
 *
 * Returns: (transfer full): the trainer
 */
EpTrainer *
ep_trainer_new (EpFunction *step,
                EpTensor   *x,
                EpTensor   *y,
                guint       batch_size)
{
  g_return_val_if_fail (EP_IS_FUNCTION (step), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (x), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (y), NULL);

  return g_object_new (EP_TYPE_TRAINER, "step-function", step, "x", x, "y", y,
                       "batch-size", batch_size, NULL);
}

static gboolean
check_ready (EpTrainer  *self,
             GError    **error)
{
  gint64 rows;

  /* the step function last: Python's Ep.Trainer traces it only for a
   * batch size that fits */
  if (self->x == NULL || self->y == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("trainer: it needs a step function, x and y"));
      return FALSE;
    }
  if (ep_tensor_get_ndim (self->x) == 0 || ep_tensor_get_ndim (self->y) == 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("trainer: x and y need at least one axis, the samples"));
      return FALSE;
    }
  rows = ep_tensor_get_shape (self->x, NULL)[0];
  if (ep_tensor_get_shape (self->y, NULL)[0] != rows)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("trainer: x has %" PRId64 " samples but y has %" PRId64),
                   rows, ep_tensor_get_shape (self->y, NULL)[0]);
      return FALSE;
    }
  if (self->batch_size == 0 || (gint64) self->batch_size > rows)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("trainer: the batch size %u is not between 1 and the %" PRId64 " samples"),
                   self->batch_size, rows);
      return FALSE;
    }
  if (self->step_fn == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("trainer: it needs a step function, x and y"));
      return FALSE;
    }
  return TRUE;
}

/* Takes the run: FALSE if one is under way. */
static gboolean
begin_run (EpTrainer     *self,
           GMainContext  *context,
           GError       **error)
{
  gboolean ok;

  g_mutex_lock (&self->lock);
  ok = !self->running;
  if (ok)
    {
      self->running = TRUE;
      self->context = context != NULL ? g_main_context_ref (context) : NULL;
      self->window_start = g_get_monotonic_time ();
      self->window_steps = 0;
      self->last_progress = self->window_start;
    }
  g_mutex_unlock (&self->lock);

  if (!ok)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("trainer: a run is already under way"));
      return FALSE;
    }

  /* the library's random sequence, taken on the caller's thread */
  if (self->rand == NULL)
    {
      guint64 seed, stream;
      guint32 words[4];

      ep_random_next_stream (&seed, &stream);
      words[0] = (guint32) seed;
      words[1] = (guint32) (seed >> 32);
      words[2] = (guint32) stream;
      words[3] = (guint32) (stream >> 32);
      self->rand = g_rand_new_with_seed_array (words, G_N_ELEMENTS (words));
    }
  return TRUE;
}

static void
end_run (EpTrainer *self)
{
  g_mutex_lock (&self->lock);
  self->running = FALSE;
  if (self->progress_source != NULL)
    {
      g_source_destroy (self->progress_source);
      g_clear_pointer (&self->progress_source, g_source_unref);
    }
  g_clear_pointer (&self->context, g_main_context_unref);
  g_mutex_unlock (&self->lock);
}

/* The rows of the next batch, as an int64 tensor. */
static EpTensor *
next_indices (EpTrainer *self,
              GError   **error)
{
  gint64 rows = ep_tensor_get_shape (self->x, NULL)[0];
  g_autofree gint64 *batch = g_new (gint64, self->batch_size);
  gint64 shape[1] = { self->batch_size };

  if (self->order == NULL || self->n_rows != rows)
    {
      g_free (self->order);
      self->order = g_new (gint64, rows);
      self->n_rows = rows;
      self->cursor = rows;   /* a new epoch */
    }
  if (self->cursor + self->batch_size > rows)
    {
      for (gint64 i = 0; i < rows; i++)
        self->order[i] = i;
      if (self->shuffle)
        for (gint64 i = rows - 1; i > 0; i--)
          {
            gint64 j = (gint64) g_rand_double_range (self->rand, 0, (gdouble) i + 1);
            gint64 t = self->order[i];

            j = MIN (j, i);
            self->order[i] = self->order[j];
            self->order[j] = t;
          }
      self->cursor = 0;
    }
  for (guint i = 0; i < self->batch_size; i++)
    batch[i] = self->order[self->cursor + i];
  self->cursor += self->batch_size;

  return ep_tensor_new_from_data (batch, sizeof (gint64) * self->batch_size,
                                  EP_DTYPE_INT64, shape, 1, error);
}

static gboolean
next_batch (EpTrainer  *self,
            EpTensor  **xb,
            EpTensor  **yb,
            GError    **error)
{
  g_autoptr(EpTensor) indices = next_indices (self, error);

  if (indices == NULL
      || (*xb = ep_tensor_take (self->x, indices, 0, error)) == NULL)
    return FALSE;
  if ((*yb = ep_tensor_take (self->y, indices, 0, error)) == NULL)
    {
      g_clear_object (xb);
      return FALSE;
    }
  return TRUE;
}

static void
emit_progress (EpTrainer *self)
{
  guint64 step;
  gdouble loss, rate;

  g_mutex_lock (&self->lock);
  step = self->step;
  loss = self->loss;
  rate = self->steps_per_second;
  g_mutex_unlock (&self->lock);

  g_signal_emit (self, signals[SIGNAL_PROGRESS], 0, step, loss, rate);
}

static gboolean
progress_in_context (gpointer user_data)
{
  EpTrainer *self = user_data;

  g_mutex_lock (&self->lock);
  g_clear_pointer (&self->progress_source, g_source_unref);
  g_mutex_unlock (&self->lock);
  emit_progress (self);

  return G_SOURCE_REMOVE;
}

/* One step: a batch, a call (a trace on the caller's thread, else a
 * replay), its loss. */
static gboolean
do_step (EpTrainer  *self,
         gboolean    may_trace,
         GError    **error)
{
  g_autoptr(EpTensor) xb = NULL;
  g_autoptr(EpTensor) yb = NULL;
  g_autoptr(GPtrArray) outputs = NULL;
  EpTensor *inputs[2];
  GError *item_error = NULL;
  gdouble loss;
  gint64 now;

  if (!next_batch (self, &xb, &yb, error))
    return FALSE;
  inputs[0] = xb;
  inputs[1] = yb;

  /* a snapshot waiting for the step lock goes first: the worker would
   * otherwise take it again before the waiter wakes */
  g_mutex_lock (&self->lock);
  while (self->snapshots_waiting > 0)
    g_cond_wait (&self->cond, &self->lock);
  g_mutex_unlock (&self->lock);
  g_mutex_lock (&self->step_lock);
  if (may_trace)
    outputs = ep_function_call (self->step_fn, inputs, 2, error);
  else
    outputs = ep_function_replay_only (self->step_fn, inputs, 2, error);
  g_mutex_unlock (&self->step_lock);
  if (outputs == NULL)
    return FALSE;
  if (outputs->len == 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("trainer: the step function returns no loss"));
      return FALSE;
    }
  loss = ep_tensor_item_double (g_ptr_array_index (outputs, 0), &item_error);
  if (item_error != NULL)
    {
      g_propagate_error (error, item_error);
      return FALSE;
    }

  now = g_get_monotonic_time ();
  g_mutex_lock (&self->lock);
  self->step++;
  self->loss = loss;
  self->window_steps++;
  if (now > self->window_start)
    self->steps_per_second = self->window_steps * (gdouble) G_USEC_PER_SEC / (now - self->window_start);
  if (self->context != NULL && self->progress_source == NULL
      && now - self->last_progress >= (gint64) self->progress_interval * 1000)
    {
      self->last_progress = now;
      self->window_start = now;
      self->window_steps = 0;
      self->progress_source = g_idle_source_new ();
      g_source_set_priority (self->progress_source, G_PRIORITY_DEFAULT);
      g_source_set_callback (self->progress_source, progress_in_context,
                             g_object_ref (self), g_object_unref);
      g_source_set_static_name (self->progress_source, "[eager-glib] trainer progress");
      g_source_attach (self->progress_source, self->context);
    }
  g_mutex_unlock (&self->lock);

  return TRUE;
}

static void
wake (GCancellable *cancellable,
      gpointer      user_data)
{
  EpTrainer *self = user_data;

  g_mutex_lock (&self->lock);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

/* Steps until @n_steps are done, @cancellable is cancelled or one fails;
 * waits between steps while paused. */
static gboolean
run_steps (EpTrainer     *self,
           guint          n_steps,
           gboolean       may_trace,
           GCancellable  *cancellable,
           GError       **error)
{
  gulong handler = 0;
  gboolean ok = TRUE;

  if (cancellable != NULL)
    handler = g_cancellable_connect (cancellable, G_CALLBACK (wake), self, NULL);

  for (guint i = 0; ok && i < n_steps; i++)
    {
      gboolean waited = FALSE;

      g_mutex_lock (&self->lock);
      while (self->paused && !g_cancellable_is_cancelled (cancellable))
        {
          g_cond_wait (&self->cond, &self->lock);
          waited = TRUE;
        }
      if (waited)
        {
          /* the time paused counts in no rate */
          self->window_start = g_get_monotonic_time ();
          self->window_steps = 0;
        }
      g_mutex_unlock (&self->lock);

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        ok = FALSE;
      else
        ok = do_step (self, may_trace, error);
    }

  if (handler != 0)
    g_cancellable_disconnect (cancellable, handler);
  return ok;
}

static void
run_in_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  EpTrainer *self = source_object;
  GError *error = NULL;
  EpContext *context = ep_context_get ();
  EpDevice *scope;
  guint n_steps;

  /* taken under the lock the caller set it under: the hand-over from
   * that thread is then one that ThreadSanitizer sees too (GLib's thread
   * pool queue is not instrumented) */
  g_mutex_lock (&self->lock);
  n_steps = self->worker_steps;
  scope = self->worker_scope;
  g_mutex_unlock (&self->lock);

  /* host calls in the step run on the caller's main context, and the
   * steps in its device scope, which picks the trace */
  context->host_context = g_task_get_context (task);
  if (scope != NULL)
    ep_context_push_device (context, scope);
  if (run_steps (self, n_steps, FALSE, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
  if (scope != NULL)
    ep_context_pop_device (context);
  context->host_context = NULL;
}

/* Back on the caller's thread: the last progress, then the callback. */
static void
run_done (GObject      *source_object,
          GAsyncResult *result,
          gpointer      user_data)
{
  EpTrainer *self = EP_TRAINER (source_object);
  g_autoptr(GTask) outer = user_data;
  GError *error = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (result), &error);
  gboolean any;

  g_mutex_lock (&self->lock);
  any = self->step > GPOINTER_TO_SIZE (g_task_get_task_data (outer)) - 1;
  g_mutex_unlock (&self->lock);
  end_run (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
  if (any)
    emit_progress (self);

  if (ok)
    g_task_return_boolean (outer, TRUE);
  else
    g_task_return_error (outer, error);
}

/**
 * ep_trainer_run_async:
 * @self: a trainer
 * @n_steps: the steps to do
 * @cancellable: (nullable): stops the run between two steps
 * @callback: (scope async): called on the thread-default main context of
 *   the calling thread when the run is over
 * @user_data: data for @callback
 *
 * Does @n_steps training steps without blocking: on a worker thread,
 * except the first step when the step function has no trace for these
 * batches yet, which traces it here first. The
 * [signal@Trainer::progress] signal and @callback run on this thread's
 * main context, and so do host callbacks of the step
 * ([func@host_call]): no function of a language binding runs on the
 * worker thread. The worker replays in the device scope open here
 * ([method@Device.push]), if any.
 *
 * A run stops at the first step that fails, with its error; one
 * cancelled stops between two steps with %G_IO_ERROR_CANCELLED, the
 * steps done staying done. While [property@Trainer:paused] is set, it
 * waits between two steps. One run at a time: starting another while
 * one is under way is an error.
 */
void
ep_trainer_run_async (EpTrainer           *self,
                      guint                n_steps,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  g_autoptr(GTask) outer = NULL;
  g_autoptr(GTask) worker = NULL;
  g_autoptr(GMainContext) context = g_main_context_ref_thread_default ();
  GError *error = NULL;
  guint64 start_step;

  g_return_if_fail (EP_IS_TRAINER (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (outer, ep_trainer_run_async);

  if (!check_ready (self, &error) || !begin_run (self, context, &error))
    {
      g_task_return_error (outer, error);
      return;
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);

  g_mutex_lock (&self->lock);
  start_step = self->step;
  g_mutex_unlock (&self->lock);
  /* the steps before the run, + 1, to tell whether it did one */
  g_task_set_task_data (outer, GSIZE_TO_POINTER ((gsize) start_step + 1), NULL);

  /* the first step traces here if it must */
  if (n_steps > 0 && !g_cancellable_is_cancelled (cancellable))
    {
      gint64 start = 0, stop = self->batch_size, stride = 1;
      g_autoptr(EpTensor) first_x = ep_tensor_slice (self->x, &start, 1, &stop, 1, &stride, 1, NULL);
      g_autoptr(EpTensor) first_y = ep_tensor_slice (self->y, &start, 1, &stop, 1, &stride, 1, NULL);
      g_autoptr(EpGraph) graph = NULL;
      gboolean traced = FALSE;

      /* a graph for batches like these? (any batch tells, its first) */
      if (first_x != NULL && first_y != NULL)
        {
          EpTensor *probe[2] = { first_x, first_y };

          graph = ep_function_lookup_graph (self->step_fn, probe, 2);
          traced = graph != NULL;
        }
      if (!traced)
        {
          if (!run_steps (self, 1, TRUE, cancellable, &error))
            {
              end_run (self);
              g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
              g_task_return_error (outer, error);
              return;
            }
          n_steps--;
        }
    }

  g_mutex_lock (&self->lock);
  self->worker_steps = n_steps;
  self->worker_scope = ep_context_get_device ();   /* devices live forever */
  g_mutex_unlock (&self->lock);

  worker = g_task_new (self, cancellable, run_done, g_steal_pointer (&outer));
  g_task_set_check_cancellable (worker, FALSE);
  g_task_set_source_tag (worker, run_in_thread);
  g_task_run_in_thread (worker, run_in_thread);
}

/**
 * ep_trainer_run_finish:
 * @self: a trainer
 * @result: the result given to the callback of
 *   [method@Trainer.run_async]
 * @error: return location for an error
 *
 * Finishes a run begun with [method@Trainer.run_async].
 *
 * Returns: %TRUE if every step was done; %FALSE with @error set: the
 *   error of the step that failed, %G_IO_ERROR_CANCELLED, or
 *   %EP_ERROR_INVALID_ARGUMENT for a run that could not start
 */
gboolean
ep_trainer_run_finish (EpTrainer     *self,
                       GAsyncResult  *result,
                       GError       **error)
{
  g_return_val_if_fail (EP_IS_TRAINER (self), FALSE);

  if (!g_task_is_valid (result, self)
      || g_task_get_source_tag (G_TASK (result)) != ep_trainer_run_async)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("trainer: the result is not of a run_async of this trainer"));
      return FALSE;
    }

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * ep_trainer_run:
 * @self: a trainer
 * @n_steps: the steps to do
 * @cancellable: (nullable): stops the run between two steps
 * @error: return location for an error
 *
 * Does @n_steps training steps on the calling thread, as
 * [method@Trainer.run_async] does on its worker, and emits no
 * [signal@Trainer::progress].
 *
 * Returns: %TRUE if every step was done; %FALSE with @error set as
 *   [method@Trainer.run_finish] does
 */
gboolean
ep_trainer_run (EpTrainer     *self,
                guint          n_steps,
                GCancellable  *cancellable,
                GError       **error)
{
  gboolean ok;

  g_return_val_if_fail (EP_IS_TRAINER (self), FALSE);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_ready (self, error) || !begin_run (self, NULL, error))
    return FALSE;
  ok = run_steps (self, n_steps, TRUE, cancellable, error);
  end_run (self);

  return ok;
}

/**
 * ep_trainer_snapshot_variables:
 * @self: a trainer
 * @variables: (array length=n_variables): the variables to read, such
 *   as a model's parameters ([method@Module.get_variables])
 * @n_variables: the number of variables
 *
 * Gives the values of @variables as they are between two steps, even
 * while a run goes on: waits for the step under way, if any, to be
 * done (on the run's main context it runs the host calls that step
 * waits for meanwhile, such as an optimizer's step scalars, so that the
 * two never wait for each other). Reading them one by one with
 * [method@Variable.read] meanwhile
 * may give some after a step and others before it. The values are
 * tensors of their own: later steps do not change them.
 *
 * Returns: (transfer container) (element-type EpTensor): the values, in
 *   the order of @variables
 */
GPtrArray *
ep_trainer_snapshot_variables (EpTrainer   *self,
                               EpVariable **variables,
                               guint        n_variables)
{
  g_autoptr(GMainContext) context = NULL;
  GPtrArray *values;

  g_return_val_if_fail (EP_IS_TRAINER (self), NULL);
  g_return_val_if_fail (variables != NULL || n_variables == 0, NULL);
  for (guint v = 0; v < n_variables; v++)
    g_return_val_if_fail (EP_IS_VARIABLE (variables[v]), NULL);

  values = g_ptr_array_new_full (n_variables, g_object_unref);
  /* The step under way may wait for a host call on this thread (an
   * optimizer's step scalars run on the run's main context): run those
   * while waiting for the step to end, or both would wait forever. */
  g_mutex_lock (&self->lock);
  context = self->running && self->context != NULL ? g_main_context_ref (self->context) : NULL;
  self->snapshots_waiting++;
  g_mutex_unlock (&self->lock);
  if (context != NULL && g_main_context_is_owner (context))
    {
      while (!g_mutex_trylock (&self->step_lock))
        ep_host_call_wait_pending (context, 1000);
    }
  else
    {
      g_mutex_lock (&self->step_lock);
    }
  for (guint v = 0; v < n_variables; v++)
    g_ptr_array_add (values, ep_variable_peek (variables[v]));
  g_mutex_unlock (&self->step_lock);
  g_mutex_lock (&self->lock);
  self->snapshots_waiting--;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);

  return values;
}

/**
 * ep_trainer_set_paused:
 * @self: a trainer
 * @paused: whether a run waits before its next step
 *
 * Pauses or resumes a run, between two steps: the step under way, if
 * any, is done first. Cancelling a paused run ends it.
 */
void
ep_trainer_set_paused (EpTrainer *self,
                       gboolean   paused)
{
  gboolean changed;

  g_return_if_fail (EP_IS_TRAINER (self));

  g_mutex_lock (&self->lock);
  changed = self->paused != !!paused;
  self->paused = !!paused;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);

  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PAUSED]);
}

/**
 * ep_trainer_get_paused:
 * @self: a trainer
 *
 * Tells whether runs wait before their next step.
 *
 * Returns: %TRUE if paused
 */
gboolean
ep_trainer_get_paused (EpTrainer *self)
{
  gboolean paused;

  g_return_val_if_fail (EP_IS_TRAINER (self), FALSE);

  g_mutex_lock (&self->lock);
  paused = self->paused;
  g_mutex_unlock (&self->lock);
  return paused;
}

/**
 * ep_trainer_get_running:
 * @self: a trainer
 *
 * Tells whether a run is under way.
 *
 * Returns: %TRUE while a run is under way
 */
gboolean
ep_trainer_get_running (EpTrainer *self)
{
  gboolean running;

  g_return_val_if_fail (EP_IS_TRAINER (self), FALSE);

  g_mutex_lock (&self->lock);
  running = self->running;
  g_mutex_unlock (&self->lock);
  return running;
}

/**
 * ep_trainer_get_step:
 * @self: a trainer
 *
 * Tells how many steps every run so far has done.
 *
 * Returns: the steps done
 */
guint64
ep_trainer_get_step (EpTrainer *self)
{
  guint64 step;

  g_return_val_if_fail (EP_IS_TRAINER (self), 0);

  g_mutex_lock (&self->lock);
  step = self->step;
  g_mutex_unlock (&self->lock);
  return step;
}

/**
 * ep_trainer_get_loss:
 * @self: a trainer
 *
 * Gives the loss of the last step done.
 *
 * Returns: the loss, NaN before the first step
 */
gdouble
ep_trainer_get_loss (EpTrainer *self)
{
  gdouble loss;

  g_return_val_if_fail (EP_IS_TRAINER (self), NAN);

  g_mutex_lock (&self->lock);
  loss = self->loss;
  g_mutex_unlock (&self->lock);
  return loss;
}

/**
 * ep_trainer_set_progress_interval:
 * @self: a trainer
 * @interval_ms: the least time between two progress emissions, in
 *   milliseconds
 *
 * Sets [property@Trainer:progress-interval]; a run under way follows it
 * from its next step.
 */
void
ep_trainer_set_progress_interval (EpTrainer *self,
                                  guint      interval_ms)
{
  gboolean changed;

  g_return_if_fail (EP_IS_TRAINER (self));

  g_mutex_lock (&self->lock);
  changed = self->progress_interval != interval_ms;
  self->progress_interval = interval_ms;
  g_mutex_unlock (&self->lock);

  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRESS_INTERVAL]);
}

/**
 * ep_trainer_get_progress_interval:
 * @self: a trainer
 *
 * Gives [property@Trainer:progress-interval].
 *
 * Returns: the least time between two progress emissions, in
 *   milliseconds
 */
guint
ep_trainer_get_progress_interval (EpTrainer *self)
{
  guint interval;

  g_return_val_if_fail (EP_IS_TRAINER (self), 0);

  g_mutex_lock (&self->lock);
  interval = self->progress_interval;
  g_mutex_unlock (&self->lock);
  return interval;
}
