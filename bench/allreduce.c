/* allreduce.c: all-reduce latency and bandwidth, Open MPI itself against
 * ep_communicator_all_reduce, in the same run
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mpirun -np 2 _build/bench/ep-bench-allreduce [MIN_BYTES [MAX_BYTES]]
 *
 * For each size from MIN_BYTES (1 KiB) to MAX_BYTES (64 MiB), doubling,
 * times a float32 sum all-reduce of that many bytes, in the way of
 * osu_allreduce: warm-up calls, then ROUNDS rounds of ITERS calls (many
 * for small sizes, a few for large ones), each round started by a
 * barrier; a round's time is the slowest rank's mean per call, and the
 * figure is the best round. Two columns of figures:
 *
 *  - mpi: MPI_Allreduce (MPI_IN_PLACE would favour MPI; a separate
 *    receive buffer is what ep's call has too) on host buffers;
 *  - ep: ep_communicator_all_reduce on a CPU float32 tensor of that many
 *    bytes, which returns a new tensor (allocated per call, as a user
 *    gets it) after the ranks agree on the shape (a small all-reduce of
 *    a header) and the nonblocking collective is polled to completion.
 *
 * Bus bandwidth is the nccl-tests one: 2(n-1)/n * bytes / time, the
 * traffic a ring all-reduce puts on each rank's link, comparable between
 * rank counts. The last column is ep's time over MPI's.
 *
 * MPI is started here (MPI_THREAD_MULTIPLE, as the library asks for), so
 * the library finds it started and both columns run under the same MPI.
 */

#include <eager-glib/eager-glib.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 5

static guint
iterations_for (gsize bytes)
{
  /* about 32 MiB of traffic per round, between 5 and 1000 calls */
  gsize iters = (32u << 20) / bytes;

  return (guint) CLAMP (iters, 5, 1000);
}

/* The best round's slowest-rank mean per call, in seconds */
static double
time_mpi (float *send, float *recv, gsize count, guint iters)
{
  double best = G_MAXDOUBLE;

  for (guint w = 0; w < 3; w++)
    MPI_Allreduce (send, recv, (int) count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);

  for (guint r = 0; r < ROUNDS; r++)
    {
      double t0, local, slowest;

      MPI_Barrier (MPI_COMM_WORLD);
      t0 = MPI_Wtime ();
      for (guint i = 0; i < iters; i++)
        MPI_Allreduce (send, recv, (int) count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      local = (MPI_Wtime () - t0) / iters;
      MPI_Allreduce (&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      best = MIN (best, slowest);
    }
  return best;
}

static double
time_ep (EpCommunicator *comm, EpTensor *x, guint iters)
{
  double best = G_MAXDOUBLE;
  GError *error = NULL;

  for (guint w = 0; w < 3; w++)
    {
      EpTensor *y = ep_communicator_all_reduce (comm, x, EP_REDUCE_OP_SUM, &error);

      if (y == NULL)
        g_error ("all_reduce: %s", error->message);
      g_object_unref (y);
    }

  for (guint r = 0; r < ROUNDS; r++)
    {
      double t0, local, slowest;

      MPI_Barrier (MPI_COMM_WORLD);
      t0 = MPI_Wtime ();
      for (guint i = 0; i < iters; i++)
        {
          EpTensor *y = ep_communicator_all_reduce (comm, x, EP_REDUCE_OP_SUM, &error);

          if (y == NULL)
            g_error ("all_reduce: %s", error->message);
          g_object_unref (y);
        }
      local = (MPI_Wtime () - t0) / iters;
      MPI_Allreduce (&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      best = MIN (best, slowest);
    }
  return best;
}

static void
format_bytes (char *out, gsize size, gsize bytes)
{
  if (bytes >= (1u << 20))
    g_snprintf (out, size, "%zu MiB", bytes >> 20);
  else
    g_snprintf (out, size, "%zu KiB", bytes >> 10);
}

int
main (int argc, char **argv)
{
  gsize min_bytes = argc > 1 ? strtoull (argv[1], NULL, 10) : 1u << 10;
  gsize max_bytes = argc > 2 ? strtoull (argv[2], NULL, 10) : 64u << 20;
  int provided, rank, size;
  g_autoptr (GError) error = NULL;
  g_autoptr (EpCommunicator) comm = NULL;
  float *send, *recv;

  MPI_Init_thread (&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);

  if (min_bytes < sizeof (float) || max_bytes < min_bytes || max_bytes > (G_MAXINT / 2) * sizeof (float))
    {
      if (rank == 0)
        fprintf (stderr, "usage: %s [MIN_BYTES [MAX_BYTES]]\n", argv[0]);
      MPI_Finalize ();
      return 2;
    }

  comm = ep_communicator_get_world (&error);
  if (comm == NULL)
    g_error ("get_world: %s", error->message);
  if (ep_communicator_get_size (comm) != size)
    g_error ("the world has %d ranks, MPI %d", ep_communicator_get_size (comm), size);

  send = g_new (float, max_bytes / sizeof (float));
  recv = g_new (float, max_bytes / sizeof (float));
  for (gsize i = 0; i < max_bytes / sizeof (float); i++)
    send[i] = (float) ((i + rank) % 7);

  if (rank == 0)
    {
      printf ("# float32 sum all-reduce, %d ranks, best of %d rounds; busbw = 2(n-1)/n * bytes / time\n",
              size, ROUNDS);
      printf ("# %8s %6s | %10s %10s | %10s %10s | %6s\n",
              "size", "iters", "mpi us", "mpi GB/s", "ep us", "ep GB/s", "ep/mpi");
    }

  for (gsize bytes = min_bytes; bytes <= max_bytes; bytes *= 2)
    {
      gsize count = bytes / sizeof (float);
      guint iters = iterations_for (bytes);
      gint64 shape[1] = { (gint64) count };
      g_autoptr (EpTensor) x = ep_tensor_new_from_data (send, count * sizeof (float), EP_DTYPE_FLOAT32,
                                                        shape, 1, &error);
      double t_mpi, t_ep, factor = 2.0 * (size - 1) / size;
      char label[32];

      if (x == NULL)
        g_error ("tensor: %s", error->message);

      t_mpi = time_mpi (send, recv, count, iters);
      t_ep = time_ep (comm, x, iters);

      if (rank == 0)
        {
          format_bytes (label, sizeof label, bytes);
          printf ("  %8s %6u | %10.1f %10.3f | %10.1f %10.3f | %6.2f\n", label, iters,
                  t_mpi * 1e6, factor * bytes / t_mpi / 1e9,
                  t_ep * 1e6, factor * bytes / t_ep / 1e9,
                  t_ep / t_mpi);
          fflush (stdout);
        }
    }

  g_free (send);
  g_free (recv);
  g_clear_object (&comm);
  MPI_Finalize ();
  return 0;
}
