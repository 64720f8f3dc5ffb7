// test-bare-objects.js: objects made with `new` and no properties, scopes
// closed twice: errors a script can catch, never a crash or a critical
// (the test runs with G_DEBUG=fatal-criticals).
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';

import {test, run, assert, assertEqual, assertThrowsEp} from './harness.js';

const x = Ep.Tensor.new_from_doubles([1, 2], [2], Ep.DType.FLOAT32);

test('a device made with new stands for none', () => {
    const device = new Ep.Device();
    assertEqual(device.get_kind(), null, 'kind');
    const e = assertThrowsEp(Ep, Ep.Error.DEVICE, () => x.to_device(device));
    assert(e.message.includes('not a device of this machine'), e.message);
    assertThrowsEp(Ep, Ep.Error.DEVICE, () => device.push());
});

test('a ValueAndGradFn made with new has no function to call', () => {
    const fn = new Ep.ValueAndGradFn();
    const e = assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => fn.call([x]));
    assert(e.message.includes('no function'), e.message);
});

test('a Function made with new has no function to call', () => {
    assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => new Ep.Function().call([x]));
});

test('a tensor made with new has no data', () => {
    const e = assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => new Ep.Tensor().add(x));
    assert(e.message.includes('has no data'), e.message);
});

test('popping a scope that is not open is an error', () => {
    const cpu = Ep.Device.get('cpu:0');
    assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => cpu.pop());
    assertEqual(Ep.Device.get_current(), null, 'current device');
});

test('resuming a tape that is not paused is an error', () => {
    const tape = Ep.GradientTape.new(false);
    tape.start();
    tape.stop_recording();
    tape.resume_recording();
    assertThrowsEp(Ep, Ep.Error.GRADIENT, () => tape.resume_recording());
    assert(tape.is_recording(), 'still recording');
    tape.stop();
});

test('no raw address is introspected', () => {
    // from a binding an address is any number: only GLib.Bytes carries data
    assertEqual(Ep.Tensor.new_from_data, undefined, 'new_from_data');
    assertEqual(Ep.Tensor.prototype.read_data, undefined, 'read_data');
});

run();
