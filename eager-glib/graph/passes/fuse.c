/* graph/passes/fuse.c: elementwise fusion
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Groups of elementwise ops on one device (unary math, binary arithmetic,
 * comparisons, astype) whose intermediate values nothing outside the
 * group uses become one EP_NODE_FUSED node, which cpu/fused.c runs tile
 * by tile through the ops' own inner loops (opencl/fused.c as one
 * kernel made from the ops' own cases): the intermediates stay in the
 * cache, and the results are the unfused ones bit for bit.
 *
 * A group has one output, its last node (the root): going backwards, a
 * fusible node joins the group of its users when they are all in one
 * group and nothing else (an output of the graph, another node) reads
 * it. Every path out of a group then leaves through its root, so the
 * fused node, put where the root was, sees its inputs computed. Random
 * draws, variable reads and host calls are never fusible: their values
 * are inputs of a group, never part of one. A group's nodes are on one
 * device: on OpenCL, whose backend makes one kernel of the group
 * (opencl/fused.c), groups are elementwise only, without a sum.
 */

#include "config.h"

#include <string.h>

#include "ep-device-private.h"
#include "ep-fuse-private.h"
#include "ep-passes-private.h"
#include "ep-tensor-private.h"

#define NO_GROUP G_MAXUINT
#define UNSEEN (G_MAXUINT - 1)
#define MIXED (G_MAXUINT - 2)

/* Whether @node can be a step of a fused group, and which */
static gboolean
fusible (EpGraph           *graph,
         const EpGraphNode *node,
         EpFusedStep       *step)
{
  EpDType in_dtype;

  if (node->kind != EP_NODE_OP || node->backward != NULL || node->n_outputs != 1
      || (node->device != ep_device_get_cpu () && node->device->backend->fused_fits == NULL)
      || (node->op->flags & (EP_OP_FLAG_VIEW | EP_OP_FLAG_TRANSFER | EP_OP_FLAG_READS_DATA
                             | EP_OP_FLAG_CHECKS_DATA | EP_OP_FLAG_RANDOM
                             | EP_OP_FLAG_DATA_SHAPED | EP_OP_FLAG_COLLECTIVE))
      || node->n_inputs < 1 || node->n_inputs > 2 || node->n_inputs != node->op->n_inputs)
    return FALSE;

  /* the inputs as the rule left them: no conversion asked for */
  in_dtype = ep_graph_value_layout (graph, &node->inputs[0])->dtype;
  for (guint i = 1; i < node->n_inputs; i++)
    if (ep_graph_value_layout (graph, &node->inputs[i])->dtype != in_dtype)
      return FALSE;

  if (!ep_fused_step_init (step, node->op, in_dtype, node->outputs[0].dtype))
    return FALSE;
  step->attrs = node->attrs;
  step->device = node->device;
  return TRUE;
}

/* Whether @node is a float sum or mean over every axis, or over the last
 * one, of one value, which a group can end in: the fused loop sums its
 * elements as it makes them, in the order of the sum's kernel
 * (ep_cpu_sum_produced(), ep_cpu_sum_rows_produced()) */
static gboolean
reduction (EpGraph           *graph,
           const EpGraphNode *node,
           EpFusedStep       *step,
           gboolean          *last_axis)
{
  const EpLayout *input;
  EpDType dtype;

  if (node->kind != EP_NODE_OP || (node->op != &ep_op_sum && node->op != &ep_op_mean)
      || node->backward != NULL || node->device != ep_device_get_cpu () || node->n_inputs != 1)
    return FALSE;

  input = ep_graph_value_layout (graph, &node->inputs[0]);
  *last_axis = !node->attrs.all_axes;
  if (*last_axis
      && (input->ndim == 0 || node->attrs.n_axes != 1
          || (node->attrs.axes[0] != -1 && node->attrs.axes[0] != (gint) input->ndim - 1)))
    return FALSE;

  dtype = input->dtype;
  if ((dtype != EP_DTYPE_FLOAT32 && dtype != EP_DTYPE_FLOAT64) || node->outputs[0].dtype != dtype)
    return FALSE;

  step->op = node->op;
  step->attrs = node->attrs;
  step->device = node->device;
  step->n_inputs = 1;
  step->in_dtype = dtype;
  step->dtype = dtype;
  return TRUE;
}

/* Whether @node is a correctly rounded arithmetic op (any loop gives its
 * bits), which may end a group as its epilogue */
static gboolean
arithmetic (const EpGraphNode *node)
{
  return node->op == &ep_op_add || node->op == &ep_op_sub || node->op == &ep_op_mul
         || node->op == &ep_op_div;
}

/* Whether @node reads exactly @a and @b, one each, in either order */
static gboolean
reads_pair (const EpGraphNode *node,
            guint              a,
            guint              b)
{
  const EpValueRef *in = node->inputs;

  return node->n_inputs == 2 && in[0].kind == EP_VALUE_NODE && in[1].kind == EP_VALUE_NODE
         && in[0].output == 0 && in[1].output == 0
         && ((in[0].index == a && in[1].index == b) || (in[0].index == b && in[1].index == a));
}

/* A copy of @self with each group of two or more fusible nodes made one
 * EP_NODE_FUSED node where its root was. */
EpGraph *
ep_graph_fuse (EpGraph *self)
{
  guint n_nodes = ep_graph_get_n_nodes (self);
  g_autofree EpFusedStep *steps = g_new0 (EpFusedStep, MAX (n_nodes, 1));
  g_autofree gboolean *can = g_new0 (gboolean, MAX (n_nodes, 1));
  g_autofree gboolean *sums = g_new0 (gboolean, MAX (n_nodes, 1));
  g_autofree gboolean *last_axis = g_new0 (gboolean, MAX (n_nodes, 1));
  g_autofree gboolean *pinned = g_new0 (gboolean, MAX (n_nodes, 1));
  g_autofree guint *n_users = g_new0 (guint, MAX (n_nodes, 1));
  g_autofree guint *group = g_new (guint, MAX (n_nodes, 1));
  g_autofree guint *user_group = g_new (guint, MAX (n_nodes, 1));
  g_autofree guint *first_user = g_new (guint, MAX (n_nodes, 1));
  g_autofree gboolean *kept = g_new0 (gboolean, MAX (n_nodes, 1));
  g_autofree guint *group_size = g_new0 (guint, MAX (n_nodes, 1));
  g_autofree guint *node_index = g_new0 (guint, MAX (n_nodes, 1));
  g_autofree guint *epilogue = g_new (guint, MAX (n_nodes, 1));
  g_autofree gboolean *absorbed = g_new0 (gboolean, MAX (n_nodes, 1));
  gboolean any = FALSE;
  EpGraph *fused;

  for (guint n = 0; n < n_nodes; n++)
    {
      user_group[n] = UNSEEN;
      first_user[n] = G_MAXUINT;
    }
  for (guint o = 0; o < self->n_outputs; o++)
    if (self->outputs[o].kind == EP_VALUE_NODE)
      pinned[self->outputs[o].index] = TRUE;
  for (guint n = 0; n < n_nodes; n++)
    {
      EpGraphNode *node = ep_graph_get_node (self, n);

      sums[n] = reduction (self, node, &steps[n], &last_axis[n]);
      can[n] = sums[n] || fusible (self, node, &steps[n]);
      for (guint i = 0; i < node->n_inputs; i++)
        if (node->inputs[i].kind == EP_VALUE_NODE)
          {
            first_user[node->inputs[i].index] = MIN (first_user[node->inputs[i].index], n);
            n_users[node->inputs[i].index]++;
            if (!can[n])
              pinned[node->inputs[i].index] = TRUE;
          }
    }

  /* backwards: a node joins its users' group when they are all in one
   * (user_group: the group of the users seen so far, MIXED for several,
   * a user outside any group included) */
  for (guint n = n_nodes; n-- > 0;)
    {
      EpGraphNode *node = ep_graph_get_node (self, n);

      group[n] = NO_GROUP;
      if (can[n] && (n_users[n] > 0 || pinned[n]))
        {
          gboolean joins = !pinned[n] && !sums[n] && user_group[n] < n_nodes
                           && ep_graph_get_node (self, user_group[n])->device == node->device;
          guint r = first_user[n];

          /* the value a sum reads, read by others after it too: the
           * group's second output */
          if (!joins && !sums[n] && r < n_nodes && sums[r] && group[r] == r
              && ep_graph_get_node (self, r)->device == node->device)
            {
              joins = TRUE;
              kept[n] = kept[r] = TRUE;
              user_group[n] = r;
            }
          group[n] = joins ? user_group[n] : n;
          group_size[group[n]]++;
          any |= group_size[group[n]] > 1;
        }

      for (guint i = 0; i < node->n_inputs; i++)
        {
          guint from = node->inputs[i].index;

          if (node->inputs[i].kind != EP_VALUE_NODE)
            continue;
          if (user_group[from] == UNSEEN)
            user_group[from] = group[n];
          else if (user_group[from] != group[n])
            user_group[from] = MIXED;
        }
    }

  if (!any)
    return ep_graph_ref (self);

  /* a row sum whose values and sum only one arithmetic op reads, alone
   * in its group (softmax's division): the group's epilogue */
  for (guint n = 0; n < n_nodes; n++)
    {
      EpGraphNode *root = ep_graph_get_node (self, n);
      guint values = root->inputs[0].index;
      guint d = first_user[n];
      EpGraphNode *user;

      epilogue[n] = NO_GROUP;
      if (group[n] != n || !sums[n] || !kept[n] || !last_axis[n] || !root->attrs.keepdims
          || pinned[n] || pinned[values] || n_users[n] != 1 || n_users[values] != 2 || d >= n_nodes)
        continue;
      user = ep_graph_get_node (self, d);
      if (can[d] && !sums[d] && arithmetic (user) && user->device == root->device
          && (group[d] == NO_GROUP || (group[d] == d && group_size[d] == 1))
          && reads_pair (user, values, n))
        epilogue[n] = d;
    }

  fused = ep_graph_new ();
  fused->n_inputs = self->n_inputs;
  fused->inputs = g_memdup2 (self->inputs, MAX (self->n_inputs, 1) * sizeof (EpLayout));
  fused->input_devices = g_memdup2 (self->input_devices, MAX (self->n_inputs, 1) * sizeof (EpDevice *));
  fused->fixed_shapes = self->fixed_shapes;
  for (guint v = 0; v < self->variables->len; v++)
    ep_graph_add_variable (fused, g_ptr_array_index (self->variables, v));
  for (guint c = 0; c < self->constants->len; c++)
    ep_graph_add_constant (fused, g_ptr_array_index (self->constants, c));

#define MOVED(ref)                                                          \
  ((ref).kind == EP_VALUE_NODE                                              \
   ? (EpValueRef) { EP_VALUE_NODE, node_index[(ref).index],                 \
                    kept[(ref).index] && !sums[(ref).index] ? 1 : (ref).output } \
   : (ref))

  for (guint n = 0; n < n_nodes; n++)
    {
      EpGraphNode *node = ep_graph_get_node (self, n);
      EpGraphNode *copy;

      if (absorbed[n])
        continue;   /* made with its group, as its epilogue */
      if (group[n] != NO_GROUP && group_size[group[n]] > 1)
        {
          g_autoptr(GArray) externals = NULL;
          g_autofree guint *step_of = NULL;
          EpFusedProgram *program;
          guint n_steps = 0, k = 0;

          if (group[n] != n)
            continue;   /* made with its root */

          /* the root: its group's members, in order, and their inputs
           * from outside */
          externals = g_array_new (FALSE, FALSE, sizeof (EpValueRef));
          step_of = g_new (guint, n + 1);
          for (guint m = 0; m <= n; m++)
            if (group[m] == n)
              step_of[m] = n_steps++;
          for (guint m = 0; m <= n; m++)
            {
              EpGraphNode *member = ep_graph_get_node (self, m);

              if (group[m] != n)
                continue;
              for (guint i = 0; i < member->n_inputs; i++)
                {
                  const EpValueRef *ref = &member->inputs[i];
                  gboolean known = FALSE;

                  if (ref->kind == EP_VALUE_NODE && group[ref->index] == n)
                    continue;
                  for (guint e = 0; e < externals->len && !known; e++)
                    {
                      const EpValueRef *seen = &g_array_index (externals, EpValueRef, e);

                      known = seen->kind == ref->kind && seen->index == ref->index
                              && seen->output == ref->output;
                    }
                  if (!known)
                    g_array_append_val (externals, *ref);
                }
            }

          program = ep_fused_program_new (externals->len, n_steps + (epilogue[n] != NO_GROUP));
          program->reduce = sums[n];
          program->mean = node->op == &ep_op_mean;
          program->last_axis = last_axis[n];
          program->keepdims = node->attrs.keepdims;
          program->keep = kept[n] && epilogue[n] == NO_GROUP;
          program->epilogue = epilogue[n] != NO_GROUP;
          for (guint e = 0; e < externals->len; e++)
            program->external_dtypes[e] = ep_graph_value_layout (self, &g_array_index (externals, EpValueRef, e))->dtype;
          for (guint m = 0; m <= n; m++)
            {
              EpGraphNode *member = ep_graph_get_node (self, m);
              EpFusedStep *step = &program->steps[k];

              if (group[m] != n)
                continue;
              *step = steps[m];
              for (guint i = 0; i < member->n_inputs; i++)
                {
                  const EpValueRef *ref = &member->inputs[i];

                  if (ref->kind == EP_VALUE_NODE && group[ref->index] == n)
                    {
                      step->inputs[i] = externals->len + step_of[ref->index];
                      continue;
                    }
                  for (guint e = 0; e < externals->len; e++)
                    {
                      const EpValueRef *seen = &g_array_index (externals, EpValueRef, e);

                      if (seen->kind == ref->kind && seen->index == ref->index && seen->output == ref->output)
                        step->inputs[i] = e;
                    }
                }
              k++;
            }
          if (program->epilogue)
            {
              const EpGraphNode *user = ep_graph_get_node (self, epilogue[n]);
              EpFusedStep *step = &program->steps[n_steps];

              *step = steps[epilogue[n]];
              for (guint i = 0; i < 2; i++)
                step->inputs[i] = externals->len + step_of[user->inputs[i].index];
            }

          /* on the traced layouts, or the members one by one (a view's
           * input, other broadcasts): then the executor's own buffer
           * reuse serves them better than the fallback */
          {
            g_autofree EpLayout *layouts = g_new (EpLayout, MAX (externals->len, 1));

            for (guint e = 0; e < externals->len; e++)
              {
                const EpValueRef *ref = &g_array_index (externals, EpValueRef, e);
                const EpGraphNode *from = ref->kind == EP_VALUE_NODE ? ep_graph_get_node (self, ref->index) : NULL;

                layouts[e] = *ep_graph_value_layout (self, ref);
                /* a kernel's output is contiguous, and the graph's
                 * inputs are checked at each replay: only views keep
                 * their strides */
                if (ref->kind == EP_VALUE_INPUT
                    || (from != NULL && !(from->kind == EP_NODE_OP && (from->op->flags & EP_OP_FLAG_VIEW))))
                  ep_layout_set_contiguous (&layouts[e]);
              }
            if (!ep_fused_program_fits (program, layouts))
              {
                ep_fused_program_unref (program);
                for (guint m = 0; m <= n; m++)
                  if (group[m] == n)
                    kept[m] = FALSE;
                for (guint m = 0; m <= n; m++)
                  {
                    EpGraphNode *member = ep_graph_get_node (self, m);

                    if (group[m] != n)
                      continue;
                    node_index[m] = ep_graph_get_n_nodes (fused);
                    copy = ep_graph_append_copy (fused, member);
                    for (guint i = 0; i < member->n_inputs; i++)
                      copy->inputs[i] = MOVED (member->inputs[i]);
                  }
                continue;
              }
          }

          node_index[n] = ep_graph_get_n_nodes (fused);
          copy = ep_graph_add_node (fused, EP_NODE_FUSED, externals->len);
          copy->device = node->device;
          if (program->epilogue)
            {
              /* the op's users read the group's one output */
              absorbed[epilogue[n]] = TRUE;
              node_index[epilogue[n]] = node_index[n];
              kept[n] = kept[node->inputs[0].index] = FALSE;
              copy->outputs[0] = ep_graph_get_node (self, epilogue[n])->outputs[0];
            }
          else
            copy->outputs[0] = node->outputs[0];
          copy->n_outputs = kept[n] ? 2 : 1;
          if (kept[n])
            {
              const EpValueRef *summed = &node->inputs[0];

              copy->outputs[1] = *ep_graph_value_layout (self, summed);
              node_index[summed->index] = node_index[n];
            }
          copy->fused = program;
          for (guint e = 0; e < externals->len; e++)
            copy->inputs[e] = MOVED (g_array_index (externals, EpValueRef, e));
          continue;
        }

      node_index[n] = ep_graph_get_n_nodes (fused);
      copy = ep_graph_append_copy (fused, node);
      for (guint i = 0; i < node->n_inputs; i++)
        copy->inputs[i] = MOVED (node->inputs[i]);
    }

  fused->n_outputs = self->n_outputs;
  fused->outputs = g_new (EpValueRef, MAX (self->n_outputs, 1));
  for (guint o = 0; o < self->n_outputs; o++)
    fused->outputs[o] = MOVED (self->outputs[o]);
#undef MOVED

  return fused;
}
