"""Every differentiable op: tape gradients against central differences.

Inputs are random float64; the gradient of sum(w * op(inputs)) for a
random weight w is compared with central finite differences of the same
sum. Second derivatives of the elementwise ops go through nested tapes
and are compared with central differences of the first derivative.

Each check runs eagerly and staged: "staged" calls an Ep.function of the
op, traced on other inputs first, so that the tape records replays and
the finite differences replay it too; "staged-gradient" (first
derivatives) computes the gradient inside one staged function, a tape
inside, traced on other inputs and replayed.
"""

import numpy as np
import pytest
from conftest import Ep

# opencl: every test on every device
pytestmark = pytest.mark.on_every_device

H = 1e-6


def domain(rng, shape, kind):
    if kind == "unit":
        return rng.uniform(-0.9, 0.9, shape)
    if kind == "above_one":
        return rng.uniform(1.2, 3.0, shape)
    if kind == "positive":
        return rng.uniform(0.5, 2.0, shape)
    if kind == "nonzero":
        return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.2, 2.0, shape)
    return rng.uniform(-2.0, 2.0, shape)


# name: (function of tensors, input shapes, input domains)
CASES = {
    "add": (lambda a, b: a + b, [(3, 1), (1, 4)], ["any", "any"]),
    "add-rank": (lambda a, b: a + b, [(2, 3, 4), (4,)], ["any", "any"]),
    "add-scalar": (lambda a: 1.5 + a, [(2, 3)], ["any"]),
    "sub": (lambda a, b: a - b, [(2, 1, 4), (3, 1)], ["any", "any"]),
    "sub-scalar": (lambda a: 2.0 - a, [(5,)], ["any"]),
    "mul": (lambda a, b: a * b, [(), (2, 3)], ["any", "any"]),
    "div": (lambda a, b: a / b, [(3, 4), (4,)], ["any", "nonzero"]),
    "div-scalar": (lambda a: 1.0 / a, [(4,)], ["nonzero"]),
    "pow": (lambda a, b: a ** b, [(3, 4), (3, 4)], ["positive", "any"]),
    "pow-scalar": (lambda a: a ** 3, [(5,)], ["any"]),
    "rpow": (lambda a: 2.0 ** a, [(5,)], ["any"]),
    "where": (lambda c, a, b: Ep.where(c > 0, a, b), [(3, 4), (3, 4), (4,)],
              ["nonzero", "any", "any"]),
    "neg": (lambda a: -a, [(2, 3)], ["any"]),
    "abs": (lambda a: abs(a), [(2, 3)], ["nonzero"]),
    "square": (lambda a: a.square(), [(2, 3)], ["any"]),
    "sqrt": (lambda a: a.sqrt(), [(2, 3)], ["positive"]),
    "exp": (lambda a: a.exp(), [(2, 3)], ["any"]),
    "log": (lambda a: a.log(), [(2, 3)], ["positive"]),
    "tanh": (lambda a: a.tanh(), [(2, 3)], ["any"]),
    "sigmoid": (lambda a: a.sigmoid(), [(2, 3)], ["any"]),
    "relu": (lambda a: a.relu(), [(2, 3)], ["nonzero"]),
    "sum": (lambda a: a.sum(axis=(0, 2)), [(2, 3, 4)], ["any"]),
    "sum-keepdims": (lambda a: a.sum(axis=1, keepdims=True), [(2, 3, 4)], ["any"]),
    "mean": (lambda a: a.mean(), [(3, 4)], ["any"]),
    "mean-axis": (lambda a: a.mean(axis=-2, keepdims=True), [(2, 3, 4)], ["any"]),
    "max": (lambda a: a.max(axis=1), [(2, 3, 4)], ["any"]),
    "min": (lambda a: a.min(), [(3, 4)], ["any"]),
    "reshape": (lambda a: a.reshape(4, -1), [(2, 3, 4)], ["any"]),
    "reshape-copy": (lambda a: a.T.reshape(-1), [(3, 4)], ["any"]),
    "transpose": (lambda a: a.transpose(2, 0, 1), [(2, 3, 4)], ["any"]),
    "expand_dims": (lambda a: a.expand_dims(1), [(2, 3)], ["any"]),
    "squeeze": (lambda a: a.squeeze(), [(2, 1, 3, 1)], ["any"]),
    "matmul": (lambda a, b: a @ b, [(3, 4), (4, 5)], ["any", "any"]),
    "matmul-vector": (lambda a, b: a @ b, [(4,), (2, 4, 3)], ["any", "any"]),
    "matmul-broadcast": (lambda a, b: a @ b, [(2, 1, 3, 4), (3, 4, 2)], ["any", "any"]),
    # the math family (issue 3)
    "floordiv": (lambda a, b: a // b, [(3, 4), (4,)], ["any", "nonzero"]),
    "mod": (lambda a, b: a % b, [(3, 4), (4,)], ["any", "nonzero"]),
    "minimum": (lambda a, b: Ep.minimum(a, b), [(3, 4), (3, 1)], ["any", "any"]),
    "maximum": (lambda a, b: Ep.maximum(a, b), [(3, 4), ()], ["any", "any"]),
    "clip": (lambda a: a.clip(-1.0, 1.0), [(3, 4)], ["any"]),
    "expm1": (lambda a: a.expm1(), [(2, 3)], ["any"]),
    "log1p": (lambda a: a.log1p(), [(2, 3)], ["positive"]),
    "log2": (lambda a: a.log2(), [(2, 3)], ["positive"]),
    "log10": (lambda a: a.log10(), [(2, 3)], ["positive"]),
    "sin": (lambda a: a.sin(), [(2, 3)], ["any"]),
    "cos": (lambda a: a.cos(), [(2, 3)], ["any"]),
    "tan": (lambda a: a.tan(), [(2, 3)], ["unit"]),
    "sinh": (lambda a: a.sinh(), [(2, 3)], ["any"]),
    "cosh": (lambda a: a.cosh(), [(2, 3)], ["any"]),
    "arcsin": (lambda a: a.arcsin(), [(2, 3)], ["unit"]),
    "arccos": (lambda a: a.arccos(), [(2, 3)], ["unit"]),
    "arctan": (lambda a: a.arctan(), [(2, 3)], ["any"]),
    "arcsinh": (lambda a: a.arcsinh(), [(2, 3)], ["any"]),
    "arccosh": (lambda a: a.arccosh(), [(2, 3)], ["above_one"]),
    "arctanh": (lambda a: a.arctanh(), [(2, 3)], ["unit"]),
    "softplus": (lambda a: a.softplus(), [(2, 3)], ["any"]),
    "sign": (lambda a: a.sign(), [(2, 3)], ["nonzero"]),
    "round": (lambda a: a.round(), [(2, 3)], ["any"]),
    "ceil": (lambda a: a.ceil(), [(2, 3)], ["any"]),
    "floor": (lambda a: a.floor(), [(2, 3)], ["any"]),
    "erf": (lambda a: a.erf(), [(2, 3)], ["any"]),
    "erfc": (lambda a: a.erfc(), [(2, 3)], ["any"]),
    "gelu": (lambda a: a.gelu(), [(2, 3)], ["any"]),
    "gelu-tanh": (lambda a: a.gelu(approximate="tanh"), [(2, 3)], ["any"]),
    "prod": (lambda a: a.prod(axis=1), [(2, 3, 4)], ["any"]),
    "cumsum": (lambda a: a.cumsum(axis=-1), [(3, 4)], ["any"]),
    "cumsum-flat": (lambda a: a.cumsum(), [(2, 3)], ["any"]),
    "cumprod": (lambda a: a.cumprod(axis=-1), [(3, 4)], ["any"]),
    "cumprod-flat": (lambda a: a.cumprod(), [(2, 3)], ["any"]),
    "softmax": (lambda a: a.softmax(axis=0), [(3, 4)], ["any"]),
    "log_softmax": (lambda a: a.log_softmax(), [(3, 4)], ["any"]),
    "logsumexp": (lambda a: a.logsumexp(axis=(0, 2), keepdims=True), [(2, 3, 4)], ["any"]),
    "crossentropy": (lambda a: a.crossentropy(Ep.astensor(np.array([2, 0, 1, 2]))), [(4, 3)],
                     ["any"]),
    "l1": (lambda a: a.l1(axis=1), [(3, 4)], ["nonzero"]),
    "l2": (lambda a: a.l2(), [(3, 4)], ["any"]),
    "lp": (lambda a: a.lp(3, axis=0), [(3, 4)], ["nonzero"]),
    "linf": (lambda a: a.linf(axis=1), [(3, 4)], ["any"]),
    "sort": (lambda a: a.sort(axis=0), [(4, 2, 3)], ["any"]),
    "topk": (lambda a: a.topk(2)[0], [(3, 5)], ["any"]),
    "var": (lambda a: a.var(axis=(0, 2), correction=1), [(2, 3, 4)], ["any"]),
    "std": (lambda a: a.std(axis=1, keepdims=True), [(3, 4)], ["any"]),
    # the norm family: every output of batch_norm in the objective
    "layer_norm": (lambda a, w, b: a.layer_norm(w, b, axis=1, epsilon=1e-3), [(2, 3, 4), (3, 4), (3, 4)],
                   ["any", "any", "any"]),
    "batch_norm-train": (lambda a, w, b: sum(a.batch_norm(np.zeros(3), np.ones(3), w, b, training=True,
                                                          epsilon=1e-3, data_format="nhwc")),
                         [(2, 2, 3), (3,), (3,)], ["any", "any", "any"]),
    "batch_norm-train-nchw": (lambda a, w: a.batch_norm(np.zeros(3), np.ones(3), w, np.zeros(3),
                                                        training=True, epsilon=1e-3)[0],
                              [(2, 3, 2, 2), (3,)], ["any", "any"]),
    "batch_norm-eval": (lambda a, m, v: sum(a.batch_norm(m, v, np.full(3, 0.5), np.ones(3), epsilon=1e-3)),
                        [(4, 3), (3,), (3,)], ["any", "any", "positive"]),
    # the shape family
    "broadcast_to": (lambda a: a.broadcast_to(2, 3, 4), [(3, 1)], ["any"]),
    "flip": (lambda a: a.flip(axis=(0, 2)), [(2, 3, 4)], ["any"]),
    "slice": (lambda a: a[1:4:2, ::-2, None, ...], [(5, 9, 2)], ["any"]),
    "getitem-advanced": (lambda a: a[np.array([2, 0, 2]), 1:], [(3, 4)], ["any"]),
    "getitem-mask": (lambda a: a[a > 0], [(3, 4)], ["nonzero"]),
    "concatenate": (lambda a, b: Ep.concatenate([a, b], axis=1), [(2, 3), (2, 1)],
                    ["any", "any"]),
    "stack": (lambda a, b: Ep.stack([a, b], axis=-1), [(2, 3), (2, 3)], ["any", "any"]),
    "split": (lambda a: a.split(2, axis=1)[1] * 2, [(2, 4)], ["any"]),
    "tile": (lambda a: a.tile((2, 1, 3)), [(2, 3)], ["any"]),
    "roll": (lambda a: a.roll(-4, axis=1), [(2, 3)], ["any"]),
    "roll-flat": (lambda a: a.roll(7), [(2, 3)], ["any"]),
    "repeat": (lambda a: a.repeat(3, axis=0), [(2, 3)], ["any"]),
    "repeat-flat": (lambda a: a.repeat(2), [(2, 3)], ["any"]),
    "diff": (lambda a: a.diff(2, axis=0), [(4, 3)], ["any"]),
    "diff-last": (lambda a: a.diff(), [(2, 3, 4)], ["any"]),
    "pad": (lambda a: a.pad(((1, 2), (0, 1)), constant_values=7), [(2, 3)], ["any"]),
    "pad-reflect": (lambda a: a.pad(3, mode="reflect"), [(4,)], ["any"]),
    # pooling; the gradients as functions of the incoming gradient at fixed images
    "max_pool2d": (lambda a: a.max_pool2d(3, 2, 1, ceil_mode=True), [(2, 3, 5, 6)], ["any"]),
    "max_pool2d-nhwc": (lambda a: a.max_pool2d((2, 3), 1, dilation=(2, 1), data_format="nhwc"),
                        [(2, 6, 5, 3)], ["any"]),
    "avg_pool2d": (lambda a: a.avg_pool2d(3, 2, 1, ceil_mode=True, count_include_pad=False),
                   [(2, 3, 5, 6)], ["any"]),
    "avg_pool2d-nhwc": (lambda a: a.avg_pool2d((2, 3), padding=1, data_format="nhwc"),
                        [(2, 4, 6, 3)], ["any"]),
    "max_pool2d_grad": (lambda g: Ep.astensor(np.sin(1.7 * np.arange(180.0)).reshape(2, 3, 5, 6))
                        .max_pool2d_grad(g, 3, 2, 1), [(2, 3, 3, 3)], ["any"]),
    "avg_pool2d_grad": (lambda g: Ep.avg_pool2d_grad(g, (2, 3, 5, 6), 3, 2, 1, count_include_pad=False),
                        [(2, 3, 3, 3)], ["any"]),
    "take": (lambda a: a.take(np.array([2, 0, 2, -1]), axis=1), [(2, 3)], ["any"]),
    "embedding": (lambda a: Ep.embedding(np.array([[2, 0, 2], [1, 2, 0]]), a), [(4, 3)], ["any"]),
    "take_along_axis": (lambda a: a.take_along_axis(np.array([[2, 0, 1], [1, 0, 0]]), axis=1),
                        [(2, 4)], ["any"]),
    "index_update": (lambda a, v: a.index_update(np.array([0, 2]), v), [(4, 3), (2, 3)],
                     ["any", "any"]),
    "scatter_add": (lambda a, v: a.scatter_add(np.array([1, 1, 0]), v, axis=-1), [(2, 3), (2, 3)],
                    ["any", "any"]),
    "inv": (lambda a: (a + Ep.astensor(6 * np.eye(3))).inv(), [(3, 3)], ["any"]),
    "slogdet": (lambda a: (a + Ep.astensor(6 * np.eye(3))).slogdet()[1], [(3, 3)], ["any"]),
    "solve": (lambda a, b: (a + Ep.astensor(6 * np.eye(3))).solve(b), [(3, 3), (3, 2)],
              ["any", "any"]),
    # linear algebra of issue 17: functions of the factors that do not
    # depend on LAPACK's signs (U Vh, |U|, |V|), symmetric inputs where
    # one triangle is read
    "det": (lambda a: (a + Ep.astensor(6 * np.eye(3))).det(), [(3, 3)], ["any"]),
    "cholesky": (lambda a: (a @ a.T + Ep.astensor(3 * np.eye(3))).cholesky(), [(3, 3)], ["any"]),
    "qr": (lambda a: Ep.concatenate([p.flatten() for p in a.qr()]), [(4, 3)], ["any"]),
    "qr-wide": (lambda a: Ep.concatenate([p.flatten() for p in a.qr()]), [(3, 4)], ["any"]),
    "svd": (lambda a: _svd_invariants(a.svd()), [(4, 3)], ["any"]),
    "svd-wide": (lambda a: _svd_invariants(a.svd()), [(3, 4)], ["any"]),
    "eigh": (lambda a: _eigh_invariants((a + a.T).eigh()), [(3, 3)], ["any"]),
    "lstsq": (lambda a, b: a.lstsq(b), [(4, 3), (4, 2)], ["any", "any"]),
    "lstsq-wide": (lambda a, b: a.lstsq(b), [(3, 4), (3,)], ["any", "any"]),
    "matrix_power": (lambda a: (a + Ep.astensor(4 * np.eye(3))).matrix_power(-3), [(3, 3)], ["any"]),
    "matrix_norm-nuc": (lambda a: a.matrix_norm("nuc"), [(4, 3)], ["any"]),
    "matrix_norm-two": (lambda a: a.matrix_norm("two", keepdims=True), [(2, 4, 3)], ["any"]),
    "dot": (lambda a, b: Ep.dot(a, b), [(4,), (4,)], ["any", "any"]),
    "outer": (lambda a, b: Ep.outer(a, b), [(3,), (4,)], ["any", "any"]),
    "conv2d": (lambda x, w: x.conv2d(w, strides=(2, 1), padding=1, groups=2), [(2, 4, 5, 4), (4, 2, 3, 2)],
               ["any", "any"]),
    "conv2d-nhwc": (lambda x, w: x.conv2d(w, padding=(0, 1), dilation=(1, 2), data_format="nhwc"),
                    [(1, 5, 6, 3), (2, 3, 2, 2)], ["any", "any"]),
    "conv2d_input_grad": (lambda dy, w: Ep.conv2d_input_grad(dy, w, (2, 4, 5, 4), strides=(2, 1), padding=1,
                                                             groups=2), [(2, 4, 3, 5), (4, 2, 3, 2)], ["any", "any"]),
    "conv2d_weight_grad": (lambda x, dy: Ep.conv2d_weight_grad(x, dy, (4, 2, 3, 2), strides=(2, 1), padding=1,
                                                               groups=2), [(2, 4, 5, 4), (2, 4, 3, 5)],
                           ["any", "any"]),
    "contiguous": (lambda a: a.T.contiguous(), [(3, 4)], ["any"]),
    # float32 rounding: a larger step and a looser tolerance
    "astype": (lambda a: a.astype("float32").astype("float64") * a, [(2, 3)], ["any"], 1e-3, 1e-4),
    "stop_gradient": (lambda a: a * a.stop_gradient(), [(2, 3)], ["any"]),
    # fft: complex tensors end in an axis of 2; crops, pads, norms, odd lengths
    "fft": (lambda a: a.fft(), [(2, 5, 2)], ["any"]),
    "fft-pad": (lambda a: a.fft(7, 0, "ortho"), [(4, 3, 2)], ["any"]),
    "ifft-crop": (lambda a: a.ifft(3, -1, "forward"), [(2, 5, 2)], ["any"]),
    "rfft": (lambda a: a.rfft(), [(2, 6)], ["any"]),
    "rfft-odd": (lambda a: a.rfft(7, 0, "ortho"), [(5, 2)], ["any"]),
    "irfft": (lambda a: a.irfft(), [(2, 4, 2)], ["any"]),
    "irfft-odd": (lambda a: a.irfft(5, 0, "forward"), [(4, 2, 2)], ["any"]),
    "fft2": (lambda a: a.fft2(), [(3, 4, 2)], ["any"]),
    "rfft2": (lambda a: a.rfft2(), [(3, 4)], ["any"]),
    "irfft2": (lambda a: a.irfft2(None, None, "ortho"), [(2, 3, 3, 2)], ["any"]),
    # issue 17 (ops): einsum, a composite of transposes, reshapes, slices, sums and matmuls
    "einsum-bilinear": (lambda x, a, y: Ep.einsum("bi,bij,bj->b", x, a, y), [(2, 3), (2, 3, 4), (2, 4)],
                        ["any", "any", "any"]),
    "einsum-diagonal": (lambda a: Ep.einsum("iij->ji", a), [(3, 3, 2)], ["any"]),
    "einsum-ellipsis": (lambda a, b: Ep.einsum("...ij,...jk", a, b), [(2, 2, 3), (3, 2)], ["any", "any"]),
    "roll-axes": (lambda a: a.roll((1, -4), axis=(0, 1)), [(2, 3)], ["any"]),
    "repeat-counts": (lambda a: a.repeat([2, 0, 1], axis=1), [(2, 3)], ["any"]),
    # issue 18: the collectives in one process, where each is a copy
    # (tests/python/test_distributed.py checks the rules under mpirun)
    "all_reduce": (lambda a: Ep.Communicator.get_world().all_reduce(a, "sum"), [(2, 3)], ["any"]),
    "all_reduce-max": (lambda a: Ep.Communicator.get_world().all_reduce(a, "max"), [(4,)], ["any"]),
    "broadcast": (lambda a: Ep.Communicator.get_world().broadcast(a, 0), [(3, 2)], ["any"]),
    "all_gather": (lambda a: Ep.Communicator.get_world().all_gather(a), [(2, 3)], ["any"]),
    "reduce_scatter": (lambda a: Ep.Communicator.get_world().reduce_scatter(a, "mean"), [(4, 2)], ["any"]),
}

def _svd_invariants(usv):
    u, s, vh = usv
    return Ep.concatenate([(u @ vh).flatten(), (u.abs() * s).flatten(), vh.abs().flatten()])


def _eigh_invariants(wv):
    w, v = wv
    return v.abs() * w


def weighted_sum(f, arrays, weight):
    out = f(*[Ep.astensor(a) for a in arrays]).numpy()
    return float(np.sum(weight * out))


def staged(f, rng, shapes, domains):
    """An Ep.function of f, traced now on other inputs: calls replay it."""
    function = Ep.function(f)
    function(*[Ep.astensor(domain(rng, s, d)) for s, d in zip(shapes, domains)])
    return function


def taped_gradients(f, inputs, weight):
    with Ep.GradientTape() as tape:
        tape.watch(inputs)
        out = f(*inputs)
    return tape.gradient(out, inputs, output_gradients=weight)


MODES = ["eager", "staged", "staged-gradient"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(CASES))
def test_first_derivative(rng, name, mode):
    f, shapes, domains, *precision = CASES[name]
    h, tolerance = precision or (H, 1e-6)
    arrays = [domain(rng, s, d) for s, d in zip(shapes, domains)]
    inputs = [Ep.astensor(a) for a in arrays]
    out_shape = f(*inputs).shape
    weight = Ep.astensor(rng.uniform(-2.0, 2.0, out_shape))
    if mode == "eager":
        grads = taped_gradients(f, inputs, weight)
    elif mode == "staged":
        f = staged(f, rng, shapes, domains)
        grads = taped_gradients(f, inputs, weight)
    else:
        gradients = Ep.function(lambda xs, w: taped_gradients(f, list(xs), w))
        other = [Ep.astensor(domain(rng, s, d)) for s, d in zip(shapes, domains)]
        other_shape = f(*other).shape
        gradients(other, Ep.astensor(rng.uniform(-2.0, 2.0, other_shape)))
        grads = gradients(inputs, weight)
        # (the size of a mask's result depends on the values: another trace)
        assert gradients.trace_count == (1 if other_shape == out_shape else 2)
    weight = weight.numpy()

    for i, (array, grad) in enumerate(zip(arrays, grads)):
        assert grad.shape == array.shape
        assert grad.dtype == Ep.DType.FLOAT64
        numeric = np.zeros_like(array)
        for k in np.ndindex(array.shape):
            saved = array[k]
            array[k] = saved + h
            plus = weighted_sum(f, arrays, weight)
            array[k] = saved - h
            minus = weighted_sum(f, arrays, weight)
            array[k] = saved
            numeric[k] = (plus - minus) / (2 * h)
        if name == "stop_gradient":  # only the direct path: d(x * c)/dx = c
            numeric = weight * array
        np.testing.assert_allclose(grad.numpy(), numeric, rtol=tolerance, atol=tolerance,
                                   err_msg=f"{name}: input {i}")
    if mode == "staged":
        assert f.trace_count == 1


ELEMENTWISE = {
    "add": (lambda a, b: a + b, ["any", "any"]),
    "sub": (lambda a, b: a - b, ["any", "any"]),
    "mul": (lambda a, b: a * b, ["any", "any"]),
    "div": (lambda a, b: a / b, ["any", "nonzero"]),
    "pow": (lambda a, b: a ** b, ["positive", "any"]),
    "neg": (lambda a: -a, ["any"]),
    "abs": (lambda a: abs(a), ["nonzero"]),
    "square": (lambda a: a.square(), ["any"]),
    "sqrt": (lambda a: a.sqrt(), ["positive"]),
    "exp": (lambda a: a.exp(), ["any"]),
    "log": (lambda a: a.log(), ["positive"]),
    "tanh": (lambda a: a.tanh(), ["any"]),
    "sigmoid": (lambda a: a.sigmoid(), ["any"]),
    "relu": (lambda a: a.relu(), ["nonzero"]),
    "minimum": (lambda a, b: Ep.minimum(a, b), ["any", "any"]),
    "maximum": (lambda a, b: Ep.maximum(a, b), ["any", "any"]),
    "clip": (lambda a: a.clip(-1.0, 1.0), ["any"]),
    "expm1": (lambda a: a.expm1(), ["any"]),
    "log1p": (lambda a: a.log1p(), ["positive"]),
    "log2": (lambda a: a.log2(), ["positive"]),
    "log10": (lambda a: a.log10(), ["positive"]),
    "sin": (lambda a: a.sin(), ["any"]),
    "cos": (lambda a: a.cos(), ["any"]),
    "tan": (lambda a: a.tan(), ["unit"]),
    "sinh": (lambda a: a.sinh(), ["any"]),
    "cosh": (lambda a: a.cosh(), ["any"]),
    "arcsin": (lambda a: a.arcsin(), ["unit"]),
    "arccos": (lambda a: a.arccos(), ["unit"]),
    "arctan": (lambda a: a.arctan(), ["any"]),
    "arcsinh": (lambda a: a.arcsinh(), ["any"]),
    "arccosh": (lambda a: a.arccosh(), ["above_one"]),
    "arctanh": (lambda a: a.arctanh(), ["unit"]),
    "softplus": (lambda a: a.softplus(), ["any"]),
    "erf": (lambda a: a.erf(), ["any"]),
    "erfc": (lambda a: a.erfc(), ["any"]),
    "gelu": (lambda a: a.gelu(), ["any"]),
    "gelu-tanh": (lambda a: a.gelu(approximate="tanh"), ["any"]),
    "floordiv": (lambda a, b: a // b, ["any", "nonzero"]),
    "mod": (lambda a, b: a % b, ["any", "nonzero"]),
}


def first_derivatives(f, inputs):
    with Ep.GradientTape() as tape:
        tape.watch(inputs)
        out = f(*inputs)
    return tape.gradient(out, inputs)


@pytest.mark.parametrize("mode", MODES[:2])
@pytest.mark.parametrize("name", list(ELEMENTWISE))
def test_second_derivative(rng, name, mode):
    f, domains = ELEMENTWISE[name]
    if mode == "staged":
        f = staged(f, rng, [(5,)] * len(domains), domains)
    arrays = [domain(rng, (5,), d) for d in domains]
    weights = [rng.uniform(-2.0, 2.0, 5) for _ in domains]
    inputs = [Ep.astensor(a) for a in arrays]
    with Ep.GradientTape() as outer:
        outer.watch(inputs)
        first = first_derivatives(f, inputs)
    second = outer.gradient(first, inputs, output_gradients=[Ep.astensor(w) for w in weights])

    h = 1e-5
    for j, array in enumerate(arrays):
        numeric = np.zeros(5)
        for k in range(5):
            totals = []
            for step in (h, -h):
                moved = [a.copy() for a in arrays]
                moved[j][k] += step
                grads = first_derivatives(f, [Ep.astensor(a) for a in moved])
                totals.append(sum(float(np.sum(w * g.numpy())) for w, g in zip(weights, grads)))
            numeric[k] = (totals[0] - totals[1]) / (2 * h)
        np.testing.assert_allclose(second[j].numpy(), numeric, rtol=1e-5, atol=1e-5,
                                   err_msg=f"d2 {name}: input {j}")
    if mode == "staged":
        assert f.trace_count == 1
