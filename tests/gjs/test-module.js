// test-module.js: modules in gjs: the layers, a GObject.registerClass
// subclass of Ep.Module overriding vfunc_call, its errors, paths for
// checkpoints, and a module called inside a staged function.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';
import GObject from 'gi://GObject';

import {test, run, assert, assertEqual, assertThrowsEp} from './harness.js';

const matrix = (values, shape) => Ep.Tensor.new_from_doubles(values, shape, Ep.DType.FLOAT32);

const Scaled = GObject.registerClass(
class Scaled extends Ep.Module {
    _init(factor) {
        super._init();
        this.add_module('fc', Ep.Linear.new(2, 1, true));
        this.create_variable('factor', matrix([factor], []), false);
    }

    vfunc_call(x) {
        return this.get_module('fc').call(x).mul(this.get_variable('factor').read());
    }
});

const Broken = GObject.registerClass(
class Broken extends Ep.Module {
    vfunc_call(x) {
        return x.add(matrix([1, 2, 3], [3]));
    }
});

function setLinear(layer, weight, bias) {
    layer.get_weight().assign(matrix(weight, [1, 2]));
    layer.get_bias().assign(matrix(bias, [1]));
}

test('a subclass overriding vfunc_call computes', () => {
    const net = new Scaled(2);
    setLinear(net.get_module('fc'), [1, 10], [0.5]);
    assertEqual(net.call(matrix([1, 2], [1, 2])).to_string(), '[[43.]]', 'output');
});

test('paths and trainable variables in order', () => {
    const seq = Ep.Sequential.new();
    seq.append(new Scaled(1));
    seq.append(Ep.Relu.new());
    const [variables, paths] = seq.get_variables();
    assertEqual(paths.join(' '), '0.factor 0.fc.weight 0.fc.bias', 'paths');
    assertEqual(variables.length, 3, 'variables');
    const [trainable] = seq.get_trainable_variables();
    assertEqual(trainable.length, 2, 'trainable');
    assert(trainable[0] === seq.get_variable('0.fc.weight'), 'the same variable');
});

test('an error of the library inside vfunc_call is thrown by call', () => {
    const e = assertThrowsEp(Ep, Ep.Error.SHAPE, () => new Broken().call(matrix([1, 2], [2])));
    assert(e.message.startsWith('add: '), e.message);
});

const Throwing = GObject.registerClass(
class Throwing extends Ep.Module {
    vfunc_call(_x) {
        throw new RangeError('the reason');
    }
});

test('a JS exception inside vfunc_call comes out of call, also through C', () => {
    for (const module of [new Throwing(), Ep.Sequential.new()]) {
        if (module instanceof Ep.Sequential)
            module.append(new Throwing());
        let caught = null;
        try {
            module.call(matrix([1], [1]));
        } catch (e) {
            caught = e;
        }
        assert(caught instanceof RangeError, `${caught}`);
        assertEqual(caught.message, 'the reason', 'message');
    }
});

test('a container module has no call', () => {
    assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => Ep.Module.new().call(matrix([1], [1])));
    assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => new Ep.Module().call(matrix([1], [1])));
});

test('bad names and bad layers are errors', () => {
    const module = Ep.Module.new();
    assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => module.add_module('a.b', Ep.Tanh.new()));
    assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => module.add_module('', Ep.Tanh.new()));
    assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => module.add_module('self', module));
    assertThrowsEp(Ep, Ep.Error.SHAPE, () => Ep.Linear.new(-1, 2, true));
    assertThrowsEp(Ep, Ep.Error.SHAPE, () => Ep.Linear.new(3, 2, true).call(matrix([1, 2], [1, 2])));
});

test('a layer made with new and bad properties gives the error on init and call', () => {
    // gjs 1.74 does not call Gio.Initable.init for `new`: Ep.Linear.new does
    const layer = new Ep.Linear({in_features: -1, out_features: 2});
    assertThrowsEp(Ep, Ep.Error.SHAPE, () => layer.init(null));
    const e = assertThrowsEp(Ep, Ep.Error.SHAPE, () => layer.call(matrix([1], [1, 1])));
    assert(e.message.startsWith('Linear: '), e.message);
});

test('training is set on every descendant', () => {
    const seq = Ep.Sequential.new();
    seq.append(Ep.Tanh.new());
    seq.training = false;
    assertEqual(seq.get(0).training, false, 'child');
});

test('a module in a staged function reads its variables at each call', () => {
    const net = new Scaled(1);
    const layer = net.get_module('fc');
    setLinear(layer, [1, 1], [0]);
    const f = Ep.Function.new(inputs => [net.call(inputs[0])]);
    const x = matrix([1, 2], [1, 2]);
    assertEqual(f.call([x])[0].to_string(), '[[3.]]', 'first');
    setLinear(layer, [1, 1], [10]);
    assertEqual(f.call([x])[0].to_string(), '[[13.]]', 'replayed');
    assertEqual(f.get_trace_count(), 1, 'traced once');
});

test('a small CNN from the layers trains one step', () => {
    Ep.set_seed(1);
    const conv = Ep.Conv2d.new(1, 4, 3, 3);
    const model = Ep.Sequential.new();
    model.append(conv);
    model.append(Ep.BatchNorm.new(4));
    model.append(Ep.Relu.new());
    model.append(Ep.MaxPool2d.new(2, 2));
    model.append(Ep.Flatten.new());
    model.append(Ep.Dropout.new(0.25));
    model.append(Ep.Linear.new(16, 2, true));
    const values = [];
    for (let i = 0; i < 2 * 6 * 6; i++)
        values.push(Math.sin(i));
    const x = Ep.Tensor.new_from_doubles(values, [2, 1, 6, 6], Ep.DType.FLOAT32);
    const [trainable, paths] = model.get_trainable_variables();
    assertEqual(paths.join(' '), '0.weight 0.bias 1.weight 1.bias 6.weight 6.bias', 'paths');
    const tape = Ep.GradientTape.new(false);
    tape.start();
    const loss = model.call(x).square().sum(null, false);
    tape.stop();
    const grads = tape.gradient([loss], trainable, null);
    assertEqual(grads.length, 6, 'gradients');
    assertEqual(grads[0].get_shape().join(','), '4,1,3,3', 'the weight gradient');
    Ep.Sgd.new(0.1, 0.0).apply_gradients(grads, trainable);
    assertEqual(model.get_variable('1.num_batches_tracked').read().to_string(), '1', 'one batch tracked');
    model.set_training(false);
    assertEqual(model.call(x).get_shape().join(','), '2,2', 'evaluation');
    const e = assertThrowsEp(Ep, Ep.Error.SHAPE, () => Ep.Conv2d.new(3, 4, 3, 3).call(x));
    assert(e.message.startsWith('Conv2d: '), e.message);
});

run();
