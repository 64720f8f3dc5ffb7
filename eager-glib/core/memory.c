/* core/memory.c: tidy scopes, keep, dispose, and the memory counters
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A tidy scope is a list of the tensors made on its thread while it is
 * the innermost one open (ep_tensor_init() appends them: a NULL check
 * outside scopes, an append inside). The list holds no reference: a
 * tensor finalized meanwhile clears its slot from its dispose, where
 * the object is still whole. Slots live in blocks that never move, so a
 * tensor can point at its slot.
 *
 * The owner thread appends and closes; any thread may clear a slot (a
 * tensor finalized or kept elsewhere). One lock orders the clearing
 * against the closing: a tensor whose slot the close finds is still
 * alive, since its dispose waits on the lock before it can go on. The
 * lock is recursive: freeing a buffer may run code on this thread that
 * drops other tensors of the scope (a borrowed buffer's destroy notify),
 * whose dispose then clears their slots before the walk reaches them.
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "ep-error.h"
#include "ep-memory.h"
#include "ep-memory-private.h"

#define BLOCK_SLOTS 254

typedef struct _TidyBlock TidyBlock;

struct _TidyBlock
{
  TidyBlock *next;
  guint      len;
  EpTensor  *slots[BLOCK_SLOTS];
};

struct _EpTidyScope
{
  EpTidyScope *parent;
  TidyBlock   *blocks;   /* newest first */
  guint        depth;    /* 1 for the outermost */
};

/* orders slot clearing (any thread) against scope closing (the owner) */
static GRecMutex tidy_lock;

void
ep_tidy_track (EpTidyScope *scope,
               EpTensor    *tensor)
{
  TidyBlock *block = scope->blocks;
  EpTensor **slot;

  if (G_UNLIKELY (block == NULL || block->len == BLOCK_SLOTS))
    {
      block = g_new (TidyBlock, 1);
      block->next = scope->blocks;
      block->len = 0;
      scope->blocks = block;
    }

  slot = &block->slots[block->len++];
  g_atomic_pointer_set (slot, tensor);
  g_atomic_pointer_set (&tensor->tidy_slot, slot);
}

void
ep_tidy_untrack_slow (EpTensor *tensor)
{
  EpTensor **slot;

  g_rec_mutex_lock (&tidy_lock);
  slot = g_atomic_pointer_get (&tensor->tidy_slot);
  if (slot != NULL)
    {
      g_atomic_pointer_set (slot, NULL);
      g_atomic_pointer_set (&tensor->tidy_slot, NULL);
    }
  g_rec_mutex_unlock (&tidy_lock);
}

static gboolean
is_result (EpTensor   *tensor,
           EpTensor  **results,
           guint       n_results,
           GHashTable *set)
{
  if (set != NULL)
    return g_hash_table_contains (set, tensor);

  for (guint i = 0; i < n_results; i++)
    if (results[i] == tensor)
      return TRUE;
  return FALSE;
}

/* Releases what @context's innermost scope holds but @results, which go
 * to the scope around it, and closes it. */
static void
close_scope (EpContext  *context,
             EpTensor  **results,
             guint       n_results)
{
  EpTidyScope *scope = context->tidy;
  EpTidyScope *parent = scope->parent;
  g_autoptr(GHashTable) set = NULL;

  /* a container of many results (a dict from Python) */
  if (n_results > 8)
    {
      set = g_hash_table_new (NULL, NULL);
      for (guint i = 0; i < n_results; i++)
        g_hash_table_add (set, results[i]);
    }

  g_rec_mutex_lock (&tidy_lock);
  for (TidyBlock *block = scope->blocks; block != NULL; block = block->next)
    for (guint i = 0; i < block->len; i++)
      {
        EpTensor *tensor = g_atomic_pointer_get (&block->slots[i]);

        if (tensor == NULL)
          continue;
        g_atomic_pointer_set (&tensor->tidy_slot, NULL);
        if (is_result (tensor, results, n_results, set))
          {
            if (parent != NULL)
              ep_tidy_track (parent, tensor);
          }
        else
          ep_tensor_release (tensor);
      }
  g_rec_mutex_unlock (&tidy_lock);

  context->tidy = parent;
  while (scope->blocks != NULL)
    {
      TidyBlock *next = scope->blocks->next;

      g_free (scope->blocks);
      scope->blocks = next;
    }
  g_free (scope);
}

/* When a thread exits with scopes open: they close as if ended. */
void
ep_tidy_close_all (EpContext *context)
{
  while (context->tidy != NULL)
    close_scope (context, NULL, 0);
}

/**
 * ep_tidy_begin:
 *
 * Opens a tidy scope on this thread: every tensor made on this thread
 * from now on, until [func@tidy_end] closes it, is released when it
 * closes, but the results it is given and the tensors kept with
 * [func@keep]. Scopes nest.
 *
 * [func@tidy] is the usual way in; this pair is for bindings that
 * collect the results themselves (the Python and JavaScript wrappers of
 * `tidy`, which accept a list or an object of tensors). Close each scope
 * on the thread that opened it, also when the code inside fails.
 *
 * Returns: the scope's depth (1 for the outermost), which
 *   [func@tidy_end] takes to check that it closes this scope
 */
guint
ep_tidy_begin (void)
{
  EpContext *context = ep_context_get ();
  EpTidyScope *scope = g_new0 (EpTidyScope, 1);

  scope->parent = context->tidy;
  scope->depth = scope->parent != NULL ? scope->parent->depth + 1 : 1;
  context->tidy = scope;

  return scope->depth;
}

/**
 * ep_tidy_end:
 * @scope: what [func@tidy_begin] returned for the scope to close
 * @results: (array length=n_results) (nullable): the tensors to hand
 *   out of the scope; %NULL entries are skipped
 * @n_results: the length of @results
 * @error: return location for an error
 *
 * Closes the innermost tidy scope of this thread: every tensor made in
 * it is released ([method@Tensor.release]), but @results and the tensors
 * kept with [func@keep]. Those of @results made in this scope go to the
 * scope around it, if any (as a `tf.tidy` inside another hands its
 * result to the outer one).
 *
 * Released means what [method@Tensor.release] does: the tensor's data
 * goes at once unless something else still uses it (a view, a
 * variable's value, a tape), and the object stays, with its dtype and
 * shape, until its last reference goes; every other use of it is an
 * error.
 *
 * Returns: %TRUE, or %FALSE with %EP_ERROR_INVALID_ARGUMENT set, closing
 *   nothing, if @scope is not the innermost scope open on this thread
 */
gboolean
ep_tidy_end (guint       scope,
             EpTensor  **results,
             guint       n_results,
             GError    **error)
{
  guint depth = ep_tidy_get_depth ();

  g_return_val_if_fail (results != NULL || n_results == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (depth == 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("tidy_end: no tidy scope is open on this thread"));
      return FALSE;
    }
  if (scope != depth)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("tidy_end: scope %u is not the innermost one open on this thread (%u)"),
                   scope, depth);
      return FALSE;
    }

  close_scope (ep_context_get (), results, n_results);
  return TRUE;
}

/**
 * ep_tidy_get_depth:
 *
 * Tells how many tidy scopes are open on this thread.
 *
 * Returns: the number of open scopes, 0 outside any
 */
guint
ep_tidy_get_depth (void)
{
  EpContext *context = ep_context_peek ();

  return context != NULL && context->tidy != NULL ? context->tidy->depth : 0;
}

/**
 * ep_tidy:
 * @func: (scope call) (closure user_data): the code to run
 * @user_data: data for @func
 * @error: return location for an error
 *
 * Runs @func in a tidy scope, TensorFlow.js's `tf.tidy`: every tensor
 * made on this thread while it runs (by operations, creation functions,
 * staged calls, gradients, optimizer steps) is released when it returns,
 * but the tensor it returns and those it kept with [func@keep]. This is
 * how languages whose garbage collector does not see the memory of
 * tensors (JavaScript) keep a training loop's memory flat:
 *
 * ```js
 * for (let step = 0; step < 1000; step++)
 *     Ep.tidy(() => { trainStep(x, y); return null; });
 * ```
 *
 * Scopes nest: the result of an inner scope belongs to the one around it.
 * The values of variables are never released; a [method@Variable.read]
 * of one is a tensor like others. A tape that recorded inside the scope
 * holds released tensors once it closes: compute gradients inside the
 * scope. Only this thread's tensors are touched: each thread has its own
 * scopes.
 *
 * If @func fails, the scope still closes, releasing everything made in
 * it, and the error comes back.
 *
 * Outside any scope, making a tensor costs one more pointer test; inside
 * one, an append to a list, and the release when it closes.
 *
 * Returns: (transfer full) (nullable): what @func returned, or %NULL
 *   (with @error set if @func failed)
 */
EpTensor *
ep_tidy (EpScopeFunc   func,
         gpointer      user_data,
         GError      **error)
{
  GError *local = NULL;
  guint scope;
  EpTensor *result;

  g_return_val_if_fail (func != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  scope = ep_tidy_begin ();
  result = func (user_data, &local);

  /* scopes that @func opened and left open close with it, handing out
   * its result */
  while (ep_tidy_get_depth () > scope)
    close_scope (ep_context_get (), &result, result != NULL ? 1 : 0);
  if (ep_tidy_get_depth () < scope)
    {
      /* @func closed this scope itself: what it made is gone already */
      g_clear_object (&result);
      g_clear_error (&local);
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("tidy: the function closed the scope that tidy opened"));
      return NULL;
    }
  close_scope (ep_context_get (), &result, result != NULL ? 1 : 0);

  if (local != NULL)
    {
      g_clear_object (&result);
      g_propagate_error (error, local);
      return NULL;
    }
  return result;
}

/**
 * ep_keep:
 * @tensor: a tensor
 *
 * Keeps @tensor from being released by the tidy scope it was made in and
 * by those around it, as `tf.keep` does: for a tensor made inside
 * [func@tidy] that outlives it other than as its result (stored in an
 * object, a list, a closure). Outside a scope, or for a tensor made
 * outside every scope, it does nothing. @tensor can still be disposed of
 * with [func@dispose].
 *
 * Returns: (transfer none): @tensor, for chaining (`w = Ep.keep(x.mul(2))`)
 */
EpTensor *
ep_keep (EpTensor *tensor)
{
  g_return_val_if_fail (EP_IS_TENSOR (tensor), NULL);

  ep_tidy_untrack (tensor);
  return tensor;
}

/**
 * ep_dispose:
 * @tensor: (nullable): a tensor, or %NULL
 *
 * Releases @tensor now, as `tf.dispose` does: [method@Tensor.release],
 * which the binding layers also accept containers of tensors for. Its
 * data goes back to its device unless another tensor (a view, a
 * variable) still uses it; disposing of a released tensor or of %NULL
 * does nothing.
 */
void
ep_dispose (EpTensor *tensor)
{
  g_return_if_fail (tensor == NULL || EP_IS_TENSOR (tensor));

  if (tensor == NULL)
    return;
  ep_tidy_untrack (tensor);
  ep_tensor_release (tensor);
}

/**
 * ep_memory:
 * @n_bytes: (out) (optional): the bytes of storage alive on every device
 * @n_tensors: (out) (optional): the tensors alive that hold data
 *
 * Tells how much memory tensors take, over every device of
 * [func@list_devices], as `tf.memory` does (its `numBytes` and
 * `numTensors`); [method@Device.get_bytes_in_use] and
 * [method@Device.get_n_tensors] give it per device.
 *
 * Bytes are those of the buffers alive (views share one; a variable's
 * value and a staged function's constants and reusable buffers count);
 * freed buffers that the CPU device keeps for reuse do not. A released
 * tensor no longer counts, even while its object lives.
 */
void
ep_memory (guint64 *n_bytes,
           guint64 *n_tensors)
{
  g_autoptr(GPtrArray) devices = ep_list_devices ();
  guint64 bytes = 0, tensors = 0;

  for (guint i = 0; i < devices->len; i++)
    {
      EpDevice *device = g_ptr_array_index (devices, i);

      bytes += ep_device_get_bytes_in_use (device);
      tensors += ep_device_get_n_tensors (device);
    }

  if (n_bytes != NULL)
    *n_bytes = bytes;
  if (n_tensors != NULL)
    *n_tensors = tensors;
}

/**
 * ep_device_get_bytes_in_use:
 * @self: a device
 *
 * Tells how many bytes of storage are alive on @self: the buffers of its
 * tensors and variables, as [func@memory] counts them.
 *
 * Returns: the bytes in use
 */
guint64
ep_device_get_bytes_in_use (EpDevice *self)
{
  g_return_val_if_fail (EP_IS_DEVICE (self), 0);

  return (guint64) MAX (__atomic_load_n (&self->bytes_in_use, __ATOMIC_RELAXED), 0);
}

/**
 * ep_device_get_n_tensors:
 * @self: a device
 *
 * Tells how many tensor objects hold data on @self (released ones do
 * not), as [func@memory] counts them.
 *
 * Returns: the number of tensors
 */
guint64
ep_device_get_n_tensors (EpDevice *self)
{
  g_return_val_if_fail (EP_IS_DEVICE (self), 0);

  return (guint64) MAX (__atomic_load_n (&self->n_tensors, __ATOMIC_RELAXED), 0);
}
