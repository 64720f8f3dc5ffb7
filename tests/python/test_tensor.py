"""The tensor itself against NumPy (core/tensor.c, core/tensor-format.c;
no op): tensors from bytes, doubles and a scalar, to_bytes, item, and
to_string, which prints as NumPy does.
"""

import numpy as np
import pytest
from conftest import DTYPES, Ep, as_layout, assert_ep_error, assert_matches, layouts, random_array

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (3, 5)])
@pytest.mark.numpy_op("new_from_bytes", "to_bytes")
def test_bytes_round_trip(rng, dtype, shape):
    from gi.repository import GLib
    a = random_array(rng, shape, dtype)
    assert_matches(Ep.astensor(a), a)
    assert_matches(Ep.Tensor.new_from_bytes(GLib.Bytes.new(a.tobytes()), getattr(Ep.DType, dtype.upper()), shape), a)
    assert Ep.astensor(a).to_bytes().get_data() == a.tobytes()
    for _, t in layouts(a):
        assert t.to_bytes().get_data() == a.tobytes()  # C order, whatever the layout
        assert_matches(t, a)


def test_new_from_bytes_length_mismatch():
    from gi.repository import GLib
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.new_from_bytes, GLib.Bytes.new(b"\0" * 10), Ep.DType.FLOAT32, [2, 3])
    assert "10" in message and "24" in message


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (4,), (2, 3)])
@pytest.mark.numpy_op("new_from_doubles")
def test_new_from_doubles(rng, dtype, shape):
    values = rng.random(shape) * 20 - 10
    values.flat[:1] = 2.5  # halves: conversions to integers truncate, as NumPy's astype
    got = Ep.Tensor.new_from_doubles(values.ravel().tolist(), list(shape), getattr(Ep.DType, dtype.upper()))
    assert_matches(got, values.astype(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("value", [0.0, -3.0, 2.75, 1e9])
@pytest.mark.numpy_op("new_scalar")
def test_new_scalar(dtype, value):
    got = Ep.Tensor.new_scalar(value, getattr(Ep.DType, dtype.upper()))
    assert got.shape == () and not got.is_weak()
    assert_matches(got, np.asarray(value).astype(dtype))


def test_new_from_doubles_length_mismatch():
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.new_from_doubles, [1, 2, 3], [2, 2], Ep.DType.FLOAT32)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.numpy_op("item")
def test_item(rng, dtype):
    a = random_array(rng, (3, 4), dtype)
    for layout, t in layouts(a):
        for index in [(0, 0), (2, 3), (1, -2)]:
            got = t[index].item()
            assert type(got) is type(a[index].item()) and got == a[index].item()
        one = as_layout(a[1:2, 2:3], layout)  # a view of one element with the layout's offset
        assert type(one.item()) is type(a[1, 2].item()) and one.item() == a[1, 2].item()
    s = Ep.astensor(a[2, 1])  # 0-d
    assert s.shape == () and s.item() == a[2, 1].item()
    assert Ep.Tensor.item_int64(Ep.astensor(a[1:2, 2:3])) == int(a[1, 2])
    assert Ep.Tensor.item_boolean(Ep.astensor(a[1:2, 2:3])) == bool(a[1, 2])
    assert Ep.Tensor.item(Ep.astensor(a[1:2, 2:3])) == float(a[1, 2])


def test_item_needs_one_element():
    assert Ep.astensor([[4.5]]).item() == 4.5
    assert Ep.astensor(np.array(7, np.int64)).item() == 7
    assert Ep.astensor(True).item() is True
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.item, Ep.zeros([2]))


def test_chaining_norm():
    x = Ep.astensor([1.0, 2.0, 3.0])
    assert str(x.square().sum().sqrt()) == "3.7416575"


STRINGS = [
    np.array([1, 2, 3], np.float32),
    np.array([1.5, 2, 3]),
    np.array([1e-5, 1.0]),
    np.array([1e-5, 1.5, 100]),
    np.array([np.nan, 1, -np.inf]),
    np.array([[1, 2], [3, 40]]),
    np.array([True, False]),
    np.array(np.sqrt(np.float32(14))),
    np.arange(24).reshape(2, 3, 4),
    np.array([0.1, 0.2], np.float32),
    np.array([1 / 3], np.float32),
    np.array([1e8, 1]),
    np.array([-1.5, 2.25]),
    np.array([1e20]),
    np.array([0.0, -0.0]),
    np.zeros((2, 0)),
    np.array([123456789.0]),
    np.array([1e-5, -1.5e-3]),
    np.arange(30.0),
    np.arange(40, dtype=np.int32).reshape(2, 20) * 1000,
    np.array(5),
    np.array(True),
    np.array(2.5),
    np.array(1e-7),
    np.array(1 / 3),
    np.arange(2000.0),
    np.arange(3000).reshape(10, 300),
    np.linspace(-1, 1, 7).reshape(7, 1) * np.array([1, 1e-3]),
]


@pytest.mark.parametrize("index", range(len(STRINGS)))
@pytest.mark.numpy_op("to_string")
def test_to_string_like_numpy(index):
    a = STRINGS[index]
    assert str(Ep.astensor(a)) == str(a)
    for _, t in layouts(a):
        assert t.to_string() == str(a)

