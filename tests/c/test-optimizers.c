/* test-optimizers.c: EpOptimizer, EpSgd and EpAdam from C (the
 * comparison with torch.optim is tests/python/test_optimizers.py)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>

#include "ep-test-util.h"

#include "ep-device-private.h"

static void
step (EpOptimizer *opt,
      EpVariable  *w,
      EpTensor    *g)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (ep_optimizer_apply_gradients (opt, &g, 1, &w, 1, &error));
  g_assert_no_error (error);
}

static void
test_sgd_momentum (void)
{
  g_autoptr(EpTensor) init = ep_test_vector (EP_VALUES (1, 2), EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) g = ep_test_vector (EP_VALUES (1, -1), EP_DTYPE_FLOAT64);
  g_autoptr(EpVariable) w = ep_variable_new (init, "w");
  g_autoptr(EpOptimizer) opt = ep_sgd_new (0.5, 0.5);
  g_autoptr(EpTensor) value = NULL;
  g_autoptr(EpTensor) moment = NULL;

  step (opt, w, g);   /* b = g; w = w - 0.5 g */
  step (opt, w, g);   /* b = 1.5 g; w = w - 0.75 g */
  value = ep_variable_read (w);
  ep_assert_values (value, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (-0.25, 3.25));
  moment = ep_variable_read (ep_optimizer_get_slot (opt, w, "momentum_buffer"));
  ep_assert_values (moment, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (1.5, -1.5));
  g_assert_cmpuint (ep_optimizer_get_iterations (opt), ==, 2);
}

static void
test_adam_first_step (void)
{
  g_autoptr(EpTensor) init = ep_test_vector (EP_VALUES (0, 0), EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) g = ep_test_vector (EP_VALUES (4, -0.25), EP_DTYPE_FLOAT64);
  g_autoptr(EpVariable) w = ep_variable_new (init, "w");
  g_autoptr(EpOptimizer) opt = g_object_new (EP_TYPE_ADAM, "learning-rate", 0.1, "epsilon", 0.0, NULL);
  g_autoptr(EpTensor) value = NULL;

  /* the bias-corrected first step is learning_rate * sign (g) */
  step (opt, w, g);
  value = ep_variable_read (w);
  ep_assert_values (value, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (-0.1, 0.1));
}

static void
test_rmsprop_first_step (void)
{
  g_autoptr(EpTensor) init = ep_test_vector (EP_VALUES (0, 0), EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) g = ep_test_vector (EP_VALUES (2, -0.5), EP_DTYPE_FLOAT64);
  g_autoptr(EpVariable) w = ep_variable_new (init, "w");
  g_autoptr(EpOptimizer) opt = g_object_new (EP_TYPE_RMSPROP, "learning-rate", 0.1,
                                             "alpha", 0.75, "epsilon", 0.0, NULL);
  g_autoptr(EpTensor) value = NULL;
  g_autoptr(EpTensor) square_avg = NULL;

  /* s = 0.25 g^2, so the step is learning_rate * g / (0.5 |g|) */
  step (opt, w, g);
  value = ep_variable_read (w);
  ep_assert_values (value, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (-0.2, 0.2));
  square_avg = ep_variable_read (ep_optimizer_get_slot (opt, w, "square_avg"));
  ep_assert_values (square_avg, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (1, 0.0625));
  g_assert_null (ep_optimizer_get_slot (opt, w, "momentum_buffer"));
  g_assert_null (ep_optimizer_get_slot (opt, w, "grad_avg"));
}

static void
test_adagrad_decay (void)
{
  g_autoptr(EpTensor) init = ep_test_vector (EP_VALUES (0, 0), EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) g = ep_test_vector (EP_VALUES (3, -4), EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) g2 = ep_test_vector (EP_VALUES (0, 3), EP_DTYPE_FLOAT64);
  g_autoptr(EpVariable) w = ep_variable_new (init, "w");
  g_autoptr(EpOptimizer) opt = g_object_new (EP_TYPE_ADAGRAD, "learning-rate", 0.5,
                                             "learning-rate-decay", 1.0, "epsilon", 0.0,
                                             "initial-accumulator-value", 9.0, NULL);
  g_autoptr(EpTensor) value = NULL;
  g_autoptr(EpTensor) sum = NULL;

  /* s = 9 + g^2 = (18, 25): p = -0.5 g / sqrt (s) */
  step (opt, w, g);
  /* s = (18, 34); the second step's rate is 0.5 / (1 + 1 * 1) = 0.25 */
  step (opt, w, g2);
  value = ep_variable_read (w);
  ep_assert_values (value, EP_DTYPE_FLOAT64, EP_SHAPE (2),
                    EP_VALUES (-1.5 / sqrt (18.0), 0.4 - 0.75 / sqrt (34.0)));
  sum = ep_variable_read (ep_optimizer_get_slot (opt, w, "sum"));
  ep_assert_values (sum, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (18, 34));
}

static void
test_schedules (void)
{
  g_autoptr(EpLearningRateSchedule) cosine = ep_cosine_decay_schedule_new (1.0, 4, 0.5);
  g_autoptr(EpLearningRateSchedule) warmup = ep_linear_warmup_schedule_new (cosine, 0.25, 2);
  g_autoptr(EpLearningRateSchedule) decay = ep_step_decay_schedule_new (8.0, 3, 0.5);
  g_autoptr(EpLearningRateSchedule) constant = ep_constant_schedule_new (0.75);

  g_assert_cmpfloat (ep_learning_rate_schedule_get_value (cosine, 0), ==, 1.0);
  g_assert_cmpfloat_with_epsilon (ep_learning_rate_schedule_get_value (cosine, 2), 0.75, 1e-15);
  g_assert_cmpfloat (ep_learning_rate_schedule_get_value (cosine, 4), ==, 0.5);
  g_assert_cmpfloat (ep_learning_rate_schedule_get_value (warmup, 0), ==, 0.25);
  g_assert_cmpfloat (ep_learning_rate_schedule_get_value (warmup, 1), ==, 0.625);
  g_assert_cmpfloat (ep_learning_rate_schedule_get_value (warmup, 2), ==, 1.0);
  g_assert_cmpfloat (ep_learning_rate_schedule_get_value (warmup, 6), ==, 0.5);
  g_assert_cmpfloat (ep_learning_rate_schedule_get_value (decay, 2), ==, 8.0);
  g_assert_cmpfloat (ep_learning_rate_schedule_get_value (decay, 3), ==, 4.0);
  g_assert_cmpfloat (ep_learning_rate_schedule_get_value (decay, 10), ==, 1.0);
  g_assert_cmpfloat (ep_learning_rate_schedule_get_value (constant, 1000), ==, 0.75);
}

static void
test_optimizer_with_schedule (void)
{
  g_autoptr(EpTensor) init = ep_test_vector (EP_VALUES (0), EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) g = ep_test_vector (EP_VALUES (1), EP_DTYPE_FLOAT64);
  g_autoptr(EpVariable) w = ep_variable_new (init, "w");
  g_autoptr(EpLearningRateSchedule) decay = ep_step_decay_schedule_new (1.0, 1, 0.5);
  g_autoptr(EpOptimizer) opt = ep_sgd_new (7.0, 0.0);
  g_autoptr(EpTensor) value = NULL;
  g_autoptr(EpTensor) count = NULL;

  ep_optimizer_set_learning_rate_schedule (opt, decay);
  g_assert_true (ep_optimizer_get_learning_rate_schedule (opt) == decay);
  step (opt, w, g);
  step (opt, w, g);
  step (opt, w, g);
  value = ep_variable_read (w);
  ep_assert_values (value, EP_DTYPE_FLOAT64, EP_SHAPE (1), EP_VALUES (-1.75));
  g_assert_cmpfloat (ep_optimizer_get_learning_rate (opt), ==, 0.25);
  count = ep_variable_read (ep_optimizer_get_iterations_variable (opt));
  g_assert_cmpint (ep_tensor_item_int64 (count, NULL), ==, 3);
}

static void
test_schedule_without_value (void)
{
  g_autoptr(EpTensor) init = ep_test_vector (EP_VALUES (0), EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) g = ep_test_vector (EP_VALUES (1), EP_DTYPE_FLOAT64);
  g_autoptr(EpVariable) w = ep_variable_new (init, "w");
  g_autoptr(EpLearningRateSchedule) empty = g_object_new (EP_TYPE_LINEAR_WARMUP_SCHEDULE, NULL);
  g_autoptr(EpOptimizer) opt = g_object_new (EP_TYPE_ADAM, "learning-rate-schedule", empty, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_false (ep_optimizer_apply_gradients (opt, &g, 1, &w, 1, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "schedule gave nan"));
  g_assert_cmpuint (ep_optimizer_get_iterations (opt), ==, 0);
}

static void
test_list_state (void)
{
  g_autoptr(EpTensor) init = ep_test_vector (EP_VALUES (1, 2), EP_DTYPE_FLOAT32);
  g_autoptr(EpVariable) w = ep_variable_new (init, NULL);
  EpVariable *variables[] = { w };
  const char *names[] = { "layers.0.weight", NULL };
  g_autoptr(EpOptimizer) opt = g_object_new (EP_TYPE_RMSPROP, "centered", TRUE, NULL);
  g_auto(GStrv) state_names = NULL;
  g_autoptr(GPtrArray) state = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) grad_avg = NULL;

  state = ep_optimizer_list_state (opt, NULL, names, variables, 1, &state_names, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (state->len, ==, 3);
  g_assert_cmpuint (g_strv_length (state_names), ==, 3);
  g_assert_cmpstr (state_names[0], ==, "optimizer.iterations");
  g_assert_cmpstr (state_names[1], ==, "optimizer.layers.0.weight.square_avg");
  g_assert_cmpstr (state_names[2], ==, "optimizer.layers.0.weight.grad_avg");
  g_assert_true (g_ptr_array_index (state, 0) == ep_optimizer_get_iterations_variable (opt));
  g_assert_true (g_ptr_array_index (state, 2) == ep_optimizer_get_slot (opt, w, "grad_avg"));
  grad_avg = ep_variable_read (g_ptr_array_index (state, 2));
  ep_assert_values (grad_avg, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (0, 0));
}

static void
test_list_state_lengths (void)
{
  g_autoptr(EpTensor) init = ep_test_vector (EP_VALUES (1, 2), EP_DTYPE_FLOAT32);
  g_autoptr(EpVariable) w = ep_variable_new (init, NULL);
  EpVariable *variables[] = { w };
  const char *names[] = { "a", "b", NULL };
  g_autoptr(EpOptimizer) opt = ep_adam_new (0.1);
  g_auto(GStrv) state_names = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_null (ep_optimizer_list_state (opt, NULL, names, variables, 1, &state_names, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "list_state: 2 names for 1 variables"));
  g_assert_null (state_names);
}

static void
test_mismatched_lengths (void)
{
  g_autoptr(EpTensor) init = ep_test_vector (EP_VALUES (0, 0), EP_DTYPE_FLOAT64);
  g_autoptr(EpVariable) w = ep_variable_new (init, "w");
  g_autoptr(EpOptimizer) opt = ep_adam_new (0.1);
  g_autoptr(GError) error = NULL;

  g_assert_false (ep_optimizer_apply_gradients (opt, NULL, 0, &w, 1, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "0 gradients for 1 variables"));
}

static void
test_shape_mismatch (void)
{
  g_autoptr(EpTensor) init = ep_test_vector (EP_VALUES (0, 0), EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) g = ep_test_vector (EP_VALUES (1, 2, 3), EP_DTYPE_FLOAT64);
  g_autoptr(EpVariable) w = ep_variable_new (init, "w");
  g_autoptr(EpOptimizer) opt = ep_sgd_new (0.1, 0.0);
  g_autoptr(GError) error = NULL;

  g_assert_false (ep_optimizer_apply_gradients (opt, &g, 1, &w, 1, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_SHAPE);
  g_assert_cmpuint (ep_optimizer_get_iterations (opt), ==, 0);
}

static void
test_bare_objects (void)
{
  GType types[] = { EP_TYPE_SGD, EP_TYPE_ADAM, EP_TYPE_RMSPROP, EP_TYPE_ADAGRAD };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      g_autoptr(EpOptimizer) opt = g_object_new (types[i], NULL);
      g_autoptr(EpTensor) init = ep_test_vector (EP_VALUES (0), EP_DTYPE_FLOAT32);
      g_autoptr(EpTensor) g = ep_test_vector (EP_VALUES (1), EP_DTYPE_FLOAT32);
      g_autoptr(EpVariable) w = ep_variable_new (init, NULL);
      g_autoptr(EpTensor) value = NULL;

      g_assert_cmpfloat (ep_optimizer_get_learning_rate (opt), ==, 1e-3);
      step (opt, w, g);
      value = ep_variable_read (w);
      g_assert_cmpfloat (ep_tensor_item_double (value, NULL), <, 0.0);
    }
}

/* Once the slots exist, a step on the CPU is one fused kernel per
 * variable writing the variable and its slots in place: no allocation. */
static void
assert_no_allocations (EpOptimizer *opt)
{
  g_autoptr(EpTensor) init = ep_zeros (EP_DIMS (1000), 1, EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) g = ep_ones (EP_DIMS (1000), 1, EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpVariable) w = ep_variable_new (init, "w");

  step (opt, w, g);
  for (guint k = 0; k < 5; k++)
    {
      gsize before = ep_device_count_allocations ();

      step (opt, w, g);
      g_assert_cmpuint (ep_device_count_allocations () - before, ==, 0);
    }
}

static void
test_allocations_per_step (void)
{
  g_autoptr(EpOptimizer) adam = ep_adam_new (1e-3);
  g_autoptr(EpOptimizer) adamw = ep_adam_new_adamw (1e-3, 0.01);
  g_autoptr(EpOptimizer) sgd = g_object_new (EP_TYPE_SGD, "momentum", 0.9, "nesterov", TRUE,
                                             "weight-decay", 0.1, NULL);

  assert_no_allocations (adam);
  assert_no_allocations (adamw);
  g_autoptr(EpOptimizer) rmsprop = g_object_new (EP_TYPE_RMSPROP, "momentum", 0.9, "centered", TRUE,
                                                 "weight-decay", 0.1, NULL);
  g_autoptr(EpOptimizer) adagrad = g_object_new (EP_TYPE_ADAGRAD, "learning-rate-decay", 0.1,
                                                 "weight-decay", 0.1, NULL);

  assert_no_allocations (sgd);
  assert_no_allocations (rmsprop);
  assert_no_allocations (adagrad);
}

/* A read of the variable kept alive shares its storage: the update must
 * not change it (it goes through ops then). */
static void
test_kept_read_is_unchanged (void)
{
  g_autoptr(EpTensor) init = ep_test_vector (EP_VALUES (1, 2), EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) g = ep_test_vector (EP_VALUES (1, 1), EP_DTYPE_FLOAT64);
  g_autoptr(EpVariable) w = ep_variable_new (init, "w");
  g_autoptr(EpOptimizer) opt = ep_sgd_new (1.0, 0.0);
  g_autoptr(EpTensor) before = NULL;
  g_autoptr(EpTensor) after = NULL;

  step (opt, w, g);
  before = ep_variable_read (w);
  step (opt, w, g);
  after = ep_variable_read (w);
  ep_assert_values (before, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (0, 1));
  ep_assert_values (after, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (-1, 0));
}

static EpOptimizer *make_sgd (void) { return g_object_new (EP_TYPE_SGD, "learning-rate", 0.1, "momentum", 0.9, "dampening", 0.1, "weight-decay", 0.01, NULL); }
static EpOptimizer *make_nesterov (void) { return g_object_new (EP_TYPE_SGD, "learning-rate", 0.1, "momentum", 0.9, "nesterov", TRUE, NULL); }
static EpOptimizer *make_adam (void) { return g_object_new (EP_TYPE_ADAM, "learning-rate", 0.01, "weight-decay", 0.1, NULL); }
static EpOptimizer *make_adamw (void) { return ep_adam_new_adamw (0.01, 0.1); }
static EpOptimizer *make_rmsprop (void) { return ep_rmsprop_new (0.01); }
static EpOptimizer *make_rmsprop_all (void) { return g_object_new (EP_TYPE_RMSPROP, "learning-rate", 0.01, "momentum", 0.5, "centered", TRUE, "alpha", 0.3, "weight-decay", 0.1, NULL); }
static EpOptimizer *make_adagrad (void) { return g_object_new (EP_TYPE_ADAGRAD, "learning-rate", 0.1, "learning-rate-decay", 0.1, "initial-accumulator-value", 0.1, "weight-decay", 0.1, NULL); }

/* A variable of 1000 elements on @device, updated 5 times by @opt from
 * gradients that change sign: its value, as bytes. Steps after the
 * first allocate nothing. */
static GBytes *
train_on (EpOptimizer *opt,
          EpDevice    *device,
          EpDType      dtype)
{
  g_autoptr(EpTensor) init_host = ep_test_iota (EP_DIMS (1000), 1, dtype);
  g_autoptr(EpTensor) g_host = ep_test_iota (EP_DIMS (1000), 1, dtype);
  g_autoptr(EpTensor) init = ep_tensor_to_device (init_host, device, NULL);
  g_autoptr(EpTensor) scaled = ep_tensor_to_device (g_host, device, NULL);
  g_autoptr(EpTensor) factor = ep_tensor_new_weak_scalar (-0.003, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) g = ep_tensor_mul (scaled, factor, NULL);
  g_autoptr(EpTensor) g2 = ep_tensor_neg (g, NULL);
  g_autoptr(EpVariable) w = ep_variable_new (init, "w");
  g_autoptr(EpTensor) value = NULL;

  step (opt, w, g);
  for (guint k = 0; k < 4; k++)
    {
      gsize before = ep_device_count_allocations ();


      step (opt, w, k % 2 == 0 ? g2 : g);
      g_assert_cmpuint (ep_device_count_allocations () - before, ==, 0);
    }
  value = ep_variable_read (w);
  return ep_tensor_to_bytes (value, NULL);
}

/* On OpenCL a step is one fused kernel per variable, in place: no
 * allocation, and the CPU's results to the last bit. */
static void
test_opencl_fused (void)
{
  EpDevice *gpu = ep_device_get ("opencl:0", NULL);
  EpDType dtypes[] = { EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64 };

  if (gpu == NULL)
    {
      g_test_skip ("no OpenCL device");
      return;
    }
  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    for (guint i = 0; i < 7; i++)
      {
        EpOptimizer *(*make) (void);
        g_autoptr(EpOptimizer) cpu_opt = NULL;
        g_autoptr(EpOptimizer) gpu_opt = NULL;
        g_autoptr(GBytes) on_cpu = NULL;
        g_autoptr(GBytes) on_gpu = NULL;

        if (dtypes[d] == EP_DTYPE_FLOAT64 && !ep_device_supports_dtype (gpu, EP_DTYPE_FLOAT64))
          continue;
        switch (i)
          {
          case 0: make = make_sgd; break;
          case 1: make = make_adam; break;
          case 2: make = make_adamw; break;
          case 3: make = make_rmsprop; break;
          case 4: make = make_rmsprop_all; break;
          case 5: make = make_adagrad; break;
          default: make = make_nesterov; break;
          }
        cpu_opt = make ();
        gpu_opt = make ();
        on_cpu = train_on (cpu_opt, ep_device_get_cpu (), dtypes[d]);
        on_gpu = train_on (gpu_opt, gpu, dtypes[d]);
        g_assert_true (g_bytes_equal (on_cpu, on_gpu));
      }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/optimizers/sgd/momentum", test_sgd_momentum);
  g_test_add_func ("/optimizers/adam/first-step", test_adam_first_step);
  g_test_add_func ("/optimizers/rmsprop/first-step", test_rmsprop_first_step);
  g_test_add_func ("/optimizers/adagrad/decay", test_adagrad_decay);
  g_test_add_func ("/optimizers/schedules/values", test_schedules);
  g_test_add_func ("/optimizers/schedules/in-optimizer", test_optimizer_with_schedule);
  g_test_add_func ("/optimizers/schedules/no-value", test_schedule_without_value);
  g_test_add_func ("/optimizers/state/list", test_list_state);
  g_test_add_func ("/optimizers/state/lengths", test_list_state_lengths);
  g_test_add_func ("/optimizers/opencl/fused", test_opencl_fused);
  g_test_add_func ("/optimizers/errors/lengths", test_mismatched_lengths);
  g_test_add_func ("/optimizers/errors/shape", test_shape_mismatch);
  g_test_add_func ("/optimizers/bare-objects", test_bare_objects);
  g_test_add_func ("/optimizers/allocations-per-step", test_allocations_per_step);
  g_test_add_func ("/optimizers/kept-read", test_kept_read_is_unchanged);

  return g_test_run ();
}
