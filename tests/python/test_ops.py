"""The issue-2 op set compared with NumPy on random inputs.

Every op runs on random shapes (0-d, 0-size, broadcast) and on
non-contiguous views (transposed, sliced with steps, flipped), for every
dtype NumPy defines it on.
"""

import itertools

import numpy as np
import pytest
from conftest import (DTYPES, LAYOUTS, SHAPE_PAIRS, Ep, as_layout, assert_ep_error, assert_matches, layouts,
                      random_array)

pytestmark = pytest.mark.on_every_device

ARITHMETIC = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.true_divide,
    "pow": np.power,
}
COMPARISONS = {
    "less": np.less,
    "less_equal": np.less_equal,
    "equal": np.equal,
    "not_equal": np.not_equal,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
}


def numpy_refuses(function, *args):
    try:
        with np.errstate(all="ignore"):
            function(*args)
    except (TypeError, ValueError):
        return True
    return False


@pytest.mark.parametrize("name", list(ARITHMETIC) + list(COMPARISONS))
@pytest.mark.parametrize("dtype_a,dtype_b", list(itertools.product(DTYPES, repeat=2)))
@pytest.mark.numpy_op
def test_binary_promotion(rng, name, dtype_a, dtype_b):
    reference = ARITHMETIC.get(name) or COMPARISONS[name]
    a = random_array(rng, (3, 4), dtype_a)
    b = random_array(rng, (4,), dtype_b)
    if name == "pow":
        b = np.abs(b) if b.dtype.kind in "iu" else b
        a = np.abs(a) if a.dtype.kind == "f" else a
    method = getattr(Ep.Tensor, name)
    if numpy_refuses(reference, a, b):
        assert_ep_error(Ep.Error.DTYPE, method, Ep.astensor(a), Ep.astensor(b))
        return
    with np.errstate(all="ignore"):
        expected = reference(a, b)
    if expected.dtype == np.int8:  # NumPy's bool ** bool; not a type here
        return
    assert_matches(method(Ep.astensor(a), Ep.astensor(b)), expected)


@pytest.mark.parametrize("name", list(ARITHMETIC) + list(COMPARISONS))
@pytest.mark.parametrize("shapes", SHAPE_PAIRS)
@pytest.mark.numpy_op
def test_binary_broadcasting(rng, name, shapes):
    reference = ARITHMETIC.get(name) or COMPARISONS[name]
    a = random_array(rng, shapes[0], "float64")
    b = random_array(rng, shapes[1], "float64")
    with np.errstate(all="ignore"):
        expected = reference(a, b)
    assert_matches(getattr(Ep.Tensor, name)(Ep.astensor(a), Ep.astensor(b)), expected)


@pytest.mark.parametrize("name", list(ARITHMETIC) + list(COMPARISONS))
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.numpy_op
def test_binary_non_contiguous(rng, name, layout, dtype):
    reference = ARITHMETIC.get(name) or COMPARISONS[name]
    a = random_array(rng, (3, 5), dtype)
    b = random_array(rng, (3, 5), dtype)
    row = random_array(rng, (5,), dtype)
    if name == "pow" and dtype == "int64":
        b, row = np.abs(b), np.abs(row)
    method = getattr(Ep.Tensor, name)
    with np.errstate(all="ignore"):
        assert_matches(method(as_layout(a, layout), as_layout(b, layout)), reference(a, b))
        assert_matches(method(as_layout(a, layout), Ep.astensor(b)), reference(a, b))
        assert_matches(method(Ep.astensor(a), as_layout(row, layout)), reference(a, row))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", [2, 2.5, True])
@pytest.mark.parametrize("op", ["+", "*", "<"])
@pytest.mark.numpy_op("add", "mul", "less")
def test_weak_scalars(rng, dtype, scalar, op):
    a = random_array(rng, (4,), dtype)
    t = Ep.astensor(a)
    expected = eval(f"a {op} scalar")
    assert_matches(eval(f"t {op} scalar"), expected)
    assert_matches(eval(f"scalar {op} t"), eval(f"scalar {op} a"))


@pytest.mark.parametrize("name", list(ARITHMETIC))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", [3, 2.5, -2])
@pytest.mark.numpy_op
def test_scalar_methods(rng, name, dtype, scalar):
    """add_scalar ... pow_scalar: the other operand is a weak scalar."""
    a = random_array(rng, (3, 4), dtype)
    if name == "pow" and dtype.startswith("int"):
        a = np.abs(a) + 1
    if name == "pow" and dtype in ("int32", "int64", "bool") and scalar == -2:
        assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.pow_scalar, Ep.astensor(a), scalar)
        return  # NumPy raises too: integers to negative integer powers
    with np.errstate(all="ignore"):
        expected = ARITHMETIC[name](a, scalar)
    for _, t in layouts(a):
        assert_matches(getattr(Ep.Tensor, name + "_scalar")(t, scalar), expected)


def test_binary_shape_error():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.add, Ep.zeros([3]), Ep.zeros([4]))
    assert "(3,)" in message and "(4,)" in message and "add" in message


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


@pytest.mark.parametrize("dtype_x,dtype_y", [("float32", "float32"), ("int32", "float64"), ("bool", "int64")])
@pytest.mark.numpy_op("where")
def test_where(rng, dtype_x, dtype_y):
    cond = random_array(rng, (3, 1), "bool")
    x = random_array(rng, (4,), dtype_x)
    y = random_array(rng, (3, 4), dtype_y)
    assert_matches(Ep.astensor(cond).where(Ep.astensor(x), Ep.astensor(y)), np.where(cond, x, y))


@pytest.mark.parametrize("shapes", [((), (), ()), ((), (3,), ()), ((0,), (), (1,)), ((2, 0), (1,), (0,))])
@pytest.mark.numpy_op("where")
def test_where_0d_and_empty(rng, shapes):
    cond = random_array(rng, shapes[0], "bool")
    x = random_array(rng, shapes[1], "float32")
    y = random_array(rng, shapes[2], "int64")
    # NumPy 2's promotion (NEP 50): a 0-d array is no weak scalar
    expected = np.where(cond, x, y).astype(np.promote_types(x.dtype, y.dtype))
    assert_matches(Ep.astensor(cond).where(Ep.astensor(x), Ep.astensor(y)), expected)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("where")
def test_where_non_contiguous(rng, layout):
    cond = random_array(rng, (3, 4), "bool")
    x = random_array(rng, (3, 4), "float64")
    y = random_array(rng, (4,), "int32")
    got = as_layout(cond, layout).where(as_layout(x, layout), as_layout(y, layout))
    assert_matches(got, np.where(cond, x, y))


@pytest.mark.numpy_op("where")
def test_where_scalars_and_non_bool_condition(rng):
    cond = random_array(rng, (5,), "int32")
    x = random_array(rng, (5,), "float32")
    assert_matches(Ep.where(Ep.astensor(cond), Ep.astensor(x), 0.5), np.where(cond, x, np.float32(0.5)))


REDUCTIONS = ["sum", "mean", "max", "min"]
AXES = [None, 0, 1, -1, (0, 2), (2, 0, 1), ()]


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


@pytest.mark.parametrize("shape,new", [((2, 3, 4), (6, 4)), ((2, 3, 4), (-1,)), ((6,), (1, 2, 1, 3, 1)), ((0, 3), (3, -1)), ((1,), ())])
@pytest.mark.numpy_op("reshape")
def test_reshape(rng, shape, new):
    a = random_array(rng, shape, "float32")
    t = Ep.astensor(a)
    r = t.reshape(new)
    assert_matches(r, a.reshape(new))
    assert r.shares_storage(t)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("new", [(-1,), (5, 4), (2, 2, 5), (20, 1)])
@pytest.mark.numpy_op("reshape")
def test_reshape_non_contiguous(rng, layout, new):
    a = random_array(rng, (4, 5), "float32")
    assert_matches(as_layout(a, layout).reshape(new), a.reshape(new))


@pytest.mark.numpy_op("reshape")
def test_reshape_0d(rng):
    s = random_array(rng, (), "int32")
    for new in [(), (1,), (1, 1), (-1,), (1, -1, 1)]:
        assert_matches(Ep.astensor(s).reshape(new), s.reshape(new))


@pytest.mark.numpy_op("reshape")
def test_reshape_of_transpose_copies(rng):
    a = random_array(rng, (3, 4), "int32")
    t = Ep.astensor(a).T
    r = t.reshape(-1)
    assert_matches(r, a.T.reshape(-1))
    assert not r.shares_storage(t)


@pytest.mark.numpy_op("reshape")
def test_reshape_of_transpose_views_when_possible(rng):
    a = random_array(rng, (3, 4, 5), "int64")
    t = Ep.astensor(a).transpose(2, 0, 1)
    r = t.reshape(5, 3, 2, 2)
    assert_matches(r, a.transpose(2, 0, 1).reshape(5, 3, 2, 2))
    assert r.shares_storage(t)


def test_reshape_errors():
    t = Ep.zeros([2, 3])
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.reshape, t, [4, 2])
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.reshape, t, [-1, -1])
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.reshape, t, [4, -1])
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.reshape, t, [-2, 3])


@pytest.mark.parametrize("axes", [None, (1, 0, 2), (2, 0, 1), (-1, -2, -3)])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("transpose")
def test_transpose(rng, axes, layout):
    a = random_array(rng, (2, 3, 4), "float64")
    t = as_layout(a, layout)
    r = t.transpose(*(axes or ()))
    assert_matches(r, np.transpose(a, axes))
    assert r.shares_storage(t)


@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 0), (3, 4), (2, 3, 4)])
@pytest.mark.numpy_op("transpose")
def test_transpose_shapes(rng, shape):
    a = random_array(rng, shape, "bool")
    for _, t in layouts(a):
        assert_matches(t.transpose(), np.transpose(a))
        assert_matches(t.transpose(*reversed(range(a.ndim))), np.transpose(a))


@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 0), (3, 4), (2, 3, 4)])
@pytest.mark.numpy_op("T")
def test_T(rng, shape):
    a = random_array(rng, shape, "int32")
    for _, t in layouts(a):
        assert_matches(t.T, a.T)
        assert t.T.shares_storage(t)


def test_transpose_errors():
    t = Ep.zeros([2, 3])
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.transpose, t, [0])
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.transpose, t, [0, 0])
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.transpose, t, [0, 2])


@pytest.mark.parametrize("shape,axis", [((), 0), ((), -1), ((0,), 0), ((0,), 1), ((2, 0), 1)])
@pytest.mark.numpy_op("expand_dims", "squeeze")
def test_expand_dims_and_squeeze_0d_and_empty(rng, shape, axis):
    a = random_array(rng, shape, "float64")
    for _, t in layouts(a):
        e = t.expand_dims(axis)
        assert_matches(e, np.expand_dims(a, axis))
        assert_matches(e.squeeze(axis), a)
        assert_matches(t.squeeze(), np.squeeze(a))


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("expand_dims")
def test_expand_dims(rng, axis, layout):
    a = random_array(rng, (3, 4), "bool")
    r = as_layout(a, layout).expand_dims(axis)
    assert_matches(r, np.expand_dims(a, axis))


def test_expand_dims_errors():
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.expand_dims, Ep.zeros([2, 3]), 3)
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.expand_dims, Ep.zeros([1] * 8), 0)


@pytest.mark.parametrize("axis", [None, 0, (0, 2), -1])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("squeeze")
def test_squeeze(rng, axis, layout):
    a = random_array(rng, (1, 3, 1), "float32")
    assert_matches(as_layout(a, layout).squeeze(axis), np.squeeze(a, axis))
    b = random_array(rng, (3, 1, 4), "float32")
    assert_matches(as_layout(b, layout).squeeze(1), np.squeeze(b, 1))


def test_squeeze_of_non_1_axis_is_an_error():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.squeeze, Ep.zeros([1, 3]), [1])
    assert "squeeze" in message and "3" in message


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", DTYPES)
@pytest.mark.parametrize("shape", [(), (0, 3), (4, 5)])
@pytest.mark.numpy_op("astype")
def test_astype(rng, src, dst, shape):
    a = random_array(rng, shape, src)
    for _, t in layouts(a):
        assert_matches(t.astype(dst), a.astype(dst))


@pytest.mark.numpy_op("astype")
def test_astype_of_special_floats_matches_numpy_x86():
    a = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.7, -2.7])
    with np.errstate(all="ignore"):
        for dst in ("int32", "int64", "bool"):
            assert_matches(Ep.astensor(a).astype(dst), a.astype(dst))


MATMUL_SHAPES = [
    ((3, 4), (4, 5)),
    ((4,), (4, 5)),
    ((3, 4), (4,)),
    ((4,), (4,)),
    ((2, 3, 4), (4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((0, 4), (4, 3)),
    ((3, 0), (0, 2)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", MATMUL_SHAPES)
@pytest.mark.numpy_op("matmul")
def test_matmul(rng, dtype, shapes):
    a = random_array(rng, shapes[0], dtype)
    b = random_array(rng, shapes[1], dtype)
    assert_matches(Ep.astensor(a) @ Ep.astensor(b), a @ b, rtol=1e-5 if dtype == "float32" else None)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.numpy_op("matmul")
def test_matmul_transposed_operands(rng, dtype):
    a = random_array(rng, (6, 4), dtype)
    b = random_array(rng, (5, 6), dtype)
    assert_matches(Ep.astensor(a).T @ Ep.astensor(b).T, a.T @ b.T, rtol=1e-5)
    c = random_array(rng, (2, 3, 4), dtype)
    assert_matches(Ep.astensor(c).transpose(1, 0, 2) @ Ep.astensor(a).T, c.transpose(1, 0, 2) @ a.T, rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shapes", MATMUL_SHAPES)
@pytest.mark.numpy_op("matmul")
def test_matmul_layouts(rng, dtype, layout, shapes):
    a = random_array(rng, shapes[0], dtype)
    b = random_array(rng, shapes[1], dtype)
    expected = a @ b
    assert_matches(as_layout(a, layout) @ as_layout(b, layout), expected, rtol=1e-5 if dtype == "float32" else None)
    assert_matches(as_layout(a, layout) @ Ep.astensor(b), expected, rtol=1e-5 if dtype == "float32" else None)


@pytest.mark.numpy_op("matmul")
def test_matmul_mixed_dtypes(rng):
    a = random_array(rng, (3, 4), "int32")
    b = random_array(rng, (4, 2), "float32")
    assert_matches(Ep.astensor(a) @ Ep.astensor(b), a @ b)


def test_matmul_errors():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.matmul, Ep.zeros([2, 3]), Ep.zeros([4, 5]))
    assert "3 vs 4" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.matmul, Ep.zeros([2, 2, 3]), Ep.zeros([3, 3, 4]))
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.matmul, Ep.zeros([]), Ep.zeros([3]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (4,), (2, 3)])
@pytest.mark.numpy_op("zeros", "ones", "full")
def test_creation(dtype, shape):
    assert_matches(Ep.zeros(shape, dtype), np.zeros(shape, dtype))
    assert_matches(Ep.ones(shape, dtype), np.ones(shape, dtype))
    assert_matches(Ep.full(shape, 7, dtype), np.full(shape, 7, dtype))
    assert_matches(Ep.full(shape, -2.5, dtype), np.full(shape, -2.5).astype(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
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


def test_arange_errors():
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.arange, 0, 1, 0, Ep.DType.FLOAT32)
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.arange, 0, float("inf"), 1, Ep.DType.FLOAT32)
    assert_ep_error(Ep.Error.DTYPE, Ep.arange, 0, 2, 1, Ep.DType.BOOL)


def test_absurd_shape_is_out_of_memory():
    assert_ep_error(Ep.Error.OUT_OF_MEMORY, Ep.zeros, [1 << 40, 1 << 40], Ep.DType.FLOAT32)
    assert_ep_error(Ep.Error.OUT_OF_MEMORY, Ep.zeros, [1 << 45], Ep.DType.FLOAT32)


def test_negative_and_too_many_dimensions():
    assert_ep_error(Ep.Error.SHAPE, Ep.zeros, [2, -1], Ep.DType.FLOAT32)
    assert_ep_error(Ep.Error.SHAPE, Ep.zeros, [1] * 9, Ep.DType.FLOAT32)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (3, 5)])
@pytest.mark.numpy_op("new_from_bytes", "to_bytes")
def test_bytes_round_trip(rng, dtype, shape):
    a = random_array(rng, shape, dtype)
    assert_matches(Ep.astensor(a), a)
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
    for _, t in layouts(a):
        for index in [(0, 0), (2, 3), (1, -2)]:
            got = t[index].item()
            assert type(got) is type(a[index].item()) and got == a[index].item()
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
