// test-tidy-loop.js: a gjs training loop inside Ep.tidy, with no
// System.gc(), keeps its memory flat: Ep.memory() exactly, the resident
// size within a few MiB.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// A linear regression trained by SGD, eager, with a tape per step, each
// step in the module's Ep.tidy and tape.record (written on the C scopes
// and the tape's start/stop, never a callback from C: gjs 1.74 refuses to
// run a JavaScript callback from C while its collector sweeps, and a loop
// that calls ep_tidy(func) through introspection hits that after some
// 20 000 steps). The scope gives each step's buffers back when it ends;
// the wrappers of the released tensors are gjs's, and the module collects
// them (every N results on gjs < 1.85.1, which would otherwise collect
// only after some 330 000 of them: the resident size then climbs by
// hundreds of MiB).
//
// EP_TIDY_STEPS sets the step count (100 000 by default; the sanitizer
// build runs fewer). Not tests, to compare: EP_TIDY_LOOP_NO_COLLECT=1
// stops the module's collector, EP_TIDY_LOOP_NO_TIDY=1 runs the loop
// without the scope.

import Ep from 'gi://Ep?version=1.0';
import GLib from 'gi://GLib';

import {test, run, assert} from './harness.js';

const ep = await import('resource:///org/gnome/EagerGlib/js/ep.js');

const STEPS = Number(GLib.getenv('EP_TIDY_STEPS') ?? 100000);
const EARLY = Math.min(5000, Math.floor(STEPS / 20));
const NO_TIDY = GLib.getenv('EP_TIDY_LOOP_NO_TIDY') === '1';
const NO_COLLECT = GLib.getenv('EP_TIDY_LOOP_NO_COLLECT') === '1';
const MB = 1024 * 1024;
// the resident size may grow by this much from step EARLY to the end
// (measured with gjs 1.74: 0.0 MiB over 95 000 steps, 8 s in all;
// 170 MiB and 102 s without the module's collections); under
// AddressSanitizer (its quarantine of 8 MiB fills as the loop runs;
// measured 15.8 MiB from step 250 to 5 000), as much as the earlier
// bound of 8 KiB a step allowed over 5 000 steps
const RSS_BOUND = (GLib.getenv('LD_PRELOAD') ?? '').includes('asan') ? 40 * MB : 16 * MB;

if (NO_COLLECT)
    ep.collector.enabled = false;

function residentBytes() {
    const [, contents] = GLib.file_get_contents('/proc/self/status');
    const line = new TextDecoder().decode(contents).split('\n').find(l => l.startsWith('VmRSS:'));
    return Number(line.split(/\s+/)[1]) * 1024;
}

test(`a training loop in tidy stays flat over ${STEPS} steps`, () => {
    // 256 examples: each intermediate is 1 KiB or more, so a buffer kept
    // a step would show in Ep.memory(); the weights are 16 numbers
    const N = 256, D = 16;
    const xs = new Float32Array(N * D), ys = new Float32Array(N);
    for (let i = 0; i < N * D; i++)
        xs[i] = Math.sin(i);
    for (let i = 0; i < N; i++) {
        ys[i] = 0.5;
        for (let j = 0; j < D; j++)
            ys[i] += xs[i * D + j] * (j % 3 - 1);
    }
    const x = Ep.tensor(xs, [N, D]);
    const y = Ep.tensor(ys, [N, 1]);
    // made in a scope: the variables hold their values, the initial
    // tensors go (the collector would take them at some point, and
    // Ep.memory() would count down)
    const [w, b] = Ep.tidy(() => [Ep.Variable.new(Ep.zeros([D, 1]), 'w'),
        Ep.Variable.new(Ep.zeros([1]), 'b')]);
    const tape = Ep.GradientTape.new(false);

    const step = () => {
        const loss = tape.record(() => x.matmul(w).add(b).sub(y).square().mean());
        const [dw, db] = tape.gradient([loss], [w, b], null);
        w.assign_sub(dw.mul(0.05));
        b.assign_sub(db.mul(0.05));
        tape.reset();
        return loss;
    };

    const mem = () => {
        const m = Ep.memory();
        return `${m.numBytes} bytes, ${m.numTensors} tensors`;
    };
    let first = null, last = null;
    let rssEarly = 0, early = null;
    const start = GLib.get_monotonic_time();
    for (let i = 1; i <= STEPS; i++) {
        const loss = NO_TIDY ? step() : Ep.tidy(step);
        if (i === 1)
            first = loss.item_double();
        if (i === STEPS)
            last = loss.item_double();
        if (!NO_TIDY)
            Ep.dispose(loss);
        if (i === EARLY) {
            rssEarly = residentBytes();
            early = Ep.memory();
        }
        if (i % Math.max(1, Math.floor(STEPS / 10)) === 0 || i === EARLY)
            print(`# step ${i}: VmRSS ${(residentBytes() / MB).toFixed(1)} MiB, Ep.memory() ${mem()}`);
    }
    const seconds = (GLib.get_monotonic_time() - start) / 1e6;
    const rssLate = residentBytes();
    const late = Ep.memory();
    print(`# ${STEPS} steps in ${seconds.toFixed(1)} s (${(seconds / STEPS * 1e6).toFixed(0)} µs a step); ` +
          `loss ${first.toFixed(4)} -> ${last.toFixed(6)}; ${ep.collector.collections} collections ` +
          `by the module (every ${ep.collector.every} results)`);
    print(`# VmRSS after step ${EARLY}: ${(rssEarly / MB).toFixed(1)} MiB, after step ${STEPS}: ` +
          `${(rssLate / MB).toFixed(1)} MiB (${((rssLate - rssEarly) / MB).toFixed(1)} MiB more); ` +
          `tensors ${early.numTensors} -> ${late.numTensors}, bytes ${early.numBytes} -> ${late.numBytes}`);
    assert(last < first / 10, `the loss fell: ${first} -> ${last}`);
    if (!NO_TIDY) {
        assert(late.numTensors === early.numTensors, `tensors alive: ${early.numTensors} -> ${late.numTensors}`);
        assert(late.numBytes === early.numBytes, `bytes alive: ${early.numBytes} -> ${late.numBytes}`);
    }
    if (!NO_TIDY && !NO_COLLECT) {
        assert(rssLate - rssEarly <= RSS_BOUND,
            `resident memory grew by ${((rssLate - rssEarly) / MB).toFixed(1)} MiB ` +
            `(at most ${RSS_BOUND / MB} MiB)`);
    }
});

run();
