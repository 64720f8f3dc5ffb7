/* ep-recorder-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-context-private.h"
#include "ep-op-private.h"

G_BEGIN_DECLS

/*
 * EpRecorder:
 *
 * Something that watches ops as they run: a gradient tape or a tracer.
 * Active recorders form a per-thread stack (in the thread's EpContext);
 * ep_dispatch() hands each finished call to every active recorder,
 * innermost first. A recorder that is not interested in a call (none of
 * its inputs is watched) returns at once.
 */
typedef gboolean (*EpRecordFunc) (EpRecorder      *recorder,
                                  const EpOpCall  *call,
                                  GError         **error);

/* What happened to a variable (autodiff/variable.c) */
typedef enum {
  /* a reader got @value, a fresh tensor: gradient tapes watch it
   * (trainable variables), a tracer captures the variable */
  EP_VARIABLE_READ,
  /* the variable read @value to update itself (assign_add): no read of
   * the user's, so tapes ignore it; a tracer must see it */
  EP_VARIABLE_PEEK,
  /* @value is the variable's new value */
  EP_VARIABLE_ASSIGN,
} EpVariableAccess;

typedef void     (*EpVariableFunc) (EpRecorder       *recorder,
                                    GObject          *variable,
                                    EpTensor         *value,
                                    EpVariableAccess  access);

struct _EpRecorder
{
  EpRecordFunc    record;
  EpVariableFunc  variable;   /* NULL: not interested */
  EpRecorder     *below;
  gboolean        active;
};

void        ep_recorder_push        (EpRecorder      *recorder);
void        ep_recorder_pop         (EpRecorder      *recorder);
gboolean    ep_recorder_is_active   (EpRecorder      *recorder);
gboolean    ep_recorders_notify     (const EpOpCall  *call,
                                     GError         **error);
void        ep_recorders_notify_variable (GObject          *variable,
                                         EpTensor         *value,
                                         EpVariableAccess  access);

/* The innermost active recorder of this thread, or NULL. */
static inline EpRecorder *
ep_recorders_innermost (void)
{
  EpContext *context = ep_context_peek ();

  return context != NULL ? context->recorders : NULL;
}

/* Whether any recorder is active on this thread: asked on every op. */
static inline gboolean
ep_recorders_any (void)
{
  return ep_recorders_innermost () != NULL;
}

G_END_DECLS
