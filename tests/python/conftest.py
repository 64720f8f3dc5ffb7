"""Shared fixtures for the Python tests: the Ep module and NumPy helpers."""

import gi

gi.require_version("Ep", "1.0")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from gi.repository import Ep, GLib  # noqa: E402

import gi.overrides.Ep as _ep_override  # noqa: E402  (loaded by the line above)

DTYPES = ["float32", "float64", "int32", "int64", "bool"]

# operand shapes that broadcast: 0-d, 0-size, leading and inner ones
SHAPE_PAIRS = [
    ((), ()),
    ((5,), ()),
    ((), (4,)),
    ((3, 4), (3, 4)),
    ((3, 1), (1, 4)),
    ((2, 3, 4), (4,)),
    ((2, 1, 4), (3, 1)),
    ((0, 3), (3,)),
    ((1, 0), (5, 1)),
]


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
    _note_shape(tensor, " result")
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


# What two or more op families' test files (ops/test_<family>.py) share.

# axis arguments of the reductions: all, one, several (any order), none
AXES = [None, 0, 1, -1, (0, 2), (2, 0, 1), ()]


def reference(function, *args, **kwargs):
    """NumPy's function(*args, **kwargs), floating-point warnings off."""
    with np.errstate(all="ignore"):
        return function(*args, **kwargs)


def tolerances(dtype):
    """assert_matches() tolerances for linear algebra results of dtype."""
    return {"rtol": 1e-4, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-12}


def logsumexp_reference(a, axis=None, keepdims=False):
    wide = a.astype(np.float64)
    if wide.size == 0:
        m = np.zeros(np.sum(wide, axis=axis, keepdims=True).shape)
    else:
        m = reference(np.amax, wide, axis=axis, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
    s = reference(np.log, np.sum(np.exp(wide - m), axis=axis, keepdims=True)) + m
    return s if keepdims else np.squeeze(s, axis=axis if axis is not None else tuple(range(a.ndim)))


def out_dtype(dtype):
    """The result type of logsumexp (and softmax, crossentropy) on dtype."""
    return {"float32": np.float32, "bool": np.float32}.get(dtype, np.float64)


# What each test passed to the ops it checks. The harness notes, for the
# test running now, the layouts of the tensors made by as_layout() and
# the shapes of the data turned into tensors (0-d, 0-size) by
# Ep.astensor (wrapped below); assert_matches() notes the shapes of
# results. test_harness.py requires, for every op that takes a tensor,
# transposed and step-sliced inputs and 0-d and 0-size ones (or a
# refusal, as NumPy's, that it checks itself).

LAYOUTS = ["contiguous", "transposed", "strided", "flipped"]
NON_CONTIGUOUS = ("transposed", "strided")
SHAPE_KINDS = ("0-d", "0-size")

_seen_in_test = set()


def _note_shape(t, suffix=""):
    if t.get_ndim() == 0:
        _seen_in_test.add("0-d" + suffix)
    if t.get_size() == 0:
        _seen_in_test.add("0-size" + suffix)


def _noting_astensor(astensor):
    def noted(value, dtype=None):
        t = astensor(value, dtype)
        _note_shape(t)
        return t
    noted.__doc__ = astensor.__doc__
    return noted


# the proxy that `from gi.repository import Ep` gives, and the override
# module whose functions (concatenate, stack, ...) call its astensor
Ep.astensor = _noting_astensor(_ep_override.astensor)
_ep_override.astensor = Ep.astensor


def _strided_key(shape):
    """Steps of 2 on even axes and -2 on odd ones, the x[1::2, -2:0:-2]
    style: `shape` out of every other element of a (2 * shape + 1) array,
    some axes reversed."""
    return tuple(slice(1, None, 2) if d % 2 == 0 else slice(2 * s - 1, 0, -2) for d, s in enumerate(shape))


def as_layout(a, layout):
    """A tensor with the values of the NumPy array `a`, laid out as named:
    "contiguous"; "transposed" (a transposed view of the transposed data);
    "strided" (sliced with steps of 2 and -2 through __getitem__, out of a
    larger array: x[1::2, -2:0:-2, ...]); "flipped" (negative strides, flip).
    A 0-d array is always contiguous."""
    if layout == "contiguous" or a.ndim == 0:
        t = Ep.astensor(a)
    elif layout == "transposed":
        t = Ep.astensor(np.ascontiguousarray(a.T)).T
    elif layout == "strided":
        big = np.zeros(tuple(2 * s + 1 for s in a.shape), a.dtype)
        big[_strided_key(a.shape)] = a
        t = Ep.astensor(big)[_strided_key(a.shape)]
        assert not t.is_contiguous() or a.size <= 1
    elif layout == "flipped":
        t = Ep.astensor(np.ascontiguousarray(np.flip(a))).flip()
    else:
        raise ValueError(layout)
    _note_shape(t)
    if layout == "contiguous" or not t.is_contiguous():
        _seen_in_test.add(layout)
    return t


def layouts(a, names=LAYOUTS):
    """(layout, tensor) for each layout of the NumPy array `a`: the same
    data contiguous, transposed, sliced with steps, flipped."""
    for name in names:
        yield name, as_layout(a, name)


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
_seen_passed = {}


def pytest_configure(config):
    config.addinivalue_line("markers", "numpy_op(*names): the ops a test compares with NumPy")
    config.addinivalue_line("markers", "harness_check: runs after every other test of the session")


    config.addinivalue_line("markers", "on_every_device: run the test on every device, in its scope")


def pytest_collection_modifyitems(items):
    for item in items:
        marker = item.get_closest_marker("numpy_op")
        if marker is None:
            continue
        names = marker.args or (item.callspec.params["name"],)
        _op_of_item[item.nodeid] = names
    # the harness's own checks look at what the others counted: last
    items.sort(key=lambda item: item.get_closest_marker("harness_check") is not None)


def pytest_runtest_setup(item):
    _seen_in_test.clear()


def pytest_runtest_logreport(report):
    if report.when == "call" and report.passed and report.nodeid in _op_of_item:
        for name in _op_of_item[report.nodeid]:
            _passed[name] = _passed.get(name, 0) + 1
            _seen_passed.setdefault(name, set()).update(_seen_in_test)


def harness_counts():
    """What the harness counted so far: the number of test cases marked
    numpy_op, passed cases per op, and per op what its passing tests
    passed in: layouts ("transposed", ...), input shapes ("0-d",
    "0-size") and result shapes ("0-d result", "0-size result")."""
    return len(_op_of_item), dict(_passed), {name: set(s) for name, s in _seen_passed.items()}


def pytest_terminal_summary(terminalreporter):
    if _passed:
        cases = len(_op_of_item)
        strided = [name for name, seen in _seen_passed.items() if seen.issuperset(NON_CONTIGUOUS)]
        shapes = [name for name, seen in _seen_passed.items() if seen.issuperset(SHAPE_KINDS)]
        terminalreporter.write_line(
            f"NumPy comparison: {len(_passed)} ops checked in {sum(_passed.values())} op-cases "
            f"({cases} test cases); {len(strided)} ops on transposed and step-sliced inputs, "
            f"{len(shapes)} on 0-d and 0-size ones: {', '.join(sorted(_passed))}")
