#!/usr/bin/python3
"""A small convolutional network on the 8x8 digits, trained with Adam and
saved as a checkpoint.

Conv2d (16 filters) - ReLU - MaxPool2d - Conv2d (32) - ReLU - MaxPool2d -
Flatten - Linear, trained for a few epochs with Adam on 80 % of the
digits (the staged training step: traced once per batch shape, replayed
in C), then:

- the model and the optimizer's state (its step count and moments) are
  saved with Module.save_checkpoint to CHECKPOINT: a safetensors file,
  written atomically, whose names are the variables' paths ("0.weight",
  "optimizer.0.weight.exp_avg");
- the images, their labels and the network's prediction for each are
  saved to PREDICTIONS, which examples/gjs/cnn_digits.js, c/cnn_digits.c
  and vala/cnn_digits.vala read to check that the checkpoint restored in
  another language predicts the same digits.

    cnn_digits.py [--checkpoint CHECKPOINT] [--predictions PREDICTIONS]
                  [--resume] [--epochs N]

--resume restores CHECKPOINT (model and optimizer) before training, so
that training continues where it stopped. Exits with an error below 97 %
test accuracy.
"""

import argparse
import gzip
import sys
import time

import gi

gi.require_version("Ep", "1.0")
import numpy as np  # noqa: E402
from gi.repository import Ep, Gio  # noqa: E402

DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
BATCH = 32
LEARNING_RATE = 3e-3


def make_model():
    """The network; the same in cnn_digits.js, .c and .vala."""
    return Ep.Sequential(
        Ep.Conv2d(1, 16, 3, padding=1), Ep.Relu(), Ep.MaxPool2d(2),    # 16 x 4 x 4
        Ep.Conv2d(16, 32, 3, padding=1), Ep.Relu(), Ep.MaxPool2d(2),   # 32 x 2 x 2
        Ep.Flatten(), Ep.Linear(128, 10))


def load(path):
    """Every image as (n, 1, 8, 8) float32 in [0, 1], and its digit."""
    with gzip.open(path, "rt") as f:
        data = np.loadtxt(f, delimiter=",", dtype=np.float32)
    return (data[:, :64] / 16.0).reshape(-1, 1, 8, 8), data[:, 64].astype(np.int64)


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def step(self, x, y):
        with Ep.GradientTape() as tape:
            loss = self.model(x).sparse_softmax_crossentropy(y)
        variables = self.model.trainable_variables
        self.optimizer.apply_gradients(tape.gradient(loss, variables), variables)
        return loss

    # the same step, staged: traced once per batch shape (the last batch
    # of an epoch is smaller), the model's variables and the optimizer's
    # slots captured by reference
    staged_step = Ep.function(step)

    def predict(self, x):
        self.model.eval()
        try:
            return self.model(Ep.astensor(x)).argmax(axis=1).numpy()
        finally:
            self.model.train()


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default="cnn_digits.safetensors")
    parser.add_argument("--predictions", default="cnn_digits.predictions.safetensors")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--epochs", type=int, default=15)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    x, y = load(DIGITS)
    order = rng.permutation(len(x))
    test, train = order[:len(x) // 5], order[len(x) // 5:]

    Ep.set_seed(0)
    trainer = Trainer(make_model(), Ep.Adam.new(LEARNING_RATE))
    if args.resume:
        trainer.model.restore_checkpoint(args.checkpoint, trainer.optimizer)
        print(f"resumed from {args.checkpoint} after {trainer.optimizer.get_iterations()} steps")

    start = time.perf_counter()
    for epoch in range(args.epochs):
        shuffled = rng.permutation(train)
        total = 0.0
        for first in range(0, len(shuffled), BATCH):
            batch = shuffled[first:first + BATCH]
            loss = trainer.staged_step(Ep.astensor(x[batch]), Ep.astensor(y[batch]))
            total += loss.item() * len(batch)
        if epoch % 5 == 4 or epoch == 0:
            print(f"epoch {epoch + 1:2d}: training loss {total / len(train):.4f}")
    elapsed = time.perf_counter() - start

    trainer.model.save_checkpoint(args.checkpoint, trainer.optimizer)
    predicted = trainer.predict(x)
    Ep.checkpoint_save(["images", "labels", "predictions"],
                       [Ep.Variable(x), Ep.Variable(y), Ep.Variable(predicted.astype(np.int64))],
                       Gio.File.new_for_path(args.predictions), None)

    accuracy = float(np.mean(predicted[test] == y[test]))
    print(f"{args.epochs} epochs of {len(train)} images in {elapsed:.2f} s "
          f"({trainer.optimizer.get_iterations()} Adam steps); saved {args.checkpoint}")
    print(f"test accuracy: {accuracy:.4f} ({int(round(accuracy * len(test)))}/{len(test)})")
    return 0 if accuracy >= 0.97 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
