/* test-memory.vala: Ep.tidy with a lambda, Ep.keep, Ep.dispose,
 * Ep.memory and GradientTape.record, compiled against
 * eager-glib-1.0.vapi from the build.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

static Ep.Tensor vector (double[] values) throws GLib.Error {
    return new Ep.Tensor.from_doubles (values, { values.length }, Ep.DType.FLOAT32);
}

static void test_tidy () {
    try {
        var x = vector ({ 1, 2 });
        Ep.Tensor? inside = null;
        Ep.Tensor? kept = null;
        var result = Ep.tidy (() => {
            inside = x.add (x);
            kept = Ep.keep (x.neg ());
            return inside.mul (x);
        });
        assert_true (inside.is_released ());
        assert_false (kept.is_released ());
        assert_cmpstr (result.to_string (), CompareOperator.EQ, "[2. 8.]");
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_tidy_error () {
    Ep.Tensor? inside = null;
    try {
        var x = vector ({ 1 });
        Ep.tidy (() => {
            inside = x.exp ();
            throw new Ep.Error.INVALID_ARGUMENT ("body: on purpose");
        });
        assert_not_reached ();
    } catch (Ep.Error.INVALID_ARGUMENT e) {
        assert_cmpstr (e.message, CompareOperator.EQ, "body: on purpose");
        assert_true (inside.is_released ());
        assert_cmpuint (Ep.tidy_get_depth (), CompareOperator.EQ, 0);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_memory_and_dispose () {
    try {
        uint64 bytes0, tensors0, bytes1, tensors1;
        Ep.memory (out bytes0, out tensors0);
        var x = new Ep.Tensor.from_doubles ({ 1, 2, 3, 4 }, { 4 }, Ep.DType.FLOAT64);
        Ep.memory (out bytes1, out tensors1);
        assert_cmpuint ((uint) (tensors1 - tensors0), CompareOperator.EQ, 1);
        assert_cmpuint ((uint) (bytes1 - bytes0), CompareOperator.EQ, 32);
        Ep.dispose (x);
        assert_true (x.is_released ());
        assert_cmpuint ((uint) Ep.Device.get ("cpu:0").get_n_tensors (), CompareOperator.EQ, (uint) tensors0);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_record () {
    try {
        var w = new Ep.Variable (vector ({ 1, 2 }), "w");
        var x = vector ({ 3, 5 });
        var tape = new Ep.GradientTape (false);
        var loss = tape.record (() => w.read ().mul (x).sum (null, false));
        GLib.Object[] sources = { w };
        var grads = tape.gradient ({ loss }, sources, null);
        assert_cmpstr (grads[0].to_string (), CompareOperator.EQ, "[3. 5.]");
        assert_false (tape.is_active ());
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

int main (string[] args) {
    Test.init (ref args);
    Test.add_func ("/vala/memory/tidy", test_tidy);
    Test.add_func ("/vala/memory/tidy-error", test_tidy_error);
    Test.add_func ("/vala/memory/memory-and-dispose", test_memory_and_dispose);
    Test.add_func ("/vala/memory/record", test_record);
    return Test.run ();
}
