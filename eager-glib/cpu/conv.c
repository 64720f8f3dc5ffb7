/* conv.c: 2-D convolutions on the CPU: float32 on oneDNN, float64 by
 * im2col and OpenBLAS; and oneDNN's bfloat16 matmul (for cpu/linalg.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * oneDNN has no float64, so that type unrolls the images into columns
 * (one image and group at a time) and multiplies them with the weight;
 * float32 does the same where oneDNN refuses the sizes (past 32 bits).
 *
 * oneDNN: one engine and one primitive per (pass, geometry), made once
 * and kept (Plan): making one costs 2 to 16 ms, running it on a small
 * input 20 us, and oneDNN's own primitive cache still leaves the
 * descriptors to build and query on every call. For NCHW data the
 * primitive computes in the layout it prefers (format "any": blocked
 * channels) and reorders take the data there and back, as PyTorch's
 * mkldnn path does; NHWC data stays as it is (oneDNN's NHWC kernels are
 * as fast). Scratchpads are ours (dnnl_scratchpad_mode_user), so that
 * one primitive runs on several threads at once.
 *
 * Threads: Debian's oneDNN runs its loops on OpenMP (libgomp), not on
 * cpu/parallel.c's workers; each call asks OpenMP for the library's
 * thread count (EP_NUM_THREADS) on the calling thread. oneDNN's weight
 * gradient sums over the batch in parts by thread, so its last bits
 * depend on that count.
 */

#include "config.h"

#include <cblas.h>
#include <dlfcn.h>
#include <glib/gi18n-lib.h>
#include <oneapi/dnnl/dnnl.h>
#include <string.h>

#include "ep-conv-private.h"
#include "ep-cpu-private.h"
#include "ep-error.h"
#include "ep-tensor-private.h"

typedef enum {
  PASS_FORWARD,
  PASS_DATA,       /* the images' gradient */
  PASS_WEIGHTS,    /* the weight's gradient */
} Pass;

/* The three operands, by role */
enum { IMAGES, WEIGHT, OUTPUT, N_ROLES };

/* The role each pass writes; it reads the other two */
static const int written[] = {
  [PASS_FORWARD] = OUTPUT,
  [PASS_DATA] = IMAGES,
  [PASS_WEIGHTS] = WEIGHT,
};

static Pass
pass_of (const EpOpCall *call)
{
  switch (call->op->id)
    {
    case EP_OP_CONV2D_INPUT_GRAD:
      return PASS_DATA;
    case EP_OP_CONV2D_WEIGHT_GRAD:
      return PASS_WEIGHTS;
    default:
      return PASS_FORWARD;
    }
}

/* The host data of each role, from the call's inputs and output */
static void
operand_data (const EpOpCall *call,
              Pass            pass,
              guint8         *data[N_ROLES])
{
  EpTensor *in0 = call->inputs[0], *in1 = call->inputs[1], *out = call->outputs[0];

  switch (pass)
    {
    case PASS_FORWARD:
      data[IMAGES] = ep_tensor_host_data (in0);
      data[WEIGHT] = ep_tensor_host_data (in1);
      data[OUTPUT] = ep_tensor_host_data (out);
      break;
    case PASS_DATA:
      data[OUTPUT] = ep_tensor_host_data (in0);
      data[WEIGHT] = ep_tensor_host_data (in1);
      data[IMAGES] = ep_tensor_host_data (out);
      break;
    case PASS_WEIGHTS:
      data[IMAGES] = ep_tensor_host_data (in0);
      data[OUTPUT] = ep_tensor_host_data (in1);
      data[WEIGHT] = ep_tensor_host_data (out);
      break;
    }
}

static gboolean
geometry_is_empty (const EpConvGeometry *g)
{
  return g->n == 0 || g->c == 0 || g->o == 0 || g->h == 0 || g->w == 0 || g->oh == 0 || g->ow == 0;
}

/* oneDNN */

typedef struct
{
  Pass           pass;
  EpConvGeometry g;
} Key;

typedef struct
{
  Key                key;
  dnnl_primitive_t   conv;
  /* the user's layout and the primitive's, by role; a reorder from the
   * one to the other (to it for what the pass reads, back for what it
   * writes) where they differ */
  dnnl_memory_desc_t user_md[N_ROLES], conv_md[N_ROLES];
  dnnl_primitive_t   reorder[N_ROLES];
  gsize              conv_size[N_ROLES];
  dnnl_memory_desc_t scratch_md;
  gsize              scratch_size;
} Plan;

/* Plans kept at most: a training loop uses a few per layer */
#define MAX_PLANS 256

static struct
{
  GMutex      lock;
  dnnl_engine_t engine;
  gboolean    initialized;
  void      (*omp_set_num_threads) (int);
} dnnl;

static guint
key_hash (gconstpointer key)
{
  const guint8 *bytes = key;
  guint h = 5381;

  for (gsize i = 0; i < sizeof (Key); i++)
    h = h * 33 + bytes[i];
  return h;
}

static gboolean
key_equal (gconstpointer a,
           gconstpointer b)
{
  return memcmp (a, b, sizeof (Key)) == 0;
}

static void
plan_free (gpointer data)
{
  Plan *plan = data;

  if (plan->conv != NULL)
    dnnl_primitive_destroy (plan->conv);
  for (int r = 0; r < N_ROLES; r++)
    if (plan->reorder[r] != NULL)
      dnnl_primitive_destroy (plan->reorder[r]);
  g_free (plan);
}

static gboolean
dnnl_failed (dnnl_status_t status,
             const char   *what,
             const EpOpCall *call,
             GError      **error)
{
  if (status == dnnl_success)
    return FALSE;

  g_set_error (error, EP_ERROR,
               status == dnnl_out_of_memory ? EP_ERROR_OUT_OF_MEMORY : EP_ERROR_DEVICE,
               _("%s: oneDNN failed in %s (status %d)"), call->op->name, what, (int) status);
  return TRUE;
}

/* Called with the lock held */
static gboolean
dnnl_init_locked (const EpOpCall  *call,
                  GError         **error)
{
  if (dnnl.initialized)
    return TRUE;

  if (dnnl_failed (dnnl_engine_create (&dnnl.engine, dnnl_cpu, 0), "dnnl_engine_create", call, error))
    return FALSE;
  /* libgomp is loaded with oneDNN; looked up rather than linked, so that
   * a build with another OpenMP (or none) still links */
  dnnl.omp_set_num_threads = (void (*) (int)) dlsym (RTLD_DEFAULT, "omp_set_num_threads");
  dnnl.initialized = TRUE;
  return TRUE;
}

/* Plans kept per key, for the process's life while their table has
 * room; past it a plan belongs to its call (plans_release). Each plan is
 * a struct that begins with its key ; its primitives
 * are made once, on first use, with a scratchpad that the call gives. */
typedef struct
{
  GHashTable     *table;        /* key -> plan, under dnnl.lock */
  GHashFunc       hash;
  GEqualFunc      equal;
  gsize           key_size;
  gsize           plan_size;
  /* fills in the plan after its key */
  dnnl_status_t (*make) (gpointer plan, const dnnl_primitive_attr_t attr);
  GDestroyNotify  free;
} PlanTable;

static gpointer
plans_lookup (PlanTable       *plans,
              const EpOpCall  *call,
              gconstpointer    key,
              GError         **error)
{
  gpointer plan;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_status_t status;

  g_mutex_lock (&dnnl.lock);
  if (!dnnl_init_locked (call, error))
    {
      g_mutex_unlock (&dnnl.lock);
      return NULL;
    }
  if (plans->table == NULL)
    plans->table = g_hash_table_new_full (plans->hash, plans->equal, NULL, plans->free);

  plan = g_hash_table_lookup (plans->table, key);
  if (plan != NULL)
    {
      g_mutex_unlock (&dnnl.lock);
      return plan;
    }

  plan = g_malloc0 (plans->plan_size);
  memcpy (plan, key, plans->key_size);
  status = dnnl_primitive_attr_create (&attr);
  if (status == dnnl_success)
    status = dnnl_primitive_attr_set_scratchpad_mode (attr, dnnl_scratchpad_mode_user);
  if (status == dnnl_success)
    status = plans->make (plan, attr);
  if (attr != NULL)
    dnnl_primitive_attr_destroy (attr);
  if (dnnl_failed (status, "dnnl_primitive_desc_create", call, error))
    {
      plans->free (plan);
      g_mutex_unlock (&dnnl.lock);
      return NULL;
    }

  if (g_hash_table_size (plans->table) < MAX_PLANS)
    g_hash_table_insert (plans->table, plan, plan);
  g_mutex_unlock (&dnnl.lock);
  return plan;
}

static void
plans_release (PlanTable *plans,
               gpointer   plan)
{
  gboolean kept;

  g_mutex_lock (&dnnl.lock);
  kept = g_hash_table_lookup (plans->table, plan) == plan;
  g_mutex_unlock (&dnnl.lock);
  if (!kept)
    plans->free (plan);
}

static void
init_data_md (dnnl_memory_desc_t   *md,
              const EpConvGeometry *g,
              gint64                channels,
              gint64                h,
              gint64                w,
              dnnl_format_tag_t     tag)
{
  dnnl_dims_t dims = { g->n, channels, h, w };

  dnnl_memory_desc_init_by_tag (md, 4, dims, dnnl_f32, tag);
}

static void
init_weight_md (dnnl_memory_desc_t   *md,
                const EpConvGeometry *g,
                gboolean              any)
{
  if (g->groups == 1)
    {
      dnnl_dims_t dims = { g->o, g->c, g->kh, g->kw };

      dnnl_memory_desc_init_by_tag (md, 4, dims, dnnl_f32, any ? dnnl_format_tag_any : dnnl_oihw);
    }
  else
    {
      dnnl_dims_t dims = { g->groups, g->o / g->groups, g->c / g->groups, g->kh, g->kw };

      dnnl_memory_desc_init_by_tag (md, 5, dims, dnnl_f32, any ? dnnl_format_tag_any : dnnl_goihw);
    }
}

/* The user's layouts, or (@any) those the primitive is free to choose.
 * oneDNN's NHWC kernels run as fast as its blocked ones, so NHWC data
 * stays where it is; NCHW data is reordered to blocked channels, as
 * oneDNN's direct NCHW kernels are much slower. */
static void
init_mds (const EpConvGeometry *g,
          gboolean              any,
          dnnl_memory_desc_t    md[N_ROLES])
{
  dnnl_format_tag_t tag = g->nhwc ? dnnl_nhwc : any ? dnnl_format_tag_any : dnnl_nchw;

  init_data_md (&md[IMAGES], g, g->c, g->h, g->w, tag);
  init_weight_md (&md[WEIGHT], g, any);
  init_data_md (&md[OUTPUT], g, g->o, g->oh, g->ow, tag);
}

static dnnl_status_t
forward_desc (dnnl_convolution_desc_t  *desc,
              const EpConvGeometry     *g,
              const dnnl_memory_desc_t  md[N_ROLES])
{
  dnnl_dims_t strides = { g->stride_h, g->stride_w };
  dnnl_dims_t dilates = { g->dilation_h - 1, g->dilation_w - 1 };
  dnnl_dims_t padding = { g->pad_h, g->pad_w };

  return dnnl_dilated_convolution_forward_desc_init (desc, dnnl_forward_training,
                                                     dnnl_convolution_direct,
                                                     &md[IMAGES], &md[WEIGHT], NULL, &md[OUTPUT],
                                                     strides, dilates, padding, padding);
}

static dnnl_status_t
pass_desc (dnnl_convolution_desc_t  *desc,
           Pass                      pass,
           const EpConvGeometry     *g,
           const dnnl_memory_desc_t  md[N_ROLES])
{
  dnnl_dims_t strides = { g->stride_h, g->stride_w };
  dnnl_dims_t dilates = { g->dilation_h - 1, g->dilation_w - 1 };
  dnnl_dims_t padding = { g->pad_h, g->pad_w };

  switch (pass)
    {
    case PASS_FORWARD:
      return forward_desc (desc, g, md);
    case PASS_DATA:
      return dnnl_dilated_convolution_backward_data_desc_init (desc, dnnl_convolution_direct,
                                                               &md[IMAGES], &md[WEIGHT], &md[OUTPUT],
                                                               strides, dilates, padding, padding);
    case PASS_WEIGHTS:
      return dnnl_dilated_convolution_backward_weights_desc_init (desc, dnnl_convolution_direct,
                                                                  &md[IMAGES], &md[WEIGHT], NULL,
                                                                  &md[OUTPUT], strides, dilates,
                                                                  padding, padding);
    }
  g_return_val_if_reached (dnnl_invalid_arguments);
}

/* What the primitive of @pass calls each role */
static const dnnl_query_t role_query[][N_ROLES] = {
  [PASS_FORWARD] = { dnnl_query_src_md, dnnl_query_weights_md, dnnl_query_dst_md },
  [PASS_DATA] = { dnnl_query_diff_src_md, dnnl_query_weights_md, dnnl_query_diff_dst_md },
  [PASS_WEIGHTS] = { dnnl_query_src_md, dnnl_query_diff_weights_md, dnnl_query_diff_dst_md },
};

static const int role_arg[][N_ROLES] = {
  [PASS_FORWARD] = { DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST },
  [PASS_DATA] = { DNNL_ARG_DIFF_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_DST },
  [PASS_WEIGHTS] = { DNNL_ARG_SRC, DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_DST },
};

static dnnl_status_t
plan_make (gpointer                    data,
           const dnnl_primitive_attr_t attr)
{
  Plan *plan = data;
  const EpConvGeometry *g = &plan->key.g;
  Pass pass = plan->key.pass;
  dnnl_memory_desc_t any[N_ROLES];
  dnnl_convolution_desc_t desc, hint_desc;
  dnnl_primitive_desc_t pd = NULL, hint = NULL, rpd;
  dnnl_status_t status;

  init_mds (g, FALSE, plan->user_md);
  init_mds (g, TRUE, any);

  status = pass_desc (&desc, pass, g, any);
  if (status == dnnl_success && pass != PASS_FORWARD)
    {
      status = forward_desc (&hint_desc, g, any);
      if (status == dnnl_success)
        status = dnnl_primitive_desc_create (&hint, &hint_desc, NULL, dnnl.engine, NULL);
    }
  if (status == dnnl_success)
    status = dnnl_primitive_desc_create (&pd, &desc, attr, dnnl.engine, hint);
  if (hint != NULL)
    dnnl_primitive_desc_destroy (hint);
  if (status != dnnl_success)
    return status;

  plan->scratch_md = *dnnl_primitive_desc_query_md (pd, dnnl_query_scratchpad_md, 0);
  plan->scratch_size = dnnl_memory_desc_get_size (&plan->scratch_md);
  for (int r = 0; r < N_ROLES && status == dnnl_success; r++)
    {
      plan->conv_md[r] = *dnnl_primitive_desc_query_md (pd, role_query[pass][r], 0);
      plan->conv_size[r] = dnnl_memory_desc_get_size (&plan->conv_md[r]);
      if (dnnl_memory_desc_equal (&plan->conv_md[r], &plan->user_md[r]))
        continue;

      status = r == written[pass]
               ? dnnl_reorder_primitive_desc_create (&rpd, &plan->conv_md[r], dnnl.engine,
                                                     &plan->user_md[r], dnnl.engine, NULL)
               : dnnl_reorder_primitive_desc_create (&rpd, &plan->user_md[r], dnnl.engine,
                                                     &plan->conv_md[r], dnnl.engine, NULL);
      if (status == dnnl_success)
        {
          status = dnnl_primitive_create (&plan->reorder[r], rpd);
          dnnl_primitive_desc_destroy (rpd);
        }
    }
  if (status == dnnl_success)
    status = dnnl_primitive_create (&plan->conv, pd);
  dnnl_primitive_desc_destroy (pd);
  return status;
}

static PlanTable conv_plans = {
  .hash = key_hash, .equal = key_equal, .key_size = sizeof (Key), .plan_size = sizeof (Plan),
  .make = plan_make, .free = plan_free,
};

typedef struct
{
  gpointer data;
  gsize    size;
} Buffer;

static gboolean
buffer_alloc (Buffer          *buffer,
              gsize            size,
              const EpOpCall  *call,
              GError         **error)
{
  buffer->size = size;
  buffer->data = size > 0 ? ep_cpu_cache_alloc (size) : NULL;
  if (size > 0 && buffer->data == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("%s: out of memory for %zu bytes of work space"), call->op->name, size);
      return FALSE;
    }
  return TRUE;
}

static void
buffer_release (Buffer *buffer)
{
  if (buffer->data != NULL)
    ep_cpu_cache_release (buffer->data, buffer->size);
  buffer->data = NULL;
}

static dnnl_status_t
run_reorder (dnnl_primitive_t           reorder,
             dnnl_stream_t              stream,
             const dnnl_memory_desc_t  *from_md,
             gpointer                   from,
             const dnnl_memory_desc_t  *to_md,
             gpointer                   to)
{
  dnnl_memory_t src = NULL, dst = NULL;
  dnnl_status_t status;

  status = dnnl_memory_create (&src, from_md, dnnl.engine, from);
  if (status == dnnl_success)
    status = dnnl_memory_create (&dst, to_md, dnnl.engine, to);
  if (status == dnnl_success)
    {
      dnnl_exec_arg_t args[] = { { DNNL_ARG_FROM, src }, { DNNL_ARG_TO, dst } };

      status = dnnl_primitive_execute (reorder, stream, 2, args);
    }
  if (src != NULL)
    dnnl_memory_destroy (src);
  if (dst != NULL)
    dnnl_memory_destroy (dst);
  return status;
}

static dnnl_status_t
run_plan (const Plan *plan,
          guint8     *user[N_ROLES],
          Buffer      staged[N_ROLES],
          Buffer     *scratch)
{
  Pass pass = plan->key.pass;
  dnnl_stream_t stream = NULL;
  dnnl_memory_t mem[N_ROLES + 1] = { NULL };
  dnnl_exec_arg_t args[N_ROLES + 1];
  gpointer at[N_ROLES];
  dnnl_status_t status;

  status = dnnl_stream_create (&stream, dnnl.engine, dnnl_stream_default_flags);
  for (int r = 0; r < N_ROLES && status == dnnl_success; r++)
    {
      at[r] = plan->reorder[r] != NULL ? staged[r].data : user[r];
      if (plan->reorder[r] != NULL && r != written[pass])
        status = run_reorder (plan->reorder[r], stream, &plan->user_md[r], user[r],
                              &plan->conv_md[r], at[r]);
    }

  for (int r = 0; r < N_ROLES && status == dnnl_success; r++)
    {
      status = dnnl_memory_create (&mem[r], &plan->conv_md[r], dnnl.engine, at[r]);
      args[r] = (dnnl_exec_arg_t) { role_arg[pass][r], mem[r] };
    }
  if (status == dnnl_success)
    {
      int nargs = N_ROLES;

      if (plan->scratch_size > 0)
        {
          status = dnnl_memory_create (&mem[N_ROLES], &plan->scratch_md, dnnl.engine, scratch->data);
          args[nargs++] = (dnnl_exec_arg_t) { DNNL_ARG_SCRATCHPAD, mem[N_ROLES] };
        }
      if (status == dnnl_success)
        status = dnnl_primitive_execute (plan->conv, stream, nargs, args);
    }

  if (status == dnnl_success && plan->reorder[written[pass]] != NULL)
    status = run_reorder (plan->reorder[written[pass]], stream,
                          &plan->conv_md[written[pass]], at[written[pass]],
                          &plan->user_md[written[pass]], user[written[pass]]);
  if (status == dnnl_success)
    status = dnnl_stream_wait (stream);

  for (int r = 0; r <= N_ROLES; r++)
    if (mem[r] != NULL)
      dnnl_memory_destroy (mem[r]);
  if (stream != NULL)
    dnnl_stream_destroy (stream);
  return status;
}

static gboolean
conv_f32 (EpOpCall             *call,
          const EpConvGeometry *g,
          GError              **error)
{
  Key key;
  Plan *plan;
  guint8 *user[N_ROLES];
  Buffer staged[N_ROLES] = { { NULL, 0 } }, scratch = { NULL, 0 };
  dnnl_status_t status;
  gboolean ok = TRUE;

  memset (&key, 0, sizeof key);   /* the padding too: keys compare as bytes */
  key.pass = pass_of (call);
  key.g = *g;
  plan = plans_lookup (&conv_plans, call, &key, error);
  if (plan == NULL)
    return FALSE;

  for (int r = 0; r < N_ROLES && ok; r++)
    if (plan->reorder[r] != NULL)
      ok = buffer_alloc (&staged[r], plan->conv_size[r], call, error);
  ok = ok && buffer_alloc (&scratch, plan->scratch_size, call, error);

  if (ok)
    {
      operand_data (call, key.pass, user);
      if (dnnl.omp_set_num_threads != NULL)
        dnnl.omp_set_num_threads ((int) ep_cpu_get_n_threads ());
      status = run_plan (plan, user, staged, &scratch);
      ok = !dnnl_failed (status, "dnnl_primitive_execute", call, error);
    }

  for (int r = 0; r < N_ROLES; r++)
    buffer_release (&staged[r]);
  buffer_release (&scratch);
  plans_release (&conv_plans, plan);
  return ok;
}

/* bfloat16 matrix products (cpu/linalg.c): a oneDNN matmul primitive
 * with bfloat16 source, weights and destination (float32 accumulation,
 * the result rounded to nearest even), made once per shape and kept as
 * the convolutions' plans are, on the same engine, lock and OpenMP
 * threads. Operands are plain row-major batches of matrices; a batch of
 * one broadcasts. */

typedef struct
{
  gint64 batch_a, batch_b, batch, n, k, m;
  gint64 trans_a, trans_b;    /* column-major matrices */
} MatmulKey;

typedef struct
{
  MatmulKey          key;
  dnnl_primitive_t   matmul;     /* NULL: oneDNN has none (no bfloat16 on this CPU) */
  dnnl_memory_desc_t md[3];      /* src, weights, dst */
  dnnl_memory_desc_t scratch_md;
  gsize              scratch_size;
} MatmulPlan;

static guint
matmul_key_hash (gconstpointer key)
{
  const gint64 *v = key;
  guint h = 5381;

  for (gsize i = 0; i < sizeof (MatmulKey) / sizeof (gint64); i++)
    h = h * 33 + (guint) (v[i] ^ (v[i] >> 32));
  return h;
}

static gboolean
matmul_key_equal (gconstpointer a,
                  gconstpointer b)
{
  return memcmp (a, b, sizeof (MatmulKey)) == 0;
}

static void
matmul_plan_free (gpointer data)
{
  MatmulPlan *plan = data;

  if (plan->matmul != NULL)
    dnnl_primitive_destroy (plan->matmul);
  g_free (plan);
}

/* A plan with no primitive where oneDNN has none (no bfloat16 on this
 * CPU) or refuses the sizes: kept, so that later calls of the shape
 * widen without asking again */
static dnnl_status_t
matmul_plan_make (gpointer                    data,
                  const dnnl_primitive_attr_t attr)
{
  MatmulPlan *plan = data;
  const MatmulKey *k = &plan->key;
  dnnl_dims_t src = { k->batch_a, k->n, k->k }, wei = { k->batch_b, k->k, k->m },
              dst = { k->batch, k->n, k->m };
  dnnl_matmul_desc_t desc;
  dnnl_primitive_desc_t pd = NULL;
  dnnl_status_t status;

  /* one matrix each: 2-D, as PyTorch asks (oneDNN's 3-D primitive
   * with a batch of 1 is no faster) */
  int nd = k->batch == 1 ? 2 : 3, skip = 3 - nd;
  dnnl_format_tag_t tag = nd == 2 ? dnnl_ab : dnnl_abc, trans = nd == 2 ? dnnl_ba : dnnl_acb;

  dnnl_memory_desc_init_by_tag (&plan->md[0], nd, src + skip, dnnl_bf16, k->trans_a ? trans : tag);
  dnnl_memory_desc_init_by_tag (&plan->md[1], nd, wei + skip, dnnl_bf16, k->trans_b ? trans : tag);
  dnnl_memory_desc_init_by_tag (&plan->md[2], nd, dst + skip, dnnl_bf16, tag);
  status = dnnl_matmul_desc_init (&desc, &plan->md[0], &plan->md[1], NULL, &plan->md[2]);
  if (status == dnnl_success)
    status = dnnl_primitive_desc_create (&pd, &desc, attr, dnnl.engine, NULL);
  if (status == dnnl_success)
    {
      plan->scratch_md = *dnnl_primitive_desc_query_md (pd, dnnl_query_scratchpad_md, 0);
      plan->scratch_size = dnnl_memory_desc_get_size (&plan->scratch_md);
      status = dnnl_primitive_create (&plan->matmul, pd);
      dnnl_primitive_desc_destroy (pd);
    }
  if (status == dnnl_success || status == dnnl_out_of_memory)
    return status;

  if (plan->matmul != NULL)
    dnnl_primitive_destroy (plan->matmul);
  plan->matmul = NULL;
  return dnnl_success;
}

static PlanTable matmul_plans = {
  .hash = matmul_key_hash, .equal = matmul_key_equal, .key_size = sizeof (MatmulKey),
  .plan_size = sizeof (MatmulPlan), .make = matmul_plan_make, .free = matmul_plan_free,
};

/*
 * ep_cpu_dnnl_matmul_bf16:
 * @ran: set to whether oneDNN ran it (FALSE: it has no such primitive
 *   here; the caller computes in float32)
 *
 * c (batch x n x m) = a (batch_a x n x k) b (batch_b x k x m), all
 * bfloat16 and contiguous batches of row-major matrices (column-major
 * for a and b where @trans_a, @trans_b); batch_a and batch_b are batch
 * or 1 (broadcast). No size is 0.
 */
gboolean
ep_cpu_dnnl_matmul_bf16 (const EpOpCall *call,
                         gint64          batch_a,
                         gint64          batch_b,
                         gint64          batch,
                         gint64          n,
                         gint64          k,
                         gint64          m,
                         gboolean        trans_a,
                         gboolean        trans_b,
                         gconstpointer   a,
                         gconstpointer   b,
                         gpointer        c,
                         gboolean       *ran,
                         GError        **error)
{
  MatmulKey key = { batch_a, batch_b, batch, n, k, m, trans_a, trans_b };
  MatmulPlan *plan;
  Buffer scratch = { NULL, 0 };
  dnnl_stream_t stream = NULL;
  dnnl_memory_t mem[4] = { NULL };
  dnnl_status_t status;
  gboolean ok;

  *ran = FALSE;
  plan = plans_lookup (&matmul_plans, call, &key, error);
  if (plan == NULL)
    return FALSE;
  if (plan->matmul == NULL)
    {
      plans_release (&matmul_plans, plan);
      return TRUE;
    }
  if (!buffer_alloc (&scratch, plan->scratch_size, call, error))
    {
      plans_release (&matmul_plans, plan);
      return FALSE;
    }

  if (dnnl.omp_set_num_threads != NULL)
    dnnl.omp_set_num_threads ((int) ep_cpu_get_n_threads ());
  status = dnnl_stream_create (&stream, dnnl.engine, dnnl_stream_default_flags);
  if (status == dnnl_success)
    status = dnnl_memory_create (&mem[0], &plan->md[0], dnnl.engine, (gpointer) a);
  if (status == dnnl_success)
    status = dnnl_memory_create (&mem[1], &plan->md[1], dnnl.engine, (gpointer) b);
  if (status == dnnl_success)
    status = dnnl_memory_create (&mem[2], &plan->md[2], dnnl.engine, c);
  if (status == dnnl_success && plan->scratch_size > 0)
    status = dnnl_memory_create (&mem[3], &plan->scratch_md, dnnl.engine, scratch.data);
  if (status == dnnl_success)
    {
      dnnl_exec_arg_t args[] = {
        { DNNL_ARG_SRC, mem[0] }, { DNNL_ARG_WEIGHTS, mem[1] }, { DNNL_ARG_DST, mem[2] },
        { DNNL_ARG_SCRATCHPAD, mem[3] },
      };

      status = dnnl_primitive_execute (plan->matmul, stream, plan->scratch_size > 0 ? 4 : 3, args);
    }
  if (status == dnnl_success)
    status = dnnl_stream_wait (stream);
  ok = !dnnl_failed (status, "dnnl_primitive_execute", call, error);
  *ran = ok;

  for (int i = 0; i < 4; i++)
    if (mem[i] != NULL)
      dnnl_memory_destroy (mem[i]);
  if (stream != NULL)
    dnnl_stream_destroy (stream);
  buffer_release (&scratch);
  plans_release (&matmul_plans, plan);
  return ok;
}

/* oneDNN keeps some sizes and offsets in 32 bits and refuses larger
 * ones: those run by im2col */
static gboolean
fits_dnnl (const EpConvGeometry *g)
{
  const gint64 sizes[] = {
    g->n, g->c, g->h, g->w, g->o, g->kh, g->kw, g->oh, g->ow,
    g->stride_h, g->stride_w, g->pad_h, g->pad_w, g->dilation_h, g->dilation_w,
    (g->kh - 1) * g->dilation_h, (g->kw - 1) * g->dilation_w,
  };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    if (sizes[i] > G_MAXINT32 / 2)
      return FALSE;
  return TRUE;
}

/* im2col and GEMM: float64, and float32 where oneDNN refuses a
 * geometry (sizes past its 32-bit limits) */

/* Element strides of the images (or the output) of one image */
typedef struct
{
  gint64 c, h, w;
} Strides;

static Strides
data_strides (gboolean nhwc,
              gint64   c,
              gint64   h,
              gint64   w)
{
  return nhwc ? (Strides) { 1, w * c, c } : (Strides) { h * w, w, 1 };
}

typedef struct
{
  const EpConvGeometry *g;
  Strides   s;
  gint64    cg, k;       /* channels per group, rows of a column matrix */
  gpointer  image;       /* the group's first channel of one image */
  gpointer  col;         /* k rows of oh * ow */
} Columns;

/* im2col_row_T: one row of the columns, channel ci of the group and tap
 * (i, j); col2im_channel_T: its mirror for every tap of channel ci,
 * adding the columns back into the image (channels are disjoint, taps
 * are not); conv_gemm_T: the pass, image by image and group by group. */
#define IM2COL(T, gemm)                                                     \
static void                                                                 \
im2col_row_##T (gpointer data,                                              \
                guint    row)                                               \
{                                                                           \
  const Columns *cols = data;                                               \
  const EpConvGeometry *g = cols->g;                                        \
  gint64 ci = row / (g->kh * g->kw), i = row / g->kw % g->kh, j = row % g->kw; \
  const T *image = (const T *) cols->image + ci * cols->s.c;                \
  T *out = (T *) cols->col + (gint64) row * g->oh * g->ow;                  \
                                                                            \
  for (gint64 oy = 0; oy < g->oh; oy++)                                     \
    {                                                                       \
      gint64 y = oy * g->stride_h - g->pad_h + i * g->dilation_h;           \
                                                                            \
      for (gint64 ox = 0; ox < g->ow; ox++)                                 \
        {                                                                   \
          gint64 x = ox * g->stride_w - g->pad_w + j * g->dilation_w;       \
                                                                            \
          *out++ = y >= 0 && y < g->h && x >= 0 && x < g->w                 \
                   ? image[y * cols->s.h + x * cols->s.w] : 0;              \
        }                                                                   \
    }                                                                       \
}                                                                           \
                                                                            \
static void                                                                 \
col2im_channel_##T (gpointer data,                                          \
                    guint    ci)                                            \
{                                                                           \
  const Columns *cols = data;                                               \
  const EpConvGeometry *g = cols->g;                                        \
  T *image = (T *) cols->image + (gint64) ci * cols->s.c;                   \
                                                                            \
  for (gint64 i = 0; i < g->kh; i++)                                        \
    for (gint64 j = 0; j < g->kw; j++)                                      \
      {                                                                     \
        const T *in = (const T *) cols->col + ((ci * g->kh + i) * g->kw + j) * g->oh * g->ow; \
                                                                            \
        for (gint64 oy = 0; oy < g->oh; oy++)                               \
          {                                                                 \
            gint64 y = oy * g->stride_h - g->pad_h + i * g->dilation_h;     \
                                                                            \
            for (gint64 ox = 0; ox < g->ow; ox++, in++)                     \
              {                                                             \
                gint64 x = ox * g->stride_w - g->pad_w + j * g->dilation_w; \
                                                                            \
                if (y >= 0 && y < g->h && x >= 0 && x < g->w)               \
                  image[y * cols->s.h + x * cols->s.w] += *in;              \
              }                                                             \
          }                                                                 \
      }                                                                     \
}                                                                           \
                                                                            \
static void                                                                 \
conv_gemm_##T (Pass                  pass,                                  \
               const EpConvGeometry *g,                                     \
               guint8               *data[N_ROLES],                         \
               Columns              *cols)                                  \
{                                                                           \
  T *x = (T *) data[IMAGES], *w = (T *) data[WEIGHT], *y = (T *) data[OUTPUT]; \
  gint64 og = g->o / g->groups, p = g->oh * g->ow;                          \
  Strides ys = data_strides (g->nhwc, g->o, g->oh, g->ow);                  \
  /* the group's outputs of one image: og rows of p (nchw) or p rows of og \
   * with a row stride of o (nhwc) */                                       \
  gint64 ldy = g->nhwc ? g->o : p;                                          \
  CBLAS_TRANSPOSE ty = g->nhwc ? CblasTrans : CblasNoTrans;                 \
                                                                            \
  if (pass == PASS_DATA)                                                    \
    memset (x, 0, (gsize) (g->n * g->c * g->h * g->w) * sizeof (T));        \
  if (pass == PASS_WEIGHTS)                                                 \
    memset (w, 0, (gsize) (g->o * cols->k) * sizeof (T));                   \
                                                                            \
  for (gint64 n = 0; n < g->n; n++)                                         \
    for (gint64 grp = 0; grp < g->groups; grp++)                            \
      {                                                                     \
        T *wg = w + grp * og * cols->k;                                     \
        T *yg = y + n * g->o * p + grp * og * ys.c;                         \
                                                                            \
        cols->image = x + n * g->c * g->h * g->w + grp * cols->cg * cols->s.c; \
        switch (pass)                                                       \
          {                                                                 \
          case PASS_FORWARD:                                                \
            ep_cpu_parallel_for ((guint) cols->k, im2col_row_##T, cols);    \
            if (g->nhwc)   /* y^T (p x og) = col^T w_g^T */                 \
              gemm (CblasRowMajor, CblasTrans, CblasTrans, p, og, cols->k,  \
                    1, cols->col, p, wg, cols->k, 0, yg, ldy);              \
            else           /* y (og x p) = w_g col */                       \
              gemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, og, p, cols->k, \
                    1, wg, cols->k, cols->col, p, 0, yg, ldy);              \
            break;                                                          \
          case PASS_DATA:   /* col = w_g^T dy_g, added back into dx */      \
            gemm (CblasRowMajor, CblasTrans, ty, cols->k, p, og,            \
                  1, wg, cols->k, yg, ldy, 0, cols->col, p);                \
            ep_cpu_parallel_for ((guint) cols->cg, col2im_channel_##T, cols); \
            break;                                                          \
          case PASS_WEIGHTS:   /* dw_g += dy_g col^T, image by image */     \
            ep_cpu_parallel_for ((guint) cols->k, im2col_row_##T, cols);    \
            gemm (CblasRowMajor, ty, CblasTrans, og, cols->k, p,            \
                  1, yg, ldy, cols->col, p, 1, wg, cols->k);                \
            break;                                                          \
          }                                                                 \
      }                                                                     \
}

IM2COL (gfloat, cblas_sgemm)
IM2COL (gdouble, cblas_dgemm)

static gboolean
conv_im2col (EpOpCall             *call,
             const EpConvGeometry *g,
             GError              **error)
{
  gsize itemsize = ep_dtype_itemsize (call->outputs[0]->layout.dtype);
  Columns cols = { g, data_strides (g->nhwc, g->c, g->h, g->w), g->c / g->groups, 0, NULL, NULL };
  guint8 *data[N_ROLES];
  gsize col_bytes;
  Buffer buffer;

  cols.k = cols.cg * g->kh * g->kw;
  if (__builtin_mul_overflow ((gsize) cols.k, (gsize) (g->oh * g->ow), &col_bytes)
      || __builtin_mul_overflow (col_bytes, itemsize, &col_bytes))
    col_bytes = G_MAXSIZE;
  if (!buffer_alloc (&buffer, col_bytes, call, error))
    return FALSE;
  cols.col = buffer.data;

  operand_data (call, pass_of (call), data);
  if (itemsize == sizeof (gfloat))
    conv_gemm_gfloat (pass_of (call), g, data, &cols);
  else
    conv_gemm_gdouble (pass_of (call), g, data, &cols);

  buffer_release (&buffer);
  return TRUE;
}

static gboolean
conv_kernel (EpOpCall  *call,
             GError   **error)
{
  EpConvGeometry g;
  EpLayout *out = &call->output_layouts[0];

  ep_conv_geometry_from_call (call, &g);
  if (geometry_is_empty (&g))
    {
      /* nothing to sum: zeros (a weight's gradient over no images) */
      memset (ep_tensor_host_data (call->outputs[0]), 0,
              (gsize) ep_layout_get_size (out) * ep_dtype_itemsize (out->dtype));
      return TRUE;
    }

  if (out->dtype == EP_DTYPE_FLOAT32 && fits_dnnl (&g))
    return conv_f32 (call, &g, error);
  return conv_im2col (call, &g, error);
}

void
ep_cpu_register_conv (EpKernelFunc *kernels)
{
  kernels[EP_OP_CONV2D] = conv_kernel;
  kernels[EP_OP_CONV2D_INPUT_GRAD] = conv_kernel;
  kernels[EP_OP_CONV2D_WEIGHT_GRAD] = conv_kernel;
}
