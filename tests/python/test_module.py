"""Ep.Module and the layers from Python: registration by attribute, paths
and order, Python subclasses (do_call, errors through C), staged calls,
and a small MLP trained with Adam against torch.nn on the same weights
and data. The C side is tests/c/test-module.c."""

import numpy as np
import pytest
from conftest import Ep, GLib, assert_ep_error
from gi.repository import Gio, GObject


class Net(Ep.Module):
    def __init__(self):
        super().__init__()
        self.hidden = Ep.Linear(3, 4)
        self.out = Ep.Linear(4, 2, bias=False)
        self.scale = Ep.Variable(np.float32(2.0), trainable=False)

    def do_call(self, x):
        return self.out(self.hidden(x).relu()) * self.scale


def values(t):
    return np.asarray(t)


# registration and paths

def test_attributes_register_in_order():
    net = Net()
    assert [p for p, _ in net.named_variables()] == ["scale", "hidden.weight", "hidden.bias", "out.weight"]
    assert [p for p, _ in net.named_trainable_variables()] == ["hidden.weight", "hidden.bias", "out.weight"]
    assert net.parameters() == net.trainable_variables
    assert net.trainable_variables[0] is net.hidden.weight
    assert net.variables[0] is net.scale
    assert net.get_variable("hidden.bias") is net.hidden.bias
    assert [n for n, _ in net.named_children()] == ["hidden", "out"]
    assert net.children()[1] is net.out


def test_sequential_names_by_position():
    seq = Ep.Sequential(Ep.Linear(2, 3), Ep.Tanh(), Ep.Linear(3, 1))
    assert len(seq) == 3
    assert isinstance(seq[1], Ep.Tanh)
    assert seq[-1] is seq[2]
    assert [type(m).__name__ for m in seq] == ["Linear", "Tanh", "Linear"]
    assert [p for p, _ in seq.named_variables()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    with pytest.raises(IndexError):
        seq[3]


def test_plain_attributes_stay_python():
    net = Net()
    net.note = "kept"
    assert net.note == "kept"
    assert len(net.variables) == 4
    with pytest.raises(AttributeError):
        net.missing


def test_registered_names_cannot_be_replaced():
    net = Net()
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, setattr, net, "hidden", Ep.Linear(3, 4))
    assert message.startswith("add_module: ") and "“hidden” already" in message
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, setattr, net, "hidden", Ep.Variable(np.zeros(1)))
    with pytest.raises(AttributeError, match="registered"):
        net.hidden = None


@pytest.mark.parametrize("name,fragment", [("", "must not be empty"), ("a.b", "has a dot")])
def test_bad_names(name, fragment):
    module = Ep.Module()
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, module.add_variable, name, Ep.Variable(np.zeros(1)))
    assert fragment in message
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, module.add_module, name, Ep.Relu())
    assert fragment in message


def test_cycles_refused():
    outer = Ep.Sequential(Ep.Relu())
    inner = Ep.Sequential(outer)
    assert_ep_error(Ep.Error.INVALID_ARGUMENT, inner.add_module, "self", inner)
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, outer.append, inner)
    assert message.startswith("append: ")


def test_shared_module_listed_once():
    shared = Ep.Linear(2, 2)
    root = Ep.Module()
    root.a = Ep.Sequential(shared)
    root.b = shared
    assert [p for p, _ in root.named_variables()] == ["a.0.weight", "a.0.bias"]
    assert root.b is shared


def test_train_and_eval_recurse():
    net = Net()
    assert net.training and net.hidden.training
    assert net.eval() is net
    assert not net.training and not net.hidden.training and not net.out.props.training
    net.train()
    assert net.hidden.training
    net.training = False
    assert not net.out.training


def test_repr_shows_the_tree():
    seq = Ep.Sequential(Ep.Linear(2, 3, bias=False), Ep.Relu())
    assert repr(seq) == ("Sequential(\n  0: Linear(in_features=2, out_features=3, bias=False)\n"
                         "  1: Relu()\n)")


# calls

def test_linear_computes_x_wt_plus_b(rng):
    layer = Ep.Linear(3, 2, dtype="float64")
    x = rng.standard_normal((5, 3))
    expected = x @ values(layer.weight).T + values(layer.bias)
    np.testing.assert_allclose(values(layer(x)), expected, rtol=1e-12)
    assert layer(x).dtype == Ep.DType.FLOAT64


def test_linear_shape_errors():
    layer = Ep.Linear(3, 2)
    message = assert_ep_error(Ep.Error.SHAPE, layer, np.zeros((2, 4), np.float32))
    assert message == "Linear: takes inputs of shape (…, 3), not (2, 4)"
    assert_ep_error(Ep.Error.SHAPE, layer, np.float32(1))


@pytest.mark.parametrize("args,kwargs,code", [
    ((-1, 2), {}, Ep.Error.SHAPE),
    ((2, -5), {}, Ep.Error.SHAPE),
    ((2, 2), {"dtype": "int32"}, Ep.Error.DTYPE),
    ((1 << 20, 1 << 20), {}, Ep.Error.OUT_OF_MEMORY),
])
def test_linear_bad_construction(args, kwargs, code):
    message = assert_ep_error(code, lambda: Ep.Linear(*args, **kwargs))
    assert message.startswith("Linear: ")


def test_linear_initialized_as_torch_draws(rng):
    Ep.set_seed(11)
    a = Ep.Linear(300, 40)
    Ep.set_seed(11)
    b = Ep.Linear(300, 40)
    w = values(a.weight)
    np.testing.assert_array_equal(w, values(b.weight))
    np.testing.assert_array_equal(values(a.bias), values(b.bias))
    bound = 1 / np.sqrt(300)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    assert abs(w.var() - bound ** 2 / 3) < 0.05 * bound ** 2 / 3
    assert np.abs(values(a.bias)).max() <= bound


def test_linear_matches_torch_on_the_same_weights(rng):
    torch = pytest.importorskip("torch")
    ours = Ep.Linear(6, 4)
    theirs = torch.nn.Linear(6, 4)
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(values(ours.weight)))
        theirs.bias.copy_(torch.tensor(values(ours.bias)))
    x = rng.standard_normal((7, 2, 6)).astype(np.float32)
    np.testing.assert_allclose(values(ours(x)), theirs(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.on_every_device
def test_linear_lives_on_the_scopes_device(ep_device, rng):
    Ep.set_seed(21)
    layer = Ep.Linear(4, 3)
    with Ep.device("cpu:0"):
        Ep.set_seed(21)
        on_cpu = Ep.Linear(4, 3)
    assert layer.weight.device.get_name() == ep_device.get_name()
    assert layer.bias.device.get_name() == ep_device.get_name()
    # Philox: the same weights on every device
    np.testing.assert_array_equal(values(layer.weight), values(on_cpu.weight))
    x = rng.standard_normal((2, 4)).astype(np.float32)
    y = layer(x)
    assert y.device.get_name() == ep_device.get_name()
    np.testing.assert_allclose(values(y), values(on_cpu(x)), rtol=1e-5, atol=1e-6)


def test_container_has_no_call():
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Ep.Module(), np.zeros(2))
    assert "has no call" in message


def test_bare_objects_give_errors():
    for cls in (Ep.Module, Ep.Linear):
        bare = GObject.new(cls)
        assert_ep_error(Ep.Error.INVALID_ARGUMENT if cls is Ep.Module else Ep.Error.SHAPE, bare, np.zeros((1, 2)))


def test_subclass_returns_variables_and_arrays():
    class Const(Ep.Module):
        def __init__(self, value):
            super().__init__()
            self.value = value

        def do_call(self, x):
            return self.value

    v = Ep.Variable(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(values(Const(v)(np.zeros(2))), [1.0, 2.0])

    class Array(Ep.Module):
        def do_call(self, x):
            return np.asarray(x) + 1

    np.testing.assert_array_equal(values(Array()(np.zeros(2))), [1.0, 1.0])


def test_subclass_returning_the_input_gives_a_new_tensor():
    class Same(Ep.Module):
        def do_call(self, x):
            return x

    x = Ep.astensor([1.0, 2.0])
    y = Same()(x)
    assert y is not x
    np.testing.assert_array_equal(values(y), [1.0, 2.0])


def test_python_exception_comes_out_of_the_call():
    class Broken(Ep.Module):
        def do_call(self, x):
            raise KeyError("the reason")

    with pytest.raises(KeyError, match="the reason"):
        Broken()(np.zeros(2))
    # through a Sequential, whose call is C's
    with pytest.raises(KeyError, match="the reason"):
        Ep.Sequential(Ep.Relu(), Broken())(np.zeros(2))


def test_library_error_in_do_call_is_its_gerror():
    class Mismatch(Ep.Module):
        def do_call(self, x):
            return x + np.zeros(5)

    message = assert_ep_error(Ep.Error.SHAPE, Mismatch(), np.zeros(3))
    assert message.startswith("add: ")


def test_do_call_returning_none_is_an_error():
    class Nothing(Ep.Module):
        def do_call(self, x):
            return None

    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, Nothing(), np.zeros(2))
    assert message == "Nothing.do_call: do_call returned NoneType, not a tensor"


def test_assigning_before_init_is_an_error():
    class Early(Ep.Module):
        def __init__(self):
            self.fc = Ep.Linear(2, 2)
            super().__init__()

    with pytest.raises(RuntimeError, match="not initialized"):
        Early()


# staged calls

def test_staged_sequential_reads_variables(rng):
    seq = Ep.Sequential(Ep.Linear(3, 2), Ep.Tanh())
    step = Ep.function(lambda x: seq(x))
    x = rng.standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_allclose(values(step(x)), values(seq(x)), rtol=1e-6)
    seq[0].bias.assign(np.array([5.0, -5.0], np.float32))
    np.testing.assert_allclose(values(step(x)), values(seq(x)), rtol=1e-6)
    assert step.trace_count == 1


def test_staged_python_subclass(rng):
    net = Net()
    calls = []

    @Ep.function
    def forward(model, x):
        calls.append(1)
        return model(x)

    x = rng.standard_normal((2, 3)).astype(np.float32)
    first = values(forward(net, x))
    net.scale.assign(np.float32(-1.0))
    second = values(forward(net, x))
    assert len(calls) == 1
    np.testing.assert_allclose(second, -first / 2, rtol=1e-6)
    # another module is another key: traced again
    forward(Net(), x)
    assert len(calls) == 2


def test_staged_error_from_python_subclass():
    class Broken(Ep.Module):
        def do_call(self, x):
            raise RuntimeError("inside the trace")

    model = Broken()
    with pytest.raises(RuntimeError, match="inside the trace"):
        Ep.function(lambda x: model(x))(np.zeros(2))


# training against torch.nn

def make_pair(torch, dtype):
    Ep.set_seed(3)
    ours = Ep.Sequential(Ep.Linear(5, 16, dtype=dtype), Ep.Relu(), Ep.Linear(16, 3, dtype=dtype))
    theirs = torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    theirs = theirs.to(getattr(torch, dtype))
    with torch.no_grad():
        for name, p in theirs.named_parameters():
            p.copy_(torch.tensor(values(ours.get_variable(name))))
    return ours, theirs


@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-10), ("float32", 2e-4)])
@pytest.mark.parametrize("staged", [False, True], ids=["eager", "staged"])
def test_mlp_trains_as_torch(rng, dtype, rtol, staged):
    torch = pytest.importorskip("torch")
    ours, theirs = make_pair(torch, dtype)
    x = rng.standard_normal((32, 5)).astype(dtype)
    y = rng.standard_normal((32, 3)).astype(dtype)
    opt = Ep.Adam(learning_rate=1e-2)
    torch_opt = torch.optim.Adam(theirs.parameters(), lr=1e-2)
    variables = ours.trainable_variables

    def loss_and_gradients(x, y):
        with Ep.GradientTape() as tape:
            loss = (ours(x) - y).square().mean()
        return loss, tape.gradient(loss, variables)

    if staged:
        # (the optimizer's step stays eager: its step count is a number
        # of the host, which a trace would fix)
        loss_and_gradients = Ep.function(loss_and_gradients)
    losses, torch_losses = [], []
    for _ in range(8):
        loss, grads = loss_and_gradients(x, y)
        opt.apply_gradients(grads, variables)
        losses.append(float(values(loss)))
        torch_opt.zero_grad()
        torch_loss = ((theirs(torch.tensor(x)) - torch.tensor(y)) ** 2).mean()
        torch_loss.backward()
        torch_opt.step()
        torch_losses.append(torch_loss.item())
    np.testing.assert_allclose(losses, torch_losses, rtol=rtol)
    assert losses[-1] < losses[0]
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(values(ours.get_variable(name)), p.detach().numpy(), rtol=rtol, atol=rtol)


# checkpoints

def test_checkpoint_restores_a_fresh_module(tmp_path):
    trained = Net()
    trained.scale.assign(np.float32(7))
    names, variables = zip(*trained.named_variables())
    file = Gio.File.new_for_path(str(tmp_path / "net.safetensors"))
    Ep.checkpoint_save(list(names), list(variables), file, None)
    fresh = Net()
    fresh_names, fresh_variables = zip(*fresh.named_variables())
    assert fresh_names == names
    Ep.checkpoint_restore(list(fresh_names), list(fresh_variables), file, Ep.CheckpointFlags.NONE, None)
    for a, b in zip(variables, fresh_variables):
        np.testing.assert_array_equal(values(a), values(b))



# the page docs/modules.md

def _docs_python_blocks():
    import os
    import re
    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "modules.md")
    with open(path, encoding="utf-8") as f:
        return re.findall(r"^```python\n(.*?)^```", f.read(), re.M | re.S)


@pytest.mark.parametrize("block", _docs_python_blocks(), ids=lambda block: block.split("\n")[0][:40])
def test_the_pages_python_runs(block):
    """Each Python example of docs/modules.md runs as it is."""
    exec(compile(block, "modules.md", "exec"), {"Ep": Ep, "np": np})


def test_the_page_has_python_examples():
    assert len(_docs_python_blocks()) == 5
