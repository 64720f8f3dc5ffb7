"""Calls every function of the Ep namespace with a half-made object.

Run by test_bare_objects.py, one process per class, under
G_DEBUG=fatal-criticals: an object made with GObject.new() and no
properties (what a binding can always do) must give an exception on use,
never a crash or a GLib critical. It walks the introspection data itself,
so a new class or method is covered without a change here.

    bare_objects.py CLASS self     every method of CLASS on a bare instance
    bare_objects.py CLASS argument every function taking a CLASS, given a
                                   bare one (the other arguments sound)
"""

import sys

import gi

gi.require_version("Ep", "1.0")
gi.require_version("GIRepository", "2.0")

from gi._gi import CallbackInfo, EnumInfo  # noqa: E402
from gi.module import get_introspection_module  # noqa: E402
from gi.repository import Gio, GIRepository, GLib, GObject  # noqa: E402

# the C API as GI gives it, without the Python override
Ep = get_introspection_module("Ep")


def ep_classes():
    """Every GObject and boxed class of the Ep namespace."""
    found = {}
    for name in dir(Ep):
        value = getattr(Ep, name)
        if isinstance(value, type) and issubclass(value, (GObject.Object, GObject.GBoxed)):
            found[name] = value
    return found


def make_bare(cls):
    """An instance made with no properties, or None if GI refuses to make one."""
    try:
        if issubclass(cls, GObject.Object):
            return GObject.new(cls.__gtype__)
        return cls()
    except (TypeError, NotImplementedError, RuntimeError):
        return None


def sound_objects():
    """One instance of each class made by its constructors."""
    tensor = Ep.Tensor.new_from_doubles([1.0, 2.0, 3.0, 4.0], [2, 2], Ep.DType.FLOAT32)
    spec = Ep.TensorSpec.new([2, 2], Ep.DType.FLOAT32)
    return {
        "Tensor": tensor,
        "Device": Ep.Device.get_default(),
        "Variable": Ep.Variable.new(tensor, "v"),
        "GradientTape": Ep.GradientTape.new(True),
        "ValueAndGradFn": Ep.ValueAndGradFn.new(lambda inputs: inputs[0].sum(None, False), [0]),
        "Function": Ep.Function.new(lambda inputs: [inputs[0].exp()]),
        "TensorSpec": spec,
        "Optimizer": Ep.Sgd.new(0.1, 0.9),
        "Sgd": Ep.Sgd.new(0.1, 0.9),
        "Adam": Ep.Adam.new(0.1),
        "Module": Ep.Relu.new(),
        "Linear": Ep.Linear.new(2, 2, True),
        "Relu": Ep.Relu.new(),
        "Tanh": Ep.Tanh.new(),
        "Sequential": Ep.Sequential.new(),
        "Conv2d": Ep.Conv2d.new(1, 2, 3, 3),
        "MaxPool2d": Ep.MaxPool2d.new(2, 2),
        "AvgPool2d": Ep.AvgPool2d.new(2, 2),
        "BatchNorm": Ep.BatchNorm.new(2),
        "LayerNorm": Ep.LayerNorm.new([2]),
        "Dropout": Ep.Dropout.new(0.5),
        "Embedding": Ep.Embedding.new(4, 2),
        "Gelu": Ep.Gelu.new(Ep.GeluApproximation.NONE),
        "Flatten": Ep.Flatten.new(),
        "Rmsprop": Ep.Rmsprop.new(0.1),
        "Adagrad": Ep.Adagrad.new(0.1),
        "LearningRateSchedule": Ep.ConstantSchedule.new(0.1),
        "ConstantSchedule": Ep.ConstantSchedule.new(0.1),
        "StepDecaySchedule": Ep.StepDecaySchedule.new(0.1, 2, 0.5),
        "CosineDecaySchedule": Ep.CosineDecaySchedule.new(0.1, 10, 0.0),
        "LinearWarmupSchedule": Ep.LinearWarmupSchedule.new(Ep.ConstantSchedule.new(0.1), 0.5, 3),
        # distributed (issue 18)
        "Communicator": Ep.Communicator.get_world(),
    }


def function_infos(namespace_or_class):
    for name, value in sorted(vars(namespace_or_class).items()):
        # not a class's virtual functions (EpOptimizerClass.update)
        if hasattr(value, "get_arguments") and hasattr(value, "is_method"):
            yield name, value


def hidden_arguments(info):
    """Indices of the arguments Python does not pass: lengths, closures."""
    hidden = set()
    for arg in info.get_arguments():
        type_info = arg.get_type()
        if type_info.get_tag() == GIRepository.TypeTag.ARRAY and type_info.get_array_length() >= 0:
            hidden.add(type_info.get_array_length())
        if arg.get_closure() >= 0:
            hidden.add(arg.get_closure())
        if arg.get_destroy() >= 0:
            hidden.add(arg.get_destroy())
    return hidden


def value_for(type_info, objects):
    tag = type_info.get_tag()
    if tag == GIRepository.TypeTag.BOOLEAN:
        return False
    if tag in (GIRepository.TypeTag.FLOAT, GIRepository.TypeTag.DOUBLE):
        return 1.0
    if tag in (GIRepository.TypeTag.UTF8, GIRepository.TypeTag.FILENAME):
        return "cpu:0"
    if tag == GIRepository.TypeTag.VOID:
        return None
    if tag == GIRepository.TypeTag.GTYPE:
        return GObject.TYPE_NONE
    if tag == GIRepository.TypeTag.ARRAY:
        return [value_for(type_info.get_param_type(0), objects)]
    if tag in (GIRepository.TypeTag.GLIST, GIRepository.TypeTag.GSLIST):
        return []
    if tag == GIRepository.TypeTag.INTERFACE:
        return interface_value(type_info.get_interface(), objects)
    return 0   # integers


def interface_value(info, objects):
    name = info.get_name()
    namespace = info.get_namespace()
    if namespace == "Ep" and name in objects:
        return objects[name]
    if isinstance(info, EnumInfo):
        return info.get_values()[0].get_value()
    if isinstance(info, CallbackInfo):
        return callback_for(info, objects)
    if (namespace, name) == ("GObject", "Object"):
        return objects["Tensor"]
    if (namespace, name) == ("GLib", "Bytes"):
        return GLib.Bytes.new(b"\0" * 16)
    if (namespace, name) == ("GLib", "Variant"):
        return GLib.Variant("a{sv}", {})
    if (namespace, name) == ("Gio", "File"):
        return Gio.File.new_for_path("/nonexistent/eager-glib-bare-objects")
    return None


def callback_for(info, objects):
    returns = info.get_return_type()
    if returns.get_tag() == GIRepository.TypeTag.INTERFACE:
        return lambda *args: objects["Tensor"]
    if returns.get_tag() == GIRepository.TypeTag.ARRAY:
        return lambda *args: [objects["Tensor"]]
    return lambda *args: None


def call(label, function, instance, info, objects):
    hidden = hidden_arguments(info)
    args = [value_for(arg.get_type(), objects)
            for i, arg in enumerate(info.get_arguments())
            if i not in hidden and arg.get_direction() != GIRepository.Direction.OUT]
    if instance is not None:
        args.insert(0, instance)
    print(label, flush=True)
    try:
        function(*args)
    except (GLib.Error, TypeError, ValueError, OverflowError, RuntimeError):
        pass


def bare_self(class_name):
    """Every method of a bare instance of the class, with sound arguments."""
    cls = ep_classes()[class_name]
    bare = make_bare(cls)
    if bare is None:
        print(f"{class_name}: cannot be made bare", flush=True)
        return
    objects = sound_objects()
    for name, info in function_infos(cls):
        if info.is_method():
            call(f"{class_name}().{name}", getattr(cls, name), bare, info, objects)


def bare_argument(class_name):
    """Every function or method that takes a class_name, given a bare one."""
    cls = ep_classes()[class_name]
    bare = make_bare(cls)
    if bare is None:
        print(f"{class_name}: cannot be made bare", flush=True)
        return
    sound = sound_objects()
    objects = dict(sound, **{class_name: bare})
    owners = [(None, Ep)] + [(name, c) for name, c in ep_classes().items()]
    for owner_name, owner in owners:
        for name, info in function_infos(owner):
            if not any(takes(arg.get_type(), class_name) for arg in info.get_arguments()):
                continue
            instance = sound.get(owner_name) if info.is_method() else None
            if info.is_method() and instance is None:
                continue
            label = f"{owner_name or 'Ep'}.{name}({class_name}())"
            call(label, getattr(owner, name), instance, info, objects)


def takes(type_info, class_name):
    tag = type_info.get_tag()
    if tag == GIRepository.TypeTag.ARRAY:
        return takes(type_info.get_param_type(0), class_name)
    if tag != GIRepository.TypeTag.INTERFACE:
        return False
    info = type_info.get_interface()
    return info.get_namespace() == "Ep" and info.get_name() == class_name


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--list":
        print(" ".join(sorted(ep_classes())))
    else:
        {"self": bare_self, "argument": bare_argument}[sys.argv[2]](sys.argv[1])
