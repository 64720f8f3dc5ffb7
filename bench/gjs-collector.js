// gjs-collector.js: when to collect garbage in a loop of eager ops from gjs
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// gjs 1.69.1 to 1.85.0 searches a vector of every wrapper the collector
// has not yet swept each time it wraps a new GObject (ObjectInstance::link()
// in gi/object.cpp), so a loop that makes tensors slows down linearly until
// a collection, about 0.18 µs per op for each 1000 results waiting on this
// machine; SpiderMonkey's own collection comes only after some 330 000 of
// them. bench/gjs-wrapper-cost.js measures it.
//
// A collection costs a part that grows with the heap that lives on
// (gc, what a collection with nothing new to sweep takes) and a part per
// dead wrapper (finalizing it, the GObject and its storage) that every
// result pays once whatever N is. A collection every N results costs gc/N
// per result and leaves each new wrapper N/2 on average to scan, scan·N/2:
// the sum is least at N = sqrt(2·gc/scan), where it is sqrt(2·gc·scan)
// per result. gc is measured by a second collection right after the
// first two and every 32nd one (the smallest of the last 4: a busy
// machine makes some of them long); N is kept between 500 and 20 000.
// With gjs 1.85.1 or later the search is a hash lookup and note() never
// collects.
import GLib from 'gi://GLib';
import System from 'system';

const SCAN_SECONDS = 0.18e-9;  // per waiting wrapper, measured here
const SCANS = System.version < 18501;

export function now() {
    return GLib.get_monotonic_time() * 1e-6;
}

export class Collector {
    constructor() {
        this.made = 0;
        this.every = 2000;
        this.collections = 0;
        this._empty = [];
    }

    // to be called once per new tensor (wrapper) made
    note() {
        if (!SCANS || ++this.made < this.every)
            return;
        this.made = 0;
        System.gc();
        if (this.collections++ % 32 < 2)
            this._measure();
    }

    // the part of a collection that does not depend on N
    _measure() {
        const t0 = now();
        System.gc();
        this._empty.push(now() - t0);
        if (this._empty.length > 4)
            this._empty.shift();
        const gc = Math.min(...this._empty);
        this.every = Math.min(20000, Math.max(500, Math.round(Math.sqrt(2 * gc / SCAN_SECONDS))));
    }
}
