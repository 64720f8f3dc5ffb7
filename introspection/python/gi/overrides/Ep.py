# Ep.py: the Python face of eager-glib
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# What GObject Introspection cannot express: operators, NumPy-style
# keyword arguments and defaults, NumPy conversion, printing, and context
# managers. Every method here is a thin call into the C method of the same
# meaning; none changes what a C method does.

import math
import numbers

from gi.module import get_introspection_module
from gi.repository import GLib

from ..overrides import override

Ep = get_introspection_module("Ep")

__all__ = []

_NUMPY_NAMES = {
    "float32": Ep.DType.FLOAT32,
    "float64": Ep.DType.FLOAT64,
    "int32": Ep.DType.INT32,
    "int64": Ep.DType.INT64,
    "bool": Ep.DType.BOOL,
}

float32 = Ep.DType.FLOAT32
float64 = Ep.DType.FLOAT64
int32 = Ep.DType.INT32
int64 = Ep.DType.INT64
bool_ = Ep.DType.BOOL
__all__ += ["float32", "float64", "int32", "int64", "bool_"]


def _dtype(dtype):
    """An Ep.DType from an Ep.DType, a NumPy dtype or type, or a name."""
    if dtype is None or isinstance(dtype, Ep.DType):
        return dtype
    if dtype is bool:
        return Ep.DType.BOOL
    if dtype is int:
        return Ep.DType.INT64
    if dtype is float:
        return Ep.DType.FLOAT32
    name = getattr(dtype, "name", None) or getattr(dtype, "__name__", None) or str(dtype)
    try:
        return _NUMPY_NAMES[name]
    except KeyError:
        raise TypeError(f"unsupported dtype {dtype!r}") from None


def _literal(value):
    """A weak scalar for a Python number, as NumPy treats Python scalars."""
    if isinstance(value, bool):
        return Ep.Tensor.new_weak_scalar(float(value), Ep.DType.BOOL)
    if isinstance(value, numbers.Integral):
        return Ep.Tensor.new_weak_scalar(float(value), Ep.DType.INT64)
    if isinstance(value, numbers.Real):
        return Ep.Tensor.new_weak_scalar(float(value), Ep.DType.FLOAT64)
    return None


def _operand(value):
    if isinstance(value, Ep.Tensor):
        return value
    if isinstance(value, Ep.Variable):  # autodiff: read, so tapes watch it
        return value.read()
    literal = _literal(value)
    if literal is not None:
        return literal
    return astensor(value)


def _axes(axis):
    if axis is None:
        return None
    if isinstance(axis, numbers.Integral):
        return [int(axis)]
    return [int(a) for a in axis]


def _shape(args):
    if len(args) == 1 and not isinstance(args[0], numbers.Integral):
        return [int(d) for d in args[0]]
    return [int(d) for d in args]


def _reduction(method):
    """NumPy's signature; axis=() reduces nothing (an empty array crosses
    GI as NULL, which means all axes, so it takes a detour)."""
    def reduce(self, axis=None, keepdims=False):
        if axis is not None and not isinstance(axis, numbers.Integral) and len(axis) == 0:
            return method(Ep.Tensor.expand_dims(self, 0), [0], False)
        return method(self, _axes(axis), keepdims)
    return reduce


def _binary(method, reflected=False):
    def operator(self, other):
        other = _operand(other)
        if reflected:
            return method(other, self)
        return method(self, other)
    return operator


class Tensor(Ep.Tensor):
    # Properties

    @property
    def shape(self):
        return tuple(self.get_shape())

    @property
    def ndim(self):
        return self.get_ndim()

    @property
    def dtype(self):
        return self.get_dtype()

    @property
    def size(self):
        return self.get_size()

    @property
    def device(self):
        return self.get_device()

    @property
    def T(self):
        return Ep.Tensor.transpose(self, None)

    # Conversion

    def numpy(self):
        """The elements as a new NumPy array (one copy)."""
        import numpy
        data = self.to_bytes().get_data()
        name = Ep.dtype_get_name(self.get_dtype())
        return numpy.frombuffer(data, dtype=name).reshape(self.shape).copy()

    def item(self):
        """The only element, as a Python bool, int or float."""
        dtype = self.get_dtype()
        if dtype == Ep.DType.BOOL:
            return Ep.Tensor.item_boolean(self)
        if dtype in (Ep.DType.INT32, Ep.DType.INT64):
            return Ep.Tensor.item_int64(self)
        return Ep.Tensor.item(self)

    def tolist(self):
        return self.numpy().tolist()

    def __array__(self, dtype=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def __str__(self):
        return self.to_string()

    def __repr__(self):
        return f"Ep.Tensor({self.to_string()}, dtype={Ep.dtype_get_name(self.get_dtype())})"

    def __len__(self):
        if self.get_ndim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.get_shape()[0]

    def __bool__(self):
        if self.get_size() != 1:
            raise ValueError("the truth value of a tensor with more than one element is ambiguous")
        return bool(Ep.Tensor.item_boolean(self))

    def __float__(self):
        return float(Ep.Tensor.item(self))

    def __int__(self):
        return int(Ep.Tensor.item_int64(self))

    __hash__ = Ep.Tensor.__hash__

    # NumPy-style signatures

    def astype(self, dtype):
        return Ep.Tensor.astype(self, _dtype(dtype))

    def reshape(self, *shape):
        return Ep.Tensor.reshape(self, _shape(shape))

    def transpose(self, *axes):
        if len(axes) == 0 or (len(axes) == 1 and axes[0] is None):
            return Ep.Tensor.transpose(self, None)
        return Ep.Tensor.transpose(self, _shape(axes))

    def expand_dims(self, axis):
        return Ep.Tensor.expand_dims(self, axis)

    def squeeze(self, axis=None):
        return Ep.Tensor.squeeze(self, _axes(axis))

    sum = _reduction(Ep.Tensor.sum)
    mean = _reduction(Ep.Tensor.mean)
    max = _reduction(Ep.Tensor.max)
    min = _reduction(Ep.Tensor.min)

    def where(self, x, y):
        return Ep.Tensor.where(self, _operand(x), _operand(y))

    # --- math branch (issue 3): NumPy-style signatures ---

    floordiv = _binary(Ep.Tensor.floordiv)
    mod = _binary(Ep.Tensor.mod)
    minimum = _binary(Ep.Tensor.minimum)
    maximum = _binary(Ep.Tensor.maximum)
    logical_and = _binary(Ep.Tensor.logical_and)
    logical_or = _binary(Ep.Tensor.logical_or)

    def clip(self, min=None, max=None):
        """NumPy's clip; None is no bound."""
        return Ep.Tensor.clip(self, -math.inf if min is None else min,
                              math.inf if max is None else max)

    prod = _reduction(Ep.Tensor.prod)
    all = _reduction(Ep.Tensor.all)
    any = _reduction(Ep.Tensor.any)
    logsumexp = _reduction(Ep.Tensor.logsumexp)
    l0 = _reduction(Ep.Tensor.l0)
    l1 = _reduction(Ep.Tensor.l1)
    l2 = _reduction(Ep.Tensor.l2)
    linf = _reduction(Ep.Tensor.linf)

    def lp(self, p, axis=None, keepdims=False):
        if axis is not None and not isinstance(axis, numbers.Integral) and len(axis) == 0:
            return Ep.Tensor.lp(Ep.Tensor.expand_dims(self, 0), p, [0], False)
        return Ep.Tensor.lp(self, p, _axes(axis), keepdims)

    def argmin(self, axis=None, keepdims=False):
        return Ep.Tensor.argmin(self, _axes(axis), keepdims)

    def argmax(self, axis=None, keepdims=False):
        return Ep.Tensor.argmax(self, _axes(axis), keepdims)

    def cumsum(self, axis=None):
        return Ep.Tensor.cumsum(self, _axes(axis))

    def sort(self, axis=-1):
        """axis=None sorts the flattened tensor, as in NumPy."""
        if axis is None:
            return Ep.Tensor.sort(Ep.Tensor.reshape(self, [-1]), 0)
        return Ep.Tensor.sort(self, axis)

    def argsort(self, axis=-1):
        if axis is None:
            return Ep.Tensor.argsort(Ep.Tensor.reshape(self, [-1]), 0)
        return Ep.Tensor.argsort(self, axis)

    def topk(self, k, sorted=True):
        """(values, indices) of the k largest along the last axis."""
        _, values, indices = Ep.Tensor.topk(self, k, sorted)
        return values, indices

    def softmax(self, axis=-1):
        return Ep.Tensor.softmax(self, axis)

    def log_softmax(self, axis=-1):
        return Ep.Tensor.log_softmax(self, axis)

    def crossentropy(self, labels):
        return Ep.Tensor.crossentropy(self, _operand(labels))

    def onehot_like(self, indices, value=1):
        return Ep.Tensor.onehot_like(self, _operand(indices), value)

    __floordiv__ = _binary(Ep.Tensor.floordiv)
    __rfloordiv__ = _binary(Ep.Tensor.floordiv, reflected=True)
    __mod__ = _binary(Ep.Tensor.mod)
    __rmod__ = _binary(Ep.Tensor.mod, reflected=True)

    # --- end of math branch ---

    # Operators

    __add__ = _binary(Ep.Tensor.add)
    __radd__ = _binary(Ep.Tensor.add, reflected=True)
    __sub__ = _binary(Ep.Tensor.sub)
    __rsub__ = _binary(Ep.Tensor.sub, reflected=True)
    __mul__ = _binary(Ep.Tensor.mul)
    __rmul__ = _binary(Ep.Tensor.mul, reflected=True)
    __truediv__ = _binary(Ep.Tensor.div)
    __rtruediv__ = _binary(Ep.Tensor.div, reflected=True)
    __pow__ = _binary(Ep.Tensor.pow)
    __rpow__ = _binary(Ep.Tensor.pow, reflected=True)
    __matmul__ = _binary(Ep.Tensor.matmul)
    __rmatmul__ = _binary(Ep.Tensor.matmul, reflected=True)
    __lt__ = _binary(Ep.Tensor.less)
    __le__ = _binary(Ep.Tensor.less_equal)
    __eq__ = _binary(Ep.Tensor.equal)
    __ne__ = _binary(Ep.Tensor.not_equal)
    __gt__ = _binary(Ep.Tensor.greater)
    __ge__ = _binary(Ep.Tensor.greater_equal)

    def __neg__(self):
        return self.neg()

    def __pos__(self):
        return self

    def __abs__(self):
        return self.abs()


Tensor = override(Tensor)
__all__.append("Tensor")


def astensor(value, dtype=None):
    """A tensor from a tensor, a NumPy array, a nested list or a scalar.

    Data crosses as one GLib.Bytes copy. Without dtype, NumPy's dtype is
    kept, except that Python floats become float32 (the default) and
    Python ints int64.
    """
    import numpy
    dtype = _dtype(dtype)
    if isinstance(value, Ep.Tensor):
        return value if dtype is None else value.astype(dtype)
    if isinstance(value, numpy.ndarray) or isinstance(value, numpy.generic):
        array = numpy.asarray(value)
    else:
        array = numpy.asarray(value)
        if array.dtype == numpy.float64:
            array = array.astype(numpy.float32)
    if dtype is not None:
        array = array.astype(Ep.dtype_get_name(dtype))
    if array.dtype.name not in _NUMPY_NAMES:
        if array.dtype.kind == "f":
            array = array.astype(numpy.float64)
        elif array.dtype.kind in "iu":
            array = array.astype(numpy.int64)
        else:
            raise TypeError(f"cannot make a tensor of {array.dtype}")
    if not array.flags.c_contiguous:
        array = array.copy(order="C")
    return Ep.Tensor.new_from_bytes(GLib.Bytes.new(array.tobytes()),
                                    _NUMPY_NAMES[array.dtype.name],
                                    list(array.shape))


__all__.append("astensor")


def _creation(function):
    def create(shape, dtype=Ep.DType.FLOAT32):
        if isinstance(shape, numbers.Integral):
            shape = [shape]
        return function(list(shape), _dtype(dtype))
    return create


zeros = _creation(Ep.zeros)
ones = _creation(Ep.ones)
__all__ += ["zeros", "ones"]


def full(shape, value, dtype=Ep.DType.FLOAT32):
    if isinstance(shape, numbers.Integral):
        shape = [shape]
    return Ep.full(list(shape), value, _dtype(dtype))


def arange(start, stop=None, step=1, dtype=None):
    """NumPy's arange: integer arguments give int64, others float32."""
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        integral = all(isinstance(v, numbers.Integral) for v in (start, stop, step))
        dtype = Ep.DType.INT64 if integral else Ep.DType.FLOAT32
    return Ep.arange(start, stop, step, _dtype(dtype))


def where(condition, x, y):
    return _operand(condition).where(x, y)


__all__ += ["full", "arange", "where"]


# --- math branch (issue 3) ---

def minimum(a, b):
    return _operand(a).minimum(b)


def maximum(a, b):
    return _operand(a).maximum(b)


def clip(x, min=None, max=None):
    return _operand(x).clip(min, max)


def linspace(start, stop, num=50, endpoint=True, dtype=Ep.DType.FLOAT32):
    return Ep.linspace(start, stop, num, endpoint, _dtype(dtype))


def eye(N, M=None, k=0, dtype=Ep.DType.FLOAT32):
    return Ep.eye(N, N if M is None else M, k, _dtype(dtype))


def _random_shape(shape):
    return [shape] if isinstance(shape, numbers.Integral) else list(shape)


def uniform(shape, low=0.0, high=1.0, dtype=Ep.DType.FLOAT32):
    """Seeded by Ep.set_seed; the same numbers on every device."""
    return Ep.uniform(_random_shape(shape), low, high, _dtype(dtype))


def normal(shape, mean=0.0, stddev=1.0, dtype=Ep.DType.FLOAT32):
    """Seeded by Ep.set_seed; the same numbers on every device."""
    return Ep.normal(_random_shape(shape), mean, stddev, _dtype(dtype))


__all__ += ["minimum", "maximum", "clip", "linspace", "eye", "uniform", "normal"]


# Automatic differentiation: GradientTape, Variable, value_and_grad,
# custom_gradient, stop_gradient.
#
# User functions are wrapped: they take and return tensors positionally,
# may return Variables, and a Python exception raised inside one comes
# back out of the call that ran it (C sees a GError meanwhile).

import functools  # noqa: E402
import threading  # noqa: E402

_UNCONNECTED = {
    "zero": Ep.UnconnectedGradients.ZERO,
    "zeros": Ep.UnconnectedGradients.ZERO,
    "none": Ep.UnconnectedGradients.NONE,
}


def _unconnected(value):
    if value is None or isinstance(value, Ep.UnconnectedGradients):
        return value
    try:
        return _UNCONNECTED[str(value).lower()]
    except KeyError:
        raise ValueError(f"unconnected_gradients must be 'zero' or 'none', not {value!r}") from None


def _ep_error(code, message):
    return GLib.Error.new_literal(Ep.error_quark(), message, int(code))


def _as_tensor(value):
    """A tensor for a tensor, a Variable (read), an array or a number."""
    if isinstance(value, Ep.Tensor):
        return value
    if isinstance(value, Ep.Variable):
        return value.read()
    return astensor(value)


def _is_sequence(value):
    return isinstance(value, (list, tuple))


_pending = threading.local()


class _UserFunction:
    """Calls a Python function from C: checks the result, and keeps a
    Python exception to raise again after C returns (C gets a GError
    meanwhile, and PyGObject prints nothing)."""

    def __init__(self, function, name):
        self.function = function
        self.name = name

    def result_tensor(self, value, what="the function"):
        if isinstance(value, Ep.Variable):
            value = value.read()
        if not isinstance(value, Ep.Tensor):
            raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                            f"{self.name}: {what} returned {type(value).__name__}, not a tensor")
        return value

    def run(self, body):
        try:
            return body()
        except GLib.Error:
            raise
        except BaseException as error:  # noqa: B902 (raised again by _call)
            message = f"{self.name}: {type(error).__name__}: {error}"
            _pending.error = (message, error)
            raise _ep_error(Ep.Error.INVALID_ARGUMENT, message) from None


def _call(function, *args):
    """Calls into C; a GError that stands for a Python exception raised in
    a callback (value_and_grad, custom gradients) becomes that exception
    again, wherever C reported it (a custom gradient fails in the tape's
    gradient())."""
    try:
        return function(*args)
    except GLib.Error as error:
        kept = getattr(_pending, "error", None)
        _pending.error = None
        if kept is not None and kept[0] == error.message:
            raise kept[1].with_traceback(kept[1].__traceback__) from None
        raise


def _argnums(argnums):
    if isinstance(argnums, int):
        return [argnums], False
    return [int(a) for a in argnums], True


def _aux_to_list(aux):
    """Auxiliary results cross C as tensors; anything else stays here."""
    if isinstance(aux, (Ep.Tensor, Ep.Variable)):
        return [_as_tensor(aux)], "one"
    if _is_sequence(aux) and all(isinstance(a, (Ep.Tensor, Ep.Variable)) for a in aux):
        return [_as_tensor(a) for a in aux], type(aux)
    return [], aux


def _aux_from_list(tensors, shape):
    if shape == "one":
        return tensors[0]
    if isinstance(shape, type):
        return shape(tensors)
    return shape


class _Differentiated:
    """The callbacks for one value_and_grad-style function."""

    def __init__(self, function, name, has_aux):
        self.user = _UserFunction(function, name)
        self.has_aux = has_aux
        self.aux_shape = None

    def __call__(self, inputs, *_rest):
        # PyGObject passes the array length too on some versions: ignore it.
        def body():
            result = self.user.function(*inputs)
            if not self.has_aux:
                return self.user.result_tensor(result)
            if not _is_sequence(result) or len(result) != 2:
                raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                                f"{self.user.name}: the function must return (value, aux)")
            aux, self.aux_shape = _aux_to_list(result[1])
            return [self.user.result_tensor(result[0])] + aux
        return self.user.run(body)

    def invoke(self, call):
        return _call(call)

    def finish(self, value, aux, grads, several):
        grads = list(grads)
        grad = tuple(grads) if several else grads[0]
        if not self.has_aux:
            return value, grad
        return value, _aux_from_list(list(aux), self.aux_shape), grad


def value_and_grad(f, *args, argnums=0):
    """(f(*args), gradient): the gradient of the sum of f's result with
    respect to argument `argnums` (an int: one tensor; a tuple: a tuple).
    f returns a tensor; it may use any Python control flow."""
    positions, several = _argnums(argnums)
    call = _Differentiated(f, "value_and_grad", False)
    inputs = [_as_tensor(a) for a in args]
    value, grads = call.invoke(lambda: Ep.value_and_grad(call, None, inputs, positions))
    return call.finish(value, None, grads, several)


def value_aux_and_grad(f, *args, argnums=0):
    """(value, aux, gradient) for f returning (value, aux): aux is returned
    as computed (tensors cross C; anything else is kept as is)."""
    positions, several = _argnums(argnums)
    call = _Differentiated(f, "value_aux_and_grad", True)
    inputs = [_as_tensor(a) for a in args]
    value, aux, grads = call.invoke(
        lambda: Ep.value_aux_and_grad(call, None, inputs, positions))
    return call.finish(value, aux, grads, several)


def grad(f, argnums=0):
    """The function computing only the gradient of f (JAX's grad)."""
    def gradient(*args):
        return value_and_grad(f, *args, argnums=argnums)[1]
    return functools.wraps(f)(gradient)


def value_and_grad_fn(f, argnums=0, has_aux=False):
    """A function to call many times: g(*args) is value_and_grad(f, *args)
    (or value_aux_and_grad with has_aux), backed by one Ep.ValueAndGradFn."""
    positions, several = _argnums(argnums)
    call = _Differentiated(f, "value_aux_and_grad" if has_aux else "value_and_grad", has_aux)
    if has_aux:
        fn = Ep.ValueAndGradFn.new_with_aux(call, None, positions)
    else:
        fn = Ep.ValueAndGradFn.new(call, None, positions)

    def run(*args):
        inputs = [_as_tensor(a) for a in args]
        if has_aux:
            value, aux, grads = call.invoke(lambda: fn.call_with_aux(inputs))
        else:
            value, grads = call.invoke(lambda: fn.call(inputs))
            aux = None
        return call.finish(value, aux, grads, several)

    run.function = fn
    return functools.wraps(f)(run)


def stop_gradient(x):
    """x without history: tapes treat it as a constant."""
    return _as_tensor(x).stop_gradient()


def _gradient_list(grads, n, name):
    if not _is_sequence(grads):
        grads = [grads]
    grads = list(grads)
    if len(grads) != n:
        raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                        f"{name}: the backward function returned {len(grads)} gradients "
                        f"for {n} arguments")
    for g in grads:
        if g is not None and not isinstance(g, (Ep.Tensor, Ep.Variable)):
            raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                            f"{name}: the backward function returned {type(g).__name__}, "
                            f"not a tensor")
    return [None if g is None else _as_tensor(g) for g in grads]


def custom_gradient(f=None, backward=None):
    """A function with a gradient of your choosing.

    As a decorator (TensorFlow's form): f(*inputs) returns (y, grad_fn)
    and grad_fn(dy) returns the gradient of each input (one tensor, or a
    tuple). grad_fn sees the tensors of the forward pass, which have no
    history; for derivatives of higher order through the custom gradient,
    use the two-function form:

        softplus = Ep.custom_gradient(forward, backward)

    where forward(*inputs) returns y and backward(inputs, y, dy) returns
    the gradients, computed from the inputs with their history.
    """
    if f is None:
        return functools.partial(custom_gradient, backward=backward)

    def call(*args):
        inputs = [_as_tensor(a) for a in args]
        user = _UserFunction(f, "custom_gradient")
        state = {}

        def forward(forward_inputs, *_rest):
            def body():
                if backward is not None:
                    return user.result_tensor(f(*forward_inputs), "the forward function")
                result = f(*forward_inputs)
                if not _is_sequence(result) or len(result) != 2 or not callable(result[1]):
                    raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                                    "custom_gradient: the function must return (y, grad_fn)")
                state["grad_fn"] = result[1]
                return user.result_tensor(result[0], "the forward function")
            return user.run(body)

        def backward_call(backward_inputs, *rest):
            tensors = [a for a in rest if isinstance(a, Ep.Tensor)]
            output, dy = tensors[-2], tensors[-1]

            def body():
                if backward is not None:
                    grads = backward(tuple(backward_inputs), output, dy)
                else:
                    grads = state["grad_fn"](dy)
                return _gradient_list(grads, len(backward_inputs), "custom_gradient")
            return user.run(body)

        return _call(Ep.custom_gradient, forward, None, backward_call, None, inputs)

    return functools.wraps(f)(call)


class _Resume:
    """What stop_recording() returns: `with` resumes at the end."""

    def __init__(self, tape):
        self.tape = tape

    def __enter__(self):
        return self.tape

    def __exit__(self, *exc):
        self.tape.resume_recording()
        return False


class GradientTape(Ep.GradientTape):
    """`with Ep.GradientTape() as tape:` records; tape.gradient(y, x)."""

    def __init__(self, persistent=False, watch_accessed_variables=True,
                 unconnected_gradients=None):
        Ep.GradientTape.__init__(self, persistent=persistent,
                                 watch_accessed_variables=watch_accessed_variables)
        if unconnected_gradients is not None:
            self.set_unconnected_gradients(_unconnected(unconnected_gradients))

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def watch(self, value):
        """Watches a tensor or Variable, or each of a list of them."""
        for item in (value if _is_sequence(value) else [value]):
            if isinstance(item, Ep.Variable):
                self.watch_variable(item)
            else:
                Ep.GradientTape.watch(self, item)

    def stop_recording(self):
        """Pauses now; `with tape.stop_recording():` resumes at the end."""
        Ep.GradientTape.stop_recording(self)
        return _Resume(self)

    def watched_variables(self):
        return tuple(Ep.GradientTape.watched_variables(self))

    def _with_unconnected(self, unconnected_gradients, call):
        if unconnected_gradients is None:
            return call()
        saved = self.get_unconnected_gradients()
        self.set_unconnected_gradients(_unconnected(unconnected_gradients))
        try:
            return call()
        finally:
            self.set_unconnected_gradients(saved)

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=None):
        """The gradient of the sum of target (a tensor or a list) with
        respect to sources: a tensor or Variable gives one gradient, a
        list or tuple gives a list or tuple."""
        targets = [_as_tensor(t) for t in (target if _is_sequence(target) else [target])]
        single = not _is_sequence(sources)
        source_list = [sources] if single else list(sources)
        for s in source_list:
            if not isinstance(s, (Ep.Tensor, Ep.Variable)):
                raise TypeError(f"gradient: a source must be a tensor or a Variable, not "
                                f"{type(s).__name__}")
        seeds = None
        if output_gradients is not None:
            seeds = [_as_tensor(g) for g in
                     (output_gradients if _is_sequence(output_gradients) else [output_gradients])]
        grads = self._with_unconnected(
            unconnected_gradients,
            lambda: _call(Ep.GradientTape.gradient, self, targets, source_list, seeds))
        if single:
            return grads[0]
        return type(sources)(grads)

    def jacobian(self, target, source, unconnected_gradients=None):
        return self._with_unconnected(
            unconnected_gradients,
            lambda: _call(Ep.GradientTape.jacobian, self, _as_tensor(target), source))

    def batch_jacobian(self, target, source, unconnected_gradients=None):
        return self._with_unconnected(
            unconnected_gradients,
            lambda: _call(Ep.GradientTape.batch_jacobian, self, _as_tensor(target), source))


GradientTape = override(GradientTape)


def _variable_operator(name):
    """A Tensor operator on the variable's value, read when it is used."""
    def operator(self, *args):
        return getattr(Tensor, name)(self.read(), *args)
    return operator


class Variable(Ep.Variable):
    """Ep.Variable(initial_value, name=None, trainable=True, dtype=None).

    Reads happen where a tensor is needed (operators, ops of the override)
    or with read(); a trainable variable read under a tape is watched."""

    def __init__(self, initial_value=None, name=None, trainable=True, dtype=None):
        value = None if initial_value is None else astensor(_as_tensor(initial_value), dtype)
        Ep.Variable.__init__(self, initial_value=value, name=name, trainable=trainable)

    @property
    def name(self):
        return self.get_name()

    @property
    def trainable(self):
        return self.get_trainable()

    @trainable.setter
    def trainable(self, value):
        self.set_trainable(bool(value))

    @property
    def shape(self):
        return tuple(self.get_shape())

    @property
    def ndim(self):
        return len(self.get_shape())

    @property
    def dtype(self):
        return self.get_dtype()

    @property
    def device(self):
        return self.get_device()

    def assign(self, value):
        return Ep.Variable.assign(self, _operand(value))

    def assign_add(self, delta):
        return Ep.Variable.assign_add(self, _operand(delta))

    def assign_sub(self, delta):
        return Ep.Variable.assign_sub(self, _operand(delta))

    def numpy(self):
        return self.read().numpy()

    def item(self):
        return self.read().item()

    def __array__(self, dtype=None):
        return self.read().__array__(dtype)

    def __repr__(self):
        return (f"Ep.Variable({self.read().to_string()}, name={self.get_name()!r}, "
                f"dtype={Ep.dtype_get_name(self.get_dtype())})")

    def __getattr__(self, name):
        # tensor methods on the current value: v.sum(), v.square(), ...
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.read(), name)

    __hash__ = Ep.Variable.__hash__


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
              "__rmod__", "__pow__", "__rpow__", "__matmul__",
              "__rmatmul__", "__lt__", "__le__", "__eq__", "__ne__", "__gt__", "__ge__",
              "__neg__", "__pos__", "__abs__", "__getitem__", "__len__", "__float__",
              "__int__", "__bool__"):
    if hasattr(Tensor, _name):
        setattr(Variable, _name, _variable_operator(_name))

Variable = override(Variable)

__all__ += ["GradientTape", "Variable", "value_and_grad", "value_aux_and_grad", "grad",
            "value_and_grad_fn", "custom_gradient", "stop_gradient"]
