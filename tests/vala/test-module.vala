/* test-module.vala: a subclass of Ep.Module overriding call, the layers,
 * their paths, errors from inside call, and a module called in a staged
 * function, compiled against eager-glib-1.0.vapi from the build.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

static Ep.Tensor matrix (double[] values, int64[] shape) throws GLib.Error {
    return new Ep.Tensor.from_doubles (values, shape, Ep.DType.FLOAT32);
}

class Net : Ep.Module {
    public Ep.Linear fc;

    public Net () throws GLib.Error {
        Object ();
        fc = (Ep.Linear) new Ep.Linear (2, 1, true);
        add_module ("fc", fc);
        create_variable ("scale", matrix ({ 3 }, {}), false);
    }

    public override Ep.Tensor call (Ep.Tensor x) throws GLib.Error {
        return fc.call (x).relu ().mul (get_variable ("scale").read ());
    }
}

class Failing : Ep.Module {
    public override Ep.Tensor call (Ep.Tensor x) throws GLib.Error {
        throw new Ep.Error.INVALID_ARGUMENT ("Failing: on purpose");
    }
}

static void set_weights (Ep.Linear layer, double[] weight, double bias) throws GLib.Error {
    layer.get_weight ().assign (matrix (weight, { 1, 2 }));
    layer.get_bias ().assign (matrix ({ bias }, { 1 }));
}

static void test_subclass_call () {
    try {
        var net = new Net ();
        set_weights (net.fc, { 1, 10 }, 0.5);
        assert_cmpstr (net.call (matrix ({ 1, 2 }, { 1, 2 })).to_string (), CompareOperator.EQ, "[[64.5]]");
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_paths () {
    try {
        var seq = (Ep.Sequential) new Ep.Sequential ();
        seq.append (new Net ());
        seq.append (new Ep.Tanh ());
        string[] paths;
        var variables = seq.get_variables (out paths);
        assert_cmpstr (string.joinv (" ", paths), CompareOperator.EQ, "0.scale 0.fc.weight 0.fc.bias");
        assert_cmpuint (variables.length, CompareOperator.EQ, 3);
        string[] trainable_paths;
        var trainable = seq.get_trainable_variables (out trainable_paths);
        assert_cmpuint (trainable.length, CompareOperator.EQ, 2);
        assert (trainable[1] == seq.get_variable ("0.fc.bias"));
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_error_from_call () {
    try {
        var seq = (Ep.Sequential) new Ep.Sequential ();
        seq.append (new Failing ());
        seq.call (matrix ({ 1 }, { 1 }));
        assert_not_reached ();
    } catch (Ep.Error.INVALID_ARGUMENT e) {
        assert_cmpstr (e.message, CompareOperator.EQ, "Failing: on purpose");
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_bad_layer () {
    try {
        new Ep.Linear (-3, 1, true);
        assert_not_reached ();
    } catch (Ep.Error.SHAPE e) {
        assert (e.message.has_prefix ("Linear: "));
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_container_and_names () {
    var module = new Ep.Module ();
    try {
        module.call (matrix ({ 1 }, { 1 }));
        assert_not_reached ();
    } catch (Ep.Error.INVALID_ARGUMENT e) {
        assert (e.message.has_prefix ("call: "));
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
    try {
        module.add_module ("a.b", new Ep.Relu ());
        assert_not_reached ();
    } catch (Ep.Error.INVALID_ARGUMENT e) {
        assert (e.message.has_prefix ("add_module: "));
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_staged () {
    try {
        var net = new Net ();
        set_weights (net.fc, { 1, 1 }, 0);
        var f = new Ep.Function ((inputs) => {
            var outputs = new GenericArray<Ep.Tensor> ();
            outputs.add (net.call (inputs[0]));
            return outputs;
        });
        Ep.Tensor[] x = { matrix ({ 1, 2 }, { 1, 2 }) };
        assert_cmpstr (f.call (x)[0].to_string (), CompareOperator.EQ, "[[9.]]");
        set_weights (net.fc, { 1, 1 }, 1);
        assert_cmpstr (f.call (x)[0].to_string (), CompareOperator.EQ, "[[12.]]");
        assert_cmpuint (f.get_trace_count (), CompareOperator.EQ, 1);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

int main (string[] args) {
    Test.init (ref args);
    Test.add_func ("/vala/module/subclass-call", test_subclass_call);
    Test.add_func ("/vala/module/paths", test_paths);
    Test.add_func ("/vala/module/error-from-call", test_error_from_call);
    Test.add_func ("/vala/module/bad-layer", test_bad_layer);
    Test.add_func ("/vala/module/container-and-names", test_container_and_names);
    Test.add_func ("/vala/module/staged", test_staged);
    return Test.run ();
}
