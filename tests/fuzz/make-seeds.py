#!/usr/bin/python3
# make-seeds.py: writes the seeds of the fuzz corpora (corpus/<target>/).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run from tests/fuzz. The graph file seeds are tests/data's files, the
# JSON document, a NUL byte and the safetensors file. Reproducers that
# fuzzers find are added to the corpora by hand, named after the bug.
import json
import os
import random
import re
import struct

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

    safetensors("every-dtype", {
        "f32": ("F32", [2, 2], struct.pack("<4f", 1, 2, 3, 4)),
        "f64": ("F64", [3], struct.pack("<3d", 1, 2, 3)),
        "i32": ("I32", [1, 2], struct.pack("<2i", -1, 2)),
        "i64": ("I64", [], struct.pack("<q", 5)),
        "b": ("BOOL", [2], bytes([1, 0])),
        "half": ("F16", [1], b"\x00\x3c"),
    }, {"format": "pt"})
    safetensors("empty", {"e": ("F32", [0, 3], b"")})

    with open(os.path.join(DATA, "affine.json"), "rb") as f:
        document = f.read()
    with open(os.path.join(DATA, "affine.safetensors"), "rb") as f:
        tensors = f.read()
    write("safetensors", "affine", tensors)
    write("graph-file", "affine", document + b"\0" + tensors)


if __name__ == "__main__":
    main()
