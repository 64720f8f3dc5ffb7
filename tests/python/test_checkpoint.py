"""Checkpoints from Python: files that NumPy (and PyTorch) read, files
that a NumPy writer made restored here, mismatches as Ep.Error.FORMAT,
and the async variants on a main loop. The C side, with the killed
writer and every truncation, is tests/c/test-checkpoint.c.
"""

import json
import struct

import numpy as np
import pytest
from gi.repository import Ep, Gio, GLib



class assert_format_error:
    """A block that raises Ep.Error.FORMAT whose message names @what."""

    def __init__(self, what=""):
        self.what = what

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        assert kind is not None, "no error"
        assert isinstance(value, GLib.Error), value
        assert value.matches(Ep.error_quark(), Ep.Error.FORMAT), value.message
        assert self.what in value.message, value.message
        return True

NP_OF = {"F32": np.float32, "F64": np.float64, "I32": np.int32, "I64": np.int64,
         "BOOL": np.bool_, "U8": np.uint8, "F16": np.float16,
         "I8": np.int8, "I16": np.int16}
NAME_OF = {np.dtype(v): k for k, v in NP_OF.items()}


def np_read(path):
    """A small safetensors reader: NumPy only."""
    data = path.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        start, end = entry["data_offsets"]
        dtype = np.dtype(NP_OF[entry["dtype"]]).newbyteorder("<")
        out[name] = np.frombuffer(data[base + start:base + end], dtype).reshape(entry["shape"])
    return header.get("__metadata__", {}), out


def np_write(path, tensors, metadata=None):
    """A small safetensors writer: NumPy only."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name, array in tensors.items():
        raw = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": NAME_OF[array.dtype], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def gfile(path):
    return Gio.File.new_for_path(str(path))


def model(rng):
    return {
        "encoder.layers.0.weight": Ep.Variable(rng.standard_normal((4, 3)).astype(np.float32)),
        "encoder.layers.0.bias": Ep.Variable(rng.standard_normal(3)),
        "step": Ep.Variable(np.int64(42)),
    }


def test_written_here_read_by_numpy(tmp_path, rng):
    variables = model(rng)
    Ep.checkpoint_save(list(variables), list(variables.values()), gfile(tmp_path / "m.safetensors"), None)
    metadata, arrays = np_read(tmp_path / "m.safetensors")
    assert metadata == {"format": "eager-glib-checkpoint"}
    assert set(arrays) == set(variables)
    for name, v in variables.items():
        np.testing.assert_array_equal(arrays[name], v.numpy())
        assert arrays[name].dtype == v.numpy().dtype


def test_read_by_torch(tmp_path, rng):
    torch = pytest.importorskip("torch")
    variables = model(rng)
    Ep.checkpoint_save(list(variables), list(variables.values()), gfile(tmp_path / "m.safetensors"), None)
    _, arrays = np_read(tmp_path / "m.safetensors")
    for name, v in variables.items():
        t = torch.from_numpy(arrays[name].copy())
        np.testing.assert_array_equal(t.numpy(), v.numpy())


def test_written_by_numpy_restored_here(tmp_path, rng):
    arrays = {"w": rng.standard_normal((2, 5)).astype(np.float32),
              "counts": np.arange(6, dtype=np.int32).reshape(3, 2)}
    try:
        import torch
        arrays["w"] = torch.randn(2, 5).numpy()
    except ImportError:
        pass
    np_write(tmp_path / "n.safetensors", arrays, {"written_by": "numpy"})
    w = Ep.Variable(np.zeros((2, 5), np.float32))
    counts = Ep.Variable(np.zeros((3, 2), np.int32))
    Ep.checkpoint_restore(["w", "counts"], [w, counts], gfile(tmp_path / "n.safetensors"),
                          Ep.CheckpointFlags.NONE, None)
    np.testing.assert_array_equal(w.numpy(), arrays["w"])
    np.testing.assert_array_equal(counts.numpy(), arrays["counts"])


def test_mismatches(tmp_path, rng):
    variables = model(rng)
    path = gfile(tmp_path / "m.safetensors")
    Ep.checkpoint_save(list(variables), list(variables.values()), path, None)
    wrong = Ep.Variable(np.zeros((3, 4), np.float32))
    with assert_format_error("encoder.layers.0.weight"):
        Ep.checkpoint_restore(["encoder.layers.0.weight"], [wrong], path,
                              Ep.CheckpointFlags.PARTIAL, None)
    with assert_format_error("step"):
        Ep.checkpoint_restore(["encoder.layers.0.bias"], [variables["encoder.layers.0.bias"]],
                              path, Ep.CheckpointFlags.NONE, None)
    (tmp_path / "bad.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{\"a\":")
    with assert_format_error():
        Ep.checkpoint_restore(["a"], [wrong], gfile(tmp_path / "bad.safetensors"),
                              Ep.CheckpointFlags.PARTIAL, None)


def test_async(tmp_path, rng):
    variables = model(rng)
    path = gfile(tmp_path / "a.safetensors")
    loop = GLib.MainLoop()
    results = []

    def done(source, result, finish):
        results.append(finish(result))
        loop.quit()

    Ep.checkpoint_save_async(list(variables), list(variables.values()), path, None,
                             done, Ep.checkpoint_save_finish)
    loop.run()
    fresh = {name: Ep.Variable(np.zeros_like(v.numpy())) for name, v in variables.items()}
    Ep.checkpoint_restore_async(list(fresh), list(fresh.values()), path,
                                Ep.CheckpointFlags.NONE, None, done, Ep.checkpoint_restore_finish)
    loop.run()
    assert results == [True, True]
    for name, v in variables.items():
        np.testing.assert_array_equal(fresh[name].numpy(), v.numpy())


def mlp(seed):
    Ep.set_seed(seed)
    return Ep.Sequential(Ep.Linear(4, 8), Ep.Relu(), Ep.Linear(8, 3))


def train(net, optimizer, x, y, steps):
    for _ in range(steps):
        with Ep.GradientTape() as tape:
            loss = net(x).sparse_softmax_crossentropy(y)
        variables = net.trainable_variables
        optimizer.apply_gradients(tape.gradient(loss, variables), variables)


def test_module_and_optimizer_resume_exactly(tmp_path, rng):
    """A fresh module and optimizer restored from a checkpoint take the
    very steps the saved ones would have taken."""
    x = Ep.astensor(rng.standard_normal((16, 4)).astype(np.float32))
    y = Ep.astensor(rng.integers(0, 3, 16))
    net, adam = mlp(1), Ep.Adam.new(0.01)
    train(net, adam, x, y, 3)
    net.save_checkpoint(tmp_path / "m.safetensors", adam)
    train(net, adam, x, y, 3)

    fresh, fresh_adam = mlp(2), Ep.Adam.new(0.01)
    fresh.restore_checkpoint(tmp_path / "m.safetensors", fresh_adam)
    assert fresh_adam.get_iterations() == 3
    train(fresh, fresh_adam, x, y, 3)
    for (name, a), (_, b) in zip(net.named_variables(), fresh.named_variables()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)


def test_module_checkpoint_names_are_paths(tmp_path, rng):
    net, adam = mlp(1), Ep.Adam.new(0.01)
    net.save_checkpoint(tmp_path / "m.safetensors", adam)
    _, tensors = np_read(tmp_path / "m.safetensors")
    assert sorted(tensors) == sorted(
        ["0.weight", "0.bias", "2.weight", "2.bias", "optimizer.iterations"]
        + [f"optimizer.{p}.{s}" for p in ("0.weight", "0.bias", "2.weight", "2.bias")
           for s in ("exp_avg", "exp_avg_sq")])
    np.testing.assert_array_equal(tensors["2.weight"], net[2].get_weight().numpy())


def test_module_checkpoint_mismatches(tmp_path):
    net, adam = mlp(1), Ep.Adam.new(0.01)
    net.save_checkpoint(tmp_path / "m.safetensors", adam)
    wider = Ep.Sequential(Ep.Linear(4, 9), Ep.Relu(), Ep.Linear(9, 3))
    before = wider[0].get_weight().numpy()
    with assert_format_error("0.weight"):
        wider.restore_checkpoint(tmp_path / "m.safetensors", Ep.Adam.new(0.01))
    np.testing.assert_array_equal(wider[0].get_weight().numpy(), before)
    # the optimizer's entries have no variable without an optimizer
    with assert_format_error("optimizer.iterations"):
        mlp(2).restore_checkpoint(tmp_path / "m.safetensors")
    other = mlp(2)
    other.restore_checkpoint(tmp_path / "m.safetensors", partial=True)
    np.testing.assert_array_equal(other[0].get_weight().numpy(), net[0].get_weight().numpy())


def test_module_checkpoint_async(tmp_path):
    net, adam = mlp(1), Ep.Adam.new(0.01)
    path = gfile(tmp_path / "a.safetensors")
    loop = GLib.MainLoop()
    results = []

    def done(source, result, finish):
        try:
            results.append(finish(result))
        except GLib.Error as error:
            results.append(error)
        loop.quit()

    Ep.checkpoint_save_module_async(net, adam, path, None, done, Ep.checkpoint_save_module_finish)
    loop.run()
    fresh = mlp(2)
    Ep.checkpoint_restore_module_async(fresh, Ep.Adam.new(0.01), path, Ep.CheckpointFlags.NONE, None,
                                       done, Ep.checkpoint_restore_module_finish)
    loop.run()
    assert results == [True, True]
    np.testing.assert_array_equal(fresh[2].get_bias().numpy(), net[2].get_bias().numpy())
    Ep.checkpoint_restore_module_async(fresh, None, gfile(tmp_path / "missing.safetensors"),
                                       Ep.CheckpointFlags.NONE, None, done,
                                       Ep.checkpoint_restore_module_finish)
    loop.run()
    assert isinstance(results[-1], GLib.Error)
    assert "missing.safetensors" in results[-1].message


# uint8 (U8 in safetensors)

def test_uint8_round_trip(tmp_path):
    pixels = Ep.Variable(np.array([[0, 128], [255, 3]], np.uint8))
    Ep.checkpoint_save(["pixels"], [pixels], gfile(tmp_path / "u.safetensors"), None)
    _, arrays = np_read(tmp_path / "u.safetensors")
    assert arrays["pixels"].dtype == np.uint8
    np.testing.assert_array_equal(arrays["pixels"], pixels.numpy())
    restored = Ep.Variable(np.zeros((2, 2), np.uint8))
    Ep.checkpoint_restore(["pixels"], [restored], gfile(tmp_path / "u.safetensors"),
                          Ep.CheckpointFlags.NONE, None)
    assert restored.numpy().dtype == np.uint8
    np.testing.assert_array_equal(restored.numpy(), pixels.numpy())


# int8 and int16 (I8 and I16 in safetensors)

@pytest.mark.parametrize("dtype", [np.int8, np.int16])
def test_signed_narrow_round_trip(tmp_path, dtype):
    info = np.iinfo(dtype)
    weights = Ep.Variable(np.array([[info.min, -1], [0, info.max]], dtype))
    Ep.checkpoint_save(["w"], [weights], gfile(tmp_path / "w.safetensors"), None)
    _, arrays = np_read(tmp_path / "w.safetensors")
    assert arrays["w"].dtype == dtype
    np.testing.assert_array_equal(arrays["w"], weights.numpy())
    restored = Ep.Variable(np.zeros((2, 2), dtype))
    Ep.checkpoint_restore(["w"], [restored], gfile(tmp_path / "w.safetensors"),
                          Ep.CheckpointFlags.NONE, None)
    assert restored.numpy().dtype == dtype
    np.testing.assert_array_equal(restored.numpy(), weights.numpy())
