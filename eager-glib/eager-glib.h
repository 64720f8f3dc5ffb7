/* eager-glib.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#define EP_INSIDE

#include "ep-version.h"
#include "ep-types.h"
#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-device.h"
#include "ep-device-list.h"
#include "ep-tensor.h"
#include "ep-dlpack.h"
#include "ep-creation.h"
#include "ep-random.h"
#include "ep-einsum.h"
#include "ep-join.h"
#include "ep-ops.h"
#include "ep-pool.h"
#include "ep-fft.h"
#include "ep-variable.h"
#include "ep-checkpoint.h"
#include "ep-learning-rate-schedule.h"
#include "ep-constant-schedule.h"
#include "ep-step-decay-schedule.h"
#include "ep-cosine-decay-schedule.h"
#include "ep-linear-warmup-schedule.h"
#include "ep-optimizer.h"
#include "ep-sgd.h"
#include "ep-adam.h"
#include "ep-module.h"
#include "ep-linear.h"
#include "ep-relu.h"
#include "ep-tanh.h"
#include "ep-sequential.h"
#include "ep-conv2d.h"
#include "ep-max-pool2d.h"
#include "ep-avg-pool2d.h"
#include "ep-batch-norm.h"
#include "ep-layer-norm.h"
#include "ep-dropout.h"
#include "ep-embedding.h"
#include "ep-gelu.h"
#include "ep-flatten.h"
#include "ep-rmsprop.h"
#include "ep-adagrad.h"
#include "ep-gradient-tape.h"
#include "ep-autodiff.h"
#include "ep-forward-accumulator.h"
#include "ep-custom-gradient-fn.h"
#include "ep-value-and-grad-fn.h"
#include "ep-tensor-spec.h"
#include "ep-function.h"
#include "ep-trainer.h"
#include "ep-host-call.h"
#include "ep-memory.h"
/* distributed (issue 18) */
#include "ep-communicator.h"
/* data-parallel training (issue 18) */
#include "ep-data-parallel.h"

#undef EP_INSIDE
