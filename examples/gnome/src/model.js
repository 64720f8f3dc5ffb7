// model.js: the digits network, its optimizer, and its training on a
// worker thread through Ep.Trainer
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// The network is examples/gjs/cnn_digits.js's (and cnn_digits.py's), so
// the checkpoints of one open in the other. Two copies live here:
//
// - the trained one, on the device the user picked, which the trainer's
//   worker thread updates step after step;
// - a mirror on the CPU for predictions and the accuracy on the main
//   thread. Before it predicts, it takes the trained variables' values
//   through Ep.Trainer.snapshot_variables(): reading them one by one
//   while a step replaces them could mix two steps (docs/gnome.md,
//   "Consistent variables").
//
// Everything the main thread computes runs in Ep.tidy(), which gives the
// tensors back when it returns: memory stays flat without System.gc().

import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import Gio from 'gi://Gio';

import Ep from 'gi://Ep?version=1.0';

export const BATCH_SIZE = 32;
export const LEARNING_RATE = 3e-3;
const PROGRESS_INTERVAL_MS = 100;

// A layer made from its properties; init() throws what construction found
function layer(type, properties) {
    const module = new type(properties);
    module.init(null);
    return module;
}

/** The network: conv–relu–pool twice, then a linear layer to 10 digits. */
export function makeNetwork() {
    const conv = (inChannels, outChannels) => layer(Ep.Conv2d, {
        in_channels: inChannels, out_channels: outChannels,
        kernel_height: 3, kernel_width: 3, padding_height: 1, padding_width: 1,
    });
    const pool = () => layer(Ep.MaxPool2d, {kernel_height: 2, kernel_width: 2});
    const network = Ep.Sequential.new();
    for (const child of [conv(1, 16), Ep.Relu.new(), pool(),
        conv(16, 32), Ep.Relu.new(), pool(),
        Ep.Flatten.new(), Ep.Linear.new(128, 10, true)])
        network.append(child);
    return network;
}

// Runs fn with device as the thread's device scope.
function onDevice(device, fn) {
    device.push();
    try {
        return fn();
    } finally {
        device.pop();
    }
}

/**
 * The network with its optimizer and trainer. Signals:
 * - `progress` (the optimizer's step count, loss, steps per second), from
 *   Ep.Trainer, on the main loop at most every 100 ms while a run goes on.
 */
export const DigitsModel = GObject.registerClass({
    GTypeName: 'DigitsModel',
    Properties: {
        'running': GObject.ParamSpec.boolean('running', 'Running', 'Whether a run goes on',
            GObject.ParamFlags.READABLE, false),
        'paused': GObject.ParamSpec.boolean('paused', 'Paused', 'Whether the run waits',
            GObject.ParamFlags.READWRITE, false),
        'device': GObject.ParamSpec.object('device', 'Device', 'Where the network trains',
            GObject.ParamFlags.READABLE, Ep.Device),
    },
    Signals: {
        'progress': {param_types: [GObject.TYPE_UINT64, GObject.TYPE_DOUBLE, GObject.TYPE_DOUBLE]},
    },
}, class DigitsModel extends GObject.Object {
    /**
     * @param {object} data the digits of loadDigits()
     */
    constructor(data) {
        super();
        this._data = data;
        this._running = false;
        this._paused = false;
        this._cancellable = null;
        this._mirror = makeNetwork();
        this._mirror.set_training(false);
        [this._mirrorVariables] = this._mirror.get_variables();
        this._build(Ep.Device.get_default());
    }

    get running() {
        return this._running;
    }

    get paused() {
        return this._paused;
    }

    set paused(value) {
        if (this._paused === value)
            return;
        this._paused = value;
        this._trainer.paused = value;
        this.notify('paused');
    }

    get device() {
        return this._device;
    }

    /** The number of optimizer steps taken. */
    get iterations() {
        return Number(this._optimizer.get_iterations());
    }

    // A fresh network, optimizer, staged step and trainer on device; the
    // values of `from` (a list of tensors in the order of _variables),
    // when given, are copied over.
    _build(device, from = null) {
        onDevice(device, () => {
            this._network = makeNetwork();
            this._optimizer = Ep.Adam.new(LEARNING_RATE);
            const [trainable, paths] = this._network.get_trainable_variables();
            // the optimizer's slots are made now, as its first step would:
            // the model and its state are then one fixed list of variables
            const [state, stateNames] = this._optimizer.list_state(null, paths, trainable);
            const [variables, variablePaths] = this._network.get_variables();
            this._variables = [...variables, ...state];
            this._names = [...variablePaths, ...stateNames];
            this._nMirrored = variables.length;   // the network's, first
            if (from)
                this._variables.forEach((v, i) => v.assign(from[i]));
            this._step = this._makeStep(trainable);
            this._trainer = Ep.Trainer.new(this._step,
                this._data.xTrain.to_device(device), this._data.yTrain.to_device(device),
                BATCH_SIZE);
        });
        this._trainer.progress_interval = PROGRESS_INTERVAL_MS;
        this._trainer.connect('progress', (_trainer, step, loss, rate) =>
            this.emit('progress', this._stepOffset + Number(step), loss, rate));
        this._stepOffset = 0;
        this._device = device;
        this.notify('device');
    }

    // The training step, staged: traced once (on the main thread, by the
    // trainer's first step), then replayed on the worker thread, which
    // never calls this JavaScript.
    _makeStep(trainable) {
        return Ep.Function.new(([x, y]) => {
            const tape = Ep.GradientTape.new(false);
            const loss = tape.record(() => this._network.call(x).sparse_softmax_crossentropy(y));
            this._optimizer.apply_gradients(tape.gradient([loss], trainable, null), trainable);
            return [loss];
        });
    }

    _setRunning(value) {
        this._running = value;
        this.notify('running');
    }

    /**
     * Trains for nSteps steps on device (the network moves there first,
     * with its optimizer's state, if it trains elsewhere).
     *
     * @param {number} nSteps
     * @param {Ep.Device} device
     * @returns {Promise<boolean>} true when all steps ran, false when
     *   cancelled; rejects with the error of a failed step
     */
    train(nSteps, device) {
        if (this._running)
            return Promise.reject(new Error('A training run goes on already'));
        if (device.name !== this._device.name)
            this._build(device, this._values());
        this._cancellable = Gio.Cancellable.new();
        this._trainer.paused = this._paused;
        // progress counts the optimizer's steps, also those of earlier
        // trainers (another device, a checkpoint opened)
        this._stepOffset = this.iterations - Number(this._trainer.step);
        this._setRunning(true);
        return new Promise((resolve, reject) => {
            // The first step traces on this thread, the others replay
            // on the trainer's worker; the data and the variables live
            // on the device, so the ops run there.
            this._trainer.run_async(nSteps, this._cancellable, (trainer, result) => {
                this._setRunning(false);
                this._cancellable = null;
                try {
                    resolve(trainer.run_finish(result));
                } catch (e) {
                    if (e instanceof GLib.Error && e.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                        resolve(false);
                    else
                        reject(e);
                }
            });
        });
    }

    /** A fresh, untrained network and optimizer; not while a run goes on. */
    reset() {
        if (this._running)
            throw new Error('Stop the training before starting a new model');
        this._build(this._device);
    }

    /** Ends the run under way after the step it is taking. */
    cancel() {
        this._cancellable?.cancel();
    }

    // The values of variables (all of the model's and the optimizer's
    // unless given) as between two steps.
    _values(variables = this._variables) {
        return this._running ? this._trainer.snapshot_variables(variables)
            : variables.map(v => v.read());
    }

    // The mirror takes the trained network's values (not the optimizer's
    // state); in a tidy scope.
    _syncMirror() {
        const values = this._values(this._variables.slice(0, this._nMirrored));
        this._mirrorVariables.forEach((v, i) => v.assign(values[i]));
    }

    /**
     * The probabilities of the ten digits for each image.
     *
     * @param {Ep.Tensor} images n × 1 × 8 × 8, float32 in [0, 1]
     * @returns {Float32Array[]} n arrays of 10
     */
    predict(images) {
        return Ep.tidy(() => {
            this._syncMirror();
            const probabilities = this._mirror.call(images).softmax(1).toTypedArray({copy: true});
            const rows = [];
            for (let i = 0; i < probabilities.length; i += 10)
                rows.push(probabilities.subarray(i, i + 10));
            return rows;
        });
    }

    /** The part of the held-out digits the network gets right (0 to 1). */
    accuracy() {
        return Ep.tidy(() => {
            this._syncMirror();
            const {xTest, yTest} = this._data;
            return this._mirror.call(xTest).argmax(1, false).equal(yTest)
                .astype('float32').mean().item_double();
        });
    }

    /**
     * Saves the network and the optimizer's state (a checkpoint, the
     * safetensors format), also while a run goes on: the values saved
     * are those between two steps.
     *
     * @param {Gio.File} file
     * @returns {Promise<void>}
     */
    save(file) {
        const values = this._values();
        const copies = values.map((value, i) => Ep.Variable.new(value, this._names[i]));
        return new Promise((resolve, reject) => {
            Ep.checkpoint_save_async(this._names, copies, file, null, (_source, result) => {
                try {
                    Ep.checkpoint_save_finish(result);
                    resolve();
                } catch (e) {
                    reject(e);
                }
            });
        });
    }

    /**
     * Restores the network and the optimizer's state from a checkpoint
     * of save() (or of cnn_digits.py); not while a run goes on.
     *
     * @param {Gio.File} file
     * @returns {Promise<void>}
     */
    load(file) {
        if (this._running)
            return Promise.reject(new Error('Stop the training before opening a model'));
        return new Promise((resolve, reject) => {
            Ep.checkpoint_restore_async(this._names, this._variables, file,
                Ep.CheckpointFlags.NONE, null, (_source, result) => {
                    try {
                        Ep.checkpoint_restore_finish(result);
                        resolve();
                    } catch (e) {
                        reject(e);
                    }
                });
        });
    }
});
