"""float16 and bfloat16 against NumPy and PyTorch, on every device.

Both are storage types: each op computes in float32 and rounds its result
to nearest even, as NumPy's float16 loops and PyTorch's CPU kernels do. So
the reference of an op is NumPy's float32 op on the half inputs' exact
values, rounded to the half type (float16 by NumPy, bfloat16 by PyTorch,
which NumPy lacks). Ops that round once are bit-exact; where float32
libraries may differ in the last float32 bit (transcendentals) or sum in
another order (reductions, matmul), a few units in the last half place.
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from conftest import Ep, layouts

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device

HALVES = ["float16", "bfloat16"]
# the spacing of 1.0: 2^-10 and 2^-7
EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


def rounded(a, dtype):
    """float32 values rounded to dtype, as float32"""
    a = np.array(a, np.float32)
    if dtype == "float16":
        with np.errstate(over="ignore"):
            return a.astype(np.float16).astype(np.float32)
    return torch.from_numpy(a.reshape(-1)).to(torch.bfloat16).float().numpy().reshape(a.shape)


def half_input(rng, shape, dtype, low=-3.0, high=3.0):
    """(tensor of dtype, its exact values as float32)"""
    values = rounded(rng.random(shape) * (high - low) + low, dtype)
    return Ep.astensor(values).astype(dtype), values


def values_of(tensor):
    return tensor.astype(Ep.float32).numpy()


def check(tensor, dtype, expected32, ulps=0, scale=None):
    """tensor has dtype and the values of expected32 rounded to dtype,
    within ulps units of the last place (of each value, or of scale)"""
    assert tensor.dtype == dtype, (tensor.dtype, dtype)
    expected = rounded(expected32, dtype)
    got = values_of(tensor)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if ulps == 0:
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=ulps * EPS[dtype],
                                   atol=ulps * EPS[dtype] * (1e-3 if scale is None else scale),
                                   equal_nan=True)


BINARY = [
    ("add", lambda x, y: x + y, np.add, 0),
    ("sub", lambda x, y: x - y, np.subtract, 0),
    ("mul", lambda x, y: x * y, np.multiply, 0),
    ("div", lambda x, y: x / y, np.divide, 0),
    ("maximum", lambda x, y: x.maximum(y), np.maximum, 0),
    ("minimum", lambda x, y: x.minimum(y), np.minimum, 0),
    ("pow", lambda x, y: x.abs() ** y, lambda a, b: np.abs(a) ** b, 1),
]


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.parametrize("name,op,ref,ulps", BINARY)
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((2, 1, 4), (3, 1)), ((), (5,)), ((0, 3), (3,))])
@pytest.mark.numpy_op
def test_binary(rng, dtype, name, op, ref, ulps, shapes):
    x, a = half_input(rng, shapes[0], dtype)
    y, b = half_input(rng, shapes[1], dtype)
    with np.errstate(all="ignore"):
        expected = ref(a, b)
    check(op(x, y), dtype, expected, ulps)


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.numpy_op("add", "mul")
def test_strided_inputs(rng, dtype):
    x, a = half_input(rng, (4, 6), dtype)
    for layout, _ in layouts(a):
        view = Ep.astensor(dict(layouts(a))[layout]).astype(dtype)
        # (each op rounds)
        check(view * 3 + 1, dtype, rounded(dict(layouts(a))[layout] * np.float32(3), dtype) + np.float32(1))
    check(x.T * x.T, dtype, a.T * a.T)
    check(x[:, ::2] + x[:, 1::2], dtype, a[:, ::2] + a[:, 1::2])


UNARY = [
    ("neg", lambda x: -x, np.negative, 0, (-3, 3)),
    ("abs", lambda x: x.abs(), np.abs, 0, (-3, 3)),
    ("exp", lambda x: x.exp(), np.exp, 1, (-3, 3)),
    ("log", lambda x: x.log(), np.log, 1, (0.1, 5)),
    ("sqrt", lambda x: x.sqrt(), np.sqrt, 1, (0, 5)),
    ("sin", lambda x: x.sin(), np.sin, 1, (-3, 3)),
    ("tanh", lambda x: x.tanh(), np.tanh, 1, (-3, 3)),
    ("square", lambda x: x.square(), np.square, 0, (-3, 3)),
]


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.parametrize("name,op,ref,ulps,domain", UNARY)
@pytest.mark.numpy_op
def test_unary(rng, dtype, name, op, ref, ulps, domain):
    x, a = half_input(rng, (5, 7), dtype, *domain)
    check(op(x), dtype, ref(a), ulps)


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.numpy_op("less", "equal", "where", "clip", "isnan")
def test_comparisons_where_clip(rng, dtype):
    x, a = half_input(rng, (4, 5), dtype)
    y, b = half_input(rng, (4, 5), dtype)
    np.testing.assert_array_equal((x < y).numpy(), a < b)
    np.testing.assert_array_equal((x == x).numpy(), np.ones((4, 5), bool))
    check(Ep.where(x < y, x, y), dtype, np.where(a < b, a, b))
    check(x.clip(-1, 1.5), dtype, np.clip(a, -1, 1.5))
    special = Ep.astensor(np.array([np.nan, np.inf, -1.0], np.float32)).astype(dtype)
    np.testing.assert_array_equal(special.isnan().numpy(), [True, False, False])


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2)])
@pytest.mark.numpy_op("sum", "mean", "max", "min", "prod")
def test_reductions(rng, dtype, axis):
    x, a = half_input(rng, (3, 4, 5), dtype)
    check(x.sum(axis=axis), dtype, a.sum(axis=axis, dtype=np.float64), 1)
    check(x.mean(axis=axis), dtype, a.mean(axis=axis, dtype=np.float64), 1)
    check(x.max(axis=axis), dtype, a.max(axis=axis))
    check(x.min(axis=axis), dtype, a.min(axis=axis))
    check(x.prod(axis=axis), dtype, a.prod(axis=axis, dtype=np.float64), 2)


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.numpy_op("sum")
def test_long_sum_accumulates_in_float32(dtype):
    """4096 ones: a float16 or bfloat16 accumulator would stop at 2048 or
    256; float32 gets 4096 (as NumPy's and PyTorch's)"""
    x = Ep.ones((4096,), dtype=dtype)
    check(x.sum(), dtype, np.float32(4096))


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.numpy_op("argmax", "argmin", "sort", "argsort", "topk", "cumsum")
def test_sort_and_scan(rng, dtype):
    x, a = half_input(rng, (4, 9), dtype)
    np.testing.assert_array_equal(x.argmax(axis=1).numpy(), a.argmax(axis=1))
    np.testing.assert_array_equal(x.argmin(axis=0).numpy(), a.argmin(axis=0))
    check(x.sort(axis=1), dtype, np.sort(a, axis=1))
    np.testing.assert_array_equal(x.argsort(axis=1).numpy(), np.argsort(a, axis=1, kind="stable"))
    check(x.cumsum(axis=1), dtype, np.cumsum(a, axis=1, dtype=np.float64), 2)


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.numpy_op("concatenate", "take", "transpose", "reshape", "tile", "pad")
def test_moving_elements(rng, dtype):
    x, a = half_input(rng, (3, 4), dtype)
    y, b = half_input(rng, (2, 4), dtype)
    check(Ep.concatenate([x, y], axis=0), dtype, np.concatenate([a, b]))
    check(Ep.stack([x, x]), dtype, np.stack([a, a]))
    check(x.take(np.array([2, 0, 2]), axis=0), dtype, a[[2, 0, 2]])
    check(x.T.reshape((2, 6)), dtype, a.T.reshape(2, 6))
    check(x.tile((2, 1)), dtype, np.tile(a, (2, 1)))
    check(x[1:, ::-1], dtype, a[1:, ::-1])


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.numpy_op("softmax", "log_softmax", "logsumexp")
def test_softmax(rng, dtype):
    x, a = half_input(rng, (3, 7), dtype)
    wide = a.astype(np.float64)
    e = np.exp(wide - wide.max(axis=1, keepdims=True))
    check(x.softmax(axis=1), dtype, e / e.sum(axis=1, keepdims=True), 2)
    check(x.log_softmax(axis=1), dtype, np.log(e / e.sum(axis=1, keepdims=True)), 2)


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.parametrize("shape", [(1, 1), (5, 7, 3), (64, 48, 32)])
@pytest.mark.numpy_op("matmul")
def test_matmul(rng, dtype, shape):
    m, k, n = shape if len(shape) == 3 else (shape[0], shape[1], 1)
    x, a = half_input(rng, (m, k), dtype)
    y, b = half_input(rng, (k, n), dtype)
    check(x @ y, dtype, a.astype(np.float64) @ b.astype(np.float64), 2)
    check(x.T.contiguous().T @ y, dtype, a.astype(np.float64) @ b.astype(np.float64), 2)


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.numpy_op("matmul")
def test_matmul_batched(rng, dtype):
    x, a = half_input(rng, (2, 3, 4, 5), dtype)
    y, b = half_input(rng, (3, 5, 2), dtype)
    check(x @ y, dtype, a.astype(np.float64) @ b.astype(np.float64), 2)


def bf16_bits(tensor):
    """a bfloat16 tensor's bits, as uint16"""
    return values_of(tensor).view(np.uint32) >> 16


BF16_MATMUL_CASES = [
    ("plain", (64, 48), (48, 32), None),
    ("ones", (1, 1), (1, 1), None),
    ("row times column", (1, 37), (37, 1), None),
    ("vector times matrix", (37,), (37, 5), None),
    ("matrix times vector", (6, 37), (37,), None),
    ("empty rows", (0, 3), (3, 4), None),
    ("empty sum", (3, 0), (0, 4), None),
    ("batched", (4, 9, 17), (4, 17, 11), None),
    ("batch broadcast", (2, 1, 9, 17), (5, 17, 11), None),
    ("one matrix over a batch", (9, 17), (3, 17, 11), None),
    ("transposed", (17, 9), (11, 17), "transpose"),
    ("strided", (9, 34), (17, 22), "stride"),
    ("strided batch", (3, 9, 34), (3, 17, 22), "stride"),
    ("large", (96, 300), (300, 80), None),
    ("large transposed", (300, 96), (80, 300), "transpose"),
]


@pytest.mark.parametrize("name,ashape,bshape,view", BF16_MATMUL_CASES)
@pytest.mark.numpy_op("matmul")
def test_bfloat16_matmul_onednn_against_widened(rng, monkeypatch, name, ashape, bshape, view):
    """the CPU's bfloat16 product on oneDNN against the float32 one
    rounded (EP_BF16_MATMUL_WIDEN=1): both round a float32 sum to
    nearest even, so most values are the same bits; oneDNN adds in
    another order than OpenBLAS, so a value may round to the
    neighbouring bfloat16 (one unit of the last place), or, where the
    sum cancels, differ by as much as the two float32 sums may
    (k * 2^-24 * (|a| @ |b|))"""
    x, a = half_input(rng, ashape, "bfloat16")
    y, b = half_input(rng, bshape, "bfloat16")
    if view == "transpose":
        x, a, y, b = x.T, a.T, y.T, b.T
    elif view == "stride":
        last = (slice(None),) * (len(ashape) - 1) + (slice(None, None, 2),)
        x, a, y, b = x[last], a[last], y[last], b[last]
    fast = x @ y
    monkeypatch.setenv("EP_BF16_MATMUL_WIDEN", "1")
    wide = x @ y
    check(fast, "bfloat16", a.astype(np.float64) @ b.astype(np.float64), 2)
    assert fast.shape == wide.shape
    diff = np.abs(bf16_bits(fast).astype(np.int64) - bf16_bits(wide).astype(np.int64))
    k = a.shape[-1] if a.ndim else 1
    bound = k * 2.0 ** -24 * (np.abs(a) @ np.abs(b))
    assert np.all((diff <= 1) | (np.abs(values_of(fast) - values_of(wide)) <= bound)), name


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.numpy_op("conv2d", "max_pool2d", "avg_pool2d")
def test_conv_and_pool(rng, dtype):
    x, a = half_input(rng, (2, 3, 8, 8), dtype)
    w, b = half_input(rng, (4, 3, 3, 3), dtype)
    expected = F.conv2d(torch.from_numpy(a).double(), torch.from_numpy(b).double(), padding=1).numpy()
    check(x.conv2d(w, padding=(1, 1)), dtype, expected, 3)
    check(x.max_pool2d((2, 2)), dtype, F.max_pool2d(torch.from_numpy(a), 2).numpy())
    check(x.avg_pool2d((2, 2)), dtype, F.avg_pool2d(torch.from_numpy(a).double(), 2).numpy(), 1)


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.numpy_op("layer_norm")
def test_layer_norm(rng, dtype):
    x, a = half_input(rng, (4, 6), dtype)
    w, b = half_input(rng, (6,), dtype)
    c, d = half_input(rng, (6,), dtype)
    expected = F.layer_norm(torch.from_numpy(a).double(), (6,), torch.from_numpy(b).double(),
                            torch.from_numpy(d).double(), 1e-5).numpy()
    check(x.layer_norm(w, c, axis=-1, epsilon=1e-5), dtype, expected, 3)


# Promotion: NumPy's table for float16, PyTorch's for bfloat16 (NumPy has
# none); Python scalars are weak.
PROMOTIONS = [
    ("float16", "float16", "float16"),
    ("float16", "bool", "float16"),
    ("float16", "uint8", "float16"),
    ("float16", "int32", "float64"),
    ("float16", "int64", "float64"),
    ("float16", "float32", "float32"),
    ("float16", "float64", "float64"),
    ("bfloat16", "bool", "bfloat16"),
    ("bfloat16", "uint8", "bfloat16"),
    ("bfloat16", "int32", "bfloat16"),
    ("bfloat16", "int64", "bfloat16"),
    ("bfloat16", "float16", "float32"),
    ("bfloat16", "float32", "float32"),
    ("bfloat16", "float64", "float64"),
]


@pytest.mark.parametrize("a,b,result", PROMOTIONS)
@pytest.mark.numpy_op("add")
def test_promotion(a, b, result):
    x = Ep.ones((2,), dtype=a)
    y = Ep.ones((2,), dtype=b)
    assert (x + y).dtype == result
    assert (y + x).dtype == result
    assert Ep.dtype_promote(Ep.DType(int(x.dtype)), Ep.DType(int(y.dtype))) == result
    if "bfloat16" not in (a, b):
        assert np.result_type(np.float16 if a == "float16" else a, b if b != "bool" else np.bool_) == result
    else:
        ta = torch.ones(2, dtype=getattr(torch, a if a != "bool" else "bool"))
        tb = torch.ones(2, dtype=getattr(torch, b if b != "bool" else "bool"))
        assert str(torch.result_type(ta, tb)).removeprefix("torch.") == result


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.numpy_op("add", "mul")
def test_python_scalars_are_weak(dtype):
    x = Ep.ones((2,), dtype=dtype)
    assert (x + 2.5).dtype == dtype
    assert (x * 3).dtype == dtype
    check(x * 0.1, dtype, np.float32(0.1) * np.ones(2, np.float32))


# Conversions: bit-exact against NumPy (float16) and PyTorch (bfloat16),
# with the special values.

SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 65504, 65519.9, 65520, 1e5, -1e5,
                    2.0 ** -24, 2.0 ** -25, 2.0 ** -25 * 1.0001, 2.0 ** -14, 2.0 ** -14 * (1 - 2 ** -11),
                    1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8,
                    3.4e38, 1e-40, -1e-45, 0.1, -2.7], np.float32)


@pytest.mark.numpy_op("astype")
def test_float16_conversion_is_numpys():
    got = Ep.astensor(SPECIAL).astype(Ep.float16).numpy()
    with np.errstate(over="ignore"):
        expected = SPECIAL.astype(np.float16)
    np.testing.assert_array_equal(got.view(np.uint16), expected.view(np.uint16))
    wide = SPECIAL.astype(np.float64) * (1 + 1e-12)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(Ep.astensor(wide).astype(Ep.float16).numpy().view(np.uint16),
                                      wide.astype(np.float16).view(np.uint16))


@pytest.mark.numpy_op("astype")
def test_bfloat16_conversion_is_pytorchs():
    got = torch.from_dlpack(Ep.astensor(SPECIAL).astype(Ep.bfloat16).to("cpu"))
    expected = torch.from_numpy(SPECIAL).to(torch.bfloat16)
    same = (got.view(torch.int16) == expected.view(torch.int16)) | (torch.isnan(got) & torch.isnan(expected))
    assert bool(same.all()), (got, expected)
    assert bool(torch.isnan(got[4]))


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.parametrize("other", ["float32", "float64", "int32", "int64", "bool", "uint8", "float16", "bfloat16"])
@pytest.mark.numpy_op("astype")
def test_astype_round_trips(rng, dtype, other):
    x, a = half_input(rng, (3, 5), dtype, -100, 100)
    y = x.astype(other)
    expected = a.astype(other) if other not in HALVES else rounded(a, other)
    if other in HALVES:
        check(y, other, a)
    else:
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(y.numpy(), expected)
        if other.startswith("float"):
            check(y.astype(dtype), dtype, a)


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.numpy_op("full", "arange", "zeros")
def test_creation(dtype):
    check(Ep.full((2, 3), 0.1, dtype=dtype), dtype, np.full((2, 3), 0.1, np.float32))
    check(Ep.zeros((4,), dtype=dtype), dtype, np.zeros(4, np.float32))
    check(Ep.arange(0, 3, 0.5, dtype=dtype), dtype, np.arange(0, 3, 0.5, dtype=np.float32))


def test_numpy_float16_in_and_out(rng):
    a = rng.standard_normal((3, 4)).astype(np.float16)
    t = Ep.astensor(a)
    assert t.dtype == Ep.float16
    np.testing.assert_array_equal(t.numpy(), a)
    assert t.numpy().dtype == np.float16


def test_bfloat16_has_no_numpy_form():
    t = Ep.ones((2,), dtype=Ep.bfloat16)
    with pytest.raises(TypeError, match="astype"):
        t.numpy()
    with pytest.raises(TypeError, match="astype"):
        np.asarray(t)
    np.testing.assert_array_equal(t.astype(Ep.float32).numpy(), [1.0, 1.0])


def test_torch_dlpack_round_trip(rng):
    for dtype in (torch.float16, torch.bfloat16):
        source = torch.randn(3, 4).to(dtype)
        t = Ep.from_dlpack(source)
        assert t.dtype == str(dtype).removeprefix("torch.")
        back = torch.from_dlpack(t.to("cpu"))
        assert back.dtype == dtype
        assert bool((back.view(torch.int16) == source.view(torch.int16)).all())


def test_repr():
    assert repr(Ep.astensor(np.array([1.5, 0.1], np.float16))) == "Ep.Tensor([1.5, 0.1], dtype=float16)"
    assert repr(Ep.astensor([1.5, 0.1]).astype(Ep.bfloat16)) == "Ep.Tensor([1.5, 0.1], dtype=bfloat16)"


# Gradients flow in the half type, against PyTorch's float64 gradients of
# the same (half) values, rounded. The backward ops round too (tanh's
# 1 - y^2 from a rounded y), so the bound is in units of the largest
# gradient's last place.

GRADIENTS = [
    ("mul", lambda x, y: (x * y).sum(), lambda x, y: (x * y).sum(), 1),
    ("exp", lambda x, y: (x.exp() * y).sum(), lambda x, y: (x.exp() * y).sum(), 2),
    ("tanh", lambda x, y: (x.tanh() * y).sum(), lambda x, y: (x.tanh() * y).sum(), 2),
    ("matmul", lambda x, y: (x @ y.T).sum(), lambda x, y: (x @ y.T).sum(), 3),
    ("softmax", lambda x, y: (x.softmax(axis=1) * y).sum(), lambda x, y: (x.softmax(dim=1) * y).sum(), 3),
    ("mean", lambda x, y: (x * y).mean(), lambda x, y: (x * y).mean(), 2),
]


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.parametrize("name,f,torch_f,ulps", GRADIENTS)
def test_gradients_against_torch(rng, dtype, name, f, torch_f, ulps):
    x, a = half_input(rng, (3, 4), dtype)
    y, b = half_input(rng, (3, 4), dtype)
    value, grads = Ep.value_and_grad(f, x, y, argnums=(0, 1))
    ta = torch.from_numpy(a).double().requires_grad_()
    tb = torch.from_numpy(b).double().requires_grad_()
    expected = torch_f(ta, tb)
    expected.backward()
    assert value.dtype == dtype
    check(value, dtype, np.float32(expected.item()), 4 * ulps)
    for g, t in zip(grads, (ta, tb)):
        assert g.dtype == dtype
        expected_grad = t.grad.numpy().astype(np.float32)
        check(g, dtype, expected_grad, 4 * ulps, scale=np.abs(expected_grad).max())


# Training in a half type: the optimizers' fused CPU loops and OpenCL
# kernels are float32 and float64 ones; half variables take their ops.

@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.parametrize("make", [lambda: Ep.Sgd(learning_rate=0.25, momentum=0.5),
                                  lambda: Ep.Adam(learning_rate=0.1)], ids=["sgd", "adam"])
def test_optimizer_steps(dtype, make):
    start = np.array([1.0, -2.0, 0.5], np.float32)
    v = Ep.Variable(Ep.astensor(start).astype(dtype))
    reference = Ep.Variable(Ep.astensor(start))
    for variable in (v, reference):
        optimizer = make()
        for _ in range(3):
            with Ep.GradientTape() as tape:
                loss = (variable.read() * variable.read()).sum()
            optimizer.apply_gradients(tape.gradient(loss, [variable]), [variable])
    assert v.read().dtype == dtype
    got = values_of(v.read())
    np.testing.assert_allclose(got, reference.read().numpy(), rtol=8 * EPS[dtype], atol=8 * EPS[dtype])
    assert not np.allclose(got, start)
