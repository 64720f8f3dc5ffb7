"""Staged functions from Python: Ep.function (the decorator and its
forms), the signature of a call (tensors, Python values, devices),
relaxed signatures, replays that do not call Python, nested arguments and
results, exceptions, Variables by reference, random ops, tapes around and
inside, methods, concrete functions, and the errors.

Every op staged against its eager result is in the staged NumPy harness
(conftest.py, `meson test 'numpy harness (staged)'`), and the
finite-difference gradients through staged calls in test_gradcheck.py.
"""

import collections
import functools
import gc
import math
import weakref

import numpy as np
import pytest
from conftest import Ep, assert_ep_error

OPENCL = [d.get_name() for d in Ep.list_devices() if d.get_kind() == "opencl"]
needs_opencl = pytest.mark.skipif(not OPENCL, reason=f"no OpenCL device: {Ep.Device.get_unavailable_reason('opencl')}")


def same(a, b):
    """a and b have the same dtype, shape and bits."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, a.shape, b.dtype, b.shape)
    assert a.tobytes() == b.tobytes(), (a, b)
    return True


class Counted:
    """A function that counts its calls: a replay must not call it."""

    def __init__(self, function):
        self.function = function
        self.calls = 0
        functools.update_wrapper(self, function)

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.function(*args, **kwargs)


def norm_plus(x, y):
    """sqrt(sum(x * x)) + y"""
    return (x * x).sum().sqrt() + y


def f32(*values):
    return Ep.astensor(np.array(values, np.float32))


# the decorator and its forms

def test_decorator_traces_once_and_replays():
    body = Counted(norm_plus)
    staged = Ep.function(body)
    first = staged(f32(3, 4), f32(1)[0])
    second = staged(f32(6, 8), f32(2)[0])
    assert (first.item(), second.item()) == (6.0, 12.0)
    assert body.calls == 1 and staged.trace_count == 1


@Ep.function
def decorated(x, y):
    """The docstring stays."""
    return norm_plus(x, y)


@Ep.function()
def decorated_with_parentheses(x, y):
    return norm_plus(x, y)


@Ep.function(input_signature=[Ep.TensorSpec([None]), Ep.TensorSpec([])])
def decorated_with_signature(x, y):
    return norm_plus(x, y)


@pytest.mark.parametrize("staged", [decorated, decorated_with_parentheses, decorated_with_signature,
                                    Ep.function(norm_plus),
                                    Ep.function(norm_plus, input_signature=[Ep.TensorSpec([2]),
                                                                            Ep.TensorSpec(())]),
                                    Ep.function(norm_plus, [Ep.TensorSpec([None]), Ep.TensorSpec([])])])
def test_every_form_equals_the_eager_function(staged):
    x, y = f32(3, 4), Ep.astensor(np.float32(0.5))
    for k in range(3):
        same(staged(x * k, y), norm_plus(x * k, y))
    assert staged.trace_count == 1
    assert isinstance(staged, Ep.StagedFunction)


def test_wraps_the_function():
    assert decorated.__name__ == "decorated"
    assert decorated.__qualname__ == "decorated"
    assert decorated.__doc__ == "The docstring stays."
    assert decorated.__module__ == __name__
    assert decorated.__wrapped__ is decorated.python_function
    assert decorated.python_function(f32(3, 4), 1.0).item() == 6.0   # runs eagerly
    staged = Ep.function(norm_plus)
    assert staged.python_function is norm_plus and staged.input_signature is None
    assert "norm_plus" in repr(staged)


def test_input_signature_is_checked_when_staged():
    with pytest.raises(TypeError, match="not callable"):
        Ep.function(3)
    with pytest.raises(TypeError, match="list or tuple"):
        Ep.function(norm_plus, input_signature=Ep.TensorSpec([2]))
    with pytest.raises(TypeError, match=r"input_signature\[1\] is int"):
        Ep.function(norm_plus, input_signature=[Ep.TensorSpec([2]), 3])
    specs = [Ep.TensorSpec([2]), [Ep.TensorSpec(()), {"a": Ep.TensorSpec((None, 1), "int64")}]]
    assert Ep.function(norm_plus, input_signature=specs).input_signature == tuple(specs)


def test_tensor_spec():
    spec = Ep.TensorSpec((None, 3), "float64")
    assert spec.shape == (None, 3) and spec.dtype == Ep.float64
    assert list(spec.get_shape()) == [-1, 3]
    assert spec == Ep.TensorSpec([-1, 3], np.float64) == Ep.TensorSpec.new([-1, 3], Ep.DType.FLOAT64)
    assert spec != Ep.TensorSpec((None, 3)) and hash(spec) == hash(Ep.TensorSpec((None, 3), "float64"))
    assert Ep.TensorSpec(4).shape == (4,) and Ep.TensorSpec().shape == ()
    assert repr(spec) == "Ep.TensorSpec(shape=(None, 3), dtype=float64)"
    assert spec.matches(Ep.zeros((5, 3), dtype="float64")) and not spec.matches(Ep.zeros((5, 3)))
    assert_ep_error(Ep.Error.SHAPE, Ep.TensorSpec, (-2, 3))


# the signature of a call: tensors by dtype, shape and device

def test_new_dtype_or_shape_retraces():
    staged = Ep.function(Counted(lambda x: (x * 2).sum()))
    staged(f32(1, 2))
    staged(f32(3, 4))                              # replay
    staged(Ep.astensor([1.0, 2.0, 3.0]))           # shape
    assert same(staged(Ep.astensor(np.array([1, 2]))), np.int64(6))      # dtype
    staged(Ep.astensor(np.array([1.0, 2.0])))      # float64
    assert staged.trace_count == staged.python_function.calls == 4
    same(staged(f32(5, 6)), np.float32(22))
    assert staged.trace_count == 4


def test_input_signature_counts_its_arguments():
    def g(x, *rest):
        return x * 2
    f = Ep.function(g, input_signature=[Ep.TensorSpec.new([2], Ep.DType.FLOAT32)])
    with pytest.raises(TypeError) as info:
        f(Ep.zeros(2), Ep.zeros(2))
    assert str(info.value) == "g: takes the 1 argument of its input signature, not rest"


def test_layout_is_not_part_of_the_signature():
    """A transposed or step-sliced view replays the graph traced on a
    contiguous tensor."""
    staged = Ep.function(Counted(lambda x: x.cumsum(axis=1) * 2))
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    same(staged(Ep.astensor(a)), np.cumsum(a, axis=1) * 2)
    b = np.arange(12, dtype=np.float32).reshape(4, 3)
    same(staged(Ep.astensor(b).T), np.cumsum(b.T, axis=1) * 2)
    c = np.arange(54, dtype=np.float32).reshape(6, 9)
    same(staged(Ep.astensor(c)[::2, 1:9:2]), np.cumsum(c[::2, 1:9:2], axis=1) * 2)
    assert staged.python_function.calls == 1


def test_arrays_are_inputs():
    staged = Ep.function(Counted(lambda x: x * 2))
    same(staged(np.arange(3, dtype=np.float64)), np.arange(3, dtype=np.float64) * 2)
    same(staged(np.ones(3)), np.full(3, 2.0))
    same(staged(np.float64(4)), np.float64(8))     # a NumPy scalar is a 0-d array
    assert staged.python_function.calls == 2


@needs_opencl
def test_new_device_retraces():
    staged = Ep.function(Counted(lambda x: x * 2))
    on_cpu = staged(f32(1, 2))
    on_opencl = staged(f32(3, 4).to_device(OPENCL[0]))
    assert on_cpu.device.get_name() == "cpu:0" and on_opencl.device.get_name() == OPENCL[0]
    same(staged(f32(5, 6).to_device(OPENCL[0])), np.float32([10, 12]))
    assert staged.python_function.calls == 2


@needs_opencl
def test_device_scope_is_part_of_the_signature():
    """The scope places the ops, eagerly: a replay runs them where the
    eager ops would run."""
    staged = Ep.function(Counted(lambda x: x * 2))
    assert staged(f32(1, 2)).device.get_name() == "cpu:0"
    with Ep.device(OPENCL[0]):
        assert (f32(1, 2) * 2).device.get_name() == OPENCL[0]
        assert staged(f32(1, 2)).device.get_name() == OPENCL[0]
        same(staged(f32(3, 4)), np.float32([6, 8]))
    assert staged(f32(1, 2)).device.get_name() == "cpu:0"
    assert staged.python_function.calls == 2


# the signature of a call: Python values by value

def scaled(x, scale, mode="sum"):
    return getattr(x * scale, mode)()


def test_python_values_are_part_of_the_key():
    staged = Ep.function(Counted(scaled))
    x = f32(1, 2)
    assert staged(x, 2).item() == 6.0
    assert staged(x, 3).item() == 9.0      # another value: traced again
    assert staged(x, 2).item() == 6.0      # replay
    assert staged(x, 2, "max").item() == 4.0
    assert staged.trace_count == staged.python_function.calls == 3


def test_keyword_and_default_arguments_share_the_key():
    staged = Ep.function(Counted(scaled))
    x = f32(1, 2)
    results = [staged(x, 2), staged(x, scale=2), staged(scale=2, x=x), staged(x, 2, "sum"),
               staged(x, 2, mode="sum")]
    assert [r.item() for r in results] == [6.0] * 5
    assert staged.trace_count == 1


@pytest.mark.parametrize("values", [(1, 1.0, True), (0.0, -0.0), (2, "2"), (None, 0), ((1, 2), [1, 2]),
                                    ((1, 2), (1, 2.0))])
def test_equal_values_of_other_types_retrace(values):
    staged = Ep.function(Counted(lambda x, v: x * 1))
    for v in values:
        staged(f32(1), v)
    assert staged.trace_count == len(values)


def test_nan_and_negative_zero():
    """Python floats are keyed by their bits: NaN finds its graph, and
    -0.0 is not 0.0 (1 / x tells them apart)."""
    staged = Ep.function(Counted(lambda x, v: x / v))
    assert math.isnan(staged(f32(1), float("nan"))[0].item())
    staged(f32(1), float("nan"))
    assert staged(f32(1), 0.0).item() == math.inf
    assert staged(f32(1), -0.0).item() == -math.inf
    assert staged.trace_count == 3


def test_values_are_fixed_when_traced():
    """item(), Python control flow and shapes are read when the function
    is traced: a replay does not read them again."""
    staged = Ep.function(Counted(lambda x: x * x.sum().item() if x.max().item() > 0 else -x))
    assert staged(f32(1, 2)).numpy().tolist() == [3, 6]
    assert staged(f32(-1, -2)).numpy().tolist() == [-3, -6]   # the traced branch and sum
    assert staged.trace_count == 1


def test_unhashable_values_are_a_type_error():
    staged = Ep.function(Counted(lambda x, v: x))
    for value in ({1, 2}, [{3}], {"a": [1, {3}]}, bytearray(b"x")):
        with pytest.raises(TypeError, match="is not hashable"):
            staged(f32(1), value)
    assert staged.python_function.calls == 0


def test_wrong_number_of_arguments_is_a_type_error():
    staged = Ep.function(Counted(scaled))
    with pytest.raises(TypeError, match="scaled: missing a required argument"):
        staged(f32(1))
    with pytest.raises(TypeError, match="too many"):
        staged(f32(1), 2, "sum", 4)
    with pytest.raises(TypeError, match="unexpected keyword"):
        staged(f32(1), 2, size=3)
    with pytest.raises(TypeError):
        decorated(f32(1))
    assert staged.python_function.calls == 0


# relaxed signatures

def test_relaxed_signature_serves_every_batch_size():
    staged = Ep.function(Counted(lambda x: (x @ np.ones((3, 2), np.float32)).sum(axis=1)),
                         input_signature=[Ep.TensorSpec((None, 3))])
    for batch in (1, 4, 7, 0):
        a = np.arange(batch * 3, dtype=np.float32).reshape(batch, 3)
        same(staged(a), (a @ np.ones((3, 2), np.float32)).sum(axis=1))
    # the second batch size traces again, to check that the function
    # computes the same whatever the batch; the others replay
    assert staged.trace_count == staged.python_function.calls == 2


def test_relaxed_signature_specializes_what_reads_shapes():
    """A function that computes with a shape read on the host gets a
    graph per shape, and every call gives the eager result."""
    staged = Ep.function(Counted(lambda x: x / x.shape[0]), input_signature=[Ep.TensorSpec((None,))])
    for batch in (2, 4, 2, 4, 8):
        same(staged(np.ones(batch, np.float32)), np.full(batch, 1 / batch, np.float32))
    assert staged.trace_count == staged.python_function.calls == 3


def test_gradients_inside_fix_the_shapes():
    """Gradient rules compute with the shapes they see (a mean divides by
    its count): with a tape inside, a relaxed signature traces once per
    shape, and each shape gets its own, eager, result."""
    w = Ep.Variable(np.ones(3, np.float32))

    def mean_gradient(x):
        with Ep.GradientTape() as tape:
            loss = (x @ w).mean()
        return tape.gradient(loss, w)
    staged = Ep.function(Counted(mean_gradient), input_signature=[Ep.TensorSpec((None, 3))])
    for batch in (2, 5, 2, 5):
        x = np.arange(batch * 3, dtype=np.float32).reshape(batch, 3)
        same(staged(x), mean_gradient(Ep.astensor(x)))
    assert staged.trace_count == staged.python_function.calls == 2


def test_relaxed_signature_refuses_what_does_not_fit():
    staged = Ep.function(lambda x: x * 2, input_signature=[Ep.TensorSpec((None, 3))])
    message = assert_ep_error(Ep.Error.SHAPE, staged, Ep.zeros((2, 4)))
    assert "does not fit the signature" in message
    assert_ep_error(Ep.Error.SHAPE, staged, Ep.zeros((2, 3), dtype="float64"))
    assert_ep_error(Ep.Error.SHAPE, staged, Ep.zeros(3))
    same(staged(np.ones((2, 3))), np.full((2, 3), 2, np.float32))   # arrays take the spec's dtype
    same(staged([[1, 2, 3]]), np.float32([[2, 4, 6]]))
    assert staged.trace_count == 2


def test_input_signature_arguments():
    staged = Ep.function(Counted(lambda pair, scale=2.0: (pair[0] + pair[1]["b"]) * scale),
                         input_signature=[(Ep.TensorSpec([2]), {"b": Ep.TensorSpec([2])})])
    same(staged((f32(1, 2), {"b": f32(3, 4)})), np.float32([8, 12]))
    same(staged(pair=[f32(1, 1), {"b": f32(0, 1)}]), np.float32([2, 4]))
    assert staged.trace_count == 1
    with pytest.raises(TypeError, match="not scale"):
        staged((f32(1, 2), {"b": f32(3, 4)}), 3.0)
    with pytest.raises(TypeError, match="dict with keys"):
        staged((f32(1, 2), {"c": f32(3, 4)}))
    with pytest.raises(TypeError, match="sequence of 2"):
        staged((f32(1, 2),))
    with pytest.raises(TypeError, match="<lambda>: missing a required argument"):
        staged()


# replays do not call Python

def test_replays_do_not_call_python():
    calls = []

    @Ep.function
    def step(x, w):
        calls.append(1)
        for _ in range(10):
            x = (x @ w).tanh()
        return x

    x, w = Ep.ones((2, 3)), Ep.eye(3) * 0.5
    expected = step.python_function(x, w)
    calls.clear()
    for _ in range(20):
        same(step(x, w), expected)
    assert len(calls) == 1


def test_staged_functions_nest():
    inner = Ep.function(Counted(norm_plus))
    outer = Ep.function(Counted(lambda x, y: -inner(x, y)))
    inner(f32(1, 1), f32(0)[0])
    assert outer(f32(3, 4), f32(0)[0]).item() == -5.0
    assert outer(f32(6, 8), f32(1)[0]).item() == -11.0
    # the inner graph, replayed under the outer tracer, is staged into the outer one
    assert outer.python_function.calls == 1 and inner.python_function.calls == 1


# nested arguments and results

Pair = collections.namedtuple("Pair", "first second")


def test_nested_arguments():
    staged = Ep.function(Counted(lambda xs, d, pair, n: (xs[0] + xs[1] * d["w"] + pair.second) * n[1]))
    args = ([f32(1), f32(2)], {"w": f32(3), "unused": "text"}, Pair(None, f32(4)), (5, 6))
    same(staged(*args), np.float32([66]))
    args = ([f32(2), f32(2)], {"unused": "text", "w": f32(1)}, Pair(None, f32(0)), (5, 6))
    same(staged(*args), np.float32([24]))
    assert staged.trace_count == 1
    staged([f32(1), f32(1)], {"w": f32(1), "unused": "other"}, Pair(None, f32(0)), (5, 6))
    staged([f32(1), f32(1), f32(1)], {"w": f32(1), "unused": "text"}, Pair(None, f32(0)), (5, 6))
    assert staged.trace_count == 3


def test_the_function_gets_its_arguments_back():
    """The function sees the structure it was called with: containers of
    the same types, dicts in their order, arrays as tensors, Python values
    as they are."""
    seen = []

    @Ep.function
    def look(a, b, *rest, **options):
        seen.append((a, b, rest, options))
        return a["x"]

    look({"y": 1, "x": np.float32(2)}, [f32(1), "s"], (None, 2.5), f32(3), flag=True)
    a, b, rest, options = seen[0]
    assert list(a) == ["y", "x"] and a["y"] == 1 and isinstance(a["x"], Ep.Tensor)
    assert type(b) is list and isinstance(b[0], Ep.Tensor) and b[1] == "s"
    assert rest[0] == (None, 2.5) and isinstance(rest[1], Ep.Tensor) and options == {"flag": True}


def leaves(value):
    """The values of the tensors in a nested result, and its Nones."""
    if isinstance(value, Ep.Tensor):
        return [value.numpy().tolist()]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in leaves(item)]
    return [value]


@pytest.mark.parametrize("make, check", [
    (lambda x: x, lambda r: isinstance(r, Ep.Tensor)),
    (lambda x: (x, x * 2), lambda r: type(r) is tuple and r[1].item() == 2 * r[0].item()),
    (lambda x: [x], lambda r: type(r) is list and len(r) == 1),
    (lambda x: {"b": x, "a": (x, None)}, lambda r: list(r) == ["b", "a"] and r["a"][1] is None),
    (lambda x: Pair(x, [x + 1]), lambda r: type(r) is Pair and r.second[0].item() == r.first.item() + 1),
    (lambda x: None, lambda r: r is None),
    (lambda x: (), lambda r: r == ()),
])
def test_nested_results(make, check):
    staged = Ep.function(Counted(make))
    for k in (1.0, 2.0):
        eager = make(f32(k)[0])
        result = staged(f32(k)[0])
        assert check(result)
        assert type(result) is type(eager) and leaves(result) == leaves(eager)
    assert staged.python_function.calls == 1


def test_results_nested_by_shape():
    """One key, graphs whose results nest differently (a tuple as long as
    the input): each replay takes its own graph's structure."""
    staged = Ep.function(Counted(lambda x: tuple(x * 2)))
    assert len(staged(f32(1, 2))) == 2
    assert len(staged(f32(1, 2, 3))) == 3
    two, three = staged(f32(3, 4)), staged(f32(5, 6, 7))
    assert [t.item() for t in two] == [6, 8] and [t.item() for t in three] == [10, 12, 14]
    assert staged.python_function.calls == 2


def test_variable_results_are_read():
    v = Ep.Variable([1.0, 2.0])
    staged = Ep.function(lambda x: (v, x))
    value, x = staged(f32(0))
    assert isinstance(value, Ep.Tensor) and value.numpy().tolist() == [1.0, 2.0]
    v.assign([3.0, 4.0])
    assert staged(f32(0))[0].numpy().tolist() == [3.0, 4.0]


# errors

def test_non_tensor_results_are_errors():
    for result in (1.5, "text", [Ep.ones(2), 3], {"a": object()}):
        staged = Ep.function(lambda x, result=result: result)
        message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, staged, f32(1))
        assert "not a tensor" in message and "<lambda> returned" in message
        assert staged.trace_count == 0


def test_python_exceptions_come_back_as_themselves():
    body = Counted(lambda x: x.sum() if x.ndim else 1 / 0)
    staged = Ep.function(body)
    with pytest.raises(ZeroDivisionError) as info:
        staged(f32(1)[0])
    assert any(frame.name == "<lambda>" for frame in info.traceback)
    with pytest.raises(ZeroDivisionError):
        staged(f32(1)[0])          # nothing was kept: traced again
    assert body.calls == 2 and staged.trace_count == 0
    assert staged(f32(1, 2)).item() == 3.0


def test_the_exception_is_the_same_object():
    error = KeyError("mine")

    def raising(x):
        raise error
    with pytest.raises(KeyError) as info:
        Ep.function(raising)(f32(1))
    assert info.value is error


def test_op_errors_are_the_eager_ones():
    staged = Ep.function(lambda a, b: a + b)
    message = assert_ep_error(Ep.Error.SHAPE, staged, f32(1, 2), f32(1, 2, 3))
    assert message.startswith("add:")
    assert staged.trace_count == 0


# Variables by reference

class Linear:
    """y = x @ w + b, trained by SGD on the mean squared error."""

    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.w = Ep.Variable(rng.normal(size=(3, 2)).astype(np.float32), name="w")
        self.b = Ep.Variable(np.zeros(2, np.float32), name="b")
        self.steps = 0

    def step(self, x, y, rate):
        self.steps += 1
        with Ep.GradientTape() as tape:
            loss = ((x @ self.w + self.b - y) ** 2).mean()
        dw, db = tape.gradient(loss, [self.w, self.b])
        self.w.assign_sub(dw * rate)
        self.b.assign_sub(db * rate)
        return loss

    staged_step = Ep.function(step)


def training_data(rng, n=16):
    x = rng.normal(size=(n, 3)).astype(np.float32)
    return x, (x @ np.float32([[1, -2], [0.5, 0], [3, 1]]) + 0.25).astype(np.float32)


def test_training_step_updates_variables_as_eager_steps(rng):
    eager, staged = Linear(7), Linear(7)
    for _ in range(6):
        x, y = training_data(rng)
        eager_loss = eager.step(Ep.astensor(x), Ep.astensor(y), 0.1)
        staged_loss = staged.staged_step(Ep.astensor(x), Ep.astensor(y), 0.1)
        same(staged_loss, eager_loss)
        same(staged.w.numpy(), eager.w.numpy())
        same(staged.b.numpy(), eager.b.numpy())
    assert staged.steps == 1 and staged.staged_step.trace_count == 1
    assert eager.w.numpy()[0, 0] != Linear(7).w.numpy()[0, 0]


def test_captured_variables_are_read_at_each_call():
    v = Ep.Variable([1.0, 2.0])
    staged = Ep.function(lambda x: v * x)
    assert staged(f32(2)).numpy().tolist() == [2, 4]
    v.assign([10.0, 20.0])
    assert staged(f32(2)).numpy().tolist() == [20, 40]
    v.assign_add([1.0, 1.0])
    assert staged(f32(1)).numpy().tolist() == [11, 21]
    assert staged.trace_count == 1


def test_variable_arguments_by_identity():
    def grow(v, x):
        v.assign_add(x)
        return v.read() * 2
    staged = Ep.function(Counted(grow))
    a, b = Ep.Variable([0.0]), Ep.Variable([100.0])
    same(staged(a, f32(1)), np.float32([2]))
    same(staged(a, f32(2)), np.float32([6]))
    same(staged(b, f32(1)), np.float32([202]))
    assert a.numpy().tolist() == [3.0] and b.numpy().tolist() == [101.0]
    assert staged.trace_count == 2
    del b
    gc.collect()
    assert len(staged._cache.traces) == 1 and staged.trace_count == 2


def test_a_step_that_returns_nothing():
    v = Ep.Variable(0.0)

    @Ep.function
    def count(x):
        v.assign_add(x.sum())
    for k in range(4):
        assert count(f32(k, 1)) is None
    assert v.item() == 10.0 and count.trace_count == 1


# random ops

def noisy(x):
    return x + Ep.uniform(x.shape) + Ep.normal(3, dtype="float64").sum()


def test_random_ops_draw_new_numbers_as_eager_calls():
    x = f32(1, 2, 3)
    Ep.set_seed(11)
    eager = [noisy(x) for _ in range(3)]
    Ep.set_seed(11)
    staged = Ep.function(Counted(noisy))
    calls = [staged(x) for _ in range(3)]
    for e, s in zip(eager, calls):
        same(s, e)
    assert not np.array_equal(calls[0].numpy(), calls[1].numpy())
    assert staged.python_function.calls == 1


def test_dropout_draws_a_fresh_mask_each_call_and_differentiates_with_its_own():
    x = Ep.astensor(np.random.default_rng(5).normal(size=(40, 30)))
    f = Ep.function(lambda t: t.dropout(0.5))
    Ep.set_seed(31)
    a, b = f(x).numpy(), f(x).numpy()
    assert not np.array_equal(a != 0, b != 0)
    Ep.set_seed(31)
    np.testing.assert_array_equal(f(x).numpy(), a)  # staged draws follow set_seed as eager ones
    Ep.set_seed(31)
    np.testing.assert_array_equal(x.dropout(0.5).numpy(), a)
    with Ep.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
        loss = (y * y).sum()
    grad = tape.gradient(loss, x).numpy()
    # d/dx sum((2 x m)^2) = 8 x m = 4 y for the forward's own mask m
    np.testing.assert_allclose(grad, 4 * y.numpy(), rtol=1e-12)
    masks = []
    for _ in range(2):   # each call its own mask, and its gradient that mask (x has no zeros)
        with Ep.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        masks.append(y.numpy() != 0)
        np.testing.assert_array_equal(tape.gradient(y, x).numpy(), 2.0 * masks[-1])
    assert not np.array_equal(masks[0], masks[1])


# tapes around and inside

def test_tape_around_a_staged_call():
    staged = Ep.function(Counted(lambda x, w: ((x @ w).tanh() ** 2).sum()))
    w = Ep.astensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2))
    for k in range(3):
        x = Ep.astensor(np.arange(6, dtype=np.float32).reshape(2, 3) * (k + 1) / 10)
        with Ep.GradientTape() as tape:
            tape.watch([x, w])
            y = staged(x, w)
        dx, dw = tape.gradient(y, [x, w])
        with Ep.GradientTape() as tape:
            tape.watch([x, w])
            e = staged.python_function.function(x, w)
        ex, ew = tape.gradient(e, [x, w])
        same(y, e)
        same(dx, ex)
        same(dw, ew)
    assert staged.python_function.calls == 1


def test_tape_around_watches_captured_variables():
    v = Ep.Variable([1.0, -2.0])
    staged = Ep.function(lambda x: (v * x).square().sum())
    staged(f32(3, 3))
    with Ep.GradientTape() as tape:
        y = staged(f32(3, 3))
    assert tape.gradient(y, v).numpy().tolist() == [18.0, -36.0]


def test_second_derivative_through_a_staged_call():
    staged = Ep.function(lambda x: x ** 3)
    x = Ep.astensor(2.0)
    for _ in range(2):
        with Ep.GradientTape() as outer:
            outer.watch(x)
            with Ep.GradientTape() as inner:
                inner.watch(x)
                y = staged(x)
            dy = inner.gradient(y, x)
        assert (dy.item(), outer.gradient(dy, x).item()) == (12.0, 12.0)


def test_value_and_grad_inside():
    staged = Ep.function(Counted(lambda x: Ep.value_and_grad(lambda t: (t * t).sum(), x)))
    for k in (1.0, 2.0):
        value, grad = staged(f32(k, 2 * k))
        assert value.item() == 5 * k * k and grad.numpy().tolist() == [2 * k, 4 * k]
    assert staged.python_function.calls == 1


# methods

class Model:
    def __init__(self, scale):
        self.v = Ep.Variable(scale)
        self.calls = 0

    @Ep.function
    def apply(self, x):
        """y = v * x"""
        self.calls += 1
        return self.v * x


def test_methods_key_self_by_identity():
    a, b = Model(2.0), Model(3.0)
    assert a.apply(f32(1)).item() == 2.0 and a.apply(f32(5)).item() == 10.0
    assert b.apply(f32(1)).item() == 3.0
    assert (a.calls, b.calls) == (1, 1)
    assert a.apply.trace_count == 1 and b.apply.trace_count == 1
    assert Model.apply.trace_count >= 2
    assert Model.apply.__doc__ == "y = v * x" and a.apply.__name__ == "apply"
    assert Model.apply(a, f32(2)).item() == 4.0    # called on the class: self is a plain argument
    assert "bound to Model" in repr(a.apply)


def test_methods_do_not_keep_their_object():
    before = Model.apply.trace_count
    model = Model(1.0)
    model.apply(f32(1))
    gone = weakref.ref(model)
    del model
    gc.collect()
    assert gone() is None
    assert Model.apply.trace_count == before + 1   # the count stays


# concrete functions

def test_concrete_function():
    staged = Ep.function(Counted(lambda x, n: {"sum": x.sum() * n, "rows": x[0]}))
    concrete = staged.get_concrete_function(Ep.zeros((2, 3)), 2)
    assert staged.python_function.calls == 1 and staged.trace_count == 1
    assert concrete.inputs == (Ep.TensorSpec((2, 3)),)
    assert concrete.outputs == (Ep.TensorSpec(()), Ep.TensorSpec((3,)))
    assert concrete.structured_outputs == {"sum": Ep.TensorSpec(()), "rows": Ep.TensorSpec((3,))}
    assert isinstance(concrete.function, Ep.Function) and concrete.function.get_trace_count() == 1
    result = concrete(Ep.ones((2, 3)), 2)
    assert result["sum"].item() == 12.0 and staged.python_function.calls == 1
    assert staged.get_concrete_function(Ep.ones((2, 3)), n=2).inputs == concrete.inputs
    assert staged.python_function.calls == 1
    with pytest.raises(TypeError, match="do not fit this concrete function"):
        concrete(Ep.ones((2, 4)), 2)
    with pytest.raises(TypeError, match="do not fit"):
        concrete(Ep.ones((2, 3)), 3)
    assert staged.python_function.calls == 1 and "TensorSpec(shape=(2, 3)" in repr(concrete)
    assert concrete.python_function is staged.python_function


def test_concrete_function_of_a_relaxed_signature():
    staged = Ep.function(lambda x: x.sum(axis=0), input_signature=[Ep.TensorSpec((None, 2))])
    concrete = staged.get_concrete_function(Ep.ones((5, 2)))
    assert concrete.inputs == (Ep.TensorSpec((None, 2)),)
    assert concrete(Ep.ones((7, 2))).numpy().tolist() == [7.0, 7.0]
    assert concrete(Ep.ones((3, 2))).numpy().tolist() == [3.0, 3.0]
    assert staged.trace_count == 2


# the page docs/staging.md

def _docs_python_blocks():
    import os
    import re
    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "staging.md")
    with open(path, encoding="utf-8") as f:
        return re.findall(r"^```python\n(.*?)^```", f.read(), re.M | re.S)


@pytest.mark.parametrize("block", _docs_python_blocks(), ids=lambda block: block.split("\n")[0][:40])
def test_the_pages_python_runs(block):
    """Each Python example of docs/staging.md runs as it is."""
    exec(compile(block, "staging.md", "exec"), {"Ep": Ep, "np": np})


def test_the_page_has_python_examples():
    assert len(_docs_python_blocks()) >= 5
