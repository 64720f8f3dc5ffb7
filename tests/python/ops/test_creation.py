"""The creation family against NumPy: full and its composites zeros,
ones, zeros_like, ones_like and full_like; arange, linspace, eye and
onehot_like: every dtype, 0-d and 0-size shapes, and their errors.
"""

import numpy as np
import pytest
from conftest import DTYPES, NARROW_INTS, Ep, GLib, assert_ep_error, assert_matches, layouts, random_array

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


@pytest.mark.parametrize("dtype", DTYPES + NARROW_INTS)
@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (4,), (2, 3)])
@pytest.mark.numpy_op("zeros", "ones", "full")
def test_creation(dtype, shape):
    assert_matches(Ep.zeros(shape, dtype), np.zeros(shape, dtype))
    assert_matches(Ep.ones(shape, dtype), np.ones(shape, dtype))
    assert_matches(Ep.full(shape, 7, dtype), np.full(shape, 7, dtype))
    assert_matches(Ep.full(shape, -2.5, dtype), np.full(shape, -2.5).astype(dtype))


@pytest.mark.parametrize("dtype", DTYPES + NARROW_INTS)
@pytest.mark.parametrize("shape", [(), (0, 3), (3, 4)])
@pytest.mark.numpy_op("zeros_like", "ones_like", "full_like")
def test_like(rng, dtype, shape):
    a = random_array(rng, shape, dtype)
    for _, t in layouts(a):
        assert_matches(t.zeros_like(), np.zeros_like(a))
        assert_matches(t.ones_like(), np.ones_like(a))
        assert_matches(t.full_like(-2.5), np.full_like(a, -2.5))
        assert t.zeros_like().is_contiguous()


@pytest.mark.parametrize("args", [(5,), (2, 9, 3), (0, 1, 0.1), (1.5, -2, -0.5), (10, 0), (-3, 3, 0.7)])
@pytest.mark.parametrize("dtype", [None, "float32", "float64", "int32", "int64"])
@pytest.mark.numpy_op("arange")
def test_arange(args, dtype):
    expected = np.arange(*args, dtype=dtype)
    if dtype is None:
        expected = expected.astype(np.int64 if expected.dtype.kind == "i" else np.float32)
        expected = np.arange(*args, dtype=expected.dtype)
    assert_matches(Ep.arange(*args, dtype=dtype), expected, exact=True)


@pytest.mark.parametrize("args", [(256,), (250, 256, 2), (5, -1, -2), (10, 0), (7, 8), (255, 254, -1)])
@pytest.mark.numpy_op("arange")
def test_arange_uint8(args):
    assert_matches(Ep.arange(*args, dtype="uint8"), np.arange(*args, dtype=np.uint8), exact=True)
    assert_matches(Ep.arange(*(float(a) for a in args), dtype="uint8"), np.arange(*args, dtype=np.uint8),
                   exact=True)


@pytest.mark.parametrize("args", [(0, 257, 1), (-1, 3, 1), (0, 300, 2), (5, -3, -2), (0, 3.5, 0.5), (0.5, 3, 1)])
def test_arange_uint8_values_must_fit(args):
    """NumPy 2 raises OverflowError for out-of-range integers; none wraps here."""
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.arange, *args, "uint8")
    assert "arange" in message and ("uint8" in message or "integer" in message)


@pytest.mark.numpy_op("full")
def test_full_uint8_integer_must_fit():
    assert_matches(Ep.full((2,), 255, "uint8"), np.full(2, 255, np.uint8))
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.full, (2,), 256, "uint8")
    assert "full" in message and "256" in message and "uint8" in message
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.full, (2,), -1, "uint8")


@pytest.mark.parametrize("dtype,low,high", [("int8", -128, 127), ("int16", -32768, 32767)])
@pytest.mark.numpy_op("full", "arange")
def test_full_and_arange_signed_narrow(dtype, low, high):
    """An integer must fit (200 is no int8: an error, as for uint8);
    arange's values too."""
    assert_matches(Ep.full((2,), low, dtype), np.full(2, low, dtype))
    assert_matches(Ep.full((2,), high, dtype), np.full(2, high, dtype))
    assert_matches(Ep.zeros((3,), dtype), np.zeros(3, dtype))
    assert_matches(Ep.ones((3,), dtype), np.ones(3, dtype))
    for bad in (low - 1, high + 1, 200 if dtype == "int8" else 40000):
        message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.full, (2,), bad, dtype)
        assert "full" in message and str(bad) in message and dtype in message
    for args in [(low, low + 5), (high, high - 7, -2), (-3, 4), (10,)]:
        assert_matches(Ep.arange(*args, dtype=dtype), np.arange(*args, dtype=dtype), exact=True)
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.arange, low - 1, 3, 1, dtype)
    assert "arange" in message and dtype in message
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.arange, 0, 2.5, 0.5, dtype)
    assert "arange" in message and dtype in message


def test_arange_errors():
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.arange, 0, 1, 0, Ep.DType.FLOAT32)
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.arange, 0, float("inf"), 1, Ep.DType.FLOAT32)
    assert_ep_error(Ep.Error.DTYPE, Ep.arange, 0, 2, 1, Ep.DType.BOOL)


def test_absurd_shape_is_out_of_memory():
    assert_ep_error(Ep.Error.OUT_OF_MEMORY, Ep.zeros, [1 << 40, 1 << 40], Ep.DType.FLOAT32)
    assert_ep_error(Ep.Error.OUT_OF_MEMORY, Ep.zeros, [1 << 45], Ep.DType.FLOAT32)


BIG = 2**60 + 1   # past 2^53: a double would round it


def test_arange_past_2_53_is_exact():
    assert Ep.arange(2**60, 2**60 + 4, 1).numpy().tolist() == np.arange(2**60, 2**60 + 4, 1).tolist()
    assert_matches(Ep.arange(2**60, 2**60 + 4, 1, dtype="float64"),
                   np.arange(2**60, 2**60 + 4, 1, dtype=np.float64), exact=True)


def test_arange_whole_int64_range():
    expected = np.arange(-2**63, 2**63 - 1, 2**62)
    assert Ep.arange(-2**63, 2**63 - 1, 2**62).numpy().tolist() == expected.tolist()


def test_arange_int32_across_2_31_wraps():
    expected = np.arange(2**31 - 2, 2**31 + 2, dtype=np.int32)   # NumPy's fill wraps
    assert_matches(Ep.arange(2**31 - 2, 2**31 + 2, dtype="int32"), expected, exact=True)


def test_arange_too_long_names_its_count():
    message = assert_ep_error(Ep.Error.OUT_OF_MEMORY, Ep.arange, 0, 1e19, 1, "int64")
    assert "10000000000000000000 elements" in message
    message = assert_ep_error(Ep.Error.OUT_OF_MEMORY, Ep.arange, -2**63, 2**63 - 1)
    assert "18446744073709551615 elements (from -9223372036854775808 to 9223372036854775807 in steps of 1)" in message


def test_arange_past_int64():
    assert_matches(Ep.arange(0, 2**64, 2**62, dtype="float64"),
                   np.arange(0, 2**64, 2**62, dtype=np.float64), exact=True)
    with pytest.raises(OverflowError, match="18446744073709551616 out of bounds for int64"):
        Ep.arange(0, 2**64, 2**62)


def test_full_past_2_53_is_exact():
    assert Ep.full((2,), BIG, "int64").numpy().tolist() == [BIG, BIG]
    assert Ep.full((1,), np.int64(-2**63), "int64").numpy().tolist() == [-2**63]
    assert_matches(Ep.full((2,), BIG, "float32"), np.full(2, BIG, np.float32), exact=True)


def test_full_like_past_2_53_is_exact():
    like = Ep.zeros(2, "int64")
    assert like.full_like(BIG).numpy().tolist() == [BIG, BIG]
    assert_matches(Ep.zeros(2, "float32").full_like(BIG), np.full(2, BIG, np.float32), exact=True)
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.zeros(2, "int32").full_like, 2**40)


def test_full_integer_that_does_not_fit():
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.full, (2,), 2**40, "int32")
    with pytest.raises(OverflowError, match="out of bounds for int64"):
        Ep.full((2,), np.uint64(2**64 - 1), "int64")
    assert_matches(Ep.full((2,), 2**64 - 1, "float64"), np.full(2, 2.0**64), exact=True)


def test_weak_integer_past_2_53_is_exact():
    x = Ep.astensor(np.array([0, 1], np.int64))
    assert (x + BIG).numpy().tolist() == [BIG, BIG + 1]
    assert (BIG - x).numpy().tolist() == [BIG, BIG - 1]
    assert (x + np.uint64(2**62)).numpy().tolist() == [2**62, 2**62 + 1]


def test_weak_integer_that_does_not_fit():
    x = Ep.astensor(np.array([0, 1], np.int32))
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, x.__add__, 2**40)
    assert "1099511627776 does not fit in int32" in message
    for big in (2**63, np.uint64(2**63), -2**63 - 1):
        with pytest.raises(OverflowError, match="out of bounds for int64"):
            x + big


FLOAT_SHAPES = [(2.5, 3), [2.0, 3], (np.float64(2),), np.array([2.5, 3])]
SHAPE_TAKERS = {
    "zeros": lambda shape: Ep.zeros(shape),
    "ones": lambda shape: Ep.ones(shape),
    "full": lambda shape: Ep.full(shape, 1.0),
    "uniform": lambda shape: Ep.uniform(shape),
    "normal": lambda shape: Ep.normal(shape),
    "reshape": lambda shape: Ep.zeros(6).reshape(shape),
    "broadcast_to": lambda shape: Ep.zeros(3).broadcast_to(shape),
    "new_from_doubles": lambda shape: Ep.Tensor.new_from_doubles([0.0] * 6, shape, "float32"),
    "new_from_bytes": lambda shape: Ep.Tensor.new_from_bytes(GLib.Bytes(bytes(24)), "float32", shape),
    "TensorSpec": lambda shape: Ep.TensorSpec(shape),
    "TensorSpec.new": lambda shape: Ep.TensorSpec.new(shape, "float32"),
}


@pytest.mark.parametrize("shape", FLOAT_SHAPES, ids=repr)
@pytest.mark.parametrize("name", SHAPE_TAKERS)
def test_float_dimension_is_a_type_error(name, shape):
    with pytest.raises(TypeError):
        SHAPE_TAKERS[name](shape)


def test_negative_and_too_many_dimensions():
    assert_ep_error(Ep.Error.SHAPE, Ep.zeros, [2, -1], Ep.DType.FLOAT32)
    assert_ep_error(Ep.Error.SHAPE, Ep.zeros, [1] * 9, Ep.DType.FLOAT32)


@pytest.mark.parametrize("start,stop", [(0, 1), (-3.5, 7.25), (5, -5), (2, 2), (1e-3, 1e3), (0, 10)])
@pytest.mark.parametrize("num", [0, 1, 2, 7, 50])
@pytest.mark.parametrize("endpoint", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.numpy_op("linspace")
def test_linspace(start, stop, num, endpoint, dtype):
    expected = np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)
    assert_matches(Ep.linspace(start, stop, num, endpoint, dtype), expected, exact=True)


def test_linspace_negative_num():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.linspace, 0.0, 1.0, -3, True, Ep.DType.FLOAT32)
    assert "linspace" in message and "-3" in message


@pytest.mark.parametrize("n,m", [(0, 0), (1, 1), (3, 3), (3, 5), (5, 2)])
@pytest.mark.parametrize("k", [0, 1, -1, 3, -4, 10, -10])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.numpy_op("eye")
def test_eye(n, m, k, dtype):
    assert_matches(Ep.eye(n, m, k, dtype), np.eye(n, m, k, dtype=dtype))


@pytest.mark.numpy_op("eye")
def test_eye_defaults_and_errors():
    assert_matches(Ep.eye(4), np.eye(4, dtype=np.float32))
    message = assert_ep_error(Ep.Error.SHAPE, Ep.eye, -1, 3, 0, Ep.DType.FLOAT32)
    assert "eye" in message and "-1" in message


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("n,c", [(4, 3), (0, 5), (1, 1)])
@pytest.mark.numpy_op("onehot_like")
def test_onehot_like(rng, dtype, index_dtype, n, c):
    like = np.zeros((n, c), dtype)
    indices = rng.integers(0, c, size=n).astype(index_dtype)
    expected = np.zeros((n, c), dtype)
    expected[np.arange(n), indices] = 3 if dtype != "bool" else True
    for _, t in layouts(like):
        for _, i in layouts(indices):
            assert_matches(t.onehot_like(i, 3), expected)


def test_onehot_like_errors():
    like = Ep.zeros([3, 4])
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.onehot_like, Ep.zeros([3]), Ep.astensor(np.zeros(3, np.int64)), 1.0)
    assert "onehot_like" in message and "(3,)" in message
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.onehot_like, like, Ep.astensor(np.zeros(2, np.int64)), 1.0)
    assert "(2,)" in message and "(3, 4)" in message
    assert_ep_error(Ep.Error.DTYPE, Ep.Tensor.onehot_like, like, Ep.zeros([3]), 1.0)
    message = assert_ep_error(Ep.Error.INDEX, Ep.Tensor.onehot_like, like, Ep.astensor(np.array([0, 4, 1])), 1.0)
    assert "onehot_like" in message and "4" in message
    assert_ep_error(Ep.Error.INDEX, Ep.Tensor.onehot_like, like, Ep.astensor(np.array([-1, 0, 1])), 1.0)



def test_arange_step_none_is_one():
    assert_matches(Ep.arange(0, 5, None), np.arange(0, 5, None), exact=True)
    assert_matches(Ep.arange(1.5, 4, None), np.arange(1.5, 4, None, dtype=np.float32), exact=True)
