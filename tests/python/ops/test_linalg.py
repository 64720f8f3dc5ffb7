"""The linalg family against NumPy: matmul and the composites dot and
outer, on every dtype, batched and broadcast shapes, 0-d and 0-size
operands, transposed and other non-contiguous operands, mixed dtypes,
and the errors.
"""

import itertools

import numpy as np
import pytest
from conftest import DTYPES, LAYOUTS, Ep, as_layout, assert_ep_error, assert_matches, random_array, tolerances

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


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


DOT_SHAPES = [((), ()), ((), (3,)), ((2, 3), ()), ((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)),
              ((2, 3), (3, 4)), ((2, 2, 3), (3,)), ((3,), (2, 3, 4)), ((2, 3), (5, 3, 4)),
              ((2, 1, 3), (2, 5, 3, 4)), ((0, 3), (3, 2)), ((2, 0), (3, 0, 2))]


@pytest.mark.parametrize("shapes", DOT_SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.numpy_op("dot")
def test_dot(rng, shapes, dtype):
    a = random_array(rng, shapes[0], dtype)
    b = random_array(rng, shapes[1], dtype)
    expected = np.asarray(np.dot(a, b))
    for layout in LAYOUTS:
        assert_matches(Ep.dot(as_layout(a, layout), as_layout(b, layout)), expected, **(tolerances(dtype) if dtype.startswith("float") else {}))


@pytest.mark.numpy_op("dot")
def test_dot_promotes(rng):
    a = random_array(rng, (2, 3), "int32")
    b = random_array(rng, (2, 3, 2), "float32")
    assert_matches(Ep.astensor(a).dot(Ep.astensor(b)), np.dot(a, b), rtol=1e-5)


def test_dot_errors():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.dot, Ep.zeros([2, 3]), Ep.zeros([4, 2]))
    assert "dot" in message and "3" in message and "4" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.dot, Ep.zeros([1] * 5), Ep.zeros([1] * 6))


@pytest.mark.parametrize("shapes", [((3,), (4,)), ((), (2,)), ((2, 2), (3,)), ((0,), (3,))])
@pytest.mark.parametrize("dtypes", list(itertools.product(["float32", "int64", "bool"], repeat=2)))
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("outer")
def test_outer(rng, shapes, dtypes, layout):
    a = random_array(rng, shapes[0], dtypes[0])
    b = random_array(rng, shapes[1], dtypes[1])
    assert_matches(Ep.outer(as_layout(a, layout), as_layout(b, layout)), np.outer(a, b))


# einsum (issue 17, ops): a composite of diagonals, sums, transposes,
# reshapes and batched matmuls, against numpy.einsum; its gradient
# against torch.einsum (finite differences are in test_gradcheck.py)

EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),            # matrix product
    ("ij,jk", [(2, 3), (3, 4)]),                # implicit output
    ("bi,bij,bj->b", [(5, 3), (5, 3, 4), (5, 4)]),   # batched bilinear form
    ("ii", [(3, 3)]),                           # trace
    ("ii->i", [(3, 3)]),                        # diagonal
    ("iij->ji", [(3, 3, 2)]),
    ("iii->i", [(3, 3, 3)]),
    ("i,j->ij", [(3,), (4,)]),                  # outer
    ("ij->ji", [(2, 3)]),                       # transposes
    ("ji", [(2, 3)]),
    ("ijk->kij", [(2, 3, 4)]),
    ("ij", [(2, 3)]),
    ("ij->", [(2, 3)]),                         # sums
    ("ij->j", [(2, 3)]),
    ("ij,ij->", [(2, 3), (2, 3)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),            # elementwise product
    ("...ij,...jk->...ik", [(2, 5, 2, 3), (5, 3, 4)]),   # ellipsis, broadcast
    ("...ij,j...", [(5, 2, 3), (3, 5)]),
    ("...", [(2, 3)]),
    ("...i->...", [(2, 3)]),
    ("i...->...", [(2, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),  # three operands
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 6)]),
    ("i,i,i->", [(4,), (4,), (4,)]),
    ("ijk,jil->kl", [(3, 4, 5), (4, 3, 2)]),
    ("ij,kl->", [(2, 3), (4, 5)]),
    ("i,i", [(1,), (3,)]),                      # an extent of 1 broadcasts
    ("Ba,ab", [(2, 3), (3, 4)]),                # upper case first
    ("bA,a", [(2, 3), (2,)]),
    (" i j , j k ", [(2, 3), (3, 4)]),          # spaces
    ("", [()]),                                 # 0-d
    ("->", [()]),
    (",i->i", [(), (3,)]),
    ("ij,jk", [(0, 3), (3, 4)]),                # 0-size
    ("bij,bjk->bik", [(3, 0, 2), (3, 2, 4)]),
    ("ij,jk->ik", [(2, 0), (0, 4)]),
]


@pytest.mark.parametrize("subscripts,shapes", EINSUM_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.numpy_op("einsum")
def test_einsum(rng, subscripts, shapes, dtype):
    arrays = [random_array(rng, shape, dtype) for shape in shapes]
    assert_matches(Ep.einsum(subscripts, *arrays), np.einsum(subscripts, *arrays),
                   rtol=1e-5 if dtype == "float32" else None)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("einsum")
def test_einsum_layouts(rng, layout):
    a = random_array(rng, (4, 6, 3), "float32")
    b = random_array(rng, (3, 6), "float32")
    c = random_array(rng, (3, 6, 3), "float32")
    for subscripts, x in (("bij,jk->bik", a), ("bij,ji->b", a), ("iji,ij->j", c)):
        assert_matches(Ep.einsum(subscripts, as_layout(x, layout), as_layout(b, layout)),
                       np.einsum(subscripts, x, b), rtol=1e-5)


@pytest.mark.parametrize("dtypes", list(itertools.product(["int32", "int64", "float32", "bool"], repeat=2)))
@pytest.mark.numpy_op("einsum")
def test_einsum_promotes(rng, dtypes):
    a = random_array(rng, (2, 3), dtypes[0])
    b = random_array(rng, (3, 4), dtypes[1])
    assert_matches(Ep.einsum("ij,jk->ik", a, b), np.einsum("ij,jk->ik", a, b), rtol=1e-5)


@pytest.mark.parametrize("subscripts,shapes,code,words", [
    ("ij,jk", [(2, 3), (4, 5)], "SHAPE", ["'j'", "4", "3"]),        # mismatched extents
    ("ii", [(2, 3)], "SHAPE", ["'i'", "2", "3"]),
    ("...i,...i", [(2, 3), (4, 3)], "SHAPE", ["...", "4", "2"]),
    ("ijk", [(2, 3)], "SHAPE", ["2 axes", "3"]),                     # longer than the rank
    ("ij...", [(2,)], "SHAPE", ["1 axis", "2"]),
    ("ij", [(2, 3, 4)], "SHAPE", ["3 axes", "2"]),
    ("i", [()], "SHAPE", ["0 axes", "1"]),
    ("ij,jk->ik", [(2, 3)], "INVALID_ARGUMENT", ["2 operands", "1"]),   # too few operands
    ("ij", [(2, 3), (3, 4)], "INVALID_ARGUMENT", ["1 operand", "2"]),   # too many
    ("ij->ijk", [(2, 3)], "INVALID_ARGUMENT", ["'k'"]),
    ("ij->ii", [(2, 3)], "INVALID_ARGUMENT", ["'i'", "repeated"]),
    ("iü", [(2, 3)], "INVALID_ARGUMENT", ["character 2"]),           # not ASCII
    ("i1", [(2, 3)], "INVALID_ARGUMENT", ["character 2"]),
    ("i.j", [(2, 3)], "INVALID_ARGUMENT", ["'.'"]),
    ("i......", [(2, 3)], "INVALID_ARGUMENT", ["'.'"]),
    ("ij->i,j", [(2, 3)], "INVALID_ARGUMENT", ["character 6"]),
    ("ij->->i", [(2, 3)], "INVALID_ARGUMENT", ["character 5"]),
    ("...ij->ij", [(4, 2, 3)], "INVALID_ARGUMENT", ["..."]),
    ("abcdefghi", [(1,) * 8], "INVALID_ARGUMENT", ["8"]),
    ("abcde,fghij->abcdefghij", [(1,) * 5, (1,) * 5], "INVALID_ARGUMENT", ["8"]),
    ("abcde,fghi", [(1,) * 5, (1,) * 4], "SHAPE", ["8 axes"]),   # implicit output too wide
])
def test_einsum_errors(subscripts, shapes, code, words):
    message = assert_ep_error(getattr(Ep.Error, code), Ep.einsum, subscripts, *[np.ones(s) for s in shapes])
    assert message.startswith("einsum:")
    for word in words:
        assert word in message, message


def test_einsum_needs_an_operand_and_a_string():
    assert "at least one" in assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.einsum, "")
    with pytest.raises(TypeError):
        Ep.einsum(np.ones(3), "i")


@pytest.mark.parametrize("subscripts,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bi,bij,bj->b", [(5, 3), (5, 3, 4), (5, 4)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("...ij,...jk->...ik", [(2, 5, 2, 3), (5, 3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("i,i->", [(1,), (3,)]),
    ("iij->j", [(3, 3, 2)]),
])
def test_einsum_gradient_is_torchs(rng, subscripts, shapes):
    import torch
    arrays = [random_array(rng, s, "float64") for s in shapes]
    tensors = [Ep.astensor(a) for a in arrays]
    with Ep.GradientTape() as tape:
        for t in tensors:
            tape.watch(t)
        out = Ep.einsum(subscripts, *tensors)
        weight = random_array(rng, out.shape, "float64")
        loss = (out * weight).sum()
    refs = [torch.tensor(a, requires_grad=True) for a in arrays]
    (torch.einsum(subscripts, *refs) * torch.tensor(weight)).sum().backward()
    for got, ref in zip(tape.gradient(loss, tensors), refs):
        assert_matches(got, ref.grad.numpy())
