"""The fft family against NumPy's np.fft: fft, ifft, rfft, irfft and their
2-D forms on batches, every layout, float32 and float64, cropping and
padding lengths, each norm, lengths clFFT takes and others (a host round
trip on OpenCL), 0-size batches; every error path; gradients against
torch.fft through torch.view_as_real.

Complex tensors are real ones with a last axis of 2 (real, imaginary),
torch.view_as_real's layout: `as_pairs` makes them from NumPy's complex
arrays. NumPy computes in float64 (complex128): float32 results are
compared with its results rounded, within float32 tolerances.
"""

import numpy as np
import pytest
import torch
from conftest import LAYOUTS, Ep, as_layout, assert_ep_error, assert_matches

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device

FLOATS = ["float32", "float64"]
NORMS = ["backward", "ortho", "forward"]


def as_pairs(z, dtype):
    """A complex NumPy array as (..., 2) real pairs of dtype."""
    z = np.asarray(z)
    return np.stack([z.real, z.imag], -1).astype(dtype)


def random_complex(rng, shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def fft_tolerances(dtype, n=1):
    """Relative to the result's largest element: a transform sums n terms."""
    if dtype == "float32":
        return {"rtol": 1e-4, "atol": 2e-5 * np.sqrt(max(n, 1))}
    return {"rtol": 1e-10, "atol": 1e-11 * np.sqrt(max(n, 1))}


def check(got, expected, dtype, n):
    scale = max(1.0, float(np.abs(expected).max())) if expected.size else 1.0
    tol = fft_tolerances(dtype, n)
    assert_matches(got, expected.astype(dtype), rtol=tol["rtol"], atol=tol["atol"] * scale)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,axis", [((8,), -1), ((3, 5), -1), ((4, 6), 0), ((2, 3, 7), 1),
                                        ((0, 4), -1), ((3, 17), 1)])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.numpy_op(n)) for n in ("fft", "ifft")])
def test_fft_ifft(rng, name, dtype, shape, axis, layout):
    z = random_complex(rng, shape)
    a = as_pairs(z, dtype)
    got = getattr(as_layout(a, layout), name)(axis=axis)
    with np.errstate(all="ignore"):
        expected = getattr(np.fft, name)(a[..., 0].astype(np.float64) + 1j * a[..., 1], axis=axis)
    check(got, as_pairs(expected, dtype), dtype, shape[axis])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [1, 3, 6, 11, 16])
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.numpy_op(n)) for n in ("fft", "ifft")])
def test_fft_lengths_and_norms(rng, name, dtype, n, norm):
    """n crops (n < 6) or pads with zeros (n > 6), as NumPy's."""
    z = random_complex(rng, (2, 6))
    a = as_pairs(z, dtype)
    got = getattr(Ep.astensor(a), name)(n, -1, norm)
    expected = getattr(np.fft, name)(a[..., 0].astype(np.float64) + 1j * a[..., 1], n=n, norm=norm)
    check(got, as_pairs(expected, dtype), dtype, n)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,axis,n", [((8,), -1, None), ((3, 5), -1, None), ((4, 6), 0, 9),
                                          ((2, 3, 7), 1, 2), ((0, 4), -1, None), ((3, 19), 1, None),
                                          ((2, 1), 1, None)])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.numpy_op("rfft")
def test_rfft(rng, dtype, shape, axis, n, layout, norm):
    a = rng.standard_normal(shape).astype(dtype)
    got = as_layout(a, layout).rfft(n, axis, norm)
    expected = np.fft.rfft(a.astype(np.float64), n=n, axis=axis, norm=norm)
    check(got, as_pairs(expected, dtype), dtype, n or shape[axis])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,axis,n", [((5,), -1, None), ((3, 4), -1, None), ((4, 6), 0, 7),
                                          ((2, 3, 7), 1, 12), ((0, 4), -1, None), ((3, 9), 1, 17),
                                          ((2, 3), 1, 1), ((3, 4), 1, 5)])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.numpy_op("irfft")
def test_irfft(rng, dtype, shape, axis, n, layout, norm):
    """A half spectrum of any values: NumPy's irfft ignores the imaginary
    parts of bins 0 and n/2, and so does eager-glib's."""
    z = random_complex(rng, shape)
    a = as_pairs(z, dtype)
    got = as_layout(a, layout).irfft(n, axis, norm)
    expected = np.fft.irfft(a[..., 0].astype(np.float64) + 1j * a[..., 1], n=n, axis=axis, norm=norm)
    check(got, expected.astype(dtype), dtype, n or 2 * (shape[axis] - 1))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [8, 97, 1000, 1031, 4096])
def test_round_trips_of_long_and_prime_lengths(rng, dtype, n):
    """Powers of two, primes (Bluestein's transform on the CPU, a host
    round trip on OpenCL), sizes of small factors."""
    x = rng.standard_normal((2, n))
    t = Ep.astensor(x.astype(dtype))
    check(t.rfft(), as_pairs(np.fft.rfft(x.astype(dtype).astype(np.float64)), dtype), dtype, n)
    back = t.rfft().irfft(n)
    check(back, x.astype(dtype), dtype, n)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,s,axes", [((4, 6), None, None), ((2, 3, 5), None, None),
                                          ((3, 4, 5), (6, 3), (0, 2)), ((0, 3, 4), None, None),
                                          ((5, 4), (2, 8), (1, 0))])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.numpy_op(n)) for n in ("fft2", "ifft2")])
def test_fft2_ifft2(rng, name, dtype, shape, s, axes, layout):
    a = as_pairs(random_complex(rng, shape), dtype)
    got = getattr(as_layout(a, layout), name)(s, axes)
    expected = getattr(np.fft, name)(a[..., 0].astype(np.float64) + 1j * a[..., 1], s=s,
                                     axes=axes if axes is not None else (-2, -1))
    check(got, as_pairs(expected, dtype), dtype, int(np.prod(shape[-2:])))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,s,axes", [((4, 6), None, None), ((2, 3, 5), None, None),
                                          ((3, 4, 5), (6, 3), (0, 2)), ((0, 3, 4), None, None),
                                          ((5, 4), (2, 7), (1, 0))])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.numpy_op("rfft2")
def test_rfft2(rng, dtype, shape, s, axes, layout, norm):
    a = rng.standard_normal(shape).astype(dtype)
    got = as_layout(a, layout).rfft2(s, axes, norm)
    expected = np.fft.rfft2(a.astype(np.float64), s=s, axes=axes if axes is not None else (-2, -1),
                            norm=norm)
    check(got, as_pairs(expected, dtype), dtype, int(np.prod(shape[-2:])))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,s,axes", [((4, 6), None, None), ((2, 3, 5), None, None),
                                          ((3, 4, 5), (6, 3), (0, 2)), ((0, 3, 4), None, None),
                                          ((5, 4), (2, 7), (1, 0))])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.numpy_op("irfft2")
def test_irfft2(rng, dtype, shape, s, axes, layout, norm):
    a = as_pairs(random_complex(rng, shape), dtype)
    got = as_layout(a, layout).irfft2(s, axes, norm)
    expected = np.fft.irfft2(a[..., 0].astype(np.float64) + 1j * a[..., 1], s=s,
                             axes=axes if axes is not None else (-2, -1), norm=norm)
    check(got, expected.astype(dtype), dtype, int(np.prod(shape[-2:])))


@pytest.mark.numpy_op("fft")
@pytest.mark.numpy_op("ifft")
@pytest.mark.numpy_op("fft2")
@pytest.mark.numpy_op("ifft2")
def test_marked_numpy_ops(rng):
    """The functions of the namespace are NumPy's (view-as-real) too."""
    z = random_complex(rng, (3, 4))
    a = as_pairs(z, "float64")
    check(Ep.fft(Ep.astensor(a)), as_pairs(np.fft.fft(z), "float64"), "float64", 4)
    check(Ep.ifft(Ep.astensor(a)), as_pairs(np.fft.ifft(z), "float64"), "float64", 4)
    check(Ep.fft2(Ep.astensor(a)), as_pairs(np.fft.fft2(z), "float64"), "float64", 12)
    check(Ep.ifft2(Ep.astensor(a)), as_pairs(np.fft.ifft2(z), "float64"), "float64", 12)


def test_irfft_of_rfft_is_the_signal(rng):
    x = rng.standard_normal((4, 9))
    for n in (9, 10):
        back = Ep.astensor(x).rfft(n).irfft(n)
        expected = np.fft.irfft(np.fft.rfft(x, n), n)
        check(back, expected, "float64", n)


@pytest.mark.parametrize("name", ["fft", "ifft", "irfft"])
def test_complex_errors(name):
    f = getattr(Ep.Tensor, name)
    message = assert_ep_error(Ep.Error.SHAPE, f, Ep.zeros([4, 3]))
    assert name in message and "(4, 3)" in message and "2" in message
    assert_ep_error(Ep.Error.SHAPE, f, Ep.zeros([2]))
    assert_ep_error(Ep.Error.SHAPE, f, Ep.zeros([]))
    message = assert_ep_error(Ep.Error.DTYPE, f, Ep.zeros([4, 2], dtype="int64"))
    assert name in message and "int64" in message
    assert_ep_error(Ep.Error.DTYPE, f, Ep.zeros([4, 2], dtype="bool"))
    message = assert_ep_error(Ep.Error.AXIS, f, Ep.zeros([4, 2]), None, 1)
    assert name in message


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft"])
def test_length_errors(name):
    shape = [3, 4] if name == "rfft" else [3, 4, 2]
    f = getattr(Ep.Tensor, name)
    for n in (0, -2, -(2 ** 40)):
        message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, f, Ep.zeros(shape), n)
        assert name in message and str(n) in message
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, f, Ep.zeros(shape), 2 ** 31)
    assert name in message and str(2 ** 31) in message
    # an empty axis: NumPy refuses n = 0 too
    empty = [3, 0] if name == "rfft" else [3, 0, 2]
    with pytest.raises(ValueError):
        np.fft.fft(np.zeros((3, 0)))
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, f, Ep.zeros(empty))


def test_irfft_of_one_bin_needs_a_length():
    """The default length 2 (m - 1) is 0 for one bin, as in NumPy."""
    with pytest.raises(ValueError):
        np.fft.irfft(np.zeros(1))
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Tensor.irfft, Ep.zeros([1, 2]))
    assert "irfft" in message and "0" in message
    check(Ep.zeros([1, 2]).irfft(1), np.zeros(1, np.float32), "float32", 1)


def test_rfft_errors():
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.rfft, Ep.zeros([]))
    message = assert_ep_error(Ep.Error.DTYPE, Ep.Tensor.rfft, Ep.zeros([4], dtype="int32"))
    assert "rfft" in message
    assert_ep_error(Ep.Error.SHAPE, Ep.Tensor.rfft, Ep.zeros([1] * 8))
    assert_ep_error(Ep.Error.AXIS, Ep.Tensor.rfft, Ep.zeros([4]), None, 1)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2"])
def test_fft2_errors(name):
    shape = [3, 4] if name == "rfft2" else [3, 4, 2]
    f = getattr(Ep.Tensor, name)
    message = assert_ep_error(Ep.Error.AXIS, f, Ep.zeros(shape), None, [1, -1])
    assert name in message and "1" in message
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, f, Ep.zeros(shape), None, [0])
    assert name in message
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, f, Ep.zeros(shape), [2, 2, 2])
    assert name in message
    message = assert_ep_error(Ep.Error.AXIS, f, Ep.zeros(shape), None, [0, 5])
    assert name in message
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, f, Ep.zeros(shape), [0, 4])
    assert name in message and "0" in message
    bad = [3] if name == "rfft2" else [3, 3]
    assert_ep_error(Ep.Error.AXIS if name == "rfft2" else Ep.Error.SHAPE, f, Ep.zeros(bad))
    assert_ep_error(Ep.Error.DTYPE, f, Ep.zeros(shape, dtype="int64"))


# Gradients against torch.fft: the same weighted sum of each output
# differentiated by both (torch on view_as_complex inputs, its gradient
# seen through view_as_real, the pair layout).

def _torch_complex(a):
    return torch.view_as_complex(torch.tensor(a).contiguous())


TORCH_CASES = {
    "fft": (lambda t: t.fft(5, 0, "ortho"),
            lambda z: torch.view_as_real(torch.fft.fft(z, n=5, dim=0, norm="ortho")), (4, 3, 2), True),
    "ifft": (lambda t: t.ifft(3),
             lambda z: torch.view_as_real(torch.fft.ifft(z, n=3)), (2, 5, 2), True),
    "rfft": (lambda t: t.rfft(8, 1),
             lambda x: torch.view_as_real(torch.fft.rfft(x, n=8, dim=1)), (3, 6), False),
    "rfft-odd": (lambda t: t.rfft(None, 0, "forward"),
                 lambda x: torch.view_as_real(torch.fft.rfft(x, dim=0, norm="forward")), (5, 2), False),
    "irfft": (lambda t: t.irfft(), lambda z: torch.fft.irfft(z), (2, 4, 2), True),
    "irfft-odd": (lambda t: t.irfft(7, 0, "ortho"),
                  lambda z: torch.fft.irfft(z, n=7, dim=0, norm="ortho"), (3, 2, 2), True),
    "fft2": (lambda t: t.fft2(), lambda z: torch.view_as_real(torch.fft.fft2(z)), (3, 4, 2), True),
    "ifft2": (lambda t: t.ifft2((2, 5)),
              lambda z: torch.view_as_real(torch.fft.ifft2(z, s=(2, 5))), (3, 4, 2), True),
    "rfft2": (lambda t: t.rfft2(None, (1, 0)),
              lambda x: torch.view_as_real(torch.fft.rfft2(x, dim=(1, 0))), (4, 5), False),
    "irfft2": (lambda t: t.irfft2((4, 5)),
               lambda z: torch.fft.irfft2(z, s=(4, 5)), (2, 3, 3, 2), True),
}


@pytest.mark.parametrize("name", sorted(TORCH_CASES))
def test_gradient_matches_torch(rng, name):
    ours, theirs, shape, complex_input = TORCH_CASES[name]
    a = rng.standard_normal(shape)
    x = Ep.astensor(a)
    with Ep.GradientTape() as tape:
        tape.watch(x)
        y = ours(x)
        weight = np.cos(np.arange(int(np.prod(y.shape)))).reshape(y.shape)
        loss = (y * weight).sum()
    grad = tape.gradient(loss, [x])[0].numpy()

    t = torch.tensor(a, requires_grad=True)
    out = theirs(torch.view_as_complex(t) if complex_input else t)
    (out * torch.tensor(weight)).sum().backward()
    np.testing.assert_allclose(grad, t.grad.numpy(), rtol=1e-10, atol=1e-12)
