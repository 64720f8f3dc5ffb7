// canvas.js: a square where the user draws a digit with the pointer
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// The strokes are kept as points in [0, 1]² (the canvas's size may
// change) and turned into an image the way the digits were made (the UCI
// "optdigits" preprocessing): the drawing, scaled to fit and centred, is
// inked on a 32 × 32 bitmap, and each 4 × 4 block of it counts its ink
// pixels, 0 to 16: 8 × 8 values, then / 16 for the network.

import GObject from 'gi://GObject';
import Gtk from 'gi://Gtk?version=4.0';

import Ep from 'gi://Ep?version=1.0';

// Measured on the held-out digits' look: a drawing 24 pixels high with a
// pen 5 wide gives ink counts like theirs (an ellipse, a 1 and a 7 drawn
// by the self-test are read right; thinner or larger drawings are read
// as 3s more often).
const BITMAP = 32;       // the bitmap the digits were counted on
const FILL = 24;         // the drawing's longer side on it, in pixels
const PEN_RADIUS = 2.5;  // in bitmap pixels

export const DigitCanvas = GObject.registerClass({
    GTypeName: 'DigitCanvas',
    Signals: {
        // the drawing changed (a stroke grew, or it was cleared)
        'changed': {},
    },
}, class DigitCanvas extends Gtk.DrawingArea {
    constructor(params = {}) {
        super({
            content_width: 240, content_height: 240,
            ...params,
        });
        this.add_css_class('card');
        this._strokes = [];
        this._start = null;
        this.set_draw_func((_area, cr, width, height) => this._draw(cr, width, height));

        // pointer, touch and stylus alike: a drag is a stroke
        const drag = new Gtk.GestureDrag();
        drag.connect('drag-begin', (_gesture, x, y) => {
            this._start = [x, y];
            this.beginStroke(x, y);
        });
        drag.connect('drag-update', (_gesture, dx, dy) =>
            this.extendStroke(this._start[0] + dx, this._start[1] + dy));
        this.add_controller(drag);
    }

    /** Whether nothing is drawn. */
    get empty() {
        return this._strokes.length === 0;
    }

    // widget coordinates to [0, 1]², clamped to the canvas
    _normalize(x, y) {
        const clamp = v => Math.min(1, Math.max(0, v));
        return [clamp(x / this.get_width()), clamp(y / this.get_height())];
    }

    /** Starts a stroke at (x, y), in widget coordinates. */
    beginStroke(x, y) {
        this._strokes.push([this._normalize(x, y)]);
        this._changed();
    }

    /** Draws the current stroke on to (x, y), in widget coordinates. */
    extendStroke(x, y) {
        if (this._strokes.length === 0)
            this.beginStroke(x, y);
        else
            this._strokes.at(-1).push(this._normalize(x, y));
        this._changed();
    }

    /** Wipes the drawing. */
    clear() {
        this._strokes = [];
        this._changed();
    }

    _changed() {
        this.queue_draw();
        this.emit('changed');
    }

    _draw(cr, width, height) {
        const color = this.get_style_context().get_color();
        cr.setSourceRGBA(color.red, color.green, color.blue, color.alpha);
        // on screen a pen of a fixed width, for any size of drawing
        cr.setLineWidth(Math.min(width, height) / 14);
        cr.setLineCap(1);    // round (Cairo.LineCap.ROUND)
        cr.setLineJoin(1);   // round
        for (const stroke of this._strokes) {
            cr.moveTo(stroke[0][0] * width, stroke[0][1] * height);
            // a single point is a dot: a zero-length segment with round caps
            for (const [x, y] of stroke.length > 1 ? stroke.slice(1) : stroke)
                cr.lineTo(x * width, y * height);
            cr.stroke();
        }
        // the context's memory now, not at the next garbage collection
        cr.$dispose();
    }

    // The drawing scaled to fit FILL × FILL, centred on the bitmap:
    // [scale, offsetX, offsetY] from [0, 1]² to bitmap pixels.
    _fit() {
        const points = this._strokes.flat();
        const xs = points.map(p => p[0]), ys = points.map(p => p[1]);
        const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
        const scale = FILL / Math.max(x1 - x0, y1 - y0, 1e-3);
        return [scale, BITMAP / 2 - scale * (x0 + x1) / 2, BITMAP / 2 - scale * (y0 + y1) / 2];
    }

    // The 32 × 32 bitmap of the drawing (1 where there is ink).
    _bitmap() {
        const bitmap = new Float32Array(BITMAP * BITMAP);
        const ink = (cx, cy) => {
            const r = Math.ceil(PEN_RADIUS);
            for (let y = Math.floor(cy) - r; y <= Math.floor(cy) + r; y++) {
                for (let x = Math.floor(cx) - r; x <= Math.floor(cx) + r; x++) {
                    if (x >= 0 && y >= 0 && x < BITMAP && y < BITMAP &&
                        (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 <= PEN_RADIUS ** 2)
                        bitmap[y * BITMAP + x] = 1;
                }
            }
        };
        const [scale, dx, dy] = this._fit();
        for (const stroke of this._strokes) {
            const points = stroke.map(([x, y]) => [x * scale + dx, y * scale + dy]);
            ink(...points[0]);
            // stamps the pen every half pixel along each segment
            for (let i = 1; i < points.length; i++) {
                const [[ax, ay], [bx, by]] = [points[i - 1], points[i]];
                const n = Math.ceil(Math.hypot(bx - ax, by - ay) * 2);
                for (let k = 1; k <= n; k++)
                    ink(ax + (bx - ax) * k / n, ay + (by - ay) * k / n);
            }
        }
        return bitmap;
    }

    /**
     * The drawing as the network's input: a 1 × 1 × 8 × 8 float32 tensor
     * in [0, 1] (the ink counts of the 4 × 4 blocks / 16), zeros when
     * nothing is drawn.
     */
    toTensor() {
        if (this.empty)
            return Ep.zeros([1, 1, 8, 8], Ep.DType.FLOAT32);
        const block = BITMAP / 8;
        return Ep.tensor(this._bitmap(), [8, block, 8, block])
            .sum([1, 3]).div(block * block).reshape([1, 1, 8, 8]);
    }
});
