#!/usr/bin/python3
"""An epoch of the digits CNN (examples/python/cnn_digits.py: two 3x3
convolutions, max pooling, a linear layer; Adam, batches of 32 on 1438
8x8 images), eagerly and staged, against PyTorch's eager epoch of the
same network in the same run.

    meson devenv -C _build --workdir . /usr/bin/python3 bench/cnn_digits.py [--rounds N]

Each figure is the best of N epochs (after one epoch of warm-up, which
traces the staged step); the same thread count for both libraries.
"""

import argparse
import os
import sys
import time
from pathlib import Path

import gi

gi.require_version("Ep", "1.0")
import numpy as np  # noqa: E402
from gi.repository import Ep  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "python"))
import cnn_digits  # noqa: E402


def ep_epoch(step, x, y, order):
    for first in range(0, len(order), cnn_digits.BATCH):
        batch = order[first:first + cnn_digits.BATCH]
        step(Ep.astensor(x[batch]), Ep.astensor(y[batch]))


def torch_epoch(torch, model, optimizer, x, y, order):
    for first in range(0, len(order), cnn_digits.BATCH):
        batch = order[first:first + cnn_digits.BATCH]
        xb, yb = torch.from_numpy(x[batch]), torch.from_numpy(y[batch])
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()


def best(run, rounds):
    times = []
    for _ in range(rounds + 1):   # the first one warms up
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times[1:])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    import torch

    threads = int(os.environ.get("EP_NUM_THREADS", os.cpu_count()))
    torch.set_num_threads(threads)
    x, y = cnn_digits.load(cnn_digits.DIGITS)
    order = np.random.default_rng(0).permutation(len(x))[len(x) // 5:]

    eager = cnn_digits.Trainer(cnn_digits.make_model(), Ep.Adam.new(cnn_digits.LEARNING_RATE))
    staged = cnn_digits.Trainer(cnn_digits.make_model(), Ep.Adam.new(cnn_digits.LEARNING_RATE))
    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=cnn_digits.LEARNING_RATE)

    rows = [
        ("eager", best(lambda: ep_epoch(eager.step, x, y, order), args.rounds)),
        ("staged", best(lambda: ep_epoch(staged.staged_step, x, y, order), args.rounds)),
    ]
    reference = best(lambda: torch_epoch(torch, model, optimizer, x, y, order), args.rounds)
    steps = -(-len(order) // cnn_digits.BATCH)
    print(f"an epoch: {steps} steps of {cnn_digits.BATCH} images, {threads} threads, best of {args.rounds}")
    print(f"{'':8} {'eager-glib ms':>14} {'PyTorch ms':>11} {'x PyTorch':>10}")
    for name, seconds in rows:
        print(f"{name:8} {seconds * 1e3:14.1f} {reference * 1e3:11.1f} {reference / seconds:10.2f}")


if __name__ == "__main__":
    main()
