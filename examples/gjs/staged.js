// staged.js: a staged function from gjs, traced and replayed in C.
//
//   meson devenv -C _build gjs -m examples/gjs/staged.js
//
// The norm of each row of x, times a variable: one graph for any number
// of rows (a relaxed signature: the second number of rows traces again,
// to check that the function computes the same whatever the rows),
// reading the variable's current value at every call. A replay makes no
// JavaScript object but its results.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';
import System from 'system';

const scale = Ep.Variable.new(Ep.Tensor.new_scalar(1, Ep.DType.FLOAT32), 'scale');
const scaledNorms = Ep.Function.new_with_signature(
    inputs => [inputs[0].square().sum([1], false).sqrt().mul(scale.read())],
    [Ep.TensorSpec.new([-1, 3], Ep.DType.FLOAT32)]);

const rows = (values, n) => Ep.Tensor.new_from_doubles(values, [n, 3], Ep.DType.FLOAT32);
print(scaledNorms.call([rows([3, 4, 0, 0, 0, 5], 2)])[0].to_string());           // traced: [5. 5.]
print(scaledNorms.call([rows([1, 2, 2, 2, 3, 6, 0, 0, 0], 3)])[0].to_string());  // traced again: [3. 7. 0.]
scale.assign(Ep.Tensor.new_scalar(2, Ep.DType.FLOAT32));
print(scaledNorms.call([rows([0, 3, 4], 1)])[0].to_string());                     // replayed: [10.]
print(`traced ${scaledNorms.get_trace_count()} times`);
System.exit(scaledNorms.get_trace_count() === 2 ? 0 : 1);
