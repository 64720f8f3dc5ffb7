"""Host callbacks (Ep.host_call): Python inside staged functions.

Each replay of a staged function calls the callback again on that call's
values and uses what it returns; the callback's own ops are not staged
or recorded; its gradient is the gradient callback's. The C side is
tests/c/test-host-call.c.
"""

import numpy as np
import pytest
from gi.repository import Ep, Gio

from conftest import assert_ep_error


def test_replays_call_back():
    seen = []

    def log(x):
        seen.append(x.numpy().copy())
        return x * 3

    @Ep.function
    def f(x):
        return Ep.host_call(log, x + 1) * 2

    for k in range(3):
        out = f(np.array([k, 10 * k], np.float32))
        np.testing.assert_array_equal(out.numpy(), [(k + 1) * 6, (10 * k + 1) * 6])
    assert f.trace_count == 1
    np.testing.assert_array_equal(np.array(seen), [[1, 1], [2, 11], [3, 21]])


def test_numpy_from_the_host():
    """Data the graph cannot express: the host answers with NumPy."""
    table = {0: 10.0, 1: 20.0}

    @Ep.function
    def f(i):
        looked_up = Ep.host_call(lambda t: np.array([table[int(v)] for v in t.numpy()], np.float32), i)
        return looked_up.sum()

    assert f(np.array([0, 1, 1], np.int64)).item() == 50.0
    table[1] = 1.0
    assert f(np.array([1, 1, 0], np.int64)).item() == 12.0
    assert f.trace_count == 1


def test_result_shapes():
    x = Ep.astensor(np.array([1.0, 2.0], np.float32))
    assert Ep.host_call(lambda a: None, x) is None
    single = Ep.host_call(lambda a: a + 1, x)
    assert isinstance(single, Ep.Tensor)
    pair = Ep.host_call(lambda a: [a, a * 2], x)
    assert isinstance(pair, tuple) and len(pair) == 2
    np.testing.assert_array_equal(pair[1].numpy(), [2, 4])


def test_exceptions_come_back():
    calls = []

    def flaky(x):
        calls.append(1)
        if len(calls) == 2:
            raise KeyError("the host gave up")
        return x

    f = Ep.function(lambda x: Ep.host_call(flaky, x) * 2)
    x = Ep.astensor(np.ones(2, np.float32))
    f(x)
    with pytest.raises(KeyError, match="the host gave up"):
        f(x)
    np.testing.assert_array_equal(f(x).numpy(), [2, 2])


def test_bad_results():
    x = Ep.astensor(np.ones(2, np.float32))
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.host_call, lambda a: "text", x)
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.host_call, lambda a: [a] * 5, x)
    assert "at most 4" in message
    with pytest.raises(TypeError):
        Ep.host_call(42, x)


def test_results_must_match_the_trace():
    shapes = iter([3, 4])
    f = Ep.function(lambda x: Ep.host_call(lambda a: np.zeros(next(shapes), np.float32), x).sum())
    x = Ep.astensor(np.ones(2, np.float32))
    f(x)
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, f, x)
    assert "float32 (4,), not float32 (3,)" in message


@pytest.mark.parametrize("staged", [False, True])
def test_gradient(staged):
    calls = []

    def gradient(inputs, output_gradients):
        calls.append(1)
        return output_gradients[0] * 3

    def body(x):
        return Ep.host_call(lambda a: a * 3, x + 1, gradient=gradient) * 2

    f = Ep.function(body) if staged else body
    x = Ep.astensor(np.array([1.0, 2.0], np.float32))
    for _ in range(2):
        with Ep.GradientTape() as tape:
            tape.watch(x)
            total = f(x).sum()
        np.testing.assert_array_equal(tape.gradient(total, x).numpy(), [6, 6])
    assert len(calls) == 2


def test_no_gradient_callback_no_history():
    x = Ep.astensor(np.array([1.0, 2.0], np.float32))
    with Ep.GradientTape() as tape:
        tape.watch(x)
        # the tape does not see the callback's own ops
        total = Ep.host_call(lambda a: a * a, x).sum()
    np.testing.assert_array_equal(tape.gradient(total, x).numpy(), [0, 0])


def test_cannot_be_saved(tmp_path):
    fn = Ep.Function.new(lambda inputs, *_: [Ep.host_call(lambda a: a, inputs[0])])
    fn.call([Ep.astensor(np.ones(2, np.float32))])
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, fn.save,
                              [Ep.TensorSpec.new([2], Ep.DType.FLOAT32)],
                              Gio.File.new_for_path(str(tmp_path / "g.json")), None)
    assert "host callback" in message
    assert not (tmp_path / "g.json").exists()
