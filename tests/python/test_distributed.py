"""EpCommunicator and the collective ops from Python (issue 18).

The same tests run in one process (the world of size 1, meson's
test_distributed.py) and under `mpirun -np 2` (tests/python/meson.build):
every expected value is written for n processes, this one rank r.
The C tests (tests/c/test-communicator.c) hold the failures (a process
that skips a collective or dies), threads and OpenCL."""

import numpy as np
import pytest

import gi
gi.require_version("Ep", "1.0")
from gi.repository import Ep  # noqa: E402

comm = Ep.Communicator.get_world()
n, r = comm.size, comm.rank


def test_world():
    assert Ep.Communicator.get_world() is comm
    assert 0 <= r < n
    assert comm.get_size() == n and comm.props.rank == r
    assert repr(comm) == f"<Ep.Communicator rank={r} size={n}>"
    assert comm.props.timeout == 30 * 60 * 1000
    assert not comm.get_failed()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "int8", "int16", "float16"])
def test_all_reduce_sum(dtype):
    x = np.array([[r + 1, -(r + 1)], [2 * r, 3]], dtype=dtype)
    y = comm.all_reduce(x, "sum")
    s = n * (n + 1) // 2
    np.testing.assert_array_equal(y.numpy(), np.array([[s, -s], [n * (n - 1), 3 * n]], dtype=dtype))
    assert y.dtype == dtype


def test_all_reduce_ops():
    x = np.array([r, -r, 7.5])
    np.testing.assert_allclose(comm.all_reduce(x, Ep.ReduceOp.MEAN).numpy(), [(n - 1) / 2, -(n - 1) / 2, 7.5])
    np.testing.assert_array_equal(comm.all_reduce(x, "max").numpy(), [n - 1, 0, 7.5])
    np.testing.assert_array_equal(comm.all_reduce(x, "min").numpy(), [0, -(n - 1), 7.5])
    b = np.array([r == 0, True, False])
    np.testing.assert_array_equal(comm.all_reduce(b, "max").numpy(), [True, True, False])
    np.testing.assert_array_equal(comm.all_reduce(b, "min").numpy(), [n == 1, True, False])


def test_all_reduce_layouts():
    m = np.arange(12.0).reshape(3, 4)
    y = comm.all_reduce(Ep.astensor(m)[::2, ::-1].T, "sum")
    np.testing.assert_array_equal(y.numpy(), n * m[::2, ::-1].T)
    assert comm.all_reduce(np.zeros((0, 3)), "sum").shape == (0, 3)
    assert comm.all_reduce(np.float64(r), "sum").item() == n * (n - 1) / 2


def test_broadcast():
    y = comm.broadcast(np.array([r, 10 * r], dtype="int64"), n - 1)
    np.testing.assert_array_equal(y.numpy(), [n - 1, 10 * (n - 1)])
    for root in (-1, n, 2**31 - 1):
        with pytest.raises(Ep.InvalidArgumentError, match="broadcast: root"):
            comm.broadcast([1.0], root)


def test_all_gather():
    y = comm.all_gather(np.array([[r, 10 * r]], dtype="float32"))
    np.testing.assert_array_equal(y.numpy(), [[k, 10 * k] for k in range(n)])
    with pytest.raises(Ep.ShapeError, match="all_gather: .*0-d"):
        comm.all_gather(1.0)


def test_reduce_scatter():
    x = np.arange(2.0 * n).reshape(2 * n, 1) + r
    full = n * np.arange(2.0 * n) + n * (n - 1) / 2
    np.testing.assert_array_equal(comm.reduce_scatter(x, "sum").numpy().ravel(), full[2 * r:2 * r + 2])
    np.testing.assert_array_equal(comm.reduce_scatter(x, "mean").numpy().ravel(), full[2 * r:2 * r + 2] / n)
    if n > 1:
        with pytest.raises(Ep.ShapeError, match="does not split"):
            comm.reduce_scatter(np.zeros(2 * n + 1), "sum")


def test_barrier():
    assert comm.barrier()


def test_errors():
    with pytest.raises(Ep.DTypeError, match="all_reduce: cannot sum tensors of type bool"):
        comm.all_reduce([True, False], "sum")
    with pytest.raises(Ep.DTypeError, match="all_reduce: the mean needs a floating-point tensor"):
        comm.all_reduce([1, 2], "mean")
    with pytest.raises(ValueError, match="'prod' is not one of"):
        comm.all_reduce([1.0], "prod")
    bare = Ep.Communicator()
    assert bare.get_rank() == -1 and bare.get_size() == 0
    with pytest.raises(Ep.InvalidArgumentError, match="get_world"):
        bare.all_reduce([1.0], "sum")
    x = Ep.astensor([1.0])
    x.release()
    with pytest.raises(Ep.InvalidArgumentError):
        comm.all_reduce(x, "sum")


@pytest.mark.skipif(n == 1, reason="one process")
def test_mismatch():
    with pytest.raises(Ep.ShapeError, match=r"rank 0: float32 \(2,\), rank 1: float32 \(3,\)"):
        comm.all_reduce(np.zeros(3 if r == 1 else 2, dtype="float32"), "sum")
    assert not comm.get_failed()
    assert comm.all_reduce([1.0], "sum").item() == n


def test_gradients():
    """Each rank takes the gradient; the rules' collectives meet."""
    x = Ep.astensor([float(r), 5.0])
    with Ep.GradientTape() as tape:
        tape.watch(x)
        loss = comm.all_reduce(x * x, "sum").sum()
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), [2.0 * r * n, 10.0 * n])
    with Ep.GradientTape() as tape:
        tape.watch(x)
        loss = comm.all_reduce(x, "max").sum()
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), [n if r == n - 1 else 0, 1])
    w = Ep.arange(2 * n, dtype="float64")
    with Ep.GradientTape() as tape:
        tape.watch(x)
        loss = (comm.all_gather(x) * w).sum()
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), [2.0 * r * n, (2.0 * r + 1) * n])


def test_staged_with_gradient():
    """A staged step: all_reduce(mean) of the gradients inside
    Ep.function, replayed on every rank."""
    w = Ep.Variable(Ep.astensor([1.0, 2.0]))

    @Ep.function
    def step(x):
        with Ep.GradientTape() as tape:
            loss = ((w.read() * x) ** 2).sum()
        g = tape.gradient(loss, w)
        return comm.all_reduce(g, "mean")

    for k in range(3):
        x = Ep.astensor([float(r + k), 1.0])
        mean_x2 = np.mean([(q + k) ** 2 for q in range(n)])
        np.testing.assert_allclose(step(x).numpy(), [2 * 1.0 * mean_x2, 2 * 2.0])


def test_gradient_through_staged_call():
    """A tape around a staged call with a collective: the staged backward
    pass runs its collectives on every rank."""
    @Ep.function
    def f(x):
        return comm.all_reduce(x * x, "sum").sum()

    for k in range(3):
        x = Ep.astensor([float(r + k), 2.0])
        with Ep.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        s = sum((q + k) ** 2 + 4.0 for q in range(n))
        assert y.item() == pytest.approx(s)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0 * (r + k) * n, 4.0 * n])


def test_graph_file():
    """A saved graph with a collective loads and runs on every rank (each
    rank writes its own file: the world is the same in every process)."""
    import tempfile
    from gi.repository import Gio

    def double_sum(inputs, n_inputs, user_data):
        return [comm.all_reduce(inputs[0] * 2.0, "sum")]

    spec = Ep.TensorSpec.new([2], Ep.DType.FLOAT32)
    function = Ep.Function.new_with_signature(double_sum, None, [spec])
    x = Ep.astensor(np.array([r, 1.0], dtype="float32"))
    np.testing.assert_allclose(function.call([x])[0].numpy(), [n * (n - 1), 2.0 * n])
    # (pytest's tmp_path: every rank's pytest would clean the same root)
    with tempfile.TemporaryDirectory() as directory:
        path = f"{directory}/collective.json"
        function.save([spec], Gio.File.new_for_path(path), None)
        loaded = Ep.Function.load(Gio.File.new_for_path(path), None)
    out = loaded.call([x])
    np.testing.assert_allclose(out[0].numpy(), [n * (n - 1), 2.0 * n])
