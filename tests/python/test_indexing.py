"""Python's indexing against NumPy: x[...] with every kind of index
(ints, slices, None, Ellipsis, integer and boolean arrays) and slice()
with Python's bounds; the ops indexing is made of (take, mask) are tested
in ops/test_index.py."""

import numpy as np
import pytest
from conftest import DTYPES, LAYOUTS, Ep, as_layout, assert_ep_error, assert_matches, random_array

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


def random_slice(rng, extent):
    def bound():
        return None if rng.random() < 0.3 else int(rng.integers(-extent - 3, extent + 4))
    step = None if rng.random() < 0.3 else int(rng.choice([-3, -2, -1, 1, 2, 3, 7]))
    return slice(bound(), bound(), step)


def random_basic_key(rng, shape):
    key = []
    axis = 0
    ellipsis = False
    while axis < len(shape):
        r = rng.random()
        if r < 0.15:
            key.append(None)
            continue
        if r < 0.25 and not ellipsis:
            key.append(Ellipsis)
            ellipsis = True
            axis += int(rng.integers(0, len(shape) - axis + 1))
            continue
        if r < 0.5 and shape[axis] > 0:
            key.append(int(rng.integers(-shape[axis], shape[axis])))
        else:
            key.append(random_slice(rng, shape[axis]))
        axis += 1
    if rng.random() < 0.3:
        key = key[:int(rng.integers(0, len(key) + 1))]
    return tuple(key)


def slice_method_arguments(key):
    """The starts, stops and steps of Tensor.slice for a key of slices
    only, or None."""
    if not all(isinstance(k, slice) for k in key):
        return None
    return [k.start for k in key], [k.stop for k in key], [1 if k.step is None else k.step for k in key]


@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (2, 0, 5), (3, 1, 4, 2)])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("slice")
def test_basic_indexing_random_keys(rng, shape, layout):
    for dtype in DTYPES:
        a = random_array(rng, shape, dtype)
        t = as_layout(a, layout)
        # the slice op itself, on this layout: every axis reversed
        assert_matches(t.slice([None] * a.ndim, [None] * a.ndim, [-1] * a.ndim), a[(slice(None, None, -1),) * a.ndim])
        for _ in range(25):
            key = random_basic_key(rng, shape)
            got = t[key]
            assert_matches(got, a[key])
            assert got.shares_storage(t), key
            arguments = slice_method_arguments(key)
            if arguments is not None:
                assert_matches(t.slice(*arguments), a[key])


@pytest.mark.numpy_op("slice")
def test_slice_method_and_views(rng):
    a = random_array(rng, (5, 6), "float32")
    t = Ep.astensor(a)
    assert_matches(t.slice([1, None], [None, -1], [2, -2]), a[1::2, :-1:-2])
    assert_matches(t.slice([4], [0], [-1]), a[4:0:-1])
    assert_matches(t.slice([], []), a)
    assert_matches(t.slice([-100, 100], [100, -100], [1, -1]), a[-100:100, 100:-100:-1])
    assert_matches(t.slice([2**70], [-2**70], [-2**70]), a[2**62::-2**62])
    v = t[::-1, 1::2]
    assert v.get_strides() == [-6, 2]
    assert_matches(v[1:, ::-1], a[::-1, 1::2][1:, ::-1])
    assert_matches(t[3], a[3])
    assert t[3].shares_storage(t)


@pytest.mark.numpy_op("slice")
def test_iteration_and_scalars(rng):
    a = random_array(rng, (3, 2), "int64")
    t = Ep.astensor(a)
    rows = list(t)
    assert len(rows) == 3
    for row, expected in zip(rows, a):
        assert_matches(row, expected)
    assert t[1, -1].item() == a[1, -1]
    assert_matches(t[...], a)
    assert_matches(t[()], a)
    assert_matches(t[None, ..., None], a[None, ..., None])
    s = Ep.astensor(np.float64(2.5))
    assert_matches(s[()], np.float64(2.5))
    assert_matches(s[None], np.array([2.5]))
    assert_matches(s[...], np.array(2.5))


def test_basic_indexing_errors():
    t = Ep.zeros([3, 4])
    with pytest.raises(IndexError):
        t[3]
    with pytest.raises(IndexError):
        t[0, -5]
    with pytest.raises(IndexError):
        t[0, 0, 0]
    with pytest.raises(IndexError):
        t[..., 0, ...]
    with pytest.raises(IndexError):
        t[1.5]
    with pytest.raises(IndexError):
        t["a"]
    with pytest.raises(IndexError):
        t[np.array([1.5])]
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, t.__getitem__, slice(None, None, 0))


def test_slice_errors():
    t = Ep.zeros([3, 4])
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.slice, t, [0, 0], [3, 4], [1, 0])
    assert "slice" in message and "axis 1" in message
    assert_ep_error(Ep.Error.INDEX, Ep.Tensor.slice, t, [0, 0, 0], [1, 1, 1])


@pytest.mark.parametrize("starts,stops,steps", [([0, 0], [1], [1]), ([0], [1, 1], None),
                                                ([0], [1], [1, 1]), ([None, 0], [1], None)])
def test_slice_lists_of_different_lengths(starts, stops, steps):
    t = Ep.zeros([3, 4])
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, t.slice, starts, stops, steps)
    assert "lengths must match" in message


ADVANCED_KEYS = [
    [2, 0, -1],
    np.array([[0, 1], [2, -3]]),
    (slice(None), [1, 1, 0]),
    ([0, 2], slice(None), [1, 3]),
    ([[0], [2]], [[1, 3]]),
    (1, slice(1, None), [0, 3, 3]),
    ([0, 1], 2),
    (slice(None), [0, 1], [2, 0]),
    (slice(None, None, -1), [[0, 1]], [[4], [1]]),
    ([[0, 1]], slice(None, None, 2), [[4], [1]]),
    (None, [1, 2], None, [0, 0]),
    ([2, 1], None, [0, 0]),
    (Ellipsis, [4, 0]),
    (np.array(2),),
    ([],),
    (slice(None), np.zeros((2, 0), np.int64)),
]


@pytest.mark.parametrize("key", ADVANCED_KEYS, ids=range(len(ADVANCED_KEYS)))
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("take")
def test_integer_array_indexing(rng, key, layout):
    a = random_array(rng, (3, 4, 5), "float32")
    t = as_layout(a, layout)
    assert_matches(t[key], a[key])


@pytest.mark.numpy_op("take")
def test_index_tensors_and_int32_indices(rng):
    a = random_array(rng, (4, 5), "int32")
    t = Ep.astensor(a)
    idx = np.array([[3, -1], [0, 2]], np.int32)
    assert_matches(t[Ep.astensor(idx)], a[idx])
    assert_matches(t[:, Ep.astensor(idx)], a[:, idx])
    assert_matches(t[Ep.astensor(idx), Ep.astensor(idx)], a[idx, idx])


MASK_KEYS = [
    lambda a: a > 0,
    lambda a: a[:, :, 0] > 0,
    lambda a: (slice(None), a[0] > 0),
    lambda a: (Ellipsis, np.array([True, False, True, True, False])),
    lambda a: (1, np.array([False, True, True, False])),
    lambda a: (np.array([True, False, True]), slice(None), [0, 4]),
    lambda a: (np.array([True, False, True]), [1, 3]),
    lambda a: np.zeros((3, 4, 5), bool),
    lambda a: (True,),
    lambda a: (False, 0),
    lambda a: (slice(None), [[True, False, True, False, True]] * 4),
    lambda a: (True, [0, 2]),
    lambda a: ([1], False, slice(None), [1]),
]


@pytest.mark.parametrize("make_key", MASK_KEYS, ids=range(len(MASK_KEYS)))
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("mask")
def test_boolean_indexing(rng, make_key, layout):
    a = random_array(rng, (3, 4, 5), "int64")
    key = make_key(a)
    t = as_layout(a, layout)
    assert_matches(t[key], a[key])


@pytest.mark.numpy_op("mask")
def test_boolean_tensor_index(rng):
    a = random_array(rng, (6,), "float64")
    t = Ep.astensor(a)
    assert_matches(t[t > 0], a[a > 0])
    assert_matches(t.mask(a > 0), a[a > 0])


def test_advanced_indexing_errors():
    t = Ep.zeros([3, 4])
    message = assert_ep_error(Ep.Error.INDEX, t.__getitem__, [3])
    assert "3" in message
    assert_ep_error(Ep.Error.INDEX, t.__getitem__, (slice(None), [0, -5]))
    assert_ep_error(Ep.Error.INDEX, t.__getitem__, ([0, 1], [0, 4]))
    with pytest.raises(IndexError):
        t[[0, 1], [0, 1, 2]]
    assert_ep_error(Ep.Error.SHAPE, t.__getitem__, np.ones(4, bool))
    assert_ep_error(Ep.Error.SHAPE, t.__getitem__, np.ones((3, 3), bool))


def test_uint64_index_past_int64_is_an_error():
    """(as int64 it would wrap around to -1, the last element)"""
    t = Ep.arange(5.0)
    with pytest.raises(OverflowError, match="out of bounds for int64"):
        t[np.array([2**64 - 1], np.uint64)]
    assert_matches(t[np.array([1, 2], np.uint64)], np.array([1.0, 2.0], np.float32))


def test_range_indices_are_integer_arrays(rng):
    """A range indexes as NumPy's integer array of its values."""
    a = rng.standard_normal((5, 4)).astype(np.float32)
    t = Ep.astensor(a)
    for key in (range(3), range(4, 0, -2), (slice(None), range(1, 3)), range(0)):
        np.testing.assert_array_equal(t[key].numpy(), a[key])
