"""The conv family against PyTorch: conv2d and its gradient ops
conv2d_input_grad and conv2d_weight_grad, over a grid of strides,
padding, dilation, groups and both data formats, in float32 and float64,
on non-contiguous and empty inputs, with gradients through tapes against
torch.autograd, and the errors. (NumPy has no convolution: PyTorch is the
reference here; the gradient checks by finite differences are in
tests/python/test_gradcheck.py.)
"""

import itertools

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from conftest import Ep, assert_ep_error, assert_matches, layouts, random_array

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device

# (images NCHW, weight, strides, padding, dilation, groups)
GEOMETRIES = [
    ((2, 3, 7, 6), (4, 3, 3, 3), 1, 0, 1, 1),
    ((2, 3, 7, 6), (4, 3, 3, 3), 1, 1, 1, 1),
    ((1, 4, 9, 8), (6, 2, 3, 2), 2, 1, 1, 2),
    ((2, 4, 8, 9), (4, 1, 3, 3), (2, 1), (1, 2), 1, 4),
    ((1, 2, 9, 9), (3, 2, 3, 3), 1, 2, 2, 1),
    ((2, 6, 10, 7), (6, 3, 2, 3), (1, 3), (0, 1), (3, 1), 2),
    ((3, 2, 5, 5), (2, 2, 1, 1), 2, 0, 1, 1),
    ((1, 3, 4, 4), (5, 3, 4, 4), 1, 0, 1, 1),
    ((1, 3, 4, 4), (2, 3, 5, 5), 3, 2, 1, 1),
]
FORMATS = ["nchw", "nhwc"]
FLOATS = ["float32", "float64"]


def pair(value):
    return tuple(value) if isinstance(value, tuple) else (value, value)


def to_format(a, fmt):
    """An NCHW array in `fmt`"""
    return a if fmt == "nchw" else np.ascontiguousarray(a.transpose(0, 2, 3, 1))


def from_format(a, fmt):
    return a if fmt == "nchw" else a.transpose(0, 3, 1, 2)


def tolerance(dtype):
    return dict(rtol=2e-4, atol=2e-4) if dtype == "float32" else dict(rtol=1e-10, atol=1e-10)


def torch_conv(x, w, strides, padding, dilation, groups, gy=None):
    """PyTorch's output, and with gy its input and weight gradients"""
    tx = torch.tensor(x, requires_grad=True)
    tw = torch.tensor(w, requires_grad=True)
    y = F.conv2d(tx, tw, stride=pair(strides), padding=pair(padding), dilation=pair(dilation), groups=groups)
    if gy is None:
        return y.detach().numpy()
    y.backward(torch.tensor(gy))
    return y.detach().numpy(), tx.grad.numpy(), tw.grad.numpy()


def kwargs(strides, padding, dilation, groups, fmt):
    return dict(strides=strides, padding=padding, dilation=dilation, groups=groups, data_format=fmt)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.numpy_op("conv2d")
def test_conv2d(rng, geometry, fmt, dtype):
    xs, ws, strides, padding, dilation, groups = geometry
    x = random_array(rng, xs, dtype)
    w = random_array(rng, ws, dtype)
    expected = torch_conv(x, w, strides, padding, dilation, groups)
    y = Ep.astensor(to_format(x, fmt)).conv2d(w, **kwargs(strides, padding, dilation, groups, fmt))
    assert_matches(y, to_format(expected, fmt), **tolerance(dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.numpy_op("conv2d_input_grad", "conv2d_weight_grad")
def test_gradient_ops(rng, geometry, fmt, dtype):
    xs, ws, strides, padding, dilation, groups = geometry
    x = random_array(rng, xs, dtype)
    w = random_array(rng, ws, dtype)
    y = torch_conv(x, w, strides, padding, dilation, groups)
    gy = random_array(rng, y.shape, dtype)
    _, dx, dw = torch_conv(x, w, strides, padding, dilation, groups, gy)
    args = kwargs(strides, padding, dilation, groups, fmt)
    shape = to_format(x, fmt).shape
    assert_matches(Ep.conv2d_input_grad(to_format(gy, fmt), w, shape, **args), to_format(dx, fmt),
                   **tolerance(dtype))
    assert_matches(Ep.conv2d_weight_grad(to_format(x, fmt), to_format(gy, fmt), ws, **args), dw,
                   **tolerance(dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("geometry", GEOMETRIES[1:6])
def test_tape_gradients_match_torch(rng, geometry, fmt, dtype):
    xs, ws, strides, padding, dilation, groups = geometry
    x = random_array(rng, xs, dtype)
    w = random_array(rng, ws, dtype)
    y = torch_conv(x, w, strides, padding, dilation, groups)
    gy = random_array(rng, y.shape, dtype)
    _, dx, dw = torch_conv(x, w, strides, padding, dilation, groups, gy)
    tx, tw = Ep.astensor(to_format(x, fmt)), Ep.astensor(w)
    with Ep.GradientTape() as tape:
        tape.watch([tx, tw])
        out = tx.conv2d(tw, **kwargs(strides, padding, dilation, groups, fmt))
    gx, gw = tape.gradient(out, [tx, tw], output_gradients=[Ep.astensor(to_format(gy, fmt))])
    assert_matches(gx, to_format(dx, fmt), **tolerance(dtype))
    assert_matches(gw, dw, **tolerance(dtype))


def test_second_derivative_matches_torch(rng):
    """d/dw of sum((d/dx sum(conv(x, w) * v))^2): through the gradient ops'
    own rules"""
    x = random_array(rng, (2, 4, 6, 5), "float64")
    w = random_array(rng, (4, 2, 3, 2), "float64")
    v = random_array(rng, (2, 4, 3, 6), "float64")
    args = dict(strides=(2, 1), padding=1, groups=2)
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    y = F.conv2d(tx, tw, stride=(2, 1), padding=1, groups=2)
    (gx,) = torch.autograd.grad((y * torch.tensor(v)).sum(), tx, create_graph=True)
    (expected,) = torch.autograd.grad((gx ** 2).sum(), tw)
    ex, ew = Ep.astensor(x), Ep.astensor(w)
    with Ep.GradientTape() as outer:
        outer.watch(ew)
        with Ep.GradientTape() as inner:
            inner.watch(ex)
            loss = (ex.conv2d(ew, **args) * Ep.astensor(v)).sum()
        grad_x = inner.gradient(loss, ex)
        total = (grad_x * grad_x).sum()
    assert_matches(outer.gradient(total, ew), expected.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.numpy_op("conv2d")
def test_conv2d_layouts(rng, fmt):
    """Transposed, step-sliced and flipped images and weights"""
    x = random_array(rng, (2, 3, 6, 7), "float32")
    w = random_array(rng, (4, 3, 3, 2), "float32")
    expected = to_format(torch_conv(x, w, 1, 1, 1, 1), fmt)
    for name, tx in layouts(to_format(x, fmt)):
        for wname, tw in layouts(w):
            y = tx.conv2d(tw, padding=1, data_format=fmt)
            assert_matches(y, expected, rtol=2e-4, atol=2e-4), (name, wname)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.numpy_op("conv2d", "conv2d_input_grad", "conv2d_weight_grad")
def test_empty(dtype):
    x = np.zeros((0, 2, 4, 4), dtype)
    w = np.ones((3, 2, 3, 3), dtype)
    y = Ep.astensor(x).conv2d(w)
    assert_matches(y, np.zeros((0, 3, 2, 2), dtype))
    assert_matches(Ep.conv2d_input_grad(y, w, x.shape), x)
    assert_matches(Ep.conv2d_weight_grad(x, y, w.shape), np.zeros(w.shape, dtype))
    # no input channels: sums of nothing
    assert_matches(Ep.astensor(np.zeros((1, 0, 3, 3), dtype)).conv2d(np.zeros((2, 0, 1, 1), dtype)),
                   np.zeros((1, 2, 3, 3), dtype))


def test_mixed_float_types_promote(rng):
    x = random_array(rng, (1, 2, 4, 4), "float32")
    w = random_array(rng, (1, 2, 2, 2), "float64")
    expected = torch_conv(x.astype("float64"), w, 1, 0, 1, 1)
    assert_matches(Ep.astensor(x).conv2d(w), expected)


@pytest.mark.parametrize("dtype", ["int32", "int64", "bool"])
def test_refuses_integers_and_bool(dtype):
    x = np.ones((1, 1, 3, 3), dtype)
    message = assert_ep_error(Ep.Error.DTYPE, Ep.Tensor.conv2d, Ep.astensor(x), np.ones((1, 1, 2, 2), np.float32))
    assert message.startswith("conv2d:") and dtype in message
    assert_ep_error(Ep.Error.DTYPE, Ep.conv2d_weight_grad, x, np.ones((1, 1, 2, 2), np.float32), (1, 1, 2, 2))


@pytest.mark.parametrize("bad, code", [
    (dict(strides=0), Ep.Error.INVALID_ARGUMENT),
    (dict(strides=(1, -1)), Ep.Error.INVALID_ARGUMENT),
    (dict(dilation=0), Ep.Error.INVALID_ARGUMENT),
    (dict(padding=-1), Ep.Error.INVALID_ARGUMENT),
    (dict(groups=0), Ep.Error.INVALID_ARGUMENT),
    (dict(groups=3), Ep.Error.SHAPE),
    (dict(strides=(1, 1, 1)), Ep.Error.INVALID_ARGUMENT),
    (dict(dilation=5), Ep.Error.SHAPE),
    (dict(dilation=2 ** 62), Ep.Error.SHAPE),
    (dict(padding=2 ** 62), Ep.Error.SHAPE),
    (dict(padding=2 ** 60), Ep.Error.OUT_OF_MEMORY),
])
def test_errors(bad, code):
    x = Ep.zeros([1, 4, 5, 5])
    w = Ep.zeros([2, 4, 2, 2])
    message = assert_ep_error(code, lambda: x.conv2d(w, **bad))
    assert message.startswith("conv2d: ")


@pytest.mark.parametrize("fmt", FORMATS)
def test_shape_errors(fmt):
    x = Ep.zeros([1, 4, 5, 5])
    w = Ep.zeros([2, 4, 2, 2])
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.conv2d, Ep.zeros([4, 5, 5]), w)
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.conv2d, x, Ep.zeros([2, 4, 2]))
    # the channels: 4 (NCHW) or 5 (NHWC) against a weight taking 3 or 4
    message = assert_ep_error(Ep.Error.SHAPE, lambda: x.conv2d(Ep.zeros([2, 3, 2, 2]) if fmt == "nchw" else w,
                                                               data_format=fmt))
    assert "channels" in message
    message = assert_ep_error(Ep.Error.SHAPE, lambda: Ep.conv2d_input_grad(Ep.zeros([1, 2, 3, 3]), w, [1, 4, 5, 5]))
    assert message.startswith("conv2d_input_grad: ") and "(1, 2, 4, 4)" in message
    message = assert_ep_error(Ep.Error.SHAPE, lambda: Ep.conv2d_weight_grad(x, Ep.zeros([1, 2, 4, 4]), [2, 4, 3, 3]))
    assert message.startswith("conv2d_weight_grad: ") and "(1, 2, 3, 3)" in message


def test_weight_layout_is_pytorch_whatever_the_format(rng):
    """A 1x1 convolution is a matrix product over the channels"""
    x = random_array(rng, (2, 3, 4, 5), "float64")
    w = random_array(rng, (6, 5, 1, 1), "float64")
    expected = np.einsum("nhwc,oc->nhwo", x, w[:, :, 0, 0])
    assert_matches(Ep.astensor(x).conv2d(w, data_format="nhwc"), expected)


@pytest.mark.parametrize("fmt", FORMATS)
def test_repeated_calls_agree(rng, fmt):
    """The kept primitives give the same bits every time, on several
    shapes in turn"""
    for shape in itertools.islice(itertools.cycle([(1, 3, 5, 5), (2, 3, 6, 4)]), 4):
        x = random_array(rng, shape, "float32")
        w = random_array(rng, (2, 3, 3, 3), "float32")
        tx = Ep.astensor(to_format(x, fmt))
        first = tx.conv2d(w, padding=1, data_format=fmt).numpy()
        np.testing.assert_array_equal(tx.conv2d(w, padding=1, data_format=fmt).numpy(), first)
        np.testing.assert_allclose(from_format(first, fmt), torch_conv(x, w, 1, 1, 1, 1), rtol=2e-4, atol=2e-4)
