"""One rank of the data-parallel test: run under mpirun by
test_ddp_mpi.py (mpirun -np 2, and -np 3 --oversubscribe).

    ddp_ranks.py DIR

Each rank, with DIR a folder every rank can reach:

- draws its own initial values (a seed per rank), makes Ep.DataParallel,
  and checks that every rank now holds rank 0's values (and that they
  did differ before);
- takes its shard of one batch, averages its gradients through
  Ep.DataParallel and checks that they equal (to float32 rounding) the
  gradients of the whole batch, which it also computes alone; with one
  bucket, a bucket per gradient and buckets of a few gradients; a None
  gradient counts as zeros;
- steps every optimizer with the averaged gradients: the ranks stay equal;
- a staged step (Ep.function) with Ep.DataParallel gives what the eager
  one gives;
- saves a checkpoint: rank 0 writes it, the others write nothing (each
  is given a path of its own, which must not appear), every rank can
  restore it; a checkpoint rank 0 cannot write fails on every rank;
- ranks whose variables differ in shape all fail with Ep.ShapeError.

Exits 0 when every check passed on this rank; an assertion ends it
otherwise, and mpirun the job.
"""

import os
import sys

import gi

gi.require_version("Ep", "1.0")
import numpy as np  # noqa: E402
from gi.repository import Ep  # noqa: E402

BATCH = 12          # divisible by 2 and by 3: equal shards
RTOL, ATOL = 2e-5, 1e-6


def make_model():
    return Ep.Sequential(Ep.Linear(8, 16), Ep.Tanh(), Ep.Linear(16, 3))


def values(model):
    return [v.read().numpy().copy() for v in model.variables]


def gathered(comm, arrays):
    """Every rank's arrays, flattened and concatenated: (size, n)"""
    flat = np.concatenate([a.ravel() for a in arrays]).astype(np.float64)
    return comm.all_gather(Ep.astensor(flat[None, :])).numpy()


def assert_ranks_equal(comm, arrays, what):
    every = gathered(comm, arrays)
    for r in range(1, comm.get_size()):
        assert np.array_equal(every[r], every[0]), f"{what}: rank {r} differs from rank 0"


def gradients(model, x, y):
    with Ep.GradientTape() as tape:
        loss = model(Ep.astensor(x)).sparse_softmax_crossentropy(Ep.astensor(y))
    return tape.gradient(loss, model.trainable_variables)


def check_broadcast(comm):
    rank = comm.get_rank()
    Ep.set_seed(100 + rank)
    model = make_model()
    before = values(model)
    ddp = Ep.DataParallel(comm, model)
    after = values(model)
    # the ranks drew different values; now they hold rank 0's
    every_before = gathered(comm, before)
    assert not np.array_equal(every_before[0], every_before[-1]), "the ranks drew the same values"
    assert_ranks_equal(comm, after, "after the broadcast")
    assert np.array_equal(every_before[0], gathered(comm, after)[rank])
    return model, ddp


def check_gradients(comm, model, ddp):
    size, rank = comm.get_size(), comm.get_rank()
    rng = np.random.default_rng(7)            # the same batch on every rank
    x = rng.standard_normal((BATCH, 8)).astype(np.float32)
    y = rng.integers(0, 3, BATCH).astype(np.int64)
    shard = slice(rank * BATCH // size, (rank + 1) * BATCH // size)

    whole = [g.numpy() for g in gradients(model, x, y)]
    local = gradients(model, x[shard], y[shard])
    assert not all(np.allclose(g.numpy(), w) for g, w in zip(local, whole)), \
        "a shard's gradients are the whole batch's: the test would prove nothing"
    for bucket_size in (Ep.DATA_PARALLEL_DEFAULT_BUCKET_SIZE, 0, 200):
        ddp.bucket_size = bucket_size
        averaged = ddp.average_gradients(local)
        assert len(averaged) == len(whole)
        for i, (a, w) in enumerate(zip(averaged, whole)):
            assert a.shape == w.shape and a.dtype == Ep.DType.FLOAT32
            np.testing.assert_allclose(a.numpy(), w, rtol=RTOL, atol=ATOL,
                                       err_msg=f"gradient {i}, bucket_size {bucket_size}")
    ddp.bucket_size = Ep.DATA_PARALLEL_DEFAULT_BUCKET_SIZE

    # None is zeros: rank 0 gives none for the first variable, the others ones
    ones = [np.ones(v.shape, np.float32) for v in model.trainable_variables]
    given = [None if (i == 0 and rank == 0) else o for i, o in enumerate(ones)]
    averaged = ddp.average_gradients(given)
    np.testing.assert_allclose(averaged[0].numpy(), np.full(ones[0].shape, (size - 1) / size), rtol=1e-6)
    np.testing.assert_allclose(averaged[1].numpy(), ones[1], rtol=1e-6)
    return x, y


def check_optimizers(comm, model, ddp, x, y):
    size, rank = comm.get_size(), comm.get_rank()
    shard = slice(rank * BATCH // size, (rank + 1) * BATCH // size)
    for optimizer in (Ep.Sgd.new(0.1, 0.9), Ep.Adam.new(1e-2), Ep.Rmsprop.new(1e-2),
                      Ep.Adagrad.new(1e-2)):
        before = values(model)
        variables = model.trainable_variables
        for _ in range(2):
            optimizer.apply_gradients(ddp.average_gradients(gradients(model, x[shard], y[shard])), variables)
        after = values(model)
        assert any(not np.array_equal(b, a) for b, a in zip(before, after)), type(optimizer).__name__
        assert_ranks_equal(comm, after, f"after {type(optimizer).__name__} steps")


def check_staged(comm, x, y):
    size, rank = comm.get_size(), comm.get_rank()
    shard = slice(rank * BATCH // size, (rank + 1) * BATCH // size)
    Ep.set_seed(3)
    eager_model, staged_model = make_model(), make_model()
    for a, b in zip(eager_model.variables, staged_model.variables):
        b.assign(a.read())
    eager_ddp = Ep.DataParallel(comm, eager_model)
    staged_ddp = Ep.DataParallel(comm, staged_model)
    eager_opt, staged_opt = Ep.Adam.new(1e-2), Ep.Adam.new(1e-2)

    def step(model, ddp, optimizer, xs, ys):
        with Ep.GradientTape() as tape:
            loss = model(xs).sparse_softmax_crossentropy(ys)
        variables = model.trainable_variables
        optimizer.apply_gradients(ddp.average_gradients(tape.gradient(loss, variables)), variables)
        return loss

    staged = Ep.function(step)
    xs, ys = Ep.astensor(x[shard]), Ep.astensor(y[shard])
    for _ in range(3):
        step(eager_model, eager_ddp, eager_opt, xs, ys)
        staged(staged_model, staged_ddp, staged_opt, xs, ys)
    for a, b in zip(values(eager_model), values(staged_model)):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    assert_ranks_equal(comm, values(staged_model), "after staged steps")


def check_checkpoint(comm, model, ddp, folder):
    rank = comm.get_rank()
    optimizer = Ep.Adam.new(1e-3)
    variables = model.trainable_variables
    optimizer.apply_gradients([Ep.ones(*v.shape) for v in variables], variables)
    wanted = os.path.join(folder, "model.safetensors")
    path = wanted if rank == 0 else os.path.join(folder, f"rank{rank}.safetensors")
    ddp.save_checkpoint(path, model, optimizer)
    # every rank returns once the file is there; no other rank wrote
    assert os.path.exists(wanted)
    comm.barrier()
    assert sorted(os.listdir(folder)) == ["model.safetensors"], os.listdir(folder)
    restored, restored_opt = make_model(), Ep.Adam.new(1e-3)
    restored.restore_checkpoint(wanted, restored_opt)
    for a, b in zip(values(model), values(restored)):
        assert np.array_equal(a, b)
    assert restored_opt.get_iterations() == 1

    # rank 0 cannot write: every rank fails, with rank 0's error
    missing = os.path.join(folder, "no such folder", "model.safetensors")
    try:
        ddp.save_checkpoint(missing, model, optimizer)
    except Ep.Error as error:
        assert "save_checkpoint" in str(error) or rank == 0, str(error)
        if rank != 0:
            assert "rank 0" in str(error), str(error)
    else:
        raise AssertionError("save_checkpoint to a missing folder succeeded")


def check_mismatch(comm):
    """Ranks whose variables differ fail together, with a shape error"""
    rank = comm.get_rank()
    variable = Ep.Variable(np.zeros(rank + 2, np.float32))
    try:
        Ep.DataParallel(comm, [variable])
    except Ep.ShapeError as error:
        assert error.message.startswith("data_parallel_new: "), error.message
    else:
        raise AssertionError("variables of other shapes on each rank were broadcast")


def main(argv):
    folder = argv[1]
    comm = Ep.Communicator.get_world()
    assert comm.get_size() >= 2, "run this under mpirun -np 2 or more"
    comm.set_timeout(60_000)
    model, ddp = check_broadcast(comm)
    x, y = check_gradients(comm, model, ddp)
    check_optimizers(comm, model, ddp, x, y)
    check_staged(comm, x, y)
    check_checkpoint(comm, model, ddp, folder)
    check_mismatch(comm)
    comm.barrier()
    print(f"rank {comm.get_rank()} of {comm.get_size()}: ok", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
