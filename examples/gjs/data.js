// data.js: bulk data in and out as typed arrays, errors as exceptions,
// and releasing large tensors early.
//
//   meson devenv -C _build gjs -m examples/gjs/data.js
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';
await import('resource:///org/gnome/EagerGlib/js/ep.js');

// In: a Float32Array, one copy (into a GLib.Bytes the tensor keeps).
const values = Float32Array.from({length: 12}, (_, i) => i / 2);
const x = Ep.tensor(values, [3, 4]);
print(x.to_repr());

// Work: column means, broadcast back.
const centered = x.sub(x.mean(0, true));
print(centered);

// Out: a Float32Array view of the result's memory, no copy.
const out = centered.toTypedArray();
print(`first row: ${out.subarray(0, 4).join(', ')}`);

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
const big = Ep.ones([1024, 1024], 'float64');
print(`sum of a 8 MiB tensor: ${big.sum().item_double()}`);
big.release();

// Many small steps: Ep.tidy gives back what each makes, a tape records in
// a function, and Ep.memory() tells what is alive (TensorFlow.js's names).
const w = Ep.Variable.new(Ep.zeros([4, 1]), 'w');
const target = Ep.tensor([[1], [2], [3]]);
const tape = Ep.GradientTape.new(false);
for (let step = 0; step < 100; step++) {
    Ep.tidy(() => {
        const loss = tape.record(() => x.matmul(w).sub(target).square().mean());
        const [g] = tape.gradient([loss], [w], null);
        w.assign_sub(g.mul(0.01));
        tape.reset();
    });
}
const {numBytes, numTensors, devices} = Ep.memory();
print(`alive: ${numTensors} tensors, ${numBytes} bytes (cpu:0: ${devices['cpu:0'].numBytes})`);
