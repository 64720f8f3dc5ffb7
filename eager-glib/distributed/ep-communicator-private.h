/* ep-communicator-private.h: the world's collectives on host memory
 * (distributed/communicator.c, distributed/mpi.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-storage-private.h"
#include "ep-tensor-private.h"
#include "ep-types.h"

G_BEGIN_DECLS

typedef enum {
  EP_COLLECTIVE_ALL_REDUCE,
  EP_COLLECTIVE_BROADCAST,
  EP_COLLECTIVE_ALL_GATHER,
  EP_COLLECTIVE_REDUCE_SCATTER,
  EP_COLLECTIVE_BARRIER,
} EpCollectiveKind;

/* One collective call of this process, on contiguous host buffers in C
 * order. Every process first agrees on (kind, op, root, dtype, shape);
 * then the elements travel. */
typedef struct
{
  EpCollectiveKind  kind;
  const char       *name;        /* the call's name, for messages */
  EpReduceOp        op;          /* all_reduce, reduce_scatter */
  gint64            root;        /* broadcast */
  EpDType           dtype;
  guint             ndim;
  const gint64     *shape;       /* of the input */
  gconstpointer     send;        /* the input: its elements */
  gpointer          recv;        /* the output */
  gint64            count;       /* elements of the input */
  /* the storages of send and recv (or NULL): a call that times out
   * leaves MPI a request it may still complete into them, so they are
   * kept, never reused */
  EpStorage        *keep[2];
} EpCollective;

/* The world: started on first use (MPI only under a launcher or with
 * EP_MPI=1); its size, or -1 with @error set when MPI would not start. */
int      ep_world_get_size   (GError         **error);
/* this process's rank: 0 before the world started */
int      ep_world_get_rank   (void);
gboolean ep_world_run        (EpCollective    *collective,
                              GError         **error);

/* mpi.c: built when MPI is found */
#ifdef EP_HAVE_MPI
gboolean ep_mpi_launched     (void);
gboolean ep_mpi_start        (int             *rank,
                              int             *size,
                              GError         **error);
gboolean ep_mpi_run          (const EpCollective *collective,
                              guint            timeout_ms,
                              gboolean        *failed,
                              gboolean        *pending,
                              GError         **error);
#endif

G_END_DECLS
