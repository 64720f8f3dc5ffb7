"""Shared fixtures for the Python tests: the Ep module and NumPy helpers."""

import numbers
import threading

import gi

gi.require_version("Ep", "1.0")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from gi.repository import Ep, GLib  # noqa: E402

import gi.overrides.Ep as _ep_override  # noqa: E402  (loaded by the line above)

DTYPES = ["float32", "float64", "int32", "int64", "bool"]
# the narrow integer types: the ops that take one take all three
NARROW_INTS = ["uint8", "int8", "int16"]

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
    if dtype in NARROW_INTS:
        # the whole range of the 8-bit types (wrapping edges included);
        # int16 past int8's
        info = np.iinfo(dtype)
        return rng.integers(max(int(info.min), -1000), min(int(info.max), 1000) + 1, size=shape).astype(dtype)
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
        np.testing.assert_allclose(got, expected, rtol=tol if rtol is None else rtol,
                                   atol=tol if atol is None else atol, equal_nan=True)


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


# What each test passed to the ops it checks, op call by op call: every
# op (the names of conftest's op wrappers, installed at the end of this
# file) notes, for its outermost calls in the test running now, the
# layouts of its tensor arguments made by as_layout() ("transposed", ...)
# and the shapes of its tensor and array arguments (0-d, 0-size) and of
# its results ("0-d result", ...). test_harness.py requires, for every op
# that takes a tensor, calls with transposed and step-sliced inputs and
# with 0-d and 0-size ones (or a refusal, as NumPy's, that it checks
# itself): a test that makes such a tensor but hands it to another op
# does not count for this one.

LAYOUTS = ["contiguous", "transposed", "strided", "flipped"]
NON_CONTIGUOUS = ("transposed", "strided")
SHAPE_KINDS = ("0-d", "0-size")

_seen_in_test = {}          # op name -> what its calls in this test were given
_coverage_state = threading.local()
_raw_astensor = _ep_override.astensor


def _shape_kinds(ndim, size, suffix=""):
    return ({"0-d" + suffix} if ndim == 0 else set()) | ({"0-size" + suffix} if size == 0 else set())


def _argument_kinds(value, kinds):
    """What one argument of an op call was: tensors and arrays, alone or in
    a list (concatenate's); numbers and shapes are not inputs."""
    if isinstance(value, Ep.Tensor):
        kinds |= _shape_kinds(value.get_ndim(), value.get_size())
        layout = getattr(value, "_harness_layout", None)
        if layout is not None:
            kinds.add(layout)
    elif isinstance(value, (np.ndarray, np.generic)):
        kinds |= _shape_kinds(np.ndim(value), np.size(value))
    elif isinstance(value, (list, tuple)):
        for v in value:
            if isinstance(v, (Ep.Tensor, np.ndarray, np.generic, list, tuple)):
                _argument_kinds(v, kinds)


def _outermost(state, name, function, outermost):
    """An op wrapper: outermost(*args, **kwargs) for the calls made
    outside any other call wrapped with the thread-local `state`,
    function(*args, **kwargs) for those inside one."""
    def wrapper(*args, **kwargs):
        if getattr(state, "inside", False):
            return function(*args, **kwargs)
        state.inside = True
        try:
            return outermost(*args, **kwargs)
        finally:
            state.inside = False
    wrapper.__name__ = getattr(function, "__name__", name)
    wrapper.__doc__ = getattr(function, "__doc__", None)
    wrapper.__wrapped__ = function
    return wrapper


def _noting(name, function):
    """function, noting what its outermost calls in a test are given and
    give back."""
    def noted(*args, **kwargs):
        kinds = set()
        for value in (*args, *kwargs.values()):
            _argument_kinds(value, kinds)
        result = function(*args, **kwargs)
        for t in _tensors_of(result) or []:
            kinds |= _shape_kinds(t.get_ndim(), t.get_size(), " result")
        _seen_in_test.setdefault(name, set()).update(kinds)
        return result
    return _outermost(_coverage_state, name, function, noted)


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
    A 0-d array is always contiguous. The tensor carries its layout's name
    for the ops it is given to (_harness_layout), when its strides show it:
    not contiguous, or of one element, whose strides and offset are the
    layout's though any such tensor counts as contiguous (item() reads
    one). The views made here are no op calls of the test."""
    inside, _coverage_state.inside = getattr(_coverage_state, "inside", False), True
    try:
        t = _make_layout(a, layout)
    finally:
        _coverage_state.inside = inside
    if layout == "contiguous" or not t.is_contiguous() or a.size == 1:
        t._harness_layout = layout
    return t


def _make_layout(a, layout):
    if layout == "contiguous" or a.ndim == 0:
        t = _raw_astensor(a)
    elif layout == "transposed":
        t = _raw_astensor(np.ascontiguousarray(a.T)).T
    elif layout == "strided":
        big = np.zeros(tuple(2 * s + 1 for s in a.shape), a.dtype)
        big[_strided_key(a.shape)] = a
        t = _raw_astensor(big)[_strided_key(a.shape)]
        assert not t.is_contiguous() or a.size <= 1
    elif layout == "flipped":
        t = _raw_astensor(np.ascontiguousarray(np.flip(a))).flip()
    else:
        raise ValueError(layout)
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
    if config.getoption("--staged", default=False):
        _install_staging()


def pytest_collection_modifyitems(items):
    # the harness's session counts what each op call is given; other
    # sessions keep the ops as the module has them (test_catalogue.py
    # looks at the functions themselves)
    if any(item.get_closest_marker("harness_check") is not None for item in items):
        _install_coverage()
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
            _seen_passed.setdefault(name, set()).update(_seen_in_test.get(name, ()))


def harness_counts():
    """What the harness counted so far: the number of test cases marked
    numpy_op, passed cases per op, and per op what its passing tests
    passed in: layouts ("transposed", ...), input shapes ("0-d",
    "0-size") and result shapes ("0-d result", "0-size result")."""
    return len(_op_of_item), dict(_passed), {name: set(s) for name, s in _seen_passed.items()}


def pytest_terminal_summary(terminalreporter):
    if _originals:
        copies = ""
        if _traced_on_copies:
            copies = (f" ({sum(_traced_on_copies.values())} traced on copies of inputs whose shuffled "
                      f"values they refuse: {', '.join(sorted(_traced_on_copies))})")
        terminalreporter.write_line(
            f"Staged: {len(_staged)} ops replayed as they ran eagerly, in {sum(_staged.values())} "
            f"calls{copies}: {', '.join(sorted(_staged))}")
    if _passed:
        cases = len(_op_of_item)
        strided = [name for name, seen in _seen_passed.items() if seen.issuperset(NON_CONTIGUOUS)]
        shapes = [name for name, seen in _seen_passed.items() if seen.issuperset(SHAPE_KINDS)]
        terminalreporter.write_line(
            f"NumPy comparison: {len(_passed)} ops checked in {sum(_passed.values())} op-cases "
            f"({cases} test cases); {len(strided)} ops on transposed and step-sliced inputs, "
            f"{len(shapes)} on 0-d and 0-size ones: {', '.join(sorted(_passed))}")


# The staged harness: with --staged (meson test 'numpy harness (staged)'),
# every op a test calls also runs through Ep.function, outermost calls
# only: the test's call runs eagerly, then a staged function of the same
# call is traced on fresh inputs of the same signature (each tensor or
# array shuffled, on the same device; copied as they are where shuffled
# values are refused, a singular matrix) and replayed on the test's
# inputs. The replay must equal the eager result bit for bit (dtype,
# shape, device, weakness, bytes), the function must have traced once,
# and the test gets the replay's result. A call that fails eagerly must
# fail staged with the same error. Random ops replay on the stream of
# the eager call (the seed is set again and the streams drawn since
# then are drawn again), so tests that check the numbers a seed gives
# check the staged ones.

def pytest_addoption(parser):
    parser.addoption("--staged", action="store_true",
                     help="run every op also through Ep.function and compare with the eager result")


_staged_state = threading.local()
_staged = {}               # what was checked staged: op name -> calls
_originals = {}            # name -> the function before staging
_stageable = set()         # the ops that run staged
_traced_on_copies = {}     # op name -> calls traced on copies of the inputs
_sequence = {"seed": None, "streams": 0}   # the random sequence since Ep.set_seed
_fresh_rng = np.random.default_rng(20261123)

# The ops tests call, besides the op wrappers: NumPy forms, operators and
# properties of Tensor (each operator counts as its op).
_RANDOM_OPS = ("uniform", "normal", "glorot_uniform", "glorot_normal", "he_uniform", "he_normal", "dropout")
_NOT_STAGED = {
    # not ops: what makes the inputs, the random sequence, Python functions
    "astensor", "set_seed", "function", "value_and_grad", "value_aux_and_grad", "grad",
    "value_and_grad_fn", "custom_gradient", "device", "list_devices", "list_ops",
}
_TENSOR_CONSTRUCTORS = ("new_from_bytes", "new_from_doubles", "new_scalar")


def _operator_ops():
    ops = {}
    for op, names in _ep_override._BINARY_OPERATORS.items():
        for name in names:
            ops[name] = op
    for op, name in _ep_override._UNARY_OPERATORS.items():
        ops[name] = op
    ops.update({"__pos__": "pos", "__getitem__": "getitem", "T": "T"})
    return ops


def _tensors_of(value):
    """The tensors of a result: a tensor, or a list or tuple of tensors;
    None for anything else (item(), to_bytes(), None)."""
    if isinstance(value, Ep.Tensor):
        return [value]
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, Ep.Tensor) for v in value):
        return list(value)
    return None


def _fresh(value, shuffle):
    """value with each tensor and array replaced by a new one of the same
    signature: its values shuffled, or copied."""
    if isinstance(value, Ep.Tensor):
        # (NumPy has no bfloat16: its values through float32, exactly)
        bfloat16 = value.get_dtype() == Ep.DType.BFLOAT16
        a = value.astype(Ep.float32).numpy() if bfloat16 else value.numpy()
        if shuffle and a.size > 1:
            a = _fresh_rng.permutation(a.ravel()).reshape(a.shape)
        if value.is_weak():
            return Ep.Tensor.new_weak_scalar(float(a), value.get_dtype())
        fresh = _raw_astensor(np.array(a))
        if bfloat16:
            fresh = fresh.astype(Ep.bfloat16)
        return fresh if fresh.device == value.device else fresh.to_device(value.device)
    if isinstance(value, (np.ndarray, np.generic)):
        a = np.array(value)
        return _fresh_rng.permutation(a.ravel()).reshape(a.shape) if shuffle and a.size > 1 else a
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_fresh(v, shuffle) for v in value)
    if isinstance(value, dict):
        return {k: _fresh(v, shuffle) for k, v in value.items()}
    return value


def _assert_same(name, got, want):
    got_tensors, want_tensors = _tensors_of(got), _tensors_of(want)
    assert type(got) is type(want) and len(got_tensors) == len(want_tensors), \
        f"{name} staged: {got!r} is not like the eager {want!r}"
    for g, w in zip(got_tensors, want_tensors):
        what = (Ep.dtype_get_name(w.dtype), w.shape, w.device.get_name(), w.is_weak())
        assert (Ep.dtype_get_name(g.dtype), g.shape, g.device.get_name(), g.is_weak()) == what, \
            f"{name} staged gave {g!r} on {g.device}, eagerly {w!r} on {w.device}"
        assert g.to_bytes().get_data() == w.to_bytes().get_data(), \
            f"{name} staged gave {g!r}, eagerly {w!r}"


def _replay_random_stream():
    """Sets the random sequence back to the stream of the eager call just
    made (the staged trace drew the next one)."""
    _originals["set_seed"](_sequence["seed"])
    for _ in range(_sequence["streams"] - 1):
        _originals["uniform"](0)


def _staged_call(name, function, args, kwargs, eager):
    """The replay of function(*args, **kwargs), staged, checked against
    the eager result."""
    def call(*a, **k):
        return function(*a, **k)
    random = name in _RANDOM_OPS
    staged = _originals["function"](call)
    try:
        staged(*_fresh(args, True), **_fresh(kwargs, True))
    except Exception:  # noqa: B902 (values this op refuses: trace on copies)
        staged = _originals["function"](call)
        staged(*_fresh(args, False), **_fresh(kwargs, False))
        _traced_on_copies[name] = _traced_on_copies.get(name, 0) + 1
    if random:
        _replay_random_stream()
    replay = staged(*args, **kwargs)
    assert staged.trace_count == 1, f"{name} staged: traced {staged.trace_count} times"
    _assert_same(name, replay, eager)
    return replay


def _staged_error(name, function, args, kwargs, error):
    """A call that fails eagerly fails staged, with the same error."""
    if name in _RANDOM_OPS:
        return
    try:
        _originals["function"](lambda *a, **k: function(*a, **k))(*args, **kwargs)
    except Exception as staged_error:  # noqa: B902
        assert type(staged_error) is type(error), \
            f"{name} staged raised {staged_error!r}, eagerly {error!r}"
        if isinstance(error, GLib.Error):
            assert (staged_error.domain, staged_error.code, staged_error.message) == \
                (error.domain, error.code, error.message), f"{name} staged raised {staged_error}, eagerly {error}"
    else:
        raise AssertionError(f"{name} staged did not raise {error!r}")


def _staging(name, function):
    """function, run eagerly then staged when it is the outermost op."""
    _stageable.add(name)

    def staged(*args, **kwargs):
        if name in _RANDOM_OPS:
            if _sequence["seed"] is None:   # replays need a known sequence
                _set_seed(int(_fresh_rng.integers(2 ** 63)))
            _sequence["streams"] += 1
        try:
            eager = function(*args, **kwargs)
        except Exception as error:  # noqa: B902
            if name in _RANDOM_OPS:
                _sequence["seed"] = None    # it may or may not have drawn a stream
            _staged_error(name, function, args, kwargs, error)
            raise
        if _tensors_of(eager) is None:
            return eager
        result = _staged_call(name, function, args, kwargs, eager)
        _staged[name] = _staged.get(name, 0) + 1
        return result
    return _outermost(_staged_state, name, function, staged)


def _set_seed(seed):
    _originals["set_seed"](seed)
    _sequence.update(seed=seed, streams=0)


def _wrap_ops(wrap, methods=(), skip=_NOT_STAGED):
    """Replaces every op of Tensor and Ep (operators by their op's name,
    and `methods` besides) with wrap(op_name, function)."""
    tensor = Ep.Tensor
    operators = _operator_ops()
    for name in sorted(set(_ep_override._OPS) | set(operators) | set(_TENSOR_CONSTRUCTORS) | set(methods)):
        if name in skip or not hasattr(tensor, name):
            continue
        value = tensor.__dict__.get(name, getattr(tensor, name))
        op = operators.get(name, name)
        if isinstance(value, property):
            setattr(tensor, name, property(wrap(op, value.fget)))
        elif name in _TENSOR_CONSTRUCTORS:
            setattr(tensor, name, staticmethod(wrap(name, getattr(tensor, name))))
        elif callable(value):
            setattr(tensor, name, wrap(op, getattr(tensor, name)))
    names = set(_ep_override._FUNCTIONS) | set(_ep_override.__all__)
    for name in sorted(names - skip):
        value = getattr(Ep, name, None)
        if callable(value) and not isinstance(value, type) and not isinstance(value, Ep.DType):
            setattr(Ep, name, wrap(name, value))


def _install_staging():
    for name in ("function", "set_seed", "uniform"):
        _originals[name] = getattr(Ep, name)
    Ep.set_seed = _set_seed
    _wrap_ops(_staging)


# what the coverage counts besides the ops staging wraps: what makes no
# tensor (properties, item, printing, bytes)
_NOT_STAGED_OPS = ("shape", "ndim", "dtype", "size", "item", "to_string", "to_bytes")


def _install_coverage():
    """Every op notes what its calls are given (see _seen_in_test)."""
    _wrap_ops(_noting, methods=_NOT_STAGED_OPS)


def staged_counts():
    """None without --staged; else the ops that can be staged, and the
    calls of each checked staged in this session so far."""
    if not _originals:
        return None
    return set(_stageable), dict(_staged)
