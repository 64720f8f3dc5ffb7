"""Staged calls replayed on a worker thread (Function.call_async).

The callback and the variables' update come on the caller's main
context; a cancelled call leaves every variable as it was. The C side is
tests/c/test-function-async.c.
"""

import threading

import numpy as np
import pytest
from gi.repository import Ep, Gio, GLib


def two_updates(a, b):
    def step(inputs, *_rest):
        total = a.read() + b.read()
        a.assign_add(inputs[0])
        b.assign(b.read() * 2)
        return [total]
    return Ep.Function.new(step)


def run_async(fn, inputs, cancellable=None, cancel_at_once=False):
    loop = GLib.MainLoop()
    outcome = {}

    def done(source, result, *_rest):
        outcome["thread"] = threading.current_thread()
        try:
            outcome["results"] = source.call_finish(result)
        except GLib.Error as error:
            outcome["error"] = error
        loop.quit()

    fn.call_async(inputs, cancellable, done)
    if cancel_at_once:
        cancellable.cancel()
    loop.run()
    assert outcome["thread"] is threading.current_thread()
    return outcome


@pytest.fixture
def step():
    one = Ep.astensor(np.float32(1))
    a, b = Ep.Variable.new(one, "a"), Ep.Variable.new(one, "b")
    return two_updates(a, b), a, b


def test_async_replay_updates_variables(step):
    fn, a, b = step
    x = Ep.astensor(np.float32(10))
    fn.call([x])                                   # traces: a = 11, b = 2
    outcome = run_async(fn, [x])
    assert outcome["results"][0].item() == 13.0
    assert (a.read().item(), b.read().item()) == (21.0, 4.0)
    assert fn.get_trace_count() == 1


def test_cancelled_call_changes_nothing(step):
    fn, a, b = step
    x = Ep.astensor(np.float32(10))
    fn.call([x])
    outcome = run_async(fn, [x], Gio.Cancellable(), cancel_at_once=True)
    assert outcome["error"].matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)
    assert (a.read().item(), b.read().item()) == (11.0, 2.0)


def test_host_callback_runs_on_the_callers_thread():
    threads = []

    def log(x):
        threads.append(threading.current_thread())
        return x

    fn = Ep.Function.new(lambda inputs, *_: [Ep.host_call(log, inputs[0]) * 2])
    x = Ep.astensor(np.float32(3))
    fn.call([x])
    outcome = run_async(fn, [x])
    assert outcome["results"][0].item() == 6.0
    assert threads == [threading.current_thread()] * 2
