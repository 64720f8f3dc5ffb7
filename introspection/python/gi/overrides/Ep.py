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


# Shapes, indexing and linear algebra (shape branch)
#
# NumPy's signatures for the shape, indexing and linear algebra methods,
# and NumPy's indexing (`__getitem__`) built on slice (views), take and
# mask.

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


def _clamp64(value):
    return min(max(int(value), _INT64_MIN), _INT64_MAX)


def _index_array(value):
    """An integer or bool tensor for an index given as a tensor, a NumPy
    array or a (nested) list; None for anything else."""
    import numpy
    if isinstance(value, Ep.Tensor):
        return value
    if isinstance(value, (list, tuple, numpy.ndarray)):
        array = numpy.asarray(value)
        if array.dtype == numpy.bool_:
            return astensor(array)
        if array.dtype.kind in "iu":
            return astensor(array.astype(numpy.int64))
        if array.size == 0:
            return astensor(array.astype(numpy.int64))
    return None


def _is_bool_tensor(value):
    return isinstance(value, Ep.Tensor) and value.get_dtype() == Ep.DType.BOOL


def _normalize_key(self, key):
    """The key as a list with one entry per consumed axis of self (ints,
    slices, index tensors; a bool tensor of k dimensions is one entry for
    k axes) and None for new axes; Ellipsis expanded."""
    import numpy
    if not isinstance(key, tuple):
        key = (key,)
    items = []
    for k in key:
        if k is None or k is Ellipsis or isinstance(k, slice):
            items.append(k)
        elif isinstance(k, (bool, numpy.bool_)):
            items.append(astensor(numpy.asarray(bool(k))))
        elif isinstance(k, numbers.Integral):
            items.append(int(k))
        else:
            tensor = _index_array(k)
            if tensor is None:
                raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and integer "
                                 f"or boolean arrays are valid indices, not {type(k).__name__}")
            if tensor.get_dtype() not in (Ep.DType.BOOL, Ep.DType.INT32, Ep.DType.INT64):
                raise IndexError("arrays used as indices must be of integer or boolean type")
            items.append(tensor)

    def consumed(k):
        if k is None or k is Ellipsis:
            return 0
        if _is_bool_tensor(k):
            return k.get_ndim()
        return 1

    ndim = self.get_ndim()
    used = sum(consumed(k) for k in items)
    if used > ndim:
        raise IndexError(f"too many indices for a tensor of {ndim} dimensions ({used} were indexed)")
    ellipses = [i for i, k in enumerate(items) if k is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    fill = [slice(None)] * (ndim - used)
    if ellipses:
        i = ellipses[0]
        items = items[:i] + fill + items[i + 1:]
    else:
        items = items + fill
    return items


def _slice_bounds(index, extent):
    """start, stop, step for ep_tensor_slice from a Python int or slice."""
    if isinstance(index, int):
        if not -extent <= index < extent:
            raise IndexError(f"index {index} is out of bounds for an axis of size {extent}")
        index %= extent
        return index, index + 1, 1
    step = 1 if index.step is None else _clamp64(index.step)
    if index.start is None:
        start = _INT64_MIN if step > 0 else _INT64_MAX
    else:
        start = _clamp64(index.start)
    if index.stop is None:
        stop = _INT64_MAX if step > 0 else _INT64_MIN
    else:
        stop = _clamp64(index.stop)
    return start, stop, step


def _basic_index(self, items):
    """Ints, slices and None only: one slice (a view) and a reshape."""
    shape = self.shape
    starts, stops, steps = [], [], []
    axis = 0
    for k in items:
        if k is None:
            continue
        start, stop, step = _slice_bounds(k, shape[axis])
        starts.append(start)
        stops.append(stop)
        steps.append(step)
        axis += 1
    view = Ep.Tensor.slice(self, starts, stops, steps) if starts else self
    sliced = view.shape
    new_shape = []
    axis = 0
    for k in items:
        if k is None:
            new_shape.append(1)
            continue
        if not isinstance(k, int):
            new_shape.append(sliced[axis])
        axis += 1
    if tuple(new_shape) == sliced:
        return view
    return Ep.Tensor.reshape(view, new_shape)


def _move_axis(tensor, source, destination):
    order = list(range(tensor.get_ndim()))
    order.insert(destination, order.pop(source))
    if order == sorted(order):
        return tensor
    return Ep.Tensor.transpose(tensor, order)


def _advanced_index(self, items):
    """NumPy's advanced indexing: slices first (a view), then one mask or
    take. Integers count as 0-d index arrays here, as in NumPy."""
    import numpy
    # 1. the basic part: slices applied, None as new axes; one entry per
    #    axis of the view, either slice(None) or an index tensor
    starts, stops, steps = [], [], []
    for k in items:
        if k is None:
            continue
        if isinstance(k, slice):
            start, stop, step = _slice_bounds(k, 0)
        else:
            start, stop, step = _INT64_MIN, _INT64_MAX, 1
        for _ in range(k.get_ndim() if _is_bool_tensor(k) else 1):
            starts.append(start)
            stops.append(stop)
            steps.append(step)
    view = Ep.Tensor.slice(self, starts, stops, steps) if starts else self
    arrays_count = sum(isinstance(k, (Ep.Tensor, int)) for k in items)
    entries = []
    for k in items:
        if _is_bool_tensor(k) and k.get_ndim() == 0 and arrays_count > 1:
            # with other index arrays, True is a new axis indexed by
            # [0], False one indexed by []
            view = Ep.Tensor.expand_dims(view, len(entries))
            entries.append(astensor(numpy.zeros(int(k.item()), numpy.int64)))
        elif k is None:
            view = Ep.Tensor.expand_dims(view, len(entries))
            entries.append(slice(None))
        elif isinstance(k, slice):
            entries.append(slice(None))
        elif isinstance(k, int):
            entries.append(astensor(numpy.asarray(k, dtype=numpy.int64)))
        elif _is_bool_tensor(k):
            entries.append(k)
            entries.extend([Ellipsis] * (k.get_ndim() - 1))   # axes it covers
        else:
            entries.append(k)

    advanced = [(axis, k) for axis, k in enumerate(entries) if isinstance(k, Ep.Tensor)]

    # 2. a single mask: move its axes to the front, mask, move back
    if len(advanced) == 1 and _is_bool_tensor(advanced[0][1]):
        axis, mask = advanced[0]
        k = mask.get_ndim()
        ndim = view.get_ndim()
        order = list(range(axis, axis + k)) + [d for d in range(ndim) if not axis <= d < axis + k]
        moved = Ep.Tensor.transpose(view, order) if order != list(range(ndim)) else view
        return _move_axis(Ep.Tensor.mask(moved, mask), 0, axis)

    # 3. masks among other index arrays: their nonzero positions
    axes, arrays = [], []
    for axis, k in advanced:
        if _is_bool_tensor(k):
            for d, positions in enumerate(numpy.nonzero(k.numpy())):
                axes.append(axis + d)
                arrays.append(astensor(positions.astype(numpy.int64)))
        else:
            axes.append(axis)
            arrays.append(k)

    if len(arrays) == 1:
        return Ep.Tensor.take(view, arrays[0], axes[0])

    try:
        numpy.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together with shapes "
                         + " ".join(str(a.shape) for a in arrays)) from None

    # 4. several index arrays: merge their axes into one and take flat
    #    positions; apart, their axes go first (NumPy's rule)
    if axes != list(range(axes[0], axes[0] + len(axes))):
        order = axes + [d for d in range(view.get_ndim()) if d not in axes]
        view = Ep.Tensor.transpose(view, order)
        axes = list(range(len(axes)))
    shape = view.shape
    first = axes[0]
    extents = [shape[a] for a in axes]
    flat = None
    stride = 1
    for extent, array in reversed(list(zip(extents, arrays))):
        # take from a range checks the indices and wraps negative ones
        wrapped = Ep.Tensor.take(Ep.arange(0, extent, 1, Ep.DType.INT64), array, 0)
        term = wrapped * stride if stride != 1 else wrapped
        flat = term if flat is None else term + flat
        stride *= extent
    merged_extent = 1
    for extent in extents:
        merged_extent *= extent
    merged = Ep.Tensor.reshape(view, list(shape[:first]) + [merged_extent] + list(shape[first + len(axes):]))
    return Ep.Tensor.take(merged, flat, first)


def _getitem(self, key):
    """NumPy indexing. Integers, slices (any step), None and Ellipsis give
    a view; integer and boolean index arrays (tensors, NumPy arrays,
    lists) give a copy, with NumPy's rules for where their dimensions go.
    An integer out of range raises IndexError; an index array out of
    range raises the library's index error."""
    items = _normalize_key(self, key)
    if any(isinstance(k, Ep.Tensor) for k in items):
        return _advanced_index(self, items)
    return _basic_index(self, items)


def _flatten(self, start=0, end=-1):
    return Ep.Tensor.flatten(self, start, end)


def _broadcast_to(self, *shape):
    return Ep.Tensor.broadcast_to(self, _shape(shape))


def _flip(self, axis=None):
    return Ep.Tensor.flip(self, _axes(axis))


def _slice(self, starts, stops, steps=None):
    """ep_tensor_slice with None for omitted bounds, as in Python."""
    starts, stops = list(starts), list(stops)
    steps = [1] * len(starts) if steps is None else [1 if s is None else _clamp64(s) for s in steps]
    bounds = [_slice_bounds(slice(a, b, c), 0) for a, b, c in zip(starts, stops, steps)]
    return Ep.Tensor.slice(self, [b[0] for b in bounds], [b[1] for b in bounds], [b[2] for b in bounds])


def _split(self, indices_or_sections, axis=0):
    if isinstance(indices_or_sections, numbers.Integral):
        return Ep.Tensor.split(self, int(indices_or_sections), axis)
    return Ep.Tensor.split_at(self, [int(i) for i in indices_or_sections], axis)


def _tile(self, reps):
    if isinstance(reps, numbers.Integral):
        reps = [reps]
    return Ep.Tensor.tile(self, [int(r) for r in reps])


_PAD_MODES = {"constant": Ep.PadMode.CONSTANT, "reflect": Ep.PadMode.REFLECT}


def _pad(self, pad_width, mode="constant", constant_values=0):
    """NumPy's pad: pad_width is n, (before, after) or one pair per axis."""
    import numpy
    ndim = self.get_ndim()
    widths = numpy.broadcast_to(numpy.asarray(pad_width, dtype=numpy.int64).reshape(-1, 2)
                                if numpy.ndim(pad_width) > 0 else numpy.full((1, 2), pad_width),
                                (ndim, 2))
    if isinstance(mode, str):
        try:
            mode = _PAD_MODES[mode]
        except KeyError:
            raise ValueError(f"unsupported pad mode {mode!r}") from None
    return Ep.Tensor.pad(self, [int(w) for w in widths.reshape(-1)], mode, float(constant_values))


def _take(self, indices, axis=None):
    """NumPy's take; axis=None takes from the flattened tensor."""
    indices = _index_array(indices) if not isinstance(indices, numbers.Integral) else \
        astensor(indices, int64)
    if indices is None:
        raise TypeError("indices must be integers")
    if axis is None:
        return Ep.Tensor.take(Ep.Tensor.flatten(self, 0, -1), indices, 0)
    return Ep.Tensor.take(self, indices, axis)


def _take_along_axis(self, indices, axis):
    indices = _index_array(indices)
    if axis is None:
        return Ep.Tensor.take_along_axis(Ep.Tensor.flatten(self, 0, -1),
                                         Ep.Tensor.flatten(indices, 0, -1), 0)
    return Ep.Tensor.take_along_axis(self, indices, axis)


def _scatter(method):
    def scatter(self, indices, values, axis=0):
        if isinstance(indices, numbers.Integral):
            indices = astensor(indices, int64)
        return method(self, _index_array(indices), _operand(values), axis)
    return scatter


def _mask(self, mask):
    return Ep.Tensor.mask(self, _index_array(mask))


Tensor.__getitem__ = _getitem
Tensor.flatten = _flatten
Tensor.broadcast_to = _broadcast_to
Tensor.flip = _flip
Tensor.slice = _slice
Tensor.split = _split
Tensor.tile = _tile
Tensor.pad = _pad
Tensor.take = _take
Tensor.take_along_axis = _take_along_axis
Tensor.mask = _mask
Tensor.index_update = _scatter(Ep.Tensor.index_update)
Tensor.scatter_add = _scatter(Ep.Tensor.scatter_add)
Tensor.dot = _binary(Ep.Tensor.dot)
Tensor.outer = _binary(Ep.Tensor.outer)
Tensor.solve = _binary(Ep.Tensor.solve)


def concatenate(tensors, axis=0):
    """NumPy's concatenate; axis=None joins the flattened tensors."""
    tensors = [astensor(t) for t in tensors]
    if axis is None:
        tensors = [Ep.Tensor.flatten(t, 0, -1) for t in tensors]
        axis = 0
    return Ep.concatenate(tensors, axis)


def stack(tensors, axis=0):
    return Ep.stack([astensor(t) for t in tensors], axis)


_MESH_INDEXING = {"xy": Ep.MeshIndexing.XY, "ij": Ep.MeshIndexing.IJ}


def meshgrid(*tensors, indexing="xy"):
    """NumPy's meshgrid: broadcast views, one per input."""
    try:
        indexing = _MESH_INDEXING[indexing]
    except KeyError:
        raise ValueError(f"indexing must be 'xy' or 'ij', not {indexing!r}") from None
    return Ep.meshgrid([astensor(t) for t in tensors], indexing)


def dot(a, b):
    return Ep.Tensor.dot(_operand(a), _operand(b))


def outer(a, b):
    return Ep.Tensor.outer(_operand(a), _operand(b))


__all__ += ["concatenate", "stack", "meshgrid", "dot", "outer"]


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
