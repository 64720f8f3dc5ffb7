"""Run by build-aux/install-check against the installed typelib, override
and stubs (PYTHONPATH names only the install)."""

import os
import sys

import gi

gi.require_version("Ep", "1.0")
import numpy as np  # noqa: E402
from gi.repository import Ep, GLib  # noqa: E402

override = sys.modules["gi.overrides.Ep"].__file__ or ""
assert override.startswith(os.environ["PYTHONPATH"]), f"override loaded from {override}"
x = Ep.astensor([1.0, 2.0, 3.0])
norm = x.square().sum().sqrt()
assert str(norm) == "3.7416575", str(norm)
assert repr(x) == "Ep.Tensor([1., 2., 3.], dtype=float32)", repr(x)
assert np.array_equal((x + np.ones(3)).numpy(), np.array([2, 3, 4], np.float32))
try:
    x + Ep.zeros(4)
    raise SystemExit("no error")
except GLib.Error as e:
    assert e.matches(Ep.error_quark(), Ep.Error.SHAPE), e.message
print(f"Python: {norm}")
