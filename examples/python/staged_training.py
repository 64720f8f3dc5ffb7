#!/usr/bin/python3
"""Staged training: the logistic regression of logistic_regression.py,
written in the two stages of the workflow of docs/staging.md.

1. Prototype eagerly: every op runs when Python calls it, so the step can
   print, branch and stop in a debugger.
2. Stage the hot functions: Ep.function traces the step once per batch
   shape (the last batch is smaller) and replays it in C for every later
   batch, without calling Python. The prediction has a relaxed signature
   (None for the batch size): one graph for every number of images, once
   a second number of images has shown that it computes the same.

Checks that the staged step moves the variables exactly as the eager
step does, for a whole epoch; prints the time of an epoch both ways;
exits with an error below 95 % test accuracy.
"""

import gzip
import sys
import time

import gi

gi.require_version("Ep", "1.0")
import numpy as np  # noqa: E402
from gi.repository import Ep  # noqa: E402

DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
EPOCHS = 30
BATCH = 64
LEARNING_RATE = 0.5
WEIGHT_DECAY = 1e-4


class Model:
    """Multinomial logistic regression: softmax(x @ w + b)."""

    def __init__(self):
        self.w = Ep.Variable(np.zeros((64, 10), np.float32), name="w")
        self.b = Ep.Variable(np.zeros(10, np.float32), name="b")

    # stage 1: the step, eagerly
    def step(self, x, y):
        with Ep.GradientTape() as tape:
            # softmax cross-entropy of the logits, and a little L2
            loss = (x @ self.w + self.b).crossentropy(y).mean() + WEIGHT_DECAY * (self.w * self.w).sum()
        grad_w, grad_b = tape.gradient(loss, [self.w, self.b])
        self.w.assign_sub(grad_w * LEARNING_RATE)
        self.b.assign_sub(grad_b * LEARNING_RATE)
        return loss

    # stage 2: the same step, staged; the variables are captured by
    # reference (each model's own: `self` is part of the signature)
    staged_step = Ep.function(step)

    # the digit of each image, for any number of images
    @Ep.function(input_signature=[Ep.TensorSpec((None, 64))])
    def predict(self, x):
        return (x @ self.w + self.b).argmax(axis=1)

    def accuracy(self, x, y):
        return float(np.mean(self.predict(x).numpy() == y))


def load(path):
    with gzip.open(path, "rt") as f:
        data = np.loadtxt(f, delimiter=",", dtype=np.float32)
    return data[:, :64] / 16.0, data[:, 64].astype(np.int64)


def batches(x, y, rng):
    order = rng.permutation(len(x))
    for first in range(0, len(order), BATCH):
        batch = order[first:first + BATCH]
        yield Ep.astensor(x[batch]), Ep.astensor(y[batch])


def epoch(step, data):
    """Runs step on every batch: (mean loss, seconds)."""
    start = time.perf_counter()
    total = sum(step(xb, yb).item() * len(yb) for xb, yb in data)
    return total / sum(len(yb) for _, yb in data), time.perf_counter() - start


def main():
    rng = np.random.default_rng(0)
    x, y = load(DIGITS)
    order = rng.permutation(len(x))
    test, train = order[:len(x) // 5], order[len(x) // 5:]
    x_train, y_train, x_test, y_test = x[train], y[train], x[test], y[test]

    eager, staged = Model(), Model()
    first = list(batches(x_train, y_train, rng))
    eager_loss, _ = epoch(eager.step, first)
    staged_loss, _ = epoch(staged.staged_step, first)      # traced on the first batch
    if (eager_loss != staged_loss or not np.array_equal(eager.w.numpy(), staged.w.numpy())
            or not np.array_equal(eager.b.numpy(), staged.b.numpy())):
        print("the staged step does not do what the eager step does", file=sys.stderr)
        return 1
    print(f"epoch  1: training loss {staged_loss:.4f}, the same eagerly and staged")

    staged_time = 0.0
    eager_time = 0.0
    for k in range(1, EPOCHS):
        data = list(batches(x_train, y_train, rng))
        if k == 1:
            eager_time = epoch(eager.step, data)[1]
        loss, seconds = epoch(staged.staged_step, data)
        staged_time += seconds
        if k % 10 == 9:
            print(f"epoch {k + 1:2d}: training loss {loss:.4f}, "
                  f"training accuracy {staged.accuracy(x_train, y_train):.4f}")
    staged_time /= EPOCHS - 1

    print(f"an epoch of {len(first)} steps: {eager_time * 1e3:.1f} ms eagerly, "
          f"{staged_time * 1e3:.1f} ms staged")
    accuracy = staged.accuracy(x_test, y_test)
    print(f"test accuracy: {accuracy:.4f} ({int(round(accuracy * len(y_test)))}/{len(y_test)})")
    # one graph for the batches of 64, one for the last; the prediction
    # traced for the training images, and again for the test images to
    # check that one graph serves every number of images
    traces = (staged.staged_step.trace_count, staged.predict.trace_count)
    print(f"traced: the step {traces[0]} times, the prediction {traces[1]} times")
    if traces != (2, 2):
        print("the staged functions traced more than they should", file=sys.stderr)
        return 1
    return 0 if accuracy >= 0.95 else 1


if __name__ == "__main__":
    sys.exit(main())
