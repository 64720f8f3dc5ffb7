// test-trainer.js: Ep.Trainer from gjs, as a GNOME app uses it: a
// JavaScript step traced once on the main thread, replayed on a worker
// that never calls back into JavaScript; progress on the main loop,
// which stays responsive; the devices as a GListModel.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';

import {test, run, assert, assertEqual, assertThrowsEp} from './harness.js';

const TRUE_W = [2, -3, 0.5];

function regression(rows = 64) {
    const xs = [], ys = [];
    let seed = 7;
    const next = () => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed / 1073741824 - 1;
    };
    for (let i = 0; i < rows; i++) {
        const row = TRUE_W.map(() => next());
        xs.push(...row);
        ys.push(row.reduce((sum, v, j) => sum + v * TRUE_W[j], 0));
    }
    return [Ep.Tensor.new_from_doubles(xs, [rows, 3], Ep.DType.FLOAT32),
        Ep.Tensor.new_from_doubles(ys, [rows, 1], Ep.DType.FLOAT32)];
}

// loss = mean((x·w − y)²); w -= 0.1 · dloss/dw, by a tape
function makeStep(w) {
    const calls = {n: 0, thread: []};
    const step = Ep.Function.new(inputs => {
        calls.n++;
        const [x, y] = inputs;
        const tape = Ep.GradientTape.new(false);
        tape.start();
        const loss = x.matmul(w.read()).sub(y).square().mean(null, false);
        tape.stop();
        const [grad] = tape.gradient([loss], [w], null);
        w.assign_sub(grad.mul_scalar(0.1));
        return [loss];
    });
    return [step, calls];
}

// Runs the main loop until the run is over, with a 10 ms timer that
// measures the longest gap between two of its calls.
function runAsync(trainer, nSteps, cancellable = null, onProgress = null) {
    const loop = GLib.MainLoop.new(null, false);
    const outcome = {progress: [], longestGapMs: 0};
    let last = GLib.get_monotonic_time();
    const timer = GLib.timeout_add(GLib.PRIORITY_DEFAULT, 10, () => {
        const now = GLib.get_monotonic_time();
        outcome.longestGapMs = Math.max(outcome.longestGapMs, (now - last) / 1000);
        last = now;
        return GLib.SOURCE_CONTINUE;
    });
    const handler = trainer.connect('progress', (_t, step, loss, rate) => {
        outcome.progress.push([step, loss, rate]);
        if (onProgress)
            onProgress();
    });
    trainer.run_async(nSteps, cancellable, (source, result) => {
        try {
            outcome.ok = source.run_finish(result);
        } catch (e) {
            outcome.error = e;
        }
        loop.quit();
    });
    loop.run();
    GLib.source_remove(timer);
    trainer.disconnect(handler);
    return outcome;
}

test('a trainer trains on a worker, JavaScript runs only to trace', () => {
    const [x, y] = regression();
    const w = Ep.Variable.new(Ep.Tensor.new_from_doubles([0, 0, 0], [3, 1], Ep.DType.FLOAT32), 'w');
    const [step, calls] = makeStep(w);
    const trainer = Ep.Trainer.new(step, x, y, 16);
    const outcome = runAsync(trainer, 2000);
    assert(outcome.error === undefined, `${outcome.error}`);
    assertEqual(calls.n, 1, 'the step ran in JavaScript once, to trace');
    const last = outcome.progress[outcome.progress.length - 1];
    assertEqual(last[0], 2000, 'last progress step');
    assert(last[1] < 1e-6, `loss ${last[1]}`);
    const want = Ep.Tensor.new_from_doubles(TRUE_W, [3, 1], Ep.DType.FLOAT32);
    const error = w.read().sub(want).abs().max(null, false).item_double();
    assert(error < 1e-3, `w: ${w.read().to_string()}`);
    print(`# 2000 steps: ${outcome.progress.length} progress signals, ` +
          `longest main loop gap ${outcome.longestGapMs.toFixed(1)} ms`);
    assert(outcome.longestGapMs < 50, `main loop stalled ${outcome.longestGapMs} ms`);
});

test('cancel and pause from the main loop', () => {
    const [x, y] = regression();
    const w = Ep.Variable.new(Ep.Tensor.new_from_doubles([0, 0, 0], [3, 1], Ep.DType.FLOAT32), 'w');
    const [step] = makeStep(w);
    const trainer = new Ep.Trainer({step_function: step, x, y, batch_size: 8, progress_interval: 0});
    const cancellable = Gio.Cancellable.new();
    let paused = false, pausedAt = -1, stepsWhilePaused = -1;
    const outcome = runAsync(trainer, 10000000, cancellable, () => {
        if (paused)
            return;
        paused = true;
        trainer.paused = true;
        // the step under way, if any, ends first: then none while paused
        GLib.timeout_add(GLib.PRIORITY_DEFAULT, 30, () => {
            pausedAt = trainer.step;
            GLib.timeout_add(GLib.PRIORITY_DEFAULT, 30, () => {
                stepsWhilePaused = trainer.step - pausedAt;
                cancellable.cancel();
                return GLib.SOURCE_REMOVE;
            });
            return GLib.SOURCE_REMOVE;
        });
    });
    assertEqual(stepsWhilePaused, 0, 'no step while paused');
    assert(outcome.error.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED), `${outcome.error}`);
    assertEqual(trainer.step, pausedAt, 'the run ended where it was paused');
    assert(!trainer.running, 'not running');
    const [value] = trainer.snapshot_variables([w]);
    assertEqual(value.to_string(), w.read().to_string(), 'snapshot');
});

// An optimizer's step computes its scalars (Adam's bias corrections) in
// a host call, which runs on the run's main context: a snapshot taken
// there while a step waits for that call runs it instead of waiting
// forever.
test('snapshots while an optimizer trains: no deadlock, values between steps', () => {
    const [x, y] = regression();
    const w = Ep.Variable.new(Ep.Tensor.new_from_doubles([0, 0, 0], [3, 1], Ep.DType.FLOAT32), 'w');
    const optimizer = Ep.Adam.new(0.05);
    const step = Ep.Function.new(([xb, yb]) => {
        const tape = Ep.GradientTape.new(false);
        tape.start();
        const loss = xb.matmul(w.read()).sub(yb).square().mean(null, false);
        tape.stop();
        optimizer.apply_gradients(tape.gradient([loss], [w], null), [w]);
        return [loss];
    });
    const trainer = new Ep.Trainer({step_function: step, x, y, batch_size: 16, progress_interval: 0});
    const iterations = optimizer.get_iterations_variable();
    const counts = [];
    const outcome = runAsync(trainer, 1000, null, () => {
        const [, count] = trainer.snapshot_variables([w, iterations]);
        counts.push(Number(count.item_int64()));
    });
    assert(outcome.error === undefined, `${outcome.error}`);
    assert(counts.length > 0, 'snapshots taken');
    assert(counts.every((c, i) => i === 0 || c >= counts[i - 1]), `step counts ${counts}`);
    assertEqual(Number(optimizer.get_iterations()), 1000, 'steps');
    print(`# ${counts.length} snapshots during 1000 Adam steps, ` +
          `longest main loop gap ${outcome.longestGapMs.toFixed(1)} ms`);
});

test('a bare trainer is an error, not a crash', () => {
    const outcome = runAsync(new Ep.Trainer(), 3);
    assert(outcome.error.message.includes('step function'), outcome.error.message);
    assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => new Ep.Trainer().run(1, null));
});

test('the devices as a GListModel for a Gtk.DropDown', () => {
    const devices = Ep.DeviceList.get_default();
    const names = [];
    for (let i = 0; i < devices.get_n_items(); i++)
        names.push(devices.get_item(i).name);
    assertEqual(names.join(','), Ep.list_devices().map(d => d.get_name()).join(','), 'names');
    assertEqual(devices.current_device.name, 'cpu:0', 'current');
    const seen = [];
    devices.connect('notify::current-device', () => seen.push(devices.current_device.name));
    const last = Ep.list_devices().at(-1);
    last.push();
    assertEqual(devices.current_device.name, last.name, 'in the scope');
    last.pop();
    assertEqual(devices.current_device.name, 'cpu:0', 'after the scope');
    if (last.name !== 'cpu:0')
        assertEqual(seen.join(','), `${last.name},cpu:0`, 'notified');
    assert(Ep.Device.get('cpu:0').bytes_in_use > 0, 'bytes in use');
});

run();
