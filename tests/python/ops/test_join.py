"""The join family against NumPy: concatenate, tile, pad and the
composites stack, split (split_at), meshgrid, roll and repeat: promotion,
0-d, 0-size and non-contiguous inputs, and every error path; the
gradients of roll and repeat against torch.autograd (finite differences
are in test_gradcheck.py).
"""

import itertools

import numpy as np
import pytest
import torch
from conftest import DTYPES, NARROW_INTS, LAYOUTS, Ep, as_layout, assert_ep_error, assert_matches, layouts, random_array

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device


@pytest.mark.parametrize("dtype_a,dtype_b", list(itertools.product(DTYPES, repeat=2)))
@pytest.mark.numpy_op("concatenate")
def test_concatenate_promotion(rng, dtype_a, dtype_b):
    a = random_array(rng, (2, 3), dtype_a)
    b = random_array(rng, (1, 3), dtype_b)
    assert_matches(Ep.concatenate([a, b]), np.concatenate([a, b]))


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("concatenate")
def test_concatenate_axes_and_layouts(rng, axis, layout):
    shapes = []
    for extent in (2, 0, 3, 1):
        shape = [2, 3, 4]
        shape[axis] = extent
        shapes.append(tuple(shape))
    arrays = [random_array(rng, s, "float64") for s in shapes]
    tensors = [as_layout(a, layout) for a in arrays]
    assert_matches(Ep.concatenate(tensors, axis), np.concatenate(arrays, axis))


@pytest.mark.numpy_op("concatenate")
def test_concatenate_many_and_one(rng):
    arrays = [random_array(rng, (i % 3, 2), "int32") for i in range(13)]
    assert_matches(Ep.concatenate(arrays), np.concatenate(arrays))
    a = random_array(rng, (4,), "bool")
    assert_matches(Ep.concatenate([a]), a)
    assert_matches(Ep.concatenate([a, a], axis=None), np.concatenate([a, a], axis=None))
    assert_matches(Ep.concatenate([a.reshape(2, 2), a], axis=None), np.concatenate([a.reshape(2, 2), a], axis=None))


def test_concatenate_errors():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.concatenate, [Ep.zeros([2, 3]), Ep.zeros([2, 4])], 0)
    assert "concatenate" in message and "(2, 4)" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.concatenate, [Ep.zeros([2, 3]), Ep.zeros([3])], 0)
    assert_ep_error(Ep.Error.SHAPE, Ep.concatenate, [Ep.zeros([]), Ep.zeros([])], 0)
    assert_ep_error(Ep.Error.AXIS, Ep.concatenate, [Ep.zeros([2]), Ep.zeros([2])], 1)
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.concatenate, [], 0)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
@pytest.mark.parametrize("shape", [(), (0,), (2, 3)])
@pytest.mark.numpy_op("stack")
def test_stack(rng, axis, shape):
    if not -len(shape) - 1 <= axis <= len(shape):
        assert_ep_error(Ep.Error.AXIS, Ep.stack, [Ep.zeros(list(shape))], axis)
        return
    arrays = [random_array(rng, shape, "int64") for _ in range(3)]
    tensors = [as_layout(a, layout) for a, layout in zip(arrays, LAYOUTS)]
    assert_matches(Ep.stack(tensors, axis), np.stack(arrays, axis))


@pytest.mark.numpy_op("stack")
def test_stack_promotes(rng):
    a, b = random_array(rng, (3,), "int32"), random_array(rng, (3,), "float32")
    assert_matches(Ep.stack([a, b]), np.stack([a, b]))


def test_stack_errors():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.stack, [Ep.zeros([2, 3]), Ep.zeros([3, 2])], 0)
    assert "stack" in message
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.stack, [], 0)
    assert_ep_error(Ep.Error.SHAPE, Ep.stack, [Ep.zeros([1] * 8)], 0)


@pytest.mark.parametrize("sections", [1, 2, 3, 6, [1, 4], [0, 0, 6], [-2], [4, 2], [10], []])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("split")
def test_split(rng, sections, axis, layout):
    a = random_array(rng, (6, 6), "float32")
    t = as_layout(a, layout)
    parts = t.split(sections, axis)
    expected = np.split(a, sections, axis)
    assert len(parts) == len(expected)
    for part, e in zip(parts, expected):
        assert_matches(part, e)
        assert part.shares_storage(t)


@pytest.mark.numpy_op("split")
def test_split_empty_axis(rng):
    a = random_array(rng, (0, 2), "int32")
    parts = Ep.astensor(a).split(3)
    assert [p.shape for p in parts] == [(0, 2)] * 3


def test_split_errors():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.split, Ep.zeros([7, 2]), 3, 0)
    assert "split" in message and "7" in message and "3" in message
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.split, Ep.zeros([6]), 0, 0)
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.split, Ep.zeros([6]), -2, 0)
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.split, Ep.zeros([6]), 2, 1)
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.split_at, Ep.zeros([]), [1], 0)


@pytest.mark.parametrize("reps", [(), 2, (2,), (1, 3), (2, 0), (3, 1, 2), (2, 2, 2, 2)])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (0, 2)])
@pytest.mark.numpy_op("tile")
def test_tile(rng, reps, shape):
    a = random_array(rng, shape, "int32")
    assert_matches(Ep.astensor(a).tile(reps), np.tile(a, reps))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("tile")
def test_tile_dtypes_and_layouts(rng, dtype, layout):
    a = random_array(rng, (2, 3), dtype)
    assert_matches(as_layout(a, layout).tile((2, 1, 3)), np.tile(a, (2, 1, 3)))


def test_tile_errors():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.tile, Ep.zeros([2]), [-1])
    assert "tile" in message and "-1" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.tile, Ep.zeros([2]), [1] * 9)
    assert_ep_error(Ep.Error.OUT_OF_MEMORY, Ep.Tensor.tile, Ep.zeros([2]), [1 << 40, 1 << 40])


PADS = [0, 1, (2, 0), ((1, 2), (0, 3)), ((0, 0), (4, 5)), ((7, 6), (5, 9))]


@pytest.mark.parametrize("pad", PADS)
@pytest.mark.parametrize("mode", ["constant", "reflect"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.numpy_op("pad")
def test_pad(rng, pad, mode, dtype):
    a = random_array(rng, (3, 4), dtype)
    kwargs = {"constant_values": 5} if mode == "constant" and dtype != "bool" else {}
    expected = np.pad(a, pad, mode, **kwargs)
    got = Ep.astensor(a).pad(pad, mode, kwargs.get("constant_values", 0))
    assert_matches(got, expected)


@pytest.mark.parametrize("shape", [(), (1,), (2,), (1, 5), (0, 3)])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("pad")
def test_pad_small_shapes_and_layouts(rng, shape, layout):
    a = random_array(rng, shape, "float64")
    t = as_layout(a, layout)
    widths = [(2, 3)] * a.ndim
    if a.ndim == 0:
        assert_matches(Ep.Tensor.pad(t, [], Ep.PadMode.REFLECT, 0), a)
        return
    assert_matches(t.pad(widths, "constant", 1.5), np.pad(a, widths, "constant", constant_values=1.5))
    if a.size > 0:
        assert_matches(t.pad(widths, "reflect"), np.pad(a, widths, "reflect"))


@pytest.mark.numpy_op("pad")
def test_pad_value_converts_to_the_dtype():
    a = np.arange(3, dtype=np.int32)
    assert_matches(Ep.astensor(a).pad(1, "constant", 2.7), np.pad(a, 1, constant_values=2.7))


def test_pad_errors():
    # the C lengths check (2 * ndim paddings) is in tests/c/ops/join.c:
    # the override takes NumPy's pad_width, which broadcasts
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.pad, Ep.zeros([2]), [(1, -1)])
    assert "pad" in message and "-1" in message
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.pad, Ep.zeros([0]), 1, "reflect")
    assert_ep_error(Ep.Error.OUT_OF_MEMORY, Ep.Tensor.pad, Ep.zeros([2]), 1 << 62)
    with pytest.raises(ValueError):
        Ep.zeros([2, 3]).pad([1, 2, 3])
    with pytest.raises(ValueError):
        Ep.zeros([2]).pad(1, "wrap")


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("shapes", [[(3,)], [(3,), (4,)], [(2,), (0,), (3,)], [(2, 2), (3,)], [(), (2,)]])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.numpy_op("meshgrid")
def test_meshgrid(rng, indexing, shapes, layout):
    arrays = [random_array(rng, s, d) for s, d in zip(shapes, ["float32", "int64", "bool"])]
    grids = Ep.meshgrid(*[as_layout(a, layout) for a in arrays], indexing=indexing)
    expected = np.meshgrid(*arrays, indexing=indexing)
    assert len(grids) == len(expected)
    for g, e in zip(grids, expected):
        assert_matches(g, e)


def test_meshgrid_errors():
    assert_ep_error(Ep.Error.SHAPE, Ep.meshgrid, *[Ep.zeros([1])] * 9)
    with pytest.raises(ValueError):
        Ep.meshgrid([1, 2], indexing="yx")
    assert Ep.meshgrid() == []


# uint8 (image pixels): the join family moves bytes, on every device

@pytest.mark.parametrize("other", DTYPES + NARROW_INTS)
@pytest.mark.numpy_op("concatenate")
def test_concatenate_uint8_promotion(rng, other):
    a = random_array(rng, (2, 3), "uint8")
    b = random_array(rng, (1, 3), other)
    assert_matches(Ep.concatenate([a, b]), np.concatenate([a, b]))
    assert_matches(Ep.concatenate([b, a]), np.concatenate([b, a]))


@pytest.mark.numpy_op("stack")
def test_stack_split_tile_uint8(rng):
    a = random_array(rng, (4, 5, 3), "uint8")
    alpha = np.full((4, 5, 1), 255, np.uint8)
    assert_matches(Ep.concatenate([a, alpha], -1), np.concatenate([a, alpha], -1))
    assert_matches(Ep.stack([a, a[::-1]], 0), np.stack([a, a[::-1]], 0))
    for got, want in zip(Ep.split(a, 2, 0), np.split(a, 2, 0)):
        assert_matches(got, want)
    assert_matches(Ep.Tensor.tile(Ep.astensor(a), [1, 2, 1]), np.tile(a, (1, 2, 1)))


@pytest.mark.parametrize("mode", ["constant", "reflect"])
@pytest.mark.numpy_op("pad")
def test_pad_uint8(rng, mode):
    a = random_array(rng, (3, 4), "uint8")
    kwargs = {"constant_values": 7} if mode == "constant" else {}
    assert_matches(Ep.pad(a, ((1, 2), (2, 1)), mode, **kwargs),
                   np.pad(a, ((1, 2), (2, 1)), mode, **kwargs))


# roll and repeat, composites of slice, concatenate, broadcast_to, reshape

def torch_grad(f_ep, f_torch, a, weight):
    """The gradient of sum(weight * f(a)) by a tape, and by torch.autograd."""
    t = Ep.astensor(a)
    with Ep.GradientTape() as tape:
        tape.watch(t)
        loss = (f_ep(t) * weight).sum()
    ref = torch.tensor(a, requires_grad=True)
    (f_torch(ref) * torch.tensor(weight)).sum().backward()
    return tape.gradient(loss, [t])[0], ref.grad.numpy()


@pytest.mark.parametrize("dtype", DTYPES + NARROW_INTS)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("shift", [0, 1, -1, 5, -7, 2**62, -2**63])
@pytest.mark.numpy_op("roll")
def test_roll(rng, dtype, axis, shift):
    a = random_array(rng, (3, 4), dtype)
    assert_matches(Ep.roll(a, shift, axis=axis), np.roll(a, shift, axis=axis))


@pytest.mark.numpy_op("roll")
def test_roll_layouts_0d_and_0_size(rng):
    a = random_array(rng, (4, 6, 3), "float32")
    for _, t in layouts(a):
        for axis in (None, 0, 1, 2):
            assert_matches(t.roll(5, axis=axis), np.roll(a, 5, axis=axis))
    s = np.array(7, np.int64)
    assert_matches(Ep.astensor(s).roll(3), np.roll(s, 3))
    for shape, axis in (((0, 3), 0), ((0, 3), 1), ((2, 0), None)):
        z = np.zeros(shape, np.float32)
        assert_matches(Ep.astensor(z).roll(2, axis=axis), np.roll(z, 2, axis=axis))


def test_roll_errors():
    message = assert_ep_error(Ep.Error.AXIS, Ep.Tensor.roll, Ep.zeros([2, 3]), 1, 2)
    assert "roll" in message and "2" in message
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.roll, Ep.zeros([2, 3]), 1, -3)
    # NumPy's AxisError on a 0-d array along an axis
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.roll, Ep.zeros([]), 1, 0)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_roll_gradient_is_torchs(rng, axis):
    a = random_array(rng, (3, 5), "float64")
    weight = random_array(rng, (3, 5), "float64")
    dims = (0,) if axis is None else (axis,)
    got, expected = torch_grad(lambda t: t.roll(-8, axis=axis),
                               lambda x: (torch.roll(x.flatten(), -8, 0).reshape(x.shape) if axis is None
                                          else torch.roll(x, -8, dims)),
                               a, weight)
    assert_matches(got, expected)


@pytest.mark.parametrize("dtype", DTYPES + NARROW_INTS)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("repeats", [0, 1, 3])
@pytest.mark.numpy_op("repeat")
def test_repeat(rng, dtype, axis, repeats):
    a = random_array(rng, (3, 4), dtype)
    assert_matches(Ep.repeat(a, repeats, axis=axis), np.repeat(a, repeats, axis=axis))


@pytest.mark.numpy_op("repeat")
def test_repeat_layouts_0d_0_size_and_8d(rng):
    a = random_array(rng, (4, 6, 3), "int32")
    for _, t in layouts(a):
        for axis in (None, 0, 1, 2):
            assert_matches(t.repeat(2, axis=axis), np.repeat(a, 2, axis=axis))
    s = np.array(7.5, np.float32)
    assert_matches(Ep.astensor(s).repeat(3), np.repeat(s, 3))
    for shape, axis in (((0, 3), 0), ((0, 3), 1), ((2, 0), None)):
        z = np.zeros(shape, np.float32)
        assert_matches(Ep.astensor(z).repeat(2, axis=axis), np.repeat(z, 2, axis=axis))
    b = random_array(rng, (2, 1, 2, 1, 2, 1, 2, 3), "float32")
    for axis in range(8):
        assert_matches(Ep.astensor(b).repeat(2, axis=axis), np.repeat(b, 2, axis=axis))


def test_repeat_errors():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.repeat, Ep.zeros([2, 3]), -2)
    assert "repeat" in message and "-2" in message
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.repeat, Ep.zeros([2, 3]), 2, 2)
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.repeat, Ep.zeros([]), 2, 0)
    assert_ep_error(Ep.Error.OUT_OF_MEMORY, Ep.Tensor.repeat, Ep.zeros([2, 3]), 2**62, 0)
    assert_ep_error(Ep.Error.OUT_OF_MEMORY, Ep.Tensor.repeat, Ep.zeros([2, 3]), 2**40, 1)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_repeat_gradient_is_torchs(rng, axis):
    a = random_array(rng, (3, 5), "float64")
    weight = random_array(rng, np.repeat(a, 3, axis=axis).shape, "float64")
    got, expected = torch_grad(lambda t: t.repeat(3, axis=axis),
                               lambda x: torch.repeat_interleave(x, 3, dim=axis), a, weight)
    assert_matches(got, expected)


# roll with tuples (roll_axes) and repeat with a count per element
# (repeat_counts), issue 17 (ops)

@pytest.mark.parametrize("dtype", DTYPES + ["uint8"])
@pytest.mark.parametrize("shift,axis", [((1, 2), (0, 2)), (1, (0, 1)), ((1, -5), 1), ((3, 4), None),
                                        ((1, 1, 1), (2, 2, 2)), ((), None), ((2**62, -2**63), (0, 1))])
@pytest.mark.numpy_op("roll_axes")
def test_roll_tuples(rng, dtype, shift, axis):
    a = random_array(rng, (2, 3, 4), dtype)
    assert_matches(Ep.roll(a, shift, axis=axis), np.roll(a, shift, axis=axis))


@pytest.mark.numpy_op("roll_axes")
def test_roll_tuples_layouts_0d_and_0_size(rng):
    a = random_array(rng, (4, 6, 3), "float32")
    for _, t in layouts(a):
        assert_matches(t.roll((5, -1), axis=(0, 2)), np.roll(a, (5, -1), axis=(0, 2)))
    s = np.array(7, np.int64)
    assert_matches(Ep.astensor(s).roll((3, 1)), np.roll(s, (3, 1)))
    z = np.zeros((0, 3), np.float32)
    assert_matches(Ep.astensor(z).roll((2, 1), axis=(0, 1)), np.roll(z, (2, 1), axis=(0, 1)))


def test_roll_tuples_errors():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.roll, np.zeros((2, 3)), (1, 2, 3), (0, 1))
    assert "roll" in message and "3" in message and "2" in message
    assert_ep_error(Ep.Error.AXIS, Ep.roll, np.zeros((2, 3)), (1, 2), (0, 2))


def test_roll_tuples_gradient_is_torchs(rng):
    a = random_array(rng, (3, 5), "float64")
    weight = random_array(rng, (3, 5), "float64")
    got, expected = torch_grad(lambda t: t.roll((2, -7), axis=(0, 1)),
                               lambda x: torch.roll(x, (2, -7), (0, 1)), a, weight)
    assert_matches(got, expected)


@pytest.mark.parametrize("dtype", DTYPES + ["uint8"])
@pytest.mark.parametrize("repeats,axis", [([1, 0, 2], 1), ([2], 0), ([1, 2], 0), ([0, 0, 0, 0], 2),
                                          (np.arange(24) % 3, None), (np.array(2), None), ([3, 1, 0, 2], -1)])
@pytest.mark.numpy_op("repeat_counts")
def test_repeat_counts(rng, dtype, repeats, axis):
    a = random_array(rng, (2, 3, 4), dtype)
    assert_matches(Ep.repeat(a, repeats, axis=axis), np.repeat(a, repeats, axis=axis))
    assert_matches(Ep.repeat(a, np.asarray(repeats, np.int32), axis=axis), np.repeat(a, repeats, axis=axis))


@pytest.mark.numpy_op("repeat_counts")
def test_repeat_counts_layouts_0d_and_0_size(rng):
    a = random_array(rng, (4, 6, 3), "float32")
    counts = np.array([2, 0, 1, 3, 1, 1])
    for _, t in layouts(a):
        assert_matches(t.repeat(counts, axis=1), np.repeat(a, counts, axis=1))
    s = np.array(7.5, np.float32)
    assert_matches(Ep.astensor(s).repeat([3]), np.repeat(s, [3]))
    z = np.zeros((0, 3), np.float32)
    assert_matches(Ep.astensor(z).repeat(np.zeros(0, np.int64), axis=0), np.repeat(z, np.zeros(0, np.int64), axis=0))
    assert_matches(Ep.astensor(z).repeat([2, 1, 0], axis=1), np.repeat(z, [2, 1, 0], axis=1))


def test_repeat_counts_errors():
    a = np.zeros((2, 3))
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.repeat, a, [1, -1, 2], 1)
    assert message.startswith("repeat:") and "-1" in message
    message = assert_ep_error(Ep.Error.SHAPE, Ep.repeat, a, [1, 2], 1)
    assert "(2,)" in message and "3" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.repeat, a, np.ones((2, 2), np.int64), 0)
    assert_ep_error(Ep.Error.DTYPE, Ep.repeat, a, np.array([1.0, 2.0]), 0)
    assert_ep_error(Ep.Error.AXIS, Ep.repeat, a, [1, 2], 2)
    assert_ep_error(Ep.Error.SHAPE, Ep.repeat, np.zeros((1,) * 8), [2], 0)


def test_repeat_counts_gradient_is_torchs(rng):
    a = random_array(rng, (3, 4), "float64")
    counts = np.array([2, 0, 3, 1])
    weight = random_array(rng, (3, 6), "float64")
    got, expected = torch_grad(lambda t: t.repeat(counts, axis=1),
                               lambda x: torch.repeat_interleave(x, torch.tensor(counts), 1), a, weight)
    assert_matches(got, expected)


@pytest.mark.numpy_op("roll_axes", "repeat_counts")
def test_roll_axes_and_repeat_counts_directly_on_layouts_0d_and_0_size(rng):
    """The C entries themselves (Tensor.roll and Tensor.repeat pick them)."""
    a = random_array(rng, (4, 6, 3), "int64")
    counts = np.array([2, 0, 1, 3, 1, 1])
    for layout in LAYOUTS:
        t = as_layout(a, layout)
        assert_matches(t.roll_axes([5, -1], [0, 2]), np.roll(a, (5, -1), axis=(0, 2)))
        assert_matches(t.repeat_counts(as_layout(counts, layout), 1), np.repeat(a, counts, axis=1))
    s = np.array(7.5, np.float32)
    assert_matches(Ep.astensor(s).roll_axes([3, 1], None), np.roll(s, (3, 1)))
    assert_matches(Ep.astensor(s).repeat_counts(np.array(2), None), np.repeat(s, 2))
    assert_matches(Ep.astensor(s).repeat_counts(np.array([3]), None), np.repeat(s, [3]))
    z = np.zeros((0, 3), np.float32)
    assert_matches(Ep.astensor(z).roll_axes([2, 1], [0, 1]), np.roll(z, (2, 1), axis=(0, 1)))
    assert_matches(Ep.astensor(z).repeat_counts(np.zeros(0, np.int64), 0), np.repeat(z, np.zeros(0, np.int64), 0))
