// per-op.js: the per-op overhead of eager-glib from gjs, for bench/run
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// One add of two 4-element float32 tensors, the result dropped. Each
// result is a new wrapped GObject, which is most of the cost in gjs, and
// gjs before 1.85.1 makes each new wrapper search every wrapper not yet
// collected (the module ep.js, section "collection"), so the figure
// depends on how often garbage is collected:
//
//   ep_gjs_overhead_add4              through the module ep.js, which
//                                     collects every N results (N about
//                                     2000) on such a gjs, its time
//                                     included: what an op costs in a loop
//                                     (25 samples of 20 000 ops, after one
//                                     of warm-up)
//   ep_gjs_overhead_add4_uncollected  as this program measured it before
//                                     the module: the GI method, 11 ×
//                                     20000 in a row and never a
//                                     collection (SpiderMonkey runs none
//                                     in 220 000 results), so each sample
//                                     costs more than the one before
import System from 'system';
import Ep from 'gi://Ep?version=1.0';

const ep = await import('resource:///org/gnome/EagerGlib/js/ep.js');
const {collector, now} = ep;

const a = Ep.Tensor.new_from_doubles([1, 2, 3, 4], [4], Ep.DType.FLOAT32);
const b = Ep.Tensor.new_from_doubles([1, 2, 3, 4], [4], Ep.DType.FLOAT32);
const inner = 20000;

function summary(times) {
    times.shift();  // warm-up
    times.sort((x, y) => x - y);
    return {best: times[0], median: times[Math.floor(times.length / 2)]};
}

// samples of 20 000 ops through the module, each with the collections
// the module makes in it
const collected = [];
System.gc();
for (let sample = 0; sample < 26; sample++) {
    const t0 = now();
    for (let i = 0; i < inner; i++)
        a.add(b);
    collected.push((now() - t0) / inner);
}

// the GI method, as gjs calls it without the module
const add = ep.ops.add.wrappedGI;
const uncollected = [];
System.gc();
for (let sample = 0; sample < 11; sample++) {
    const t0 = now();
    for (let i = 0; i < inner; i++)
        add.call(a, b);
    uncollected.push((now() - t0) / inner);
}

print(JSON.stringify({
    ep_gjs_overhead_add4: {...summary(collected), every: collector.every,
        collections: collector.collections},
    ep_gjs_overhead_add4_uncollected: summary(uncollected),
}));
