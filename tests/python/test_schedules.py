"""Learning-rate schedules against torch.optim.lr_scheduler, schedules in
optimizers, and optimizers inside staged functions."""

import math

import numpy as np
import pytest
from conftest import Ep, assert_ep_error

STEPS = 60


def torch_values(make, steps=STEPS, lr=0.1):
    """The learning rate of each step of a torch scheduler made by @make."""
    torch = pytest.importorskip("torch")
    p = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([p], lr=lr)
    sched = make(torch.optim.lr_scheduler, opt)
    values = []
    for _ in range(steps):
        values.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return values


def ours(schedule, steps=STEPS):
    return [schedule.get_value(step) for step in range(steps)]


CASES = [
    ("constant", lambda: Ep.ConstantSchedule.new(0.1), lambda s, o: s.ConstantLR(o, factor=1.0)),
    ("constant-factor", lambda: Ep.ConstantSchedule(value=0.1, factor=0.25, total_steps=7),
     lambda s, o: s.ConstantLR(o, factor=0.25, total_iters=7)),
    ("step", lambda: Ep.StepDecaySchedule.new(0.1, 7, 0.5), lambda s, o: s.StepLR(o, 7, gamma=0.5)),
    ("step-one", lambda: Ep.StepDecaySchedule.new(0.1, 1, 0.9), lambda s, o: s.StepLR(o, 1, gamma=0.9)),
    ("cosine", lambda: Ep.CosineDecaySchedule.new(0.1, 20, 0.001),
     lambda s, o: s.CosineAnnealingLR(o, T_max=20, eta_min=0.001)),
    ("cosine-no-minimum", lambda: Ep.CosineDecaySchedule.new(0.1, 13, 0.0),
     lambda s, o: s.CosineAnnealingLR(o, T_max=13)),
    ("warmup-cosine", lambda: Ep.LinearWarmupSchedule.new(Ep.CosineDecaySchedule.new(0.1, 30, 0.0), 0.1, 10),
     lambda s, o: s.SequentialLR(o, [s.LinearLR(o, start_factor=0.1, total_iters=10),
                                     s.CosineAnnealingLR(o, T_max=30)], milestones=[10])),
    ("warmup-step", lambda: Ep.LinearWarmupSchedule.new(Ep.StepDecaySchedule.new(0.1, 5, 0.3), 0.25, 4),
     lambda s, o: s.SequentialLR(o, [s.LinearLR(o, start_factor=0.25, total_iters=4),
                                     s.StepLR(o, 5, gamma=0.3)], milestones=[4])),
]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name,make,make_torch", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(name, make, make_torch):
    # torch's schedulers step recursively: equal to the closed forms to rounding
    np.testing.assert_allclose(ours(make()), torch_values(make_torch), rtol=1e-12, atol=1e-15)


def test_warmup_defaults_are_torchs():
    warmup = Ep.LinearWarmupSchedule(schedule=Ep.ConstantSchedule.new(0.3))
    assert warmup.props.start_factor == pytest.approx(1 / 3)
    assert warmup.props.warmup_steps == 5
    assert warmup.get_value(0) == pytest.approx(0.1)


def test_warmup_without_schedule_is_nan():
    assert math.isnan(Ep.LinearWarmupSchedule().get_value(3))


class Halving(Ep.LearningRateSchedule):
    def do_get_value(self, step):
        return 0.5 ** (step // 2)


def test_python_subclass():
    assert ours(Halving(), 5) == [1.0, 1.0, 0.5, 0.5, 0.25]


def test_optimizer_uses_schedule_at_its_step_count():
    w = Ep.Variable(np.zeros(1), name="w")
    opt = Ep.Sgd(learning_rate_schedule=Halving())
    for _ in range(5):
        opt.apply_gradients([Ep.astensor(np.ones(1))], [w])
    # 1 + 1 + 0.5 + 0.5 + 0.25
    assert w.read().item() == -3.25
    assert opt.props.learning_rate == 0.25


@pytest.mark.parametrize("cls", ["Sgd", "Adam", "Rmsprop", "Adagrad"])
def test_schedule_matches_torch_scheduler(rng, cls):
    torch = pytest.importorskip("torch")
    init = rng.standard_normal(6)
    grads = [rng.standard_normal(6) for _ in range(12)]
    w = Ep.Variable(init.copy())
    opt = getattr(Ep, cls)(learning_rate_schedule=Ep.LinearWarmupSchedule.new(
        Ep.CosineDecaySchedule.new(0.05, 6, 0.001), 0.2, 3))
    p = torch.tensor(init.copy(), requires_grad=True)
    name = {"Sgd": "SGD", "Rmsprop": "RMSprop"}.get(cls, cls)
    topt = getattr(torch.optim, name)([p], lr=0.05)
    s = torch.optim.lr_scheduler
    sched = s.SequentialLR(topt, [s.LinearLR(topt, start_factor=0.2, total_iters=3),
                                  s.CosineAnnealingLR(topt, T_max=6, eta_min=0.001)], milestones=[3])
    for g in grads:
        opt.apply_gradients([Ep.astensor(g)], [w])
        p.grad = torch.tensor(g)
        topt.step()
        sched.step()
    np.testing.assert_allclose(np.asarray(w.read()), p.detach().numpy(), rtol=1e-12)


def test_bad_schedule_value_is_an_error():
    class Negative(Ep.LearningRateSchedule):
        def do_get_value(self, step):
            return -1.0

    w = Ep.Variable(np.zeros(1))
    opt = Ep.Adam(learning_rate_schedule=Negative())
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, opt.apply_gradients, [Ep.astensor(np.ones(1))], [w])
    assert "schedule gave -1" in message
    assert opt.props.iterations == 0
    assert w.read().item() == 0.0


def test_schedule_without_value_is_an_error():
    w = Ep.Variable(np.zeros(1))
    opt = Ep.Adam(learning_rate_schedule=Ep.LinearWarmupSchedule())
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, opt.apply_gradients, [Ep.astensor(np.ones(1))], [w])


def test_iterations_variable():
    opt = Ep.Adam()
    it = opt.get_iterations_variable()
    assert it.props.name == "iterations"
    assert not it.props.trainable
    w = Ep.Variable(np.zeros(2))
    opt.apply_gradients([Ep.astensor(np.ones(2))], [w])
    assert it.read().item() == 1
    assert np.asarray(it.read()).dtype == np.int64


def make_model(rng):
    return [Ep.Variable(rng.standard_normal((4, 3)).astype(np.float32), name="w"),
            Ep.Variable(np.zeros(3, np.float32), name="b")]


def training_step(model, opt):
    w, b = model

    def step(x, y):
        with Ep.GradientTape() as tape:
            loss = ((x @ w + b - y) ** 2).mean()
        opt.apply_gradients(tape.gradient(loss, [w, b]), [w, b])
        return loss

    return step


STAGED = [
    ("adam-warmup-cosine", lambda: Ep.Adam(learning_rate_schedule=Ep.LinearWarmupSchedule.new(
        Ep.CosineDecaySchedule.new(0.05, 5, 0.001), 0.1, 3))),
    ("adamw-step", lambda: Ep.Adam(weight_decay=0.1, decoupled_weight_decay=True,
                                   learning_rate_schedule=Ep.StepDecaySchedule.new(0.05, 2, 0.5))),
    ("sgd-dampening", lambda: Ep.Sgd(learning_rate=0.05, momentum=0.9, dampening=0.3)),
    ("rmsprop-centered", lambda: Ep.Rmsprop(learning_rate=0.01, momentum=0.5, centered=True,
                                            learning_rate_schedule=Halving())),
    ("adagrad-decay", lambda: Ep.Adagrad(learning_rate=0.1, learning_rate_decay=0.2,
                                         learning_rate_schedule=Ep.StepDecaySchedule.new(0.1, 3, 0.5))),
]


@pytest.mark.on_every_device
@pytest.mark.parametrize("name,make", STAGED, ids=[c[0] for c in STAGED])
def test_staged_step_equals_eager(name, make):
    """A training step staged with its optimizer moves the variables as
    the eager one, step after step: the step count and the learning rate
    of the schedule are read at each replay, not fixed by the trace."""
    rng = np.random.default_rng(3)
    eager_model, staged_model = make_model(rng), None
    staged_model = [Ep.Variable(np.asarray(v.read()).copy(), name=v.props.name) for v in eager_model]
    eager_opt, staged_opt = make(), make()
    eager = training_step(eager_model, eager_opt)
    staged = Ep.function(training_step(staged_model, staged_opt))
    for _ in range(8):
        x = Ep.astensor(rng.standard_normal((5, 4)).astype(np.float32))
        y = Ep.astensor(rng.standard_normal((5, 3)).astype(np.float32))
        assert eager(x, y).item() == staged(x, y).item()
        for a, b in zip(eager_model, staged_model):
            np.testing.assert_array_equal(np.asarray(a.read()), np.asarray(b.read()))
    assert staged.trace_count == 1
    assert staged_opt.props.iterations == eager_opt.props.iterations == 8
    assert staged_opt.props.learning_rate == eager_opt.props.learning_rate


def test_staged_step_sees_learning_rate_changes():
    rng = np.random.default_rng(4)
    model = make_model(rng)
    opt = Ep.Sgd(learning_rate=0.1)
    staged = Ep.function(training_step(model, opt))
    x = Ep.astensor(np.ones((2, 4), np.float32))
    y = Ep.astensor(np.zeros((2, 3), np.float32))
    staged(x, y)
    staged(x, y)
    before = np.asarray(model[1].read()).copy()
    opt.props.learning_rate = 0.0
    staged(x, y)
    np.testing.assert_array_equal(np.asarray(model[1].read()), before)


def test_apply_gradients_records_nothing_on_a_tape():
    w = Ep.Variable(np.array([1.0, 2.0]), name="w")
    for opt in (Ep.Sgd(learning_rate=0.1, momentum=0.9), Ep.Adam(learning_rate=0.1),
                Ep.Rmsprop(learning_rate=0.1, centered=True), Ep.Adagrad(learning_rate=0.1)):
        with Ep.GradientTape(persistent=True) as tape:
            opt.apply_gradients([Ep.astensor(np.ones(2))], [w])
            opt.apply_gradients([Ep.astensor(np.ones(2))], [w])
            after = (w.read() * 3.0).sum()
        # the update is not part of the history: d(3 w)/dw only
        np.testing.assert_array_equal(np.asarray(tape.gradient(after, w)), [3.0, 3.0])
