"""A user script that must type-check against the generated stubs."""

import gi

gi.require_version("Ep", "1.0")
import numpy as np  # noqa: E402
from gi.repository import Ep, GLib  # noqa: E402

x = Ep.astensor([1.0, 2.0, 3.0])
norm: Ep.Tensor = x.square().sum().sqrt()
value: float = float(norm)
item = norm.item()
total = x.sum(axis=0, keepdims=True) + np.ones(3) * 2
shape: tuple[int, ...] = total.shape
matrix = Ep.zeros((2, 3), dtype="float64") @ Ep.ones(3, dtype=Ep.DType.FLOAT64)
array: np.ndarray = np.asarray(matrix)
mean = Ep.astensor(np.arange(6.0).reshape(2, 3)).mean(axis=(0, 1))
text: str = repr(mean) + str(mean.T)
first = Ep.arange(5)[0] if hasattr(Ep.Tensor, "__getitem__") else Ep.arange(5)
n: int = len(Ep.arange(5))
devices = [d.get_name() for d in Ep.list_devices()]
try:
    x + Ep.zeros(4)
except GLib.Error as e:
    print(e.message)
joined: Ep.Tensor = Ep.concatenate([x, x]).flip().clip(0, 1).take([0, 1])
rows = [row.sum() for row in Ep.ones((2, 3))]
