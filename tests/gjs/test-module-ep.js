// test-module-ep.js: the gjs module ep.js (docs/gjs.md, each snippet
// there is a test here): optional arguments, numbers and arrays where
// tensors go, properties, printing, iteration, typed arrays both ways,
// Ep.tidy, and the wrappers generated from the whole catalogue.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';
import GLib from 'gi://GLib';
import System from 'system';

import {test, run, assert, assertEqual, assertClose, assertThrowsEp} from './harness.js';

// the import line of docs/gjs.md
const ep = await import('resource:///org/gnome/EagerGlib/js/ep.js');
const addAfterFirstImport = Ep.Tensor.prototype.add;
const again = await import('resource:///org/gnome/EagerGlib/js/ep.js');

const same = (got, expected, what) => assertEqual(JSON.stringify(got), JSON.stringify(expected), what);

// ---------------------------------------------------------------------------
// the module
// ---------------------------------------------------------------------------

test('every catalogue entry with a C function is wrapped', () => {
    assertEqual(ep.catalogueProblems.join('; '), '', 'problems');
    const entries = Ep.list_ops().recursiveUnpack().filter(e => e.function);
    assertEqual(Object.keys(ep.ops).length, entries.length, 'wrappers');
});

test('a second import patches nothing twice', () => {
    assert(again === ep, 'the same module');
    assert(Ep.Tensor.prototype.add === addAfterFirstImport, 'the same wrapper');
});

test('a method with nothing to convert stays the GI function, unless results are counted', () => {
    // gjs 1.69.1 to 1.85.0: every op counts its results for the collector
    assertEqual('wrappedGI' in Ep.Tensor.prototype.exp, ep.gjsScansWrappers, 'exp wrapped');
    assertEqual(ep.gjsScansWrappers, System.version >= 16901 && System.version < 18501, 'the versions');
    assert(ep.ops.exp.passesThrough, 'exp passes through');
    assert(Ep.Tensor.prototype.add.wrappedGI !== undefined, 'add is wrapped');
});

// ---------------------------------------------------------------------------
// docs/gjs.md: optional arguments
// ---------------------------------------------------------------------------

test('optional arguments may be left out', () => {
    const x = Ep.tensor([[1, 2, 3], [4, 5, 6]]);
    assertEqual(x.sum().toString(), '21.0', 'sum()');
    assertEqual(x.sum(0).toString(), '[5. 7. 9.]', 'sum(0)');
    assertEqual(x.sum(1, true).toString(), '[[ 6.]\n [15.]]', 'sum(1, true)');
    same(x.transpose().shape, [3, 2], 'transpose()');
    same(x.reshape([3, 2]).shape, [3, 2], 'reshape');
    assertEqual(x.mean().toString(), '3.5', 'mean()');
    assertEqual(x.argmax().toString(), '5', 'argmax(): flattened');
    assertEqual(Ep.zeros([3]).toString(), '[0. 0. 0.]', 'zeros([3])');
    assertEqual(Ep.zeros([3]).dtype, 'float32', 'default dtype');
});

test('defaults are the schema\'s (the Python layer\'s)', () => {
    assertEqual(Ep.arange(0, 3).toString(), '[0. 1. 2.]', 'step 1, float32');
    assertEqual(Ep.linspace(0, 1).size, 50, 'num 50');
    assertEqual(Ep.eye(2, 3).toString(), '[[1. 0. 0.]\n [0. 1. 0.]]', 'k 0');
    const x = Ep.tensor([[1, 2], [3, 4]]);
    assertEqual(x.pad([1, 0, 0, 0]).toString(), '[[0. 0.]\n [1. 2.]\n [3. 4.]]', 'constant 0');
    assertEqual(x.pad([1, 0, 0, 0], 'reflect').toString(), '[[3. 4.]\n [1. 2.]\n [3. 4.]]', 'a nick');
    assertEqual(x.pad([1, 0, 0, 0], Ep.PadMode.REFLECT).toString(),
        '[[3. 4.]\n [1. 2.]\n [3. 4.]]', 'the enum');
});

test('dtypes by name or Ep.DType', () => {
    assertEqual(Ep.zeros(3, 'int32').dtype, 'int32', 'a name');
    assertEqual(Ep.ones([2], Ep.DType.FLOAT64).dtype, 'float64', 'the enum');
    assertEqual(Ep.tensor([1, 2]).astype('int64').dtype, 'int64', 'astype');
});

test('axis=[] reduces over no axes, as NumPy\'s axis=()', () => {
    const x = Ep.tensor([[1, 2], [3, 4]]);
    assertEqual(x.sum([]).toString(), x.toString(), 'values');
    same(x.max([], true).shape, [2, 2], 'shape');
});

test('several outputs are an array', () => {
    const [values, indices] = Ep.tensor([3, 1, 2]).topk(2);
    assertEqual(values.toString(), '[3. 2.]', 'values');
    assertEqual(indices.toString(), '[0 2]', 'indices');
    const [sign, logdet] = Ep.tensor([[2, 0], [0, 3]]).slogdet();
    assertEqual(sign.toString(), '1.0', 'sign');
    assertClose(logdet.item_double(), Math.log(6), 1e-6, 'log det');
});

// ---------------------------------------------------------------------------
// docs/gjs.md: numbers and arrays where tensors go
// ---------------------------------------------------------------------------

test('numbers are weak scalars: a float32 tensor stays float32', () => {
    const x = Ep.tensor([1, 2]);
    assertEqual(x.add(1).toString(), '[2. 3.]', 'add(1)');
    assertEqual(x.mul(2.5).dtype, 'float32', 'mul(2.5)');
    assertEqual(Ep.tensor([1, 2], 'int32').add(1).dtype, 'int32', 'int32 + 1');
    assertEqual(Ep.tensor([1n, 2n]).dtype, 'int64', 'BigInts: int64');
    assertEqual(Ep.tensor([1n, 2.5], 'float64').toString(), '[1.  2.5]', 'BigInts to float64');
    assertEqual(Ep.tensor([true, 0]).toString(), '[1. 0.]', 'booleans among numbers: float32');
    assertEqual(Ep.tensor([1, 2], 'int32').mul(0.5).toString(), '[0.5 1. ]', 'int32 * 0.5');
    assertEqual(x.greater(1).toString(), '[False  True]', 'greater(1)');
});

test('nested arrays, typed arrays and Variables where tensors go', () => {
    const x = Ep.tensor([[1, 2], [3, 4]]);
    assertEqual(x.mul([10, 100]).toString(), '[[ 10. 200.]\n [ 30. 400.]]', 'an array');
    assertEqual(x.matmul(new Float32Array([1, 1])).toString(), '[3. 7.]', 'a typed array');
    const v = Ep.Variable.new(Ep.tensor([1, 1]), 'v');
    assertEqual(x.add(v).toString(), '[[2. 3.]\n [4. 5.]]', 'a Variable');
    assertEqual(Ep.where(x.greater(2), x, 0).toString(), '[[0. 0.]\n [3. 4.]]', 'where');
});

test('method ops have a function form where Ep has no such name', () => {
    assertEqual(Ep.sum([[1, 2], [3, 4]], 1).toString(), '[3. 7.]', 'Ep.sum(array, 1)');
    assertEqual(Ep.exp(0).toString(), '1.0', 'Ep.exp(0)');
    assertEqual(Ep.maximum(Ep.tensor([1, 5]), 3).toString(), '[3. 5.]', 'Ep.maximum');
    assert(Ep.float32 === undefined, 'no function named after a dtype');
});

test('lists of tensors accept arrays and numbers', () => {
    assertEqual(Ep.concatenate([Ep.tensor([1]), [2, 3]], 0).toString(), '[1. 2. 3.]', 'concatenate');
    assertEqual(Ep.stack([[1, 2], [3, 4]], 0).toString(), '[[1. 2.]\n [3. 4.]]', 'stack');
});

test('integer inputs: numbers and arrays become int64', () => {
    const x = Ep.tensor([10, 20, 30]);
    assertEqual(x.take([2, 0], 0).toString(), '[30. 10.]', 'take');
    assertEqual(x.take(1, 0).toString(), '20.0', 'take one');
});

test('bad arguments are clear errors', () => {
    const x = Ep.tensor([1, 2]);
    let caught = null;
    try {
        Ep.zeros([2], 'complex64');
    } catch (e) {
        caught = e;
    }
    assert(caught instanceof TypeError && caught.message.includes('complex64'), `${caught}`);
    caught = null;
    try {
        x.pad([1, 1], 'mirror');
    } catch (e) {
        caught = e;
    }
    assert(caught instanceof TypeError && caught.message.includes('reflect'), `${caught}`);
    assertThrowsEp(Ep, Ep.Error.SHAPE, () => x.add([1, 2, 3]));
    assertThrowsEp(Ep, Ep.Error.AXIS, () => x.sum(3));
    caught = null;
    for (const ragged of [[[1, 2], [3]], [[1, 2], [3], [4, 5, 6]], [[1, 2], [3, [4]]]]) {
        caught = null;
        try {
            Ep.tensor(ragged);
        } catch (e) {
            caught = e;
        }
        assert(caught instanceof TypeError && caught.message.includes('ragged'), `${caught}`);
    }
    caught = null;
    try {
        Ep.tensor({a: 1});
    } catch (e) {
        caught = e;
    }
    assert(caught instanceof TypeError, `${caught}`);
});

// ---------------------------------------------------------------------------
// docs/gjs.md: properties, printing, iteration
// ---------------------------------------------------------------------------

test('shape, dtype, ndim and size', () => {
    const x = Ep.tensor([[1, 2, 3], [4, 5, 6]]);
    same(x.shape, [2, 3], 'shape');
    assertEqual(x.dtype, 'float32', 'dtype');
    assertEqual(x.ndim, 2, 'ndim');
    assertEqual(x.size, 6, 'size');
    assertEqual(x.get_dtype(), Ep.DType.FLOAT32, 'get_dtype() is the enum');
    same(Ep.tensor(3).shape, [], 'a scalar');
});

test('toString() and print() show the values', () => {
    const x = Ep.tensor([[1, 2], [3, 4]]);
    assertEqual(`${x}`, '[[1. 2.]\n [3. 4.]]', 'template string');
    assertEqual(String(Ep.tensor(true)), 'True', 'bool');
    const released = Ep.tensor([1, 2]);
    released.release();
    assertEqual(`${released}`, 'Ep.Tensor (released) shape=[2] dtype=float32', 'released');
});

test('iterating gives the rows along the first axis', () => {
    const rows = [...Ep.tensor([[1, 2], [3, 4], [5, 6]])].map(String);
    same(rows, ['[1. 2.]', '[3. 4.]', '[5. 6.]'], 'rows');
    const items = [...Ep.tensor([7, 8])].map(t => t.item_double());
    same(items, [7, 8], '1-d: 0-d tensors');
    let caught = null;
    try {
        [...Ep.tensor(1)];
    } catch (e) {
        caught = e;
    }
    assert(caught instanceof TypeError, `${caught}`);
});

// ---------------------------------------------------------------------------
// docs/gjs.md: typed arrays
// ---------------------------------------------------------------------------

test('Ep.tensor of a typed array keeps its type, with a shape', () => {
    const x = Ep.tensor(new Float32Array([1, 2, 3, 4, 5, 6]), [2, 3]);
    assertEqual(x.toString(), '[[1. 2. 3.]\n [4. 5. 6.]]', 'values');
    assertEqual(Ep.tensor(new Float64Array(2)).dtype, 'float64', 'Float64Array');
    assertEqual(Ep.tensor(new Int32Array(2)).dtype, 'int32', 'Int32Array');
    assertEqual(Ep.tensor(new BigInt64Array([1n, -2n])).toString(), '[ 1 -2]', 'BigInt64Array');
    assertEqual(Ep.tensor(new Uint8Array([1, 255])).toString(), '[  1 255]', 'Uint8Array: values');
    assertEqual(Ep.tensor(new Uint8Array(2)).dtype, 'uint8', 'Uint8Array: uint8');
    assertEqual(Ep.tensor(new Uint8ClampedArray([3, 200])).dtype, 'uint8', 'Uint8ClampedArray: uint8');
    assertEqual(Ep.tensor(new Int16Array([-32768, 7])).toString(), '[-32768      7]', 'Int16Array: values');
    assertEqual(Ep.tensor(new Int16Array(2)).dtype, 'int16', 'Int16Array: int16');
    assertEqual(Ep.tensor(new Int8Array([-128, 127])).dtype, 'int8', 'Int8Array: int8');
    assertEqual(Ep.tensor(new Uint16Array(2)).dtype, 'int32', 'Uint16Array: int32');
    same(Array.from(Ep.tensor([200, -129, 1.9], 'int8').toTypedArray()), [-56, 127, 1], 'to int8 wraps');
    assert(Ep.tensor(new Int8Array([7])).toTypedArray() instanceof Int8Array, 'int8: Int8Array back');
    assert(Ep.tensor(new Int16Array([7])).toTypedArray() instanceof Int16Array, 'int16: Int16Array back');
    same(Array.from(Ep.tensor(new Int8Array([-128, 5])).abs().toTypedArray()), [-128, 5], 'int8: abs wraps');
    same(Array.from(Ep.tensor([1.9, -1, 256], 'uint8').toTypedArray()), [1, 255, 0], 'to uint8 wraps');
    assert(Ep.tensor(new Uint8Array([7])).toTypedArray() instanceof Uint8Array, 'uint8: Uint8Array back');
    assertEqual(Ep.tensor(new Float32Array([1.5]), 'int32').toString(), '[1]', 'a dtype');
    const sub = new Float32Array([0, 1, 2, 3]).subarray(1, 3);
    assertEqual(Ep.tensor(sub).toString(), '[1. 2.]', 'a subarray');
    assertThrowsEp(Ep, Ep.Error.SHAPE, () => Ep.tensor(new Float32Array(5), [2, 3]));
});

test('float16 and bfloat16: numbers in (rounded), numbers out, no typed array', () => {
    const x = Ep.tensor([0.1, 1.5, 70000], 'float16');
    assertEqual(x.dtype, 'float16', 'dtype');
    same(x.arraySync(), [0.0999755859375, 1.5, Infinity], 'float16 values');
    const b = Ep.tensor(new Float32Array([0.1, 3]), 'bfloat16');
    assertEqual(b.dtype, 'bfloat16', 'bfloat16 dtype');
    same(b.arraySync(), [0.10009765625, 3], 'bfloat16 values');
    same(b.add(b).arraySync(), [0.2001953125, 6], 'computed in float32, rounded');
    let caught = null;
    try {
        x.toTypedArray();
    } catch (e) {
        caught = e;
    }
    assert(caught instanceof TypeError && caught.message.includes("astype('float32')"), `${caught}`);
});

test('the tensor copies the typed array once: writing to it later changes nothing', () => {
    const data = new Float32Array([1, 2]);
    const x = Ep.tensor(data);
    data[0] = 42;
    assertEqual(x.toString(), '[1. 2.]', 'values');
});

test('toTypedArray() and dataSync() read without a copy', () => {
    const x = Ep.tensor([[1, 2], [3, 4]]);
    const values = x.toTypedArray();
    assert(values instanceof Float32Array, 'a Float32Array');
    same(Array.from(values), [1, 2, 3, 4], 'values');
    // the view shares the tensor's memory: a second read sees the same buffer
    values[0] = 9;   // (never do this: tensors are immutable)
    assertEqual(x.dataSync()[0], 9, 'shared');
    const copy = x.toTypedArray({copy: true});
    copy[1] = 7;
    assertEqual(x.dataSync()[1], 2, 'a copy');
});

test('typed arrays of every dtype, and of views', () => {
    assert(Ep.tensor([1, 2], 'int64').toTypedArray() instanceof BigInt64Array, 'int64');
    assert(Ep.tensor([1, 2], 'float64').toTypedArray() instanceof Float64Array, 'float64');
    assert(Ep.tensor([1, 2], 'int32').toTypedArray() instanceof Int32Array, 'int32');
    same(Array.from(Ep.tensor([true, false]).toTypedArray()), [1, 0], 'bool: Uint8Array');
    const t = Ep.tensor([[1, 2], [3, 4]]).transpose();
    same(Array.from(t.toTypedArray()), [1, 3, 2, 4], 'a transposed view: C order');
    same(Ep.tensor([[1, 2], [3, 4]]).arraySync(), [[1, 2], [3, 4]], 'arraySync');
    same(Ep.tensor([true]).arraySync(), [true], 'arraySync of bool');
    assertEqual(Ep.tensor(2.5).arraySync(), 2.5, 'arraySync of a scalar');
});

test('a typed array keeps its memory after the tensor is released', () => {
    const x = Ep.tensor(new Float32Array([1, 2, 3]));
    const values = x.toTypedArray();
    x.release();
    System.gc();
    same(Array.from(values), [1, 2, 3], 'still there');
});

test('GLib.Bytes.toArray() is a view of the bytes (no copy); new GLib.Bytes copies', () => {
    const data = new Uint8Array([1, 2, 3, 4]);
    const bytes = new GLib.Bytes(data);
    data[0] = 9;
    assertEqual(bytes.toArray()[0], 1, 'new GLib.Bytes copies');
    const x = Ep.tensor(new Int32Array([5]));
    const view = x.to_bytes().toArray();
    view[0] = 6;
    assertEqual(x.item_int64(), 6, 'toArray() is the tensor\'s memory');
});

// ---------------------------------------------------------------------------
// docs/gjs.md: tidy (when the library has ep_tidy)
// ---------------------------------------------------------------------------

const hasTidy = typeof Ep.tidy_begin === 'function';
const tidyNote = hasTidy ? '' : ' # SKIP this build has no ep_tidy_begin';

test(`Ep.tidy returns a tensor and releases the rest${tidyNote}`, () => {
    if (!hasTidy)
        return;
    let inside = null;
    const y = Ep.tidy(() => {
        inside = Ep.tensor([1, 2]).mul(2);
        return inside.add(1);
    });
    assertEqual(y.toString(), '[3. 5.]', 'the result');
    assert(inside.is_released(), 'an intermediate released');
});

test(`Ep.tidy keeps the tensors in arrays and objects${tidyNote}`, () => {
    if (!hasTidy)
        return;
    let inside = null;
    const {a, rest: [b]} = Ep.tidy(() => {
        inside = Ep.tensor([1, 2]);
        return {a: inside.mul(2), rest: [inside.add(1)]};
    });
    assertEqual(a.toString(), '[2. 4.]', 'a');
    assertEqual(b.toString(), '[2. 3.]', 'b');
    assert(inside.is_released(), 'an intermediate released');
});

test(`Ep.tidy: the snippet of docs/gjs.md${tidyNote}`, () => {
    if (!hasTidy)
        return;
    let doubled = null;
    const {total, parts} = Ep.tidy(() => {
        doubled = Ep.tensor([1, 2]).mul(2);
        return {total: doubled.sum(), parts: [doubled.add(1)]};
    });
    assertEqual(total.toString(), '6.0', 'total');
    assertEqual(parts[0].toString(), '[3. 5.]', 'parts');
    assert(doubled.is_released(), 'doubled released');
});

test(`Ep.tidy: an exception closes the scope and goes on${tidyNote}`, () => {
    if (!hasTidy)
        return;
    const depth = Ep.tidy_get_depth();
    let inside = null, caught = null;
    try {
        Ep.tidy(() => {
            inside = Ep.tensor([1, 2]).mul(2);
            throw new RangeError('stop');
        });
    } catch (e) {
        caught = e;
    }
    assert(caught instanceof RangeError, `${caught}`);
    assert(inside.is_released(), 'released');
    assertEqual(Ep.tidy_get_depth(), depth, 'the scope closed');
});

test(`Ep.tidy: nested, the inner result belongs to the outer scope${tidyNote}`, () => {
    if (!hasTidy)
        return;
    let inner = null;
    const kept = Ep.tidy(() => {
        inner = Ep.tidy(() => Ep.tensor([1, 2]).add(1));
        assert(!inner.is_released(), 'alive in the outer scope');
        return inner.mul(2);
    });
    assert(inner.is_released(), 'released with the outer scope');
    assertEqual(kept.toString(), '[4. 6.]', 'the result');
});

test(`Ep.tidy: numbers made scalars inside stay usable after it${tidyNote}`, () => {
    if (!hasTidy)
        return;
    Ep.tidy(() => Ep.tensor([1]).add(12345.5));
    assertEqual(Ep.tensor([1]).add(12345.5).toString(), '[12346.5]', 'the cached scalar');
});

// ---------------------------------------------------------------------------
// docs/gjs.md: keep, dispose, memory, tape.record, the collector
// ---------------------------------------------------------------------------

const hasMemory = typeof Ep.Device.prototype.get_bytes_in_use === 'function';
const memoryNote = hasMemory ? '' : ' # SKIP this build has no ep_device_get_bytes_in_use';

test(`Ep.memory() is an object with totals and devices${memoryNote}`, () => {
    if (!hasMemory)
        return;
    const before = Ep.memory();
    const names = Ep.list_devices().map(d => d.get_name());
    assertEqual(Object.keys(before.devices).join(','), names.join(','), 'the devices');
    const t = Ep.tensor(new Float32Array(1000));
    const after = Ep.memory();
    assertEqual(after.numBytes - before.numBytes, 4000, 'numBytes');
    assertEqual(after.numTensors - before.numTensors, 1, 'numTensors');
    assertEqual(after.devices['cpu:0'].numBytes - before.devices['cpu:0'].numBytes, 4000, 'cpu:0 numBytes');
    const sum = Object.values(after.devices).reduce((s, d) => s + d.numTensors, 0);
    assertEqual(sum, after.numTensors, 'the total is the devices\' sum');
    Ep.dispose(t);
    assertEqual(Ep.memory().numBytes, before.numBytes, 'given back');
});

test(`Ep.dispose takes a tensor, arrays and objects of them, null${memoryNote}`, () => {
    if (!hasMemory)
        return;
    const a = Ep.tensor([1, 2]), b = Ep.tensor([3]), c = Ep.tensor([4]);
    Ep.dispose({a, rest: [b, new Map([['c', c]])]});
    assert(a.is_released() && b.is_released() && c.is_released(), 'all released');
    Ep.dispose(a);
    Ep.dispose(null);
    const d = Ep.tensor([5]);
    Ep.dispose(d);
    assert(d.is_released(), 'a tensor alone');
});

test(`Ep.keep returns its argument and keeps it past tidy${tidyNote}`, () => {
    if (!hasTidy)
        return;
    const cache = {};
    let other = null;
    Ep.tidy(() => {
        cache.one = Ep.keep(Ep.tensor([1, 2]).mul(2));
        const pair = [Ep.tensor([1]), Ep.tensor([2])];
        assert(Ep.keep(pair) === pair, 'the same array');
        cache.pair = pair;
        other = Ep.tensor([3]);
        return null;
    });
    assertEqual(cache.one.toString(), '[2. 4.]', 'kept');
    assert(!cache.pair[0].is_released() && !cache.pair[1].is_released(), 'an array kept');
    assert(other.is_released(), 'the rest released');
});

test('tape.record returns what fn returns and records it', () => {
    const w = Ep.Variable.new(Ep.tensor([1, 2]), 'w');
    const tape = Ep.GradientTape.new(false);
    const loss = tape.record(() => w.read().mul(w).sum());
    assert(!tape.is_recording(), 'stopped');
    const [g] = tape.gradient([loss], [w], null);
    assertEqual(g.toString(), '[2. 4.]', 'the gradient');
    assert(tape.record.wrappedGI !== undefined, 'the GI form kept');
});

test('tape.record stops the tape when fn throws, and the exception goes on', () => {
    const tape = Ep.GradientTape.new(false);
    let caught = null;
    try {
        tape.record(() => {
            throw new RangeError('inside');
        });
    } catch (e) {
        caught = e;
    }
    assert(caught instanceof RangeError, `${caught}`);
    assert(!tape.is_recording(), 'stopped');
    assert(tape.record(() => 7) === 7, 'usable again');
    let typeErr = null;
    try {
        tape.record(null);
    } catch (e) {
        typeErr = e;
    }
    assert(typeErr instanceof TypeError, 'a function expected');
});

test('the collector counts the results of wrapped ops', () => {
    const c = ep.collector;
    assertEqual(c.enabled, ep.gjsScansWrappers, 'on where gjs scans its wrappers');
    if (!c.enabled)
        return;
    const x = Ep.tensor([1, 2]);
    const made = c.made, collections = c.collections;
    x.add(1);
    x.exp();
    const [values] = x.topk(1);
    assert(values instanceof Ep.Tensor, 'topk');
    if (c.collections === collections)
        assertEqual(c.made - made, 4, 'one per result (topk has two)');
    const before = c.collections;
    for (let i = 0; i <= c.every; i++)
        x.add(x);
    assert(c.collections > before, 'a collection after every results');
    assert(c.every >= 500 && c.every <= 20000, `N in [500, 20000]: ${c.every}`);
});

test('a Collector off never collects', () => {
    const c = new ep.Collector(false);
    assert(!c.enabled && c.every === Infinity, 'off');
    for (let i = 0; i < 1000; i++)
        c.note();
    assertEqual(c.collections, 0, 'no collection');
});

run();
