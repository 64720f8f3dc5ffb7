"""The op catalogue (Ep.list_ops()) and what is built from it agree: each
entry's C function (its GI signature: the inputs, then the attributes
that are not internal, in schema order, with types that fit), the Python
wrapper generated from it (names and defaults), and what C does with each
schema default (spot-checked, and against NumPy's defaults)."""

import inspect
import math
import sys

import numpy as np
import pytest
from conftest import Ep, assert_matches
from gi.module import get_introspection_module

RAW = get_introspection_module("Ep")
OVERRIDE = sys.modules["gi.overrides.Ep"]
CATALOGUE = RAW.list_ops().unpack()
WITH_FUNCTION = [entry for entry in CATALOGUE if "function" in entry]
BY_NAME = {entry["name"]: entry for entry in CATALOGUE}


def names(entries):
    return [entry["name"] for entry in entries]


def gi_callable(entry):
    """The GI callable of the entry's C symbol: ep_tensor_<name> is the
    method Ep.Tensor.<name>, ep_<name> the function Ep.<name>."""
    symbol = entry["function"]
    if entry["method"]:
        assert symbol.startswith("ep_tensor_"), symbol
        return getattr(RAW.Tensor, symbol[len("ep_tensor_"):], None)
    assert symbol.startswith("ep_") and not symbol.startswith("ep_tensor_"), symbol
    return getattr(RAW, symbol[len("ep_"):], None)


def attributes(entry):
    return [spec for spec in entry["attributes"] if not spec["internal"]]


def gi_type(type_info):
    """EpTensor, gint32, array<gint64>, array<EpTensor>, EpPadMode, ..."""
    tag = type_info.get_tag_as_string()
    if tag == "interface":
        return type_info.get_interface().get_type_name()
    if tag == "array":
        return f"array<{gi_type(type_info.get_param_type(0))}>"
    return tag


def visible(info):
    """GI arguments that Python sees: no array lengths, closures, destroy
    notifiers."""
    args = list(info.get_arguments())
    hidden = {t.get_array_length() for t in [a.get_type() for a in args] + [info.get_return_type()]
              if t.get_tag_as_string() == "array"}
    hidden |= {i for a in args for i in (a.get_closure(), a.get_destroy())}
    return [a for i, a in enumerate(args) if i not in hidden]


# The GI types that fit each schema type
ATTRIBUTE_GI_TYPES = {
    "bool": {"gboolean"},
    "int": {"gint64", "gint32"},
    "float": {"gdouble"},
    "number": {"gdouble"},
    "seed": {"guint64"},
    "string": {"utf8"},
    "dtype": {"EpDType"},
    "axis": {"gint32"},
    "axes": {"array<gint32>"},
    "shape": {"array<gint64>"},
    "ints": {"array<gint64>"},
    "device": {"EpDevice"},
}


def fitting_gi_types(spec):
    if spec["type"] == "enum":
        return {spec["enum"]}
    return ATTRIBUTE_GI_TYPES[spec["type"]]


# What the catalogue and the C API say


def test_the_catalogue_lists_named_ops():
    assert len(CATALOGUE) > 100
    assert len(set(names(CATALOGUE))) == len(CATALOGUE)
    for entry in CATALOGUE:
        assert entry["kind"] in ("primitive", "composite"), entry["name"]
        assert entry["outputs"], entry["name"]
        if entry["method"]:
            assert entry["inputs"][0]["name"] == "self", entry["name"]


@pytest.mark.parametrize("entry", WITH_FUNCTION, ids=names(WITH_FUNCTION))
def test_the_c_function_exists(entry):
    info = gi_callable(entry)
    assert info is not None, f"no GI callable for {entry['function']}"
    assert info.get_symbol() == entry["function"]
    assert info.is_method() == entry["method"]


@pytest.mark.parametrize("entry", WITH_FUNCTION, ids=names(WITH_FUNCTION))
def test_the_c_function_takes_inputs_then_attributes(entry):
    """The rule of the schema: the public function takes its inputs, then
    its attributes that are not internal, in schema order."""
    info = gi_callable(entry)
    arguments = [a for a in visible(info) if a.get_direction() == 0]   # GI_DIRECTION_IN
    inputs = entry["inputs"][1:] if entry["method"] else entry["inputs"]
    expected = [spec["name"] for spec in inputs] + [spec["name"] for spec in attributes(entry)]
    assert [a.get_name() for a in arguments] == expected
    for spec, argument in zip(inputs, arguments):
        assert gi_type(argument.get_type()) == ("array<EpTensor>" if spec["list"] else "EpTensor"), spec
        assert not argument.may_be_null(), spec
    for spec, argument in zip(attributes(entry), arguments[len(inputs):]):
        assert gi_type(argument.get_type()) in fitting_gi_types(spec), (spec, gi_type(argument.get_type()))
        if spec["nullable"]:
            # a nullable list is NULL in C (None in Python); others may take
            # NULL too, which PyGObject passes for an empty list
            assert argument.may_be_null() or argument.get_type().get_tag_as_string() != "array", spec


@pytest.mark.parametrize("entry", WITH_FUNCTION, ids=names(WITH_FUNCTION))
def test_the_c_function_returns_the_outputs(entry):
    """One tensor, a list of tensors, or several tensors as out arguments
    (beside a returned tensor or a gboolean that GI skips)."""
    info = gi_callable(entry)
    outputs = entry["outputs"]
    returned = gi_type(info.get_return_type())
    outs = [gi_type(a.get_type()) for a in visible(info) if a.get_direction() != 0]
    if len(outputs) == 1 and outputs[0]["list"]:
        assert (returned, outs) == ("array<EpTensor>", [])
    elif len(outputs) == 1:
        assert (returned, outs) == ("EpTensor", [])
    elif returned == "EpTensor":
        assert outs == ["EpTensor"] * (len(outputs) - 1)
    else:
        assert (returned, info.skip_return()) == ("gboolean", True)
        assert outs == ["EpTensor"] * len(outputs)


# The Python wrappers


def test_every_entry_with_a_function_is_wrapped():
    assert OVERRIDE._CATALOGUE_PROBLEMS == []
    assert sorted(OVERRIDE._OPS) == sorted(names(WITH_FUNCTION))
    # ops without a function of their own get no wrapper (custom_gradient
    # is Python's own function of the autodiff section)
    assert not set(names(CATALOGUE)) - set(names(WITH_FUNCTION)) & set(OVERRIDE._OPS)


def expected_parameters(entry, namespace_form=False):
    """[(name, default)] of the wrapper, from the schema: NumPy's axis for
    an axes list; None for a nullable attribute without a default or whose
    None is its default (clip's bounds), else the schema's default."""
    parameters = []
    for position, spec in enumerate(entry["inputs"]):
        if position == 0 and entry["method"]:
            parameters.append(("a" if namespace_form else "self", inspect.Parameter.empty))
        else:
            parameters.append((spec["name"], inspect.Parameter.empty))
    for spec in attributes(entry):
        name = "axis" if spec["type"] == "axes" else spec["name"]
        none_is_default = spec["type"] not in ("axis", "axes", "shape", "ints", "device")
        if spec["nullable"] and ("default" not in spec or none_is_default):
            parameters.append((name, None))
        else:
            parameters.append((name, spec.get("default", inspect.Parameter.empty)))
    return parameters


def parameters_of(function):
    return [(p.name, p.default) for p in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize("entry", WITH_FUNCTION, ids=names(WITH_FUNCTION))
def test_the_wrapper_has_the_schema_names_and_defaults(entry):
    wrapper = OVERRIDE._OPS[entry["name"]]
    assert wrapper.__wrapped_gi__.get_symbol() == entry["function"]
    assert parameters_of(wrapper) == expected_parameters(entry)
    outputs = entry["outputs"]
    assert wrapper.__annotations__["return"] == (
        "list[Tensor]" if outputs[0]["list"] else
        "Tensor" if len(outputs) == 1 else f"tuple[{', '.join(['Tensor'] * len(outputs))}]")


# NumPy forms the schema cannot express replace these wrappers in the API
NUMPY_METHODS = {"reshape", "transpose", "broadcast_to", "split", "pad", "slice", "full_like",
                 "index_update", "scatter_add", "unique", "bincount",
                 "histogram", "roll", "repeat"}
NUMPY_FUNCTIONS = {"arange", "full", "eye", "meshgrid", "zeros", "ones", "einsum"}
# parameters of a NumPy form named as a schema attribute whose default differs, and why
OTHER_DEFAULTS = {("arange", "dtype"): "NumPy's: inferred from the arguments",
                  ("arange", "stop"): "NumPy's arange(stop): from 0",
                  ("bincount", "weights"): "NumPy's weights=None: ones, counting each element"}


@pytest.mark.parametrize("entry", WITH_FUNCTION, ids=names(WITH_FUNCTION))
def test_the_api_calls_the_wrapper(entry):
    """Ep.Tensor.<name> of a method entry and Ep.<name> of a function are
    the generated wrapper, PyGObject's own (nothing to convert), or a
    NumPy form, whose parameters named as attributes keep their defaults."""
    name = entry["name"]
    wrapper = OVERRIDE._OPS[name]
    public = getattr(Ep.Tensor if entry["method"] else Ep, name)
    if name in (NUMPY_METHODS if entry["method"] else NUMPY_FUNCTIONS):
        assert public is not wrapper
        schema = dict(expected_parameters(entry))
        for parameter, default in parameters_of(public):
            if parameter in schema and (name, parameter) not in OTHER_DEFAULTS:
                assert default == schema[parameter], (parameter, default)
    elif wrapper.__passes_through__:
        # a method with nothing to convert: PyGObject's own takes the same
        info = gi_callable(entry)
        assert public == info
        assert parameters_of(wrapper) == [("self", inspect.Parameter.empty)] + [
            (a.get_name(), inspect.Parameter.empty) for a in visible(info) if a.get_direction() == 0]
    else:
        assert public is wrapper


def namespace_forms():
    return [e for e in WITH_FUNCTION if e["method"] and e["name"] in OVERRIDE._FUNCTIONS]


@pytest.mark.parametrize("entry", namespace_forms(), ids=names(namespace_forms()))
def test_methods_have_numpy_style_functions(entry):
    function = getattr(Ep, entry["name"])
    assert function is OVERRIDE._FUNCTIONS[entry["name"]]
    assert parameters_of(function) == expected_parameters(entry, namespace_form=True)


def test_namespace_functions_where_the_name_is_free():
    methods = {e["name"] for e in WITH_FUNCTION if e["method"]}
    assert {"sum", "exp", "where", "minimum", "abs", "argmax", "take"} <= set(OVERRIDE._FUNCTIONS)
    # dtypes, builtin types, and NumPy forms written by hand
    assert Ep.float32 == Ep.DType.FLOAT32 and Ep.bool_ == Ep.DType.BOOL
    assert {"float32", "float64", "bool", "slice"} <= methods
    assert not {"float32", "float64", "bool", "slice", "split", "pad", "transpose"} & set(OVERRIDE._FUNCTIONS)
    assert Ep.split.__module__ == Ep.pad.__module__ == "gi.overrides.Ep"
    # Ep.sum is the op; inside the override, sum is still Python's
    assert OVERRIDE.__dict__.get("sum") is None
    x = Ep.astensor([[1.0, 2.0], [3.0, 4.0]])
    assert_matches(Ep.sum(x, axis=0), np.array([4.0, 6.0], np.float32))
    assert_matches(Ep.where([True, False], 1.0, x), np.array([[1.0, 2.0], [1.0, 4.0]], np.float32))
    assert_matches(Ep.minimum(x, 2), np.array([[1.0, 2.0], [2.0, 2.0]], np.float32))


def test_operators_call_ops_of_the_catalogue():
    methods = {e["name"] for e in WITH_FUNCTION if e["method"]}
    for op, dunders in OVERRIDE._BINARY_OPERATORS.items():
        assert op in methods
        for dunder in dunders:
            assert dunder in Ep.Tensor.__dict__, dunder
    for op, dunder in OVERRIDE._UNARY_OPERATORS.items():
        assert op in methods and dunder in Ep.Tensor.__dict__


# Conversions the schema types call for


def test_enum_attributes_take_the_enum_or_its_nick():
    x = Ep.astensor([1.0, 2.0, 3.0])
    assert_matches(x.pad([1, 1], "reflect"), np.pad(np.array([1, 2, 3], np.float32), 1, "reflect"))
    assert_matches(OVERRIDE._OPS["pad"](x, [1, 1], Ep.PadMode.REFLECT), np.array([2, 1, 2, 3, 2], np.float32))
    with pytest.raises(ValueError, match="edge"):
        x.pad(1, mode="edge")
    with pytest.raises(ValueError):
        x.pad(1, mode=Ep.MeshIndexing.XY)
    grid = Ep.meshgrid([1, 2], [3, 4, 5], indexing="ij")
    assert [g.shape for g in grid] == [(2, 3), (2, 3)]


def test_an_empty_axes_list_is_all_axes_and_axis_empty_tuple_none():
    """C reads NULL and [] alike (all axes): bindings cannot tell them
    apart reliably. NumPy's axis=() (no axes) is the wrappers' own."""
    x = Ep.astensor([[1.0, 2.0], [3.0, 4.0]])
    assert RAW.Tensor.sum(x, [], False).shape == ()
    assert_matches(x.sum(axis=()), np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    assert_matches(x.max(axis=(), keepdims=True), np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    assert_matches(x.flip(axis=()), np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))


def test_a_nullable_axis_none_is_the_flattened_tensor():
    a = np.array([[3.0, 1.0], [0.0, 2.0]], np.float32)
    x = Ep.astensor(a)
    assert_matches(x.argmax(axis=None), np.argmax(a, axis=None))
    assert_matches(x.cumsum(axis=None), np.cumsum(a, axis=None))
    assert_matches(x.sort(axis=None), np.sort(a, axis=None))
    assert_matches(x.take([0, 3], axis=None), np.take(a, [0, 3], axis=None))
    assert_matches(Ep.concatenate([x, x], axis=None), np.concatenate([a, a], axis=None))
    assert_matches(RAW.Tensor.argmax(x, RAW.AXIS_NONE, False), np.argmax(a))


# Each schema default is what C does when given it (spot-checks)

X = np.array([[0.5, -1.5, 2.0], [3.0, 0.25, -2.0]])

# required arguments of the ops with defaults, where the type alone does not do
SAMPLES = {
    ("arange", "start"): 0.0, ("arange", "stop"): 3.0,
    ("arange_int", "start"): 2**60, ("full_like_int", "value"): 2**60 + 1, ("arange_int", "stop"): 2**60 + 3, ("full_int", "value"): 2**60 + 1,
    ("linspace", "start"): 0.0, ("linspace", "stop"): 1.0,
    ("full", "value"): 2.0, ("lp", "p"): 3.0, ("eye", "n"): 2, ("eye", "m"): 3, ("topk", "k"): 2,
    ("split", "sections"): 2, ("split_at", "indices"): [1], ("pad", "paddings"): [1, 1, 1, 1],
    ("slice", "starts"): [0, 1], ("slice", "stops"): [2, 3],
    ("onehot_like", "indices"): [2, 0], ("take", "indices"): [1, 0, 4],
    ("take_along_axis", "indices"): [5, 0, 1],
    ("index_update", "indices"): [1], ("index_update", "values"): np.ones((1, 3)),
    ("scatter_add", "indices"): [1], ("scatter_add", "values"): np.ones((1, 3)),
    ("sparse_softmax_crossentropy", "labels"): [2, 0],
    # images (2, 2, 4, 4), weight (3, 2, 2, 2), output (2, 3, 3, 3)
    ("conv2d", "self"): np.linspace(-1, 1, 64).reshape(2, 2, 4, 4),
    ("conv2d", "weight"): np.linspace(-1, 1, 24).reshape(3, 2, 2, 2),
    ("conv2d_input_grad", "output_grad"): np.linspace(-1, 1, 54).reshape(2, 3, 3, 3),
    ("conv2d_input_grad", "weight"): np.linspace(-1, 1, 24).reshape(3, 2, 2, 2),
    ("conv2d_input_grad", "input_shape"): [2, 2, 4, 4],
    ("conv2d_weight_grad", "input"): np.linspace(-1, 1, 64).reshape(2, 2, 4, 4),
    ("conv2d_weight_grad", "output_grad"): np.linspace(-1, 1, 54).reshape(2, 3, 3, 3),
    ("conv2d_weight_grad", "weight_shape"): [3, 2, 2, 2],
    # norm: parameters of the last axis (layer_norm) or of the 3 channels
    ("layer_norm", "weight"): [1.0, 2.0, 0.5], ("layer_norm", "bias"): [0.0, 1.0, -1.0],
    ("batch_norm", "running_mean"): [0.0, 1.0, 2.0], ("batch_norm", "running_var"): [1.0, 2.0, 3.0],
    ("batch_norm", "weight"): [1.0, 2.0, 0.5], ("batch_norm", "bias"): [0.0, 1.0, -1.0],
}
# pooling takes images: 4 dimensions
_IMAGES = np.sin(np.arange(2 * 2 * 4 * 4.0)).reshape(2, 2, 4, 4)
_POOLED = np.cos(np.arange(2 * 2 * 2 * 2.0)).reshape(2, 2, 2, 2)
for _op in ("max_pool2d", "avg_pool2d", "max_pool2d_grad", "avg_pool2d_grad", "max_pool2d_indices"):
    SAMPLES[(_op, "self")] = _IMAGES
    SAMPLES[(_op, "grad")] = _POOLED
    SAMPLES[(_op, "kernel_size")] = [2]
SAMPLES[("avg_pool2d_grad", "input_shape")] = [2, 2, 4, 4]
# roll, repeat, diff
SAMPLES[("roll", "shift")] = 2
SAMPLES[("repeat", "repeats")] = 2
# linear algebra: eigh takes square matrices
SAMPLES[("eigh", "self")] = [[2.0, 1.0], [1.0, 3.0]]
# fft: complex inputs end in an axis of 2 (irfft2 needs two bins for its default length)
for _name in ("fft", "ifft", "irfft"):
    SAMPLES[(_name, "self")] = X.reshape(3, 2)
for _name in ("fft2", "ifft2"):
    SAMPLES[(_name, "self")] = X.reshape(3, 1, 2)
SAMPLES[("irfft2", "self")] = np.concatenate([X, X]).reshape(3, 2, 2)
# issue 17 (ops)
SAMPLES[("bincount", "self")] = [1, 4, 1]
SAMPLES[("bincount", "weights")] = [0.5, 1.0, 2.0]
SAMPLES[("roll_axes", "shifts")] = [1, 2]
SAMPLES[("repeat_counts", "repeats")] = [1, 0, 2, 1, 1, 3]
BY_TYPE = {"shape": [2, 3]}


def with_defaults():
    return [e for e in WITH_FUNCTION
            if any("default" in spec or spec["nullable"] for spec in attributes(e))]


def c_value(spec):
    """What the schema's default is in the C call (None: NULL; a nullable
    axis without a default: EP_AXIS_NONE)."""
    if "default" not in spec:
        return RAW.AXIS_NONE if spec["type"] == "axis" else None
    value = spec["default"]
    if spec["type"] == "dtype":
        return getattr(RAW.DType, value.upper())
    if spec["type"] == "enum":
        cls = getattr(RAW, spec["enum"][len("Ep"):])
        return next(v for v in cls.__enum_values__.values() if v.value_nick == value)
    return value


def as_gi_tensor(value, spec):
    if spec["list"]:
        return [as_gi_tensor(v, dict(spec, list=False)) for v in value]
    return Ep.astensor(np.asarray(value, np.int64 if spec["dtypes"] == "integer" else None))


def same(got, expected):
    if isinstance(got, (list, tuple)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            same(g, e)
        return
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


@pytest.mark.parametrize("entry", with_defaults(), ids=names(with_defaults()))
def test_schema_defaults_are_what_c_does(entry):
    """The wrapper without the defaulted arguments gives what the C
    function gives with the schema's defaults."""
    name = entry["name"]
    inputs = []
    for position, spec in enumerate(entry["inputs"]):
        data = X > 0 if spec["dtypes"] == "bool" else X
        value = SAMPLES.get((name, spec["name"]), [data, data] if spec["list"] else data)
        inputs.append(as_gi_tensor(value, spec))
    required, c_attributes = [], []
    for spec in attributes(entry):
        if "default" in spec or spec["nullable"]:
            c_attributes.append(c_value(spec))
        else:
            value = SAMPLES.get((name, spec["name"]), BY_TYPE.get(spec["type"]))
            assert value is not None, f"a sample value for {name}'s {spec['name']}"
            required.append(value)
            c_attributes.append(value)
    Ep.set_seed(7)
    got = OVERRIDE._OPS[name](*inputs, *required)
    Ep.set_seed(7)
    expected = gi_callable(entry)(*inputs, *c_attributes)
    same(got, expected)


def test_schema_defaults_are_numpy_defaults():
    """Where an op's attribute is NumPy's, so is its default."""
    a = X.astype(np.float32)
    x = Ep.astensor(a)
    assert_matches(Ep.linspace(0, 1), np.linspace(0, 1).astype(np.float32))
    assert_matches(x.sort(), np.sort(a))
    assert_matches(x.argsort(), np.argsort(a, kind="stable"))
    assert_matches(x.argmax(), np.argmax(a))
    assert_matches(x.cumsum(), np.cumsum(a))
    assert_matches(x.sum(), np.sum(a))
    assert_matches(x.take([4, 0]), np.take(a, [4, 0]))
    assert_matches(Ep.concatenate([x, x]), np.concatenate([a, a]))
    assert_matches(Ep.stack([x, x]), np.stack([a, a]))
    assert_matches(x.pad(1), np.pad(a, 1))
    assert_matches(Ep.eye(2, 3), np.eye(2, 3, dtype=np.float32))
    assert_matches(x.clip(), np.clip(a, -math.inf, math.inf))
    assert_matches(x.flatten(), a.flatten())
    assert [g.shape for g in Ep.meshgrid([1, 2], [3, 4, 5])] == [g.shape for g in np.meshgrid([1, 2], [3, 4, 5])]
    assert [p.shape for p in x.split(3, 1)] == [p.shape for p in np.split(a, 3, 1)]
    assert [p.shape for p in Ep.split(x, 2)] == [p.shape for p in np.split(a, 2)]
