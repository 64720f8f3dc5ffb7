#!/usr/bin/python3
# generate-op-table.py: docs/ops.md, the ops and the dtypes they take
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Calls every op of API.md's sections "Creation and conversion",
# "Elementwise", "Reductions, scans, sorting", "Shape and indexing" and
# "Linear algebra" with inputs of each dtype, on cpu:0, and records what
# happened: the dtype of the result, or a refusal with EP_ERROR_DTYPE.
# Any other error is a bug in this table (inputs the op cannot take) or in
# the library, and stops the script.
#
#   /usr/bin/python3 docs/generate-op-table.py --build-dir _build > docs/ops.md
#   /usr/bin/python3 docs/generate-op-table.py --build-dir _build --check docs/ops.md
#
# (or without --build-dir under `meson devenv -C _build`). --check exits
# with status 1 and a diff when the file differs from what the build gives.

import argparse
import difflib
import os
import sys

SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DTYPES = ["float32", "float64", "int32", "int64", "bool"]


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
    """Each row: (section, op, C symbol kind, call). A call takes a dtype
    name and returns what the op returned."""
    import numpy as np

    def dt(name):
        return getattr(Ep.DType, name.upper())

    def tensor(values, dtype):
        return Ep.astensor(np.asarray(values).astype(dtype))

    def x(dtype):
        """A 2x3 tensor, positive and inside (-1, 1) where it can be."""
        return tensor([[0.25, 0.5, 0.75], [0.125, 0.375, 0.625]] if dtype.startswith("float")
                      else [[1, 2, 3], [4, 5, 6]] if dtype.startswith("int")
                      else [[True, False, True], [False, True, True]], dtype)

    def square(dtype):
        """An invertible 2x2 matrix of the dtype."""
        return tensor([[True, False], [False, True]] if dtype == "bool" else [[2, 1], [1, 2]], dtype)

    def indices(values):
        return tensor(values, "int64")

    def to_all(t):
        return [Ep.Tensor.astype(t, dt(target)) for target in DTYPES]

    rows = []

    def row(section, op, call, kind=None):
        rows.append((section, op, kind, call))

    section = "Creation and conversion"
    row(section, "new_from_bytes", lambda d: Ep.Tensor.new_from_bytes(
        GLib.Bytes.new(bytes(2 * Ep.dtype_get_itemsize(dt(d)))), dt(d), [2]))
    row(section, "to_bytes", lambda d: x(d).to_bytes())
    row(section, "new_from_doubles", lambda d: Ep.Tensor.new_from_doubles([1.0, 0.0], [2], dt(d)))
    row(section, "new_scalar", lambda d: Ep.Tensor.new_scalar(1.0, dt(d)))
    row(section, "zeros", lambda d: Ep.zeros([2], dt(d)))
    row(section, "ones", lambda d: Ep.ones([2], dt(d)))
    row(section, "full", lambda d: Ep.full([2], 1.0, dt(d)))
    row(section, "zeros_like", lambda d: x(d).zeros_like())
    row(section, "ones_like", lambda d: x(d).ones_like())
    row(section, "full_like", lambda d: x(d).full_like(1.0))
    row(section, "arange", lambda d: Ep.arange(0, 3, 1, dt(d)))
    row(section, "linspace", lambda d: Ep.linspace(0, 1, 3, True, dt(d)))
    row(section, "eye", lambda d: Ep.eye(2, 3, 0, dt(d)))
    row(section, "uniform", lambda d: Ep.uniform([2], 0.0, 1.0, dt(d)))
    row(section, "normal", lambda d: Ep.normal([2], 0.0, 1.0, dt(d)))
    row(section, "astype", lambda d: to_all(x(d)))
    for name in ("float32", "float64", "bool"):
        row(section, name, lambda d, name=name: getattr(Ep.Tensor, name)(x(d)))
    row(section, "item", lambda d: Ep.Tensor.item(x(d)[0, 0]))
    row(section, "item_int64", lambda d: Ep.Tensor.item_int64(x(d)[0, 0]))
    row(section, "item_boolean", lambda d: Ep.Tensor.item_boolean(x(d)[0, 0]))
    row(section, "to_string", lambda d: x(d).to_string())
    row(section, "onehot_like", lambda d: x(d).onehot_like(indices([2, 0]), 1))

    section = "Elementwise"
    for name in ("add", "sub", "mul", "div", "floordiv", "mod", "pow", "minimum", "maximum",
                 "less", "less_equal", "equal", "not_equal", "greater", "greater_equal",
                 "logical_and", "logical_or"):
        row(section, name, lambda d, name=name: getattr(Ep.Tensor, name)(x(d), x(d)))
    for name in ("neg", "abs", "sign", "square", "sqrt", "exp", "expm1", "log", "log1p", "log2",
                 "log10", "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan",
                 "arcsinh", "arccosh", "arctanh", "sigmoid", "relu", "softplus", "round", "ceil",
                 "floor", "isnan", "isinf", "isfinite", "logical_not"):
        row(section, name, lambda d, name=name: getattr(Ep.Tensor, name)(x(d)))
    row(section, "clip", lambda d: Ep.Tensor.clip(x(d), 0, 1))
    row(section, "where", lambda d: Ep.Tensor.where(x("bool"), x(d), x(d)))

    section = "Reductions, scans, sorting"
    for name in ("sum", "prod", "min", "max", "mean", "all", "any", "logsumexp",
                 "l0", "l1", "l2", "linf"):
        row(section, name, lambda d, name=name: getattr(Ep.Tensor, name)(x(d), [1], False))
    row(section, "argmin", lambda d: Ep.Tensor.argmin(x(d), [1], False))
    row(section, "argmax", lambda d: Ep.Tensor.argmax(x(d), [1], False))
    row(section, "cumsum", lambda d: Ep.Tensor.cumsum(x(d), [1]))
    row(section, "sort", lambda d: Ep.Tensor.sort(x(d), -1))
    row(section, "argsort", lambda d: Ep.Tensor.argsort(x(d), -1))
    row(section, "topk", lambda d: tuple(x(d).topk(2)))
    row(section, "softmax", lambda d: Ep.Tensor.softmax(x(d), -1))
    row(section, "log_softmax", lambda d: Ep.Tensor.log_softmax(x(d), -1))
    row(section, "crossentropy", lambda d: Ep.Tensor.crossentropy(x(d), indices([2, 0])))
    row(section, "lp", lambda d: Ep.Tensor.lp(x(d), 3.0, [1], False))

    section = "Shape and indexing"
    row(section, "reshape", lambda d: x(d).reshape(3, 2))
    row(section, "flatten", lambda d: x(d).flatten())
    row(section, "transpose", lambda d: x(d).transpose())
    row(section, "expand_dims", lambda d: x(d).expand_dims(0))
    row(section, "squeeze", lambda d: x(d).expand_dims(0).squeeze(0))
    row(section, "broadcast_to", lambda d: x(d).broadcast_to(4, 2, 3))
    row(section, "concatenate", lambda d: Ep.concatenate([x(d), x(d)], 0))
    row(section, "stack", lambda d: Ep.stack([x(d), x(d)], 0))
    row(section, "split", lambda d: x(d).split(3, 1))
    row(section, "tile", lambda d: x(d).tile((2, 1)))
    row(section, "flip", lambda d: x(d).flip())
    row(section, "pad", lambda d: x(d).pad(1, "reflect"))
    row(section, "meshgrid", lambda d: Ep.meshgrid(x(d)[0], x(d)[1]))
    row(section, "slice", lambda d: x(d).slice([1], [None], [-1]))
    row(section, "take", lambda d: x(d).take(indices([2, 0]), axis=1))
    row(section, "take_along_axis", lambda d: x(d).take_along_axis(indices([[2], [0]]), 1))
    row(section, "mask", lambda d: x(d).mask(x("bool")))
    row(section, "index_update", lambda d: x(d).index_update(indices([1]), x(d)[:, 1:2], 1))
    row(section, "scatter_add", lambda d: x(d).scatter_add(indices([1]), x(d)[:, 1:2], 1))

    section = "Linear algebra"
    row(section, "matmul", lambda d: Ep.Tensor.matmul(x(d), x(d).T))
    row(section, "dot", lambda d: Ep.Tensor.dot(x(d), x(d).T))
    row(section, "outer", lambda d: Ep.Tensor.outer(x(d)[0], x(d)[1]))
    row(section, "inv", lambda d: Ep.Tensor.inv(square(d)))
    row(section, "slogdet", lambda d: tuple(square(d).slogdet()))
    row(section, "solve", lambda d: Ep.Tensor.solve(square(d), square(d)[0]))

    return rows


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
    """The gi-docgen link to the C symbol of an op."""
    from gi.module import get_introspection_module
    raw = get_introspection_module("Ep")
    info = getattr(raw.Tensor, op, None)
    if info is not None and hasattr(info, "is_constructor"):
        return f"[{'ctor' if info.is_constructor() else 'method'}@Ep.Tensor.{op}]"
    if callable(getattr(raw, op, None)):
        return f"[func@Ep.{op}]"
    raise LookupError(f"{op}: no such method or function in the Ep namespace")


HEADER = """\
Title: Ops and dtypes
Slug: ops

# Ops and dtypes

Every op of the tensor API and what it does with each element type, on
the CPU. This page is generated: `docs/generate-op-table.py` calls each
op with inputs of each dtype and records the result (a test fails when
the page and the library disagree).

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
"""


def generate(Ep, GLib):
    lines = [HEADER]
    section = None
    for row_section, op, _, call in make_calls(Ep, GLib):
        if row_section != section:
            section = row_section
            lines.append(f"\n## {section}\n")
            lines.append("| op | " + " | ".join(DTYPES) + " |")
            lines.append("|---|" + "---|" * len(DTYPES))
        cells = [outcome(Ep, GLib, call, dtype) for dtype in DTYPES]
        lines.append(f"| {link(Ep, op)} | " + " | ".join(cells) + " |")
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
