"""Wrong calls that the stubs must catch; each line says what mypy says."""

import gi

gi.require_version("Ep", "1.0")
from gi.repository import Ep  # noqa: E402

x = Ep.astensor([1.0])
x.sum(axis="rows")  # E: arg-type
x.square(2)  # E: call-arg
label: str = x.shape  # E: assignment
Ep.zeros((2, 3), kind="float32")  # E: call-arg
x.reshape(2).numpy().nosuchmethod  # no error: numpy() is Any
x.to_device(3)  # E: arg-type
count: str = x.ndim  # E: assignment
