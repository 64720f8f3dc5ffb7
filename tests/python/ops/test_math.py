"""The math family (functions of one tensor) against NumPy: neg abs sign
square sqrt exp expm1 log log1p log2 log10, the trigonometric and
hyperbolic functions and their inverses, sigmoid relu softplus, round
ceil floor erf erfc: every dtype, 0-d and 0-size shapes, non-contiguous views,
special values (NaN, infinities, signed zeros), and the errors.
"""

import math

import numpy as np
import pytest
from conftest import DTYPES, NARROW_INTS, Ep, assert_ep_error, assert_matches, layouts, random_array, reference

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


UNARY = {
    "neg": np.negative,
    "abs": np.abs,
    "square": np.square,
    "sqrt": np.sqrt,
    "exp": np.exp,
    "log": np.log,
    "tanh": np.tanh,
    "sigmoid": lambda x: np.asarray(1 / (1 + np.exp(-x)), dtype=np.result_type(x.dtype, np.float32) if x.dtype.kind == "f" else np.float64),
    "relu": lambda x: np.maximum(x, np.zeros((), x.dtype)),
}


@pytest.mark.parametrize("name", list(UNARY))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4)])
@pytest.mark.numpy_op
def test_unary(rng, name, dtype, shape):
    a = random_array(rng, shape, dtype)
    if name in ("sqrt", "log"):
        a = np.abs(a) + (1 if dtype.startswith("int") else 0.5)
    with np.errstate(all="ignore"):
        expected = UNARY[name](a)
    if expected.dtype == np.float16:
        expected = expected.astype(np.float32)
    assert_matches(getattr(Ep.Tensor, name)(Ep.astensor(a)), expected, rtol=2e-6 if dtype == "float32" else None)


@pytest.mark.parametrize("name", list(UNARY))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.numpy_op
def test_unary_non_contiguous(rng, name, dtype):
    a = random_array(rng, (4, 6), dtype)
    if name in ("sqrt", "log"):
        a = np.abs(a) + 1
    with np.errstate(all="ignore"):
        expected = UNARY[name](a)
    for _, t in layouts(a):
        assert_matches(getattr(Ep.Tensor, name)(t), expected)


def test_neg_bool_is_dtype_error():
    assert_ep_error(Ep.Error.DTYPE, Ep.Tensor.neg, Ep.astensor([True, False]))


@pytest.mark.numpy_op("exp", "log", "sqrt", "tanh", "sigmoid", "relu", "abs")
def test_special_values():
    a = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45], np.float32)
    for name in ("exp", "log", "sqrt", "tanh", "sigmoid", "relu", "abs"):
        with np.errstate(all="ignore"):
            expected = UNARY[name](a)
        assert_matches(getattr(Ep.Tensor, name)(Ep.astensor(a)), expected)


# unary functions with float results

def in_domain(name, a):
    """Inputs mostly inside the function's domain (the rest gives NaN)."""
    if name in ("arcsin", "arccos", "arctanh"):
        return a / 3.5 if a.dtype.kind == "f" else a
    if name == "arccosh":
        return np.abs(a) + 1 if a.dtype.kind in "fiu" else a
    if name in ("log1p",):
        return np.abs(a) if a.dtype.kind in "fiu" else a
    if name in ("log2", "log10"):
        return np.abs(a) + (1 if a.dtype.kind in "iu" else 0.25) if a.dtype.kind in "fiu" else a
    return a


def erf_reference(x):
    """math.erf elementwise (NumPy has none), in the type NumPy's functions give."""
    dtype = x.dtype if x.dtype.kind == "f" else np.float64
    return np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64)).astype(dtype)


def erfc_reference(x):
    """math.erfc elementwise, in the type NumPy's functions give."""
    dtype = x.dtype if x.dtype.kind == "f" else np.float64
    return np.vectorize(math.erfc, otypes=[np.float64])(x.astype(np.float64)).astype(dtype)


FLOAT_FUNCTIONS = {
    "expm1": np.expm1, "log1p": np.log1p, "log2": np.log2, "log10": np.log10,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh,
    "arcsin": np.arcsin, "arccos": np.arccos, "arctan": np.arctan,
    "arcsinh": np.arcsinh, "arccosh": np.arccosh, "arctanh": np.arctanh,
    "softplus": lambda x: np.logaddexp(np.zeros((), x.dtype if x.dtype.kind == "f" else np.float64), x),
    "ceil": np.ceil, "floor": np.floor, "erf": erf_reference,
    "erfc": erfc_reference,
}


def float_expected(function, a):
    """NumPy's result, with float16 (from bool) replaced by float32."""
    if a.dtype == np.bool_:
        return reference(function, a.astype(np.float32))
    return reference(function, a)


@pytest.mark.parametrize("name", list(FLOAT_FUNCTIONS))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4)])
@pytest.mark.numpy_op
def test_float_functions(rng, name, dtype, shape):
    a = in_domain(name, random_array(rng, shape, dtype))
    expected = float_expected(FLOAT_FUNCTIONS[name], a)
    got = getattr(Ep.Tensor, name)(Ep.astensor(a))
    assert_matches(got, expected, rtol=4e-6 if expected.dtype == np.float32 else None)


@pytest.mark.parametrize("name", list(FLOAT_FUNCTIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.numpy_op
def test_float_functions_non_contiguous(rng, name, dtype):
    a = in_domain(name, random_array(rng, (5, 4), dtype))
    expected = reference(FLOAT_FUNCTIONS[name], a)
    for _, t in layouts(a):
        assert_matches(getattr(Ep.Tensor, name)(t), expected, rtol=4e-6 if expected.dtype == np.float32 else None)


@pytest.mark.parametrize("name", list(FLOAT_FUNCTIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.numpy_op
def test_float_functions_special_values(name, dtype):
    a = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 1e-30, 0.5, 100.0], dtype)
    assert_matches(getattr(Ep.Tensor, name)(Ep.astensor(a)), reference(FLOAT_FUNCTIONS[name], a),
                   rtol=4e-6 if dtype == "float32" else None)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.numpy_op("softplus")
def test_softplus_is_stable(dtype):
    a = np.array([-1000.0, -50.0, 50.0, 1000.0, 1e30], dtype)
    got = Ep.astensor(a).softplus().numpy()
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, np.logaddexp(0, a.astype(np.float64)).astype(dtype), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("shape", [(), (0,), (9,), (3, 4)])
@pytest.mark.numpy_op("sign")
def test_sign(rng, dtype, shape):
    a = random_array(rng, shape, dtype)
    assert_matches(Ep.astensor(a).sign(), np.sign(a))


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
@pytest.mark.numpy_op("sign")
def test_sign_non_contiguous(rng, dtype):
    a = random_array(rng, (4, 5), dtype)
    for _, t in layouts(a):
        assert_matches(t.sign(), np.sign(a))


@pytest.mark.numpy_op("sign")
def test_sign_special_and_bool():
    a = np.array([np.nan, -0.0, 0.0, -np.inf, np.inf, -1e-300], np.float64)
    assert_matches(Ep.astensor(a).sign(), np.sign(a))
    assert_ep_error(Ep.Error.DTYPE, Ep.Tensor.sign, Ep.astensor([True]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.numpy_op("round")
def test_round(rng, dtype):
    a = random_array(rng, (4, 5), dtype)
    if dtype.startswith("float"):
        a = np.concatenate([a.ravel(), np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, np.nan, np.inf], dtype)])
    assert_matches(Ep.astensor(a).round(), float_expected(np.round, a))
    for shape in [(), (0,), (2, 0)]:
        c = random_array(rng, shape, dtype) * (3 if dtype.startswith("float") else 1)
        assert_matches(Ep.astensor(c).round(), float_expected(np.round, c))
    b = a.reshape(4, -1)
    for _, t in layouts(b):
        assert_matches(t.round(), float_expected(np.round, b))


# gelu: against torch.nn.functional.gelu, both approximations

def torch_gelu(a, approximate):
    torch = pytest.importorskip("torch")
    return torch.nn.functional.gelu(torch.from_numpy(np.array(a, copy=True)), approximate=approximate).numpy()


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (600,)])
@pytest.mark.numpy_op("gelu")
def test_gelu_matches_torch(rng, approximate, dtype, shape):
    a = np.asarray(random_array(rng, shape, dtype) * 2, dtype)
    tolerance = {"rtol": 4e-6, "atol": 1e-6} if dtype == "float32" else {"rtol": 1e-14, "atol": 1e-15}
    assert_matches(Ep.astensor(a).gelu(approximate=approximate), torch_gelu(a, approximate), **tolerance)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.numpy_op("gelu")
def test_gelu_non_contiguous(rng, approximate):
    a = random_array(rng, (5, 4), "float64")
    for _, t in layouts(a):
        assert_matches(t.gelu(approximate=approximate), torch_gelu(a, approximate), rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.numpy_op("gelu")
def test_gelu_special_values_and_types(approximate):
    a = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, -100.0, 100.0, 1e-30], np.float32)
    assert_matches(Ep.astensor(a).gelu(approximate=approximate), torch_gelu(a, approximate), rtol=4e-6)
    ints = np.array([-2, 0, 3], np.int32)
    assert_matches(Ep.astensor(ints).gelu(approximate=approximate),
                   torch_gelu(ints.astype(np.float64), approximate), rtol=1e-14)
    assert Ep.astensor(np.array([True])).gelu().dtype == Ep.DType.FLOAT32


def test_gelu_default_is_exact(rng):
    a = random_array(rng, (6,), "float64")
    assert_matches(Ep.astensor(a).gelu(), torch_gelu(a, "none"), rtol=1e-14, atol=1e-15)


def test_gelu_bad_approximation():
    """The wrapper names the choices (the C error is tested in tests/c/ops/math.c)."""
    for bad in ("fast", 5):
        with pytest.raises(ValueError, match="'none', 'tanh'"):
            Ep.astensor([1.0]).gelu(approximate=bad)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_gradient_matches_torch(rng, approximate):
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(4, 5)) * 2
    x = Ep.astensor(a)
    g = rng.normal(size=(4, 5))
    with Ep.GradientTape() as tape:
        tape.watch(x)
        loss = (x.gelu(approximate=approximate) * Ep.astensor(g)).sum()
    grad = tape.gradient(loss, x)
    tx = torch.tensor(a, requires_grad=True)
    (torch.nn.functional.gelu(tx, approximate=approximate) * torch.from_numpy(g)).sum().backward()
    assert_matches(grad, tx.grad.numpy(), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("name,torch_name", [("erf", "erf"), ("erfc", "special.erfc")])
def test_erf_gradient_matches_torch(rng, name, torch_name):
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(3, 4)) * 2
    x = Ep.astensor(a)
    with Ep.GradientTape() as tape:
        tape.watch(x)
        loss = getattr(x, name)().sum()
    tx = torch.tensor(a, requires_grad=True)
    function = torch
    for part in torch_name.split("."):
        function = getattr(function, part)
    function(tx).sum().backward()
    assert_matches(tape.gradient(loss, x), tx.grad.numpy(), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.numpy_op("erfc")
def test_erfc_tail(dtype):
    """erfc where 1 - erf has nothing left: relative precision down to the
    smallest normal values the type holds, against math.erfc (and 2, 1, 0, NaN at
    -inf, 0, inf, NaN)."""
    a = np.array([-np.inf, -6, -1, 0, 0.5, 3, 5, 9, 10, 26, 27.3, np.nan, np.inf], dtype)
    expected = erfc_reference(a)
    got = Ep.astensor(a).erfc()
    assert expected[6] == pytest.approx(1.5374597944280349e-12, rel=1e-6)
    assert (1 - erf_reference(a))[7] == 0
    # relative where the result is normal, to two steps where it is subnormal
    tiny = np.finfo(dtype).smallest_subnormal
    assert_matches(got, expected, rtol=2e-6 if dtype == "float32" else 1e-15, atol=2 * tiny)


def test_erfc_matches_torch(rng):
    torch = pytest.importorskip("torch")
    a = np.concatenate([rng.normal(size=20) * 4, [5.0, 9.0, 26.0, -np.inf, np.inf, np.nan]])
    for dtype in ("float32", "float64"):
        x = a.astype(dtype)
        expected = torch.special.erfc(torch.from_numpy(x)).numpy()
        assert_matches(Ep.astensor(x).erfc(), expected, rtol=4e-6 if dtype == "float32" else 1e-15, atol=0)


# The narrow integer types (uint8, int8, int16): neg, abs, sign and
# square wrap as NumPy's (abs and neg of int8's -128 are -128, neg of
# uint8 wraps modulo 256); the float functions refuse them, as the other
# ops without kernels for them do: convert with astype first

NARROW_UNARY = {"neg": np.negative, "abs": np.abs, "sign": np.sign, "square": np.square}


@pytest.mark.parametrize("name", list(NARROW_UNARY))
@pytest.mark.parametrize("dtype", NARROW_INTS)
@pytest.mark.numpy_op("neg", "abs", "sign", "square")
def test_narrow_int_unary(rng, name, dtype):
    info = np.iinfo(dtype)
    a = np.concatenate([random_array(rng, (19,), dtype),
                        np.array([info.min, info.max, 0, 1, info.min + 1], dtype)]).reshape(4, 6)
    expected = reference(NARROW_UNARY[name], a)
    assert expected.dtype == np.dtype(dtype)
    for _, t in layouts(a):
        assert_matches(getattr(Ep.Tensor, name)(t), expected, exact=True)
    for shape in [(), (0,)]:
        c = random_array(rng, shape, dtype)
        assert_matches(getattr(Ep.Tensor, name)(Ep.astensor(c)), reference(NARROW_UNARY[name], c), exact=True)


@pytest.mark.parametrize("dtype", NARROW_INTS)
def test_narrow_int_float_functions_refused(dtype):
    t = Ep.astensor(np.array([1, 2], dtype))
    for name in ("exp", "sqrt", "sin", "round"):
        message = assert_ep_error(Ep.Error.DTYPE, getattr(Ep.Tensor, name), t)
        assert message.startswith(name + ":") and dtype in message and "astype" in message
