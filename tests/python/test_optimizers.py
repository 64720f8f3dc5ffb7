"""Optimizers against torch.optim on the same gradients, and their error
paths."""

import numpy as np
import pytest
from conftest import Ep, GLib, assert_ep_error

SHAPES = [(3, 4), (5,), ()]


def gradients(rng, steps, dtype):
    return [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(steps)]


def run_ours(opt, initial, grads):
    variables = [Ep.Variable(np.array(x), name=f"p{i}") for i, x in enumerate(initial)]
    for step in grads:
        opt.apply_gradients([Ep.astensor(g) for g in step], variables)
    return [np.asarray(v.read()) for v in variables]


def run_torch(make, initial, grads):
    torch = pytest.importorskip("torch")
    params = [torch.tensor(x, requires_grad=True) for x in initial]
    opt = make(params)
    for step in grads:
        for p, g in zip(params, step):
            p.grad = torch.tensor(g)
        opt.step()
    return [p.detach().numpy() for p in params]


CASES = [
    ("sgd", dict(learning_rate=0.1), lambda t, p: t.optim.SGD(p, lr=0.1)),
    ("sgd-momentum", dict(learning_rate=0.1, momentum=0.9),
     lambda t, p: t.optim.SGD(p, lr=0.1, momentum=0.9)),
    ("sgd-dampening", dict(learning_rate=0.05, momentum=0.8, dampening=0.3, weight_decay=0.01),
     lambda t, p: t.optim.SGD(p, lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.01)),
    ("sgd-nesterov", dict(learning_rate=0.1, momentum=0.9, nesterov=True, weight_decay=1e-3),
     lambda t, p: t.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-3)),
    ("adam", dict(learning_rate=1e-2), lambda t, p: t.optim.Adam(p, lr=1e-2)),
    ("adam-l2", dict(learning_rate=1e-2, beta1=0.8, beta2=0.99, epsilon=1e-6, weight_decay=0.1),
     lambda t, p: t.optim.Adam(p, lr=1e-2, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("adamw", dict(learning_rate=1e-2, weight_decay=0.05, decoupled_weight_decay=True),
     lambda t, p: t.optim.AdamW(p, lr=1e-2, weight_decay=0.05)),
    ("adam-beta1-small", dict(learning_rate=1e-2, beta1=0.3),
     lambda t, p: t.optim.Adam(p, lr=1e-2, betas=(0.3, 0.999))),
    ("rmsprop", dict(learning_rate=1e-2), lambda t, p: t.optim.RMSprop(p, lr=1e-2)),
    ("rmsprop-all", dict(learning_rate=1e-2, alpha=0.9, epsilon=1e-6, weight_decay=0.1,
                         momentum=0.8, centered=True),
     lambda t, p: t.optim.RMSprop(p, lr=1e-2, alpha=0.9, eps=1e-6, weight_decay=0.1,
                                  momentum=0.8, centered=True)),
    ("rmsprop-centered", dict(learning_rate=1e-3, centered=True),
     lambda t, p: t.optim.RMSprop(p, lr=1e-3, centered=True)),
    ("rmsprop-momentum", dict(learning_rate=1e-2, momentum=0.9, alpha=0.3),
     lambda t, p: t.optim.RMSprop(p, lr=1e-2, momentum=0.9, alpha=0.3)),
    ("adagrad", dict(learning_rate=1e-1), lambda t, p: t.optim.Adagrad(p, lr=1e-1)),
    ("adagrad-all", dict(learning_rate=1e-1, learning_rate_decay=0.05, weight_decay=0.1,
                         initial_accumulator_value=0.5, epsilon=1e-6),
     lambda t, p: t.optim.Adagrad(p, lr=1e-1, lr_decay=0.05, weight_decay=0.1,
                                  initial_accumulator_value=0.5, eps=1e-6)),
]

CLASSES = {"sgd": "Sgd", "adam": "Adam", "adamw": "Adam", "rmsprop": "Rmsprop", "adagrad": "Adagrad"}


def make_ours(name, kwargs):
    return getattr(Ep, CLASSES[name.split("-")[0]])(**kwargs)


@pytest.mark.on_every_device
@pytest.mark.parametrize("name,kwargs,make", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-12), (np.float32, 1e-5)])
def test_matches_torch(rng, name, kwargs, make, dtype, rtol):
    torch = pytest.importorskip("torch")
    initial = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    grads = gradients(rng, 8, dtype)
    ours = run_ours(make_ours(name, kwargs), initial, grads)
    theirs = run_torch(lambda p: make(torch, p), initial, grads)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * 1e-3)


def test_adamw_constructor_matches_properties():
    opt = Ep.Adam.new_adamw(1e-3, 0.01)
    assert opt.props.decoupled_weight_decay
    assert opt.props.weight_decay == 0.01
    assert opt.props.learning_rate == 1e-3


def test_step_count_and_slots():
    w = Ep.Variable(np.zeros(3), name="w")
    opt = Ep.Sgd(learning_rate=0.1, momentum=0.5)
    assert opt.props.iterations == 0
    assert opt.get_slot(w, "momentum_buffer") is None
    opt.apply_gradients([Ep.astensor(np.ones(3))], [w])
    opt.apply_gradients([Ep.astensor(np.ones(3))], [w])
    assert opt.props.iterations == 2
    slot = opt.get_slot(w, "momentum_buffer")
    np.testing.assert_array_equal(np.asarray(slot.read()), [1.5, 1.5, 1.5])
    assert not slot.props.trainable
    assert slot.props.name == "w/momentum_buffer"


def test_none_gradient_leaves_variable():
    w = Ep.Variable(np.ones(2))
    Ep.Sgd(learning_rate=1.0).apply_gradients([None], [w])
    np.testing.assert_array_equal(np.asarray(w.read()), [1.0, 1.0])


def test_learning_rate_can_change():
    w = Ep.Variable(np.zeros(1))
    opt = Ep.Sgd(learning_rate=1.0)
    opt.apply_gradients([Ep.astensor(np.ones(1))], [w])
    opt.props.learning_rate = 0.5
    opt.apply_gradients([Ep.astensor(np.ones(1))], [w])
    np.testing.assert_array_equal(np.asarray(w.read()), [-1.5])


def test_nothing_recorded_on_tape():
    w = Ep.Variable(np.array([2.0]))
    opt = Ep.Adam(learning_rate=0.1)
    with Ep.GradientTape(persistent=True) as tape:
        loss = (w.read() * w.read()).sum()
        g = tape.gradient(loss, w)
        opt.apply_gradients([g], [w])
        after = w.read().sum()
    assert tape.gradient(after, w).item() == 1.0


def test_eager_training_decreases_loss():
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((32, 3))
    x = Ep.astensor(xs)
    y = Ep.astensor(xs @ np.array([[1.0], [-2.0], [0.5]]))
    w = Ep.Variable(np.zeros((3, 1)), name="w")
    opt = Ep.Adam(learning_rate=0.1)
    losses = []
    for _ in range(30):
        with Ep.GradientTape() as tape:
            loss = ((x @ w - y) ** 2).mean()
        opt.apply_gradients([tape.gradient(loss, w)], [w])
        losses.append(loss.item())
    assert losses[-1] < 0.1 * losses[0]


def test_mismatched_lengths():
    w = Ep.Variable(np.zeros(2))
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Sgd().apply_gradients, [], [w])
    assert "0 gradients for 1 variables" in message


def test_shape_mismatch_changes_nothing():
    a = Ep.Variable(np.zeros(2))
    b = Ep.Variable(np.zeros(3))
    opt = Ep.Sgd(learning_rate=1.0)
    g = Ep.astensor(np.ones(2))
    message = assert_ep_error(Ep.Error.SHAPE, opt.apply_gradients, [g, g], [a, b])
    assert "gradient 1" in message
    np.testing.assert_array_equal(np.asarray(a.read()), [0.0, 0.0])
    assert opt.props.iterations == 0


def test_dtype_mismatch():
    w = Ep.Variable(np.zeros(2, np.float32))
    assert_ep_error(Ep.Error.DTYPE, Ep.Adam().apply_gradients, [Ep.astensor(np.ones(2))], [w])


def test_integer_variable():
    w = Ep.Variable(np.zeros(2, np.int32))
    message = assert_ep_error(Ep.Error.DTYPE, Ep.Sgd().apply_gradients,
                              [Ep.astensor(np.ones(2, np.int32))], [w])
    assert "floating-point" in message


def test_released_gradient():
    w = Ep.Variable(np.zeros(2))
    g = Ep.astensor(np.ones(2))
    g.release()
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Sgd().apply_gradients, [g], [w])


def test_nesterov_without_momentum():
    w = Ep.Variable(np.zeros(2))
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Sgd(nesterov=True).apply_gradients,
                              [Ep.astensor(np.ones(2))], [w])
    assert "Nesterov" in message


@pytest.mark.parametrize("cls", ["Sgd", "Adam", "Rmsprop", "Adagrad"])
def test_bare_object_steps(cls):
    opt = getattr(Ep, cls)()
    w = Ep.Variable(np.zeros(2))
    opt.apply_gradients([Ep.astensor(np.ones(2))], [w])
    assert np.all(np.asarray(w.read()) < 0)


@pytest.mark.parametrize("cls,kwargs,slots", [
    ("Rmsprop", dict(), ["square_avg"]),
    ("Rmsprop", dict(momentum=0.5, centered=True), ["square_avg", "momentum_buffer", "grad_avg"]),
    ("Adagrad", dict(initial_accumulator_value=0.25), ["sum"]),
    ("Adam", dict(), ["exp_avg", "exp_avg_sq"]),
])
def test_slot_names(cls, kwargs, slots):
    w = Ep.Variable(np.zeros(2), name="w")
    opt = getattr(Ep, cls)(**kwargs)
    opt.apply_gradients([Ep.astensor(np.ones(2))], [w])
    for name in slots:
        assert opt.get_slot(w, name).props.name == f"w/{name}"
    for name in {"square_avg", "momentum_buffer", "grad_avg", "sum", "exp_avg", "exp_avg_sq"} - set(slots):
        assert opt.get_slot(w, name) is None


def test_adagrad_sum_starts_at_initial_value():
    w = Ep.Variable(np.zeros(2), name="w")
    opt = Ep.Adagrad(learning_rate=0.1, initial_accumulator_value=0.75)
    opt.apply_gradients([Ep.astensor(np.array([1.0, 2.0]))], [w])
    np.testing.assert_array_equal(np.asarray(opt.get_slot(w, "sum").read()), [1.75, 4.75])


@pytest.mark.parametrize("cls", ["Rmsprop", "Adagrad"])
def test_fused_and_op_paths_agree_bitwise(rng, cls):
    """A variable whose value is shared (read and kept) takes the op path;
    one alone takes the fused loop: the two give the same bits."""
    kwargs = dict(momentum=0.7, centered=True, weight_decay=0.05) if cls == "Rmsprop" \
        else dict(learning_rate_decay=0.1, weight_decay=0.05, initial_accumulator_value=0.1)
    init = rng.standard_normal(64).astype(np.float32)
    grads = [rng.standard_normal(64).astype(np.float32) for _ in range(5)]
    fused = Ep.Variable(init.copy())
    by_ops = Ep.Variable(init.copy())
    opt_fused = getattr(Ep, cls)(learning_rate=0.01, **kwargs)
    opt_ops = getattr(Ep, cls)(learning_rate=0.01, **kwargs)
    kept = []
    for g in grads:
        opt_fused.apply_gradients([Ep.astensor(g)], [fused])
        kept.append(by_ops.read())
        opt_ops.apply_gradients([Ep.astensor(g)], [by_ops])
    np.testing.assert_array_equal(np.asarray(fused.read()), np.asarray(by_ops.read()))


def test_base_class_is_abstract():
    with pytest.raises(TypeError):
        Ep.Optimizer()
