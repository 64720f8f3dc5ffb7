"""An optimizer's state as named variables, for checkpoints: a fresh
optimizer restored before its first step continues exactly."""

import numpy as np
import pytest
from gi.repository import Gio

from conftest import Ep, assert_ep_error

NAMES = ["encoder.layers.0.weight", "encoder.layers.0.bias"]


def make_model():
    rng = np.random.default_rng(5)
    return [Ep.Variable(rng.standard_normal((3, 2)).astype(np.float32)),
            Ep.Variable(rng.standard_normal(2).astype(np.float32))]


def gradients(steps):
    rng = np.random.default_rng(6)
    return [[Ep.astensor(rng.standard_normal((3, 2)).astype(np.float32)),
             Ep.astensor(rng.standard_normal(2).astype(np.float32))] for _ in range(steps)]


OPTIMIZERS = [
    ("sgd", lambda: Ep.Sgd(learning_rate=0.1, momentum=0.9, dampening=0.2),
     ["momentum_buffer"]),
    ("adam", lambda: Ep.Adam(learning_rate=0.01, learning_rate_schedule=Ep.LinearWarmupSchedule.new(
        Ep.CosineDecaySchedule.new(0.01, 6, 0.0), 0.1, 3)), ["exp_avg", "exp_avg_sq"]),
    ("adamw", lambda: Ep.Adam.new_adamw(0.01, 0.1), ["exp_avg", "exp_avg_sq"]),
    ("rmsprop", lambda: Ep.Rmsprop(learning_rate=0.01, momentum=0.5, centered=True),
     ["square_avg", "momentum_buffer", "grad_avg"]),
    ("adagrad", lambda: Ep.Adagrad(learning_rate=0.1, learning_rate_decay=0.1,
                                   initial_accumulator_value=0.5), ["sum"]),
]


@pytest.mark.parametrize("name,make,slots", OPTIMIZERS, ids=[o[0] for o in OPTIMIZERS])
def test_names(name, make, slots):
    opt = make()
    state, state_names = opt.list_state(None, NAMES, make_model())
    assert state_names == ["optimizer.iterations"] + [
        f"optimizer.{n}.{s}" for n in NAMES for s in slots]
    assert len(state) == len(state_names)
    assert state[0] is opt.get_iterations_variable()


def test_prefix():
    _, state_names = Ep.Adam().list_state("opt2", ["w"], make_model()[:1])
    assert state_names == ["opt2.iterations", "opt2.w.exp_avg", "opt2.w.exp_avg_sq"]


def test_missing_slots_are_made_as_the_first_step_starts():
    model = make_model()
    opt = Ep.Adagrad(initial_accumulator_value=0.25)
    state, _ = opt.list_state(None, NAMES, model)
    np.testing.assert_array_equal(np.asarray(opt.get_slot(model[0], "sum").read()), np.full((3, 2), 0.25))
    assert state[1] is opt.get_slot(model[0], "sum")


def test_plain_sgd_has_only_the_step_count():
    _, state_names = Ep.Sgd(learning_rate=0.1).list_state(None, NAMES, make_model())
    assert state_names == ["optimizer.iterations"]


def test_integer_variables_have_no_state():
    counter = Ep.Variable(np.zeros(2, np.int64))
    _, state_names = Ep.Adam().list_state(None, ["counter"], [counter])
    assert state_names == ["optimizer.iterations"]


def test_mismatched_lengths():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Adam().list_state, None, ["a", "b"],
                              make_model()[:1])
    assert "list_state: 2 names for 1 variables" in message


@pytest.mark.parametrize("name,make,slots", OPTIMIZERS, ids=[o[0] for o in OPTIMIZERS])
def test_restored_training_continues_exactly(tmp_path, name, make, slots):
    grads = gradients(10)
    # 10 steps uninterrupted
    straight = make_model()
    opt = make()
    for g in grads:
        opt.apply_gradients(g, straight)
    # 5 steps, saved
    model = make_model()
    opt = make()
    for g in grads[:5]:
        opt.apply_gradients(g, model)
    path = Gio.File.new_for_path(str(tmp_path / "ckpt.safetensors"))
    state, state_names = opt.list_state(None, NAMES, model)
    Ep.checkpoint_save(NAMES + state_names, model + list(state), path, None)
    # a fresh model and optimizer, restored before their first step
    fresh = [Ep.Variable(np.zeros((3, 2), np.float32)), Ep.Variable(np.zeros(2, np.float32))]
    fresh_opt = make()
    state, state_names = fresh_opt.list_state(None, NAMES, fresh)
    Ep.checkpoint_restore(NAMES + state_names, fresh + list(state), path, Ep.CheckpointFlags.NONE, None)
    assert fresh_opt.props.iterations == 5
    for g in grads[5:]:
        fresh_opt.apply_gradients(g, fresh)
    for a, b in zip(straight, fresh):
        np.testing.assert_array_equal(np.asarray(a.read()), np.asarray(b.read()))
    assert fresh_opt.props.iterations == 10
