// script.js: run by build-aux/install-check against the installed typelib.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';
import System from 'system';

const x = Ep.Tensor.new_from_doubles([1, 2, 3], [3], Ep.DType.FLOAT32);
const text = x.square().sum(null, false).sqrt().to_string();
print(`gjs: ${text}`);

// the module ep.js, a resource of the installed library (docs/gjs.md)
await import('resource:///org/gnome/EagerGlib/js/ep.js');
const idiomatic = `${Ep.tensor([1, 2, 3]).square().sum().sqrt()}`;
print(`gjs with ep.js: ${idiomatic}`);
System.exit(text === '3.7416575' && idiomatic === text ? 0 : 1);
