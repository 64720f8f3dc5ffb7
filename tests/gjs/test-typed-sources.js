// test-typed-sources.js: the tape's typed forms (gradient_variables,
// gradient_tensors) and the slice constants Ep.SLICE_START, Ep.SLICE_END
// from gjs, on the bare GI API.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';

import {test, run, assertEqual, assertThrowsEp} from './harness.js';

const vector = values => Ep.Tensor.new_from_doubles(values, [values.length], Ep.DType.FLOAT32);

test('gradient_variables and gradient_tensors', () => {
    const w = Ep.Variable.new(vector([4, 5, 6]), 'w');
    const x = vector([1, 2, 3]);
    const tape = Ep.GradientTape.new(true);
    tape.start();
    tape.watch(x);
    const loss = w.read().mul(x).sum(null, false);
    tape.stop();
    assertEqual(tape.gradient_variables([loss], [w], null)[0].to_string(), '[1. 2. 3.]', 'd/dw');
    assertEqual(tape.gradient_tensors([loss], [x], null)[0].to_string(), '[4. 5. 6.]', 'd/dx');
    assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => tape.gradient_variables([loss], [w], [loss, loss]));
});

test('Ep.SLICE_START and Ep.SLICE_END are exact numbers', () => {
    assertEqual(Ep.SLICE_END, Number.MAX_SAFE_INTEGER, 'SLICE_END');
    assertEqual(Ep.SLICE_START, -Number.MAX_SAFE_INTEGER, 'SLICE_START');
});

test('x[::-1] and x[1:] with the slice constants', () => {
    const x = vector([0, 1, 2, 3]);
    assertEqual(x.slice([Ep.SLICE_END], [Ep.SLICE_START], [-1]).to_string(), '[3. 2. 1. 0.]', 'x[::-1]');
    assertEqual(x.slice([1], [Ep.SLICE_END], null).to_string(), '[1. 2. 3.]', 'x[1:]');
});

run();
