"""Creation ops of issue 3: linspace, eye, onehot_like against NumPy, and
the seeded Philox uniform and normal (reproducibility, independence from
the shape, distribution), with their errors.
"""

import numpy as np
import pytest
from conftest import DTYPES, Ep, assert_ep_error, assert_matches

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


@pytest.mark.parametrize("start,stop", [(0, 1), (-3.5, 7.25), (5, -5), (2, 2), (1e-3, 1e3), (0, 10)])
@pytest.mark.parametrize("num", [0, 1, 2, 7, 50])
@pytest.mark.parametrize("endpoint", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.numpy_op("linspace")
def test_linspace(start, stop, num, endpoint, dtype):
    expected = np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)
    assert_matches(Ep.linspace(start, stop, num, endpoint, dtype), expected, exact=True)


def test_linspace_negative_num():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.linspace, 0.0, 1.0, -3, True, Ep.DType.FLOAT32)
    assert "linspace" in message and "-3" in message


@pytest.mark.parametrize("n,m", [(0, 0), (1, 1), (3, 3), (3, 5), (5, 2)])
@pytest.mark.parametrize("k", [0, 1, -1, 3, -4, 10, -10])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.numpy_op("eye")
def test_eye(n, m, k, dtype):
    assert_matches(Ep.eye(n, m, k, dtype), np.eye(n, m, k, dtype=dtype))


@pytest.mark.numpy_op("eye")
def test_eye_defaults_and_errors():
    assert_matches(Ep.eye(4), np.eye(4, dtype=np.float32))
    message = assert_ep_error(Ep.Error.SHAPE, Ep.eye, -1, 3, 0, Ep.DType.FLOAT32)
    assert "eye" in message and "-1" in message


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("n,c", [(4, 3), (0, 5), (1, 1)])
@pytest.mark.numpy_op("onehot_like")
def test_onehot_like(rng, dtype, index_dtype, n, c):
    like = np.zeros((n, c), dtype)
    indices = rng.integers(0, c, size=n).astype(index_dtype)
    expected = np.zeros((n, c), dtype)
    expected[np.arange(n), indices] = 3 if dtype != "bool" else True
    got = Ep.astensor(like).onehot_like(Ep.astensor(indices), 3)
    assert_matches(got, expected)


def test_onehot_like_errors():
    like = Ep.zeros([3, 4])
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.onehot_like, Ep.zeros([3]), Ep.astensor(np.zeros(3, np.int64)), 1.0)
    assert "onehot_like" in message and "(3,)" in message
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.onehot_like, like, Ep.astensor(np.zeros(2, np.int64)), 1.0)
    assert "(2,)" in message and "(3, 4)" in message
    assert_ep_error(Ep.Error.DTYPE, Ep.Tensor.onehot_like, like, Ep.zeros([3]), 1.0)
    message = assert_ep_error(Ep.Error.INDEX, Ep.Tensor.onehot_like, like, Ep.astensor(np.array([0, 4, 1])), 1.0)
    assert "onehot_like" in message and "4" in message
    assert_ep_error(Ep.Error.INDEX, Ep.Tensor.onehot_like, like, Ep.astensor(np.array([-1, 0, 1])), 1.0)


# random

@pytest.mark.parametrize("function", [Ep.uniform, Ep.normal])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_random_is_reproducible(function, dtype):
    Ep.set_seed(1234)
    first = function((3, 4), dtype=dtype).numpy()
    second = function((3, 4), dtype=dtype).numpy()
    Ep.set_seed(1234)
    again = function((3, 4), dtype=dtype).numpy()
    assert first.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, second)  # the stream advances
    Ep.set_seed(1235)
    assert not np.array_equal(first, function((3, 4), dtype=dtype).numpy())


@pytest.mark.parametrize("function", [Ep.uniform, Ep.normal])
def test_random_element_depends_only_on_its_index(function):
    Ep.set_seed(7)
    flat = function(24).numpy()
    Ep.set_seed(7)
    shaped = function((2, 3, 4)).numpy()
    np.testing.assert_array_equal(flat.reshape(2, 3, 4), shaped)
    Ep.set_seed(7)
    head = function(5).numpy()
    np.testing.assert_array_equal(flat[:5], head)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("low,high", [(0.0, 1.0), (-2.0, 3.0), (10.0, 10.5)])
def test_uniform_distribution(dtype, low, high):
    Ep.set_seed(99)
    x = Ep.uniform(200_000, low, high, dtype).numpy()
    assert x.min() >= low and x.max() < high
    width = high - low
    assert abs(x.mean() - (low + high) / 2) < 0.01 * width
    assert abs(x.std() - width / np.sqrt(12)) < 0.01 * width
    histogram, _ = np.histogram(x, bins=20, range=(low, high))
    expected = len(x) / 20
    chi2 = np.sum((histogram - expected) ** 2 / expected)
    assert chi2 < 60, chi2  # 19 degrees of freedom: p < 1e-5 above 60


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_distribution(dtype):
    Ep.set_seed(5)
    x = Ep.normal(200_000, 1.5, 2.0, dtype).numpy()
    assert np.all(np.isfinite(x))
    assert abs(x.mean() - 1.5) < 0.03
    assert abs(x.std() - 2.0) < 0.03
    z = (x - 1.5) / 2.0
    assert abs(np.mean(z ** 3)) < 0.05 and abs(np.mean(z ** 4) - 3) < 0.1
    # tail mass beyond two standard deviations: 4.55 %
    assert abs(np.mean(np.abs(z) > 2) - 0.0455) < 0.003


def test_uniform_stays_below_high():
    Ep.set_seed(3)
    x = Ep.uniform(100_000, 1.0, 1.0000001, Ep.DType.FLOAT32).numpy()
    assert np.all(x >= np.float32(1.0)) and np.all(x < np.float32(1.0000001))


def test_random_errors():
    message = assert_ep_error(Ep.Error.DTYPE, Ep.uniform, [3], 0.0, 1.0, Ep.DType.INT32)
    assert "uniform" in message and "int32" in message
    assert_ep_error(Ep.Error.DTYPE, Ep.normal, [3], 0.0, 1.0, Ep.DType.BOOL)
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.uniform, [3], 0.0, float("inf"), Ep.DType.FLOAT32)
    assert "uniform" in message and "inf" in message
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.normal, [3], 0.0, -1.0, Ep.DType.FLOAT32)
    assert "normal" in message and "-1" in message
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.normal, [3], float("nan"), 1.0, Ep.DType.FLOAT64)
    message = assert_ep_error(Ep.Error.SHAPE, Ep.uniform, [2, -3], 0.0, 1.0, Ep.DType.FLOAT32)
    assert "uniform" in message and "-3" in message
    assert Ep.uniform([0, 3]).shape == (0, 3)
    assert Ep.normal([]).shape == ()
