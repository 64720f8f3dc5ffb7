"""The pool family against PyTorch (torch.nn.functional.max_pool2d and
avg_pool2d, their autograd gradients, return_indices) over a grid of
kernel sizes, strides, paddings, dilations, ceil_mode and
count_include_pad, in both data formats, float32 and float64, on
non-contiguous inputs and with NaN and infinities; the errors. The C
tests (tests/c/ops/pool.c) check hand-computed values and every error
path; tests/python/test_gradcheck.py the finite differences.
"""

import numpy as np
import pytest
from conftest import Ep, assert_ep_error, assert_matches, layouts, random_array

torch = pytest.importorskip("torch")
F = torch.nn.functional

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device

SHAPE = (2, 3, 7, 8)

# kernel_size, strides, padding, dilation, ceil_mode
MAX_GRID = [
    (2, None, 0, 1, False),
    (3, 2, 1, 1, False),
    (3, 2, 1, 1, True),
    (3, 1, 1, 2, False),
    (2, 3, 1, 2, True),
    ((2, 3), (1, 2), (1, 0), (1, 2), True),
    ((3, 1), (2, 1), (1, 0), 1, False),
    (4, 3, 2, 1, True),
]

# kernel_size, strides, padding, ceil_mode, count_include_pad
AVG_GRID = [
    (2, None, 0, False, True),
    (3, 2, 1, False, True),
    (3, 2, 1, False, False),
    (3, 2, 1, True, True),
    (3, 2, 1, True, False),
    ((2, 3), (1, 2), (1, 0), True, False),
    (4, 3, 2, True, True),
    (3, 1, 0, False, True),
]


def images(rng, dtype, special):
    a = random_array(rng, SHAPE, dtype)
    if special:
        a[0, 0, 1, 1] = np.nan
        a[0, 1, 2, 2:5] = np.nan
        a[1, 0, :3, :3] = -np.inf
        a[1, 2, 4, 4] = np.inf
        a[1, 1, 3, 3] = a[1, 1, 3, 4]  # a tie: the first one wins
    return a


def to_format(a, data_format):
    return np.ascontiguousarray(a.transpose(0, 2, 3, 1)) if data_format == "nhwc" else a


def from_format(a, data_format):
    return np.ascontiguousarray(a.transpose(0, 3, 1, 2)) if data_format == "nhwc" else a


def taped(f, x, g):
    with Ep.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return y, tape.gradient(y, [x], output_gradients=[Ep.astensor(g)])[0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("data_format", ["nchw", "nhwc"])
@pytest.mark.parametrize("params", MAX_GRID, ids=str)
@pytest.mark.parametrize("special", [False, True])
@pytest.mark.numpy_op("max_pool2d", "max_pool2d_indices", "max_pool2d_grad")
def test_max_pool2d(rng, dtype, data_format, params, special):
    k, s, p, d, ceil = params
    a = images(rng, dtype, special)
    x = torch.from_numpy(a.copy()).requires_grad_()
    expected, indices = F.max_pool2d(x, k, s, p, d, ceil_mode=ceil, return_indices=True)
    g = random_array(rng, tuple(expected.shape), dtype)
    expected.backward(torch.from_numpy(g))
    g_in = to_format(g, data_format)
    for _, t in layouts(to_format(a, data_format)):
        y, grad = taped(lambda t: t.max_pool2d(k, s, p, d, ceil, data_format), t, g_in)
        assert_matches(y, to_format(expected.detach().numpy(), data_format), exact=True)
        assert_matches(t.max_pool2d_indices(k, s, p, d, ceil, data_format),
                       to_format(indices.numpy(), data_format))
        assert_matches(grad, to_format(x.grad.numpy(), data_format))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("data_format", ["nchw", "nhwc"])
@pytest.mark.parametrize("params", AVG_GRID, ids=str)
@pytest.mark.numpy_op("avg_pool2d", "avg_pool2d_grad")
def test_avg_pool2d(rng, dtype, data_format, params):
    k, s, p, ceil, count_include_pad = params
    a = random_array(rng, SHAPE, dtype)
    x = torch.from_numpy(a.copy()).requires_grad_()
    expected = F.avg_pool2d(x, k, s, p, ceil_mode=ceil, count_include_pad=count_include_pad)
    g = random_array(rng, tuple(expected.shape), dtype)
    expected.backward(torch.from_numpy(g))
    g_in = to_format(g, data_format)
    for _, t in layouts(to_format(a, data_format)):
        y, grad = taped(lambda t: t.avg_pool2d(k, s, p, ceil, count_include_pad, data_format), t, g_in)
        assert_matches(y, to_format(expected.detach().numpy(), data_format))
        assert_matches(grad, to_format(x.grad.numpy(), data_format))
    direct = Ep.avg_pool2d_grad(g_in, to_format(a, data_format).shape, k, s, p, ceil,
                                count_include_pad, data_format)
    assert_matches(direct, to_format(x.grad.numpy(), data_format))


@pytest.mark.parametrize("params", [(2, None, 0, 1, False), (3, 2, 1, 2, True)], ids=str)
@pytest.mark.numpy_op("max_pool2d_grad")
def test_max_pool2d_grad_against_torch(rng, params):
    """The gradient op itself, on a non-contiguous incoming gradient"""
    k, s, p, d, ceil = params
    a = random_array(rng, SHAPE, "float64")
    x = torch.from_numpy(a.copy()).requires_grad_()
    y = F.max_pool2d(x, k, s, p, d, ceil_mode=ceil)
    g = random_array(rng, tuple(y.shape), "float64")
    y.backward(torch.from_numpy(g))
    for _, gt in layouts(g):
        assert_matches(Ep.astensor(a).max_pool2d_grad(gt, k, s, p, d, ceil), x.grad.numpy())


@pytest.mark.numpy_op("max_pool2d", "avg_pool2d")
def test_empty_batch(rng):
    a = random_array(rng, (0, 3, 6, 6), "float32")
    assert Ep.astensor(a).max_pool2d(2).shape == (0, 3, 3, 3)
    assert Ep.astensor(a).avg_pool2d(3, 2, 1, data_format="nhwc").shape == (0, 2, 3, 6)


def test_errors(rng):
    t = Ep.astensor(random_array(rng, SHAPE, "float32"))
    E = Ep.Error
    assert_ep_error(E.INVALID_ARGUMENT, lambda: t.max_pool2d(0))
    assert_ep_error(E.INVALID_ARGUMENT, lambda: t.max_pool2d(2, 0))
    assert_ep_error(E.INVALID_ARGUMENT, lambda: t.max_pool2d(2, 1, -1))
    assert_ep_error(E.INVALID_ARGUMENT, lambda: t.max_pool2d(3, 1, 2))
    assert_ep_error(E.INVALID_ARGUMENT, lambda: t.max_pool2d(2, 1, 0, 0))
    assert_ep_error(E.INVALID_ARGUMENT, lambda: t.avg_pool2d((2, 2, 2)))
    assert_ep_error(E.INVALID_ARGUMENT, lambda: t.avg_pool2d(2**63 - 1, 1, 2**62 - 1))
    assert_ep_error(E.SHAPE, lambda: t.avg_pool2d(9))
    assert_ep_error(E.SHAPE, lambda: t.max_pool2d(2, data_format="nhwc").max_pool2d(5, data_format="nhwc"))
    assert_ep_error(E.SHAPE, lambda: Ep.astensor(np.zeros((3, 4, 4), np.float32)).max_pool2d(2))
    assert_ep_error(E.DTYPE, lambda: Ep.astensor(np.zeros((1, 1, 4, 4), np.int32)).avg_pool2d(2))
    assert_ep_error(E.SHAPE, lambda: t.max_pool2d_grad(t, 2))
    assert_ep_error(E.SHAPE, lambda: Ep.avg_pool2d_grad(t, (2, 3, 7), 2))
