"""The sort family against NumPy: sort and argsort (stable, NaN last) along
every axis or flattened, topk (largest first, NaN largest, ties to the
lower index), on every dtype, 0-size and non-contiguous inputs and long
rows, with their errors.
"""

import numpy as np
import pytest
from conftest import DTYPES, NARROW_INTS, Ep, assert_ep_error, assert_matches, layouts, random_array

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


@pytest.mark.parametrize("dtype", DTYPES + NARROW_INTS)
@pytest.mark.parametrize("axis", [0, 1, -1, None])
@pytest.mark.parametrize("shape", [(5, 40, 3), (0, 4, 2), (3, 1, 2)])
@pytest.mark.numpy_op("sort", "argsort")
def test_sort_and_argsort(rng, dtype, axis, shape):
    a = random_array(rng, shape, dtype)
    if dtype.startswith("float") and a.size > 10:
        a.flat[[1, 5, 9]] = np.nan
        a.flat[[2, 3]] = a.flat[4]  # ties
    for _, t in layouts(a):
        assert_matches(t.sort(axis=axis), np.sort(a, axis=axis))
        assert_matches(t.argsort(axis=axis), np.argsort(a, axis=axis, kind="stable"))


@pytest.mark.numpy_op("sort", "argsort")
def test_sort_non_contiguous_and_long_rows(rng):
    a = random_array(rng, (3, 1000), "float64")
    a[:, ::7] = a[:, 1:2]  # many ties in long rows: stability matters
    assert_matches(Ep.astensor(a).T.sort(axis=0), np.sort(a.T, axis=0))
    assert_matches(Ep.astensor(a).T.argsort(axis=0), np.argsort(a.T, axis=0, kind="stable"))
    b = random_array(rng, (1000,), "int64")
    assert_matches(Ep.astensor(b).argsort(), np.argsort(b, kind="stable"))


@pytest.mark.parametrize("name", ["sort", "argsort", "softmax", "log_softmax"])
def test_one_axis_errors(name):
    message = assert_ep_error(Ep.Error.AXIS, getattr(Ep.Tensor, name), Ep.zeros([2, 3]), 2)
    assert name in message and "2" in message
    assert_ep_error(Ep.Error.AXIS, getattr(Ep.Tensor, name), Ep.zeros([2, 3]), -3)
    # argsort flattens a 0-d tensor, as NumPy: it has an axis 0 (or -1)
    assert_ep_error(Ep.Error.AXIS, getattr(Ep.Tensor, name), Ep.zeros([]), 1 if name == "argsort" else -1)


# topk

def topk_reference(a, k, sorted_=True):
    """Largest first, NaN largest, ties to the lower index."""
    keys = a.astype(np.float64)
    nan = np.isnan(keys)
    order = np.lexsort((np.broadcast_to(np.arange(a.shape[-1]), a.shape), -np.where(nan, 0, keys), ~nan), axis=-1)
    indices = order[..., :k]
    if not sorted_:
        indices = np.sort(indices, axis=-1)
    return np.take_along_axis(a, indices, axis=-1), indices.astype(np.int64)


@pytest.mark.parametrize("dtype", DTYPES + NARROW_INTS)
@pytest.mark.parametrize("k", [0, 1, 3, 7])
@pytest.mark.parametrize("sorted_", [True, False])
@pytest.mark.numpy_op("topk")
def test_topk(rng, dtype, k, sorted_):
    a = random_array(rng, (2, 3, 7), dtype)
    if dtype.startswith("float"):
        a[0, 1, 3] = np.nan
        a[1, 0, 2] = a[1, 0, 5]
    expected_values, expected_indices = topk_reference(a, k, sorted_)
    for _, t in layouts(a):
        values, indices = t.topk(k, sorted_)
        assert_matches(values, expected_values, exact=True)
        assert_matches(indices, expected_indices)


@pytest.mark.parametrize("dtype", DTYPES + NARROW_INTS)
@pytest.mark.parametrize("k", [1, 5, 12])
@pytest.mark.parametrize("sorted_", [True, False])
@pytest.mark.numpy_op("topk")
def test_topk_long_rows(rng, dtype, k, sorted_):
    # small k of long rows takes the one-pass selection
    a = random_array(rng, (3, 200), dtype)
    if dtype.startswith("float"):
        a[0, [3, 50, 199]] = np.nan
        a[1, ::3] = a[1, 7]
    values, indices = Ep.astensor(a).topk(k, sorted_)
    expected_values, expected_indices = topk_reference(a, k, sorted_)
    assert_matches(values, expected_values, exact=True)
    assert_matches(indices, expected_indices)
    for _, t in layouts(a, ("transposed", "strided")):
        values, indices = t.topk(k, sorted_)
        assert_matches(values, expected_values, exact=True)
        assert_matches(indices, expected_indices)


@pytest.mark.numpy_op("topk")
def test_topk_non_contiguous_and_empty(rng):
    a = random_array(rng, (9, 4), "float32")
    values, indices = Ep.astensor(a).T.topk(3)
    expected_values, expected_indices = topk_reference(a.T, 3)
    assert_matches(values, expected_values, exact=True)
    assert_matches(indices, expected_indices)
    values, indices = Ep.astensor(np.zeros((0, 5), np.float32)).topk(2)
    assert values.shape == (0, 2) and indices.shape == (0, 2)


def test_topk_errors():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.topk, Ep.zeros([2, 3]), 4, True)
    assert "topk" in message and "4" in message and "3" in message
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.topk, Ep.zeros([2, 3]), -1, True)
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.topk, Ep.zeros([]), 0, True)


# searchsorted (issue 17, ops): NumPy's on a 1-D sequence, PyTorch's on a
# batch of rows

@pytest.mark.parametrize("dtype", DTYPES + ["uint8"])
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.numpy_op("searchsorted")
def test_searchsorted(rng, dtype, side):
    seq = np.sort(random_array(rng, (40,), dtype))
    values = random_array(rng, (3, 5), dtype)
    values.flat[:3] = seq[[0, 7, -1]]   # equal to elements: left and right differ
    assert_matches(Ep.searchsorted(seq, values, side=side), np.searchsorted(seq, values, side=side))
    assert_matches(Ep.Tensor.searchsorted(Ep.astensor(seq), values, side),
                   np.searchsorted(seq, values, side=side))


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.numpy_op("searchsorted")
def test_searchsorted_nan_inf_and_promotion(side):
    seq = np.array([-np.inf, 1, 2, 2, 3, np.inf, np.nan, np.nan], np.float64)
    values = np.array([np.nan, -np.inf, 2, np.inf, 2.5, 0], np.float32)
    assert_matches(Ep.searchsorted(seq, values, side=side), np.searchsorted(seq, values, side=side))
    ints = np.array([1, 3, 5, 7], np.int32)
    assert_matches(Ep.searchsorted(ints, np.array([2.5, 3.0, 7.5]), side=side),
                   np.searchsorted(ints, np.array([2.5, 3.0, 7.5]), side=side))
    booleans = np.array([False, False, True])
    assert_matches(Ep.searchsorted(booleans, np.array([True, False]), side=side),
                   np.searchsorted(booleans, np.array([True, False]), side=side))


@pytest.mark.numpy_op("searchsorted")
def test_searchsorted_layouts_0d_and_0_size(rng):
    seq = np.sort(random_array(rng, (6, 10), "float32"), axis=1)[2]
    values = random_array(rng, (4, 6, 3), "float32")
    for _, t in layouts(values):
        assert_matches(Ep.searchsorted(seq, t), np.searchsorted(seq, values))
    for _, t in layouts(np.sort(random_array(rng, (3, 8, 5), "float32"))):
        assert_matches(Ep.searchsorted(t.flatten().sort(), np.float32(0.5)),
                       np.searchsorted(np.sort(t.numpy().ravel()), np.float32(0.5)))
    assert_matches(Ep.searchsorted(seq, np.float32(0.25)), np.searchsorted(seq, np.float32(0.25)))
    assert_matches(Ep.searchsorted(seq, np.zeros((0, 3), np.float32)),
                   np.searchsorted(seq, np.zeros((0, 3), np.float32)))
    assert_matches(Ep.searchsorted(np.zeros(0, np.float32), values), np.zeros(values.shape, np.int64))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_batched_is_torchs(rng, side):
    import torch
    seq = np.sort(random_array(rng, (2, 3, 9), "float64"), axis=-1)
    values = random_array(rng, (2, 3, 4), "float64")
    values[0, 0, :2] = seq[0, 0, [1, 4]]
    expected = torch.searchsorted(torch.tensor(seq), torch.tensor(values), right=side == "right")
    for _, t in layouts(seq):
        assert_matches(Ep.searchsorted(t, values, side=side), expected.numpy())


def test_searchsorted_errors():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.searchsorted, np.float32(1), np.zeros(3, np.float32))
    assert "searchsorted" in message and "0-d" in message
    message = assert_ep_error(Ep.Error.SHAPE, Ep.searchsorted, np.zeros((2, 5)), np.zeros((3, 4)))
    assert "(2, 5)" in message and "(3, 4)" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.searchsorted, np.zeros((2, 5)), np.zeros(4))
    with pytest.raises((ValueError, TypeError)):
        Ep.searchsorted(np.zeros(3), np.zeros(2), side="middle")


# unique (issue 17, ops): NumPy's, with the inverse in the input's shape
# (NumPy 2's and PyTorch's; NumPy 1 flattens it)

def numpy_unique(a):
    values, inverse, counts = np.unique(a, return_inverse=True, return_counts=True)
    return values, inverse.reshape(a.shape), counts


@pytest.mark.parametrize("dtype", DTYPES + ["uint8"])
@pytest.mark.parametrize("shape", [(4, 9), (30,), (2, 3, 4)])
@pytest.mark.numpy_op("unique")
def test_unique(rng, dtype, shape):
    a = random_array(rng, shape, dtype)
    if dtype.startswith("float"):
        a = np.round(a)   # repeats
        a.flat[[0, 3, 5]] = np.nan
        a.flat[1] = -0.0
    values, inverse, counts = numpy_unique(a)
    got = Ep.unique(a, return_inverse=True, return_counts=True)
    for tensor, expected in zip(got, (values, inverse, counts)):
        assert_matches(tensor, expected)
    assert_matches(Ep.unique(a), values)
    assert_matches(Ep.astensor(a).unique(return_counts=True)[1], counts)


@pytest.mark.numpy_op("unique")
def test_unique_layouts_0d_and_0_size(rng):
    a = rng.integers(0, 5, (4, 6, 3)).astype(np.int64)
    for _, t in layouts(a):
        for tensor, expected in zip(Ep.unique(t, True, True), numpy_unique(a)):
            assert_matches(tensor, expected)
    s = np.array(2.5, np.float32)
    values, inverse, counts = Ep.unique(s, True, True)
    assert_matches(values, np.unique(s))
    assert_matches(inverse, np.zeros((), np.int64))
    assert_matches(counts, np.array([1]))
    z = np.zeros((0, 3), np.float32)
    for tensor, expected in zip(Ep.unique(z, True, True), numpy_unique(z)):
        assert_matches(tensor, expected)


def test_unique_values_index_back_to_the_input(rng):
    a = rng.integers(-3, 3, (5, 7)).astype(np.int32)
    values, inverse = Ep.unique(a, return_inverse=True)
    assert_matches(values.take(inverse.flatten()).reshape(5, 7), a)
