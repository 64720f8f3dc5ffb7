# Ep.py: the Python face of eager-glib
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The op wrappers are generated from the op catalogue (Ep.list_ops(): the
# schema every op declares in C), so that a new op needs no Python. What
# Python semantics need beyond them is written here by hand, each in one
# place. Every function here is a thin call into the C function of the
# same meaning; none changes what a C function does (PyGObject's override
# guidelines: patch onto the class, keep it thin).
#
# Sections, in this order:
#   dtypes                   Ep.float32 ..., NumPy names of dtypes
#   annotation types         the names the annotations use (for the stubs)
#   conversions              what a tensor, index, axes, shape ... argument
#                            accepts, and astensor()
#   the type mapping         schema type -> (annotation, conversion): the
#                            only place that maps the schema to Python
#   op wrappers              the generator: one wrapper per catalogue entry,
#                            compiled once at import
#   indexing                 __getitem__ (NumPy's basic and advanced
#                            indexing) and slice() with Python's bounds
#   Tensor                   properties, NumPy protocols, printing
#   operators                one table of dunders
#   NumPy forms the schema cannot express
#                            reshape(*shape), transpose(*axes),
#                            broadcast_to(*shape), split, pad, and the
#                            functions arange, eye, meshgrid, split, pad,
#                            transpose
#   automatic differentiation, devices, staged functions (Ep.function),
#   modules (Ep.Module and the layers), and the end (wrappers installed)
#
# Annotations here are read by gen-stubs.py, which writes Ep.pyi from the
# GIR and this module at build time: keep them on hand-written functions.

from __future__ import annotations

import ctypes
import math
import numbers
import operator
import os
from functools import lru_cache
from typing import (TYPE_CHECKING, Any, Callable, ContextManager, Generic, Iterator,
                    Literal, Optional, ParamSpec, Sequence, TypeVar, Union, overload)

import gi._gi
from gi.module import get_introspection_module
from gi.repository import Gio, GLib

from ..overrides import override

if TYPE_CHECKING:  # names used in annotations only (see "annotation types")
    import numpy
    import numpy.typing

Ep = get_introspection_module("Ep")
_Tensor = Ep.Tensor

# Messages of the library's errors come from its catalogs (the gettext
# domain eager-glib, bound where C binds it), so that a German user reads
# this layer's messages in German too; po/POTFILES.in lists this file.
_DOMAIN = "eager-glib"


def _(message: str) -> str:
    return GLib.dgettext(_DOMAIN, message)


def _n(singular: str, plural: str, n: int) -> str:
    return GLib.dngettext(_DOMAIN, singular, plural, n)


def _ep_error(code, message):
    return GLib.Error.new_literal(Ep.error_quark(), message, int(code))


def _renamed(error: GLib.Error, caller: str) -> GLib.Error:
    """error, raised by a C function that a Python method calls, naming
    the method the user called: item() reads "item: ...", not
    "item_double: ..." (as ep_error_rename_call() does in C)."""
    name, colon, rest = error.message.partition(": ")
    if not colon or not name or not all(c.islower() or c.isdigit() or c == "_" for c in name):
        return error
    return GLib.Error.new_literal(GLib.quark_from_string(error.domain), f"{caller}: {rest}", error.code)

__all__ = []

# ---------------------------------------------------------------------------
# errors: Ep.Error and its subclasses
#
# Every error of the library is a GLib.Error of the domain EP_ERROR
# ("ep-error"); Python raises it as the subclass of Ep.Error that its code
# names, which also derives from the builtin exception a NumPy user
# catches: shape, dtype and invalid-argument errors are ValueErrors, axis
# errors ValueErrors and IndexErrors (as NumPy's AxisError), index errors
# IndexErrors, out-of-memory errors MemoryErrors. `except GLib.Error`
# catches them all, with domain, code and message as C set them.
#
# One place converts, for every call: PyGObject makes the exception of a
# GError by calling GLib.Error(message, domain, code) (gi/pygi-error.c;
# PyGObject 3.42 has no table of exception classes by domain), and so does
# GLib.Error.new_literal, so GLib.Error.__new__ picks the class here, by
# domain and code; every other domain keeps GLib.Error. Nothing runs on
# the success path. (PyGObject's own GLib override patches GLib.Error so:
# matches, new_literal.) Wrong argument types stay TypeErrors: PyGObject
# raises those itself, and so does this layer.
# ---------------------------------------------------------------------------

_ERROR_DOMAIN = GLib.quark_to_string(Ep.error_quark())
_ERROR_CLASSES = {}       # code -> subclass of Error


class Error(GLib.Error):
    """An error of eager-glib: a GLib.Error of the domain "ep-error"; its
    subclass says what went wrong (Ep.Error.SHAPE ... are the codes)."""

    _code = Ep.Error.INVALID_ARGUMENT

    def __init__(self, message: str = "unknown error", domain: str = _ERROR_DOMAIN,
                 code: Optional[int] = None) -> None:
        super().__init__(message, domain, int(self._code) if code is None else code)

    def __repr__(self) -> str:
        return f"Ep.{type(self).__name__}({self.message!r}, {self.domain!r}, {self.code})"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _ERROR_CLASSES.setdefault(int(cls._code), cls)


# the codes, where they were before this class took the name: Ep.Error.SHAPE
for _code in Ep.Error.__enum_values__.values():
    setattr(Error, _code.value_nick.replace("-", "_").upper(), _code)
del _code


class ShapeError(Error, ValueError):
    """Shapes do not fit together (broadcasting, matmul, reshape): Ep.Error.SHAPE."""
    _code = Ep.Error.SHAPE


class DTypeError(Error, ValueError):
    """An operation does not take this element type: Ep.Error.DTYPE."""
    _code = Ep.Error.DTYPE


class AxisError(Error, ValueError, IndexError):
    """An axis is out of range or repeated: Ep.Error.AXIS (as NumPy's
    AxisError, a ValueError and an IndexError)."""
    _code = Ep.Error.AXIS


class OutOfRangeError(Error, IndexError):
    """An index is out of range: Ep.Error.INDEX."""
    _code = Ep.Error.INDEX


class DeviceError(Error):
    """A device is missing, failed, or cannot run an operation: Ep.Error.DEVICE."""
    _code = Ep.Error.DEVICE


class OutOfMemoryError(Error, MemoryError):
    """A buffer could not be allocated: Ep.Error.OUT_OF_MEMORY."""
    _code = Ep.Error.OUT_OF_MEMORY


class GradientError(Error):
    """A gradient cannot be computed: Ep.Error.GRADIENT."""
    _code = Ep.Error.GRADIENT


class InvalidArgumentError(Error, ValueError):
    """Any other invalid argument: Ep.Error.INVALID_ARGUMENT."""
    _code = Ep.Error.INVALID_ARGUMENT


class FileError(Error):
    """A file could not be read or written: Ep.Error.IO."""
    _code = Ep.Error.IO


class FormatError(Error):
    """A file was read but is not what it should be: Ep.Error.FORMAT."""
    _code = Ep.Error.FORMAT


# distributed (issue 18)
class CommunicationError(Error):
    """Processes could not work together: another process failed or did
    not join a collective within the communicator's timeout:
    Ep.Error.COMMUNICATION."""
    _code = Ep.Error.COMMUNICATION


# named where users import them (tracebacks, pickle): gi.repository.Ep.ShapeError
for _cls in (Error, *_ERROR_CLASSES.values()):
    _cls.__module__ = "gi.repository.Ep"
del _cls


def _gerror_new(cls, *args, **kwargs):
    """GLib.Error.__new__: the subclass of Ep.Error of an ep-error."""
    if cls is _GError_class:
        domain = args[1] if len(args) > 1 else kwargs.get("domain")
        if domain == _ERROR_DOMAIN:
            code = args[2] if len(args) > 2 else kwargs.get("code", 0)
            cls = _ERROR_CLASSES.get(code, Error)
    return RuntimeError.__new__(cls, *args, **kwargs)


_GError_class = GLib.Error
GLib.Error.__new__ = staticmethod(_gerror_new)

__all__ += ["Error", "ShapeError", "DTypeError", "AxisError", "OutOfRangeError", "DeviceError",
           "OutOfMemoryError", "GradientError", "InvalidArgumentError", "FileError", "FormatError"]
__all__ += ["CommunicationError"]   # distributed (issue 18)

# ---------------------------------------------------------------------------
# dtypes
# ---------------------------------------------------------------------------

_NUMPY_NAMES = {
    "float32": Ep.DType.FLOAT32,
    "float64": Ep.DType.FLOAT64,
    "int32": Ep.DType.INT32,
    "int64": Ep.DType.INT64,
    "bool": Ep.DType.BOOL,
    "uint8": Ep.DType.UINT8,
    "int8": Ep.DType.INT8,
    "int16": Ep.DType.INT16,
    "float16": Ep.DType.FLOAT16,
    "bfloat16": Ep.DType.BFLOAT16,   # (ml_dtypes' NumPy type has the name)
}

float32 = Ep.DType.FLOAT32
float64 = Ep.DType.FLOAT64
int32 = Ep.DType.INT32
int64 = Ep.DType.INT64
bool_ = Ep.DType.BOOL
uint8 = Ep.DType.UINT8
int8 = Ep.DType.INT8
int16 = Ep.DType.INT16
__all__ += ["float32", "float64", "int32", "int64", "bool_", "uint8", "int8", "int16"]

# Half precision (issue 17): float16 is NumPy's; NumPy has no bfloat16,
# so a bfloat16 tensor has no NumPy form (numpy() and np.asarray refuse,
# naming astype) but crosses to PyTorch by DLPack as torch.bfloat16.
float16 = Ep.DType.FLOAT16
bfloat16 = Ep.DType.BFLOAT16
__all__ += ["float16", "bfloat16"]


def _no_numpy_bfloat16(caller: str) -> TypeError:
    return TypeError(f"{caller}: NumPy has no bfloat16; convert the tensor with "
                     "astype(Ep.float32) first, or pass it to torch.from_dlpack")

# The dtype objects are Ep.DType's values themselves: what x.dtype gives
# and what every C function takes, so Ep.float32 passes wherever a dtype
# does, PyGObject's own methods included (x.astype(Ep.float32)). They are
# patched here to behave as NumPy's dtypes: str() is NumPy's name,
# comparisons take what a dtype argument takes (x.dtype == np.float32,
# == "float32", == np.dtype("float32")), and .dtype is the NumPy dtype, so
# that np.dtype(x.dtype) and np.zeros(3, x.dtype) work. NumPy is imported
# only when .dtype is asked for. Comparing with an int compares the codes,
# as before (Ep.DType.FLOAT32 == 0); hashes stay the codes'.

_DTYPE_NAMES = {int(v): Ep.dtype_get_name(v) for v in Ep.DType.__enum_values__.values()}
_DTYPE_ALIASES = {**_NUMPY_NAMES, "bool_": Ep.DType.BOOL}
_DTypeClass = type(Ep.DType.FLOAT32)


def _dtype_named(value):
    """The Ep.DType that value names (a NumPy type, dtype or name, or
    Python's bool, int or float), or None."""
    if isinstance(value, str):
        return _DTYPE_ALIASES.get(value)
    if value is bool or value is int or value is float:
        return _dtype(value)
    name = getattr(value, "name", None)
    if not isinstance(name, str):
        name = getattr(value, "__name__", None)
    return _DTYPE_ALIASES.get(name) if isinstance(name, str) else None


def _dtype_eq(self, other: object) -> bool:
    if isinstance(other, int):
        return int(self) == int(other)
    named = _dtype_named(other)
    return NotImplemented if named is None else int(self) == int(named)


def _dtype_ne(self, other: object) -> bool:
    equal = _dtype_eq(self, other)
    return equal if equal is NotImplemented else not equal


def _dtype_name(self) -> str:
    """NumPy's name of the dtype: "float32", "bool"."""
    return _DTYPE_NAMES[int(self)]


def _dtype_itemsize(self) -> int:
    """Bytes per element."""
    return Ep.dtype_get_itemsize(self)


def _dtype_numpy(self) -> numpy.dtype[Any]:
    """The NumPy dtype (what np.dtype(Ep.float32) reads)."""
    import numpy
    if int(self) == int(Ep.DType.BFLOAT16):
        raise _no_numpy_bfloat16("dtype")
    return numpy.dtype(_DTYPE_NAMES[int(self)])


def _dtype_repr(self) -> str:
    name = _DTYPE_NAMES[int(self)]
    return f"Ep.{name}_" if name == "bool" else f"Ep.{name}"


_DTypeClass.__eq__ = _dtype_eq
_DTypeClass.__ne__ = _dtype_ne
_DTypeClass.__hash__ = int.__hash__
_DTypeClass.__str__ = _dtype_name
_DTypeClass.__repr__ = _dtype_repr
_DTypeClass.name = property(_dtype_name)
_DTypeClass.itemsize = property(_dtype_itemsize)
_DTypeClass.dtype = property(_dtype_numpy)

# ---------------------------------------------------------------------------
# annotation types
#
# Annotations in this file are strings (from __future__ import annotations):
# Python never evaluates them; gen-stubs.py copies them into the type stubs
# (Ep.pyi) that mypy reads, with "Ep." dropped. Give every public function
# and method precise ones: tests/python/test_typing.py fails on an Any.
#
# The names they use that are not classes of Ep are declared here, in stub
# syntax, and gen-stubs.py copies this text into Ep.pyi as it is: they
# exist only for type checkers (ArrayLike and DTypeLike can be used in
# user annotations; the _-names are private). The op wrappers add one
# alias per enum of the catalogue (_PadModeLike: the enum or its nick).
# ---------------------------------------------------------------------------

_STUB_DECLARATIONS = '''
# What a tensor argument accepts: tensors, Variables (read where used),
# NumPy arrays, nested lists and Python scalars (weak, as in NumPy).
ArrayLike = Union[Tensor, Variable, numpy.typing.ArrayLike]
# What a dtype argument accepts: an Ep.DType, a NumPy name, Python's bool,
# int (int64) and float (float32), or a NumPy type or dtype of those.
DTypeLike = Union[DType, Literal["float32", "float64", "int32", "int64", "bool", "uint8",
                                  "int8", "int16", "float16", "bfloat16"],
                  type[bool], type[int], type[float],
                  type[numpy.float32], type[numpy.float64], type[numpy.int32], type[numpy.int64],
                  type[numpy.uint8], type[numpy.int8], type[numpy.int16], type[numpy.float16],
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
# an integer input of an op (indices, labels): an int, integer arrays
_IndicesLike = Union[int, Tensor, Variable, numpy.typing.NDArray[numpy.integer[Any]],
                     Sequence[int], Sequence[Sequence[int]]]
# a bool input of an op (masks, operands of logical_and): bools, bool arrays
_MaskLike = Union[bool, Tensor, Variable, numpy.typing.NDArray[numpy.bool_],
                  Sequence[bool], Sequence[Sequence[bool]]]
# one entry of an index: x[0], x[1:3], x[...], x[None], x[indices]
_IndexItem = Union[SupportsIndex, slice, EllipsisType, None, _IndexArray]
_Index = Union[_IndexItem, tuple[_IndexItem, ...]]
_Unconnected = Union[UnconnectedGradients, Literal["zero", "zeros", "none"], None]
# what a custom gradient function returns: one gradient per input (None: zeros)
_Gradients = Union[Tensor, Variable, None, Sequence[Union[Tensor, Variable, None]]]
# what Ep.host_call returns: what its callback did, as tensors
_HostResults = Union[Tensor, tuple[Tensor, ...], None]
# NumPy's arrays and dtypes, named so in class bodies where `numpy` is a method
_NDArray = numpy.typing.NDArray[Any]
_NumPyDTypeLike = numpy.typing.DTypeLike
_Aux = TypeVar("_Aux")
_R_co = TypeVar("_R_co", covariant=True)
# what Ep.tidy and GradientTape.record return: what their function did
_Scoped = TypeVar("_Scoped")


class _Function(Protocol[_R_co]):
    """A function of tensors (arrays and numbers are converted)."""
    def __call__(self, *args: ArrayLike) -> _R_co: ...


class _GradFunction(_Function[_R_co], Protocol[_R_co]):
    """What value_and_grad_fn returns: its Ep.ValueAndGradFn is `function`."""
    function: ValueAndGradFn


# staged functions: the parameters and result of the function staged
_P = ParamSpec("_P")
_R = TypeVar("_R")
# an input signature: TensorSpecs, nested in lists, tuples and dicts as
# the arguments are
_SpecTree = Union[TensorSpec, Sequence["_SpecTree"], dict[str, "_SpecTree"]]
_InputSignature = Sequence[_SpecTree]


class _Stager(Protocol):
    """What Ep.function(input_signature=...) returns: a decorator."""
    def __call__(self, func: Callable[_P, _R]) -> StagedFunction[_P, _R]: ...
'''

# ---------------------------------------------------------------------------
# conversions: what arguments accept
# ---------------------------------------------------------------------------


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
    name = dtype if isinstance(dtype, str) else (
        getattr(dtype, "name", None) or getattr(dtype, "__name__", None) or str(dtype))
    try:
        return _NUMPY_NAMES[name]
    except KeyError:
        raise TypeError(f"unsupported dtype {dtype!r}") from None


@lru_cache(maxsize=512)
def _cached_literal(kind, value, sign):
    return Ep.keep(Ep.Tensor.new_weak_scalar(float(value), kind))


@lru_cache(maxsize=512)
def _float_literal(value, sign):
    return Ep.keep(Ep.Tensor.new_weak_scalar(value, Ep.DType.FLOAT64))


@lru_cache(maxsize=512)
def _int_literal(value):
    return Ep.keep(Ep.Tensor.new_weak_int(_int64(value)))


def _int64_array(array):
    """An integer NumPy array as int64, where uint64 values past int64
    would wrap around."""
    if array.dtype.kind == "u" and array.size:
        _int64(int(array.max()), "integer")
    return array.astype("int64")


def _is_int(value):
    """Whether value is an integer (not a bool): one C takes as gint64."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _int64(value, what="Python integer"):
    """value as an int, which must fit int64 (a gdouble would round it
    past 2^53, GI would refuse it past 2^63)."""
    value = int(value)
    if not -(1 << 63) <= value < (1 << 63):
        raise OverflowError(f"{what} {value} out of bounds for int64")
    return value


def _literal(value):
    """A weak scalar for a Python number, as NumPy treats Python scalars.

    Tensors are immutable, so literals are made once and reused; the key
    keeps 1, 1.0 and True apart, and 0.0 and -0.0.
    """
    kind = type(value)
    if kind is float and value == value:
        return _float_literal(value, math.copysign(1.0, value))
    if kind is int:
        return _int_literal(value)
    if isinstance(value, bool):
        return _cached_literal(Ep.DType.BOOL, value, 1.0)
    if isinstance(value, numbers.Integral):
        return _int_literal(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        if value != value:
            return Ep.Tensor.new_weak_scalar(value, Ep.DType.FLOAT64)
        return _cached_literal(Ep.DType.FLOAT64, value, math.copysign(1.0, value))
    return None


def _operand(value: ArrayLike) -> Tensor:
    """A tensor input: tensors as they are, Variables read, Python
    numbers as weak scalars, anything else through astensor()."""
    if isinstance(value, _Tensor):
        return value
    if isinstance(value, Ep.Variable):  # autodiff: read, so tapes watch it
        return value.read()
    literal = _literal(value)
    if literal is not None:
        return literal
    return astensor(value)


def _operands(values: Sequence[ArrayLike]) -> list[Tensor]:
    """A list input: each item a tensor (numbers become strong ones)."""
    return [v if isinstance(v, _Tensor) else v.read() if isinstance(v, Ep.Variable) else astensor(v)
            for v in values]


def _index_array(value):
    """An integer or bool tensor for an index given as a tensor, a NumPy
    array or a (nested) list; None for anything else. Integer arrays of
    NumPy become int64, as does an empty list."""
    import numpy
    if isinstance(value, Ep.Tensor):
        return value
    if isinstance(value, (list, tuple, numpy.ndarray)):
        array = numpy.asarray(value)
        if array.dtype == numpy.bool_:
            return astensor(array)
        if array.dtype.kind in "iu" or array.size == 0:
            return astensor(_int64_array(array))
    return None


def _indices(value: _IndicesLike) -> Tensor:
    """An integer input (indices, labels): an int is a 0-d int64 tensor,
    integer lists and arrays int64 ones; other values are converted as a
    tensor input is, for the op to refuse their dtype."""
    if isinstance(value, Ep.Variable):
        return value.read()
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return astensor(int(value), Ep.DType.INT64)
    tensor = _index_array(value)
    return _operand(value) if tensor is None else tensor


class _NoAxes(list):
    """axis=(): no axes (see _over_no_axes)."""


_NO_AXES = _NoAxes()


def _axes(axis: _AxisLike) -> Optional[list[int]]:
    """An axes argument: an int, a sequence, None (NULL: all axes, or what
    the op documents) or () (_NO_AXES)."""
    if axis is None:
        return None
    if type(axis) is int or isinstance(axis, numbers.Integral):
        return [operator.index(axis)]
    axes = [operator.index(a) for a in axis]
    return axes if axes else _NO_AXES


def _over_no_axes(function, args, position):
    """function(*args) with no axes (args[position], NumPy's axis=()).

    The C API reads NULL and an empty axes list alike, as all of them
    (PyGObject and gjs pass an empty list as one or the other), so there
    "no axes" is no list at all: the op runs over a new leading axis of
    extent 1 instead, where it changes no value, and the result takes the
    input's shape (keepdims or not)."""
    self = args[0]
    args = list(args)
    args[0] = Ep.Tensor.expand_dims(self, 0)
    args[position] = [0]
    result = function(*args)
    if result.get_ndim() == self.get_ndim():
        return result
    return Ep.Tensor.reshape(result, self.get_shape())


def _shape_arg(shape: _ShapeLike) -> list[int]:
    """A shape: an int or a sequence of ints."""
    if type(shape) is int or isinstance(shape, numbers.Integral):
        return [operator.index(shape)]
    return [operator.index(d) for d in shape]


def _shape(args):
    """A shape from shape(2, 3), shape((2, 3)), shape([2, 3]) or shape(2)."""
    if len(args) == 1 and type(args[0]) is not int and not isinstance(args[0], numbers.Integral):
        return _shape_arg(args[0])
    return [operator.index(d) for d in args]


def _ints(values: Union[int, Sequence[int]]) -> list[int]:
    """A list of integers; one integer is a list of one (NumPy's tile(x, 2))."""
    if type(values) is int or isinstance(values, numbers.Integral):
        return [operator.index(values)]
    return [operator.index(v) for v in values]


class _EnumConverter:
    """What an enum argument accepts: the GI enum, or its nick as a string
    ("reflect" for Ep.PadMode.REFLECT), from the GEnum's own values."""

    def __init__(self, cls):
        self.cls = cls
        self.nicks = {v.value_nick: v for v in sorted(cls.__enum_values__.values())}
        self.annotation = f"_{cls.__name__}Like"
        literals = ", ".join(f'"{nick}"' for nick in self.nicks)
        self.declaration = f"{self.annotation} = Union[{cls.__name__}, Literal[{literals}]]\n"

    def __call__(self, value):
        if isinstance(value, self.cls):
            return value
        try:
            return self.nicks[value]
        except (KeyError, TypeError):
            raise ValueError(f"{value!r} is not one of {', '.join(map(repr, self.nicks))} "
                             f"nor an Ep.{self.cls.__name__}") from None


@lru_cache(maxsize=None)
def _gi_infos():
    """The introspection data of every name of Ep (functions, classes,
    enums, constants), by name."""
    import gi._gi
    return {info.get_name(): info for info in gi._gi.Repository.get_default().get_infos("Ep")}


@lru_cache(maxsize=None)
def _enum(type_name: str) -> _EnumConverter:
    """The converter of the enum registered as `type_name` ("EpPadMode")."""
    import gi._gi
    for name, info in _gi_infos().items():
        if isinstance(info, gi._gi.EnumInfo) and info.get_type_name() == type_name:
            return _EnumConverter(getattr(Ep, name))
    raise LookupError(f"the catalogue names the enum {type_name}, which Ep does not have")


# Raw data. ep_tensor_new_from_data() and ep_tensor_read_data() take an
# address, so introspection does not see them (from a binding an address
# is any number). This layer calls them through ctypes, with the address
# of a NumPy array it holds itself: one copy each way.

class _GError(ctypes.Structure):
    _fields_ = [("domain", ctypes.c_uint32), ("code", ctypes.c_int), ("message", ctypes.c_char_p)]


_GErrorOut = ctypes.POINTER(ctypes.POINTER(_GError))


@lru_cache(maxsize=None)
def _raw_data_functions():
    # the libraries GI has loaded already: dlopen finds them by soname
    lib = ctypes.CDLL("libeager-glib-1.0.so.0")
    glib = ctypes.CDLL("libglib-2.0.so.0")
    new = lib.ep_tensor_new_from_data
    new.restype = ctypes.c_void_p
    new.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                    ctypes.POINTER(ctypes.c_int64), ctypes.c_uint, _GErrorOut]
    read = lib.ep_tensor_read_data
    read.restype = ctypes.c_int
    read.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, _GErrorOut]
    free = glib.g_error_free
    free.argtypes = [ctypes.POINTER(_GError)]
    address = ctypes.pythonapi.PyCapsule_GetPointer
    address.restype = ctypes.c_void_p
    address.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return new, read, free, address


def _raise_gerror(error):
    free = _raw_data_functions()[2]
    raised = GLib.Error.new_literal(error.contents.domain, error.contents.message.decode(),
                                    error.contents.code)
    free(error)
    raise raised


def _tensor_from_array(array) -> Tensor:
    """A tensor of a copy of a C-contiguous, native-endian array."""
    new = _raw_data_functions()[0]
    error = ctypes.POINTER(_GError)()
    shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
    pointer = new(array.ctypes.data, array.nbytes, int(_NUMPY_NAMES[array.dtype.name]),
                  shape, array.ndim, ctypes.byref(error))
    if not pointer:
        _raise_gerror(error)
    return gi._gi.pygobject_new_full(pointer, True)   # takes the reference


def _read_into_array(tensor, array) -> None:
    """Copies a tensor's elements into a C-contiguous array of its size."""
    _, read, _, address = _raw_data_functions()
    error = ctypes.POINTER(_GError)()
    if not read(address(tensor.__gpointer__, None), array.ctypes.data, array.nbytes,
                ctypes.byref(error)):
        _raise_gerror(error)


# DLPack and zero-copy views. ep_tensor_to_dlpack() and
# ep_tensor_new_from_dlpack() take and give DLPack's DLManagedTensor, an
# address (skipped by introspection); this layer calls them through
# ctypes. An export holds a reference on the tensor's buffer, so that
# releasing the tensor never frees what NumPy or PyTorch still reads. The
# Python protocol passes a PyCapsule named "dltensor", which a consumer
# renames "used_dltensor" when it takes the tensor over (then it calls
# the deleter); the capsule's destructor calls the deleter only if nobody
# did.

class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


_DLDeleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_KDL_CPU = 1
_KDL_OPENCL = 4
# DLPack (code, bits) of each dtype, for NumPy's typestr
_DL_TYPESTR = {(2, 32): "<f4", (2, 64): "<f8", (0, 32): "<i4", (0, 64): "<i8", (6, 8): "|b1",
               (1, 8): "|u1", (0, 8): "|i1", (0, 16): "<i2", (2, 16): "<f2"}
_KDL_BFLOAT = 4


def _dl_delete(managed):
    """Calls the deleter of a DLManagedTensor at address managed."""
    deleter = _DLManagedTensor.from_address(managed).deleter
    if deleter:
        _DLDeleter(deleter)(managed)


@lru_cache(maxsize=None)
def _dlpack_functions():
    lib = ctypes.CDLL("libeager-glib-1.0.so.0")
    glib = ctypes.CDLL("libglib-2.0.so.0")
    export = lib.ep_tensor_to_dlpack
    export.restype = ctypes.c_void_p
    export.argtypes = [ctypes.c_void_p, _GErrorOut]
    import_ = lib.ep_tensor_new_from_dlpack
    import_.restype = ctypes.c_void_p
    import_.argtypes = [ctypes.c_void_p, _GErrorOut]
    api = ctypes.pythonapi
    get = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
        ("PyCapsule_GetPointer", api))
    set_name = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_void_p)(
        ("PyCapsule_SetName", api))
    # a capsule keeps its name as a pointer, never a copy: one that lives
    # as long as the process (a capsule may outlive this module)
    strdup = glib.g_strdup
    strdup.restype = ctypes.c_void_p
    strdup.argtypes = [ctypes.c_char_p]
    return export, import_, get, set_name, strdup(b"used_dltensor")


def _export_dlpack(tensor, caller):
    """The DLManagedTensor address of a tensor on the CPU (a reference on
    its buffer), or its GLib.Error renamed to caller."""
    export = _dlpack_functions()[0]
    address = _raw_data_functions()[3]
    error = ctypes.POINTER(_GError)()
    managed = export(address(tensor.__gpointer__, None), ctypes.byref(error))
    if not managed:
        try:
            _raise_gerror(error)
        except GLib.Error as raised:
            raise _renamed(raised, caller) from None
    return managed


def _dlpack_capsule(tensor):
    """A "dltensor" capsule of a tensor on the CPU. NumPy makes it, from an
    array on the tensor's buffer: a capsule's destructor must run with
    any exception of the consumer pending, which C code does (PyErr_Fetch)
    and a ctypes callback cannot. The capsule holds the array, the array
    the export, the export the buffer."""
    import numpy
    if tensor.get_dtype() == Ep.DType.BOOL:
        raise BufferError("__dlpack__: bool tensors cannot be exported with NumPy "
                          f"{numpy.__version__}, whose DLPack has no bool; convert them "
                          "with astype(\"int32\")")
    if tensor.get_dtype() == Ep.DType.BFLOAT16:
        # NumPy exports the bits as uint16, and the type is set right in
        # its DLManagedTensor before any consumer sees the capsule
        capsule = numpy.asarray(_HostView(tensor, writable=True, bfloat16_bits=True)).__dlpack__()
        managed = _dlpack_functions()[2](capsule, b"dltensor")
        dtype = _DLManagedTensor.from_address(managed).dl_tensor.dtype
        dtype.code, dtype.bits = _KDL_BFLOAT, 16
        return capsule
    return numpy.asarray(_HostView(tensor, writable=True)).__dlpack__()


def _tensor_from_capsule(capsule) -> Tensor:
    """A tensor on the memory of a "dltensor" capsule, which it takes over."""
    _, import_, get, set_name, used = _dlpack_functions()
    managed = get(capsule, b"dltensor")   # ValueError if it was used
    error = ctypes.POINTER(_GError)()
    pointer = import_(managed, ctypes.byref(error))
    if not pointer:
        try:
            _raise_gerror(error)          # the capsule keeps the data, and frees it
        except GLib.Error as raised:
            raise _renamed(raised, "from_dlpack") from None
    set_name(capsule, used)   # taken over: its destructor leaves the data
    return gi._gi.pygobject_new_full(pointer, True)


class _HostView:
    """A NumPy view of a tensor's buffer on the CPU: holds the DLPack
    export (a reference on the buffer) as long as NumPy holds this object
    (the base of the arrays made from it). Read-only, but for the array
    that NumPy's __dlpack__ exports (it refuses read-only arrays: DLPack
    has no flag for it)."""

    __slots__ = ("_managed", "__array_interface__")

    def __init__(self, tensor, writable=False, bfloat16_bits=False):
        if tensor.get_dtype() == Ep.DType.BFLOAT16 and not bfloat16_bits:
            raise _no_numpy_bfloat16("numpy")
        self._managed = _export_dlpack(tensor, "numpy")
        dl = _DLManagedTensor.from_address(self._managed).dl_tensor
        ndim = dl.ndim
        shape = tuple(dl.shape[i] for i in range(ndim))
        itemsize = dl.dtype.bits // 8
        self.__array_interface__ = {
            "version": 3,
            "shape": shape,
            "typestr": "<u2" if bfloat16_bits else _DL_TYPESTR[dl.dtype.code, dl.dtype.bits],
            "data": (dl.data or 0, not writable),
            "strides": tuple(dl.strides[i] * itemsize for i in range(ndim)),
        }

    _delete = staticmethod(_dl_delete)   # (module globals may be gone at exit)

    def __del__(self):
        managed, self._managed = getattr(self, "_managed", None), None
        if managed:
            self._delete(managed)


def _host_array(tensor):
    """The read-only NumPy view of a tensor on the CPU."""
    import numpy
    return numpy.asarray(_HostView(tensor))


def _numpy_copy(tensor):
    """A new, writable NumPy array of a tensor's elements: one copy, from
    any device (ep_tensor_read_data through ctypes, into its buffer)."""
    import numpy
    if tensor.get_dtype() == Ep.DType.BFLOAT16:
        raise _no_numpy_bfloat16("numpy")
    array = numpy.empty(tensor.shape, dtype=Ep.dtype_get_name(tensor.get_dtype()))
    try:
        if array.nbytes > 0:
            _read_into_array(tensor, array)
    except GLib.Error as error:
        raise _renamed(error, "numpy") from None
    return array


def _on_cpu(tensor) -> bool:
    """Whether a tensor is on the CPU (a released one has no device: its
    export gives the error)."""
    device = tensor.get_device()
    return device is None or device.get_kind() == "cpu"


def _is_device_name(name: str) -> bool:
    """Whether a string of to() names a device (else a dtype)."""
    try:
        _dtype(name)
    except TypeError:
        return True
    return False


def _picklable(function):
    """A static method that pickles name by gi.repository.Ep, which an
    unpickling process imports through PyGObject (gi.overrides.Ep cannot
    be imported on its own)."""
    function.__module__ = "gi.repository.Ep"
    return staticmethod(function)


def _gfile(path: Union[str, os.PathLike[str], Gio.File]) -> Gio.File:
    return path if isinstance(path, Gio.File) else Gio.File.new_for_path(os.fspath(path))


def astensor(value: ArrayLike, dtype: Optional[DTypeLike] = None) -> Tensor:
    """A tensor from a tensor, a NumPy array, a nested list or a scalar.

    Data crosses with one copy (ep_tensor_new_from_data through ctypes,
    from the array's buffer). Without dtype, a NumPy array keeps its dtype, Python floats
    become float32 (the default) and Python ints int64; dtypes eager-glib
    does not have become float64 (floats) or int64 (integers). A tensor
    gives a new tensor object that shares its data (and its history), so
    that releasing the result leaves the tensor given as it was.
    """
    import numpy
    dtype = _dtype(dtype)
    if isinstance(value, Ep.Tensor):
        if value.is_released():
            raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                            _("astensor: the tensor was released and has no data"))
        # a new tensor object, never the one given: releasing the result
        # must not release the caller's tensor
        return Ep.Tensor.astype(value, value.get_dtype() if dtype is None else dtype)
    if _is_int(value) and (dtype is None or _is_integer_dtype(dtype)):
        _int64(value)
    array = numpy.asarray(value)
    if dtype is not None:
        array = array.astype(Ep.dtype_get_name(dtype), copy=False)
    elif not isinstance(value, (numpy.ndarray, numpy.generic)) and array.dtype == numpy.float64:
        array = array.astype(numpy.float32)
    if array.dtype.name not in _NUMPY_NAMES:
        if array.dtype.kind == "f":
            array = array.astype(numpy.float64)
        elif array.dtype.kind in "iu":
            array = _int64_array(array)
        else:
            raise TypeError(f"cannot make a tensor of {array.dtype}")
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    if not array.flags.c_contiguous:
        array = array.copy(order="C")  # (ascontiguousarray makes 0-d 1-d)
    return _tensor_from_array(array)


__all__.append("astensor")

# ---------------------------------------------------------------------------
# the type mapping: schema types -> Python
#
# The one place that says what a Python argument of an op is: for each
# input kind and attribute type of the catalogue, its annotation (for the
# stubs) and the expression that converts the Python value for the C
# function ({0} is the value). Nullable attributes take None; the last
# column says what None becomes:
#   "NULL"     None itself (a NULL array: all axes, no steps, ...)
#   "AXIS_NONE"  Ep.AXIS_NONE: NumPy's axis=None, the flattened tensor
#   "default"  the schema's default (clip's min and max: no bound)
# ---------------------------------------------------------------------------

# (dtypes, list) of an input: (annotation, conversion)
_INPUT_TYPES = {
    ("any", False): ("ArrayLike", "{0} if type({0}) is _T else _operand({0})"),
    ("bool", False): ("_MaskLike", "{0} if type({0}) is _T else _operand({0})"),
    ("integer", False): ("_IndicesLike", "{0} if type({0}) is _T else _indices({0})"),
    ("any", True): ("Sequence[ArrayLike]", "_operands({0})"),
}

# attribute type: (annotation, conversion or None to pass it as it is, None means)
_ATTRIBUTE_TYPES = {
    "bool": ("bool", None, "default"),
    "int": ("int", None, "default"),
    "float": ("float", None, "default"),
    "number": ("float", None, "default"),   # integers: the _int form (full_int)
    "seed": ("int", None, "default"),
    "string": ("str", None, "default"),
    "dtype": ("DTypeLike", "_dtype({0})", "default"),
    "enum": (None, "_enum_{name}({0})", "default"),   # annotation: the enum's alias
    "axis": ("int", None, "AXIS_NONE"),
    "axes": ("_AxisLike", "_axes({0})", "NULL"),
    "shape": ("_ShapeLike", "_shape_arg({0})", "NULL"),
    "ints": ("Union[int, Sequence[int]]", "_ints({0})", "NULL"),
    "device": ("_DeviceLike", "_device({0})", "NULL"),
}

# Python's name of an attribute, by type: NumPy's axis= for axes lists
_PYTHON_NAMES = {"axes": "axis"}

# the name of the first input ("self") in the namespace form of a method
_FIRST_ARGUMENT = "a"


def _output_annotation(outputs):
    if len(outputs) == 1:
        return "list[Tensor]" if outputs[0]["list"] else "Tensor"
    if any(o["list"] for o in outputs):
        raise LookupError("a list output among several outputs")
    return f"tuple[{', '.join('Tensor' for _ in outputs)}]"

# ---------------------------------------------------------------------------
# op wrappers
#
# One Python function per catalogue entry with a C function: the method
# Tensor.<name> for a method entry, the function Ep.<name> otherwise, and
# for a method entry also the NumPy-style function Ep.<name>(a, ...) where
# that name is free (no dtype, builtin type or name Ep has already). Its
# parameters are the entry's inputs, then its attributes that are not
# internal, in schema order (the C function's order): the source is
# written from the schema and the type mapping, compiled once at import.
# A call costs one Python frame and the conversions; a method with nothing
# to convert (x.exp()) stays PyGObject's own.
#
# Results: one output is a Tensor, several fixed ones a tuple, a list
# output a list, whatever C returns them as (a return value, out
# arguments beside a skipped gboolean, an array).
#
# _OPS has every generated wrapper by op name (methods with a self
# parameter), also those that a NumPy form of the sections below replaces;
# _FUNCTIONS the generated namespace functions, served by the module's
# __getattr__ (Ep.sum, Ep.abs, ... must not hide Python's builtins here).
# _CATALOGUE_PROBLEMS lists entries that could not be wrapped (the
# catalogue and the C functions disagree): tests/python/test_catalogue.py
# fails on them.
# ---------------------------------------------------------------------------

_OPS = {}
_FUNCTIONS = {}
_CATALOGUE_PROBLEMS = []
_AXIS_NONE = Ep.AXIS_NONE


def _visible_arguments(info):
    """The arguments of a GI callable that Python passes or gets: not the
    lengths of arrays, closures or destroy notifiers."""
    args = list(info.get_arguments())
    hidden = set()
    types = [a.get_type() for a in args] + [info.get_return_type()]
    for type_info in types:
        if type_info.get_tag_as_string() == "array" and type_info.get_array_length() >= 0:
            hidden.add(type_info.get_array_length())
    for arg in args:
        for index in (arg.get_closure(), arg.get_destroy()):
            if index >= 0:
                hidden.add(index)
    return [a for i, a in enumerate(args) if i not in hidden]


def _gi_callable(entry):
    """The GI callable of a catalogue entry: Ep.Tensor.<name> of
    ep_tensor_<name>, Ep.<name> of ep_<name>; None if there is none."""
    symbol = entry.get("function")
    if symbol is None:
        return None
    prefix = "ep_tensor_" if entry["method"] else "ep_"
    if not symbol.startswith(prefix):
        return None
    owner = Ep.Tensor if entry["method"] else Ep
    info = getattr(owner, symbol[len(prefix):], None)
    if info is None or not hasattr(info, "get_symbol") or info.get_symbol() != symbol:
        return None
    return info


def _result_expression(entry, info, call):
    """How the wrapper returns what PyGObject returns for `call`."""
    outputs = entry["outputs"]
    returns = []
    return_type = info.get_return_type()
    if return_type.get_tag_as_string() != "void" and not info.skip_return():
        returns.append(return_type.get_tag_as_string())
    returns += ["out" for a in _visible_arguments(info) if a.get_direction() != 0]
    if len(returns) == len(outputs):
        return call
    if len(returns) == len(outputs) + 1 and returns[0] == "gboolean":
        return f"{call}[1:]"     # a gboolean that GI does not skip
    raise LookupError(f"{len(outputs)} outputs, but the C function gives {len(returns)} results")


def _parameter(spec, scope, index):
    """(Python name, default source or None, annotation, conversion or
    None) of an attribute spec; adds the constants it needs to scope."""
    annotation, conversion, none_means = _ATTRIBUTE_TYPES[spec["type"]]
    name = _PYTHON_NAMES.get(spec["type"], spec["name"])
    if spec["type"] == "enum":
        scope[f"_enum_{index}"] = converter = _enum(spec["enum"])
        annotation = converter.annotation
        conversion = conversion.replace("{name}", str(index))
    conversion = conversion.format(name) if conversion else None
    default = None
    if "default" in spec:
        default = scope[f"_value_{index}"] = spec["default"]
        default = f"_value_{index}"
        if conversion is not None:
            # the default, converted once
            scope[f"_converted_{index}"] = eval(conversion, globals(), {**scope, name: spec["default"]})
            conversion = f"_converted_{index} if {name} is _value_{index} else {conversion}"
    if spec["nullable"]:
        annotation = annotation if annotation == "_AxisLike" else f"Optional[{annotation}]"
        if none_means == "default":
            if default is None:
                raise LookupError(f"attribute {spec['name']} is nullable but has no default")
            replacement = f"_converted_{index}" if f"_converted_{index}" in scope else default
        else:
            replacement = {"NULL": "None", "AXIS_NONE": "_AXIS_NONE"}[none_means]
        if replacement != "None" or conversion is not None:
            conversion = f"{replacement} if {name} is None else {conversion or name}"
        if none_means == "default" or default is None:
            default = "None"
    return name, default, annotation, conversion


def _generate(entry, info, namespace_form):
    """The wrapper of a catalogue entry; __passes_through__ tells whether
    it only passes its arguments on (a method without arguments)."""
    scope = {"_f": info, "_T": Tensor}
    params, annotations, statements, call = [], {}, [], []
    method = entry["method"] and not namespace_form
    for position, spec in enumerate(entry["inputs"]):
        if position == 0 and entry["method"]:
            name = "self" if method else _FIRST_ARGUMENT
        else:
            name = spec["name"]
        params.append((name, None))
        call.append(name)
        if name == "self":
            continue
        annotation, conversion = _INPUT_TYPES[(spec["dtypes"], spec["list"])]
        annotations[name] = annotation
        statements.append(f"{name} = {conversion.format(name)}")
    no_axes = None
    for index, spec in enumerate(a for a in entry["attributes"] if not a["internal"]):
        name, default, annotation, conversion = _parameter(spec, scope, index)
        params.append((name, default))
        annotations[name] = annotation
        if conversion is not None:
            statements.append(f"{name} = {conversion}")
        if spec["type"] == "axes" and entry["method"]:
            no_axes = len(call)
        call.append(name)
    if len({name for name, _ in params}) != len(params):
        raise LookupError("two parameters of one name")
    visible = [a for a in _visible_arguments(info) if a.get_direction() == 0]
    if len(visible) + (1 if entry["method"] else 0) != len(call):
        raise LookupError(f"the C function takes {len(visible)} arguments, the schema says "
                          f"{len(call) - (1 if entry['method'] else 0)}")
    result = _result_expression(entry, info, f"_f({', '.join(call)})")
    annotations["return"] = _output_annotation(entry["outputs"])
    passes_through = (method and not statements and result == f"_f({', '.join(call)})"
                      and all(default is None for _, default in params))

    # a parameter without a default after one with a default: none before it has one
    required = False
    for i in range(len(params) - 1, -1, -1):
        if params[i][1] is None:
            required = True
        elif required:
            params[i] = (params[i][0], None)
    signature = ", ".join(name if default is None else f"{name}={default}" for name, default in params)
    body = [f"        {s}" for s in statements]
    if no_axes is not None:
        body.append(f"        if {call[no_axes]} is _NO_AXES: "
                    f"return _over_no_axes(_f, ({', '.join(call)},), {no_axes})")
    body.append(f"        return {result}")
    name = entry["name"]
    source = (f"def _make({', '.join(scope)}):\n"
              f"    def {name}({signature}):\n" + "\n".join(body) + f"\n    return {name}\n")
    namespace = {}
    exec(compile(source, f"<Ep op wrapper: {name}>", "exec"), globals(), namespace)
    wrapper = namespace["_make"](**scope)
    wrapper.__annotations__ = annotations
    wrapper.__qualname__ = f"Tensor.{name}" if method else name
    where = "Ep.Tensor." if entry["method"] else "Ep."
    wrapper.__doc__ = (f"{where}{name} ({entry['function']}) with NumPy's conventions, "
                       f"generated from the op catalogue.")
    wrapper.__wrapped_gi__ = info
    wrapper.__op__ = entry
    wrapper.__passes_through__ = passes_through
    wrapper.__source__ = source     # what was compiled, for readers
    return wrapper


def _free_name(name):
    """Whether Ep.<name> can be the namespace form of a method op."""
    import builtins
    return (name not in _NUMPY_NAMES and not isinstance(getattr(builtins, name, None), type)
            and name not in _gi_infos() and name not in globals())


def _install_ops():
    """Generates the wrappers of every catalogue entry and installs those
    that no section above replaced with a NumPy form."""
    global _STUB_DECLARATIONS
    enums = set()
    for entry in Ep.list_ops().unpack():
        info = _gi_callable(entry)
        if info is None:
            if "function" in entry:
                _CATALOGUE_PROBLEMS.append(f"{entry['name']}: no C function {entry['function']}")
            continue
        name = entry["name"]
        try:
            wrapper = _generate(entry, info, False)
            function = _generate(entry, info, True) if entry["method"] else wrapper
        except (LookupError, KeyError) as error:
            _CATALOGUE_PROBLEMS.append(f"{name}: {error}")
            continue
        enums.update(a["enum"] for a in entry["attributes"] if a["type"] == "enum")
        _OPS[name] = wrapper
        if entry["method"]:
            if not wrapper.__passes_through__ and name not in Tensor.__dict__:
                setattr(Tensor, name, wrapper)
            if _free_name(name):
                _FUNCTIONS[name] = function
        elif name not in globals():
            _FUNCTIONS[name] = function
    __all__.extend(_FUNCTIONS)
    _STUB_DECLARATIONS += "".join(_enum(name).declaration for name in sorted(enums))


def __getattr__(name: str) -> Any:
    # the generated namespace functions (see "op wrappers")
    try:
        return _FUNCTIONS[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


# ---------------------------------------------------------------------------
# indexing
#
# NumPy's indexing (`__getitem__`) built on slice (views), take and mask,
# and slice() with Python's bounds (None, and any int), as in a[1:None:2].
# ---------------------------------------------------------------------------

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


def _clamp64(value):
    return min(max(int(value), _INT64_MIN), _INT64_MAX)


def _is_bool_tensor(value):
    return isinstance(value, Ep.Tensor) and value.get_dtype() is Ep.DType.BOOL


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
            if isinstance(k, range):   # NumPy's: an integer array
                k = numpy.arange(k.start, k.stop, k.step, dtype=numpy.int64)
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
        raise IndexError(_n("too many indices for a tensor of {ndim} dimension ({used} were indexed)",
                            "too many indices for a tensor of {ndim} dimensions ({used} were indexed)",
                            ndim).format(ndim=ndim, used=used))
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
        for _axis in range(k.get_ndim() if _is_bool_tensor(k) else 1):
            starts.append(start)
            stops.append(stop)
            steps.append(step)
    view = Ep.Tensor.slice(self, starts, stops, steps) if starts else self
    arrays_count = sum(isinstance(k, (Ep.Tensor, int)) for k in items)
    entries = []
    for k in items:
        if _is_bool_tensor(k) and k.get_ndim() == 0 and arrays_count > 1:
            # with other index arrays, True is a new axis indexed by
            # [0], False one indexed by [] (the mask of [0] by k: an op,
            # so that a staged function follows k's value)
            view = Ep.Tensor.expand_dims(view, len(entries))
            entries.append(Ep.Tensor.mask(astensor(numpy.zeros(1, numpy.int64)), Ep.Tensor.reshape(k, [1])))
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

    # 3. masks among other index arrays: their nonzero positions,
    #    computed with ops (not on the host: a staged function follows
    #    the mask's values)
    axes, arrays = [], []
    for axis, k in advanced:
        if _is_bool_tensor(k):
            shape = k.get_shape()
            flat = Ep.Tensor.mask(Ep.Tensor.reshape(Ep.arange(0, k.get_size(), 1, Ep.DType.INT64), shape), k)
            stride = k.get_size()
            for d, extent in enumerate(shape):
                stride //= extent
                positions = Ep.Tensor.floordiv_scalar(flat, stride) if stride != 1 else flat
                axes.append(axis + d)
                arrays.append(Ep.Tensor.mod_scalar(positions, extent) if d > 0 else positions)
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


def _is_numpy_key(key):
    """Whether an index of index_update/scatter_add is a NumPy index
    (slices, None, Ellipsis, or a tuple holding one, or index arrays)
    rather than a list of indices along an axis."""
    if key is None or isinstance(key, (slice, type(Ellipsis))):
        return True
    return isinstance(key, tuple) and not all(_is_int(k) for k in key)


def _keyed_update(self, name, key, values, axis):
    if not _is_numpy_key(key):
        return _OPS[name](self, key, values, axis)
    if axis != 0:
        raise TypeError(f"{name}: a NumPy index names its axes itself; axis is for a list of indices")
    # the flat positions the key selects, by NumPy's indexing rules, and
    # the update on the flattened tensor
    shape = list(self.shape)
    positions = _getitem(_OPS["arange_int"](0, self.size, 1, Ep.DType.INT64).reshape(shape), key)
    spread = _OPS["broadcast_to"](_operand(values), list(positions.shape))
    flat = _OPS[name](self.reshape(-1), positions.reshape(-1), spread.reshape(-1), 0)
    return flat.reshape(shape)


def _slice(self: Tensor, starts: Sequence[Optional[int]], stops: Sequence[Optional[int]],
           steps: Optional[Sequence[Optional[int]]] = None) -> Tensor:
    """ep_tensor_slice with None for omitted bounds, as in Python."""
    starts, stops = list(starts), list(stops)
    steps = [1] * len(starts) if steps is None else [1 if s is None else _clamp64(s) for s in steps]
    if not len(starts) == len(stops) == len(steps):
        # no bounds to pair up: the library says what is wrong
        return Ep.Tensor.slice(self, *[[0 if v is None else _clamp64(v) for v in values]
                                       for values in (starts, stops, steps)])
    bounds = [_slice_bounds(slice(a, b, c), 0) for a, b, c in zip(starts, stops, steps)]
    return Ep.Tensor.slice(self, [b[0] for b in bounds], [b[1] for b in bounds], [b[2] for b in bounds])



# ---------------------------------------------------------------------------
# NumPy's protocols: __array_ufunc__ and __array_function__
#
# np.exp(t), np.add(t, 1), ndarray + tensor, np.sum(t, axis=0),
# np.concatenate([t, a]) ... run the op of eager-glib of that name and
# give tensors (what a tape records and a staged function traces). The
# tables are built from the op catalogue (_OPS) and the functions of Ep,
# matched by name, once, on first use: a ufunc maps to the op of its name
# (or of the NumPy name below) with as many tensor inputs and outputs and
# no attribute without a default; a NumPy function to the Ep function of
# its name, its arguments bound by NumPy's signature and passed by name.
# What has no such op, a ufunc's other methods (reduce, outer, at ...),
# out= and arguments Ep does not take (dtype=, where=, order= ...) run in
# NumPy on copies of the tensors (numpy()), as NumPy would run them for any
# array-like: the result is NumPy's, untouched by eager-glib (no tape sees
# it). A tensor as out= is refused (NotImplemented: NumPy's TypeError),
# tensors being immutable.
# ---------------------------------------------------------------------------

# NumPy's names of the ufuncs that eager-glib names otherwise
_UFUNC_OPS = {"absolute": "abs", "multiply": "mul", "subtract": "sub", "true_divide": "div",
              "divide": "div", "floor_divide": "floordiv", "negative": "neg", "power": "pow",
              "remainder": "mod"}

# NumPy's names of parameters that Ep names otherwise (the first
# parameter, the array, maps to Ep's first whatever its name)
_NUMPY_PARAMETERS = {"b": "other", "a_min": "min", "a_max": "max", "newshape": "shape",
                     "fill_value": "value", "ddof": "correction"}

# NumPy functions Ep has under their name but that make arrays from
# numbers (dispatched only through like=), or that mean another thing
# (NumPy's nonzero is a tuple of index arrays, Ep's PyTorch's (n, ndim)
# tensor): never Ep's
_NOT_ARRAY_FUNCTIONS = {"arange", "linspace", "eye", "full", "nonzero"}


@lru_cache(maxsize=None)
def _ufunc_op(ufunc):
    """The op wrapper (a method of _OPS) that runs ufunc, or None."""
    wrapper = _OPS.get(_UFUNC_OPS.get(ufunc.__name__, ufunc.__name__))
    if wrapper is None:
        return None
    entry = wrapper.__op__
    if (not entry["method"] or len(entry["inputs"]) != ufunc.nin or len(entry["outputs"]) != ufunc.nout
            or any(i["list"] for i in entry["inputs"])
            or any("default" not in a for a in entry["attributes"] if not a["internal"])):
        return None
    conversions = tuple({"integer": _indices, "bool": _truth}.get(i["dtypes"], _operand)
                        for i in entry["inputs"])
    return wrapper, conversions


def _truth(value):
    """A bool input of an op from NumPy's side, where any array is true
    where nonzero (np.logical_and(x, y), np.all(x)): astype bool."""
    tensor = _operand(value)
    return tensor if tensor.get_dtype() is Ep.DType.BOOL else Ep.Tensor.astype(tensor, Ep.DType.BOOL)


def _numpy_signature(func):
    """NumPy's signature of func; those NumPy implements in C have none
    that inspect reads, so theirs are written here."""
    import inspect
    P = inspect.Parameter
    written = {
        "concatenate": [P("arrays", P.POSITIONAL_OR_KEYWORD), P("axis", P.POSITIONAL_OR_KEYWORD, default=0),
                        P("out", P.POSITIONAL_OR_KEYWORD, default=None),
                        P("dtype", P.KEYWORD_ONLY, default=None),
                        P("casting", P.KEYWORD_ONLY, default="same_kind")],
        "where": [P("condition", P.POSITIONAL_OR_KEYWORD), P("x", P.POSITIONAL_OR_KEYWORD, default=_NOT_GIVEN),
                  P("y", P.POSITIONAL_OR_KEYWORD, default=_NOT_GIVEN)],
        "dot": [P("a", P.POSITIONAL_OR_KEYWORD), P("b", P.POSITIONAL_OR_KEYWORD),
                P("out", P.POSITIONAL_OR_KEYWORD, default=None)],
    }
    try:
        return inspect.signature(func)
    except (TypeError, ValueError):
        parameters = written.get(func.__name__)
        return None if parameters is None else inspect.Signature(parameters)


_NOT_GIVEN = object()


@lru_cache(maxsize=None)
def _array_functions():
    """{NumPy function: (Ep function, NumPy's signature, NumPy's parameter
    names -> Ep's)} for the NumPy functions (numpy, numpy.linalg) that
    dispatch to __array_function__ and that Ep has under their name."""
    import inspect
    import numpy
    ours = dict(_FUNCTIONS)
    ours.update((name, globals()[name]) for name in __all__
                if inspect.isfunction(globals().get(name)) and globals()[name].__module__ == __name__)
    table = {}
    for module in (numpy, numpy.linalg):
        for name in ours:   # (only these: NumPy warns on reading its deprecated names)
            func = getattr(module, name, None)
            if (func is None or name in _NOT_ARRAY_FUNCTIONS or not callable(func)
                    or not hasattr(func, "_implementation")):
                continue
            signature = _numpy_signature(func)
            if signature is None:
                continue
            ep_signature = inspect.signature(ours[name])
            theirs = list(signature.parameters.values())
            mine = list(ep_signature.parameters.values())
            if not theirs or not mine or ((theirs[0].kind == theirs[0].VAR_POSITIONAL)
                                          != (mine[0].kind == mine[0].VAR_POSITIONAL)):
                continue
            renames = {**_NUMPY_PARAMETERS, theirs[0].name: mine[0].name}
            names = {}
            for p in theirs:   # Ep's name where Ep has it (b: dot's other, solve's b)
                for candidate in (renames.get(p.name), p.name):
                    if candidate in ep_signature.parameters:
                        names[p.name] = candidate
                        break
            table[func] = (ours[name], signature, names, ep_signature)
    return table


def _array_function_call(func, args, kwargs):
    """(Ep function, args, kwargs) that run NumPy's func(*args, **kwargs)
    in eager-glib, or None where Ep's function takes no such call."""
    found = _array_functions().get(func)
    if found is None:
        return None
    function, signature, names, ep_signature = found
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return None
    positional, keywords = [], {}
    for name, value in bound.arguments.items():
        parameter = signature.parameters[name]
        if parameter.kind == parameter.VAR_POSITIONAL:
            positional.extend(value)
        elif parameter.kind == parameter.VAR_KEYWORD:   # pad's constant_values=
            keywords.update(value)
        elif value is not parameter.default:  # NumPy's default: Ep's own
            if name not in names:
                return None
            keywords[names[name]] = value
    try:
        ep_signature.bind(*positional, **keywords)
    except TypeError:
        return None   # where(condition) alone, a keyword Ep does not take
    entry = getattr(function, "__op__", None)
    for index, spec in enumerate(entry["inputs"] if entry is not None else ()):
        name = _FIRST_ARGUMENT if index == 0 and entry["method"] else spec["name"]
        if spec["dtypes"] == "bool" and name in keywords:   # np.all(x): x != 0
            keywords[name] = _truth(keywords[name])
    return function, positional, keywords


def _numpy_copies(value):
    """value with the tensors and Variables in it (in lists, tuples and
    dicts) as NumPy arrays."""
    if isinstance(value, (Ep.Tensor, Ep.Variable)):
        return value.numpy()
    if isinstance(value, (list, tuple)):
        return type(value)(_numpy_copies(v) for v in value)
    if isinstance(value, dict):
        return {k: _numpy_copies(v) for k, v in value.items()}
    return value


# ---------------------------------------------------------------------------
# Tensor
# ---------------------------------------------------------------------------

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

    # PyTorch's conversions by name
    def float(self) -> Tensor:
        """astype float32 (PyTorch's float())."""
        return self.astype(Ep.DType.FLOAT32)

    def double(self) -> Tensor:
        """astype float64."""
        return self.astype(Ep.DType.FLOAT64)

    def int(self) -> Tensor:
        """astype int32."""
        return self.astype(Ep.DType.INT32)

    def long(self) -> Tensor:
        """astype int64."""
        return self.astype(Ep.DType.INT64)

    # zero copy: NumPy views, DLPack, the buffer protocol, constructors,
    # devices, pickling and copies

    def __new__(cls, data: Optional[ArrayLike] = None, dtype: Optional[DTypeLike] = None,
                device: Optional[_DeviceLike] = None) -> Tensor:
        """Ep.Tensor(data, dtype=None, device=None) is Ep.tensor(...);
        Ep.Tensor() without data is the bare object g_object_new() makes.
        (PyGObject wraps the tensors that C returns without calling these.)"""
        if data is not None:
            return tensor(data, dtype, device)
        return super().__new__(cls)

    def __init__(self, data: Optional[ArrayLike] = None, dtype: Optional[DTypeLike] = None,
                 device: Optional[_DeviceLike] = None) -> None:
        if data is None:      # (Ep.Tensor(data) was made by tensor())
            super().__init__()

    def to(self, target: Union[_DeviceLike, DTypeLike], dtype: Optional[DTypeLike] = None) -> Tensor:
        """PyTorch's to(): to(device) copies to a device ("cpu",
        "opencl:0" or an Ep.Device), to(dtype) converts, to(device, dtype)
        does both. A new tensor object in any case."""
        if isinstance(target, Ep.Device) or (isinstance(target, str) and _is_device_name(target)):
            moved = Ep.Tensor.to_device(self, _device(target))
            return moved if dtype is None else moved.astype(_dtype(dtype))
        if dtype is not None:
            raise TypeError("to: give a device and a dtype, or a dtype alone")
        return self.astype(_dtype(target))

    @property
    def __array_interface__(self) -> dict[str, Any]:
        """NumPy's array interface: the data on the CPU, read-only, zero
        copy (views with their strides). Tensors on other devices have
        none (np.asarray copies them through __array__)."""
        if not _on_cpu(self):
            raise AttributeError("__array_interface__: only tensors on the CPU have one")
        # kept with the tensor object, one for its life (its layout never
        # changes): NumPy holds the tensor, this holds the buffer, whatever
        # release() does to the tensor
        view = self.__dict__.get("_ep_host_view")
        if view is None or self.is_released():
            view = self.__dict__["_ep_host_view"] = _HostView(self)
        return view.__array_interface__

    def __dlpack__(self, stream: Optional[int] = None, *, max_version: Optional[tuple[int, int]] = None,
                   dl_device: Optional[tuple[int, int]] = None, copy: Optional[bool] = None) -> object:
        """The DLPack capsule of the data on the CPU, without a copy (with
        copy=True, of a copy): torch.from_dlpack(t), numpy.from_dlpack(t).
        Tensors on other devices raise: copy them with .to("cpu")."""
        if stream is not None and stream != -1:
            raise BufferError("__dlpack__: a tensor on the CPU takes no stream")
        if dl_device is not None and tuple(dl_device) != (_KDL_CPU, 0):
            raise BufferError(f"__dlpack__: cannot export to DLPack device {tuple(dl_device)}, only to the CPU (1, 0)")
        source = self
        if copy:
            source = _tensor_from_array(_numpy_copy(self))
        elif copy is False and any(stride < 0 for stride in self.get_strides()):
            raise BufferError("__dlpack__: a view with negative strides is exported as a copy "
                              "(PyTorch cannot import them), and copy=False")
        return _dlpack_capsule(source)

    def __dlpack_device__(self) -> tuple[int, int]:
        """(device type, index) of DLPack: (1, 0) on the CPU, (4, n) on
        opencl:n."""
        if _on_cpu(self):
            return (_KDL_CPU, 0)
        name = self.get_device().get_name()
        return (_KDL_OPENCL, int(name.partition(":")[2] or 0))

    def __buffer__(self, flags: int) -> memoryview:
        """PEP 688 (Python 3.12): memoryview(t), read-only, zero copy on
        the CPU; a writable buffer is refused (tensors are immutable)."""
        if flags & 0x1:   # inspect.BufferFlags.WRITABLE
            raise BufferError("tensors are immutable: no writable buffer")
        return memoryview(self.numpy())

    def __release_buffer__(self, buffer: memoryview) -> None:
        buffer.release()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles the elements (little-endian, C order), dtype and shape;
        the tensor comes back on the default device."""
        try:
            data = Ep.Tensor.to_bytes(self).get_data()
        except GLib.Error as error:
            raise _renamed(error, "pickle") from None
        return (Tensor._from_pickle, (data, Ep.dtype_get_name(self.get_dtype()), self.shape))

    @_picklable
    def _from_pickle(data: bytes, dtype: str, shape: tuple[int, ...]) -> Tensor:
        return Ep.Tensor.new_from_bytes(GLib.Bytes.new(data), _dtype(dtype), list(shape))

    def __copy__(self) -> Tensor:
        return self        # immutable: a copy is the same value

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        return self

    # index_update and scatter_add with NumPy's index tuples:
    # t.index_update((slice(None), 1), 66.0) is NumPy's a[:, 1] = 66 (and
    # scatter_add NumPy's np.add.at); integer lists and tensors keep their
    # meaning of indices along axis.

    def index_update(self, indices: Union[_IndicesLike, _Index], values: ArrayLike,
                     axis: int = 0) -> Tensor:
        """A copy with the elements at indices along axis replaced by
        values; indices may also be a NumPy index (slices, None, ...,
        integers and index arrays in a tuple), as in a[:, 1] = 66."""
        return _keyed_update(self, "index_update", indices, values, axis)

    def scatter_add(self, indices: Union[_IndicesLike, _Index], values: ArrayLike,
                    axis: int = 0) -> Tensor:
        """A copy with values added at indices along axis (repeated indices
        add up); indices may also be a NumPy index, as in np.add.at(a, (slice(None), 1), v)."""
        return _keyed_update(self, "scatter_add", indices, values, axis)

    # NumPy protocols

    def numpy(self) -> _NDArray:
        """The elements as a read-only NumPy array: on the CPU a view of the
        tensor's buffer (zero copy, views with their strides; the array
        keeps the buffer alive, whatever release() does), from another
        device a copy. np.array(t) or t.numpy().copy() is writable."""
        if _on_cpu(self):
            return _host_array(self)
        array = _numpy_copy(self)
        array.flags.writeable = False
        return array

    def __array__(self, dtype: Optional[_NumPyDTypeLike] = None,
                  copy: Optional[bool] = None) -> _NDArray:
        """np.asarray(t): numpy(), in dtype. NumPy 2's copy=: True, a
        new array; False, never a copy, a ValueError where one is needed
        (numpy() copied: another device, or a layout NumPy cannot view);
        None, a copy only where needed."""
        import numpy
        array = self.numpy()
        copied = array.flags.owndata   # numpy() made it: no one else holds it
        if dtype is not None and array.dtype != numpy.dtype(dtype):
            copied = False
            if copy is False:
                raise ValueError(f"__array__: a {array.dtype} tensor as {numpy.dtype(dtype)} "
                                 f"needs a copy, and copy=False")
            array = array.astype(dtype)
            copied = True
        if copy is False and copied:
            raise ValueError("__array__: this tensor's data cannot be viewed without a copy "
                             "(not on the CPU, or not contiguous), and copy=False")
        if copy is True and not copied:
            array = array.copy()
        return array

    def __array_ufunc__(self, ufunc: numpy.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """np.exp(t), np.add(t, 1), ndarray + t: the op of eager-glib (see
        "NumPy's protocols"), else NumPy's on copies."""
        if method == "__call__" and not kwargs:
            found = _ufunc_op(ufunc)
            if found is not None:
                op, conversions = found
                return op(*[convert(v) for convert, v in zip(conversions, inputs)])
        if any(isinstance(o, Ep.Tensor) for o in kwargs.get("out", ())):
            return NotImplemented   # tensors are immutable
        return getattr(ufunc, method)(*_numpy_copies(inputs), **_numpy_copies(kwargs))

    def __array_function__(self, func: Callable[..., Any], types: Sequence[type],
                           args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        """np.sum(t), np.concatenate([t, a]), np.where(c, t, 0) ...: Ep's
        function of that name (see "NumPy's protocols"), else NumPy's on
        copies."""
        import numpy
        if not all(issubclass(t, (Ep.Tensor, Ep.Variable, numpy.ndarray)) for t in types):
            return NotImplemented
        call = _array_function_call(func, args, kwargs)
        if call is not None:
            function, positional, keywords = call
            return function(*positional, **keywords)
        return func(*_numpy_copies(args), **_numpy_copies(kwargs))

    def item(self) -> Union[bool, int, float]:
        """The only element, as a Python bool, int or float."""
        dtype = self.get_dtype()
        try:
            if dtype is Ep.DType.BOOL:    # (is: the values are singletons; == is Python's)
                return Ep.Tensor.item_boolean(self)
            if dtype is Ep.DType.INT32 or dtype is Ep.DType.INT64:
                return Ep.Tensor.item_int64(self)
            return Ep.Tensor.item_double(self)
        except GLib.Error as error:
            raise _renamed(error, "item") from None

    def tolist(self) -> Any:
        return self.numpy().tolist()

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
        try:
            return bool(Ep.Tensor.item_boolean(self))
        except GLib.Error as error:
            raise _renamed(error, "bool") from None

    def __float__(self) -> float:
        try:
            return float(Ep.Tensor.item_double(self))
        except GLib.Error as error:
            raise _renamed(error, "float") from None

    def __int__(self) -> int:
        try:
            return int(Ep.Tensor.item_int64(self))
        except GLib.Error as error:
            raise _renamed(error, "int") from None

    def __index__(self) -> int:
        if self.get_dtype() not in (Ep.DType.INT32, Ep.DType.INT64, Ep.DType.BOOL) or self.get_ndim() != 0:
            raise TypeError("only 0-d integer tensors can be used as an index")
        return int(Ep.Tensor.item_int64(self))

    __hash__ = Ep.Tensor.__hash__

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

    # Indexing (see "indexing")

    __getitem__ = _getitem
    slice = _slice

    # The constructors that take a shape: extents are integers, where GI
    # would truncate 2.5 to 2

    @staticmethod
    def new_from_doubles(data: Sequence[float], shape: _ShapeLike, dtype: DTypeLike) -> Tensor:
        return Ep.Tensor.new_from_doubles(data, _shape_arg(shape), _dtype(dtype))

    @staticmethod
    def new_from_bytes(data: GLib.Bytes, dtype: DTypeLike, shape: _ShapeLike) -> Tensor:
        return Ep.Tensor.new_from_bytes(data, _dtype(dtype), _shape_arg(shape))


# ---------------------------------------------------------------------------
# operators
#
# One table: each dunder and the op it calls (a method of the C API);
# binary ones take what a tensor input takes, reflected ones swap the
# operands. Comparisons are elementwise, as in NumPy.
# ---------------------------------------------------------------------------

_BINARY_OPERATORS = {
    "add": ("__add__", "__radd__"),
    "sub": ("__sub__", "__rsub__"),
    "mul": ("__mul__", "__rmul__"),
    "div": ("__truediv__", "__rtruediv__"),
    "floordiv": ("__floordiv__", "__rfloordiv__"),
    "mod": ("__mod__", "__rmod__"),
    "pow": ("__pow__", "__rpow__"),
    "matmul": ("__matmul__", "__rmatmul__"),
    "logical_and": ("__and__", "__rand__"),
    "logical_or": ("__or__", "__ror__"),
    "less": ("__lt__",),
    "less_equal": ("__le__",),
    "equal": ("__eq__",),
    "not_equal": ("__ne__",),
    "greater": ("__gt__",),
    "greater_equal": ("__ge__",),
}
_UNARY_OPERATORS = {"neg": "__neg__", "abs": "__abs__", "logical_not": "__invert__"}


def _binary(function, reflected):
    if reflected:
        def dunder(self, other):
            return function(other if type(other) is Tensor else _operand(other), self)
    else:
        def dunder(self, other):
            return function(self, other if type(other) is Tensor else _operand(other))
    dunder.__annotations__ = {"other": "ArrayLike", "return": "Tensor"}
    return dunder


def _unary(function):
    def dunder(self):
        return function(self)
    dunder.__annotations__ = {"return": "Tensor"}
    return dunder


def _pos(self: Tensor) -> Tensor:
    # a new tensor object on the same data, never self: releasing +t
    # must leave t
    return Ep.Tensor.astype(self, self.get_dtype())


for _op, _names in _BINARY_OPERATORS.items():
    for _name, _reflected in zip(_names, (False, True)):
        setattr(Tensor, _name, _binary(getattr(Ep.Tensor, _op), _reflected))
for _op, _name in _UNARY_OPERATORS.items():
    setattr(Tensor, _name, _unary(getattr(Ep.Tensor, _op)))
Tensor.__pos__ = _pos

# ---------------------------------------------------------------------------
# NumPy forms the schema cannot express
#
# NumPy's signatures where they differ from the C function's: varargs
# shapes and axes, split by a count or by indices (C has split and
# split_at), pad_width as NumPy takes it, arange(stop) with its dtype
# inferred, eye's M=None, meshgrid(*tensors). Each replaces the generated
# wrapper of its op in the API (_OPS keeps that wrapper) and calls it, or
# the C function, so that conversions stay those of the type mapping.
# ---------------------------------------------------------------------------


class _NumPyMethods:
    """Methods of Tensor (copied onto it below)."""

    def full_like(self, value: float) -> Tensor:
        """A tensor like self filled with value; an integer stays exact
        in an integer tensor (full_like_int)."""
        if _is_int(value) and (_is_integer_dtype(self.get_dtype()) or -(1 << 63) <= value < (1 << 63)):
            return _OPS["full_like_int"](self, _int64(value, "full_like: Python integer"))
        return _OPS["full_like"](self, value)

    def reshape(self, *shape: _ShapeLike) -> Tensor:
        """x.reshape(2, 3), x.reshape((2, 3)) or x.reshape([2, 3])."""
        return Ep.Tensor.reshape(self, _shape(shape))

    def transpose(self, *axes: _AxisLike) -> Tensor:
        """x.transpose() reverses the axes; x.transpose(1, 0, 2) or
        x.transpose((1, 0, 2)) permutes them."""
        if len(axes) == 0 or (len(axes) == 1 and axes[0] is None):
            return Ep.Tensor.transpose(self, None)
        return Ep.Tensor.transpose(self, _shape(axes))

    def broadcast_to(self, *shape: _ShapeLike) -> Tensor:
        """x.broadcast_to(2, 3) or x.broadcast_to((2, 3))."""
        return Ep.Tensor.broadcast_to(self, _shape(shape))

    def split(self, indices_or_sections: Union[int, Sequence[int]], axis: int = 0) -> list[Tensor]:
        """NumPy's split: n equal sections (split), or the parts between
        the indices of a list (split_at)."""
        if isinstance(indices_or_sections, numbers.Integral):
            return _OPS["split"](self, operator.index(indices_or_sections), axis)
        return _OPS["split_at"](self, indices_or_sections, axis)

    def pad(self, pad_width: Union[int, Sequence[int], Sequence[Sequence[int]]],
            mode: _PadModeLike = "constant", constant_values: float = 0.0) -> Tensor:
        """NumPy's pad: pad_width is n, (before, after) or one pair per
        axis; C takes the flat list of pairs."""
        import numpy
        widths = numpy.asarray(pad_width, dtype=numpy.int64)
        widths = numpy.broadcast_to(widths.reshape(-1, 2) if widths.ndim > 0 else numpy.full((1, 2), widths),
                                    (self.get_ndim(), 2))
        return _OPS["pad"](self, widths.reshape(-1).tolist(), mode, constant_values)


for _name, _method in vars(_NumPyMethods).items():
    if callable(_method):
        _method.__qualname__ = f"Tensor.{_name}"
        setattr(Tensor, _name, _method)


def arange(start: float, stop: Optional[float] = None, step: Optional[float] = 1,
           dtype: Optional[DTypeLike] = None) -> Tensor:
    """NumPy's arange: arange(stop) counts from 0, a step of None is 1;
    without dtype, integer arguments give int64, others float32."""
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    integral = all(_is_int(v) for v in (start, stop, step))
    if dtype is None:
        dtype = Ep.DType.INT64 if integral else Ep.DType.FLOAT32
    if integral and (_is_integer_dtype(dtype) or all(-(1 << 63) <= v < (1 << 63) for v in (start, stop, step))):
        return _OPS["arange_int"](*[_int64(v, "arange: Python integer") for v in (start, stop, step)], dtype)
    return _OPS["arange"](start, stop, step, dtype)


def full(shape: _ShapeLike, fill_value: float, dtype: DTypeLike = "float32") -> Tensor:
    """A tensor of shape filled with fill_value; an integer stays exact in
    an integer tensor (NumPy's full, with float32 as the default dtype)."""
    if _is_int(fill_value) and (_is_integer_dtype(dtype) or -(1 << 63) <= fill_value < (1 << 63)):
        return _OPS["full_int"](shape, _int64(fill_value, "full: Python integer"), dtype)
    return _OPS["full"](shape, fill_value, dtype)


# Constructors in NumPy's and PyTorch's forms: shapes as zeros(3, 4) or
# zeros((3, 4)), tensor(data, dtype, device), randn and rand with the
# library's random streams (Ep.set_seed), and from_dlpack.

def _shape_and_dtype(name, args, dtype):
    """The shape of zeros(3, 4), zeros((3, 4)) or zeros([3, 4]), and the
    dtype: NumPy's zeros((3, 4), "int64") and zeros(3, "int64") keep
    their positional dtype (an extent is an integer, a dtype never: an
    Ep.DType is an int to Python, but no extent)."""
    if len(args) == 2 and (isinstance(args[1], Ep.DType) or not isinstance(args[1], numbers.Integral)):
        args, dtype = args[:1], args[1]
    if not args:
        raise TypeError(f"{name}: a shape is needed, as {name}(3, 4) or {name}((3, 4))")
    return _shape(args), dtype


def tensor(data: ArrayLike, dtype: Optional[DTypeLike] = None,
           device: Optional[_DeviceLike] = None) -> Tensor:
    """PyTorch's tensor(): a new tensor from a NumPy array, a nested list, a
    scalar or a tensor (astensor), of dtype, on device (default: the
    current device)."""
    made = astensor(data, dtype)
    return made if device is None else Ep.Tensor.to_device(made, _device(device))


def zeros(*shape: Union[int, _ShapeLike], dtype: DTypeLike = "float32") -> Tensor:
    """Zeros of a shape given as zeros(3, 4) or zeros((3, 4))."""
    dims, dtype = _shape_and_dtype("zeros", shape, dtype)
    return _OPS["zeros"](dims, dtype)


def ones(*shape: Union[int, _ShapeLike], dtype: DTypeLike = "float32") -> Tensor:
    """Ones of a shape given as ones(3, 4) or ones((3, 4))."""
    dims, dtype = _shape_and_dtype("ones", shape, dtype)
    return _OPS["ones"](dims, dtype)


def empty(*shape: Union[int, _ShapeLike], dtype: DTypeLike = "float32") -> Tensor:
    """NumPy's empty: a tensor of the shape, of zeros (tensors are
    immutable, so uninitialized data could never be filled in)."""
    dims, dtype = _shape_and_dtype("empty", shape, dtype)
    return _OPS["zeros"](dims, dtype)


def randn(*shape: Union[int, _ShapeLike], dtype: DTypeLike = "float32") -> Tensor:
    """Standard normal numbers (Ep.normal), shape as randn(3, 4) or
    randn((3, 4)); Ep.set_seed() makes them repeatable."""
    dims, dtype = _shape_and_dtype("randn", shape, dtype)
    return _OPS["normal"](dims, 0.0, 1.0, dtype)


def rand(*shape: Union[int, _ShapeLike], dtype: DTypeLike = "float32") -> Tensor:
    """Uniform numbers in [0, 1) (Ep.uniform), shape as rand(3, 4) or
    rand((3, 4)); Ep.set_seed() makes them repeatable."""
    dims, dtype = _shape_and_dtype("rand", shape, dtype)
    return _OPS["uniform"](dims, 0.0, 1.0, dtype)


def from_dlpack(obj: object) -> Tensor:
    """A tensor on the memory of another library's array, without a copy:
    any object with __dlpack__ (a PyTorch tensor, a NumPy array, ...) or
    a "dltensor" capsule, on the CPU (a read-only NumPy array, which NumPy
    does not export, is copied). The data must not be written while
    the tensor lives (tensors are immutable); the other library's memory
    is freed when the last tensor on it is gone."""
    if isinstance(obj, Ep.Tensor):
        return astensor(obj)
    if type(obj).__name__ == "PyCapsule":
        return _tensor_from_capsule(obj)
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"from_dlpack: {type(obj).__name__} has no __dlpack__ method")
    if type(obj).__name__ == "ndarray" and not obj.flags.writeable:
        # NumPy does not export read-only arrays (DLPack cannot say so): a
        # copy, which no one can tell from a view of data no one writes
        return astensor(obj)
    if hasattr(obj, "__dlpack_device__"):
        device_type = obj.__dlpack_device__()[0]
        if int(device_type) != _KDL_CPU:
            raise _ep_error(Ep.Error.DEVICE,
                            _("from_dlpack: the data is on DLPack device type %d, not the CPU (1); "
                              "copy it to the CPU first (.cpu() in PyTorch)") % int(device_type))
    return _tensor_from_capsule(obj.__dlpack__())


__all__ += ["tensor", "zeros", "ones", "empty", "randn", "rand", "from_dlpack"]


def _is_integer_dtype(dtype):
    return _dtype(dtype) in (Ep.DType.INT32, Ep.DType.INT64)


def eye(N: int, M: Optional[int] = None, k: int = 0, dtype: DTypeLike = "float32") -> Tensor:
    """NumPy's eye: M=None is a square matrix."""
    return _OPS["eye"](N, N if M is None else M, k, dtype)


def meshgrid(*tensors: ArrayLike, indexing: _MeshIndexingLike = "xy") -> list[Tensor]:
    """NumPy's meshgrid: broadcast views, one per input."""
    return _OPS["meshgrid"](tensors, indexing)


def split(a: ArrayLike, indices_or_sections: Union[int, Sequence[int]], axis: int = 0) -> list[Tensor]:
    return Tensor.split(_operand(a), indices_or_sections, axis)


def pad(a: ArrayLike, pad_width: Union[int, Sequence[int], Sequence[Sequence[int]]],
        mode: _PadModeLike = "constant", constant_values: float = 0.0) -> Tensor:
    return Tensor.pad(_operand(a), pad_width, mode, constant_values)


def transpose(a: ArrayLike, axes: Optional[Sequence[int]] = None) -> Tensor:
    return Ep.Tensor.transpose(_operand(a), None if axes is None else _ints(axes))


__all__ += ["arange", "full", "eye", "meshgrid", "split", "pad", "transpose"]


# einsum (issue 17, ops): NumPy's einsum(subscripts, *operands); C takes
# the operands first, as its schema lists inputs before attributes.

def einsum(subscripts: str, *operands: ArrayLike) -> Tensor:
    """NumPy's einsum: Einstein summation of the operands by subscripts
    ("ij,jk->ik"), contracted through batched matmuls."""
    if not isinstance(subscripts, str):
        raise TypeError("einsum: the subscripts must be a string, as einsum('ij,jk->ik', a, b)")
    return _OPS["einsum"](operands, subscripts)


__all__ += ["einsum"]


class _UniqueMethods:
    """Tensor.unique in NumPy's form (copied onto Tensor below)."""

    def unique(self, return_inverse: bool = False,
               return_counts: bool = False) -> Union[Tensor, tuple[Tensor, ...]]:
        """NumPy's unique: the sorted distinct elements, and with
        return_inverse and return_counts the inverse (of self's shape)
        and the counts, as a tuple in that order."""
        values, inverse, counts = _OPS["unique"](self)
        extra = [t for t, wanted in ((inverse, return_inverse), (counts, return_counts)) if wanted]
        return (values, *extra) if extra else values


Tensor.unique = _UniqueMethods.unique
Tensor.unique.__qualname__ = "Tensor.unique"


def unique(ar: ArrayLike, return_inverse: bool = False,
           return_counts: bool = False) -> Union[Tensor, tuple[Tensor, ...]]:
    return Tensor.unique(_operand(ar), return_inverse, return_counts)


__all__ += ["unique"]


def _bincount_method(self, weights: Optional[ArrayLike] = None, minlength: int = 0) -> Tensor:
    """NumPy's bincount: how many times each value 0, 1, ... occurs, or
    the sums of weights per value; weights=None counts."""
    if weights is None:
        weights = _OPS["full_like_int"](self, 1) if self.get_ndim() == 1 else self
    return _OPS["bincount"](self, weights, minlength)


_bincount_method.__name__ = "bincount"
_bincount_method.__qualname__ = "Tensor.bincount"
Tensor.bincount = _bincount_method


def bincount(x: _IndicesLike, weights: Optional[ArrayLike] = None, minlength: int = 0) -> Tensor:
    return Tensor.bincount(x if type(x) is Tensor else _indices(x), weights, minlength)


__all__ += ["bincount"]


def _histogram_method(self, bins: int = 10,
                      range: Optional[tuple[float, float]] = None) -> tuple[Tensor, Tensor]:
    """NumPy's histogram with a number of equal bins: (counts, edges)."""
    low, high = (None, None) if range is None else range
    return _OPS["histogram"](self, bins, low, high)


_histogram_method.__name__ = "histogram"
_histogram_method.__qualname__ = "Tensor.histogram"
Tensor.histogram = _histogram_method


def histogram(a: ArrayLike, bins: int = 10,
              range: Optional[tuple[float, float]] = None) -> tuple[Tensor, Tensor]:
    return Tensor.histogram(_operand(a), bins, range)


__all__ += ["histogram"]


def _roll_method(self, shift: Union[int, Sequence[int]],
                 axis: Optional[Union[int, Sequence[int]]] = None) -> Tensor:
    """NumPy's roll: one shift along one axis (or the flattened tensor),
    or tuples of shifts and axes (roll_axes)."""
    if isinstance(shift, numbers.Integral) and (axis is None or isinstance(axis, numbers.Integral)):
        return _OPS["roll"](self, shift, axis)
    return _OPS["roll_axes"](self, shift, axis)


def _repeat_method(self, repeats: Union[int, _IndicesLike], axis: Optional[int] = None) -> Tensor:
    """NumPy's repeat: one count for every element, or one per element
    along the axis (repeat_counts)."""
    if isinstance(repeats, numbers.Integral):
        return _OPS["repeat"](self, repeats, axis)
    return _OPS["repeat_counts"](self, repeats, axis)


for _name, _method in (("roll", _roll_method), ("repeat", _repeat_method)):
    _method.__name__ = _name
    _method.__qualname__ = f"Tensor.{_name}"
    setattr(Tensor, _name, _method)


def roll(a: ArrayLike, shift: Union[int, Sequence[int]],
         axis: Optional[Union[int, Sequence[int]]] = None) -> Tensor:
    return Tensor.roll(_operand(a), shift, axis)


def repeat(a: ArrayLike, repeats: Union[int, _IndicesLike], axis: Optional[int] = None) -> Tensor:
    return Tensor.repeat(_operand(a), repeats, axis)


__all__ += ["roll", "repeat"]


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

    def result_tensor(self, value, forward=False):
        if isinstance(value, Ep.Variable):
            value = value.read()
        if not isinstance(value, Ep.Tensor):
            raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                            (_("{name}: the forward function returned {type}, not a tensor") if forward
                             else _("{name}: the function returned {type}, not a tensor"))
                            .format(name=self.name, type=type(value).__name__))
        return value

    def run(self, body):
        try:
            return body()
        except GLib.Error:
            raise
        except BaseException as error:  # noqa: B902 (raised again by _call)
            # the Python exception's own text, raised again by _call
            passed_on = f"{self.name}: {type(error).__name__}: {error}"
            _pending.error = (passed_on, error)
            raise _ep_error(Ep.Error.INVALID_ARGUMENT, passed_on) from None


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
                                _("{name}: the function must return (value, aux)").format(name=self.user.name))
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


# The one-shot forms (value_and_grad, value_aux_and_grad, grad) run
# through a few long-lived Ep.ValueAndGradFn objects, not through
# Ep.value_and_grad: PyGObject (3.42) leaks about 130 bytes for each
# Python callable it hands to C, whatever the scope, and a training loop
# calls these forms a million times. Each object, one per (argnums,
# has_aux), was given its callable once: a trampoline that calls the
# function of the innermost one-shot call running on this thread (a
# function may itself call value_and_grad: higher-order derivatives).

class _Trampoline:
    """The callable of one cached Ep.ValueAndGradFn."""

    def __init__(self):
        self.local = threading.local()

    def calls(self):
        """This thread's stack of one-shot calls running through it."""
        try:
            return self.local.calls
        except AttributeError:
            self.local.calls = []
            return self.local.calls

    def __call__(self, inputs, *rest):
        return self.calls()[-1](inputs, *rest)


_ONE_SHOT_FNS = {}        # (argnums, has_aux) -> (Ep.ValueAndGradFn, _Trampoline)
_ONE_SHOT_MAX = 64        # distinct argnums kept; beyond, a call makes its own
_one_shot_lock = threading.Lock()


def _one_shot_fn(positions, has_aux):
    key = (tuple(positions), has_aux)
    entry = _ONE_SHOT_FNS.get(key)
    if entry is not None:
        return entry
    trampoline = _Trampoline()
    new = Ep.ValueAndGradFn.new_with_aux if has_aux else Ep.ValueAndGradFn.new
    entry = (new(trampoline, None, positions), trampoline)
    with _one_shot_lock:
        if len(_ONE_SHOT_FNS) < _ONE_SHOT_MAX:
            entry = _ONE_SHOT_FNS.setdefault(key, entry)
    return entry


def _one_shot(call, positions, inputs):
    """call (a _Differentiated) differentiated once at inputs."""
    fn, trampoline = _one_shot_fn(positions, call.has_aux)
    calls = trampoline.calls()
    calls.append(call)
    try:
        if call.has_aux:
            return call.invoke(lambda: fn.call_with_aux(inputs))
        return call.invoke(lambda: fn.call(inputs))
    finally:
        calls.pop()


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
    value, grads = _one_shot(call, positions, inputs)
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
    value, aux, grads = _one_shot(call, positions, inputs)
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


# ---------------------------------------------------------------------------
# memory scopes: Ep.tidy, Ep.keep, Ep.dispose, Ep.memory (TensorFlow.js's)
#
# The scope is C's (ep_tidy_begin/ep_tidy_end on the thread's context);
# here, what TF.js accepts on top: a function returning a tensor, a list,
# tuple or dict of them (nested) or None, and containers for keep and
# dispose. Python exceptions go through as they are: the scope closes in
# a finally.
# ---------------------------------------------------------------------------

from typing import NamedTuple  # noqa: E402

_Scoped = TypeVar("_Scoped")


def _tensors_in(value, found):
    """The tensors in value: itself, or those in its lists, tuples and
    dicts (nested); Variables and other values are not tensors."""
    if isinstance(value, Ep.Tensor):
        found.append(value)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _tensors_in(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            _tensors_in(item, found)
    return found


def _close_scopes(scope, results):
    # scopes fn opened and left open close with this one, handing out the
    # same results
    while Ep.tidy_get_depth() > scope:
        Ep.tidy_end(Ep.tidy_get_depth(), results)
    Ep.tidy_end(scope, results)


def tidy(fn: Callable[[], _Scoped]) -> _Scoped:
    """Runs fn() and releases every tensor made meanwhile on this thread,
    but those it returns (a tensor, or a list, tuple or dict of them) and
    those kept with Ep.keep. fn's exceptions propagate; the scope closes
    all the same."""
    if not callable(fn):
        raise TypeError(f"tidy: fn must be callable, not {type(fn).__name__}")
    scope = Ep.tidy_begin()
    try:
        result = fn()
    except BaseException:
        _close_scopes(scope, [])
        raise
    _close_scopes(scope, _tensors_in(result, []))
    return result


def keep(value: _Scoped) -> _Scoped:
    """Keeps a tensor (or each tensor of a list, tuple or dict) from being
    released by the tidy scopes around it; returns value."""
    for tensor in _tensors_in(value, []):
        Ep.keep(tensor)
    return value


def dispose(value: object) -> None:
    """Releases a tensor (or each tensor of a list, tuple or dict) now;
    released ones and other values are left alone."""
    for tensor in _tensors_in(value, []):
        Ep.dispose(tensor)


class DeviceMemory(NamedTuple):
    """The memory of one device: bytes of storage alive, tensors holding
    data."""
    n_bytes: int
    n_tensors: int


class MemoryInfo(NamedTuple):
    """What Ep.memory() returns: totals, and the same per device name."""
    n_bytes: int
    n_tensors: int
    devices: dict[str, DeviceMemory]


def memory() -> MemoryInfo:
    """Bytes and tensors alive, over every device and per device
    (TensorFlow.js's tf.memory(): numBytes, numTensors)."""
    devices = {d.get_name(): DeviceMemory(d.get_bytes_in_use(), d.get_n_tensors())
               for d in Ep.list_devices()}
    return MemoryInfo(sum(d.n_bytes for d in devices.values()),
                      sum(d.n_tensors for d in devices.values()), devices)


__all__ += ["tidy", "keep", "dispose", "memory", "MemoryInfo", "DeviceMemory"]


def stop_gradient(x: ArrayLike) -> Tensor:
    """x without history: tapes treat it as a constant."""
    return _as_tensor(x).stop_gradient()


def _gradient_list(grads, n, name):
    if not _is_sequence(grads):
        grads = [grads]
    grads = list(grads)
    if len(grads) != n:
        raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                        _("{name}: the backward function returns one gradient per argument ({n}); "
                          "it returned {count}").format(name=name, n=n, count=len(grads)))
    for g in grads:
        if g is not None and not isinstance(g, (Ep.Tensor, Ep.Variable)):
            raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                            _("{name}: the backward function returned {type}, not a tensor")
                            .format(name=name, type=type(g).__name__))
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

    # One Ep.CustomGradientFn for the function, given its callbacks once
    # (PyGObject keeps memory of each callable handed to C: see the
    # one-shot value_and_grad). The forward callback runs the innermost
    # call of this thread; the decorator form's grad_fn, one per call,
    # rides on that call's result, which the backward callback is given.
    user = _UserFunction(f, "custom_gradient")
    running = threading.local()

    def calls():
        try:
            return running.calls
        except AttributeError:
            running.calls = []
            return running.calls

    def forward(forward_inputs, *_rest):
        def body():
            if backward is not None:
                return user.result_tensor(f(*forward_inputs), forward=True)
            result = f(*forward_inputs)
            if not _is_sequence(result) or len(result) != 2 or not callable(result[1]):
                raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                                _("custom_gradient: the function must return (y, grad_fn)"))
            calls()[-1]["grad_fn"] = result[1]
            return user.result_tensor(result[0], forward=True)
        return user.run(body)

    def backward_call(backward_inputs, *rest):
        tensors = [a for a in rest if isinstance(a, Ep.Tensor)]
        output, dy = tensors[-2], tensors[-1]

        def body():
            if backward is not None:
                grads = backward(tuple(backward_inputs), output, dy)
            else:
                grad_fn = getattr(output, "_ep_grad_fn", None)
                if grad_fn is None:     # a staged replay: its result is not the call's
                    raise _ep_error(Ep.Error.GRADIENT,
                                    _("custom_gradient: the grad_fn of this result is not known (a staged "
                                      "function replays it; use the form custom_gradient(forward, backward))"))
                grads = grad_fn(dy)
            return _gradient_list(grads, len(backward_inputs), "custom_gradient")
        return user.run(body)

    # the user data is a tuple: PyGObject 3.42 expects one for each of
    # these callbacks, and a later one may pass it on (*_rest ignores it)
    fn = Ep.CustomGradientFn.new(forward, (), backward_call, ())

    def call(*args):
        inputs = [_as_tensor(a) for a in args]
        state = {}
        stack = calls()
        stack.append(state)
        try:
            y = _call(fn.call, inputs)
        finally:
            stack.pop()
        if backward is None:
            y._ep_grad_fn = state["grad_fn"]
        return y

    call.function = fn
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

    def record(self, fn: Callable[[], _Scoped]) -> _Scoped:
        """Starts the tape, returns fn(), and stops the tape whatever
        happens (as `with tape:` does)."""
        self.start()
        try:
            return fn()
        finally:
            self.stop()

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
        value = None if initial_value is None else _as_tensor(initial_value)
        if value is not None and value.is_released():
            raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                            _("Variable: the initial value was released and has no data"))
        if value is not None:
            value = astensor(value, dtype)
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

    # In place, as in TensorFlow and PyTorch: `v -= lr * g` updates the
    # variable (and is traced as an assignment in a staged function); it
    # never rebinds the name to a tensor. The result keeps the variable's
    # dtype and shape, or the assignment's error is raised.
    def __iadd__(self, delta: ArrayLike) -> Variable:
        self.assign_add(delta)
        return self

    def __isub__(self, delta: ArrayLike) -> Variable:
        self.assign_sub(delta)
        return self

    def __imul__(self, factor: ArrayLike) -> Variable:
        self.assign(self.read() * factor)
        return self

    def __itruediv__(self, divisor: ArrayLike) -> Variable:
        self.assign(self.read() / divisor)
        return self

    # copies and pickling (Tensor's would answer through __getattr__ with
    # the value): a new Variable of the current value, name and trainable
    # flag; the value is immutable, so a copy and a deep copy are the same
    def __copy__(self) -> Variable:
        return Variable(self.read(), name=self.get_name(), trainable=self.get_trainable())

    def __deepcopy__(self, memo: dict[int, Any]) -> Variable:
        return self.__copy__()

    def __reduce__(self) -> tuple[Any, ...]:
        return (Variable._from_pickle, (self.read(), self.get_name(), self.get_trainable()))

    @_picklable
    def _from_pickle(value: Tensor, name: Optional[str], trainable: bool) -> Variable:
        return Variable(value, name=name, trainable=trainable)

    def numpy(self) -> _NDArray:
        return self.read().numpy()

    def __dlpack__(self, stream: Optional[int] = None, *, max_version: Optional[tuple[int, int]] = None,
                   dl_device: Optional[tuple[int, int]] = None, copy: Optional[bool] = None) -> object:
        """The current value's DLPack capsule (torch.from_dlpack(v)): it
        keeps that value whatever the variable is assigned later."""
        return self.read().__dlpack__(stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.read().__dlpack_device__()

    def item(self) -> Union[bool, int, float]:
        return self.read().item()

    def __array__(self, dtype: Optional[_NumPyDTypeLike] = None,
                  copy: Optional[bool] = None) -> _NDArray:
        return self.read().__array__(dtype, copy)

    # np.exp(v), np.sum(v), ndarray - v: on the value read, as Tensor's
    __array_ufunc__ = Tensor.__array_ufunc__
    __array_function__ = Tensor.__array_function__

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
# Forward mode (issue 17): ForwardAccumulator, jvp, hvp
# ---------------------------------------------------------------------------

def _primal(value, name):
    if isinstance(value, Ep.Variable):
        raise TypeError(f"{name}: a primal must be a tensor, not a Variable (each read of a "
                        f"Variable is a new tensor: watch v.read() and compute with that)")
    return _as_tensor(value)


def _tangent_for(primal, value):
    """A tangent: a tensor as it is, anything else in the primal's dtype."""
    if isinstance(value, Ep.Tensor):
        return value
    return astensor(value, primal.dtype)


class ForwardAccumulator(Ep.ForwardAccumulator):
    """`with Ep.ForwardAccumulator(primals, tangents) as acc:` computes the
    tangents of what is computed from the primals; acc.jvp(y) is y's
    derivative along the tangents (TensorFlow's ForwardAccumulator)."""

    def __init__(self, primals: Union[_TensorLike, Sequence[_TensorLike], None] = None,
                 tangents: Union[ArrayLike, Sequence[ArrayLike], None] = None,
                 unconnected_gradients: _Unconnected = None) -> None:
        Ep.ForwardAccumulator.__init__(self)
        if unconnected_gradients is not None:
            self.set_unconnected_gradients(_unconnected(unconnected_gradients))
        if primals is not None:
            self.watch(primals, tangents)

    def __enter__(self) -> ForwardAccumulator:
        self.start()
        return self

    # stop at the end of `with`; record(fn): start, fn(), stop, as a tape
    __exit__ = GradientTape.__exit__
    record = GradientTape.record

    def watch(self, primals: Union[_TensorLike, Sequence[_TensorLike]],
              tangents: Union[ArrayLike, Sequence[ArrayLike]]) -> None:
        """Gives a tensor (or each of a list) its tangent (or each of a list)."""
        single = not _is_sequence(primals)
        primal_list = [primals] if single else list(primals)
        tangent_list = [tangents] if single else (list(tangents) if _is_sequence(tangents) else None)
        if tangent_list is None or len(tangent_list) != len(primal_list):
            given = 1 if tangent_list is None else len(tangent_list)
            raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                            _("watch: one tangent per primal ({n}) is needed; {m} given").format(
                                n=len(primal_list), m=given))
        for primal, tangent in zip(primal_list, tangent_list):
            p = _primal(primal, "watch")
            Ep.ForwardAccumulator.watch(self, p, _tangent_for(p, tangent))

    @overload
    def jvp(self, primals: _TensorLike, unconnected_gradients: _Unconnected = None) -> Tensor: ...
    @overload  # noqa: E301
    def jvp(self, primals: list[_TensorLike], unconnected_gradients: _Unconnected = None) -> list[Tensor]: ...
    @overload  # noqa: E301
    def jvp(self, primals: tuple[_TensorLike, ...],
            unconnected_gradients: _Unconnected = None) -> tuple[Tensor, ...]: ...

    def jvp(self, primals, unconnected_gradients=None):
        """The tangent of a tensor (or of each of a list or tuple): None
        for an unconnected one when asked so (unconnected_gradients="none")."""
        single = not _is_sequence(primals)
        items = [primals] if single else list(primals)
        saved = self.get_unconnected_gradients()
        if unconnected_gradients is not None:
            self.set_unconnected_gradients(_unconnected(unconnected_gradients))
        try:
            tangents = [Ep.ForwardAccumulator.jvp(self, _as_tensor(t)) for t in items]
        finally:
            self.set_unconnected_gradients(saved)
        if single:
            return tangents[0]
        return type(primals)(tangents)


ForwardAccumulator = override(ForwardAccumulator)


def _fresh(values, name):
    # new tensor objects for the arguments, so that an argument passed
    # twice gets each of its tangents
    return [_primal(v, name).reshape(_primal(v, name).shape) for v in values]


def jvp(f: Callable[..., Any], primals: Sequence[ArrayLike],
        tangents: Sequence[ArrayLike]) -> tuple[Any, Any]:
    """(f(*primals), its derivative along tangents) in one forward pass,
    like torch.func.jvp: primals and tangents are tuples of the same
    length; f returns a tensor (then so is the derivative) or a tuple or
    list of tensors (then a tuple or list of derivatives)."""
    if not _is_sequence(primals) or not _is_sequence(tangents):
        raise TypeError("jvp: primals and tangents must be tuples or lists")
    if len(primals) != len(tangents):
        raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                        _("{name}: one tangent per primal ({n}) is needed; {m} given").format(
                            name="jvp", n=len(primals), m=len(tangents)))
    inputs = _fresh(primals, "jvp")
    with ForwardAccumulator(inputs, list(tangents)) as acc:
        out = f(*inputs)
    if _is_sequence(out):
        return out, type(out)(acc.jvp(_as_tensor(o)) for o in out)
    return out, acc.jvp(_as_tensor(out))


def hvp(f: Callable[..., _TensorLike], inputs: Union[ArrayLike, Sequence[ArrayLike]],
        v: Union[ArrayLike, Sequence[ArrayLike]]) -> tuple[Tensor, Any]:
    """(f(*inputs), H·v): the Hessian of f's single-element result times v,
    forward over reverse (an accumulator around a tape), like
    torch.autograd.functional.hvp: inputs and v are a tensor each, or
    tuples of the same length (then the products are a tuple)."""
    single = not _is_sequence(inputs)
    input_list = [inputs] if single else list(inputs)
    v_list = [v] if single else (list(v) if _is_sequence(v) else [v])
    if len(v_list) != len(input_list):
        raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                        _("{name}: one tangent per primal ({n}) is needed; {m} given").format(
                            name="hvp", n=len(input_list), m=len(v_list)))
    xs = _fresh(input_list, "hvp")
    with ForwardAccumulator(xs, v_list) as acc:
        with GradientTape() as tape:
            tape.watch(xs)
            y = _as_tensor(f(*xs))
        if not Ep.dtype_is_floating(y.get_dtype()):
            raise _ep_error(Ep.Error.DTYPE,
                            _("hvp: the function returned a tensor of type {dtype}; only "
                              "floating-point values have gradients").format(dtype=y.dtype))
        if y.size != 1:
            raise _ep_error(Ep.Error.SHAPE,
                            _("hvp: the function must return a single element; it returned a "
                              "tensor of shape {shape}").format(shape=tuple(y.shape)))
        grads = tape.gradient(y, xs)
    products = acc.jvp(grads)
    return y, (products[0] if single else tuple(products))


__all__ += ["ForwardAccumulator", "jvp", "hvp"]


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


# ---------------------------------------------------------------------------
# staged functions: Ep.function, TensorSpec
#
# Ep.function(f) stages f as TensorFlow's tf.function does: its first call
# with a new signature runs f once, eagerly, under a tracer (an
# Ep.Function, in C), and later calls with that signature replay the
# graph in C, without calling f.
#
# The signature of a call has two parts. Tensors anywhere in the
# arguments (NumPy arrays become tensors), nested in lists, tuples and
# dicts, are the graph's inputs: C keys its graphs by their dtypes,
# shapes, devices and weakness, and by the device scope. Everything else
# is fixed when f is traced, so it is keyed here: numbers, strings, None,
# dtypes, slices and any other hashable value by value (1, 1.0 and True
# apart, 0.0 and -0.0 apart), the nesting of the containers, and
# Variables, Modules and the `self` of a method by identity, weakly (the key goes
# with the object); a Module (argument or `self`) also by the training flags
# of its tree. Each key has an Ep.Function of its own, made on its
# first call: a call is a lookup in a dict and a call into C, and a
# replay never enters Python.
# ---------------------------------------------------------------------------

import inspect  # noqa: E402
import sys  # noqa: E402
import weakref  # noqa: E402

_P = ParamSpec("_P")
_R = TypeVar("_R")


class TensorSpec(Ep.TensorSpec):
    """Ep.TensorSpec(shape, dtype="float32"): what a tensor argument of a
    staged function may be; None (or -1) is an extent of any size, as in
    tf.TensorSpec."""

    def __new__(cls, shape: Union[int, Sequence[Optional[int]]] = (),
                dtype: DTypeLike = "float32") -> TensorSpec:
        if type(shape) is int or isinstance(shape, numbers.Integral):
            shape = [shape]
        return Ep.TensorSpec.new([-1 if d is None else operator.index(d) for d in shape], _dtype(dtype))

    def __init__(self, shape: Union[int, Sequence[Optional[int]]] = (),
                 dtype: DTypeLike = "float32") -> None:
        pass  # made by __new__

    @staticmethod
    def new(shape: Sequence[int], dtype: DTypeLike) -> TensorSpec:
        """ep_tensor_spec_new, with integer extents (-1: any)."""
        return TensorSpec(shape, dtype)

    @property
    def shape(self) -> tuple[Optional[int], ...]:
        """The extents, None where any extent will do."""
        return tuple(None if d < 0 else d for d in self.get_shape())

    @property
    def dtype(self) -> Ep.DType:
        return self.get_dtype()

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Ep.TensorSpec) and self.get_dtype() == other.get_dtype()
                and list(self.get_shape()) == list(other.get_shape()))

    def __hash__(self) -> int:
        return hash((int(self.get_dtype()), tuple(self.get_shape())))

    def __repr__(self) -> str:
        return f"Ep.TensorSpec(shape={self.shape}, dtype={Ep.dtype_get_name(self.get_dtype())})"


TensorSpec = override(TensorSpec)


class _Leaf:
    """A tensor's place in a key or a structure (the tensors themselves
    are the graph's inputs or results, in order)."""
    __slots__ = ()

    def __repr__(self):
        return "<tensor>"


_TENSOR = _Leaf()
_UNKNOWN = object()   # no graph traced yet
_MIXED = object()     # graphs of one key whose results nest differently


class _Identity:
    """An object in a key by identity: weakly where it can be, so that the
    key matches no other object once this one is gone."""
    __slots__ = ("ref", "id")

    def __init__(self, value):
        self.id = id(value)
        try:
            self.ref = weakref.ref(value)
        except TypeError:
            self.ref = lambda: value

    def __hash__(self):
        return self.id

    def __eq__(self, other):
        if type(other) is not _Identity or other.id != self.id:
            return False
        value = self.ref()
        return value is not None and value is other.ref()

    def __repr__(self):
        return f"<{type(self.ref()).__name__} at {self.id:#x}>"


def _is_array(value):
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, (numpy.ndarray, numpy.generic))


def _sequence(kind, items):
    """A list or tuple of type `kind` (a namedtuple, PyGObject's result
    tuples) with the items."""
    if kind is tuple or kind is list:
        return kind(items)
    return kind(*items) if hasattr(kind, "_fields") else kind(items)


def _dict_keys(value):
    """A dict's keys in the order its values are flattened: sorted where
    they sort, so that {"a": .., "b": ..} and {"b": .., "a": ..} match."""
    try:
        return tuple(sorted(value))
    except TypeError:
        return tuple(value)


def _argument_key(value, tensors):
    """The key of an argument; its tensors (arrays made tensors) are
    appended to `tensors`, in the order _substitute() puts them back."""
    kind = type(value)
    if kind is Tensor or isinstance(value, Ep.Tensor):
        tensors.append(value)
        return _TENSOR
    if kind is float:
        return (float, value.hex())   # -0.0 is not 0.0, NaN is NaN
    if kind is int or kind is bool or kind is str or value is None:
        return (kind, value)
    if kind is tuple or kind is list or isinstance(value, (tuple, list)):
        return (kind, tuple([_argument_key(v, tensors) for v in value]))
    if kind is dict:
        keys = _dict_keys(value)
        return (dict, keys, tuple([_argument_key(value[k], tensors) for k in keys]))
    if kind is slice:   # (not hashable before Python 3.12)
        return (slice, tuple([_argument_key(v, tensors) for v in (value.start, value.stop, value.step)]))
    if isinstance(value, Ep.Module):
        return _module_key(value)
    if isinstance(value, Ep.Variable):
        return _Identity(value)
    if _is_array(value):
        tensors.append(astensor(value))
        return _TENSOR
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"{kind.__name__} is not hashable: a staged function keys its graphs by the "
                        f"Python values of its arguments (pass a tensor, or a hashable value such as "
                        f"a tuple)") from None
    return (kind, value)


def _substitute(value, inputs):
    """The argument with each of its tensors (and arrays) replaced by the
    next of `inputs` (an iterator), where _argument_key() found them."""
    kind = type(value)
    if kind is Tensor or isinstance(value, Ep.Tensor) or _is_array(value):
        return next(inputs)
    if isinstance(value, (tuple, list)):
        return _sequence(kind, [_substitute(v, inputs) for v in value])
    if kind is dict:
        new = {k: _substitute(value[k], inputs) for k in _dict_keys(value)}
        return {k: new[k] for k in value}
    if kind is slice:
        return slice(*[_substitute(v, inputs) for v in (value.start, value.stop, value.step)])
    return value


def _signature_leaves(signature, flat, where="input_signature"):
    """Checks an input signature (TensorSpecs nested in lists, tuples and
    dicts) and appends its specs to `flat`."""
    if isinstance(signature, Ep.TensorSpec):
        flat.append(signature)
    elif _is_sequence(signature):
        for i, item in enumerate(signature):
            _signature_leaves(item, flat, f"{where}[{i}]")
    elif isinstance(signature, dict):
        for k in _dict_keys(signature):
            _signature_leaves(signature[k], flat, f"{where}[{k!r}]")
    else:
        raise TypeError(f"function: {where} is {type(signature).__name__}, not an Ep.TensorSpec "
                        f"(nor a list, tuple or dict of them)")


def _to_signature(value, spec, tensors, where):
    """An argument for `spec`: its tensors (values made tensors of the
    spec's dtype) appended to `tensors`."""
    if isinstance(spec, Ep.TensorSpec):
        if not isinstance(value, Ep.Tensor):
            value = value.read() if isinstance(value, Ep.Variable) else astensor(value, spec.get_dtype())
        tensors.append(value)
    elif isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            raise TypeError(f"{where}: the input signature has a dict with keys {sorted(spec)} here, "
                            f"not {value!r}")
        for k in _dict_keys(spec):
            _to_signature(value[k], spec[k], tensors, f"{where}[{k!r}]")
    else:
        if not _is_sequence(value) or len(value) != len(spec):
            raise TypeError(f"{where}: the input signature has a sequence of {len(spec)} here, "
                            f"not {value!r}")
        for i, (v, s) in enumerate(zip(value, spec)):
            _to_signature(v, s, tensors, f"{where}[{i}]")


def _from_signature(value, spec, inputs):
    """`value` (an argument for `spec`) with the next `inputs` as its tensors."""
    if isinstance(spec, Ep.TensorSpec):
        return next(inputs)
    if isinstance(spec, dict):
        new = {k: _from_signature(value[k], spec[k], inputs) for k in _dict_keys(spec)}
        return {k: new[k] for k in value}
    return _sequence(type(value), [_from_signature(v, s, inputs) for v, s in zip(value, spec)])


def _result_structure(value, tensors, name):
    """The structure of a result: tensors (Variables read) appended to
    `tensors`; lists, tuples, dicts and None kept around them."""
    if isinstance(value, Ep.Tensor):
        tensors.append(value)
        return _TENSOR
    if isinstance(value, Ep.Variable):
        tensors.append(value.read())
        return _TENSOR
    if value is None:
        return None
    kind = type(value)
    if isinstance(value, (tuple, list)):
        return (kind, tuple([_result_structure(v, tensors, name) for v in value]))
    if kind is dict:
        return (dict, tuple(value), tuple([_result_structure(v, tensors, name) for v in value.values()]))
    raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                    _("function: {name} returned {type}, not a tensor (a staged function returns "
                      "tensors, alone or in lists, tuples and dicts, and None)")
                    .format(name=name, type=kind.__name__))


def _rebuild(structure, tensors):
    """`structure` with the tensors (an iterator) in their places."""
    if structure is _TENSOR:
        return next(tensors)
    if structure is None:
        return None
    kind = structure[0]
    if kind is dict:
        return {k: _rebuild(s, tensors) for k, s in zip(structure[1], structure[2])}
    return _sequence(kind, [_rebuild(s, tensors) for s in structure[1]])


def _graph_signature(tensors, specs):
    """What C keys a graph by: the device scope, and the dtype, weakness,
    shape (the spec's, where there are specs) and device of each input."""
    scope = Ep.Device.get_current()
    return (scope.get_name() if scope is not None else None,) + tuple(
        (int(t.get_dtype()), t.is_weak(), tuple((specs[i] if specs else t).get_shape()),
         t.get_device().get_name())
        for i, t in enumerate(tensors))


@lru_cache(maxsize=None)
def _no_result():
    """What C gets from a function that returns no tensor (a step that
    only assigns variables): the graph returns it, Python drops it."""
    return Ep.keep(Ep.Tensor.new_scalar(0, Ep.DType.BOOL))


# the trace under way on this thread: (its _Trace, the call's run function)
_tracing = threading.local()


class _Graph:
    """What Python knows of a graph: the specs of its inputs, the
    structure of its results and their specs at trace time."""
    __slots__ = ("inputs", "structure", "outputs")

    def __init__(self, inputs, structure, outputs):
        self.inputs = inputs
        self.structure = structure
        self.outputs = outputs


class _Trace:
    """The graphs of one key: an Ep.Function, and the structure of the
    results of each graph (one for all of them, most often)."""

    def __init__(self, staged, key):
        self.user = _UserFunction(staged._python_function, "function")
        self.name = getattr(staged, "__qualname__", None) or self.user.name
        self.specs = staged._flat_specs
        self.key = key
        self.structure = _UNKNOWN
        self.graphs = {}   # _graph_signature -> _Graph
        callback = _trace_callback(weakref.ref(self))
        if self.specs is None:
            self.function = Ep.Function.new(callback)
        else:
            self.function = Ep.Function.new_with_signature(callback, None, self.specs)

    def call(self, run, tensors):
        """The results of the graph for `tensors`; `run(inputs)` runs the
        Python function on other tensors if C traces."""
        saved = getattr(_tracing, "call", None)
        _tracing.call = (self, run)
        try:
            results = _call(self.function.call, tensors)
        finally:
            _tracing.call = saved
        structure = self.structure
        if structure is _MIXED:
            structure = self.graphs[_graph_signature(tensors, self.specs)].structure
        if structure is _TENSOR:
            return results[0]
        return _rebuild(structure, iter(results))

    def traced(self, inputs, run):
        """The Python function on the tracer's inputs; its results
        flattened for C, their structure kept for the replays."""
        result = run(iter(inputs))
        flat = []
        structure = _result_structure(result, flat, self.name)
        self.graphs[_graph_signature(inputs, self.specs)] = _Graph(
            tuple(self.specs) if self.specs is not None
            else tuple(TensorSpec(t.get_shape(), t.get_dtype()) for t in inputs),
            structure, tuple(TensorSpec(t.get_shape(), t.get_dtype()) for t in flat))
        if self.structure is _UNKNOWN:
            self.structure = structure
        elif self.structure is not _MIXED and self.structure != structure:
            self.structure = _MIXED
        return flat if flat else [_no_result()]


def _trace_callback(trace_ref):
    """The EpTensorsFunc of a key's Ep.Function. It holds its _Trace
    weakly, as the Ep.Function, in C, holds it."""
    def callback(inputs, *_rest):
        # (PyGObject passes the array length too on some versions)
        trace = trace_ref()
        owner, run = _tracing.call
        assert owner is trace, "a staged function traced outside its call"
        return trace.user.run(lambda: trace.traced(inputs, run))
    return callback


class _Cache:
    """The traces of a staged function by key, shared with its methods
    bound to objects; `forgotten` counts the traces of keys dropped."""
    __slots__ = ("traces", "forgotten", "__weakref__")

    def __init__(self):
        self.traces = {}
        self.forgotten = 0


def _forget(cache_ref, key):
    """A key's graphs go when an object it holds by identity goes."""
    cache = cache_ref()
    trace = cache.traces.pop(key, None) if cache is not None else None
    if trace is not None:
        cache.forgotten += trace.function.get_trace_count()


def _training_flags(module):
    flags = [Ep.Module.get_training(module)]
    for child in Ep.Module.get_children(module)[0]:
        flags.extend(_training_flags(child))
    return tuple(flags)


def _module_key(module):
    """A module by identity and by the training flags of its tree: a graph
    traced in training (batch statistics, dropout) is not replayed after
    eval(), nor the other way round."""
    return (_Identity(module), _training_flags(module))


def _identities(key):
    if type(key) is _Identity:
        yield key
    elif type(key) is tuple:
        for item in key:
            yield from _identities(item)


def _takes_arguments(name, n):
    return _n("{name}: takes the {n} argument of its input signature",
              "{name}: takes the {n} arguments of its input signature", n).format(name=name, n=n)


class StagedFunction(Generic[_P, _R]):
    """A function staged by Ep.function; call it as the function itself.

    The first call with a new signature traces the function (runs it
    eagerly, recording its ops); later calls with that signature replay
    the graph in C. trace_count says how many graphs it has traced, and
    get_concrete_function(*args) gives the graph of the signature of args.
    """

    def __init__(self, python_function: Callable[_P, _R],
                 input_signature: Optional[_InputSignature] = None) -> None:
        if not callable(python_function):
            raise TypeError(f"function: {type(python_function).__name__} is not callable")
        functools.update_wrapper(self, python_function)
        self._python_function = python_function
        self._instance = None
        self._cache = _Cache()
        try:
            self._signature = inspect.signature(python_function)
        except (TypeError, ValueError):  # some builtins have none
            self._signature = None
        # Calls with positional arguments only, of a function whose
        # parameters are all positional, need no binding: the arguments
        # given, then the defaults of the others (_n_required of them
        # have none).
        parameters = list(self._signature.parameters.values()) if self._signature is not None else []
        if self._signature is not None and all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                                               for p in parameters):
            self._defaults = tuple(p.default for p in parameters if p.default is not p.empty)
            self._n_required = len(parameters) - len(self._defaults)
        else:
            self._defaults = None
            self._n_required = -1
        self._input_signature = None
        self._flat_specs = None
        if input_signature is not None:
            if not _is_sequence(input_signature):
                raise TypeError("function: input_signature is a list or tuple of Ep.TensorSpec")
            flat = []
            _signature_leaves(input_signature, flat)
            self._input_signature = tuple(input_signature)
            self._flat_specs = flat

    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        key, tensors, run = self._key(args, kwargs)
        trace = self._cache.traces.get(key)
        if trace is None:
            trace = self._new_trace(key)
        return trace.call(run, tensors)

    # the key of a call

    def _bind(self, args, kwargs):
        """(names, values): the arguments in the order of the parameters,
        defaults applied; names None when args are all of them, (n,
        keyword names...) for a function without a signature."""
        if not kwargs and self._n_required <= len(args) <= self._n_required + len(self._defaults or ()):
            return None, args + self._defaults[len(args) - self._n_required:]
        if self._signature is None:
            names = tuple(sorted(kwargs))
            return (len(args),) + names, args + tuple(kwargs[k] for k in names)
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{self.__name__}: {error}") from None
        bound.apply_defaults()
        return tuple(bound.arguments), tuple(bound.arguments.values())

    def _invoke(self, names, values):
        function = self._python_function
        if names is None:
            return function(*values)
        if type(names[0]) is int:
            return function(*values[:names[0]], **dict(zip(names[1:], values[names[0]:])))
        bound = inspect.BoundArguments(self._signature, dict(zip(names, values)))
        return function(*bound.args, **bound.kwargs)

    def _key(self, args, kwargs):
        """(key, tensors, run): the key of a call, its tensors, and a
        function that runs the Python function with other tensors in the
        tensors' places."""
        if self._instance is not None:
            args = (self._instance,) + args
            first = [_module_key(self._instance) if isinstance(self._instance, Ep.Module)
                     else _Identity(self._instance)]
        else:
            first = []
        if self._input_signature is not None:
            return self._signature_key(args, kwargs, first)
        names, values = self._bind(args, kwargs)
        tensors = []
        skip = len(first)
        try:
            key = tuple(first + [_argument_key(v, tensors) for v in values[skip:]])
        except TypeError as error:
            raise TypeError(f"{self.__name__}: {error}") from None
        if self._signature is None:
            key += (names,)

        def run(inputs):
            return self._invoke(names, values[:skip] + tuple(_substitute(v, inputs) for v in values[skip:]))
        return key, tensors, run

    def _signature_key(self, args, kwargs, first):
        """The same for a function with an input signature: the arguments
        match it, and are its tensors; the key is only the bound object."""
        skip = len(first)
        n = len(self._input_signature)
        if self._signature is None:
            if kwargs or len(args) != skip + n:
                raise TypeError(_takes_arguments(self.__name__, n))
            values = list(args[skip:])
        else:
            try:
                bound = self._signature.bind(*args, **kwargs)
            except TypeError as error:
                raise TypeError(f"{self.__name__}: {error}") from None
            parameters = list(self._signature.parameters.values())[skip:skip + n]
            names = [p.name for p in parameters]
            extra = [name for name in list(bound.arguments)[skip:] if name not in names]
            if len(parameters) < n or extra:
                raise TypeError(_takes_arguments(self.__name__, n) + (f", not {', '.join(extra)}" if extra else ""))
            values = [bound.arguments.get(p.name, p.default) for p in parameters]
        tensors = []
        for i, (value, spec) in enumerate(zip(values, self._input_signature)):
            _to_signature(value, spec, tensors, f"{self.__name__}: argument {i}")
        function = self._python_function

        def run(inputs):
            return function(*args[:skip], *[_from_signature(v, s, inputs)
                                            for v, s in zip(values, self._input_signature)])
        return tuple(first), tensors, run

    def _new_trace(self, key):
        trace = _Trace(self, key)
        self._cache.traces[key] = trace
        for identity in _identities(key):
            try:
                weakref.finalize(identity.ref(), _forget, weakref.ref(self._cache), key)
            except TypeError:
                pass  # held strongly: lives as long as the key
        return trace

    # methods: `self` is an argument, in the key by identity

    # (mypy 1.0 cannot bind a ParamSpec's first parameter: the bound
    # method's parameters are not checked, its result is typed)
    @overload
    def __get__(self, instance: None, owner: Optional[type] = None) -> StagedFunction[_P, _R]: ...
    @overload  # noqa: E301
    def __get__(self, instance: object, owner: Optional[type] = None) -> StagedFunction[..., _R]: ...

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        bound = object.__new__(type(self))
        bound.__dict__.update(self.__dict__)
        bound._instance = instance
        return bound

    # what it has traced

    @property
    def python_function(self) -> Callable[_P, _R]:
        """The function staged."""
        return self._python_function

    @property
    def input_signature(self) -> Optional[tuple[_SpecTree, ...]]:
        return self._input_signature

    @property
    def trace_count(self) -> int:
        """How many graphs the function traced, over every signature (of
        this object's calls, for a method bound to an object)."""
        traces = list(self._cache.traces.values())
        if self._instance is not None:
            mine = _Identity(self._instance)
            return sum(t.function.get_trace_count() for t in traces if t.key[:1] == (mine,))
        return self._cache.forgotten + sum(t.function.get_trace_count() for t in traces)

    def get_concrete_function(self, *args: _P.args, **kwargs: _P.kwargs) -> ConcreteFunction[_P, _R]:
        """The graph that serves calls with the signature of these
        arguments; traced now (the function runs once) if there is none."""
        key, tensors, run = self._key(args, kwargs)
        trace = self._cache.traces.get(key)
        if trace is None:
            trace = self._new_trace(key)
        signature = _graph_signature(tensors, trace.specs)
        if signature not in trace.graphs:
            trace.call(run, tensors)
        return ConcreteFunction._of(self, trace, signature)

    def __repr__(self) -> str:
        bound = "" if self._instance is None else f" bound to {type(self._instance).__name__}"
        return f"<Ep.function {self.__qualname__}{bound}, {self.trace_count} traced>"


class ConcreteFunction(Generic[_P, _R]):
    """One graph of a staged function (get_concrete_function): calls with
    arguments of its signature run it; other arguments are a TypeError."""

    @classmethod
    def _of(cls, staged, trace, signature):
        self = cls()
        self._staged = staged
        self._trace = trace
        self._signature = signature
        self._graph = trace.graphs[signature]
        return self

    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        key, tensors, run = self._staged._key(args, kwargs)
        if key != self._trace.key or _graph_signature(tensors, self._trace.specs) != self._signature:
            raise TypeError(f"{self._staged.__name__}: the arguments do not fit this concrete function, "
                            f"which takes {self._describe()}")
        return self._trace.call(run, tensors)

    def _describe(self):
        scope = self._signature[0]
        inputs = ", ".join(f"{spec!r} on {device}" for spec, (*_, device) in
                           zip(self._graph.inputs, self._signature[1:]))
        return f"({inputs})" + (f" in the scope of {scope}" if scope else "")

    @property
    def inputs(self) -> tuple[TensorSpec, ...]:
        """The specs of the graph's inputs: the tensors of the arguments, in order."""
        return self._graph.inputs

    @property
    def outputs(self) -> tuple[TensorSpec, ...]:
        """The specs of the graph's results, in order, as traced."""
        return self._graph.outputs

    @property
    def structured_outputs(self) -> object:
        """The results as the function returns them, a TensorSpec in
        place of each tensor."""
        return _rebuild(self._graph.structure, iter(self._graph.outputs))

    @property
    def function(self) -> Ep.Function:
        """The Ep.Function that holds the graph."""
        return self._trace.function

    @property
    def python_function(self) -> Callable[_P, _R]:
        return self._staged.python_function

    def save(self, path: Union[str, os.PathLike[str], Gio.File]) -> None:
        """Writes this graph to path, a JSON document, with its constants
        and variables in a .safetensors file beside it: Ep.Function.load
        (or examples/c/run-graph.c) runs it with no Python. A relaxed
        signature is saved relaxed once a second batch size has verified
        the graph."""
        _call(self.function.save, list(self.inputs), _gfile(path), None)

    def __repr__(self) -> str:
        return f"<Ep.ConcreteFunction {self._staged.__qualname__}{self._describe()}>"


@overload
def function(func: Callable[_P, _R], input_signature: Optional[_InputSignature] = None
             ) -> StagedFunction[_P, _R]: ...
@overload  # noqa: E302
def function(func: None = None, input_signature: Optional[_InputSignature] = None) -> _Stager: ...


def function(func=None, input_signature=None):
    """Stages func, as tf.function does: @Ep.function,
    @Ep.function(input_signature=[Ep.TensorSpec((None, 3))]) or
    Ep.function(f, input_signature=...).

    Its first call with a new signature runs func once, eagerly, recording
    its ops; later calls with that signature replay them in C without
    calling func. The signature of a call: the dtype, shape and device of
    each tensor argument (NumPy arrays are made tensors), the device
    scope, and every other argument by value (numbers, strings, tuples,
    None...: another value traces again) or, for Variables and the `self`
    of a method, by identity. Python control flow, item() and shapes are
    fixed when func is traced; Variables are read and assigned by
    reference; random ops draw new numbers at each call.
    """
    if func is None:
        return functools.partial(function, input_signature=input_signature)
    return StagedFunction(func, input_signature)


def _host_results(result, name):
    """What a host callback returned, as a list of tensors, and how to
    give it back: None, one tensor, or a tuple."""
    if result is None:
        return [], None
    if _is_sequence(result):
        return [_host_result(r, name) for r in result], tuple
    return [_host_result(result, name)], "one"


def _host_result(value, name):
    if value is None or isinstance(value, (str, bytes)):
        raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                        _("{name}: the callback returned {type}, not a tensor")
                        .format(name=name, type=type(value).__name__))
    return _as_tensor(value)


def host_call(func: Callable[..., Union[ArrayLike, Sequence[ArrayLike], None]], *inputs: ArrayLike,
              gradient: Optional[Callable[[tuple[Tensor, ...], tuple[Tensor, ...]], _Gradients]] = None
              ) -> _HostResults:
    """Calls func(*inputs), a Python function, as one opaque step: in a
    staged function (Ep.function), every call replays it, on that call's
    values (TensorFlow's py_function). For logging, or data the graph
    cannot express.

    func returns a tensor, a NumPy array or a number, a tuple or list of
    up to four of them, or None; host_call returns the same shape (a
    tuple for a sequence). func runs with gradient tapes paused: its own
    ops are not recorded. gradient(inputs, output_gradients) gives the
    gradient of each input (a tensor, or a sequence; None: zeros); without
    it, the results have no history. A staged function that calls a host
    callback cannot be saved.
    """
    if not callable(func):
        raise TypeError(f"host_call: {type(func).__name__} is not callable")
    if gradient is not None and not callable(gradient):
        raise TypeError(f"host_call: gradient: {type(gradient).__name__} is not callable")
    tensors = [_as_tensor(a) for a in inputs]
    user = _UserFunction(func, "host_call")
    shape = []

    def forward(args, *_rest):
        def body():
            flat, form = _host_results(func(*args), "host_call")
            shape.append(form)
            return flat
        return user.run(body)

    def backward(args, *rest):
        # (PyGObject passes each array's length after it on some versions)
        output_grads = next(r for r in rest if _is_sequence(r))

        def body():
            grads = _gradient_list(gradient(tuple(args), tuple(output_grads)), len(args), "host_call")
            return [g if g is not None else a.zeros_like() for g, a in zip(grads, args)]
        return user.run(body)

    results = _call(Ep.host_call, forward, None, backward if gradient is not None else None, None, tensors)
    form = shape[0] if shape else None
    if form is None:
        return None
    if form == "one":
        return results[0]
    return tuple(results)


__all__ += ["function", "StagedFunction", "ConcreteFunction", "TensorSpec", "host_call"]


# ---------------------------------------------------------------------------
# modules: Ep.Module and the layers
#
# module(x) is ep_module_call. A Python subclass implements do_call
# (PyGObject's override of the virtual method call); the class gets it
# wrapped (__init_subclass__) so that it may return a Variable or an
# array, and so that a Python exception raised inside it crosses C as a
# GError and comes out of module(x) as itself, as in value_and_grad's
# callbacks. As in PyTorch, assigning a Module or a Variable to an
# attribute registers it under the attribute's name (in C: the module
# holds it, its path is that name), and reading the attribute finds it.
# The methods are put on the introspected class itself, so that the
# layers (whose classes derive from it) have them too.
# ---------------------------------------------------------------------------


def _module_do_call(function, name):
    """A Python do_call as C calls it."""
    user = _UserFunction(function, name)

    def do_call(self, x):
        def body():
            result = function(self, x)
            if isinstance(result, Ep.Variable):
                return result.read()
            if isinstance(result, Ep.Tensor):
                return result
            if result is None or isinstance(result, (str, bytes)):
                raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                                _("{name}: do_call returned {type}, not a tensor")
                                .format(name=name, type=type(result).__name__))
            return astensor(result)
        return user.run(body)
    functools.update_wrapper(do_call, function)
    do_call._ep_module_call = True
    return do_call


def _paired(objects_and_names):
    objects, names = objects_and_names
    return list(zip(names, objects))


class Module(Ep.Module):
    """Ep.Module(): a container of named variables and modules; subclass
    it and implement do_call(self, x) for a model:

        class Net(Ep.Module):
            def __init__(self):
                super().__init__()
                self.hidden = Ep.Linear(64, 32)   # registered as "hidden"
                self.out = Ep.Linear(32, 10)

            def do_call(self, x):
                return self.out(self.hidden(x).relu())
    """

    def __init_subclass__(cls) -> None:
        # (put on the introspected class too: no super() here)
        call = cls.__dict__.get("do_call")
        if callable(call) and not getattr(call, "_ep_module_call", False):
            cls.do_call = _module_do_call(call, f"{cls.__name__}.do_call")

    def __call__(self, x: ArrayLike) -> Tensor:
        """ep_module_call: the module's output for x."""
        return _call(Ep.Module.call, self, _as_tensor(x))

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, Ep.Module):
            Ep.Module.add_module(self, name, value)
        elif isinstance(value, Ep.Variable):
            Ep.Module.add_variable(self, name, value)
        elif not name.startswith("_") and self._registered(name) is not None:
            raise AttributeError(f"{type(self).__name__}.{name} is a registered variable or module: "
                                 f"it cannot be replaced (assign a Variable's value instead)")
        else:
            super(Ep.Module, self).__setattr__(name, value)

    def _registered(self, name):
        try:
            found = Ep.Module.get_variable(self, name)
            return found if found is not None else Ep.Module.get_module(self, name)
        except (TypeError, RuntimeError):   # a Python subclass before GObject's __init__
            return None

    def __getattr__(self, name: str) -> Any:
        found = None if name.startswith("__") else self._registered(name)
        if found is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return found

    def __dir__(self) -> list[str]:
        own = [n for n, _ in self.named_children()] + [
            n for n in Ep.Module.get_own_variables(self)[1]]
        return sorted(set(object.__dir__(self)) | set(own))

    @property
    def training(self) -> bool:
        """Whether the module trains (the default) or evaluates."""
        return Ep.Module.get_training(self)

    @training.setter
    def training(self, value: bool) -> None:
        Ep.Module.set_training(self, bool(value))

    def train(self, mode: bool = True) -> Module:
        """Sets training on the module and every descendant; gives the module."""
        Ep.Module.set_training(self, bool(mode))
        return self

    def eval(self) -> Module:
        """train(False)."""
        return self.train(False)

    @property
    def trainable_variables(self) -> list[Variable]:
        """The trainable variables of the module and its descendants, in a
        stable order: its own in registration order, then each child's."""
        return list(Ep.Module.get_trainable_variables(self)[0])

    @property
    def variables(self) -> list[Variable]:
        """Every variable of the module and its descendants, trainable or not."""
        return list(Ep.Module.get_variables(self)[0])

    def parameters(self) -> list[Variable]:
        """The trainable variables (PyTorch's name)."""
        return self.trainable_variables

    def named_variables(self) -> list[tuple[str, Variable]]:
        """(path, variable) for every variable, as ep_checkpoint_save takes
        them: paths such as "encoder.layers.0.weight"."""
        return _paired(Ep.Module.get_variables(self))

    def named_trainable_variables(self) -> list[tuple[str, Variable]]:
        return _paired(Ep.Module.get_trainable_variables(self))

    def children(self) -> list[Module]:
        return list(Ep.Module.get_children(self)[0])

    def named_children(self) -> list[tuple[str, Module]]:
        return _paired(Ep.Module.get_children(self))

    def save_checkpoint(self, path: Union[str, os.PathLike[str], Gio.File],
                        optimizer: Optional[Ep.Optimizer] = None) -> None:
        """ep_checkpoint_save_module: every variable under its path and,
        with optimizer, its state, written atomically as safetensors."""
        _call(Ep.checkpoint_save_module, self, optimizer, _gfile(path), None)

    def restore_checkpoint(self, path: Union[str, os.PathLike[str], Gio.File],
                           optimizer: Optional[Ep.Optimizer] = None, partial: bool = False) -> None:
        """ep_checkpoint_restore_module: the variables (and optimizer's
        state) from path, every entry checked first; partial skips the
        entries and variables that have no counterpart."""
        flags = Ep.CheckpointFlags.PARTIAL if partial else Ep.CheckpointFlags.NONE
        _call(Ep.checkpoint_restore_module, self, optimizer, _gfile(path), flags, None)

    def _extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        # a layer says what it is made of (_extra_repr); other modules list
        # their variables
        extra = self._extra_repr()
        lines = [f"{name}: {child!r}".replace("\n", "\n  ") for name, child in self.named_children()]
        for name, variable in [] if extra else _paired(Ep.Module.get_own_variables(self)):
            lines.append(f"{name}: Variable(shape={tuple(variable.get_shape())}, "
                         f"dtype={Ep.dtype_get_name(variable.get_dtype())}"
                         f"{'' if variable.get_trainable() else ', trainable=False'})")
        kind = type(self).__name__
        if not lines:
            return f"{kind}({extra})"
        return f"{kind}(\n  " + "\n  ".join(lines) + "\n)"


for _name, _value in list(vars(Module).items()):
    if _name not in ("__module__", "__doc__", "__dict__", "__weakref__", "__qualname__", "__gtype__"):
        setattr(Ep.Module, _name, _value)
Module = override(Module)


class Linear(Ep.Linear):
    """Ep.Linear(in_features, out_features, bias=True, dtype="float32"):
    y = x @ weight.T + bias, initialized as torch.nn.Linear."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 dtype: DTypeLike = "float32") -> None:
        Ep.Linear.__init__(self, in_features=operator.index(in_features),
                           out_features=operator.index(out_features), use_bias=bool(bias),
                           dtype=_dtype(dtype))
        Gio.Initable.init(self, None)

    def _extra_repr(self) -> str:
        return (f"in_features={self.get_in_features()}, out_features={self.get_out_features()}, "
                f"bias={self.get_bias() is not None}")


Linear = override(Linear)


class Sequential(Ep.Sequential):
    """Ep.Sequential(*modules): the modules run in order, named 0, 1, ..."""

    def __init__(self, *modules: Ep.Module) -> None:
        Ep.Sequential.__init__(self)
        for module in modules:
            self.append(module)

    def __len__(self) -> int:
        return self.get_length()

    def __getitem__(self, index: int) -> Module:
        n = self.get_length()
        i = operator.index(index)
        if not -n <= i < n:
            raise IndexError(f"Sequential index {index} out of range for {n} modules")
        return self.get(i % n) if n else None

    def __iter__(self) -> Iterator[Module]:
        return iter(self.children())


Sequential = override(Sequential)

__all__ += ["Module", "Linear", "Sequential"]


def _pair(value, name):
    """(height, width) from one int or a pair, as torch.nn's layers take them."""
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(f"{name} takes one int or a (height, width) pair, not {value!r}")
        return tuple(operator.index(v) for v in value)
    v = operator.index(value)
    return (v, v)


def _not_nan(value, name):
    """float(value); NaN, which a GObject property of type double refuses
    with a warning only, is a ValueError here."""
    number = float(value)
    if math.isnan(number):
        raise ValueError(f"{name} must be a number, not nan")
    return number


def _pair_properties(name, value):
    height, width = _pair(value, name)
    return {f"{name}_height": height, f"{name}_width": width}


def _format_pairs(self, *names):
    def get(name):
        h, w = self.get_property(f"{name}-height"), self.get_property(f"{name}-width")
        return h if h == w else (h, w)
    return ", ".join(f"{name}={get(name)}" for name in names)


class Conv2d(Ep.Conv2d):
    """Ep.Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0,
    dilation=1, groups=1, bias=True, data_format="nchw", dtype="float32"):
    torch.nn.Conv2d, initialized as it is; sizes are one int or (h, w)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | tuple[int, int],
                 stride: int | tuple[int, int] = 1, padding: int | tuple[int, int] = 0,
                 dilation: int | tuple[int, int] = 1, groups: int = 1, bias: bool = True,
                 data_format: _DataFormatLike = "nchw", dtype: DTypeLike = "float32") -> None:
        Ep.Conv2d.__init__(self, in_channels=operator.index(in_channels),
                           out_channels=operator.index(out_channels),
                           **_pair_properties("kernel", kernel_size),
                           **_pair_properties("stride", stride),
                           **_pair_properties("padding", padding),
                           **_pair_properties("dilation", dilation),
                           groups=operator.index(groups), use_bias=bool(bias),
                           data_format=_enum("EpDataFormat")(data_format), dtype=_dtype(dtype))
        Gio.Initable.init(self, None)

    def _extra_repr(self) -> str:
        return (f"{self.props.in_channels}, {self.props.out_channels}, "
                + _format_pairs(self, "kernel", "stride", "padding", "dilation")
                + f", groups={self.props.groups}, bias={self.props.use_bias}, "
                f"data_format={self.props.data_format.value_nick!r}")


Conv2d = override(Conv2d)


class MaxPool2d(Ep.MaxPool2d):
    """Ep.MaxPool2d(kernel_size, stride=None, padding=0, dilation=1,
    ceil_mode=False, data_format="nchw"): torch.nn.MaxPool2d; the stride
    defaults to the kernel."""

    def __init__(self, kernel_size: int | tuple[int, int], stride: int | tuple[int, int] | None = None,
                 padding: int | tuple[int, int] = 0, dilation: int | tuple[int, int] = 1,
                 ceil_mode: bool = False, data_format: _DataFormatLike = "nchw") -> None:
        Ep.MaxPool2d.__init__(self, **_pair_properties("kernel", kernel_size),
                              **_pair_properties("stride", kernel_size if stride is None else stride),
                              **_pair_properties("padding", padding),
                              **_pair_properties("dilation", dilation),
                              ceil_mode=bool(ceil_mode),
                              data_format=_enum("EpDataFormat")(data_format))
        Gio.Initable.init(self, None)

    def _extra_repr(self) -> str:
        return (_format_pairs(self, "kernel", "stride", "padding", "dilation")
                + f", ceil_mode={self.props.ceil_mode}, data_format={self.props.data_format.value_nick!r}")


MaxPool2d = override(MaxPool2d)


class AvgPool2d(Ep.AvgPool2d):
    """Ep.AvgPool2d(kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True, data_format="nchw"): torch.nn.AvgPool2d; the
    stride defaults to the kernel."""

    def __init__(self, kernel_size: int | tuple[int, int], stride: int | tuple[int, int] | None = None,
                 padding: int | tuple[int, int] = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, data_format: _DataFormatLike = "nchw") -> None:
        Ep.AvgPool2d.__init__(self, **_pair_properties("kernel", kernel_size),
                              **_pair_properties("stride", kernel_size if stride is None else stride),
                              **_pair_properties("padding", padding),
                              ceil_mode=bool(ceil_mode), count_include_pad=bool(count_include_pad),
                              data_format=_enum("EpDataFormat")(data_format))
        Gio.Initable.init(self, None)

    def _extra_repr(self) -> str:
        return (_format_pairs(self, "kernel", "stride", "padding")
                + f", ceil_mode={self.props.ceil_mode}, count_include_pad={self.props.count_include_pad}, "
                f"data_format={self.props.data_format.value_nick!r}")


AvgPool2d = override(AvgPool2d)


class BatchNorm(Ep.BatchNorm):
    """Ep.BatchNorm(num_features, eps=1e-5, momentum=0.1, affine=True,
    track_running_stats=True, data_format="nchw", dtype="float32"):
    torch.nn.BatchNorm1d on (N, C), BatchNorm2d on images."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 data_format: _DataFormatLike = "nchw", dtype: DTypeLike = "float32") -> None:
        Ep.BatchNorm.__init__(self, num_features=operator.index(num_features),
                              epsilon=_not_nan(eps, "eps"), momentum=_not_nan(momentum, "momentum"), affine=bool(affine),
                              track_running_stats=bool(track_running_stats),
                              data_format=_enum("EpDataFormat")(data_format), dtype=_dtype(dtype))
        Gio.Initable.init(self, None)

    def _extra_repr(self) -> str:
        return (f"{self.props.num_features}, eps={self.props.epsilon}, momentum={self.props.momentum}, "
                f"affine={self.props.affine}, track_running_stats={self.props.track_running_stats}")


BatchNorm = override(BatchNorm)


class LayerNorm(Ep.LayerNorm):
    """Ep.LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True,
    dtype="float32"): torch.nn.LayerNorm over the trailing axes."""

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5,
                 elementwise_affine: bool = True, dtype: DTypeLike = "float32") -> None:
        if isinstance(normalized_shape, (tuple, list)):
            shape = [operator.index(n) for n in normalized_shape]
        else:
            shape = [operator.index(normalized_shape)]
        Ep.LayerNorm.__init__(self, normalized_shape=GLib.Variant("ax", shape),
                              epsilon=_not_nan(eps, "eps"),
                              elementwise_affine=bool(elementwise_affine), dtype=_dtype(dtype))
        Gio.Initable.init(self, None)

    @property
    def normalized_shape(self) -> tuple[int, ...]:
        return tuple(self.get_normalized_shape())

    def _extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.props.epsilon}, "
                f"elementwise_affine={self.props.elementwise_affine}")


LayerNorm = override(LayerNorm)


class Dropout(Ep.Dropout):
    """Ep.Dropout(p=0.5): torch.nn.Dropout; the identity in evaluation."""

    def __init__(self, p: float = 0.5) -> None:
        Ep.Dropout.__init__(self, rate=_not_nan(p, "p"))
        Gio.Initable.init(self, None)

    def _extra_repr(self) -> str:
        return f"p={self.get_rate()}"


Dropout = override(Dropout)


class Embedding(Ep.Embedding):
    """Ep.Embedding(num_embeddings, embedding_dim, dtype="float32"):
    torch.nn.Embedding, its weight drawn from N(0, 1)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, dtype: DTypeLike = "float32") -> None:
        Ep.Embedding.__init__(self, num_embeddings=operator.index(num_embeddings),
                              embedding_dim=operator.index(embedding_dim), dtype=_dtype(dtype))
        Gio.Initable.init(self, None)

    def _extra_repr(self) -> str:
        return f"{self.props.num_embeddings}, {self.props.embedding_dim}"


Embedding = override(Embedding)


class Gelu(Ep.Gelu):
    """Ep.Gelu(approximate="none"): torch.nn.GELU, exact or "tanh"."""

    def __init__(self, approximate: _GeluApproximationLike = "none") -> None:
        Ep.Gelu.__init__(self, approximate=_enum("EpGeluApproximation")(approximate))

    def _extra_repr(self) -> str:
        return f"approximate={self.props.approximate.value_nick!r}"


Gelu = override(Gelu)

__all__ += ["Conv2d", "MaxPool2d", "AvgPool2d", "BatchNorm", "LayerNorm", "Dropout", "Embedding",
            "Gelu"]


# ---------------------------------------------------------------------------
# the trainer: a staged step run on a worker thread (graph/trainer.c)
# ---------------------------------------------------------------------------

class Trainer(Ep.Trainer):
    """Ep.Trainer(step, x, y, batch_size, shuffle=True, progress_interval=100):
    runs `step(x_batch, y_batch)` (returning the loss first) many times on
    a worker thread; run_async(n_steps, cancellable, callback) and
    run_finish(result), a "progress" signal (step, loss, steps/s) on the
    caller's main context. `step` is an Ep.function (traced here, on a
    first batch, since Python runs only on this thread) or an
    Ep.Function."""

    def __init__(self, step: object = None, x: object = None, y: object = None,
                 batch_size: int = 0, shuffle: bool = True, progress_interval: int = 100) -> None:
        function = step
        if x is not None:
            x = astensor(x)
        if y is not None:
            y = astensor(y)
        if isinstance(step, StagedFunction):
            function = None
            if x is not None and y is not None and 0 < batch_size <= min(x.shape[0], y.shape[0]):
                first = arange(batch_size, dtype="int64")
                concrete = step.get_concrete_function(x.take(first, 0), y.take(first, 0))
                function = concrete._trace.function
        Ep.Trainer.__init__(self, step_function=function, x=x, y=y, batch_size=batch_size,
                            shuffle=shuffle, progress_interval=progress_interval)


Trainer = override(Trainer)
__all__.append("Trainer")


# ---------------------------------------------------------------------------
# distributed (issue 18): the world communicator (distributed/); its
# collectives take what a tensor argument takes, and the reduction as an
# Ep.ReduceOp or its nick ("sum", "mean", "max", "min")
# ---------------------------------------------------------------------------

class Communicator(Ep.Communicator):
    """Ep.Communicator.get_world(): the processes that mpirun started,
    this one rank `rank` of `size` (rank 0 of 1 outside mpirun).
    Collectives: all_reduce(x, "sum"), broadcast(x, root),
    all_gather(x), reduce_scatter(x, "sum"), barrier(); every process
    calls each, in the same order."""

    @property
    def rank(self) -> int:
        """This process's rank, from 0 to size - 1."""
        return self.get_rank()

    @property
    def size(self) -> int:
        """The number of processes."""
        return self.get_size()

    def all_reduce(self, x: ArrayLike, op: Union[Ep.ReduceOp, str] = "sum") -> Tensor:
        """The processes' tensors combined element by element (sum, mean,
        max or min), on every process."""
        return Ep.Communicator.all_reduce(self, _operand(x), _enum("EpReduceOp")(op))

    def broadcast(self, x: ArrayLike, root: int = 0) -> Tensor:
        """The root's tensor, on every process (the others pass one of its
        shape and dtype)."""
        return Ep.Communicator.broadcast(self, _operand(x), operator.index(root))

    def all_gather(self, x: ArrayLike) -> Tensor:
        """The processes' tensors concatenated along axis 0, in rank order."""
        return Ep.Communicator.all_gather(self, _operand(x))

    def reduce_scatter(self, x: ArrayLike, op: Union[Ep.ReduceOp, str] = "sum") -> Tensor:
        """This process's part of axis 0 of the combined tensors."""
        return Ep.Communicator.reduce_scatter(self, _operand(x), _enum("EpReduceOp")(op))

    def __repr__(self) -> str:
        return f"<Ep.Communicator rank={self.get_rank()} size={self.get_size()}>"


Communicator = override(Communicator)
__all__.append("Communicator")


# ---------------------------------------------------------------------------
# data-parallel training over a communicator (distributed/data-parallel.c;
# issue 18)
# ---------------------------------------------------------------------------

class DataParallel(Ep.DataParallel):
    """Ep.DataParallel(communicator, model, bucket_size=None): data-parallel
    training; model is an Ep.Module (every variable gets rank 0's value,
    gradients of its trainable variables are averaged) or a list of
    variables (both). average_gradients(grads) averages a tape's gradients
    over the ranks (None: zeros), in buckets of bucket_size bytes;
    save_checkpoint(path, model, optimizer=None) writes on rank 0 only.
    Every call is collective: each rank makes the same ones."""

    def __new__(cls, communicator: Optional[Ep.Communicator] = None, model: object = None,
                bucket_size: Optional[int] = None) -> DataParallel:
        if communicator is None and model is None:
            return super().__new__(cls)   # the bare object g_object_new() makes
        if not isinstance(communicator, Ep.Communicator):
            raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                            _("%s: a communicator is needed (ep_communicator_get_world)") % "data_parallel_new")
        if isinstance(model, Ep.Module):
            self = _call(Ep.DataParallel.new_for_module, communicator, model)
        else:
            if model is None or isinstance(model, (str, bytes)) or not hasattr(model, "__iter__"):
                raise _ep_error(Ep.Error.INVALID_ARGUMENT,
                                _("data_parallel_new: give a module or a list of variables"))
            self = _call(Ep.DataParallel.new, communicator, list(model))
        if bucket_size is not None:
            self.set_bucket_size(operator.index(bucket_size))
        return self

    def __init__(self, communicator: Optional[Ep.Communicator] = None, model: object = None,
                 bucket_size: Optional[int] = None) -> None:
        if communicator is None and model is None:
            super().__init__()
        # (otherwise made by __new__)

    @property
    def communicator(self) -> Optional[Ep.Communicator]:
        return self.get_communicator()

    @property
    def variables(self) -> list[Variable]:
        """The variables whose gradients average_gradients takes, in order."""
        return list(self.get_variables())

    @property
    def bucket_size(self) -> int:
        return self.get_bucket_size()

    @bucket_size.setter
    def bucket_size(self, value: int) -> None:
        self.set_bucket_size(operator.index(value))

    def average_gradients(self, gradients: Sequence[Optional[ArrayLike]]) -> list[Tensor]:
        """The mean over the ranks of each gradient (None: zeros), new
        tensors of the variables' shapes."""
        grads = [None if g is None else _as_tensor(g) for g in gradients]
        return list(_call(Ep.DataParallel.average_gradients, self, grads))

    def save_checkpoint(self, path: Union[str, os.PathLike[str], Gio.File], model: Ep.Module,
                        optimizer: Optional[Ep.Optimizer] = None) -> None:
        """Rank 0 writes model (and optimizer's state) to path; every rank
        raises rank 0's error if it could not."""
        _call(Ep.DataParallel.save_checkpoint, self, model, optimizer, _gfile(path), None)


DataParallel = override(DataParallel)
__all__.append("DataParallel")


# ---------------------------------------------------------------------------
# linear algebra: NumPy's linalg.norm on Tensor.lp (vectors) and
# Tensor.matrix_norm (matrices)
# ---------------------------------------------------------------------------

_MATRIX_NORMS = {"fro": "fro", "nuc": "nuc", math.inf: "inf", -math.inf: "neg-inf",
                 1: "one", -1: "neg-one", 2: "two", -2: "neg-two"}

# NumPy's svd (full_matrices=True by default) and lstsq (four results)
# differ from Ep's: NumPy's protocol runs them in NumPy
_NOT_ARRAY_FUNCTIONS.update({"svd", "lstsq"})


def norm(x: ArrayLike, ord: Union[None, float, str] = None, axis: Union[None, int, Sequence[int]] = None,
         keepdims: bool = False) -> Tensor:
    """NumPy's linalg.norm: a vector norm (Tensor.lp) over one axis, a
    matrix norm (Tensor.matrix_norm) over two, and with axis=None the
    vector norm of a 1-D tensor, the matrix norm of a 2-D one, or (ord
    None) the 2-norm of all the elements."""
    x = _operand(x)
    if axis is None:
        if ord is None:
            return x.l2(None, keepdims)
        if x.ndim not in (1, 2):
            raise ValueError("Improper number of dimensions to norm.")
        axis = tuple(range(x.ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(_ints(axis))
    if len(axes) == 1:
        if isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        return x.lp(2.0 if ord is None else float(ord), axes, keepdims)
    if len(axes) == 2:
        key = "fro" if ord is None else ord
        if key not in _MATRIX_NORMS:
            raise ValueError("Invalid norm order for matrices.")
        return x.matrix_norm(_MATRIX_NORMS[key], axes, keepdims)
    raise ValueError("Improper number of dimensions to norm.")


__all__.append("norm")


# ---------------------------------------------------------------------------
# the end: the generated wrappers fill what the sections above left
# ---------------------------------------------------------------------------

_install_ops()
Tensor = override(Tensor)
__all__.append("Tensor")
