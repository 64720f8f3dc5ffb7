// test-scenarios.js: the scenarios every binding runs, in gjs
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';
import GLib from 'gi://GLib';

import {test, run, assert, assertEqual, assertClose, assertThrowsEp} from './harness.js';

const vector = (values, shape = [values.length]) =>
    Ep.Tensor.new_from_doubles(values, shape, Ep.DType.FLOAT32);

test('the L2 norm by chaining', () => {
    const norm = vector([1, 2, 3]).square().sum(null, false).sqrt();
    assertEqual(norm.ndim, 0, 'ndim');
    assertEqual(norm.dtype, Ep.DType.FLOAT32, 'dtype');
    assertEqual(norm.to_string(), '3.7416575', 'text');
    assertClose(norm.item_double(), Math.sqrt(14), 1e-6, 'value');
});

test('a broadcasting add', () => {
    const total = vector([10, 20], [2, 1]).add(vector([1, 2, 3]));
    assertEqual(JSON.stringify(total.get_shape()), '[2,3]', 'shape');
    assertEqual(total.to_string(), '[[11. 12. 13.]\n [21. 22. 23.]]', 'values');
});

test('a shape error is a GLib.Error in the Ep.Error domain', () => {
    const e = assertThrowsEp(Ep, Ep.Error.SHAPE, () => vector([1, 2, 3]).add(vector([1, 2, 3, 4])));
    assert(e instanceof Ep.Error, 'an Ep.Error');
    assertEqual(e.domain, Ep.error_quark(), 'domain');
    assertEqual(e.code, Ep.Error.SHAPE, 'code');
    assert(e.message.includes('add') && e.message.includes('(3,)') && e.message.includes('(4,)'), e.message);
});

test('value_and_grad of a sum of squares', () => {
    const [value, grads] = Ep.value_and_grad(inputs => inputs[0].square().sum(null, false),
        [vector([1, 2, 3])], null).slice(-2);
    assertEqual(value.item_double(), 14, 'value');
    assertEqual(grads.length, 1, 'one gradient');
    assertEqual(grads[0].to_string(), '[2. 4. 6.]', 'gradient');
});

// Functions with several results return a boolean (annotated skip) and
// out parameters; gjs 1.74 still puts the boolean first, so take the
// results from the end.
test('value_aux_and_grad gives the value, the auxiliary results and the gradients', () => {
    const [value, aux, grads] = Ep.value_aux_and_grad(
        inputs => [inputs[0].square().sum(null, false), inputs[0].neg()],
        [vector([1, 2, 3])], null).slice(-3);
    assertEqual(value.item_double(), 14, 'value');
    assertEqual(aux.length, 1, 'one auxiliary result');
    assertEqual(aux[0].to_string(), '[-1. -2. -3.]', 'aux');
    assertEqual(grads[0].to_string(), '[2. 4. 6.]', 'gradient');
});

test('a ValueAndGradFn is called many times', () => {
    const fn = Ep.ValueAndGradFn.new(inputs => inputs[0].mul(inputs[1]).sum(null, false), [0, 1]);
    for (const k of [1, 2]) {
        const [value, grads] = fn.call([vector([k, 2]), vector([3, 4])]).slice(-2);
        assertEqual(value.item_double(), 3 * k + 8, 'value');
        assertEqual(grads.length, 2, 'two gradients');
        assertEqual(grads[0].to_string(), '[3. 4.]', 'd/da');
        assertEqual(grads[1].to_string(), `[${k}. 2.]`, 'd/db');
    }
});

test('slogdet and topk give two tensors', () => {
    const a = vector([0, 2, 3, 0], [2, 2]);
    const [sign, logabsdet] = a.slogdet().slice(-2);
    assertEqual(sign.item_double(), -1, 'sign');
    assertClose(logabsdet.item_double(), Math.log(6), 1e-6, 'log|det|');
    const [values, indices] = vector([1, 3, 2]).topk(2, true).slice(-2);
    assertEqual(values.to_string(), '[3. 2.]', 'values');
    assertEqual(indices.to_string(), '[1 2]', 'indices');
});

test('split and meshgrid give arrays of tensors', () => {
    const parts = vector([1, 2, 3, 4, 5, 6]).split(3, 0);
    assertEqual(parts.length, 3, 'three parts');
    assertEqual(parts.map(p => p.to_string()).join(' '), '[1. 2.] [3. 4.] [5. 6.]', 'parts');
    const [xs, ys] = Ep.meshgrid([vector([1, 2, 3]), vector([4, 5])], Ep.MeshIndexing.XY);
    assertEqual(JSON.stringify(xs.get_shape()), '[2,3]', 'grid shape');
    assertEqual(ys.to_string(), '[[4. 4. 4.]\n [5. 5. 5.]]', 'second grid');
});

test('nested tapes give the first and second derivative', () => {
    const x = Ep.Tensor.new_scalar(3, Ep.DType.FLOAT32);
    const outer = Ep.GradientTape.new(false);
    const inner = Ep.GradientTape.new(false);
    outer.start();
    outer.watch(x);
    inner.start();
    inner.watch(x);
    const y = x.mul(x);
    inner.stop();
    const [dy] = inner.gradient([y], [x], null);
    outer.stop();
    assertEqual(dy.item_double(), 6, 'first derivative');
    const [d2y] = outer.gradient([dy], [x], null);
    assertEqual(d2y.item_double(), 2, 'second derivative');
});

test('a staged training step is traced once and updates its variable', () => {
    const w = Ep.Variable.new(vector([1, 2]), 'w');
    const step = Ep.Function.new(inputs => {
        const tape = Ep.GradientTape.new(false);
        tape.start();
        const loss = w.read().sub(inputs[0]).square().sum(null, false);
        tape.stop();
        const [grad] = tape.gradient([loss], [w], null);
        w.assign_sub(grad.mul_scalar(0.25));
        return [loss];
    });
    const x = vector([5, 6]);
    const losses = [0, 1, 2].map(() => step.call([x])[0].item_double());
    assertEqual(JSON.stringify(losses), '[32,8,2]', 'losses');
    assertEqual(w.read().to_string(), '[4.5 5.5]', 'w');
    assertEqual(step.get_trace_count(), 1, 'one trace');
});

test('a device scope places the ops inside it', () => {
    const devices = Ep.list_devices();
    const device = devices[devices.length - 1];
    const x = vector([1, 2, 3]);
    device.push();
    let y;
    try {
        assertEqual(Ep.Device.get_current(), device, 'current');
        y = x.mul_scalar(2);
    } finally {
        device.pop();
    }
    assertEqual(Ep.Device.get_current(), null, 'no scope after pop');
    assertEqual(y.device, device, 'placed');
    const total = y.sum(null, false);
    assertEqual(total.device, device, 'follows its input');
    assertEqual(total.item_double(), 12, 'value');
});

test('a pop names the scope it closes', () => {
    const cpu = Ep.Device.get_default();
    let e = assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => cpu.pop());
    assert(e.message.includes('no device scope is open'), e.message);
    const devices = Ep.list_devices();
    const last = devices[devices.length - 1];
    cpu.push();
    last.push();
    if (last !== cpu) {
        e = assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => cpu.pop());
        assert(e.message.includes(last.get_name()), e.message);
        assertEqual(Ep.Device.get_current(), last, 'nothing closed');
    }
    last.pop();
    cpu.pop();
    assertEqual(Ep.Device.get_current(), null, 'all closed');
});

test('a device made with new is an error to use, not a crash', () => {
    const e = assertThrowsEp(Ep, Ep.Error.DEVICE, () => new Ep.Device().push());
    assert(e.message.includes('not a device of this machine'), e.message);
    assertEqual(Ep.Device.get_current(), null, 'no scope');
});

test('reductions take axes and keepdims', () => {
    const m = vector([1, 2, 3, 4, 5, 6], [2, 3]);
    assertEqual(m.sum([0], false).to_string(), '[5. 7. 9.]', 'axis 0');
    assertEqual(JSON.stringify(m.sum([1], true).get_shape()), '[2,1]', 'keepdims');
    assertEqual(m.mean(null, false).item_double(), 3.5, 'all axes');
});

test('scalars are weak', () => {
    const x = vector([1, 2]);
    assertEqual(x.mul_scalar(2.5).dtype, Ep.DType.FLOAT32, 'float32 stays');
    assertEqual(x.add(Ep.Tensor.new_weak_scalar(1, Ep.DType.INT64)).to_string(), '[2. 3.]', 'weak add');
});

test('every binary elementwise op has a _scalar form', () => {
    const x = vector([1, 2, 3]);
    assertEqual(x.less_scalar(2).to_string(), '[ True False False]', 'less');
    assertEqual(x.greater_equal_scalar(2).to_string(), '[False  True  True]', 'greater_equal');
    assertEqual(x.equal_scalar(2.5).to_string(), '[False False False]', 'equal');
    const mask = x.not_equal_scalar(2);
    assertEqual(mask.logical_and_scalar(1).to_string(), '[ True False  True]', 'and true');
    assertEqual(mask.logical_or_scalar(0).to_string(), '[ True False  True]', 'or false');
    assertEqual(mask.logical_or_scalar(1).to_string(), '[ True  True  True]', 'or true');
    assertEqual(x.maximum_scalar(2).to_string(), '[2. 2. 3.]', 'maximum');
});

test('three item readers: double, int64, boolean', () => {
    const x = Ep.Tensor.new_scalar(-2.5, Ep.DType.FLOAT64);
    assertEqual(x.item_double(), -2.5, 'double');
    assertEqual(x.item_int64(), -2, 'int64 truncates');
    assertEqual(x.item_boolean(), true, 'boolean');
    assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT,
        () => Ep.Tensor.new_scalar(NaN, Ep.DType.FLOAT32).item_int64());
});

test('bulk data crosses as GLib.Bytes and typed arrays', () => {
    const data = new Float64Array([0.5, -1.5, 2.25, 4]);
    const x = Ep.Tensor.new_from_bytes(new GLib.Bytes(new Uint8Array(data.buffer)), Ep.DType.FLOAT64, [2, 2]);
    assertEqual(x.to_string(), '[[ 0.5  -1.5 ]\n [ 2.25  4.  ]]', 'in');
    const bytes = x.transpose(null).to_bytes().toArray();
    const back = new Float64Array(bytes.buffer, bytes.byteOffset, 4);
    assertEqual(Array.from(back).join(','), '0.5,2.25,-1.5,4', 'out, transposed');
});

test('repr is NumPy-like', () => {
    assertEqual(vector([1, 2, 3]).to_repr(), 'Ep.Tensor([1., 2., 3.], dtype=float32)', 'repr');
});

test('devices are listed and tensors know theirs', () => {
    const devices = Ep.list_devices();
    assert(devices.length >= 1, 'at least the CPU');
    assertEqual(devices[0].get_name(), 'cpu:0', 'first');
    assertEqual(vector([1]).device.get_name(), 'cpu:0', 'tensor device');
});

// Staged functions: gjs uses Ep.Function itself. (`new Ep.Function(f)`
// makes a function without a body: gjs passes properties to a `new`.)
test('a staged function traces once and replays', () => {
    let calls = 0;
    const norm = Ep.Function.new(inputs => {
        calls++;
        return [inputs[0].square().sum(null, false).sqrt()];
    });
    assertEqual(norm.call([vector([3, 4])])[0].item_double(), 5, 'traced');
    assertEqual(norm.call([vector([6, 8])])[0].item_double(), 10, 'replayed');
    assertEqual(calls, 1, 'one call of the function');
    assertEqual(norm.get_trace_count(), 1, 'one trace');
});

test('a relaxed signature serves every batch size', () => {
    const rows = Ep.Function.new_with_signature(inputs => [inputs[0].sum([1], false)],
        [Ep.TensorSpec.new([-1, 2], Ep.DType.FLOAT32)]);
    assertEqual(rows.call([vector([1, 2, 3, 4], [2, 2])])[0].to_string(), '[3. 7.]', 'two rows');
    // the second batch size traces again, to check that the function
    // computes the same; the next ones replay
    assertEqual(rows.call([vector([1, 1], [1, 2])])[0].to_string(), '[2.]', 'one row');
    assertEqual(rows.call([vector([1, 1, 2, 2, 3, 3], [3, 2])])[0].to_string(), '[2. 4. 6.]', 'three rows');
    assertEqual(rows.get_trace_count(), 2, 'two traces');
    assertThrowsEp(Ep, Ep.Error.SHAPE, () => rows.call([vector([1, 2, 3])]));
});

test('a staged function raises what it raises eagerly', () => {
    const f = Ep.Function.new(inputs => {
        if (inputs[0].size > 2)
            throw new RangeError('too long');
        return [inputs[0].add(vector([1, 2, 3]))];
    });
    assertThrowsEp(Ep, Ep.Error.SHAPE, () => f.call([vector([1, 2])]));
    let thrown = null;
    try {
        f.call([vector([1, 2, 3])]);
    } catch (e) {
        thrown = e;
    }
    assert(thrown instanceof RangeError && thrown.message === 'too long', `${thrown}`);
    assertEqual(f.get_trace_count(), 0, 'nothing traced');
});

run();
