// staged-mlp.js: the MLP epoch of bench/run from gjs, eager and staged
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Usage: gjs -m staged-mlp.js DIR [EPOCHS], DIR as for bench/staged-mlp.c
// (the digits and the initial weights, written by bench/run). The same
// step as the C one: forward, gradients by a tape, SGD (0.1), batch 32;
// eagerly, then as an Ep.Function with the batch dimension unknown.
// Prints one JSON object as the C program does: each way's best and
// median seconds per epoch (of EPOCHS, 6 unless given; the first, which
// traces, not counted: it is "first"), the losses, and the process's peak
// resident memory.
import GLib from 'gi://GLib';
import System from 'system';
import Ep from 'gi://Ep?version=1.0';

const N_SAMPLES = 1797;
const BATCH = 32;
const EPOCHS = ARGV.length > 1 ? parseInt(ARGV[1]) : 6;

const dir = ARGV[0];
if (!dir || !(EPOCHS >= 2)) {
    printerr('usage: gjs -m staged-mlp.js DIR [EPOCHS (2 or more)]');
    System.exit(2);
}

function load(name, dtype, shape) {
    const [, contents] = GLib.file_get_contents(GLib.build_filenamev([dir, name]));
    return Ep.Tensor.new_from_bytes(new GLib.Bytes(contents), dtype, shape);
}

const x = load('x.f32', Ep.DType.FLOAT32, [N_SAMPLES, 64]);
const y = load('y.i64', Ep.DType.INT64, [N_SAMPLES]);
const initial = [
    load('w1.f32', Ep.DType.FLOAT32, [64, 128]), load('b1.f32', Ep.DType.FLOAT32, [128]),
    load('w2.f32', Ep.DType.FLOAT32, [128, 10]), load('b2.f32', Ep.DType.FLOAT32, [10]),
];

const batches = [];
for (let start = 0; start < N_SAMPLES; start += BATCH) {
    const stop = Math.min(start + BATCH, N_SAMPLES);
    batches.push([x.slice([start], [stop], null).contiguous(), y.slice([start], [stop], null).contiguous()]);
}

function makeStep(params) {
    return inputs => {
        const tape = Ep.GradientTape.new(false);
        tape.start();
        const [w1, b1, w2, b2] = params.map(p => p.read());
        const z = inputs[0].matmul(w1).add(b1).relu().matmul(w2).add(b2);
        const loss = z.crossentropy(inputs[1]).mean(null, false);
        tape.stop();
        const grads = tape.gradient([loss], params, null);
        params.forEach((p, i) => p.assign_sub(grads[i].mul_scalar(0.1)));
        return [loss];
    };
}

function run(staged) {
    const params = initial.map(t => Ep.Variable.new(t, null));
    const step = makeStep(params);
    const call = staged
        ? Ep.Function.new_with_signature(step, [Ep.TensorSpec.new([-1, 64], Ep.DType.FLOAT32),
            Ep.TensorSpec.new([-1], Ep.DType.INT64)])
        : null;
    const times = [], losses = [];
    for (let e = 0; e < EPOCHS; e++) {
        const t0 = GLib.get_monotonic_time();
        let total = 0;
        for (const [xb, yb] of batches) {
            const [loss] = staged ? call.call([xb, yb]) : step([xb, yb]);
            total += loss.item_double() * xb.get_shape()[0];
        }
        times.push((GLib.get_monotonic_time() - t0) * 1e-6);
        losses.push(total / N_SAMPLES);
    }
    const warm = times.slice(1).sort((a, b) => a - b);
    const result = {first: times[0], best: warm[0], median: warm[Math.floor(warm.length / 2)], losses};
    if (staged)
        result.traces = call.get_trace_count();
    return result;
}

// the peak resident set (VmHWM), as bench/run's peak_rss_mib()
function peakRssMib() {
    const [, status] = GLib.file_get_contents('/proc/self/status');
    const match = /VmHWM:\s*(\d+)/.exec(new TextDecoder().decode(status));
    return match ? parseInt(match[1]) / 1024 : 0;
}

const eager = run(false);
// the eager run's garbage is collected before the staged run, not in it
System.gc();
const staged = run(true);
print(JSON.stringify({mlp_gjs_eager: eager, mlp_gjs_staged: staged, peak_rss_mib: peakRssMib()}));
