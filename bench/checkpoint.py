#!/usr/bin/python3
# bench/checkpoint.py: checkpoint save and restore of 100 MB (ten float32
# variables of 2.5M elements), next to the same bytes written by NumPy
# (write, fsync, rename: what a save must do at least) and read back
# (np.fromfile: what a restore must do at least).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: meson devenv -C _build --workdir . bench/checkpoint.py [FOLDER]
# (FOLDER: where the files go, /tmp when not given)

import os
import sys
import tempfile
import time

import gi

gi.require_version("Ep", "1.0")
import numpy as np
from gi.repository import Ep, Gio

N_VARIABLES, N = 10, 2_500_000
REPEATS = 7


def best_and_median(fn):
    fn()
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[0], times[len(times) // 2]


def main():
    folder = tempfile.mkdtemp(dir=sys.argv[1] if len(sys.argv) > 1 else None)
    path = os.path.join(folder, "model.safetensors")
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(N, dtype=np.float32) for _ in range(N_VARIABLES)]
    names = [f"layers.{i}.weight" for i in range(N_VARIABLES)]
    variables = [Ep.Variable(a) for a in arrays]
    fresh = [Ep.Variable(np.zeros(N, np.float32)) for _ in range(N_VARIABLES)]
    gfile = Gio.File.new_for_path(path)
    nbytes = N_VARIABLES * N * 4

    def save():
        Ep.checkpoint_save(names, variables, gfile, None)

    def restore():
        Ep.checkpoint_restore(names, fresh, gfile, Ep.CheckpointFlags.NONE, None)

    def np_write():
        tmp = path + ".np.tmp"
        with open(tmp, "wb") as f:
            for a in arrays:
                f.write(a.data)
            f.flush()
            os.fsync(f.fileno())
        os.rename(tmp, path + ".np")

    def np_read():
        np.fromfile(path + ".np", np.float32)

    rows = [("eager-glib checkpoint_save", save), ("NumPy write+fsync+rename", np_write),
            ("eager-glib checkpoint_restore", restore), ("NumPy fromfile", np_read)]
    print(f"{nbytes / 1e6:.0f} MB in {N_VARIABLES} variables, folder {folder}")
    for name, fn in rows:
        best, median = best_and_median(fn)
        print(f"{name:32s} {nbytes / median / 1e9:6.2f} GB/s (median {median * 1e3:7.1f} ms, best {best * 1e3:7.1f} ms)")
    for v, a in zip(fresh, arrays):
        assert np.array_equal(v.numpy(), a)
    for name in os.listdir(folder):
        os.unlink(os.path.join(folder, name))
    os.rmdir(folder)


if __name__ == "__main__":
    main()
