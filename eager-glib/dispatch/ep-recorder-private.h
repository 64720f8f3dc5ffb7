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

/*
 * EpComposite:
 *
 * The gradient rule of a step made of many ops that ran as one, without
 * a recorder seeing them: a staged function's replay
 * (graph/staged-gradient.c). A recorder that can take such a step (a
 * gradient tape) records it as one node with this rule; one that must see
 * every op (a tracer) cannot, and the caller then dispatches the ops one
 * by one instead (ep_recorders_take_composites()). Reference counted:
 * each tape that recorded the step holds it.
 *
 * @gradient is the rule: it gets one gradient per output of the step,
 * %NULL where the output got none, and whether the tape wants the
 * gradient of each input (@needed); it sets @input_grads[i], shaped like
 * input i, for those it can (%NULL: no gradient). Like an op's rule
 * (EpGradFunc) it is made of public ops, so outer tapes record it.
 */
typedef struct _EpComposite EpComposite;

typedef gboolean (*EpCompositeGradFunc) (EpComposite      *composite,
                                         EpTensor *const  *output_grads,
                                         const gboolean   *needed,
                                         EpTensor        **input_grads,
                                         GError          **error);

struct _EpComposite
{
  gatomicrefcount      ref_count;
  const char          *name;       /* static: for messages */
  EpCompositeGradFunc  gradient;
  gpointer             data;
  GDestroyNotify       destroy;
};

EpComposite *ep_composite_new   (const char           *name,
                                 EpCompositeGradFunc   gradient,
                                 gpointer              data,
                                 GDestroyNotify        destroy);
EpComposite *ep_composite_ref   (EpComposite          *self);
void         ep_composite_unref (EpComposite          *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EpComposite, ep_composite_unref)

/* A step of @composite ran, from @inputs to @outputs. */
typedef gboolean (*EpCompositeFunc) (EpRecorder       *recorder,
                                     EpComposite      *composite,
                                     EpTensor *const  *inputs,
                                     guint             n_inputs,
                                     EpTensor *const  *outputs,
                                     guint             n_outputs,
                                     GError          **error);

/* A host callback (graph/host-call.c) ran from @inputs to @outputs: a
 * tracer stages it as one opaque node. */
typedef struct _EpHostCall EpHostCall;

typedef gboolean (*EpHostCallFunc) (EpRecorder       *recorder,
                                    EpHostCall       *call,
                                    EpTensor *const  *inputs,
                                    guint             n_inputs,
                                    EpTensor *const  *outputs,
                                    guint             n_outputs,
                                    GError          **error);

/* How many steps @recorder keeps now, and forgetting those it took
 * after: an op that fails must leave no record of itself or of the
 * conversions dispatch made for it (see ep_recorders_mark()). */
typedef guint    (*EpMarkFunc)     (EpRecorder      *recorder);
typedef void     (*EpRollbackFunc) (EpRecorder      *recorder,
                                    guint            mark);

struct _EpRecorder
{
  EpRecordFunc     record;
  EpVariableFunc   variable;    /* NULL: not interested */
  EpCompositeFunc  composite;   /* NULL: must see the ops one by one */
  EpHostCallFunc   host;        /* NULL: sees a host call as a composite
                                 * step, if it has a gradient */
  EpMarkFunc       mark;        /* NULL: keeps what a failed op left (a
                                 * tracer: the trace fails with it, or the
                                 * optimizer prunes what nothing reads) */
  EpRollbackFunc   rollback;
  /* A forward accumulator's rule (autodiff/forward-accumulator.c): run
   * after every recorder's @record, outermost first, with the stack cut
   * below it, so that the ops it dispatches are seen by the recorders
   * outside it only, after the op they differentiate. NULL for others. */
  EpRecordFunc     forward;
  EpRecorder      *below;
  gboolean         active;
};

/* Where each active recorder of the thread stood when an op began, to
 * undo what it recorded if the op fails. */
#define EP_RECORDER_INLINE_MARKS 8

typedef struct
{
  guint   n;
  guint   inline_marks[EP_RECORDER_INLINE_MARKS];
  guint  *marks;
} EpRecorderMarks;

/* The errors of starting and stopping a recorder that users start and
 * stop (a gradient tape, a forward accumulator), in its own words:
 * messages marked with N_(), translated when raised. */
typedef struct
{
  const char *already_active;
  const char *not_active;
  const char *other_thread;
  const char *paused;
} EpRecorderErrors;

void        ep_recorder_push        (EpRecorder      *recorder);
gboolean    ep_recorder_start       (EpRecorder             *recorder,
                                     GObject                *owner,
                                     GThread               **thread,
                                     const EpRecorderErrors *errors,
                                     GError                **error);
gboolean    ep_recorder_stop        (EpRecorder             *recorder,
                                     GObject                *owner,
                                     GThread               **thread,
                                     const EpRecorderErrors *errors,
                                     GError                **error);
void        ep_recorder_pop         (EpRecorder      *recorder);
gboolean    ep_recorder_is_active   (EpRecorder      *recorder);
gboolean    ep_recorder_is_on_stack (EpRecorder      *recorder);
gboolean    ep_recorders_notify     (const EpOpCall  *call,
                                     GError         **error);
void        ep_recorders_notify_variable (GObject          *variable,
                                         EpTensor         *value,
                                         EpVariableAccess  access);
void        ep_recorders_mark       (EpRecorderMarks *marks);
void        ep_recorders_rollback   (EpRecorderMarks *marks);
void        ep_recorders_clear_marks (EpRecorderMarks *marks);
gboolean    ep_recorders_take_composites  (void);
gboolean    ep_recorders_notify_composite (EpComposite      *composite,
                                           EpTensor *const  *inputs,
                                           guint             n_inputs,
                                           EpTensor *const  *outputs,
                                           guint             n_outputs,
                                           GError          **error);

/* The innermost active recorder of this thread, or NULL. */
static inline EpRecorder *
ep_recorders_innermost (void)
{
  EpContext *context = ep_context_peek ();

  return context != NULL ? context->recorders : NULL;
}

/* Sets this thread's recorders aside, for work that is not the caller's
 * ops (a printer's slices, a constant folded at trace time): no tape or
 * tracer sees it. Returns them, for ep_recorders_put_back(). */
static inline EpRecorder *
ep_recorders_set_aside (void)
{
  EpContext *context = ep_context_get ();
  EpRecorder *recorders = context->recorders;

  context->recorders = NULL;
  return recorders;
}

static inline void
ep_recorders_put_back (EpRecorder *recorders)
{
  ep_context_get ()->recorders = recorders;
}

/* Whether any recorder is active on this thread: asked on every op. */
static inline gboolean
ep_recorders_any (void)
{
  return ep_recorders_innermost () != NULL;
}

G_END_DECLS
