"""The softmax family against NumPy references in float64: softmax,
log_softmax, logsumexp and crossentropy, on every dtype, 0-d, 0-size and
non-contiguous inputs, large values (stability), and the errors. The
axis errors of softmax and log_softmax are checked with sort's
(test_sort.py, test_one_axis_errors), logsumexp's with the reductions'
(test_reduce.py).
"""

import numpy as np
import pytest
from conftest import (AXES, DTYPES, LAYOUTS, Ep, as_layout, assert_ep_error, assert_matches, layouts,
                      logsumexp_reference, out_dtype, random_array)

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


def softmax_reference(a, axis):
    wide = a.astype(np.float64)
    e = np.exp(wide - wide.max(axis=axis, keepdims=True, initial=-np.inf))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax_reference(a, axis):
    wide = a.astype(np.float64)
    shifted = wide - wide.max(axis=axis, keepdims=True, initial=-np.inf)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("shape", [(3, 4, 5), (0, 2, 3), (2, 1, 1)])
@pytest.mark.numpy_op
def test_softmax(rng, name, dtype, axis, shape):
    a = random_array(rng, shape, dtype)
    ref = softmax_reference if name == "softmax" else log_softmax_reference
    expected = ref(a, axis).astype(out_dtype(dtype))
    for _, t in layouts(a):
        assert_matches(getattr(t, name)(axis=axis), expected)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.numpy_op
def test_softmax_is_stable(name, dtype):
    a = np.array([[1000.0, 999.0, -1000.0], [-1e4, -1e4 + 1, -1e4 + 2]], dtype)
    ref = softmax_reference if name == "softmax" else log_softmax_reference
    got = getattr(Ep.astensor(a), name)().numpy()
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, ref(a, -1).astype(dtype), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.numpy_op("logsumexp")
def test_logsumexp(rng, dtype, axis, keepdims):
    a = random_array(rng, (3, 4, 5), dtype)
    expected = logsumexp_reference(a, axis=axis, keepdims=keepdims).astype(out_dtype(dtype))
    for _, t in layouts(a):
        assert_matches(t.logsumexp(axis=axis, keepdims=keepdims), expected)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.numpy_op("logsumexp")
def test_logsumexp_0d(rng, dtype):
    s = random_array(rng, (), dtype)
    for axis in (None, ()):
        expected = logsumexp_reference(s, axis=axis if axis is None else (), keepdims=False)
        assert_matches(Ep.astensor(s).logsumexp(axis=axis), expected.astype(out_dtype(dtype)))


@pytest.mark.numpy_op("logsumexp")
def test_logsumexp_special_values(rng):
    a = np.array([[1000.0, 1000.0], [-np.inf, -np.inf], [np.inf, 1.0], [np.nan, 1.0], [-1e4, 3.0]])
    assert_matches(Ep.astensor(a).logsumexp(axis=1), logsumexp_reference(a, axis=1))
    empty = np.zeros((3, 0))
    assert_matches(Ep.astensor(empty).logsumexp(axis=1), np.full(3, -np.inf))
    b = random_array(rng, (5, 4), "float32")
    for _, t in layouts(b):
        assert_matches(t.logsumexp(axis=1), logsumexp_reference(b, axis=1).astype(np.float32))


# crossentropy

def crossentropy_reference(logits, labels):
    return -log_softmax_reference(logits, 1)[np.arange(len(labels)), labels]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("label_dtype", ["int32", "int64"])
@pytest.mark.parametrize("n,c", [(5, 3), (0, 4), (1, 1), (7, 10)])
@pytest.mark.numpy_op("crossentropy")
def test_crossentropy(rng, dtype, label_dtype, n, c):
    logits = random_array(rng, (n, c), dtype)
    labels = rng.integers(0, c, size=n).astype(label_dtype)
    expected = crossentropy_reference(logits, labels).astype(out_dtype(dtype))
    assert_matches(Ep.astensor(logits).crossentropy(Ep.astensor(labels)), expected)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("crossentropy")
def test_crossentropy_non_contiguous_and_stable(rng, layout):
    logits = random_array(rng, (6, 4), "float64")
    labels = np.array([0, 3, 2, 1, 2, 2])
    got = as_layout(logits, layout).crossentropy(as_layout(labels, layout))
    assert_matches(got, crossentropy_reference(logits, labels))
    big = np.array([[1000.0, -1000.0], [-1000.0, 1000.0]], np.float32)
    got = Ep.astensor(big).crossentropy(np.array([0, 0])).numpy()
    np.testing.assert_allclose(got, [0.0, 2000.0], rtol=1e-6)


def test_crossentropy_errors():
    logits = Ep.zeros([3, 4])
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.crossentropy, Ep.zeros([3]), Ep.astensor(np.zeros(3, np.int64)))
    assert "crossentropy" in message and "(3,)" in message
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.crossentropy, logits, Ep.astensor(np.zeros(2, np.int64)))
    assert "(2,)" in message and "(3, 4)" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.crossentropy, logits, Ep.astensor(np.zeros((3, 1), np.int64)))
    message = assert_ep_error(Ep.Error.DTYPE, Ep.Tensor.crossentropy, logits, Ep.zeros([3]))
    assert "float32" in message
    message = assert_ep_error(Ep.Error.INDEX, Ep.Tensor.crossentropy, logits, Ep.astensor(np.array([0, 4, 1])))
    assert "crossentropy" in message and "4" in message
    assert_ep_error(Ep.Error.INDEX, Ep.Tensor.crossentropy, logits, Ep.astensor(np.array([0, -1, 1], np.int32)))


# Losses: composites of the ops, against torch.nn.functional

REDUCTIONS = ["mean", "sum", "none"]


def torch_loss(name, x, t, reduction, **kwargs):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    function = {"softmax_crossentropy": F.cross_entropy, "sparse_softmax_crossentropy": F.cross_entropy,
                "sigmoid_crossentropy": F.binary_cross_entropy_with_logits,
                "mse_loss": F.mse_loss, "huber_loss": F.huber_loss}[name]
    return function(torch.from_numpy(x), torch.from_numpy(t), reduction=reduction, **kwargs).numpy()


def loss_targets(name, rng, shape):
    if name == "softmax_crossentropy":
        p = rng.random(shape)
        return p / p.sum(axis=-1, keepdims=True)
    if name == "sparse_softmax_crossentropy":
        return rng.integers(0, shape[-1], shape[0])
    if name == "sigmoid_crossentropy":
        return rng.random(shape)
    return rng.normal(size=shape) * 3


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["softmax_crossentropy", "sparse_softmax_crossentropy",
                                  "sigmoid_crossentropy", "mse_loss", "huber_loss"])
def test_loss_matches_torch(rng, name, reduction):
    x = rng.normal(size=(6, 5)) * 4
    t = loss_targets(name, rng, x.shape)
    kwargs = {"delta": 0.7} if name == "huber_loss" else {}
    got = getattr(Ep.astensor(x), name)(Ep.astensor(t), reduction=reduction, **kwargs)
    assert_matches(got, torch_loss(name, x, t, reduction, **kwargs), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["softmax_crossentropy", "sigmoid_crossentropy", "mse_loss", "huber_loss"])
def test_loss_float32_defaults_to_mean(rng, name):
    x = (rng.normal(size=(3, 4)) * 4).astype(np.float32)
    t = loss_targets(name, rng, x.shape).astype(np.float32)
    got = getattr(Ep.astensor(x), name)(Ep.astensor(t))
    assert got.shape == () and got.dtype == Ep.DType.FLOAT32
    assert_matches(got, torch_loss(name, x, t, "mean"), rtol=1e-5, atol=1e-6)


def test_sigmoid_crossentropy_is_stable_for_large_logits():
    x = np.array([-1000.0, 1000.0, 80.0, -80.0])
    t = np.array([1.0, 0.0, 1.0, 0.0])
    got = Ep.astensor(x).sigmoid_crossentropy(Ep.astensor(t), reduction="none")
    assert_matches(got, torch_loss("sigmoid_crossentropy", x, t, "none"), rtol=1e-12, atol=1e-12)


def test_softmax_crossentropy_over_the_last_axis_of_any_rank(rng):
    x = rng.normal(size=(2, 3, 4))
    p = loss_targets("softmax_crossentropy", rng, x.shape)
    got = Ep.astensor(x).softmax_crossentropy(Ep.astensor(p), reduction="none")
    expected = -(p * (x - logsumexp_reference(x, axis=-1, keepdims=True))).sum(axis=-1)
    assert_matches(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["softmax_crossentropy", "sparse_softmax_crossentropy",
                                  "sigmoid_crossentropy", "mse_loss", "huber_loss"])
def test_loss_gradient_matches_torch(rng, name):
    torch = pytest.importorskip("torch")
    x = rng.normal(size=(4, 3)) * 2
    t = loss_targets(name, rng, x.shape)
    kwargs = {"delta": 0.5} if name == "huber_loss" else {}
    ex = Ep.astensor(x)
    with Ep.GradientTape() as tape:
        tape.watch(ex)
        loss = getattr(ex, name)(Ep.astensor(t), **kwargs)
    grad = tape.gradient(loss, ex)
    tx = torch.tensor(x, requires_grad=True)
    F = torch.nn.functional
    function = {"softmax_crossentropy": F.cross_entropy, "sparse_softmax_crossentropy": F.cross_entropy,
                "sigmoid_crossentropy": F.binary_cross_entropy_with_logits,
                "mse_loss": F.mse_loss, "huber_loss": F.huber_loss}[name]
    function(tx, torch.from_numpy(t), **kwargs).backward()
    assert_matches(grad, tx.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_loss_errors():
    x = Ep.zeros([3, 4])
    for name in ["softmax_crossentropy", "sigmoid_crossentropy", "mse_loss", "huber_loss"]:
        message = assert_ep_error(Ep.Error.SHAPE, getattr(Ep.Tensor, name), x, Ep.zeros([3, 5]))
        assert message.startswith(name + ": ") and "(3, 5)" in message and "(3, 4)" in message
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.softmax_crossentropy, Ep.zeros([]), Ep.zeros([]))
    assert message.startswith("softmax_crossentropy: ")
    message = assert_ep_error(Ep.Error.INDEX, Ep.Tensor.sparse_softmax_crossentropy, x,
                              Ep.astensor(np.array([0, 4, 1])))
    assert message.startswith("sparse_softmax_crossentropy: ")
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.sparse_softmax_crossentropy, x,
                              Ep.astensor(np.array([0, 1])))
    assert message.startswith("sparse_softmax_crossentropy: ")
    assert_ep_error(Ep.Error.DTYPE, Ep.Tensor.sparse_softmax_crossentropy, x, Ep.zeros([3]))
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.huber_loss, x, x, 0.0)
    assert message.startswith("huber_loss: ")
