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

    # opencl: devices by name
    def to_device(self, device):
        """A copy on `device` (an Ep.Device or a name such as "opencl:0")."""
        return Ep.Tensor.to_device(self, _device(device))

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

# opencl: devices and device scopes

class Device(Ep.Device):
    def __repr__(self):
        return f"Ep.Device({self.get_name()!r})"

    def __str__(self):
        return self.get_name()


Device = override(Device)
__all__.append("Device")


def _device(device):
    """An Ep.Device from an Ep.Device or a name such as "opencl:0"."""
    if isinstance(device, Ep.Device):
        return device
    return Ep.Device.get(str(device))


class device:
    """A device scope: ops inside run on that device, and their inputs are
    copied there when they live elsewhere.

        with Ep.device("opencl:0"):
            y = (x @ w).relu()      # on opencl:0, x and w copied there

    Scopes nest; the scope is per thread. Entering returns the Ep.Device.
    """

    def __init__(self, device):
        self._device = _device(device)

    def __enter__(self):
        Ep.Device.push(self._device)
        return self._device

    def __exit__(self, *exc_info):
        Ep.Device.pop()
        return False


__all__ += ["device"]
