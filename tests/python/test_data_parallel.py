"""Ep.DataParallel in one process (a world of one rank): what it gives and
its errors. Several ranks: test_ddp_mpi.py (under mpirun), whose ranks
run ddp_ranks.py. The C side is tests/c/test-data-parallel.c."""

import os

import numpy as np
import pytest
from gi.repository import Ep, GObject


@pytest.fixture
def comm():
    world = Ep.Communicator.get_world()
    assert world.get_size() == 1
    return world


def make_model():
    Ep.set_seed(0)
    return Ep.Sequential(Ep.Linear(4, 5), Ep.Tanh(), Ep.Linear(5, 2))


def gradients(model):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 4)).astype(np.float32)
    y = rng.integers(0, 2, 6).astype(np.int64)
    with Ep.GradientTape() as tape:
        loss = model(Ep.astensor(x)).sparse_softmax_crossentropy(Ep.astensor(y))
    return tape.gradient(loss, model.trainable_variables)


def test_one_rank_keeps_values_and_gradients(comm):
    model = make_model()
    before = [v.read().numpy().copy() for v in model.variables]
    ddp = Ep.DataParallel(comm, model)
    for b, v in zip(before, model.variables):
        assert np.array_equal(b, v.read().numpy())
    grads = gradients(model)
    for bucket_size in (Ep.DATA_PARALLEL_DEFAULT_BUCKET_SIZE, 0, 24, 1 << 30):
        ddp.bucket_size = bucket_size
        averaged = ddp.average_gradients(grads)
        assert [a.shape for a in averaged] == [g.shape for g in grads]
        for a, g in zip(averaged, grads):
            assert a is not g
            assert np.array_equal(a.numpy(), g.numpy())


def test_none_is_zeros(comm):
    model = make_model()
    ddp = Ep.DataParallel(comm, model)
    grads = gradients(model)
    averaged = ddp.average_gradients([None] + grads[1:])
    assert averaged[0].shape == grads[0].shape
    assert not averaged[0].numpy().any()
    assert np.array_equal(averaged[1].numpy(), grads[1].numpy())


def test_variables_and_properties(comm):
    model = make_model()
    ddp = Ep.DataParallel(comm, model, bucket_size=1000)
    assert ddp.bucket_size == 1000
    assert ddp.communicator == comm
    assert ddp.variables == model.trainable_variables
    w = Ep.Variable(np.zeros((2, 2), np.float32))
    assert Ep.DataParallel(comm, [w]).variables == [w]


def test_module_with_frozen_variable(comm):
    """new_for_module averages the trainable variables' gradients only."""
    model = make_model()
    model[0].get_variable("bias").trainable = False
    ddp = Ep.DataParallel(comm, model)
    assert len(ddp.variables) == len(model.variables) - 1
    ddp.average_gradients(gradients(model))


def test_with_optimizer_in_staged_step(comm):
    model = make_model()
    ddp = Ep.DataParallel(comm, model)
    optimizer = Ep.Sgd.new(0.5, 0.0)
    x = Ep.astensor(np.ones((3, 4), np.float32))
    y = Ep.astensor(np.array([0, 1, 0]))

    @Ep.function
    def step(x, y):
        with Ep.GradientTape() as tape:
            loss = model(x).sparse_softmax_crossentropy(y)
        variables = model.trainable_variables
        optimizer.apply_gradients(ddp.average_gradients(tape.gradient(loss, variables)), variables)
        return loss

    first = step(x, y).item()
    for _ in range(5):
        last = step(x, y).item()
    assert last < first


def test_checkpoint_one_rank(comm, tmp_path):
    model = make_model()
    ddp = Ep.DataParallel(comm, model)
    optimizer = Ep.Adam.new(1e-3)
    path = tmp_path / "model.safetensors"
    ddp.save_checkpoint(path, model, optimizer)
    restored = make_model()
    for v in restored.variables:
        v.assign(np.zeros(v.shape, np.float32))
    restored.restore_checkpoint(path, optimizer)
    for a, b in zip(model.variables, restored.variables):
        assert np.array_equal(a.read().numpy(), b.read().numpy())


def test_checkpoint_error(comm, tmp_path):
    model = make_model()
    ddp = Ep.DataParallel(comm, model)
    with pytest.raises(Ep.Error):
        ddp.save_checkpoint(tmp_path / "missing" / "model.safetensors", model)
    assert not os.path.exists(tmp_path / "missing")


def test_errors(comm):
    model = make_model()
    ddp = Ep.DataParallel(comm, model)
    grads = gradients(model)
    with pytest.raises(Ep.InvalidArgumentError, match="one gradient per variable"):
        ddp.average_gradients(grads[:-1])
    with pytest.raises(Ep.ShapeError, match="average_gradients: gradient 0 has shape"):
        ddp.average_gradients([grads[0].T] + grads[1:])
    with pytest.raises(Ep.DTypeError, match="average_gradients: gradient 1 is float64"):
        ddp.average_gradients([grads[0], grads[1].astype("float64")] + grads[2:])
    released = grads[0] * 1
    released.release()
    with pytest.raises(Ep.Error, match="average_gradients"):
        ddp.average_gradients([released] + grads[1:])
    counter = Ep.Variable(np.zeros(3, np.int64))
    with pytest.raises(Ep.DTypeError, match="floating-point"):
        Ep.DataParallel(comm, [counter]).average_gradients([None])


def test_construction_errors(comm):
    with pytest.raises(Ep.InvalidArgumentError, match="data_parallel_new: a communicator"):
        Ep.DataParallel(None, make_model())
    with pytest.raises(Ep.InvalidArgumentError, match="data_parallel_new: a communicator"):
        Ep.DataParallel("world", [])
    with pytest.raises(Ep.InvalidArgumentError, match="a module or a list"):
        Ep.DataParallel(comm, 3)


def test_bare_object():
    bare = GObject.new(Ep.DataParallel)
    assert bare.communicator is None
    with pytest.raises(Ep.InvalidArgumentError, match="average_gradients: the object has no communicator"):
        bare.average_gradients([])
    with pytest.raises(Ep.InvalidArgumentError, match="broadcast_variables: the object has no communicator"):
        bare.broadcast_variables()
    with pytest.raises(Ep.InvalidArgumentError, match="save_checkpoint: the object has no communicator"):
        bare.save_checkpoint("x.safetensors", make_model())
