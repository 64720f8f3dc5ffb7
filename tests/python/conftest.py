"""Shared fixtures for the Python tests: the Ep module and NumPy helpers."""

import gi

gi.require_version("Ep", "1.0")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from gi.repository import Ep, GLib  # noqa: E402

DTYPES = ["float32", "float64", "int32", "int64", "bool"]


def random_array(rng, shape, dtype):
    """Random data of a NumPy dtype name: floats in [-3, 3], small ints, bools."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("int"):
        return rng.integers(-9, 10, size=shape).astype(dtype)
    return (rng.random(shape) * 6 - 3).astype(dtype)


def assert_matches(tensor, expected, exact=None, rtol=None, atol=None):
    """tensor equals the NumPy array `expected`: dtype, shape and values."""
    expected = np.asarray(expected)
    got = tensor.numpy()
    assert got.dtype == expected.dtype, f"dtype {got.dtype} != {expected.dtype}"
    assert got.shape == expected.shape, f"shape {got.shape} != {expected.shape}"
    if exact is None:
        exact = expected.dtype.kind in "biu"
    if exact:
        np.testing.assert_array_equal(got, expected)
    else:
        tol = 1e-5 if expected.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, expected, rtol=rtol or tol, atol=atol or tol, equal_nan=True)


def assert_ep_error(code, function, *args):
    """function(*args) raises GLib.Error in the ep-error domain with code."""
    with pytest.raises(GLib.Error) as info:
        function(*args)
    assert info.value.domain == "ep-error", info.value.domain
    assert info.value.code == int(code), (info.value.code, info.value.message)
    return info.value.message


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


# opencl: test modules marked `pytestmark = pytest.mark.on_every_device`
# run each test once per device (cpu:0, opencl:0, ...), inside a device
# scope: tensors they create live there and their ops run there.

DEVICES = [device.get_name() for device in Ep.list_devices()]


@pytest.fixture(autouse=True)
def ep_device(request):
    """The device of the test's scope, or None outside device tests."""
    name = getattr(request, "param", None)
    if name is None:
        yield None
        return
    with Ep.device(name) as device:
        yield device


def pytest_generate_tests(metafunc):
    if metafunc.definition.get_closest_marker("on_every_device") is not None:
        metafunc.parametrize("ep_device", DEVICES, indirect=True)


def _lacks_float64(error):
    """The error of an op computing in float64 on a device without it."""
    return (isinstance(error, GLib.Error) and error.domain == "ep-error"
            and error.code == int(Ep.Error.DEVICE) and "does not support float64" in error.message)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A device without cl_khr_fp64 cannot compute in float64: the
    float64 cases of the device tests are skipped there, not failed."""
    outcome = yield
    report = outcome.get_result()
    if call.when == "call" and call.excinfo is not None and _lacks_float64(call.excinfo.value):
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1], "Skipped: " + call.excinfo.value.message)


# The NumPy comparison harness counts what it checked: tests marked
# @pytest.mark.numpy_op("name", ...) cover those ops; a bare marker on a
# test parametrized by `name` covers the op of each case.

_op_of_item = {}
_passed = {}


def pytest_configure(config):
    config.addinivalue_line("markers", "numpy_op(*names): the ops a test compares with NumPy")
    config.addinivalue_line("markers", "on_every_device: run the test on every device, in its scope")


def pytest_collection_modifyitems(items):
    for item in items:
        marker = item.get_closest_marker("numpy_op")
        if marker is None:
            continue
        names = marker.args or (item.callspec.params["name"],)
        _op_of_item[item.nodeid] = names


def pytest_runtest_logreport(report):
    if report.when == "call" and report.passed and report.nodeid in _op_of_item:
        for name in _op_of_item[report.nodeid]:
            _passed[name] = _passed.get(name, 0) + 1


def pytest_terminal_summary(terminalreporter):
    if _passed:
        cases = len(_op_of_item)
        terminalreporter.write_line(
            f"NumPy comparison: {len(_passed)} ops checked in {sum(_passed.values())} op-cases "
            f"({cases} test cases): {', '.join(sorted(_passed))}")
