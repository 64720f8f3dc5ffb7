// application.js: the application: its window, its actions, and the
// self-test hook
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Adw from 'gi://Adw?version=1';
import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import Gio from 'gi://Gio';
import Gtk from 'gi://Gtk?version=4.0';

import {loadDigits} from './data.js';
import {runSelfTest} from './selftest.js';
import {DigitsWindow} from './window.js';

export const APPLICATION_ID = 'org.gnome.EagerGlib.Digits';

export const DigitsApplication = GObject.registerClass({
    GTypeName: 'DigitsApplication',
}, class DigitsApplication extends Adw.Application {
    constructor(version) {
        super({application_id: APPLICATION_ID, flags: Gio.ApplicationFlags.FLAGS_NONE});
        this._version = version;
        /** What main() returns: set by the self-test. */
        this.exitStatus = 0;
        this._selfTestDir = null;

        this.add_main_option('self-test', 0, GLib.OptionFlags.NONE, GLib.OptionArg.STRING,
            'Drive the app through a test (train, draw, save, reload), leave a screenshot in DIR and exit',
            'DIR');
        this.connect('handle-local-options', (_app, options) => this._handleOptions(options));
        this._addActions();
    }

    _handleOptions(options) {
        const dir = options.lookup_value('self-test', null);
        if (dir) {
            this._selfTestDir = dir.get_string()[0];
            // a test runs on its own, even beside a running instance
            this.flags |= Gio.ApplicationFlags.NON_UNIQUE;
        }
        return -1;   // go on
    }

    _addActions() {
        const quit = new Gio.SimpleAction({name: 'quit'});
        quit.connect('activate', () => this.quit());
        this.add_action(quit);
        this.set_accels_for_action('app.quit', ['<Primary>q']);
        this.set_accels_for_action('win.open', ['<Primary>o']);
        this.set_accels_for_action('win.save', ['<Primary>s']);

        const about = new Gio.SimpleAction({name: 'about'});
        about.connect('activate', () => this._showAbout());
        this.add_action(about);
    }

    _showAbout() {
        new Adw.AboutWindow({
            transient_for: this.active_window, modal: true,
            application_name: 'Digits', application_icon: APPLICATION_ID,
            developer_name: 'The eager-glib developers', version: this._version,
            comments: 'Trains a small convolutional network on the 8×8 digits in the background ' +
                'and reads the digits you draw: an example of eager-glib in a GNOME app.',
            license_type: Gtk.License.LGPL_2_1,   // or later: the sources say so
        }).present();
    }

    vfunc_activate() {
        let window = this.active_window;
        if (!window) {
            try {
                window = new DigitsWindow(this, loadDigits());
            } catch (e) {
                // without the digits there is nothing to show: say why
                logError(e, 'Digits could not start');
                this.exitStatus = 1;
                return;
            }
        }
        window.present();
        if (this._selfTestDir !== null)
            this._selfTest(window, this._selfTestDir);
    }

    _selfTest(window, dir) {
        this._selfTestDir = null;
        this.hold();
        runSelfTest(window, dir).then(status => {
            this.exitStatus = status;
        }).catch(e => {
            logError(e, 'self-test');
            this.exitStatus = 1;
        }).finally(() => {
            this.release();
            this.quit();
        });
    }
});
