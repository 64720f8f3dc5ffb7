"""Devices from Python: listing, scopes, copies, mixed placement, errors.

Op results on every device are checked by test_ops.py (run once per
device) and tests/c/test-backend-ops.c; this covers the device API.
"""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from conftest import DTYPES, Ep, assert_ep_error, assert_matches, random_array

OPENCL = [d for d in Ep.list_devices() if d.get_kind() == "opencl"]
needs_opencl = pytest.mark.skipif(not OPENCL, reason=f"no OpenCL device: {Ep.Device.get_unavailable_reason('opencl')}")


def test_cpu_comes_first():
    devices = Ep.list_devices()
    assert devices[0].get_name() == "cpu:0"
    assert devices[0].get_kind() == "cpu"
    assert Ep.Device.get("cpu") == devices[0]
    assert Ep.Device.get_unavailable_reason("cpu") is None


def test_devices_are_numbered_by_kind():
    names = [d.get_name() for d in Ep.list_devices()[1:]]
    assert names == [f"opencl:{i}" for i in range(len(names))]


@pytest.mark.parametrize("device", [d.get_name() for d in Ep.list_devices()])
def test_properties(device):
    d = Ep.Device.get(device)
    assert d.props.name == device
    assert d.props.kind == device.split(":")[0]
    assert d.props.description
    assert d.props.vendor == d.get_vendor() and d.props.vendor
    assert d.props.memory_size == d.get_memory_size() > 0
    assert d.supports_dtype(Ep.DType.FLOAT32)


def test_repr():
    assert repr(Ep.Device.get("cpu:0")) == "Ep.Device('cpu:0')"
    assert str(Ep.Device.get("cpu:0")) == "cpu:0"


def test_unknown_device_is_an_error():
    message = assert_ep_error(Ep.Error.DEVICE, Ep.Device.get, "tpu:0")
    assert "tpu:0" in message
    assert_ep_error(Ep.Error.DEVICE, Ep.Device.get, f"opencl:{len(OPENCL)}")
    assert Ep.Device.get_unavailable_reason("tpu")


def test_without_a_driver_only_cpu_remains():
    """No OpenCL driver (the ICD loader finds none): cpu:0 works, and the
    library says why there is no OpenCL."""
    script = (
        "import gi; gi.require_version('Ep', '1.0'); from gi.repository import Ep\n"
        "print([d.get_name() for d in Ep.list_devices()])\n"
        "print(Ep.Device.get_unavailable_reason('opencl'))\n"
        "print(Ep.ones([3]).sum().item())\n"
    )
    env = dict(os.environ, OCL_ICD_VENDORS="/nonexistent", G_MESSAGES_DEBUG="Ep")
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    # GLib writes debug messages to stdout
    lines = [line for line in run.stdout.splitlines() if "Ep-DEBUG" not in line]
    assert lines[0] == "['cpu:0']"
    assert "OpenCL" in lines[1]
    assert lines[2] == "3.0"
    assert "OpenCL is not available" in run.stdout + run.stderr


@needs_opencl
@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip(rng, dtype):
    a = random_array(rng, (4, 5), dtype)
    t = Ep.astensor(a).to_device("opencl:0")
    assert t.device.get_name() == "opencl:0"
    assert_matches(t, a)
    assert_matches(t.to_device(Ep.Device.get("cpu:0")), a)
    assert_matches(Ep.astensor(a).T.to_device("opencl:0"), a.T)


@needs_opencl
def test_scope_places_new_tensors_and_ops():
    with Ep.device("opencl:0") as device:
        assert device.get_name() == "opencl:0"
        assert Ep.Device.get_current() == device
        x = Ep.astensor([1.0, 2.0, 3.0])
        y = x.square().sum().sqrt()
        assert x.device == device and y.device == device
    assert Ep.Device.get_current() is None
    assert str(y) == "3.7416575"
    assert y.item() == pytest.approx(3.7416575)


@needs_opencl
@pytest.mark.parametrize("make", ["reshape", "T", "slice", "contiguous", "astype"])
def test_views_and_no_op_conversions_follow_the_scope(make):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = Ep.astensor(a)
    expected = {"reshape": a.reshape(3, 2), "T": a.T, "slice": a[:, 1:],
                "contiguous": a, "astype": a}[make]
    with Ep.device("opencl:0"):
        y = {"reshape": lambda: x.reshape(3, 2), "T": lambda: x.T, "slice": lambda: x[:, 1:],
             "contiguous": x.contiguous, "astype": lambda: x.astype("float32")}[make]()
    assert y.device.get_name() == "opencl:0"
    assert x.device.get_name() == "cpu:0"
    assert_matches(y, expected)


@needs_opencl
def test_scopes_nest_and_unwind_on_exceptions():
    with pytest.raises(ZeroDivisionError):
        with Ep.device("opencl:0"):
            with Ep.device("cpu:0"):
                assert Ep.zeros(2).device.get_name() == "cpu:0"
            assert Ep.zeros(2).device.get_name() == "opencl:0"
            1 / 0
    assert Ep.Device.get_current() is None


def test_pop_without_a_scope_is_an_error():
    cpu = Ep.Device.get("cpu")
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, cpu.pop)
    assert "no device scope is open" in message
    assert Ep.Device.get_current() is None


def test_pop_on_another_thread_is_an_error():
    cpu = Ep.Device.get("cpu:0")
    cpu.push()
    errors = []
    worker = threading.Thread(target=lambda: errors.append(assert_ep_error(Ep.Error.INVALID_ARGUMENT, cpu.pop)))
    worker.start()
    worker.join()
    assert "no device scope is open on this thread" in errors[0]
    assert Ep.Device.get_current() == cpu  # the scope of this thread is still open
    cpu.pop()
    assert Ep.Device.get_current() is None


@needs_opencl
def test_leaving_a_scope_that_is_not_the_innermost_is_an_error():
    cpu, cl = Ep.Device.get("cpu:0"), Ep.Device.get("opencl:0")
    scope = Ep.device(cpu)
    scope.__enter__()
    cl.push()  # left open inside the with
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, scope.__exit__, None, None, None)
    assert "cannot pop cpu:0: the innermost device scope on this thread is opencl:0" in message
    assert Ep.Device.get_current() == cl  # nothing closed
    cl.pop()
    cpu.pop()
    assert Ep.Device.get_current() is None


def test_a_device_made_with_new_is_an_error_to_use():
    device = Ep.Device()
    message = assert_ep_error(Ep.Error.DEVICE, device.push)
    assert "not a device of this machine" in message
    assert_ep_error(Ep.Error.DEVICE, Ep.astensor([1.0]).to_device, device)
    assert Ep.Device.get_current() is None
    del device  # finalizing it must not crash


@needs_opencl
def test_scope_is_per_thread():
    seen = []
    with Ep.device("opencl:0"):
        thread = threading.Thread(target=lambda: seen.append(Ep.zeros(2).device.get_name()))
        thread.start()
        thread.join()
        assert Ep.zeros(2).device.get_name() == "opencl:0"
    assert seen == ["cpu:0"]


@needs_opencl
def test_inputs_on_different_devices(rng):
    a = random_array(rng, (3, 4), "float32")
    b = random_array(rng, (4,), "int64")
    on_cl = Ep.astensor(a).to_device("opencl:0")
    on_cpu = Ep.astensor(b)
    assert (on_cl + on_cpu).device.get_name() == "opencl:0"
    assert (on_cpu + on_cl).device.get_name() == "cpu:0"
    assert_matches(on_cl + on_cpu, a + b)
    assert_matches(on_cpu * on_cl, b * a)
    assert_matches(on_cl @ Ep.astensor(a.T), a @ a.T, rtol=1e-5)
    with Ep.device("opencl:0"):
        scoped = Ep.astensor(b).to_device("cpu:0") - 2.5
    assert scoped.device.get_name() == "opencl:0"
    assert_matches(scoped, b - 2.5)


@needs_opencl
def test_reading_from_the_device(rng):
    a = random_array(rng, (2, 3), "int32")
    t = Ep.astensor(a).to_device("opencl:0")
    assert str(t) == str(a)
    assert t.sum().item() == a.sum()
    assert t.max().item() == a.max()
    assert bool(t.min() == a.min())
    assert np.array_equal(t.numpy(), a)
    assert bytes(t.to_bytes().get_data()) == a.tobytes()


@needs_opencl
def test_absurd_allocation_on_the_device():
    with Ep.device("opencl:0"):
        message = assert_ep_error(Ep.Error.OUT_OF_MEMORY, Ep.zeros, [1 << 20, 1 << 20], Ep.DType.FLOAT32)
    assert "opencl:0" in message


@needs_opencl
def test_synchronize():
    with Ep.device("opencl:0") as device:
        Ep.ones([1000]).exp()
        assert device.synchronize()
