// test-communicator.js: the world communicator from gjs in one process
// (issue 18): get_world, rank, size, all_reduce, errors.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import GObject from 'gi://GObject';
import Ep from 'gi://Ep?version=1.0';

import {test, run, assert, assertEqual, assertThrowsEp} from './harness.js';

const vector = values => Ep.Tensor.new_from_doubles(values, [values.length], Ep.DType.FLOAT32);
const values = t => Array.from(new Float32Array(Uint8Array.from(t.to_bytes().toArray()).buffer));

test('the world is this process alone outside mpirun', () => {
    const comm = Ep.Communicator.get_world();
    assertEqual(comm.get_rank(), 0, 'rank');
    assertEqual(comm.get_size(), 1, 'size');
    assertEqual(comm.rank, 0, 'rank property');
    assertEqual(comm.size, 1, 'size property');
    assert(Ep.Communicator.get_world() === comm, 'one world');
});

test('all_reduce of one process is a copy', () => {
    const comm = Ep.Communicator.get_world();
    const y = comm.all_reduce(vector([1, 2, 3]), Ep.ReduceOp.SUM);
    assertEqual(JSON.stringify(values(y)), '[1,2,3]', 'sum');
    const m = comm.all_reduce(vector([4, -1]), Ep.ReduceOp.MAX);
    assertEqual(JSON.stringify(values(m)), '[4,-1]', 'max');
});

test('errors are GErrors', () => {
    const comm = Ep.Communicator.get_world();
    const e = assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => comm.broadcast(vector([1]), 1));
    assert(e.message.startsWith('broadcast: root 1'), e.message);
    const bare = GObject.Object.new(Ep.Communicator.$gtype, []);
    assertThrowsEp(Ep, Ep.Error.INVALID_ARGUMENT, () => bare.all_reduce(vector([1]), Ep.ReduceOp.SUM));
});

run();
