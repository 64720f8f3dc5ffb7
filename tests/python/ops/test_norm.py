"""The norm family against PyTorch: layer_norm and batch_norm (training
and inference, NCHW and NHWC, 2-D inputs), float32 and float64,
non-contiguous inputs, the batch statistics a layer updates its running
ones from, gradients against torch.autograd, and the errors. Finite
differences are in test_gradcheck.py and tests/c/test-gradcheck.c.
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from conftest import Ep, assert_ep_error, assert_matches, layouts, random_array

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device

FLOATS = ["float32", "float64"]


def tol(dtype):
    return {"rtol": 1e-4, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-10}


def torch_layer_norm(a, w, b, axis, eps):
    shape = a.shape[axis % a.ndim:]
    return F.layer_norm(torch.tensor(a), shape, torch.tensor(w), torch.tensor(b), eps).numpy()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, axis", [((4, 7), -1), ((2, 3, 5), 1), ((2, 3, 5), 0), ((6,), 0),
                                         ((3, 1000), -1), ((0, 4), -1)])
@pytest.mark.numpy_op("layer_norm")
def test_layer_norm(rng, dtype, shape, axis):
    a = random_array(rng, shape, dtype)
    w = random_array(rng, shape[axis % len(shape):], dtype)
    b = random_array(rng, shape[axis % len(shape):], dtype)
    expected = torch_layer_norm(a, w, b, axis, 1e-5)
    for _, t in layouts(a):
        assert_matches(t.layer_norm(w, b, axis=axis), expected, **tol(dtype))


@pytest.mark.numpy_op("layer_norm")
def test_layer_norm_epsilon_and_constant_rows():
    """A constant row gives the bias: 0 / sqrt (epsilon)."""
    a = np.array([[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]])
    w, b = np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.0, -0.5])
    expected = torch_layer_norm(a, w, b, -1, 0.25)
    assert_matches(Ep.astensor(a).layer_norm(w, b, epsilon=0.25), expected)
    assert_matches(Ep.astensor(a[:1]).layer_norm(w, b), b[None, :])


def torch_batch_norm(a, rm, rv, w, b, training, eps, data_format):
    x = torch.tensor(a)
    if data_format == "nhwc" and a.ndim > 2:
        x = x.movedim(-1, 1)
    rm_t, rv_t = torch.tensor(rm), torch.tensor(rv)
    y = F.batch_norm(x, rm_t if not training else None, rv_t if not training else None,
                     torch.tensor(w), torch.tensor(b), training=training, eps=eps)
    if data_format == "nhwc" and a.ndim > 2:
        y = y.movedim(1, -1)
    return y.numpy()


CASES = [((8, 3), "nchw"), ((4, 3, 5, 6), "nchw"), ((4, 5, 6, 3), "nhwc"), ((2, 3, 7), "nchw"),
         ((8, 3), "nhwc"), ((2, 4, 4, 4, 3), "nhwc")]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape, data_format", CASES)
@pytest.mark.numpy_op("batch_norm")
def test_batch_norm(rng, dtype, training, shape, data_format):
    c = shape[1] if data_format == "nchw" else shape[-1]
    a = random_array(rng, shape, dtype)
    rm = random_array(rng, (c,), dtype)
    rv = (random_array(rng, (c,), dtype) ** 2 + 0.5).astype(dtype)
    w = random_array(rng, (c,), dtype)
    b = random_array(rng, (c,), dtype)
    expected = torch_batch_norm(a, rm, rv, w, b, training, 1e-5, data_format)
    axes = tuple(d for d in range(len(shape)) if d != (1 if data_format == "nchw" else len(shape) - 1))
    mean = a.astype(np.float64).mean(axis=axes) if training else rm
    var = a.astype(np.float64).var(axis=axes) if training else rv
    for _, t in layouts(a):
        out, got_mean, got_var = t.batch_norm(rm, rv, w, b, training=training, data_format=data_format)
        assert_matches(out, expected, **tol(dtype))
        assert_matches(got_mean, mean.astype(dtype), **tol(dtype))
        assert_matches(got_var, var.astype(dtype), **tol(dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.numpy_op("batch_norm")
def test_batch_norm_running_update_is_torchs(rng, dtype):
    """The layer's update from the biased batch variance, var M / (M - 1),
    is torch's running_var update."""
    a = random_array(rng, (4, 3, 2, 5), dtype)
    rm, rv = np.zeros(3, dtype), np.ones(3, dtype)
    running_mean, running_var = torch.tensor(rm), torch.tensor(rv)
    F.batch_norm(torch.tensor(a), running_mean, running_var, training=True, momentum=0.1)
    _, mean, var = Ep.astensor(a).batch_norm(rm, rv, np.ones(3, dtype), np.zeros(3, dtype), training=True)
    m = a.size // 3
    np.testing.assert_allclose(0.9 * rm + 0.1 * mean.numpy(), running_mean.numpy(), **tol(dtype))
    np.testing.assert_allclose(0.9 * rv + 0.1 * var.numpy() * m / (m - 1), running_var.numpy(), **tol(dtype))


@pytest.mark.parametrize("shape", [(0, 2), (3, 2, 0), (0, 2, 4)])
@pytest.mark.numpy_op("batch_norm")
def test_batch_norm_empty_batch(shape):
    """No element per channel: NaN statistics, an empty output."""
    out, mean, var = Ep.astensor(np.zeros(shape, np.float32)).batch_norm(
        np.zeros(2), np.ones(2), np.ones(2), np.zeros(2), training=True)
    assert out.shape == shape
    assert np.isnan(mean.numpy()).all() and np.isnan(var.numpy()).all()


# gradients against torch.autograd

def grads(f_ep, f_torch, arrays, weight):
    tensors = [Ep.astensor(a) for a in arrays]
    with Ep.GradientTape() as tape:
        for t in tensors:
            tape.watch(t)
        loss = (f_ep(*tensors) * weight).sum()
    got = tape.gradient(loss, tensors)
    refs = [torch.tensor(a, requires_grad=True) for a in arrays]
    (f_torch(*refs) * torch.tensor(weight)).sum().backward()
    return got, [r.grad.numpy() for r in refs]


@pytest.mark.parametrize("dtype", FLOATS)
def test_layer_norm_gradient_is_torchs(rng, dtype):
    a = random_array(rng, (3, 4, 5), dtype)
    w, b = random_array(rng, (4, 5), dtype), random_array(rng, (4, 5), dtype)
    weight = random_array(rng, (3, 4, 5), dtype)
    got, expected = grads(lambda x, g, h: x.layer_norm(g, h, axis=1),
                          lambda x, g, h: F.layer_norm(x, (4, 5), g, h), [a, w, b], weight)
    for g, e in zip(got, expected):
        assert_matches(g, e, **tol(dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("data_format", ["nchw", "nhwc"])
def test_batch_norm_gradient_is_torchs(rng, dtype, training, data_format):
    a = random_array(rng, (4, 3, 2, 5), dtype)
    c = 3 if data_format == "nchw" else 5
    rm, rv = random_array(rng, (c,), dtype), (random_array(rng, (c,), dtype) ** 2 + 0.5).astype(dtype)
    w, b = random_array(rng, (c,), dtype), random_array(rng, (c,), dtype)
    weight = random_array(rng, a.shape, dtype)

    def ep_f(x, g, h):
        return x.batch_norm(rm, rv, g, h, training=training, data_format=data_format)[0]

    def torch_f(x, g, h):
        x_nc = x.movedim(-1, 1) if data_format == "nhwc" else x
        y = F.batch_norm(x_nc, None if training else torch.tensor(rm), None if training else torch.tensor(rv),
                         g, h, training=training)
        return y.movedim(1, -1) if data_format == "nhwc" else y

    got, expected = grads(ep_f, torch_f, [a, w, b], weight)
    for g, e in zip(got, expected):
        assert_matches(g, e, **tol(dtype))


def test_layer_norm_second_derivative_is_torchs(rng):
    """The rule is made of public ops: a nested tape differentiates it."""
    a = random_array(rng, (2, 6), "float64")
    w, b = np.full(6, 1.5), np.zeros(6)
    x = Ep.astensor(a)
    with Ep.GradientTape() as outer:
        outer.watch(x)
        with Ep.GradientTape() as inner:
            inner.watch(x)
            y = (x.layer_norm(w, b) ** 3).sum()
        g = inner.gradient(y, [x])[0]
        s = (g * g).sum()
    got = outer.gradient(s, [x])[0]
    ref = torch.tensor(a, requires_grad=True)
    y_t = (F.layer_norm(ref, (6,), torch.tensor(w), torch.tensor(b)) ** 3).sum()
    (g_t,) = torch.autograd.grad(y_t, ref, create_graph=True)
    (g_t * g_t).sum().backward()
    assert_matches(got, ref.grad.numpy(), rtol=1e-8, atol=1e-8)


# errors

def test_layer_norm_errors():
    x = Ep.astensor(np.ones((2, 3), np.float32))
    ones = np.ones(3, np.float32)
    for code, call in [
            (Ep.Error.SHAPE, lambda: x.layer_norm(np.ones(2), ones)),
            (Ep.Error.SHAPE, lambda: x.layer_norm(ones, ones, axis=0)),
            (Ep.Error.AXIS, lambda: x.layer_norm(ones, ones, axis=-3)),
            (Ep.Error.SHAPE, lambda: Ep.astensor(np.float32(1)).layer_norm(1.0, 1.0)),
            (Ep.Error.DTYPE, lambda: Ep.astensor(np.ones((2, 3), np.int64)).layer_norm(ones, ones)),
            (Ep.Error.DTYPE, lambda: x.layer_norm(np.ones(3, bool), ones)),
            (Ep.Error.INVALID_ARGUMENT, lambda: x.layer_norm(ones, ones, epsilon=-1e-5)),
            (Ep.Error.INVALID_ARGUMENT, lambda: x.layer_norm(ones, ones, epsilon=float("inf")))]:
        assert assert_ep_error(code, call).startswith("layer_norm:")


def test_batch_norm_errors():
    x = Ep.astensor(np.ones((2, 3, 4), np.float32))
    c3, c4 = np.ones(3, np.float32), np.ones(4, np.float32)
    for code, call in [
            (Ep.Error.SHAPE, lambda: x.batch_norm(c4, c3, c3, c3)),
            (Ep.Error.SHAPE, lambda: x.batch_norm(c3, c3, c3, c3, data_format="nhwc")),
            (Ep.Error.SHAPE, lambda: x.batch_norm(c3, c3, c3, np.ones((1, 3), np.float32))),
            (Ep.Error.SHAPE, lambda: Ep.astensor(c3).batch_norm(c3, c3, c3, c3)),
            (Ep.Error.DTYPE, lambda: x.batch_norm(c3, c3, c3, np.ones(3, np.int32))),
            (Ep.Error.INVALID_ARGUMENT, lambda: x.batch_norm(c3, c3, c3, c3, epsilon=-1.0)),
            (Ep.Error.INVALID_ARGUMENT, lambda: x.batch_norm(c3, c3, c3, c3, epsilon=float("nan")))]:
        assert assert_ep_error(code, call).startswith("batch_norm:")
