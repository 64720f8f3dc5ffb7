#!/usr/bin/python3
"""The L2 norm of [1, 2, 3] by chaining, from Python."""

import gi

gi.require_version("Ep", "1.0")
from gi.repository import Ep  # noqa: E402

x = Ep.astensor([1.0, 2.0, 3.0])
print(x.square().sum().sqrt())
