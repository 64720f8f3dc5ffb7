"""The NumPy comparison harness checks itself: every op of API.md's
sections "Creation and conversion", "Elementwise", "Reductions, scans,
sorting", "Shape and indexing" and "Linear algebra" must exist, be
compared with NumPy by a passing test (@pytest.mark.numpy_op), and, if it
takes a tensor, be checked on transposed and step-sliced inputs.

meson runs this file after the op test files in one session ("numpy
harness"); its checks run last (harness_check) and read what conftest.py
counted in that session.
"""

import numpy as np
import pytest
from conftest import NON_CONTIGUOUS, Ep, as_layout, assert_matches, harness_counts, random_array

# The op names of API.md, section by section, as the harness counts them
# (`T` is the transpose property; `float32`, `float64`, `bool` the casts).
API_OPS = {
    "Creation and conversion": [
        "new_from_bytes", "to_bytes", "new_from_doubles", "new_scalar",
        "zeros", "ones", "full", "zeros_like", "ones_like", "full_like",
        "arange", "linspace", "eye", "uniform", "normal",
        "astype", "float32", "float64", "bool", "item", "to_string",
        "shape", "ndim", "dtype", "size", "onehot_like",
    ],
    "Elementwise": [
        "add", "sub", "mul", "div", "floordiv", "mod", "pow",
        "neg", "abs", "sign", "square", "sqrt", "exp", "expm1", "log", "log1p", "log2", "log10",
        "sin", "cos", "tan", "sinh", "cosh", "tanh",
        "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
        "sigmoid", "relu", "softplus", "round", "ceil", "floor",
        "clip", "minimum", "maximum", "where", "isnan", "isinf", "isfinite",
        "less", "less_equal", "equal", "not_equal", "greater", "greater_equal",
        "logical_and", "logical_or", "logical_not",
    ],
    "Reductions, scans, sorting": [
        "sum", "prod", "min", "max", "mean", "all", "any", "argmin", "argmax", "cumsum",
        "sort", "argsort", "topk", "softmax", "log_softmax", "logsumexp", "crossentropy",
        "l0", "l1", "l2", "linf", "lp",
    ],
    "Shape and indexing": [
        "reshape", "flatten", "transpose", "T", "expand_dims", "squeeze", "broadcast_to",
        "concatenate", "stack", "split", "tile", "flip", "pad", "meshgrid",
        "slice", "take", "take_along_axis", "mask", "index_update", "scatter_add",
    ],
    "Linear algebra": ["matmul", "dot", "outer", "inv", "slogdet", "solve"],
}
# `device` (a property in the same section) has no NumPy counterpart: the
# device tests check it.

# Ops that take no tensor (they make one from numbers, bytes or a
# shape): there is no layout to vary.
NO_TENSOR_INPUT = {
    "new_from_bytes", "new_from_doubles", "new_scalar", "zeros", "ones", "full",
    "arange", "linspace", "eye", "uniform", "normal",
}

ALL_OPS = [name for names in API_OPS.values() for name in names]
PROPERTIES = {"shape", "ndim", "dtype", "size", "T"}


def test_the_list_has_no_duplicates():
    assert len(ALL_OPS) == len(set(ALL_OPS))
    assert NO_TENSOR_INPUT <= set(ALL_OPS)


@pytest.mark.parametrize("name", ALL_OPS)
def test_api_op_exists(name):
    """The list names what the library has: a method of Ep.Tensor, a
    function of Ep, or a property."""
    if name in PROPERTIES:
        assert isinstance(getattr(Ep.Tensor, name), property), name
        return
    assert callable(getattr(Ep.Tensor, name, None)) or callable(getattr(Ep, name, None)), name


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool"])
@pytest.mark.numpy_op("shape", "ndim", "dtype", "size")
def test_properties(rng, dtype):
    a = random_array(rng, (3, 4, 5), dtype)
    for layout in ("contiguous", *NON_CONTIGUOUS):
        t = as_layout(a, layout)
        assert t.shape == a.shape and t.ndim == a.ndim and t.size == a.size
        assert Ep.dtype_get_name(t.dtype) == a.dtype.name
        assert_matches(t, a)
    assert Ep.astensor(np.zeros((2, 0))).size == 0
    assert Ep.astensor(np.float64(1)).shape == ()


def _counted():
    cases, passed, layouts = harness_counts()
    if cases == 0 or not passed:
        pytest.skip("no op test ran in this session: run the harness (meson test 'numpy harness')")
    return passed, layouts


@pytest.mark.harness_check
def test_every_api_op_is_compared_with_numpy():
    passed, _ = _counted()
    missing = {section: [name for name in names if name not in passed] for section, names in API_OPS.items()}
    missing = {section: names for section, names in missing.items() if names}
    assert not missing, f"ops of API.md with no passing NumPy comparison: {missing}"


@pytest.mark.harness_check
def test_every_op_sees_non_contiguous_inputs():
    _, layouts = _counted()
    lacking = {name: sorted(set(NON_CONTIGUOUS) - layouts.get(name, set()))
               for name in ALL_OPS if name not in NO_TENSOR_INPUT}
    lacking = {name: kinds for name, kinds in lacking.items() if kinds}
    assert not lacking, f"ops never checked on these layouts (conftest.layouts / as_layout): {lacking}"
