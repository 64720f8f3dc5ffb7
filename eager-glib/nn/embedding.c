/* nn/embedding.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <inttypes.h>

#include "ep-embedding.h"
#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-module-private.h"

/**
 * EpEmbedding:
 *
 * A lookup table as a layer, PyTorch's `torch.nn.Embedding`: integer
 * indices of any shape give the rows of the variable `weight`, of shape
 * (number of embeddings, embedding dimension), stacked as the indices'
 * shape plus the dimension ([func@embedding]). The weight is drawn from
 * N(0, 1) as PyTorch draws it, through [func@normal] on the current
 * device, so that [func@set_seed] makes it reproducible. PyTorch's
 * `padding_idx`, `max_norm` and sparse gradients are not offered; a
 * negative index counts from the end as in [method@Tensor.take].
 */

struct _EpEmbedding
{
  EpModule    parent_instance;

  gint64      num_embeddings;
  gint64      embedding_dim;
  EpDType     dtype;
  EpVariable *weight;      /* held by the module too */
};

G_DEFINE_FINAL_TYPE (EpEmbedding, ep_embedding, EP_TYPE_MODULE)

enum
{
  PROP_0,
  PROP_NUM_EMBEDDINGS,
  PROP_EMBEDDING_DIM,
  PROP_DTYPE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gboolean
make_variables (EpEmbedding  *self,
                GError      **error)
{
  gint64 shape[2] = { self->num_embeddings, self->embedding_dim };

  if (self->num_embeddings < 0 || self->embedding_dim < 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("Embedding: the sizes must not be negative (%" PRId64 " embeddings of %" PRId64 ")"),
                   self->num_embeddings, self->embedding_dim);
      return FALSE;
    }
  if (!ep_dtype_is_floating (self->dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("Embedding: the weights are float32 or float64, not %s"),
                   ep_dtype_get_name (self->dtype));
      return FALSE;
    }

  self->weight = ep_module_create_normal_variable (EP_MODULE (self), "weight", shape, 2,
                                                   self->dtype, "Embedding", error);
  return self->weight != NULL;
}

static void
ep_embedding_constructed (GObject *object)
{
  EpEmbedding *self = EP_EMBEDDING (object);
  GError *error = NULL;

  G_OBJECT_CLASS (ep_embedding_parent_class)->constructed (object);

  if (!make_variables (self, &error))
    ep_module_take_construct_error (EP_MODULE (self), error);
}

static EpTensor *
ep_embedding_call (EpModule  *module,
                   EpTensor  *input,
                   GError   **error)
{
  EpEmbedding *self = EP_EMBEDDING (module);
  g_autoptr(EpTensor) weight = ep_variable_read (self->weight);

  return ep_error_named_result (ep_embedding (input, weight, error), error, "Embedding");
}

static void
ep_embedding_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  EpEmbedding *self = EP_EMBEDDING (object);

  switch (prop_id)
    {
    case PROP_NUM_EMBEDDINGS:
      g_value_set_int64 (value, self->num_embeddings);
      break;
    case PROP_EMBEDDING_DIM:
      g_value_set_int64 (value, self->embedding_dim);
      break;
    case PROP_DTYPE:
      g_value_set_enum (value, self->dtype);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_embedding_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  EpEmbedding *self = EP_EMBEDDING (object);

  switch (prop_id)
    {
    case PROP_NUM_EMBEDDINGS:
      self->num_embeddings = g_value_get_int64 (value);
      break;
    case PROP_EMBEDDING_DIM:
      self->embedding_dim = g_value_get_int64 (value);
      break;
    case PROP_DTYPE:
      self->dtype = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_embedding_class_init (EpEmbeddingClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = ep_embedding_constructed;
  object_class->get_property = ep_embedding_get_property;
  object_class->set_property = ep_embedding_set_property;
  EP_MODULE_CLASS (klass)->call = ep_embedding_call;

  /**
   * EpEmbedding:num-embeddings:
   *
   * The number of rows of the table, not negative.
   */
  properties[PROP_NUM_EMBEDDINGS] =
    ep_module_size_property ("num-embeddings", 0);

  /**
   * EpEmbedding:embedding-dim:
   *
   * The size of each row, not negative.
   */
  properties[PROP_EMBEDDING_DIM] =
    ep_module_size_property ("embedding-dim", 0);

  /**
   * EpEmbedding:dtype:
   *
   * The type of the weight: %EP_DTYPE_FLOAT32 (the default) or
   * %EP_DTYPE_FLOAT64.
   */
  properties[PROP_DTYPE] =
    g_param_spec_enum ("dtype", NULL, NULL, EP_TYPE_DTYPE, EP_DTYPE_FLOAT32,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ep_embedding_init (EpEmbedding *self)
{
  self->dtype = EP_DTYPE_FLOAT32;
}

/**
 * ep_embedding_new:
 * @num_embeddings: the number of rows of the table, not negative
 * @embedding_dim: the size of each row, not negative
 * @error: return location for an error
 *
 * Makes a table of float32 rows drawn from N(0, 1) as PyTorch's
 * `torch.nn.Embedding` draws them (float64: the property
 * [property@Embedding:dtype] with g_initable_new()).
 *
 * Returns: (transfer full): the layer, or %NULL with
 *   %EP_ERROR_SHAPE set for a negative size, or
 *   %EP_ERROR_OUT_OF_MEMORY
 */
EpModule *
ep_embedding_new (gint64    num_embeddings,
                  gint64    embedding_dim,
                  GError  **error)
{
  return g_initable_new (EP_TYPE_EMBEDDING, NULL, error,
                         "num-embeddings", num_embeddings,
                         "embedding-dim", embedding_dim,
                         NULL);
}

/**
 * ep_embedding_get_weight:
 * @self: an embedding layer
 *
 * Gives the table, of shape (number of embeddings, embedding dimension).
 *
 * Returns: (transfer none) (nullable): the weight, or %NULL for a layer
 *   that could not be made from its properties
 */
EpVariable *
ep_embedding_get_weight (EpEmbedding *self)
{
  g_return_val_if_fail (EP_IS_EMBEDDING (self), NULL);

  return self->weight;
}
