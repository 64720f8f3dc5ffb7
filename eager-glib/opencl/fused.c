/* fused.c: fused elementwise groups on OpenCL (EP_NODE_FUSED)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A group made by graph/passes/fuse.c on an OpenCL device runs as one
 * generated kernel: each work-item reads its element of every input
 * and calls the group's steps one after the other, so the intermediates
 * live in registers and the memory is read and written once. The steps
 * are the elementwise families' own cases (kernels/common.cl turns them
 * into functions, ep_fn_<op>_<type>, under EP_FUSED), so each element is
 * computed as the unfused kernels compute it, bit for bit.
 *
 * The kernel's source is made at the group's first run and named after
 * its hash: the device's program cache builds each distinct group once,
 * whichever function or trace it comes from.
 */

#include "config.h"

#include <string.h>

#include "ep-fuse-private.h"
#include "ep-opencl-private.h"
#include "ep-tensor-private.h"

/* Inputs of a group, and the output: the map (EP_CL_MAP_WORDS) stays
 * within the 1024 bytes of arguments every device takes */
#define MAX_INPUTS 7

typedef struct
{
  char *name;      /* fused_<hash>, of its program and its kernel */
  char *source;    /* what follows kernels/common.cl and the families */
  GStrv families;  /* the families' programs its steps call */
  guint n_inputs;
} FusedKernel;

static void
fused_kernel_free (gpointer data)
{
  FusedKernel *kernel = data;

  g_free (kernel->name);
  g_free (kernel->source);
  g_strfreev (kernel->families);
  g_free (kernel);
}

static const char *
cl_type (EpDType dtype)
{
  static const char *const types[] = { "float", "double", "int", "long", "uchar", "uchar", "char", "short" };

  return types[dtype];
}

/* The type register @r of @program holds */
static EpDType
register_dtype (EpFusedProgram *program,
                guint           r)
{
  return r < program->n_externals ? program->external_dtypes[r]
                                  : program->steps[r - program->n_externals].dtype;
}

/* The kernel's text: a loop over the output's elements that reads each
 * input's and runs the steps on them */
static char *
kernel_text (EpFusedProgram *program)
{
  GString *text = g_string_new (NULL);
  guint n_ext = program->n_externals;
  guint last = n_ext + program->n_steps - 1;

  g_string_append_printf (text, "__kernel void\nEP_FUSED_KERNEL (__global %s *out",
                          cl_type (register_dtype (program, last)));
  for (guint e = 0; e < n_ext; e++)
    g_string_append_printf (text, ",\n  __global const %s *in%u", cl_type (program->external_dtypes[e]), e);
  g_string_append (text, ",\n  const EpMap g)\n{\n"
                         "  for (long i = get_global_id (0); i < g.n; i += get_global_size (0))\n"
                         "    {\n");
  for (guint e = 0; e < n_ext; e++)
    g_string_append_printf (text, "      const %s r%u = in%u[ep_map_offset (&g, %u, i)];\n",
                            cl_type (program->external_dtypes[e]), e, e, e + 1);
  for (guint k = 0; k < program->n_steps; k++)
    {
      const EpFusedStep *step = &program->steps[k];

      g_string_append_printf (text, "      const %s r%u = ep_fn_%s_%s (r%u",
                              cl_type (step->dtype), n_ext + k, step->op->name,
                              cl_type (step->in_dtype), step->inputs[0]);
      if (step->n_inputs == 2)
        g_string_append_printf (text, ", r%u", step->inputs[1]);
      g_string_append (text, ");\n");
    }
  g_string_append_printf (text, "      out[i] = r%u;\n    }\n}\n", last);

  return g_string_free (text, FALSE);
}

/* The families the steps come from, each once */
static GStrv
families_of (EpFusedProgram *program)
{
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();
  const char *seen[EP_N_OPS];
  guint n_seen = 0;

  for (guint k = 0; k < program->n_steps; k++)
    {
      const char *family = ep_cl_group_program (program->steps[k].op->id);
      gboolean known = FALSE;

      for (guint f = 0; f < n_seen && !known; f++)
        known = g_str_equal (seen[f], family);
      if (!known)
        {
          seen[n_seen++] = family;
          g_strv_builder_add (names, family);
        }
    }

  return g_strv_builder_end (names);
}

static FusedKernel *
fused_kernel_new (EpFusedProgram *program)
{
  FusedKernel *kernel = g_new0 (FusedKernel, 1);
  g_autofree char *hash = NULL;
  g_autofree char *families = NULL;
  g_autofree char *keyed = NULL;

  kernel->source = kernel_text (program);
  kernel->families = families_of (program);
  kernel->n_inputs = program->n_externals;
  families = g_strjoinv (" ", kernel->families);
  keyed = g_strconcat (families, "\n", kernel->source, NULL);
  hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, keyed, -1);
  kernel->name = g_strdup_printf ("fused_%.24s", hash);

  return kernel;
}

/* The group's kernel, made once */
static FusedKernel *
fused_kernel (EpFusedProgram *program)
{
  if (g_once_init_enter (&program->device_kernel))
    {
      program->device_kernel_free = fused_kernel_free;
      g_once_init_leave (&program->device_kernel, fused_kernel_new (program));
    }

  return program->device_kernel;
}

/* EpCLSourceFunc: the program of a fused kernel */
static char *
generate (gconstpointer   data,
          GError        **error)
{
  const FusedKernel *kernel = data;
  g_autofree char *prelude = NULL;
  g_autofree char *text = NULL;

  prelude = g_strdup_printf ("#define EP_FUSED 1\n#define EP_MAP_OPERANDS %u\n"
                             "#define EP_FUSED_KERNEL %s\n", kernel->n_inputs + 1, kernel->name);
  text = ep_opencl_program_text (prelude, (const char *const *) kernel->families,
                                 g_strv_length (kernel->families), error);
  if (text == NULL)
    return NULL;

  return g_strconcat (text, "\n#line 1\n", kernel->source, NULL);
}

/* EpDeviceBackend.fused_fits: a group of ops that have cases in the
 * families' group kernels, in types the device has, with few enough
 * inputs, and no sum */
gboolean
ep_opencl_fused_fits (EpDevice       *device,
                      EpFusedProgram *program)
{
  if (program->reduce || program->n_externals > MAX_INPUTS)
    return FALSE;

  for (guint e = 0; e < program->n_externals; e++)
    if (!device->backend->supports_dtype (device, program->external_dtypes[e]))
      return FALSE;
  for (guint k = 0; k < program->n_steps; k++)
    {
      const EpFusedStep *step = &program->steps[k];

      if (step->device != device || ep_cl_group_program (step->op->id) == NULL
          || !device->backend->supports_dtype (device, step->dtype))
        return FALSE;
    }

  return TRUE;
}

/* The output's layout: the inputs' shapes broadcast, contiguous; FALSE
 * where the inputs met do not fit the kernel (another device, another
 * type than traced) */
static gboolean
output_layout (EpDevice        *device,
               EpFusedProgram  *program,
               EpTensor *const *inputs,
               EpLayout        *out)
{
  EpLayout shape = { .ndim = 0 };

  for (guint e = 0; e < program->n_externals; e++)
    {
      EpLayout so_far = shape;

      if (inputs[e]->storage == NULL || inputs[e]->storage->device != device
          || inputs[e]->layout.dtype != program->external_dtypes[e]
          || !ep_fused_broadcast (&so_far, &inputs[e]->layout, &shape))
        return FALSE;
    }

  return ep_layout_init (out, program->steps[program->n_steps - 1].dtype,
                         shape.shape, shape.ndim, "fused", NULL);
}

/* EpDeviceBackend.run_fused */
gboolean
ep_opencl_run_fused (EpDevice         *device,
                     EpFusedProgram   *program,
                     EpTensor *const  *inputs,
                     EpFusedAllocFunc  alloc,
                     gpointer          alloc_data,
                     EpLayout         *layout,
                     EpStorage       **storage,
                     gboolean         *ran,
                     GError          **error)
{
  const EpLayout *input_layouts[MAX_INPUTS];
  cl_long map[EP_CL_MAP_WORDS (MAX_INPUTS)];
  FusedKernel *kernel;
  EpCLLaunch launch;
  gsize nbytes, local;

  *ran = program->n_externals <= MAX_INPUTS && output_layout (device, program, inputs, layout)
         && ep_layout_compute_nbytes (layout, &nbytes);
  if (!*ran)
    return TRUE;

  *storage = alloc (alloc_data, 0, layout, nbytes, error);
  if (*storage == NULL)
    return FALSE;
  if (ep_layout_get_size (layout) == 0)
    return TRUE;

  for (guint e = 0; e < program->n_externals; e++)
    input_layouts[e] = &inputs[e]->layout;
  ep_cl_map_fill (map, program->n_externals + 1, layout, input_layouts, program->n_externals);

  kernel = fused_kernel (program);
  if (!ep_cl_launch_init_generated (&launch, device, "fused", kernel->name, generate, kernel, error))
    {
      g_clear_pointer (storage, ep_storage_unref);
      return FALSE;
    }
  ep_cl_launch_mem (&launch, (*storage)->handle);
  for (guint e = 0; e < program->n_externals; e++)
    ep_cl_launch_tensor (&launch, inputs[e]);
  ep_cl_launch_arg (&launch, EP_CL_MAP_WORDS (program->n_externals) * sizeof (cl_long), map);

  local = ep_cl_launch_local_size (&launch);
  if (!ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, map[0], local), local, error))
    {
      g_clear_pointer (storage, ep_storage_unref);
      return FALSE;
    }

  return TRUE;
}
