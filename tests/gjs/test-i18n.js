// test-i18n.js: error messages in German from gjs. meson runs it with
// LANGUAGE=de, a German locale (LOCPATH, LC_ALL) and EP_TEST_LOCALEDIR.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';
import GLib from 'gi://GLib';
import Gettext from 'gettext';

import {test, run, assertEqual, assertThrowsEp} from './harness.js';

// The library is loaded at its first call, after this binding: it keeps
// the binding it finds (core/i18n.c).
Gettext.setlocale(Gettext.LocaleCategory.ALL, '');
Gettext.bindtextdomain('eager-glib', GLib.getenv('EP_TEST_LOCALEDIR'));

test('a shape error in German', () => {
    const three = Ep.zeros([3], Ep.DType.FLOAT32);
    const e = assertThrowsEp(Ep, Ep.Error.SHAPE, () => three.add(Ep.zeros([4], Ep.DType.FLOAT32)));
    assertEqual(e.message,
        'add: Die Formen (3,) und (4,) lassen sich nicht gegeneinander aufweiten (Broadcasting)', 'message');
});

test('numbers still print with a point', () => {
    const x = Ep.Tensor.new_from_doubles([1.5, 2], [2], Ep.DType.FLOAT32);
    assertEqual(x.to_string(), '[1.5 2. ]', 'text');
});

test('German singular and a printing error in German', () => {
    const three = Ep.zeros([3], Ep.DType.FLOAT32);
    const axis = assertThrowsEp(Ep, Ep.Error.AXIS, () => three.sum([2], false));
    assertEqual(axis.message,
        'sum: Achse 2 liegt außerhalb des Bereichs eines Tensors mit 1 Dimension', 'one dimension');
    three.release();
    const released = assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => three.to_string());
    assertEqual(released.message, 'to_string: Der Tensor wurde freigegeben und hat keine Daten mehr',
        'printing reads numbers in the C locale, not its messages');
});

run();
