// window.js: the main window: training controls, the plot, the canvas
// and the prediction
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Everything here runs on the main thread and stays short: the training
// runs on Ep.Trainer's worker thread, the checkpoints are written and read
// by Ep's async calls, and what the main thread computes itself (a
// prediction, the accuracy on the held-out digits, a few milliseconds)
// runs in Ep.tidy().

import Adw from 'gi://Adw?version=1';
import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import Gio from 'gi://Gio';
import Gtk from 'gi://Gtk?version=4.0';

import Ep from 'gi://Ep?version=1.0';
import EpGtk from 'gi://EpGtk?version=1.0';

import {DigitCanvas} from './canvas.js';
import {ProbabilityBars} from './probabilities.js';
import {TrainingPlot} from './plot.js';
import {StallMeter, residentMiB} from './monitor.js';
import {DigitsModel} from './model.js';
import {chooseFile} from './files.js';

const STEPS_PER_RUN = 3000;      // a Train click: about 65 passes over the digits
const ACCURACY_EVERY_MS = 500;   // the held-out accuracy, at most this often
const PREVIEW_SCALE = 8;         // the 8 × 8 input shown 64 × 64

export const DigitsWindow = GObject.registerClass({
    GTypeName: 'DigitsWindow',
}, class DigitsWindow extends Adw.ApplicationWindow {
    /**
     * @param {Adw.Application} application
     * @param {object} data the digits (loadDigits())
     */
    constructor(application, data) {
        super({application, title: 'Digits', icon_name: application.application_id,
            default_width: 980, default_height: 620});
        this.model = new DigitsModel(data);
        this.stallMeter = new StallMeter();
        this.losses = [];           // [step, loss] of every progress report
        this.accuracy = NaN;        // the last held-out accuracy
        this.stepsPerSecond = 0;
        this.traceMs = 0;           // how long the last run's start held the main loop
        this.rssStartMiB = NaN;     // at the first progress report of a run
        this._lastAccuracyTime = 0;
        this._predictionSource = 0;

        this._buildUi();
        this._addActions();
        this.model.connect('progress', (_model, step, loss, rate) => this._onProgress(step, loss, rate));
        this.model.connect('notify::running', () => this._updateSensitivity());
        this.canvas.connect('changed', () => this._queuePrediction());
        this._updateSensitivity();
        this.updatePrediction();
        this._updateStatus();
    }

    // -- the widgets ---------------------------------------------------------

    _buildUi() {
        const header = new Adw.HeaderBar({title_widget: new Adw.WindowTitle({title: 'Digits'})});
        this._title = header.title_widget;
        header.pack_start(new Gtk.Button({
            label: 'Train', action_name: 'win.train', css_classes: ['suggested-action'],
            tooltip_text: `Train the network for ${STEPS_PER_RUN} steps`,
        }));
        header.pack_start(new Gtk.ToggleButton({
            icon_name: 'media-playback-pause-symbolic', action_name: 'win.pause',
            tooltip_text: 'Pause the training',
        }));
        header.pack_start(new Gtk.Button({
            icon_name: 'process-stop-symbolic', action_name: 'win.cancel',
            tooltip_text: 'Stop the training',
        }));
        header.pack_end(new Gtk.MenuButton({
            icon_name: 'open-menu-symbolic', menu_model: this._menu(), primary: true,
            tooltip_text: 'Main menu',
        }));
        this.deviceDropDown = Gtk.DropDown.new(Ep.DeviceList.get_default(),
            Gtk.PropertyExpression.new(Ep.Device, null, 'name'));
        this.deviceDropDown.tooltip_text = 'The device the next training runs on';
        header.pack_end(this.deviceDropDown);

        this.plot = new TrainingPlot();
        this._status = new Gtk.Label({xalign: 0, wrap: true, css_classes: ['dim-label', 'caption']});
        const left = new Gtk.Box({orientation: Gtk.Orientation.VERTICAL, spacing: 6, hexpand: true});
        left.append(this.plot);
        left.append(this._status);

        this.canvas = new DigitCanvas();
        this._preview = new Gtk.Picture({can_shrink: false, tooltip_text: 'What the network sees'});
        this.bars = new ProbabilityBars();
        const clear = new Gtk.Button({label: 'Clear', action_name: 'win.clear', valign: Gtk.Align.CENTER});
        const under = new Gtk.Box({spacing: 12});
        under.append(this._preview);
        under.append(clear);
        const right = new Gtk.Box({orientation: Gtk.Orientation.VERTICAL, spacing: 8, width_request: 260});
        right.append(new Gtk.Label({label: 'Draw a digit', xalign: 0, css_classes: ['heading']}));
        right.append(this.canvas);
        right.append(under);
        right.append(this.bars);

        const content = new Gtk.Box({spacing: 18, margin_top: 12, margin_bottom: 12,
            margin_start: 12, margin_end: 12});
        content.append(left);
        content.append(right);
        this._toasts = new Adw.ToastOverlay({child: content});

        const box = new Gtk.Box({orientation: Gtk.Orientation.VERTICAL});
        box.append(header);
        box.append(this._toasts);
        this.set_content(box);
    }

    _menu() {
        const menu = new Gio.Menu();
        const model = new Gio.Menu();
        model.append('_Open Model…', 'win.open');
        model.append('_Save Model…', 'win.save');
        model.append('_New Model', 'win.new-model');
        menu.append_section(null, model);
        const app = new Gio.Menu();
        app.append('_About Digits', 'app.about');
        menu.append_section(null, app);
        return menu;
    }

    // -- actions -----------------------------------------------------------

    _addActions() {
        const add = (name, activate) => {
            const action = new Gio.SimpleAction({name});
            action.connect('activate', () => activate());
            this.add_action(action);
        };
        add('train', () => this.train().catch(e => this.showError('Training failed', e)));
        add('cancel', () => this.model.cancel());
        add('clear', () => this.canvas.clear());
        add('new-model', () => this._newModel());
        add('open', () => this._open().catch(e => this.showError('Could not open the model', e)));
        add('save', () => this._save().catch(e => this.showError('Could not save the model', e)));

        const pause = Gio.SimpleAction.new_stateful('pause', null, GLib.Variant.new_boolean(false));
        pause.connect('change-state', (action, state) => {
            action.set_state(state);
            this.model.paused = state.get_boolean();
            this._updateStatus();
        });
        this.add_action(pause);
    }

    _action(name) {
        return this.lookup_action(name);
    }

    _updateSensitivity() {
        const running = this.model.running;
        this._action('train').enabled = !running;
        this._action('pause').enabled = running;
        this._action('cancel').enabled = running;
        this._action('open').enabled = !running;
        this._action('new-model').enabled = !running;
        this.deviceDropDown.sensitive = !running;
        if (!running)
            this._action('pause').change_state(GLib.Variant.new_boolean(false));
    }

    /** Shows error (a GLib.Error or Error) in a toast, after what. */
    showError(what, error) {
        logError(error, what);
        this._toasts.add_toast(new Adw.Toast({title: `${what}: ${error.message}`, timeout: 8}));
    }

    _notify(message) {
        this._toasts.add_toast(new Adw.Toast({title: message, timeout: 3}));
    }

    // -- training ------------------------------------------------------------

    /** The device selected in the drop-down. */
    get selectedDevice() {
        return this.deviceDropDown.selected_item ?? Ep.Device.get_default();
    }

    /**
     * Trains for steps steps on the selected device, measuring the main
     * loop's stalls meanwhile.
     *
     * @param {number} steps
     * @returns {Promise<boolean>} true when all ran, false when cancelled
     */
    async train(steps = STEPS_PER_RUN) {
        this.rssStartMiB = NaN;
        this._title.subtitle = `Training on ${this.selectedDevice.name}`;
        // the first step of a new model traces here, on the main thread,
        // once: measured apart from the gaps while the worker trains
        const start = GLib.get_monotonic_time();
        const run = this.model.train(steps, this.selectedDevice);
        this.traceMs = (GLib.get_monotonic_time() - start) / 1000;
        this.stallMeter.start();
        try {
            const finished = await run;
            this._notify(finished ? 'Training done' : 'Training stopped');
            return finished;
        } finally {
            this.stallMeter.stop();
            this._title.subtitle = '';
            this._measureAccuracy();
            this.updatePrediction();
            this._updateStatus();
        }
    }

    _onProgress(step, loss, stepsPerSecond) {
        step = Number(step);
        this.losses.push([step, loss]);
        this.stepsPerSecond = stepsPerSecond;
        this.plot.addLoss(step, loss);
        if (Number.isNaN(this.rssStartMiB))
            this.rssStartMiB = residentMiB();
        // the accuracy and the prediction follow the training, at a pace
        // that leaves the main loop free
        const now = GLib.get_monotonic_time() / 1000;
        if (now - this._lastAccuracyTime >= ACCURACY_EVERY_MS) {
            this._lastAccuracyTime = now;
            this._measureAccuracy();
            this.updatePrediction();
        }
        this._updateStatus();
    }

    _measureAccuracy() {
        this.accuracy = this.model.accuracy();
        this.plot.addAccuracy(this.model.iterations, this.accuracy);
    }

    _updateStatus() {
        const last = this.losses.at(-1);
        const parts = [
            `step ${this.model.iterations}`,
            `loss ${last ? last[1].toFixed(4) : '—'}`,
            `held-out accuracy ${Number.isNaN(this.accuracy) ? '—' : `${(100 * this.accuracy).toFixed(1)} %`}`,
            `${this.stepsPerSecond.toFixed(0)} steps/s on ${this.model.device.name}`,
            `longest main-loop gap ${this.stallMeter.maxGapMs.toFixed(1)} ms`,
            `RSS ${residentMiB().toFixed(0)} MiB`,
        ];
        if (this.model.paused)
            parts.unshift('paused');
        this._status.label = parts.join(' · ');
    }

    _newModel() {
        try {
            this.model.reset();
        } catch (e) {
            this.showError('Could not start a new model', e);
            return;
        }
        this.losses = [];
        this.accuracy = NaN;
        this.plot.clear();
        this.updatePrediction();
        this._updateStatus();
    }

    // -- the drawing ---------------------------------------------------------

    /** The probabilities of the digits for the drawing (null when empty). */
    get prediction() {
        return this._prediction;
    }

    // A pointer may report many moves a frame: predict once for them all,
    // when the main loop is next free.
    _queuePrediction() {
        if (this._predictionSource)
            return;
        this._predictionSource = GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
            this._predictionSource = 0;
            this.updatePrediction();
            return GLib.SOURCE_REMOVE;
        });
    }

    /** Predicts the drawing with the latest variables; shows the input. */
    updatePrediction() {
        this._prediction = Ep.tidy(() => {
            const input = this.canvas.toTensor();
            this._preview.paintable = this._previewTexture(input);
            return this.canvas.empty ? null : this.model.predict(input)[0];
        });
        this.bars.show(this._prediction);
    }

    // The input, 8× larger (nearest neighbour) and dark on light, as a
    // texture (EpGtk: the tensor's gray values become its pixels).
    _previewTexture(input) {
        const s = PREVIEW_SCALE;
        const big = input.reshape([8, 1, 8, 1]).broadcast_to([8, s, 8, s]).reshape([8 * s, 8 * s]);
        return EpGtk.tensor_to_texture(Ep.ones_like(big).sub(big));
    }

    // -- checkpoints -------------------------------------------------------

    async _save() {
        const file = await chooseFile(this, {save: true});
        if (file === null)
            return;
        await this.model.save(file);
        this._notify(`Saved ${file.get_basename()}`);
    }

    async _open() {
        const file = await chooseFile(this, {save: false});
        if (file === null)
            return;
        await this.model.load(file);
        this._notify(`Opened ${file.get_basename()}`);
        this._measureAccuracy();
        this.updatePrediction();
        this._updateStatus();
    }

    /** The window as a texture, drawn by its own renderer. */
    screenshot() {
        const paintable = new Gtk.WidgetPaintable({widget: this});
        const snapshot = new Gtk.Snapshot();
        paintable.snapshot(snapshot, this.get_width(), this.get_height());
        const node = snapshot.to_node();
        return this.get_native().get_renderer().render_texture(node, null);
    }
});
