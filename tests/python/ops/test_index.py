"""The index family against NumPy: take, take_along_axis, mask, nonzero
(NumPy's argwhere, torch.nonzero), index_update and scatter_add on every dtype, with negative, empty and
broadcast indices, and their errors (Python's x[...] built on them: in
test_indexing.py); embedding against torch.nn.functional.embedding."""

import numpy as np
import pytest
from conftest import DTYPES, NARROW_INTS, LAYOUTS, Ep, GLib, as_layout, assert_ep_error, assert_matches, layouts, random_array

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


@pytest.mark.parametrize("dtype", DTYPES + NARROW_INTS)
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
@pytest.mark.parametrize("dtype", DTYPES + NARROW_INTS)
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


@pytest.mark.parametrize("dtype", DTYPES + NARROW_INTS)
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


@pytest.mark.parametrize("dtype", DTYPES + NARROW_INTS)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (0, 3), (2, 3, 4)])
@pytest.mark.numpy_op("nonzero")
def test_nonzero(rng, dtype, shape):
    a = random_array(rng, shape, dtype)
    if dtype.startswith(("int", "uint")) or dtype == "bool":
        a = (a % 2).astype(dtype) if dtype != "bool" else a
    elif a.size > 3:
        a.flat[:3] = [0.0, np.nan, -0.0]
        a[a > 1] = 0
    for layout in LAYOUTS:
        assert_matches(as_layout(a, layout).nonzero(), np.argwhere(a))
    assert_matches(Ep.nonzero(a), np.argwhere(a))


def test_nonzero_matches_torch(rng):
    torch = pytest.importorskip("torch")
    a = (rng.random((4, 5, 3)) < 0.3).astype(np.float64)
    assert_matches(Ep.astensor(a).nonzero(), torch.nonzero(torch.from_numpy(a)).numpy())


def test_nonzero_staged_follows_the_data():
    """Traced once, the number of rows follows each call's values."""
    f = Ep.function(lambda x: x.nonzero())
    for values in ([1.0, 0.0, 2.0], [0.0, 0.0, 0.0], [3.0, 4.0, 5.0]):
        a = np.array(values)
        assert_matches(f(Ep.astensor(a)), np.argwhere(a))


def test_numpy_nonzero_stays_numpys():
    """np.nonzero is a tuple of index arrays: NumPy's, not Ep's (n, ndim)."""
    a = np.array([[0.0, 1.0], [2.0, 0.0]])
    got = np.nonzero(Ep.astensor(a))
    assert isinstance(got, tuple) and len(got) == 2
    for g, e in zip(got, np.nonzero(a)):
        np.testing.assert_array_equal(g, e)


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


@pytest.mark.parametrize("dtype", DTYPES + NARROW_INTS)
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
    # uint8 wraps modulo 256, as NumPy's add.at
    pixels = np.array([250, 0, 9], np.uint8)
    assert_matches(Ep.astensor(pixels).scatter_add([0, 0, 2], np.array([3, 4, 255], np.uint8), 0),
                   numpy_scatter_add(pixels, [0, 0, 2], np.array([3, 4, 255], np.uint8), 0))


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


# embedding: torch.nn.functional.embedding, values and gradients

@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("index_shape", [(), (0,), (5,), (3, 4), (2, 0, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.numpy_op("embedding")
def test_embedding_matches_torch(rng, index_dtype, index_shape, dtype):
    torch = pytest.importorskip("torch")
    weight = random_array(rng, (7, 3), dtype)
    indices = rng.integers(0, 7, index_shape).astype(index_dtype)
    expected = torch.nn.functional.embedding(torch.from_numpy(np.array(indices, np.int64)),
                                             torch.from_numpy(weight)).numpy()
    assert_matches(Ep.embedding(Ep.astensor(indices), Ep.astensor(weight)), expected, exact=True)


@pytest.mark.numpy_op("embedding")
def test_embedding_non_contiguous(rng):
    weight = random_array(rng, (6, 4), "float32")
    indices = rng.integers(0, 6, (4, 5)).astype(np.int64)
    for layout in LAYOUTS:
        assert_matches(Ep.embedding(as_layout(indices, layout), as_layout(weight, layout)),
                       weight[indices], exact=True)


def test_embedding_gradient_matches_torch(rng):
    torch = pytest.importorskip("torch")
    weight = rng.normal(size=(10, 4))
    indices = np.array([[1, 3, 1], [9, 0, 1]], np.int64)   # row 1 three times, rows 2, 4-8 never
    upstream = rng.normal(size=(2, 3, 4))
    w = Ep.astensor(weight)
    with Ep.GradientTape() as tape:
        tape.watch(w)
        loss = (Ep.embedding(Ep.astensor(indices), w) * Ep.astensor(upstream)).sum()
    tw = torch.tensor(weight, requires_grad=True)
    (torch.nn.functional.embedding(torch.from_numpy(indices), tw) * torch.from_numpy(upstream)).sum().backward()
    assert_matches(tape.gradient(loss, w), tw.grad.numpy(), rtol=1e-15, atol=0)


def test_embedding_errors():
    w = Ep.zeros([5, 3])
    message = assert_ep_error(Ep.Error.INDEX, Ep.embedding, Ep.astensor([0, 5, 7]), w)
    assert message.startswith("embedding: ") and "5" in message
    assert_ep_error(Ep.Error.INDEX, Ep.embedding, Ep.astensor([[0], [-6]]), w)
    message = assert_ep_error(Ep.Error.DTYPE, Ep.embedding, Ep.astensor([0.0]), w)
    assert message.startswith("embedding: ") and "float32" in message
    assert_ep_error(Ep.Error.DTYPE, Ep.embedding, Ep.astensor([True]), w)
    for bad in (Ep.zeros([5]), Ep.zeros([5, 3, 2]), Ep.zeros([])):
        message = assert_ep_error(Ep.Error.SHAPE, Ep.embedding, Ep.astensor([0]), bad)
        assert message.startswith("embedding: ")
    assert_ep_error(Ep.Error.INDEX, Ep.embedding, Ep.astensor([0]), Ep.zeros([0, 3]))


# bincount (issue 17, ops): NumPy's, counts int64, weighted sums of the
# weights' float type (int64 for integer and bool weights, where NumPy
# gives float64)

@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("minlength", [0, 3, 40])
@pytest.mark.numpy_op("bincount")
def test_bincount(rng, dtype, minlength):
    x = rng.integers(0, 12, 50).astype(dtype)
    assert_matches(Ep.bincount(x, minlength=minlength), np.bincount(x, minlength=minlength))
    assert_matches(Ep.astensor(x).bincount(minlength=minlength), np.bincount(x, minlength=minlength))


@pytest.mark.parametrize("wtype", DTYPES)
@pytest.mark.numpy_op("bincount")
def test_bincount_weights(rng, wtype):
    x = rng.integers(0, 7, 30)
    w = random_array(rng, (30,), wtype)
    expected = np.bincount(x, w.astype(np.float64), minlength=9)
    expected = expected.astype(wtype if wtype.startswith("float") else np.int64)
    assert_matches(Ep.bincount(x, w, minlength=9), expected, rtol=1e-5)


@pytest.mark.numpy_op("bincount")
def test_bincount_layouts_and_0_size(rng):
    x = rng.integers(0, 5, (4, 6)).astype(np.int64)
    for layout in LAYOUTS:
        row = x[1]
        assert_matches(Ep.bincount(as_layout(row, layout)), np.bincount(row))
        # (a one-element tensor carries every layout's name)
        assert_matches(Ep.bincount(as_layout(row[:1], layout), as_layout(np.array([2.5]), layout)),
                       np.bincount(row[:1], np.array([2.5])))
    w = random_array(rng, (6, 8), "float32")
    for _, t in layouts(w):
        assert_matches(Ep.bincount(x[1], t[:, 2]), np.bincount(x[1], t[:, 2].numpy()).astype(np.float32), rtol=1e-6)
    assert_matches(Ep.bincount(np.zeros(0, np.int64)), np.bincount(np.zeros(0, np.int64)))
    assert_matches(Ep.bincount(np.zeros(0, np.int64), minlength=4), np.bincount(np.zeros(0, np.int64), minlength=4))


def test_bincount_errors():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.bincount, np.array([1, 3, -2, -5]))
    assert "bincount" in message and "-2" in message and "2)" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.bincount, np.zeros((2, 3), np.int64))
    assert_ep_error(Ep.Error.SHAPE, Ep.bincount, np.int64(3))
    message = assert_ep_error(Ep.Error.SHAPE, Ep.bincount, np.array([1, 2]), np.ones(3))
    assert "(3,)" in message and "(2,)" in message
    assert_ep_error(Ep.Error.DTYPE, Ep.bincount, np.array([1.0, 2.0]))
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.bincount, np.array([1, 2]), None, -1)
    assert_ep_error(Ep.Error.OUT_OF_MEMORY, Ep.bincount, np.array([2**62]))


def test_bincount_has_no_gradient():
    w = Ep.astensor(np.ones(3))
    with Ep.GradientTape() as tape:
        tape.watch(w)
        y = Ep.bincount(np.array([0, 1, 1]), w).sum()
    grad = tape.gradient(y, [w])[0]
    assert grad is None or np.all(grad.numpy() == 0)


# histogram (issue 17, ops): NumPy's equal bins, counts and edges to the bit

@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("bins", [1, 5, 37])
@pytest.mark.parametrize("range_", [None, (-1.5, 2.25), (0.0, 0.0), (0.1, 0.7)])
@pytest.mark.numpy_op("histogram")
def test_histogram(rng, dtype, bins, range_):
    a = random_array(rng, (7, 23), dtype)
    if dtype.startswith("float"):
        a = a * np.asarray(1e-3, dtype) + np.asarray(7.3, dtype) if bins == 37 else a
        a.flat[:3] = [a.min(), a.max(), 0.7]   # on edges
    hist, edges = Ep.histogram(a, bins, range_)
    expected_hist, expected_edges = np.histogram(a, bins, range_)
    assert_matches(hist, expected_hist)
    assert_matches(edges, expected_edges, exact=True)


@pytest.mark.numpy_op("histogram")
def test_histogram_one_value_layouts_0d_and_0_size(rng):
    for a in (np.full(9, 3.3, np.float32), np.full(4, 5, np.int64), np.array(2.5), np.zeros((0, 3))):
        for got, expected in zip(Ep.histogram(a, 4), np.histogram(a, 4)):
            assert_matches(got, expected, exact=True)
    a = random_array(rng, (5, 8, 3), "float32")
    for _, t in layouts(a):
        for got, expected in zip(t.histogram(6), np.histogram(a, 6)):
            assert_matches(got, expected, exact=True)
        for got, expected in zip(Ep.histogram(t, 3, (-1, 1)), np.histogram(a, 3, (-1, 1))):
            assert_matches(got, expected, exact=True)


def test_histogram_errors():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.histogram, np.ones(3), 0)
    assert "histogram" in message and "0" in message
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.histogram, np.ones(3), -2)
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.histogram, np.ones(3), 2**62)
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.histogram, np.ones(3), 4, (2.0, 1.0))
    assert "[2, 1]" in message
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.histogram, np.ones(3), 4, (0.0, np.inf))
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.histogram, Ep.astensor(np.ones(3)), 4, (0.0, None))


def test_histogram_non_finite_data_without_range_counts_nothing():
    # NumPy refuses it; the composite reads nothing back
    hist, edges = Ep.histogram(np.array([1.0, np.nan, 2.0]), 2)
    assert np.all(hist.numpy() == 0) and np.all(np.isnan(edges.numpy()))
    hist, _ = Ep.histogram(np.array([1.0, np.nan, 2.0]), 2, (0, 2))
    assert_matches(hist, np.histogram(np.array([1.0, 2.0]), 2, (0, 2))[0])


def test_histogram_has_no_gradient():
    x = Ep.astensor(np.linspace(0, 1, 5))
    with Ep.GradientTape() as tape:
        tape.watch(x)
        _, edges = Ep.histogram(x, 3)
        y = edges.sum()
    grad = tape.gradient(y, [x])[0]
    assert grad is None or np.all(grad.numpy() == 0)
