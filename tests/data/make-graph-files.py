#!/usr/bin/python3
# make-graph-files.py: writes the graph files committed beside it.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# affine.json (with affine.safetensors): x @ weights + bias for x of shape
# (batch, 3), float32, saved from Python; weights is a variable named
# "weights", ((1, 2), (3, 4), (5, 6)), bias a constant (0.5, -0.5). The C
# and gjs tests load it: files of format version 1 must keep loading.
#
# Usage: make-graph-files.py DIR        writes the files into DIR
#        make-graph-files.py --check    fails when the committed files are
#                                       not what this script writes now
#                                       (run it when the format changes)
import filecmp
import os
import sys
import tempfile

import gi
import numpy as np

gi.require_version("Ep", "1.0")
from gi.repository import Ep, Gio  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = ["affine.json", "affine.safetensors"]


def write(directory):
    weights = Ep.Variable.new(Ep.astensor(np.array([[1, 2], [3, 4], [5, 6]], dtype=np.float32)), "weights")
    bias = Ep.astensor(np.array([0.5, -0.5], dtype=np.float32))

    def affine(inputs, n_inputs, user_data):
        return [inputs[0] @ weights.read() + bias]

    spec = Ep.TensorSpec.new([-1, 3], Ep.DType.FLOAT32)
    function = Ep.Function.new_with_signature(affine, None, [spec])
    # two batch sizes: the second shows that one graph serves every batch
    function.call([Ep.astensor(np.zeros((2, 3), dtype=np.float32))])
    function.call([Ep.astensor(np.zeros((1, 3), dtype=np.float32))])
    function.save([spec], Gio.File.new_for_path(os.path.join(directory, "affine.json")), None)


def main():
    if sys.argv[1:] != ["--check"]:
        write(sys.argv[1])
        return 0

    with tempfile.TemporaryDirectory() as directory:
        write(directory)
        stale = [name for name in FILES
                 if not filecmp.cmp(os.path.join(directory, name), os.path.join(HERE, name), shallow=False)]
    for name in stale:
        print(f"tests/data/{name} is not what make-graph-files.py writes: "
              f"run `meson devenv -C _build tests/data/make-graph-files.py tests/data`", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
