/* dispatch/recorder.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "ep-error.h"
#include "ep-recorder-private.h"

/* The stack is the context's `recorders`: the innermost active recorder
 * of this thread, each pointing to the one below it. */

void
ep_recorder_push (EpRecorder *recorder)
{
  EpContext *context = ep_context_get ();

  g_return_if_fail (!recorder->active);

  recorder->below = context->recorders;
  recorder->active = TRUE;
  context->recorders = recorder;
}

/* Pushes @recorder for @owner, which holds a reference to itself while
 * active, and notes the thread that must stop it. */
gboolean
ep_recorder_start (EpRecorder             *recorder,
                   GObject                *owner,
                   GThread               **thread,
                   const EpRecorderErrors *errors,
                   GError                **error)
{
  if (recorder->active)
    {
      g_set_error_literal (error, EP_ERROR, EP_ERROR_GRADIENT, _(errors->already_active));
      return FALSE;
    }

  g_object_ref (owner);
  *thread = g_thread_self ();
  ep_recorder_push (recorder);
  return TRUE;
}

/* Pops @recorder if this thread started it and it is not paused under a
 * host callback, and drops @owner's reference to itself. */
gboolean
ep_recorder_stop (EpRecorder             *recorder,
                  GObject                *owner,
                  GThread               **thread,
                  const EpRecorderErrors *errors,
                  GError                **error)
{
  const char *message = NULL;

  if (!recorder->active)
    message = errors->not_active;
  else if (*thread != g_thread_self ())
    message = errors->other_thread;
  else if (!ep_recorder_is_on_stack (recorder))
    message = errors->paused;
  if (message != NULL)
    {
      g_set_error_literal (error, EP_ERROR, EP_ERROR_GRADIENT, _(message));
      return FALSE;
    }

  ep_recorder_pop (recorder);
  *thread = NULL;
  g_object_unref (owner);
  return TRUE;
}

/* Recorders may leave out of order (a tape that stops recording while a
 * nested one goes on), so this unlinks from anywhere in the stack. */
void
ep_recorder_pop (EpRecorder *recorder)
{
  EpRecorder **link;

  g_return_if_fail (recorder->active);

  link = &ep_context_get ()->recorders;
  while (*link != NULL && *link != recorder)
    link = &(*link)->below;

  g_return_if_fail (*link == recorder);

  *link = recorder->below;
  recorder->below = NULL;
  recorder->active = FALSE;
}

gboolean
ep_recorder_is_active (EpRecorder *recorder)
{
  return recorder->active;
}

/* Whether @recorder is on this thread's stack now: an active recorder
 * is not while a host callback runs (graph/host-call.c pauses the
 * stack). */
gboolean
ep_recorder_is_on_stack (EpRecorder *recorder)
{
  for (EpRecorder *r = ep_recorders_innermost (); r != NULL; r = r->below)
    if (r == recorder)
      return TRUE;

  return FALSE;
}

gboolean
ep_recorders_notify (const EpOpCall  *call,
                     GError         **error)
{
  EpRecorder *inline_forward[8];
  EpRecorder **forward = inline_forward;
  guint n_forward = 0, n = 0;
  gboolean ok = TRUE;

  for (EpRecorder *r = ep_recorders_innermost (); r != NULL; r = r->below)
    {
      if (!r->record (r, call, error))
        return FALSE;
      n_forward += r->forward != NULL;
    }
  if (n_forward == 0)
    return TRUE;

  /* forward accumulators last, outermost first: each sees the tangents
   * of those outside it, and only those outside see its own ops */
  if (n_forward > G_N_ELEMENTS (inline_forward))
    forward = g_new (EpRecorder *, n_forward);
  for (EpRecorder *r = ep_recorders_innermost (); r != NULL; r = r->below)
    if (r->forward != NULL)
      forward[n_forward - ++n] = r;
  for (guint f = 0; f < n_forward && ok; f++)
    {
      EpContext *context = ep_context_get ();
      EpRecorder *stack = context->recorders;

      context->recorders = forward[f]->below;
      ok = forward[f]->forward (forward[f], call, error);
      context->recorders = stack;
    }
  if (forward != inline_forward)
    g_free (forward);

  return ok;
}

void
ep_recorders_notify_variable (GObject          *variable,
                              EpTensor         *value,
                              EpVariableAccess  access)
{
  for (EpRecorder *r = ep_recorders_innermost (); r != NULL; r = r->below)
    if (r->variable != NULL)
      r->variable (r, variable, value, access);
}

/* Notes where each active recorder stands, innermost first. The stack
 * stays as it is while an op runs: conversions dispatch ops, which push
 * no recorder. */
void
ep_recorders_mark (EpRecorderMarks *marks)
{
  guint n = 0;

  for (EpRecorder *r = ep_recorders_innermost (); r != NULL; r = r->below)
    n++;
  marks->n = n;
  marks->marks = n <= EP_RECORDER_INLINE_MARKS ? marks->inline_marks : g_new (guint, n);

  n = 0;
  for (EpRecorder *r = ep_recorders_innermost (); r != NULL; r = r->below, n++)
    marks->marks[n] = r->mark != NULL ? r->mark (r) : 0;
}

/* Forgets what each recorder took since ep_recorders_mark(): the
 * conversions of an op that then failed, or the op itself when a
 * recorder further out refused it. */
void
ep_recorders_rollback (EpRecorderMarks *marks)
{
  guint n = 0;

  for (EpRecorder *r = ep_recorders_innermost (); r != NULL && n < marks->n; r = r->below, n++)
    if (r->rollback != NULL)
      r->rollback (r, marks->marks[n]);
}

void
ep_recorders_clear_marks (EpRecorderMarks *marks)
{
  if (marks->marks != marks->inline_marks)
    g_free (marks->marks);
  marks->marks = NULL;
  marks->n = 0;
}

/* Whether every active recorder of this thread can take a composite step
 * as one node: if one cannot (a tracer), the step's ops must be
 * dispatched one by one. */
gboolean
ep_recorders_take_composites (void)
{
  for (EpRecorder *r = ep_recorders_innermost (); r != NULL; r = r->below)
    if (r->composite == NULL)
      return FALSE;

  return TRUE;
}

/* All or nothing, as an op: a step that a recorder further out refuses
 * is forgotten by those inside, which took it first. */
gboolean
ep_recorders_notify_composite (EpComposite      *composite,
                               EpTensor *const  *inputs,
                               guint             n_inputs,
                               EpTensor *const  *outputs,
                               guint             n_outputs,
                               GError          **error)
{
  EpRecorderMarks marks;
  gboolean ok = TRUE;

  ep_recorders_mark (&marks);
  for (EpRecorder *r = ep_recorders_innermost (); r != NULL && ok; r = r->below)
    ok = r->composite (r, composite, inputs, n_inputs, outputs, n_outputs, error);
  if (!ok)
    ep_recorders_rollback (&marks);
  ep_recorders_clear_marks (&marks);

  return ok;
}

/* Composite steps */

EpComposite *
ep_composite_new (const char          *name,
                  EpCompositeGradFunc  gradient,
                  gpointer             data,
                  GDestroyNotify       destroy)
{
  EpComposite *self = g_new0 (EpComposite, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->name = name;
  self->gradient = gradient;
  self->data = data;
  self->destroy = destroy;

  return self;
}

EpComposite *
ep_composite_ref (EpComposite *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
ep_composite_unref (EpComposite *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  if (self->destroy != NULL)
    self->destroy (self->data);
  g_free (self);
}
