"""The lapack family against NumPy: inv, slogdet, solve, det, cholesky,
qr, svd, eigh, lstsq, matrix_power, matrix_norm and Ep.norm on batches,
0-size matrices, every layout and dtype; every error path; the gradients
of the factorizations against torch.linalg (finite differences are in
test_gradcheck.py).
"""

import numpy as np
import pytest
import torch
from conftest import DTYPES, LAYOUTS, Ep, as_layout, assert_ep_error, assert_matches, random_array, tolerances

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


def well_conditioned(rng, shape, dtype):
    """Random matrices with a strong diagonal, so that float32 stays
    accurate; integer ones stay invertible too."""
    n = shape[-1]
    a = random_array(rng, shape, dtype if dtype != "bool" else "int64")
    a = a + np.eye(n, dtype=a.dtype) * (4 * n + 10)
    return a.astype(dtype)


def result_dtype(dtype):
    return np.float32 if dtype == "float32" else np.float64


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 4, 4), (2, 1, 3, 3), (0, 2, 2), (0, 0)])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("inv")
def test_inv(rng, dtype, shape, layout):
    a = well_conditioned(rng, shape, dtype)
    expected = np.linalg.inv(a) if a.size else np.zeros(shape, result_dtype(dtype))
    assert_matches(as_layout(a, layout).inv(), expected.astype(result_dtype(dtype)), **tolerances(dtype))


@pytest.mark.numpy_op("inv")
def test_inv_bool_and_negative_determinant():
    a = np.array([[False, True], [True, False]])
    assert_matches(Ep.astensor(a).inv(), np.linalg.inv(a))
    b = np.array([[0.0, 2.0], [1.0, 0.0]])
    assert_matches(Ep.astensor(b).inv(), np.linalg.inv(b))


def test_inv_errors():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.inv, Ep.zeros([2, 2]))
    assert "inv" in message and "singular" in message
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.inv,
                              Ep.astensor(np.stack([np.eye(2), np.ones((2, 2))])))
    assert "1" in message
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.inv, Ep.zeros([2, 3]))
    assert "inv" in message and "(2, 3)" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.inv, Ep.zeros([3]))
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.inv, Ep.zeros([]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (3, 2, 2), (0, 0), (2, 0, 0), (0, 3, 3)])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("slogdet")
def test_slogdet(rng, dtype, shape, layout):
    a = random_array(rng, shape, dtype)
    sign, logdet = as_layout(a, layout).slogdet()
    expected_sign, expected_log = np.linalg.slogdet(a)
    assert_matches(sign, np.asarray(expected_sign, result_dtype(dtype)), **tolerances(dtype))
    assert_matches(logdet, np.asarray(expected_log, result_dtype(dtype)), **tolerances(dtype))


@pytest.mark.numpy_op("slogdet")
def test_slogdet_singular_and_large():
    sign, logdet = Ep.astensor(np.array([[1.0, 2.0], [2.0, 4.0]])).slogdet()
    assert sign.item() == 0.0 and logdet.item() == -np.inf
    big = np.eye(300) * 10.0
    big[0, 0] = -10.0
    sign, logdet = Ep.astensor(big).slogdet()
    assert sign.item() == -1.0
    assert abs(logdet.item() - 300 * np.log(10.0)) < 1e-9


def test_slogdet_errors():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.slogdet, Ep.zeros([2, 3]))
    assert "slogdet" in message


SOLVE_SHAPES = [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (3,)), ((2, 3, 3), (2, 3, 4)),
                ((2, 3, 3), (3, 1)), ((1, 3, 3), (4, 3, 2)), ((4, 1, 2, 2), (3, 2, 1)), ((0, 2, 2), (0, 2, 1)),
                ((3, 3), (3, 0)), ((0, 0), (0,)), ((2, 0, 0), (0, 3))]


def numpy2_solve(a, b):
    """np.linalg.solve with NumPy 2's rule (b is a vector only if 1-D),
    on the NumPy 1 installed here."""
    if b.ndim == 1:
        return numpy2_solve(a, b[:, None])[..., 0]
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    if a.size == 0 or b.size == 0:
        return np.zeros(batch + b.shape[-2:], np.result_type(a, b, np.float64))
    return np.linalg.solve(a, b)


@pytest.mark.parametrize("shapes", SOLVE_SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("solve")
def test_solve(rng, shapes, dtype, layout):
    a = well_conditioned(rng, shapes[0], dtype)
    b = random_array(rng, shapes[1], dtype)
    expected = numpy2_solve(a, b).astype(result_dtype(dtype))
    got = Ep.Tensor.solve(as_layout(a, layout), as_layout(b, layout))
    assert_matches(got, expected, **tolerances(dtype))


@pytest.mark.numpy_op("solve")
def test_solve_mixed_dtypes(rng):
    a = well_conditioned(rng, (3, 3), "int32")
    b = random_array(rng, (3,), "float32")
    assert_matches(Ep.astensor(a).solve(Ep.astensor(b)), np.linalg.solve(a, b).astype(np.float64))


def test_solve_errors():
    eye = Ep.astensor(np.eye(3))
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.solve, Ep.zeros([3, 3]), Ep.zeros([3]))
    assert "solve" in message and "singular" in message
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.solve, eye, Ep.zeros([4]))
    assert "solve" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.solve, eye, Ep.zeros([2, 3]))
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.solve, eye, Ep.zeros([]))
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.solve, Ep.zeros([3, 2]), Ep.zeros([3]))
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.solve, Ep.zeros([2, 3, 3]), Ep.zeros([4, 3, 1]))
    # a batch of vectors is a batch of (n, 1) matrices (NumPy 2's rule)
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.solve, Ep.zeros([2, 3, 3]), Ep.zeros([2, 3]))


# det, cholesky, qr, svd, eigh, lstsq, matrix_power, matrix_norm, norm
#
# Factors whose signs LAPACK chooses (Q and R, the singular vectors, the
# eigenvectors) are compared sign-normalised: each column of Q (row of R)
# with R's diagonal made non-negative, each singular vector and
# eigenvector with its largest component positive.

FACTOR_DTYPES = ["float32", "float64", "int64"]
SQUARE_SHAPES = [(1, 1), (3, 3), (2, 4, 4), (2, 1, 3, 3), (0, 2, 2), (0, 0), (2, 0, 0)]
RECTANGULAR_SHAPES = [(3, 3), (5, 3), (3, 5), (2, 4, 2), (2, 1, 2, 4), (0, 3, 2), (3, 0), (0, 4)]


def spd(rng, shape, dtype):
    """Symmetric positive-definite matrices, integers for integer dtypes."""
    a = random_array(rng, shape, dtype)
    return (a @ np.swapaxes(a, -1, -2) + np.eye(shape[-1], dtype=a.dtype) * shape[-1]).astype(dtype)


def symmetric(rng, shape, dtype):
    a = random_array(rng, shape, dtype)
    return (a + np.swapaxes(a, -1, -2)).astype(dtype)


def by_largest(vectors, axis):
    """The signs that make each vector's largest component (by magnitude)
    positive; the vectors lie along axis (-2: columns, -1: rows)."""
    if vectors.shape[axis] == 0:
        return np.ones(vectors.shape[:axis] + (1,) + vectors.shape[axis:][1:])
    index = np.expand_dims(np.argmax(np.abs(vectors), axis=axis), axis)
    signs = np.sign(np.take_along_axis(vectors, index, axis))
    return np.where(signs == 0, 1, signs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SQUARE_SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("det")
def test_det(rng, dtype, shape, layout):
    a = random_array(rng, shape, dtype)
    expected = np.linalg.det(a) if a.size else np.ones(shape[:-2])
    assert_matches(as_layout(a, layout).det(), np.asarray(expected, result_dtype(dtype)), **tolerances(dtype))


@pytest.mark.numpy_op("det")
def test_det_singular_and_negative():
    assert Ep.astensor(np.array([[1.0, 2.0], [2.0, 4.0]])).det().item() == 0.0
    assert Ep.astensor(np.array([[0.0, 1.0], [1.0, 0.0]])).det().item() == -1.0


@pytest.mark.parametrize("dtype", FACTOR_DTYPES)
@pytest.mark.parametrize("shape", SQUARE_SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("cholesky")
def test_cholesky(rng, dtype, shape, layout):
    a = spd(rng, shape, dtype)
    expected = np.linalg.cholesky(a) if a.size else np.zeros(shape)
    assert_matches(as_layout(a, layout).cholesky(), expected.astype(result_dtype(dtype)), **tolerances(dtype))


def test_cholesky_errors():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.cholesky, Ep.astensor(-np.eye(2)))
    assert "cholesky" in message and "positive definite" in message
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.cholesky,
                              Ep.astensor(np.stack([np.eye(2), -np.eye(2)])))
    assert "matrix 1 of the batch" in message
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.cholesky,
                              Ep.astensor(np.stack([np.eye(2), np.full((2, 2), np.nan)])))
    assert "matrix 1 of the batch" in message and "NaN" in message


@pytest.mark.parametrize("op", ["det", "cholesky", "qr", "svd", "eigh"])
def test_nan_is_refused(op):
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, getattr(Ep.Tensor, op),
                              Ep.astensor(np.array([[1.0, 0.0], [np.nan, 1.0]])))
    assert message.startswith(op) and "NaN" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.cholesky, Ep.zeros([2, 3]))
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.cholesky, Ep.zeros([3]))


@pytest.mark.parametrize("dtype", FACTOR_DTYPES)
@pytest.mark.parametrize("shape", RECTANGULAR_SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("qr")
def test_qr(rng, dtype, shape, layout):
    a = random_array(rng, shape, dtype)
    q, r = as_layout(a, layout).qr()
    k = min(shape[-2:])
    if a.size:
        expected_q, expected_r = np.linalg.qr(a.astype(np.float64))
    else:
        expected_q, expected_r = np.zeros(shape[:-1] + (k,)), np.zeros(shape[:-2] + (k, shape[-1]))
    # sign-normalised: R's diagonal non-negative
    signs = np.sign(np.diagonal(r.numpy(), axis1=-2, axis2=-1))[..., None, :]
    expected_signs = np.sign(np.diagonal(expected_r, axis1=-2, axis2=-1))[..., None, :]
    got_q, got_r = q.numpy() * signs, r.numpy() * np.swapaxes(signs, -1, -2)
    expected_q = expected_q * expected_signs
    expected_r = expected_r * np.swapaxes(expected_signs, -1, -2)
    dtype_of = result_dtype(dtype)
    assert_matches(Ep.astensor(got_q.astype(dtype_of)), expected_q.astype(dtype_of), **tolerances(dtype))
    assert_matches(Ep.astensor(got_r.astype(dtype_of)), expected_r.astype(dtype_of), **tolerances(dtype))
    assert q.dtype == dtype_of and r.dtype == dtype_of


@pytest.mark.parametrize("dtype", FACTOR_DTYPES)
@pytest.mark.parametrize("shape", RECTANGULAR_SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("svd")
def test_svd(rng, dtype, shape, layout):
    a = random_array(rng, shape, dtype)
    u, s, vh = as_layout(a, layout).svd()
    k = min(shape[-2:])
    dtype_of = result_dtype(dtype)
    if a.size:
        expected_u, expected_s, expected_vh = np.linalg.svd(a.astype(np.float64), full_matrices=False)
    else:
        expected_u = np.zeros(shape[:-1] + (k,))
        expected_s = np.zeros(shape[:-2] + (k,))
        expected_vh = np.zeros(shape[:-2] + (k, shape[-1]))
    assert_matches(s, expected_s.astype(dtype_of), **tolerances(dtype))
    # sign-normalised by U's columns; Vh's rows follow
    signs, expected_signs = by_largest(u.numpy(), -2), by_largest(expected_u, -2)
    assert_matches(Ep.astensor((u.numpy() * signs).astype(dtype_of)),
                   (expected_u * expected_signs).astype(dtype_of), **tolerances(dtype))
    assert_matches(Ep.astensor((vh.numpy() * np.swapaxes(signs, -1, -2)).astype(dtype_of)),
                   (expected_vh * np.swapaxes(expected_signs, -1, -2)).astype(dtype_of), **tolerances(dtype))


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3), (3, 0), (0, 2)])
@pytest.mark.numpy_op("svd")
def test_svd_full_matrices(rng, shape):
    a = random_array(rng, shape, "float64")
    u, s, vh = Ep.astensor(a).svd(full_matrices=True)
    expected_u, expected_s, expected_vh = np.linalg.svd(a, full_matrices=True)
    assert u.shape == expected_u.shape and vh.shape == expected_vh.shape
    assert_matches(s, expected_s, **tolerances("float64"))
    # unitary factors that reconstruct a
    m, n = shape[-2:]
    np.testing.assert_allclose(u.numpy() @ np.swapaxes(u.numpy(), -1, -2), np.broadcast_to(np.eye(m), u.shape),
                               atol=1e-12)
    np.testing.assert_allclose(vh.numpy() @ np.swapaxes(vh.numpy(), -1, -2), np.broadcast_to(np.eye(n), vh.shape),
                               atol=1e-12)
    k = min(m, n)
    rebuilt = (u.numpy()[..., :k] * s.numpy()[..., None, :]) @ vh.numpy()[..., :k, :]
    np.testing.assert_allclose(rebuilt, a, atol=1e-12)


def test_svd_errors():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, lambda t: t.svd(), Ep.astensor(np.array([[1.0, np.inf]])))
    assert "svd" in message and "infinite" in message
    assert_ep_error(Ep.Error.SHAPE, lambda t: t.svd(), Ep.zeros([3]))
    assert_ep_error(Ep.Error.SHAPE, lambda t: t.svd(), Ep.zeros([]))


@pytest.mark.parametrize("dtype", FACTOR_DTYPES)
@pytest.mark.parametrize("shape", SQUARE_SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.numpy_op("eigh")
def test_eigh(rng, dtype, shape, layout, upper):
    a = random_array(rng, shape, dtype)     # not symmetric: one triangle is read
    w, v = as_layout(a, layout).eigh(upper=upper)
    dtype_of = result_dtype(dtype)
    if a.size:
        expected_w, expected_v = np.linalg.eigh(a.astype(np.float64), UPLO="U" if upper else "L")
    else:
        expected_w, expected_v = np.zeros(shape[:-1]), np.zeros(shape)
    assert_matches(w, expected_w.astype(dtype_of), **tolerances(dtype))
    signs, expected_signs = by_largest(v.numpy(), -2), by_largest(expected_v, -2)
    assert_matches(Ep.astensor((v.numpy() * signs).astype(dtype_of)),
                   (expected_v * expected_signs).astype(dtype_of), rtol=1e-3 if dtype == "float32" else 1e-8,
                   atol=1e-4 if dtype == "float32" else 1e-10)


def test_eigh_errors():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, lambda t: t.eigh(), Ep.astensor(np.array([[np.nan]])))
    assert "eigh" in message and "NaN" in message
    assert_ep_error(Ep.Error.SHAPE, lambda t: t.eigh(), Ep.zeros([2, 3]))
    assert_ep_error(Ep.Error.SHAPE, lambda t: t.eigh(), Ep.zeros([2]))


LSTSQ_SHAPES = [((5, 3), (5,)), ((5, 3), (5, 2)), ((3, 5), (3, 2)), ((2, 4, 3), (4,)), ((2, 4, 3), (2, 4, 1)),
                ((1, 4, 2), (3, 4, 2)), ((0, 3), (0,)), ((0, 3, 2), (0, 3, 1)), ((3, 2), (3, 0)), ((3, 0), (3,))]


def numpy_lstsq(a, b):
    """x of np.linalg.lstsq, over broadcast batches (NumPy has none),
    with b a vector only if 1-D."""
    if b.ndim == 1:
        return numpy_lstsq(a, b[:, None])[..., 0]
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:]).astype(np.float64)
    b = np.broadcast_to(b, batch + b.shape[-2:]).astype(np.float64)
    out = np.zeros(batch + (a.shape[-1], b.shape[-1]))
    for index in np.ndindex(*batch):
        if a.shape[-2] and a.shape[-1] and b.shape[-1]:
            out[index] = np.linalg.lstsq(a[index], b[index], rcond=None)[0]
    return out


@pytest.mark.parametrize("shapes", LSTSQ_SHAPES)
@pytest.mark.parametrize("dtype", FACTOR_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("lstsq")
def test_lstsq(rng, shapes, dtype, layout):
    a = random_array(rng, shapes[0], dtype)
    b = random_array(rng, shapes[1], dtype)
    got = Ep.Tensor.lstsq(as_layout(a, layout), as_layout(b, layout))
    expected = numpy_lstsq(a, b).astype(result_dtype(dtype))
    assert_matches(got, expected, rtol=1e-3 if dtype == "float32" else 1e-9,
                   atol=1e-4 if dtype == "float32" else 1e-10)


@pytest.mark.numpy_op("lstsq")
def test_lstsq_rank_deficient():
    a = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    b = np.array([1.0, 2.0, 3.5])
    assert_matches(Ep.astensor(a).lstsq(b), np.linalg.lstsq(a, b, rcond=None)[0], rtol=1e-10, atol=1e-12)


def test_lstsq_errors():
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.lstsq, Ep.zeros([3, 2]), Ep.zeros([4]))
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.lstsq, Ep.zeros([3, 2]), Ep.zeros([]))
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.lstsq, Ep.zeros([3]), Ep.zeros([3]))
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.lstsq, Ep.zeros([2, 3, 2]), Ep.zeros([4, 3, 1]))
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.lstsq, Ep.eye(2, dtype="float64"),
                              Ep.astensor(np.array([np.nan, 1.0])))
    assert "lstsq" in message and "NaN" in message


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, -1, -4])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 2, 2), (0, 0)])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("matrix_power")
def test_matrix_power(rng, n, dtype, shape, layout):
    a = well_conditioned(rng, shape, dtype) if n < 0 else random_array(rng, shape, dtype)
    if a.size == 0:
        expected = np.zeros(shape, result_dtype(dtype) if n < 0 else dtype)
    else:
        expected = np.linalg.matrix_power(a, n)
    if dtype == "float32":
        tolerance = {"rtol": 1e-4, "atol": 1e-5}
    elif dtype == "int64" and n >= 0:
        tolerance = {}
    else:
        tolerance = tolerances("float64")
    assert_matches(as_layout(a, layout).matrix_power(n), expected, **tolerance)


def test_matrix_power_errors():
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.matrix_power, Ep.zeros([2, 3]), 2)
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.matrix_power, Ep.zeros([3]), 2)
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.matrix_power, Ep.zeros([2, 2]), -1)
    assert message.startswith("matrix_power")


MATRIX_ORDS = {"fro": "fro", "nuc": "nuc", "inf": np.inf, "neg-inf": -np.inf, "one": 1, "neg-one": -1,
               "two": 2, "neg-two": -2}


@pytest.mark.parametrize("ord", list(MATRIX_ORDS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("shape, axis", [((3, 4), None), ((2, 3, 4), None), ((2, 3, 4), (2, 0)),
                                         ((3, 4, 2), (0, -2))])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("matrix_norm")
def test_matrix_norm(rng, ord, dtype, shape, axis, keepdims, layout):
    a = random_array(rng, shape, dtype)
    expected = np.linalg.norm(a.astype(np.float64), MATRIX_ORDS[ord], axis=(-2, -1) if axis is None else axis,
                              keepdims=keepdims)
    got = as_layout(a, layout).matrix_norm(ord, axis, keepdims)
    assert_matches(got, np.asarray(expected, result_dtype(dtype)), **tolerances(dtype))


@pytest.mark.parametrize("ord", ["fro", "nuc", "one", "neg-one"])
@pytest.mark.numpy_op("matrix_norm")
def test_matrix_norm_of_empty_matrices(ord):
    a = np.zeros((2, 0, 3))
    assert_matches(Ep.astensor(a).matrix_norm(ord), np.linalg.norm(a, MATRIX_ORDS[ord], axis=(-2, -1)))


@pytest.mark.parametrize("ord", ["inf", "neg-inf", "two", "neg-two"])
def test_matrix_norm_of_empty_matrices_has_no_extreme(ord):
    """As NumPy: the largest or smallest of no row sums or singular values"""
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.matrix_norm, Ep.zeros([2, 0, 3]), ord)


def test_matrix_norm_errors():
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.matrix_norm, Ep.zeros([3]))
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.matrix_norm, Ep.zeros([3, 3]), "fro", (0, 0))
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.matrix_norm, Ep.zeros([3, 3]), "fro", (0,))
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.matrix_norm, Ep.zeros([3, 3]), "fro", (0, 5))


NORM_CASES = [((5,), None, None), ((5,), 3.5, None), ((5,), -np.inf, None), ((5,), 0, None), ((3, 4), None, None),
              ((3, 4), "nuc", None), ((3, 4), -2, None), ((2, 3, 4), None, None), ((2, 3, 4), 1, 1),
              ((2, 3, 4), np.inf, (0, 2)), ((2, 3, 4), "fro", (1, 2)), ((2, 3, 4), -1, (-1,))]


@pytest.mark.parametrize("shape, ord, axis", NORM_CASES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_norm_is_numpys(rng, shape, ord, axis, keepdims):
    a = random_array(rng, shape, "float64")
    expected = np.linalg.norm(a, ord, axis, keepdims)
    assert_matches(Ep.norm(a, ord, axis, keepdims), np.asarray(expected), rtol=1e-12, atol=1e-12)
    # NumPy's function dispatches to Ep's
    assert isinstance(np.linalg.norm(Ep.astensor(a), ord, axis, keepdims), Ep.Tensor)


def test_norm_errors():
    with pytest.raises(ValueError):
        Ep.norm(np.zeros(3), "fro")
    with pytest.raises(ValueError):
        Ep.norm(np.zeros((2, 2)), 3)
    with pytest.raises(ValueError):
        Ep.norm(np.zeros((2, 2, 2)), 2)
    with pytest.raises(ValueError):
        Ep.norm(np.zeros((2, 2, 2)), 2, axis=(0, 1, 2))


def test_numpy_runs_its_own_svd_and_lstsq():
    """NumPy's svd (full matrices) and lstsq (four results) differ from
    Ep's: through NumPy's protocol NumPy runs them."""
    a = np.arange(6.0).reshape(3, 2)
    u, s, vh = np.linalg.svd(Ep.astensor(a))
    assert u.shape == (3, 3)
    assert len(np.linalg.lstsq(Ep.astensor(a), Ep.astensor(np.ones(3)), rcond=None)) == 4


# gradients against torch.linalg, with functions of the factors that do
# not depend on LAPACK's signs (as PyTorch's own checks)

def ep_gradient(f, *arrays):
    tensors = [Ep.astensor(a) for a in arrays]
    with Ep.GradientTape() as tape:
        for t in tensors:
            tape.watch(t)
        y = f(*tensors)
    return [g.numpy() for g in tape.gradient(y, tensors)]


def torch_gradient(f, *arrays):
    tensors = [torch.tensor(a, requires_grad=True) for a in arrays]
    f(*tensors).backward()
    return [t.grad.numpy() for t in tensors]


def weighted(weight, module):
    return module.asarray(weight) if module is np else torch.tensor(weight)


GRADIENT_CASES = {
    "det": ((3, 3), lambda a, w, linalg, abs_: (linalg.det(a) * w[0, 0]).sum()),
    "cholesky": ((2, 3, 3), lambda a, w, linalg, abs_: (linalg.cholesky(a @ swap(a) + 3 * eye3(a))
                                                         * w[..., :3, :3]).sum()),
    "qr-tall": ((2, 4, 3), lambda a, w, linalg, abs_: sum((part * w[..., :part.shape[-2], :part.shape[-1]]).sum()
                                                          for part in linalg.qr(a))),
    "qr-wide": ((3, 5), lambda a, w, linalg, abs_: sum((part * w[..., :part.shape[-2], :part.shape[-1]]).sum()
                                                       for part in linalg.qr(a))),
    "svd-tall": ((2, 5, 3), lambda a, w, linalg, abs_: svd_loss(linalg.svd(a, full_matrices=False), w, abs_)),
    "svd-wide": ((3, 5), lambda a, w, linalg, abs_: svd_loss(linalg.svd(a, full_matrices=False), w, abs_)),
    "eigh": ((2, 3, 3), lambda a, w, linalg, abs_: eigh_loss(linalg.eigh(a + swap(a)), w, abs_)),
    "lstsq-tall": ((2, 5, 3), lambda a, w, linalg, abs_: (lstsq(linalg, a, w[..., :5, :2]) * w[..., :3, :2]).sum()),
    "lstsq-wide": ((3, 5), lambda a, w, linalg, abs_: (lstsq(linalg, a, w[..., :3, :2]) * w[..., :5, :2]).sum()),
    "matrix_power": ((3, 3), lambda a, w, linalg, abs_: (linalg.matrix_power(a + 3 * eye3(a), -3) * w[:3, :3]).sum()),
}


def swap(a):
    """a with its last two axes swapped, of torch or Ep"""
    if isinstance(a, torch.Tensor):
        return a.transpose(-1, -2)
    return a.transpose(list(range(a.ndim - 2)) + [a.ndim - 1, a.ndim - 2])


def eye3(a):
    return torch.eye(3, dtype=torch.float64) if isinstance(a, torch.Tensor) else Ep.astensor(np.eye(3))


def svd_loss(usv, w, abs_):
    u, s, vh = usv
    k = s.shape[-1]
    return (((u @ vh) * w[..., :u.shape[-2], :vh.shape[-1]]).sum() + (s * w[..., 0, :k]).sum()
            + (abs_(u) * w[..., :u.shape[-2], :k]).sum() + (abs_(vh) * w[..., :k, :vh.shape[-1]]).sum())


def eigh_loss(wv, w, abs_):
    values, vectors = wv
    return (values * w[..., 0, :3]).sum() + (abs_(vectors) * w[..., :3, :3]).sum()


def lstsq(linalg, a, b):
    if linalg is torch.linalg:
        return torch.linalg.pinv(a) @ b
    return a.lstsq(b)


class _EpLinalg:
    """Ep's ops under torch.linalg's names, for the shared losses"""
    det = staticmethod(lambda a: a.det())
    cholesky = staticmethod(lambda a: a.cholesky())
    qr = staticmethod(lambda a: a.qr())
    svd = staticmethod(lambda a, full_matrices: a.svd(full_matrices))
    eigh = staticmethod(lambda a: a.eigh())
    matrix_power = staticmethod(lambda a, n: a.matrix_power(n))


@pytest.mark.parametrize("name", list(GRADIENT_CASES))
def test_gradient_is_torchs(rng, name):
    shape, loss = GRADIENT_CASES[name]
    a = rng.standard_normal(shape)
    w = rng.standard_normal(shape[:-2] + (6, 6))
    got = ep_gradient(lambda t: loss(t, Ep.astensor(w), _EpLinalg, lambda x: x.abs()), a)[0]
    expected = torch_gradient(lambda t: loss(t, torch.tensor(w), torch.linalg, torch.abs), a)[0]
    np.testing.assert_allclose(got, expected, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("ord", ["fro", "nuc", "two", "neg-two", "inf", "one"])
def test_matrix_norm_gradient_is_torchs(rng, ord):
    a = rng.standard_normal((2, 4, 3))
    got = ep_gradient(lambda t: t.matrix_norm(ord).sum(), a)[0]
    expected = torch_gradient(lambda t: torch.linalg.matrix_norm(t, MATRIX_ORDS[ord]).sum(), a)[0]
    np.testing.assert_allclose(got, expected, rtol=1e-8, atol=1e-10)


def test_lstsq_gradient_of_b_is_torchs(rng):
    a, b = rng.standard_normal((2, 5, 3)), rng.standard_normal((5,))
    weight = rng.standard_normal((2, 3))
    got = ep_gradient(lambda x, y: (x.lstsq(y) * Ep.astensor(weight)).sum(), a, b)
    expected = torch_gradient(lambda x, y: ((torch.linalg.pinv(x) @ y) * torch.tensor(weight)).sum(), a, b)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-8, atol=1e-10)


def test_eigh_gradient_of_repeated_eigenvalues_is_not_finite():
    """Documented: the eigenvectors' gradient at equal eigenvalues is
    infinite or NaN, as in PyTorch; the eigenvalues' own is finite."""
    weight = Ep.astensor(np.arange(9.0).reshape(3, 3))
    got = ep_gradient(lambda t: (t.eigh()[1] * weight).sum(), np.eye(3))[0]
    assert not np.all(np.isfinite(got))
    values = ep_gradient(lambda t: t.eigh()[0].sum(), np.eye(3))[0]
    np.testing.assert_allclose(values, np.eye(3))


def test_svd_gradient_needs_reduced_factors():
    message = assert_ep_error(Ep.Error.GRADIENT, lambda: ep_gradient(lambda t: t.svd(True)[0].sum(),
                                                                    np.ones((3, 2))))
    assert "full_matrices" in message
