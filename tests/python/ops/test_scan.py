"""The scan family against NumPy: cumsum along every axis or flattened,
on every dtype, 0-d, 0-size and non-contiguous inputs, with its errors
(and in test_reduce.py, test_0d_along_an_axis: a 0-d tensor along an
axis).
"""

import numpy as np
import pytest
from conftest import DTYPES, Ep, assert_ep_error, assert_matches, layouts, random_array

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("shape", [(3, 4, 5), (0, 3, 2), (2, 3, 0)])
@pytest.mark.numpy_op("cumsum")
def test_cumsum(rng, dtype, axis, shape):
    a = random_array(rng, shape, dtype)
    assert_matches(Ep.astensor(a).cumsum(axis=axis), np.cumsum(a, axis=axis))


@pytest.mark.numpy_op("cumsum")
def test_cumsum_non_contiguous_and_scalar(rng):
    for dtype in ("float32", "int32", "bool"):
        a = random_array(rng, (4, 6, 3), dtype)
        for _, t in layouts(a):
            for axis in (None, 0, 1, 2):
                assert_matches(t.cumsum(axis=axis), np.cumsum(a, axis=axis))
    s = np.array(3, np.int32)
    assert_matches(Ep.astensor(s).cumsum(), np.cumsum(s))


def test_cumsum_errors():
    message = assert_ep_error(Ep.Error.AXIS, Ep.Tensor.cumsum, Ep.zeros([2, 3]), 3)
    assert "cumsum" in message and "3" in message
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.cumsum, Ep.zeros([]), 1)
    # one axis or None, as NumPy's: several are a TypeError (the C function takes one)
    with pytest.raises(TypeError):
        Ep.zeros([2, 3]).cumsum([0, 1])
    with pytest.raises(TypeError):
        np.cumsum(np.zeros([2, 3]), (0, 1))
