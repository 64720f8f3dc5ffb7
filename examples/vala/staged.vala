/* staged.vala: a staged function from Vala, traced and replayed in C.
 *
 *   valac --pkg eager-glib-1.0 staged.vala
 *
 * The norm of each row of x, times a variable: one graph for any number
 * of rows (a relaxed signature: the second number of rows traces again,
 * to check that the function computes the same whatever the rows),
 * reading the variable's current value at every call.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

int main () {
    try {
        var scale = new Ep.Variable (new Ep.Tensor.scalar (1, Ep.DType.FLOAT32), "scale");
        var scaled_norms = new Ep.Function.with_signature ((inputs) => {
            var results = new GLib.GenericArray<Ep.Tensor> ();
            results.add (inputs[0].square ().sum ({ 1 }, false).sqrt ().mul (scale.read ()));
            return results;
        }, { new Ep.TensorSpec ({ -1, 3 }, Ep.DType.FLOAT32) });

        var two_rows = new Ep.Tensor.from_doubles ({ 3, 4, 0, 0, 0, 5 }, { 2, 3 }, Ep.DType.FLOAT32);
        print ("%s\n", scaled_norms.call ({ two_rows })[0].to_string ());      /* traced: [5. 5.] */
        var three_rows = new Ep.Tensor.from_doubles ({ 1, 2, 2, 2, 3, 6, 0, 0, 0 }, { 3, 3 }, Ep.DType.FLOAT32);
        print ("%s\n", scaled_norms.call ({ three_rows })[0].to_string ());    /* traced again: [3. 7. 0.] */
        scale.assign (new Ep.Tensor.scalar (2, Ep.DType.FLOAT32));
        var one_row = new Ep.Tensor.from_doubles ({ 0, 3, 4 }, { 1, 3 }, Ep.DType.FLOAT32);
        print ("%s\n", scaled_norms.call ({ one_row })[0].to_string ());       /* replayed: [10.] */
        print ("traced %u times\n", scaled_norms.get_trace_count ());
        return scaled_norms.get_trace_count () == 2 ? 0 : 1;
    } catch (GLib.Error e) {
        printerr ("staged: %s\n", e.message);
        return 1;
    }
}
