/* distributed/data-parallel.c: data-parallel training over a communicator
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "ep-autodiff-private.h"
#include "ep-checkpoint.h"
#include "ep-creation.h"
#include "ep-data-parallel.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-join.h"
#include "ep-tensor-private.h"

/**
 * EpDataParallel:
 *
 * Data-parallel training: every process (rank) of a
 * [class@Communicator] holds the same model, takes its own shard of each
 * batch, and averages its gradients with the other ranks' before the
 * optimizer's step, so that all ranks take the same step: the step one
 * process would take on the whole batch (with a loss that is a mean over
 * the batch and shards of equal size). PyTorch's
 * `DistributedDataParallel` and Horovod do the same.
 *
 * - Making it ([ctor@DataParallel.new],
 *   [ctor@DataParallel.new_for_module]) broadcasts the variables' values
 *   from rank 0, so that every rank starts from the same values whatever
 *   each one drew.
 * - [method@DataParallel.average_gradients] averages the gradients over
 *   the ranks in buckets of about [property@DataParallel:bucket-size]
 *   bytes: the gradients of a bucket are flattened and concatenated, the
 *   bucket is all-reduced (mean) in one collective, and split back. Few
 *   large messages cost less than many small ones: each collective pays
 *   a latency and the ranks' agreement on its shape.
 * - [method@DataParallel.save_checkpoint] writes the checkpoint on rank 0
 *   only, and every rank learns whether it was written.
 *
 * ```python
 * comm = Ep.Communicator.get_world()
 * model = make_model()                 # each rank draws its own values
 * ddp = Ep.DataParallel(comm, model)   # now they are rank 0's
 * optimizer = Ep.Adam.new(1e-3)
 * for x, y in batches:
 *     shard = slice(comm.rank * len(x) // comm.size, (comm.rank + 1) * len(x) // comm.size)
 *     with Ep.GradientTape() as tape:
 *         loss = model(x[shard]).sparse_softmax_crossentropy(y[shard])
 *     variables = model.trainable_variables
 *     grads = ddp.average_gradients(tape.gradient(loss, variables))
 *     optimizer.apply_gradients(grads, variables)
 * ddp.save_checkpoint("model.safetensors", model, optimizer)
 * ```
 *
 * Every call here is collective: each rank must make the same calls, in
 * the same order, with variables and gradients of the same shapes and
 * types; a rank that does not (or that failed) makes the others fail
 * with %EP_ERROR_COMMUNICATION after the communicator's
 * [property@Communicator:timeout]. The calls dispatch ops (reshape,
 * concatenate, the collectives, split), so a staged step
 * ([class@Function]) records them and replays them on each call; the
 * averaged gradients go to any optimizer's
 * [method@Optimizer.apply_gradients].
 */

struct _EpDataParallel
{
  GObject          parent_instance;

  EpCommunicator  *communicator;
  GPtrArray       *variables;     /* (element-type EpVariable): broadcast */
  GPtrArray       *trainable;     /* (element-type EpVariable): gradients */
  guint64          bucket_size;
};

G_DEFINE_FINAL_TYPE (EpDataParallel, ep_data_parallel, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_COMMUNICATOR,
  PROP_BUCKET_SIZE,
  N_PROPERTIES
};

static GParamSpec *properties[N_PROPERTIES];

static void
ep_data_parallel_finalize (GObject *object)
{
  EpDataParallel *self = EP_DATA_PARALLEL (object);

  g_clear_object (&self->communicator);
  g_clear_pointer (&self->variables, g_ptr_array_unref);
  g_clear_pointer (&self->trainable, g_ptr_array_unref);

  G_OBJECT_CLASS (ep_data_parallel_parent_class)->finalize (object);
}

static void
ep_data_parallel_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  EpDataParallel *self = EP_DATA_PARALLEL (object);

  switch (prop_id)
    {
    case PROP_COMMUNICATOR:
      g_value_set_object (value, self->communicator);
      break;
    case PROP_BUCKET_SIZE:
      g_value_set_uint64 (value, self->bucket_size);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_data_parallel_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  EpDataParallel *self = EP_DATA_PARALLEL (object);

  switch (prop_id)
    {
    case PROP_BUCKET_SIZE:
      ep_data_parallel_set_bucket_size (self, g_value_get_uint64 (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_data_parallel_class_init (EpDataParallelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ep_data_parallel_finalize;
  object_class->get_property = ep_data_parallel_get_property;
  object_class->set_property = ep_data_parallel_set_property;

  /**
   * EpDataParallel:communicator: (getter get_communicator)
   *
   * The processes that train together; %NULL only on an object made
   * with g_object_new(), which every call refuses.
   */
  properties[PROP_COMMUNICATOR] =
    g_param_spec_object ("communicator", NULL, NULL, EP_TYPE_COMMUNICATOR,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * EpDataParallel:bucket-size: (getter get_bucket_size) (setter set_bucket_size)
   *
   * About how many bytes of gradients [method@DataParallel.average_gradients]
   * all-reduces in one collective: consecutive gradients of one type
   * and device go into a bucket until it holds this many bytes (a
   * gradient larger than that has a bucket of its own); 0 gives every
   * gradient its own collective. The default,
   * %EP_DATA_PARALLEL_DEFAULT_BUCKET_SIZE (2 MiB), is where Open MPI's
   * all-reduce reached its best bandwidth on the machine of
   * `docs/distributed.md`. Every rank must use the same value.
   */
  properties[PROP_BUCKET_SIZE] =
    g_param_spec_uint64 ("bucket-size", NULL, NULL, 0, G_MAXUINT64,
                         EP_DATA_PARALLEL_DEFAULT_BUCKET_SIZE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPERTIES, properties);
}

static void
ep_data_parallel_init (EpDataParallel *self)
{
  self->variables = g_ptr_array_new_with_free_func (g_object_unref);
  self->trainable = g_ptr_array_new_with_free_func (g_object_unref);
  self->bucket_size = EP_DATA_PARALLEL_DEFAULT_BUCKET_SIZE;
}

/* An object made with g_object_new() from a binding has no communicator:
 * each call is an error, never a call on NULL. */
static gboolean
check_made (EpDataParallel  *self,
            const char      *call,
            GError         **error)
{
  if (G_LIKELY (self->communicator != NULL))
    return TRUE;

  g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
               _("%s: the object has no communicator (make it with ep_data_parallel_new)"), call);
  return FALSE;
}

/* What a bucket holds: tensors [first, last) of a list, of one dtype and
 * device */
typedef struct
{
  guint   first;
  guint   last;
} Bucket;

/* Splits @tensors into buckets of about @bucket_size bytes of one dtype
 * and device, in order. */
static GArray *
make_buckets (EpTensor **tensors,
              guint      n_tensors,
              guint64    bucket_size)
{
  GArray *buckets = g_array_new (FALSE, FALSE, sizeof (Bucket));
  Bucket bucket = { 0, 0 };
  guint64 bytes = 0;

  for (guint i = 0; i < n_tensors; i++)
    {
      EpTensor *t = tensors[i];
      gint64 n = ep_tensor_get_size (t);
      guint64 nbytes = (guint64) n * ep_dtype_get_itemsize (ep_tensor_get_dtype (t));

      if (bucket.last > bucket.first)
        {
          EpTensor *first = tensors[bucket.first];

          if (ep_tensor_get_dtype (first) != ep_tensor_get_dtype (t)
              || ep_tensor_get_device (first) != ep_tensor_get_device (t)
              || bytes + nbytes > bucket_size)
            {
              g_array_append_val (buckets, bucket);
              bucket = (Bucket) { i, i };
              bytes = 0;
            }
        }
      bucket.last = i + 1;
      bytes += nbytes;
    }
  if (bucket.last > bucket.first)
    g_array_append_val (buckets, bucket);

  return buckets;
}

typedef enum
{
  COLLECTIVE_MEAN,
  COLLECTIVE_BROADCAST,
} Collective;

static EpTensor *
run_collective (EpDataParallel  *self,
                EpTensor        *x,
                Collective       collective,
                GError         **error)
{
  if (collective == COLLECTIVE_MEAN)
    return ep_communicator_all_reduce (self->communicator, x, EP_REDUCE_OP_MEAN, error);
  return ep_communicator_broadcast (self->communicator, x, 0, error);
}

/* One bucket: its tensors flattened and concatenated, the collective,
 * the result split back into tensors of the shapes of @tensors, appended
 * to @results. A bucket of one tensor is reshaped, not copied. */
static gboolean
reduce_bucket (EpDataParallel  *self,
               EpTensor       **tensors,
               const Bucket    *bucket,
               Collective       collective,
               GPtrArray       *results,
               GError         **error)
{
  guint n = bucket->last - bucket->first;
  g_autoptr(GPtrArray) flat = ep_tensor_array_new (n);
  g_autoptr(EpTensor) joined = NULL;
  g_autoptr(EpTensor) reduced = NULL;
  g_autoptr(GPtrArray) parts = NULL;
  g_autofree gint64 *offsets = g_new (gint64, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    {
      EpTensor *t = tensors[bucket->first + i];
      gint64 shape[1] = { ep_tensor_get_size (t) };
      EpTensor *f = ep_tensor_reshape (t, shape, 1, error);

      if (f == NULL)
        return FALSE;
      g_ptr_array_add (flat, f);
      offsets[i] = (i == 0 ? 0 : offsets[i - 1]) + shape[0];
    }

  joined = n == 1 ? g_object_ref (g_ptr_array_index (flat, 0))
                  : ep_concatenate ((EpTensor **) flat->pdata, n, 0, error);
  if (joined == NULL)
    return FALSE;
  reduced = run_collective (self, joined, collective, error);
  if (reduced == NULL)
    return FALSE;

  if (n == 1)
    {
      parts = ep_tensor_array_new (1);
      g_ptr_array_add (parts, g_object_ref (reduced));
    }
  else
    {
      /* the n - 1 inner boundaries */
      parts = ep_tensor_split_at (reduced, offsets, n - 1, 0, error);
      if (parts == NULL)
        return FALSE;
    }

  for (guint i = 0; i < n; i++)
    {
      EpTensor *like = tensors[bucket->first + i];
      guint ndim;
      const gint64 *shape = ep_tensor_get_shape (like, &ndim);
      g_autoptr(EpTensor) part = ep_tensor_reshape (g_ptr_array_index (parts, i), shape, ndim, error);
      EpTensor *placed;

      if (part == NULL)
        return FALSE;
      /* (inside the scope of another device the ops ran there) */
      if (ep_tensor_get_device (part) != ep_tensor_get_device (like))
        placed = ep_tensor_to_device (part, ep_tensor_get_device (like), error);
      else
        placed = g_object_ref (part);
      if (placed == NULL)
        return FALSE;
      g_ptr_array_add (results, placed);
    }

  return TRUE;
}

/* @collective of each of @tensors, bucket by bucket, in order */
static GPtrArray *
reduce_all (EpDataParallel  *self,
            EpTensor       **tensors,
            guint            n_tensors,
            Collective       collective,
            GError         **error)
{
  g_autoptr(GArray) buckets = make_buckets (tensors, n_tensors, self->bucket_size);
  g_autoptr(GPtrArray) results = ep_tensor_array_new (n_tensors);

  for (guint b = 0; b < buckets->len; b++)
    if (!reduce_bucket (self, tensors, &g_array_index (buckets, Bucket, b), collective, results, error))
      return NULL;

  return g_steal_pointer (&results);
}

static gboolean
check_variables (EpVariable **variables,
                 guint        n_variables,
                 const char  *call,
                 GError     **error)
{
  if (variables == NULL && n_variables > 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: %u variables given as NULL"), call, n_variables);
      return FALSE;
    }
  for (guint i = 0; i < n_variables; i++)
    if (!EP_IS_VARIABLE (variables[i]))
      {
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("%s: variable %u is not a variable"), call, i);
        return FALSE;
      }

  return TRUE;
}

/**
 * ep_data_parallel_broadcast_variables:
 * @self: a data-parallel helper
 * @error: return location for an error
 *
 * Gives every variable rank 0's value, on every rank (bucketed as
 * [method@DataParallel.average_gradients] is). Making the helper does it
 * once; call it again after changing the variables on rank 0 alone,
 * e.g. after restoring a checkpoint there. A collective call.
 *
 * Returns: %TRUE, or %FALSE with an error set: %EP_ERROR_INVALID_ARGUMENT
 *   for an object made with g_object_new(), %EP_ERROR_SHAPE when the
 *   ranks' variables differ, %EP_ERROR_COMMUNICATION when the ranks could
 *   not work together
 */
gboolean
ep_data_parallel_broadcast_variables (EpDataParallel  *self,
                                      GError         **error)
{
  g_autoptr(GPtrArray) values = NULL;
  g_autoptr(GPtrArray) received = NULL;

  g_return_val_if_fail (EP_IS_DATA_PARALLEL (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_made (self, "broadcast_variables", error))
    return FALSE;

  values = ep_tensor_array_new (self->variables->len);
  for (guint i = 0; i < self->variables->len; i++)
    g_ptr_array_add (values, ep_variable_read (g_ptr_array_index (self->variables, i)));
  received = reduce_all (self, (EpTensor **) values->pdata, values->len, COLLECTIVE_BROADCAST, error);
  if (received == NULL)
    {
      ep_error_rename_call (error, NULL, "broadcast_variables");
      return FALSE;
    }
  for (guint i = 0; i < self->variables->len; i++)
    if (!ep_variable_assign (g_ptr_array_index (self->variables, i), g_ptr_array_index (received, i), error))
      return FALSE;

  return TRUE;
}

static EpDataParallel *
new_with (EpCommunicator  *communicator,
          EpVariable     **variables,
          guint            n_variables,
          EpVariable     **trainable,
          guint            n_trainable,
          const char      *call,
          GError         **error)
{
  g_autoptr(EpDataParallel) self = NULL;

  if (!EP_IS_COMMUNICATOR (communicator))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: a communicator is needed (ep_communicator_get_world)"), call);
      return NULL;
    }
  if (!check_variables (variables, n_variables, call, error))
    return NULL;

  self = g_object_new (EP_TYPE_DATA_PARALLEL, NULL);
  self->communicator = g_object_ref (communicator);
  for (guint i = 0; i < n_variables; i++)
    g_ptr_array_add (self->variables, g_object_ref (variables[i]));
  for (guint i = 0; i < n_trainable; i++)
    g_ptr_array_add (self->trainable, g_object_ref (trainable[i]));

  if (!ep_data_parallel_broadcast_variables (self, error))
    {
      ep_error_rename_call (error, NULL, call);
      return NULL;
    }

  return g_steal_pointer (&self);
}

/**
 * ep_data_parallel_new:
 * @communicator: the processes that train together
 * @variables: (array length=n_variables): the variables: rank 0's
 *   values are broadcast to every rank, and
 *   [method@DataParallel.average_gradients] takes one gradient per
 *   variable, in this order
 * @n_variables: the length of @variables
 * @error: return location for an error
 *
 * Makes the helper and gives every variable rank 0's value on every
 * rank: a collective call, made by every rank with variables of the same
 * shapes and types in the same order.
 *
 * Returns: (transfer full): the helper, or %NULL with an error set:
 *   %EP_ERROR_INVALID_ARGUMENT (no communicator, a missing variable),
 *   %EP_ERROR_SHAPE when the ranks' variables differ,
 *   %EP_ERROR_COMMUNICATION when the ranks could not work together
 */
EpDataParallel *
ep_data_parallel_new (EpCommunicator  *communicator,
                      EpVariable     **variables,
                      guint            n_variables,
                      GError         **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return new_with (communicator, variables, n_variables, variables, n_variables,
                   "data_parallel_new", error);
}

/**
 * ep_data_parallel_new_for_module:
 * @communicator: the processes that train together
 * @module: the model
 * @error: return location for an error
 *
 * As [ctor@DataParallel.new] for the variables of @module: every
 * variable ([method@Module.get_variables], trainable or not, such as a
 * batch norm's running statistics) gets rank 0's value, and
 * [method@DataParallel.average_gradients] takes the gradients of the
 * trainable ones ([method@Module.get_trainable_variables], in that
 * order), as they are when the helper is made.
 *
 * Returns: (transfer full): the helper, or %NULL with an error set as
 *   [ctor@DataParallel.new] does
 */
EpDataParallel *
ep_data_parallel_new_for_module (EpCommunicator  *communicator,
                                 EpModule        *module,
                                 GError         **error)
{
  g_autoptr(GPtrArray) variables = NULL;
  g_autoptr(GPtrArray) trainable = NULL;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!EP_IS_MODULE (module))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("data_parallel_new_for_module: a module is needed"));
      return NULL;
    }
  variables = ep_module_get_variables (module, NULL);
  trainable = ep_module_get_trainable_variables (module, NULL);

  return new_with (communicator, (EpVariable **) variables->pdata, variables->len,
                   (EpVariable **) trainable->pdata, trainable->len,
                   "data_parallel_new_for_module", error);
}

/* Every gradient is checked on every rank before any collective, so
 * that a bad call fails on its rank without leaving the others in a
 * collective (they fail after the timeout, or at once if theirs is bad
 * too) */
static gboolean
check_gradient (EpTensor    *gradient,
                EpVariable  *variable,
                guint        i,
                GError     **error)
{
  guint ndim;
  const gint64 *shape = ep_variable_get_shape (variable, &ndim);

  if (!EP_IS_TENSOR (gradient))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("average_gradients: gradient %u is not a tensor"), i);
      return FALSE;
    }
  if (!ep_tensor_check_alive (gradient, "average_gradients", error))
    return FALSE;
  if (ndim != gradient->layout.ndim
      || memcmp (shape, gradient->layout.shape, ndim * sizeof (gint64)) != 0)
    {
      g_autofree char *got = ep_shape_to_string (gradient->layout.shape, gradient->layout.ndim);
      g_autofree char *want = ep_shape_to_string (shape, ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("average_gradients: gradient %u has shape %s but its variable has shape %s"),
                   i, got, want);
      return FALSE;
    }
  if (gradient->layout.dtype != ep_variable_get_dtype (variable))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("average_gradients: gradient %u is %s but its variable is %s"),
                   i, ep_dtype_get_name (gradient->layout.dtype),
                   ep_dtype_get_name (ep_variable_get_dtype (variable)));
      return FALSE;
    }

  return TRUE;
}

/**
 * ep_data_parallel_average_gradients:
 * @self: a data-parallel helper
 * @gradients: (array length=n_gradients) (nullable): one gradient per
 *   variable, in the order the helper was made with (for
 *   [ctor@DataParallel.new_for_module], the trainable variables); an
 *   element may be %NULL: a variable without a gradient, taken as zeros
 * @n_gradients: the length of @gradients
 * @error: return location for an error
 *
 * Averages the gradients over the ranks: each result is the mean of the
 * ranks' gradients of its variable. The gradients go in buckets of about
 * [property@DataParallel:bucket-size] bytes of one type and device; each
 * bucket is flattened, concatenated, all-reduced (mean) in one
 * collective and split back. A collective call: every rank makes it
 * with gradients of the same shapes and types.
 *
 * With each rank's loss a mean over its shard of the batch and shards of
 * equal size, the average is the gradient of the loss over the whole
 * batch; for a sum over the batch, multiply the result by the
 * communicator's size.
 *
 * Returns: (transfer container) (element-type EpTensor): new tensors,
 *   one per gradient, of its variable's shape, type and device; or %NULL
 *   with an error set: %EP_ERROR_INVALID_ARGUMENT (an object made with
 *   g_object_new(), a count other than the variables', a released
 *   gradient), %EP_ERROR_SHAPE or %EP_ERROR_DTYPE (a gradient that does
 *   not match its variable, or the ranks' gradients differ),
 *   %EP_ERROR_COMMUNICATION (the ranks could not work together)
 */
GPtrArray *
ep_data_parallel_average_gradients (EpDataParallel  *self,
                                    EpTensor       **gradients,
                                    guint            n_gradients,
                                    GError         **error)
{
  g_autoptr(GPtrArray) filled = NULL;
  GPtrArray *averaged;

  g_return_val_if_fail (EP_IS_DATA_PARALLEL (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_made (self, "average_gradients", error))
    return NULL;
  if (n_gradients != self->trainable->len)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("average_gradients: one gradient per variable (%u) is needed; %u given"),
                   self->trainable->len, n_gradients);
      return NULL;
    }
  for (guint i = 0; i < n_gradients; i++)
    {
      EpVariable *variable = g_ptr_array_index (self->trainable, i);

      if (gradients != NULL && gradients[i] != NULL && !check_gradient (gradients[i], variable, i, error))
        return NULL;
      if (!ep_dtype_is_floating (ep_variable_get_dtype (variable)))
        {
          g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                       _("average_gradients: variable %u is %s; gradients of floating-point variables only are averaged"),
                       i, ep_dtype_get_name (ep_variable_get_dtype (variable)));
          return NULL;
        }
    }

  filled = ep_tensor_array_new (n_gradients);
  for (guint i = 0; i < n_gradients; i++)
    {
      if (gradients != NULL && gradients[i] != NULL)
        {
          g_ptr_array_add (filled, g_object_ref (gradients[i]));
        }
      else
        {
          /* zeros of the variable's shape, type and device */
          g_autoptr(EpTensor) value = ep_variable_read (g_ptr_array_index (self->trainable, i));
          EpTensor *zeros = ep_tensor_zeros_like (value, error);

          if (zeros == NULL)
            return NULL;
          g_ptr_array_add (filled, zeros);
        }
    }

  averaged = reduce_all (self, (EpTensor **) filled->pdata, filled->len, COLLECTIVE_MEAN, error);
  if (averaged == NULL)
    ep_error_rename_call (error, NULL, "average_gradients");

  return averaged;
}

/* Rank 0's outcome, sent to every rank: a header (success, error code,
 * message length), then the message */
static gboolean
share_outcome (EpDataParallel  *self,
               GError         **outcome,
               GError         **error)
{
  int rank = ep_communicator_get_rank (self->communicator);
  gint64 header[3] = { 1, 0, 0 };
  gint64 header_shape[1] = { G_N_ELEMENTS (header) };
  g_autoptr(EpTensor) sent = NULL;
  g_autoptr(EpTensor) received = NULL;
  g_autoptr(EpTensor) text = NULL;
  g_autoptr(EpTensor) text_received = NULL;
  g_autoptr(GBytes) bytes = NULL;
  const gint64 *got;
  gint64 length;
  gsize size;
  const char *message;

  if (rank == 0 && *outcome != NULL)
    {
      header[0] = 0;
      header[1] = (*outcome)->domain == EP_ERROR ? (*outcome)->code : EP_ERROR_IO;
      header[2] = (gint64) strlen ((*outcome)->message);
    }
  sent = ep_tensor_new_from_data (header, sizeof header, EP_DTYPE_INT64, header_shape, 1, error);
  if (sent == NULL)
    return FALSE;
  received = ep_communicator_broadcast (self->communicator, sent, 0, error);
  if (received == NULL)
    return FALSE;
  bytes = ep_tensor_to_bytes (received, error);
  if (bytes == NULL)
    return FALSE;
  got = g_bytes_get_data (bytes, &size);
  g_assert (size == sizeof header);
  if (got[0] != 0 || rank == 0)
    return TRUE;

  /* rank 0 failed: its message */
  length = MAX (got[2], 0);
  {
    gint64 text_shape[1] = { length };
    g_autoptr(GBytes) text_bytes = NULL;
    int code = (int) got[1];

    text = ep_zeros (text_shape, 1, EP_DTYPE_UINT8, error);
    if (text == NULL)
      return FALSE;
    text_received = ep_communicator_broadcast (self->communicator, text, 0, error);
    if (text_received == NULL)
      return FALSE;
    text_bytes = ep_tensor_to_bytes (text_received, error);
    if (text_bytes == NULL)
      return FALSE;
    message = g_bytes_get_data (text_bytes, &size);
    g_set_error (outcome, EP_ERROR, code,
                 _("save_checkpoint: rank 0 could not write the checkpoint: %.*s"),
                 (int) size, message != NULL ? message : "");
  }

  return TRUE;
}

/* Rank 0's side of a failure: the message after the header */
static gboolean
send_message (EpDataParallel  *self,
              const GError    *outcome,
              GError         **error)
{
  gint64 shape[1] = { (gint64) strlen (outcome->message) };
  g_autoptr(EpTensor) text = ep_tensor_new_from_data (outcome->message, (gsize) shape[0], EP_DTYPE_UINT8,
                                                       shape, 1, error);
  g_autoptr(EpTensor) sent = NULL;

  if (text == NULL)
    return FALSE;
  sent = ep_communicator_broadcast (self->communicator, text, 0, error);
  return sent != NULL;
}

/**
 * ep_data_parallel_save_checkpoint:
 * @self: a data-parallel helper
 * @module: the model
 * @optimizer: (nullable): its optimizer, whose state is saved too
 * @file: where to write: a path that rank 0 can write
 * @cancellable: (nullable): cancels rank 0's writing
 * @error: return location for an error
 *
 * Rank 0 writes @module (and @optimizer's state) to @file as
 * [func@checkpoint_save_module] does; the other ranks write nothing
 * (their variables are rank 0's, as the training keeps them equal).
 * Then every rank learns rank 0's outcome: it returns %TRUE on every
 * rank once the file is written, or fails on every rank with rank 0's
 * error (on the others, its code in %EP_ERROR, %EP_ERROR_IO for an
 * error of another domain, and its message). A collective call.
 *
 * Returns: %TRUE when rank 0 wrote the checkpoint, or %FALSE with an
 *   error set
 */
gboolean
ep_data_parallel_save_checkpoint (EpDataParallel  *self,
                                  EpModule        *module,
                                  EpOptimizer     *optimizer,
                                  GFile           *file,
                                  GCancellable    *cancellable,
                                  GError         **error)
{
  g_autoptr(GError) outcome = NULL;

  g_return_val_if_fail (EP_IS_DATA_PARALLEL (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_made (self, "save_checkpoint", error))
    return FALSE;
  if (!EP_IS_MODULE (module) || (optimizer != NULL && !EP_IS_OPTIMIZER (optimizer)) || !G_IS_FILE (file))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("save_checkpoint: a module, a file and an optimizer or NULL are needed"));
      return FALSE;
    }

  if (ep_communicator_get_rank (self->communicator) == 0)
    ep_checkpoint_save_module (module, optimizer, file, cancellable, &outcome);
  if (!share_outcome (self, &outcome, error))
    {
      ep_error_rename_call (error, NULL, "save_checkpoint");
      return FALSE;
    }
  if (ep_communicator_get_rank (self->communicator) == 0 && outcome != NULL
      && !send_message (self, outcome, error))
    {
      ep_error_rename_call (error, NULL, "save_checkpoint");
      return FALSE;
    }
  if (outcome != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&outcome));
      return FALSE;
    }

  return TRUE;
}

/**
 * ep_data_parallel_get_communicator: (get-property communicator)
 * @self: a data-parallel helper
 *
 * Gives the processes that train together.
 *
 * Returns: (transfer none) (nullable): the communicator; %NULL only for
 *   an object made with g_object_new()
 */
EpCommunicator *
ep_data_parallel_get_communicator (EpDataParallel *self)
{
  g_return_val_if_fail (EP_IS_DATA_PARALLEL (self), NULL);

  return self->communicator;
}

/**
 * ep_data_parallel_get_variables:
 * @self: a data-parallel helper
 *
 * Gives the variables whose gradients
 * [method@DataParallel.average_gradients] takes, in order.
 *
 * Returns: (transfer container) (element-type EpVariable): the variables
 */
GPtrArray *
ep_data_parallel_get_variables (EpDataParallel *self)
{
  GPtrArray *variables;

  g_return_val_if_fail (EP_IS_DATA_PARALLEL (self), NULL);

  variables = g_ptr_array_new_full (self->trainable->len, g_object_unref);
  for (guint i = 0; i < self->trainable->len; i++)
    g_ptr_array_add (variables, g_object_ref (g_ptr_array_index (self->trainable, i)));

  return variables;
}

/**
 * ep_data_parallel_get_bucket_size: (get-property bucket-size)
 * @self: a data-parallel helper
 *
 * Gives [property@DataParallel:bucket-size].
 *
 * Returns: the bucket size in bytes
 */
guint64
ep_data_parallel_get_bucket_size (EpDataParallel *self)
{
  g_return_val_if_fail (EP_IS_DATA_PARALLEL (self), 0);

  return self->bucket_size;
}

/**
 * ep_data_parallel_set_bucket_size: (set-property bucket-size)
 * @self: a data-parallel helper
 * @bucket_size: about how many bytes of gradients go in one collective;
 *   0 for one collective per gradient
 *
 * Sets [property@DataParallel:bucket-size]; every rank must set the same.
 */
void
ep_data_parallel_set_bucket_size (EpDataParallel *self,
                                  guint64         bucket_size)
{
  g_return_if_fail (EP_IS_DATA_PARALLEL (self));

  if (self->bucket_size == bucket_size)
    return;
  self->bucket_size = bucket_size;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUCKET_SIZE]);
}
