# test_gtk_image.py: eager-glib-gtk from Python, NumPy arrays in and out
# through textures and pixbufs (no display needed).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gi
import numpy as np
import pytest

gi.require_version('Ep', '1.0')
gi.require_version('EpGtk', '1.0')
gi.require_version('Gdk', '4.0')
gi.require_version('GdkPixbuf', '2.0')
from gi.repository import Ep, EpGtk, Gdk, GdkPixbuf, GLib  # noqa: E402

DTYPES = {np.uint8: Ep.DType.UINT8, np.float32: Ep.DType.FLOAT32, np.float64: Ep.DType.FLOAT64}


def tensor(a):
    return Ep.Tensor.new_from_bytes(GLib.Bytes(np.ascontiguousarray(a).tobytes()),
                                    DTYPES[a.dtype.type], list(a.shape))


def array(t):
    np_dtype = {v: k for k, v in DTYPES.items()}[t.get_dtype()]
    return np.frombuffer(t.to_bytes().get_data(), np_dtype).reshape(t.get_shape())


def texture_rgba(texture):
    """The pixels of a texture read by GDK itself (a pixbuf of it)"""
    return pixbuf_array(Gdk.pixbuf_get_from_texture(texture))


def pixbuf_array(pixbuf):
    h, w, c, stride = (pixbuf.get_height(), pixbuf.get_width(), pixbuf.get_n_channels(),
                       pixbuf.get_rowstride())
    raw = np.frombuffer(pixbuf.read_pixel_bytes().get_data(), np.uint8)
    raw = np.concatenate([raw, np.zeros(h * stride - raw.size, np.uint8)])
    return raw.reshape(h, stride)[:, :w * c].reshape(h, w, c)


@pytest.mark.parametrize('channels', [3, 4])
@pytest.mark.parametrize('np_dtype', [np.uint8, np.float32, np.float64])
def test_round_trip(channels, np_dtype):
    rng = np.random.default_rng(channels)
    a8 = rng.integers(0, 256, (17, 23, channels), dtype=np.uint8)
    if channels == 4:
        a8[..., 3] = 255
    a = a8 if np_dtype is np.uint8 else (a8 / 255.0).astype(np_dtype)
    texture = EpGtk.tensor_to_texture(tensor(a))
    assert (texture.get_width(), texture.get_height()) == (23, 17)
    back = array(EpGtk.tensor_new_from_texture(texture, DTYPES[np_dtype]))
    assert back.shape == (17, 23, 4)
    assert back.dtype == np_dtype
    np.testing.assert_allclose(back[..., :channels], a, atol=1e-6)


def test_texture_pixels_read_by_gdk():
    a = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3) * 13
    texture = EpGtk.tensor_to_texture(tensor(a))
    np.testing.assert_array_equal(texture_rgba(texture)[..., :3], a)


def test_gray_float_clamped_and_nan():
    a = np.array([[0.0, 1.0, 0.5], [-1.0, 2.0, np.nan]], np.float32)
    texture = EpGtk.tensor_to_texture(tensor(a))
    got = array(EpGtk.tensor_new_from_texture(texture, Ep.DType.UINT8))
    expected = np.array([[0, 255, 128], [0, 255, 0]], np.uint8)
    for c in range(3):
        np.testing.assert_array_equal(got[..., c], expected)
    np.testing.assert_array_equal(got[..., 3], 255)


def test_pixbuf_with_row_padding():
    pixbuf = GdkPixbuf.Pixbuf.new(GdkPixbuf.Colorspace.RGB, False, 8, 7, 4)
    assert pixbuf.get_rowstride() > 7 * 3
    pixbuf.fill(0x102030ff)
    t = EpGtk.tensor_new_from_pixbuf(pixbuf, Ep.DType.FLOAT32)
    got = array(t)
    assert got.shape == (4, 7, 3)
    np.testing.assert_allclose(got, np.broadcast_to(np.array([16, 32, 48]) / 255, (4, 7, 3)),
                               rtol=1e-6)


def test_pixbuf_rgba_from_bytes():
    a = np.random.default_rng(0).integers(0, 256, (5, 6, 4), dtype=np.uint8)
    pixbuf = GdkPixbuf.Pixbuf.new_from_bytes(GLib.Bytes(a.tobytes()), GdkPixbuf.Colorspace.RGB,
                                             True, 8, 6, 5, 6 * 4)
    np.testing.assert_array_equal(array(EpGtk.tensor_new_from_pixbuf(pixbuf, Ep.DType.UINT8)), a)


@pytest.mark.parametrize('shape', [(4,), (2, 2, 2), (2, 2, 5), (1, 2, 2, 3), (0, 3, 3), (3, 0)])
def test_bad_shapes(shape):
    t = Ep.zeros(list(shape), Ep.DType.FLOAT32)
    with pytest.raises(GLib.Error) as info:
        EpGtk.tensor_to_texture(t)
    assert (info.value.domain, info.value.code) == ('ep-error', int(Ep.Error.SHAPE))
    assert info.value.message.startswith('to_texture: ')


def test_bad_dtypes():
    t = Ep.zeros([2, 2, 3], Ep.DType.INT32)
    with pytest.raises(GLib.Error) as info:
        EpGtk.tensor_to_texture(t)
    assert (info.value.domain, info.value.code) == ('ep-error', int(Ep.Error.DTYPE))
    texture = EpGtk.tensor_to_texture(tensor(np.zeros((1, 1, 3), np.uint8)))
    with pytest.raises(GLib.Error) as info:
        EpGtk.tensor_new_from_texture(texture, Ep.DType.INT64)
    assert (info.value.domain, info.value.code) == ('ep-error', int(Ep.Error.DTYPE))
