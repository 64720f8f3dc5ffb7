/* test-communicator.vala: the world communicator from Vala in one
 * process (issue 18): get_world, rank, size, all_reduce, errors.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

static void test_world () {
    try {
        var comm = Ep.Communicator.get_world ();
        assert_cmpint (comm.get_rank (), CompareOperator.EQ, 0);
        assert_cmpint (comm.size, CompareOperator.EQ, 1);
        var x = new Ep.Tensor.from_doubles ({ 1, 2 }, { 2 }, Ep.DType.FLOAT32);
        var y = comm.all_reduce (x, Ep.ReduceOp.SUM);
        assert_cmpstr (y.to_string (), CompareOperator.EQ, "[1. 2.]");
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

static void test_errors () {
    try {
        var comm = Ep.Communicator.get_world ();
        var b = new Ep.Tensor.from_doubles ({ 1, 0 }, { 2 }, Ep.DType.BOOL);
        comm.all_reduce (b, Ep.ReduceOp.SUM);
        assert_not_reached ();
    } catch (Ep.Error.DTYPE e) {
        assert_true (e.message.has_prefix ("all_reduce: "));
    } catch (GLib.Error e) {
        assert_no_error (e);
    }
}

int main (string[] args) {
    Test.init (ref args);
    Test.add_func ("/vala/communicator/world", test_world);
    Test.add_func ("/vala/communicator/errors", test_errors);
    return Test.run ();
}
