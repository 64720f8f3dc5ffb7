"""The views family against NumPy: reshape (and the composite flatten),
transpose (and the T property), expand_dims, squeeze, broadcast_to and
flip, on 0-d, 0-size and non-contiguous inputs; which results share their
input's storage; views with negative strides through the rest of the
library; every error path. slice is compared through Python's indexing
(x[...]), in ../test_indexing.py.
"""

import numpy as np
import pytest
from conftest import DTYPES, LAYOUTS, Ep, as_layout, assert_ep_error, assert_matches, layouts, random_array

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


@pytest.mark.parametrize("shape,new", [((2, 3, 4), (6, 4)), ((2, 3, 4), (-1,)), ((6,), (1, 2, 1, 3, 1)), ((0, 3), (3, -1)), ((1,), ())])
@pytest.mark.numpy_op("reshape")
def test_reshape(rng, shape, new):
    a = random_array(rng, shape, "float32")
    t = Ep.astensor(a)
    r = t.reshape(new)
    assert_matches(r, a.reshape(new))
    assert r.shares_storage(t)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("new", [(-1,), (5, 4), (2, 2, 5), (20, 1)])
@pytest.mark.numpy_op("reshape")
def test_reshape_non_contiguous(rng, layout, new):
    a = random_array(rng, (4, 5), "float32")
    assert_matches(as_layout(a, layout).reshape(new), a.reshape(new))


@pytest.mark.numpy_op("reshape")
def test_reshape_0d(rng):
    s = random_array(rng, (), "int32")
    for new in [(), (1,), (1, 1), (-1,), (1, -1, 1)]:
        assert_matches(Ep.astensor(s).reshape(new), s.reshape(new))


@pytest.mark.numpy_op("reshape")
def test_reshape_of_transpose_copies(rng):
    a = random_array(rng, (3, 4), "int32")
    t = Ep.astensor(a).T
    r = t.reshape(-1)
    assert_matches(r, a.T.reshape(-1))
    assert not r.shares_storage(t)


@pytest.mark.numpy_op("reshape")
def test_reshape_of_transpose_views_when_possible(rng):
    a = random_array(rng, (3, 4, 5), "int64")
    t = Ep.astensor(a).transpose(2, 0, 1)
    r = t.reshape(5, 3, 2, 2)
    assert_matches(r, a.transpose(2, 0, 1).reshape(5, 3, 2, 2))
    assert r.shares_storage(t)


def test_reshape_errors():
    t = Ep.zeros([2, 3])
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.reshape, t, [4, 2])
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.reshape, t, [-1, -1])
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.reshape, t, [4, -1])
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.reshape, t, [-2, 3])


@pytest.mark.parametrize("axes", [None, (1, 0, 2), (2, 0, 1), (-1, -2, -3)])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("transpose")
def test_transpose(rng, axes, layout):
    a = random_array(rng, (2, 3, 4), "float64")
    t = as_layout(a, layout)
    r = t.transpose(*(axes or ()))
    assert_matches(r, np.transpose(a, axes))
    assert r.shares_storage(t)


@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 0), (3, 4), (2, 3, 4)])
@pytest.mark.numpy_op("transpose")
def test_transpose_shapes(rng, shape):
    a = random_array(rng, shape, "bool")
    for _, t in layouts(a):
        assert_matches(t.transpose(), np.transpose(a))
        assert_matches(t.transpose(*reversed(range(a.ndim))), np.transpose(a))


@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 0), (3, 4), (2, 3, 4)])
@pytest.mark.numpy_op("T")
def test_T(rng, shape):
    a = random_array(rng, shape, "int32")
    for _, t in layouts(a):
        assert_matches(t.T, a.T)
        assert t.T.shares_storage(t)


def test_transpose_errors():
    t = Ep.zeros([2, 3])
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.transpose, t, [0])
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.transpose, t, [0, 0])
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.transpose, t, [0, 2])


@pytest.mark.parametrize("shape,axis", [((), 0), ((), -1), ((0,), 0), ((0,), 1), ((2, 0), 1)])
@pytest.mark.numpy_op("expand_dims", "squeeze")
def test_expand_dims_and_squeeze_0d_and_empty(rng, shape, axis):
    a = random_array(rng, shape, "float64")
    for _, t in layouts(a):
        e = t.expand_dims(axis)
        assert_matches(e, np.expand_dims(a, axis))
        assert_matches(e.squeeze(axis), a)
        assert_matches(t.squeeze(), np.squeeze(a))


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("expand_dims")
def test_expand_dims(rng, axis, layout):
    a = random_array(rng, (3, 4), "bool")
    r = as_layout(a, layout).expand_dims(axis)
    assert_matches(r, np.expand_dims(a, axis))


def test_expand_dims_errors():
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.expand_dims, Ep.zeros([2, 3]), 3)
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.expand_dims, Ep.zeros([1] * 8), 0)


@pytest.mark.parametrize("axis", [None, 0, (0, 2), -1])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("squeeze")
def test_squeeze(rng, axis, layout):
    a = random_array(rng, (1, 3, 1), "float32")
    assert_matches(as_layout(a, layout).squeeze(axis), np.squeeze(a, axis))
    b = random_array(rng, (3, 1, 4), "float32")
    assert_matches(as_layout(b, layout).squeeze(1), np.squeeze(b, 1))


def test_squeeze_of_non_1_axis_is_an_error():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.squeeze, Ep.zeros([1, 3]), [1])
    assert "squeeze" in message and "3" in message


SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("flatten")
def test_flatten(rng, shape, layout):
    a = random_array(rng, shape, "float32")
    t = as_layout(a, layout)
    ndim = max(a.ndim, 1)
    for start in range(-ndim, ndim):
        for end in range(-ndim, ndim):
            s, e = start % ndim, end % ndim
            if e < s:
                assert_ep_error(Ep.Error.AXIS, Ep.Tensor.flatten, t, start, end)
                continue
            if a.ndim == 0:
                expected = a.reshape(1)
            else:
                expected = a.reshape(a.shape[:s] + (int(np.prod(a.shape[s:e + 1])),) + a.shape[e + 1:])
            assert_matches(t.flatten(start, end), expected)


def test_flatten_is_a_view_of_contiguous_data(rng):
    t = Ep.astensor(random_array(rng, (2, 3, 4), "int32"))
    assert t.flatten().shares_storage(t)
    assert t.flatten().shape == (24,)


def test_flatten_errors():
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.flatten, Ep.zeros([2, 3]), 2, -1)
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.flatten, Ep.zeros([2, 3]), 0, -3)
    message = assert_ep_error(Ep.Error.AXIS, Ep.Tensor.flatten, Ep.zeros([2, 3, 4]), 2, 1)
    assert "flatten" in message


BROADCASTS = [((), (3, 2)), ((3,), (2, 3)), ((1,), (4,)), ((2, 1), (2, 5)), ((2, 1), (2, 0)),
              ((1, 3, 1), (2, 3, 4)), ((0,), (3, 0)), ((3,), (3,))]


@pytest.mark.parametrize("shape,target", BROADCASTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.numpy_op("broadcast_to")
def test_broadcast_to(rng, shape, target, dtype):
    a = random_array(rng, shape, dtype)
    t = Ep.astensor(a)
    r = t.broadcast_to(target)
    assert_matches(r, np.broadcast_to(a, target))
    assert r.shares_storage(t)


@pytest.mark.numpy_op("broadcast_to")
def test_broadcast_to_has_zero_strides_and_computes(rng):
    a = random_array(rng, (3, 1), "float64")
    r = Ep.astensor(a).broadcast_to(2, 3, 4)
    assert r.get_strides() == [0, 1, 0]
    assert_matches(r.sum(axis=0), np.broadcast_to(a, (2, 3, 4)).sum(axis=0))
    assert_matches(r @ Ep.ones((4, 2), "float64"), np.broadcast_to(a, (2, 3, 4)) @ np.ones((4, 2)))
    b = np.broadcast_to(a, (2, 3, 4))
    assert_matches(r.reshape(6, 4) @ r.T.reshape(4, 6), b.reshape(6, 4) @ b.T.reshape(4, 6))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("broadcast_to")
def test_broadcast_to_non_contiguous(rng, layout):
    a = random_array(rng, (4, 1), "int32")
    assert_matches(as_layout(a, layout).broadcast_to(3, 4, 5), np.broadcast_to(a, (3, 4, 5)))
    b = random_array(rng, (3, 4), "float64")
    assert_matches(as_layout(b, layout).broadcast_to(2, 3, 4), np.broadcast_to(b, (2, 3, 4)))


def test_broadcast_to_errors():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.broadcast_to, Ep.zeros([3]), [4])
    assert "(3,)" in message and "(4,)" in message and "broadcast_to" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.broadcast_to, Ep.zeros([2, 3]), [3])
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.broadcast_to, Ep.zeros([3]), [-1, 3])
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.broadcast_to, Ep.zeros([3]), [1] * 9)


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), (2, 1, 0)])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.numpy_op("flip")
def test_flip(rng, axis, dtype):
    a = random_array(rng, (2, 3, 4), dtype)
    t = Ep.astensor(a)
    r = t.flip(axis)
    assert_matches(r, np.flip(a, axis))
    assert r.shares_storage(t)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (4, 0), (3, 5)])
@pytest.mark.numpy_op("flip")
def test_flip_layouts_and_small_shapes(rng, layout, shape):
    a = random_array(rng, shape, "int64")
    assert_matches(as_layout(a, layout).flip(), np.flip(a))


@pytest.mark.numpy_op("flip", "matmul", "reshape", "sum", "add", "transpose", "astype")
def test_negative_strides_through_the_library(rng):
    a = random_array(rng, (4, 5), "float64")
    b = random_array(rng, (5, 3), "float64")
    fa, fb = Ep.astensor(a).flip(), Ep.astensor(b).flip(0)
    na, nb = np.flip(a), np.flip(b, 0)
    assert fa.get_strides() == [-5, -1]
    assert_matches(fa @ fb, na @ nb)
    assert_matches(fa.T @ fa, na.T @ na)
    assert_matches(fb.T @ Ep.astensor(a).flip(1).T, nb.T @ np.flip(a, 1).T)
    assert_matches(Ep.astensor(a[0]).flip() @ fb, np.flip(a[0]) @ nb)
    assert_matches(fa @ Ep.astensor(b[:, 0]).flip(), na @ np.flip(b[:, 0]))
    assert_matches(fa.reshape(20), na.reshape(20))
    assert_matches(fa.reshape(2, 2, 5), na.reshape(2, 2, 5))
    assert_matches(fa.sum(axis=1), na.sum(axis=1))
    assert_matches(fa + fa.T.T, na + na)
    assert_matches(fa.astype("int32"), na.astype("int32"))
    assert_matches(fa[::-2, 1:4], na[::-2, 1:4])
    assert_matches(fa.flip(), a)
    for dtype in ("int32", "int64", "bool"):
        ia = random_array(rng, (3, 4), dtype)
        ib = random_array(rng, (4, 2), dtype)
        assert_matches(Ep.astensor(ia).flip() @ Ep.astensor(ib).flip(), np.flip(ia) @ np.flip(ib))


@pytest.mark.numpy_op("flip", "reshape")
def test_reshape_of_flipped_rows_is_a_view():
    a = np.arange(12.0).reshape(3, 4)
    t = Ep.astensor(a).flip(0)
    r = t.reshape(3, 2, 2)
    assert_matches(r, np.flip(a, 0).reshape(3, 2, 2))
    assert r.shares_storage(t)


def test_flip_errors():
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.flip, Ep.zeros([2, 3]), [2])
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.flip, Ep.zeros([2, 3]), [0, -2])
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.flip, Ep.zeros([]), [0])
