// norm.js: the L2 norm of [1, 2, 3] by chaining, from gjs.
//
//   meson devenv -C _build gjs -m examples/gjs/norm.js
//
// With the module ep.js (docs/gjs.md) arguments may be left out and
// arrays go where tensors do; without it the same line is
// x.square().sum(null, false).sqrt().to_string() on a tensor made with
// Ep.Tensor.new_from_doubles([1, 2, 3], [3], Ep.DType.FLOAT32).
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';
await import('resource:///org/gnome/EagerGlib/js/ep.js');

const x = Ep.tensor([1, 2, 3]);
print(x.square().sum().sqrt());
