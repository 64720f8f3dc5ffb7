"""Python for NumPy users (docs/python.md): errors as Python's exceptions,
dtypes as NumPy's, and NumPy's protocols (__array_ufunc__,
__array_function__, __array__ with copy=)."""

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
from conftest import Ep, GLib, _ep_override, assert_matches
from gi.repository import Gio

# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------

# (code, class, the builtin exceptions it also is)
ERRORS = [
    (Ep.Error.SHAPE, Ep.ShapeError, (ValueError,)),
    (Ep.Error.DTYPE, Ep.DTypeError, (ValueError,)),
    (Ep.Error.AXIS, Ep.AxisError, (ValueError, IndexError)),
    (Ep.Error.INDEX, Ep.OutOfRangeError, (IndexError,)),
    (Ep.Error.DEVICE, Ep.DeviceError, ()),
    (Ep.Error.OUT_OF_MEMORY, Ep.OutOfMemoryError, (MemoryError,)),
    (Ep.Error.GRADIENT, Ep.GradientError, ()),
    (Ep.Error.INVALID_ARGUMENT, Ep.InvalidArgumentError, (ValueError,)),
    (Ep.Error.IO, Ep.FileError, ()),
    (Ep.Error.FORMAT, Ep.FormatError, ()),
    (Ep.Error.COMMUNICATION, Ep.CommunicationError, ()),
]


@pytest.mark.parametrize("code, cls, builtins", ERRORS, ids=lambda v: getattr(v, "__name__", None))
def test_error_class_of_each_code(code, cls, builtins):
    """A GError of each code of EP_ERROR, as PyGObject raises it (through
    GLib.Error(message, domain, code)), is its subclass of Ep.Error, still
    a GLib.Error with the domain, code and message C set."""
    error = GLib.Error.new_literal(Ep.error_quark(), "op: what went wrong", int(code))
    assert type(error) is cls
    assert isinstance(error, Ep.Error) and isinstance(error, GLib.Error)
    assert all(isinstance(error, b) for b in builtins)
    assert (error.domain, error.code, error.message) == ("ep-error", int(code), "op: what went wrong")


def test_every_code_has_its_class():
    codes = type(Ep.Error.SHAPE).__enum_values__
    assert sorted(codes) == sorted(int(code) for code, _, _ in ERRORS)


def test_shape_mismatch_is_a_value_error():
    with pytest.raises(ValueError) as info:
        Ep.zeros([3]) + Ep.zeros([4])
    assert isinstance(info.value, Ep.ShapeError)
    assert info.value.code == Ep.Error.SHAPE and info.value.domain == "ep-error"
    assert info.value.message.startswith("add: ")


def test_glib_error_still_catches_them():
    with pytest.raises(GLib.Error) as info:
        Ep.zeros([3]).add(Ep.zeros([4]))
    assert info.value.matches(Ep.error_quark(), Ep.Error.SHAPE)


def test_axis_out_of_range_is_a_value_error_and_an_index_error():
    with pytest.raises(IndexError) as info:
        Ep.zeros([3]).sum(axis=3)
    assert isinstance(info.value, ValueError) and info.value.code == Ep.Error.AXIS


def test_index_out_of_range_is_an_index_error():
    with pytest.raises(IndexError) as info:
        Ep.arange(3).take([7], 0)
    assert isinstance(info.value, Ep.OutOfRangeError) and info.value.code == Ep.Error.INDEX


def test_wrong_dtype_is_a_value_error():
    with pytest.raises(ValueError) as info:
        Ep.zeros([2]).logical_not()
    assert isinstance(info.value, Ep.DTypeError) and info.value.code == Ep.Error.DTYPE


def test_wrong_argument_type_is_a_type_error():
    x = Ep.zeros([2])
    with pytest.raises(TypeError):
        x.sum(axis="rows")
    with pytest.raises(TypeError):
        x.astype(object)
    with pytest.raises(TypeError):   # PyGObject's own check
        Ep.Tensor.get_shape(3)


def test_huge_zeros_is_a_memory_error():
    with pytest.raises(MemoryError) as info:
        Ep.zeros([1 << 40, 1 << 20])
    assert isinstance(info.value, Ep.OutOfMemoryError) and isinstance(info.value, GLib.Error)
    assert info.value.code == Ep.Error.OUT_OF_MEMORY and info.value.message.startswith("zeros: ")


def test_file_error_of_a_class_function():
    with pytest.raises(Ep.FileError) as info:
        Ep.Function.load(Gio.File.new_for_path("/nonexistent/graph.json"), None)
    assert info.value.code == Ep.Error.IO


def test_errors_this_layer_raises_are_subclasses_too():
    t = Ep.zeros([2])
    t.release()
    with pytest.raises(Ep.InvalidArgumentError) as info:
        Ep.astensor(t)
    assert isinstance(info.value, ValueError) and info.value.message.startswith("astensor: ")


def test_error_raised_in_a_callback_comes_back_as_its_class():
    def f(x):
        raise Ep.ShapeError("f: not this shape")
    with pytest.raises(Ep.ShapeError) as info:
        Ep.value_and_grad(f, Ep.ones([2]))
    assert info.value.message == "f: not this shape"


def test_error_made_in_python_has_its_code():
    error = Ep.OutOfRangeError("lookup: no such row")
    assert (error.domain, error.code) == ("ep-error", int(Ep.Error.INDEX))
    assert repr(error) == "Ep.OutOfRangeError('lookup: no such row', 'ep-error', 3)"
    assert type(error.copy()) is Ep.OutOfRangeError


def test_error_pickles():
    error = pickle.loads(pickle.dumps(Ep.AxisError("sum: axis 3 is out of range")))
    assert type(error) is Ep.AxisError and error.code == Ep.Error.AXIS
    assert error.message == "sum: axis 3 is out of range"


def test_other_domains_stay_glib_error():
    error = GLib.Error.new_literal(GLib.quark_from_string("g-io-error-quark"), "no", 1)
    assert type(error) is GLib.Error
    with pytest.raises(GLib.Error) as info:
        Gio.File.new_for_path("/nonexistent/file").load_contents(None)
    assert type(info.value) is GLib.Error


def test_error_codes_stay_on_ep_error():
    assert int(Ep.Error.SHAPE) == 0 and Ep.Error.OUT_OF_MEMORY.value_nick == "out-of-memory"

# ---------------------------------------------------------------------------
# dtypes
# ---------------------------------------------------------------------------

DTYPES = [("float32", np.float32, Ep.float32), ("float64", np.float64, Ep.float64),
          ("int32", np.int32, Ep.int32), ("int64", np.int64, Ep.int64), ("bool", np.bool_, Ep.bool_)]


@pytest.mark.parametrize("name, numpy_type, ep_dtype", DTYPES, ids=[d[0] for d in DTYPES])
def test_dtype_equals_numpy_names(name, numpy_type, ep_dtype):
    x = Ep.zeros([2], name)
    assert x.dtype == numpy_type and numpy_type == x.dtype
    assert x.dtype == np.dtype(name) and x.dtype == name
    assert not x.dtype != numpy_type
    assert x.dtype is ep_dtype


@pytest.mark.parametrize("name, numpy_type, ep_dtype", DTYPES, ids=[d[0] for d in DTYPES])
def test_dtype_as_numpy_dtype(name, numpy_type, ep_dtype):
    x = Ep.zeros([2], name)
    assert np.dtype(x.dtype) == np.dtype(name)
    assert np.zeros(3, dtype=ep_dtype).dtype == np.dtype(name)
    assert str(x.dtype) == name and x.dtype.name == name
    assert x.dtype.itemsize == np.dtype(name).itemsize


def test_dtype_differs_from_other_dtypes():
    x = Ep.zeros([2])
    assert x.dtype != np.float64 and not x.dtype == np.int32 and x.dtype != "bool"
    assert not x.dtype == "complex64" and not x.dtype == object() and x.dtype != None  # noqa: E711


def test_dtype_repr():
    assert repr(Ep.float32) == "Ep.float32" and repr(Ep.bool_) == "Ep.bool_"


def test_dtype_codes_compare_and_hash_as_before():
    assert Ep.DType.FLOAT64 == int(Ep.DType.FLOAT64) and Ep.float64 is Ep.DType.FLOAT64
    assert {Ep.float32: "a"}[Ep.zeros([1]).dtype] == "a"


def test_dtype_objects_pass_to_gi_methods():
    x = Ep.zeros([3], Ep.float32)
    assert Ep.Tensor.astype(x, Ep.float64).dtype == np.float64
    assert x.astype(Ep.int32).dtype == np.int32
    assert Ep.Tensor.new_from_doubles([1, 2], [2], Ep.int64).dtype == np.int64


def test_numpy_is_no_import_dependency():
    """Ep, its dtypes and ops import no NumPy."""
    code = ("import sys, gi; gi.require_version('Ep', '1.0'); from gi.repository import Ep\n"
            "x = Ep.zeros([2], Ep.float32) + 1\n"
            "assert str(x.dtype) == 'float32' and x.dtype == 'float32' and repr(x.dtype)\n"
            "assert 'numpy' not in sys.modules, 'numpy imported'\n")
    result = subprocess.run([sys.executable, "-c", code], env=dict(os.environ), capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr

# ---------------------------------------------------------------------------
# NumPy's protocols
# ---------------------------------------------------------------------------


def _ufuncs():
    return sorted({u for u in (getattr(np, n) for n in dir(np)) if isinstance(u, np.ufunc)
                   and _ep_override._ufunc_op(u) is not None and u.__name__ != "matmul"},
                  key=lambda u: u.__name__)


def test_ufunc_table_comes_from_the_catalogue():
    names = {u.__name__ for u in _ufuncs()}
    assert {"exp", "add", "multiply", "subtract", "divide", "negative", "maximum", "equal",
            "logical_and", "sqrt", "isnan"} <= names


@pytest.mark.parametrize("ufunc", _ufuncs(), ids=lambda u: u.__name__)
def test_ufunc_runs_in_eager_glib(ufunc, rng):
    if ufunc.__name__.startswith("logical"):
        arrays = [rng.random((3, 4)) < 0.5, rng.random(4) < 0.5][:ufunc.nin]
    else:
        arrays = [(rng.random((3, 4)) * 0.6 + 0.2).astype(np.float32),
                  (rng.random(4) * 0.6 + 0.2).astype(np.float32)][:ufunc.nin]
    result = ufunc(*[Ep.astensor(a) for a in arrays])
    assert isinstance(result, Ep.Tensor)
    with np.errstate(all="ignore"):
        assert_matches(result, ufunc(*arrays))


def test_ufunc_with_numbers_and_arrays(rng):
    a = rng.random((2, 3)).astype(np.float32)
    t = Ep.astensor(a)
    for result, expected in [(np.add(t, 1), a + 1), (np.multiply(a, t), a * a), (a + t, a + a),
                             (a @ t.T, a @ a.T), (np.float32(2) * t, 2 * a)]:
        assert isinstance(result, Ep.Tensor)
        assert_matches(result, expected)
    assert isinstance(a == t, Ep.Tensor) and bool((a == t).all())


def test_logical_ufuncs_and_functions_take_numbers_as_numpy_does():
    a = np.array([1.5, 0.0, np.nan, -2.0], np.float32)
    t = Ep.astensor(a)
    assert_matches(np.logical_and(t, 1), np.logical_and(a, 1))
    assert_matches(np.logical_not(t), np.logical_not(a))
    assert_matches(np.all(t), np.all(a))
    assert_matches(np.any(Ep.zeros([3])), np.any(np.zeros(3, np.float32)))


def test_ufunc_is_recorded_by_a_tape():
    x = Ep.astensor([0.5, 1.0, 2.0])
    with Ep.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.exp(x))
    assert_matches(tape.gradient(y, x), np.exp(np.array([0.5, 1.0, 2.0], np.float32)))


def test_ufunc_without_an_op_runs_in_numpy(rng):
    a, b = rng.random(4), rng.random(4)
    result = np.hypot(Ep.astensor(a), b)
    assert type(result) is np.ndarray
    np.testing.assert_allclose(result, np.hypot(a, b))
    assert type(np.add.reduce(Ep.astensor(a))) is np.float64


def test_ufunc_into_a_numpy_out_runs_in_numpy():
    a = np.ones(3, np.float32)
    a += Ep.astensor([1.0, 2.0, 3.0])
    assert type(a) is np.ndarray and a.tolist() == [2.0, 3.0, 4.0]


def test_ufunc_into_a_tensor_is_refused():
    t = Ep.ones([3])
    with pytest.raises(TypeError):
        np.add(t, 1, out=t)


def test_array_function_table_comes_from_ep():
    table = {f.__name__ for f in _ep_override._array_functions()}
    assert {"sum", "mean", "concatenate", "stack", "where", "reshape", "transpose", "clip", "split",
            "take", "cumsum", "inv", "solve"} <= table


A = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
ARRAY_FUNCTIONS = [
    ("sum", lambda m, a: m.sum(a, axis=0)),
    ("mean", lambda m, a: m.mean(a, axis=1, keepdims=True)),
    ("std", lambda m, a: m.std(a, ddof=1)),
    ("concatenate", lambda m, a: m.concatenate([a, np.ones((3, 4), np.float32)], axis=1)),
    ("stack", lambda m, a: m.stack([a, a], 1)),
    ("where", lambda m, a: m.where(A > 0.5, a, 0)),
    ("reshape", lambda m, a: m.reshape(a, (4, 3))),
    ("transpose", lambda m, a: m.transpose(a)),
    ("clip", lambda m, a: m.clip(a, 0.3, 1.2)),
    ("take", lambda m, a: m.take(a, [0, 5, 11])),
    ("cumsum", lambda m, a: m.cumsum(a, axis=1)),
    ("pad", lambda m, a: m.pad(a, 1, constant_values=2)),
    ("max", lambda m, a: m.max(a, axis=1)),
    ("argmax", lambda m, a: m.argmax(a)),
    ("sort", lambda m, a: m.sort(-a)),
    ("expand_dims", lambda m, a: m.expand_dims(a, 0)),
    ("tile", lambda m, a: m.tile(a, 2)),
    ("inv", lambda m, a: m.linalg.inv(a[:, :3] + m.eye(3, dtype=np.float32))),
    ("solve", lambda m, a: m.linalg.solve(a[:, :3] + m.eye(3, dtype=np.float32), a[:, 3:])),
    ("dot", lambda m, a: m.dot(a, a.T)),
]


@pytest.mark.parametrize("name, call", ARRAY_FUNCTIONS, ids=[n for n, _ in ARRAY_FUNCTIONS])
def test_array_function_runs_in_eager_glib(name, call):
    result = call(np, Ep.astensor(A))
    assert isinstance(result, Ep.Tensor)
    assert_matches(result, call(np, A), rtol=1e-5, atol=1e-5)


def test_array_function_split_gives_tensors():
    parts = np.split(Ep.astensor(A), 2, axis=1)
    assert all(isinstance(p, Ep.Tensor) for p in parts)
    for part, expected in zip(parts, np.split(A, 2, axis=1)):
        assert_matches(part, expected)


def test_array_function_with_arguments_ep_lacks_runs_in_numpy():
    t = Ep.astensor(A)
    total = np.sum(t, dtype=np.float64)
    assert not isinstance(total, Ep.Tensor) and total == pytest.approx(A.astype(np.float64).sum())
    rows, cols = np.where(t > 1)
    assert type(rows) is np.ndarray and rows.tolist() == np.where(A > 1)[0].tolist()


def test_array_function_without_an_ep_function_runs_in_numpy():
    median = np.median(Ep.astensor(A))
    assert not isinstance(median, Ep.Tensor) and median == pytest.approx(np.median(A))


def test_array_values():
    array = np.asarray(Ep.astensor(A))
    assert type(array) is np.ndarray and array.tolist() == A.tolist()
    assert Ep.astensor(A).__array__(np.float64).dtype == np.float64


def test_array_copy_true_gives_an_array_of_its_own():
    t = Ep.astensor(A)
    array = t.__array__(copy=True)
    assert array.flags.owndata and array.flags.writeable
    array[0, 0] = 99
    assert t.numpy()[0, 0] == A[0, 0]


def test_array_copy_false_refuses_a_copy():
    with pytest.raises(ValueError):
        Ep.astensor(A).__array__(np.float64, copy=False)


def test_array_copy_false_gives_the_view_of_a_strided_tensor():
    t = Ep.astensor(A).T        # a strided view of CPU memory: no copy needed
    array = t.__array__(copy=False)
    assert np.shares_memory(array, t.numpy()) and array.tolist() == A.T.tolist()


def test_array_copy_false_never_copies():
    """Where numpy() views the tensor's memory, copy=False gives that
    view; where it copies, copy=False is a ValueError."""
    t = Ep.astensor(A)
    if t.numpy().flags.owndata:
        with pytest.raises(ValueError):
            t.__array__(copy=False)
    else:
        assert not t.__array__(copy=False).flags.owndata


def test_variable_in_ufuncs_and_functions_is_read():
    v = Ep.Variable(A)
    with Ep.GradientTape() as tape:
        y = np.sum(np.square(v))
    assert isinstance(y, Ep.Tensor) and y.item() == pytest.approx(float((A * A).sum()), rel=1e-5)
    assert_matches(tape.gradient(y, v), 2 * A)
    assert isinstance(np.ones((3, 4), np.float32) - v, Ep.Tensor)


def test_tape_gradient_raises_the_subclass():
    x = Ep.astensor([1.0, 2.0])
    with Ep.GradientTape() as tape:
        tape.watch(x)
        y = (x * x).sum()
    with pytest.raises(ValueError) as info:
        tape.gradient(y, x, output_gradients=Ep.ones([3]))
    assert isinstance(info.value, Ep.Error) and isinstance(info.value, GLib.Error)


def test_checkpoint_of_a_missing_file_is_a_file_error(tmp_path):
    with pytest.raises(Ep.FileError):
        Ep.Linear(2, 3).restore_checkpoint(tmp_path / "missing.safetensors")


def test_variable_array_takes_copy():
    v = Ep.Variable(A)
    assert v.__array__(copy=True).tolist() == A.tolist()
    with pytest.raises(ValueError):
        v.__array__(np.float64, copy=False)

# ---------------------------------------------------------------------------
# docs/python.md: every snippet runs
# ---------------------------------------------------------------------------

DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")


def _snippets():
    with open(DOCS, encoding="utf-8") as f:
        text = f.read()
    return [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]


@pytest.mark.parametrize("number", range(len(_snippets())))
def test_docs_snippet_runs(number, capsys):
    exec(compile(_snippets()[number], f"docs/python.md snippet {number + 1}", "exec"), {})
