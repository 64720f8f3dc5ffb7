// harness.js: a small TAP harness for the gjs tests (meson reads TAP)
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import GLib from 'gi://GLib';
import System from 'system';

const tests = [];

export function test(name, fn) {
    tests.push([name, fn]);
}

export function run() {
    let failed = 0;
    print(`1..${tests.length}`);
    tests.forEach(([name, fn], i) => {
        try {
            fn();
            print(`ok ${i + 1} - ${name}`);
        } catch (e) {
            failed++;
            print(`not ok ${i + 1} - ${name}`);
            for (const line of `${e}\n${e.stack ?? ''}`.split('\n'))
                print(`# ${line}`);
        }
    });
    System.exit(failed > 0 ? 1 : 0);
}

export function assert(condition, what) {
    if (!condition)
        throw new Error(`assertion failed: ${what}`);
}

export function assertEqual(got, expected, what = '') {
    if (got !== expected)
        throw new Error(`${what}: got ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
}

export function assertClose(got, expected, tolerance, what = '') {
    if (!(Math.abs(got - expected) <= tolerance))
        throw new Error(`${what}: got ${got}, expected ${expected} ± ${tolerance}`);
}

// Calls fn and returns the GLib.Error it throws, checking domain and code.
export function assertThrowsEp(Ep, code, fn) {
    try {
        fn();
    } catch (e) {
        assert(e instanceof GLib.Error, `a GLib.Error, not ${e}`);
        assert(e.matches(Ep.Error, code), `code ${code}, got ${e.code}: ${e.message}`);
        return e;
    }
    throw new Error('no error thrown');
}
