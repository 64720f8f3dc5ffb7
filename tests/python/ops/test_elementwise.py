"""The elementwise family against NumPy: add sub mul div pow floordiv mod
minimum maximum where clip, on every pair of dtypes (promotion),
broadcast shapes (0-d, 0-size), non-contiguous views (transposed, sliced
with steps, flipped), weak scalars, operators and the _scalar methods,
special values, and the errors.

The comparisons (the logical family) share the arithmetic's tests here:
test_binary_promotion, test_binary_broadcasting and
test_binary_non_contiguous run over ARITHMETIC and COMPARISONS.
"""

import itertools

import numpy as np
import pytest
from conftest import (DTYPES, LAYOUTS, NARROW_INTS, SHAPE_PAIRS, Ep, as_layout, assert_ep_error, assert_matches, layouts,
                      random_array, reference)

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


# add, sub, mul, div, pow (and the comparisons)

ARITHMETIC = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.true_divide,
    "pow": np.power,
}
COMPARISONS = {
    "less": np.less,
    "less_equal": np.less_equal,
    "equal": np.equal,
    "not_equal": np.not_equal,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
}


def numpy_refuses(function, *args):
    try:
        with np.errstate(all="ignore"):
            function(*args)
    except (TypeError, ValueError):
        return True
    return False


@pytest.mark.parametrize("name", list(ARITHMETIC) + list(COMPARISONS))
@pytest.mark.parametrize("dtype_a,dtype_b", list(itertools.product(DTYPES, repeat=2)))
@pytest.mark.numpy_op
def test_binary_promotion(rng, name, dtype_a, dtype_b):
    reference = ARITHMETIC.get(name) or COMPARISONS[name]
    a = random_array(rng, (3, 4), dtype_a)
    b = random_array(rng, (4,), dtype_b)
    if name == "pow":
        b = np.maximum(b, b.dtype.type(0)) if b.dtype.kind in "iu" else b
        a = np.abs(a) if a.dtype.kind == "f" else a
    method = getattr(Ep.Tensor, name)
    if numpy_refuses(reference, a, b):
        assert_ep_error(Ep.Error.DTYPE, method, Ep.astensor(a), Ep.astensor(b))
        return
    with np.errstate(all="ignore"):
        expected = reference(a, b)
    if expected.dtype == np.int8:  # NumPy's bool ** bool; not a type here
        return
    assert_matches(method(Ep.astensor(a), Ep.astensor(b)), expected)


@pytest.mark.parametrize("name", list(ARITHMETIC) + list(COMPARISONS))
@pytest.mark.parametrize("shapes", SHAPE_PAIRS)
@pytest.mark.numpy_op
def test_binary_broadcasting(rng, name, shapes):
    reference = ARITHMETIC.get(name) or COMPARISONS[name]
    a = random_array(rng, shapes[0], "float64")
    b = random_array(rng, shapes[1], "float64")
    with np.errstate(all="ignore"):
        expected = reference(a, b)
    assert_matches(getattr(Ep.Tensor, name)(Ep.astensor(a), Ep.astensor(b)), expected)


@pytest.mark.parametrize("name", list(ARITHMETIC) + list(COMPARISONS))
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.numpy_op
def test_binary_non_contiguous(rng, name, layout, dtype):
    reference = ARITHMETIC.get(name) or COMPARISONS[name]
    a = random_array(rng, (3, 5), dtype)
    b = random_array(rng, (3, 5), dtype)
    row = random_array(rng, (5,), dtype)
    if name == "pow" and dtype == "int64":
        b, row = np.abs(b), np.abs(row)
    method = getattr(Ep.Tensor, name)
    with np.errstate(all="ignore"):
        assert_matches(method(as_layout(a, layout), as_layout(b, layout)), reference(a, b))
        assert_matches(method(as_layout(a, layout), Ep.astensor(b)), reference(a, b))
        assert_matches(method(Ep.astensor(a), as_layout(row, layout)), reference(a, row))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", [2, 2.5, True])
@pytest.mark.parametrize("op", ["+", "*", "<"])
@pytest.mark.numpy_op("add", "mul", "less")
def test_weak_scalars(rng, dtype, scalar, op):
    a = random_array(rng, (4,), dtype)
    t = Ep.astensor(a)
    expected = eval(f"a {op} scalar")
    assert_matches(eval(f"t {op} scalar"), expected)
    assert_matches(eval(f"scalar {op} t"), eval(f"scalar {op} a"))


@pytest.mark.parametrize("name", list(ARITHMETIC))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", [3, 2.5, -2])
@pytest.mark.numpy_op
def test_scalar_methods(rng, name, dtype, scalar):
    """add_scalar ... pow_scalar: the other operand is a weak scalar."""
    a = random_array(rng, (3, 4), dtype)
    if name == "pow" and dtype.startswith("int"):
        a = np.abs(a) + 1
    if name == "pow" and dtype in ("int32", "int64", "bool") and scalar == -2:
        assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.pow_scalar, Ep.astensor(a), scalar)
        return  # NumPy raises too: integers to negative integer powers
    with np.errstate(all="ignore"):
        expected = ARITHMETIC[name](a, scalar)
    for _, t in layouts(a):
        assert_matches(getattr(Ep.Tensor, name + "_scalar")(t, scalar), expected)


def test_binary_shape_error():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.add, Ep.zeros([3]), Ep.zeros([4]))
    assert "(3,)" in message and "(4,)" in message and "add" in message


# floordiv, mod, minimum, maximum

BINARY = {
    "floordiv": np.floor_divide,
    "mod": np.remainder,
    "minimum": np.minimum,
    "maximum": np.maximum,
}

INT_MIN = {"int32": np.iinfo(np.int32).min, "int64": np.iinfo(np.int64).min}


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
def test_floordiv_mod_extrema_broadcasting(rng, name, shapes):
    a = random_array(rng, shapes[0], "float64")
    b = random_array(rng, shapes[1], "float64")
    got = getattr(Ep.Tensor, name)(Ep.astensor(a), Ep.astensor(b))
    assert_matches(got, reference(BINARY[name], a, b), exact=True)


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op
def test_floordiv_mod_extrema_non_contiguous(rng, name, dtype, layout):
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
def test_floordiv_mod_extrema_scalar_methods(rng, name, dtype):
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
def test_floordiv_shape_error():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.floordiv, Ep.zeros([3]), Ep.zeros([4]))
    assert "floordiv" in message and "(3,)" in message and "(4,)" in message


# where

@pytest.mark.parametrize("dtype_x,dtype_y", [("float32", "float32"), ("int32", "float64"), ("bool", "int64")])
@pytest.mark.numpy_op("where")
def test_where(rng, dtype_x, dtype_y):
    cond = random_array(rng, (3, 1), "bool")
    x = random_array(rng, (4,), dtype_x)
    y = random_array(rng, (3, 4), dtype_y)
    assert_matches(Ep.astensor(cond).where(Ep.astensor(x), Ep.astensor(y)), np.where(cond, x, y))


@pytest.mark.parametrize("shapes", [((), (), ()), ((), (3,), ()), ((0,), (), (1,)), ((2, 0), (1,), (0,))])
@pytest.mark.numpy_op("where")
def test_where_0d_and_empty(rng, shapes):
    cond = random_array(rng, shapes[0], "bool")
    x = random_array(rng, shapes[1], "float32")
    y = random_array(rng, shapes[2], "int64")
    # NumPy 2's promotion (NEP 50): a 0-d array is no weak scalar
    expected = np.where(cond, x, y).astype(np.promote_types(x.dtype, y.dtype))
    assert_matches(Ep.astensor(cond).where(Ep.astensor(x), Ep.astensor(y)), expected)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("where")
def test_where_non_contiguous(rng, layout):
    cond = random_array(rng, (3, 4), "bool")
    x = random_array(rng, (3, 4), "float64")
    y = random_array(rng, (4,), "int32")
    got = as_layout(cond, layout).where(as_layout(x, layout), as_layout(y, layout))
    assert_matches(got, np.where(cond, x, y))


@pytest.mark.numpy_op("where")
def test_where_scalars_and_non_bool_condition(rng):
    cond = random_array(rng, (5,), "int32")
    x = random_array(rng, (5,), "float32")
    assert_matches(Ep.where(Ep.astensor(cond), Ep.astensor(x), 0.5), np.where(cond, x, np.float32(0.5)))


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


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_extremum_gradient_splits_ties_like_pytorch(name):
    """A tie shares the gradient half and half (as the max and min
    reductions do); a broadcast operand sums its shares"""
    torch = pytest.importorskip("torch")
    a = np.array([[1.0, 2.0, 3.0], [1.0, 1.0, np.nan]])
    b = np.array([1.0, 5.0, 0.0])
    x, y = Ep.astensor(a), Ep.astensor(b)
    with Ep.GradientTape() as tape:
        tape.watch(x)
        tape.watch(y)
        total = getattr(Ep, name)(x, y).sum()
    ga, gb = tape.gradient(total, [x, y])
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    getattr(torch, name)(ta, tb).sum().backward()
    finite = ~np.isnan(a)   # a NaN goes to its own operand here, to both in PyTorch
    np.testing.assert_array_equal(ga.numpy()[finite], ta.grad.numpy()[finite])
    np.testing.assert_array_equal(gb.numpy()[:2], tb.grad.numpy()[:2])


# uint8 (image pixels), int8 and int16: arithmetic wraps modulo 2^8 or
# 2^16, comparisons give bool, floor division and remainder by zero give
# 0, on every device; mixed, they promote as NumPy's (int8 with uint8 to
# int16)

UINT8_PAIRS = ([(narrow, other) for narrow in NARROW_INTS for other in DTYPES + NARROW_INTS]
               + [(other, narrow) for narrow in NARROW_INTS for other in DTYPES])


@pytest.mark.parametrize("name", list(ARITHMETIC) + list(COMPARISONS) + list(BINARY))
@pytest.mark.parametrize("dtype_a,dtype_b", UINT8_PAIRS)
@pytest.mark.numpy_op
def test_uint8_binary_promotion(rng, name, dtype_a, dtype_b):
    function = ARITHMETIC.get(name) or COMPARISONS.get(name) or BINARY[name]
    a = random_array(rng, (3, 4), dtype_a)
    b = random_array(rng, (4,), dtype_b)
    if name == "pow":
        b = np.maximum(b, b.dtype.type(0)) if b.dtype.kind in "iu" else b
        a = np.abs(a) if a.dtype.kind == "f" else a
    expected = reference(function, a, b)
    assert_matches(getattr(Ep.Tensor, name)(Ep.astensor(a), Ep.astensor(b)), expected,
                   exact=name in BINARY or None)


@pytest.mark.parametrize("name", list(ARITHMETIC) + list(BINARY))
@pytest.mark.numpy_op
def test_uint8_wrapping_edges(name):
    function = ARITHMETIC.get(name) or BINARY[name]
    a = np.array([0, 0, 1, 255, 255, 16, 128, 7, 200], np.uint8)
    b = np.array([0, 1, 255, 1, 255, 16, 2, 3, 0], np.uint8)
    assert_matches(getattr(Ep.Tensor, name)(Ep.astensor(a), Ep.astensor(b)), reference(function, a, b), exact=True)


@pytest.mark.parametrize("name", list(ARITHMETIC) + list(BINARY))
@pytest.mark.parametrize("dtype", ["int8", "int16"])
@pytest.mark.numpy_op
def test_signed_narrow_wrapping_edges(name, dtype):
    """MIN // -1 and MIN * -1 wrap to MIN, MIN % -1 is 0, a zero divisor
    gives 0, floor division and remainder round toward -inf."""
    function = ARITHMETIC.get(name) or BINARY[name]
    info = np.iinfo(dtype)
    a = np.array([info.min, info.min, info.max, info.max, -7, 7, -7, 0, info.min, 100, 3], dtype)
    b = np.array([-1, 0, 1, -1, 2, -2, -2, 0, info.min, 3, 5], dtype)
    if name == "pow":
        b = np.maximum(b, b.dtype.type(0))
    assert_matches(getattr(Ep.Tensor, name)(Ep.astensor(a), Ep.astensor(b)), reference(function, a, b), exact=True)


@pytest.mark.parametrize("name", list(ARITHMETIC) + list(COMPARISONS) + list(BINARY))
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", NARROW_INTS)
@pytest.mark.numpy_op
def test_uint8_non_contiguous(rng, name, layout, dtype):
    function = ARITHMETIC.get(name) or COMPARISONS.get(name) or BINARY[name]
    a = random_array(rng, (3, 5), dtype)
    b = random_array(rng, (3, 5), dtype)
    row = random_array(rng, (5,), dtype)
    if name == "pow":
        b, row = np.maximum(b, b.dtype.type(0)), np.maximum(row, row.dtype.type(0))
    method = getattr(Ep.Tensor, name)
    assert_matches(method(as_layout(a, layout), as_layout(b, layout)), reference(function, a, b))
    assert_matches(method(Ep.astensor(a), as_layout(row, layout)), reference(function, a, row))


@pytest.mark.parametrize("scalar", [0, 3, 255])
@pytest.mark.parametrize("op", ["+", "-", "*", "//", "%", "<", "==", "**"])
@pytest.mark.numpy_op("add", "sub", "mul", "floordiv", "mod", "less", "equal", "pow")
def test_uint8_weak_integers(rng, scalar, op):
    """A Python int within 0-255 keeps uint8 (NumPy 2, NEP 50)."""
    a = random_array(rng, (6,), "uint8")
    t = Ep.astensor(a)
    scalar_u8 = np.uint8(scalar)
    assert_matches(eval(f"t {op} scalar"), reference(lambda x, y: eval(f"x {op} y"), a, scalar_u8), exact=True)
    assert_matches(eval(f"scalar {op} t"), reference(lambda x, y: eval(f"y {op} x"), a, scalar_u8), exact=True)


@pytest.mark.parametrize("dtype,scalar", [("uint8", 256), ("uint8", -1), ("uint8", 1000),
                                          ("int8", 128), ("int8", -129), ("int16", 32768), ("int16", -32769)])
@pytest.mark.numpy_op("add", "mul")
def test_uint8_weak_integer_out_of_range(dtype, scalar):
    """NumPy 2 raises OverflowError for these; the error here names the op."""
    t = Ep.astensor(np.array([1, 2], dtype))
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.add, t, scalar)
    assert "add" in message and str(scalar) in message and dtype in message
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.mul_scalar, t, scalar)


@pytest.mark.parametrize("dtype,scalar", [("int8", -128), ("int8", 127), ("int8", -3),
                                          ("int16", -32768), ("int16", 32767), ("int16", 300)])
@pytest.mark.parametrize("op", ["+", "-", "*", "//", "%", "<", "=="])
@pytest.mark.numpy_op("add", "sub", "mul", "floordiv", "mod", "less", "equal")
def test_signed_narrow_weak_integers(rng, dtype, scalar, op):
    """A Python int within the type's range keeps it (NEP 50)."""
    a = random_array(rng, (6,), dtype)
    t = Ep.astensor(a)
    typed = np.dtype(dtype).type(scalar)
    assert_matches(eval(f"t {op} scalar"), reference(lambda x, y: eval(f"x {op} y"), a, typed), exact=True)
    assert_matches(eval(f"scalar {op} t"), reference(lambda x, y: eval(f"y {op} x"), a, typed), exact=True)


@pytest.mark.numpy_op("mul", "div")
def test_uint8_weak_float_is_float64(rng):
    """A Python float makes a uint8 tensor float64 (NEP 50)."""
    a = random_array(rng, (5,), "uint8")
    t = Ep.astensor(a)
    assert_matches(t * 0.5, a.astype(np.float64) * 0.5)
    assert_matches(t / 255, a.astype(np.float64) / 255)


@pytest.mark.parametrize("dtype_y", NARROW_INTS + ["int32", "float32", "bool"])
@pytest.mark.parametrize("dtype", NARROW_INTS)
@pytest.mark.numpy_op("where")
def test_uint8_where(rng, dtype_y, dtype):
    cond = random_array(rng, (3, 1), "bool")
    x = random_array(rng, (4,), dtype)
    y = random_array(rng, (3, 4), dtype_y)
    assert_matches(Ep.astensor(cond).where(Ep.astensor(x), Ep.astensor(y)), np.where(cond, x, y))
    assert_matches(Ep.where(Ep.astensor(cond), Ep.astensor(x), 7), np.where(cond, x, np.dtype(dtype).type(7)))


@pytest.mark.parametrize("bounds", [(10, 200), (-5, 1000), (None, 100), (100, None), (200, 10), (2.5, 100)])
@pytest.mark.parametrize("dtype", NARROW_INTS)
@pytest.mark.numpy_op("clip")
def test_uint8_clip(rng, bounds, dtype):
    a = random_array(rng, (4, 5), dtype)
    low, high = bounds
    # integral bounds keep the type (limited to its range, where they
    # bind the same); a fractional one makes float64
    dtype_out = np.float64 if 2.5 in bounds else dtype
    wide = a.astype(np.float64)
    expected = np.minimum(np.maximum(wide, -np.inf if low is None else low), np.inf if high is None else high)
    for _, t in layouts(a):
        assert_matches(t.clip(low, high), expected.astype(dtype_out), exact=True)


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite"])
@pytest.mark.parametrize("dtype", NARROW_INTS)
@pytest.mark.numpy_op
def test_uint8_classify(rng, name, dtype):
    a = random_array(rng, (3, 4), dtype)
    assert_matches(getattr(Ep, name)(Ep.astensor(a)), getattr(np, name)(a))
