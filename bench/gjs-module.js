// gjs-module.js: what the gjs module ep.js costs per call, and typed
// arrays in and out (docs/gjs.md, "What costs what")
//
//   meson devenv -C _build gjs -m bench/gjs-module.js
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Each call as gjs calls the C function (the GI function the module
// wraps) and as the module patches it, in turns in one process; a
// 4-element float32 add as bench/per-op.js. Prints one JSON object
// (seconds per call).
import GLib from 'gi://GLib';
import Ep from 'gi://Ep?version=1.0';
import System from 'system';

const inner = 5000;

function time(fn, n = inner, samples = 11) {
    const times = [];
    for (let sample = 0; sample < samples; sample++) {
        System.gc();
        const t0 = GLib.get_monotonic_time();
        for (let i = 0; i < n; i++)
            fn();
        times.push((GLib.get_monotonic_time() - t0) * 1e-6 / n);
    }
    times.shift();  // warm-up
    times.sort((x, y) => x - y);
    return {best: times[0], median: times[Math.floor(times.length / 2)]};
}

// pairs of [as gjs calls C, as the module calls], sampled in turns so
// that both see the same machine
function compare(name, plain, patched, n = inner) {
    const runs = {gi: [], module: []};
    for (let round = 0; round < 5; round++) {
        runs.gi.push(time(plain, n, 5));
        runs.module.push(time(patched, n, 5));
    }
    for (const [kind, list] of Object.entries(runs)) {
        result[`${kind}_${name}`] = {
            best: Math.min(...list.map(r => r.best)),
            median: list.map(r => r.median).sort((x, y) => x - y)[2],
        };
    }
}

const a = Ep.Tensor.new_from_doubles([1, 2, 3, 4], [4], Ep.DType.FLOAT32);
const b = Ep.Tensor.new_from_doubles([1, 2, 3, 4], [4], Ep.DType.FLOAT32);
const one = Ep.Tensor.new_weak_int(1);
const result = {};
const gi = {add: a.add, sum: a.sum, exp: a.exp};

const ep = await import('resource:///org/gnome/EagerGlib/js/ep.js');
if (ep.ops.add.wrappedGI !== gi.add)
    throw new Error('not the GI function');

compare('add', () => gi.add.call(a, b), () => a.add(b));
compare('add_scalar', () => gi.add.call(a, one), () => a.add(1));
compare('sum', () => gi.sum.call(a, null, false), () => a.sum());
compare('exp', () => gi.exp.call(a), () => a.exp());
compare('shape', () => a.get_shape(), () => a.shape, 100000);
compare('dtype', () => a.get_dtype(), () => a.dtype, 100000);

// 1M float32 values (4 MiB) in and out
const n = 1 << 20;
const values = Float32Array.from({length: n}, (_, i) => i);
const plain = Array.from(values);
const big = Ep.tensor(values);
result.in_tensor_typed_array_1m = time(() => Ep.tensor(values), 20, 6);
result.in_new_from_doubles_array_1m = time(() => Ep.Tensor.new_from_doubles(plain, [n], Ep.DType.FLOAT32), 2, 4);
result.in_tensor_nested_array_1m = time(() => Ep.tensor(plain), 2, 4);
result.out_to_typed_array_1m = time(() => big.toTypedArray(), 200, 6);
result.out_to_typed_array_copy_1m = time(() => big.toTypedArray({copy: true}), 20, 6);
result.out_array_sync_1m = time(() => big.arraySync(), 2, 4);
print(JSON.stringify(result, null, 1));
