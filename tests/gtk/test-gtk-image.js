// test-gtk-image.js: eager-glib-gtk from gjs: a texture from a tensor and
// back, and the errors (no display needed).
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import GLib from 'gi://GLib';
import Ep from 'gi://Ep?version=1.0';
import EpGtk from 'gi://EpGtk?version=1.0';
import GdkPixbuf from 'gi://GdkPixbuf?version=2.0';

import {test, run, assert, assertEqual, assertClose, assertThrowsEp} from '../gjs/harness.js';

const bytesOf = t => t.to_bytes().toArray();

test('an RGB uint8 tensor to a texture and back as RGBA', () => {
    const pixels = Uint8Array.from({length: 2 * 3 * 3}, (_, i) => i * 13);
    const t = Ep.Tensor.new_from_bytes(new GLib.Bytes(pixels), Ep.DType.UINT8, [2, 3, 3]);
    const texture = EpGtk.tensor_to_texture(t);
    assertEqual(texture.get_width(), 3, 'width');
    assertEqual(texture.get_height(), 2, 'height');
    const back = EpGtk.tensor_new_from_texture(texture, Ep.DType.UINT8);
    assertEqual(JSON.stringify(back.get_shape()), '[2,3,4]', 'shape');
    const got = bytesOf(back);
    for (let p = 0; p < 6; p++) {
        for (let c = 0; c < 3; c++)
            assertEqual(got[p * 4 + c], pixels[p * 3 + c], `pixel ${p} channel ${c}`);
        assertEqual(got[p * 4 + 3], 255, `alpha ${p}`);
    }
});

test('float32 in [0, 1] to a texture and back', () => {
    const t = Ep.Tensor.new_from_doubles([0, 0.5, 1, 2], [2, 2], Ep.DType.FLOAT32);
    const back = EpGtk.tensor_new_from_texture(EpGtk.tensor_to_texture(t), Ep.DType.FLOAT32);
    const got = new Float32Array(Uint8Array.from(bytesOf(back)).buffer);
    const expected = [0, 128 / 255, 1, 1];
    for (let p = 0; p < 4; p++)
        assertClose(got[p * 4], expected[p], 1e-6, `pixel ${p}`);
});

test('a pixbuf to a tensor', () => {
    const pixbuf = GdkPixbuf.Pixbuf.new(GdkPixbuf.Colorspace.RGB, true, 8, 3, 2);
    pixbuf.fill(0x11223344);
    const t = EpGtk.tensor_new_from_pixbuf(pixbuf, Ep.DType.UINT8);
    assertEqual(JSON.stringify(t.get_shape()), '[2,3,4]', 'shape');
    assertEqual(JSON.stringify(Array.from(bytesOf(t).slice(0, 4))), '[17,34,51,68]', 'first pixel');
});

test('other shapes and dtypes are errors', () => {
    assertThrowsEp(Ep, Ep.Error.SHAPE, () => EpGtk.tensor_to_texture(Ep.zeros([2, 2, 2], Ep.DType.FLOAT32)));
    assertThrowsEp(Ep, Ep.Error.DTYPE, () => EpGtk.tensor_to_texture(Ep.zeros([2, 2], Ep.DType.INT32)));
    const released = Ep.zeros([2, 2], Ep.DType.FLOAT32);
    released.release();
    assert(released.is_released(), 'released');
    assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => EpGtk.tensor_to_texture(released));
});

run();
