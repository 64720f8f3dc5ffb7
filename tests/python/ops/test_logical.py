"""The logical family against NumPy: logical_and logical_or logical_not
(bool only), isnan isinf isfinite, isclose and allclose, on broadcast
shapes (0-d, 0-size) and non-contiguous views, with their errors.

The comparisons (less ... greater_equal) are compared with the arithmetic
in test_elementwise.py (test_binary_promotion, test_binary_broadcasting,
test_binary_non_contiguous, test_weak_scalars).
"""

import numpy as np
import pytest
from conftest import DTYPES, LAYOUTS, SHAPE_PAIRS, Ep, as_layout, assert_ep_error, assert_matches, layouts, random_array

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


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



def close_pair(rng, shapes, dtypes):
    """Operands with some elements near each other (inside and outside
    the default tolerances) and, for floats, NaN and the infinities."""
    a = random_array(rng, shapes[0], dtypes[0])
    b = random_array(rng, shapes[1], dtypes[1])
    if b.dtype.kind == "f" and a.shape == b.shape:
        scale = rng.choice([0, 1e-7, 5e-6, 2e-5, 1e-3], size=b.shape)
        b = (a * (1 + scale)).astype(b.dtype)
    if b.dtype.kind == "f" and b.size > 3:
        b.flat[:3] = [np.nan, np.inf, -np.inf]
    if a.dtype.kind == "f" and a.size > 4:
        a.flat[1:5] = [np.inf, np.nan, -np.inf, np.inf]
    return a, b


ISCLOSE_DTYPES = [("float32", "float32"), ("float64", "float64"), ("float32", "float64"),
                  ("int32", "int64"), ("int64", "float32"), ("bool", "bool"), ("int32", "float64")]


@pytest.mark.parametrize("shapes", SHAPE_PAIRS)
@pytest.mark.parametrize("dtypes", ISCLOSE_DTYPES)
@pytest.mark.parametrize("equal_nan", [False, True])
@pytest.mark.numpy_op("isclose")
def test_isclose(rng, shapes, dtypes, equal_nan):
    a, b = close_pair(rng, shapes, dtypes)
    expected = np.asarray(np.isclose(a, b, equal_nan=equal_nan))
    assert_matches(Ep.isclose(Ep.astensor(a), Ep.astensor(b), equal_nan=equal_nan), expected)


@pytest.mark.parametrize("rtol,atol", [(0.0, 0.0), (0.1, 0.0), (0.0, 0.5), (1e-3, 1e-6), (2.0, 1.0)])
@pytest.mark.numpy_op("isclose")
def test_isclose_tolerances(rng, rtol, atol):
    a = random_array(rng, (5, 6), "float64")
    b = a + rng.normal(size=a.shape) * 0.3
    b[0, 0] = a[0, 0]
    expected = np.isclose(a, b, rtol=rtol, atol=atol)
    assert_matches(Ep.Tensor.isclose(Ep.astensor(a), Ep.astensor(b), rtol=rtol, atol=atol), expected)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("isclose", "allclose")
def test_isclose_non_contiguous(rng, layout):
    a = random_array(rng, (4, 6), "float32")
    b = (a * (1 + rng.choice([0, 1e-6, 1e-4], size=a.shape))).astype(np.float32)
    ta, tb = as_layout(a, layout), as_layout(b, layout)
    assert_matches(ta.isclose(tb), np.isclose(a, b))
    assert bool(ta.allclose(tb)) == np.allclose(a, b)
    assert bool(ta.allclose(ta)) is True


def test_isclose_special_values():
    """Infinities are close only to themselves, NaN to nothing (to NaN with
    equal_nan), in float32 and float64, and the tolerance is of `other`."""
    a = np.array([np.inf, np.inf, -np.inf, np.nan, np.nan, 1.0, 0.0, 1e300, 1.0, 2.0])
    b = np.array([np.inf, -np.inf, -np.inf, np.nan, 1.0, np.inf, -0.0, -1e300, 2.0, 1.0])
    for dtype in ("float32", "float64"):
        with np.errstate(over="ignore"):
            x, y = a.astype(dtype), b.astype(dtype)
        for equal_nan in (False, True):
            assert_matches(Ep.isclose(x, y, rtol=0.5, equal_nan=equal_nan),
                           np.isclose(x, y, rtol=0.5, equal_nan=equal_nan))


@pytest.mark.parametrize("shapes", SHAPE_PAIRS)
@pytest.mark.numpy_op("allclose")
def test_allclose(rng, shapes):
    a = random_array(rng, shapes[0], "float64")
    b = random_array(rng, shapes[1], "float64")
    for x, y in ((a, b), (a, a), (a, a + 1e-9), (a, a * (1 + 1e-4))):
        got = Ep.allclose(Ep.astensor(x), Ep.astensor(y))
        expected = np.allclose(x, y)
        assert_matches(got, np.asarray(expected))
        assert bool(got) == expected


def test_allclose_through_numpy():
    """np.allclose and np.isclose on tensors reach the ops (NumPy's protocol)."""
    a = np.array([1.0, 2.0, np.nan])
    t = Ep.astensor(a)
    assert bool(np.allclose(t, a, equal_nan=True)) is True
    assert bool(np.allclose(t, a)) is False
    assert_matches(Ep.astensor(np.isclose(t, a)), np.isclose(a, a))


@pytest.mark.parametrize("name", ["isclose", "allclose"])
@pytest.mark.parametrize("bad", [{"rtol": -1e-5}, {"atol": -1.0}, {"rtol": float("nan")},
                                 {"atol": float("nan")}, {"rtol": float("inf")}])
def test_isclose_refuses_bad_tolerances(name, bad):
    x = Ep.astensor(np.ones(3))
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, lambda: getattr(Ep, name)(x, x, **bad))
    assert message.startswith(name + ": " + next(iter(bad)))


@pytest.mark.parametrize("name", ["isclose", "allclose"])
def test_isclose_refuses_unbroadcastable(name):
    message = assert_ep_error(Ep.Error.SHAPE, getattr(Ep, name), Ep.astensor(np.ones(3)), Ep.astensor(np.ones(4)))
    assert message.startswith(name + ": ")
