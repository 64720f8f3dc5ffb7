"""The layers Conv2d, MaxPool2d, AvgPool2d, BatchNorm, LayerNorm, Dropout,
Embedding, Gelu and Flatten against torch.nn on the same weights (outputs,
gradients, BatchNorm's running statistics over training steps), their
initialization, their construction and call errors, and a CNN with batch
normalisation staged by Ep.function. Module itself: test_module.py."""

import numpy as np
import pytest
from conftest import Ep, assert_ep_error

torch = pytest.importorskip("torch")


def values(t):
    return np.asarray(t)


def copy_to_torch(ours, theirs):
    """theirs' parameters and buffers (by name) from ours' variables."""
    with torch.no_grad():
        for name, tensor in list(theirs.named_parameters()) + list(theirs.named_buffers()):
            tensor.copy_(torch.tensor(values(ours.get_variable(name))))


def randomize(module, rng):
    """New random values for every trainable variable (ones and zeros test little)."""
    for variable in module.trainable_variables:
        shape = tuple(variable.get_shape())
        variable.assign(rng.standard_normal(shape).astype(values(variable.read()).dtype))


def ours_and_torch_gradients(ours, theirs, x, rng):
    """The output, the input's gradient and the trainable variables' of
    sum(output * weights) for random weights, ours and torch's (each
    module called once)."""
    variables = ours.trainable_variables
    xt = Ep.astensor(x)
    with Ep.GradientTape() as tape:
        tape.watch(xt)
        y = ours(xt)
        weights = rng.standard_normal(tuple(y.shape))
        loss = (y * weights).sum()
    grads = tape.gradient(loss, [xt] + variables)
    theirs.zero_grad()
    x_t = torch.tensor(x, requires_grad=True)
    y_t = theirs(x_t)
    (y_t * torch.tensor(weights)).sum().backward()
    torch_grads = [x_t.grad] + [p.grad for _, p in theirs.named_parameters()]
    return (values(y), [values(g) for g in grads]), (y_t.detach().numpy(),
                                                     [g.numpy() for g in torch_grads])


def assert_matches_torch(ours, theirs, x, rng, rtol=1e-10, atol=1e-12):
    ours_names = [n for n, _ in ours.named_trainable_variables()]
    assert ours_names == [n for n, _ in theirs.named_parameters()]
    (y, grads), (y_t, grads_t) = ours_and_torch_gradients(ours, theirs, x, rng)
    np.testing.assert_allclose(y, y_t, rtol=rtol, atol=atol)
    assert len(grads) == len(grads_t)
    for g, g_t in zip(grads, grads_t):
        np.testing.assert_allclose(g, g_t, rtol=rtol, atol=atol)


def nhwc(x):
    return np.ascontiguousarray(x.transpose(0, 2, 3, 1))


# Conv2d

@pytest.mark.parametrize("kwargs", [
    {},
    {"stride": 2, "padding": 1},
    {"stride": (1, 2), "padding": (2, 0), "dilation": (2, 1)},
    {"groups": 2, "padding": 1},
    {"bias": False, "dilation": 2},
], ids=["plain", "stride-padding", "pairs", "groups", "no-bias-dilated"])
def test_conv2d_matches_torch(rng, kwargs):
    ours = Ep.Conv2d(4, 6, (3, 2), dtype="float64", **kwargs)
    theirs = torch.nn.Conv2d(4, 6, (3, 2), **kwargs).double()
    copy_to_torch(ours, theirs)
    x = rng.standard_normal((2, 4, 7, 8))
    assert_matches_torch(ours, theirs, x, rng)


def test_conv2d_nhwc_is_nchw_transposed(rng):
    Ep.set_seed(5)
    first = Ep.Conv2d(3, 5, 3, padding=1, dtype="float64")
    Ep.set_seed(5)
    channels_last = Ep.Conv2d(3, 5, 3, padding=1, data_format="nhwc", dtype="float64")
    x = rng.standard_normal((2, 3, 6, 5))
    np.testing.assert_allclose(values(channels_last(nhwc(x))), nhwc(values(first(x))), rtol=1e-12)
    assert channels_last.props.data_format == Ep.DataFormat.NHWC


def test_conv2d_initialized_as_torch_draws():
    Ep.set_seed(11)
    a = Ep.Conv2d(8, 64, 5, groups=2)
    Ep.set_seed(11)
    b = Ep.Conv2d(8, 64, 5, groups=2)
    weight, bias = values(a.get_weight()), values(a.get_bias())
    bound = 1 / np.sqrt(8 // 2 * 5 * 5)
    assert weight.shape == (64, 4, 5, 5) and weight.dtype == np.float32
    assert bias.shape == (64,)
    np.testing.assert_array_equal(weight, values(b.get_weight()))
    # U(-bound, bound): within it, close to it, variance bound² / 3
    assert np.abs(weight).max() <= bound and np.abs(weight).max() > 0.99 * bound
    assert np.abs(bias).max() <= bound
    np.testing.assert_allclose(weight.var(), bound ** 2 / 3, rtol=0.05)


@pytest.mark.parametrize("args,kwargs,code", [
    ((0, 4, 3), {}, Ep.Error.SHAPE),
    ((3, -1, 3), {}, Ep.Error.SHAPE),
    ((3, 4, (3, 0)), {}, Ep.Error.SHAPE),
    ((3, 4, 3), {"stride": 0}, Ep.Error.INVALID_ARGUMENT),
    ((3, 4, 3), {"padding": -1}, Ep.Error.INVALID_ARGUMENT),
    ((3, 4, 3), {"dilation": (1, 0)}, Ep.Error.INVALID_ARGUMENT),
    ((3, 4, 3), {"groups": 2}, Ep.Error.INVALID_ARGUMENT),
    ((4, 4, 3), {"groups": 0}, Ep.Error.INVALID_ARGUMENT),
    ((3, 4, 3), {"dtype": "int64"}, Ep.Error.DTYPE),
    ((1 << 20, 1 << 20, 1 << 10), {}, Ep.Error.OUT_OF_MEMORY),
])
def test_conv2d_bad_construction(args, kwargs, code):
    message = assert_ep_error(code, Ep.Conv2d, *args, **kwargs) if not kwargs else \
        assert_ep_error(code, lambda: Ep.Conv2d(*args, **kwargs))
    assert message.startswith("Conv2d: ")


def test_conv2d_bad_inputs():
    conv = Ep.Conv2d(3, 4, 3)
    message = assert_ep_error(Ep.Error.SHAPE, conv, np.zeros((2, 3, 5), np.float32))
    assert message == "Conv2d: takes images of shape (N, 3, H, W), not (2, 3, 5)"
    message = assert_ep_error(Ep.Error.SHAPE, Ep.Conv2d(3, 4, 3, data_format="nhwc"),
                              np.zeros((1, 3, 5, 5), np.float32))
    assert message == "Conv2d: takes images of shape (N, H, W, 3), not (1, 3, 5, 5)"
    # an image smaller than the kernel: the op's error, named after the layer
    message = assert_ep_error(Ep.Error.SHAPE, conv, np.zeros((1, 3, 2, 2), np.float32))
    assert message.startswith("Conv2d: ")
    with pytest.raises(ValueError):
        Ep.Conv2d(3, 4, (3, 3, 3))
    with pytest.raises(ValueError):
        Ep.Conv2d(3, 4, 3, data_format="chw")


# pooling

@pytest.mark.parametrize("kwargs", [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": (3, 2), "stride": (1, 2), "dilation": (1, 2), "ceil_mode": True},
], ids=["plain", "padding", "pairs-ceil"])
def test_max_pool2d_matches_torch(rng, kwargs):
    x = rng.standard_normal((2, 3, 7, 8))
    assert_matches_torch(Ep.MaxPool2d(**kwargs), torch.nn.MaxPool2d(**kwargs), x, rng)
    channels_last = Ep.MaxPool2d(**kwargs, data_format="nhwc")
    np.testing.assert_array_equal(values(channels_last(nhwc(x))),
                                  nhwc(torch.nn.MaxPool2d(**kwargs)(torch.tensor(x)).numpy()))


@pytest.mark.parametrize("kwargs", [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False, "ceil_mode": True},
], ids=["plain", "padding", "exclude-pad-ceil"])
def test_avg_pool2d_matches_torch(rng, kwargs):
    x = rng.standard_normal((2, 3, 7, 8))
    assert_matches_torch(Ep.AvgPool2d(**kwargs), torch.nn.AvgPool2d(**kwargs), x, rng)
    channels_last = Ep.AvgPool2d(**kwargs, data_format="nhwc")
    np.testing.assert_allclose(values(channels_last(nhwc(x))),
                               nhwc(torch.nn.AvgPool2d(**kwargs)(torch.tensor(x)).numpy()), rtol=1e-12)


def test_pooling_stride_defaults_to_the_kernel():
    assert Ep.MaxPool2d((3, 2)).props.stride_height == 3
    assert Ep.AvgPool2d((3, 2)).props.stride_width == 2
    assert Ep.MaxPool2d(2, stride=1).props.stride_height == 1


@pytest.mark.parametrize("layer", [Ep.MaxPool2d, Ep.AvgPool2d])
@pytest.mark.parametrize("kwargs", [
    {"kernel_size": 0}, {"kernel_size": 2, "stride": -1}, {"kernel_size": 2, "padding": 2},
    {"kernel_size": 3, "padding": -1},
])
def test_pooling_bad_construction(layer, kwargs):
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, lambda: layer(**kwargs))
    assert message.startswith(layer.__name__ + ": ")


def test_pooling_bad_inputs():
    message = assert_ep_error(Ep.Error.SHAPE, Ep.MaxPool2d(2), np.zeros((3, 4, 4), np.float32))
    assert message == "MaxPool2d: takes images of shape (N, C, H, W), not (3, 4, 4)"
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, lambda: Ep.MaxPool2d(2, dilation=0))
    assert message.startswith("MaxPool2d: ")
    message = assert_ep_error(Ep.Error.DTYPE, Ep.AvgPool2d(2), np.zeros((1, 1, 4, 4), np.int32))
    assert message.startswith("AvgPool2d: ")


# BatchNorm

def batch_norm_pair(num_features, images, rng, **kwargs):
    ours = Ep.BatchNorm(num_features, dtype="float64", **kwargs)
    torch_kwargs = {k: v for k, v in kwargs.items() if k != "data_format"}
    kind = torch.nn.BatchNorm2d if images else torch.nn.BatchNorm1d
    theirs = kind(num_features, **torch_kwargs).double()
    randomize(ours, rng)
    copy_to_torch(ours, theirs)
    return ours, theirs


def assert_same_state(ours, theirs):
    for name, buffer in theirs.named_buffers():
        variable = ours.get_variable(name)
        assert values(variable).dtype == buffer.numpy().dtype, name
        np.testing.assert_allclose(values(variable), buffer.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("images", [False, True], ids=["vectors", "images"])
def test_batch_norm_trains_and_evaluates_as_torch(rng, images):
    ours, theirs = batch_norm_pair(3, images, rng, momentum=0.2)
    shape = (6, 3, 4, 5) if images else (8, 3)
    for _ in range(4):
        x = rng.standard_normal(shape) * 3 + 1
        assert_matches_torch(ours, theirs, x, rng)
        assert_same_state(ours, theirs)
    assert values(ours.num_batches_tracked) == 4
    ours.eval()
    theirs.eval()
    x = rng.standard_normal(shape)
    assert_matches_torch(ours, theirs, x, rng)
    assert_same_state(ours, theirs)   # evaluation leaves them


def test_batch_norm_variables_as_torch():
    bn = Ep.BatchNorm(4)
    assert [n for n, _ in bn.named_variables()] == [
        "weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert [n for n, _ in bn.named_trainable_variables()] == ["weight", "bias"]
    assert values(bn.num_batches_tracked).dtype == np.int64
    np.testing.assert_array_equal(values(bn.running_var), np.ones(4, np.float32))
    bare = Ep.BatchNorm(4, affine=False, track_running_stats=False)
    assert bare.variables == []
    assert bn.get_running_mean() is bn.running_mean


def test_batch_norm_nhwc_and_options(rng):
    x = rng.standard_normal((4, 3, 5, 5))
    for kwargs in [{"affine": False}, {"track_running_stats": False}, {"eps": 1e-2}]:
        ours, theirs = batch_norm_pair(3, True, rng, **kwargs)
        assert_matches_torch(ours, theirs, x, rng)
        assert_same_state(ours, theirs)
        ours.eval()
        theirs.eval()
        assert_matches_torch(ours, theirs, x, rng)
    ours, theirs = batch_norm_pair(3, True, rng, data_format="nhwc")
    np.testing.assert_allclose(values(ours(nhwc(x))), nhwc(theirs(torch.tensor(x)).detach().numpy()),
                               rtol=1e-10, atol=1e-12)
    assert_same_state(ours, theirs)


def test_batch_norm_updates_are_not_on_the_tape(rng):
    bn = Ep.BatchNorm(2, dtype="float64")
    x = Ep.astensor(rng.standard_normal((5, 2)))
    weights = rng.standard_normal((5, 2))
    with Ep.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = (bn(x) * weights).sum()
        running = bn.running_mean.read().sum() + bn.running_var.read().sum()
    # no path from the input to the running statistics: a zero gradient
    np.testing.assert_array_equal(values(tape.gradient(running, x)), np.zeros((5, 2)))
    assert np.abs(values(tape.gradient(y, x))).max() > 0
    assert not np.allclose(values(running), 0)


def test_batch_norm_bad_construction_and_inputs():
    for args, kwargs, code in [((0,), {}, Ep.Error.SHAPE), ((2,), {"eps": -1.0}, Ep.Error.INVALID_ARGUMENT),
                               ((2,), {"eps": float("inf")}, Ep.Error.INVALID_ARGUMENT),
                               ((2,), {"momentum": 1.5}, Ep.Error.INVALID_ARGUMENT),
                               ((2,), {"dtype": "int32"}, Ep.Error.DTYPE)]:
        message = assert_ep_error(code, lambda: Ep.BatchNorm(*args, **kwargs))
        assert message.startswith("BatchNorm: ")
    bn = Ep.BatchNorm(3)
    message = assert_ep_error(Ep.Error.SHAPE, bn, np.zeros((2, 4), np.float32))
    assert "3 channels" in message and "(2, 4)" in message
    assert_ep_error(Ep.Error.SHAPE, bn, np.zeros((2, 3, 4), np.float32))
    assert_ep_error(Ep.Error.SHAPE, Ep.BatchNorm(3, data_format="nhwc"), np.zeros((2, 3, 4, 4), np.float32))
    message = assert_ep_error(Ep.Error.SHAPE, bn, np.zeros((1, 3), np.float32))
    assert "more than one value per channel" in message
    assert values(bn.num_batches_tracked) == 0
    bn.eval()
    assert values(bn(np.zeros((1, 3), np.float32))).shape == (1, 3)


# LayerNorm

@pytest.mark.parametrize("normalized_shape,kwargs", [
    (6, {}), ((4, 6), {}), (6, {"elementwise_affine": False, "eps": 1e-3}),
])
def test_layer_norm_matches_torch(rng, normalized_shape, kwargs):
    ours = Ep.LayerNorm(normalized_shape, dtype="float64", **kwargs)
    theirs = torch.nn.LayerNorm(normalized_shape, **kwargs).double()
    randomize(ours, rng)
    copy_to_torch(ours, theirs)
    assert_matches_torch(ours, theirs, rng.standard_normal((3, 4, 6)), rng)


def test_layer_norm_errors():
    for shape in [[], [0], [2, -1], [1] * 9]:
        assert_ep_error(Ep.Error.SHAPE, lambda: Ep.LayerNorm(shape))
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, lambda: Ep.LayerNorm(3, eps=float("inf")))
    message = assert_ep_error(Ep.Error.SHAPE, Ep.LayerNorm((2, 3)), np.zeros((3, 2), np.float32))
    assert message == "LayerNorm: takes inputs whose last dimensions are (2, 3), not (3, 2)"
    assert Ep.LayerNorm((2, 3)).normalized_shape == (2, 3)


# Dropout, Embedding, Gelu, Flatten

def test_dropout_trains_and_evaluates():
    layer = Ep.Dropout(0.25)
    x = np.ones((100, 100), np.float32)
    Ep.set_seed(4)
    y = values(layer(x))
    Ep.set_seed(4)
    np.testing.assert_array_equal(values(layer(x)), y)
    assert set(np.unique(y)) == {0, np.float32(1 / 0.75)}
    assert abs((y == 0).mean() - 0.25) < 0.02
    assert not np.array_equal(values(layer(x)), y)   # a new mask at each call
    layer.eval()
    np.testing.assert_array_equal(values(layer(x)), x)
    np.testing.assert_array_equal(values(Ep.Dropout(0.0)(x)), x)
    for p in [-0.1, 1.5, float("inf")]:
        assert_ep_error(Ep.Error.INVALID_ARGUMENT, lambda: Ep.Dropout(p))
    with pytest.raises(ValueError, match="nan"):
        Ep.Dropout(float("nan"))
    assert Ep.Dropout().get_rate() == 0.5


def test_dropout_gradient_uses_the_mask():
    x = Ep.astensor(np.ones(1000))
    with Ep.GradientTape() as tape:
        tape.watch(x)
        y = Ep.Dropout(0.5)(x)
        total = y.sum()
    np.testing.assert_array_equal(values(tape.gradient(total, x)), values(y))


def test_embedding_matches_torch(rng):
    ours = Ep.Embedding(10, 4, dtype="float64")
    theirs = torch.nn.Embedding(10, 4).double()
    copy_to_torch(ours, theirs)
    indices = np.array([[1, 2, 2], [9, 0, 1]], np.int64)
    weights = rng.standard_normal((2, 3, 4))
    with Ep.GradientTape() as tape:
        loss = (ours(indices) * weights).sum()
    grad = tape.gradient(loss, ours.get_weight())
    y_t = theirs(torch.tensor(indices))
    (y_t * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(values(ours(indices)), y_t.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(values(grad), theirs.weight.grad.numpy(), rtol=1e-12)


def test_embedding_initialized_from_a_standard_normal():
    Ep.set_seed(2)
    weight = values(Ep.Embedding(1000, 50).weight)
    Ep.set_seed(2)
    np.testing.assert_array_equal(values(Ep.Embedding(1000, 50).weight), weight)
    assert abs(weight.mean()) < 0.01 and abs(weight.std() - 1) < 0.01


def test_embedding_errors():
    assert_ep_error(Ep.Error.SHAPE, lambda: Ep.Embedding(-1, 2))
    assert_ep_error(Ep.Error.DTYPE, lambda: Ep.Embedding(2, 2, dtype="bool"))
    message = assert_ep_error(Ep.Error.INDEX, Ep.Embedding(3, 2), np.array([3], np.int64))
    assert message.startswith("Embedding: ")
    message = assert_ep_error(Ep.Error.DTYPE, Ep.Embedding(3, 2), np.array([0.5], np.float32))
    assert message.startswith("Embedding: ")


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_matches_torch(rng, approximate):
    x = rng.standard_normal((4, 5))
    assert_matches_torch(Ep.Gelu(approximate), torch.nn.GELU(approximate), x, rng)
    assert Ep.Gelu(approximate).props.approximate.value_nick == approximate


def test_flatten_as_torch(rng):
    x = rng.standard_normal((2, 3, 4, 5))
    np.testing.assert_array_equal(values(Ep.Flatten()(x)), torch.nn.Flatten()(torch.tensor(x)).numpy())
    assert values(Ep.Flatten()(np.zeros((3, 2)))).shape == (3, 2)
    message = assert_ep_error(Ep.Error.AXIS, Ep.Flatten(), np.zeros(3))
    assert message.startswith("Flatten: ")


# a CNN, trained against torch and staged

def cnn(batch_norm=False, dtype="float32"):
    Ep.set_seed(9)
    norm = [Ep.BatchNorm(8, dtype=dtype)] if batch_norm else []
    return Ep.Sequential(Ep.Conv2d(1, 8, 3, padding=1, dtype=dtype), *norm, Ep.Relu(), Ep.MaxPool2d(2),
                         Ep.Conv2d(8, 16, 3, padding=1, dtype=dtype), Ep.Relu(), Ep.AvgPool2d(2),
                         Ep.Flatten(), Ep.Dropout(0.0), Ep.Linear(64, 10, dtype=dtype))


def torch_cnn():
    return torch.nn.Sequential(torch.nn.Conv2d(1, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                               torch.nn.MaxPool2d(2), torch.nn.Conv2d(8, 16, 3, padding=1), torch.nn.ReLU(),
                               torch.nn.AvgPool2d(2), torch.nn.Flatten(), torch.nn.Dropout(0.0),
                               torch.nn.Linear(64, 10)).double()


def test_the_issues_cnn_runs():
    model = Ep.Sequential(Ep.Conv2d(1, 16, 3, padding=1), Ep.Relu(), Ep.MaxPool2d(2),
                          Ep.Conv2d(16, 32, 3, padding=1), Ep.Relu(), Ep.MaxPool2d(2),
                          Ep.Flatten(), Ep.Linear(128, 10))
    assert values(model(np.zeros((5, 1, 8, 8), np.float32))).shape == (5, 10)
    assert len(model.trainable_variables) == 6


def test_cnn_with_batch_norm_trains_as_torch(rng):
    ours = cnn(batch_norm=True, dtype="float64")
    theirs = torch_cnn()
    copy_to_torch(ours, theirs)
    opt = Ep.Sgd(learning_rate=0.1, momentum=0.9)
    torch_opt = torch.optim.SGD(theirs.parameters(), lr=0.1, momentum=0.9)
    x = rng.standard_normal((16, 1, 8, 8))
    labels = rng.integers(0, 10, 16)
    one_hot = np.eye(10)[labels]
    variables = ours.trainable_variables
    losses, torch_losses = [], []
    for _ in range(5):
        with Ep.GradientTape() as tape:
            loss = -(ours(x).log_softmax(axis=-1) * one_hot).sum() / 16
        opt.apply_gradients(tape.gradient(loss, variables), variables)
        torch_opt.zero_grad()
        torch_loss = torch.nn.functional.cross_entropy(theirs(torch.tensor(x)), torch.tensor(labels))
        torch_loss.backward()
        torch_opt.step()
        losses.append(float(values(loss)))
        torch_losses.append(torch_loss.item())
    np.testing.assert_allclose(losses, torch_losses, rtol=1e-9)
    assert losses[-1] < losses[0]
    assert_same_state(ours, theirs)
    ours.eval()
    theirs.eval()
    np.testing.assert_allclose(values(ours(x)), theirs(torch.tensor(x)).detach().numpy(), rtol=1e-9, atol=1e-12)


def test_staged_cnn_with_batch_norm_equals_eager(rng):
    eager = cnn(batch_norm=True)
    staged_model = cnn(batch_norm=True)
    forward = Ep.function(lambda x: staged_model(x))
    for step in range(3):
        x = rng.standard_normal((4, 1, 8, 8)).astype(np.float32)
        np.testing.assert_allclose(values(forward(x)), values(eager(x)), rtol=1e-5, atol=1e-6)
        for (name, a), (_, b) in zip(eager.named_variables(), staged_model.named_variables()):
            np.testing.assert_allclose(values(b), values(a), rtol=1e-5, atol=1e-6, err_msg=name)
    assert values(staged_model.get_variable("1.num_batches_tracked")) == 3
    assert forward.trace_count == 1
    # evaluation: a new trace (the flag is read while tracing), the running statistics kept
    staged_model.eval()
    eager.eval()
    evaluate = Ep.function(lambda x: staged_model(x))
    np.testing.assert_allclose(values(evaluate(x)), values(eager(x)), rtol=1e-5, atol=1e-6)
    assert values(staged_model.get_variable("1.num_batches_tracked")) == 3


def test_a_staged_function_follows_its_modules_training_flag(rng):
    model, eager = cnn(batch_norm=True), cnn(batch_norm=True)
    forward = Ep.function(lambda m, x: m(x))
    x = rng.standard_normal((4, 1, 8, 8)).astype(np.float32)
    np.testing.assert_allclose(values(forward(model, x)), values(eager(x)), rtol=1e-5, atol=1e-6)
    model.eval()
    eager.eval()
    np.testing.assert_allclose(values(forward(model, x)), values(eager(x)), rtol=1e-5, atol=1e-6)
    assert values(model.get_variable("1.num_batches_tracked")) == 1
    model.train()
    forward(model, x)
    assert values(model.get_variable("1.num_batches_tracked")) == 2
    assert forward.trace_count == 2      # one graph for training, one for evaluation


def test_staged_training_step_with_batch_norm(rng):
    eager = cnn(batch_norm=True)
    staged_model = cnn(batch_norm=True)
    x = rng.standard_normal((4, 1, 8, 8)).astype(np.float32)

    def step(model):
        variables = model.trainable_variables
        with Ep.GradientTape() as tape:
            loss = model(x).square().mean()
        return loss, tape.gradient(loss, variables)

    staged_step = Ep.function(lambda: step(staged_model))
    for _ in range(2):
        loss, grads = step(eager)
        staged_loss, staged_grads = staged_step()
        np.testing.assert_allclose(values(staged_loss), values(loss), rtol=1e-5)
        for g, s in zip(grads, staged_grads):
            np.testing.assert_allclose(values(s), values(g), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(values(staged_model.get_variable("1.running_var")),
                               values(eager.get_variable("1.running_var")), rtol=1e-5)


def test_layers_repr():
    assert repr(Ep.Conv2d(1, 2, 3, stride=(1, 2))) == (
        "Conv2d(1, 2, kernel=3, stride=(1, 2), padding=0, dilation=1, groups=1, bias=True, "
        "data_format='nchw')")
    assert repr(Ep.Dropout(0.1)) == "Dropout(p=0.1)"
    assert repr(Ep.Flatten()) == "Flatten()"


def test_checkpoint_restores_a_cnn_with_its_running_statistics(rng, tmp_path):
    from gi.repository import Gio
    trained = cnn(batch_norm=True)
    for _ in range(3):
        trained(rng.standard_normal((4, 1, 8, 8)).astype(np.float32))
    names, variables = zip(*trained.named_variables())
    assert "1.num_batches_tracked" in names and "1.running_var" in names
    file = Gio.File.new_for_path(str(tmp_path / "cnn.safetensors"))
    Ep.checkpoint_save(list(names), list(variables), file, None)
    Ep.set_seed(123)
    fresh = cnn(batch_norm=True)
    fresh_names, fresh_variables = zip(*fresh.named_variables())
    assert fresh_names == names
    Ep.checkpoint_restore(list(fresh_names), list(fresh_variables), file, Ep.CheckpointFlags.NONE, None)
    for name, a, b in zip(names, variables, fresh_variables):
        np.testing.assert_array_equal(values(b), values(a), err_msg=name)
    assert values(fresh.get_variable("1.num_batches_tracked")) == 3
    trained.eval()
    fresh.eval()
    x = rng.standard_normal((2, 1, 8, 8)).astype(np.float32)
    np.testing.assert_array_equal(values(fresh(x)), values(trained(x)))


def test_a_staged_function_keeps_the_mode_it_was_traced_in(rng):
    # the training flag is read while tracing: a function traced in
    # training keeps normalising with the batch's statistics
    model = cnn(batch_norm=True)
    forward = Ep.function(lambda x: model(x))
    x = rng.standard_normal((4, 1, 8, 8)).astype(np.float32)
    forward(x)
    model.eval()
    forward(x)
    assert values(model.get_variable("1.num_batches_tracked")) == 2
