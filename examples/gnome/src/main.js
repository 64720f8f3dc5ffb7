// main.js: the entry point: runs the application
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// The launcher (eager-glib-digits, made from data/launcher.js.in) loads
// the app's GResource and eager-glib's module ep.js, then calls main()
// from an idle callback: Gio.Application.run() must not run inside a
// promise job, or gjs 1.74 never runs the later ones.

import {DigitsApplication} from './application.js';

/**
 * Runs the application.
 *
 * @param {string[]} argv the program's name and arguments
 * @param {string} version the app's version
 * @returns {number} the exit status
 */
export function main(argv, version) {
    const application = new DigitsApplication(version);
    const status = application.run(argv);
    return status !== 0 ? status : application.exitStatus;
}
