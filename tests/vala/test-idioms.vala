/* test-idioms.vala: what docs/vala.md shows, compiled against the vapi
 * of this build with the C compiler's discarded-qualifier warning made an
 * error: a model's Ep.Variable[] and a Ep.Tensor[] as the sources of a
 * tape, shapes and strides read without a const warning, slicing with
 * Ep.SLICE_START and Ep.SLICE_END, errors caught by their code.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

static Ep.Tensor vector (double[] values) throws GLib.Error {
    return new Ep.Tensor.from_doubles (values, { values.length }, Ep.DType.FLOAT32);
}

/* loss = sum (w * x) + b: d/dw = x, d/db = 1, d/dx = w */
static void test_variable_sources () {
    try {
        var x = vector ({ 1, 2, 3 });
        var w = new Ep.Variable (vector ({ 4, 5, 6 }), "w");
        var b = new Ep.Variable (vector ({ 0.5 }), "b");
        Ep.Variable[] parameters = { w, b };
        var tape = new Ep.GradientTape (false);
        tape.start ();
        var loss = w.read ().mul (x).sum (null, false).add (b.read ().sum (null, false));
        tape.stop ();
        var grads = tape.gradient_variables ({ loss }, parameters, null);
        assert_cmpuint (grads.length, CompareOperator.EQ, 2);
        assert_cmpstr (grads[0].to_string (), CompareOperator.EQ, "[1. 2. 3.]");
        assert_cmpstr (grads[1].to_string (), CompareOperator.EQ, "[1.]");
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

/* docs/vala.md's training step: a model's trainable variables straight
 * into the tape and the optimizer; y = 2x + 1 learnt by a Linear layer */
static void test_training () {
    try {
        var model = new Ep.Linear (1, 1, true);
        var optimizer = new Ep.Sgd (0.1, 0.0);
        var x = new Ep.Tensor.from_doubles ({ 0, 1, 2, 3 }, { 4, 1 }, Ep.DType.FLOAT32);
        var y = new Ep.Tensor.from_doubles ({ 1, 3, 5, 7 }, { 4, 1 }, Ep.DType.FLOAT32);
        string[] paths;
        var parameters = model.get_trainable_variables (out paths);
        double first = 0, last = 0;
        for (int step = 0; step < 200; step++) {
            var tape = new Ep.GradientTape (false);
            tape.start ();
            var loss = model.call (x).mse_loss (y, Ep.Reduction.MEAN);
            tape.stop ();
            var grads = tape.gradient_variables ({ loss }, parameters.data, null);
            optimizer.apply_gradients (grads.data, parameters.data);
            last = loss.item_double ();
            if (step == 0)
                first = last;
        }
        assert_cmpuint (parameters.length, CompareOperator.EQ, 2);
        assert_true (last < first / 100);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_tensor_sources () {
    try {
        var x = vector ({ 1, 2, 3 });
        var tape = new Ep.GradientTape (false);
        tape.start ();
        tape.watch (x);
        var y = x.square ().sum (null, false);
        tape.stop ();
        Ep.Tensor[] sources = { x };
        var grads = tape.gradient_tensors ({ y }, sources, null);
        assert_cmpstr (grads[0].to_string (), CompareOperator.EQ, "[2. 4. 6.]");
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_forward () {
    try {
        var x = vector ({ 1, 2, 3 });
        var acc = new Ep.ForwardAccumulator ();
        acc.watch (x, vector ({ 1, 0, 1 }));
        acc.start ();
        var y = x.square ();
        acc.stop ();
        assert_cmpstr (acc.jvp (y).to_string (), CompareOperator.EQ, "[2. 0. 6.]");
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_shapes () {
    try {
        var x = new Ep.Tensor.from_doubles ({ 1, 2, 3, 4, 5, 6 }, { 2, 3 }, Ep.DType.FLOAT32);
        unowned int64[] shape = x.get_shape ();
        unowned int64[] strides = x.transpose (null).get_strides ();
        var v = new Ep.Variable (x, "v");
        assert_cmpint (shape.length, CompareOperator.EQ, 2);
        assert_cmpint ((int) shape[1], CompareOperator.EQ, 3);
        assert_cmpint ((int) strides[0], CompareOperator.EQ, 1);
        assert_cmpint ((int) v.get_shape ()[0], CompareOperator.EQ, 2);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_slices () {
    try {
        var x = vector ({ 0, 1, 2, 3 });
        // x[::-1], x[1:], x[:2]
        var reversed = x.slice ({ Ep.SLICE_END }, { Ep.SLICE_START }, { -1 });
        var tail = x.slice ({ 1 }, { Ep.SLICE_END }, null);
        var head = x.slice ({ Ep.SLICE_START }, { 2 }, null);
        assert_cmpstr (reversed.to_string (), CompareOperator.EQ, "[3. 2. 1. 0.]");
        assert_cmpstr (tail.to_string (), CompareOperator.EQ, "[1. 2. 3.]");
        assert_cmpstr (head.to_string (), CompareOperator.EQ, "[0. 1.]");
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_errors () {
    try {
        vector ({ 1, 2, 3 }).add (vector ({ 1, 2 }));
        assert_not_reached ();
    } catch (Ep.Error.SHAPE e) {
        assert_true (e.message.has_prefix ("add"));
    } catch (Ep.Error e) {
        assert_not_reached ();
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
    // the domain alone catches every code
    try {
        vector ({ 1, 2, 3 }).sum ({ 5 }, false);
        assert_not_reached ();
    } catch (Ep.Error e) {
        assert_true (e is Ep.Error.AXIS);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

/* docs/vala.md's module */
class Net : Ep.Module {
    public Ep.Linear fc;

    public Net () throws GLib.Error {
        Object ();
        fc = new Ep.Linear (2, 1, true);
        add_module ("fc", fc);
    }

    public override Ep.Tensor call (Ep.Tensor x) throws GLib.Error {
        return fc.call (x).relu ();
    }
}

static void test_module () {
    try {
        var net = new Net ();
        string[] paths;
        var parameters = net.get_trainable_variables (out paths);
        var y = net.call (new Ep.Tensor.from_doubles ({ 1, 2 }, { 1, 2 }, Ep.DType.FLOAT32));
        assert_cmpuint (parameters.length, CompareOperator.EQ, 2);
        assert_cmpstr (paths[0], CompareOperator.EQ, "fc.weight");
        assert_cmpint ((int) y.get_shape ()[1], CompareOperator.EQ, 1);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

int main (string[] args) {
    Test.init (ref args);
    Test.add_func ("/vala/tape/variable-sources", test_variable_sources);
    Test.add_func ("/vala/tape/tensor-sources", test_tensor_sources);
    Test.add_func ("/vala/tape/training", test_training);
    Test.add_func ("/vala/forward/accumulator", test_forward);
    Test.add_func ("/vala/tensor/shapes", test_shapes);
    Test.add_func ("/vala/tensor/slices", test_slices);
    Test.add_func ("/vala/errors", test_errors);
    Test.add_func ("/vala/module", test_module);
    return Test.run ();
}
