#!/usr/bin/python3
# make-seeds.py: writes the seeds of the fuzz corpora (corpus/<target>/).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: meson devenv -C _build tests/fuzz/make-seeds.py
#
# A graph file seed is a document, a NUL byte and its safetensors file:
# tests/data's affine graph, and a training step and a graph of many
# ops saved here. Reproducers that fuzzers find are added to the corpora
# by hand, named after the bug.
import json
import os
import random
import re
import struct
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")


def write(target, name, data):
    with open(os.path.join(HERE, "corpus", target, name), "wb") as f:
        f.write(data)


def tensor_bytes(name, view, dtype, shape, how, data):
    # a view kind, the dtype, ndim, extents (a byte 4 + n reads as n), how
    # the data come (bit 0: fitted to the shape), the data
    write("tensor-bytes", name, bytes([view, dtype, len(shape)] + [4 + s for s in shape] + [how]) + data)


def safetensors(name, tensors, metadata=None):
    header, data = {}, b""
    for tname, (dtype, shape, payload) in tensors.items():
        header[tname] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(payload)]}
        data += payload
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    write("safetensors", name, struct.pack("<Q", len(text)) + text + data)


def n_ops():
    with open(os.path.join(HERE, "..", "..", "eager-glib", "dispatch", "ep-op-list-private.h")) as f:
        return len(re.findall(r"^EP_OP \(", f.read(), re.M))


def graph_seed(name, func, specs, inputs):
    import gi
    gi.require_version("Ep", "1.0")
    from gi.repository import Ep, Gio

    function = Ep.Function.new_with_signature(func, None, [Ep.TensorSpec.new(*s) for s in specs])
    function.call([Ep.astensor(x) for x in inputs])
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, name + ".json")
        function.save([Ep.TensorSpec.new(*s) for s in specs], Gio.File.new_for_path(path), None)
        with open(path, "rb") as f:
            document = f.read()
        with open(os.path.join(directory, name + ".safetensors"), "rb") as f:
            tensors = f.read()
    write("graph-file", name, document + b"\0" + tensors)


def graph_seeds():
    import gi
    import numpy as np
    gi.require_version("Ep", "1.0")
    from gi.repository import Ep

    w = Ep.Variable.new(Ep.astensor(np.array([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]], dtype=np.float32)), "w")

    def step(inputs, n_inputs, user_data):
        x, y = inputs
        with Ep.GradientTape() as tape:
            loss = ((x @ w.read() - y) ** 2).mean()
        w.assign_sub(tape.gradient(loss, [w])[0] * 0.1)
        return [loss]

    def many_ops(inputs, n_inputs, user_data):
        x, i = inputs
        a = x.softmax(axis=-1) + x.log_softmax(axis=0)
        b = x.cumsum(axis=1).sort(axis=0)
        c = Ep.concatenate([a, b.flip(axis=None)], axis=0)
        d = c.take(i, axis=0).clip(-1.0, 1.0)
        e = Ep.where(d > 0, d, d.T.T * 2).pad([(1, 0), (0, 1)], "constant", 0.5)
        g = x[:, ::-1].tile((1, 2)).max(axis=1, keepdims=True)
        return [e.sum(), e.reshape((-1,)).argmax(), g, x.topk(2)[1]]

    graph_seed("training-step", step, [([4, 3], Ep.DType.FLOAT32), ([4, 2], Ep.DType.FLOAT32)],
               [np.ones((4, 3), np.float32), np.zeros((4, 2), np.float32)])
    graph_seed("many-ops", many_ops, [([3, 3], Ep.DType.FLOAT32), ([2], Ep.DType.INT64)],
               [np.arange(9, dtype=np.float32).reshape(3, 3), np.array([0, 2])])


def main():
    random.seed(13)
    tensor_bytes("float32-2x3", 0, 0, [2, 3], 1, struct.pack("<6f", 1, 2.5, -3, 0, float("nan"), 1e30))
    tensor_bytes("float64-3-flip", 2, 1, [3], 0, struct.pack("<3d", 1, -2, 3))
    tensor_bytes("int64-2x2-transposed", 1, 3, [2, 2], 0, struct.pack("<4q", 1, -2, 2**62, -2**63))
    tensor_bytes("int32-scalar", 0, 2, [], 0, struct.pack("<i", -7))
    tensor_bytes("bool-4-broadcast", 3, 4, [4], 0, bytes([0, 1, 1, 0]))
    tensor_bytes("doubles-2x2", 0, 0, [2, 2], 4, struct.pack("<4d", 1, 2, 3, 4))
    tensor_bytes("wrong-size", 0, 0, [2, 3], 0, b"\x00" * 5)

    # dispatch: a call of each op of the table (the first byte), the rest
    # of the decisions at random, small numbers favoured
    for op in range(n_ops()):
        rest = bytes(random.randrange(256) if random.random() < 0.5 else random.randrange(16) for _ in range(96))
        write("dispatch", f"op-{op:03d}", bytes([op]) + rest)
        # the same call under a tape asked for a jacobian and a forward
        # accumulator (the second byte: the mode, 7)
        write("dispatch", f"forward-{op:03d}", bytes([op, 7]) + rest[1:])

    safetensors("every-dtype", {
        "f32": ("F32", [2, 2], struct.pack("<4f", 1, 2, 3, 4)),
        "f64": ("F64", [3], struct.pack("<3d", 1, 2, 3)),
        "i32": ("I32", [1, 2], struct.pack("<2i", -1, 2)),
        "i64": ("I64", [], struct.pack("<q", 5)),
        "b": ("BOOL", [2], bytes([1, 0])),
        "half": ("F16", [1], b"\x00\x3c"),
    }, {"format": "pt"})
    safetensors("empty", {"e": ("F32", [0, 3], b"")})
    # a checkpoint as ep_checkpoint_save writes it (object-graph names)
    safetensors("checkpoint", {
        "encoder.layers.0.bias": ("F64", [2], struct.pack("<2d", 0.5, -1)),
        "step": ("I64", [], struct.pack("<q", 42)),
        "encoder.layers.0.weight": ("F32", [2, 2], struct.pack("<4f", 1, 2, 3, 4)),
    }, {"format": "eager-glib-checkpoint"})

    with open(os.path.join(DATA, "affine.json"), "rb") as f:
        document = f.read()
    with open(os.path.join(DATA, "affine.safetensors"), "rb") as f:
        tensors = f.read()
    write("safetensors", "affine", tensors)
    write("graph-file", "affine", document + b"\0" + tensors)
    graph_seeds()


if __name__ == "__main__":
    main()
