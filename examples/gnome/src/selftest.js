// selftest.js: drives the real app through its work, for the test under
// Xvfb (examples/gnome/meson.build): eager-glib-digits --self-test=DIR
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// It uses the window's own actions (the buttons' win.train, win.pause,
// win.cancel), draws through the canvas's stroke functions (those the
// pointer's drag calls), and checks the outcome by its values: the loss
// fell, the held-out accuracy is high, drawn digits are read right, a
// checkpoint reloaded into a fresh model predicts the same, the
// screenshot shows the plot. It prints what it measured (the main loop's
// longest gap, steps per second, resident memory) and returns the exit
// status: 0, or 1 when a check failed.
//
// EP_DIGITS_TEST_MIN_S (3 unless set) and EP_DIGITS_TEST_TRAIN_S (30)
// bound the training in seconds; EP_DIGITS_TEST_SLOW=1 (the sanitizer
// build) reports the main loop's longest gap without failing on it.

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';

import Ep from 'gi://Ep?version=1.0';
import EpGtk from 'gi://EpGtk?version=1.0';

import {DigitsModel} from './model.js';
import {ACCURACY_COLOR, LOSS_COLOR} from './plot.js';
import {residentMiB} from './monitor.js';

const MIN_TRAIN_S = Number(GLib.getenv('EP_DIGITS_TEST_MIN_S') ?? 3);         // train at least this long
const WANTED_ACCURACY = 0.97;   // then stop once the held-out accuracy reaches it
const MAX_GAP_MS = 50;
const MAX_RSS_GROWTH_MIB = 64;  // from the first progress report to the end

// Strokes of digits, in [0, 1]² of the canvas, drawn the way the data
// set's writers drew them (a 7 with a bar, a slanted 1 with a flag): the
// network has seen no other kind.
const DIGITS = {
    0: [Array.from({length: 41}, (_, i) => {
        const a = 2 * Math.PI * i / 40;
        return [0.5 + 0.22 * Math.sin(a), 0.5 - 0.36 * Math.cos(a)];
    })],
    1: [[[0.42, 0.30], [0.62, 0.12], [0.48, 0.88]]],
    7: [[[0.28, 0.16], [0.72, 0.16], [0.46, 0.86]], [[0.40, 0.52], [0.70, 0.52]]],
};

function sleep(ms) {
    return new Promise(resolve => GLib.timeout_add(GLib.PRIORITY_DEFAULT, ms, () => {
        resolve();
        return GLib.SOURCE_REMOVE;
    }));
}

// Resolves when the model's run is over.
function runEnded(model) {
    return new Promise(resolve => {
        if (!model.running) {
            resolve();
            return;
        }
        const id = model.connect('notify::running', () => {
            if (!model.running) {
                model.disconnect(id);
                resolve();
            }
        });
    });
}

class Checks {
    constructor() {
        this.failed = 0;
    }

    check(ok, what) {
        print(`${ok ? 'ok' : 'FAIL'}: ${what}`);
        if (!ok)
            this.failed++;
    }
}

// Draws the strokes through the canvas's stroke path, point by point,
// as a fast pointer would (a move every 2 ms), then lets the prediction
// follow.
async function draw(canvas, strokes) {
    const [width, height] = [canvas.get_width(), canvas.get_height()];
    canvas.clear();
    for (const stroke of strokes) {
        canvas.beginStroke(stroke[0][0] * width, stroke[0][1] * height);
        for (let i = 1; i < stroke.length; i++) {
            const [[ax, ay], [bx, by]] = [stroke[i - 1], stroke[i]];
            const n = Math.max(1, Math.ceil(Math.hypot(bx - ax, by - ay) / 0.02));
            for (let k = 1; k <= n; k++) {
                canvas.extendStroke((ax + (bx - ax) * k / n) * width, (ay + (by - ay) * k / n) * height);
                await sleep(2);
            }
        }
    }
    await sleep(50);
}

// Activates a window action, as its button does (a stateful one, such as
// pause, toggles).
function press(window, name) {
    window.lookup_action(name).activate(null);
}

const argmax = values => values.indexOf(Math.max(...values));

// Pixels of the screenshot within 40 of colour in each channel.
function countColor(pixels, [r, g, b]) {
    return Ep.tidy(() => {
        const rgb = pixels.slice([0, 0, 0], [pixels.shape[0], pixels.shape[1], 3], null).astype('int32');
        const target = Ep.tensor([r, g, b].map(v => Math.round(255 * v)), [3], 'int32');
        return Number(rgb.sub(target).abs().max(2, false).less_equal(40)
            .astype('int64').sum().item_int64());
    });
}

function distinctColors(pixels) {
    const data = new Uint32Array(pixels.toTypedArray({copy: true}).buffer);
    return new Set(data).size;
}

async function train(window, checks, limitS) {
    const model = window.model;
    const start = GLib.get_monotonic_time();
    const elapsed = () => (GLib.get_monotonic_time() - start) / 1e6;
    press(window, 'train');
    checks.check(model.running, 'the Train action started a run');

    // pause: no step while paused
    await sleep(800);
    press(window, 'pause');
    await sleep(100);
    const pausedAt = model.iterations;
    await sleep(300);
    checks.check(model.iterations === pausedAt, `no step while paused (step ${pausedAt})`);
    press(window, 'pause');

    // the prediction follows the training: draw while it runs
    await draw(window.canvas, DIGITS[0]);
    checks.check(window.prediction !== null, 'a prediction while training');

    let nextReport = 0;
    while (elapsed() < limitS && !(elapsed() >= MIN_TRAIN_S && window.accuracy >= WANTED_ACCURACY)) {
        await sleep(100);
        if (elapsed() >= nextReport) {
            print(`# ${elapsed().toFixed(1)} s: step ${model.iterations}, RSS ${residentMiB().toFixed(1)} MiB`);
            nextReport += 5;
        }
    }
    press(window, 'cancel');
    await runEnded(model);
    return elapsed();
}

/**
 * Runs the test against window, leaving its screenshot in dir.
 *
 * @returns {Promise<number>} the exit status
 */
export async function runSelfTest(window, dir) {
    const checks = new Checks();
    const limitS = Number(GLib.getenv('EP_DIGITS_TEST_TRAIN_S') ?? 30);
    const slow = GLib.getenv('EP_DIGITS_TEST_SLOW') === '1';
    GLib.mkdir_with_parents(dir, 0o755);
    await sleep(300);   // the window is shown
    const rssBefore = residentMiB();

    const seconds = await train(window, checks, limitS);
    const losses = window.losses.map(p => p[1]);
    const mean = values => values.reduce((a, b) => a + b, 0) / values.length;
    const firstLoss = mean(losses.slice(0, 3)), lastLoss = mean(losses.slice(-3));
    const rssEnd = residentMiB();
    print(`# trained ${seconds.toFixed(1)} s: ${window.model.iterations} steps on ` +
          `${window.model.device.name}, ${window.stepsPerSecond.toFixed(0)} steps/s`);
    print(`# loss ${firstLoss.toFixed(4)} → ${lastLoss.toFixed(4)}, held-out accuracy ` +
          `${(100 * window.accuracy).toFixed(1)} %`);
    print(`# longest main-loop gap while training: ${window.stallMeter.maxGapMs.toFixed(1)} ms ` +
          `(the step's trace, once at the start: ${window.traceMs.toFixed(0)} ms)`);
    print(`# RSS: ${rssBefore.toFixed(1)} MiB before training, ${window.rssStartMiB.toFixed(1)} MiB ` +
          `at its first progress report, ${rssEnd.toFixed(1)} MiB at its end`);
    checks.check(losses.length >= 5 && lastLoss < 0.5 * firstLoss, 'the loss fell by half or more');
    checks.check(window.accuracy >= 0.9, 'held-out accuracy 90 % or more');
    if (slow)
        print(`# (sanitizer build: the gap is reported, not checked against ${MAX_GAP_MS} ms)`);
    else
        checks.check(window.stallMeter.maxGapMs < MAX_GAP_MS, `main loop never stalled ${MAX_GAP_MS} ms`);
    // the sanitizers' allocator keeps more (its quarantine, its shadow)
    const maxGrowth = slow ? 2 * MAX_RSS_GROWTH_MIB : MAX_RSS_GROWTH_MIB;
    checks.check(rssEnd - window.rssStartMiB < maxGrowth,
        `memory flat while training (under ${maxGrowth} MiB more)`);

    // the 0 last: the checkpoint's prediction below is of it
    for (const digit of [7, 1, 0]) {
        await draw(window.canvas, DIGITS[digit]);
        const p = window.prediction;
        print(`# drew a ${digit}: ${Array.from(p, v => (100 * v).toFixed(0)).join(' ')} %`);
        checks.check(argmax(p) === digit, `the drawn ${digit} is read as ${digit}`);
    }

    // a checkpoint, reloaded into a fresh model, predicts the same
    const file = Gio.File.new_for_path(GLib.build_filenamev([dir, 'digits-self-test.safetensors']));
    await window.model.save(file);
    const fresh = new DigitsModel(window.model._data);
    await fresh.load(file);
    const again = Ep.tidy(() => fresh.predict(window.canvas.toTensor())[0]);
    const difference = Math.max(...again.map((v, i) => Math.abs(v - window.prediction[i])));
    checks.check(difference < 1e-5, `the reloaded model predicts the same (${difference.toExponential(1)})`);

    await sleep(200);   // the last figures drawn
    const png = GLib.build_filenamev([dir, 'digits-self-test.png']);
    const texture = window.screenshot();
    texture.save_to_png(png);
    print(`# screenshot: ${png} (${texture.get_width()} × ${texture.get_height()})`);
    const pixels = EpGtk.tensor_new_from_texture(texture, Ep.DType.UINT8);
    const colors = distinctColors(pixels);
    const lossPixels = countColor(pixels, LOSS_COLOR), accuracyPixels = countColor(pixels, ACCURACY_COLOR);
    print(`# ${colors} colours, ${lossPixels} loss pixels, ${accuracyPixels} accuracy pixels`);
    checks.check(colors >= 50, 'the screenshot is not blank');
    checks.check(lossPixels >= 100 && accuracyPixels >= 100, 'the screenshot shows both curves');

    print(checks.failed ? `${checks.failed} checks failed` : 'all checks passed');
    return checks.failed ? 1 : 0;
}
