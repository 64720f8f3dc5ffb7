/* device.c: OpenCL devices, their memory and their programs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <stdio.h>
#include <string.h>

#include "ep-error.h"
#include "ep-fault-private.h"
#include "ep-opencl-private.h"
#include "ep-opencl-resources.h"

#define RESOURCE_PREFIX "/org/eager-glib/opencl/kernels/"

const char *
ep_opencl_status_name (cl_int status)
{
  switch (status)
    {
#define NAME(s) case s: return #s;
    NAME (CL_SUCCESS)
    NAME (CL_DEVICE_NOT_FOUND)
    NAME (CL_DEVICE_NOT_AVAILABLE)
    NAME (CL_COMPILER_NOT_AVAILABLE)
    NAME (CL_MEM_OBJECT_ALLOCATION_FAILURE)
    NAME (CL_OUT_OF_RESOURCES)
    NAME (CL_OUT_OF_HOST_MEMORY)
    NAME (CL_PROFILING_INFO_NOT_AVAILABLE)
    NAME (CL_MEM_COPY_OVERLAP)
    NAME (CL_IMAGE_FORMAT_MISMATCH)
    NAME (CL_IMAGE_FORMAT_NOT_SUPPORTED)
    NAME (CL_BUILD_PROGRAM_FAILURE)
    NAME (CL_MAP_FAILURE)
    NAME (CL_MISALIGNED_SUB_BUFFER_OFFSET)
    NAME (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    NAME (CL_COMPILE_PROGRAM_FAILURE)
    NAME (CL_LINKER_NOT_AVAILABLE)
    NAME (CL_LINK_PROGRAM_FAILURE)
    NAME (CL_DEVICE_PARTITION_FAILED)
    NAME (CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    NAME (CL_INVALID_VALUE)
    NAME (CL_INVALID_DEVICE_TYPE)
    NAME (CL_INVALID_PLATFORM)
    NAME (CL_INVALID_DEVICE)
    NAME (CL_INVALID_CONTEXT)
    NAME (CL_INVALID_QUEUE_PROPERTIES)
    NAME (CL_INVALID_COMMAND_QUEUE)
    NAME (CL_INVALID_HOST_PTR)
    NAME (CL_INVALID_MEM_OBJECT)
    NAME (CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    NAME (CL_INVALID_IMAGE_SIZE)
    NAME (CL_INVALID_SAMPLER)
    NAME (CL_INVALID_BINARY)
    NAME (CL_INVALID_BUILD_OPTIONS)
    NAME (CL_INVALID_PROGRAM)
    NAME (CL_INVALID_PROGRAM_EXECUTABLE)
    NAME (CL_INVALID_KERNEL_NAME)
    NAME (CL_INVALID_KERNEL_DEFINITION)
    NAME (CL_INVALID_KERNEL)
    NAME (CL_INVALID_ARG_INDEX)
    NAME (CL_INVALID_ARG_VALUE)
    NAME (CL_INVALID_ARG_SIZE)
    NAME (CL_INVALID_KERNEL_ARGS)
    NAME (CL_INVALID_WORK_DIMENSION)
    NAME (CL_INVALID_WORK_GROUP_SIZE)
    NAME (CL_INVALID_WORK_ITEM_SIZE)
    NAME (CL_INVALID_GLOBAL_OFFSET)
    NAME (CL_INVALID_EVENT_WAIT_LIST)
    NAME (CL_INVALID_EVENT)
    NAME (CL_INVALID_OPERATION)
    NAME (CL_INVALID_GL_OBJECT)
    NAME (CL_INVALID_BUFFER_SIZE)
    NAME (CL_INVALID_MIP_LEVEL)
    NAME (CL_INVALID_GLOBAL_WORK_SIZE)
    NAME (CL_INVALID_PROPERTY)
    NAME (CL_INVALID_IMAGE_DESCRIPTOR)
    NAME (CL_INVALID_COMPILER_OPTIONS)
    NAME (CL_INVALID_LINKER_OPTIONS)
    NAME (CL_INVALID_DEVICE_PARTITION_COUNT)
#undef NAME
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    /* CLBlast's own (clblast_c.h) */
    case -1024:
      return "CLBlastNotImplemented";
    case -1017:
      return "CLBlastInvalidDimension";
    case -2046:
      return "CLBlastInvalidLocalMemUsage";
    case -2044:
      return "CLBlastNoDoublePrecision";
    case -2041:
      return "CLBlastDatabaseError";
    case -2040:
      return "CLBlastUnknownError";
    case -2039:
      return "CLBlastUnexpectedError";
    default:
      return "unknown status";
    }
}

/* Memory that ran out is EP_ERROR_OUT_OF_MEMORY; anything else (a lost
 * device, a failed build, a bad argument) is EP_ERROR_DEVICE. Returns
 * FALSE, for `return ep_opencl_set_error (...)`. */
gboolean
ep_opencl_set_error (GError     **error,
                     EpDevice    *device,
                     const char  *op_name,
                     const char  *call,
                     cl_int       status)
{
  gint code;

  switch (status)
    {
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_RESOURCES:
    case CL_OUT_OF_HOST_MEMORY:
    case CL_INVALID_BUFFER_SIZE:
      code = EP_ERROR_OUT_OF_MEMORY;
      break;
    default:
      code = EP_ERROR_DEVICE;
      break;
    }

  if (op_name != NULL)
    g_set_error (error, EP_ERROR, code,
                 _("%s: %s failed on %s: %s (%d)"),
                 op_name, call, device->name, ep_opencl_status_name (status), status);
  else
    g_set_error (error, EP_ERROR, code,
                 _("%s failed on %s: %s (%d)"),
                 call, device->name, ep_opencl_status_name (status), status);

  return FALSE;
}

/* CL_SUCCESS, or the status an injected fault makes @call fail with.
 * Every OpenCL call that can fail in use asks first. */
cl_int
ep_opencl_take_fault (EpDevice   *device,
                      const char *call)
{
  EpOpenCLDevice *cl = ep_opencl_device (device);
  cl_int status = CL_SUCCESS;

  if (!g_atomic_int_get (&cl->fault_armed))
    return CL_SUCCESS;

  g_mutex_lock (&cl->fault_lock);
  if (cl->fault_call != NULL && g_str_equal (cl->fault_call, call))
    {
      if (cl->fault_skip > 0)
        cl->fault_skip--;
      else
        {
          status = cl->fault_status;
          cl->fault_call = NULL;
          g_atomic_int_set (&cl->fault_armed, FALSE);
        }
    }
  g_mutex_unlock (&cl->fault_lock);

  return status;
}

void
ep_opencl_inject_fault (EpDevice   *device,
                        const char *call,
                        guint       skip,
                        cl_int      status)
{
  EpOpenCLDevice *cl;

  g_return_if_fail (g_str_equal (device->backend->kind, "opencl"));

  cl = ep_opencl_device (device);
  g_mutex_lock (&cl->fault_lock);
  cl->fault_call = call;
  cl->fault_skip = skip;
  cl->fault_status = status;
  g_atomic_int_set (&cl->fault_armed, call != NULL);
  g_mutex_unlock (&cl->fault_lock);
}

/* Kernels check the element type they run on: float64 needs
 * cl_khr_fp64, which some GPUs lack. */
gboolean
ep_opencl_check_dtype (EpDevice    *device,
                       const char  *op_name,
                       EpDType      dtype,
                       GError     **error)
{
  if (dtype == EP_DTYPE_FLOAT64 && !ep_opencl_device (device)->fp64)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DEVICE,
                   _("%s: %s does not support float64 (no cl_khr_fp64); use float32 there"),
                   op_name, device->name);
      return FALSE;
    }

  return TRUE;
}

/* Memory */

cl_mem
ep_opencl_create_buffer (EpDevice    *device,
                         const char  *op_name,
                         gsize        nbytes,
                         GError     **error)
{
  EpOpenCLDevice *cl = ep_opencl_device (device);
  cl_int status;
  cl_mem mem;

  if (nbytes > cl->max_alloc)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("cannot allocate %zu bytes on %s, which allocates at most %zu bytes at once"),
                   nbytes, device->name, cl->max_alloc);
      return NULL;
    }

  /* OpenCL has no empty buffers; an empty tensor gets one byte. */
  status = ep_fault_allocation_fails () ? CL_MEM_OBJECT_ALLOCATION_FAILURE
           : ep_opencl_take_fault (device, "clCreateBuffer");
  if (status == CL_SUCCESS)
    mem = clCreateBuffer (cl->context, CL_MEM_READ_WRITE, MAX (nbytes, 1), NULL, &status);
  else
    mem = NULL;

  if (status != CL_SUCCESS)
    {
      g_autoptr(GError) cause = NULL;

      ep_opencl_set_error (&cause, device, op_name, "clCreateBuffer", status);
      g_set_error (error, EP_ERROR, cause->code,
                   _("cannot allocate %zu bytes on %s: %s"),
                   nbytes, device->name, cause->message);
      return NULL;
    }

  return mem;
}

static gboolean
opencl_alloc (EpDevice   *device,
              EpStorage  *storage,
              GError    **error)
{
  storage->handle = ep_opencl_create_buffer (device, NULL, storage->nbytes, error);

  return storage->handle != NULL;
}

/* The queue is in order: a buffer released while kernels still use it
 * lives on until they finish (OpenCL counts those references). */
static void
opencl_release (EpDevice  *device,
                EpStorage *storage)
{
  clReleaseMemObject (storage->handle);
}

static gboolean
opencl_write (EpDevice      *device,
              EpStorage     *storage,
              gsize          offset,
              gconstpointer  src,
              gsize          nbytes,
              GError       **error)
{
  EpOpenCLDevice *cl = ep_opencl_device (device);
  cl_int status;

  if (nbytes == 0)
    return TRUE;

  status = ep_opencl_take_fault (device, "clEnqueueWriteBuffer");
  if (status != CL_SUCCESS)
    return ep_opencl_set_error (error, device, NULL, "clEnqueueWriteBuffer", status);

  /* One element (a scalar operand): a fill takes its pattern at once and
   * does not wait, where a blocking write would wait for the whole queue
   * to drain first. */
  if (nbytes <= 128 && (nbytes & (nbytes - 1)) == 0 && offset % nbytes == 0)
    {
      status = clEnqueueFillBuffer (cl->queue, storage->handle, src, nbytes, offset, nbytes,
                                    0, NULL, NULL);
      if (status != CL_SUCCESS)
        return ep_opencl_set_error (error, device, NULL, "clEnqueueFillBuffer", status);
      return TRUE;
    }

  status = clEnqueueWriteBuffer (cl->queue, storage->handle, CL_TRUE, offset, nbytes, src,
                                 0, NULL, NULL);
  if (status != CL_SUCCESS)
    return ep_opencl_set_error (error, device, NULL, "clEnqueueWriteBuffer", status);

  return TRUE;
}

/* Blocking: the queue is in order, so this also waits for every kernel
 * that writes the buffer, and reports their failures. */
gboolean
ep_opencl_read_buffer (EpDevice    *device,
                       const char  *op_name,
                       cl_mem       mem,
                       gsize        offset,
                       gpointer     dest,
                       gsize        nbytes,
                       GError     **error)
{
  EpOpenCLDevice *cl = ep_opencl_device (device);
  cl_int status;

  if (nbytes == 0)
    return TRUE;

  status = ep_opencl_take_fault (device, "clEnqueueReadBuffer");
  if (status == CL_SUCCESS)
    status = clEnqueueReadBuffer (cl->queue, mem, CL_TRUE, offset, nbytes, dest, 0, NULL, NULL);
  if (status != CL_SUCCESS)
    return ep_opencl_set_error (error, device, op_name, "clEnqueueReadBuffer", status);

  return TRUE;
}

/* Fills @nbytes from @offset with @pattern; does not wait. */
gboolean
ep_opencl_fill_buffer (EpDevice      *device,
                       const char    *op_name,
                       cl_mem         mem,
                       gconstpointer  pattern,
                       gsize          pattern_size,
                       gsize          offset,
                       gsize          nbytes,
                       GError       **error)
{
  EpOpenCLDevice *cl = ep_opencl_device (device);
  cl_int status;

  if (nbytes == 0)
    return TRUE;

  status = ep_opencl_take_fault (device, "clEnqueueFillBuffer");
  if (status == CL_SUCCESS)
    status = clEnqueueFillBuffer (cl->queue, mem, pattern, pattern_size, offset, nbytes,
                                  0, NULL, NULL);
  if (status != CL_SUCCESS)
    return ep_opencl_set_error (error, device, op_name, "clEnqueueFillBuffer", status);

  return TRUE;
}

/* Flags. A check that depends on data (an index out of range, a
 * singular matrix) cannot fail a kernel: the kernel records the lowest
 * position at fault in one int (ep_flag_raise() in kernels/common.cl),
 * which the host reads after the launch. */

/* A flag that nothing raised yet (EP_CL_FLAG_NONE) */
cl_mem
ep_cl_flag_new (EpOpCall  *call,
                GError   **error)
{
  gint32 none = EP_CL_FLAG_NONE;
  cl_mem flag = ep_opencl_create_buffer (call->device, call->op->name, sizeof none, error);

  if (flag == NULL)
    return NULL;
  if (!ep_opencl_fill_buffer (call->device, call->op->name, flag, &none, sizeof none, 0,
                              sizeof none, error))
    {
      clReleaseMemObject (flag);
      return NULL;
    }

  return flag;
}

/* Waits for the kernels that write @flag and reads it: *first is the
 * lowest position they raised it at (positions from EP_CL_FLAG_LAST on
 * read as EP_CL_FLAG_LAST), or -1 if none did. */
gboolean
ep_cl_flag_read (EpOpCall  *call,
                 cl_mem     flag,
                 gint64    *first,
                 GError   **error)
{
  gint32 value = EP_CL_FLAG_NONE;

  if (!ep_opencl_read_buffer (call->device, call->op->name, flag, 0, &value, sizeof value, error))
    return FALSE;

  *first = value == EP_CL_FLAG_NONE ? -1 : value;
  return TRUE;
}

/* The first index of @indices (int64, any layout) outside [@low, @high)
 * when the kernel raised @flag at the C-order positions of such indices:
 * *position is -1 if there is none, else the position and *index the
 * index there, read back from the device. */
gboolean
ep_cl_flag_bad_index (EpOpCall  *call,
                      cl_mem     flag,
                      EpTensor  *indices,
                      gint64     low,
                      gint64     high,
                      gint64    *position,
                      gint64    *index,
                      GError   **error)
{
  const EpLayout *layout = &indices->layout;
  gint64 offset = layout->offset;
  gint64 rest;

  g_return_val_if_fail (layout->dtype == EP_DTYPE_INT64, FALSE);

  if (!ep_cl_flag_read (call, flag, position, error))
    return FALSE;
  if (*position < 0)
    return TRUE;

  if (*position == EP_CL_FLAG_LAST)
    {
      /* a clamped position (more than 2^31 indices): the first bad index
       * is there or after it, on the host */
      g_autoptr(GBytes) bytes = ep_tensor_to_bytes (indices, error);
      const gint64 *data;
      gsize n;

      if (bytes == NULL)
        return FALSE;
      data = g_bytes_get_data (bytes, &n);
      for (gsize i = *position; i < n / sizeof (gint64); i++)
        if (data[i] < low || data[i] >= high)
          {
            *position = i;
            *index = data[i];
            return TRUE;
          }
    }

  rest = *position;
  for (guint d = layout->ndim; d-- > 0;)
    {
      offset += (rest % layout->shape[d]) * layout->strides[d];
      rest /= layout->shape[d];
    }
  return ep_opencl_read_buffer (call->device, call->op->name, ep_opencl_mem (indices),
                                offset * sizeof (gint64), index, sizeof *index, error);
}

static gboolean
opencl_read (EpDevice   *device,
             EpStorage  *storage,
             gsize       offset,
             gpointer    dest,
             gsize       nbytes,
             GError    **error)
{
  return ep_opencl_read_buffer (device, NULL, storage->handle, offset, dest, nbytes, error);
}

static gboolean
opencl_synchronize (EpDevice  *device,
                    GError   **error)
{
  cl_int status = ep_opencl_take_fault (device, "clFinish");

  if (status == CL_SUCCESS)
    status = clFinish (ep_opencl_device (device)->queue);
  if (status != CL_SUCCESS)
    return ep_opencl_set_error (error, device, NULL, "clFinish", status);

  return TRUE;
}

static gboolean
opencl_supports_dtype (EpDevice *device,
                       EpDType   dtype)
{
  return dtype != EP_DTYPE_FLOAT64 || ep_opencl_device (device)->fp64;
}

static void
opencl_finalize (EpDevice *device)
{
  EpOpenCLDevice *cl = ep_opencl_device (device);

  g_hash_table_unref (cl->kernels);
  g_hash_table_unref (cl->programs);
  clReleaseCommandQueue (cl->queue);
  clReleaseContext (cl->context);
  g_free (cl->build_options);
  g_mutex_clear (&cl->lock);
  g_mutex_clear (&cl->fault_lock);
  g_free (cl);
}

static EpDeviceBackend opencl_backend = {
  .kind = "opencl",
  .alloc = opencl_alloc,
  .release = opencl_release,
  .write = opencl_write,
  .read = opencl_read,
  .synchronize = opencl_synchronize,
  .supports_dtype = opencl_supports_dtype,
  .fused_fits = ep_opencl_fused_fits,
  .run_fused = ep_opencl_run_fused,
  .finalize = opencl_finalize,
};

/* Programs */

static char *
build_log (EpOpenCLDevice *cl,
           cl_program      program)
{
  gsize size = 0;
  char *log;

  if (clGetProgramBuildInfo (program, cl->id, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS
      || size == 0)
    return g_strdup ("");

  log = g_malloc0 (size + 1);
  clGetProgramBuildInfo (program, cl->id, CL_PROGRAM_BUILD_LOG, size, log, NULL);

  /* A log can be long; the first lines say what is wrong. */
  if (strlen (log) > 2000)
    strcpy (log + 1990, "\n…");

  return g_strstrip (log);
}

/* Builds @source for @device. A failure is EP_ERROR_DEVICE with the
 * compiler's log. Also the test hook for a deliberately broken program. */
gboolean
ep_opencl_build_source (EpDevice    *device,
                        const char  *name,
                        const char  *source,
                        cl_program  *program,
                        GError     **error)
{
  EpOpenCLDevice *cl = ep_opencl_device (device);
  cl_int status;
  cl_program built;

  built = clCreateProgramWithSource (cl->context, 1, &source, NULL, &status);
  if (status != CL_SUCCESS)
    return ep_opencl_set_error (error, device, NULL, "clCreateProgramWithSource", status);

  status = ep_opencl_take_fault (device, "clBuildProgram");
  if (status == CL_SUCCESS)
    status = clBuildProgram (built, 1, &cl->id, cl->build_options, NULL, NULL);
  if (status != CL_SUCCESS)
    {
      g_autofree char *log = build_log (cl, built);

      g_autofree char *what = g_strdup_printf (_("building the OpenCL program “%s” failed on %s: %s (%d)"),
                                               name, device->name,
                                               ep_opencl_status_name (status), status);

      /* the compiler's log after the message, untranslated */
      g_set_error (error, EP_ERROR, EP_ERROR_DEVICE, "%s%s%s",
                   what, *log != '\0' ? "\n" : "", log);
      clReleaseProgram (built);
      return FALSE;
    }

  *program = built;
  return TRUE;
}

/* @prelude, kernels/common.cl, then kernels/<name>.cl for each of
 * @names: the source of a program */
char *
ep_opencl_program_text (const char         *prelude,
                        const char *const  *names,
                        guint               n_names,
                        GError            **error)
{
  GResource *resource = ep_opencl_get_resource ();
  GString *text = g_string_new (prelude);

  for (guint i = 0; i <= n_names; i++)
    {
      g_autofree char *path = g_strconcat (RESOURCE_PREFIX, i == 0 ? "common" : names[i - 1], ".cl", NULL);
      g_autoptr(GBytes) body = g_resource_lookup_data (resource, path, 0, error);

      if (body == NULL)
        {
          g_string_free (text, TRUE);
          return NULL;
        }
      g_string_append_printf (text, "\n#line 1\n%.*s",
                              (int) g_bytes_get_size (body), (const char *) g_bytes_get_data (body, NULL));
    }

  return g_string_free (text, FALSE);
}

/* The program @name, built on first use and kept: kernels/@name.cl
 * after kernels/common.cl, or what @generate makes. Called with
 * cl->lock held. */
static cl_program
get_program (EpDevice              *device,
             const char            *name,
             EpCLSourceFunc         generate,
             gconstpointer          data,
             GError               **error)
{
  EpOpenCLDevice *cl = ep_opencl_device (device);
  cl_program program = g_hash_table_lookup (cl->programs, name);
  g_autofree char *source = NULL;
  g_autoptr(GError) local_error = NULL;

  if (program != NULL)
    return program;

  if (generate != NULL)
    {
      source = generate (data, error);
      if (source == NULL)
        return NULL;
    }
  else
    {
      source = ep_opencl_program_text ("", &name, 1, &local_error);
      if (source == NULL)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_DEVICE,
                       _("the OpenCL program “%s” is missing: %s"), name, local_error->message);
          return NULL;
        }
    }

  if (!ep_opencl_build_source (device, name, source, &program, error))
    return NULL;

  g_hash_table_insert (cl->programs, g_strdup (name), program);
  return program;
}

/* Called with cl->lock held. */
static cl_kernel
get_kernel (EpDevice        *device,
            const char      *program_name,
            const char      *kernel_name,
            EpCLSourceFunc   generate,
            gconstpointer    data,
            GError         **error)
{
  EpOpenCLDevice *cl = ep_opencl_device (device);
  cl_kernel kernel = g_hash_table_lookup (cl->kernels, kernel_name);
  cl_program program;
  cl_int status;

  if (kernel != NULL)
    return kernel;

  program = get_program (device, program_name, generate, data, error);
  if (program == NULL)
    return NULL;

  kernel = clCreateKernel (program, kernel_name, &status);
  if (status != CL_SUCCESS)
    {
      ep_opencl_set_error (error, device, kernel_name, "clCreateKernel", status);
      return NULL;
    }

  g_hash_table_insert (cl->kernels, g_strdup (kernel_name), kernel);
  return kernel;
}

/* Launches */

/* Takes the device's lock until ep_cl_launch_run() (or, on failure,
 * now): kernel @kernel_name of the program @program_name, which
 * @generate makes on first use (NULL: kernels/@program_name.cl) */
static gboolean
launch_init (EpCLLaunch      *launch,
             EpDevice        *device,
             const char      *op_name,
             const char      *program_name,
             const char      *kernel_name,
             EpCLSourceFunc   generate,
             gconstpointer    data,
             GError         **error)
{
  EpOpenCLDevice *cl = ep_opencl_device (device);

  memset (launch, 0, sizeof *launch);
  launch->device = device;
  launch->cl = cl;
  launch->op_name = op_name;
  launch->kernel_name = kernel_name;

  g_mutex_lock (&cl->lock);
  launch->kernel = get_kernel (device, program_name, kernel_name, generate, data, error);
  if (launch->kernel == NULL)
    {
      g_mutex_unlock (&cl->lock);
      return FALSE;
    }

  return TRUE;
}

gboolean
ep_cl_launch_init (EpCLLaunch  *launch,
                   EpOpCall    *call,
                   const char  *program,
                   const char  *kernel_name,
                   GError     **error)
{
  return launch_init (launch, call->device, call->op->name, program, kernel_name, NULL, NULL, error);
}

/* A launch of @kernel_name of the program @program on @device, for code
 * that is not an op's kernel (the optimizers' updates). */
gboolean
ep_cl_launch_init_on (EpCLLaunch  *launch,
                      EpDevice    *device,
                      const char  *op_name,
                      const char  *program,
                      const char  *kernel_name,
                      GError     **error)
{
  return launch_init (launch, device, op_name, program, kernel_name, NULL, NULL, error);
}

/* A launch of the kernel @name of a program of its own, named @name
 * too, whose source @generate makes from @data on first use (a fused
 * group's, opencl/fused.c): one program per source, cached as the
 * others are. */
gboolean
ep_cl_launch_init_generated (EpCLLaunch      *launch,
                             EpDevice        *device,
                             const char      *op_name,
                             const char      *name,
                             EpCLSourceFunc   generate,
                             gconstpointer    data,
                             GError         **error)
{
  return launch_init (launch, device, op_name, name, name, generate, data, error);
}

void
ep_cl_launch_arg (EpCLLaunch    *launch,
                  gsize          size,
                  gconstpointer  value)
{
  cl_int status = clSetKernelArg (launch->kernel, launch->n_args++, size, value);

  if (status != CL_SUCCESS && launch->status == CL_SUCCESS)
    {
      launch->status = status;
      launch->failed_call = "clSetKernelArg";
    }
}

void
ep_cl_launch_mem (EpCLLaunch *launch,
                  cl_mem      mem)
{
  ep_cl_launch_arg (launch, sizeof (cl_mem), &mem);
}

void
ep_cl_launch_tensor (EpCLLaunch *launch,
                     EpTensor   *tensor)
{
  ep_cl_launch_mem (launch, ep_opencl_mem (tensor));
}

/* The largest power of two up to @wanted that the kernel allows. */
static gsize
pick_local_size (EpCLLaunch *launch,
                 gsize       wanted)
{
  gsize limit = launch->cl->max_work_group;
  gsize kernel_limit = 0;
  gsize local = wanted;

  if (clGetKernelWorkGroupInfo (launch->kernel, launch->cl->id, CL_KERNEL_WORK_GROUP_SIZE,
                                sizeof kernel_limit, &kernel_limit, NULL) == CL_SUCCESS
      && kernel_limit > 0)
    limit = MIN (limit, kernel_limit);

  while (local > limit)
    local /= 2;

  return MAX (local, 1);
}

/* A work-group size every launch of this kernel can use: the same for
 * every launch where possible, since some implementations (PoCL)
 * compile a kernel again for each new work-group size. */
gsize
ep_cl_launch_local_size (EpCLLaunch *launch)
{
  return pick_local_size (launch, 64);
}

/* A work-item per element: GPUs want that many, and CPU implementations
 * (PoCL) vectorize across work-items but not along a loop with a large
 * stride. Kernels loop over what is left beyond 2^30 items. */
gsize
ep_cl_launch_global_size (EpCLLaunch *launch,
                          gint64      n,
                          gsize       local)
{
  const gint64 cap = (gint64) 1 << 30;
  gint64 items = CLAMP (n, 1, cap);

  return (gsize) ((items + (gint64) local - 1) / (gint64) local) * local;
}

/* ep_cl_launch_init() for a kernel named @prefix_<item size>: kernels
 * that only move bytes. */
gboolean
ep_cl_launch_init_by_size (EpCLLaunch  *launch,
                           EpOpCall    *call,
                           const char  *program,
                           const char  *prefix,
                           gsize        itemsize,
                           GError     **error)
{
  char name[32];

  g_snprintf (name, sizeof name, "%s_%" G_GSIZE_FORMAT, prefix, itemsize);
  return ep_cl_launch_init (launch, call, program, name, error);
}

gboolean
ep_cl_launch_run (EpCLLaunch  *launch,
                  gsize        global,
                  gsize        local,
                  GError     **error)
{
  cl_int status = launch->status;
  const char *call = launch->failed_call;

  if (status == CL_SUCCESS)
    {
      call = "clEnqueueNDRangeKernel";
      status = ep_opencl_take_fault (launch->device, call);
      if (status == CL_SUCCESS)
        status = clEnqueueNDRangeKernel (launch->cl->queue, launch->kernel, 1, NULL,
                                         &global, &local, 0, NULL, NULL);
    }
  g_mutex_unlock (&launch->cl->lock);

  if (status != CL_SUCCESS)
    return ep_opencl_set_error (error, launch->device, launch->op_name, call, status);

  return TRUE;
}

/* ep_cl_launch_run() with a work-item per item, up to @n. */
gboolean
ep_cl_launch_run_items (EpCLLaunch  *launch,
                        gint64       n,
                        GError     **error)
{
  gsize local = ep_cl_launch_local_size (launch);

  return ep_cl_launch_run (launch, ep_cl_launch_global_size (launch, n, local), local, error);
}

/* Discovery */

static char *
device_string (cl_device_id   id,
               cl_device_info what)
{
  gsize size = 0;
  char *value;

  if (clGetDeviceInfo (id, what, 0, NULL, &size) != CL_SUCCESS || size == 0)
    return g_strdup ("");

  value = g_malloc0 (size + 1);
  clGetDeviceInfo (id, what, size, value, NULL);
  return g_strstrip (value);
}

static char *
platform_string (cl_platform_id   id,
                 cl_platform_info what)
{
  gsize size = 0;
  char *value;

  if (clGetPlatformInfo (id, what, 0, NULL, &size) != CL_SUCCESS || size == 0)
    return g_strdup ("");

  value = g_malloc0 (size + 1);
  clGetPlatformInfo (id, what, size, value, NULL);
  return g_strstrip (value);
}

/* "OpenCL 1.2 …": fill buffers and the kernels' needs start at 1.2. */
static gboolean
device_is_1_2 (cl_device_id id)
{
  g_autofree char *version = device_string (id, CL_DEVICE_VERSION);
  guint major = 0, minor = 0;

  if (sscanf (version, "OpenCL %u.%u", &major, &minor) != 2)
    return FALSE;

  return major > 1 || (major == 1 && minor >= 2);
}

static gboolean
has_extension (const char *extensions,
               const char *name)
{
  g_auto(GStrv) words = g_strsplit (extensions, " ", -1);

  return g_strv_contains ((const char * const *) words, name);
}

static void
release_program (gpointer program)
{
  clReleaseProgram (program);
}

static void
release_kernel (gpointer kernel)
{
  clReleaseKernel (kernel);
}

static EpDevice *
open_device (cl_platform_id   platform,
             cl_device_id     id,
             guint            index,
             char           **skip_reason)
{
  g_autofree char *name = device_string (id, CL_DEVICE_NAME);
  g_autofree char *vendor = device_string (id, CL_DEVICE_VENDOR);
  g_autofree char *extensions = device_string (id, CL_DEVICE_EXTENSIONS);
  g_autofree char *version = device_string (id, CL_DEVICE_VERSION);
  g_autofree char *platform_name = platform_string (platform, CL_PLATFORM_NAME);
  g_autofree char *device_name = g_strdup_printf ("opencl:%u", index);
  g_autofree char *description = NULL;
  cl_device_fp_config fp_config = 0;
  cl_ulong global_mem = 0, max_alloc = 0;
  gsize max_work_group = 1;
  cl_int status;
  EpOpenCLDevice *cl;
  GString *options;
  EpDevice *device;

  if (!device_is_1_2 (id))
    {
      *skip_reason = g_strdup_printf (_("%s (%s) implements %s; eager-glib needs OpenCL 1.2"),
                                      name, platform_name, version);
      return NULL;
    }

  cl = g_new0 (EpOpenCLDevice, 1);
  cl->platform = platform;
  cl->id = id;
  cl->context = clCreateContext (NULL, 1, &id, NULL, NULL, &status);
  if (status != CL_SUCCESS)
    {
      *skip_reason = g_strdup_printf (_("%s (%s): clCreateContext failed: %s (%d)"),
                                      name, platform_name, ep_opencl_status_name (status), status);
      g_free (cl);
      return NULL;
    }
  cl->queue = clCreateCommandQueue (cl->context, id, 0, &status);
  if (status != CL_SUCCESS)
    {
      *skip_reason = g_strdup_printf (_("%s (%s): clCreateCommandQueue failed: %s (%d)"),
                                      name, platform_name, ep_opencl_status_name (status), status);
      clReleaseContext (cl->context);
      g_free (cl);
      return NULL;
    }

  clGetDeviceInfo (id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global_mem, &global_mem, NULL);
  clGetDeviceInfo (id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
  clGetDeviceInfo (id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_work_group, &max_work_group, NULL);
  clGetDeviceInfo (id, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp_config, &fp_config, NULL);

  cl->fp64 = has_extension (extensions, "cl_khr_fp64");
  cl->acc_size = cl->fp64 ? sizeof (cl_double) : sizeof (cl_float);
  cl->max_alloc = max_alloc > 0 ? (gsize) MIN (max_alloc, G_MAXSIZE) : G_MAXSIZE;
  cl->max_work_group = MAX (max_work_group, 1);
  g_mutex_init (&cl->lock);
  g_mutex_init (&cl->fault_lock);
  cl->programs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, release_program);
  cl->kernels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, release_kernel);

  /* Results must match the CPU's: IEEE division and square root, no
   * contraction into fused multiply-adds (common.cl), denormals kept. */
  options = g_string_new ("-cl-std=CL1.2");
  if (fp_config & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
    g_string_append (options, " -cl-fp32-correctly-rounded-divide-sqrt");
  if (cl->fp64)
    g_string_append (options, " -DEP_FP64=1");
  /* kernels that serve several ops take the EpOpId as an argument */
  for (guint op = 0; op < EP_N_OPS; op++)
    g_string_append_printf (options, " -DEP_OP_%s=%u", ep_op_get (op)->name, op);
  cl->build_options = g_string_free (options, FALSE);

  description = g_strdup_printf ("%s (%s, %s)", name, platform_name, version);
  device = ep_device_new (&opencl_backend, device_name, description, vendor,
                          global_mem, FALSE, cl);

  return device;
}

static void
register_kernels (void)
{
  ep_opencl_register_creation (opencl_backend.kernels);
  ep_opencl_register_random (opencl_backend.kernels);
  ep_opencl_register_cast (opencl_backend.kernels);
  ep_opencl_register_elementwise (opencl_backend.kernels);
  ep_opencl_register_math (opencl_backend.kernels);
  ep_opencl_register_logical (opencl_backend.kernels);
  ep_opencl_register_reduce (opencl_backend.kernels);
  ep_opencl_register_scan (opencl_backend.kernels);
  ep_opencl_register_sort (opencl_backend.kernels);
  ep_opencl_register_softmax (opencl_backend.kernels);
  ep_opencl_register_norm (opencl_backend.kernels);
  ep_opencl_register_join (opencl_backend.kernels);
  ep_opencl_register_index (opencl_backend.kernels);
  ep_opencl_register_linalg (opencl_backend.kernels);
  ep_opencl_register_lapack (opencl_backend.kernels);
  ep_opencl_register_conv (opencl_backend.kernels);
  ep_opencl_register_pool (opencl_backend.kernels);
  ep_opencl_register_fft (opencl_backend.kernels);
  ep_opencl_register_collective (opencl_backend.kernels);
}

/* Adds opencl:0, opencl:1, … for every usable device of every platform,
 * in the order the ICD loader lists them. When there is none, says why
 * in @unavailable_reason. */
void
ep_opencl_discover (GPtrArray  *devices,
                    char      **unavailable_reason)
{
  g_autofree cl_platform_id *platforms = NULL;
  g_autoptr(GString) skipped = g_string_new (NULL);
  cl_uint n_platforms = 0;
  guint index = 0;
  cl_int status;

  register_kernels ();
  ep_opencl_register_resource ();

  status = clGetPlatformIDs (0, NULL, &n_platforms);
  if (status != CL_SUCCESS || n_platforms == 0)
    {
      if (status != CL_SUCCESS)
        *unavailable_reason = g_strdup_printf (_("no OpenCL platform: clGetPlatformIDs failed: %s (%d); is an OpenCL driver (ICD) installed?"),
                                               ep_opencl_status_name (status), status);
      else
        *unavailable_reason = g_strdup (_("no OpenCL platform: no OpenCL driver (ICD) is installed"));
      return;
    }

  platforms = g_new0 (cl_platform_id, n_platforms);
  clGetPlatformIDs (n_platforms, platforms, NULL);

  for (cl_uint p = 0; p < n_platforms; p++)
    {
      g_autofree cl_device_id *ids = NULL;
      cl_uint n_ids = 0;

      status = clGetDeviceIDs (platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &n_ids);
      if (status != CL_SUCCESS || n_ids == 0)
        {
          g_autofree char *platform_name = platform_string (platforms[p], CL_PLATFORM_NAME);

          if (skipped->len > 0)
            g_string_append (skipped, "; ");
          g_string_append_printf (skipped, _("%s has no devices"), platform_name);
          continue;
        }

      ids = g_new0 (cl_device_id, n_ids);
      clGetDeviceIDs (platforms[p], CL_DEVICE_TYPE_ALL, n_ids, ids, NULL);
      for (cl_uint d = 0; d < n_ids; d++)
        {
          g_autofree char *skip_reason = NULL;
          EpDevice *device = open_device (platforms[p], ids[d], index, &skip_reason);

          if (device == NULL)
            {
              g_debug ("OpenCL device skipped: %s", skip_reason);
              g_string_append_printf (skipped, "%s%s", skipped->len > 0 ? "; " : "", skip_reason);
              continue;
            }
          g_debug ("%s: %s", device->name, device->description);
          g_ptr_array_add (devices, device);
          index++;
        }
    }

  if (index == 0)
    *unavailable_reason = g_strdup_printf (_("no usable OpenCL device: %s"), skipped->str);
}
