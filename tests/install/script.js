// script.js: run by build-aux/install-check against the installed typelib.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';
import System from 'system';

const x = Ep.Tensor.new_from_doubles([1, 2, 3], [3], Ep.DType.FLOAT32);
const text = x.square().sum(null, false).sqrt().to_string();
print(`gjs: ${text}`);
System.exit(text === '3.7416575' ? 0 : 1);
