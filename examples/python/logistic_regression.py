#!/usr/bin/python3
"""Multinomial logistic regression on the 8x8 digits, trained with a
gradient tape, variables and plain minibatch SGD.

The data set ships with Debian's python3-sklearn (1797 images of 64
pixels, 0-16, and their digit). Prints the test accuracy; exits with an
error below 95 %.
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


def load(path):
    with gzip.open(path, "rt") as f:
        data = np.loadtxt(f, delimiter=",", dtype=np.float32)
    return data[:, :64] / 16.0, data[:, 64].astype(np.int64)


def split(x, y, test_fraction, rng):
    order = rng.permutation(len(x))
    n_test = int(len(x) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    return x[train], y[train], x[test], y[test]


def main():
    rng = np.random.default_rng(0)
    x, y = load(DIGITS)
    x_train, y_train, x_test, y_test = split(x, y, 0.2, rng)

    w = Ep.Variable(np.zeros((64, 10), np.float32), name="w")
    b = Ep.Variable(np.zeros(10, np.float32), name="b")

    start = time.perf_counter()
    for epoch in range(EPOCHS):
        order = rng.permutation(len(x_train))
        total = 0.0
        for first in range(0, len(order), BATCH):
            batch = order[first:first + BATCH]
            xb = Ep.astensor(x_train[batch])
            yb = Ep.astensor(y_train[batch])
            with Ep.GradientTape() as tape:
                # softmax cross-entropy of the logits, and a little L2
                loss = (xb @ w + b).crossentropy(yb).mean() + WEIGHT_DECAY * (w * w).sum()
            grad_w, grad_b = tape.gradient(loss, [w, b])
            w.assign_sub(grad_w * LEARNING_RATE)
            b.assign_sub(grad_b * LEARNING_RATE)
            total += loss.item() * len(batch)
        if epoch % 10 == 9 or epoch == 0:
            print(f"epoch {epoch + 1:2d}: training loss {total / len(order):.4f}")
    elapsed = time.perf_counter() - start

    predicted = (Ep.astensor(x_test) @ w + b).numpy().argmax(axis=1)
    accuracy = float(np.mean(predicted == y_test))
    print(f"trained on {len(x_train)} images in {elapsed:.2f} s")
    print(f"test accuracy: {accuracy:.4f} ({int(round(accuracy * len(y_test)))}/{len(y_test)})")
    return 0 if accuracy >= 0.95 else 1


if __name__ == "__main__":
    sys.exit(main())
