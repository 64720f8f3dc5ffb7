"""The linalg family against NumPy: matmul and the composites dot and
outer, on every dtype, batched and broadcast shapes, 0-d and 0-size
operands, transposed and other non-contiguous operands, mixed dtypes,
and the errors.
"""

import itertools

import numpy as np
import pytest
from conftest import DTYPES, LAYOUTS, Ep, as_layout, assert_ep_error, assert_matches, random_array, tolerances

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


MATMUL_SHAPES = [
    ((3, 4), (4, 5)),
    ((4,), (4, 5)),
    ((3, 4), (4,)),
    ((4,), (4,)),
    ((2, 3, 4), (4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((0, 4), (4, 3)),
    ((3, 0), (0, 2)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", MATMUL_SHAPES)
@pytest.mark.numpy_op("matmul")
def test_matmul(rng, dtype, shapes):
    a = random_array(rng, shapes[0], dtype)
    b = random_array(rng, shapes[1], dtype)
    assert_matches(Ep.astensor(a) @ Ep.astensor(b), a @ b, rtol=1e-5 if dtype == "float32" else None)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.numpy_op("matmul")
def test_matmul_transposed_operands(rng, dtype):
    a = random_array(rng, (6, 4), dtype)
    b = random_array(rng, (5, 6), dtype)
    assert_matches(Ep.astensor(a).T @ Ep.astensor(b).T, a.T @ b.T, rtol=1e-5)
    c = random_array(rng, (2, 3, 4), dtype)
    assert_matches(Ep.astensor(c).transpose(1, 0, 2) @ Ep.astensor(a).T, c.transpose(1, 0, 2) @ a.T, rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shapes", MATMUL_SHAPES)
@pytest.mark.numpy_op("matmul")
def test_matmul_layouts(rng, dtype, layout, shapes):
    a = random_array(rng, shapes[0], dtype)
    b = random_array(rng, shapes[1], dtype)
    expected = a @ b
    assert_matches(as_layout(a, layout) @ as_layout(b, layout), expected, rtol=1e-5 if dtype == "float32" else None)
    assert_matches(as_layout(a, layout) @ Ep.astensor(b), expected, rtol=1e-5 if dtype == "float32" else None)


@pytest.mark.numpy_op("matmul")
def test_matmul_mixed_dtypes(rng):
    a = random_array(rng, (3, 4), "int32")
    b = random_array(rng, (4, 2), "float32")
    assert_matches(Ep.astensor(a) @ Ep.astensor(b), a @ b)


def test_matmul_errors():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.matmul, Ep.zeros([2, 3]), Ep.zeros([4, 5]))
    assert "3 vs 4" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.matmul, Ep.zeros([2, 2, 3]), Ep.zeros([3, 3, 4]))
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.matmul, Ep.zeros([]), Ep.zeros([3]))


DOT_SHAPES = [((), ()), ((), (3,)), ((2, 3), ()), ((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)),
              ((2, 3), (3, 4)), ((2, 2, 3), (3,)), ((3,), (2, 3, 4)), ((2, 3), (5, 3, 4)),
              ((2, 1, 3), (2, 5, 3, 4)), ((0, 3), (3, 2)), ((2, 0), (3, 0, 2))]


@pytest.mark.parametrize("shapes", DOT_SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.numpy_op("dot")
def test_dot(rng, shapes, dtype):
    a = random_array(rng, shapes[0], dtype)
    b = random_array(rng, shapes[1], dtype)
    expected = np.asarray(np.dot(a, b))
    for layout in LAYOUTS:
        assert_matches(Ep.dot(as_layout(a, layout), as_layout(b, layout)), expected, **(tolerances(dtype) if dtype.startswith("float") else {}))


@pytest.mark.numpy_op("dot")
def test_dot_promotes(rng):
    a = random_array(rng, (2, 3), "int32")
    b = random_array(rng, (2, 3, 2), "float32")
    assert_matches(Ep.astensor(a).dot(Ep.astensor(b)), np.dot(a, b), rtol=1e-5)


def test_dot_errors():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.dot, Ep.zeros([2, 3]), Ep.zeros([4, 2]))
    assert "dot" in message and "3" in message and "4" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.dot, Ep.zeros([1] * 5), Ep.zeros([1] * 6))


@pytest.mark.parametrize("shapes", [((3,), (4,)), ((), (2,)), ((2, 2), (3,)), ((0,), (3,))])
@pytest.mark.parametrize("dtypes", list(itertools.product(["float32", "int64", "bool"], repeat=2)))
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("outer")
def test_outer(rng, shapes, dtypes, layout):
    a = random_array(rng, shapes[0], dtypes[0])
    b = random_array(rng, shapes[1], dtypes[1])
    assert_matches(Ep.outer(as_layout(a, layout), as_layout(b, layout)), np.outer(a, b))
