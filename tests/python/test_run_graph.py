"""A graph saved from Python runs in C: examples/c/run-graph.c loads it.

The example makes its inputs from the saved signature (input i holds
(k + i) mod 5 at position k, unknown extents given on its command line);
this test makes the same inputs, runs the Python function eagerly on
them, and expects the example to print the same tensors, to the bit.
$EP_RUN_GRAPH is the example's path (tests/python/meson.build sets it).
"""

import os
import subprocess

import numpy as np
import pytest
from gi.repository import Ep, Gio

RUN_GRAPH = os.environ.get("EP_RUN_GRAPH")
pytestmark = pytest.mark.skipif(RUN_GRAPH is None, reason="EP_RUN_GRAPH is not set")


def example_input(shape, index, dtype):
    """What run-graph feeds input `index`"""
    size = int(np.prod(shape))
    return ((np.arange(size) + index) % 5).reshape(shape).astype(dtype)


def run(path, *args):
    result = subprocess.run([RUN_GRAPH, str(path), *args], capture_output=True, text=True, timeout=120)
    return result.returncode, result.stdout, result.stderr


def test_runs_a_graph_saved_from_python(tmp_path):
    weights = Ep.Variable.new(Ep.astensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)), "weights")
    offsets = Ep.astensor(np.array([1, -1, 2, -2], dtype=np.int64))

    def layer(inputs, n_inputs, user_data):
        x, scale = inputs
        hidden = (x @ weights.read()).tanh() * scale.astype(Ep.DType.FLOAT32)
        weights.assign_add(weights.read() * 0.5)
        return [hidden.softmax(axis=-1), hidden.argmax(axis=1) + offsets.sum()]

    signature = [Ep.TensorSpec.new([-1, 3], Ep.DType.FLOAT32), Ep.TensorSpec.new([], Ep.DType.INT64)]
    fn = Ep.Function.new_with_signature(layer, None, signature)
    # two batch sizes: the second shows that one graph serves every batch
    fn.call([Ep.astensor(np.zeros((2, 3), dtype=np.float32)), Ep.astensor(np.int64(1))])
    fn.call([Ep.astensor(np.zeros((1, 3), dtype=np.float32)), Ep.astensor(np.int64(1))])
    fn.save(signature, Gio.File.new_for_path(str(tmp_path / "layer.json")), None)
    saved_weights = weights.read().numpy()

    # what the example should print: the same function, eagerly
    inputs = [example_input((5, 3), 0, np.float32), example_input((), 1, np.int64)]
    weights.assign(Ep.astensor(saved_weights))
    expected = layer([Ep.astensor(a) for a in inputs], 2, None)
    lines = [f"output {o}: {t.to_string()}" for o, t in enumerate(expected)]
    lines.append(f"variable weights: {weights.read().to_string()}")

    code, out, err = run(tmp_path / "layer.json", "5")
    assert code == 0, err
    assert out == "\n".join(lines) + "\n"


def test_reports_errors(tmp_path):
    code, out, err = run(tmp_path / "missing.json")
    assert code == 1 and out == ""
    assert err.startswith("run-graph: load: ") and "missing.json" in err

    (tmp_path / "bad.json").write_text('{"format": "eager-glib-graph", "version": 2}')
    code, out, err = run(tmp_path / "bad.json")
    assert code == 1 and "newer eager-glib" in err


def test_runs_a_training_step_staged_with_ep_function(tmp_path):
    """The issue's end to end: a training step decorated with
    @Ep.function, saved, runs in C and moves the variables as the Python
    step does."""
    w = Ep.Variable(np.linspace(-0.5, 0.5, 24, dtype=np.float32).reshape(6, 4), name="w")
    b = Ep.Variable(np.zeros(4, np.float32), name="b")

    def step(x, y):
        with Ep.GradientTape() as tape:
            loss = (x @ w + b).crossentropy(y).mean()
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(dw * 0.5)
        b.assign_sub(db * 0.5)
        return loss

    staged = Ep.function(step)
    inputs = [example_input((3, 6), 0, np.float32), example_input((3,), 1, np.int64)]
    concrete = staged.get_concrete_function(*inputs)
    concrete.save(tmp_path / "step.json")
    saved = w.numpy(), b.numpy()
    assert staged.trace_count == 1

    # what the example should print: the step, eagerly, from the saved values
    loss = step(*[Ep.astensor(a) for a in inputs])
    lines = [f"output 0: {loss.to_string()}", f"variable w: {w.read().to_string()}",
             f"variable b: {b.read().to_string()}"]
    w.assign(saved[0])
    b.assign(saved[1])

    code, out, err = run(tmp_path / "step.json")
    assert code == 0, err
    assert out == "\n".join(lines) + "\n"
