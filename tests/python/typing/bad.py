"""Wrong calls that the stubs must catch; each line says what mypy says.

One wrong call per line, after the lines that set them up. The test runs
each one too, after the set-up: it must fail, unless the line says why it
runs (the stubs are stricter there than PyGObject, or it fails later) or
only the annotation of an assignment is wrong."""

import gi

gi.require_version("Ep", "1.0")
import numpy as np  # noqa: E402
from gi.repository import Ep  # noqa: E402

x = Ep.astensor([1.0, 2.0])
m = Ep.ones((2, 2))
v = Ep.Variable([1.0, 2.0], name="v")
with Ep.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = (x * v).sum()


def f(t: Ep.Tensor) -> Ep.Tensor:
    return t.square().sum()


# the tensor API
x.sum(axis="rows")  # E: arg-type
x.square(2)  # E: call-arg
label: str = x.shape  # E: assignment
count: str = x.ndim  # E: assignment
x.reshape(2).numpy().nosuchmethod  # E: attr-defined
x.mean(axis=0, keepdim=True)  # E: call-arg
x.max(axis=1.5)  # E: arg-type
x.reshape("2")  # E: arg-type
x.transpose("T")  # E: arg-type
x.astype(x)  # E: arg-type
x.to_device(3)  # E: arg-type
x.clip(min="0")  # E: arg-type
x.lp("2")  # E: arg-type
x.topk("2")  # E: arg-type
top, indices, extra = x.topk(1)  # E: misc
x.sort(axis="last")  # E: arg-type
x.softmax(axis=None)  # E: arg-type
x.cumsum(axis=(0,))  # E: arg-type
m.argmax(axis=(0, 1))  # E: arg-type
x.take([0], axis=(0,))  # E: arg-type
x["a"]  # E: index
x[1.5]  # E: index
x.take([0.5])  # E: arg-type
x.split(2.5)  # E: arg-type
x.pad(1, mode="edge")  # E: arg-type
x.pad(1, mode=Ep.MeshIndexing.XY)  # E: arg-type
x.index_update([0], 1.0, axis="0")  # E: arg-type
m.mask(np.ones((2, 2)))  # E: arg-type
halves: tuple[Ep.Tensor, ...] = x.split(2)  # E: assignment
# functions
Ep.zeros((2, 3), kind="float32")  # E: call-arg
Ep.zeros(3, dtype=x)  # E: arg-type
Ep.astensor([1.0], dtype="complex64")  # E: arg-type
Ep.arange(10, dtype="uint16")  # E: arg-type
Ep.eye(3, dtype=Ep.zeros(1))  # E: arg-type
Ep.linspace(0, 1, num=5.0)  # E: arg-type  # runs: PyGObject rounds 5.0 to 5
Ep.uniform((2, 2), low="0")  # E: arg-type
Ep.minimum(x)  # E: call-arg
Ep.stack([x, x], axis=None)  # E: arg-type
Ep.meshgrid(x, x, indexing="yx")  # E: arg-type
Ep.meshgrid(x, x, indexing=Ep.PadMode.REFLECT)  # E: arg-type
Ep.exp(x, 2)  # E: call-arg
Ep.sum(x, axis="0")  # E: arg-type
Ep.where(x > 1, x)  # E: call-arg
Ep.concatenate([x, x], axis=(0,))  # E: arg-type
with Ep.device(0): pass  # noqa: E701  # E: arg-type
# automatic differentiation
Ep.value_and_grad(f, x, argnums="0")  # E: arg-type  # runs: "0" is a sequence of "0"
Ep.value_aux_and_grad(f, x)  # E: arg-type
Ep.value_and_grad_fn(f, has_aux=1)  # E: call-overload  # runs: fails when called
Ep.custom_gradient(f, backward=3)  # E: call-overload  # runs: fails when called
one: Ep.Tensor = Ep.grad(f, argnums=(0,))(x)  # E: assignment
several: tuple[Ep.Tensor, ...] = Ep.value_and_grad(f, x)[1]  # E: assignment
Ep.stop_gradient(x, x)  # E: call-arg
Ep.GradientTape(persistent="yes")  # E: arg-type  # runs: PyGObject takes any truth value
Ep.GradientTape(unconnected_gradients="zeroes")  # E: arg-type
tape.watch(np.ones(2))  # E: arg-type
tape.gradient(y, 3.0)  # E: call-overload
tape.jacobian(y, np.ones(2))  # E: arg-type
grads: list[Ep.Tensor] = tape.gradient(y, (x, v))  # E: assignment
Ep.Variable(x, trainable="no")  # E: arg-type  # runs: PyGObject takes any truth value ("no" is true)
v.sum(axis="rows")  # E: arg-type
v.assign(x, 1)  # E: call-arg
# staged functions
staged = Ep.function(f)
staged(x, x)  # E: call-arg
staged(2.0)  # E: arg-type
staged.trace_count = 3  # E: misc
Ep.function(f, input_signature=[3])  # E: list-item
Ep.TensorSpec((None, 3), dtype="complex64")  # E: arg-type
Ep.TensorSpec(("2", 3))  # E: arg-type
# modules
Ep.Linear("3", 2)  # E: arg-type
Ep.Module().training = "yes"  # E: assignment
