"""Forward mode: Ep.ForwardAccumulator, Ep.jvp, Ep.hvp and the vectorised
jacobian against PyTorch (torch.autograd.functional.jvp and hvp,
torch.func.jacfwd) and central differences, for a table of functions:
several inputs, broadcasting, reductions, matmul, views, softmax,
convolution. Every op's forward rule is checked against differences in
tests/c/test-gradcheck.c.
"""

import os

import numpy as np
import pytest
import torch
from conftest import Ep, assert_ep_error

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


def _mlp(w, x):
    return (w @ x).tanh()


def _broadcast(a, b, c):
    return a * b + c / (b + 3.0)


def _reductions(x):
    return (x * x).sum(axis=1) + x.mean(axis=0).max() + x.exp().prod(axis=0).sum()


def _views(x):
    return x.reshape(4, 3).T[1:, ::2].flip(0)[::-1, 3::-2] * 2.0


def _softmax(x, y):
    return x.softmax(-1) * y.log_softmax(0)


def _conv(x, w):
    return Ep.conv2d(x, w).relu().mean(axis=(2, 3))


def _pieces(x, y):
    return Ep.concatenate([x.clip(-0.5, 0.5), Ep.where(x > 0, x, y).square()], axis=0).sqrt()


def _t_conv(x, w):
    return torch.nn.functional.conv2d(x, w).relu().mean(dim=(2, 3))


def _t_pieces(x, y):
    return torch.cat([x.clamp(-0.5, 0.5), torch.where(x > 0, x, y).square()], 0).sqrt()


# name: (ours, torch's, input shapes)
FUNCTIONS = {
    "mlp": (_mlp, _mlp, [(5, 4), (4,)]),
    "broadcast": (_broadcast, _broadcast, [(3, 4), (4,), (3, 1)]),
    "reductions": (_reductions,
                   lambda x: (x * x).sum(1) + x.mean(0).max() + x.exp().prod(0).sum(),
                   [(3, 4)]),
    "views": (_views, lambda x: x.reshape(4, 3).T[1:, ::2].flip(0).flip(0)[:, [1]] * 2.0, [(12,)]),
    "softmax": (_softmax, lambda x, y: x.softmax(-1) * y.log_softmax(0), [(3, 4), (3, 4)]),
    "conv": (_conv, _t_conv, [(2, 2, 5, 5), (3, 2, 3, 3)]),
    "pieces": (_pieces, _t_pieces, [(6,), (6,)]),
}


def _inputs(rng, shapes):
    return [rng.uniform(0.2, 1.5, shape) for shape in shapes]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_jvp_against_torch(name, rng):
    ours, theirs, shapes = FUNCTIONS[name]
    xs = _inputs(rng, shapes)
    vs = [rng.standard_normal(shape) for shape in shapes]

    out, tangent = Ep.jvp(ours, tuple(xs), tuple(vs))
    ref_out, ref_tangent = torch.autograd.functional.jvp(
        theirs, tuple(torch.tensor(x) for x in xs), tuple(torch.tensor(v) for v in vs))

    np.testing.assert_allclose(out.numpy(), ref_out.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(tangent.numpy(), ref_tangent.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_accumulator_against_differences(name, rng):
    ours, _, shapes = FUNCTIONS[name]
    xs = _inputs(rng, shapes)
    vs = [rng.standard_normal(shape) for shape in shapes]
    primals = [Ep.tensor(x) for x in xs]
    h = 1e-6

    with Ep.ForwardAccumulator(primals, vs) as acc:
        y = ours(*primals)
    plus = ours(*[Ep.tensor(x + h * v) for x, v in zip(xs, vs)]).numpy()
    minus = ours(*[Ep.tensor(x - h * v) for x, v in zip(xs, vs)]).numpy()

    np.testing.assert_allclose(acc.jvp(y).numpy(), (plus - minus) / (2 * h), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["mlp", "broadcast", "reductions", "softmax", "pieces"])
def test_hvp_against_torch(name, rng):
    ours, theirs, shapes = FUNCTIONS[name]
    xs = _inputs(rng, shapes)
    vs = [rng.standard_normal(shape) for shape in shapes]

    value, products = Ep.hvp(lambda *a: ours(*a).square().sum(), tuple(xs), tuple(vs))
    ref_value, ref_products = torch.autograd.functional.hvp(
        lambda *a: theirs(*a).square().sum(),
        tuple(torch.tensor(x) for x in xs), tuple(torch.tensor(v) for v in vs))

    np.testing.assert_allclose(value.numpy(), ref_value.numpy(), rtol=1e-10)
    for p, r in zip(products, ref_products):
        np.testing.assert_allclose(p.numpy(), r.numpy(), rtol=1e-8, atol=1e-10)


def test_hvp_single_input(rng):
    x = rng.standard_normal(4)
    v = rng.standard_normal(4)

    _, product = Ep.hvp(lambda a: (a ** 3).sum(), x, v)

    np.testing.assert_allclose(product.numpy(), 6 * x * v, rtol=1e-12)


@pytest.mark.parametrize("name", ["mlp", "broadcast", "views", "reductions", "softmax", "conv", "pieces"])
@pytest.mark.parametrize("mode", ["", "rows", "forward"])
def test_jacobian_against_torch(name, mode, rng, monkeypatch):
    ours, theirs, shapes = FUNCTIONS[name]
    xs = _inputs(rng, shapes)
    tensors = [Ep.tensor(x) for x in xs]
    monkeypatch.setenv("EP_JACOBIAN", mode)

    with Ep.GradientTape(persistent=True) as tape:
        tape.watch(tensors)
        y = ours(*tensors)
    jacobians = [tape.jacobian(y, t).numpy() for t in tensors]
    ref = torch.autograd.functional.jacobian(theirs, tuple(torch.tensor(x) for x in xs), vectorize=True)

    for j, r in zip(jacobians, ref):
        np.testing.assert_allclose(j, r.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("mode", ["", "rows"])
def test_batch_jacobian_against_torch(mode, rng, monkeypatch):
    x = rng.standard_normal((3, 4))
    w = rng.standard_normal((4, 5))
    monkeypatch.setenv("EP_JACOBIAN", mode)
    xt = Ep.tensor(x)

    with Ep.GradientTape() as tape:
        tape.watch(xt)
        y = (xt @ Ep.tensor(w)).tanh().softmax(-1)
    ours = tape.batch_jacobian(y, xt).numpy()
    ref = [torch.autograd.functional.jacobian(lambda r: (r @ torch.tensor(w)).tanh().softmax(-1),
                                              torch.tensor(row)).numpy() for row in x]

    np.testing.assert_allclose(ours, np.stack(ref), rtol=1e-9, atol=1e-12)


def test_forward_over_reverse_with_tapes(rng):
    # hvp by hand: the accumulator around the tape that takes the gradient
    x = Ep.tensor(rng.standard_normal(3))
    v = rng.standard_normal(3)

    with Ep.ForwardAccumulator(x, v) as acc:
        with Ep.GradientTape() as tape:
            tape.watch(x)
            y = x.sin().sum()
        g = tape.gradient(y, x)

    np.testing.assert_allclose(acc.jvp(g).numpy(), -np.sin(x.numpy()) * v, rtol=1e-12)


def test_record_and_lists(rng):
    x, y = Ep.tensor(rng.standard_normal(2)), Ep.tensor(rng.standard_normal(2))
    acc = Ep.ForwardAccumulator([x, y], [[1.0, 0.0], [0.0, 1.0]])

    z = acc.record(lambda: x * y)
    tangents = acc.jvp([z, x])

    assert isinstance(tangents, list)
    np.testing.assert_allclose(tangents[0].numpy(), [y.numpy()[0], x.numpy()[1]])
    np.testing.assert_allclose(tangents[1].numpy(), [1.0, 0.0])
    assert not acc.is_active()


def test_unconnected(rng):
    x = Ep.tensor(rng.standard_normal(2))

    with Ep.ForwardAccumulator(x, [1.0, 1.0]) as acc:
        c = Ep.tensor([1.0, 2.0]).exp()

    np.testing.assert_array_equal(acc.jvp(c).numpy(), [0.0, 0.0])
    assert acc.jvp(c, unconnected_gradients="none") is None


def test_staged_function(rng):
    f = Ep.function(lambda a: (a * a).sin())
    x = rng.standard_normal(3)
    f(Ep.tensor(x))

    _, tangent = Ep.jvp(f, (x,), (np.ones(3),))

    np.testing.assert_allclose(tangent.numpy(), 2 * x * np.cos(x * x), rtol=1e-12)


def test_errors():
    x = Ep.tensor([1.0, 2.0], dtype="float64")
    acc = Ep.ForwardAccumulator()

    assert "float32" in assert_ep_error(Ep.Error.DTYPE, acc.watch, x, Ep.tensor([1.0, 2.0], dtype="float32"))
    assert "(3,)" in assert_ep_error(Ep.Error.SHAPE, acc.watch, x, [1.0, 2.0, 3.0])
    assert "int64" in assert_ep_error(Ep.Error.DTYPE, acc.watch, Ep.tensor([1, 2]), [1, 2])
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, acc.watch, [x, x], [[1.0, 2.0]])
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.jvp, lambda a: a, (x,), ())
    assert "(2,)" in assert_ep_error(Ep.Error.SHAPE, Ep.hvp, lambda a: a * a, x, [1.0, 1.0])
    assert_ep_error(Ep.Error.GRADIENT, acc.stop)
    with pytest.raises(TypeError):
        acc.watch(Ep.Variable([1.0, 2.0]), [1.0, 1.0])
    released = Ep.tensor([1.0, 2.0])
    released.release()
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, acc.watch, released, [1.0, 1.0])


def test_exception_in_block_stops(rng):
    x = Ep.tensor(rng.standard_normal(2))
    acc = Ep.ForwardAccumulator(x, [1.0, 1.0])

    with pytest.raises(ZeroDivisionError):
        with acc:
            1 / 0

    assert not acc.is_active()


def test_jacobian_mode_is_a_lever(monkeypatch):
    # the per-row path stays reachable for comparisons (bench/jacobian.py)
    monkeypatch.setenv("EP_JACOBIAN", "rows")
    assert os.environ["EP_JACOBIAN"] == "rows"
    x = Ep.tensor([0.5, 1.0])
    with Ep.GradientTape() as tape:
        tape.watch(x)
        y = x.tanh()
    np.testing.assert_allclose(tape.jacobian(y, x).numpy(), np.diag(1 - np.tanh([0.5, 1.0]) ** 2))


def test_inside_a_staged_function(rng):
    # traced: the accumulator's tangent computations are ops of the graph,
    # replayed on other values
    @Ep.function
    def directional(a, t):
        with Ep.ForwardAccumulator(a, t) as acc:
            y = (a * a).sin()
        return acc.jvp(y)

    @Ep.function
    def hessian_vector(a, t):
        return Ep.hvp(lambda b: (b ** 3).sum(), a, t)[1]

    for scale in (1.0, 2.0):
        x = rng.standard_normal(3) * scale
        v = rng.standard_normal(3)
        np.testing.assert_allclose(directional(x, v).numpy(), 2 * x * np.cos(x * x) * v, rtol=1e-12)
        np.testing.assert_allclose(hessian_vector(x, v).numpy(), 6 * x * v, rtol=1e-12)
    assert directional.trace_count == 1 and hessian_vector.trace_count == 1
