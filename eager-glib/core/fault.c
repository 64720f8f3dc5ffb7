/* core/fault.c: allocations that fail on purpose, for tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every allocation whose size the user chooses asks
 * ep_fault_allocation_fails() first: device storage (the CPU's buffer
 * cache, OpenCL buffers) and the host buffers of kernels and rules
 * (ep_try_malloc() and friends). A test arms a fault with
 * ep_fault_fail_allocation (n): the nth such allocation from then on
 * fails, once, on whichever thread makes it. Sweeping n over a
 * computation reaches every failure path it has (tests/c/test-fault.c).
 */

#include "config.h"

#include "ep-fault-private.h"

/* allocations left until the one that fails; 0: none armed */
static gint countdown;
static gint fired;

/*
 * ep_fault_fail_allocation:
 * @n: which allocation from now fails (1: the next one), or 0 for none
 *
 * Arms (or, with 0, disarms) the fault.
 */
void
ep_fault_fail_allocation (guint n)
{
  g_return_if_fail (n <= G_MAXINT);

  g_atomic_int_set (&fired, FALSE);
  g_atomic_int_set (&countdown, (gint) n);
}

/* Whether the armed fault has made an allocation fail. */
gboolean
ep_fault_fired (void)
{
  return g_atomic_int_get (&fired);
}

/* Whether this allocation is to fail: counts it when a fault is armed. */
gboolean
ep_fault_allocation_fails (void)
{
  gint left;

  do
    {
      left = g_atomic_int_get (&countdown);
      if (G_LIKELY (left == 0))
        return FALSE;
    }
  while (!g_atomic_int_compare_and_exchange (&countdown, left, left - 1));

  if (left > 1)
    return FALSE;
  g_atomic_int_set (&fired, TRUE);
  return TRUE;
}

gpointer
ep_try_malloc_n (gsize n_blocks,
                 gsize block_size)
{
  if (ep_fault_allocation_fails ())
    return NULL;

  return g_try_malloc_n (n_blocks, block_size);
}

gpointer
ep_try_malloc0_n (gsize n_blocks,
                  gsize block_size)
{
  if (ep_fault_allocation_fails ())
    return NULL;

  return g_try_malloc0_n (n_blocks, block_size);
}
