/* dispatch/schema.c: what the op schema does at run time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The checks every call gets from its op's schema, before the op's rule
 * runs; and attributes by name (defaults, values from and to a
 * GVariant), the way tests, graph files and generic callers give them.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ep-device-private.h"
#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-op-private.h"

/* The checks every op's arguments get from its schema */

static gboolean
check_input (const EpOpDef  *op,
             const EpInputSpec *spec,
             EpTensor       *input,
             GError        **error)
{
  EpDType dtype = input->layout.dtype;

  switch (spec->kind)
    {
    case EP_INPUT_ANY:
      return TRUE;
    case EP_INPUT_BOOL:
      if (dtype == EP_DTYPE_BOOL)
        return TRUE;
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("%s: takes bool tensors, not %s; compare or use astype first"),
                   op->name, ep_dtype_get_name (dtype));
      return FALSE;
    case EP_INPUT_INTEGER:
      if (ep_dtype_is_integer (dtype))
        return TRUE;
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("%s: %s must be int32 or int64, not %s"),
                   op->name, spec->name, ep_dtype_get_name (dtype));
      return FALSE;
    }

  g_return_val_if_reached (FALSE);
}

static gboolean
check_list_length (const EpOpDef     *op,
                   const EpAttrSpec  *spec,
                   const EpOpAttrs   *attrs,
                   GError           **error)
{
  guint length = G_STRUCT_MEMBER (guint, attrs, spec->length);

  if (length <= spec->capacity)
    return TRUE;

  switch (spec->type)
    {
    case EP_ATTR_AXES:
      g_set_error (error, EP_ERROR, EP_ERROR_AXIS,
                   _("%s: %u axes given, a tensor has at most %d"),
                   op->name, length, EP_MAX_DIMS);
      break;
    case EP_ATTR_SHAPE:
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: %u dimensions requested, at most %d are supported"),
                   op->name, length, EP_MAX_DIMS);
      break;
    default:
      /* lists per dimension of a tensor, or of an image (conv2d, pooling: 2) */
      if (spec->capacity < EP_MAX_DIMS)
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("%s: %u values given for %s, at most %u fit"),
                     op->name, length, spec->name, (guint) spec->capacity);
      else
        g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                     _("%s: %u values given for %s, at most %u fit (a tensor has at most %d dimensions)"),
                     op->name, length, spec->name, (guint) spec->capacity, EP_MAX_DIMS);
      break;
    }

  return FALSE;
}

/* Whether @op takes uint8, int8 and int16 (EP_OP_FLAG_UINT8) */
static gboolean
takes_narrow_int (const EpOpDef *op)
{
  return (op->flags & (EP_OP_FLAG_UINT8 | EP_OP_FLAG_VIEW)) != 0;
}

static gboolean
check_attr (const EpOpDef     *op,
            const EpAttrSpec  *spec,
            const EpOpAttrs   *attrs,
            GError           **error)
{
  switch (spec->type)
    {
    case EP_ATTR_AXES:
      return attrs->all_axes || check_list_length (op, spec, attrs, error);
    case EP_ATTR_SHAPE:
    case EP_ATTR_INTS:
      return check_list_length (op, spec, attrs, error);
    case EP_ATTR_DTYPE:
      {
        EpDType dtype = G_STRUCT_MEMBER (EpDType, attrs, spec->offset);

        if (!ep_dtype_is_valid (dtype))
          {
            g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                         _("%s: %d is not a dtype"), op->name, (gint) dtype);
            return FALSE;
          }
        if (ep_dtype_is_narrow_int (dtype) && !takes_narrow_int (op))
          {
            g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                         _("%s: cannot make a tensor of type %s yet; make another type and convert it with astype"),
                         op->name, ep_dtype_get_name (dtype));
            return FALSE;
          }
        return TRUE;
      }
    case EP_ATTR_ENUM:
      {
        gint value = G_STRUCT_MEMBER (gint, attrs, spec->offset);
        g_autoptr(GEnumClass) enum_class = g_type_class_ref (spec->enum_type ());

        if (g_enum_get_value (enum_class, value) != NULL)
          return TRUE;
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("%s: %d is not a valid %s"), op->name, value, spec->name);
        return FALSE;
      }
    case EP_ATTR_NUMBER:
      /* an integer is finite, and its double has its sign */
    case EP_ATTR_FLOAT:
      {
        gdouble value = spec->type == EP_ATTR_NUMBER
                        ? G_STRUCT_MEMBER (EpNumber, attrs, spec->offset).f
                        : G_STRUCT_MEMBER (gdouble, attrs, spec->offset);

        if ((spec->flags & EP_ATTR_FINITE) && !isfinite (value))
          {
            g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                         _("%s: %s must be finite (got %g)"), op->name, spec->name, value);
            return FALSE;
          }
        if ((spec->flags & EP_ATTR_NON_NEGATIVE) && !(value >= 0))
          {
            g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                         _("%s: %s must not be negative (got %g)"), op->name, spec->name, value);
            return FALSE;
          }
        return TRUE;
      }
    case EP_ATTR_INT:
      {
        gint64 value = G_STRUCT_MEMBER (gint64, attrs, spec->offset);

        if (!(spec->flags & EP_ATTR_NON_NEGATIVE) || value >= 0)
          return TRUE;
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("%s: %s must not be negative (got %" PRId64 ")"),
                     op->name, spec->name, value);
        return FALSE;
      }
    case EP_ATTR_BOOL:
    case EP_ATTR_AXIS:
    case EP_ATTR_DEVICE:
    case EP_ATTR_SEED:
      return TRUE;
    case EP_ATTR_STRING:   /* composites only: no field */
      break;
    }

  g_return_val_if_reached (FALSE);
}

/*
 * ep_op_check_call_full:
 *
 * What every op's arguments must satisfy, from its schema: the dtypes its
 * inputs accept, lists that fit their room, valid dtypes and enum values,
 * finite floats and non-negative integers where the schema says so. The
 * op's rule checks the rest (shapes, axes against the rank, values that
 * depend on the inputs).
 */
gboolean
ep_op_check_call_full (const EpOpDef    *op,
                       EpTensor *const  *inputs,
                       guint             n_inputs,
                       const EpOpAttrs  *attrs,
                       GError          **error)
{
  for (guint i = 0; i < n_inputs; i++)
    {
      const EpInputSpec *spec = &op->inputs[MIN (i, op->n_inputs - 1u)];

      if (ep_dtype_is_narrow_int (inputs[i]->layout.dtype) && !takes_narrow_int (op))
        {
          g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                       _("%s: does not take a tensor of type %s yet; convert it with astype first"),
                       op->name, ep_dtype_get_name (inputs[i]->layout.dtype));
          return FALSE;
        }
      if (spec->kind != EP_INPUT_ANY && !check_input (op, spec, inputs[i], error))
        return FALSE;
    }

  for (guint a = 0; a < op->n_attrs; a++)
    if (!check_attr (op, &op->attrs[a], attrs, error))
      return FALSE;

  return TRUE;
}

/* Attributes by name */

static const EpAttrSpec *
find_attr (const EpOpDef *op,
           const char    *name)
{
  for (guint a = 0; a < op->n_attrs; a++)
    if (g_str_equal (op->attrs[a].name, name))
      return &op->attrs[a];

  return NULL;
}

static void
set_default (EpOpAttrs        *attrs,
             const EpAttrSpec *spec)
{
  gpointer field = G_STRUCT_MEMBER_P (attrs, spec->offset);

  switch (spec->type)
    {
    case EP_ATTR_BOOL:
      *(gboolean *) field = spec->fallback != 0;
      break;
    case EP_ATTR_INT:
      *(gint64 *) field = (gint64) spec->fallback;
      break;
    case EP_ATTR_SEED:
      *(guint64 *) field = (guint64) spec->fallback;
      break;
    case EP_ATTR_FLOAT:
      *(gdouble *) field = spec->fallback;
      break;
    case EP_ATTR_NUMBER:
      *(EpNumber *) field = ep_number_from_literal (spec->fallback);
      break;
    case EP_ATTR_DTYPE:
    case EP_ATTR_ENUM:
      *(gint *) field = (gint) spec->fallback;
      break;
    case EP_ATTR_AXIS:
      ep_op_attrs_set_axis (attrs, (gint) spec->fallback);
      break;
    case EP_ATTR_AXES:
    case EP_ATTR_SHAPE:
    case EP_ATTR_INTS:
    case EP_ATTR_DEVICE:
    case EP_ATTR_STRING:
      break;
    }
}

/* Every attribute of @op at its default, where it has one; "none" (all
 * axes, an empty list, no device) where it has not. */
void
ep_op_attrs_init_defaults (EpOpAttrs     *attrs,
                           const EpOpDef *op)
{
  ep_op_attrs_init (attrs);
  for (guint a = 0; a < op->n_attrs; a++)
    if (op->attrs[a].optional && op->attrs[a].offset != EP_ATTR_NO_FIELD)
      set_default (attrs, &op->attrs[a]);
}

static gboolean
variant_to_int64 (GVariant *value,
                  gint64   *out)
{
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT64))
    *out = g_variant_get_int64 (value);
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT32))
    *out = g_variant_get_int32 (value);
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_UINT64)
           && g_variant_get_uint64 (value) <= G_MAXINT64)
    *out = (gint64) g_variant_get_uint64 (value);
  else
    return FALSE;

  return TRUE;
}

static gboolean
set_int_list (gint64     *field,
              guint       capacity,
              guint      *length,
              GVariant   *value)
{
  gsize n = g_variant_n_children (value);

  if (!g_variant_is_of_type (value, G_VARIANT_TYPE_ARRAY))
    return FALSE;
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(GVariant) item = g_variant_get_child_value (value, i);
      gint64 v;

      if (!variant_to_int64 (item, &v))
        return FALSE;
      if (i < capacity)
        field[i] = v;
    }
  *length = n > G_MAXUINT ? G_MAXUINT : (guint) n;
  return TRUE;
}

static gboolean
set_axes (EpOpAttrs *attrs,
          GVariant  *value)
{
  gint64 axes[EP_MAX_DIMS];
  guint n;

  if (!set_int_list (axes, EP_MAX_DIMS, &n, value))
    return FALSE;
  attrs->all_axes = n == 0;
  attrs->n_axes = n;
  for (guint i = 0; i < MIN (n, EP_MAX_DIMS); i++)
    {
      if (axes[i] < G_MININT || axes[i] > G_MAXINT)
        return FALSE;
      attrs->axes[i] = (gint) axes[i];
    }

  return TRUE;
}

static gboolean
set_enum (gint        *field,
          GType        type,
          GVariant    *value)
{
  g_autoptr(GEnumClass) enum_class = g_type_class_ref (type);
  GEnumValue *found;

  if (!g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
    return FALSE;
  found = g_enum_get_value_by_nick (enum_class, g_variant_get_string (value, NULL));
  if (found == NULL)
    return FALSE;
  *field = found->value;
  return TRUE;
}

static gboolean
set_dtype (EpDType  *field,
           GVariant *value)
{
  return g_variant_is_of_type (value, G_VARIANT_TYPE_STRING)
         && ep_dtype_from_name (g_variant_get_string (value, NULL), field);
}

static gboolean
set_value (EpOpAttrs        *attrs,
           const EpAttrSpec *spec,
           GVariant         *value)
{
  gpointer field = G_STRUCT_MEMBER_P (attrs, spec->offset);
  gint64 i;

  switch (spec->type)
    {
    case EP_ATTR_BOOL:
      if (!g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN))
        return FALSE;
      *(gboolean *) field = g_variant_get_boolean (value);
      return TRUE;
    case EP_ATTR_INT:
      return variant_to_int64 (value, field);
    case EP_ATTR_SEED:
      if (g_variant_is_of_type (value, G_VARIANT_TYPE_UINT64))
        *(guint64 *) field = g_variant_get_uint64 (value);
      else if (variant_to_int64 (value, &i))
        *(guint64 *) field = (guint64) i;
      else
        return FALSE;
      return TRUE;
    case EP_ATTR_NUMBER:
      if (g_variant_is_of_type (value, G_VARIANT_TYPE_DOUBLE))
        *(EpNumber *) field = ep_number_from_double (g_variant_get_double (value));
      else if (variant_to_int64 (value, &i))
        *(EpNumber *) field = ep_number_from_int64 (i);
      else
        return FALSE;
      return TRUE;
    case EP_ATTR_FLOAT:
      if (g_variant_is_of_type (value, G_VARIANT_TYPE_DOUBLE))
        *(gdouble *) field = g_variant_get_double (value);
      else if (variant_to_int64 (value, &i))
        *(gdouble *) field = (gdouble) i;
      else
        return FALSE;
      return TRUE;
    case EP_ATTR_DTYPE:
      return set_dtype (field, value);
    case EP_ATTR_ENUM:
      return set_enum (field, spec->enum_type (), value);
    case EP_ATTR_AXIS:
      if (!variant_to_int64 (value, &i) || i < G_MININT || i > G_MAXINT)
        return FALSE;
      if (i == EP_AXIS_NONE && (spec->flags & EP_ATTR_NULLABLE))
        ep_op_attrs_set_axes (attrs, NULL, 0);
      else
        ep_op_attrs_set_axis (attrs, (gint) i);
      return TRUE;
    case EP_ATTR_AXES:
      return set_axes (attrs, value);
    case EP_ATTR_SHAPE:
    case EP_ATTR_INTS:
      return set_int_list (field, spec->capacity, G_STRUCT_MEMBER_P (attrs, spec->length), value);
    case EP_ATTR_DEVICE:
      if (!g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
        return FALSE;
      *(EpDevice **) field = ep_device_get (g_variant_get_string (value, NULL), NULL);
      return *(EpDevice **) field != NULL;
    case EP_ATTR_STRING:
      break;
    }

  g_return_val_if_reached (FALSE);
}

static gboolean
int_lists_equal (const gint64 *a,
                 guint         n_a,
                 const gint64 *b,
                 guint         n_b)
{
  return n_a == n_b && memcmp (a, b, n_a * sizeof (gint64)) == 0;
}

static gboolean
attr_equal (const EpOpAttrs  *a,
            const EpOpAttrs  *b,
            const EpAttrSpec *spec)
{
  gconstpointer x = G_STRUCT_MEMBER_P (a, spec->offset);
  gconstpointer y = G_STRUCT_MEMBER_P (b, spec->offset);

  switch (spec->type)
    {
    case EP_ATTR_BOOL:
      return !*(const gboolean *) x == !*(const gboolean *) y;
    case EP_ATTR_INT:
      return *(const gint64 *) x == *(const gint64 *) y;
    case EP_ATTR_SEED:
      return TRUE;
    case EP_ATTR_FLOAT:
      /* bit for bit: -0.0 is not 0.0 to a division, and NaN is itself */
      return memcmp (x, y, sizeof (gdouble)) == 0;
    case EP_ATTR_NUMBER:
      {
        const EpNumber *m = x, *n = y;

        return m->integral == n->integral
               && (m->integral ? m->i == n->i : memcmp (&m->f, &n->f, sizeof (gdouble)) == 0);
      }
    case EP_ATTR_DTYPE:
    case EP_ATTR_ENUM:
      return *(const gint *) x == *(const gint *) y;
    case EP_ATTR_AXIS:
    case EP_ATTR_AXES:
      return a->all_axes == b->all_axes && a->n_axes == b->n_axes
             && memcmp (a->axes, b->axes, MIN (a->n_axes, EP_MAX_DIMS) * sizeof (gint)) == 0;
    case EP_ATTR_SHAPE:
    case EP_ATTR_INTS:
      return int_lists_equal (x, MIN (G_STRUCT_MEMBER (guint, a, spec->length), spec->capacity),
                              y, MIN (G_STRUCT_MEMBER (guint, b, spec->length), spec->capacity))
             && G_STRUCT_MEMBER (guint, a, spec->length) == G_STRUCT_MEMBER (guint, b, spec->length);
    case EP_ATTR_DEVICE:
      return *(EpDevice *const *) x == *(EpDevice *const *) y;
    case EP_ATTR_STRING:
      break;
    }

  g_return_val_if_reached (FALSE);
}

/*
 * ep_op_attrs_equal:
 * @op: the op
 * @a: attributes of a call of @op
 * @b: attributes of another call of @op
 *
 * Whether two calls of @op were given the same attributes, by the schema:
 * the fields @op does not use are not compared, nor the random state
 * (seed and stream) that each call draws anew.
 */
gboolean
ep_op_attrs_equal (const EpOpDef   *op,
                   const EpOpAttrs *a,
                   const EpOpAttrs *b)
{
  for (guint i = 0; i < op->n_attrs; i++)
    if (op->attrs[i].offset != EP_ATTR_NO_FIELD && !attr_equal (a, b, &op->attrs[i]))
      return FALSE;

  return TRUE;
}

/*
 * ep_op_attrs_set_from_variant:
 * @attrs: attributes to fill
 * @op: the op they are for
 * @values: an `a{sv}` dictionary of attributes by their schema name:
 *   booleans, integers, doubles, dtypes and enums by name, lists of
 *   integers, a device by name
 * @error: return location for an error
 *
 * Starts from the defaults (ep_op_attrs_init_defaults()) and sets the
 * attributes @values names. An unknown name or a value of the wrong type
 * is an %EP_ERROR_INVALID_ARGUMENT; the values themselves are checked
 * when the op is dispatched.
 */
gboolean
ep_op_attrs_set_from_variant (EpOpAttrs      *attrs,
                              const EpOpDef  *op,
                              GVariant       *values,
                              GError        **error)
{
  GVariantIter iter;
  const char *name;
  GVariant *value;

  g_return_val_if_fail (g_variant_is_of_type (values, G_VARIANT_TYPE_VARDICT), FALSE);

  ep_op_attrs_init_defaults (attrs, op);
  g_variant_iter_init (&iter, values);
  while (g_variant_iter_loop (&iter, "{&sv}", &name, &value))
    {
      const EpAttrSpec *spec = find_attr (op, name);

      if (spec == NULL || spec->offset == EP_ATTR_NO_FIELD)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("%s: no attribute named %s"), op->name, name);
          g_variant_unref (value);
          return FALSE;
        }
      if (!set_value (attrs, spec, value))
        {
          g_autofree char *text = g_variant_print (value, TRUE);

          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("%s: %s is not a valid %s"), op->name, text, spec->name);
          g_variant_unref (value);
          return FALSE;
        }
    }

  return TRUE;
}

static GVariant *
int_list_variant (const gint64 *values,
                  guint         n)
{
  return g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, values, n, sizeof (gint64));
}

static GVariant *
axes_variant (const EpOpAttrs *attrs)
{
  gint64 axes[EP_MAX_DIMS];
  guint n = attrs->all_axes ? 0 : MIN (attrs->n_axes, EP_MAX_DIMS);

  for (guint i = 0; i < n; i++)
    axes[i] = attrs->axes[i];
  return int_list_variant (axes, n);
}

/* The value of one attribute as ep_op_attrs_set_from_variant() takes
 * it; NULL for "none" where its default says the same (no device). */
static GVariant *
attr_variant (const EpOpAttrs  *attrs,
              const EpAttrSpec *spec)
{
  gconstpointer field = G_STRUCT_MEMBER_P (attrs, spec->offset);

  switch (spec->type)
    {
    case EP_ATTR_BOOL:
      return g_variant_new_boolean (*(const gboolean *) field);
    case EP_ATTR_INT:
      return g_variant_new_int64 (*(const gint64 *) field);
    case EP_ATTR_SEED:
      return g_variant_new_uint64 (*(const guint64 *) field);
    case EP_ATTR_FLOAT:
      return g_variant_new_double (*(const gdouble *) field);
    case EP_ATTR_NUMBER:
      {
        const EpNumber *number = field;

        return number->integral ? g_variant_new_int64 (number->i) : g_variant_new_double (number->f);
      }
    case EP_ATTR_DTYPE:
      return g_variant_new_string (ep_dtype_get_name (*(const EpDType *) field));
    case EP_ATTR_ENUM:
      {
        g_autoptr(GEnumClass) enum_class = g_type_class_ref (spec->enum_type ());
        GEnumValue *value = g_enum_get_value (enum_class, *(const gint *) field);

        return value != NULL ? g_variant_new_string (value->value_nick) : NULL;
      }
    case EP_ATTR_AXIS:
      if (attrs->all_axes && (spec->flags & EP_ATTR_NULLABLE))
        return g_variant_new_int64 (EP_AXIS_NONE);
      return g_variant_new_int64 (*(const gint *) field);
    case EP_ATTR_AXES:
      return axes_variant (attrs);
    case EP_ATTR_SHAPE:
    case EP_ATTR_INTS:
      return int_list_variant (field, MIN (G_STRUCT_MEMBER (guint, attrs, spec->length),
                                           spec->capacity));
    case EP_ATTR_DEVICE:
      {
        EpDevice *device = *(EpDevice *const *) field;

        return device != NULL ? g_variant_new_string (device->name) : NULL;
      }
    case EP_ATTR_STRING:
      break;
    }

  g_return_val_if_reached (NULL);
}

/*
 * ep_op_attrs_to_variant:
 * @attrs: attributes of @op
 * @op: the op
 *
 * The mirror of ep_op_attrs_set_from_variant(): every attribute of @op's
 * schema that has a field, by name, in the types that function takes
 * (no device: none is left out), so that setting the result on fresh
 * attributes gives @op the same values.
 *
 * Returns: (transfer floating): an `a{sv}` dictionary
 */
GVariant *
ep_op_attrs_to_variant (const EpOpAttrs *attrs,
                        const EpOpDef   *op)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  for (guint a = 0; a < op->n_attrs; a++)
    {
      const EpAttrSpec *spec = &op->attrs[a];
      GVariant *value;

      if (spec->offset == EP_ATTR_NO_FIELD)
        continue;
      value = attr_variant (attrs, spec);
      if (value != NULL)
        g_variant_builder_add (&builder, "{sv}", spec->name, value);
    }

  return g_variant_builder_end (&builder);
}
