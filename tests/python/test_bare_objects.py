"""Objects made with GObject.new() and no properties: errors, never crashes.

A binding can make any class of the namespace without its constructor
(`Ep.Device()`, `GObject.new(Ep.ValueAndGradFn)`). bare_objects.py walks
the introspection data and calls every method of such an object, and
every function with such an object as an argument; each run is a process
of its own, so that a crash fails one case and names the call.
"""

import os
import subprocess
import sys

import pytest
from gi.repository import Ep, GObject

import bare_objects

HERE = os.path.dirname(os.path.abspath(__file__))


def run_bare(class_name, mode):
    env = dict(os.environ, G_DEBUG="fatal-criticals")
    return subprocess.run([sys.executable, os.path.join(HERE, "bare_objects.py"), class_name, mode],
                          env=env, capture_output=True, text=True, timeout=300)


def test_every_class_is_walked():
    assert sorted(bare_objects.ep_classes()) == [
        "Adagrad", "Adam", "AvgPool2d", "BatchNorm", "Communicator", "ConstantSchedule", "Conv2d",
        "CosineDecaySchedule", "CustomGradientFn", "DataParallel", "Device", "DeviceList", "Dropout",
        "Embedding", "Flatten", "ForwardAccumulator", "Function", "Gelu", "GradientTape", "LayerNorm",
        "LearningRateSchedule", "Linear", "LinearWarmupSchedule", "MaxPool2d", "Module",
        "Optimizer", "Relu", "Rmsprop", "Sequential", "Sgd", "StepDecaySchedule", "Tanh",
        "Tensor", "TensorSpec", "Trainer", "ValueAndGradFn", "Variable"]


@pytest.mark.parametrize("mode", ["self", "argument"])
@pytest.mark.parametrize("class_name", sorted(bare_objects.ep_classes()))
def test_bare_object_gives_errors(class_name, mode):
    result = run_bare(class_name, mode)
    calls = result.stdout.splitlines()
    last = calls[-1] if calls else "(before the first call)"
    # a library that installs signal handlers (LLVM in an OpenCL driver)
    # can keep fatal-criticals from stopping the process: read the log too
    assert "CRITICAL **" not in result.stderr and "WARNING **" not in result.stderr, \
        f"after {last}:\n{result.stderr[-2000:]}"
    assert result.returncode == 0, f"{last} ended the process ({result.returncode}):\n{result.stderr[-2000:]}"


def test_bare_value_and_grad_fn_call_is_an_error():
    fn = GObject.new(Ep.ValueAndGradFn)
    with pytest.raises(Exception) as info:
        fn.call([Ep.astensor([1.0, 2.0])])
    assert "no function" in str(info.value)


def test_bare_value_and_grad_fn_differentiates_the_first_argument():
    assert list(GObject.new(Ep.ValueAndGradFn).get_argnums()) == [0]


def test_bare_device_is_refused_by_to_device():
    with pytest.raises(Exception) as info:
        Ep.astensor([1.0]).to_device(Ep.Device())
    assert "not a device of this machine" in str(info.value)


def test_bare_device_has_no_kind():
    assert Ep.Device().get_kind() is None
