"""The cast family against NumPy: astype between every pair of dtypes
(special floats to integers as NumPy on x86) and the shortcuts float32,
float64 and bool, on 0-d, 0-size and non-contiguous inputs.
"""

import numpy as np
import pytest
from conftest import DTYPES, NARROW_INTS, Ep, assert_matches, layouts, random_array

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


@pytest.mark.parametrize("src", DTYPES + NARROW_INTS)
@pytest.mark.parametrize("dst", DTYPES + NARROW_INTS)
@pytest.mark.parametrize("shape", [(), (0, 3), (4, 5)])
@pytest.mark.numpy_op("astype")
def test_astype(rng, src, dst, shape):
    a = random_array(rng, shape, src)
    for _, t in layouts(a):
        assert_matches(t.astype(dst), a.astype(dst))


@pytest.mark.numpy_op("astype")
def test_astype_of_special_floats_matches_numpy_x86():
    a = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.7, -2.7, 300.7, -1, 256, 2.0**31 + 5])
    with np.errstate(all="ignore"):
        for dst in ("int32", "int64", "bool", "uint8", "int8", "int16"):
            assert_matches(Ep.astensor(a).astype(dst), a.astype(dst))


@pytest.mark.parametrize("dtype", ["int8", "int16"])
@pytest.mark.numpy_op("astype")
def test_astype_narrow_round_trips(rng, dtype):
    """Every int8 or int16 value survives a trip through each wider type;
    wider values wrap when narrowed, as NumPy's."""
    info = np.iinfo(dtype)
    a = np.arange(info.min, info.max + 1).astype(dtype)
    for wide in ("int16", "int32", "int64", "float32", "float64"):
        if np.dtype(wide).itemsize >= np.dtype(dtype).itemsize:
            assert_matches(Ep.astensor(a).astype(wide).astype(dtype), a)
    big = np.array([127, 128, 255, 256, -129, 32767, 32768, -32769, 70000, -70000], np.int64)
    assert_matches(Ep.astensor(big).astype(dtype), big.astype(dtype))
    assert_matches(Ep.astensor(big.astype(np.int32)).astype(dtype), big.astype(np.int32).astype(dtype))


@pytest.mark.parametrize("name", ["float32", "float64", "bool"])
@pytest.mark.parametrize("source", DTYPES)
@pytest.mark.numpy_op
def test_cast_shortcuts_empty(rng, name, source):
    a = random_array(rng, (0, 3), source)
    for _, t in layouts(a):
        assert_matches(getattr(Ep.Tensor, name)(t), a.astype(name))


@pytest.mark.parametrize("name", ["float32", "float64", "bool"])
@pytest.mark.parametrize("source", DTYPES)
@pytest.mark.numpy_op
def test_cast_shortcuts(rng, name, source):
    a = random_array(rng, (3, 4), source)
    if source.startswith("float"):
        a.flat[:3] = [np.nan, -0.0, 0.25]
    for _, t in layouts(a):
        assert_matches(getattr(Ep.Tensor, name)(t), a.astype(name))
    assert_matches(getattr(Ep.Tensor, name)(Ep.astensor(a[0, 0])), a[0, 0].astype(name))


def test_pytorch_conversion_names(rng):
    """float(), double(), int(), long(): PyTorch's names for astype."""
    a = random_array(rng, (3, 4), "float64")
    t = Ep.astensor(a)
    assert_matches(t.float(), a.astype(np.float32))
    assert_matches(t.double(), a)
    assert_matches(t.int(), a.astype(np.int32))
    assert_matches(t.long(), a.astype(np.int64))
