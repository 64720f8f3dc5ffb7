"""Staged functions saved from Python to graph files and loaded back.

A loaded function computes what NumPy computes (and what the traced
function does) without the Python code; the files are a versioned JSON
document and a standard safetensors file beside it; damaged files are
Ep.Error.FORMAT (or IO), never a crash. The C side of the same, with the
full corrupted-file suite, is tests/c/test-function-file.c.
"""

import json
import os
import struct

import numpy as np
import pytest
from gi.repository import Ep, Gio, GLib

from conftest import assert_ep_error, assert_matches


def gfile(path):
    return Gio.File.new_for_path(str(path))


def spec(shape, dtype=Ep.DType.FLOAT32):
    return Ep.TensorSpec.new(list(shape), dtype)


def norm_plus(inputs, n_inputs):
    x, y = inputs
    return [((x * x).sum() + y).sqrt() + 0.5]


def test_round_trip(tmp_path, rng):
    fn = Ep.Function.new(norm_plus)
    x = rng.random(4).astype(np.float32)
    fn.call([Ep.astensor(x), Ep.astensor(np.float32(2))])
    fn.save([spec([4]), spec([])], gfile(tmp_path / "norm.json"), None)
    assert (tmp_path / "norm.safetensors").exists()

    loaded = Ep.Function.load(gfile(tmp_path / "norm.json"), None)
    x2 = rng.random(4).astype(np.float32)
    [out] = loaded.call([Ep.astensor(x2), Ep.astensor(np.float32(3))])
    assert_matches(out, np.sqrt((x2 * x2).sum() + np.float32(3)) + np.float32(0.5))
    [traced] = fn.call([Ep.astensor(x2), Ep.astensor(np.float32(3))])
    assert out.numpy().tobytes() == traced.numpy().tobytes()
    assert loaded.get_trace_count() == 0
    assert [s.get_shape() for s in loaded.get_signature()] == [[4], []]


def test_integers_past_2_53_round_trip(tmp_path):
    """full's and arange's integer attributes stay exact in the file (as
    a string of digits past 2^53) and in the loaded function"""
    big = 2**60 + 1

    def shifted(inputs, n_inputs):
        [x] = inputs
        return [x + Ep.full((2,), big, "int64") + Ep.arange(big, big + 2, 1)]

    fn = Ep.Function.new(shifted)
    fn.call([Ep.astensor(np.array([5, 6], np.int64))])
    fn.save([spec([2], Ep.DType.INT64)], gfile(tmp_path / "big.json"), None)
    assert f'"{big}"' in (tmp_path / "big.json").read_text()

    loaded = Ep.Function.load(gfile(tmp_path / "big.json"), None)
    [out] = loaded.call([Ep.astensor(np.array([0, 1], np.int64))])
    assert out.numpy().tolist() == [2 * big, 2 * big + 2]


def test_training_step(tmp_path):
    """A loaded training step trains its own copy of the weights"""
    w = Ep.Variable.new(Ep.astensor(np.zeros(3, dtype=np.float64)), "w")

    def step(inputs, n_inputs):
        x, y = inputs
        with Ep.GradientTape() as tape:
            loss = ((x @ w.read() - y) ** 2).mean()
        [grad] = tape.gradient(loss, [w])
        w.assign_sub(grad * 0.1)
        return [loss]

    fn = Ep.Function.new(step)
    x = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=np.float64)
    y = x @ np.array([1.0, -2.0, 0.5])
    fn.call([Ep.astensor(x), Ep.astensor(y)])
    after_trace = w.read().numpy()
    fn.save([spec([4, 3], Ep.DType.FLOAT64), spec([4], Ep.DType.FLOAT64)], gfile(tmp_path / "step.json"), None)

    loaded = Ep.Function.load(gfile(tmp_path / "step.json"), None)
    [w2] = loaded.get_variables()
    assert w2.get_name() == "w"
    np.testing.assert_array_equal(w2.read().numpy(), after_trace)

    reference = after_trace.copy()
    for _ in range(20):
        [loss] = loaded.call([Ep.astensor(x), Ep.astensor(y)])
        residual = x @ reference - y
        np.testing.assert_allclose(loss.numpy(), (residual ** 2).mean(), rtol=1e-12)
        reference -= 0.1 * (2 * x.T @ residual / len(y))
    np.testing.assert_allclose(w2.read().numpy(), reference, rtol=1e-12)
    # the Python variable is not the loaded function's
    np.testing.assert_array_equal(w.read().numpy(), after_trace)


def test_relaxed_signature(tmp_path, rng):
    batch = spec([-1, 3])

    def rows(inputs, n_inputs, user_data):
        return [inputs[0].reshape(-1, 3).sum(axis=1) * 2]

    fn = Ep.Function.new_with_signature(rows, None, [batch])
    fn.call([Ep.astensor(np.ones((2, 3), dtype=np.float32))])
    with pytest.raises(GLib.Error, match="once a call with other extents"):
        fn.save([batch], gfile(tmp_path / "rows.json"), None)
    # a second batch size shows that one graph serves every batch
    fn.call([Ep.astensor(np.ones((4, 3), dtype=np.float32))])
    fn.save([batch], gfile(tmp_path / "rows.json"), None)
    loaded = Ep.Function.load(gfile(tmp_path / "rows.json"), None)

    for n in (1, 5, 0):
        x = rng.random((n, 3)).astype(np.float32)
        [out] = loaded.call([Ep.astensor(x)])
        assert_matches(out, x.sum(axis=1) * 2)
    assert_ep_error(Ep.Error.SHAPE, loaded.call, [Ep.astensor(np.ones((2, 2), dtype=np.float32))])


def test_random_draws_anew(tmp_path):
    def noisy(inputs, n_inputs):
        return [inputs[0] + Ep.uniform([1000], 0, 1, Ep.DType.FLOAT64)]

    fn = Ep.Function.new(noisy)
    zero = Ep.astensor(np.zeros(1000))
    fn.call([zero])
    fn.save([spec([1000], Ep.DType.FLOAT64)], gfile(tmp_path / "noise.json"), None)
    assert "seed" not in (tmp_path / "noise.json").read_text()

    loaded = Ep.Function.load(gfile(tmp_path / "noise.json"), None)
    a = loaded.call([zero])[0].numpy()
    b = loaded.call([zero])[0].numpy()
    assert ((a >= 0) & (a < 1)).all() and 0.4 < a.mean() < 0.6
    assert not np.array_equal(a, b)


def test_several_outputs(tmp_path, rng):
    def top(inputs, n_inputs):
        values, indices = inputs[0].topk(2)
        return [values, indices, inputs[0].argmax(axis=None)]

    fn = Ep.Function.new(top)
    fn.call([Ep.astensor(np.zeros((2, 5), dtype=np.float32))])
    fn.save([spec([2, 5])], gfile(tmp_path / "top.json"), None)
    loaded = Ep.Function.load(gfile(tmp_path / "top.json"), None)

    x = rng.permutation(10).reshape(2, 5).astype(np.float32)
    values, indices, flat = loaded.call([Ep.astensor(x)])
    order = np.argsort(-x, axis=1)[:, :2]
    assert_matches(values, np.take_along_axis(x, order, axis=1))
    assert_matches(indices, order.astype(np.int64))
    assert_matches(flat, np.int64(x.argmax()))


def read_safetensors(path):
    """A safetensors file read by the spec, with NumPy alone"""
    data = path.read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    body = data[8 + length:]
    kinds = {"F32": "<f4", "F64": "<f8", "I32": "<i4", "I64": "<i8", "BOOL": "?"}
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        tensors[name] = np.frombuffer(body[begin:end], dtype=kinds[entry["dtype"]]).reshape(entry["shape"])
    return length, header, tensors


def test_files_are_standard(tmp_path):
    """The document is the documented JSON; the tensors a safetensors file
    any reader takes"""
    bias = Ep.astensor(np.array([0.5, -1.5], dtype=np.float32))
    w = Ep.Variable.new(Ep.astensor(np.arange(6, dtype=np.float32).reshape(3, 2)), "weights")

    def affine(inputs, n_inputs):
        return [inputs[0] @ w.read() + bias]

    fn = Ep.Function.new(affine)
    fn.call([Ep.astensor(np.ones((4, 3), dtype=np.float32))])
    fn.save([spec([4, 3])], gfile(tmp_path / "affine.json"), None)

    document = json.loads((tmp_path / "affine.json").read_text())
    assert document["format"] == "eager-glib-graph" and document["version"] == 1
    assert document["inputs"] == [{"dtype": "float32", "shape": [4, 3], "trace_shape": [4, 3], "device": "cpu:0"}]
    assert [node["kind"] for node in document["nodes"]] == ["read", "op", "op"]
    assert [node.get("op") for node in document["nodes"]] == [None, "matmul", "add"]
    assert document["variables"][0]["name"] == "weights"

    length, header, tensors = read_safetensors(tmp_path / "affine.safetensors")
    assert length % 8 == 0
    assert header["__metadata__"] == {"format": "eager-glib-graph", "version": "1"}
    np.testing.assert_array_equal(tensors[document["constants"][0]["tensor"]], [0.5, -1.5])
    np.testing.assert_array_equal(tensors[document["variables"][0]["tensor"]],
                                  np.arange(6, dtype=np.float32).reshape(3, 2))


def test_save_errors(tmp_path):
    fn = Ep.Function.new(norm_plus)
    signature = [spec([4]), spec([])]
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, fn.save, signature, gfile(tmp_path / "g.json"), None)
    assert "call it with such inputs first" in message
    bare = Ep.Function()
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, bare.save, signature, gfile(tmp_path / "g.json"), None)
    assert bare.get_variables() == []

    fn.call([Ep.astensor(np.ones(4, dtype=np.float32)), Ep.astensor(np.float32(1))])
    assert_ep_error(Ep.Error.IO, fn.save, signature, gfile(tmp_path / "no" / "g.json"), None)
    assert not (tmp_path / "g.json").exists()


@pytest.fixture
def saved(tmp_path):
    """A function with a variable, saved: the paths of its two files"""
    w = Ep.Variable.new(Ep.astensor(np.array([1, 2, 3], dtype=np.float32)), "w")

    def f(inputs, n_inputs):
        y = (inputs[0] * w.read()).sum() + 1.5
        w.assign_sub(inputs[0])
        return [y]

    fn = Ep.Function.new(f)
    fn.call([Ep.astensor(np.ones(3, dtype=np.float32))])
    fn.save([spec([3])], gfile(tmp_path / "graph.json"), None)
    return tmp_path / "graph.json", tmp_path / "graph.safetensors"


def load_error(path):
    with pytest.raises(GLib.Error) as info:
        Ep.Function.load(gfile(path), None)
    assert info.value.domain == "ep-error"
    return info.value


def damaged(document, text, find, replace):
    assert find in text, find
    document.write_text(text.replace(find, replace, 1))


@pytest.mark.parametrize("find, replace, fragment", [
    ('"version": 1', '"version": 7', "written in version 7 of the graph file format by a newer eager-glib"),
    ('"op":"mul"', '"op":"no_such_op"', "unknown op “no_such_op”"),
    ('{"node":0,"output":0}', '{"node":4,"output":0}', "refers to node 4, which does not come before it"),
    ('{"input":0}', '{"input":"0"}', "expected an integer"),
    ('"trace_shape":[3]', '"trace_shape":[4]', "the traced shape does not fit the shape"),
    ('"shape":[3],"trace_shape":[3]', '"shape":[2],"trace_shape":[2]', "cannot be broadcast"),
    ('"keepdims":false', '"keepdims":"no"', "expected true or false"),
    ('"tensor":"variables/0"', '"tensor":"variables/3"', "no tensor named “variables/3”"),
])
def test_damaged_document(saved, find, replace, fragment):
    document, _ = saved
    damaged(document, document.read_text(), find, replace)
    error = load_error(document)
    assert error.code == int(Ep.Error.FORMAT), error.message
    assert fragment in error.message


def test_truncated_files(saved):
    document, tensors = saved
    text, data = document.read_bytes(), tensors.read_bytes()
    for n in range(0, len(text), 97):
        document.write_bytes(text[:n])
        assert load_error(document).code == int(Ep.Error.FORMAT)
    document.write_bytes(text)
    for n in range(len(data)):
        tensors.write_bytes(data[:n])
        assert load_error(document).code == int(Ep.Error.FORMAT)


def test_missing_files(saved, tmp_path):
    document, tensors = saved
    error = load_error(tmp_path / "missing.json")
    assert error.code == int(Ep.Error.IO) and "missing.json" in error.message
    os.unlink(tensors)
    error = load_error(document)
    assert error.code == int(Ep.Error.IO) and "graph.safetensors" in error.message
