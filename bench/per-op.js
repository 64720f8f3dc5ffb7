// per-op.js: the per-op overhead of eager-glib from gjs, for bench/run
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// One add of two 4-element float32 tensors, the result dropped. Each
// result is a new wrapped GObject, which is most of the cost in gjs, and
// gjs before 1.85.1 makes each new wrapper search every wrapper not yet
// collected (bench/gjs-collector.js), so the figure depends on how often
// garbage is collected:
//
//   ep_gjs_overhead_add4              with a collection every N results
//                                     as bench/gjs-collector.js decides
//                                     (N about 2000), its time included:
//                                     what an op costs in a loop that
//                                     collects (100 cycles of N ops and a
//                                     collection, after one of warm-up)
//   ep_gjs_overhead_add4_uncollected  as this program measured it before:
//                                     11 × 20000 in a row and never a
//                                     collection (SpiderMonkey runs none
//                                     in 220 000 results), so each sample
//                                     costs more than the one before
import System from 'system';
import Ep from 'gi://Ep?version=1.0';

import {Collector, now} from './gjs-collector.js';

const a = Ep.Tensor.new_from_doubles([1, 2, 3, 4], [4], Ep.DType.FLOAT32);
const b = Ep.Tensor.new_from_doubles([1, 2, 3, 4], [4], Ep.DType.FLOAT32);
const inner = 20000;

function summary(times) {
    times.shift();  // warm-up
    times.sort((x, y) => x - y);
    return {best: times[0], median: times[Math.floor(times.length / 2)]};
}

// one sample per cycle: N results and the collection that ends it (a few
// ms, so that on a busy machine some samples run without a pause)
const collector = new Collector();
const collected = [];
System.gc();
for (let cycle = 0; cycle < 101; cycle++) {
    const n = collector.every;
    const t0 = now();
    for (let i = 0; i < n; i++) {
        a.add(b);
        collector.note();
    }
    collected.push((now() - t0) / n);
}

const uncollected = [];
System.gc();
for (let sample = 0; sample < 11; sample++) {
    const t0 = now();
    for (let i = 0; i < inner; i++)
        a.add(b);
    uncollected.push((now() - t0) / inner);
}

print(JSON.stringify({
    ep_gjs_overhead_add4: {...summary(collected), every: collector.every},
    ep_gjs_overhead_add4_uncollected: summary(uncollected),
}));
