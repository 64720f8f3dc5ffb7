/* test-scenarios.vala: the scenarios every binding runs, in Vala,
 * compiled against eager-glib-1.0.vapi from the build.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

static Ep.Tensor vector (double[] values, int64[] shape) throws GLib.Error {
    return new Ep.Tensor.from_doubles (values, shape, Ep.DType.FLOAT32);
}

static void test_norm () {
    try {
        var norm = vector ({ 1, 2, 3 }, { 3 }).square ().sum (null, false).sqrt ();
        assert_cmpuint (norm.ndim, CompareOperator.EQ, 0);
        assert (norm.dtype == Ep.DType.FLOAT32);
        assert_cmpstr (norm.to_string (), CompareOperator.EQ, "3.7416575");
        assert_cmpfloat_with_epsilon (norm.item_double (), Math.sqrt (14), 1e-6);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_broadcast_add () {
    try {
        var total = vector ({ 10, 20 }, { 2, 1 }).add (vector ({ 1, 2, 3 }, { 3 }));
        unowned int64[] shape = total.get_shape ();
        assert_cmpint (shape.length, CompareOperator.EQ, 2);
        assert_cmpint ((int) shape[0], CompareOperator.EQ, 2);
        assert_cmpint ((int) shape[1], CompareOperator.EQ, 3);
        assert_cmpstr (total.to_string (), CompareOperator.EQ, "[[11. 12. 13.]\n [21. 22. 23.]]");
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_shape_error () {
    try {
        vector ({ 1, 2, 3 }, { 3 }).add (vector ({ 1, 2, 3, 4 }, { 4 }));
        assert_not_reached ();
    } catch (Ep.Error.SHAPE e) {
        assert (e.domain == Ep.Error.quark ());
        assert (e.code == Ep.Error.SHAPE);
        assert ("add" in e.message && "(3,)" in e.message && "(4,)" in e.message);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_value_and_grad () {
    try {
        Ep.Tensor value;
        GLib.GenericArray<weak Ep.Tensor> grads;
        assert (Ep.value_and_grad ((inputs) => {
            return inputs[0].square ().sum (null, false);
        }, { vector ({ 1, 2, 3 }, { 3 }) }, null, out value, out grads));
        assert_cmpfloat (value.item_double (), CompareOperator.EQ, 14);
        assert_cmpuint (grads.length, CompareOperator.EQ, 1);
        assert_cmpstr (grads[0].to_string (), CompareOperator.EQ, "[2. 4. 6.]");
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_staged_function () {
    try {
        var calls = 0;
        var rows = new Ep.Function.with_signature ((inputs) => {
            calls++;
            var results = new GLib.GenericArray<Ep.Tensor> ();
            results.add (inputs[0].sum ({ 1 }, false));
            return results;
        }, { new Ep.TensorSpec ({ -1, 2 }, Ep.DType.FLOAT32) });
        assert_cmpstr (rows.call ({ vector ({ 1, 2, 3, 4 }, { 2, 2 }) })[0].to_string (), CompareOperator.EQ, "[3. 7.]");
        /* a second number of rows traces again, to check that the
         * function computes the same; a third one replays */
        assert_cmpstr (rows.call ({ vector ({ 1, 1 }, { 1, 2 }) })[0].to_string (), CompareOperator.EQ, "[2.]");
        assert_cmpstr (rows.call ({ vector ({ 1, 1, 2, 2, 3, 3 }, { 3, 2 }) })[0].to_string (), CompareOperator.EQ,
                       "[2. 4. 6.]");
        assert_cmpint (calls, CompareOperator.EQ, 2);
        assert_cmpuint (rows.get_trace_count (), CompareOperator.EQ, 2);
        rows.call ({ vector ({ 1, 2, 3 }, { 3 }) });
        assert_not_reached ();
    } catch (Ep.Error.SHAPE e) {
        assert ("does not fit the signature" in e.message);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_value_and_grad_fn () {
    try {
        var fn = new Ep.ValueAndGradFn ((inputs) => {
            return inputs[0].mul (inputs[1]).sum (null, false);
        }, { 0, 1 });
        for (var k = 1; k <= 2; k++) {
            Ep.Tensor value;
            GLib.GenericArray<weak Ep.Tensor> grads;
            assert (fn.call ({ vector ({ k, 2 }, { 2 }), vector ({ 3, 4 }, { 2 }) }, out value, out grads));
            assert_cmpfloat (value.item_double (), CompareOperator.EQ, 3 * k + 8);
            assert_cmpuint (grads.length, CompareOperator.EQ, 2);
            assert_cmpstr (grads[0].to_string (), CompareOperator.EQ, "[3. 4.]");
            assert_cmpstr (grads[1].to_string (), CompareOperator.EQ, "[%d. 2.]".printf (k));
        }
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_several_results () {
    try {
        Ep.Tensor sign, logabsdet;
        assert (vector ({ 0, 2, 3, 0 }, { 2, 2 }).slogdet (out sign, out logabsdet));
        assert_cmpfloat (sign.item_double (), CompareOperator.EQ, -1);
        assert_cmpfloat_with_epsilon (logabsdet.item_double (), Math.log (6), 1e-6);

        var parts = vector ({ 1, 2, 3, 4, 5, 6 }, { 6 }).split (3, 0);
        assert_cmpuint (parts.length, CompareOperator.EQ, 3);
        assert_cmpstr (parts[2].to_string (), CompareOperator.EQ, "[5. 6.]");

        var grids = Ep.meshgrid ({ vector ({ 1, 2, 3 }, { 3 }), vector ({ 4, 5 }, { 2 }) }, Ep.MeshIndexing.IJ);
        assert_cmpuint (grids.length, CompareOperator.EQ, 2);
        assert_cmpstr (grids[0].to_string (), CompareOperator.EQ, "[[1. 1.]\n [2. 2.]\n [3. 3.]]");
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_nested_tapes () {
    try {
        var x = new Ep.Tensor.scalar (3, Ep.DType.FLOAT32);
        var outer = new Ep.GradientTape (false);
        var inner = new Ep.GradientTape (false);
        outer.start ();
        outer.watch (x);
        inner.start ();
        inner.watch (x);
        var y = x.mul (x);
        inner.stop ();
        var first = inner.gradient ({ y }, { x }, null);
        outer.stop ();
        Ep.Tensor dy = first[0];
        assert_cmpfloat (dy.item_double (), CompareOperator.EQ, 6);
        var second = outer.gradient ({ dy }, { x }, null);
        assert_cmpfloat (second[0].item_double (), CompareOperator.EQ, 2);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_device_scope () {
    try {
        var devices = Ep.list_devices ();
        unowned Ep.Device device = devices[devices.length - 1];
        var x = vector ({ 1, 2, 3 }, { 3 });
        device.push ();
        assert (Ep.Device.get_current () == device);
        var y = x.mul_scalar (2);
        device.pop ();   /* a pop throws, so it cannot sit in a finally block */
        assert (Ep.Device.get_current () == null);
        assert (y.device == device);
        var total = y.sum (null, false);
        assert (total.device == device);
        assert_cmpfloat (total.item_double (), CompareOperator.EQ, 12);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_staged_step () {
    try {
        var w = new Ep.Variable (vector ({ 1, 2 }, { 2 }), "w");
        var step = new Ep.Function ((inputs) => {
            var results = new GLib.GenericArray<Ep.Tensor> ();
            var tape = new Ep.GradientTape (false);
            tape.start ();
            var loss = w.read ().sub (inputs[0]).square ().sum (null, false);
            tape.stop ();
            var grads = tape.gradient ({ loss }, { w }, null);
            w.assign_sub (grads[0].mul_scalar (0.25));
            results.add (loss);
            return results;
        });
        var x = vector ({ 5, 6 }, { 2 });
        double[] losses = { 32, 8, 2 };
        foreach (var expected in losses) {
            var result = step.call ({ x });
            assert_cmpfloat (result[0].item_double (), CompareOperator.EQ, expected);
        }
        assert_cmpstr (w.read ().to_string (), CompareOperator.EQ, "[4.5 5.5]");
        assert_cmpuint (step.get_trace_count (), CompareOperator.EQ, 1);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

/* The same step with call_async: each call completes on the main loop. */
static async double step_async (Ep.Function step, Ep.Tensor x) throws GLib.Error {
    var result = yield step.call_async ({ x }, null);
    return result[0].item_double ();
}

static void test_staged_step_async () {
    var w = new Ep.Variable (vector_or_die ({ 1, 2 }), "w");
    var step = new Ep.Function ((inputs) => {
        var results = new GLib.GenericArray<Ep.Tensor> ();
        var tape = new Ep.GradientTape (false);
        tape.start ();
        var loss = w.read ().sub (inputs[0]).square ().sum (null, false);
        tape.stop ();
        w.assign_sub (tape.gradient ({ loss }, { w }, null)[0].mul_scalar (0.25));
        results.add (loss);
        return results;
    });
    var loop = new MainLoop ();
    double[] losses = {};
    step_async.begin (step, vector_or_die ({ 5, 6 }), (obj, res) => {
        try {
            losses += step_async.end (res);
            step_async.begin (step, vector_or_die ({ 5, 6 }), (obj2, res2) => {
                try {
                    losses += step_async.end (res2);
                } catch (GLib.Error e) {
                    assert_no_error (e);
                }
                loop.quit ();
            });
        } catch (GLib.Error e) {
            assert_no_error (e);
        }
    });
    loop.run ();
    assert_cmpuint (losses.length, CompareOperator.EQ, 2);
    assert_cmpfloat (losses[0], CompareOperator.EQ, 32);
    assert_cmpfloat (losses[1], CompareOperator.EQ, 8);
    try {
        assert_cmpstr (w.read ().to_string (), CompareOperator.EQ, "[4. 5.]");
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static Ep.Tensor vector_or_die (double[] values) {
    try {
        return vector (values, { values.length });
    } catch (GLib.Error e) {
        assert_no_error (e);
        assert_not_reached ();
    }
}

static void test_scalar_forms () {
    try {
        var x = vector ({ 1, 2, 3 }, { 3 });
        assert_cmpstr (x.less_scalar (2).to_string (), CompareOperator.EQ, "[ True False False]");
        var mask = x.not_equal_scalar (2);
        assert_cmpstr (mask.logical_and_scalar (1).to_string (), CompareOperator.EQ, "[ True False  True]");
        assert_cmpstr (mask.logical_or_scalar (1).to_string (), CompareOperator.EQ, "[ True  True  True]");
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

/* int8 and int16 through the vapi: from bytes, item_int64, wrapping abs */
static void test_narrow_ints () {
    try {
        int16[] values = { -32768, 300 };
        uint8[] raw = ((uint8[]) values)[0 : values.length * sizeof (int16)];
        var x = new Ep.Tensor.from_bytes (new GLib.Bytes (raw), Ep.DType.INT16, { 2 });
        assert (x.dtype == Ep.DType.INT16);
        var parts = x.split (2, 0);
        assert (parts[0].item_int64 () == -32768);
        assert (parts[1].astype (Ep.DType.INT8).item_int64 () == 44);
        var m = new Ep.Tensor.scalar (-128, Ep.DType.INT8);
        assert (m.abs ().item_int64 () == -128);
        assert (Ep.dtype_get_name (Ep.DType.INT8) == "int8");
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_item_readers () {
    try {
        int64[] values = { int64.MAX, (1LL << 53) + 1 };
        uint8[] raw = ((uint8[]) values)[0 : values.length * sizeof (int64)];
        var x = new Ep.Tensor.from_bytes (new GLib.Bytes (raw), Ep.DType.INT64, { 2 });
        var parts = x.split (2, 0);
        assert (parts[0].item_int64 () == int64.MAX);
        assert (parts[1].item_int64 () == (1LL << 53) + 1);
        assert_cmpfloat (parts[1].item_double (), CompareOperator.EQ, 9007199254740992.0);
        assert (parts[1].item_boolean ());
        assert (new Ep.Tensor.scalar (-2.5, Ep.DType.FLOAT64).item_int64 () == -2);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
    try {
        new Ep.Tensor.scalar (double.NAN, Ep.DType.FLOAT32).item_int64 ();
        assert_not_reached ();
    } catch (Ep.Error.INVALID_ARGUMENT e) {
        assert ("item_int64" in e.message);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_device_pop_names_its_scope () {
    unowned Ep.Device cpu = Ep.Device.get_default ();
    try {
        cpu.pop ();
        assert_not_reached ();
    } catch (Ep.Error.INVALID_ARGUMENT e) {
        assert ("no device scope is open" in e.message);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
    assert (Ep.Device.get_current () == null);
}

static void test_data_in_and_out () {
    try {
        float[] values = { 1.5f, -2f, 4f, 8f };
        uint8[] raw = ((uint8[]) values)[0 : values.length * sizeof (float)];
        var x = new Ep.Tensor.from_bytes (new GLib.Bytes (raw), Ep.DType.FLOAT32, { 2, 2 });
        assert_cmpstr (x.to_repr (), CompareOperator.EQ,
                       "Ep.Tensor([[ 1.5, -2. ],\n           [ 4. ,  8. ]], dtype=float32)");
        var bytes = x.transpose (null).to_bytes ();
        unowned float[] back = (float[]) bytes.get_data ();
        assert_cmpfloat (back[1], CompareOperator.EQ, 4f);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_release () {
    try {
        var x = vector ({ 1, 2 }, { 2 });
        x.release ();
        assert (x.is_released ());
        x.exp ();
        assert_not_reached ();
    } catch (Ep.Error.INVALID_ARGUMENT e) {
        assert ("released" in e.message);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

/* A checkpoint saved and restored, then the same with the async
 * variants on a main loop */
static void test_checkpoint () {
    try {
        string[] names = { "encoder.layers.0.weight", "step" };
        var folder = DirUtils.make_tmp ("ep-vala-XXXXXX");
        var file = File.new_for_path (Path.build_filename (folder, "model.safetensors"));
        Ep.Variable[] saved = { new Ep.Variable (vector ({ 1, 2 }, { 2 }), null),
                                new Ep.Variable (vector ({ 7 }, { 1 }), null) };
        Ep.Variable[] fresh = { new Ep.Variable (vector ({ 0, 0 }, { 2 }), null),
                                new Ep.Variable (vector ({ 0 }, { 1 }), null) };
        Ep.checkpoint_save (names, saved, file);
        Ep.checkpoint_restore (names, fresh, file, Ep.CheckpointFlags.NONE, null);
        assert_cmpstr (fresh[0].read ().to_string (), CompareOperator.EQ, "[1. 2.]");

        Ep.Variable[] again = { new Ep.Variable (vector ({ 0, 0 }, { 2 }), null),
                                new Ep.Variable (vector ({ 0 }, { 1 }), null) };
        var loop = new MainLoop ();
        Ep.checkpoint_restore_async.begin (names, again, file, Ep.CheckpointFlags.NONE, null, (obj, res) => {
            try {
                Ep.checkpoint_restore_async.end (res);
            } catch (GLib.Error e) {
                assert_no_error (e);
            }
            loop.quit ();
        });
        loop.run ();
        assert_cmpstr (again[1].read ().to_string (), CompareOperator.EQ, "[7.]");
        file.delete ();
        DirUtils.remove (folder);
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

int main (string[] args) {
    Test.init (ref args);
    Test.add_func ("/vala/scenarios/norm", test_norm);
    Test.add_func ("/vala/scenarios/broadcast-add", test_broadcast_add);
    Test.add_func ("/vala/scenarios/shape-error", test_shape_error);
    Test.add_func ("/vala/scenarios/value-and-grad", test_value_and_grad);
    Test.add_func ("/vala/scenarios/value-and-grad-fn", test_value_and_grad_fn);
    Test.add_func ("/vala/several-results", test_several_results);
    Test.add_func ("/vala/scenarios/nested-tapes", test_nested_tapes);
    Test.add_func ("/vala/scenarios/device-scope", test_device_scope);
    Test.add_func ("/vala/scenarios/staged-step", test_staged_step);
    Test.add_func ("/vala/checkpoint", test_checkpoint);
    Test.add_func ("/vala/staged-step-async", test_staged_step_async);
    Test.add_func ("/vala/scalar-forms", test_scalar_forms);
    Test.add_func ("/vala/narrow-ints", test_narrow_ints);
    Test.add_func ("/vala/item-readers", test_item_readers);
    Test.add_func ("/vala/scenarios/device-pop", test_device_pop_names_its_scope);
    Test.add_func ("/vala/data-in-and-out", test_data_in_and_out);
    Test.add_func ("/vala/release", test_release);
    Test.add_func ("/vala/scenarios/staged-function", test_staged_function);
    return Test.run ();
}
