"""Helpers for the shape, indexing and linear algebra tests: the same
values as a contiguous tensor and as non-contiguous views."""

import numpy as np
from conftest import Ep

LAYOUTS = ["contiguous", "transposed", "strided", "flipped"]


def as_layout(a, layout):
    """A tensor with the values of `a`, laid out as named: a transposed
    view, a view with steps of 2 (our slice), or a flipped view (negative
    strides)."""
    if layout == "contiguous" or a.ndim == 0:
        return Ep.astensor(a)
    if layout == "transposed":
        return Ep.astensor(np.ascontiguousarray(a.T)).T
    if layout == "strided":
        big = np.zeros(tuple(2 * s + 1 for s in a.shape), a.dtype)
        big[tuple(slice(1, None, 2) for _ in a.shape)] = a
        view = Ep.astensor(big)[tuple(slice(1, None, 2) for _ in a.shape)]
        assert not view.is_contiguous() or a.size <= 1
        return view
    if layout == "flipped":
        return Ep.astensor(np.ascontiguousarray(np.flip(a))).flip()
    raise ValueError(layout)
