// overrides/Ep.js: what gjs runs when a program imports Ep
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// gjs runs the _init() of overrides/<Namespace>.js found on its search
// path (GJS_PATH, then $XDG_DATA_DIRS/gjs-1.0) when a program imports that
// namespace. This one changes nothing in Ep: it loads libeager-glib, whose
// constructor registers the GResource with the ES module ep.js, so that
//
//     import Ep from 'gi://Ep?version=1.0';
//     await import('resource:///org/gnome/EagerGlib/js/ep.js');
//
// finds the module (without this the library would load only at the first
// call into it).
// The idioms themselves are in ep.js, for programs that import it.

/* exported _init */
function _init() {
    // the type of Ep.Tensor is looked up in the library: this loads it
    void this.Tensor;
}
