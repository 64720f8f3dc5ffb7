"""Ep.Trainer: a staged training step run on a worker thread.

Progress and the callback come on the caller's main context; a cancelled
run stops between two steps. The C side is tests/c/test-trainer.c.
"""

import threading
import time

import numpy as np
import pytest
from gi.repository import Ep, Gio, GLib

TRUE_W = np.array([[2.0], [-3.0], [0.5]], dtype=np.float32)


def regression(seed=7, rows=64):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (rows, 3)).astype(np.float32)
    return x, x @ TRUE_W


def sgd_step(w, learning_rate=0.1):
    """The step as Ep.function: loss, gradient by a tape, SGD."""
    optimizer = Ep.Sgd(learning_rate=learning_rate)

    def step(x, y):
        with Ep.GradientTape() as tape:
            loss = ((x @ w.read() - y) ** 2).mean()
        optimizer.apply_gradients(tape.gradient(loss, [w]), [w])
        return loss
    return Ep.function(step)


def run(trainer, n_steps, cancellable=None, on_progress=None):
    loop = GLib.MainLoop()
    outcome = {"progress": [], "gap": 0.0}
    last = [time.monotonic()]

    def progress(_trainer, step, loss, rate):
        outcome["progress"].append((step, loss, rate, threading.current_thread()))
        if on_progress is not None:
            on_progress(_trainer)

    def tick():
        now = time.monotonic()
        outcome["gap"] = max(outcome["gap"], now - last[0])
        last[0] = now
        return GLib.SOURCE_CONTINUE

    def done(source, result, *_rest):
        outcome["thread"] = threading.current_thread()
        try:
            outcome["ok"] = source.run_finish(result)
        except GLib.Error as error:
            outcome["error"] = error
        loop.quit()

    handler = trainer.connect("progress", progress)
    timer = GLib.timeout_add(10, tick)
    trainer.run_async(n_steps, cancellable, done)
    loop.run()
    GLib.source_remove(timer)
    trainer.disconnect(handler)
    assert outcome["thread"] is threading.current_thread()
    return outcome


def test_trains_linear_regression_off_the_main_loop():
    x, y = regression()
    w = Ep.Variable(np.zeros((3, 1), np.float32), name="w")
    trainer = Ep.Trainer(sgd_step(w), x, y, batch_size=16)
    outcome = run(trainer, 400)
    assert outcome["ok"] is True
    np.testing.assert_allclose(w.read().numpy(), TRUE_W, atol=1e-3)
    steps = [p[0] for p in outcome["progress"]]
    assert steps[-1] == 400 and steps == sorted(steps)
    assert all(p[3] is threading.current_thread() for p in outcome["progress"])
    assert outcome["progress"][-1][1] < 1e-6
    assert trainer.props.step == 400 and not trainer.props.running


def test_cancel_stops_between_steps():
    x, y = regression()
    w = Ep.Variable(np.zeros((3, 1), np.float32), name="w")
    trainer = Ep.Trainer(sgd_step(w), x, y, batch_size=8, shuffle=False, progress_interval=0)
    cancellable = Gio.Cancellable()
    outcome = run(trainer, 10_000_000, cancellable, on_progress=lambda _t: cancellable.cancel())
    assert outcome["error"].matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)
    k = trainer.props.step
    assert 1 <= k < 10_000_000
    # the same k steps on this thread give the same weights
    w2 = Ep.Variable(np.zeros((3, 1), np.float32), name="w")
    again = Ep.Trainer(sgd_step(w2), x, y, batch_size=8, shuffle=False)
    assert again.run(k, None)
    np.testing.assert_array_equal(w.read().numpy(), w2.read().numpy())
    [snapshot] = trainer.snapshot_variables([w])
    np.testing.assert_array_equal(snapshot.numpy(), w.read().numpy())


def test_errors():
    x, y = regression()
    w = Ep.Variable(np.zeros((3, 1), np.float32), name="w")
    with pytest.raises(GLib.Error, match="batch size"):
        Ep.Trainer(sgd_step(w), x, y, batch_size=65).run(1, None)
    with pytest.raises(GLib.Error, match="samples"):
        Ep.Trainer(sgd_step(w), x, y[:10], batch_size=4).run(1, None)
    with pytest.raises(GLib.Error, match="step function"):
        Ep.Trainer().run(1, None)
    assert "already" in run_twice(Ep.Trainer(sgd_step(w), x, y, batch_size=8))


def run_twice(trainer):
    loop = GLib.MainLoop()
    errors = []

    def first(source, result, *_rest):
        source.run_finish(result)
        loop.quit()

    def second(source, result, *_rest):
        try:
            source.run_finish(result)
        except GLib.Error as error:
            errors.append(error.message)

    trainer.run_async(50, None, first)
    trainer.run_async(50, None, second)
    loop.run()
    return errors[0]


def test_device_list_model():
    devices = Ep.DeviceList.get_default()
    names = [d.props.name for d in devices]
    assert names == [d.get_name() for d in Ep.list_devices()]
    assert devices.get_n_items() == len(names)
    assert devices.props.current_device.get_name() == "cpu:0"
    seen = []
    devices.connect("notify::current-device", lambda obj, _p: seen.append(obj.props.current_device.get_name()))
    last = Ep.list_devices()[-1]
    with Ep.device(last.get_name()):
        assert devices.props.current_device == last
    if last.get_name() != "cpu:0":
        assert seen == [last.get_name(), "cpu:0"]
    assert devices.find(last) == len(names) - 1
    cpu = Ep.Device.get("cpu:0")
    before = cpu.props.bytes_in_use
    keep = Ep.zeros((1000,), dtype="float64")
    assert cpu.props.bytes_in_use >= before + 8000
    del keep
