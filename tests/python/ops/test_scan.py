"""The scan family against NumPy: cumsum and cumprod along every axis or
flattened, on every dtype, 0-d, 0-size and non-contiguous inputs, with
their errors (cumprod's gradient with zeros against torch.autograd)
(and in test_reduce.py, test_0d_along_an_axis: a 0-d tensor along an
axis); diff of every order and axis, its errors, and its gradient
against torch.autograd (finite differences in test_gradcheck.py).
"""

import numpy as np
import pytest
import torch
from conftest import DTYPES, NARROW_INTS, Ep, assert_ep_error, assert_matches, layouts, random_array

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("shape", [(3, 4, 5), (0, 3, 2), (2, 3, 0)])
@pytest.mark.numpy_op("cumsum")
def test_cumsum(rng, dtype, axis, shape):
    a = random_array(rng, shape, dtype)
    assert_matches(Ep.astensor(a).cumsum(axis=axis), np.cumsum(a, axis=axis))


@pytest.mark.numpy_op("cumsum")
def test_cumsum_non_contiguous_and_scalar(rng):
    for dtype in ("float32", "int32", "bool"):
        a = random_array(rng, (4, 6, 3), dtype)
        for _, t in layouts(a):
            for axis in (None, 0, 1, 2):
                assert_matches(t.cumsum(axis=axis), np.cumsum(a, axis=axis))
    s = np.array(3, np.int32)
    assert_matches(Ep.astensor(s).cumsum(), np.cumsum(s))


# the narrow integer types accumulate in int64, as every integer type:
# NumPy gives int64 for int8 and int16 too, and uint64 for uint8, which
# has no type here (the same values for any tensor whose sums fit int64)

@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", NARROW_INTS)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.numpy_op("cumsum", "cumprod")
def test_scan_narrow_ints(rng, name, dtype, axis):
    a = random_array(rng, (3, 4, 5), dtype)
    expected = getattr(np, name)(a.astype(np.int64), axis=axis)
    if dtype != "uint8":
        assert getattr(np, name)(a, axis=axis).dtype == np.int64
    for _, t in layouts(a):
        assert_matches(getattr(t, name)(axis=axis), expected)


def test_cumsum_errors():
    message = assert_ep_error(Ep.Error.AXIS, Ep.Tensor.cumsum, Ep.zeros([2, 3]), 3)
    assert "cumsum" in message and "3" in message
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.cumsum, Ep.zeros([]), 1)
    # one axis or None, as NumPy's: several are a TypeError (the C function takes one)
    with pytest.raises(TypeError):
        Ep.zeros([2, 3]).cumsum([0, 1])
    with pytest.raises(TypeError):
        np.cumsum(np.zeros([2, 3]), (0, 1))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("shape", [(3, 4, 5), (0, 3, 2), (2, 3, 0)])
@pytest.mark.numpy_op("cumprod")
def test_cumprod(rng, dtype, axis, shape):
    a = random_array(rng, shape, dtype)
    assert_matches(Ep.astensor(a).cumprod(axis=axis), np.cumprod(a, axis=axis))


@pytest.mark.numpy_op("cumprod")
def test_cumprod_non_contiguous_scalar_and_wrapping(rng):
    for dtype in ("float32", "int32", "bool"):
        a = random_array(rng, (4, 6, 3), dtype)
        for _, t in layouts(a):
            for axis in (None, 0, 1, 2):
                assert_matches(t.cumprod(axis=axis), np.cumprod(a, axis=axis))
    s = np.array(3, np.int32)
    assert_matches(Ep.astensor(s).cumprod(), np.cumprod(s))
    # int64 products wrap around as NumPy's
    big = np.array([2**40, 2**30, 3, -7], np.int64)
    assert_matches(Ep.astensor(big).cumprod(), np.cumprod(big))


def test_cumprod_errors():
    message = assert_ep_error(Ep.Error.AXIS, Ep.Tensor.cumprod, Ep.zeros([2, 3]), -3)
    assert "cumprod" in message and "-3" in message
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.cumprod, Ep.zeros([]), 1)
    with pytest.raises(TypeError):
        Ep.zeros([2, 3]).cumprod([0, 1])


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("values", [
    [[1.5, -0.5, 2.0, 0.75], [0.5, 1.25, -1.5, 2.0]],   # no zero
    [[2.0, 0.0, 3.0, 4.0], [1.5, -2.0, 0.5, 0.0]],      # one zero in a row
    [[0.0, 1.5, 0.0, 2.0], [0.0, 0.0, 1.25, 0.0]],      # several zeros in a row
])
def test_cumprod_gradient_against_torch(rng, axis, values):
    a = np.array(values)
    out_shape = (a.size,) if axis is None else a.shape
    g = rng.standard_normal(out_shape)
    x = Ep.Variable(Ep.astensor(a))
    with Ep.GradientTape() as tape:
        loss = (x.cumprod(axis=axis) * Ep.astensor(g)).sum()
    grad = tape.gradient(loss, [x])[0]
    t = torch.tensor(a, requires_grad=True)
    y = torch.cumprod(t.reshape(-1), 0) if axis is None else torch.cumprod(t, axis)
    (y * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES + NARROW_INTS)
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("n", [0, 1, 2, 4, 5, 2**62])
@pytest.mark.numpy_op("diff")
def test_diff(rng, dtype, axis, n):
    a = random_array(rng, (3, 4), dtype)
    # NumPy takes differences n times even past the axis's end: the same
    # empty result as for the axis's length
    assert_matches(Ep.diff(a, n, axis=axis), np.diff(a, min(n, a.shape[axis]), axis=axis))


@pytest.mark.numpy_op("diff")
def test_diff_layouts_and_0_size(rng):
    for dtype in ("float32", "int32", "bool"):
        a = random_array(rng, (4, 6, 3), dtype)
        for _, t in layouts(a):
            for axis in (0, 1, 2):
                assert_matches(t.diff(axis=axis), np.diff(a, axis=axis))
                assert_matches(t.diff(2, axis=axis), np.diff(a, 2, axis=axis))
    for shape, axis in (((0, 3), 0), ((0, 3), 1), ((2, 1), 1)):
        z = np.ones(shape, np.float32)
        assert_matches(Ep.astensor(z).diff(2, axis=axis), np.diff(z, 2, axis=axis))


def test_diff_errors():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.diff, Ep.zeros([2, 3]), -1)
    assert "diff" in message and "-1" in message
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.diff, Ep.zeros([2, 3]), 1, 2)
    # NumPy: "diff requires input that is at least one dimensional"
    with pytest.raises(ValueError):
        np.diff(np.zeros(()))
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.diff, Ep.zeros([]))


@pytest.mark.parametrize("n, axis", [(1, -1), (2, 0), (3, 1)])
def test_diff_gradient_is_torchs(rng, n, axis):
    a = random_array(rng, (4, 5), "float64")
    weight = random_array(rng, np.diff(a, n, axis=axis).shape, "float64")
    t = Ep.astensor(a)
    with Ep.GradientTape() as tape:
        tape.watch(t)
        loss = (t.diff(n, axis=axis) * weight).sum()
    ref = torch.tensor(a, requires_grad=True)
    (torch.diff(ref, n, dim=axis) * torch.tensor(weight)).sum().backward()
    assert_matches(tape.gradient(loss, [t])[0], ref.grad.numpy())
