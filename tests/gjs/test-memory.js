// test-memory.js: Ep.tidy, Ep.keep, Ep.dispose, Ep.memory and
// GradientTape.record through plain introspection (the library's ES
// module wraps the same functions).
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';

import {test, run, assert, assertEqual, assertThrowsEp} from './harness.js';

const vector = values => Ep.Tensor.new_from_doubles(values, [values.length], Ep.DType.FLOAT32);
const values = t => Array.from(new Float32Array(Uint8Array.from(t.to_bytes().toArray()).buffer));

test('tidy releases what is made inside, not its result', () => {
    const x = vector([1, 2, 3]);
    let inside = null;
    const result = Ep.tidy(() => {
        inside = x.add(x);
        return inside.mul(x);
    });
    assert(inside.is_released(), 'the intermediate is released');
    assert(!result.is_released(), 'the result is not');
    assertEqual(JSON.stringify(values(result)), '[2,8,18]', 'result');
    assert(!x.is_released(), 'made outside: untouched');
});

test('tidy returning null releases everything made inside', () => {
    const x = vector([1]);
    let inside = null;
    assertEqual(Ep.tidy(() => {
        inside = x.exp();
        return null;
    }), null, 'result');
    assert(inside.is_released(), 'released');
});

test('keep saves a tensor stored elsewhere', () => {
    const x = vector([1, 2]);
    const store = {};
    Ep.tidy(() => {
        store.kept = Ep.keep(x.mul_scalar(10));
        return null;
    });
    assertEqual(JSON.stringify(values(store.kept)), '[10,20]', 'kept');
});

test('an exception thrown in tidy propagates as it is and closes the scope', () => {
    const x = vector([1]);
    let inside = null;
    let caught = null;
    try {
        Ep.tidy(() => {
            inside = x.neg();
            throw new RangeError('boom');
        });
    } catch (e) {
        caught = e;
    }
    assert(caught instanceof RangeError, `the JavaScript exception, got ${caught}`);
    assert(inside.is_released(), 'released');
    assertEqual(Ep.tidy_get_depth(), 0, 'depth');
});

test('begin and end with a list of results', () => {
    const x = vector([1, 2]);
    const scope = Ep.tidy_begin();
    const a = x.add_scalar(1), b = x.add_scalar(2), c = x.add_scalar(3);
    Ep.tidy_end(scope, [a, b]);
    assert(!a.is_released() && !b.is_released() && c.is_released(), 'a and b survive, c does not');
    assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => Ep.tidy_end(scope, []));
});

test('dispose releases at once; memory counts tensors and bytes', () => {
    const [bytes0, tensors0] = Ep.memory();
    const x = Ep.ones([1024], Ep.DType.FLOAT32);
    const [bytes1, tensors1] = Ep.memory();
    assertEqual(tensors1 - tensors0, 1, 'tensors');
    assertEqual(bytes1 - bytes0, 4096, 'bytes');
    const cpu = Ep.Device.get('cpu:0');
    assert(cpu.get_bytes_in_use() >= 4096, 'per device');
    Ep.dispose(x);
    Ep.dispose(x);
    Ep.dispose(null);
    assert(x.is_released(), 'released');
    const [bytes2, tensors2] = Ep.memory();
    assertEqual(tensors2, tensors0, 'tensors back');
    assertEqual(bytes2, bytes0, 'bytes back');
});

test('tape.record stops the tape on a throw and propagates it', () => {
    const w = Ep.Variable.new(vector([1, 2]), 'w');
    const tape = Ep.GradientTape.new(false);
    let caught = null;
    try {
        tape.record(() => {
            w.read().mul(w.read());
            throw new TypeError('inside record');
        });
    } catch (e) {
        caught = e;
    }
    assert(caught instanceof TypeError, `the JavaScript exception, got ${caught}`);
    assert(!tape.is_active(), 'stopped');
});

test('tape.record inside tidy gives gradients', () => {
    const w = Ep.Variable.new(vector([1, 2]), 'w');
    const x = vector([3, 5]);
    const grad = Ep.tidy(() => {
        const tape = Ep.GradientTape.new(false);
        const loss = tape.record(() => w.read().mul(x).sum(null, false));
        const [g] = tape.gradient([loss], [w], null);
        return g;
    });
    assertEqual(JSON.stringify(values(grad)), '[3,5]', 'gradient');
});

test('ForwardAccumulator.record gives the tangent, and stops on a throw', () => {
    const x = vector([1, 2]);
    const acc = Ep.ForwardAccumulator.new();
    acc.watch(x, vector([1, 1]));
    const y = acc.record(() => x.mul(x));
    assertEqual(JSON.stringify(values(acc.jvp(y))), '[2,4]', 'tangent 2x');
    let caught = null;
    try {
        acc.record(() => {
            throw new TypeError('inside record');
        });
    } catch (e) {
        caught = e;
    }
    assert(caught instanceof TypeError, `the JavaScript exception, got ${caught}`);
    assert(!acc.is_active(), 'stopped');
});

run();
