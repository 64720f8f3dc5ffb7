// gjs-wrapper-cost.js: where the per-op cost from gjs goes, for bench/run
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Usage: gjs -m gjs-wrapper-cost.js [--text]
//
// An op from gjs is a GI method call plus a new JS wrapper for the
// resulting GObject. gjs 1.69.1 to 1.85.0 (Debian 12 has 1.74) keeps every
// wrapper that the garbage collector has not yet swept in a vector, and
// asserts on each new wrapper, with a linear search of that vector, that
// it is not there yet (ObjectInstance::link() in gi/object.cpp; an
// unordered_set since gjs 1.85.1). A wrapper leaves the vector only when a
// collection sweeps it, and SpiderMonkey collects by the size of its own
// heap and of the memory declared to it, which a tensor's wrapper barely
// moves (about 50 bytes of heap and the 184 bytes of the EpTensor
// instance): without a collection, each op costs more than the one before.
//
// Each figure isolates one part, with a collection (System.gc()) just
// before it unless it says otherwise:
//
//   call_existing      a GI call returning an object that already has a
//                      wrapper (a.get_device()): the call alone
//   new_gobject        new GObject.Object(): a new wrapper for a bare GObject
//   add_fresh          a.add(b) on 4 elements, the first 2000 after a
//                      collection: call, op and a new wrapper
//   add_scan_per_1000  how much a.add(b) slows down per 1000 wrappers not
//                      yet collected (a line fitted through 25 batches of
//                      2000 ops in a row)
//   add_at_100k        a.add(b) once 100 000 results wait for collection
//                      (the fitted line; the order of a loop that has run
//                      for a while: SpiderMonkey's own first collection
//                      came after about 330 000 of them here)
//   gc_empty           one System.gc() with nothing to sweep
//   gc_per_dead        what each dead tensor wrapper adds to a collection
//                      (finalizing it, the GObject and its storage)
//   add_collected      a.add(b) with a collection every N results, N
//                      chosen from the measured cost of a collection (the
//                      policy below), the collections' time included: each
//                      sample is one cycle of N ops and a collection
//   add_collected_tag  the same, setting a property on each result: gjs
//                      then switches the wrapper to a toggle reference
//   add_collected_js   the same, through a JS function around the method
//                      (as a module that patches prototypes adds)
//
// The collection policy (the module ep.js's Collector; the module's own
// collector is stopped and the GI method called, so that only the
// figure's collections count): a collection every N
// results, N = sqrt(2·gc/scan) from the measured cost of a collection,
// between 500 and 20 000: about 2000 here, for 0.3 µs per op.
//
// Prints one JSON object (seconds per op, best and median of the rounds),
// or a table with --text.
import GObject from 'gi://GObject';
import System from 'system';
import Ep from 'gi://Ep?version=1.0';

const ep = await import('resource:///org/gnome/EagerGlib/js/ep.js');
const {Collector, now} = ep;
ep.collector.enabled = false;
// the GI method, without the module's wrapper
const add = ep.ops.add.wrappedGI;

const text = ARGV.includes('--text');
const a = Ep.Tensor.new_from_doubles([1, 2, 3, 4], [4], Ep.DType.FLOAT32);
const b = Ep.Tensor.new_from_doubles([1, 2, 3, 4], [4], Ep.DType.FLOAT32);

function stats(times) {
    times.sort((x, y) => x - y);
    return {best: times[0], median: times[Math.floor(times.length / 2)]};
}

// Samples are short (a few ms), so that on a busy machine some of them
// run without a pause; the best and the median of many are kept.

// seconds per call of fn, over `count` calls right after a collection
function fresh(fn, count, rounds) {
    const times = [];
    for (let r = 0; r < rounds; r++) {
        System.gc();
        const t0 = now();
        for (let i = 0; i < count; i++)
            fn();
        times.push((now() - t0) / count);
    }
    return stats(times);
}

// seconds per call of fn with the collector: each sample is one cycle,
// `every` calls and the collection that ends it, divided by `every`
function collected(fn, cycles) {
    const collector = new Collector();
    const times = [];
    let calls = 0;
    System.gc();
    for (let c = 0; c <= cycles; c++) {
        const n = collector.every;
        const t0 = now();
        for (let i = 0; i < n; i++) {
            fn();
            collector.note();
        }
        times.push((now() - t0) / n);
        calls += n;
    }
    times.shift();  // warm-up
    const s = stats(times);
    s.collections_per_1000 = collector.collections / calls * 1000;
    s.every = collector.every;
    return s;
}

const results = {};

results.call_existing = fresh(() => a.get_device(), 2000, 25);
results.new_gobject = fresh(() => new GObject.Object(), 2000, 25);
results.add_fresh = fresh(() => add.call(a, b), 2000, 25);

// the slope: 25 batches of 2000 in a row after one collection, three
// times; a line through (wrappers waiting at the batch's middle, the
// fastest of the three runs' times for the batch)
{
    const batches = 25, size = 2000;
    const fastest = new Array(batches).fill(Infinity);
    for (let run = 0; run < 3; run++) {
        System.gc();
        for (let batch = 0; batch < batches; batch++) {
            const t0 = now();
            for (let i = 0; i < size; i++)
                add.call(a, b);
            fastest[batch] = Math.min(fastest[batch], (now() - t0) / size);
        }
    }
    const xs = fastest.map((_, batch) => (batch + 0.5) * size);
    const mx = xs.reduce((s, x) => s + x, 0) / batches;
    const my = fastest.reduce((s, y) => s + y, 0) / batches;
    let sxy = 0, sxx = 0;
    for (let i = 0; i < batches; i++) {
        sxy += (xs[i] - mx) * (fastest[i] - my);
        sxx += (xs[i] - mx) ** 2;
    }
    const slope = sxy / sxx, intercept = my - slope * mx;
    results.add_scan_per_1000 = {best: slope * 1000, median: slope * 1000};
    results.add_at_100k = {best: intercept + slope * 100000, median: intercept + slope * 100000};
}

// collections: with nothing to sweep, and with 2000 dead tensor wrappers
{
    const empty = [], full = [];
    for (let r = 0; r < 15; r++) {
        System.gc();
        let t0 = now();
        System.gc();
        empty.push(now() - t0);
        for (let i = 0; i < 2000; i++)
            add.call(a, b);
        t0 = now();
        System.gc();
        full.push(now() - t0);
    }
    results.gc_empty = stats(empty);
    const f = stats(full);
    results.gc_per_dead = {
        best: Math.max(0, (f.best - results.gc_empty.best) / 2000),
        median: Math.max(0, (f.median - results.gc_empty.median) / 2000),
    };
}

results.add_collected = collected(() => add.call(a, b), 60);
results.add_collected_tag = collected(() => {
    add.call(a, b).tag = 1;
}, 30);
{
    const wrapped = function (...args) {
        return add.apply(this, args);
    };
    results.add_collected_js = collected(() => wrapped.call(a, b), 30);
}

if (text) {
    for (const [key, value] of Object.entries(results)) {
        const extra = value.every ? `  (a collection every ${value.every} results, ` +
            `${value.collections_per_1000.toFixed(2)} per 1000)` : '';
        print(`${key.padEnd(20)} best ${(value.best * 1e6).toFixed(3).padStart(8)} µs  ` +
              `median ${(value.median * 1e6).toFixed(3).padStart(8)} µs${extra}`);
    }
} else {
    const out = {};
    for (const [key, value] of Object.entries(results))
        out[`gjs_${key}`] = value;
    print(JSON.stringify(out));
}
