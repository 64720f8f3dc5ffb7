"""The logical family against NumPy: logical_and logical_or logical_not
(bool only) and isnan isinf isfinite, on broadcast shapes (0-d, 0-size)
and non-contiguous views, with their errors.

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
