/* ep-opencl-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The OpenCL device: one EpDeviceBackend for every OpenCL device found.
 * Storage is a cl_mem (EpStorage.handle); kernels live in .cl files under kernels/,
 * embedded as a GResource, built once per device on first use and
 * cached. Every OpenCL failure becomes a GError naming the device.
 */

#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "ep-device-private.h"
#include "ep-op-private.h"
#include "ep-variable.h"

G_BEGIN_DECLS

#define EP_CL_MAX_OPERANDS 4

typedef struct _EpOpenCLDevice EpOpenCLDevice;

struct _EpOpenCLDevice
{
  cl_platform_id    platform;
  cl_device_id      id;
  cl_context        context;
  cl_command_queue  queue;
  gboolean          fp64;
  char             *build_options;
  gsize             max_alloc;
  gsize             max_work_group;
  gsize             acc_size;       /* ep_acc of kernels/common.cl */

  /* Guards the caches and every sequence of clSetKernelArg and enqueue:
   * a cl_kernel holds its arguments and is not thread-safe. */
  GMutex            lock;
  GHashTable       *programs;      /* program name -> cl_program */
  GHashTable       *kernels;       /* kernel name -> cl_kernel */

  /* Test hook: a call to fail (ep_opencl_inject_fault). */
  gint              fault_armed;
  GMutex            fault_lock;
  const char       *fault_call;
  guint             fault_skip;
  cl_int            fault_status;
};

/*
 * EpCLMap:
 *
 * An elementwise geometry, passed to kernels by value (kernels/common.cl
 * has the same struct). Operand 0 is the contiguous output; the others
 * are inputs seen through broadcast strides, in elements, with the
 * dimensions collapsed as far as every operand allows. @kinds says
 * how to index each operand: EP_CL_STRIDED, EP_CL_CONTIGUOUS (element i
 * at offset + i) or EP_CL_SCALAR (always at offset).
 */
enum {
  EP_CL_STRIDED,
  EP_CL_CONTIGUOUS,
  EP_CL_SCALAR,
};

typedef struct
{
  cl_long n;
  cl_long ndim;
  cl_long shape[EP_MAX_DIMS];
  cl_long offsets[EP_CL_MAX_OPERANDS];
  cl_long kinds[EP_CL_MAX_OPERANDS];
  cl_long strides[EP_CL_MAX_OPERANDS][EP_MAX_DIMS];
} EpCLMap;

/* The words of an EpMap of @n_inputs inputs and the output (the
 * EP_MAP_OPERANDS of a fused program) */
#define EP_CL_MAP_WORDS(n_inputs) (2 + EP_MAX_DIMS + ((n_inputs) + 1) * (2 + EP_MAX_DIMS))

/*
 * EpCLReduce:
 *
 * A reduction seen as @m outputs of @k elements each: the input's kept
 * dimensions (@out_shape, with the input's strides) pick an output's
 * first element, its reduced dimensions (@red_shape) the elements of
 * that output. Also in kernels/common.cl.
 */
typedef struct
{
  cl_long m;
  cl_long k;
  cl_long offset;
  cl_long out_ndim;
  cl_long red_ndim;
  cl_long out_shape[EP_MAX_DIMS];
  cl_long out_strides[EP_MAX_DIMS];
  cl_long red_shape[EP_MAX_DIMS];
  cl_long red_strides[EP_MAX_DIMS];
} EpCLReduce;

/*
 * EpCLRows:
 *
 * The rows along one axis of up to three operands whose other
 * dimensions agree: row r of operand k starts at offsets[k] plus r
 * unravelled over (outer_shape, outer_strides[k]) and steps by
 * axis_strides[k]. Also in kernels/common.cl.
 */
typedef struct
{
  cl_long rows;
  cl_long length;
  cl_long outer_ndim;
  cl_long outer_shape[EP_MAX_DIMS];
  cl_long offsets[3];
  cl_long axis_strides[3];
  cl_long outer_strides[3][EP_MAX_DIMS];
} EpCLRows;

/* Elementwise ops that share one kernel per type, <group>_<type>
 * (ep_cl_register_groups): the list of ops ends at the first 0. */
typedef struct
{
  const char *group;
  EpOpId      ops[24];
} EpCLGroup;

/* A kernel launch being prepared: arguments are set in order; the first
 * failure is kept and reported by ep_cl_launch_run(). */
typedef struct
{
  EpDevice       *device;
  EpOpenCLDevice *cl;
  const char     *op_name;
  cl_kernel       kernel;
  const char     *kernel_name;
  cl_uint         n_args;
  cl_int          status;
  const char     *failed_call;
} EpCLLaunch;

/* device.c (and ep_opencl_discover in ep-device-private.h) */
gboolean     ep_opencl_set_error         (GError        **error,
                                          EpDevice       *device,
                                          const char     *op_name,
                                          const char     *call,
                                          cl_int          status);
const char  *ep_opencl_status_name       (cl_int          status);
cl_int       ep_opencl_take_fault        (EpDevice       *device,
                                          const char     *call);
gboolean     ep_opencl_check_dtype       (EpDevice       *device,
                                          const char     *op_name,
                                          EpDType         dtype,
                                          GError        **error);
gboolean     ep_opencl_build_source      (EpDevice       *device,
                                          const char     *name,
                                          const char     *source,
                                          cl_program     *program,
                                          GError        **error);
cl_mem       ep_opencl_create_buffer     (EpDevice       *device,
                                          const char     *op_name,
                                          gsize           nbytes,
                                          GError        **error);
gboolean     ep_opencl_fill_buffer       (EpDevice       *device,
                                          const char     *op_name,
                                          cl_mem          mem,
                                          gconstpointer   pattern,
                                          gsize           pattern_size,
                                          gsize           offset,
                                          gsize           nbytes,
                                          GError        **error);
gboolean     ep_opencl_read_buffer       (EpDevice       *device,
                                          const char     *op_name,
                                          cl_mem          mem,
                                          gsize           offset,
                                          gpointer        dest,
                                          gsize           nbytes,
                                          GError        **error);

/* device.c: flags, for checks that depend on data. A kernel raises a
 * flag (ep_flag_raise() in kernels/common.cl) at the lowest position at
 * fault, clamped to EP_CL_FLAG_LAST; EP_CL_FLAG_NONE: not raised. */
#define EP_CL_FLAG_NONE G_MAXINT32
#define EP_CL_FLAG_LAST (G_MAXINT32 - 1)

cl_mem       ep_cl_flag_new              (EpOpCall       *call,
                                          GError        **error);
gboolean     ep_cl_flag_read             (EpOpCall       *call,
                                          cl_mem          flag,
                                          gint64         *first,
                                          GError        **error);
gboolean     ep_cl_flag_bad_index        (EpOpCall       *call,
                                          cl_mem          flag,
                                          EpTensor       *indices,
                                          gint64          low,
                                          gint64          high,
                                          gint64         *position,
                                          gint64         *index,
                                          GError        **error);

/* Test hook (tests/c): after @skip more calls of @call ("clCreateBuffer",
 * "clEnqueueNDRangeKernel", "CLBlast", …) on @device, the next one fails
 * with @status, as with a lost device or a full memory. */
void         ep_opencl_inject_fault      (EpDevice       *device,
                                          const char     *call,
                                          guint           skip,
                                          cl_int          status);

static inline EpOpenCLDevice *
ep_opencl_device (EpDevice *device)
{
  return device->backend_data;
}

static inline cl_mem
ep_opencl_mem (EpTensor *tensor)
{
  return tensor->storage->handle;
}

/* device.c: launches */
typedef char *(*EpCLSourceFunc) (gconstpointer   data,
                                 GError        **error);

char        *ep_opencl_program_text      (const char         *prelude,
                                          const char *const  *names,
                                          guint               n_names,
                                          GError            **error);
gboolean     ep_cl_launch_init           (EpCLLaunch     *launch,
                                          EpOpCall       *call,
                                          const char     *program,
                                          const char     *kernel_name,
                                          GError        **error);
gboolean     ep_cl_launch_init_on        (EpCLLaunch     *launch,
                                          EpDevice       *device,
                                          const char     *op_name,
                                          const char     *program,
                                          const char     *kernel_name,
                                          GError        **error);
gboolean     ep_cl_launch_init_generated (EpCLLaunch      *launch,
                                          EpDevice        *device,
                                          const char      *op_name,
                                          const char      *name,
                                          EpCLSourceFunc   generate,
                                          gconstpointer    data,
                                          GError         **error);
void         ep_cl_launch_arg            (EpCLLaunch     *launch,
                                          gsize           size,
                                          gconstpointer   value);
void         ep_cl_launch_mem            (EpCLLaunch     *launch,
                                          cl_mem          mem);
void         ep_cl_launch_tensor         (EpCLLaunch     *launch,
                                          EpTensor       *tensor);
gboolean     ep_cl_launch_run            (EpCLLaunch     *launch,
                                          gsize           global,
                                          gsize           local,
                                          GError        **error);
gsize        ep_cl_launch_global_size    (EpCLLaunch     *launch,
                                          gint64          n,
                                          gsize           local);
gsize        ep_cl_launch_local_size     (EpCLLaunch     *launch);
gboolean     ep_cl_launch_init_by_size   (EpCLLaunch     *launch,
                                          EpOpCall       *call,
                                          const char     *program,
                                          const char     *prefix,
                                          gsize           itemsize,
                                          GError        **error);
gboolean     ep_cl_launch_run_items      (EpCLLaunch     *launch,
                                          gint64          n,
                                          GError        **error);

/* optimizer.c: the fused update @kernel ("adam_update", …) of a
 * variable and its slots (@state: the variable, then up to three slots,
 * NULL where absent), in place. @ran is FALSE when it cannot run (a
 * value not on an OpenCL device, shared, not contiguous; no float64 on
 * the device): the caller's ops do the update then. FALSE with @error
 * set if the launch failed. */
gboolean     ep_opencl_optimizer_update  (const char     *kernel,
                                          EpVariable    **state,
                                          EpTensor       *gradient,
                                          const gdouble  *constants,
                                          gint            flags,
                                          gboolean       *ran,
                                          GError        **error);

/* geometry.c */
void         ep_cl_map_init              (EpCLMap        *map,
                                          EpOpCall       *call);
void         ep_cl_map_fill              (cl_long               *words,
                                          guint                  n_slots,
                                          const EpLayout        *out,
                                          const EpLayout *const *inputs,
                                          guint                  n_inputs);
void         ep_cl_reduce_init           (EpCLReduce     *reduce,
                                          const EpLayout *input,
                                          const gint     *axes,
                                          guint           n_axes);
void         ep_cl_rows_init             (EpCLRows       *rows,
                                          const EpLayout *const *layouts,
                                          guint           n_layouts,
                                          guint           axis,
                                          gint64          length);
void         ep_cl_flat_layout           (const EpLayout *layout,
                                          EpLayout       *flat);
const char  *ep_cl_dtype_suffix          (EpDType         dtype);
gboolean     ep_cl_map_kernel            (EpOpCall       *call,
                                          const char     *program,
                                          const char     *kernel_name,
                                          GError        **error);
gboolean     ep_cl_map_kernel_with       (EpOpCall       *call,
                                          const char     *program,
                                          const char     *kernel_name,
                                          cl_int          selector,
                                          GError        **error);
const char  *ep_cl_group_program         (EpOpId          op);
void         ep_cl_register_groups       (EpKernelFunc   *kernels,
                                          const char     *program,
                                          const EpCLGroup *groups,
                                          guint           n_groups);
guint        ep_cl_axis_or_flat          (const EpOpCall *call,
                                          EpLayout       *in_layout);
gboolean     ep_cl_rows_kernel           (EpOpCall       *call,
                                          const char     *program,
                                          const char     *kernel_name,
                                          EpTensor       *out,
                                          EpTensor       *in,
                                          const EpCLRows *rows,
                                          GError        **error);

/* the op families: <family>.c */
void         ep_opencl_register_creation    (EpKernelFunc *kernels);

/* fused.c: fused elementwise groups as generated kernels */
gboolean     ep_opencl_fused_fits           (EpDevice         *device,
                                             EpFusedProgram   *program);
gboolean     ep_opencl_run_fused            (EpDevice         *device,
                                             EpFusedProgram   *program,
                                             EpTensor *const  *inputs,
                                             EpFusedAllocFunc  alloc,
                                             gpointer          alloc_data,
                                             EpLayout         *layout,
                                             EpStorage       **storage,
                                             gboolean         *ran,
                                             GError          **error);

void         ep_opencl_register_random      (EpKernelFunc *kernels);
void         ep_opencl_register_cast        (EpKernelFunc *kernels);
void         ep_opencl_register_elementwise (EpKernelFunc *kernels);
void         ep_opencl_register_math        (EpKernelFunc *kernels);
void         ep_opencl_register_logical     (EpKernelFunc *kernels);
void         ep_opencl_register_reduce      (EpKernelFunc *kernels);
void         ep_opencl_register_scan        (EpKernelFunc *kernels);
void         ep_opencl_register_sort        (EpKernelFunc *kernels);
void         ep_opencl_register_softmax     (EpKernelFunc *kernels);
void         ep_opencl_register_norm        (EpKernelFunc *kernels);
void         ep_opencl_register_join        (EpKernelFunc *kernels);
void         ep_opencl_register_index       (EpKernelFunc *kernels);
void         ep_opencl_register_linalg      (EpKernelFunc *kernels);
void         ep_opencl_register_lapack      (EpKernelFunc *kernels);
void         ep_opencl_register_conv        (EpKernelFunc *kernels);

void         ep_opencl_register_pool        (EpKernelFunc *kernels);
void         ep_opencl_register_fft         (EpKernelFunc *kernels);
/* issue 18: the collectives, and the host round trip they share with
 * lapack.c (the inputs read in C order, the CPU's kernel, the outputs
 * written back) */
void         ep_opencl_register_collective  (EpKernelFunc *kernels);
gboolean     ep_opencl_on_host              (EpOpCall     *call,
                                             GError      **error);

G_END_DECLS
