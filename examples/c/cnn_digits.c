/* cnn_digits.c: the digits CNN of examples/python/cnn_digits.py, in C.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: cnn-digits train CHECKPOINT
 *        cnn-digits check CHECKPOINT PREDICTIONS
 *
 * train: loads the 8x8 digits of scikit-learn, splits them 80/20 with a
 * fixed shuffle, trains the network (Conv2d - ReLU - MaxPool2d - Conv2d -
 * ReLU - MaxPool2d - Flatten - Linear) with Adam on a GradientTape, saves
 * the model and the optimizer to CHECKPOINT, then restores CHECKPOINT into
 * a fresh model and optimizer and checks that the fresh model predicts
 * the very digits the trained one does. Exits with 1 below 97 % test
 * accuracy or when a prediction differs.
 *
 * check: what examples/gjs/cnn_digits.js does: restores the model of
 * CHECKPOINT (written by cnn_digits.py or by train; the optimizer's
 * entries are skipped) and the images, labels and predictions of
 * PREDICTIONS (written by cnn_digits.py), predicts every image and exits
 * with 1 when a prediction differs from the file's.
 */

#include <locale.h>
#include <stdlib.h>

#include <eager-glib/eager-glib.h>

#define DIGITS "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
#define N_IMAGES 1797              /* the digits data set */
#define N_PIXELS 64                /* 8 × 8, each 0 to 16 */
#define BATCH 32
#define EPOCHS 8
#define LEARNING_RATE 3e-3
#define SEED 0

/* A convolution of 3×3 kernels, padded by 1 ("same"): the padding is a
 * property that ep_conv2d_layer_new() does not take */
static EpModule *
conv (gint64    in_channels,
      gint64    out_channels,
      GError  **error)
{
  return g_initable_new (EP_TYPE_CONV2D, NULL, error,
                         "in-channels", in_channels,
                         "out-channels", out_channels,
                         "kernel-height", (gint64) 3,
                         "kernel-width", (gint64) 3,
                         "padding-height", (gint64) 1,
                         "padding-width", (gint64) 1,
                         NULL);
}

/* The network of cnn_digits.py, layer for layer: the checkpoint's names
 * ("0.weight", "3.bias", "7.weight") are the layers' places in it */
static EpModule *
make_model (GError **error)
{
  g_autoptr(EpModule) model = ep_sequential_new ();
  EpModule *layers[8] = { NULL, };
  gboolean ok = TRUE;

  layers[0] = conv (1, 16, error);                              /* 16 × 8 × 8 */
  layers[1] = ep_relu_new ();
  layers[2] = layers[0] ? ep_max_pool2d_layer_new (2, 2, error) : NULL;   /* 16 × 4 × 4 */
  layers[3] = layers[2] ? conv (16, 32, error) : NULL;          /* 32 × 4 × 4 */
  layers[4] = ep_relu_new ();
  layers[5] = layers[3] ? ep_max_pool2d_layer_new (2, 2, error) : NULL;   /* 32 × 2 × 2 */
  layers[6] = ep_flatten_new ();
  layers[7] = layers[5] ? ep_linear_new (128, 10, TRUE, error) : NULL;

  for (guint i = 0; i < G_N_ELEMENTS (layers); i++)
    {
      if (ok)
        ok = layers[i] != NULL && ep_sequential_append (EP_SEQUENTIAL (model), layers[i], error);
      g_clear_object (&layers[i]);
    }

  return ok ? g_steal_pointer (&model) : NULL;
}

/* One line of digits.csv: 64 pixels, then the digit */
static gboolean
parse_line (const char  *line,
            guint        index,
            gfloat      *pixels,
            gint64      *label,
            GError     **error)
{
  g_auto(GStrv) fields = g_strsplit (line, ",", -1);

  if (g_strv_length (fields) != N_PIXELS + 1)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "line %u: %u numbers, not %d", index + 1, g_strv_length (fields), N_PIXELS + 1);
      return FALSE;
    }

  for (guint k = 0; k <= N_PIXELS; k++)
    {
      gdouble value;
      char *end;

      value = g_ascii_strtod (fields[k], &end);
      if (end == fields[k] || *end != '\0' || value < 0 || value > (k < N_PIXELS ? 16 : 9))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "line %u: bad number “%s”", index + 1, fields[k]);
          return FALSE;
        }
      if (k < N_PIXELS)
        pixels[k] = value / 16.0;
      else
        *label = (gint64) value;
    }

  return TRUE;
}

/* Every image of the gzipped CSV as (n, 1, 8, 8) float32 in [0, 1], and
 * its digit as int64 */
static gboolean
load_digits (const char  *path,
             EpTensor   **images,
             EpTensor   **labels,
             GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) compressed = NULL;
  g_autoptr(GZlibDecompressor) gunzip = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr(GInputStream) text = NULL;
  g_autoptr(GDataInputStream) lines = NULL;
  g_autofree gfloat *pixels = g_new (gfloat, (gsize) N_IMAGES * N_PIXELS);
  g_autofree gint64 *digits = g_new (gint64, N_IMAGES);
  const gint64 image_shape[] = { N_IMAGES, 1, 8, 8 };
  const gint64 label_shape[] = { N_IMAGES };
  guint n = 0;

  compressed = g_file_read (file, NULL, error);
  if (compressed == NULL)
    return FALSE;
  text = g_converter_input_stream_new (G_INPUT_STREAM (compressed), G_CONVERTER (gunzip));
  lines = g_data_input_stream_new (text);

  for (;;)
    {
      g_autoptr(GError) local_error = NULL;
      g_autofree char *line = g_data_input_stream_read_line_utf8 (lines, NULL, NULL, &local_error);

      if (local_error != NULL)
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "%s: ", path);
          return FALSE;
        }
      if (line == NULL)
        break;
      if (n == N_IMAGES)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "%s: more than %d images", path, N_IMAGES);
          return FALSE;
        }
      if (!parse_line (line, n, pixels + (gsize) n * N_PIXELS, &digits[n], error))
        {
          g_prefix_error (error, "%s: ", path);
          return FALSE;
        }
      n++;
    }
  if (n != N_IMAGES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s: %u images, not %d", path, n, N_IMAGES);
      return FALSE;
    }

  *images = ep_tensor_new_from_data (pixels, sizeof (gfloat) * N_IMAGES * N_PIXELS,
                                     EP_DTYPE_FLOAT32, image_shape, 4, error);
  if (*images == NULL)
    return FALSE;
  *labels = ep_tensor_new_from_data (digits, sizeof (gint64) * N_IMAGES,
                                     EP_DTYPE_INT64, label_shape, 1, error);
  if (*labels == NULL)
    {
      g_clear_object (images);
      return FALSE;
    }
  return TRUE;
}

/* Fisher–Yates with GRand: the same order for the same generator state */
static void
shuffle (gint64 *indices,
         guint   n,
         GRand  *rand)
{
  for (guint i = n - 1; i > 0; i--)
    {
      guint j = g_rand_int_range (rand, 0, (gint32) i + 1);
      gint64 swap = indices[i];

      indices[i] = indices[j];
      indices[j] = swap;
    }
}

/* The rows @indices of @tensor */
static EpTensor *
take_rows (EpTensor      *tensor,
           const gint64  *indices,
           guint          n,
           GError       **error)
{
  const gint64 shape[] = { n };
  g_autoptr(EpTensor) index = ep_tensor_new_from_data (indices, sizeof (gint64) * n,
                                                       EP_DTYPE_INT64, shape, 1, error);

  return index != NULL ? ep_tensor_take (tensor, index, 0, error) : NULL;
}

/* The value of the scalar @tensor, an error checked */
static gboolean
read_double (EpTensor  *tensor,
             gdouble   *value,
             GError   **error)
{
  GError *local_error = NULL;

  *value = ep_tensor_item_double (tensor, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }
  return TRUE;
}

/* One Adam step on a batch: the loss recorded on a tape, its gradients
 * with respect to the model's trainable variables applied in place */
static gboolean
train_step (EpModule     *model,
            EpOptimizer  *optimizer,
            EpTensor     *images,
            EpTensor     *labels,
            gdouble      *loss_value,
            GError      **error)
{
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(GPtrArray) variables = ep_module_get_trainable_variables (model, NULL);
  g_autoptr(EpTensor) logits = NULL;
  g_autoptr(EpTensor) loss = NULL;
  g_autoptr(GPtrArray) gradients = NULL;

  if (!ep_gradient_tape_start (tape, error))
    return FALSE;
  logits = ep_module_call (model, images, error);
  if (logits != NULL)
    loss = ep_tensor_sparse_softmax_crossentropy (logits, labels, EP_REDUCTION_MEAN, error);
  if (!ep_gradient_tape_stop (tape, loss != NULL ? error : NULL) || loss == NULL)
    return FALSE;

  gradients = ep_gradient_tape_gradient (tape, &loss, 1,
                                         (GObject **) variables->pdata, variables->len,
                                         NULL, 0, error);
  if (gradients == NULL
      || !ep_optimizer_apply_gradients (optimizer,
                                        (EpTensor **) gradients->pdata, gradients->len,
                                        (EpVariable **) variables->pdata, variables->len,
                                        error))
    return FALSE;

  return read_double (loss, loss_value, error);
}

/* One pass over @train_indices (shuffled by @rand) in batches of BATCH;
 * the mean training loss */
static gboolean
train_epoch (EpModule     *model,
             EpOptimizer  *optimizer,
             EpTensor     *images,
             EpTensor     *labels,
             gint64       *train_indices,
             guint         n_train,
             GRand        *rand,
             gdouble      *mean_loss,
             GError      **error)
{
  gdouble total = 0;

  shuffle (train_indices, n_train, rand);
  for (guint first = 0; first < n_train; first += BATCH)
    {
      guint n = MIN (BATCH, n_train - first);
      g_autoptr(EpTensor) x = take_rows (images, train_indices + first, n, error);
      g_autoptr(EpTensor) y = x != NULL ? take_rows (labels, train_indices + first, n, error) : NULL;
      gdouble loss;

      if (y == NULL || !train_step (model, optimizer, x, y, &loss, error))
        return FALSE;
      total += loss * n;
    }

  *mean_loss = total / n_train;
  return TRUE;
}

/* The digit @model predicts for each image, in eval mode */
static EpTensor *
predict (EpModule  *model,
         EpTensor  *images,
         GError   **error)
{
  gboolean training = ep_module_get_training (model);
  g_autoptr(EpTensor) logits = NULL;

  ep_module_set_training (model, FALSE);
  logits = ep_module_call (model, images, error);
  ep_module_set_training (model, training);

  return logits != NULL ? ep_tensor_argmax (logits, 1, FALSE, error) : NULL;
}

/* How many elements of @a equal those of @b (or, @differ, do not) */
static gboolean
count (EpTensor  *a,
       EpTensor  *b,
       gboolean   differ,
       gint64    *result,
       GError   **error)
{
  g_autoptr(EpTensor) matches = differ ? ep_tensor_not_equal (a, b, error) : ep_tensor_equal (a, b, error);
  g_autoptr(EpTensor) as_ints = matches != NULL ? ep_tensor_astype (matches, EP_DTYPE_INT64, error) : NULL;
  g_autoptr(EpTensor) total = as_ints != NULL ? ep_tensor_sum (as_ints, NULL, 0, FALSE, error) : NULL;

  gdouble value;

  if (total == NULL || !read_double (total, &value, error))
    return FALSE;
  *result = (gint64) value;
  return TRUE;
}

/* A fresh network and Adam, and CHECKPOINT restored into them: the full
 * training state (flags NONE: every variable of both must be there) */
static gboolean
restore_fresh (GFile         *checkpoint,
               EpModule     **model,
               EpOptimizer  **optimizer,
               GError       **error)
{
  ep_set_seed (SEED + 1);   /* other initial weights than the trained model's */
  *model = make_model (error);
  if (*model == NULL)
    return FALSE;
  *optimizer = ep_adam_new (LEARNING_RATE);
  return ep_checkpoint_restore_module (*model, *optimizer, checkpoint, EP_CHECKPOINT_NONE,
                                       NULL, error);
}

static gboolean
train (const char  *checkpoint_path,
       gboolean    *passed,
       GError     **error)
{
  g_autoptr(GFile) checkpoint = g_file_new_for_commandline_arg (checkpoint_path);
  g_autoptr(EpTensor) images = NULL;
  g_autoptr(EpTensor) labels = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (SEED);
  g_autofree gint64 *order = g_new (gint64, N_IMAGES);
  g_autoptr(EpTensor) test_images = NULL;
  g_autoptr(EpTensor) test_labels = NULL;
  g_autoptr(EpModule) model = NULL;
  g_autoptr(EpOptimizer) optimizer = NULL;
  g_autoptr(EpTensor) predicted = NULL;
  g_autoptr(EpModule) fresh_model = NULL;
  g_autoptr(EpOptimizer) fresh_optimizer = NULL;
  g_autoptr(EpTensor) fresh_predicted = NULL;
  const guint n_test = N_IMAGES / 5;
  gint64 correct, differing;
  gint64 start;

  if (!load_digits (DIGITS, &images, &labels, error))
    return FALSE;

  /* the split: the first fifth of a fixed shuffle is the test set */
  for (guint i = 0; i < N_IMAGES; i++)
    order[i] = i;
  shuffle (order, N_IMAGES, rand);
  test_images = take_rows (images, order, n_test, error);
  if (test_images == NULL)
    return FALSE;
  test_labels = take_rows (labels, order, n_test, error);
  if (test_labels == NULL)
    return FALSE;

  ep_set_seed (SEED);
  model = make_model (error);
  if (model == NULL)
    return FALSE;
  optimizer = ep_adam_new (LEARNING_RATE);

  start = g_get_monotonic_time ();
  for (guint epoch = 0; epoch < EPOCHS; epoch++)
    {
      gdouble loss;

      if (!train_epoch (model, optimizer, images, labels, order + n_test, N_IMAGES - n_test,
                        rand, &loss, error))
        return FALSE;
      g_print ("epoch %2u: training loss %.4f\n", epoch + 1, loss);
    }
  g_print ("%d epochs of %u images in %.2f s (%" G_GUINT64_FORMAT " Adam steps)\n",
           EPOCHS, N_IMAGES - n_test, (g_get_monotonic_time () - start) / 1e6,
           ep_optimizer_get_iterations (optimizer));

  if (!ep_checkpoint_save_module (model, optimizer, checkpoint, NULL, error))
    return FALSE;
  g_print ("saved %s\n", checkpoint_path);

  predicted = predict (model, test_images, error);
  if (predicted == NULL)
    return FALSE;
  if (!count (predicted, test_labels, FALSE, &correct, error))
    return FALSE;
  g_print ("test accuracy: %.4f (%" G_GINT64_FORMAT "/%u)\n",
           (gdouble) correct / n_test, correct, n_test);

  if (!restore_fresh (checkpoint, &fresh_model, &fresh_optimizer, error))
    return FALSE;
  fresh_predicted = predict (fresh_model, test_images, error);
  if (fresh_predicted == NULL)
    return FALSE;
  if (!count (fresh_predicted, predicted, TRUE, &differing, error))
    return FALSE;
  g_print ("restored into a fresh model (after %" G_GUINT64_FORMAT " Adam steps): "
           "%" G_GINT64_FORMAT " predictions differ\n",
           ep_optimizer_get_iterations (fresh_optimizer), differing);

  *passed = correct >= 0.97 * n_test && differing == 0
            && ep_optimizer_get_iterations (fresh_optimizer) == ep_optimizer_get_iterations (optimizer);
  return TRUE;
}

/* A variable of @shape and @dtype, for ep_checkpoint_restore() to fill */
static EpVariable *
zeros_variable (const gint64  *shape,
                guint          ndim,
                EpDType        dtype,
                GError       **error)
{
  g_autoptr(EpTensor) zeros = ep_zeros (shape, ndim, dtype, error);

  return zeros != NULL ? ep_variable_new (zeros, NULL) : NULL;
}

static gboolean
check (const char  *checkpoint_path,
       const char  *predictions_path,
       gboolean    *passed,
       GError     **error)
{
  g_autoptr(GFile) checkpoint = g_file_new_for_commandline_arg (checkpoint_path);
  g_autoptr(GFile) predictions = g_file_new_for_commandline_arg (predictions_path);
  const gint64 image_shape[] = { N_IMAGES, 1, 8, 8 };
  const gint64 label_shape[] = { N_IMAGES };
  const char *names[] = { "images", "labels", "predictions", NULL };   /* NULL-terminated */
  EpVariable *variables[G_N_ELEMENTS (names) - 1] = { NULL, };
  g_autoptr(EpModule) model = NULL;
  g_autoptr(EpTensor) images = NULL;
  g_autoptr(EpTensor) labels = NULL;
  g_autoptr(EpTensor) expected = NULL;
  g_autoptr(EpTensor) predicted = NULL;
  gboolean ok;
  gint64 correct, differing;

  model = make_model (error);
  if (model == NULL)
    return FALSE;
  /* PARTIAL: the checkpoint's optimizer entries are not the model's */
  if (!ep_checkpoint_restore_module (model, NULL, checkpoint, EP_CHECKPOINT_PARTIAL, NULL, error))
    return FALSE;

  variables[0] = zeros_variable (image_shape, 4, EP_DTYPE_FLOAT32, error);
  variables[1] = variables[0] ? zeros_variable (label_shape, 1, EP_DTYPE_INT64, error) : NULL;
  variables[2] = variables[1] ? zeros_variable (label_shape, 1, EP_DTYPE_INT64, error) : NULL;
  ok = variables[2] != NULL
       && ep_checkpoint_restore (names, variables, G_N_ELEMENTS (variables), predictions,
                                 EP_CHECKPOINT_NONE, NULL, error);
  if (ok)
    {
      images = ep_variable_read (variables[0]);
      labels = ep_variable_read (variables[1]);
      expected = ep_variable_read (variables[2]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (variables); i++)
    g_clear_object (&variables[i]);
  if (!ok)
    return FALSE;

  predicted = predict (model, images, error);
  if (predicted == NULL)
    return FALSE;
  if (!count (predicted, labels, FALSE, &correct, error))
    return FALSE;
  if (!count (predicted, expected, TRUE, &differing, error))
    return FALSE;

  g_print ("accuracy on all %d digits: %.4f\n", N_IMAGES, (gdouble) correct / N_IMAGES);
  g_print ("predictions that differ from the file's: %" G_GINT64_FORMAT "\n", differing);
  *passed = differing == 0;
  return TRUE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  gboolean passed = FALSE;
  gboolean ok;

  setlocale (LC_ALL, "");   /* the library's messages, translated */

  if (argc == 3 && g_str_equal (argv[1], "train"))
    ok = train (argv[2], &passed, &error);
  else if (argc == 4 && g_str_equal (argv[1], "check"))
    ok = check (argv[2], argv[3], &passed, &error);
  else
    {
      g_printerr ("usage: %s train CHECKPOINT\n"
                  "       %s check CHECKPOINT PREDICTIONS\n", argv[0], argv[0]);
      return 2;
    }

  if (!ok)
    {
      g_printerr ("cnn-digits: %s\n", error->message);
      return 1;
    }
  return passed ? 0 : 1;
}
