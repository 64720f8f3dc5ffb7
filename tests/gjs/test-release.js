// test-release.js: large tensors in gjs. The garbage collector finalizes a
// tensor's wrapper only when it runs, and it does not see the tensor's
// buffer; Ep.Tensor.release() gives the buffer back at once.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';
import GLib from 'gi://GLib';
import System from 'system';

import {test, run, assert, assertEqual, assertThrowsEp} from './harness.js';

const MB = 1024 * 1024;
const SIDE = 2048;                    // a 2048 x 2048 float64 tensor: 32 MiB
const ROUNDS = 40;                    // 1.25 GiB made in all

function residentBytes() {
    const [, contents] = GLib.file_get_contents('/proc/self/statm');
    const pages = Number(new TextDecoder().decode(contents).split(' ')[1]);
    return pages * 4096;
}

test('released tensors give their memory back at once', () => {
    System.gc();
    const before = residentBytes();
    let peak = before;
    for (let i = 0; i < ROUNDS; i++) {
        const t = Ep.ones([SIDE, SIDE], Ep.DType.FLOAT64);
        const total = t.sum(null, false);
        assertEqual(total.item_double(), SIDE * SIDE, 'sum');
        t.release();
        peak = Math.max(peak, residentBytes());
    }
    // at most a few buffers alive at any time, not ROUNDS of them
    assert(peak - before < 160 * MB, `resident memory grew by ${(peak - before) / MB} MiB`);
});

test('the garbage collector reclaims what is not released', () => {
    System.gc();
    const before = residentBytes();
    for (let i = 0; i < 8; i++)
        Ep.ones([SIDE, SIDE], Ep.DType.FLOAT64);
    const grown = residentBytes();
    System.gc();
    const after = residentBytes();
    // 8 tensors of 32 MiB pile up until the collector runs ...
    assert(grown - before > 6 * 32 * MB, `grew by only ${(grown - before) / MB} MiB`);
    // ... and go back when it does
    assert(after - before < 64 * MB, `${(after - before) / MB} MiB left after collection`);
});

test('a released tensor is an error to use, never a crash', () => {
    const t = Ep.ones([3], Ep.DType.FLOAT32);
    t.release();
    assert(t.is_released(), 'is_released');
    assertEqual(t.device, null, 'no device');
    assertEqual(JSON.stringify(t.get_shape()), '[3]', 'shape stays');
    for (const use of [() => t.exp(), () => t.to_string(), () => t.to_bytes(), () => t.item_double(),
        () => t.add(t), () => t.sum(null, false)]) {
        const e = assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, use);
        assert(e.message.includes('released'), e.message);
    }
    t.release();
});

test('a view keeps the data its released source shared', () => {
    const t = Ep.arange(0, 6, 1, Ep.DType.FLOAT32);
    const view = t.reshape([2, 3]);
    t.release();
    assertEqual(view.sum(null, false).item_double(), 15, 'view sum');
});

test('releasing a read leaves the variable, and a variable refuses released tensors', () => {
    const v = new Ep.Variable({initial_value: Ep.arange(0, 3, 1, Ep.DType.FLOAT32)});
    v.read().release();
    assertEqual(v.read().sum(null, false).item_double(), 3, 'the variable keeps its value');
    const gone = Ep.ones([3], Ep.DType.FLOAT32);
    gone.release();
    const e = assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => v.assign(gone));
    assert(e.message.startsWith('assign: '), e.message);
    const dead = new Ep.Variable({initial_value: gone});
    assert(dead.read().is_released(), 'a variable of a released tensor has no value');
    assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => dead.assign(Ep.ones([3], Ep.DType.FLOAT32)));
});

run();
