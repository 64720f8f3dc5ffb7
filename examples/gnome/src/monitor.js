// monitor.js: how responsive the main loop is, and how much memory the
// process holds
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import GLib from 'gi://GLib';

const TICK_MS = 10;

/**
 * The longest gap between two calls of a 10 ms timeout on the main loop:
 * anything that holds the main loop (a long handler, a step traced on it,
 * a collection) shows as a gap over 10 ms. A frame takes 16 ms; 50 ms is
 * the most a user would not notice.
 */
export class StallMeter {
    constructor() {
        this.maxGapMs = 0;
        this._last = 0;
        this._source = 0;
    }

    /** Starts measuring from zero. */
    start() {
        this.stop();
        this.maxGapMs = 0;
        this._last = GLib.get_monotonic_time();
        this._source = GLib.timeout_add(GLib.PRIORITY_DEFAULT, TICK_MS, () => {
            const now = GLib.get_monotonic_time();
            this.maxGapMs = Math.max(this.maxGapMs, (now - this._last) / 1000);
            this._last = now;
            return GLib.SOURCE_CONTINUE;
        });
    }

    stop() {
        if (this._source)
            GLib.source_remove(this._source);
        this._source = 0;
    }
}

/** The resident memory of this process in MiB (VmRSS of /proc/self/status),
 *  or NaN where /proc has none. */
export function residentMiB() {
    try {
        const [, bytes] = GLib.file_get_contents('/proc/self/status');
        const match = /^VmRSS:\s+(\d+) kB/m.exec(new TextDecoder().decode(bytes));
        return match ? Number(match[1]) / 1024 : NaN;
    } catch {
        return NaN;
    }
}
