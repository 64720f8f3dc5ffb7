#!/usr/bin/python3
"""The digits CNN of cnn_digits.py trained data-parallel over MPI.

    mpirun -np 2 ddp_digits.py [--epochs N] [--batch B | --per-rank-batch B]
                               [--checkpoint PATH]

Each process (rank) holds the model of cnn_digits.py; Ep.DataParallel
gives every rank rank 0's initial values (the ranks draw their own, from
seeds of their own) and averages the gradients over the ranks. Every rank
goes through the same global batches (the same shuffles) and takes its
shard of each, so that with any number of ranks the model takes the steps
one process takes on the whole batches (up to float32 rounding): each
rank's loss is its shard's mean weighted by the shard's share of the
batch, so the average over the ranks is the whole batch's mean even when
the last batch does not split evenly. The training step is staged
(Ep.function): the collectives are recorded in it and replayed each step.

--batch is the global batch (32, as cnn_digits.py), split among the ranks;
--per-rank-batch fixes each rank's batch instead (the global batch grows
with the ranks). --checkpoint writes the model and the optimizer's state
on rank 0. Rank 0 prints the training loss, the mean step time and the
test accuracy; every rank exits non-zero below 97 % test accuracy, the
threshold of cnn_digits.py. Run alone (python3 ddp_digits.py), it is one
rank and trains as cnn_digits.py does.
"""

import argparse
import os
import sys
import time

import gi

gi.require_version("Ep", "1.0")
import numpy as np  # noqa: E402
from gi.repository import Ep  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cnn_digits  # noqa: E402

THRESHOLD = 0.97


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=15)
    sizes = parser.add_mutually_exclusive_group()
    sizes.add_argument("--batch", type=int, default=None, help="the global batch (default 32)")
    sizes.add_argument("--per-rank-batch", type=int, default=None)
    parser.add_argument("--checkpoint", default=None)
    args = parser.parse_args(argv)

    comm = Ep.Communicator.get_world()
    rank, size = comm.get_rank(), comm.get_size()
    batch = args.per_rank_batch * size if args.per_rank_batch else (args.batch or cnn_digits.BATCH)
    if batch < size:
        parser.error(f"a global batch of {batch} cannot be split among {size} ranks")

    rng = np.random.default_rng(0)                 # the same on every rank
    x, y = cnn_digits.load(cnn_digits.DIGITS)
    order = rng.permutation(len(x))
    test, train = order[:len(x) // 5], order[len(x) // 5:]

    Ep.set_seed(rank)                              # each rank draws its own values ...
    model = cnn_digits.make_model()
    ddp = Ep.DataParallel(comm, model)             # ... and now holds rank 0's
    optimizer = Ep.Adam.new(cnn_digits.LEARNING_RATE)

    @Ep.function
    def step(xs, ys, share):
        with Ep.GradientTape() as tape:
            loss = model(xs).sparse_softmax_crossentropy(ys) * share
        variables = model.trainable_variables
        optimizer.apply_gradients(ddp.average_gradients(tape.gradient(loss, variables)), variables)
        return loss

    steps, elapsed = 0, 0.0
    for epoch in range(args.epochs):
        shuffled = rng.permutation(train)
        total = 0.0
        for first in range(0, len(shuffled), batch):
            shard = np.array_split(shuffled[first:first + batch], size)[rank]
            share = Ep.astensor(np.float32(len(shard) * size / len(shuffled[first:first + batch])))
            start = time.perf_counter()
            loss = step(Ep.astensor(x[shard]), Ep.astensor(y[shard]), share).item()
            elapsed += time.perf_counter() - start
            steps += 1
            total += loss * len(shuffled[first:first + batch]) / size
        # the global loss: the sum of the ranks' shares
        total = comm.all_reduce(Ep.astensor(np.float64(total)), Ep.ReduceOp.SUM).item()
        if rank == 0 and (epoch % 5 == 4 or epoch == 0):
            print(f"epoch {epoch + 1:2d}: training loss {total / len(train):.4f}", flush=True)

    if args.checkpoint:
        ddp.save_checkpoint(args.checkpoint, model, optimizer)
    model.eval()
    predicted = model(Ep.astensor(x[test])).argmax(axis=1).numpy()
    accuracy = float(np.mean(predicted == y[test]))
    if rank == 0:
        print(f"{size} rank{'s' if size > 1 else ''}, global batch {batch}: {args.epochs} epochs, "
              f"{steps} steps, {1e3 * elapsed / max(steps, 1):.2f} ms per step")
        if args.checkpoint:
            print(f"saved {args.checkpoint}")
        print(f"test accuracy: {accuracy:.4f} ({int(round(accuracy * len(test)))}/{len(test)})", flush=True)
    return 0 if accuracy >= THRESHOLD else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
