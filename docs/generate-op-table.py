#!/usr/bin/python3
# generate-op-table.py: docs/ops.md, the ops and the dtypes they take
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Lists every op of the catalogue (Ep.list_ops(): the schema the C ops
# declare), one section per op family, with its signature, and calls it
# with inputs of each dtype, on cpu:0, to record what happened: the dtype
# of the result, or a refusal with EP_ERROR_DTYPE. Any other error is a
# bug in this table (inputs the op cannot take) or in the library, and
# stops the script. The call of an op is made from its schema (2x3
# inputs, every attribute's default) unless make_calls() has one; an op
# whose schema cannot give one (a required attribute) needs one there, or
# the script stops, as for a call of an op the catalogue lacks. The C
# functions that move data in and out of tensors, which are no ops, close
# the page.
#
#   /usr/bin/python3 docs/generate-op-table.py --build-dir _build > docs/ops.md
#   /usr/bin/python3 docs/generate-op-table.py --build-dir _build --check docs/ops.md
#
# (or without --build-dir under `meson devenv -C _build`). --check exits
# with status 1 and a diff when the file differs from what the build gives.

import argparse
import difflib
import math
import os
import sys

SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DTYPES = ["float32", "float64", "int32", "int64", "bool", "uint8", "int8", "int16"]


def load_ep(build_dir):
    """The Ep module of the build (typelib, library and Python override)."""
    sys.path.insert(0, os.path.join(SOURCE_ROOT, "introspection", "python"))
    import gi
    if build_dir is not None:
        gi.require_version("GIRepository", "2.0")
        from gi.repository import GIRepository
        library_dir = os.path.join(os.path.abspath(build_dir), "eager-glib")
        GIRepository.Repository.prepend_search_path(library_dir)
        GIRepository.Repository.prepend_library_path(library_dir)
    gi.require_version("Ep", "1.0")
    from gi.repository import Ep, GLib
    return Ep, GLib


def make_calls(Ep, GLib):
    """(calls, data): for each op of the catalogue, by name, a call that
    takes a dtype name and returns what the op returned (None for an op
    without a function of its own, with the reason in NO_CALL); for the C
    functions that move data in and out of tensors, which are no ops, the
    same by GI name."""
    import numpy as np

    def dt(name):
        return getattr(Ep.DType, name.upper())

    def tensor(values, dtype):
        return Ep.astensor(np.asarray(values).astype(dtype))

    def x(dtype):
        """A 2x3 tensor, positive and inside (-1, 1) where it can be."""
        return tensor([[0.25, 0.5, 0.75], [0.125, 0.375, 0.625]] if dtype.startswith("float")
                      else [[1, 2, 3], [4, 5, 6]] if "int" in dtype
                      else [[True, False, True], [False, True, True]], dtype)

    def square(dtype):
        """An invertible 2x2 matrix of the dtype."""
        return tensor([[True, False], [False, True]] if dtype == "bool" else [[2, 1], [1, 2]], dtype)

    def image(dtype):
        return square(dtype).reshape(1, 1, 2, 2)

    def indices(values):
        return tensor(values, "int64")

    def to_all(t):
        return [t.astype(target) for target in DTYPES]

    calls = {
        # creation
        "full": lambda d: Ep.full([2], 1.0, dtype=d),
        "full_int": lambda d: Ep.full_int([2], 1, dtype=d),
        "arange": lambda d: Ep.arange(0, 3, 1, dtype=d),
        "arange_int": lambda d: Ep.arange_int(0, 3, 1, dtype=d),
        "linspace": lambda d: Ep.linspace(0, 1, 3, dtype=d),
        "eye": lambda d: Ep.eye(2, 3, dtype=d),
        "onehot_like": lambda d: x(d).onehot_like(indices([2, 0])),
        "zeros": lambda d: Ep.zeros([2], dtype=d),
        "ones": lambda d: Ep.ones([2], dtype=d),
        "zeros_like": lambda d: x(d).zeros_like(),
        "ones_like": lambda d: x(d).ones_like(),
        "full_like": lambda d: x(d).full_like(1.0),
        "full_like_int": lambda d: x(d).full_like_int(1),
        # random
        "uniform": lambda d: Ep.uniform([2], dtype=d),
        "normal": lambda d: Ep.normal([2], dtype=d),
        "glorot_uniform": lambda d: Ep.glorot_uniform([2, 3], dtype=d),
        "glorot_normal": lambda d: Ep.glorot_normal([2, 3], dtype=d),
        "he_uniform": lambda d: Ep.he_uniform([2, 3], dtype=d),
        "he_normal": lambda d: Ep.he_normal([2, 3], dtype=d),
        # cast
        "astype": lambda d: to_all(x(d)),
        "contiguous": lambda d: x(d).T.contiguous(),
        "to_device": lambda d: x(d).to_device("cpu:0"),
        "float32": lambda d: x(d).float32(),
        "float64": lambda d: x(d).float64(),
        "bool": lambda d: x(d).bool(),
        # elementwise, reduce, sort, softmax: the schema's call (generic_call)
        # is enough for the others
        "clip": lambda d: x(d).clip(0, 1),
        "lp": lambda d: x(d).lp(3.0, axis=1),
        "topk": lambda d: x(d).topk(2),
        # norm: parameters of the 3 columns (layer_norm) or channels (batch_norm)
        "layer_norm": lambda d: x(d).layer_norm(x(d)[0], x(d)[1]),
        "batch_norm": lambda d: tuple(x(d).batch_norm(x(d)[0], x(d)[1], x(d)[0], x(d)[1], training=True)),
        # views, join, index
        "reshape": lambda d: x(d).reshape(3, 2),
        "expand_dims": lambda d: x(d).expand_dims(0),
        "squeeze": lambda d: x(d).expand_dims(0).squeeze(0),
        "broadcast_to": lambda d: x(d).broadcast_to(4, 2, 3),
        "slice": lambda d: x(d).slice([1], [None], [-1]),
        "split": lambda d: x(d).split(3, 1),
        "split_at": lambda d: x(d).split_at([1], 1),
        "tile": lambda d: x(d).tile((2, 1)),
        "pad": lambda d: x(d).pad(1, "reflect"),
        "meshgrid": lambda d: Ep.meshgrid(x(d)[0], x(d)[1]),
        "roll": lambda d: x(d).roll(1, 1),
        "repeat": lambda d: x(d).repeat(2, 1),
        "roll_axes": lambda d: x(d).roll((1, 2), (0, 1)),
        "repeat_counts": lambda d: x(d).repeat([1, 0, 2], 1),
        "einsum": lambda d: Ep.einsum("ij,kj->ik", x(d), x(d)),
        "searchsorted": lambda d: Ep.searchsorted(x(d)[0], x(d)),
        "bincount": lambda d: Ep.bincount(x(d)[0]),
        "histogram": lambda d: Ep.histogram(x(d), 3),
        "unique": lambda d: Ep.unique(x(d), True, True),
        "take_along_axis": lambda d: x(d).take_along_axis(indices([[2], [0]]), 1),
        "index_update": lambda d: x(d).index_update(indices([1]), x(d)[:, 1:2], 1),
        "scatter_add": lambda d: x(d).scatter_add(indices([1]), x(d)[:, 1:2], 1),
        "embedding": lambda d: Ep.embedding(indices([1, 0]), x(d)),
        "where": lambda d: x("bool").where(x(d), x(d)),
        # linalg, lapack
        "matmul": lambda d: x(d) @ x(d).T,
        "dot": lambda d: x(d).dot(x(d).T),
        "outer": lambda d: x(d)[0].outer(x(d)[1]),
        "inv": lambda d: square(d).inv(),
        "slogdet": lambda d: tuple(square(d).slogdet()),
        "solve": lambda d: square(d).solve(square(d)[0]),
        "det": lambda d: square(d).det(),
        "cholesky": lambda d: square(d).cholesky(),
        "qr": lambda d: tuple(square(d).qr()),
        "svd": lambda d: tuple(square(d).svd()),
        "eigh": lambda d: tuple(square(d).eigh()),
        "lstsq": lambda d: square(d).lstsq(square(d)[0]),
        "matrix_power": lambda d: square(d).matrix_power(3),
        "matrix_norm": lambda d: square(d).matrix_norm("nuc"),
        # fft: complex tensors end in an axis of 2 (real, imaginary)
        "fft": lambda d: x(d).reshape(3, 2).fft(),
        "ifft": lambda d: x(d).reshape(3, 2).ifft(),
        "irfft": lambda d: x(d).reshape(3, 2).irfft(),
        "fft2": lambda d: x(d).reshape(3, 1, 2).fft2(),
        "ifft2": lambda d: x(d).reshape(3, 1, 2).ifft2(),
        "irfft2": lambda d: x(d).reshape(3, 1, 2).irfft2((3, 2)),
        # images (1, 1, 2, 3), a (1, 1, 1, 2) weight, output (1, 1, 2, 2)
        "conv2d": lambda d: x(d).reshape(1, 1, 2, 3).conv2d(x(d)[:1, :2].reshape(1, 1, 1, 2)),
        "conv2d_input_grad": lambda d: Ep.conv2d_input_grad(square(d).reshape(1, 1, 2, 2),
                                                            x(d)[:1, :2].reshape(1, 1, 1, 2), [1, 1, 2, 3]),
        "conv2d_weight_grad": lambda d: Ep.conv2d_weight_grad(x(d).reshape(1, 1, 2, 3),
                                                              square(d).reshape(1, 1, 2, 2), [1, 1, 1, 2]),
        # pool: images of one 2x2 channel
        "max_pool2d": lambda d: image(d).max_pool2d(2, 1),
        "avg_pool2d": lambda d: image(d).avg_pool2d(2, 1),
        "max_pool2d_indices": lambda d: image(d).max_pool2d_indices(2, 1),
        "max_pool2d_grad": lambda d: image(d).max_pool2d_grad(image(d)[:, :, :1, :1], 2, 1),
        "avg_pool2d_grad": lambda d: Ep.avg_pool2d_grad(image(d)[:, :, :1, :1], [1, 1, 2, 2], 2, 1),
        # autodiff
        "identity": None,
        "custom_gradient": lambda d: Ep.custom_gradient(lambda t: t, lambda inputs, y, dy: dy)(x(d)),
        # collective (issue 18): the world communicator's methods, here
        # the world of one process
        "all_reduce": lambda d: Ep.Communicator.get_world().all_reduce(x(d), "sum"),
        "broadcast": lambda d: Ep.Communicator.get_world().broadcast(x(d), 0),
        "all_gather": lambda d: Ep.Communicator.get_world().all_gather(x(d)),
        "reduce_scatter": lambda d: Ep.Communicator.get_world().reduce_scatter(x(d), "sum"),
    }

    def generic_call(entry):
        """The call the schema alone gives, or None: every input a 2x3
        tensor of the column's dtype (two for a list), but int64 indices
        [2, 0] for integer inputs and a bool mask for a bool input after
        the first; every attribute its default."""
        if any(not a["internal"] and not a["nullable"] and "default" not in a
               for a in entry["attributes"]) or entry.get("function") is None:
            return None
        function = getattr(Ep.Tensor if entry["method"] else Ep, entry["name"])

        def argument(position, spec, d):
            if spec["dtypes"] == "integer":
                return indices([2, 0])
            value = x("bool" if spec["dtypes"] == "bool" and position > 0 else d)
            return [value, value] if spec["list"] else value

        return lambda d: function(*(argument(i, spec, d) for i, spec in enumerate(entry["inputs"])))

    data = {
        "new_from_bytes": lambda d: Ep.Tensor.new_from_bytes(
            GLib.Bytes.new(bytes(2 * Ep.dtype_get_itemsize(dt(d)))), dt(d), [2]),
        "to_bytes": lambda d: x(d).to_bytes(),
        "new_from_doubles": lambda d: Ep.Tensor.new_from_doubles([1.0, 0.0], [2], dt(d)),
        "new_scalar": lambda d: Ep.Tensor.new_scalar(1.0, dt(d)),
        "item_double": lambda d: Ep.Tensor.item_double(x(d)[0, 0]),
        "item_int64": lambda d: Ep.Tensor.item_int64(x(d)[0, 0]),
        "item_boolean": lambda d: Ep.Tensor.item_boolean(x(d)[0, 0]),
        "to_string": lambda d: x(d).to_string(),
    }
    return calls, data, generic_call


# Ops of the catalogue without a function of their own (NO_FUNCTION):
# the table lists them without dtypes, with the reason.
NO_CALL = {
    "identity": "no function of its own: value_and_grad gives each argument its own tensor with it",
}


def outcome(Ep, GLib, call, dtype):
    """What the table says about one call: the result's dtype (the dtypes
    of a tuple of outputs), ✓ for a result that is no tensor, ✗ for a
    refusal with EP_ERROR_DTYPE."""
    try:
        result = call(dtype)
    except GLib.Error as error:
        if error.domain == "ep-error" and error.code == int(Ep.Error.DTYPE):
            return "✗"
        raise
    if isinstance(result, Ep.Tensor):
        return Ep.dtype_get_name(result.get_dtype())
    if isinstance(result, tuple):
        # several outputs
        return ", ".join(Ep.dtype_get_name(t.get_dtype()) for t in result)
    if isinstance(result, list) and result and all(isinstance(t, Ep.Tensor) for t in result):
        # several tensors of one kind (parts, grids, or astype's targets)
        names = [Ep.dtype_get_name(t.get_dtype()) for t in result]
        if names == DTYPES:
            return "any"
        if len(set(names)) == 1:
            return names[0]
    if isinstance(result, (bytes, str, float, int, GLib.Bytes)):
        return "✓"
    raise TypeError(f"unexpected result {result!r}")


def link(Ep, op):
    """The gi-docgen link to the C symbol of a function that is no op."""
    from gi.module import get_introspection_module
    raw = get_introspection_module("Ep")
    info = getattr(raw.Tensor, op, None)
    if info is not None and hasattr(info, "is_constructor"):
        return f"[{'ctor' if info.is_constructor() else 'method'}@Ep.Tensor.{op}]"
    if callable(getattr(raw, op, None)):
        return f"[func@Ep.{op}]"
    raise LookupError(f"{op}: no such method or function in the Ep namespace")


def op_link(Ep, entry):
    """The gi-docgen link to an op's C function (the GI name of the
    catalogue's symbol), or its name where it has none of its own."""
    symbol = entry.get("function")
    if symbol is None:
        raw = Ep.Tensor if entry["method"] else Ep
        return link(Ep, entry["name"]) if hasattr(raw, entry["name"]) else f"`{entry['name']}`"
    if entry["method"]:
        return f"[method@Ep.Tensor.{symbol[len('ep_tensor_'):]}]"
    return f"[func@Ep.{symbol[len('ep_'):]}]"


def value_text(value):
    """A default as the page shows it: false, 1, 0.5, -inf, float32."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return str(int(value))
    return str(value)


def signature(entry):
    """The op's signature from the catalogue: its inputs (`[]` a list, a
    dtype kind where it takes only bool or integer ones), its attributes
    that are not internal with their type (`?` nullable) and default, in
    the C function's order, and its outputs."""
    parts = []
    for spec in entry["inputs"]:
        text = spec["name"] + ("[]" if spec["list"] else "")
        parts.append(text if spec["dtypes"] == "any" else f"{text}: {spec['dtypes']}")
    for spec in entry["attributes"]:
        if spec["internal"]:
            continue
        kind = spec["enum"][len("Ep"):] if spec["type"] == "enum" else spec["type"]
        text = f"{spec['name']}: {kind}{'?' if spec['nullable'] else ''}"
        if "default" in spec:
            text += f" = {value_text(spec['default'])}"
        parts.append(text)
    outputs = ", ".join(o["name"] + ("[]" if o["list"] else "") for o in entry["outputs"])
    return f"`{entry['name']}({', '.join(parts)}) → {outputs}`"


def gi_signature(Ep, name):
    """name(arguments) of a C function that is no op, from GI."""
    from gi.module import get_introspection_module
    raw = get_introspection_module("Ep")
    info = getattr(raw.Tensor, name, None) or getattr(raw, name)
    lengths = {a.get_type().get_array_length() for a in info.get_arguments()} | \
        {info.get_return_type().get_array_length()}
    args = ["self"] if info.is_method() else []
    args += [a.get_name() for i, a in enumerate(info.get_arguments())
             if i not in lengths and a.get_direction() == 0]
    return f"`{name}({', '.join(args)})`"


# The calls in each language (issue 15): Python's from the override (what
# `Ep.Tensor.<name>` or `Ep.<name>` is, with its parameters and defaults:
# the generated wrapper of the schema or a NumPy form), gjs's and Vala's
# from the GI data of the C function (the typelib), as those bindings see
# it: every argument but the lengths of arrays, `?` where null is taken.

GJS_TYPES = {"gboolean": "boolean", "utf8": "string", "filename": "string", "void": "void",
             "gtype": "GObject.GType"}
VALA_TYPES = {"gboolean": "bool", "gint8": "int8", "guint8": "uint8", "gint16": "int16",
              "guint16": "uint16", "gint32": "int", "guint32": "uint", "gint64": "int64",
              "guint64": "uint64", "gfloat": "float", "gdouble": "double", "utf8": "string",
              "filename": "string", "gtype": "GLib.Type", "void": "void"}
# GI's array types: a C array, GArray, GPtrArray, GByteArray
GI_ARRAY_C, GI_ARRAY_PTR = 0, 2


def gi_type_name(type_info, language):
    """A GI type as gjs (TypeScript's names) or Vala writes it."""
    tag = type_info.get_tag_as_string()
    if tag == "interface":
        interface = type_info.get_interface()
        namespace = interface.get_namespace()
        return f"{'GLib' if language == 'vala' and namespace == 'GObject' and interface.get_name() == 'Object' else namespace}.{interface.get_name()}"
    if tag == "array":
        element = gi_type_name(type_info.get_param_type(0), language)
        if language == "vala" and type_info.get_array_type() == GI_ARRAY_PTR:
            return f"GLib.GenericArray<{element}>"
        return f"{element}[]"
    if language == "gjs":
        return GJS_TYPES.get(tag, "number")
    return VALA_TYPES.get(tag, tag)


def hidden_arguments(info):
    """The arguments of a GI callable that bindings pass themselves: the
    lengths of arrays, the data and destroy notifiers of callbacks."""
    args = list(info.get_arguments())
    types = [a.get_type() for a in args] + [info.get_return_type()]
    hidden = {t.get_array_length() for t in types
              if t.get_tag_as_string() == "array" and t.get_array_length() >= 0}
    for arg in args:
        hidden.update(index for index in (arg.get_closure(), arg.get_destroy()) if index >= 0)
    return hidden


def gi_parts(info):
    """(in arguments, results) of a GI callable: [(name, type info,
    nullable)] of what a binding passes (not the lengths of arrays), and
    [type info] of what it gets back (the return value unless skipped,
    then the out arguments)."""
    args = list(info.get_arguments())
    hidden = hidden_arguments(info)
    inputs = [(a.get_name(), a.get_type(), a.may_be_null()) for i, a in enumerate(args)
              if i not in hidden and a.get_direction() == 0]
    results = []
    if info.get_return_type().get_tag_as_string() != "void" and not info.skip_return():
        results.append(info.get_return_type())
    results += [a.get_type() for i, a in enumerate(args) if i not in hidden and a.get_direction() != 0]
    return inputs, results


def gi_info(raw, entry_or_name, method):
    """The GI callable of a C function: Ep.Tensor.<name> or Ep.<name>."""
    owner = raw.Tensor if method else raw
    return getattr(owner, entry_or_name, None)


def gjs_call(info, name, method, constructor=False):
    """`x.sum(axes: number[]?, keepdims: boolean) → Ep.Tensor`"""
    inputs, results = gi_parts(info)
    args = ", ".join(f"{n}: {gi_type_name(t, 'gjs')}{'?' if nullable else ''}" for n, t, nullable in inputs)
    owner = "Ep.Tensor." if constructor else "x." if method else "Ep."
    names = [gi_type_name(t, "gjs") for t in results]
    result = names[0] if len(names) == 1 else f"[{', '.join(names)}]" if names else "void"
    return f"`{owner}{name}({args}) → {result}`"


def vala_call(info, name, method, constructor=False):
    """`Ep.Tensor x.sum (int64[]? axes, bool keepdims) throws GLib.Error`"""
    args = list(info.get_arguments())
    hidden = hidden_arguments(info)
    parts = []
    for i, a in enumerate(args):
        if i in hidden:
            continue
        text = f"{gi_type_name(a.get_type(), 'vala')}{'?' if a.may_be_null() else ''} {a.get_name()}"
        parts.append(text if a.get_direction() == 0 else "out " + text)
    return_type = info.get_return_type()
    # Vala keeps a return value that GI skips (the gboolean of topk)
    returns = "void" if return_type.get_tag_as_string() == "void" else gi_type_name(return_type, "vala")
    throws = " throws GLib.Error" if info.can_throw_gerror() else ""
    if constructor:
        call = f"new Ep.Tensor.{name[len('new_'):] if name.startswith('new_') else name}"
        return f"`{call} ({', '.join(parts)}){throws}`"
    owner = "x." if method else "Ep."
    return f"`{returns} {owner}{name} ({', '.join(parts)}){throws}`"


def python_default(value):
    """A default as Python source: None, False, 1.0, 'nchw'."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    nick = getattr(value, "value_nick", None)
    if nick is not None:
        return repr(nick)
    text = str(value)
    return text if text.replace(".", "").replace("_", "").isalnum() else "…"


def python_call(function, name, method, constructor=False, gi_callable=None):
    """`x.sum(axis=None, keepdims=False)`: the parameters of the Python
    callable, without the annotations; those of the GI callable where
    PyGObject's own method is called (it has no Python signature)."""
    import inspect
    owner = "Ep.Tensor." if constructor else "x." if method else "Ep."
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        if gi_callable is None:
            return "—"
        inputs, _ = gi_parts(gi_callable)
        return f"`{owner}{name}({', '.join(n for n, _, _ in inputs)})`"
    if method and parameters and parameters[0].name == "self":
        parameters = parameters[1:]
    parts, keyword_only = [], False
    for p in parameters:
        if p.kind == p.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
            keyword_only = True
            continue
        if p.kind == p.VAR_KEYWORD:
            parts.append(f"**{p.name}")
            continue
        if p.kind == p.KEYWORD_ONLY and not keyword_only:
            parts.append("*")
            keyword_only = True
        parts.append(p.name if p.default is p.empty else f"{p.name}={python_default(p.default)}")
    return f"`{owner}{name}({', '.join(parts)})`"


def language_row(Ep, raw, label, python_function, python_name, gi_callable, gi_name, method,
                 constructor=False):
    """| op | Python | gjs | Vala | of one function."""
    python = python_call(python_function, python_name, method, constructor, gi_callable) \
        if python_function is not None else "—"
    if gi_callable is None:
        gjs = vala = "—"
    else:
        gjs = gjs_call(gi_callable, gi_name, method, constructor)
        vala = vala_call(gi_callable, gi_name, method, constructor)
    return f"| {label} | {python} | {gjs} | {vala} |"


def op_language_row(Ep, entry):
    """The calls of an op in Python, gjs and Vala."""
    from gi.module import get_introspection_module
    raw = get_introspection_module("Ep")
    method = entry["method"]
    python_function = getattr(Ep.Tensor if method else Ep, entry["name"], None)
    symbol = entry.get("function")
    # an op without a function of its own may have a C function of its
    # name that is no op call (custom_gradient)
    gi_name = entry["name"] if symbol is None else symbol[len("ep_tensor_" if method else "ep_"):]
    gi_callable = gi_info(raw, gi_name, method) if gi_name is not None else None
    return language_row(Ep, raw, op_link(Ep, entry), python_function, entry["name"], gi_callable,
                        gi_name, method)


def data_language_row(Ep, name):
    """The calls of a function that moves data, by its GI name."""
    from gi.module import get_introspection_module
    raw = get_introspection_module("Ep")
    info = getattr(raw.Tensor, name, None)
    constructor = info is not None and info.is_constructor()
    method = info is not None and info.is_method()
    if info is None:
        info = getattr(raw, name)
    python_function = getattr(Ep.Tensor if (method or constructor) else Ep, name, None)
    return language_row(Ep, raw, link(Ep, name), python_function, name, info, name, method, constructor)


HEADER = """\
Title: Ops and dtypes
Slug: ops

# Ops and dtypes

Every op of the tensor API, its signature, and what it does with each
element type, on the CPU. This page is generated: the ops, their
families and signatures come from the op catalogue ([func@Ep.list_ops]),
and `docs/generate-op-table.py` calls each op with inputs of each dtype
and records the result (a test fails when the page and the library
disagree).

- The signature is the schema's: the inputs (`[]`: a list of tensors;
  `bool`, `integer`: the dtypes an input takes, where not any), then the
  attributes with their type and default, in the order the C function
  takes them, then the outputs. `?` marks a nullable attribute: `NULL` for
  a list (`axes`: all axes), %EP_AXIS_NONE for an `axis` (the flattened
  tensor), the default for a number; `None` in Python. A `number` is an
  integer, kept exact, or a float: the C function takes a `gdouble`
  (exact up to 2^53), its `_int` form ([func@Ep.full_int],
  [func@Ep.arange_int], [method@Ep.Tensor.full_like_int]) a `gint64`;
  Python's `Ep.full`, `Ep.arange` and `full_like` pick the form by their
  arguments.

- A dtype name is the dtype of the result for inputs of the column's
  dtype (for creation ops: the requested dtype); two names are the
  dtypes of two outputs (`topk`: values and indices; `slogdet`: sign and
  log-abs-determinant).
- **any**: `astype` converts to every dtype.
- ✓: accepted; the result is no tensor (bytes, a string, a number).
- ✗: refused with `EP_ERROR_DTYPE`: where NumPy raises too, where
  NumPy's result would be int8 (`floordiv`, `mod`, `pow` of two bools),
  `arange` of bool, random numbers that are not floats, and `mean` of a
  tensor that is not float (cast it first).

The rules are NumPy's, with one difference: where NumPy gives float16
(float functions of bool), eager-glib gives float32. Binary ops with
operands of two dtypes promote them first by NumPy's table
([func@Ep.DType.promote]), then follow the row of the promoted dtype;
Python numbers are weak (`clip` of bool with the integer bounds 0 and 1,
as in this table, gives int64, as in NumPy). Index arguments (`take`,
`take_along_axis`, `index_update`, `scatter_add`, `onehot_like`,
`crossentropy` labels) are int32 or int64; masks and `where` conditions
are bool.

Under each table, the same ops as each language calls them: Python's
call with its parameters and defaults (the override's, which takes
NumPy's conventions: `axis=` for a list of axes, a string for an enum),
gjs's and Vala's from the C function's introspection data, as those
bindings see it: every argument but the lengths of arrays, in the C
order, `?` where null is taken (gjs: `null`; Vala: a nullable type),
`x.` a method of the tensor. A C function that fails gives a `GLib.Error`
whose domain is `Ep.Error` in every language (Vala: `catch (Ep.Error.SHAPE
e)`; Python: its exception classes).
"""


def generate(Ep, GLib):
    """The page: one section per op family of the catalogue, its ops in
    catalogue order; then the functions that move data, which are no ops."""
    calls, data, generic_call = make_calls(Ep, GLib)
    catalogue = Ep.list_ops().unpack()
    names = [entry["name"] for entry in catalogue]
    for entry in catalogue:
        if entry["name"] not in calls:
            calls[entry["name"]] = generic_call(entry)
            if calls[entry["name"]] is None:
                raise LookupError(f"{entry['name']}: the schema gives no call (an attribute without "
                                  f"a default): write one in make_calls()")
    unknown = [name for name in calls if name not in names]
    if unknown:
        raise LookupError(f"calls of ops that are not in the catalogue: {', '.join(unknown)}")
    for name, call in calls.items():
        if (call is None) != (name in NO_CALL):
            raise LookupError(f"{name}: a call, or a reason in NO_CALL, not both")

    lines = [HEADER]
    columns = "| op | signature | " + " | ".join(DTYPES) + " |"
    rule = "|---|---|" + "---|" * len(DTYPES)
    language_columns = ["", "| op | Python | gjs | Vala |", "|---|---|---|---|"]
    family = None
    calls_in_languages = []
    for entry in catalogue:
        if entry["family"] != family:
            family = entry["family"]
            if calls_in_languages:
                lines += language_columns + calls_in_languages
                calls_in_languages = []
            lines += [f"\n## {family.capitalize()}\n", columns, rule]
        calls_in_languages.append(op_language_row(Ep, entry))
        call = calls[entry["name"]]
        if call is None:
            cells = [f"({NO_CALL[entry['name']]})"] + [""] * (len(DTYPES) - 1)
        else:
            cells = [outcome(Ep, GLib, call, dtype) for dtype in DTYPES]
        lines.append(f"| {op_link(Ep, entry)} | {signature(entry)} | " + " | ".join(cells) + " |")

    lines += language_columns + calls_in_languages
    lines += ["\n## Data in and out (no ops)\n", columns, rule]
    for name, call in data.items():
        cells = [outcome(Ep, GLib, call, dtype) for dtype in DTYPES]
        lines.append(f"| {link(Ep, name)} | {gi_signature(Ep, name)} | " + " | ".join(cells) + " |")
    lines += language_columns + [data_language_row(Ep, name) for name in data]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build-dir", help="meson build directory (else the environment's Ep)")
    parser.add_argument("--check", metavar="FILE", help="compare with FILE instead of printing")
    args = parser.parse_args()

    Ep, GLib = load_ep(args.build_dir)
    text = generate(Ep, GLib)
    if args.check is None:
        sys.stdout.write(text)
        return 0

    with open(args.check, encoding="utf-8") as f:
        current = f.read()
    if current == text:
        return 0
    sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                               args.check, "generated"))
    print(f"\n{args.check} is stale: regenerate it with\n"
          f"  /usr/bin/python3 docs/generate-op-table.py --build-dir BUILD > {args.check}",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
