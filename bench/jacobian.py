"""Jacobians: 64x64 jacobian of tanh(W @ x) and of an elementwise function,
and a batch_jacobian of a (16, 64) batch, float32: eager-glib's vectorised
pass (one forward pass over the tape with a batch of 64 tangents) against
its per-row passes (one backward pass per output element, what it did
before; EP_JACOBIAN=rows) and against PyTorch's
torch.autograd.functional.jacobian (vectorize=True, and False), in the
same process, the best of several rounds. Each call records the function
on a tape and asks for the jacobian, as a user does.

    meson devenv -C _build --workdir . /usr/bin/python3 bench/jacobian.py [--rounds N]
"""

import argparse
import json
import os
import time

import gi
import numpy as np
import torch

gi.require_version("Ep", "1.0")
from gi.repository import Ep  # noqa: E402

REPEATS = 20


def timings(step, rounds):
    """Best and median seconds per call over rounds of REPEATS calls"""
    step()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(REPEATS):
            step()
        times.append((time.perf_counter() - start) / REPEATS)
    times.sort()
    return {"best": times[0], "median": times[len(times) // 2]}


def ep_step(f, x, batched):
    def step():
        with Ep.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        j = tape.batch_jacobian(y, x) if batched else tape.jacobian(y, x)
        j.numpy()
    return step


def torch_step(f, x, batched, vectorize):
    def step():
        if batched:
            # the batch's examples are independent: the jacobian of the sum
            # over the batch, per example (what batch_jacobian computes)
            j = torch.autograd.functional.jacobian(lambda v: f(v).sum(0), x, vectorize=vectorize)
            j.transpose(0, 1).numpy()
        else:
            torch.autograd.functional.jacobian(f, x, vectorize=vectorize).numpy()
    return step


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true",
                        help="print the figures (seconds) as JSON, for bench/run")
    args = parser.parse_args()
    torch.set_num_threads(int(os.environ.get("EP_NUM_THREADS", os.cpu_count() or 1)))

    rng = np.random.default_rng(17)
    w = rng.standard_normal((64, 64)).astype(np.float32) / 8
    x = rng.standard_normal(64).astype(np.float32)
    xb = rng.standard_normal((16, 64)).astype(np.float32)
    ew, tw = Ep.tensor(w), torch.tensor(w)
    cases = [
        ("jacobian 64x64, tanh(W @ x)", "mlp", lambda v: (ew @ v).tanh(), lambda v: (tw @ v).tanh(), x, False),
        ("jacobian 64x64, sin(x * x) * 2", "elementwise", lambda v: (v * v).sin() * 2.0,
         lambda v: (v * v).sin() * 2.0, x, False),
        ("batch_jacobian 16x64x64, tanh(x @ W)", "batch", lambda v: (v @ ew).tanh(),
         lambda v: (v @ tw).tanh(), xb, True),
    ]

    figures = {}
    if not args.json:
        print(f"{'case':40} {'old us':>9} {'new us':>9} {'torch v us':>11} {'torch us':>9}"
              f" {'new/old':>8} {'vs torch v':>10} {'vs torch':>9}")
    for name, key, ef, tf, value, batched in cases:
        et, tt = Ep.tensor(value), torch.tensor(value)
        os.environ["EP_JACOBIAN"] = "rows"
        old = timings(ep_step(ef, et, batched), args.rounds)
        os.environ["EP_JACOBIAN"] = ""
        new = timings(ep_step(ef, et, batched), args.rounds)
        tv = timings(torch_step(tf, tt, batched, True), args.rounds)
        tn = timings(torch_step(tf, tt, batched, False), args.rounds)
        figures.update({f"jacobian_{key}_rows": old, f"jacobian_{key}": new,
                        f"jacobian_{key}_torch_vectorize": tv, f"jacobian_{key}_torch": tn})
        if not args.json:
            o, n, v, t = (f["best"] * 1e6 for f in (old, new, tv, tn))
            print(f"{name:40} {o:9.1f} {n:9.1f} {v:11.1f} {t:9.1f}"
                  f" {o / n:7.1f}x {v / n:9.2f}x {t / n:8.2f}x")
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
