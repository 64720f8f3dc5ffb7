// probabilities.js: the network's answer: the likeliest digit, large,
// and a bar for each digit's probability
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import GObject from 'gi://GObject';
import Gtk from 'gi://Gtk?version=4.0';

export const ProbabilityBars = GObject.registerClass({
    GTypeName: 'ProbabilityBars',
}, class ProbabilityBars extends Gtk.Box {
    constructor(params = {}) {
        super({orientation: Gtk.Orientation.VERTICAL, spacing: 4, ...params});
        this._digit = new Gtk.Label({label: '?', css_classes: ['title-1']});
        this.append(this._digit);
        const grid = new Gtk.Grid({column_spacing: 8, row_spacing: 2});
        this._bars = [];
        this._percents = [];
        for (let d = 0; d < 10; d++) {
            const bar = new Gtk.LevelBar({min_value: 0, max_value: 1, hexpand: true,
                valign: Gtk.Align.CENTER});
            // one colour whatever the value (no low/high/full offsets)
            for (const name of ['low', 'high', 'full'])
                bar.remove_offset_value(name);
            const percent = new Gtk.Label({xalign: 1, width_chars: 6,
                css_classes: ['caption', 'numeric']});
            grid.attach(new Gtk.Label({label: `${d}`, css_classes: ['numeric']}), 0, d, 1, 1);
            grid.attach(bar, 1, d, 1, 1);
            grid.attach(percent, 2, d, 1, 1);
            this._bars.push(bar);
            this._percents.push(percent);
        }
        this.append(grid);
    }

    /** Shows probabilities (10 numbers), or nothing for null. */
    show(probabilities) {
        const best = probabilities ? probabilities.indexOf(Math.max(...probabilities)) : -1;
        this._digit.label = best < 0 ? '?' : `${best}`;
        this._bars.forEach((bar, d) => {
            bar.value = probabilities ? probabilities[d] : 0;
            this._percents[d].label = probabilities ? `${(100 * probabilities[d]).toFixed(1)} %` : '';
        });
    }
});
