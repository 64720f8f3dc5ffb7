/* ep-op-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-scalar-private.h"
#include "ep-tensor-private.h"

G_BEGIN_DECLS

#define EP_MAX_OUTPUTS 4

typedef enum {
#define EP_OP(family, ID, name) EP_OP_##ID,
#define EP_FUNC(family, name)
#include "ep-op-list-private.h"
#undef EP_OP
#undef EP_FUNC
  EP_N_OPS
} EpOpId;

typedef struct _EpOpDef EpOpDef;
typedef struct _EpOpCall EpOpCall;

/*
 * EpOpAttrs:
 *
 * The non-tensor arguments of an op, as plain values so that tapes and
 * traced graphs can copy them and a graph file can store them: no
 * pointer but the device. Each op's schema (EpOpDef.attrs) names the
 * fields it uses; the shared ones come first, the others are grouped by
 * op in the union. The op's rule canonicalizes them (negative axes made
 * positive, -1 in a shape resolved); kernels see canonical values.
 *
 * Lists keep their true length even past their room (see
 * ep_op_attrs_set_list()): dispatch refuses such a call, by the schema,
 * before any rule reads the list.
 */
typedef struct
{
  /* axes: a list, or all of them (reductions, permutations, flips); ops
   * along one axis keep it in axes[0] */
  gint      axes[EP_MAX_DIMS];
  guint     n_axes;
  gboolean  all_axes;
  gboolean  keepdims;
  /* a shape: of the output (creation, random), or the target (reshape,
   * broadcast_to) */
  gint64    shape[EP_MAX_DIMS];
  guint     ndim;
  EpDType   dtype;
  /* where the output goes, when the call says (creation, to_device, and
   * dispatch's own conversions); NULL: the placement rule decides */
  EpDevice *device;
  union
  {
    struct { EpNumber value; } full;
    struct { EpNumber start, stop, step; } arange;
    struct { gdouble start, stop; gint64 num; gboolean endpoint; } linspace;
    struct { gint64 n, m, k; } eye;
    struct { gdouble value; } onehot;
    /* a, b: low and high (uniform), mean and stddev (normal) */
    struct { guint64 seed, stream; gdouble a, b; } random;
    struct { gdouble min, max; } clip;
    struct { EpGeluApproximation approximate; } gelu;
    struct { gdouble rtol, atol; gboolean equal_nan; } isclose;
    struct { gint64 k; gboolean sorted; } topk;
    /* ops/lapack.c: svd's full_matrices, eigh's upper */
    struct { gboolean full_matrices, upper; } lapack;
    struct { gint64 reps[EP_MAX_DIMS]; guint n_reps; } tile;
    struct { gint64 paddings[2 * EP_MAX_DIMS]; guint n_paddings; EpPadMode mode; gdouble value; } pad;
    struct
    {
      gint64 starts[EP_MAX_DIMS], stops[EP_MAX_DIMS], steps[EP_MAX_DIMS];
      guint  n_starts, n_stops, n_steps;
    } slice;
    /* conv2d and its gradients: (height, width) pairs; an empty list is
     * the default, one value stands for both (the rule makes them two) */
    struct
    {
      gint64       strides[2], padding[2], dilation[2];
      guint        n_strides, n_padding, n_dilation;
      gint64       groups;
      EpDataFormat data_format;
    } conv;
    /* ops/pool.c: (height, width) pairs once canonical; the input's
     * shape, for avg_pool2d_grad, in the shared shape */
    struct
    {
      gint64       kernel[2], strides[2], padding[2], dilation[2];
      guint        n_kernel, n_strides, n_padding, n_dilation;
      gboolean     ceil_mode, count_include_pad;
      EpDataFormat format;
    } pool;
    /* norm: layer_norm, batch_norm */
    struct { gdouble epsilon; gboolean training; EpDataFormat data_format; } norm;
    /* ops/fft.c: the transform's length along axes[0] (-1: the
     * input's; canonical: the length) and its scaling */
    struct { gint64 n; EpFftNorm norm; } fft;
    /* issue 17 (ops) */
    struct { EpSearchSide side; } searchsorted;
    struct { gint64 minlength; } bincount;
    /* issue 18: ops/collective.c (root: broadcast's) */
    struct { EpReduceOp op; gint64 root; } collective;
  };
} EpOpAttrs;

/*
 * EpOpCall:
 *
 * One call of an op on its way through ep_dispatch(). The rule fills the
 * output layouts and may ask for inputs to be cast (@input_dtypes) or
 * made contiguous (@contiguous_inputs, a bit per input). Kernels and
 * recorders see the inputs after those conversions.
 */
struct _EpOpCall
{
  const EpOpDef  *op;
  EpTensor      **inputs;
  guint           n_inputs;
  EpOpAttrs       attrs;
  /* the attributes as the caller gave them, before the rule made them
   * canonical (NULL: none given, the zeros of ep_op_attrs_init()): what
   * a tracer keeps, so that a replay on other shapes runs the rule again
   * from them */
  const EpOpAttrs *given_attrs;
  EpDType        *input_dtypes;
  guint32         contiguous_inputs;
  EpLayout        output_layouts[EP_MAX_OUTPUTS];
  guint           n_outputs;
  EpDevice       *device;
  EpTensor       *outputs[EP_MAX_OUTPUTS];
};

typedef gboolean (*EpInferFunc)    (EpOpCall        *call,
                                    GError         **error);
typedef gboolean (*EpKernelFunc)   (EpOpCall        *call,
                                    GError         **error);
/*
 * EpGradFunc:
 * @call: the recorded call: its inputs, attributes and outputs
 * @output_grads: one gradient per output, never %NULL
 * @input_grads: (out): one gradient per input, shaped like the input,
 *   or %NULL where the input gets no gradient
 *
 * Written with public ops only, so that the backward pass is dispatched
 * like any other code and outer tapes and tracers record it.
 */
typedef gboolean (*EpGradFunc)     (const EpOpCall  *call,
                                    EpTensor *const *output_grads,
                                    EpTensor       **input_grads,
                                    GError         **error);

typedef enum {
  EP_OP_FLAG_NONE = 0,
  /* The output is a view of input 0: it shares that storage, so it lives
   * on that device; no kernel runs. */
  EP_OP_FLAG_VIEW = 1 << 0,
  /* The kernel reads input 0 where it lives and writes the output on the
   * op's device: dispatch does not move the input (to_device, which is
   * what moving is). */
  EP_OP_FLAG_TRANSFER = 1 << 1,
  /* The rule reads the data of some inputs (ep_op_read_input()), not only
   * their layouts: the output's shape (mask) or the validity of the call
   * (no negative integer exponents for pow) depends on values. A tracer
   * cannot assume such an op keeps its output shape, or stays valid, for
   * other input values. (Indices out of range are not such a check: the
   * kernels of take and the scatters find them.) */
  EP_OP_FLAG_READS_DATA = 1 << 2,
  /* The kernel checks the values of some inputs (indices in range) and
   * fails on bad ones, so it runs even when every output is empty, as an
   * empty gather with a bad index is still an error. */
  EP_OP_FLAG_CHECKS_DATA = 1 << 4,
  /* Each call draws new random numbers: its seed and stream
   * (attrs.random) are the library's state, which a replay of a staged
   * call advances (ep_random_next_stream()). */
  EP_OP_FLAG_RANDOM = 1 << 5,
  /* No public function has the op's signature: identity is internal,
   * custom_gradient takes callbacks. Bindings do not wrap it. */
  EP_OP_FLAG_NO_FUNCTION = 1 << 3,
  /* The output's shape depends on the values of an input (mask, with
   * EP_OP_FLAG_READS_DATA): a traced gradient rule holds the shapes it
   * saw, so gradients through a staged call of a graph with such an op
   * are taken op by op (graph/staged-gradient.c). */
  EP_OP_FLAG_DATA_SHAPED = 1 << 6,
  /* The op takes the narrow integer types (uint8, int8 and int16:
   * ep_dtype_is_narrow_int()) as tensors and as a dtype attribute: it
   * moves or converts their elements (astype, contiguous, to_device,
   * concatenate, tile, pad; views take them without the flag) or has
   * kernels for them. The other ops refuse them in their checks
   * (ep_op_check_call()): convert with astype first. */
  EP_OP_FLAG_UINT8 = 1 << 7,
  /* issue 18: the call talks to other processes (ops/collective.c):
   * every call runs, in order: the graph passes neither fold, CSE,
   * prune nor fuse it, a replay runs it each time, and its kernel runs
   * even for empty tensors (the processes agree on the shapes first). */
  EP_OP_FLAG_COLLECTIVE = 1 << 8,
} EpOpFlags;

/*
 * The op schema: what each op takes and gives, declared once next to its
 * rule (in the spirit of libvips's argument declarations). Dispatch checks
 * calls against it (ep_op_check_call()); the catalogue (ep_list_ops())
 * publishes it, and the Python override, its stubs, docs/ops.md and graph
 * files are made from it.
 *
 * The public function of an op takes its inputs, then its attributes
 * that are not EP_ATTR_INTERNAL, in schema order: `ep_tensor_<name>`
 * when the first input is `self`, `ep_<name>` otherwise. Composite
 * functions (EP_FUNC in the table: built from other ops, no rule, no
 * kernel) have a schema too, so that the catalogue is the whole API.
 */

/* What an input accepts: any dtype, or only these (checked by dispatch) */
typedef enum {
  EP_INPUT_ANY,
  EP_INPUT_BOOL,
  EP_INPUT_INTEGER,      /* int32, int64 */
} EpInputKind;

typedef struct
{
  const char  *name;
  EpInputKind  kind;
  gboolean     list;       /* the last input only: any number of tensors */
} EpInputSpec;

typedef enum {
  EP_ATTR_BOOL,
  EP_ATTR_INT,             /* gint64 */
  EP_ATTR_FLOAT,           /* gdouble */
  EP_ATTR_NUMBER,          /* EpNumber: an integer, kept exact, or a float */
  EP_ATTR_DTYPE,           /* EpDType */
  EP_ATTR_ENUM,            /* a value of the GEnum .enum_type */
  EP_ATTR_AXIS,            /* gint: one axis, negative from the end */
  EP_ATTR_AXES,            /* axes, n_axes, all_axes: some axes, or all */
  EP_ATTR_SHAPE,           /* gint64[] and its guint length: extents */
  EP_ATTR_INTS,            /* gint64[] and its guint length: other integers */
  EP_ATTR_DEVICE,          /* EpDevice * */
  EP_ATTR_SEED,            /* guint64 */
  EP_ATTR_STRING,          /* const char *: composites only (EP_NO_FIELD),
                            * as einsum's subscripts: attrs hold no pointer */
} EpAttrType;

typedef enum {
  EP_ATTR_FLAG_NONE = 0,
  /* Accepts "none": NULL axes (every axis, or what the op documents),
   * EP_AXIS_NONE for an axis (the flattened tensor), the default for a
   * float. Bindings default it to None. */
  EP_ATTR_NULLABLE = 1 << 0,
  /* Set by the library (a creation op's device, a random op's seed and
   * stream), not a parameter of the public function. */
  EP_ATTR_INTERNAL = 1 << 1,
  /* Floats: NaN and infinities are refused (EP_ERROR_INVALID_ARGUMENT). */
  EP_ATTR_FINITE = 1 << 2,
  /* Integers: negative values are refused (EP_ERROR_INVALID_ARGUMENT). */
  EP_ATTR_NON_NEGATIVE = 1 << 3,
} EpAttrFlags;

#define EP_ATTR_NO_FIELD (-1)

typedef struct
{
  const char   *name;
  EpAttrType    type;
  EpAttrFlags   flags;
  gint16        offset;      /* of the value in EpOpAttrs; EP_ATTR_NO_FIELD
                              * for a parameter of a composite function */
  gint16        length;      /* lists: offset of their guint length */
  guint8        capacity;    /* lists: room for this many */
  gboolean      optional;    /* has a default: .fallback */
  gdouble       fallback;
  GType       (*enum_type) (void);
} EpAttrSpec;

struct _EpOpDef
{
  EpOpId              id;         /* EP_N_OPS for a composite function */
  const char         *name;
  EpOpFlags           flags;
  const EpInputSpec  *inputs;
  guint8              n_inputs;
  const EpAttrSpec   *attrs;
  guint8              n_attrs;
  const char *const  *outputs;    /* NULL: one, "out" */
  guint8              n_outputs;
  gboolean            output_list; /* composites: any number, named outputs[0] */
  EpInferFunc         infer;      /* NULL for a composite function */
  EpGradFunc          gradient;   /* NULL: no input gets a gradient */
};

/* Declaring a schema: EP_INPUTS (EP_INPUT ("self"), ...), EP_ATTRS
 * (EP_ATTR_AXES_ARG, EP_ATTR_KEEPDIMS_ARG, ...), EP_OUTPUTS ("values",
 * "indices"). The lists are compound literals, counted where they
 * stand. The public function takes the inputs, then the attributes that
 * are not internal, in this order; it returns its one output, or, for
 * EP_OUTPUTS, a gboolean with each output an (out) parameter in this
 * order (topk, slogdet), or, for EP_OUTPUT_LIST, a GPtrArray of tensors
 * (split, meshgrid). */
#define EP_SCHEMA_COUNT(type, ...) (sizeof ((const type[]) { __VA_ARGS__ }) / sizeof (type))
#define EP_INPUTS(...)                                                      \
  .inputs = (const EpInputSpec[]) { __VA_ARGS__ },                          \
  .n_inputs = EP_SCHEMA_COUNT (EpInputSpec, __VA_ARGS__)
#define EP_ATTRS(...)                                                       \
  .attrs = (const EpAttrSpec[]) { __VA_ARGS__ },                            \
  .n_attrs = EP_SCHEMA_COUNT (EpAttrSpec, __VA_ARGS__)
#define EP_OUTPUTS(...)                                                     \
  .outputs = (const char *const[]) { __VA_ARGS__ },                         \
  .n_outputs = EP_SCHEMA_COUNT (const char *, __VA_ARGS__)
#define EP_OUTPUT_LIST(name_)                                               \
  .outputs = (const char *const[]) { name_ }, .n_outputs = 1, .output_list = TRUE

#define EP_INPUT(name_)              { .name = (name_) }
#define EP_INPUT_OF(name_, kind_)    { .name = (name_), .kind = (kind_) }
#define EP_INPUT_LIST(name_)         { .name = (name_), .list = TRUE }

#define EP_FIELD(field)          .offset = G_STRUCT_OFFSET (EpOpAttrs, field)
#define EP_LIST_FIELD(field, length_)                                       \
  EP_FIELD (field), .length = G_STRUCT_OFFSET (EpOpAttrs, length_),         \
  .capacity = G_N_ELEMENTS (((EpOpAttrs *) 0)->field)
#define EP_NO_FIELD              .offset = EP_ATTR_NO_FIELD
#define EP_DEFAULT(value)        .optional = TRUE, .fallback = (value)

/* An attribute of type @type_ in @where (EP_FIELD, EP_LIST_FIELD or
 * EP_NO_FIELD), then EP_DEFAULT, .flags, .enum_type as needed */
#define EP_ATTR(name_, type_, where, ...)                                   \
  { .name = (name_), .type = (type_), where, __VA_ARGS__ }

/* The attributes many ops share */
#define EP_ATTR_AXES_ARG                                                    \
  EP_ATTR ("axes", EP_ATTR_AXES, EP_LIST_FIELD (axes, n_axes),              \
           .flags = EP_ATTR_NULLABLE)
#define EP_ATTR_AXIS_ARG(...)                                               \
  EP_ATTR ("axis", EP_ATTR_AXIS, EP_FIELD (axes[0]), __VA_ARGS__)
#define EP_ATTR_KEEPDIMS_ARG                                                \
  EP_ATTR ("keepdims", EP_ATTR_BOOL, EP_FIELD (keepdims), EP_DEFAULT (FALSE))
#define EP_ATTR_SHAPE_ARG                                                   \
  EP_ATTR ("shape", EP_ATTR_SHAPE, EP_LIST_FIELD (shape, ndim))
#define EP_ATTR_DTYPE_ARG(...)                                              \
  EP_ATTR ("dtype", EP_ATTR_DTYPE, EP_FIELD (dtype), __VA_ARGS__)
#define EP_ATTR_DEVICE_ARG(...)                                             \
  EP_ATTR ("device", EP_ATTR_DEVICE, EP_FIELD (device), __VA_ARGS__)

#define EP_OP(family, ID, name) extern const EpOpDef ep_op_##name;
#define EP_FUNC(family, name) extern const EpOpDef ep_func_##name;
#include "ep-op-list-private.h"
#undef EP_OP
#undef EP_FUNC

const EpOpDef *ep_op_get            (EpOpId           id);
const EpOpDef *ep_op_lookup         (const char      *name);
gboolean       ep_op_takes_list     (const EpOpDef   *op);
gboolean       ep_op_check_call_full (const EpOpDef   *op,
                                      EpTensor *const *inputs,
                                      guint            n_inputs,
                                      const EpOpAttrs *attrs,
                                      GError         **error);

void           ep_op_attrs_init     (EpOpAttrs       *attrs);
gboolean       ep_op_attrs_equal    (const EpOpDef   *op,
                                     const EpOpAttrs *a,
                                     const EpOpAttrs *b);
void           ep_op_attrs_init_defaults (EpOpAttrs     *attrs,
                                          const EpOpDef *op);
gboolean       ep_op_attrs_set_from_variant (EpOpAttrs     *attrs,
                                             const EpOpDef *op,
                                             GVariant      *values,
                                             GError       **error);
GVariant      *ep_op_attrs_to_variant (const EpOpAttrs *attrs,
                                       const EpOpDef   *op);
void           ep_op_attrs_set_axes (EpOpAttrs       *attrs,
                                     const gint      *axes,
                                     guint            n_axes);
void           ep_op_attrs_set_axis (EpOpAttrs       *attrs,
                                     gint             axis);
void           ep_op_attrs_copy_list (gpointer        field,
                                      guint           capacity,
                                      gsize           item_size,
                                      guint          *length,
                                      gconstpointer   values,
                                      guint           n_values);

/* The checks of the schema (schema.c); inline for the common op that
 * takes tensors of any type and no attributes, on every dispatch */
static inline gboolean
ep_op_check_call (const EpOpDef    *op,
                  EpTensor *const  *inputs,
                  guint             n_inputs,
                  const EpOpAttrs  *attrs,
                  GError          **error)
{
  gboolean typed = op->n_attrs > 0;

  for (guint i = 0; i < op->n_inputs && !typed; i++)
    typed = op->inputs[i].kind != EP_INPUT_ANY;
  for (guint i = 0; i < n_inputs && !typed; i++)
    typed = ep_dtype_is_narrow_int (inputs[i]->layout.dtype);

  return !typed || ep_op_check_call_full (op, inputs, n_inputs, attrs, error);
}

/* Stores a list attribute (@field, with its length in @length): the
 * values that fit, and their true number, which ep_op_check_call()
 * holds against the schema's capacity. */
#define ep_op_attrs_set_list(field, length, values, n_values)               \
  ep_op_attrs_copy_list ((field), G_N_ELEMENTS (field), sizeof ((field)[0]), \
                         &(length), (values), (n_values))

G_END_DECLS

/* Helpers for op rules: op.c */

G_BEGIN_DECLS

gboolean  ep_op_normalize_axes   (EpOpCall        *call,
                                  guint            ndim,
                                  GError         **error);
gboolean  ep_op_normalize_reduction_axes (EpOpCall *call,
                                          GError  **error);
gboolean  ep_op_normalize_axis   (const EpOpCall  *call,
                                  gint             axis,
                                  guint            ndim,
                                  gint            *normalized,
                                  GError         **error);
gboolean  ep_func_normalize_axis (const EpOpDef   *func,
                                  gint             axis,
                                  guint            ndim,
                                  gint            *normalized,
                                  GError         **error);
gboolean  ep_op_broadcast        (EpOpCall        *call,
                                  EpLayout        *out,
                                  GError         **error);
EpDType   ep_op_result_dtype     (EpTensor *const *inputs,
                                  guint            n_inputs);
void      ep_op_cast_all_inputs  (EpOpCall        *call,
                                  EpDType          dtype);
gboolean  ep_op_error_dtype      (const EpOpCall  *call,
                                  EpDType          dtype,
                                  GError         **error);
void      ep_op_set_output       (EpOpCall        *call,
                                  EpDType          dtype,
                                  const gint64    *shape,
                                  guint            ndim);

/* For public functions of several results: op.c */
void      ep_op_give_outputs     (EpTensor       **outputs,
                                  guint            n_outputs,
                                  EpTensor      ***locations);

/* For rules of EP_OP_FLAG_READS_DATA ops: op.c */
GBytes   *ep_op_read_input       (const EpOpCall  *call,
                                  guint            i,
                                  GError         **error);

G_END_DECLS
