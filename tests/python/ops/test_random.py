"""The random family: the seeded Philox uniform and normal against a
NumPy implementation of the recipe in ops/ep-philox-private.h, and on
their own (reproducibility, independence from the shape, distribution),
with their errors; dropout, which draws through uniform.
"""

import numpy as np
import pytest
from conftest import DEVICES, Ep, assert_ep_error, assert_matches, layouts

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


MASK32 = 0xFFFFFFFF


def philox_blocks(seed, stream, count):
    """Blocks 0 .. count-1 of a call: Philox 4x32-10 (Random123) in NumPy,
    with the counter and key that ep-philox-private.h describes; (count, 4)
    uint64 words."""
    block = np.arange(count, dtype=np.uint64)
    c0, c1 = block & np.uint64(MASK32), block >> np.uint64(32)
    c2 = np.full(count, stream & MASK32, np.uint64)
    c3 = np.full(count, stream >> 32, np.uint64)
    k0, k1 = seed & MASK32, seed >> 32
    for round_ in range(10):
        if round_ > 0:
            k0, k1 = (k0 + 0x9E3779B9) & MASK32, (k1 + 0xBB67AE85) & MASK32
        p0 = c0 * np.uint64(0xD2511F53)
        p1 = c2 * np.uint64(0xCD9E8D57)
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0), p1 & np.uint64(MASK32),
                          (p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1), p0 & np.uint64(MASK32))
    return np.stack([c0, c1, c2, c3], axis=-1)


def bits53(a, b):
    return ((a >> np.uint64(5)).astype(np.float64) * 2.0 ** 26 + (b >> np.uint64(6)).astype(np.float64)) * 2.0 ** -53


def uniform_reference(seed, stream, n, low, high, dtype):
    if dtype == "float32":
        words = philox_blocks(seed, stream, (n + 3) // 4).ravel()[:n]
        u = (words >> np.uint64(8)).astype(np.float32) * np.float32(2.0 ** -24)
        low, high = np.float32(low), np.float32(high)
        value = low + (high - low) * u
    else:
        pairs = philox_blocks(seed, stream, (n + 1) // 2).reshape(-1, 2)[:n]
        value = low + (high - low) * bits53(pairs[:, 0], pairs[:, 1])
    if high > low:
        value = np.where(value >= high, np.nextafter(high, low), value)
    return value


def normal_reference(seed, stream, n, mean, stddev, dtype):
    """In float64 from the same uniforms; float32 rounds its inputs as
    the recipe does."""
    if dtype == "float32":
        pairs = philox_blocks(seed, stream, (n + 1) // 2).reshape(-1, 2)[:n]
        u1 = ((pairs[:, 0] >> np.uint64(8)) + np.uint64(1)).astype(np.float64) * 2.0 ** -24
        u2 = (pairs[:, 1] >> np.uint64(8)).astype(np.float64) * 2.0 ** -24
        angle = np.float64(np.float32(6.2831855) * np.float32(u2))
    else:
        block = philox_blocks(seed, stream, n)
        u1 = bits53(block[:, 0], block[:, 1]) + 2.0 ** -53
        u2 = bits53(block[:, 2], block[:, 3])
        angle = 2 * np.pi * u2
    return mean + stddev * (np.sqrt(-2 * np.log(u1)) * np.cos(angle))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (3, 5), (2, 3, 4)])
@pytest.mark.parametrize("low,high", [(0.0, 1.0), (-2.0, 3.5), (1.0, 1.0000001)])
@pytest.mark.numpy_op("uniform")
def test_uniform_matches_numpy_philox(dtype, shape, low, high):
    seed = 0x1234_5678_9ABC_DEF0
    Ep.set_seed(seed)
    Ep.uniform(3)  # stream 0
    got = Ep.uniform(shape, low, high, dtype)  # stream 1
    expected = uniform_reference(seed, 1, int(np.prod(shape)), low, high, dtype)
    assert_matches(got, expected.astype(dtype).reshape(shape), exact=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (3, 5), (2, 3, 4)])
@pytest.mark.parametrize("mean,stddev", [(0.0, 1.0), (1.5, 0.25)])
@pytest.mark.numpy_op("normal")
def test_normal_matches_numpy_philox(dtype, shape, mean, stddev):
    seed = 42
    Ep.set_seed(seed)
    got = Ep.normal(shape, mean, stddev, dtype)
    expected = normal_reference(seed, 0, int(np.prod(shape)), mean, stddev, dtype).reshape(shape)
    # float32: the device's logf and cosf, to a few ulps of the result
    tolerance = {"rtol": 2e-6, "atol": 2e-6 * stddev} if dtype == "float32" else {"rtol": 1e-12, "atol": 1e-13}
    assert_matches(got, expected.astype(dtype), **tolerance)


@pytest.mark.parametrize("function", [Ep.uniform, Ep.normal])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_random_is_reproducible(function, dtype):
    Ep.set_seed(1234)
    first = function((3, 4), dtype=dtype).numpy()
    second = function((3, 4), dtype=dtype).numpy()
    Ep.set_seed(1234)
    again = function((3, 4), dtype=dtype).numpy()
    assert first.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, second)  # the stream advances
    Ep.set_seed(1235)
    assert not np.array_equal(first, function((3, 4), dtype=dtype).numpy())


@pytest.mark.parametrize("function", [Ep.uniform, Ep.normal])
def test_random_element_depends_only_on_its_index(function):
    Ep.set_seed(7)
    flat = function(24).numpy()
    Ep.set_seed(7)
    shaped = function((2, 3, 4)).numpy()
    np.testing.assert_array_equal(flat.reshape(2, 3, 4), shaped)
    Ep.set_seed(7)
    head = function(5).numpy()
    np.testing.assert_array_equal(flat[:5], head)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("low,high", [(0.0, 1.0), (-2.0, 3.0), (10.0, 10.5)])
def test_uniform_distribution(dtype, low, high):
    Ep.set_seed(99)
    x = Ep.uniform(200_000, low, high, dtype).numpy()
    assert x.min() >= low and x.max() < high
    width = high - low
    assert abs(x.mean() - (low + high) / 2) < 0.01 * width
    assert abs(x.std() - width / np.sqrt(12)) < 0.01 * width
    histogram, _ = np.histogram(x, bins=20, range=(low, high))
    expected = len(x) / 20
    chi2 = np.sum((histogram - expected) ** 2 / expected)
    assert chi2 < 60, chi2  # 19 degrees of freedom: p < 1e-5 above 60


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_distribution(dtype):
    Ep.set_seed(5)
    x = Ep.normal(200_000, 1.5, 2.0, dtype).numpy()
    assert np.all(np.isfinite(x))
    assert abs(x.mean() - 1.5) < 0.03
    assert abs(x.std() - 2.0) < 0.03
    z = (x - 1.5) / 2.0
    assert abs(np.mean(z ** 3)) < 0.05 and abs(np.mean(z ** 4) - 3) < 0.1
    # tail mass beyond two standard deviations: 4.55 %
    assert abs(np.mean(np.abs(z) > 2) - 0.0455) < 0.003


def test_uniform_stays_below_high():
    Ep.set_seed(3)
    x = Ep.uniform(100_000, 1.0, 1.0000001, Ep.DType.FLOAT32).numpy()
    assert np.all(x >= np.float32(1.0)) and np.all(x < np.float32(1.0000001))


def test_random_errors():
    message = assert_ep_error(Ep.Error.DTYPE, Ep.uniform, [3], 0.0, 1.0, Ep.DType.INT32)
    assert "uniform" in message and "int32" in message
    assert_ep_error(Ep.Error.DTYPE, Ep.normal, [3], 0.0, 1.0, Ep.DType.BOOL)
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.uniform, [3], 0.0, float("inf"), Ep.DType.FLOAT32)
    assert "uniform" in message and "inf" in message
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.normal, [3], 0.0, -1.0, Ep.DType.FLOAT32)
    assert "normal" in message and "-1" in message
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.normal, [3], float("nan"), 1.0, Ep.DType.FLOAT64)
    message = assert_ep_error(Ep.Error.SHAPE, Ep.uniform, [2, -3], 0.0, 1.0, Ep.DType.FLOAT32)
    assert "uniform" in message and "-3" in message
    message = assert_ep_error(Ep.Error.SHAPE, Ep.normal, [1] * 9, 0.0, 1.0, Ep.DType.FLOAT32)
    assert "normal" in message and "9" in message
    assert Ep.uniform([0, 3]).shape == (0, 3)
    assert Ep.normal([]).shape == ()


# Initializers: torch.nn.init's fans and scales, drawn through uniform and
# normal (so the same on every device as they are)

def torch_fans(shape):
    torch = pytest.importorskip("torch")
    return torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))


INIT_SHAPES = [(30, 20), (16, 8, 3, 3), (4, 6, 5)]


def init_spread(name, shape, gain=1.0):
    """uniform's half-width or normal's standard deviation, from
    PyTorch's fans"""
    fan_in, fan_out = torch_fans(shape)
    if name.startswith("glorot"):
        std = gain * np.sqrt(2.0 / (fan_in + fan_out))
    else:
        std = np.sqrt(2.0) / np.sqrt(fan_in)
    return std * np.sqrt(3.0) if name.endswith("uniform") else std


@pytest.mark.parametrize("shape", INIT_SHAPES)
@pytest.mark.parametrize("name", ["glorot_uniform", "glorot_normal", "he_uniform", "he_normal"])
def test_initializer_is_the_scaled_draw(name, shape):
    """With the same seed, an initializer gives uniform (-b, b) or
    normal (0, std) with PyTorch's b and std: the fans exactly."""
    spread = init_spread(name, shape, 1.5 if name.startswith("glorot") else 1.0)
    args = (list(shape), 1.5) if name.startswith("glorot") else (list(shape),)
    Ep.set_seed(11)
    got = getattr(Ep, name)(*args, dtype="float64")
    Ep.set_seed(11)
    if name.endswith("uniform"):
        expected = Ep.uniform(list(shape), -spread, spread, dtype="float64")
    else:
        expected = Ep.normal(list(shape), 0.0, spread, dtype="float64")
    assert got.shape == tuple(shape) and got.dtype == Ep.DType.FLOAT64
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", ["glorot_uniform", "glorot_normal", "he_uniform", "he_normal"])
def test_initializer_statistics_match_torch(name):
    """The bound and standard deviation, statistically, against what
    torch.nn.init draws for the same shape."""
    torch = pytest.importorskip("torch")
    shape = (256, 128, 3, 3)
    Ep.set_seed(3)
    w = getattr(Ep, name)(list(shape)).numpy()
    t = torch.empty(shape)
    {"glorot_uniform": torch.nn.init.xavier_uniform_, "glorot_normal": torch.nn.init.xavier_normal_,
     "he_uniform": lambda x: torch.nn.init.kaiming_uniform_(x, nonlinearity="relu"),
     "he_normal": lambda x: torch.nn.init.kaiming_normal_(x, nonlinearity="relu")}[name](t)
    t = t.numpy()
    assert w.dtype == np.float32
    assert abs(w.mean()) < 0.01 * t.std()
    assert abs(w.std() / t.std() - 1) < 0.01
    if name.endswith("uniform"):
        # The closed end of [-bound, bound) is the bound rounded to float32,
        # which may lie just above the exact one.
        bound = np.float32(init_spread(name, shape))
        assert np.abs(w).max() <= bound and np.abs(w).max() > 0.999 * bound
        assert np.abs(t).max() <= bound


def test_initializer_errors():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.glorot_uniform, [5])
    assert message.startswith("glorot_uniform: ")
    message = assert_ep_error(Ep.Error.SHAPE, Ep.he_normal, [-1, 3])
    assert message.startswith("he_normal: ")
    assert Ep.he_normal([3, 0]).shape == (3, 0)
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.glorot_normal, [2, 3], -1.0)
    assert message.startswith("glorot_normal: ")
    message = assert_ep_error(Ep.Error.DTYPE, Ep.he_uniform, [2, 3], "int32")
    assert message.startswith("he_uniform: ")


# Dropout: torch.nn.functional.dropout in training, its mask uniform's
# draw (u >= rate)

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 5), (2, 3, 4)])
@pytest.mark.numpy_op("dropout")
def test_dropout_is_the_scaled_uniform_mask(dtype, shape):
    seed, rate = 0x5EED, 0.3
    x = np.asarray(np.random.default_rng(1).normal(size=shape), dtype)
    Ep.set_seed(seed)
    got = Ep.astensor(x).dropout(rate)
    u = uniform_reference(seed, 0, int(np.prod(shape)), 0.0, 1.0, dtype).astype(dtype).reshape(shape)
    expected = x * (u >= rate).astype(dtype) * np.asarray(1 / (1 - rate), dtype)
    assert_matches(got, np.asarray(expected, dtype), exact=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.numpy_op("dropout")
def test_dropout_non_contiguous(dtype):
    x = np.asarray(np.random.default_rng(2).normal(size=(5, 4)), dtype)
    for name, t in layouts(x):
        Ep.set_seed(11)
        u = uniform_reference(11, 0, 20, 0.0, 1.0, dtype).astype(dtype).reshape(t.shape)
        view = t.numpy()
        expected = view * (u >= 0.5).astype(dtype) * np.asarray(2.0, dtype)
        assert_matches(t.dropout(0.5), np.asarray(expected, dtype), exact=True)


def test_dropout_same_mask_on_every_device():
    x = np.random.default_rng(3).normal(size=(64, 33)).astype(np.float32)
    results = []
    for name in DEVICES:
        Ep.set_seed(2024)
        with Ep.device(name):
            y = Ep.astensor(x).dropout(0.25)
        assert y.device.get_name() == name
        results.append(y.numpy())
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])


@pytest.mark.parametrize("rate", [0.1, 0.5, 0.9])
def test_dropout_statistics(rate):
    Ep.set_seed(77)
    y = Ep.ones([400_000]).dropout(rate).numpy()
    kept = y != 0
    assert abs(1 - kept.mean() - rate) < 0.004
    np.testing.assert_allclose(y[kept], np.float32(1 / (1 - rate)), rtol=1e-7)
    assert abs(y.mean() - 1) < 0.02


def test_dropout_matches_torch_statistics():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    Ep.set_seed(0)
    ones = np.ones(200_000, np.float32)
    ours = Ep.astensor(ones).dropout(0.4).numpy()
    theirs = torch.nn.functional.dropout(torch.from_numpy(ones), p=0.4, training=True).numpy()
    assert set(np.unique(ours)) == set(np.unique(theirs))
    assert abs((ours == 0).mean() - (theirs == 0).mean()) < 0.006


def test_dropout_rate_zero_and_one():
    torch = pytest.importorskip("torch")
    x = np.array([1.5, -2.0, np.nan, np.inf, 0.0], np.float32)
    assert_matches(Ep.astensor(x).dropout(0.0), x)
    expected = torch.nn.functional.dropout(torch.from_numpy(x.copy()), p=1.0, training=True).numpy()
    assert_matches(Ep.astensor(x).dropout(1.0), expected)


def test_dropout_draws_a_fresh_mask_each_call():
    Ep.set_seed(9)
    x = Ep.ones([1000])
    first, second = x.dropout(0.5).numpy(), x.dropout(0.5).numpy()
    assert not np.array_equal(first, second)
    Ep.set_seed(9)
    np.testing.assert_array_equal(x.dropout(0.5).numpy(), first)


def test_dropout_gradient_is_the_mask():
    x = Ep.astensor(np.random.default_rng(4).normal(size=(50, 20)))
    Ep.set_seed(123)
    with Ep.GradientTape() as tape:
        tape.watch(x)
        y = x.dropout(0.3)
        loss = y.sum()
    grad = tape.gradient(loss, x).numpy()
    mask = (y.numpy() != 0) * (1 / 0.7)
    np.testing.assert_allclose(grad, mask, rtol=1e-15)


def test_dropout_errors():
    x = Ep.ones([3])
    for bad in (-0.1, 1.5, float("nan"), float("inf")):
        message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.dropout, x, bad)
        assert message.startswith("dropout: ")
    message = assert_ep_error(Ep.Error.DTYPE, Ep.Tensor.dropout, Ep.astensor(np.array([1, 2], np.int32)), 0.5)
    assert message.startswith("dropout: ") and "int32" in message
