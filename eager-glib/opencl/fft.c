/* fft.c: fft, ifft, rfft and irfft on OpenCL: clFFT
 * (kernels/fft.cl packs and unpacks its rows)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every op is one batched complex transform of contiguous rows of n
 * points, in place in a work buffer: fft_pack reads the input's rows
 * along the axis into it (cropped or padded, real rows made complex,
 * irfft's half spectrum completed), clFFT transforms them, fft_unpack
 * writes them out scaled. clFFT takes lengths whose prime factors are
 * 2, 3, 5, 7, 11 and 13 only: other lengths make a host round trip
 * through the CPU's transforms (ep_fft_run_host: the input read, the
 * result written back), as docs/fft.md says.
 *
 * clFFT's plans hold a length, a batch and a precision and compile
 * their kernels when baked (a second or more on PoCL): they are kept,
 * per context, up to MAX_PLANS; its calls are serialised by plan_lock
 * (a plan is not thread-safe, and clFFT's own state neither).
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdlib.h>
#include <string.h>

/* first: it sets the OpenCL version clFFT.h's CL/cl.h sees */
#include "ep-opencl-private.h"

#include <clFFT.h>

#include "ep-device-private.h"
#include "ep-error.h"
#include "ep-fault-private.h"
#include "ep-fft-private.h"
#include "ep-tensor-private.h"

#define MAX_PLANS 32

typedef struct
{
  cl_context context;
  gint64     n;
  gint64     batch;
  EpDType    dtype;
} PlanKey;

static GMutex plan_lock;
static GHashTable *plans;      /* PlanKey * -> clfftPlanHandle * */
static clfftStatus setup_status = CLFFT_SUCCESS;

static guint
plan_key_hash (gconstpointer data)
{
  const PlanKey *key = data;

  return g_direct_hash (key->context) ^ (guint) (key->n * 31 + key->batch * 131 + key->dtype);
}

static gboolean
plan_key_equal (gconstpointer a,
                gconstpointer b)
{
  return memcmp (a, b, sizeof (PlanKey)) == 0;
}

static void
plan_free (gpointer data)
{
  clfftPlanHandle *plan = data;

  clfftDestroyPlan (plan);
  g_free (plan);
}

/* Whether clFFT takes @n: its prime factors are 2, 3, 5, 7, 11, 13 */
static gboolean
clfft_takes (gint64 n)
{
  static const gint64 primes[] = { 2, 3, 5, 7, 11, 13 };

  for (guint i = 0; i < G_N_ELEMENTS (primes); i++)
    while (n % primes[i] == 0)
      n /= primes[i];
  return n == 1;
}

static gboolean
clfft_error (GError         **error,
             EpOpCall        *call,
             const char      *what,
             clfftStatus      status)
{
  return ep_opencl_set_error (error, call->device, call->op->name, what, (cl_int) status);
}

/* At exit, before the OpenCL platform's own clean-up (registered before,
 * so run after): clFFT complains on stderr about resources not freed */
static void
teardown (void)
{
  g_mutex_lock (&plan_lock);
  g_clear_pointer (&plans, g_hash_table_destroy);
  clfftTeardown ();
  g_mutex_unlock (&plan_lock);
}

/* The baked plan of @key, made on first use; with plan_lock held. */
static clfftPlanHandle *
get_plan (EpOpCall       *call,
          const PlanKey  *key,
          GError        **error)
{
  EpOpenCLDevice *cl = ep_opencl_device (call->device);
  clfftPlanHandle *plan;
  size_t length = (size_t) key->n;
  clfftStatus status;

  if (plans == NULL)
    {
      /* clFFT.h defines clfftInitSetupData() as a plain C99 inline
       * with no external definition: at -O0 it is a link error. */
      clfftSetupData setup = {
        .major = clfftVersionMajor,
        .minor = clfftVersionMinor,
        .patch = clfftVersionPatch,
        .debugFlags = 0,
      };

      setup_status = clfftSetup (&setup);
      if (setup_status == CLFFT_SUCCESS)
        atexit (teardown);
      plans = g_hash_table_new_full (plan_key_hash, plan_key_equal, g_free, plan_free);
    }
  if (setup_status != CLFFT_SUCCESS)
    {
      clfft_error (error, call, "clfftSetup", setup_status);
      return NULL;
    }

  if ((plan = g_hash_table_lookup (plans, key)) != NULL)
    return plan;
  if (g_hash_table_size (plans) >= MAX_PLANS)
    g_hash_table_remove_all (plans);

  plan = g_new0 (clfftPlanHandle, 1);
  status = (clfftStatus) ep_opencl_take_fault (call->device, "clFFT");
  if (status == CLFFT_SUCCESS)
    status = clfftCreateDefaultPlan (plan, cl->context, CLFFT_1D, &length);
  if (status != CLFFT_SUCCESS)
    {
      g_free (plan);
      clfft_error (error, call, "clfftCreateDefaultPlan", status);
      return NULL;
    }
  if ((status = clfftSetPlanPrecision (*plan, key->dtype == EP_DTYPE_FLOAT32
                                              ? CLFFT_SINGLE : CLFFT_DOUBLE)) != CLFFT_SUCCESS
      || (status = clfftSetLayout (*plan, CLFFT_COMPLEX_INTERLEAVED,
                                   CLFFT_COMPLEX_INTERLEAVED)) != CLFFT_SUCCESS
      || (status = clfftSetResultLocation (*plan, CLFFT_INPLACE)) != CLFFT_SUCCESS
      || (status = clfftSetPlanBatchSize (*plan, (size_t) key->batch)) != CLFFT_SUCCESS
      || (status = clfftSetPlanDistance (*plan, length, length)) != CLFFT_SUCCESS
      /* fft_unpack scales */
      || (status = clfftSetPlanScale (*plan, CLFFT_FORWARD, 1.0f)) != CLFFT_SUCCESS
      || (status = clfftSetPlanScale (*plan, CLFFT_BACKWARD, 1.0f)) != CLFFT_SUCCESS
      || (status = clfftBakePlan (*plan, 1, &cl->queue, NULL, NULL)) != CLFFT_SUCCESS)
    {
      plan_free (plan);
      clfft_error (error, call, "clfftBakePlan", status);
      return NULL;
    }

  g_hash_table_insert (plans, g_memdup2 (key, sizeof *key), plan);
  return plan;
}

static gboolean
transform (EpOpCall  *call,
           cl_mem     work,
           gint64     n,
           gint64     rows,
           GError   **error)
{
  EpOpenCLDevice *cl = ep_opencl_device (call->device);
  PlanKey key = { cl->context, n, rows, call->inputs[0]->layout.dtype };
  gboolean inverse = call->op->id == EP_OP_IFFT || call->op->id == EP_OP_IRFFT;
  clfftPlanHandle *plan;
  clfftStatus status = CLFFT_SUCCESS;

  g_mutex_lock (&plan_lock);
  plan = get_plan (call, &key, error);
  if (plan != NULL)
    {
      status = (clfftStatus) ep_opencl_take_fault (call->device, "clFFT");
      if (status == CLFFT_SUCCESS)
        status = clfftEnqueueTransform (*plan, inverse ? CLFFT_BACKWARD : CLFFT_FORWARD,
                                        1, &cl->queue, 0, NULL, NULL, &work, NULL, NULL);
    }
  g_mutex_unlock (&plan_lock);

  if (plan == NULL)
    return FALSE;
  if (status != CLFFT_SUCCESS)
    return clfft_error (error, call, "clfftEnqueueTransform", status);
  return TRUE;
}

/* Lengths clFFT does not take: the CPU's transforms on a copy */
static gboolean
host_round_trip (EpOpCall  *call,
                 gint64     outer,
                 gint64     in_len,
                 gint64     inner,
                 GError   **error)
{
  EpTensor *in = call->inputs[0], *out = call->outputs[0];
  gsize itemsize = ep_dtype_get_itemsize (in->layout.dtype);
  gsize in_bytes = (gsize) ep_layout_get_size (&in->layout) * itemsize;
  gsize out_bytes = (gsize) ep_layout_get_size (&out->layout) * itemsize;
  g_autofree gpointer host_in = ep_try_malloc (MAX (in_bytes, 1));
  g_autofree gpointer host_out = host_in != NULL ? ep_try_malloc (MAX (out_bytes, 1)) : NULL;

  if (host_out == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("%s: not enough memory for the transform's work buffers"), call->op->name);
      return FALSE;
    }

  return ep_device_read (call->device, in->storage, in->layout.offset * itemsize,
                         host_in, in_bytes, error)
         && ep_fft_run_host (call->op->id, in->layout.dtype, host_in, host_out, outer,
                             in_len, inner, call->attrs.fft.n, call->attrs.fft.norm, error)
         && ep_device_write (call->device, out->storage, 0, host_out, out_bytes, error);
}

static gboolean
opencl_fft (EpOpCall  *call,
            GError   **error)
{
  EpTensor *in = call->inputs[0], *out = call->outputs[0];
  EpDType dtype = in->layout.dtype;
  gint op = call->op->id;
  gint64 outer, in_len, inner, rows, n = call->attrs.fft.n;
  cl_long offset = in->layout.offset, total;
  cl_long a_in_len, a_inner = 0, a_n = n, out_len;
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  char name[24];
  EpCLLaunch launch;
  cl_mem work;
  gboolean ok;

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error))
    return FALSE;

  ep_fft_geometry (call, &outer, &in_len, &inner);
  if (!clfft_takes (n))
    return host_round_trip (call, outer, in_len, inner, error);

  rows = outer * inner;
  if ((guint64) rows > G_MAXSIZE / 2 / itemsize / (guint64) n)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("%s: not enough memory for the transform's work buffers"), call->op->name);
      return FALSE;
    }
  work = ep_opencl_create_buffer (call->device, call->op->name,
                                  (gsize) rows * (gsize) n * 2 * itemsize, error);
  if (work == NULL)
    return FALSE;

  a_in_len = in_len;
  a_inner = inner;
  total = rows * n;
  g_snprintf (name, sizeof name, "fft_pack_%s", ep_cl_dtype_suffix (dtype));
  ok = ep_cl_launch_init (&launch, call, "fft", name, error);
  if (ok)
    {
      ep_cl_launch_mem (&launch, work);
      ep_cl_launch_tensor (&launch, in);
      ep_cl_launch_arg (&launch, sizeof offset, &offset);
      ep_cl_launch_arg (&launch, sizeof a_in_len, &a_in_len);
      ep_cl_launch_arg (&launch, sizeof a_inner, &a_inner);
      ep_cl_launch_arg (&launch, sizeof a_n, &a_n);
      ep_cl_launch_arg (&launch, sizeof total, &total);
      ep_cl_launch_arg (&launch, sizeof op, &op);
      ok = ep_cl_launch_run_items (&launch, total, error);
    }

  ok = ok && transform (call, work, n, rows, error);

  out_len = call->op->id == EP_OP_RFFT ? n / 2 + 1 : n;
  total = rows * out_len;
  g_snprintf (name, sizeof name, "fft_unpack_%s", ep_cl_dtype_suffix (dtype));
  if (ok && (ok = ep_cl_launch_init (&launch, call, "fft", name, error)))
    {
      gdouble scale = ep_fft_scale (call->op->id, n, call->attrs.fft.norm);
      gfloat scale_f = (gfloat) scale;

      ep_cl_launch_tensor (&launch, out);
      ep_cl_launch_mem (&launch, work);
      ep_cl_launch_arg (&launch, sizeof out_len, &out_len);
      ep_cl_launch_arg (&launch, sizeof a_inner, &a_inner);
      ep_cl_launch_arg (&launch, sizeof a_n, &a_n);
      ep_cl_launch_arg (&launch, sizeof total, &total);
      ep_cl_launch_arg (&launch, sizeof op, &op);
      if (dtype == EP_DTYPE_FLOAT32)
        ep_cl_launch_arg (&launch, sizeof scale_f, &scale_f);
      else
        ep_cl_launch_arg (&launch, sizeof scale, &scale);
      ok = ep_cl_launch_run_items (&launch, total, error);
    }

  clReleaseMemObject (work);
  return ok;
}

void
ep_opencl_register_fft (EpKernelFunc *kernels)
{
  kernels[EP_OP_FFT] = opencl_fft;
  kernels[EP_OP_IFFT] = opencl_fft;
  kernels[EP_OP_RFFT] = opencl_fft;
  kernels[EP_OP_IRFFT] = opencl_fft;
}
