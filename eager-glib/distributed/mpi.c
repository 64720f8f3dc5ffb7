/* mpi.c: the world's collectives over MPI (built when MPI is found)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * MPI starts in a process that a launcher started, on the first use of
 * the world (communicator.c), with MPI_THREAD_MULTIPLE unless someone
 * (mpi4py) started it before us, and ends at exit if we started it:
 * Open MPI's mpirun fails a job whose process exits without
 * MPI_Finalize. The library works on a duplicate of MPI_COMM_WORLD, so
 * that its messages never meet the application's, with errors returned
 * (MPI_ERRORS_RETURN), not fatal.
 *
 * Each collective runs in two steps: the processes agree on what they
 * call (an all-gather of a fixed header: the collective, its reduction
 * or root, dtype and shape), and fail together with a message naming
 * every rank's tensor when those differ, rather than corrupt memory or
 * hang; then the elements travel. Both run as MPI's nonblocking forms,
 * completed by polling MPI_Test: first spinning, then yielding the CPU,
 * then sleeping a little longer each time, until done or the timeout.
 * (A blocking MPI call could wait forever for a process that died.)
 */

#include "config.h"

#include <dlfcn.h>
#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <mpi.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "ep-communicator-private.h"
#include "ep-error.h"
#include "ep-fault-private.h"

/* How a wait polls: spinning for SPIN_US, then sched_yield() up to
 * YIELD_US, then sleeps from SLEEP_MIN_US doubling to SLEEP_MAX_US. On a
 * machine with fewer cores than processes a spinning process takes the
 * core of the one it waits for: the yields and sleeps give it back.
 * Open MPI moves a nonblocking collective's rounds on only inside
 * MPI_Test: a collective of many megabytes (62 ms for 64 MiB here) must
 * not sleep between its rounds, so the sleeps start after a second,
 * where a wait is for a process that is late, not for the network. */
#define SPIN_US       50
#define YIELD_US      1000000
#define SLEEP_MIN_US  20
#define SLEEP_MAX_US  1000

/* The header every process contributes before a collective */
enum {
  HEADER_KIND,
  HEADER_OP,
  HEADER_ROOT,
  HEADER_DTYPE,
  HEADER_NDIM,
  HEADER_SHAPE,
  HEADER_LENGTH = HEADER_SHAPE + EP_MAX_DIMS
};

static MPI_Comm comm = MPI_COMM_NULL;
static gboolean we_started;

gboolean
ep_mpi_launched (void)
{
  static const char *const vars[] = {
    "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE",
  };
  const char *forced = g_getenv ("EP_MPI");

  if (forced != NULL)
    return g_strcmp0 (forced, "1") == 0;
  for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
    if (g_getenv (vars[i]) != NULL)
      return TRUE;
  return FALSE;
}

static gboolean
mpi_error (const char  *name,
           int          code,
           GError     **error)
{
  char text[MPI_MAX_ERROR_STRING + 1];
  int length = 0;

  if (MPI_Error_string (code, text, &length) != MPI_SUCCESS)
    length = 0;
  text[CLAMP (length, 0, MPI_MAX_ERROR_STRING)] = '\0';
  g_set_error (error, EP_ERROR, EP_ERROR_COMMUNICATION,
               _("%s: MPI failed: %s"), name, text);
  return FALSE;
}

static void
finalize_at_exit (void)
{
  int finalized = 0;

  if (MPI_Finalized (&finalized) == MPI_SUCCESS && !finalized)
    MPI_Finalize ();
}

/* Completes @request by polling, within @timeout_ms (0: forever).
 * @pending: set when it timed out and MPI still holds the request. */
static gboolean
wait_request (MPI_Request  *request,
              const char   *name,
              guint         timeout_ms,
              gboolean     *pending,
              GError      **error)
{
  gint64 start = g_get_monotonic_time ();
  gint64 deadline = timeout_ms > 0 ? start + (gint64) timeout_ms * 1000 : G_MAXINT64;
  gulong sleep_us = SLEEP_MIN_US;

  for (;;)
    {
      int done = 0, rc = MPI_Test (request, &done, MPI_STATUS_IGNORE);
      gint64 now;

      if (rc != MPI_SUCCESS)
        return mpi_error (name, rc, error);
      if (done)
        return TRUE;

      now = g_get_monotonic_time ();
      if (now >= deadline)
        {
          *pending = TRUE;
          g_set_error (error, EP_ERROR, EP_ERROR_COMMUNICATION,
                       _("%s: the other processes did not complete the collective within the timeout of %u ms (one died, or skipped it)"),
                       name, timeout_ms);
          return FALSE;
        }
      if (now - start < SPIN_US)
        continue;
      if (now - start < YIELD_US)
        {
          sched_yield ();
          continue;
        }
      g_usleep (sleep_us);
      sleep_us = MIN (sleep_us * 2, SLEEP_MAX_US);
    }
}

gboolean
ep_mpi_start (int     *rank,
              int     *size,
              GError **error)
{
  MPI_Request request = MPI_REQUEST_NULL;
  gboolean pending = FALSE;
  int initialized = 0, provided = 0, rc;

  /* Loaded by GI's typelib loader (Python, gjs), libmpi is local to the
   * library: Open MPI's plugins, which it dlopen()s, would not find its
   * symbols. Make them global; a no-op when the program links it. */
  dlopen ("libmpi.so.40", RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);

  if (MPI_Initialized (&initialized) != MPI_SUCCESS)
    initialized = 0;
  if (!initialized)
    {
      rc = MPI_Init_thread (NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
      if (rc != MPI_SUCCESS)
        return mpi_error ("Communicator.get_world", rc, error);
      we_started = TRUE;
      atexit (finalize_at_exit);
    }

  MPI_Comm_set_errhandler (MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  /* our own channel; MPI_Comm_idup, so that a process that never
   * comes cannot hold us forever (the default timeout) */
  rc = MPI_Comm_idup (MPI_COMM_WORLD, &comm, &request);
  if (rc != MPI_SUCCESS)
    return mpi_error ("Communicator.get_world", rc, error);
  if (!wait_request (&request, "Communicator.get_world", 30u * 60u * 1000u, &pending, error))
    return FALSE;
  MPI_Comm_set_errhandler (comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank (comm, rank);
  MPI_Comm_size (comm, size);
  return TRUE;
}

static MPI_Datatype
mpi_dtype (EpDType dtype)
{
  switch (dtype)
    {
    case EP_DTYPE_FLOAT32:
      return MPI_FLOAT;
    case EP_DTYPE_FLOAT64:
      return MPI_DOUBLE;
    case EP_DTYPE_INT32:
      return MPI_INT32_T;
    case EP_DTYPE_INT64:
      return MPI_INT64_T;
    case EP_DTYPE_BOOL:
      return MPI_C_BOOL;
    case EP_DTYPE_UINT8:
      return MPI_UINT8_T;
    case EP_DTYPE_INT8:
      return MPI_INT8_T;
    case EP_DTYPE_INT16:
      return MPI_INT16_T;
    default:
      /* float16 and bfloat16 reach kernels widened (dispatch/widen.c) */
      return MPI_BYTE;
    }
}

/* MPI's reduction; bool has only the logical ones: max is "or", min
 * "and" (sums of bool are refused by the rule) */
static MPI_Op
mpi_op (EpReduceOp op,
        EpDType    dtype)
{
  switch (op)
    {
    case EP_REDUCE_OP_MAX:
      return dtype == EP_DTYPE_BOOL ? MPI_LOR : MPI_MAX;
    case EP_REDUCE_OP_MIN:
      return dtype == EP_DTYPE_BOOL ? MPI_LAND : MPI_MIN;
    case EP_REDUCE_OP_SUM:
    case EP_REDUCE_OP_MEAN:
    default:
      return MPI_SUM;
    }
}

static const char *
kind_name (gint64 kind)
{
  switch (kind)
    {
    case EP_COLLECTIVE_ALL_REDUCE:
      return "all_reduce";
    case EP_COLLECTIVE_BROADCAST:
      return "broadcast";
    case EP_COLLECTIVE_ALL_GATHER:
      return "all_gather";
    case EP_COLLECTIVE_REDUCE_SCATTER:
      return "reduce_scatter";
    case EP_COLLECTIVE_BARRIER:
      return "barrier";
    default:
      return "?";
    }
}

/* What rank @r called, for messages: "all_reduce", "broadcast from 1" */
static char *
describe_call (const gint64 *h)
{
  static const char *const ops[] = { "sum", "mean", "max", "min" };
  const char *op = h[HEADER_OP] >= 0 && h[HEADER_OP] < (gint64) G_N_ELEMENTS (ops)
                   ? ops[h[HEADER_OP]] : "?";

  switch (h[HEADER_KIND])
    {
    case EP_COLLECTIVE_ALL_REDUCE:
    case EP_COLLECTIVE_REDUCE_SCATTER:
      return g_strdup_printf ("%s (%s)", kind_name (h[HEADER_KIND]), op);
    case EP_COLLECTIVE_BROADCAST:
      return g_strdup_printf ("broadcast (root %" PRId64 ")", h[HEADER_ROOT]);
    default:
      return g_strdup (kind_name (h[HEADER_KIND]));
    }
}

static char *
describe_tensor (const gint64 *h)
{
  gint64 shape[EP_MAX_DIMS];
  guint ndim = (guint) CLAMP (h[HEADER_NDIM], 0, EP_MAX_DIMS);
  g_autofree char *s = NULL;

  for (guint d = 0; d < ndim; d++)
    shape[d] = h[HEADER_SHAPE + d];
  s = ep_shape_to_string (shape, ndim);
  return g_strdup_printf ("%s %s", ep_dtype_get_name ((EpDType) h[HEADER_DTYPE]), s);
}

/* The ranks' calls or tensors, "rank 0: …, rank 1: …", the first 8 */
static char *
describe_ranks (const gint64 *headers,
                int           size,
                gboolean      calls)
{
  GString *s = g_string_new (NULL);

  for (int r = 0; r < size && r < 8; r++)
    {
      const gint64 *h = headers + (gsize) r * HEADER_LENGTH;
      g_autofree char *what = calls ? describe_call (h) : describe_tensor (h);

      g_string_append_printf (s, "%s%s %d: %s", r > 0 ? ", " : "", _("rank"), r, what);
    }
  if (size > 8)
    g_string_append (s, ", …");
  return g_string_free (s, FALSE);
}

/* Every process's header; FALSE when they differ (the same answer on
 * every process: they all see every header) */
static gboolean
agree (const EpCollective  *c,
       guint                timeout_ms,
       gboolean            *failed,
       gboolean            *pending,
       GError             **error)
{
  gint64 mine[HEADER_LENGTH] = { 0 };
  g_autofree gint64 *all = NULL;
  MPI_Request request = MPI_REQUEST_NULL;
  gboolean same_call = TRUE, same_tensor = TRUE;
  int size = 0, rc;

  MPI_Comm_size (comm, &size);
  mine[HEADER_KIND] = c->kind;
  if (c->kind == EP_COLLECTIVE_ALL_REDUCE || c->kind == EP_COLLECTIVE_REDUCE_SCATTER)
    mine[HEADER_OP] = c->op;
  if (c->kind == EP_COLLECTIVE_BROADCAST)
    mine[HEADER_ROOT] = c->root;
  mine[HEADER_DTYPE] = c->dtype;
  mine[HEADER_NDIM] = c->ndim;
  for (guint d = 0; d < c->ndim; d++)
    mine[HEADER_SHAPE + d] = c->shape[d];

  all = ep_try_new (gint64, (gsize) size * HEADER_LENGTH);
  if (all == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("%s: out of memory"), c->name);
      /* the others wait for this process's header: nothing can go on */
      *failed = TRUE;
      return FALSE;
    }

  rc = MPI_Iallgather (mine, HEADER_LENGTH, MPI_INT64_T, all, HEADER_LENGTH, MPI_INT64_T,
                       comm, &request);
  if (rc != MPI_SUCCESS || !wait_request (&request, c->name, timeout_ms, pending, error))
    {
      *failed = TRUE;
      if (*pending)
        /* MPI may still write the headers: theirs for good */
        (void) g_steal_pointer (&all);
      return rc == MPI_SUCCESS ? FALSE : mpi_error (c->name, rc, error);
    }

  for (int r = 1; r < size; r++)
    {
      const gint64 *h = all + (gsize) r * HEADER_LENGTH;

      same_call &= h[HEADER_KIND] == all[HEADER_KIND] && h[HEADER_OP] == all[HEADER_OP]
                   && h[HEADER_ROOT] == all[HEADER_ROOT];
      same_tensor &= memcmp (h + HEADER_DTYPE, all + HEADER_DTYPE,
                             (HEADER_LENGTH - HEADER_DTYPE) * sizeof (gint64)) == 0;
    }
  if (!same_call)
    {
      g_autofree char *ranks = describe_ranks (all, size, TRUE);

      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: the processes called different collectives: %s"), c->name, ranks);
      return FALSE;
    }
  if (!same_tensor)
    {
      g_autofree char *ranks = describe_ranks (all, size, FALSE);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: the processes' tensors differ: %s"), c->name, ranks);
      return FALSE;
    }
  return TRUE;
}

static void
divide_by (EpDType  dtype,
           gpointer data,
           gint64   count,
           int      size)
{
  if (dtype == EP_DTYPE_FLOAT32)
    for (gint64 i = 0; i < count; i++)
      ((gfloat *) data)[i] /= (gfloat) size;
  else if (dtype == EP_DTYPE_FLOAT64)
    for (gint64 i = 0; i < count; i++)
      ((gdouble *) data)[i] /= (gdouble) size;
}

/* MPI counts are int: the largest part one call moves, in elements */
#define MAX_PART ((gint64) G_MAXINT / 2)

/* Posts the collective's request (or NULL when there is nothing to
 * move), on elements [@start, @start + @n) of each rank's part */
static int
post (const EpCollective *c,
      gint64              start,
      gint64              n,
      MPI_Request        *request)
{
  gsize item = ep_dtype_get_itemsize (c->dtype);
  const guint8 *send = c->send;
  guint8 *recv = c->recv;
  MPI_Datatype type = mpi_dtype (c->dtype);
  MPI_Op op = mpi_op (c->op, c->dtype);

  switch (c->kind)
    {
    case EP_COLLECTIVE_ALL_REDUCE:
      return MPI_Iallreduce (send + start * item, recv + start * item, (int) n, type, op,
                             comm, request);
    case EP_COLLECTIVE_BROADCAST:
      /* in the output, which the root fills from its input first */
      {
        int rank = 0;

        MPI_Comm_rank (comm, &rank);
        if (rank == c->root)
          memcpy (recv + start * item, send + start * item, n * item);
        return MPI_Ibcast (recv + start * item, (int) n, type, (int) c->root, comm, request);
      }
    case EP_COLLECTIVE_ALL_GATHER:
      return MPI_Iallgather (send, (int) n, type, recv, (int) n, type, comm, request);
    case EP_COLLECTIVE_REDUCE_SCATTER:
      return MPI_Ireduce_scatter_block (send, recv, (int) n, type, op, comm, request);
    case EP_COLLECTIVE_BARRIER:
    default:
      *request = MPI_REQUEST_NULL;
      return MPI_SUCCESS;
    }
}

gboolean
ep_mpi_run (const EpCollective  *c,
            guint                timeout_ms,
            gboolean            *failed,
            gboolean            *pending,
            GError             **error)
{
  int size = 0;
  gint64 part;

  /* the header's all-gather is a barrier too */
  if (!agree (c, timeout_ms, failed, pending, error))
    return FALSE;
  if (c->kind == EP_COLLECTIVE_BARRIER || c->count == 0)
    return TRUE;

  MPI_Comm_size (comm, &size);
  part = c->kind == EP_COLLECTIVE_REDUCE_SCATTER ? c->count / size : c->count;

  /* a part of more than MAX_PART elements goes in pieces (all_gather and
   * reduce_scatter interleave ranks, so they go whole: the rule keeps
   * them within an int) */
  for (gint64 start = 0; start < part; start += MAX_PART)
    {
      MPI_Request request = MPI_REQUEST_NULL;
      gint64 n = MIN (MAX_PART, part - start);
      int rc = post (c, start, n, &request);

      if (rc != MPI_SUCCESS)
        {
          *failed = TRUE;
          return mpi_error (c->name, rc, error);
        }
      if (request != MPI_REQUEST_NULL
          && !wait_request (&request, c->name, timeout_ms, pending, error))
        {
          *failed = TRUE;
          return FALSE;
        }
      if (c->kind == EP_COLLECTIVE_ALL_GATHER || c->kind == EP_COLLECTIVE_REDUCE_SCATTER)
        break;
    }

  if (c->op == EP_REDUCE_OP_MEAN
      && (c->kind == EP_COLLECTIVE_ALL_REDUCE || c->kind == EP_COLLECTIVE_REDUCE_SCATTER))
    divide_by (c->dtype, c->recv, part, size);
  return TRUE;
}
