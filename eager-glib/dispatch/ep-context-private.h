/* ep-context-private.h: what each thread carries from op to op
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-device.h"

G_BEGIN_DECLS

typedef struct _EpRecorder    EpRecorder;
typedef struct _EpGradContext EpGradContext;
typedef struct _EpStorage     EpStorage;
typedef struct _EpTidyScope   EpTidyScope;

/*
 * EpContext:
 *
 * The state of one thread (dispatch/context.c): made on the thread's
 * first use, freed when it exits. Each member belongs to the file that
 * reads it; a new kind of per-thread state (a tidy scope, a tracer's
 * state) is one more member, its accessors, and a line in
 * context_free().
 */
typedef struct
{
  /* dispatch/recorder.c: the innermost active recorder (tapes, tracers);
   * each links to the one below. Read on every op. */
  EpRecorder    *recorders;

  /* core/device.c: the open device scopes, innermost last, each holding
   * a reference (NULL before the first push); @device is the innermost
   * one's device, NULL outside any scope. Read on every op. */
  GPtrArray     *scopes;
  EpDevice      *device;

  /* core/memory.c: the innermost open tidy scope, NULL outside any.
   * Read whenever a tensor is made. */
  EpTidyScope   *tidy;

  /* autodiff/grad.c: the rule the tape is running, if any */
  EpGradContext *grad;

  /* autodiff/functional.c: the backward function of the custom_gradient
   * op being dispatched, for forward rules, which run before its output
   * carries it */
  gpointer       custom_backward;

  /* core/storage.c: spare storage structs, linked through their data */
  EpStorage     *spares;
  guint          n_spares;

  /* core/tensor.c: tensors made on this thread, ever; the staging tests
   * read it to show that a replay makes none for its intermediates */
  guint64        tensors_made;

  /* core/device.c: storage allocated from a device on this thread, ever
   * (ep_device_alloc); the replay tests read it to show that a replay
   * in steady state allocates its results only */
  guint64        storage_allocs;

  /* graph/host-call.c: where the host callbacks of the replay this
   * thread runs must run (a worker of ep_function_call_async(): the
   * caller's main context); NULL: here. Not a reference. */
  GMainContext  *host_context;
} EpContext;

/* The fast way to this thread's context: NULL until its first use. Only
 * the accessors below read it. */
G_GNUC_INTERNAL extern _Thread_local EpContext *ep_context_this_thread;

EpContext *ep_context_new_for_thread (void);
void       ep_context_push_device    (EpContext *self,
                                      EpDevice  *device);
void       ep_context_pop_device     (EpContext *self);

/* This thread's context, made on first use. */
static inline EpContext *
ep_context_get (void)
{
  EpContext *self = ep_context_this_thread;

  return G_LIKELY (self != NULL) ? self : ep_context_new_for_thread ();
}

/* This thread's context, or NULL if it has none yet: for readers, to
 * whom a missing context means "nothing set". */
static inline EpContext *
ep_context_peek (void)
{
  return ep_context_this_thread;
}

/* The device of the innermost device scope of this thread, or NULL. */
static inline EpDevice *
ep_context_get_device (void)
{
  EpContext *self = ep_context_this_thread;

  return self != NULL ? self->device : NULL;
}

G_END_DECLS
