"""Ep.tidy, Ep.keep, Ep.dispose, Ep.memory and GradientTape.record (the
scopes are C's: core/memory.c; tests/c/test-memory.c has the rest)."""

import threading

import gi
import numpy as np
import pytest

gi.require_version("Ep", "1.0")
from gi.repository import Ep, GLib  # noqa: E402


def test_tidy_releases_all_but_the_result():
    x = Ep.astensor([1.0, 2.0])
    made = []

    def fn():
        made.append(x * 2)
        return made[0] + 1

    result = Ep.tidy(fn)
    assert made[0].is_released()
    assert not result.is_released()
    np.testing.assert_array_equal(result.numpy(), [3.0, 5.0])


def test_tidy_keeps_every_tensor_of_a_container():
    x = Ep.astensor([1.0])
    made = []

    def fn():
        made.append(x * 5)
        return {"a": x + 1, "b": [x + 2, (x + 3, None)], "n": 4}

    out = Ep.tidy(fn)
    assert made[0].is_released()
    assert [float(t) for t in (out["a"], out["b"][0], out["b"][1][0])] == [2.0, 3.0, 4.0]
    assert out["n"] == 4


def test_tidy_returning_none():
    x = Ep.astensor([1.0])
    made = []
    assert Ep.tidy(lambda: made.append(x.exp())) is None
    assert made[0].is_released()


def test_tidy_propagates_exceptions_and_closes():
    x = Ep.astensor([1.0])
    made = []

    def fn():
        made.append(x.exp())
        raise KeyError("inside")

    with pytest.raises(KeyError, match="inside"):
        Ep.tidy(fn)
    assert made[0].is_released()
    assert Ep.tidy_get_depth() == 0


def test_tidy_closes_scopes_left_open():
    def fn():
        Ep.tidy_begin()
        return Ep.astensor([1.0]) * 2

    assert float(Ep.tidy(fn)[0]) == 2.0
    assert Ep.tidy_get_depth() == 0


def test_tidy_needs_a_callable():
    with pytest.raises(TypeError, match="tidy"):
        Ep.tidy(3)


def test_nested_tidy_hands_the_result_out():
    x = Ep.astensor([1.0])
    inner = []

    def outer():
        inner.append(Ep.tidy(lambda: x * 3))
        assert not inner[0].is_released()
        return inner[0] + 1

    assert float(Ep.tidy(outer)[0]) == 4.0
    assert inner[0].is_released()


def test_keep_and_dispose_containers():
    x = Ep.astensor([1.0, 2.0])
    store = {}
    Ep.tidy(lambda: store.update(Ep.keep({"a": x * 2, "b": [x * 3]})))
    assert not store["a"].is_released() and not store["b"][0].is_released()
    Ep.dispose(store)
    assert store["a"].is_released() and store["b"][0].is_released()
    Ep.dispose(store)  # again: nothing happens
    Ep.dispose(None)


def test_variables_survive_tidy():
    w = Ep.Variable(Ep.astensor([1.0, 2.0]))

    def step():
        with Ep.GradientTape() as tape:
            loss = (w * w).sum()
        w.assign_sub(tape.gradient(loss, w) * 0.25)
        return loss

    for _ in range(2):
        Ep.tidy(step)
    np.testing.assert_allclose(w.numpy(), [0.25, 0.5])


def test_staged_function_traced_in_tidy_replays_after():
    @Ep.function
    def f(x):
        return x * Ep.ones(2) + 1

    x = Ep.astensor([1.0, 2.0])
    Ep.tidy(lambda: f(x))
    np.testing.assert_array_equal(f(x).numpy(), [2.0, 3.0])


def test_memory_counts_bytes_and_tensors():
    before = Ep.memory()
    x = Ep.zeros(256)
    after = Ep.memory()
    assert after.n_tensors - before.n_tensors == 1
    assert after.n_bytes - before.n_bytes == 1024
    assert after.devices["cpu:0"].n_bytes - before.devices["cpu:0"].n_bytes == 1024
    assert sum(d.n_bytes for d in after.devices.values()) == after.n_bytes
    Ep.dispose(x)
    assert Ep.memory().n_bytes == before.n_bytes


def test_memory_is_flat_over_a_tidy_loop():
    x = Ep.astensor(np.ones((8, 8), np.float32))
    Ep.tidy(lambda: (x @ x).exp().sum())
    before = Ep.memory()
    for _ in range(200):
        Ep.tidy(lambda: (x @ x).exp().sum())
    assert Ep.memory().n_tensors == before.n_tensors
    assert Ep.memory().n_bytes == before.n_bytes


def test_scope_is_per_thread():
    x = Ep.astensor([1.0])
    made = {}
    ready, done = threading.Event(), threading.Event()

    def other():
        made["t"] = x + 1
        ready.set()
        done.wait()

    thread = threading.Thread(target=other)
    scope = Ep.tidy_begin()
    thread.start()
    ready.wait()
    Ep.tidy_end(scope, [])
    done.set()
    thread.join()
    assert not made["t"].is_released()


def test_tidy_end_errors():
    with pytest.raises(GLib.Error, match="tidy_end: no tidy scope"):
        Ep.tidy_end(1, [])


def test_record_returns_and_stops():
    w = Ep.Variable(Ep.astensor([1.0, 2.0]))
    tape = Ep.GradientTape()
    loss = tape.record(lambda: (w * w).sum())
    assert not tape.is_active()
    np.testing.assert_array_equal(tape.gradient(loss, w).numpy(), [2.0, 4.0])


def test_record_stops_on_exceptions():
    tape = Ep.GradientTape()
    with pytest.raises(ZeroDivisionError):
        tape.record(lambda: 1 / 0)
    assert not tape.is_active()
