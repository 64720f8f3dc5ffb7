"""Zero copy and the constructors: NumPy views, __array_interface__,
DLPack both ways with PyTorch and NumPy, the buffer protocol, Ep.Tensor(),
zeros(3, 4), randn, to(), pickling and copies, NumPy index tuples in
index_update and scatter_add.

The lifetime tests free either side first and read the other: they run
under AddressSanitizer in the sanitizer build of the suite
(tests/python/meson.build preloads it), where a read of freed memory
aborts.
"""

import copy
import gc
import pickle
import subprocess
import sys

import numpy as np
import pytest
import torch
from conftest import Ep, GLib, assert_ep_error

OPENCL = [d for d in Ep.list_devices() if d.get_kind() == "opencl"]
needs_opencl = pytest.mark.skipif(not OPENCL, reason="no OpenCL device")

DTYPES = ["float32", "float64", "int32", "int64"]


def arange(shape, dtype="float32"):
    return np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)


def read(a):
    """The elements of a contiguous array (or PyTorch tensor) read by
    memcpy: NumPy and PyTorch are not built with AddressSanitizer, but
    memcpy is intercepted, so under ASan a read of freed (or of cached,
    poisoned) memory aborts the test."""
    a = a.numpy() if isinstance(a, torch.Tensor) else a
    assert a.flags.c_contiguous
    return np.frombuffer(a.tobytes(), a.dtype).reshape(a.shape)


# numpy() and __array_interface__: read-only views of the CPU buffer

def test_numpy_is_a_read_only_view():
    t = Ep.astensor(arange((3, 4)))
    a = t.numpy()
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a[0, 0] = 1.0
    np.testing.assert_array_equal(a, arange((3, 4)))
    # the same buffer each time: no copy
    assert np.shares_memory(a, t.numpy())


def test_numpy_view_cannot_be_made_writable():
    a = Ep.astensor([1.0, 2.0]).numpy()
    with pytest.raises(ValueError):
        a.flags.writeable = True


@pytest.mark.parametrize("dtype", DTYPES + ["bool"])
def test_numpy_view_of_every_dtype(dtype):
    source = (arange((2, 3)) % 2).astype(dtype)
    a = Ep.astensor(source).numpy()
    assert a.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(a, source)


def test_numpy_of_a_strided_view_keeps_its_strides():
    t = Ep.astensor(arange((3, 4)))
    a = t.T.numpy()
    np.testing.assert_array_equal(a, arange((3, 4)).T)
    assert a.strides == (4, 16)
    assert np.shares_memory(a, t.numpy())


def test_numpy_of_a_slice_with_an_offset_is_a_view():
    t = Ep.astensor(arange((4, 5)))
    a = t[1:3, 2:].numpy()
    np.testing.assert_array_equal(a, arange((4, 5))[1:3, 2:])
    assert np.shares_memory(a, t.numpy())


def test_numpy_of_negative_strides_is_a_copy():
    t = Ep.astensor(arange((6,)))
    a = t[::-1].numpy()
    np.testing.assert_array_equal(a, arange((6,))[::-1])
    assert not np.shares_memory(a, t.numpy())
    assert not a.flags.writeable


def test_numpy_of_a_broadcast_view():
    t = Ep.astensor([1.0, 2.0, 3.0]).broadcast_to(4, 3)
    a = t.numpy()
    np.testing.assert_array_equal(a, np.broadcast_to([1.0, 2.0, 3.0], (4, 3)))
    assert a.strides == (0, 4)


def test_numpy_of_empty_and_scalar_tensors():
    assert Ep.zeros(0, 3).numpy().shape == (0, 3)
    s = Ep.astensor(2.5).numpy()
    assert s.shape == () and s == 2.5


def test_asarray_goes_through_the_array_interface():
    t = Ep.astensor(arange((2, 3)))
    interface = t.__array_interface__
    assert interface["data"][1] is True       # read-only
    assert interface["shape"] == (2, 3)
    a = np.asarray(t)
    assert not a.flags.writeable
    assert np.shares_memory(a, t.numpy())


def test_np_array_is_a_writable_copy():
    t = Ep.astensor([1.0, 2.0])
    a = np.array(t)
    a[0] = 5.0
    assert a.flags.writeable
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])


def test_numpy_view_outlives_the_released_tensor():
    t = Ep.astensor(arange((256,)))
    a = t.numpy()
    t.release()
    del t
    gc.collect()
    np.testing.assert_array_equal(read(a), arange((256,)))


def test_asarray_view_outlives_the_released_tensor():
    t = Ep.astensor(arange((256,)))
    a = np.asarray(t)
    t.release()
    assert t.is_released()
    np.testing.assert_array_equal(read(a), arange((256,)))


def test_numpy_of_a_released_tensor_is_an_error():
    t = Ep.astensor([1.0])
    t.release()
    message = assert_ep_error(Ep.Error.INVALID_ARGUMENT, t.numpy)
    assert message.startswith("numpy:")


def _sgd_step(v):
    with Ep.GradientTape() as tape:
        loss = (v.read() * v.read()).sum()
    grads = tape.gradient(loss, [v])
    Ep.Sgd(learning_rate=0.25).apply_gradients(grads, [v])


def _buffer_address(v):
    view = v.numpy()
    address = view.ctypes.data
    del view
    gc.collect()
    return address


def test_sgd_updates_a_variable_in_place_when_nothing_reads_it():
    # (the case the next test guards against)
    v = Ep.Variable(np.ones(64, np.float32))
    before = _buffer_address(v)
    _sgd_step(v)
    assert _buffer_address(v) == before
    np.testing.assert_allclose(v.numpy(), np.full(64, 0.5))


def test_numpy_view_of_a_variable_never_changes():
    # an optimizer updates a variable in place only when nothing else
    # holds its buffer: the view holds it, so the update makes a new one
    v = Ep.Variable(np.ones(64, np.float32))
    a = v.numpy()
    _sgd_step(v)
    np.testing.assert_array_equal(read(a), np.ones(64))
    np.testing.assert_allclose(v.numpy(), np.full(64, 0.5))


def test_torch_tensor_of_a_variable_never_changes():
    v = Ep.Variable(np.ones(64, np.float32))
    x = torch.from_dlpack(v.read())
    _sgd_step(v)
    np.testing.assert_array_equal(read(x), np.ones(64))
    np.testing.assert_allclose(v.numpy(), np.full(64, 0.5))


def test_numpy_of_a_variable_read_after_assign_add():
    v = Ep.Variable([1.0, 2.0])
    before = v.numpy()
    v.assign_add([1.0, 1.0])
    np.testing.assert_array_equal(before, [1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])


@needs_opencl
def test_numpy_of_an_opencl_tensor_is_a_read_only_copy():
    t = Ep.astensor(arange((2, 3))).to("opencl:0")
    a = t.numpy()
    np.testing.assert_array_equal(a, arange((2, 3)))
    assert not a.flags.writeable
    assert not hasattr(t, "__array_interface__")
    np.testing.assert_array_equal(np.asarray(t), arange((2, 3)))


# the buffer protocol: PEP 688 (Python 3.12) called by hand here

def test_buffer_is_a_read_only_memoryview():
    t = Ep.astensor(arange((2, 3)))
    view = t.__buffer__(0)
    assert view.readonly
    assert view.shape == (2, 3) and view.format == "f"
    assert view.tolist() == arange((2, 3)).tolist()
    t.__release_buffer__(view)
    with pytest.raises(ValueError):
        view.tolist()           # released


def test_writable_buffer_is_refused():
    with pytest.raises(BufferError):
        Ep.astensor([1.0]).__buffer__(1)       # PyBUF_WRITABLE


def test_memoryview_of_numpy_works_on_every_python():
    view = memoryview(Ep.astensor([1, 2, 3]).numpy())
    assert view.readonly and view.tolist() == [1, 2, 3]


# DLPack with PyTorch and NumPy

@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_from_dlpack_shares_memory(dtype):
    t = Ep.astensor(arange((3, 4), dtype))
    x = torch.from_dlpack(t)
    assert x.dtype == getattr(torch, dtype)
    np.testing.assert_array_equal(x.numpy(), arange((3, 4), dtype))
    assert x.data_ptr() == t.numpy().ctypes.data


def test_torch_from_dlpack_of_a_transposed_view():
    t = Ep.astensor(arange((3, 4)))
    x = torch.from_dlpack(t.T)
    assert x.stride() == (1, 4)
    np.testing.assert_array_equal(x.numpy(), arange((3, 4)).T)


def test_torch_from_dlpack_of_negative_strides_copies():
    x = torch.from_dlpack(Ep.astensor(arange((5,)))[::-1])
    np.testing.assert_array_equal(x.numpy(), arange((5,))[::-1])


def test_numpy_from_dlpack():
    t = Ep.astensor(arange((2, 2), "int64"))
    a = np.from_dlpack(t)
    np.testing.assert_array_equal(a, arange((2, 2), "int64"))
    assert np.shares_memory(a, t.numpy())


def test_dlpack_device():
    assert Ep.astensor([1.0]).__dlpack_device__() == (1, 0)


def test_dlpack_copy_does_not_share():
    t = Ep.astensor([1.0, 2.0])
    x = torch.from_dlpack(_Capsule(t.__dlpack__(copy=True)))
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])
    assert x.data_ptr() != t.numpy().ctypes.data


def test_dlpack_refuses_a_stream_and_other_devices():
    t = Ep.astensor([1.0])
    with pytest.raises(BufferError):
        t.__dlpack__(stream=1)
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0))


def test_bool_tensor_export_is_a_clear_error():
    # NumPy 1.24, which makes the capsule, and PyTorch 1.13 have no DLPack bool
    with pytest.raises(BufferError, match="bool"):
        Ep.astensor([True]).__dlpack__()


@needs_opencl
def test_dlpack_of_an_opencl_tensor_names_to_cpu():
    t = Ep.astensor([1.0]).to("opencl:0")
    assert t.__dlpack_device__() == (4, 0)
    message = assert_ep_error(Ep.Error.DEVICE, t.__dlpack__)
    assert '.to("cpu")' in message


def test_torch_tensor_outlives_the_ep_tensor():
    t = Ep.astensor(arange((1024,)))
    x = torch.from_dlpack(t)
    t.release()
    del t
    gc.collect()
    np.testing.assert_array_equal(read(x), arange((1024,)))


def test_torch_tensor_freed_first():
    t = Ep.astensor(arange((1024,)))
    x = torch.from_dlpack(t)
    del x
    gc.collect()
    np.testing.assert_array_equal(read(t.numpy()), arange((1024,)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_from_dlpack_of_torch_shares_memory(dtype):
    x = torch.arange(12).reshape(3, 4).to(getattr(torch, dtype))
    t = Ep.from_dlpack(x)
    assert Ep.dtype_get_name(t.dtype) == dtype
    np.testing.assert_array_equal(t.numpy(), x.numpy())
    assert t.numpy().ctypes.data == x.data_ptr()


def test_from_dlpack_of_a_torch_view_with_strides_and_offset():
    base = torch.arange(20.0).reshape(4, 5)
    view = base[1:, 1::2].t()
    t = Ep.from_dlpack(view)
    assert t.shape == (2, 3)
    np.testing.assert_array_equal(t.numpy(), view.numpy())
    assert not t.is_contiguous()
    np.testing.assert_array_equal((t * 2).numpy(), view.numpy() * 2)


def test_from_dlpack_of_a_torch_expanded_view():
    x = torch.arange(3.0).expand(2, 3)
    t = Ep.from_dlpack(x)
    np.testing.assert_array_equal(t.sum(axis=0).numpy(), [0.0, 2.0, 4.0])


def test_from_dlpack_of_numpy():
    a = arange((2, 3), "float64")
    t = Ep.from_dlpack(a)
    np.testing.assert_array_equal(t.numpy(), a)
    assert np.shares_memory(t.numpy(), a)


def test_ep_tensor_outlives_the_torch_tensor():
    x = torch.arange(1024.0)
    t = Ep.from_dlpack(x)
    del x
    gc.collect()
    assert t.sum().item() == sum(range(1024))


def test_ep_tensor_outlives_the_numpy_array():
    a = arange((1024,), "float64")
    t = Ep.from_dlpack(a)
    del a
    gc.collect()
    assert t.sum().item() == sum(range(1024))


def test_views_of_an_imported_tensor_keep_the_memory():
    x = torch.arange(1024.0)
    view = Ep.from_dlpack(x)[10:20]
    del x
    gc.collect()
    np.testing.assert_array_equal(read(view.numpy()), np.arange(10.0, 20.0))


def test_round_trip_ep_torch_ep():
    t = Ep.astensor(arange((2, 3)))
    back = Ep.from_dlpack(torch.from_dlpack(t))
    np.testing.assert_array_equal(back.numpy(), arange((2, 3)))
    assert back.shares_storage(t) is False      # another storage object...
    assert back.numpy().ctypes.data == t.numpy().ctypes.data   # ...on the same memory


def test_from_dlpack_of_a_tensor_is_a_new_object_on_the_same_data():
    t = Ep.astensor([1.0, 2.0])
    u = Ep.from_dlpack(t)
    assert u is not t and u.shares_storage(t)


def test_from_dlpack_of_an_unsupported_dtype():
    message = assert_ep_error(Ep.Error.DTYPE, Ep.from_dlpack, np.zeros(3, np.uint16))
    assert message.startswith("from_dlpack:") and "uint16" in message


def test_from_dlpack_of_a_used_capsule():
    capsule = torch.arange(3.0).__dlpack__()
    Ep.from_dlpack(capsule)
    with pytest.raises(ValueError):
        Ep.from_dlpack(capsule)


def test_from_dlpack_of_a_refused_capsule_frees_it():
    # the capsule was not taken over: its own destructor frees the data
    capsule = np.zeros(3, np.complex64).__dlpack__()
    assert_ep_error(Ep.Error.DTYPE, Ep.from_dlpack, capsule)
    del capsule
    gc.collect()


def test_from_dlpack_of_something_else():
    with pytest.raises(TypeError):
        Ep.from_dlpack([1.0, 2.0])


def test_from_dlpack_of_another_device():
    class OnCuda:
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None):
            raise AssertionError("not called")

    message = assert_ep_error(Ep.Error.DEVICE, Ep.from_dlpack, OnCuda())
    assert "CPU" in message


class _Capsule:
    """An object whose __dlpack__ gives a capsule made beforehand."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


# constructors

def test_tensor_class_takes_data():
    t = Ep.Tensor([[1, 2], [3, 4]])
    assert isinstance(t, Ep.Tensor)
    assert t.dtype == Ep.DType.INT64
    np.testing.assert_array_equal(t.numpy(), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(Ep.Tensor(np.eye(2, dtype=np.float32)).numpy(), np.eye(2))
    assert Ep.Tensor(2.5).item() == 2.5


def test_tensor_class_without_data_is_the_bare_object():
    t = Ep.Tensor()
    assert t.is_released()


def test_tensor_function():
    t = Ep.tensor([1, 2], dtype="float64", device="cpu")
    assert t.dtype == Ep.DType.FLOAT64
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(Ep.tensor(torch.arange(3)).numpy(), [0, 1, 2])


@pytest.mark.parametrize("make,value", [(Ep.zeros, 0.0), (Ep.ones, 1.0), (Ep.empty, 0.0)])
def test_shapes_as_varargs_and_tuples(make, value):
    for t in (make(3, 4), make((3, 4)), make([3, 4])):
        assert t.shape == (3, 4) and t.dtype == Ep.DType.FLOAT32
        np.testing.assert_array_equal(t.numpy(), np.full((3, 4), value))
    assert make(5).shape == (5,)
    assert make(2, 2, dtype="int64").dtype == Ep.DType.INT64
    assert make((2, 2), "int32").dtype == Ep.DType.INT32


def test_shape_is_needed():
    with pytest.raises(TypeError):
        Ep.zeros()


def test_negative_shape_is_an_error():
    assert_ep_error(Ep.Error.SHAPE, Ep.zeros, 2, -1)


def test_randn_and_rand_are_seeded():
    Ep.set_seed(7)
    a = Ep.randn(200, 50)
    b = Ep.rand(200, 50)
    Ep.set_seed(7)
    np.testing.assert_array_equal(Ep.randn((200, 50)).numpy(), a.numpy())
    assert a.shape == (200, 50) and b.shape == (200, 50)
    assert abs(a.numpy().mean()) < 0.05 and abs(a.numpy().std() - 1.0) < 0.05
    assert b.numpy().min() >= 0.0 and b.numpy().max() < 1.0
    assert abs(b.numpy().mean() - 0.5) < 0.02
    assert Ep.randn(3, dtype="float64").dtype == Ep.DType.FLOAT64


def test_to_dtype_and_device():
    t = Ep.astensor([1.5, 2.5])
    assert t.to("float64").dtype == Ep.DType.FLOAT64
    assert t.to(np.int32).dtype == Ep.DType.INT32
    moved = t.to("cpu")
    assert moved is not t and moved.device.get_kind() == "cpu"
    assert t.to(Ep.Device.get("cpu"), "int64").dtype == Ep.DType.INT64
    with pytest.raises(TypeError):
        t.to("float64", "int64")
    assert_ep_error(Ep.Error.DEVICE, t.to, "nodevice:3")


@needs_opencl
def test_to_opencl_and_back():
    t = Ep.astensor([1.0, 2.0]).to("opencl:0")
    assert t.device.get_name() == "opencl:0"
    np.testing.assert_array_equal(t.to("cpu").numpy(), [1.0, 2.0])


def test_std_and_var():
    a = arange((3, 4))
    t = Ep.astensor(a)
    np.testing.assert_allclose(t.std().item(), a.std(), rtol=1e-6)
    np.testing.assert_allclose(t.var(axis=0).numpy(), a.var(axis=0), rtol=1e-6)


# pickling and copies

@pytest.mark.parametrize("dtype", DTYPES + ["bool"])
def test_pickle_round_trip(dtype):
    source = (arange((2, 3)) % 3).astype(dtype)
    t = pickle.loads(pickle.dumps(Ep.astensor(source)))
    assert Ep.dtype_get_name(t.dtype) == dtype
    np.testing.assert_array_equal(t.numpy(), source)


def test_pickle_of_a_view():
    t = Ep.astensor(arange((3, 4))).T[1:]
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(t)).numpy(), arange((3, 4)).T[1:])


def test_unpickle_in_a_new_process():
    data = pickle.dumps([Ep.astensor([1.0, 2.0]), Ep.Variable([3.0], name="w")])
    script = ("import pickle, sys, gi\n"
              "gi.require_version('Ep', '1.0')\n"
              "t, v = pickle.loads(sys.stdin.buffer.read())\n"
              "print(t.numpy().tolist(), v.numpy().tolist(), v.name, type(v).__name__)\n")
    out = subprocess.run([sys.executable, "-c", script], input=data, capture_output=True, check=True)
    assert out.stdout.decode().split() == ["[1.0,", "2.0]", "[3.0]", "w", "Variable"]


def test_pickle_of_a_released_tensor_is_an_error():
    t = Ep.astensor([1.0])
    t.release()
    with pytest.raises(GLib.Error):
        pickle.dumps(t)


def test_copies_of_a_tensor_are_the_tensor():
    t = Ep.astensor([1.0])
    assert copy.copy(t) is t
    assert copy.deepcopy(t) is t
    assert copy.deepcopy([t, t])[0] is t


def test_deepcopy_of_a_variable_is_a_new_variable():
    v = Ep.Variable([1.0, 2.0], name="w", trainable=False)
    w = copy.deepcopy(v)
    assert isinstance(w, Ep.Variable) and w is not v
    assert w.name == "w" and w.trainable is False
    w.assign_add([1.0, 1.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(w.numpy(), [2.0, 3.0])


def test_copy_of_a_variable_is_a_new_variable():
    v = Ep.Variable([1.0])
    w = copy.copy(v)
    assert isinstance(w, Ep.Variable) and w is not v
    w.assign([5.0])
    np.testing.assert_array_equal(v.numpy(), [1.0])


def test_pickle_of_a_variable():
    v = pickle.loads(pickle.dumps(Ep.Variable([1.0, 2.0], name="b", trainable=False)))
    assert isinstance(v, Ep.Variable) and v.name == "b" and v.trainable is False
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


# NumPy index tuples in index_update and scatter_add

KEYS = [
    (slice(None), 1),
    (slice(1, None), slice(None, None, 2)),
    (Ellipsis, 0),
    (1,),
    ([0, 2], slice(1, 3)),
    (np.array([True, False, True]),),
    slice(None, None, -1),
    (None, 0, 2),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_index_update_with_a_numpy_key(key):
    a = arange((3, 4))
    expected = a.copy()
    expected[key] = 66.0
    np.testing.assert_array_equal(Ep.astensor(a).index_update(key, 66.0).numpy(), expected)


def test_index_update_with_a_numpy_key_and_values():
    a = arange((3, 4))
    expected = a.copy()
    expected[:, 1:3] = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    t = Ep.astensor(a).index_update((slice(None), slice(1, 3)), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_array_equal(t.numpy(), expected)


def test_scatter_add_with_a_numpy_key_adds_repeats():
    a = arange((3, 4))
    expected = a.copy()
    np.add.at(expected, ([0, 0, 2], [1, 1, 3]), 5.0)
    np.testing.assert_array_equal(Ep.astensor(a).scatter_add(([0, 0, 2], [1, 1, 3]), 5.0).numpy(), expected)


def test_index_update_with_indices_along_an_axis_is_unchanged():
    a = arange((3, 4))
    expected = a.copy()
    expected[:, [0, 2]] = 0.0
    t = Ep.astensor(a).index_update([0, 2], Ep.zeros(3, 2), axis=1)
    np.testing.assert_array_equal(t.numpy(), expected)


def test_index_update_with_a_key_and_an_axis_is_an_error():
    with pytest.raises(TypeError):
        Ep.zeros(2, 2).index_update((slice(None), 1), 1.0, axis=1)


def test_index_update_with_a_key_out_of_range():
    with pytest.raises(IndexError):
        Ep.zeros(2, 2).index_update((slice(None), 5), 1.0)


def test_index_update_with_a_key_has_gradients():
    x = Ep.astensor(arange((2, 3)))
    with Ep.GradientTape() as tape:
        tape.watch(x)
        y = (x.index_update((slice(None), 1), 66.0) * 2.0).sum()
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[2.0, 0.0, 2.0], [2.0, 0.0, 2.0]])


# tapes as context managers stop on exceptions (docs/autodiff.md)

def test_tape_stops_when_the_block_raises():
    x = Ep.astensor([1.0, 2.0, 3.0])
    tape = Ep.GradientTape(persistent=True)
    with pytest.raises(RuntimeError):
        with tape:
            tape.watch(x)
            y = (x * x).sum()
            raise RuntimeError("bad batch")
    assert not tape.is_active()
    z = (x * 3.0).sum()
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(tape.gradient(z, x).numpy(), [0.0, 0.0, 0.0])


def test_numpy_positional_dtype_stays():
    assert Ep.zeros(3, "int64").dtype == Ep.DType.INT64
    assert Ep.ones((2, 2), np.float64).shape == (2, 2)
    assert Ep.zeros([2, 2], Ep.DType.INT32).dtype == Ep.DType.INT32


def test_array_interface_view_survives_a_later_access_and_release():
    t = Ep.astensor(arange((512,)))
    first = np.asarray(t)
    second = np.asarray(t)                 # the same export, not a new one
    t.release()
    gc.collect()
    np.testing.assert_array_equal(read(first), arange((512,)))
    np.testing.assert_array_equal(read(second), arange((512,)))
    with pytest.raises(GLib.Error):
        np.asarray(t)


def test_from_dlpack_of_a_read_only_array_copies():
    a = arange((3,))
    a.flags.writeable = False
    t = Ep.from_dlpack(a)
    np.testing.assert_array_equal(t.numpy(), a)
    np.testing.assert_array_equal(Ep.from_dlpack(Ep.arange(3.0).numpy()).numpy(), [0.0, 1.0, 2.0])


def test_torch_from_dlpack_of_a_variable_keeps_its_value():
    v = Ep.Variable(np.ones(64, np.float32))
    x = torch.from_dlpack(v)
    v.assign(np.zeros(64, np.float32))
    gc.collect()
    np.testing.assert_array_equal(read(x), np.ones(64))
    assert v.__dlpack_device__() == (1, 0)


def test_dlpack_copy_false_refuses_a_view_with_negative_strides():
    t = Ep.arange(6.0)[::-1]
    with pytest.raises(BufferError):
        t.__dlpack__(copy=False)
    assert np.from_dlpack(t).tolist() == [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]


# uint8 (image pixels): NumPy and PyTorch both ways through DLPack

def test_uint8_from_numpy_and_back():
    a = np.array([[0, 1, 255], [128, 7, 200]], np.uint8)
    t = Ep.astensor(a)
    assert t.dtype == Ep.uint8 and t.dtype == np.uint8 and str(t.dtype) == "uint8"
    back = np.from_dlpack(t)
    assert back.dtype == np.uint8
    np.testing.assert_array_equal(back, a)
    assert np.shares_memory(back, t.numpy())


def test_uint8_from_torch_dlpack_and_to_torch():
    x = torch.tensor([[0, 1], [254, 255]], dtype=torch.uint8)
    t = Ep.from_dlpack(x)
    assert t.dtype == Ep.uint8
    y = torch.from_dlpack(t)
    assert y.dtype == torch.uint8
    assert torch.equal(y, x)


def test_uint8_casts_match_numpy_in_range_and_wrap_out_of_range():
    f = np.array([0.0, 1.9, 254.5, 255.0, 256.0, -1.0, 300.7], np.float32)
    np.testing.assert_array_equal(Ep.astensor(f).astype(Ep.uint8).numpy(),
                                  np.array([0, 1, 254, 255, 0, 255, 44], np.uint8))
    i = np.array([-1, 256, 511, 3], np.int64)
    np.testing.assert_array_equal(Ep.astensor(i).astype("uint8").numpy(), i.astype(np.uint8))
    u = np.array([0, 7, 255], np.uint8)
    for dtype in ("float32", "float64", "int32", "int64", "bool"):
        np.testing.assert_array_equal(Ep.astensor(u).astype(dtype).numpy(), u.astype(dtype))


def test_uint8_computing_ops_ask_for_a_cast():
    t = Ep.astensor(np.array([1, 2], np.uint8))
    with pytest.raises(Ep.DTypeError, match="exp: does not take a tensor of type uint8"):
        t.exp()
    np.testing.assert_array_equal((t.astype(Ep.float32) / 255).numpy(),
                                  np.array([1, 2], np.float32) / np.float32(255))


# int8 and int16: NumPy and PyTorch both ways through DLPack, Ep.int8 and
# Ep.int16 as dtypes, casts wrapping as NumPy's

@pytest.mark.parametrize("dtype,torch_dtype", [(np.int8, torch.int8), (np.int16, torch.int16)])
def test_signed_narrow_numpy_and_torch_dlpack(dtype, torch_dtype):
    info = np.iinfo(dtype)
    a = np.array([[info.min, -1, 0], [1, 7, info.max]], dtype)
    t = Ep.astensor(a)
    name = np.dtype(dtype).name
    assert t.dtype == getattr(Ep, name) and t.dtype == dtype and str(t.dtype) == name
    back = np.from_dlpack(t)
    assert back.dtype == dtype
    np.testing.assert_array_equal(back, a)
    assert np.shares_memory(back, t.numpy())
    x = torch.from_numpy(a.copy())
    assert x.dtype == torch_dtype
    u = Ep.from_dlpack(x)
    assert u.dtype == dtype
    y = torch.from_dlpack(u)
    assert y.dtype == torch_dtype and torch.equal(y, x)


def test_signed_narrow_casts_and_names():
    f = np.array([0.0, -1.9, 127.0, 128.0, -129.0, 300.7, 40000.0], np.float64)
    np.testing.assert_array_equal(Ep.astensor(f).astype(Ep.int8).numpy(), f.astype(np.int8))
    np.testing.assert_array_equal(Ep.astensor(f).astype("int16").numpy(), f.astype(np.int16))
    assert Ep.zeros((2,), np.int8).dtype == Ep.int8
    assert Ep.ones((2,), "int16").numpy().dtype == np.int16
    # int8 with uint8 promotes to int16, as in NumPy
    s = Ep.astensor(np.array([-1], np.int8)) + Ep.astensor(np.array([255], np.uint8))
    assert s.dtype == Ep.int16 and s.numpy().tolist() == [254]
    with pytest.raises(Ep.DTypeError, match="exp: does not take a tensor of type int8"):
        Ep.astensor(np.array([1], np.int8)).exp()
