// data.js: bulk data in and out as typed arrays through GLib.Bytes, errors
// as exceptions, and releasing large tensors early.
//
//   meson devenv -C _build gjs -m examples/gjs/data.js
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';
import GLib from 'gi://GLib';

// In: a Float32Array's bytes, one copy.
const values = Float32Array.from({length: 12}, (_, i) => i / 2);
const x = Ep.Tensor.new_from_bytes(new GLib.Bytes(new Uint8Array(values.buffer)),
    Ep.DType.FLOAT32, [3, 4]);
print(x.to_repr());

// Work: column means, broadcast back.
const centered = x.sub(x.mean([0], true));
print(centered.to_string());

// Out: the bytes of the result as a Float32Array view.
const bytes = centered.to_bytes().toArray();
const out = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
print(`first row: ${Array.from(out.slice(0, 4)).join(', ')}`);

// Errors are GLib.Error in the Ep.Error domain.
try {
    x.matmul(x);
} catch (e) {
    if (!e.matches(Ep.Error, Ep.Error.SHAPE))
        throw e;
    print(`caught: ${e.message}`);
}

// A large intermediate: give its memory back now instead of at the next
// garbage collection.
const big = Ep.ones([1024, 1024], Ep.DType.FLOAT64);
print(`sum of a 8 MiB tensor: ${big.sum(null, false).item_double()}`);
big.release();
