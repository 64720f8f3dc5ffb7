"""The elementwise ops of issue 3 compared with NumPy.

floordiv mod minimum maximum logical_* clip, the float functions, sign
round ceil floor, isnan isinf isfinite, and the cast shortcuts: random
shapes (0-d, 0-size, broadcast), non-contiguous views (transposed, sliced
with steps, flipped), every dtype NumPy
defines them on, special values, and the errors.
"""

import itertools

import numpy as np
import pytest
from conftest import (DTYPES, LAYOUTS, SHAPE_PAIRS, Ep, as_layout, assert_ep_error, assert_matches, layouts,
                      random_array)

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device

BINARY = {
    "floordiv": np.floor_divide,
    "mod": np.remainder,
    "minimum": np.minimum,
    "maximum": np.maximum,
}

INT_MIN = {"int32": np.iinfo(np.int32).min, "int64": np.iinfo(np.int64).min}


def reference(function, *args):
    with np.errstate(all="ignore"):
        return function(*args)


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("dtype_a,dtype_b", list(itertools.product(DTYPES, repeat=2)))
@pytest.mark.numpy_op
def test_binary_dtypes(rng, name, dtype_a, dtype_b):
    a = random_array(rng, (3, 4), dtype_a)
    b = random_array(rng, (4,), dtype_b)
    method = getattr(Ep.Tensor, name)
    if dtype_a == dtype_b == "bool" and name in ("floordiv", "mod"):
        message = assert_ep_error(Ep.Error.DTYPE, method, Ep.astensor(a), Ep.astensor(b))
        assert name in message and "bool" in message
        return
    # exact: integer division by zero gives 0, floats follow NumPy bit for bit
    assert_matches(method(Ep.astensor(a), Ep.astensor(b)), reference(BINARY[name], a, b), exact=True)


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("shapes", SHAPE_PAIRS)
@pytest.mark.numpy_op
def test_binary_broadcasting(rng, name, shapes):
    a = random_array(rng, shapes[0], "float64")
    b = random_array(rng, shapes[1], "float64")
    got = getattr(Ep.Tensor, name)(Ep.astensor(a), Ep.astensor(b))
    assert_matches(got, reference(BINARY[name], a, b), exact=True)


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op
def test_binary_non_contiguous(rng, name, dtype, layout):
    a = random_array(rng, (3, 5), dtype)
    b = random_array(rng, (3, 5), dtype)
    row = random_array(rng, (5,), dtype)
    method = getattr(Ep.Tensor, name)
    assert_matches(method(as_layout(a, layout), as_layout(b, layout)), reference(BINARY[name], a, b), exact=True)
    assert_matches(method(as_layout(a, layout), Ep.astensor(b)), reference(BINARY[name], a, b), exact=True)
    assert_matches(method(Ep.astensor(a), as_layout(row, layout)), reference(BINARY[name], a, row), exact=True)


SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 7.0, -7.0, np.inf, -np.inf, np.nan, 1e-300, 3e300])


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.numpy_op
def test_binary_special_floats(name, dtype):
    with np.errstate(over="ignore"):
        a = SPECIAL.astype(dtype)[:, None]
        b = SPECIAL.astype(dtype)[None, :]
    expected = reference(BINARY[name], a, b)
    got = getattr(Ep.Tensor, name)(Ep.astensor(a), Ep.astensor(b)).numpy()
    np.testing.assert_array_equal(got, expected)
    # the sign of zeros too: NumPy's floor division and remainder keep it
    # (opencl: not of NaNs, whose sign differs between processors)
    numbers = ~np.isnan(expected)
    np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(expected[numbers]))


@pytest.mark.parametrize("name", ["floordiv", "mod"])
@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.numpy_op
def test_integer_division_edges(name, dtype):
    info = np.iinfo(dtype)
    a = np.array([info.min, info.min, info.max, -7, 7, -7, 7, 0, 5], dtype)
    b = np.array([-1, 1, -1, 2, -2, -2, 2, 0, 0], dtype)
    expected = reference(BINARY[name], a, b)
    assert_matches(getattr(Ep.Tensor, name)(Ep.astensor(a), Ep.astensor(b)), expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", [3, -2, 2.5, 0])
@pytest.mark.parametrize("op", ["//", "%"])
@pytest.mark.numpy_op("floordiv", "mod")
def test_operators(rng, dtype, scalar, op):
    a = random_array(rng, (6,), dtype)
    if dtype == "bool" and isinstance(scalar, float):
        a = a.astype(np.int64)  # keep the check on a defined NumPy result
    t = Ep.astensor(a)
    assert_matches(eval(f"t {op} scalar"), reference(lambda x, y: eval(f"x {op} y"), a, scalar), exact=True)
    if not (scalar == 0 or isinstance(scalar, float)):
        nonzero = np.where(a == 0, 1, a).astype(a.dtype)
        u = Ep.astensor(nonzero)
        assert_matches(eval(f"scalar {op} u"), reference(lambda x, y: eval(f"y {op} x"), nonzero, scalar), exact=True)


@pytest.mark.parametrize("op", ["//", "%"])
@pytest.mark.numpy_op("floordiv", "mod")
def test_tensor_operators(rng, op):
    a = random_array(rng, (3, 4), "float32")
    b = random_array(rng, (4,), "int32")
    ta, tb = Ep.astensor(a), Ep.astensor(b)
    assert_matches(eval(f"ta {op} tb"), reference(lambda x, y: eval(f"x {op} y"), a, b), exact=True)


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
@pytest.mark.numpy_op
def test_scalar_methods(rng, name, dtype):
    a = random_array(rng, (7,), dtype)
    got = getattr(Ep.Tensor, name + "_scalar")(Ep.astensor(a), 3)
    assert_matches(got, reference(BINARY[name], a, 3), exact=True)
    got = getattr(Ep.Tensor, name + "_scalar")(Ep.astensor(a), 2.5)
    assert_matches(got, reference(BINARY[name], a, 2.5), exact=True)


@pytest.mark.numpy_op("minimum", "maximum")
def test_extrema_propagate_nan():
    a = np.array([np.nan, 1.0, np.nan, -np.inf], np.float32)
    b = np.array([1.0, np.nan, np.nan, np.nan], np.float32)
    assert_matches(Ep.minimum(Ep.astensor(a), Ep.astensor(b)), np.minimum(a, b))
    assert_matches(Ep.maximum(Ep.astensor(a), 0.5), np.maximum(a, np.float32(0.5)))


@pytest.mark.numpy_op("floordiv")
def test_binary_shape_error():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.floordiv, Ep.zeros([3]), Ep.zeros([4]))
    assert "floordiv" in message and "(3,)" in message and "(4,)" in message


# logic

LOGICAL = {"logical_and": np.logical_and, "logical_or": np.logical_or}


@pytest.mark.parametrize("name", list(LOGICAL))
@pytest.mark.parametrize("shapes", SHAPE_PAIRS)
@pytest.mark.numpy_op
def test_logical(rng, name, shapes):
    a = random_array(rng, shapes[0], "bool")
    b = random_array(rng, shapes[1], "bool")
    assert_matches(getattr(Ep.Tensor, name)(Ep.astensor(a), Ep.astensor(b)), LOGICAL[name](a, b))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("logical_and", "logical_or", "logical_not")
def test_logical_non_contiguous_and_not(rng, layout):
    a = random_array(rng, (4, 6), "bool")
    b = random_array(rng, (4, 6), "bool")
    ta, tb = as_layout(a, layout), as_layout(b, layout)
    assert_matches(ta.logical_and(tb), np.logical_and(a, b))
    assert_matches(ta.logical_or(Ep.astensor(b)), np.logical_or(a, b))
    assert_matches(ta.logical_not(), np.logical_not(a))
    assert_matches(Ep.astensor(np.array(True)).logical_not(), np.logical_not(np.array(True)))
    assert_matches(Ep.astensor(np.zeros((0, 2), bool)).logical_not(), np.ones((0, 2), bool))


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_not"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_logical_refuses_non_bool(name, dtype):
    x = Ep.astensor(np.zeros(3, dtype))
    args = (x,) if name == "logical_not" else (Ep.astensor(np.zeros(3, bool)), x)
    message = assert_ep_error(Ep.Error.DTYPE, getattr(Ep.Tensor, name), *args)
    assert name in message and dtype in message


# clip

@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("bounds", [(-1, 2), (-1.5, 2.5), (2, -1), (None, 0), (0, None), (-1e10, 1e10)])
@pytest.mark.parametrize("shape", [(), (0,), (3, 4)])
@pytest.mark.numpy_op("clip")
def test_clip(rng, dtype, bounds, shape):
    a = random_array(rng, shape, dtype)
    low, high = bounds
    # bounds are weak scalars: only a fractional one changes an integer type
    fractional = any(b is not None and b != int(b) for b in bounds)
    dtype_out = np.float64 if dtype.startswith("int") and fractional else np.dtype(dtype)
    wide = a.astype(np.float64)
    expected = np.clip(wide, -np.inf if low is None else low, np.inf if high is None else high)
    expected = np.minimum(np.maximum(wide, low), high) if None not in bounds else expected
    assert_matches(Ep.astensor(a).clip(low, high), np.asarray(expected).astype(dtype_out), exact=True)


@pytest.mark.numpy_op("clip")
def test_clip_nan_and_non_contiguous(rng):
    a = np.array([[np.nan, -5.0, 0.5], [5.0, np.inf, -np.inf]], np.float32)
    for _, t in layouts(a):
        assert_matches(t.clip(-1, 1), np.clip(a, -1, 1))
        assert_matches(t.clip(np.nan, 1), np.clip(a, np.nan, 1))
    b = random_array(rng, (4, 5), "int32")
    for _, t in layouts(b):
        assert_matches(t.clip(-3, 4), np.clip(b, -3, 4))


# unary functions with float results

def in_domain(name, a):
    """Inputs mostly inside the function's domain (the rest gives NaN)."""
    if name in ("arcsin", "arccos", "arctanh"):
        return a / 3.5 if a.dtype.kind == "f" else a
    if name == "arccosh":
        return np.abs(a) + 1 if a.dtype.kind in "fiu" else a
    if name in ("log1p",):
        return np.abs(a) if a.dtype.kind in "fiu" else a
    if name in ("log2", "log10"):
        return np.abs(a) + (1 if a.dtype.kind in "iu" else 0.25) if a.dtype.kind in "fiu" else a
    return a


FLOAT_FUNCTIONS = {
    "expm1": np.expm1, "log1p": np.log1p, "log2": np.log2, "log10": np.log10,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh,
    "arcsin": np.arcsin, "arccos": np.arccos, "arctan": np.arctan,
    "arcsinh": np.arcsinh, "arccosh": np.arccosh, "arctanh": np.arctanh,
    "softplus": lambda x: np.logaddexp(np.zeros((), x.dtype if x.dtype.kind == "f" else np.float64), x),
    "ceil": np.ceil, "floor": np.floor,
}


def float_expected(function, a):
    """NumPy's result, with float16 (from bool) replaced by float32."""
    if a.dtype == np.bool_:
        return reference(function, a.astype(np.float32))
    return reference(function, a)


@pytest.mark.parametrize("name", list(FLOAT_FUNCTIONS))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4)])
@pytest.mark.numpy_op
def test_float_functions(rng, name, dtype, shape):
    a = in_domain(name, random_array(rng, shape, dtype))
    expected = float_expected(FLOAT_FUNCTIONS[name], a)
    got = getattr(Ep.Tensor, name)(Ep.astensor(a))
    assert_matches(got, expected, rtol=4e-6 if expected.dtype == np.float32 else None)


@pytest.mark.parametrize("name", list(FLOAT_FUNCTIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.numpy_op
def test_float_functions_non_contiguous(rng, name, dtype):
    a = in_domain(name, random_array(rng, (5, 4), dtype))
    expected = reference(FLOAT_FUNCTIONS[name], a)
    for _, t in layouts(a):
        assert_matches(getattr(Ep.Tensor, name)(t), expected, rtol=4e-6 if expected.dtype == np.float32 else None)


@pytest.mark.parametrize("name", list(FLOAT_FUNCTIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.numpy_op
def test_float_functions_special_values(name, dtype):
    a = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 1e-30, 0.5, 100.0], dtype)
    assert_matches(getattr(Ep.Tensor, name)(Ep.astensor(a)), reference(FLOAT_FUNCTIONS[name], a),
                   rtol=4e-6 if dtype == "float32" else None)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.numpy_op("softplus")
def test_softplus_is_stable(dtype):
    a = np.array([-1000.0, -50.0, 50.0, 1000.0, 1e30], dtype)
    got = Ep.astensor(a).softplus().numpy()
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, np.logaddexp(0, a.astype(np.float64)).astype(dtype), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("shape", [(), (0,), (9,), (3, 4)])
@pytest.mark.numpy_op("sign")
def test_sign(rng, dtype, shape):
    a = random_array(rng, shape, dtype)
    assert_matches(Ep.astensor(a).sign(), np.sign(a))


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
@pytest.mark.numpy_op("sign")
def test_sign_non_contiguous(rng, dtype):
    a = random_array(rng, (4, 5), dtype)
    for _, t in layouts(a):
        assert_matches(t.sign(), np.sign(a))


@pytest.mark.numpy_op("sign")
def test_sign_special_and_bool():
    a = np.array([np.nan, -0.0, 0.0, -np.inf, np.inf, -1e-300], np.float64)
    assert_matches(Ep.astensor(a).sign(), np.sign(a))
    assert_ep_error(Ep.Error.DTYPE, Ep.Tensor.sign, Ep.astensor([True]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.numpy_op("round")
def test_round(rng, dtype):
    a = random_array(rng, (4, 5), dtype)
    if dtype.startswith("float"):
        a = np.concatenate([a.ravel(), np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, np.nan, np.inf], dtype)])
    assert_matches(Ep.astensor(a).round(), float_expected(np.round, a))
    for shape in [(), (0,), (2, 0)]:
        c = random_array(rng, shape, dtype) * (3 if dtype.startswith("float") else 1)
        assert_matches(Ep.astensor(c).round(), float_expected(np.round, c))
    b = a.reshape(4, -1)
    for _, t in layouts(b):
        assert_matches(t.round(), float_expected(np.round, b))


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3, 4)])
@pytest.mark.numpy_op
def test_classification(rng, name, dtype, shape):
    a = random_array(rng, shape, dtype)
    if dtype.startswith("float") and a.size > 3:
        a.flat[:3] = [np.nan, np.inf, -np.inf]
    for _, t in layouts(a):
        assert_matches(getattr(Ep.Tensor, name)(t), getattr(np, name)(a))


@pytest.mark.parametrize("name", ["float32", "float64", "bool"])
@pytest.mark.parametrize("source", DTYPES)
@pytest.mark.numpy_op
def test_cast_shortcuts_empty(rng, name, source):
    a = random_array(rng, (0, 3), source)
    for _, t in layouts(a):
        assert_matches(getattr(Ep.Tensor, name)(t), a.astype(name))


@pytest.mark.parametrize("name", ["float32", "float64", "bool"])
@pytest.mark.parametrize("source", DTYPES)
@pytest.mark.numpy_op
def test_cast_shortcuts(rng, name, source):
    a = random_array(rng, (3, 4), source)
    if source.startswith("float"):
        a.flat[:3] = [np.nan, -0.0, 0.25]
    for _, t in layouts(a):
        assert_matches(getattr(Ep.Tensor, name)(t), a.astype(name))
    assert_matches(getattr(Ep.Tensor, name)(Ep.astensor(a[0, 0])), a[0, 0].astype(name))
