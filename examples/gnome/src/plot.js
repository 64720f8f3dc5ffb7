// plot.js: the training's loss and held-out accuracy over the steps
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// A Gtk.DrawingArea drawn with cairo: the loss (left axis, from 0 to its
// largest value) and the accuracy (right axis, 0 to 100 %) against the
// optimizer's step. The points come from the progress signal (every
// 100 ms at most) and the accuracy measurements, so a few thousand at
// most: the whole curve is drawn each time.

import GObject from 'gi://GObject';
import Gtk from 'gi://Gtk?version=4.0';

const MARGIN = {left: 44, right: 48, top: 28, bottom: 26};
// Adwaita's palette: blue 3 and green 4
export const LOSS_COLOR = [0x35 / 255, 0x84 / 255, 0xe4 / 255];
export const ACCURACY_COLOR = [0x2e / 255, 0xc2 / 255, 0x7e / 255];

export const TrainingPlot = GObject.registerClass({
    GTypeName: 'TrainingPlot',
}, class TrainingPlot extends Gtk.DrawingArea {
    constructor(params = {}) {
        super({content_width: 360, content_height: 240, hexpand: true, vexpand: true, ...params});
        this.add_css_class('card');
        this._loss = [];       // [step, loss]
        this._accuracy = [];   // [step, accuracy in 0 … 1]
        this.set_draw_func((_area, cr, width, height) => this._draw(cr, width, height));
    }

    /** Adds a loss measured after step. */
    addLoss(step, loss) {
        this._loss.push([step, loss]);
        this.queue_draw();
    }

    /** Adds an accuracy (0 to 1) measured after step. */
    addAccuracy(step, accuracy) {
        this._accuracy.push([step, accuracy]);
        this.queue_draw();
    }

    /** Forgets every point (a new model). */
    clear() {
        this._loss = [];
        this._accuracy = [];
        this.queue_draw();
    }

    _draw(cr, width, height) {
        const fg = this.get_style_context().get_color();
        const area = {
            x: MARGIN.left, y: MARGIN.top,
            width: Math.max(1, width - MARGIN.left - MARGIN.right),
            height: Math.max(1, height - MARGIN.top - MARGIN.bottom),
        };
        const lastStep = Math.max(1, ...this._loss.map(p => p[0]), ...this._accuracy.map(p => p[0]));
        const maxLoss = Math.max(1e-6, ...this._loss.map(p => p[1]));
        const x = step => area.x + area.width * step / lastStep;

        this._drawFrame(cr, fg, area, lastStep, maxLoss);
        this._drawCurve(cr, LOSS_COLOR, this._loss.map(([s, l]) => [x(s), area.y + area.height * (1 - l / maxLoss)]));
        this._drawCurve(cr, ACCURACY_COLOR, this._accuracy.map(([s, a]) => [x(s), area.y + area.height * (1 - a)]));
        this._drawLegend(cr, area);
        cr.$dispose();
    }

    _drawFrame(cr, fg, area, lastStep, maxLoss) {
        cr.setLineWidth(1);
        cr.setFontSize(11);
        for (let i = 0; i <= 4; i++) {
            const y = area.y + area.height * i / 4;
            cr.setSourceRGBA(fg.red, fg.green, fg.blue, 0.15);
            cr.moveTo(area.x, y + 0.5);
            cr.lineTo(area.x + area.width, y + 0.5);
            cr.stroke();
            cr.setSourceRGBA(fg.red, fg.green, fg.blue, 0.7);
            this._text(cr, (maxLoss * (4 - i) / 4).toFixed(2), area.x - 6, y, 1);
            this._text(cr, `${25 * (4 - i)} %`, area.x + area.width + 6, y, 0);
        }
        this._text(cr, '0', area.x, area.y + area.height + 14, 0.5);
        this._text(cr, `step ${lastStep}`, area.x + area.width, area.y + area.height + 14, 1);
    }

    // text at (x, y), its anchor at align (0 left, 0.5 centre, 1 right)
    _text(cr, text, x, y, align) {
        const extents = cr.textExtents(text);
        cr.moveTo(x - extents.width * align, y + extents.height / 2);
        cr.showText(text);
    }

    _drawCurve(cr, [r, g, b], points) {
        if (points.length === 0)
            return;
        cr.setSourceRGB(r, g, b);
        cr.setLineWidth(2);
        cr.moveTo(...points[0]);
        for (const point of points.slice(1))
            cr.lineTo(...point);
        cr.stroke();
        // a lone point would draw nothing: mark the last one
        cr.arc(...points.at(-1), 3, 0, 2 * Math.PI);
        cr.fill();
    }

    _drawLegend(cr, area) {
        let x = area.x;
        for (const [label, [r, g, b]] of [['loss', LOSS_COLOR], ['held-out accuracy', ACCURACY_COLOR]]) {
            cr.setSourceRGB(r, g, b);
            cr.rectangle(x, 8, 12, 12);
            cr.fill();
            cr.moveTo(x + 16, 18);
            cr.showText(label);
            x += 16 + cr.textExtents(label).xAdvance + 16;
        }
    }
});
