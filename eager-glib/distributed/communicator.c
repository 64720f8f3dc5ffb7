/* communicator.c: EpCommunicator, the processes of a job working
 * together, and the world's state
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * There is one communicator for now, the world: every process that
 * mpirun started. MPI starts on first use, and only in a process that a
 * launcher started (or with EP_MPI=1), so that tests, fuzzers and Python
 * imports outside mpirun never start it; without MPI (not built, or not
 * launched) the world is this process alone, rank 0 of size 1, where
 * each collective is what it is for one process: a copy.
 *
 * The collectives are ops (ops/collective.c) on the world; the
 * communicator's methods dispatch them, so that tapes record them and
 * tracers stage them. Their kernels come here with host buffers
 * (ep_world_run()). One lock serializes the calls of a process, so
 * that two threads never interleave their messages; a call that fails
 * to complete (another process died or did not join within the
 * timeout) leaves the world failed: MPI cannot cancel a pending
 * collective, and its buffers are kept for it.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-communicator.h"
#include "ep-communicator-private.h"
#include "ep-dispatch-private.h"
#include "ep-enum-types.h"
#include "ep-error.h"

/* PyTorch's default for its process groups: 30 minutes */
#define DEFAULT_TIMEOUT_MS (30u * 60u * 1000u)

/**
 * EpCommunicator:
 *
 * The processes of a job working together over MPI: each has a
 * [property@Communicator:rank] among the [property@Communicator:size]
 * processes that `mpirun` started, and they combine tensors in
 * collectives ([method@Communicator.all_reduce],
 * [method@Communicator.broadcast], [method@Communicator.all_gather],
 * [method@Communicator.reduce_scatter], [method@Communicator.barrier]),
 * which every process calls in the same order.
 *
 * There is one communicator, the world, from
 * [func@Communicator.get_world]; outside `mpirun` (or in a build without
 * MPI) it is this process alone. A collective that another process does
 * not join within [property@Communicator:timeout] fails with
 * %EP_ERROR_COMMUNICATION and leaves the communicator failed. See
 * [Several processes](distributed.html).
 */
struct _EpCommunicator
{
  GObject   parent_instance;
  gboolean  is_world;   /* made by ep_communicator_get_world() */
};

G_DEFINE_FINAL_TYPE (EpCommunicator, ep_communicator, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_RANK,
  PROP_SIZE,
  PROP_TIMEOUT,
  PROP_FAILED,
  N_PROPS
};

static GParamSpec *props[N_PROPS];

/* The world's state */
static GMutex start_lock;
static gboolean started;
static GError *start_error;
static int world_rank, world_size = 1;
static EpCommunicator *world;
/* held around each collective that talks to other processes */
static GMutex run_lock;
/* a guint, in a gint for g_atomic_int_*() */
static gint world_timeout_ms = (gint) DEFAULT_TIMEOUT_MS;
static gint world_failed;

/* Starts the world once; FALSE with the error of the first attempt */
static gboolean
world_start (GError **error)
{
  gboolean ok;

  g_mutex_lock (&start_lock);
  if (!started)
    {
#ifdef EP_HAVE_MPI
      if (ep_mpi_launched ())
        ep_mpi_start (&world_rank, &world_size, &start_error);
#endif
      started = TRUE;
    }
  ok = start_error == NULL;
  if (!ok)
    g_propagate_error (error, g_error_copy (start_error));
  g_mutex_unlock (&start_lock);

  return ok;
}

int
ep_world_get_size (GError **error)
{
  if (!world_start (error))
    return -1;

  return world_size;
}

int
ep_world_get_rank (void)
{
  return world_rank;
}

static gboolean
check_not_failed (const char  *name,
                  GError     **error)
{
  if (!g_atomic_int_get (&world_failed))
    return TRUE;

  g_set_error (error, EP_ERROR, EP_ERROR_COMMUNICATION,
               _("%s: the communicator failed in an earlier call (a process died or did not join a collective in time); start the job again"),
               name);
  return FALSE;
}

/* The collective of one process: its own elements */
static gboolean
run_alone (EpCollective *c)
{
  gsize nbytes = (gsize) c->count * ep_dtype_get_itemsize (c->dtype);

  if (c->kind != EP_COLLECTIVE_BARRIER && nbytes > 0)
    memmove (c->recv, c->send, nbytes);
  return TRUE;
}

gboolean
ep_world_run (EpCollective  *c,
              GError       **error)
{
  int size = ep_world_get_size (error);
  gboolean ok = TRUE;

  if (size < 0 || !check_not_failed (c->name, error))
    return FALSE;
  if (size == 1)
    return run_alone (c);

#ifdef EP_HAVE_MPI
  {
    gboolean failed = FALSE, pending = FALSE;

    g_mutex_lock (&run_lock);
    ok = check_not_failed (c->name, error)
         && ep_mpi_run (c, (guint) g_atomic_int_get (&world_timeout_ms), &failed, &pending, error);
    if (pending)
      {
        /* MPI may still read and write them: never freed, never reused */
        for (guint i = 0; i < G_N_ELEMENTS (c->keep); i++)
          if (c->keep[i] != NULL)
            ep_storage_ref (c->keep[i]);
      }
    if (failed)
      g_atomic_int_set (&world_failed, TRUE);
    g_mutex_unlock (&run_lock);
  }
#endif

  return ok;
}

static gboolean
check_world (EpCommunicator  *self,
             const char      *name,
             GError         **error)
{
  if (self->is_world)
    return TRUE;

  g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
               _("%s: this communicator was not made by Communicator.get_world()"), name);
  return FALSE;
}

static void
ep_communicator_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  EpCommunicator *self = EP_COMMUNICATOR (object);

  switch (prop_id)
    {
    case PROP_RANK:
      g_value_set_int (value, ep_communicator_get_rank (self));
      break;
    case PROP_SIZE:
      g_value_set_int (value, ep_communicator_get_size (self));
      break;
    case PROP_TIMEOUT:
      g_value_set_uint (value, ep_communicator_get_timeout (self));
      break;
    case PROP_FAILED:
      g_value_set_boolean (value, ep_communicator_get_failed (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_communicator_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  EpCommunicator *self = EP_COMMUNICATOR (object);

  switch (prop_id)
    {
    case PROP_TIMEOUT:
      ep_communicator_set_timeout (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_communicator_class_init (EpCommunicatorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = ep_communicator_get_property;
  object_class->set_property = ep_communicator_set_property;

  /**
   * EpCommunicator:rank:
   *
   * This process's number among the communicator's, from 0 to
   * [property@Communicator:size] - 1; -1 for a communicator not made by
   * [func@Communicator.get_world].
   */
  props[PROP_RANK] =
    g_param_spec_int ("rank", NULL, NULL, -1, G_MAXINT, 0,
                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * EpCommunicator:size:
   *
   * The number of processes working together: 1 outside a launcher
   * (`mpirun`); 0 for a communicator not made by
   * [func@Communicator.get_world].
   */
  props[PROP_SIZE] =
    g_param_spec_int ("size", NULL, NULL, 0, G_MAXINT, 1,
                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * EpCommunicator:timeout:
   *
   * How long a collective waits for the other processes, in
   * milliseconds, before it fails with %EP_ERROR_COMMUNICATION and
   * leaves the communicator failed; 0 waits forever. 30 minutes by
   * default, as PyTorch's process groups.
   */
  props[PROP_TIMEOUT] =
    g_param_spec_uint ("timeout", NULL, NULL, 0, G_MAXUINT, DEFAULT_TIMEOUT_MS,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * EpCommunicator:failed:
   *
   * Whether a collective failed to complete (a process died, or did not
   * join within [property@Communicator:timeout]): every later
   * collective fails at once with %EP_ERROR_COMMUNICATION.
   */
  props[PROP_FAILED] =
    g_param_spec_boolean ("failed", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
ep_communicator_init (EpCommunicator *self)
{
}

/**
 * ep_communicator_get_world:
 * @error: return location for an error
 *
 * The communicator of every process of the job: those that `mpirun`
 * started, each with its [property@Communicator:rank]. MPI starts on
 * the first call, in a process that a launcher started (Open MPI's
 * `OMPI_COMM_WORLD_SIZE`, or `PMIX_RANK`, `PMI_RANK` or `PMI_SIZE` in
 * its environment; `EP_MPI=1` forces it), and ends when the process
 * exits; anywhere else, or in a build without MPI, the world is this
 * process alone, rank 0 of size 1. Every call returns the same object.
 *
 * Returns: (transfer full): the world communicator, or %NULL with
 *   %EP_ERROR_COMMUNICATION when MPI would not start
 */
EpCommunicator *
ep_communicator_get_world (GError **error)
{
  static gsize made;

  if (!world_start (error))
    return NULL;

  if (g_once_init_enter (&made))
    {
      world = g_object_new (EP_TYPE_COMMUNICATOR, NULL);
      world->is_world = TRUE;
      g_once_init_leave (&made, 1);
    }

  return g_object_ref (world);
}

/**
 * ep_communicator_get_rank:
 * @self: a communicator
 *
 * This process's number among the communicator's processes.
 *
 * Returns: the rank, from 0 to the size - 1 (-1 for a communicator not
 *   made by [func@Communicator.get_world])
 */
int
ep_communicator_get_rank (EpCommunicator *self)
{
  g_return_val_if_fail (EP_IS_COMMUNICATOR (self), -1);

  return self->is_world ? world_rank : -1;
}

/**
 * ep_communicator_get_size:
 * @self: a communicator
 *
 * The number of processes working together.
 *
 * Returns: the size, 1 outside `mpirun` (0 for a communicator not made
 *   by [func@Communicator.get_world])
 */
int
ep_communicator_get_size (EpCommunicator *self)
{
  g_return_val_if_fail (EP_IS_COMMUNICATOR (self), 0);

  return self->is_world ? world_size : 0;
}

/**
 * ep_communicator_set_timeout:
 * @self: a communicator
 * @timeout_ms: milliseconds, or 0 to wait forever
 *
 * Sets how long a collective waits for the other processes before it
 * fails with %EP_ERROR_COMMUNICATION (see
 * [property@Communicator:timeout]). Each process has its own: set the
 * same on every rank. A communicator not made by
 * [func@Communicator.get_world] has none and ignores it.
 */
void
ep_communicator_set_timeout (EpCommunicator *self,
                             guint           timeout_ms)
{
  g_return_if_fail (EP_IS_COMMUNICATOR (self));

  if (!self->is_world || (guint) g_atomic_int_get (&world_timeout_ms) == timeout_ms)
    return;
  g_atomic_int_set (&world_timeout_ms, (gint) timeout_ms);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_TIMEOUT]);
}

/**
 * ep_communicator_get_timeout:
 * @self: a communicator
 *
 * How long a collective waits for the other processes.
 *
 * Returns: milliseconds, 0 for forever
 */
guint
ep_communicator_get_timeout (EpCommunicator *self)
{
  g_return_val_if_fail (EP_IS_COMMUNICATOR (self), 0);

  return self->is_world ? (guint) g_atomic_int_get (&world_timeout_ms) : 0;
}

/**
 * ep_communicator_get_failed:
 * @self: a communicator
 *
 * Whether a collective failed to complete: another process died, or did
 * not join within the timeout. MPI cannot take back a collective in
 * flight, so every later one fails at once with %EP_ERROR_COMMUNICATION;
 * the job must start again (from its last checkpoint).
 *
 * Returns: %TRUE after such a failure
 */
gboolean
ep_communicator_get_failed (EpCommunicator *self)
{
  g_return_val_if_fail (EP_IS_COMMUNICATOR (self), FALSE);

  return self->is_world && g_atomic_int_get (&world_failed);
}

static EpTensor *
dispatch_collective (EpCommunicator  *self,
                     const EpOpDef   *op,
                     EpTensor        *x,
                     EpReduceOp       reduce,
                     gint64           root,
                     GError         **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_COMMUNICATOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (x), NULL);

  if (!check_world (self, op->name, error))
    return NULL;

  ep_op_attrs_init (&attrs);
  attrs.collective.op = reduce;
  attrs.collective.root = root;
  return ep_dispatch1 (op, &x, 1, &attrs, error);
}

/**
 * ep_communicator_all_reduce:
 * @self: the world communicator
 * @x: this process's tensor; every process passes one of the same
 *   shape and dtype
 * @op: how the processes' tensors combine, element by element
 * @error: return location for an error
 *
 * Combines the processes' tensors element by element (their sum, mean,
 * max or min) and gives every process the result, as
 * `torch.distributed.all_reduce`. Every process of the communicator
 * must call it, in the same order as its other collectives; they first
 * agree on the shape and dtype, and fail together with %EP_ERROR_SHAPE
 * when those differ. A tape records it: the gradient of a sum is the
 * sum of the processes' gradients (so every process must take the
 * gradient too). float16 and bfloat16 travel as float32.
 *
 * Returns: (transfer full): the combined tensor, shaped as @x, or %NULL
 *   with an error: %EP_ERROR_DTYPE (a sum of bool, the mean of
 *   integers), %EP_ERROR_SHAPE (the processes' tensors differ),
 *   %EP_ERROR_COMMUNICATION (a process failed or did not join within
 *   the timeout)
 */
EpTensor *
ep_communicator_all_reduce (EpCommunicator  *self,
                            EpTensor        *x,
                            EpReduceOp       op,
                            GError         **error)
{
  return dispatch_collective (self, &ep_op_all_reduce, x, op, 0, error);
}

/**
 * ep_communicator_broadcast:
 * @self: the world communicator
 * @x: the tensor to send (on @root) or one of its shape and dtype (on
 *   the others)
 * @root: the rank whose tensor every process gets
 * @error: return location for an error
 *
 * Gives every process @root's tensor, as `torch.distributed.broadcast`.
 * Every process calls it with the same @root and a tensor of the same
 * shape and dtype (checked: %EP_ERROR_SHAPE on every process). Its
 * gradient on @root is the sum of every process's gradient; the other
 * processes' @x get none (zeros).
 *
 * Returns: (transfer full): @root's tensor, or %NULL with an error:
 *   %EP_ERROR_INVALID_ARGUMENT (@root is not a rank),
 *   %EP_ERROR_SHAPE, %EP_ERROR_COMMUNICATION
 */
EpTensor *
ep_communicator_broadcast (EpCommunicator  *self,
                           EpTensor        *x,
                           int              root,
                           GError         **error)
{
  return dispatch_collective (self, &ep_op_broadcast_collective, x, EP_REDUCE_OP_SUM, root, error);
}

/**
 * ep_communicator_all_gather:
 * @self: the world communicator
 * @x: this process's tensor, of at least one axis; every process passes
 *   one of the same shape and dtype
 * @error: return location for an error
 *
 * The processes' tensors concatenated along axis 0 in rank order, given
 * to every process: `torch.distributed.all_gather_into_tensor`. Its
 * gradient is a reduce_scatter (sum) of the result's gradient.
 *
 * Returns: (transfer full): a tensor of size × the first extent of @x
 *   along axis 0, or %NULL with an error: %EP_ERROR_SHAPE (a 0-d
 *   tensor, or the processes' tensors differ), %EP_ERROR_COMMUNICATION
 */
EpTensor *
ep_communicator_all_gather (EpCommunicator  *self,
                            EpTensor        *x,
                            GError         **error)
{
  return dispatch_collective (self, &ep_op_all_gather, x, EP_REDUCE_OP_SUM, 0, error);
}

/**
 * ep_communicator_reduce_scatter:
 * @self: the world communicator
 * @x: this process's tensor, whose axis 0 the size divides; every
 *   process passes one of the same shape and dtype
 * @op: how the processes' tensors combine, element by element
 * @error: return location for an error
 *
 * Combines the processes' tensors as [method@Communicator.all_reduce]
 * does and gives each process its part of axis 0 of the result: rank r
 * gets rows r·n/size to (r+1)·n/size. `torch.distributed.reduce_scatter_tensor`.
 * Its gradient (sum) is an all_gather of the result's gradient.
 *
 * Returns: (transfer full): this process's part, or %NULL with an
 *   error: %EP_ERROR_SHAPE (a 0-d tensor, axis 0 not divisible by the
 *   size, or the processes' tensors differ), %EP_ERROR_DTYPE,
 *   %EP_ERROR_COMMUNICATION
 */
EpTensor *
ep_communicator_reduce_scatter (EpCommunicator  *self,
                                EpTensor        *x,
                                EpReduceOp       op,
                                GError         **error)
{
  return dispatch_collective (self, &ep_op_reduce_scatter, x, op, 0, error);
}

/**
 * ep_communicator_barrier:
 * @self: the world communicator
 * @error: return location for an error
 *
 * Waits until every process of the communicator has called it (or the
 * timeout passes). Not an op: tapes and staged functions do not see it.
 *
 * Returns: %TRUE when every process arrived, %FALSE with
 *   %EP_ERROR_COMMUNICATION (or %EP_ERROR_INVALID_ARGUMENT when the
 *   processes called different collectives)
 */
gboolean
ep_communicator_barrier (EpCommunicator  *self,
                         GError         **error)
{
  EpCollective c = { 0 };

  g_return_val_if_fail (EP_IS_COMMUNICATOR (self), FALSE);

  if (!check_world (self, "barrier", error))
    return FALSE;

  c.kind = EP_COLLECTIVE_BARRIER;
  c.name = "barrier";
  c.dtype = EP_DTYPE_UINT8;
  return ep_world_run (&c, error);
}
