"""Gradients through staged functions from Python, with the plain GI API:
Ep.Function.new(callback), where the callback gets (inputs, n_inputs) and
returns a list of tensors, and f.call([x]) returns a list. A tape around
a replayed call records it as one step, with a staged backward pass; a
tape inside the callback is staged with it. The C tests
(tests/c/test-function.c) check the same in more detail."""

import numpy as np
import pytest
from conftest import Ep, assert_ep_error

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


class Counted:
    """A callback for Ep.Function.new that counts its calls: replays must
    not call it."""

    def __init__(self, body):
        self.body = body
        self.calls = 0

    def __call__(self, inputs, n_inputs):
        self.calls += 1
        return list(self.body(*inputs[:n_inputs]))


def staged(body):
    counted = Counted(body)
    return Ep.Function.new(counted), counted


def gradients(f, inputs, sources, target=0, **tape_options):
    """The call (staged, or eager if f is a plain callable) under a tape
    watching the tensor sources; the gradient of output `target`."""
    with Ep.GradientTape(**tape_options) as tape:
        for source in sources:
            if isinstance(source, Ep.Tensor):
                tape.watch(source)
        outputs = f.call(inputs) if isinstance(f, Ep.Function) else list(f(*inputs))
    return tape.gradient(outputs[target], list(sources)), tape.watched_variables()


def model(w, b):
    def loss(x):
        return [(x @ w + b).tanh().sum()]
    return loss


def test_gradient_equals_eager_for_inputs_and_variables():
    rng = np.random.default_rng(1)
    w = Ep.Variable(rng.standard_normal((4, 3)).astype(np.float32), name="w")
    b = Ep.Variable(rng.standard_normal(3).astype(np.float32), name="b")
    x = Ep.astensor(rng.standard_normal((2, 4)).astype(np.float32))
    f, counted = staged(model(w, b))
    f.call([x])  # traced here
    for _ in range(3):
        (gx, gw, gb), watched = gradients(f, [x], [x, w, b])
        (ex, ew, eb), eager_watched = gradients(model(w, b), [x], [x, w, b])
        assert watched == eager_watched == (w, b)
        for staged_grad, eager_grad in [(gx, ex), (gw, ew), (gb, eb)]:
            assert staged_grad.numpy().tobytes() == eager_grad.numpy().tobytes()
    assert counted.calls == 1


def test_watch_accessed_variables_as_eagerly():
    w = Ep.Variable(np.array([1.0, 2.0], np.float32), name="w")

    def body(x):
        return [(x * w).sum()]
    f, _ = staged(body)
    x = Ep.astensor(np.array([3.0, 4.0], np.float32))
    f.call([x])
    (gw,), watched = gradients(f, [x], [w], watch_accessed_variables=False)
    assert watched == ()
    np.testing.assert_array_equal(gw.numpy(), [0.0, 0.0])
    (gw,), watched = gradients(f, [x], [w])
    assert watched == (w,)
    np.testing.assert_array_equal(gw.numpy(), [3.0, 4.0])


def test_second_derivative_of_cube():
    f, counted = staged(lambda x: [(x * x * x).sum()])
    x = Ep.astensor(np.array([2.0, 0.5, -1.0]))
    f.call([x])
    for _ in range(3):
        with Ep.GradientTape() as outer:
            outer.watch(x)
            with Ep.GradientTape() as inner:
                inner.watch(x)
                y, = f.call([x])
            dy = inner.gradient(y, x)
        d2y = outer.gradient(dy, x)
        np.testing.assert_allclose(dy.numpy(), 3 * x.numpy() ** 2)
        np.testing.assert_allclose(d2y.numpy(), 6 * x.numpy())
    assert counted.calls == 1


def test_dropout_backward_uses_the_forward_draw():
    """With x = 1, the first output is the uniform draw u and the gradient
    of its sum with respect to x is u: the draw of that replay."""
    def dropout(x):
        u = Ep.uniform(x.shape)
        return [x * u, u < 0.5]
    f, _ = staged(dropout)
    x = Ep.astensor(np.ones(32, np.float32))
    f.call([x])
    draws = []
    for _ in range(2):
        with Ep.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y, kept = f.call([x])
        assert kept.dtype == Ep.DType.BOOL
        for _ in range(2):
            Ep.uniform(32)  # the sequence moves on in between
            assert tape.gradient(y, x).numpy().tobytes() == y.numpy().tobytes()
        draws.append(y.numpy())
    assert not np.array_equal(draws[0], draws[1])


def test_integer_output_and_pass_through():
    f, _ = staged(lambda x, y: [x.argmax(), x, x * y])
    x = Ep.astensor(np.array([1.0, 3.0, 2.0], np.float32))
    y = Ep.astensor(np.array([4.0, 5.0, 6.0], np.float32))
    f.call([x, y])
    with Ep.GradientTape() as tape:
        tape.watch(x)
        tape.watch(y)
        index, same, product = f.call([x, y])
    assert index.item() == 1
    gx, gy = tape.gradient([same, product], [x, y])
    np.testing.assert_array_equal(gx.numpy(), 1 + y.numpy())
    np.testing.assert_array_equal(gy.numpy(), x.numpy())


def test_unconnected_output():
    f, _ = staged(lambda x, y: [x * 2, y * 3])
    x = Ep.astensor(np.array([1.0, 2.0], np.float32))
    y = Ep.astensor(np.array([3.0, 4.0], np.float32))
    f.call([x, y])
    with Ep.GradientTape(unconnected_gradients="none") as tape:
        tape.watch(x)
        tape.watch(y)
        _, second = f.call([x, y])
    gx, gy = tape.gradient(second, [x, y])
    assert gx is None
    np.testing.assert_array_equal(gy.numpy(), [3.0, 3.0])


def test_staged_training_step_matches_eager_bit_for_bit():
    rng = np.random.default_rng(2)
    w0 = rng.standard_normal((4, 3)).astype(np.float32)
    b0 = rng.standard_normal(3).astype(np.float32)
    x = Ep.astensor(rng.standard_normal((5, 4)).astype(np.float32))
    t = Ep.astensor(rng.standard_normal((5, 3)).astype(np.float32))

    def make_step(w, b):
        def step(x, t):
            with Ep.GradientTape() as tape:
                loss = (((x @ w + b).tanh() - t) ** 2).sum()
            gw, gb = tape.gradient(loss, [w, b])
            w.assign_sub(gw * 0.1)
            b.assign_sub(gb * 0.1)
            return [loss]
        return step

    eager_w, eager_b = Ep.Variable(w0, name="w"), Ep.Variable(b0, name="b")
    staged_w, staged_b = Ep.Variable(w0, name="w"), Ep.Variable(b0, name="b")
    eager_step = make_step(eager_w, eager_b)
    f, counted = staged(make_step(staged_w, staged_b))
    for _ in range(5):
        eager_loss, = eager_step(x, t)
        staged_loss, = f.call([x, t])
        assert staged_loss.numpy().tobytes() == eager_loss.numpy().tobytes()
        assert staged_w.numpy().tobytes() == eager_w.numpy().tobytes()
        assert staged_b.numpy().tobytes() == eager_b.numpy().tobytes()
    assert counted.calls == 1


def test_released_input_is_an_error():
    f, _ = staged(lambda x: [(x * x).sum()])
    x = Ep.astensor(np.array([1.0, 2.0], np.float32))
    f.call([x])
    with Ep.GradientTape() as tape:
        tape.watch(x)
        y, = f.call([x])
    x.release()
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, tape.gradient, y, x)
