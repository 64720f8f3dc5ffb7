// files.js: asking the user for a checkpoint file
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Gtk.FileDialog (GTK 4.10 and later) where it exists; before it (Debian
// 12 has GTK 4.8) Gtk.FileChooserNative, which goes through the desktop
// portal when there is one, like the dialog.

import Gio from 'gi://Gio';
import Gtk from 'gi://Gtk?version=4.0';

const DEFAULT_NAME = 'digits.safetensors';

function safetensorsFilter() {
    const filter = new Gtk.FileFilter({name: 'Checkpoints (safetensors)'});
    filter.add_pattern('*.safetensors');
    return filter;
}

function withFileDialog(parent, save) {
    const filters = new Gio.ListStore({item_type: Gtk.FileFilter});
    filters.append(safetensorsFilter());
    const dialog = new Gtk.FileDialog({
        title: save ? 'Save Model' : 'Open Model', modal: true, filters,
        initial_name: save ? DEFAULT_NAME : null,
    });
    return new Promise((resolve, reject) => {
        const finish = save ? 'save_finish' : 'open_finish';
        dialog[save ? 'save' : 'open'](parent, null, (_dialog, result) => {
            try {
                resolve(dialog[finish](result));
            } catch (e) {
                // closing the dialog is no error
                if (e.matches?.(Gtk.DialogError, Gtk.DialogError.DISMISSED) ||
                    e.matches?.(Gtk.DialogError, Gtk.DialogError.CANCELLED))
                    resolve(null);
                else
                    reject(e);
            }
        });
    });
}

function withFileChooser(parent, save) {
    const chooser = new Gtk.FileChooserNative({
        title: save ? 'Save Model' : 'Open Model', modal: true, transient_for: parent,
        action: save ? Gtk.FileChooserAction.SAVE : Gtk.FileChooserAction.OPEN,
    });
    chooser.add_filter(safetensorsFilter());
    if (save)
        chooser.set_current_name(DEFAULT_NAME);
    return new Promise(resolve => {
        chooser.connect('response', (_chooser, response) => {
            resolve(response === Gtk.ResponseType.ACCEPT ? chooser.get_file() : null);
            chooser.destroy();
        });
        chooser.show();
    });
}

/**
 * Asks for a checkpoint to open or a name to save one under.
 *
 * @param {Gtk.Window} parent
 * @param {{save: boolean}} options
 * @returns {Promise<Gio.File|null>} null when the user cancelled
 */
export function chooseFile(parent, {save}) {
    return Gtk.FileDialog ? withFileDialog(parent, save) : withFileChooser(parent, save);
}
