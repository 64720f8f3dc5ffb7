"""The NumPy comparison harness checks itself: every op of API.md's
sections "Creation and conversion", "Elementwise", "Reductions, scans,
sorting", "Shape and indexing" and "Linear algebra" must exist, be
compared with NumPy by a passing test (@pytest.mark.numpy_op), and, if it
takes a tensor, be checked on transposed and step-sliced inputs and on
0-d and 0-size ones, counted op call by op call (a tensor the test hands
to another op does not count); where NumPy refuses those, the op must refuse them
too (checked here). Ops that make a tensor from numbers must make 0-d
and 0-size ones where they can.

meson runs this file after the op test files in one session ("numpy
harness"); its checks run last (harness_check) and read what conftest.py
counted in that session.
"""

import os
import re

import numpy as np
import pytest
from conftest import (NON_CONTIGUOUS, SHAPE_KINDS, Ep, GLib, as_layout, assert_matches, harness_counts, random_array,
                      staged_counts)

# The op names of API.md, section by section, as the harness counts them
# (`T` is the transpose property; `float32`, `float64`, `bool` the casts).
API_OPS = {
    "Creation and conversion": [
        "new_from_bytes", "to_bytes", "new_from_doubles", "new_scalar",
        "zeros", "ones", "full", "zeros_like", "ones_like", "full_like",
        "arange", "linspace", "eye", "uniform", "normal", "dropout",
        "astype", "float32", "float64", "bool", "item", "to_string",
        "shape", "ndim", "dtype", "size", "onehot_like",
    ],
    "Elementwise": [
        "add", "sub", "mul", "div", "floordiv", "mod", "pow",
        "neg", "abs", "sign", "square", "sqrt", "exp", "expm1", "log", "log1p", "log2", "log10",
        "sin", "cos", "tan", "sinh", "cosh", "tanh",
        "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
        "sigmoid", "relu", "softplus", "round", "ceil", "floor", "erf", "erfc", "gelu",
        "clip", "minimum", "maximum", "where", "isnan", "isinf", "isfinite", "isclose", "allclose",
        "less", "less_equal", "equal", "not_equal", "greater", "greater_equal",
        "logical_and", "logical_or", "logical_not",
    ],
    "Reductions, scans, sorting": [
        "sum", "prod", "min", "max", "mean", "all", "any", "argmin", "argmax", "cumsum",
        "cumprod", "sort", "argsort", "topk", "searchsorted", "unique", "softmax", "log_softmax", "logsumexp", "crossentropy",
        "l0", "l1", "l2", "linf", "lp", "var", "std",
    ],
    "Shape and indexing": [
        "reshape", "flatten", "transpose", "T", "expand_dims", "squeeze", "broadcast_to",
        "concatenate", "stack", "split", "tile", "flip", "pad", "meshgrid", "roll_axes", "repeat_counts",
        "slice", "take", "take_along_axis", "mask", "nonzero", "bincount", "histogram", "index_update", "scatter_add", "embedding",
    ],
    "Linear algebra": ["matmul", "dot", "outer", "inv", "slogdet", "solve", "einsum",
                       "det", "cholesky", "qr", "svd", "eigh", "lstsq", "matrix_power", "matrix_norm"],
    "Fourier transforms": ["fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2"],
}
# `device` (a property in the same section) has no NumPy counterpart: the
# device tests check it.

# Ops that take no tensor (they make one from numbers, bytes or a
# shape): there is no layout to vary.
NO_TENSOR_INPUT = {
    "new_from_bytes", "new_from_doubles", "new_scalar", "zeros", "ones", "full",
    "arange", "linspace", "eye", "uniform", "normal",
}

# The result shapes that ops without a tensor input must be checked on.
RESULT_SHAPES = {
    "new_from_bytes": SHAPE_KINDS, "new_from_doubles": SHAPE_KINDS, "zeros": SHAPE_KINDS,
    "ones": SHAPE_KINDS, "full": SHAPE_KINDS, "uniform": SHAPE_KINDS, "normal": SHAPE_KINDS,
    "new_scalar": ("0-d",),  # always 0-d
    "arange": ("0-size",), "linspace": ("0-size",),  # always 1-D
    "eye": ("0-size",),  # always 2-D
}

# Inputs these ops refuse, as NumPy (or, without a NumPy function, the
# op's definition) does: a GLib.Error in ep-error with this code. The
# harness checks the refusals below instead of comparing values.
REFUSED_0D = {
    # an axis -1 that a 0-d tensor does not have (NumPy's argsort flattens
    # a 0-d array first, and so does eager-glib's; NumPy has no softmax)
    "sort": (lambda t: t.sort(), lambda a: np.sort(a), Ep.Error.AXIS),
    "softmax": (lambda t: t.softmax(), None, Ep.Error.AXIS),
    "log_softmax": (lambda t: t.log_softmax(), None, Ep.Error.AXIS),
    "topk": (lambda t: t.topk(0), None, Ep.Error.SHAPE),
    "take_along_axis": (lambda t: t.take_along_axis(np.zeros((), np.int64), 0),
                        lambda a: np.take_along_axis(a, np.zeros((), np.int64), 0), Ep.Error.AXIS),
    "split": (lambda t: t.split(1, 0), lambda a: np.split(a, 1, 0), Ep.Error.AXIS),
    "concatenate": (lambda t: Ep.concatenate([t, t]), lambda a: np.concatenate([a, a]), Ep.Error.SHAPE),
    # (N, C) logits and like
    "crossentropy": (lambda t: t.crossentropy(np.zeros((), np.int64)), None, Ep.Error.SHAPE),
    "onehot_like": (lambda t: t.onehot_like(np.zeros((), np.int64)), None, Ep.Error.SHAPE),
    # matrices
    "matmul": (lambda t: t @ t, lambda a: np.matmul(a, a), Ep.Error.SHAPE),
    "inv": (lambda t: t.inv(), lambda a: np.linalg.inv(a), Ep.Error.SHAPE),
    "slogdet": (lambda t: t.slogdet(), lambda a: np.linalg.slogdet(a), Ep.Error.SHAPE),
    "solve": (lambda t: t.solve(t), lambda a: np.linalg.solve(a, a), Ep.Error.SHAPE),
    "det": (lambda t: t.det(), lambda a: np.linalg.det(a), Ep.Error.SHAPE),
    "cholesky": (lambda t: t.cholesky(), lambda a: np.linalg.cholesky(a), Ep.Error.SHAPE),
    "qr": (lambda t: t.qr(), lambda a: np.linalg.qr(a), Ep.Error.SHAPE),
    "svd": (lambda t: t.svd(), lambda a: np.linalg.svd(a), Ep.Error.SHAPE),
    "eigh": (lambda t: t.eigh(), lambda a: np.linalg.eigh(a), Ep.Error.SHAPE),
    "lstsq": (lambda t: t.lstsq(t), lambda a: np.linalg.lstsq(a, a), Ep.Error.SHAPE),
    "matrix_power": (lambda t: t.matrix_power(2), lambda a: np.linalg.matrix_power(a, 2), Ep.Error.SHAPE),
    "matrix_norm": (lambda t: t.matrix_norm(), lambda a: np.linalg.norm(a, axis=(-2, -1)), Ep.Error.SHAPE),
    # Fourier transforms: a 0-d tensor has no axis (and no pair axis)
    "fft": (lambda t: t.fft(), lambda a: np.fft.fft(a), Ep.Error.SHAPE),
    "ifft": (lambda t: t.ifft(), lambda a: np.fft.ifft(a), Ep.Error.SHAPE),
    "rfft": (lambda t: t.rfft(), lambda a: np.fft.rfft(a), Ep.Error.SHAPE),
    "irfft": (lambda t: t.irfft(), lambda a: np.fft.irfft(a), Ep.Error.SHAPE),
    "fft2": (lambda t: t.fft2(), lambda a: np.fft.fft2(a), Ep.Error.SHAPE),
    "ifft2": (lambda t: t.ifft2(), lambda a: np.fft.ifft2(a), Ep.Error.SHAPE),
    "rfft2": (lambda t: t.rfft2(), lambda a: np.fft.rfft2(a), Ep.Error.SHAPE),
    "irfft2": (lambda t: t.irfft2(), lambda a: np.fft.irfft2(a), Ep.Error.SHAPE),
    # 1-D only (issue 17, ops)
    "bincount": (lambda t: t.astype("int64").bincount(), lambda a: np.bincount(a.astype(np.int64)),
                 Ep.Error.SHAPE),
}
REFUSED_0SIZE = {
    # one element, no more, no less
    "item": (lambda t: t.item(), lambda a: a.item(), Ep.Error.SHAPE),
}

ALL_OPS = [name for names in API_OPS.values() for name in names]
PROPERTIES = {"shape", "ndim", "dtype", "size", "T"}
# what a staged function cannot return (it returns tensors)
NO_TENSOR_RESULT = {"shape", "ndim", "dtype", "size", "item", "to_string", "to_bytes"}


def test_the_list_has_no_duplicates():
    assert len(ALL_OPS) == len(set(ALL_OPS))
    assert NO_TENSOR_INPUT <= set(ALL_OPS)
    assert set(RESULT_SHAPES) == NO_TENSOR_INPUT
    assert set(REFUSED_0D) | set(REFUSED_0SIZE) <= set(ALL_OPS) - NO_TENSOR_INPUT


def _refusal(case, a):
    ep_call, numpy_call, code = case
    if numpy_call is not None:
        with pytest.raises(Exception):
            numpy_call(a)
    with pytest.raises(GLib.Error) as info:
        ep_call(Ep.astensor(a))
    assert info.value.domain == "ep-error" and info.value.code == int(code), info.value.message


@pytest.mark.parametrize("name", sorted(REFUSED_0D))
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_refuses_0d_as_numpy(name, dtype):
    _refusal(REFUSED_0D[name], np.array(2, dtype))


@pytest.mark.parametrize("name", sorted(REFUSED_0SIZE))
def test_refuses_0size_as_numpy(name):
    for shape in [(0,), (2, 0), (0, 0, 3)]:
        _refusal(REFUSED_0SIZE[name], np.zeros(shape, np.float32))


@pytest.mark.parametrize("name", ALL_OPS)
def test_api_op_exists(name):
    """The list names what the library has: a method of Ep.Tensor, a
    function of Ep, or a property."""
    if name in PROPERTIES:
        assert isinstance(getattr(Ep.Tensor, name), property), name
        return
    assert callable(getattr(Ep.Tensor, name, None)) or callable(getattr(Ep, name, None)), name


def test_the_dtype_table_lists_every_op():
    """docs/ops.md (generated by docs/generate-op-table.py) has a row for
    every op of the list but the properties."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "ops.md")
    with open(path, encoding="utf-8") as f:
        rows = set(re.findall(r"^\| \[(?:method|ctor|func)@Ep\.(?:Tensor\.)?(\w+)\]", f.read(), re.M))
    # Python's item() reads what C calls item_double (and item_int64, item_boolean)
    missing = [name for name in ALL_OPS
               if {"item": "item_double"}.get(name, name) not in rows and name not in PROPERTIES]
    assert not missing, f"ops missing from docs/ops.md: {missing}"


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool"])
@pytest.mark.numpy_op("shape", "ndim", "dtype", "size")
def test_properties(rng, dtype):
    a = random_array(rng, (3, 4, 5), dtype)
    for layout in ("contiguous", *NON_CONTIGUOUS):
        t = as_layout(a, layout)
        assert t.shape == a.shape and t.ndim == a.ndim and t.size == a.size
        assert Ep.dtype_get_name(t.dtype) == a.dtype.name
        assert_matches(t, a)
    for b in (np.zeros((2, 0), dtype), np.array(1, dtype)):    # 0-size and 0-d
        t = Ep.astensor(b)
        assert (t.shape, t.ndim, t.size, Ep.dtype_get_name(t.dtype)) == (b.shape, b.ndim, b.size, b.dtype.name)


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
def test_every_op_sees_0d_and_0size_inputs():
    _, seen = _counted()
    lacking = {}
    for name in ALL_OPS:
        if name in NO_TENSOR_INPUT:
            need = {kind + " result" for kind in RESULT_SHAPES[name]}
        else:
            need = {kind for kind, refused in (("0-d", REFUSED_0D), ("0-size", REFUSED_0SIZE))
                    if name not in refused}
        if need - seen.get(name, set()):
            lacking[name] = sorted(need - seen.get(name, set()))
    assert not lacking, f"ops never checked on these shapes (inputs, or results of creation ops): {lacking}"


@pytest.mark.harness_check
def test_every_op_sees_non_contiguous_inputs():
    _, layouts = _counted()
    lacking = {name: sorted(set(NON_CONTIGUOUS) - layouts.get(name, set()))
               for name in ALL_OPS if name not in NO_TENSOR_INPUT}
    lacking = {name: kinds for name, kinds in lacking.items() if kinds}
    assert not lacking, f"ops never checked on these layouts (conftest.layouts / as_layout): {lacking}"


@pytest.mark.harness_check
def test_every_api_op_runs_staged():
    """With --staged (meson test 'numpy harness (staged)'), every op of
    the list that makes tensors ran through Ep.function and replayed as
    it ran eagerly (conftest.py compares them)."""
    counts = staged_counts()
    if counts is None:
        pytest.skip("the staged harness runs with --staged (meson test 'numpy harness (staged)')")
    stageable, staged = counts
    _counted()
    assert set(ALL_OPS) - stageable == NO_TENSOR_RESULT, "conftest.py stages every op that makes tensors"
    missing = [name for name in ALL_OPS if name in stageable and not staged.get(name)]
    assert not missing, f"ops of API.md never staged: {missing}"
