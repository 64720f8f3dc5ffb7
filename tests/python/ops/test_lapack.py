"""The lapack family against NumPy: inv, slogdet and solve on batches,
0-size matrices, every layout and dtype; every error path.
"""

import numpy as np
import pytest
from conftest import DTYPES, LAYOUTS, Ep, as_layout, assert_ep_error, assert_matches, random_array, tolerances

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


def well_conditioned(rng, shape, dtype):
    """Random matrices with a strong diagonal, so that float32 stays
    accurate; integer ones stay invertible too."""
    n = shape[-1]
    a = random_array(rng, shape, dtype if dtype != "bool" else "int64")
    a = a + np.eye(n, dtype=a.dtype) * (4 * n + 10)
    return a.astype(dtype)


def result_dtype(dtype):
    return np.float32 if dtype == "float32" else np.float64


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 4, 4), (2, 1, 3, 3), (0, 2, 2), (0, 0)])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("inv")
def test_inv(rng, dtype, shape, layout):
    a = well_conditioned(rng, shape, dtype)
    expected = np.linalg.inv(a) if a.size else np.zeros(shape, result_dtype(dtype))
    assert_matches(as_layout(a, layout).inv(), expected.astype(result_dtype(dtype)), **tolerances(dtype))


@pytest.mark.numpy_op("inv")
def test_inv_bool_and_negative_determinant():
    a = np.array([[False, True], [True, False]])
    assert_matches(Ep.astensor(a).inv(), np.linalg.inv(a))
    b = np.array([[0.0, 2.0], [1.0, 0.0]])
    assert_matches(Ep.astensor(b).inv(), np.linalg.inv(b))


def test_inv_errors():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.inv, Ep.zeros([2, 2]))
    assert "inv" in message and "singular" in message
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.inv,
                              Ep.astensor(np.stack([np.eye(2), np.ones((2, 2))])))
    assert "1" in message
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.inv, Ep.zeros([2, 3]))
    assert "inv" in message and "(2, 3)" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.inv, Ep.zeros([3]))
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.inv, Ep.zeros([]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (3, 2, 2), (0, 0), (2, 0, 0), (0, 3, 3)])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("slogdet")
def test_slogdet(rng, dtype, shape, layout):
    a = random_array(rng, shape, dtype)
    sign, logdet = as_layout(a, layout).slogdet()
    expected_sign, expected_log = np.linalg.slogdet(a)
    assert_matches(sign, np.asarray(expected_sign, result_dtype(dtype)), **tolerances(dtype))
    assert_matches(logdet, np.asarray(expected_log, result_dtype(dtype)), **tolerances(dtype))


@pytest.mark.numpy_op("slogdet")
def test_slogdet_singular_and_large():
    sign, logdet = Ep.astensor(np.array([[1.0, 2.0], [2.0, 4.0]])).slogdet()
    assert sign.item() == 0.0 and logdet.item() == -np.inf
    big = np.eye(300) * 10.0
    big[0, 0] = -10.0
    sign, logdet = Ep.astensor(big).slogdet()
    assert sign.item() == -1.0
    assert abs(logdet.item() - 300 * np.log(10.0)) < 1e-9


def test_slogdet_errors():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.slogdet, Ep.zeros([2, 3]))
    assert "slogdet" in message


SOLVE_SHAPES = [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (3,)), ((2, 3, 3), (2, 3, 4)),
                ((2, 3, 3), (3, 1)), ((1, 3, 3), (4, 3, 2)), ((4, 1, 2, 2), (3, 2, 1)), ((0, 2, 2), (0, 2, 1)),
                ((3, 3), (3, 0)), ((0, 0), (0,)), ((2, 0, 0), (0, 3))]


def numpy2_solve(a, b):
    """np.linalg.solve with NumPy 2's rule (b is a vector only if 1-D),
    on the NumPy 1 installed here."""
    if b.ndim == 1:
        return numpy2_solve(a, b[:, None])[..., 0]
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    if a.size == 0 or b.size == 0:
        return np.zeros(batch + b.shape[-2:], np.result_type(a, b, np.float64))
    return np.linalg.solve(a, b)


@pytest.mark.parametrize("shapes", SOLVE_SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("solve")
def test_solve(rng, shapes, dtype, layout):
    a = well_conditioned(rng, shapes[0], dtype)
    b = random_array(rng, shapes[1], dtype)
    expected = numpy2_solve(a, b).astype(result_dtype(dtype))
    got = Ep.Tensor.solve(as_layout(a, layout), as_layout(b, layout))
    assert_matches(got, expected, **tolerances(dtype))


@pytest.mark.numpy_op("solve")
def test_solve_mixed_dtypes(rng):
    a = well_conditioned(rng, (3, 3), "int32")
    b = random_array(rng, (3,), "float32")
    assert_matches(Ep.astensor(a).solve(Ep.astensor(b)), np.linalg.solve(a, b).astype(np.float64))


def test_solve_errors():
    eye = Ep.astensor(np.eye(3))
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.solve, Ep.zeros([3, 3]), Ep.zeros([3]))
    assert "solve" in message and "singular" in message
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.solve, eye, Ep.zeros([4]))
    assert "solve" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.solve, eye, Ep.zeros([2, 3]))
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.solve, eye, Ep.zeros([]))
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.solve, Ep.zeros([3, 2]), Ep.zeros([3]))
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.solve, Ep.zeros([2, 3, 3]), Ep.zeros([4, 3, 1]))
    # a batch of vectors is a batch of (n, 1) matrices (NumPy 2's rule)
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.solve, Ep.zeros([2, 3, 3]), Ep.zeros([2, 3]))
