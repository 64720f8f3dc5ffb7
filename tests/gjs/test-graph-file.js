// test-graph-file.js: graph files in gjs: one saved from Python (the file
// committed in tests/data, made by tests/data/make-graph-files.py) runs
// here without its code; one traced here is saved and loaded back.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';

import {test, run, assert, assertEqual, assertThrowsEp} from './harness.js';

const data = Gio.File.new_for_uri(import.meta.url).get_parent().get_parent().get_child('data');
const affine = data.get_child('affine.json');

const matrix = (values, shape) => Ep.Tensor.new_from_doubles(values, shape, Ep.DType.FLOAT32);

// A folder for the files a test writes, removed afterwards
function withFolder(fn) {
    const folder = Gio.File.new_for_path(GLib.dir_make_tmp('ep-gjs-XXXXXX'));
    try {
        fn(folder);
    } finally {
        const children = folder.enumerate_children('standard::name', Gio.FileQueryInfoFlags.NONE, null);
        for (let info; (info = children.next_file(null)) !== null;)
            folder.get_child(info.get_name()).delete(null);
        folder.delete(null);
    }
}

test('a graph saved from Python runs: x @ weights + bias', () => {
    const fn = Ep.Function.load(affine, null);
    const [out] = fn.call([matrix([1, 0, 0, 0, 1, 1], [2, 3])]);
    assertEqual(out.to_string(), '[[1.5 1.5]\n [8.5 9.5]]', 'result');
    assertEqual(fn.get_trace_count(), 0, 'no trace');
});

test('its signature leaves the batch unknown', () => {
    const fn = Ep.Function.load(affine, null);
    const [spec] = fn.get_signature();
    assertEqual(JSON.stringify(spec.get_shape()), '[-1,3]', 'shape');
    const [out] = fn.call([matrix([0, 0, 1, 0, 0, 1, 1, 0, 0], [3, 3])]);
    assertEqual(out.to_string(), '[[5.5 5.5]\n [5.5 5.5]\n [1.5 1.5]]', 'three rows');
    assertThrowsEp(Ep, Ep.Error.SHAPE, () => fn.call([matrix([1, 2], [1, 2])]));
});

test('its variable comes with the function', () => {
    const variables = Ep.Function.load(affine, null).get_variables();
    assertEqual(variables.length, 1, 'one variable');
    assertEqual(variables[0].get_name(), 'weights', 'name');
    assertEqual(variables[0].read().to_string(), '[[1. 2.]\n [3. 4.]\n [5. 6.]]', 'value');
});

test('a function traced in gjs is saved and loaded back', () => withFolder(folder => {
    const fn = Ep.Function.new(inputs => [inputs[0].mul(inputs[0]).sum(null, false)]);
    fn.call([matrix([1, 2], [2])]);
    const file = folder.get_child('square.json');
    fn.save([Ep.TensorSpec.new([2], Ep.DType.FLOAT32)], file, null);
    assert(folder.get_child('square.safetensors').query_exists(null), 'the tensors file');

    const [out] = Ep.Function.load(file, null).call([matrix([3, 4], [2])]);
    assertEqual(out.to_string(), '25.0', 'result');
}));

test('missing and damaged files are Ep errors', () => withFolder(folder => {
    let e = assertThrowsEp(Ep, Ep.Error.IO, () => Ep.Function.load(folder.get_child('missing.json'), null));
    assert(e.message.includes('missing.json'), e.message);

    const bad = folder.get_child('bad.json');
    bad.replace_contents('{"format": "eager-glib-graph", "version": 99}', null, false,
        Gio.FileCreateFlags.NONE, null);
    e = assertThrowsEp(Ep, Ep.Error.FORMAT, () => Ep.Function.load(bad, null));
    assert(e.message.includes('newer eager-glib'), e.message);
}));

run();
