// test-checkpoint.js: checkpoints of named variables in gjs: saved and
// restored, a mismatch named, and the async variants on a main loop.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';

import {test, run, assertEqual, assertThrowsEp} from './harness.js';

const matrix = (values, shape) => Ep.Tensor.new_from_doubles(values, shape, Ep.DType.FLOAT32);
const names = ['encoder.layers.0.weight', 'encoder.layers.0.bias'];

function withFile(fn) {
    const folder = Gio.File.new_for_path(GLib.dir_make_tmp('ep-gjs-XXXXXX'));
    const file = folder.get_child('model.safetensors');
    try {
        fn(file);
    } finally {
        if (file.query_exists(null))
            file.delete(null);
        folder.delete(null);
    }
}

const model = (w, b) => [Ep.Variable.new(matrix(w, [2, 2]), null), Ep.Variable.new(matrix(b, [2]), null)];

test('variables are saved and restored', () => withFile(file => {
    Ep.checkpoint_save(names, model([1, 2, 3, 4], [5, 6]), file, null);
    const fresh = model([0, 0, 0, 0], [0, 0]);
    Ep.checkpoint_restore(names, fresh, file, Ep.CheckpointFlags.NONE, null);
    assertEqual(fresh[0].read().to_string(), '[[1. 2.]\n [3. 4.]]', 'weight');
    assertEqual(fresh[1].read().to_string(), '[5. 6.]', 'bias');
}));

test('a shape mismatch is a format error', () => withFile(file => {
    Ep.checkpoint_save(names, model([1, 2, 3, 4], [5, 6]), file, null);
    const wrong = [Ep.Variable.new(matrix([0, 0, 0, 0], [4]), null)];
    assertThrowsEp(Ep, Ep.Error.FORMAT, () =>
        Ep.checkpoint_restore(names.slice(0, 1), wrong, file, Ep.CheckpointFlags.PARTIAL, null));
}));

test('async save and restore on a main loop', () => withFile(file => {
    const loop = GLib.MainLoop.new(null, false);
    const fresh = model([0, 0, 0, 0], [0, 0]);
    Ep.checkpoint_save_async(names, model([1, 2, 3, 4], [5, 6]), file, null, (_source, result) => {
        Ep.checkpoint_save_finish(result);
        Ep.checkpoint_restore_async(names, fresh, file, Ep.CheckpointFlags.NONE, null, (_s, r) => {
            Ep.checkpoint_restore_finish(r);
            loop.quit();
        });
    });
    loop.run();
    assertEqual(fresh[1].read().to_string(), '[5. 6.]', 'bias');
}));

test('the state of an optimizer is saved with the model and restored', () => withFile(file => {
    const grad = [matrix([1, -1, 0.5, 2], [2, 2]), matrix([0.25, -3], [2])];
    const straight = model([1, 2, 3, 4], [5, 6]);
    const opt = Ep.Adam.new(0.1);
    for (let i = 0; i < 4; i++)
        opt.apply_gradients(grad, straight);

    const saved = model([1, 2, 3, 4], [5, 6]);
    const savedOpt = Ep.Adam.new(0.1);
    for (let i = 0; i < 2; i++)
        savedOpt.apply_gradients(grad, saved);
    const [state, stateNames] = savedOpt.list_state(null, names, saved);
    assertEqual(stateNames.join(' '), 'optimizer.iterations ' +
        'optimizer.encoder.layers.0.weight.exp_avg optimizer.encoder.layers.0.weight.exp_avg_sq ' +
        'optimizer.encoder.layers.0.bias.exp_avg optimizer.encoder.layers.0.bias.exp_avg_sq', 'names');
    Ep.checkpoint_save(names.concat(stateNames), saved.concat(state), file, null);

    const fresh = model([0, 0, 0, 0], [0, 0]);
    const freshOpt = Ep.Adam.new(0.1);
    const [freshState, freshNames] = freshOpt.list_state(null, names, fresh);
    Ep.checkpoint_restore(names.concat(freshNames), fresh.concat(freshState), file,
        Ep.CheckpointFlags.NONE, null);
    for (let i = 0; i < 2; i++)
        freshOpt.apply_gradients(grad, fresh);
    assertEqual(fresh[0].read().to_string(), straight[0].read().to_string(), 'weight');
    assertEqual(fresh[1].read().to_string(), straight[1].read().to_string(), 'bias');
}));

run();
