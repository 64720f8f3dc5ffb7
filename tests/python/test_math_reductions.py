"""The reductions, scans, sorting and softmax family of issue 3 against
NumPy: prod all any argmin argmax cumsum sort argsort topk softmax
log_softmax logsumexp crossentropy and the norms, on random shapes (0-d,
0-size), non-contiguous views (transposed, sliced with steps, flipped) and
every dtype, with their errors.
"""

import numpy as np
import pytest
from conftest import DTYPES, LAYOUTS, Ep, as_layout, assert_ep_error, assert_matches, layouts, random_array

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device

AXES = [None, 0, 1, -1, (0, 2), (2, 0, 1), ()]


def reference(function, *args, **kwargs):
    with np.errstate(all="ignore"):
        return function(*args, **kwargs)


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


# cumsum

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


# sort, argsort

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, -1, None])
@pytest.mark.parametrize("shape", [(5, 40, 3), (0, 4, 2), (3, 1, 2)])
@pytest.mark.numpy_op("sort", "argsort")
def test_sort_and_argsort(rng, dtype, axis, shape):
    a = random_array(rng, shape, dtype)
    if dtype.startswith("float") and a.size > 10:
        a.flat[[1, 5, 9]] = np.nan
        a.flat[[2, 3]] = a.flat[4]  # ties
    for _, t in layouts(a):
        assert_matches(t.sort(axis=axis), np.sort(a, axis=axis))
        assert_matches(t.argsort(axis=axis), np.argsort(a, axis=axis, kind="stable"))


@pytest.mark.numpy_op("sort", "argsort")
def test_sort_non_contiguous_and_long_rows(rng):
    a = random_array(rng, (3, 1000), "float64")
    a[:, ::7] = a[:, 1:2]  # many ties in long rows: stability matters
    assert_matches(Ep.astensor(a).T.sort(axis=0), np.sort(a.T, axis=0))
    assert_matches(Ep.astensor(a).T.argsort(axis=0), np.argsort(a.T, axis=0, kind="stable"))
    b = random_array(rng, (1000,), "int64")
    assert_matches(Ep.astensor(b).argsort(), np.argsort(b, kind="stable"))


@pytest.mark.parametrize("name", ["sort", "argsort", "softmax", "log_softmax"])
def test_one_axis_errors(name):
    message = assert_ep_error(Ep.Error.AXIS, getattr(Ep.Tensor, name), Ep.zeros([2, 3]), 2)
    assert name in message and "2" in message
    assert_ep_error(Ep.Error.AXIS, getattr(Ep.Tensor, name), Ep.zeros([2, 3]), -3)
    # argsort flattens a 0-d tensor, as NumPy: it has an axis 0 (or -1)
    assert_ep_error(Ep.Error.AXIS, getattr(Ep.Tensor, name), Ep.zeros([]), 1 if name == "argsort" else -1)


# topk

def topk_reference(a, k, sorted_=True):
    """Largest first, NaN largest, ties to the lower index."""
    keys = a.astype(np.float64)
    nan = np.isnan(keys)
    order = np.lexsort((np.broadcast_to(np.arange(a.shape[-1]), a.shape), -np.where(nan, 0, keys), ~nan), axis=-1)
    indices = order[..., :k]
    if not sorted_:
        indices = np.sort(indices, axis=-1)
    return np.take_along_axis(a, indices, axis=-1), indices.astype(np.int64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", [0, 1, 3, 7])
@pytest.mark.parametrize("sorted_", [True, False])
@pytest.mark.numpy_op("topk")
def test_topk(rng, dtype, k, sorted_):
    a = random_array(rng, (2, 3, 7), dtype)
    if dtype.startswith("float"):
        a[0, 1, 3] = np.nan
        a[1, 0, 2] = a[1, 0, 5]
    expected_values, expected_indices = topk_reference(a, k, sorted_)
    for _, t in layouts(a):
        values, indices = t.topk(k, sorted_)
        assert_matches(values, expected_values, exact=True)
        assert_matches(indices, expected_indices)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", [1, 5, 12])
@pytest.mark.parametrize("sorted_", [True, False])
@pytest.mark.numpy_op("topk")
def test_topk_long_rows(rng, dtype, k, sorted_):
    # small k of long rows takes the one-pass selection
    a = random_array(rng, (3, 200), dtype)
    if dtype.startswith("float"):
        a[0, [3, 50, 199]] = np.nan
        a[1, ::3] = a[1, 7]
    values, indices = Ep.astensor(a).topk(k, sorted_)
    expected_values, expected_indices = topk_reference(a, k, sorted_)
    assert_matches(values, expected_values, exact=True)
    assert_matches(indices, expected_indices)
    for _, t in layouts(a, ("transposed", "strided")):
        values, indices = t.topk(k, sorted_)
        assert_matches(values, expected_values, exact=True)
        assert_matches(indices, expected_indices)


@pytest.mark.numpy_op("topk")
def test_topk_non_contiguous_and_empty(rng):
    a = random_array(rng, (9, 4), "float32")
    values, indices = Ep.astensor(a).T.topk(3)
    expected_values, expected_indices = topk_reference(a.T, 3)
    assert_matches(values, expected_values, exact=True)
    assert_matches(indices, expected_indices)
    values, indices = Ep.astensor(np.zeros((0, 5), np.float32)).topk(2)
    assert values.shape == (0, 2) and indices.shape == (0, 2)


def test_topk_errors():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.topk, Ep.zeros([2, 3]), 4, True)
    assert "topk" in message and "4" in message and "3" in message
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.topk, Ep.zeros([2, 3]), -1, True)
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.topk, Ep.zeros([]), 0, True)


# softmax, log_softmax, logsumexp

def softmax_reference(a, axis):
    wide = a.astype(np.float64)
    e = np.exp(wide - wide.max(axis=axis, keepdims=True, initial=-np.inf))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax_reference(a, axis):
    wide = a.astype(np.float64)
    shifted = wide - wide.max(axis=axis, keepdims=True, initial=-np.inf)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def logsumexp_reference(a, axis=None, keepdims=False):
    wide = a.astype(np.float64)
    if wide.size == 0:
        m = np.zeros(np.sum(wide, axis=axis, keepdims=True).shape)
    else:
        m = reference(np.amax, wide, axis=axis, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
    s = reference(np.log, np.sum(np.exp(wide - m), axis=axis, keepdims=True)) + m
    return s if keepdims else np.squeeze(s, axis=axis if axis is not None else tuple(range(a.ndim)))


def out_dtype(dtype):
    return {"float32": np.float32, "bool": np.float32}.get(dtype, np.float64)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("shape", [(3, 4, 5), (0, 2, 3), (2, 1, 1)])
@pytest.mark.numpy_op
def test_softmax(rng, name, dtype, axis, shape):
    a = random_array(rng, shape, dtype)
    ref = softmax_reference if name == "softmax" else log_softmax_reference
    expected = ref(a, axis).astype(out_dtype(dtype))
    for _, t in layouts(a):
        assert_matches(getattr(t, name)(axis=axis), expected)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.numpy_op
def test_softmax_is_stable(name, dtype):
    a = np.array([[1000.0, 999.0, -1000.0], [-1e4, -1e4 + 1, -1e4 + 2]], dtype)
    ref = softmax_reference if name == "softmax" else log_softmax_reference
    got = getattr(Ep.astensor(a), name)().numpy()
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, ref(a, -1).astype(dtype), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.numpy_op("logsumexp")
def test_logsumexp(rng, dtype, axis, keepdims):
    a = random_array(rng, (3, 4, 5), dtype)
    expected = logsumexp_reference(a, axis=axis, keepdims=keepdims).astype(out_dtype(dtype))
    for _, t in layouts(a):
        assert_matches(t.logsumexp(axis=axis, keepdims=keepdims), expected)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.numpy_op("logsumexp")
def test_logsumexp_0d(rng, dtype):
    s = random_array(rng, (), dtype)
    for axis in (None, ()):
        expected = logsumexp_reference(s, axis=axis if axis is None else (), keepdims=False)
        assert_matches(Ep.astensor(s).logsumexp(axis=axis), expected.astype(out_dtype(dtype)))


@pytest.mark.numpy_op("logsumexp")
def test_logsumexp_special_values(rng):
    a = np.array([[1000.0, 1000.0], [-np.inf, -np.inf], [np.inf, 1.0], [np.nan, 1.0], [-1e4, 3.0]])
    assert_matches(Ep.astensor(a).logsumexp(axis=1), logsumexp_reference(a, axis=1))
    empty = np.zeros((3, 0))
    assert_matches(Ep.astensor(empty).logsumexp(axis=1), np.full(3, -np.inf))
    b = random_array(rng, (5, 4), "float32")
    for _, t in layouts(b):
        assert_matches(t.logsumexp(axis=1), logsumexp_reference(b, axis=1).astype(np.float32))


# crossentropy

def crossentropy_reference(logits, labels):
    return -log_softmax_reference(logits, 1)[np.arange(len(labels)), labels]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("label_dtype", ["int32", "int64"])
@pytest.mark.parametrize("n,c", [(5, 3), (0, 4), (1, 1), (7, 10)])
@pytest.mark.numpy_op("crossentropy")
def test_crossentropy(rng, dtype, label_dtype, n, c):
    logits = random_array(rng, (n, c), dtype)
    labels = rng.integers(0, c, size=n).astype(label_dtype)
    expected = crossentropy_reference(logits, labels).astype(out_dtype(dtype))
    assert_matches(Ep.astensor(logits).crossentropy(Ep.astensor(labels)), expected)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("crossentropy")
def test_crossentropy_non_contiguous_and_stable(rng, layout):
    logits = random_array(rng, (6, 4), "float64")
    labels = np.array([0, 3, 2, 1, 2, 2])
    got = as_layout(logits, layout).crossentropy(as_layout(labels, layout))
    assert_matches(got, crossentropy_reference(logits, labels))
    big = np.array([[1000.0, -1000.0], [-1000.0, 1000.0]], np.float32)
    got = Ep.astensor(big).crossentropy(np.array([0, 0])).numpy()
    np.testing.assert_allclose(got, [0.0, 2000.0], rtol=1e-6)


def test_crossentropy_errors():
    logits = Ep.zeros([3, 4])
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.crossentropy, Ep.zeros([3]), Ep.astensor(np.zeros(3, np.int64)))
    assert "crossentropy" in message and "(3,)" in message
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.crossentropy, logits, Ep.astensor(np.zeros(2, np.int64)))
    assert "(2,)" in message and "(3, 4)" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.crossentropy, logits, Ep.astensor(np.zeros((3, 1), np.int64)))
    message = assert_ep_error(Ep.Error.DTYPE, Ep.Tensor.crossentropy, logits, Ep.zeros([3]))
    assert "float32" in message
    message = assert_ep_error(Ep.Error.INDEX, Ep.Tensor.crossentropy, logits, Ep.astensor(np.array([0, 4, 1])))
    assert "crossentropy" in message and "4" in message
    assert_ep_error(Ep.Error.INDEX, Ep.Tensor.crossentropy, logits, Ep.astensor(np.array([0, -1, 1], np.int32)))


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


# 0-d tensors along an axis, as NumPy 1.24: argsort, cumsum, argmin and
# argmax flatten them first (axis 0 or -1 of a 1-D array); the reductions
# but mean take axis 0 or -1 as no axis; any other axis is an error.

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.numpy_op("argsort", "cumsum", "argmin", "argmax")
def test_0d_along_an_axis(rng, dtype, axis):
    a = random_array(rng, (), dtype)
    t = Ep.astensor(a)
    assert_matches(t.argsort(axis=axis), np.argsort(a, axis=axis))
    assert_matches(t.cumsum(axis=axis), np.cumsum(a, axis=axis))
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
                                  "argsort", "cumsum", "argmin", "argmax"])
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
    flattens = name in ("argsort", "cumsum", "argmin", "argmax")
    message = assert_ep_error(Ep.Error.AXIS, method, t, axis if flattens else [axis])
    assert f"of {1 if flattens else 0} dimensions" in message, message
