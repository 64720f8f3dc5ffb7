/* norm.vala: the L2 norm of [1, 2, 3] by chaining, from Vala.
 *
 *   valac --pkg eager-glib-1.0 norm.vala
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

int main () {
    try {
        var x = new Ep.Tensor.from_doubles ({ 1, 2, 3 }, { 3 }, Ep.DType.FLOAT32);
        var norm = x.square ().sum (null, false).sqrt ();
        print ("%s\n", norm.to_string ());

        /* errors are Ep.Error exceptions */
        x.add (new Ep.Tensor.from_doubles ({ 1, 2 }, { 2 }, Ep.DType.FLOAT32));
    } catch (Ep.Error.SHAPE e) {
        print ("caught: %s\n", e.message);
    } catch (GLib.Error e) {
        printerr ("norm: %s\n", e.message);
        return 1;
    }
    return 0;
}
