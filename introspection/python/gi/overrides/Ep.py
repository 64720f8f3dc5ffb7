# Ep.py: the Python face of eager-glib
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# What GObject Introspection cannot express: operators, NumPy-style
# keyword arguments and defaults, NumPy conversion, printing, and context
# managers. Every method here is a thin call into the C method of the same
# meaning; none changes what a C method does (PyGObject's override
# guidelines: patch onto the class, keep it thin).
#
# The file has one section per area; each branch adds to its own:
#   bindings   dtypes, conversion, the Tensor protocols (operators, repr,
#              len/iter, numpy), and the automatic NumPy-style signatures
#              that every C method and function gets unless a section
#              below writes its own (see "Automatic signatures")
#   math, shape, autodiff, opencl: their sections, after the bindings one
#
# Annotations here are read by gen-stubs.py, which writes Ep.pyi from the
# GIR and this module at build time: keep them on hand-written functions.

from __future__ import annotations

import math
import math as _math
import numbers
from functools import lru_cache
from typing import (TYPE_CHECKING, Any, Callable, ContextManager, Iterator, Literal, Optional,
                    Sequence, SupportsIndex, Union, overload)

from gi.module import get_introspection_module
from gi.repository import GLib

from ..overrides import override

if TYPE_CHECKING:  # names used in annotations only (see "the types of the annotations")
    import numpy
    import numpy.typing

Ep = get_introspection_module("Ep")
_Tensor = Ep.Tensor

__all__ = []

# ---------------------------------------------------------------------------
# bindings: dtypes and conversion helpers
# ---------------------------------------------------------------------------

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

# ---------------------------------------------------------------------------
# bindings: the types of the annotations
#
# Annotations in this file are strings (from __future__ import annotations):
# Python never evaluates them; gen-stubs.py copies them into the type stubs
# (Ep.pyi) that mypy reads, with "Ep." dropped. Give every public function
# and method precise ones: tests/python/test_typing.py fails on an Any.
#
# The names they use that are not classes of Ep are declared here, in stub
# syntax, and gen-stubs.py copies this text into Ep.pyi as it is: they
# exist only for type checkers (ArrayLike and DTypeLike can be used in
# user annotations; the _-names are private).
# ---------------------------------------------------------------------------

_STUB_DECLARATIONS = '''
# What a tensor argument accepts: tensors, Variables (read where used),
# NumPy arrays, nested lists and Python scalars (weak, as in NumPy).
ArrayLike = Union[Tensor, Variable, numpy.typing.ArrayLike]
# What a dtype argument accepts: an Ep.DType, a NumPy name, Python's bool,
# int (int64) and float (float32), or a NumPy type or dtype of those.
DTypeLike = Union[DType, Literal["float32", "float64", "int32", "int64", "bool"],
                  type[bool], type[int], type[float],
                  type[numpy.float32], type[numpy.float64], type[numpy.int32], type[numpy.int64],
                  numpy.dtype[numpy.generic]]
# axis=: one axis, several, or None for all
_AxisLike = Union[int, Sequence[int], None]
# a shape: (2, 3), [2, 3] or 2
_ShapeLike = Union[int, Sequence[int]]
_DeviceLike = Union[Device, str]
# what tapes watch and differentiate with respect to
_TensorLike = Union[Tensor, Variable]
_TensorLikeT = TypeVar("_TensorLikeT", bound=Union[Tensor, Variable])
# integer or bool index arrays (a copy when indexing)
_IndexArray = Union[Tensor, numpy.typing.NDArray[Union[numpy.integer[Any], numpy.bool_]],
                    Sequence[int], Sequence[Sequence[int]]]
# one entry of an index: x[0], x[1:3], x[...], x[None], x[indices]
_IndexItem = Union[SupportsIndex, slice, EllipsisType, None, _IndexArray]
_Index = Union[_IndexItem, tuple[_IndexItem, ...]]
_Unconnected = Union[UnconnectedGradients, Literal["zero", "zeros", "none"], None]
# what a custom gradient function returns: one gradient per input (None: zeros)
_Gradients = Union[Tensor, Variable, None, Sequence[Union[Tensor, Variable, None]]]
# NumPy's arrays and dtypes, named so in class bodies where `numpy` is a method
_NDArray = numpy.typing.NDArray[Any]
_NumPyDTypeLike = numpy.typing.DTypeLike
_Aux = TypeVar("_Aux")
_R_co = TypeVar("_R_co", covariant=True)


class _Function(Protocol[_R_co]):
    """A function of tensors (arrays and numbers are converted)."""
    def __call__(self, *args: ArrayLike) -> _R_co: ...


class _GradFunction(_Function[_R_co], Protocol[_R_co]):
    """What value_and_grad_fn returns: its Ep.ValueAndGradFn is `function`."""
    function: ValueAndGradFn
'''


def _dtype(dtype: DTypeLike) -> Ep.DType:
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


@lru_cache(maxsize=512)
def _cached_literal(kind, value, sign):
    return Ep.Tensor.new_weak_scalar(float(value), kind)


@lru_cache(maxsize=512)
def _float_literal(value, sign):
    return Ep.Tensor.new_weak_scalar(value, Ep.DType.FLOAT64)


@lru_cache(maxsize=512)
def _int_literal(value):
    return Ep.Tensor.new_weak_scalar(float(value), Ep.DType.INT64)


def _literal(value):
    """A weak scalar for a Python number, as NumPy treats Python scalars.

    Tensors are immutable, so literals are made once and reused; the key
    keeps 1, 1.0 and True apart, and 0.0 and -0.0.
    """
    kind = type(value)
    if kind is float and value == value:
        return _float_literal(value, _math.copysign(1.0, value))
    if kind is int:
        return _int_literal(value)
    if isinstance(value, bool):
        return _cached_literal(Ep.DType.BOOL, value, 1.0)
    if isinstance(value, numbers.Integral):
        return _cached_literal(Ep.DType.INT64, int(value), 1.0)
    if isinstance(value, numbers.Real):
        value = float(value)
        if value != value:
            return Ep.Tensor.new_weak_scalar(value, Ep.DType.FLOAT64)
        return _cached_literal(Ep.DType.FLOAT64, value, _math.copysign(1.0, value))
    return None


def _operand(value: ArrayLike) -> Tensor:
    """A tensor argument: tensors as they are, Python numbers as weak
    scalars, anything else through astensor()."""
    if isinstance(value, _Tensor):
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
    if type(axis) is int or isinstance(axis, numbers.Integral):
        return [int(axis)]
    return [int(a) for a in axis]


def _empty_axes(axis):
    return (axis is not None and type(axis) is not int
            and not isinstance(axis, numbers.Integral) and len(axis) == 0)


def _shape(args):
    """A shape from shape(2, 3), shape((2, 3)), shape([2, 3]) or shape(2)."""
    if len(args) == 1 and not isinstance(args[0], numbers.Integral):
        return [int(d) for d in args[0]]
    return [int(d) for d in args]


def _shape_arg(shape):
    if isinstance(shape, numbers.Integral):
        return [int(shape)]
    return [int(d) for d in shape]


# ---------------------------------------------------------------------------
# bindings: Tensor protocols
# ---------------------------------------------------------------------------


def _binary(method, reflected=False):
    def operator(self, other):
        other = _operand(other)
        if reflected:
            return method(other, self)
        return method(self, other)
    operator.__annotations__ = {"other": "ArrayLike", "return": "Tensor"}
    return operator


class Tensor(Ep.Tensor):
    # Properties

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.get_shape())

    @property
    def ndim(self) -> int:
        return self.get_ndim()

    @property
    def dtype(self) -> Ep.DType:
        return self.get_dtype()

    @property
    def size(self) -> int:
        return self.get_size()

    @property
    def device(self) -> Optional[Ep.Device]:
        return self.get_device()

    @property
    def T(self) -> Tensor:
        return Ep.Tensor.transpose(self, None)

    # Conversion

    def numpy(self) -> _NDArray:
        """The elements as a new, writable NumPy array: one copy, from any
        device (Ep.Tensor.read_data into the array's buffer)."""
        import numpy
        array = numpy.empty(self.shape, dtype=Ep.dtype_get_name(self.get_dtype()))
        if array.nbytes > 0:
            Ep.Tensor.read_data(self, array.ctypes.data, array.nbytes)
        return array

    def __array__(self, dtype: Optional[_NumPyDTypeLike] = None) -> _NDArray:
        array = self.numpy()
        return array if dtype is None else array.astype(dtype, copy=False)

    def item(self) -> Union[bool, int, float]:
        """The only element, as a Python bool, int or float."""
        dtype = self.get_dtype()
        if dtype == Ep.DType.BOOL:
            return Ep.Tensor.item_boolean(self)
        if dtype in (Ep.DType.INT32, Ep.DType.INT64):
            return Ep.Tensor.item_int64(self)
        return Ep.Tensor.item_double(self)

    def tolist(self) -> Any:
        return self.numpy().tolist()

    def astype(self, dtype: DTypeLike) -> Tensor:
        return Ep.Tensor.astype(self, _dtype(dtype))

    # Printing: str() as NumPy's str(), repr() as NumPy's repr()

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        if self.is_released():
            return f"<Ep.Tensor (released) shape={self.shape} dtype={Ep.dtype_get_name(self.get_dtype())}>"
        return self.to_repr()

    def __format__(self, spec: str) -> str:
        if spec == "":
            return str(self)
        return format(self.item(), spec)

    # Sequence and scalar protocols

    def __len__(self) -> int:
        if self.get_ndim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.get_shape()[0]

    def __iter__(self) -> Iterator[Tensor]:
        """The rows along the first axis, as views (needs indexing)."""
        for i in range(len(self)):
            yield self[i]

    def __bool__(self) -> bool:
        if self.get_size() != 1:
            raise ValueError("the truth value of a tensor with more than one element is ambiguous")
        return bool(Ep.Tensor.item_boolean(self))

    def __float__(self) -> float:
        return float(Ep.Tensor.item_double(self))

    def __int__(self) -> int:
        return int(Ep.Tensor.item_int64(self))

    def __index__(self) -> int:
        if self.get_dtype() not in (Ep.DType.INT32, Ep.DType.INT64, Ep.DType.BOOL) or self.get_ndim() != 0:
            raise TypeError("only 0-d integer tensors can be used as an index")
        return int(Ep.Tensor.item_int64(self))

    __hash__ = Ep.Tensor.__hash__

    # NumPy defers to the tensor's operators (ndarray + tensor is a
    # tensor); np.asarray(tensor) goes through __array__.
    __array_ufunc__ = None

    # NumPy-style signatures that the automatic ones cannot infer

    def reshape(self, *shape: _ShapeLike) -> Tensor:
        return Ep.Tensor.reshape(self, _shape(shape))

    def transpose(self, *axes: _AxisLike) -> Tensor:
        if len(axes) == 0 or (len(axes) == 1 and axes[0] is None):
            return Ep.Tensor.transpose(self, None)
        return Ep.Tensor.transpose(self, _shape(axes))

    # --- math branch (issue 3): NumPy-style signatures ---


    def clip(self, min: Optional[float] = None, max: Optional[float] = None) -> Tensor:
        """NumPy's clip; None is no bound."""
        return Ep.Tensor.clip(self, -math.inf if min is None else min,
                              math.inf if max is None else max)


    def argmin(self, axis: _AxisLike = None, keepdims: bool = False) -> Tensor:
        return Ep.Tensor.argmin(self, _axes(axis), keepdims)

    def argmax(self, axis: _AxisLike = None, keepdims: bool = False) -> Tensor:
        return Ep.Tensor.argmax(self, _axes(axis), keepdims)

    def cumsum(self, axis: Optional[int] = None) -> Tensor:
        return Ep.Tensor.cumsum(self, _axes(axis))

    def sort(self, axis: Optional[int] = -1) -> Tensor:
        """axis=None sorts the flattened tensor, as in NumPy."""
        if axis is None:
            return Ep.Tensor.sort(Ep.Tensor.reshape(self, [-1]), 0)
        return Ep.Tensor.sort(self, axis)

    def argsort(self, axis: Optional[int] = -1) -> Tensor:
        if axis is None:
            return Ep.Tensor.argsort(Ep.Tensor.reshape(self, [-1]), 0)
        return Ep.Tensor.argsort(self, axis)

    def topk(self, k: int, sorted: bool = True) -> tuple[Tensor, Tensor]:
        """(values, indices) of the k largest along the last axis."""
        _, values, indices = Ep.Tensor.topk(self, k, sorted)
        return values, indices

    def softmax(self, axis: int = -1) -> Tensor:
        return Ep.Tensor.softmax(self, axis)

    def log_softmax(self, axis: int = -1) -> Tensor:
        return Ep.Tensor.log_softmax(self, axis)

    def crossentropy(self, labels: ArrayLike) -> Tensor:
        return Ep.Tensor.crossentropy(self, _operand(labels))

    def onehot_like(self, indices: ArrayLike, value: float = 1) -> Tensor:
        return Ep.Tensor.onehot_like(self, _operand(indices), value)

    __floordiv__ = _binary(Ep.Tensor.floordiv)
    __rfloordiv__ = _binary(Ep.Tensor.floordiv, reflected=True)
    __mod__ = _binary(Ep.Tensor.mod)
    __rmod__ = _binary(Ep.Tensor.mod, reflected=True)

    # --- end of math branch ---

    # opencl: devices by name
    def to_device(self, device: _DeviceLike) -> Tensor:
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
    __eq__ = _binary(Ep.Tensor.equal)  # type: ignore[assignment]
    __ne__ = _binary(Ep.Tensor.not_equal)  # type: ignore[assignment]
    __gt__ = _binary(Ep.Tensor.greater)
    __ge__ = _binary(Ep.Tensor.greater_equal)

    def __neg__(self) -> Tensor:
        return self.neg()

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return self.abs()


# Binary operators that the C library grows get their dunder automatically.
_OPERATOR_METHODS = {
    "floordiv": ("__floordiv__", "__rfloordiv__"),
    "mod": ("__mod__", "__rmod__"),
    "logical_and": ("__and__", "__rand__"),
    "logical_or": ("__or__", "__ror__"),
}
for _name, (_forward, _reflected) in _OPERATOR_METHODS.items():
    _method = getattr(Ep.Tensor, _name, None)
    if _method is not None and _forward not in Tensor.__dict__:
        setattr(Tensor, _forward, _binary(_method))
        setattr(Tensor, _reflected, _binary(_method, reflected=True))
if hasattr(Ep.Tensor, "logical_not") and "__invert__" not in Tensor.__dict__:
    def _invert(self: Tensor) -> Tensor:
        return Ep.Tensor.logical_not(self)
    Tensor.__invert__ = _invert


def astensor(value: ArrayLike, dtype: Optional[DTypeLike] = None) -> Tensor:
    """A tensor from a tensor, a NumPy array, a nested list or a scalar.

    Data crosses with one copy (Ep.Tensor.new_from_data from the array's
    buffer). Without dtype, a NumPy array keeps its dtype, Python floats
    become float32 (the default) and Python ints int64; dtypes eager-glib
    does not have become float64 (floats) or int64 (integers).
    """
    import numpy
    dtype = _dtype(dtype)
    if isinstance(value, Ep.Tensor):
        return value if dtype is None else value.astype(dtype)
    array = numpy.asarray(value)
    if dtype is not None:
        array = array.astype(Ep.dtype_get_name(dtype), copy=False)
    elif not isinstance(value, (numpy.ndarray, numpy.generic)) and array.dtype == numpy.float64:
        array = array.astype(numpy.float32)
    if array.dtype.name not in _NUMPY_NAMES:
        if array.dtype.kind == "f":
            array = array.astype(numpy.float64)
        elif array.dtype.kind in "iu":
            array = array.astype(numpy.int64)
        else:
            raise TypeError(f"cannot make a tensor of {array.dtype}")
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    if not array.flags.c_contiguous:
        array = array.copy(order="C")  # (ascontiguousarray makes 0-d 1-d)
    return Ep.Tensor.new_from_data(array.ctypes.data, array.nbytes,
                                   _NUMPY_NAMES[array.dtype.name], list(array.shape))


__all__.append("astensor")


def arange(start: float, stop: Optional[float] = None, step: float = 1,
           dtype: Optional[DTypeLike] = None) -> Tensor:
    """NumPy's arange: integer arguments give int64, others float32."""
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        integral = all(isinstance(v, numbers.Integral) for v in (start, stop, step))
        dtype = Ep.DType.INT64 if integral else Ep.DType.FLOAT32
    return Ep.arange(start, stop, step, _dtype(dtype))


def where(condition: ArrayLike, x: ArrayLike, y: ArrayLike) -> Tensor:
    return _operand(condition).where(x, y)


__all__ += ["arange", "where"]


# ---------------------------------------------------------------------------
# bindings: automatic signatures
#
# Every C method of Ep.Tensor and every namespace function that no section
# of this file defines gets a thin wrapper, generated from its
# introspection data, that gives it NumPy's conventions:
#   - a tensor argument also takes Python numbers (weak scalars), lists
#     and NumPy arrays;
#   - `axes` (with its length) becomes `axis=None`: an int, a sequence,
#     or None for all; `axis=()` of a reduction (followed by `keepdims`)
#     reduces nothing;
#   - `keepdims` defaults to False;
#   - a dtype takes NumPy dtypes and names, and defaults to float32 where
#     it is the last argument of a namespace function (zeros, ones, ...);
#   - a shape takes an int or a sequence;
#   - trailing nullable arguments default to None.
# Methods with nothing to adapt stay PyGObject's own. The wrappers are
# compiled once at import, so a call costs one extra Python frame.
# ---------------------------------------------------------------------------

_TYPE_NAMES = {
    "gboolean": "bool", "gint8": "int", "guint8": "int", "gint16": "int", "guint16": "int",
    "gint32": "int", "guint32": "int", "gint64": "int", "guint64": "int",
    "gfloat": "float", "gdouble": "float", "utf8": "str", "filename": "str",
}


def _type_hint(type_info, nullable):
    """The stub annotation of an argument or return type."""
    tag = type_info.get_tag_as_string()
    if tag == "array":
        hint = f"Sequence[{_type_hint(type_info.get_param_type(0), False)}]"
    elif tag == "interface":
        info = type_info.get_interface()
        namespace, name = info.get_namespace(), info.get_name()
        hint = name if namespace == "Ep" else f"{namespace}.{name}"
    else:
        hint = _TYPE_NAMES.get(tag, "Any")
    return f"Optional[{hint}]" if nullable else hint


def _is_tensor_type(type_info):
    if type_info.get_tag_as_string() != "interface":
        return False
    info = type_info.get_interface()
    return info.get_namespace() == "Ep" and info.get_name() == "Tensor"


def _is_dtype_type(type_info):
    if type_info.get_tag_as_string() != "interface":
        return False
    info = type_info.get_interface()
    return info.get_namespace() == "Ep" and info.get_name() == "DType"


def _adapt(info, is_method):
    """Python source of a NumPy-style wrapper of `info` and its
    annotations, or None when PyGObject's own signature is as good."""
    args = list(info.get_arguments())
    hidden = set()
    for arg in args:
        type_info = arg.get_type()
        if type_info.get_tag_as_string() == "array" and type_info.get_array_length() >= 0:
            hidden.add(type_info.get_array_length())
        for index in (arg.get_closure(), arg.get_destroy()):
            if index >= 0:
                hidden.add(index)
    visible = [(i, a) for i, a in enumerate(args)
               if i not in hidden and a.get_direction() == 0]  # GI_DIRECTION_IN
    if any(a.get_direction() != 0 for a in args):
        return None
    if any(a.get_type().get_tag_as_string() == "interface"
           and type(a.get_type().get_interface()).__name__ == "CallbackInfo" for _, a in visible):
        return None

    params, call, notes = [], [], {}
    reduction_axis = None
    adapted = False
    names = [a.get_name() for _, a in visible]
    for position, (index, arg) in enumerate(visible):
        name = arg.get_name()
        type_info = arg.get_type()
        tag = type_info.get_tag_as_string()
        nullable = arg.may_be_null()
        rest_nullable = all(a.may_be_null() for _, a in visible[position:])
        default = None
        hint = _type_hint(type_info, nullable)
        expression = name
        if _is_tensor_type(type_info):
            expression = f"_operand({name})"
            hint = "ArrayLike"
            adapted = True
        elif tag == "array" and name == "axes" and type_info.get_param_type(0).get_tag_as_string() == "gint32":
            name = "axis"
            hint = "_AxisLike"
            default = "None"
            expression = "_axes(axis)"
            adapted = True
            if position + 1 < len(names) and names[position + 1] == "keepdims" and is_method:
                reduction_axis = position
        elif tag == "array" and name == "shape":
            hint = "_ShapeLike"
            expression = f"_shape_arg({name})"
            adapted = True
        elif name == "keepdims" and tag == "gboolean":
            default = "False"
            adapted = True
        elif _is_dtype_type(type_info):
            hint = "DTypeLike"
            expression = f"_dtype({name})"
            adapted = True
            if (not is_method and name == "dtype" and position == len(visible) - 1
                    and _is_tensor_type(info.get_return_type())):
                default = "Ep.DType.FLOAT32"
        if default is None and nullable and rest_nullable:
            default = "None"
        params.append(name if default is None else f"{name}={default}")
        call.append(expression)
        notes[name] = hint
    if not adapted:
        return None
    # a parameter without a default after one with a default: drop defaults before it
    seen_required = False
    for i in range(len(params) - 1, -1, -1):
        if "=" not in params[i]:
            seen_required = True
        elif seen_required:
            params[i] = params[i].split("=")[0]
    head = (["self"] if is_method else []) + params
    lines = [f"return _f({', '.join((['self'] if is_method else []) + call)})"]
    if reduction_axis is not None:
        # reducing over no axes: reduce a new leading axis of length 1
        empty = call[:reduction_axis] + ["[0]", "False"] + call[reduction_axis + 2:]
        lines.insert(0, f"if _empty_axes(axis): return _f(Ep.Tensor.expand_dims(self, 0), {', '.join(empty)})")
    body = "\n    ".join(lines)
    source = f"def {info.get_name()}({', '.join(head)}):\n    {body}\n"
    return_type = info.get_return_type()
    notes["return"] = ("None" if return_type.get_tag_as_string() == "void"
                       else "Tensor" if _is_tensor_type(return_type)
                       else _type_hint(return_type, info.may_return_null()))
    return source, notes


def _wrap(info, is_method):
    adapted = _adapt(info, is_method)
    if adapted is None:
        return None
    source, notes = adapted
    scope = dict(globals(), _f=info)
    exec(compile(source, f"<Ep override: {info.get_name()}>", "exec"), scope)
    wrapper = scope[info.get_name()]
    wrapper.__annotations__ = notes
    wrapper.__doc__ = f"NumPy-style wrapper of Ep.{'Tensor.' if is_method else ''}{info.get_name()}."
    wrapper.__wrapped_gi__ = info
    return wrapper


def _wrap_all():
    for name, value in vars(Ep.Tensor).items():
        if name in Tensor.__dict__ or not hasattr(value, "get_arguments"):
            continue
        if not value.is_method():
            continue
        wrapper = _wrap(value, True)
        if wrapper is not None:
            setattr(Tensor, name, wrapper)
    for name in dir(Ep):
        if name.startswith("_") or name in globals():
            continue
        value = getattr(Ep, name)
        if not hasattr(value, "get_arguments"):
            continue
        wrapper = _wrap(value, False)
        if wrapper is not None:
            globals()[name] = wrapper
            __all__.append(name)


# ---------------------------------------------------------------------------
# (math, shape, autodiff and opencl sections go here, before the end)
# ---------------------------------------------------------------------------

# --- math branch (issue 3) ---

def minimum(a: ArrayLike, b: ArrayLike) -> Tensor:
    return _operand(a).minimum(b)


def maximum(a: ArrayLike, b: ArrayLike) -> Tensor:
    return _operand(a).maximum(b)


def clip(x: ArrayLike, min: Optional[float] = None, max: Optional[float] = None) -> Tensor:
    return _operand(x).clip(min, max)


def linspace(start: float, stop: float, num: int = 50, endpoint: bool = True,
             dtype: DTypeLike = Ep.DType.FLOAT32) -> Tensor:
    return Ep.linspace(start, stop, num, endpoint, _dtype(dtype))


def eye(N: int, M: Optional[int] = None, k: int = 0, dtype: DTypeLike = Ep.DType.FLOAT32) -> Tensor:
    return Ep.eye(N, N if M is None else M, k, _dtype(dtype))


def _random_shape(shape):
    return [shape] if isinstance(shape, numbers.Integral) else list(shape)


def uniform(shape: _ShapeLike, low: float = 0.0, high: float = 1.0,
            dtype: DTypeLike = Ep.DType.FLOAT32) -> Tensor:
    """Seeded by Ep.set_seed; the same numbers on every device."""
    return Ep.uniform(_random_shape(shape), low, high, _dtype(dtype))


def normal(shape: _ShapeLike, mean: float = 0.0, stddev: float = 1.0,
           dtype: DTypeLike = Ep.DType.FLOAT32) -> Tensor:
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


def _getitem(self: Tensor, key: _Index) -> Tensor:
    """NumPy indexing. Integers, slices (any step), None and Ellipsis give
    a view; integer and boolean index arrays (tensors, NumPy arrays,
    lists) give a copy, with NumPy's rules for where their dimensions go.
    An integer out of range raises IndexError; an index array out of
    range raises the library's index error."""
    items = _normalize_key(self, key)
    if any(isinstance(k, Ep.Tensor) for k in items):
        return _advanced_index(self, items)
    return _basic_index(self, items)


def _flatten(self: Tensor, start: int = 0, end: int = -1) -> Tensor:
    return Ep.Tensor.flatten(self, start, end)


def _broadcast_to(self: Tensor, *shape: _ShapeLike) -> Tensor:
    return Ep.Tensor.broadcast_to(self, _shape(shape))


def _flip(self: Tensor, axis: _AxisLike = None) -> Tensor:
    return Ep.Tensor.flip(self, _axes(axis))


def _slice(self: Tensor, starts: Sequence[Optional[int]], stops: Sequence[Optional[int]],
           steps: Optional[Sequence[Optional[int]]] = None) -> Tensor:
    """ep_tensor_slice with None for omitted bounds, as in Python."""
    starts, stops = list(starts), list(stops)
    steps = [1] * len(starts) if steps is None else [1 if s is None else _clamp64(s) for s in steps]
    bounds = [_slice_bounds(slice(a, b, c), 0) for a, b, c in zip(starts, stops, steps)]
    return Ep.Tensor.slice(self, [b[0] for b in bounds], [b[1] for b in bounds], [b[2] for b in bounds])


def _split(self: Tensor, indices_or_sections: Union[int, Sequence[int]], axis: int = 0) -> list[Tensor]:
    if isinstance(indices_or_sections, numbers.Integral):
        return Ep.Tensor.split(self, int(indices_or_sections), axis)
    return Ep.Tensor.split_at(self, [int(i) for i in indices_or_sections], axis)


def _tile(self: Tensor, reps: _ShapeLike) -> Tensor:
    if isinstance(reps, numbers.Integral):
        reps = [reps]
    return Ep.Tensor.tile(self, [int(r) for r in reps])


_PAD_MODES = {"constant": Ep.PadMode.CONSTANT, "reflect": Ep.PadMode.REFLECT}


def _pad(self: Tensor, pad_width: Union[int, Sequence[int], Sequence[Sequence[int]]],
         mode: Union[Literal["constant", "reflect"], Ep.PadMode] = "constant",
         constant_values: float = 0) -> Tensor:
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


def _take(self: Tensor, indices: Union[int, _IndexArray], axis: Optional[int] = None) -> Tensor:
    """NumPy's take; axis=None takes from the flattened tensor."""
    indices = _index_array(indices) if not isinstance(indices, numbers.Integral) else \
        astensor(indices, int64)
    if indices is None:
        raise TypeError("indices must be integers")
    if axis is None:
        return Ep.Tensor.take(Ep.Tensor.flatten(self, 0, -1), indices, 0)
    return Ep.Tensor.take(self, indices, axis)


def _take_along_axis(self: Tensor, indices: _IndexArray, axis: Optional[int]) -> Tensor:
    indices = _index_array(indices)
    if axis is None:
        return Ep.Tensor.take_along_axis(Ep.Tensor.flatten(self, 0, -1),
                                         Ep.Tensor.flatten(indices, 0, -1), 0)
    return Ep.Tensor.take_along_axis(self, indices, axis)


def _scatter(method):
    def scatter(self: Tensor, indices: Union[int, _IndexArray], values: ArrayLike, axis: int = 0) -> Tensor:
        if isinstance(indices, numbers.Integral):
            indices = astensor(indices, int64)
        return method(self, _index_array(indices), _operand(values), axis)
    return scatter


def _mask(self: Tensor, mask: _IndexArray) -> Tensor:
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


def concatenate(tensors: Sequence[ArrayLike], axis: Optional[int] = 0) -> Tensor:
    """NumPy's concatenate; axis=None joins the flattened tensors."""
    tensors = [astensor(t) for t in tensors]
    if axis is None:
        tensors = [Ep.Tensor.flatten(t, 0, -1) for t in tensors]
        axis = 0
    return Ep.concatenate(tensors, axis)


def stack(tensors: Sequence[ArrayLike], axis: int = 0) -> Tensor:
    return Ep.stack([astensor(t) for t in tensors], axis)


_MESH_INDEXING = {"xy": Ep.MeshIndexing.XY, "ij": Ep.MeshIndexing.IJ}


def meshgrid(*tensors: ArrayLike, indexing: Literal["xy", "ij"] = "xy") -> list[Tensor]:
    """NumPy's meshgrid: broadcast views, one per input."""
    try:
        indexing = _MESH_INDEXING[indexing]
    except KeyError:
        raise ValueError(f"indexing must be 'xy' or 'ij', not {indexing!r}") from None
    return Ep.meshgrid([astensor(t) for t in tensors], indexing)


def dot(a: ArrayLike, b: ArrayLike) -> Tensor:
    return Ep.Tensor.dot(_operand(a), _operand(b))


def outer(a: ArrayLike, b: ArrayLike) -> Tensor:
    return Ep.Tensor.outer(_operand(a), _operand(b))


__all__ += ["concatenate", "stack", "meshgrid", "dot", "outer"]


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


@overload
def value_and_grad(f: Callable[..., _TensorLike], *args: ArrayLike,
                   argnums: int = 0) -> tuple[Tensor, Tensor]: ...
@overload  # noqa: E302
def value_and_grad(f: Callable[..., _TensorLike], *args: ArrayLike,
                   argnums: Sequence[int]) -> tuple[Tensor, tuple[Tensor, ...]]: ...


def value_and_grad(f, *args, argnums=0):
    """(f(*args), gradient): the gradient of the sum of f's result with
    respect to argument `argnums` (an int: one tensor; a tuple: a tuple).
    f returns a tensor; it may use any Python control flow."""
    positions, several = _argnums(argnums)
    call = _Differentiated(f, "value_and_grad", False)
    inputs = [_as_tensor(a) for a in args]
    value, grads = call.invoke(lambda: Ep.value_and_grad(call, None, inputs, positions))
    return call.finish(value, None, grads, several)


@overload
def value_aux_and_grad(f: Callable[..., tuple[_TensorLike, _Aux]], *args: ArrayLike,
                       argnums: int = 0) -> tuple[Tensor, _Aux, Tensor]: ...
@overload  # noqa: E302
def value_aux_and_grad(f: Callable[..., tuple[_TensorLike, _Aux]], *args: ArrayLike,
                       argnums: Sequence[int]) -> tuple[Tensor, _Aux, tuple[Tensor, ...]]: ...


def value_aux_and_grad(f, *args, argnums=0):
    """(value, aux, gradient) for f returning (value, aux): aux is returned
    as computed (tensors cross C; anything else is kept as is)."""
    positions, several = _argnums(argnums)
    call = _Differentiated(f, "value_aux_and_grad", True)
    inputs = [_as_tensor(a) for a in args]
    value, aux, grads = call.invoke(
        lambda: Ep.value_aux_and_grad(call, None, inputs, positions))
    return call.finish(value, aux, grads, several)


@overload
def grad(f: Callable[..., _TensorLike], argnums: int = 0) -> _Function[Tensor]: ...
@overload  # noqa: E302
def grad(f: Callable[..., _TensorLike], argnums: Sequence[int]) -> _Function[tuple[Tensor, ...]]: ...


def grad(f, argnums=0):
    """The function computing only the gradient of f (JAX's grad)."""
    def gradient(*args):
        return value_and_grad(f, *args, argnums=argnums)[1]
    return functools.wraps(f)(gradient)


@overload
def value_and_grad_fn(f: Callable[..., _TensorLike], argnums: int = 0,
                      has_aux: Literal[False] = False) -> _GradFunction[tuple[Tensor, Tensor]]: ...
@overload  # noqa: E302
def value_and_grad_fn(f: Callable[..., _TensorLike], argnums: Sequence[int],
                      has_aux: Literal[False] = False) -> _GradFunction[tuple[Tensor, tuple[Tensor, ...]]]: ...
@overload  # noqa: E302
def value_and_grad_fn(f: Callable[..., tuple[_TensorLike, _Aux]], argnums: int = 0, *,
                      has_aux: Literal[True]) -> _GradFunction[tuple[Tensor, _Aux, Tensor]]: ...
@overload  # noqa: E302
def value_and_grad_fn(f: Callable[..., tuple[_TensorLike, _Aux]], argnums: int,
                      has_aux: Literal[True]) -> _GradFunction[tuple[Tensor, _Aux, Tensor]]: ...
@overload  # noqa: E302
def value_and_grad_fn(f: Callable[..., tuple[_TensorLike, _Aux]], argnums: Sequence[int],
                      has_aux: Literal[True]) -> _GradFunction[tuple[Tensor, _Aux, tuple[Tensor, ...]]]: ...


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


def stop_gradient(x: ArrayLike) -> Tensor:
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


@overload
def custom_gradient(f: Callable[..., tuple[_TensorLike, Callable[[Tensor], _Gradients]]],
                    backward: None = None) -> _Function[Tensor]: ...
@overload  # noqa: E302
def custom_gradient(f: Callable[..., _TensorLike],
                    backward: Callable[[tuple[Tensor, ...], Tensor, Tensor], _Gradients]) -> _Function[Tensor]: ...
@overload  # noqa: E302
def custom_gradient(f: None = None, *,
                    backward: Callable[[tuple[Tensor, ...], Tensor, Tensor], _Gradients]
                    ) -> Callable[[Callable[..., _TensorLike]], _Function[Tensor]]: ...
@overload  # noqa: E302
def custom_gradient(f: None = None, backward: None = None
                    ) -> Callable[[Callable[..., tuple[_TensorLike, Callable[[Tensor], _Gradients]]]],
                                  _Function[Tensor]]: ...


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

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True,
                 unconnected_gradients: _Unconnected = None) -> None:
        Ep.GradientTape.__init__(self, persistent=persistent,
                                 watch_accessed_variables=watch_accessed_variables)
        if unconnected_gradients is not None:
            self.set_unconnected_gradients(_unconnected(unconnected_gradients))

    def __enter__(self) -> GradientTape:
        self.start()
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self.stop()
        return False

    def watch(self, value: Union[_TensorLike, Sequence[_TensorLike]]) -> None:
        """Watches a tensor or Variable, or each of a list of them."""
        for item in (value if _is_sequence(value) else [value]):
            if isinstance(item, Ep.Variable):
                self.watch_variable(item)
            else:
                Ep.GradientTape.watch(self, item)

    def stop_recording(self) -> ContextManager[GradientTape]:
        """Pauses now; `with tape.stop_recording():` resumes at the end."""
        Ep.GradientTape.stop_recording(self)
        return _Resume(self)

    def watched_variables(self) -> tuple[Variable, ...]:
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

    # The gradients are None, not tensors, for sources the targets do not
    # depend on when the tape answers None (unconnected_gradients="none"):
    # typed Tensor all the same, as they are zeros by default.
    @overload
    def gradient(self, target: Union[_TensorLike, Sequence[_TensorLike]], sources: _TensorLike,
                 output_gradients: Union[ArrayLike, Sequence[ArrayLike], None] = None,
                 unconnected_gradients: _Unconnected = None) -> Tensor: ...
    @overload  # noqa: E301
    def gradient(self, target: Union[_TensorLike, Sequence[_TensorLike]], sources: list[_TensorLikeT],
                 output_gradients: Union[ArrayLike, Sequence[ArrayLike], None] = None,
                 unconnected_gradients: _Unconnected = None) -> list[Tensor]: ...
    @overload  # noqa: E301
    def gradient(self, target: Union[_TensorLike, Sequence[_TensorLike]], sources: tuple[_TensorLike, ...],
                 output_gradients: Union[ArrayLike, Sequence[ArrayLike], None] = None,
                 unconnected_gradients: _Unconnected = None) -> tuple[Tensor, ...]: ...

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

    def jacobian(self, target: _TensorLike, source: _TensorLike,
                 unconnected_gradients: _Unconnected = None) -> Tensor:
        return self._with_unconnected(
            unconnected_gradients,
            lambda: _call(Ep.GradientTape.jacobian, self, _as_tensor(target), source))

    def batch_jacobian(self, target: _TensorLike, source: _TensorLike,
                       unconnected_gradients: _Unconnected = None) -> Tensor:
        return self._with_unconnected(
            unconnected_gradients,
            lambda: _call(Ep.GradientTape.batch_jacobian, self, _as_tensor(target), source))


GradientTape = override(GradientTape)


def _variable_operator(name):
    """A Tensor operator on the variable's value, read when it is used
    (with the Tensor operator's signature, for the stubs)."""
    def operator(self, *args):
        return getattr(Tensor, name)(self.read(), *args)
    operator.__wrapped__ = getattr(Tensor, name)
    return operator


class Variable(Ep.Variable):
    """Ep.Variable(initial_value, name=None, trainable=True, dtype=None).

    Reads happen where a tensor is needed (operators, ops of the override)
    or with read(); a trainable variable read under a tape is watched."""

    def __init__(self, initial_value: Optional[ArrayLike] = None, name: Optional[str] = None,
                 trainable: bool = True, dtype: Optional[DTypeLike] = None) -> None:
        value = None if initial_value is None else astensor(_as_tensor(initial_value), dtype)
        Ep.Variable.__init__(self, initial_value=value, name=name, trainable=trainable)

    @property
    def name(self) -> Optional[str]:
        return self.get_name()

    @property
    def trainable(self) -> bool:
        return self.get_trainable()

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self.set_trainable(bool(value))

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.get_shape())

    @property
    def ndim(self) -> int:
        return len(self.get_shape())

    @property
    def dtype(self) -> Ep.DType:
        return self.get_dtype()

    @property
    def device(self) -> Ep.Device:
        return self.get_device()

    def assign(self, value: ArrayLike) -> bool:
        return Ep.Variable.assign(self, _operand(value))

    def assign_add(self, delta: ArrayLike) -> bool:
        return Ep.Variable.assign_add(self, _operand(delta))

    def assign_sub(self, delta: ArrayLike) -> bool:
        return Ep.Variable.assign_sub(self, _operand(delta))

    def numpy(self) -> _NDArray:
        return self.read().numpy()

    def item(self) -> Union[bool, int, float]:
        return self.read().item()

    def __array__(self, dtype: Optional[_NumPyDTypeLike] = None) -> _NDArray:
        return self.read().__array__(dtype)

    def __repr__(self) -> str:
        return (f"Ep.Variable({self.read().to_string()}, name={self.get_name()!r}, "
                f"dtype={Ep.dtype_get_name(self.get_dtype())})")

    def __getattr__(self, name: str) -> Any:
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


# ---------------------------------------------------------------------------
# bindings: the end. Generated wrappers fill what the sections above left.
# ---------------------------------------------------------------------------

_wrap_all()
Tensor = override(Tensor)
__all__.append("Tensor")


# opencl: devices and device scopes

class Device(Ep.Device):
    def __repr__(self) -> str:
        return f"Ep.Device({self.get_name()!r})"

    def __str__(self) -> str:
        return self.get_name()


Device = override(Device)
__all__.append("Device")


def _device(device: Union[Ep.Device, str]) -> Ep.Device:
    """An Ep.Device from an Ep.Device or a name such as "opencl:0"."""
    if isinstance(device, Ep.Device):
        return device
    return Ep.Device.get(str(device))


class device:
    """A device scope: ops inside run on that device, and their inputs are
    copied there when they live elsewhere; views stay with their input
    and to_device goes where it is told.

        with Ep.device("opencl:0"):
            y = (x @ w).relu()      # on opencl:0, x and w copied there

    Scopes nest; the scope is per thread. Entering returns the Ep.Device;
    leaving closes that device's scope, which must be the innermost one
    (a scope pushed inside and left open is a GLib.Error on leaving).
    """

    def __init__(self, device: _DeviceLike) -> None:
        self._device = _device(device)

    def __enter__(self) -> Ep.Device:
        self._device.push()
        return self._device

    def __exit__(self, *exc_info: object) -> Literal[False]:
        self._device.pop()
        return False


__all__ += ["device"]
