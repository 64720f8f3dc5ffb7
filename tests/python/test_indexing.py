"""Indexing against NumPy: slice (views), __getitem__ with every kind of
index, take, take_along_axis, mask, index_update, scatter_add; every
error path."""

import numpy as np
import pytest
from conftest import DTYPES, LAYOUTS, Ep, GLib, as_layout, assert_ep_error, assert_matches, random_array

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


@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (2, 0, 5), (3, 1, 4, 2)])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("slice")
def test_basic_indexing_random_keys(rng, shape, layout):
    for dtype in DTYPES:
        a = random_array(rng, shape, dtype)
        t = as_layout(a, layout)
        for _ in range(25):
            key = random_basic_key(rng, shape)
            got = t[key]
            assert_matches(got, a[key])
            assert got.shares_storage(t), key


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


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, -1, None])
@pytest.mark.parametrize("index_shape", [(), (0,), (4,), (2, 3)])
@pytest.mark.numpy_op("take")
def test_take(rng, dtype, axis, index_shape):
    a = random_array(rng, (3, 5), dtype)
    extent = a.size if axis is None else a.shape[axis]
    indices = rng.integers(-extent, extent, size=index_shape)
    for layout in LAYOUTS:
        assert_matches(as_layout(a, layout).take(indices, axis=axis), np.take(a, indices, axis=axis))


@pytest.mark.numpy_op("take")
def test_take_from_empty_and_scalar_index(rng):
    a = random_array(rng, (0, 3), "float32")
    assert_matches(Ep.astensor(a).take(np.zeros((0,), np.int64), axis=0), np.take(a, [], axis=0).astype(np.float32))
    assert_matches(Ep.astensor(a).take(2, axis=1), np.take(a, 2, axis=1))


def test_take_errors():
    t = Ep.zeros([3, 4])
    message = assert_ep_error(Ep.Error.INDEX, Ep.Tensor.take, t, Ep.astensor([0, 4]), 1)
    assert "take" in message and "4" in message
    assert_ep_error(Ep.Error.INDEX, Ep.Tensor.take, t, Ep.astensor([-4]), 0)
    assert_ep_error(Ep.Error.INDEX, Ep.Tensor.take, Ep.zeros([0]), Ep.astensor([0]), 0)
    assert_ep_error(Ep.Error.DTYPE, Ep.Tensor.take, t, Ep.astensor([0.0]), 0)
    assert_ep_error(Ep.Error.DTYPE, Ep.Tensor.take, t, Ep.astensor([True]), 0)
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.take, t, Ep.astensor([0]), 2)
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.take, Ep.zeros([]), Ep.astensor([0]), 0)
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.take, Ep.zeros([1] * 8), Ep.zeros([1, 1], "int64"), 0)


TAKE_ALONG = [((3, 4), (3, 2), 1), ((3, 4), (5, 4), 0), ((3, 4), (1, 6), 1), ((3, 1), (3, 2), 0),
              ((2, 3, 4), (2, 3, 1), -1), ((2, 3, 4), (1, 0, 4), 1), ((5,), (7,), 0), ((5,), (), None)]


@pytest.mark.parametrize("shape,index_shape,axis", TAKE_ALONG)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.numpy_op("take_along_axis")
def test_take_along_axis(rng, shape, index_shape, axis, dtype):
    a = random_array(rng, shape, dtype)
    extent = a.size if axis is None else a.shape[axis]
    indices = rng.integers(-extent, extent, size=index_shape if axis is not None else (3,))
    expected = np.take_along_axis(a, indices, axis)
    for layout in LAYOUTS:
        assert_matches(as_layout(a, layout).take_along_axis(as_layout(indices, layout), axis), expected)


@pytest.mark.numpy_op("take_along_axis")
def test_take_along_axis_with_argsort(rng):
    a = random_array(rng, (4, 6), "float64")
    order = np.argsort(a, axis=1)
    assert_matches(Ep.astensor(a).take_along_axis(order, 1), np.sort(a, axis=1))


def test_take_along_axis_errors():
    t = Ep.zeros([3, 4])
    assert_ep_error(Ep.Error.INDEX, Ep.Tensor.take_along_axis, t, Ep.astensor([[4]]), 1)
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.take_along_axis, t, Ep.astensor([0]), 1)
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.take_along_axis, t, Ep.astensor([[0], [1]]), 1)
    assert "take_along_axis" in message
    assert_ep_error(Ep.Error.DTYPE, Ep.Tensor.take_along_axis, t, Ep.astensor([[0.5]]), 1)
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.take_along_axis, t, Ep.astensor([[0]]), 2)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,mask_shape", [((), ()), ((6,), (6,)), ((3, 4), (3, 4)), ((3, 4), (3,)),
                                              ((0, 2), (0,)), ((2, 3, 2), (2, 3))])
@pytest.mark.numpy_op("mask")
def test_mask(rng, dtype, shape, mask_shape):
    a = random_array(rng, shape, dtype)
    m = random_array(rng, mask_shape, "bool")
    for layout in LAYOUTS:
        assert_matches(as_layout(a, layout).mask(as_layout(m, layout)), a[m])


def test_mask_errors():
    t = Ep.zeros([3, 4])
    message = assert_ep_error(Ep.Error.DTYPE, Ep.Tensor.mask, t, Ep.zeros([3, 4], "int32"))
    assert "mask" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.mask, t, Ep.zeros([4], "bool"))
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.mask, t, Ep.zeros([3, 4, 1], "bool"))
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.mask, Ep.zeros([1] * 8), Ep.zeros([], "bool"))


def numpy_index_update(a, indices, values, axis):
    out = a.copy()
    key = (slice(None),) * (axis % a.ndim) + (indices,)
    out[key] = values
    return out


def numpy_scatter_add(a, indices, values, axis):
    out = a.copy()
    key = (slice(None),) * (axis % a.ndim) + (indices,)
    np.add.at(out, key, values)
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("index_shape", [(), (0,), (3,), (2, 2)])
@pytest.mark.numpy_op("index_update", "scatter_add")
def test_scatters(rng, dtype, axis, index_shape):
    a = random_array(rng, (4, 5), dtype)
    extent = a.shape[axis]
    indices = rng.integers(-extent, extent, size=index_shape)
    unique = rng.permutation(np.arange(-extent, 0))[:int(np.prod(index_shape))].reshape(index_shape)
    taken_shape = np.take(a, indices, axis=axis).shape
    values = random_array(rng, taken_shape, dtype)
    for layout in LAYOUTS:
        t = as_layout(a, layout)
        v = as_layout(values, layout)
        assert_matches(t.index_update(unique, v, axis), numpy_index_update(a, unique, values, axis))
        if dtype == "bool":
            expected = numpy_scatter_add(a.astype(np.int64), indices, values, axis).astype(bool)
        else:
            expected = numpy_scatter_add(a, indices, values, axis)
        assert_matches(t.scatter_add(indices, v, axis), expected)
    assert_matches(Ep.astensor(a), a)   # unchanged


@pytest.mark.numpy_op("index_update", "scatter_add")
def test_scatter_duplicates_and_broadcast_values(rng):
    a = np.zeros((3, 4))
    idx = np.array([[1, 1], [-3, 1]])
    assert_matches(Ep.astensor(a).scatter_add(idx, 1.0, 1), numpy_scatter_add(a, idx, 1.0, 1))
    assert_matches(Ep.astensor(a).scatter_add(idx, np.arange(3.0).reshape(3, 1, 1), 1),
                   numpy_scatter_add(a, idx, np.arange(3.0).reshape(3, 1, 1), 1))
    assert_matches(Ep.astensor(a).index_update([0, 2, 0], [7.0, 8.0, 9.0], 1), numpy_index_update(a, [0, 2, 0], [7.0, 8.0, 9.0], 1))
    assert_matches(Ep.astensor(a).index_update(2, -1.0, 0), numpy_index_update(a, 2, -1.0, 0))
    ints = np.full(3, np.iinfo(np.int64).max)
    assert_matches(Ep.astensor(ints).scatter_add([0, 0], 1, 0), numpy_scatter_add(ints, [0, 0], 1, 0))
    assert_matches(Ep.astensor(np.zeros(3, np.int32)).scatter_add([1], 2.7, 0), np.array([0, 2, 0], np.int32))


@pytest.mark.numpy_op("scatter_add", "take")
def test_scatter_add_mirrors_take(rng):
    a = random_array(rng, (3, 4, 2), "float64")
    idx = rng.integers(-4, 4, size=(2, 5))
    g = random_array(rng, np.take(a, idx, axis=1).shape, "float64")
    # <take(a, idx), g> == <a, scatter_add(0, idx, g)>
    lhs = (Ep.astensor(a).take(idx, axis=1) * Ep.astensor(g)).sum().item()
    rhs = (Ep.astensor(a) * Ep.zeros((3, 4, 2), "float64").scatter_add(idx, g, 1)).sum().item()
    assert abs(lhs - rhs) < 1e-9


@pytest.mark.parametrize("name", ["index_update", "scatter_add"])
def test_scatter_errors(name):
    method = getattr(Ep.Tensor, name)
    t = Ep.zeros([3, 4])
    message = assert_ep_error(Ep.Error.INDEX, method, t, Ep.astensor([4]), Ep.zeros([3, 1]), 1)
    assert name in message
    assert_ep_error(Ep.Error.SHAPE, method, t, Ep.astensor([0, 1]), Ep.zeros([3, 3]), 1)
    assert_ep_error(Ep.Error.SHAPE, method, t, Ep.astensor([0]), Ep.zeros([2, 3, 1]), 1)
    assert_ep_error(Ep.Error.DTYPE, method, t, Ep.astensor([0.0]), Ep.zeros([3, 1]), 1)
    assert_ep_error(Ep.Error.AXIS, method, t, Ep.astensor([0]), Ep.zeros([3, 1]), 2)
    assert_ep_error(Ep.Error.AXIS, method, Ep.zeros([]), Ep.astensor([0]), Ep.zeros([]), 0)


def test_index_errors_are_glib_errors():
    with pytest.raises(GLib.Error):
        Ep.zeros([2]).take([5])
