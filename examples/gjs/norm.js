// norm.js: the L2 norm of [1, 2, 3] by chaining, from gjs.
//
//   meson devenv -C _build gjs -m examples/gjs/norm.js
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';

const x = Ep.Tensor.new_from_doubles([1, 2, 3], [3], Ep.DType.FLOAT32);
print(x.square().sum(null, false).sqrt().to_string());
