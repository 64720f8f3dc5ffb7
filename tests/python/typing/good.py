"""A user script that must type-check against the generated stubs, and
run: it uses every entry point of the Python layer, and checks with
assert_type that mypy sees the types it returns."""

from __future__ import annotations

from typing import Any, Callable, Union, assert_type

import gi

gi.require_version("Ep", "1.0")
import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402
from gi.repository import Ep, GLib  # noqa: E402

# creation and conversion
x = Ep.astensor([1.0, 2.0, 3.0])
norm: Ep.Tensor = x.square().sum().sqrt()
value: float = float(norm)
item = norm.item()
assert_type(item, Union[bool, int, float])
total = x.sum(axis=0, keepdims=True) + np.ones(3) * 2
shape: tuple[int, ...] = total.shape
matrix = Ep.zeros((2, 3), dtype="float64") @ Ep.ones(3, dtype=Ep.DType.FLOAT64)
array: np.ndarray = np.asarray(matrix)
assert_type(matrix.numpy(), npt.NDArray[Any])
mean = Ep.astensor(np.arange(6.0).reshape(2, 3)).mean(axis=(0, 1))
text: str = repr(mean) + str(mean.T) + f"{norm:.3f}"
n: int = len(Ep.arange(5)) + int(Ep.arange(5)[2]) + Ep.arange(3).ndim + Ep.arange(3).size
devices = [d.get_name() for d in Ep.list_devices()]
try:
    x + Ep.zeros(4)
except GLib.Error as e:
    print(e.message)
joined: Ep.Tensor = Ep.concatenate([x, x]).flip().clip(0, 1).take([0, 1])
rows = [row.sum() for row in Ep.ones((2, 3))]
dtypes: list[Ep.DTypeLike] = [Ep.float32, Ep.DType.INT32, "int64", "bool", np.float64, np.dtype("int32"),
                               float, int, bool]
for dtype in dtypes:
    assert_type(Ep.zeros(2, dtype=dtype).astype(dtype), Ep.Tensor)
counts = Ep.arange(10) + Ep.arange(1, 11, 1, dtype=Ep.int64) + Ep.arange(0.5, dtype=float)
grid = Ep.full((2, 2), 7.0, dtype=Ep.float64) * Ep.eye(2, k=0) + Ep.eye(2, 3, dtype=np.float32)[:, :2]
Ep.set_seed(0)
noise = Ep.uniform((2, 3), low=-1.0, high=1.0) + Ep.normal(3, mean=0.0, stddev=0.1, dtype="float32")
line = Ep.linspace(0, 1, num=5, endpoint=False, dtype="float64")
chosen = Ep.where(x > 1, x, 0.0) + Ep.minimum(x, 2) + Ep.maximum(1, x) + Ep.clip(x, max=2.5)
assert_type(Ep.stack([x, np.zeros(3)], axis=1), Ep.Tensor)
xs, ys = Ep.meshgrid(Ep.arange(3), [0.0, 1.0], indexing="ij")
assert_type(Ep.meshgrid(x, x), list[Ep.Tensor])
assert_type(Ep.dot(x, x) + Ep.outer(x, [1.0, 2.0]).sum(), Ep.Tensor)
scalar = Ep.astensor(2.5, dtype="float64") ** 2 - 1 // Ep.astensor(3) % 2
flags = (x > 1) & (x < 3) | ~(x == 2)
big: bool = bool((x != 0).all())

# math: reductions with axis and keepdims, sorting, softmax
m = Ep.astensor(np.arange(12.0).reshape(3, 4))
reduced = [m.sum(), m.sum(axis=1), m.mean(axis=(0, 1), keepdims=True), m.prod(axis=None), m.max(0),
           m.min(axis=[1]), (m > 1).all(), (m > 2).any(axis=0), m.logsumexp(1), m.l1(), m.l2(axis=0), m.linf(),
           m.l0(keepdims=True), m.lp(3, axis=1), m.argmax(axis=1), m.argmin(), m.cumsum(axis=0),
           m.cumsum(), m.sort(), m.sort(axis=None), m.argsort(axis=0), m.softmax(), m.log_softmax(axis=0)]
values, indices = m.topk(2, sorted=False)
assert_type(m.topk(1), tuple[Ep.Tensor, Ep.Tensor])
labels = Ep.astensor([0, 1, 3])
loss = m.crossentropy(labels).mean() + m.onehot_like(labels, value=2.0).sum()
assert_type(m.floordiv(2) + m.mod(3) + m.minimum(1) + m.maximum(2.0) + m.clip(min=1), Ep.Tensor)

# shapes and indexing
assert_type(m[0], Ep.Tensor)
parts = [m[1:, ::2], m[..., None], m[:, [0, 2]], m[m > 3], m[np.array([0, 2])], m[0, -1], m[:2, 1:3],
         m[Ep.astensor([True, False, True])], m[np.int64(1)], m[[[0], [1]], [1, 2]]]
reshaped = [m.reshape(4, 3), m.reshape((2, 6)), m.reshape([12]), m.transpose(), m.transpose(1, 0),
            m.transpose((1, 0)), m.flatten(), m.flatten(0, -1), m.broadcast_to(2, 3, 4),
            m.broadcast_to((2, 3, 4)), m.flip(), m.flip(axis=0), m.slice([0, None], [None, 3], [1, 2]),
            m.tile(2), m.tile([2]), m.tile((2, 1)), m.pad(1), m.pad(((0, 1), (2, 0)), mode="reflect"),
            m.pad([1, 2], constant_values=-1), m.pad(1, mode=Ep.PadMode.CONSTANT), m.take(0),
            m.take([1, 2], axis=1), m.take_along_axis(m.argsort(axis=1), axis=1), m.mask(m > 5),
            m.index_update([0], 0.0, axis=0), m.scatter_add(1, Ep.ones(4), axis=0), m.squeeze(),
            m.expand_dims(0), Ep.eye(2).solve([1.0, 2.0])]
halves: list[Ep.Tensor] = m.split(2, axis=1) + m.split([1, 2])
assert_type(m.split(3), list[Ep.Tensor])
assert_type(m.split_at([1, 2], axis=0), list[Ep.Tensor])
sign, logabsdet = Ep.eye(2).slogdet()
assert_type(Ep.eye(2).slogdet(), tuple[Ep.Tensor, Ep.Tensor])
# enums: the GI enum or its nick
modes = [m.pad(1, mode=Ep.PadMode.REFLECT), Ep.pad(m, [(1, 1), (0, 2)], "reflect", constant_values=0.5),
         Ep.meshgrid(x, x, indexing=Ep.MeshIndexing.IJ)[0]]
# axis=None (NumPy's: the flattened tensor) where C takes one axis, axis=() no axes
flat = [m.argmax(axis=None), m.argmin(axis=None, keepdims=True), m.cumsum(axis=None), m.sort(axis=None),
        m.argsort(axis=None), m.take([0, 5], axis=None), m.take_along_axis(Ep.astensor([1, 0]), axis=None),
        Ep.concatenate([m, m], axis=None), m.sum(axis=()), m.max(axis=(), keepdims=True)]
# NumPy-style functions of the methods
functions = [Ep.sum(m, axis=0), Ep.exp(m), Ep.abs(-m), Ep.argmax(m, axis=None), Ep.cumsum(m),
             Ep.transpose(m, (1, 0)), Ep.reshape(m, (4, 3)), Ep.broadcast_to(1.0, (2, 2)), Ep.squeeze(m),
             Ep.take(m, [0, 1], axis=1), Ep.mask(m, m > 5), Ep.astype(m, "int32"), Ep.round(m),
             Ep.logical_not(m > 1), Ep.all([True, False]), Ep.matmul(m, m.T)]
parts_of_m: list[Ep.Tensor] = Ep.split(m, 2, axis=1)
assert_type(Ep.topk(m, 2), tuple[Ep.Tensor, Ep.Tensor])
product = m.dot(np.ones(4)) + m.T.outer(1.0).sum() + m.matmul(m.T).sum()

# devices
with Ep.device("cpu:0") as dev:
    assert_type(dev, Ep.Device)
    moved = m.to_device(dev).to_device("cpu:0")
with Ep.device(Ep.Device.get("cpu")):
    located: Ep.Device | None = moved.device


# automatic differentiation
def f(a: Ep.Tensor, b: Ep.Tensor) -> Ep.Tensor:
    return (a * b).sum()


a, b = Ep.astensor([1.0, 2.0]), Ep.astensor([3.0, 4.0])
value_ab, grad_a = Ep.value_and_grad(f, a, b)
assert_type(grad_a, Ep.Tensor)
value_ab, (grad_a, grad_b) = Ep.value_and_grad(f, a, b, argnums=(0, 1))
assert_type(Ep.value_and_grad(f, a, b, argnums=[0, 1])[1], tuple[Ep.Tensor, ...])


def with_steps(t: Ep.Tensor) -> tuple[Ep.Tensor, dict[str, int]]:
    return t.square().sum(), {"steps": 3}


value_t, steps, grad_t = Ep.value_aux_and_grad(with_steps, a)
assert_type(steps, dict[str, int])
assert_type(Ep.value_aux_and_grad(with_steps, a, argnums=(0,))[2], tuple[Ep.Tensor, ...])
assert_type(Ep.grad(f)(a, b), Ep.Tensor)
assert_type(Ep.grad(f, argnums=(0, 1))(a, [3.0, 4.0]), tuple[Ep.Tensor, ...])
step = Ep.value_and_grad_fn(f, argnums=1)
assert_type(step(a, b), tuple[Ep.Tensor, Ep.Tensor])
assert step.function.has_aux() is False
steps_fn = Ep.value_and_grad_fn(with_steps, has_aux=True)
assert_type(steps_fn(a), tuple[Ep.Tensor, dict[str, int], Ep.Tensor])
assert_type(Ep.value_and_grad_fn(f, (0, 1))(a, b)[1], tuple[Ep.Tensor, ...])
assert_type(Ep.value_and_grad_fn(with_steps, 0, True)(a)[1], dict[str, int])
constant = Ep.stop_gradient(a * 2)


@Ep.custom_gradient
def softplus(t: Ep.Tensor) -> tuple[Ep.Tensor, Callable[[Ep.Tensor], Ep.Tensor]]:
    def grad_fn(dy: Ep.Tensor) -> Ep.Tensor:
        return dy * t.sigmoid()
    return (t.exp() + 1).log(), grad_fn


def naive_softplus(t: Ep.Tensor) -> Ep.Tensor:
    return (t.exp() + 1).log()


def softplus_backward(inputs: tuple[Ep.Tensor, ...], y: Ep.Tensor, dy: Ep.Tensor) -> Ep.Tensor:
    return dy * inputs[0].sigmoid()


stable = Ep.custom_gradient(naive_softplus, softplus_backward)
also_stable = Ep.custom_gradient(backward=softplus_backward)(naive_softplus)
assert_type(softplus(a) + stable(a) + also_stable(1.0), Ep.Tensor)

w = Ep.Variable(np.ones((2, 2), np.float32), name="w")
bias = Ep.Variable([0.5, 0.5], trainable=True, dtype="float32")
w.trainable = True
name: str | None = w.name
assert_type(w.shape, tuple[int, ...])
with Ep.GradientTape(persistent=True, watch_accessed_variables=True, unconnected_gradients="zero") as tape:
    tape.watch(a)
    tape.watch([a, b, w])
    out = (a @ w + bias).tanh()
    with tape.stop_recording():
        assert not tape.is_recording()
    loss_w = out.sum() + w.sum(axis=0).mean() + (w * w).sum() + bias[0] + abs(-w).sum()
assert_type(tape.gradient(loss_w, w), Ep.Tensor)
assert_type(tape.gradient(loss_w, [w, bias]), list[Ep.Tensor])
grads = tape.gradient([loss_w, out], (a, w), output_gradients=(1.0, np.ones(2)), unconnected_gradients="none")
assert_type(grads, tuple[Ep.Tensor, ...])
jacobian = tape.jacobian(out, a) + tape.batch_jacobian(out[None], a[None], unconnected_gradients="zeros").sum()
watched: tuple[Ep.Variable, ...] = tape.watched_variables()
w.assign_sub(tape.gradient(loss_w, w) * 0.1)
w.assign(np.zeros((2, 2)))
bias.assign_add(1)
assert_type(w.numpy(), npt.NDArray[Any])
assert_type(Ep.Variable(3.0).item(), Union[bool, int, float])


# staged functions
@Ep.function
def staged_norm(t: Ep.Tensor, scale: float = 1.0) -> Ep.Tensor:
    return (t * scale).square().sum().sqrt()


assert_type(staged_norm(x), Ep.Tensor)
assert_type(staged_norm(x, scale=2.0), Ep.Tensor)
traces: int = staged_norm.trace_count
original: Callable[[Ep.Tensor, float], Ep.Tensor] = staged_norm.python_function
concrete = staged_norm.get_concrete_function(x, 2.0)
assert_type(concrete(x, 2.0), Ep.Tensor)
specs: tuple[Ep.TensorSpec, ...] = concrete.inputs + concrete.outputs
batch = Ep.TensorSpec((None, 3), dtype="float32")
extents: tuple[int | None, ...] = batch.shape


@Ep.function(input_signature=[batch, [Ep.TensorSpec(()), {"scale": Ep.TensorSpec(3)}]])
def row_norms(t: Ep.Tensor, extra: list[Any]) -> dict[str, Ep.Tensor]:
    return {"norms": (t * extra[1]["scale"]).l2(axis=1) + extra[0]}


assert_type(row_norms(Ep.ones((4, 3)), [0.0, {"scale": [1.0, 2.0, 3.0]}]), dict[str, Ep.Tensor])
staged_f = Ep.function(f, input_signature=(Ep.TensorSpec([2]), Ep.TensorSpec([2])))
assert_type(staged_f(a, b), Ep.Tensor)


class Model:
    def __init__(self) -> None:
        self.w = Ep.Variable([1.0, 2.0, 3.0])

    @Ep.function
    def apply(self, t: Ep.Tensor) -> Ep.Tensor:
        return self.w * t


assert_type(Model().apply(x), Ep.Tensor)
apply: Ep.StagedFunction[[Model, Ep.Tensor], Ep.Tensor] = Model.apply
applied: int = Model().apply.trace_count


class Net(Ep.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = Ep.Linear(3, 2, bias=False, dtype="float64")

    def do_call(self, t: Ep.Tensor) -> Ep.Tensor:
        return self.fc(t).relu()


net = Net()
assert_type(net(x), Ep.Tensor)
assert_type(net.trainable_variables, list[Ep.Variable])
assert_type(net.named_variables(), list[tuple[str, Ep.Variable]])
assert_type(net.eval(), Ep.Module)
assert_type(Ep.Sequential(Ep.Linear(2, 3), Ep.Relu(), Ep.Tanh())[0], Ep.Module)

# zero copy, DLPack, constructors, pickling (docs/python.md)
import copy  # noqa: E402
import pickle  # noqa: E402

view = Ep.arange(6.0).reshape(2, 3).numpy()
assert_type(view, npt.NDArray[Any])
assert_type(Ep.from_dlpack(np.arange(3.0)), Ep.Tensor)
assert_type(np.from_dlpack(Ep.arange(3.0)), npt.NDArray[Any])
assert_type(Ep.arange(3.0).__dlpack_device__(), tuple[int, int])
assert_type(Ep.Tensor([1.0, 2.0]), Ep.Tensor)
assert_type(Ep.tensor([1, 2], dtype="float64", device="cpu"), Ep.Tensor)
made = Ep.zeros(3, 4) + Ep.ones((3, 4)) + Ep.empty(3, 4, dtype=Ep.float32) + Ep.randn(3, 4) + Ep.rand(3, 4)
assert_type(made.to("cpu").to("float64"), Ep.Tensor)
assert_type(made.index_update((slice(None), 1), 66.0).scatter_add([0], 1.0), Ep.Tensor)
assert_type(copy.deepcopy(Ep.Variable([1.0])), Ep.Variable)
restored: Ep.Tensor = pickle.loads(pickle.dumps(made))
# errors by kind, dtypes as NumPy's, NumPy's protocols (docs/python.md)
try:
    x + Ep.zeros(4)
except Ep.ShapeError as shape_error:
    assert_type(shape_error.code, int)
    assert shape_error.code == Ep.Error.SHAPE and isinstance(shape_error, ValueError)
except Ep.Error as error:
    print(error.domain)
assert x.dtype == np.float32 and str(x.dtype) == "float32" and x.dtype.name == "float32"
numpy_dtype: np.dtype[Any] = np.dtype(x.dtype)
assert_type(Ep.float64, Ep.DType)
as_float64: Ep.Tensor = x.astype(Ep.float64)
exponential = np.exp(x)
# memory scopes
scoped = Ep.tidy(lambda: {"a": x * 2, "b": [x + 1]})
assert_type(scoped, dict[str, object])
kept_t: Ep.Tensor = Ep.keep(x * 3)
Ep.dispose([kept_t, None])
usage = Ep.memory()
in_use: int = usage.n_bytes + usage.n_tensors + usage.devices["cpu:0"].n_bytes
recorded: Ep.Tensor = Ep.GradientTape().record(lambda: (x * x).sum())
# forward mode
with Ep.ForwardAccumulator(x, [1.0, 0.0, 0.0], unconnected_gradients="zero") as accumulator:
    forward_y = (x * x).sin()
tangent: Ep.Tensor = accumulator.jvp(forward_y)
tangent_list: list[Ep.Tensor] = accumulator.jvp([forward_y, x])
forward_recorded: Ep.Tensor = accumulator.record(lambda: x.exp())
jvp_out, jvp_tangent = Ep.jvp(lambda a: a.tanh(), (x,), (np.ones(3, dtype=np.float32),))
hvp_value, hvp_product = Ep.hvp(lambda a: (a * a * a).sum(), x, np.ones(3, dtype=np.float32))
assert_type(hvp_value, Ep.Tensor)
# distributed (issue 18)
comm = Ep.Communicator.get_world()
all_reduced: Ep.Tensor = comm.all_reduce(x, "sum") + comm.all_reduce([1.0], Ep.ReduceOp.MAX)
gathered: Ep.Tensor = comm.all_gather(np.ones((1, 2))) + comm.broadcast(x, 0).sum()
rank_size: int = comm.rank + comm.size
