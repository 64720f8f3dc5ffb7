// test-function.js: staged functions from gjs: replays that never call
// back into JavaScript, async calls on the main loop, and a training loop
// whose memory stays flat without System.gc().
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';

import {test, run, assert, assertEqual, assertThrowsEp} from './harness.js';

const MB = 1024 * 1024;

const vector = (values, shape = [values.length]) =>
    Ep.Tensor.new_from_doubles(values, shape, Ep.DType.FLOAT32);

function residentBytes() {
    const [, contents] = GLib.file_get_contents('/proc/self/statm');
    const pages = Number(new TextDecoder().decode(contents).split(' ')[1]);
    return pages * 4096;
}

// loss = sum((w - x)²); w -= 0.25 * dloss/dw. The loss goes to a variable
// too, so that a caller may take no result at all.
function makeStep(w, lastLoss, results = true) {
    let calls = 0;
    const step = Ep.Function.new(inputs => {
        calls++;
        const tape = Ep.GradientTape.new(false);
        tape.start();
        const loss = w.read().sub(inputs[0]).square().sum(null, false);
        tape.stop();
        const [grad] = tape.gradient([loss], [w], null);
        w.assign_sub(grad.mul_scalar(0.25));
        lastLoss.assign(loss);
        return results ? [loss] : [];
    });
    return [step, () => calls];
}

test('replays do not call the JavaScript function', () => {
    const w = Ep.Variable.new(vector([1, 2]), 'w');
    const [step, calls] = makeStep(w, Ep.Variable.new(vector([0], []), 'loss'));
    const x = vector([5, 6]);
    for (let i = 0; i < 5; i++)
        step.call([x]);
    assertEqual(calls(), 1, 'calls');
    assertEqual(step.get_trace_count(), 1, 'traces');
});

test('a relaxed signature serves every batch size with one graph', () => {
    const spec = Ep.TensorSpec.new([-1, 2], Ep.DType.FLOAT32);
    let calls = 0;
    const rowSums = Ep.Function.new_with_signature(inputs => {
        calls++;
        return [inputs[0].sum([1], false)];
    }, [spec]);
    const [a] = rowSums.call([vector([1, 2, 3, 4], [2, 2])]);
    // a second batch size traces once more, to check that the function
    // computes the same whatever the batch; a third one is replayed
    const [b] = rowSums.call([vector([1, 1, 2, 2, 3, 3], [3, 2])]);
    const [c] = rowSums.call([vector([5, 5], [1, 2])]);
    assertEqual(a.to_string(), '[3. 7.]', 'two rows');
    assertEqual(b.to_string(), '[2. 4. 6.]', 'three rows');
    assertEqual(c.to_string(), '[10.]', 'one row');
    assertEqual(calls, 2, 'traces');
    assertThrowsEp(Ep, Ep.Error.SHAPE, () => rowSums.call([vector([1, 2, 3], [1, 3])]));
});

test('a function made without a callback is an error, not a crash', () => {
    const bare = new Ep.Function();
    const e = assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => bare.call([vector([1])]));
    assert(e.message.includes('without a function'), e.message);
});

test('an exception in the traced function reaches the caller', () => {
    const broken = Ep.Function.new(inputs => inputs[0].add(vector([1, 2, 3])));
    assertThrowsEp(Ep, Ep.Error.SHAPE, () => broken.call([vector([1, 2])]));
    assertEqual(broken.get_trace_count(), 0, 'no graph kept');
});

// Runs the main loop until the async call completes.
function callAsync(step, inputs, cancellable = null, cancelAtOnce = false) {
    const loop = GLib.MainLoop.new(null, false);
    let outcome;
    step.call_async(inputs, cancellable, (source, result) => {
        try {
            outcome = {results: source.call_finish(result)};
        } catch (e) {
            outcome = {error: e};
        }
        loop.quit();
    });
    if (cancelAtOnce)
        cancellable.cancel();
    loop.run();
    return outcome;
}

test('call_async replays off the main loop and completes on it', () => {
    const w = Ep.Variable.new(vector([1, 2]), 'w');
    const [step] = makeStep(w, Ep.Variable.new(vector([0], []), 'loss'));
    const x = vector([5, 6]);
    const losses = [0, 1, 2].map(() => {
        const {results, error} = callAsync(step, [x]);
        assert(error === undefined, `${error}`);
        return results[0].item_double();
    });
    assertEqual(JSON.stringify(losses), '[32,8,2]', 'losses');
    assertEqual(w.read().to_string(), '[4.5 5.5]', 'w');
});

test('a cancelled call_async leaves the variables as they were', () => {
    const w = Ep.Variable.new(vector([1, 2]), 'w');
    const [step] = makeStep(w, Ep.Variable.new(vector([0], []), 'loss'));
    const x = vector([5, 6]);
    callAsync(step, [x]);                       // traced: w = [3, 4]
    const {results, error} = callAsync(step, [x], Gio.Cancellable.new(), true);
    assertEqual(results, undefined, 'no results');
    assert(error.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED), `${error}`);
    assertEqual(w.read().to_string(), '[3. 4.]', 'w untouched');
});

// A host callback is JavaScript inside the graph: each replay calls it,
// on the main thread even when the replay runs on a worker.
test('host callbacks run at every replay, async ones on the main loop', () => {
    const seen = [];
    const logged = Ep.Function.new(inputs => {
        const [tripled] = Ep.host_call(args => {
            seen.push(args[0].item_double());
            return [args[0].mul_scalar(3)];
        }, null, [inputs[0]]);
        return [tripled.add_scalar(1)];
    });
    assertEqual(logged.call([vector([1], [])])[0].item_double(), 4, 'traced');
    assertEqual(logged.call([vector([2], [])])[0].item_double(), 7, 'replayed');
    const {results, error} = callAsync(logged, [vector([5], [])]);
    assert(error === undefined, `${error}`);
    assertEqual(results[0].item_double(), 16, 'replayed off the main loop');
    assertEqual(JSON.stringify(seen), '[1,2,5]', 'what the callback saw');
    assertEqual(logged.get_trace_count(), 1, 'traces');
});

test('a host gradient callback differentiates the call', () => {
    const x = vector([1, 2]);
    const tape = Ep.GradientTape.new(false);
    tape.watch(x);
    tape.start();
    const [y] = Ep.host_call(args => [args[0].square()],
        (args, outputGradients) => [outputGradients[0].mul(args[0].mul_scalar(2))], [x]);
    const total = y.sum(null, false);
    tape.stop();
    const [grad] = tape.gradient([total], [x], null);
    assertEqual(grad.to_string(), '[2. 4.]', 'gradient');
});

// gjs frees the objects it is given only when its garbage collector runs,
// which the size of a tensor does not hasten. A step that returns nothing
// makes no object: 100 000 steps in a plain loop keep the memory flat.
test('100 000 staged steps without System.gc() keep the memory flat', () => {
    const w = Ep.Variable.new(vector([1, 2]), 'w');
    const lastLoss = Ep.Variable.new(vector([0], []), 'loss');
    const [step] = makeStep(w, lastLoss, false);
    const inputs = [vector([5, 6])];
    let at10k = 0;
    for (let i = 1; i <= 100000; i++) {
        step.call(inputs);
        if (i === 10000)
            at10k = residentBytes();
    }
    const at100k = residentBytes();
    print(`# resident: ${(at10k / MB).toFixed(1)} MiB at 10k steps, ${(at100k / MB).toFixed(1)} MiB at 100k`);
    assert(at100k - at10k < 4 * MB, `grew by ${((at100k - at10k) / MB).toFixed(1)} MiB`);
    assertEqual(lastLoss.read().item_double(), 0, 'converged');
});

run();
