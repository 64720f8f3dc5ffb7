"""The reduce family against NumPy: sum mean max min prod all any argmin
argmax, the composite norms l0 l1 l2 linf lp, and var and std, over every axis
combination with and without keepdims, on every dtype, 0-d and 0-size
inputs, non-contiguous views, NaN, and the errors; 0-d tensors along an
axis (argsort and cumsum there too).
"""

import numpy as np
import pytest
from conftest import (AXES, DTYPES, NARROW_INTS, Ep, assert_ep_error, assert_matches, layouts, logsumexp_reference, out_dtype,
                      random_array, reference)

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


# sum, mean, max, min

REDUCTIONS = ["sum", "mean", "max", "min"]


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.numpy_op
def test_reductions(rng, name, dtype, axis, keepdims):
    a = random_array(rng, (3, 4, 5), dtype)
    t = Ep.astensor(a)
    if name == "mean" and dtype not in ("float32", "float64"):
        assert_ep_error(Ep.Error.DTYPE, Ep.Tensor.mean, t, None, False)
        return
    expected = getattr(np, name)(a, axis=axis, keepdims=keepdims)
    assert_matches(getattr(t, name)(axis=axis, keepdims=keepdims), expected)


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.numpy_op
@pytest.mark.filterwarnings("ignore:Mean of empty slice")
def test_reductions_0d_and_empty(rng, name, dtype):
    if name == "mean" and dtype == "int64":
        return
    s = random_array(rng, (), dtype)
    for axis in (None, ()):
        assert_matches(getattr(Ep.astensor(s), name)(axis=axis), getattr(np, name)(s, axis=axis))
    empty = random_array(rng, (2, 0, 3), dtype)
    axes = [0, 2, (0, 2)] if name in ("min", "max") else [None, 0, 1, (0, 1)]  # max of nothing: no identity
    for axis in axes:
        with np.errstate(all="ignore"):
            expected = getattr(np, name)(empty, axis=axis)
        for _, t in layouts(empty):
            assert_matches(getattr(t, name)(axis=axis), expected)


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2)])
@pytest.mark.numpy_op
def test_reductions_non_contiguous(rng, name, axis):
    a = random_array(rng, (6, 7, 3), "float64")
    expected = getattr(np, name)(a, axis=axis)
    for _, t in layouts(a):
        assert_matches(getattr(t, name)(axis=axis), expected)


def test_sum_large_float32_is_accurate(rng):
    a = rng.random(1 << 20).astype(np.float32)
    exact = a.astype(np.float64).sum()
    assert abs(Ep.astensor(a).sum().item() - exact) <= np.spacing(np.float32(exact))


@pytest.mark.numpy_op("max", "min", "sum")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_short_sums_add_in_the_order_of_long_ones(rng, dtype):
    """Runs of up to 8 elements take a short path; it adds in the order
    of the general one, whose result a trailing zero does not change."""
    for n in range(1, 9):
        x = (rng.standard_normal((50, n)) * 10.0 ** rng.integers(-6, 7, (50, 1))).astype(dtype)
        x[::7] = -0.0
        padded = np.concatenate([x, np.zeros((50, 9 - n), dtype)], axis=1)
        short = Ep.astensor(x).sum(axis=1).numpy()
        assert short.tobytes() == Ep.astensor(padded).sum(axis=1).numpy().tobytes()


def test_reduction_nan_propagates():
    a = np.array([[1.0, np.nan], [3.0, 2.0]])
    for name in ("max", "min", "sum"):
        assert_matches(getattr(Ep.astensor(a), name)(axis=1), getattr(np, name)(a, axis=1))


def test_reduction_errors():
    t = Ep.zeros([2, 3])
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.sum, t, [2], False)
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.sum, t, [-3], False)
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.sum, t, [0, -2], False)
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.max, Ep.zeros([0, 3]), [0], False)


@pytest.mark.numpy_op("sum", "max")
def test_empty_reductions():
    assert_matches(Ep.zeros([0, 3]).sum(axis=0), np.zeros(3, np.float32))
    assert_matches(Ep.zeros([0, 3]).max(axis=1), np.zeros((0,), np.float32))


# prod, all, any

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.numpy_op("prod")
def test_prod(rng, dtype, axis, keepdims):
    a = random_array(rng, (3, 4, 5), dtype)
    if dtype.startswith("float"):
        a = a / 2  # keep the products in a sensible range
    expected = np.prod(a, axis=axis, keepdims=keepdims)
    assert_matches(Ep.astensor(a).prod(axis=axis, keepdims=keepdims), expected)


@pytest.mark.parametrize("shape,axis", [((), None), ((0,), None), ((0, 3), 0), ((3, 0), 0), ((2, 0), 1)])
@pytest.mark.numpy_op("prod")
def test_prod_empty_and_scalar(rng, shape, axis):
    a = random_array(rng, shape, "float64")
    assert_matches(Ep.astensor(a).prod(axis=axis), np.prod(a, axis=axis))


@pytest.mark.numpy_op("prod")
def test_prod_non_contiguous_and_wrapping(rng):
    a = random_array(rng, (6, 7, 3), "float64") / 2
    ints = random_array(rng, (4, 5), "int32")
    for axis in (None, 0, 1, (0, 2)):
        for _, t in layouts(a):
            assert_matches(t.prod(axis=axis), np.prod(a, axis=axis))
    for _, t in layouts(ints):
        assert_matches(t.prod(axis=1), np.prod(ints, axis=1))
    big = np.full(5, 2 ** 20, np.int64)
    assert_matches(Ep.astensor(big).prod(), np.prod(big))  # wraps like NumPy


@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.numpy_op
def test_truth_reductions(rng, name, axis, keepdims):
    a = rng.random((3, 4, 5)) < (0.9 if name == "all" else 0.1)
    expected = getattr(np, name)(a, axis=axis, keepdims=keepdims)
    for _, t in layouts(a):
        assert_matches(getattr(t, name)(axis=axis, keepdims=keepdims), expected)


@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.numpy_op
def test_truth_reductions_empty(name):
    a = np.zeros((0, 3), bool)
    assert_matches(getattr(Ep.astensor(a), name)(), getattr(np, name)(a))
    assert_matches(getattr(Ep.astensor(a), name)(axis=0), getattr(np, name)(a, axis=0))
    for s in (np.array(True), np.array(False)):
        for axis in (None, ()):
            assert_matches(getattr(Ep.astensor(s), name)(axis=axis), getattr(np, name)(s, axis=axis))


@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_truth_reductions_refuse_non_bool(name, dtype):
    message = assert_ep_error(Ep.Error.DTYPE, getattr(Ep.Tensor, name), Ep.astensor(np.ones(3, dtype)), None, False)
    assert name in message and dtype in message


@pytest.mark.parametrize("name", ["prod", "all", "any", "logsumexp"])
def test_reduction_axis_errors(name):
    x = Ep.astensor(np.ones((2, 3), bool if name in ("all", "any") else np.float32))
    message = assert_ep_error(Ep.Error.AXIS, getattr(Ep.Tensor, name), x, [2], False)
    assert name in message and "2" in message
    assert_ep_error(Ep.Error.AXIS, getattr(Ep.Tensor, name), x, [0, -2], False)


# argmin, argmax

@pytest.mark.parametrize("name", ["argmin", "argmax"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.numpy_op
def test_arg_extrema(rng, name, dtype, axis, keepdims):
    a = random_array(rng, (4, 5, 3), dtype)  # small ints and bools: many ties
    expected = getattr(np, name)(a, axis=axis, keepdims=keepdims)
    for _, t in layouts(a):
        assert_matches(getattr(t, name)(axis=axis, keepdims=keepdims), expected)


@pytest.mark.parametrize("name", ["argmin", "argmax"])
@pytest.mark.numpy_op
def test_arg_extrema_nan_and_scalar(rng, name):
    a = random_array(rng, (3, 6), "float32")
    a[0, 4] = np.nan
    a[2, 1] = np.nan
    a[2, 3] = np.nan
    for axis in (None, 0, 1):
        assert_matches(getattr(Ep.astensor(a), name)(axis=axis), getattr(np, name)(a, axis=axis))
    s = np.array(2.5)
    assert_matches(getattr(Ep.astensor(s), name)(), getattr(np, name)(s))


@pytest.mark.parametrize("name", ["argmin", "argmax"])
@pytest.mark.numpy_op
def test_arg_extrema_of_empty_tensors(rng, name):
    a = random_array(rng, (0, 3, 2), "float64")
    for axis in (1, 2, -1):
        for _, t in layouts(a):
            assert_matches(getattr(t, name)(axis=axis), getattr(np, name)(a, axis=axis))


@pytest.mark.parametrize("name", ["argmin", "argmax"])
def test_arg_extrema_errors(name):
    message = assert_ep_error(Ep.Error.SHAPE, getattr(Ep.Tensor, name), Ep.zeros([0, 3]), None, False)
    assert name in message
    message = assert_ep_error(Ep.Error.SHAPE, getattr(Ep.Tensor, name), Ep.zeros([0, 3]), 0, False)
    assert name in message and "0" in message
    message = assert_ep_error(Ep.Error.AXIS, getattr(Ep.Tensor, name), Ep.zeros([2, 3]), 2, False)
    assert name in message and "2" in message
    # one axis or None, as NumPy's: several are a TypeError (the C function takes one)
    with pytest.raises(TypeError):
        getattr(Ep.Tensor, name)(Ep.zeros([2, 3]), [0, 1], False)
    with pytest.raises(TypeError):
        getattr(np, name)(np.zeros([2, 3]), (0, 1))


# norms

NORMS = {
    "l0": lambda a, axis, keepdims: np.sum(a != 0, axis=axis, keepdims=keepdims).astype(a.dtype if a.dtype.kind == "f" else np.int64),
    "l1": lambda a, axis, keepdims: np.sum(np.abs(a), axis=axis, keepdims=keepdims),
    "l2": lambda a, axis, keepdims: np.sqrt(np.sum(np.square(a), axis=axis, keepdims=keepdims)),
    "linf": lambda a, axis, keepdims: np.max(np.abs(a), axis=axis, keepdims=keepdims),
}


@pytest.mark.parametrize("name", list(NORMS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.numpy_op
def test_norms(rng, name, dtype, axis, keepdims):
    a = random_array(rng, (3, 4, 5), dtype)
    a.flat[::4] = 0
    expected = NORMS[name](a, axis, keepdims)
    if name == "l1" and dtype == "int32":
        expected = expected.astype(np.int64)
    for _, t in layouts(a):
        assert_matches(getattr(t, name)(axis=axis, keepdims=keepdims), expected)


@pytest.mark.parametrize("name", list(NORMS))
@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.numpy_op
def test_norms_0d_and_empty(rng, name, dtype):
    s = random_array(rng, (), dtype)
    for axis in (None, ()):
        assert_matches(getattr(Ep.astensor(s), name)(axis=axis), NORMS[name](s, axis, False))
    empty = random_array(rng, (2, 0, 3), dtype)
    axes = [0, 2, (0, 2)] if name == "linf" else [None, 0, 1, (0, 1)]   # max of nothing: no identity
    for axis in axes:
        expected = NORMS[name](empty, axis, False)
        if name == "l1" and dtype == "int32":
            expected = expected.astype(np.int64)
        for _, t in layouts(empty):
            assert_matches(getattr(t, name)(axis=axis), expected)


@pytest.mark.parametrize("p", [0.5, 1, 2, 3, 2.5, np.inf, -np.inf, -1.5])
@pytest.mark.parametrize("shape,axis", [((), None), ((0, 4), 0), ((0, 4), 1), ((3, 0), None)])
@pytest.mark.numpy_op("lp")
def test_lp_0d_and_empty(rng, p, shape, axis):
    a = random_array(rng, shape, "float64")
    if np.isinf(p) and a.size == 0 and (axis is None or a.shape[axis] == 0):
        return  # max or min of nothing
    with np.errstate(divide="ignore"):
        expected = np.linalg.norm(a.reshape(-1) if axis is None else a, ord=p, axis=axis)
    for _, t in layouts(a):
        np.testing.assert_allclose(t.lp(p, axis=axis).numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("p", [0.5, 1, 2, 3, 2.5, np.inf, -np.inf, -1.5, 0])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.numpy_op("lp")
def test_lp(rng, p, dtype):
    a = random_array(rng, (4, 6), dtype)
    if p < 0:
        a = np.where(a == 0, 1, a).astype(dtype)
    expected = np.linalg.norm(a.astype(np.float64), ord=p, axis=1)
    for _, t in layouts(a):
        got = t.lp(p, axis=1).numpy()
        np.testing.assert_allclose(got, expected, rtol=2e-6 if dtype == "float32" else 1e-12)


@pytest.mark.numpy_op("linf", "l2")
def test_norms_of_nothing_are_zero():
    a = np.zeros((0, 3), np.float32)
    assert_matches(Ep.astensor(a).linf(axis=0), np.zeros(3, np.float32))
    assert_matches(Ep.astensor(a).l2(axis=0), np.zeros(3, np.float32))
    assert_matches(Ep.astensor(a).linf(), np.float32(0))


def test_lp_errors():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.lp, Ep.zeros([3]), float("nan"), None, False)
    assert "lp" in message
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.lp, Ep.zeros([3]), 3.0, [1], False)
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.linf, Ep.zeros([3]), [1], False)


# 0-d tensors along an axis, as NumPy 1.24: argsort, cumsum, cumprod,
# argmin and argmax flatten them first (axis 0 or -1 of a 1-D array); the reductions
# but mean take axis 0 or -1 as no axis; any other axis is an error.

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.numpy_op("argsort", "cumsum", "cumprod", "argmin", "argmax")
def test_0d_along_an_axis(rng, dtype, axis):
    a = random_array(rng, (), dtype)
    t = Ep.astensor(a)
    assert_matches(t.argsort(axis=axis), np.argsort(a, axis=axis))
    assert_matches(t.cumsum(axis=axis), np.cumsum(a, axis=axis))
    assert_matches(t.cumprod(axis=axis), np.cumprod(a, axis=axis))
    for name in ("argmin", "argmax"):
        for keepdims in (False, True):
            assert_matches(getattr(t, name)(axis=axis, keepdims=keepdims),
                           getattr(np, name)(a, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.numpy_op("sum", "prod", "max", "min", "all", "any", "logsumexp")
def test_0d_reduced_along_an_axis(rng, dtype, axis, keepdims):
    a = random_array(rng, (), dtype)
    t = Ep.astensor(a)
    for name in ("sum", "prod", "max", "min"):
        assert_matches(getattr(t, name)(axis=axis, keepdims=keepdims),
                       getattr(np, name)(a, axis=axis, keepdims=keepdims))
    if dtype == "bool":
        for name in ("all", "any"):
            assert_matches(getattr(t, name)(axis=axis, keepdims=keepdims),
                           getattr(np, name)(a, axis=axis, keepdims=keepdims))
    expected = logsumexp_reference(a, axis=(), keepdims=keepdims).astype(out_dtype(dtype))
    assert_matches(t.logsumexp(axis=axis, keepdims=keepdims), expected)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "all", "any", "logsumexp", "mean",
                                  "argsort", "cumsum", "cumprod", "argmin", "argmax"])
def test_0d_other_axes_are_refused(name):
    s = np.array(True)
    numpy_function = {"logsumexp": None}.get(name, getattr(np, name, None))
    # NumPy's mean refuses axis 0 of a 0-d array; the others refuse axis 1
    axis = 0 if name == "mean" else 1
    if numpy_function is not None:
        with pytest.raises(np.AxisError):
            numpy_function(s, axis=axis)
    t = Ep.astensor(s if name in ("all", "any") else s.astype(np.float32))
    method = getattr(Ep.Tensor, name)
    # the ops along one axis (an int) flatten first: NumPy reports rank 1
    flattens = name in ("argsort", "cumsum", "cumprod", "argmin", "argmax")
    message = assert_ep_error(Ep.Error.AXIS, method, t, axis if flattens else [axis])
    assert ("of 1 dimension" if flattens else "of 0 dimensions") in message, message


NORMS_AT_ZERO = {"l1": (lambda t: t.l1(axis=1), 1), "l2": (lambda t: t.l2(axis=1), 2),
                 "linf": (lambda t: t.linf(axis=1), np.inf), "lp(3)": (lambda t: t.lp(3, axis=1), 3),
                 "lp(1.5)": (lambda t: t.lp(1.5, axis=1), 1.5), "lp(0.5)": (lambda t: t.lp(0.5, axis=1), 0.5),
                 "lp(-inf)": (lambda t: t.lp(-np.inf, axis=1), -np.inf)}


@pytest.mark.parametrize("name", NORMS_AT_ZERO)
def test_norm_gradient_at_zero_like_pytorch(name):
    """A zero row (and a zero element) gets the subgradient 0, as in
    PyTorch, never NaN"""
    torch = pytest.importorskip("torch")
    norm, order = NORMS_AT_ZERO[name]
    a = np.array([[0.0, 0.0, 0.0], [3.0, 0.0, 4.0]])
    x = Ep.astensor(a)
    with Ep.GradientTape() as tape:
        tape.watch(x)
        y = norm(x).sum()
    reference = torch.tensor(a, requires_grad=True)
    torch.linalg.vector_norm(reference, order, dim=1).sum().backward()
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), reference.grad.numpy(), rtol=1e-12)


def test_l2_gradient_of_a_zero_vector_is_zero():
    x = Ep.zeros(3, "float32")
    with Ep.GradientTape() as tape:
        tape.watch(x)
        y = x.l2()
    assert tape.gradient(y, x).numpy().tolist() == [0.0, 0.0, 0.0]


# var and std: NumPy's var and std, ddof as correction

@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("correction", [0, 1])
@pytest.mark.numpy_op
def test_var_std(rng, name, dtype, axis, keepdims, correction):
    a = random_array(rng, (3, 4, 5), dtype)
    expected = reference(getattr(np, name), a, axis=axis, keepdims=keepdims, ddof=correction)
    for _, t in layouts(a):
        assert_matches(getattr(t, name)(axis=axis, keepdims=keepdims, correction=correction), expected)


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("shape, axis", [((), None), ((0, 3), 0), ((0, 3), 1), ((2, 0), None)])
@pytest.mark.numpy_op
def test_var_std_empty_and_0d(name, shape, axis):
    """0-d: 0; an empty selection: NaN, as in NumPy."""
    a = np.full(shape, 1.5, np.float32)
    expected = reference(getattr(np, name), a, axis=axis)
    assert_matches(getattr(Ep.astensor(a), name)(axis=axis), expected)


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("correction", [2, 3, 7.5, -1, 0.5])
@pytest.mark.numpy_op
def test_var_std_correction(rng, name, correction):
    """Past the count NumPy divides by 0: inf, or NaN where every
    deviation is 0; fractional and negative ddof are taken as they are."""
    a = np.stack([random_array(rng, (3,), "float64"), np.full(3, 2.0)])
    expected = reference(getattr(np, name), a, axis=1, ddof=correction)
    assert_matches(getattr(Ep.astensor(a), name)(axis=1, correction=correction), expected)


@pytest.mark.numpy_op("var")
def test_var_is_two_pass():
    """A large mean does not swamp the deviations (one-pass E[x²] - E[x]²
    gives 0 or negative values here)."""
    a = (1e4 + np.arange(8) * 1e-2).astype(np.float32)
    assert_matches(Ep.astensor(a).var(), np.var(a), rtol=1e-3)


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_errors(name):
    t = Ep.astensor(np.ones((2, 3)))
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, lambda: getattr(t, name)(correction=float("nan")))
    assert message.startswith(name + ":")
    message = assert_ep_error(Ep.Error.AXIS, lambda: getattr(t, name)(axis=2))
    assert message.startswith(name + ":")


# uint8 (image pixels), int8 and int16: sums and products in int64 (as
# NumPy's for int8 and int16; NumPy's uint64 for uint8 is no type here:
# the same values for every image that fits), extrema keep the type,
# argmin/argmax; mean refuses them as it refuses every integer type

@pytest.mark.parametrize("name", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", NARROW_INTS)
@pytest.mark.numpy_op
def test_uint8_reductions(rng, name, axis, keepdims, dtype):
    a = random_array(rng, (3, 4, 5), dtype)
    expected = getattr(np, name)(a, axis=axis, keepdims=keepdims)
    if name in ("sum", "prod"):
        expected = getattr(np, name)(a.astype(np.int64), axis=axis, keepdims=keepdims)
    assert_matches(getattr(Ep.astensor(a), name)(axis=axis, keepdims=keepdims), expected)


@pytest.mark.parametrize("name", ["sum", "max", "min"])
@pytest.mark.parametrize("dtype", NARROW_INTS)
@pytest.mark.numpy_op
def test_uint8_reductions_long_and_non_contiguous(rng, name, dtype):
    """Long reductions (several work-groups on OpenCL) and views."""
    a = random_array(rng, (64, 300, 3), dtype)
    info = np.iinfo(dtype)
    a[5, 7, 1], a[60, 299, 2] = info.max, info.min
    cast = np.int64 if name == "sum" else dtype
    for axis in (None, 1, (0, 1)):
        for _, t in layouts(a):
            assert_matches(getattr(t, name)(axis=axis), getattr(np, name)(a, axis=axis).astype(cast))


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("dtype", NARROW_INTS)
@pytest.mark.numpy_op
def test_uint8_arg_extrema(rng, name, axis, dtype):
    a = random_array(rng, (4, 6, 5), dtype)
    info = np.iinfo(dtype)
    a[1, 2, 3], a[2, 2, 2] = info.max, info.min
    for _, t in layouts(a):
        assert_matches(getattr(t, name)(axis=axis), getattr(np, name)(a, axis=axis))


@pytest.mark.parametrize("dtype", NARROW_INTS)
@pytest.mark.numpy_op("mean")
def test_uint8_mean_refused(dtype):
    t = Ep.astensor(np.array([1, 2], dtype))
    assert_ep_error(Ep.Error.DTYPE, Ep.Tensor.mean, t, None, False)
