// per-op.js: the per-op overhead of eager-glib from gjs, for bench/run
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// One add of two 4-element float32 tensors, the result dropped. Each
// result is a new wrapped GObject, which is most of the cost in gjs.
import GLib from 'gi://GLib';
import Ep from 'gi://Ep?version=1.0';

const a = Ep.Tensor.new_from_doubles([1, 2, 3, 4], [4], Ep.DType.FLOAT32);
const b = Ep.Tensor.new_from_doubles([1, 2, 3, 4], [4], Ep.DType.FLOAT32);
const inner = 20000;
const times = [];

for (let sample = 0; sample < 11; sample++) {
    const t0 = GLib.get_monotonic_time();
    for (let i = 0; i < inner; i++)
        a.add(b);
    times.push((GLib.get_monotonic_time() - t0) * 1e-6 / inner);
}
times.shift();  // warm-up
times.sort((x, y) => x - y);
print(JSON.stringify({
    ep_gjs_overhead_add4: {best: times[0], median: times[Math.floor(times.length / 2)]},
}));
