// test-tidy-loop.js: a gjs training loop inside Ep.tidy, with no
// System.gc(), keeps its memory flat.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// A linear regression trained by SGD, eager, with a tape per step, each
// step in Ep.tidy. The collector finalizes the wrappers only when it
// runs, and it does not see the buffers; the scope gives them back at the
// end of each step. EP_TIDY_STEPS sets the step count (100 000 by
// default; the sanitizer build runs fewer). EP_TIDY_LOOP_NO_TIDY=1 runs
// the same loop without the scope, to compare (not a test).
//
// tidy() and record() are written in JavaScript on ep_tidy_begin/_end and
// the tape's start/stop, as the library's ES module writes them: gjs 1.74
// refuses to run a JavaScript callback from C while the collector is
// sweeping incrementally ("Attempting to run a JS callback during garbage
// collection ... it has been blocked"), and a loop that calls
// Ep.tidy(fn) through introspection hits that after some 20 000 steps:
// the callback is skipped and the step silently does nothing.

import Ep from 'gi://Ep?version=1.0';
import GLib from 'gi://GLib';

import {test, run, assert} from './harness.js';

const STEPS = Number(GLib.getenv('EP_TIDY_STEPS') ?? 100000);
const EARLY = Math.min(5000, Math.floor(STEPS / 20));
const NO_TIDY = GLib.getenv('EP_TIDY_LOOP_NO_TIDY') === '1';
const MB = 1024 * 1024;

function residentBytes() {
    const [, contents] = GLib.file_get_contents('/proc/self/status');
    const line = new TextDecoder().decode(contents).split('\n').find(l => l.startsWith('VmRSS:'));
    return Number(line.split(/\s+/)[1]) * 1024;
}

function tidy(fn) {
    const scope = Ep.tidy_begin();
    let result = null;
    try {
        result = fn();
    } finally {
        Ep.tidy_end(scope, result instanceof Ep.Tensor ? [result] : []);
    }
    return result;
}

function record(tape, fn) {
    tape.start();
    try {
        return fn();
    } finally {
        tape.stop();
    }
}

test(`a training loop in tidy stays flat over ${STEPS} steps`, () => {
    // 4096 examples: each intermediate is 16 KiB, so a buffer kept a step
    // would show; the weights are 16 numbers
    const N = 4096, D = 16;
    const xs = [], ys = [];
    for (let i = 0; i < N * D; i++)
        xs.push(Math.sin(i));
    for (let i = 0; i < N; i++)
        ys.push(xs.slice(i * D, i * D + D).reduce((s, v, j) => s + v * (j % 3 - 1), 0.5));
    const x = Ep.Tensor.new_from_doubles(xs, [N, D], Ep.DType.FLOAT32);
    const y = Ep.Tensor.new_from_doubles(ys, [N, 1], Ep.DType.FLOAT32);
    // made in a scope: the variables hold their values, the initial
    // tensors go (the collector would take them at some point, and
    // Ep.memory() would count down)
    const [w, b] = tidy(() => [Ep.Variable.new(Ep.zeros([D, 1], Ep.DType.FLOAT32), 'w'),
        Ep.Variable.new(Ep.zeros([1], Ep.DType.FLOAT32), 'b')]);
    const tape = Ep.GradientTape.new(false);

    const step = () => {
        const loss = record(tape, () =>
            x.matmul(w.read()).add(b.read()).sub(y).square().mean(null, false));
        const [dw, db] = tape.gradient([loss], [w, b], null);
        w.assign_sub(dw.mul_scalar(0.05));
        b.assign_sub(db.mul_scalar(0.05));
        tape.reset();
        return loss;
    };

    let first = null, last = null;
    let rssEarly = 0, tensorsEarly = 0, bytesEarly = 0;
    const start = GLib.get_monotonic_time();
    for (let i = 1; i <= STEPS; i++) {
        let loss;
        if (NO_TIDY) {
            loss = step();
        } else {
            loss = tidy(step);
        }
        if (i === 1)
            first = loss.item_double();
        if (i === STEPS)
            last = loss.item_double();
        if (!NO_TIDY)
            Ep.dispose(loss);
        if (i === EARLY) {
            rssEarly = residentBytes();
            [bytesEarly, tensorsEarly] = Ep.memory();
        }
        if (i % Math.max(1, Math.floor(STEPS / 10)) === 0 || i === EARLY)
            print(`# step ${i}: VmRSS ${(residentBytes() / MB).toFixed(1)} MiB, ` +
                  `Ep.memory() ${Ep.memory().join(' bytes, ')} tensors`);
    }
    const seconds = (GLib.get_monotonic_time() - start) / 1e6;
    const rssLate = residentBytes();
    const [bytesLate, tensorsLate] = Ep.memory();
    print(`# ${STEPS} steps in ${seconds.toFixed(1)} s (${(seconds / STEPS * 1e6).toFixed(0)} µs a step); ` +
          `loss ${first.toFixed(4)} -> ${last.toFixed(6)}`);
    print(`# VmRSS after step ${EARLY}: ${(rssEarly / MB).toFixed(1)} MiB, after step ${STEPS}: ` +
          `${(rssLate / MB).toFixed(1)} MiB; tensors ${tensorsEarly} -> ${tensorsLate}, ` +
          `bytes ${bytesEarly} -> ${bytesLate}`);
    assert(last < first / 10, `the loss fell: ${first} -> ${last}`);
    if (!NO_TIDY) {
        assert(tensorsLate === tensorsEarly, `tensors alive: ${tensorsEarly} -> ${tensorsLate}`);
        assert(bytesLate === bytesEarly, `bytes alive: ${bytesEarly} -> ${bytesLate}`);
        // What still grows is gjs's: the wrappers of released tensors
        // (some 30 a step, a few hundred bytes each with their GObject)
        // wait for the collector, which runs seldom when the JavaScript
        // heap is small. A step's buffers alone are 16 KiB each.
        const perStep = (rssLate - rssEarly) / (STEPS - EARLY);
        print(`# resident growth ${perStep.toFixed(0)} bytes a step after step ${EARLY}`);
        assert(perStep < 8192, `resident memory grew by ${perStep.toFixed(0)} bytes a step`);
    }
});

run();
