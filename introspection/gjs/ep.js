// ep.js: the gjs face of eager-glib
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
//     import Ep from 'gi://Ep?version=1.0';
//     await import('resource:///org/gnome/EagerGlib/js/ep.js');
//
// Importing this module patches Ep the way the Python override
// (introspection/python/gi/overrides/Ep.py) patches it for Python: the op
// wrappers are generated from the op catalogue (Ep.list_ops(), the schema
// every op declares in C), so that a new op needs no JavaScript, with the
// same defaults as Python; what JavaScript needs beyond them is written
// here by hand, each in one place. The module is compiled into the library
// as a GResource; the gjs override overrides/Ep.js loads the library when
// gi://Ep is imported, so that the resource exists by the time of the
// import() above (installed and in the build tree alike). A static import
// of the resource cannot work: gjs resolves every static import of a file
// before it runs any, when the library is not loaded yet.
//
// Sections, in this order:
//   conversions      what a tensor, axes, shape, dtype ... argument accepts
//   op wrappers      the generator: one wrapper per catalogue entry
//   tensors          Ep.tensor(), typed arrays both ways, properties,
//                    toString(), [Symbol.iterator]
//   collection       a garbage collection every N results (gjs < 1.85.1)
//   memory           Ep.tidy(), keep, dispose, memory(), tape.record()
//   the end          wrappers installed
//
// What a call costs: a wrapper adds one JavaScript frame and the
// conversions of its arguments to the GI call; a method with nothing to
// convert or default (x.exp()) stays gjs's own where gjs needs no
// collections (1.85.1 and later; before, it counts its results, see
// "collection"). Numbers given where a tensor goes become weak scalars,
// made once per value and reused.

import GLib from 'gi://GLib';
import System from 'system';
import Ep from 'gi://Ep?version=1.0';

const Tensor = Ep.Tensor;
const proto = Tensor.prototype;

// A module imported twice (two URIs of one file) must not wrap twice.
const PATCHED = Symbol.for('eager-glib.gjs.patched');

// ---------------------------------------------------------------------------
// collection
//
// gjs 1.69.1 to 1.85.0 searches a vector of every wrapper the collector
// has not yet swept each time it wraps a new GObject (ObjectInstance::link()
// in gi/object.cpp; a hash set since 1.85.1), so a loop that makes tensors
// slows down linearly until a collection, about 0.18 µs per op for each
// 1000 results waiting; SpiderMonkey barely sees a tensor's wrapper and
// collects on its own only after some 330 000 of them (bench/README.md,
// "The per-op cost from gjs"). The wrappers of released tensors hold
// memory meanwhile too.
//
// So the module counts the tensors its wrappers return and collects every
// N of them. A collection costs a part that grows with the heap that lives
// on (gc, what one with nothing new to sweep takes) and a part per dead
// wrapper that every result pays once whatever N is. A collection every N
// results costs gc/N per result and leaves each new wrapper N/2 on average
// to scan, scan·N/2: the sum is least at N = sqrt(2·gc/scan), where it is
// sqrt(2·gc·scan) per result. gc is measured by a second collection right
// after the first two and every 32nd one (the smallest of the last 4: a
// busy machine makes some of them long); N is kept between 500 and 20 000.
// Ep.tidy() also collects when it returns once half of N have accumulated:
// the wrappers of what it released are then garbage. With gjs 1.85.1 or
// later nothing is counted and nothing collected.
// ---------------------------------------------------------------------------

const SCAN_SECONDS = 0.18e-9;  // per waiting wrapper, measured (bench/gjs-wrapper-cost.js)
/** Whether this gjs searches its wrappers linearly (1.69.1 to 1.85.0). */
export const gjsScansWrappers = System.version >= 16901 && System.version < 18501;

/** Seconds of the monotonic clock. */
export function now() {
    return GLib.get_monotonic_time() * 1e-6;
}

/** The policy: note() once per new tensor wrapper made, or add to `made`
 *  and call collect() when it reaches `every` (what the op wrappers do). */
export class Collector {
    constructor(enabled = gjsScansWrappers) {
        this.made = 0;           // results since the last collection
        this.every = enabled ? 2000 : Infinity;
        this.collections = 0;
        this._empty = [];
    }

    /** Whether it collects (every is finite). */
    get enabled() {
        return this.every !== Infinity;
    }

    /** Starts (with N 2000, measured again soon) or stops collecting. */
    set enabled(value) {
        this.every = value ? 2000 : Infinity;
        this.made = 0;
        this.collections = 0;
    }

    note() {
        if (++this.made >= this.every)
            this.collect();
    }

    collect() {
        this.made = 0;
        System.gc();
        if (this.collections++ % 32 < 2)
            this._measure();
    }

    // the part of a collection that does not depend on N
    _measure() {
        const t0 = now();
        System.gc();
        this._empty.push(now() - t0);
        if (this._empty.length > 4)
            this._empty.shift();
        const gc = Math.min(...this._empty);
        this.every = Math.min(20000, Math.max(500, Math.round(Math.sqrt(2 * gc / SCAN_SECONDS))));
    }
}

/** The module's collector, which its wrappers and Ep.tidy() feed;
 *  `collector.enabled = false` stops it (to measure without it). */
export const collector = new Collector();

// ---------------------------------------------------------------------------
// conversions
// ---------------------------------------------------------------------------

// dtype names (NumPy's) and the typed arrays of each dtype
const DTYPES = {
    float32: Ep.DType.FLOAT32,
    float64: Ep.DType.FLOAT64,
    int32: Ep.DType.INT32,
    int64: Ep.DType.INT64,
    bool: Ep.DType.BOOL,
    uint8: Ep.DType.UINT8,
    int8: Ep.DType.INT8,
    int16: Ep.DType.INT16,
    // half precision: no typed array of their own (see isHalf)
    float16: Ep.DType.FLOAT16,
    bfloat16: Ep.DType.BFLOAT16,
};
const DTYPE_NAMES = Object.fromEntries(Object.entries(DTYPES).map(([k, v]) => [v, k]));
const TYPED_ARRAYS = {
    [Ep.DType.FLOAT32]: Float32Array,
    [Ep.DType.FLOAT64]: Float64Array,
    [Ep.DType.INT32]: Int32Array,
    [Ep.DType.INT64]: BigInt64Array,
    [Ep.DType.BOOL]: Uint8Array,
    [Ep.DType.UINT8]: Uint8Array,
    [Ep.DType.INT8]: Int8Array,
    [Ep.DType.INT16]: Int16Array,
};

// float16 and bfloat16 (issue 17): gjs's JavaScript has no Float16Array
// (and none has a bfloat16 one), so their elements come in as numbers
// rounded from float32 and go out as numbers through arraySync();
// toTypedArray() refuses them, naming astype('float32').
function isHalf(dtype) {
    return dtype === Ep.DType.FLOAT16 || dtype === Ep.DType.BFLOAT16;
}

function typeError(message) {
    return new TypeError(message);
}

/** An Ep.DType from an Ep.DType or a name ("float32"). */
function toDType(dtype) {
    if (typeof dtype === 'number' && dtype in DTYPE_NAMES)
        return dtype;
    const value = DTYPES[dtype];
    if (value === undefined)
        throw typeError(`unsupported dtype ${String(dtype)}: one of ${Object.keys(DTYPES).join(', ')} or an Ep.DType`);
    return value;
}

// Weak scalars of the numbers given where a tensor goes, made once per
// value (tensors are immutable) and kept out of any tidy scope.
const literals = new Map();
const MAX_LITERALS = 512;

function literal(value) {
    const key = typeof value === 'number' && Object.is(value, -0) ? '-0' : value;
    let tensor = literals.get(key);
    if (tensor !== undefined)
        return tensor;
    if (typeof value === 'boolean')
        tensor = Tensor.new_weak_scalar(value ? 1 : 0, Ep.DType.BOOL);
    else if (typeof value === 'bigint')
        tensor = Tensor.new_weak_int(value);
    else if (Number.isSafeInteger(value))
        tensor = Tensor.new_weak_int(value);
    else
        tensor = Tensor.new_weak_scalar(value, Ep.DType.FLOAT64);
    if (Ep.keep)
        Ep.keep(tensor);
    if (literals.size >= MAX_LITERALS)
        literals.clear();
    literals.set(key, tensor);
    return tensor;
}

/** A tensor input: tensors as they are, Variables read, numbers,
 *  booleans and BigInts as weak scalars, arrays through Ep.tensor(). */
function operand(value) {
    if (value instanceof Tensor)
        return value;
    if (value instanceof Ep.Variable)
        return value.read();
    switch (typeof value) {
    case 'number':
    case 'boolean':
    case 'bigint':
        return literal(value);
    }
    return tensor(value);
}

/** A list input: each item a tensor (numbers become strong ones). */
function operands(values) {
    if (!Array.isArray(values))
        throw typeError('a list of tensors expected');
    return values.map(v => v instanceof Tensor ? v
        : v instanceof Ep.Variable ? v.read() : tensor(v));
}

/** An integer input (indices, labels): numbers and arrays as int64. */
function indices(value) {
    if (value instanceof Tensor)
        return value;
    if (value instanceof Ep.Variable)
        return value.read();
    if (typeof value === 'number' || typeof value === 'bigint' || Array.isArray(value))
        return tensor(value, null, Ep.DType.INT64);
    return operand(value);
}

// axis=[]: no axes (see overNoAxes)
const NO_AXES = Symbol('no axes');

/** An axes argument: a number, an array, null (all axes) or [] (none). */
function axes(value) {
    if (value === null || value === undefined)
        return null;
    if (typeof value === 'number')
        return [value];
    if (!Array.isArray(value))
        throw typeError('axes: a number, an array of numbers or null expected');
    return value.length === 0 ? NO_AXES : value;
}

/** A shape or a list of integers: a number or an array. */
function ints(value) {
    if (typeof value === 'number')
        return [value];
    if (!Array.isArray(value) && !ArrayBuffer.isView(value))
        throw typeError('a number or an array of numbers expected');
    return Array.from(value);
}

function device(value) {
    return value instanceof Ep.Device ? value : Ep.Device.get(String(value));
}

/** An enum argument: the GEnum's value or its nick ("reflect"). */
function enumConverter(typeName) {
    const name = typeName.replace(/^Ep/, '');
    const values = Ep[name];
    if (!values)
        throw new Error(`the catalogue names the enum ${typeName}, which Ep does not have`);
    const nicks = {};
    for (const [key, value] of Object.entries(values)) {
        if (typeof value === 'number')
            nicks[key.toLowerCase().replace(/_/g, '-')] = value;
    }
    const convert = value => {
        if (typeof value === 'number' && Object.values(nicks).includes(value))
            return value;
        if (value in nicks)
            return nicks[value];
        throw typeError(`${String(value)} is not one of ${Object.keys(nicks).join(', ')} nor an Ep.${name}`);
    };
    return convert;
}

/** function(...args) with no axes (args[position], NumPy's axis=()):
 *  the C API reads an empty axes list as all of them, so the op runs over
 *  a new leading axis of extent 1, where it changes no value. */
function overNoAxes(fn, args, position) {
    const self = args[0];
    args = args.slice();
    args[0] = self.expand_dims(0);
    args[position] = [0];
    const result = fn.apply(args[0], args.slice(1));
    if (result.get_ndim() === self.get_ndim())
        return result;
    return result.reshape(self.get_shape());
}

// ---------------------------------------------------------------------------
// op wrappers
//
// One function per catalogue entry with a C function: the method
// Ep.Tensor.prototype.<name> for a method entry, Ep.<name> otherwise, and
// for a method entry also the function Ep.<name>(a, ...) where that name
// is free (as Python's Ep.sum(a, ...), Ep.where(c, x, y)). Its
// parameters are the entry's inputs, then its attributes that are not
// internal, in schema order (the C function's order), those with a
// default or nullable optional; the source is written from the schema and
// compiled once at import. The type mapping below is the only place that
// maps the schema to JavaScript; it says what Python's does.
// ---------------------------------------------------------------------------

// input (dtypes, list): conversion; {0} is the value
const INPUT_TYPES = {
    'any,false': '{0} instanceof _T ? {0} : _operand({0})',
    'bool,false': '{0} instanceof _T ? {0} : _operand({0})',
    'integer,false': '{0} instanceof _T ? {0} : _indices({0})',
    'any,true': '_operands({0})',
};

// attribute type: [conversion or null, what null/undefined means when nullable]
const ATTRIBUTE_TYPES = {
    bool: [null, 'default'],
    int: [null, 'default'],
    float: [null, 'default'],
    number: [null, 'default'],
    seed: [null, 'default'],
    string: [null, 'default'],
    dtype: ['_dtype({0})', 'default'],
    enum: ['_enum{index}({0})', 'default'],
    axis: [null, 'AXIS_NONE'],
    axes: ['_axes({0})', 'NULL'],
    shape: ['_ints({0})', 'NULL'],
    ints: ['_ints({0})', 'NULL'],
    device: ['_device({0})', 'NULL'],
};

// JavaScript's name of an attribute, by type (NumPy's axis=)
const JS_NAMES = {axes: 'axis'};

// names that cannot be a parameter or function name (an op named var)
const RESERVED = new Set(('arguments await break case catch class const continue debugger default ' +
    'delete do else enum eval export extends false finally for function if implements import in ' +
    'instanceof interface let new null package private protected public return static super ' +
    'switch this throw true try typeof var void while with yield').split(' '));

/** The wrappers generated, by op name (the C functions they call are in
 *  their `wrappedGI` property), and the entries that could not be. */
export const ops = {};
export const catalogueProblems = [];
/** The method ops that also are functions Ep.<name>(a, ...). */
export const functionForms = [];

function generate(entry, gi) {
    const scope = {_f: gi, _T: Tensor, _operand: operand, _operands: operands,
        _indices: indices, _dtype: toDType, _axes: axes, _ints: ints, _device: device,
        _NO_AXES: NO_AXES, _overNoAxes: overNoAxes, _AXIS_NONE: Ep.AXIS_NONE,
        _fix: fixResult(entry), _c: collector};
    const params = [], statements = [], call = [];
    let noAxes = -1;
    entry.inputs.forEach((spec, position) => {
        const name = position === 0 && entry.method ? 'this' : `${spec.name}_`;
        call.push(name);
        if (name === 'this')
            return;
        params.push({name, optional: false, input: spec});
        const conversion = INPUT_TYPES[`${spec.dtypes},${spec.list}`];
        if (!conversion)
            throw new Error(`input ${spec.name} of dtypes ${spec.dtypes}`);
        statements.push(`${name} = ${conversion.replaceAll('{0}', name)};`);
    });
    entry.attributes.filter(a => !a.internal).forEach((spec, index) => {
        const [template, noneMeans] = ATTRIBUTE_TYPES[spec.type] ?? [];
        if (noneMeans === undefined)
            throw new Error(`attribute ${spec.name} of type ${spec.type}`);
        let name = JS_NAMES[spec.type] ?? spec.name;
        if (RESERVED.has(name))
            name = `${name}_`;
        let conversion = template ? template.replaceAll('{0}', name).replace('{index}', index) : null;
        if (spec.type === 'enum')
            scope[`_enum${index}`] = enumConverter(spec.enum);
        const hasDefault = 'default' in spec;
        let fallback = null;   // what undefined (and null when nullable) becomes
        if (hasDefault) {
            scope[`_value${index}`] = spec.default;
            fallback = conversion
                ? `_converted${index}` : `_value${index}`;
            if (conversion) {
                // the default, converted once
                const converter = new Function(...Object.keys(scope), name,
                    `return ${conversion};`);
                scope[`_converted${index}`] = converter(...Object.values(scope), spec.default);
            }
        }
        if (spec.nullable && !(noneMeans === 'default' && hasDefault))
            fallback = {NULL: 'null', AXIS_NONE: '_AXIS_NONE', default: null}[noneMeans];
        if (spec.nullable && noneMeans === 'default' && !hasDefault)
            throw new Error(`attribute ${spec.name} is nullable but has no default`);
        const test = spec.nullable ? `${name} == null` : `${name} === undefined`;
        if (fallback !== null)
            statements.push(`${name} = ${test} ? ${fallback} : ${conversion ?? name};`);
        else if (conversion)
            statements.push(`${name} = ${conversion};`);
        params.push({name, optional: fallback !== null, attribute: spec});
        if (spec.type === 'axes' && entry.method)
            noAxes = call.length;
        call.push(name);
    });
    const inArgs = call.length - (entry.method ? 1 : 0);
    if (gi.length !== inArgs)
        throw new Error(`the C function takes ${gi.length} arguments, the schema says ${inArgs}`);
    // a parameter without a default after optional ones: none before it is optional
    let required = false;
    for (let i = params.length - 1; i >= 0; i--) {
        if (!params[i].optional)
            required = true;
        else if (required)
            params[i].optional = false;
    }
    const passesThrough = entry.method && statements.length === 0 &&
        scope._fix === null && params.every(p => !p.optional);
    const body = [...statements];
    const args = call.slice(entry.method ? 1 : 0).join(', ');
    if (noAxes >= 0) {
        body.push(`if (${call[noAxes]} === _NO_AXES) ` +
            `return _overNoAxes(_f, [${call.join(', ')}], ${noAxes});`);
    }
    const invoke = entry.method ? `_f.call(this${args ? `, ${args}` : ''})` : `_f(${args})`;
    // count the results for the collector (an increment; see "collection")
    body.push(`const _r = ${scope._fix ? `_fix(${invoke})` : invoke};`,
        `if ((_c.made += ${entry.outputs.length}) >= _c.every) _c.collect();`,
        'return _r;');
    const fnName = RESERVED.has(entry.name) ? `${entry.name}_` : entry.name;
    const source = `return function ${fnName}(${params.map(p => p.name).join(', ')}) {\n` +
        `    ${body.join('\n    ')}\n};`;
    const wrapper = new Function(...Object.keys(scope), source)(...Object.values(scope));
    Object.defineProperty(wrapper, 'name', {value: entry.name});
    wrapper.parameters = params;   // [{name, optional}], for the TypeScript declarations
    wrapper.wrappedGI = gi;
    wrapper.op = entry;
    wrapper.passesThrough = passesThrough;
    wrapper.source = source;   // what was compiled, for readers
    return wrapper;
}

/** What the wrapper does with what gjs returns: several outputs come as
 *  an array; a gboolean beside out arguments is dropped. Null: nothing. */
function fixResult(entry) {
    const outputs = entry.outputs;
    if (outputs.length === 1)
        return null;
    const n = outputs.length;
    return result => {
        if (Array.isArray(result) && result.length === n + 1 && typeof result[0] === 'boolean')
            return result.slice(1);
        return result;
    };
}

/** The GI function of a catalogue entry (Ep.Tensor.prototype.<name> of
 *  ep_tensor_<name>, Ep.<name> of ep_<name>), or null. */
function giFunction(entry) {
    const symbol = entry.function;
    if (!symbol)
        return null;
    const prefix = entry.method ? 'ep_tensor_' : 'ep_';
    if (!symbol.startsWith(prefix))
        return null;
    const owner = entry.method ? proto : Ep;
    const fn = owner[symbol.slice(prefix.length)];
    return typeof fn === 'function' ? fn : null;
}

function installOps() {
    for (const entry of Ep.list_ops().recursiveUnpack()) {
        const gi = giFunction(entry);
        if (gi === null) {
            if (entry.function)
                catalogueProblems.push(`${entry.name}: no C function ${entry.function}`);
            continue;
        }
        let wrapper;
        try {
            wrapper = generate(entry, gi);
        } catch (e) {
            catalogueProblems.push(`${entry.name}: ${e.message}`);
            continue;
        }
        ops[entry.name] = wrapper;
        if (entry.method && freeName(entry.name)) {
            Ep[entry.name] = namespaceForm(entry, wrapper);
            functionForms.push(entry.name);
        }
        // with nothing to convert, gjs's own method, unless results are counted
        if (wrapper.passesThrough && !gjsScansWrappers)
            continue;
        if (entry.method)
            proto[entry.name] = wrapper;
        else
            Ep[entry.name] = wrapper;
    }
}

/** Whether Ep.<name> can be the function form of a method op (the
 *  Python layer's rule): not a dtype's name nor a name Ep has. */
function freeName(name) {
    return !(name in DTYPES) && !(name in Ep);
}

/** Ep.<name>(a, ...): the method on a as a tensor (Ep.where(c, x, y)). */
function namespaceForm(entry, method) {
    const form = function (a, ...rest) {
        return method.apply(a instanceof Tensor ? a : operand(a), rest);
    };
    Object.defineProperty(form, 'name', {value: entry.name});
    Object.defineProperty(form, 'length', {value: method.length + 1});
    form.wrappedGI = method.wrappedGI ?? method;
    return form;
}

// ---------------------------------------------------------------------------
// tensors: Ep.tensor(), typed arrays both ways, properties, printing
// ---------------------------------------------------------------------------

function shapeOfNested(value) {
    const shape = [];
    for (let v = value; Array.isArray(v); v = v[0])
        shape.push(v.length);
    return shape;
}

/** Throws unless every array at depth d of value has length shape[d]
 *  (the leaves are checked by the caller's type scan). */
function checkRectangular(value, shape, depth) {
    if (!Array.isArray(value) || value.length !== shape[depth])
        throw typeError('tensor: a ragged nested array');
    if (depth + 1 < shape.length) {
        for (const item of value)
            checkRectangular(item, shape, depth + 1);
    }
}

// (indexed loops: a callback per element, as Array.from(values, f) or
// values.some(f) call, costs ten times more in gjs)
function typedArrayOf(values, dtype) {
    const n = values.length;
    const out = new TYPED_ARRAYS[dtype](n);
    if (dtype === Ep.DType.INT64) {
        for (let i = 0; i < n; i++) {
            const v = values[i];
            out[i] = typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v)));
        }
    } else if (dtype === Ep.DType.BOOL) {
        for (let i = 0; i < n; i++)
            out[i] = values[i] ? 1 : 0;
    } else if (values instanceof BigInt64Array || values instanceof BigUint64Array) {
        for (let i = 0; i < n; i++)
            out[i] = Number(values[i]);
    } else {
        // the typed array converts (ToNumber; ToInt32 wraps as JavaScript does)
        for (let i = 0; i < n; i++)
            out[i] = values[i];
    }
    return out;
}

// the dtype of a typed array given as it is; others are converted
function dtypeOfTypedArray(array) {
    if (array instanceof Float32Array)
        return Ep.DType.FLOAT32;
    if (array instanceof Float64Array)
        return Ep.DType.FLOAT64;
    if (array instanceof Int32Array)
        return Ep.DType.INT32;
    if (array instanceof BigInt64Array)
        return Ep.DType.INT64;
    if (array instanceof BigUint64Array)
        return Ep.DType.INT64;
    if (array instanceof Uint32Array)
        return Ep.DType.INT64;   // past int32
    if (array instanceof Uint8Array || array instanceof Uint8ClampedArray)
        return Ep.DType.UINT8;   // pixels (a clamped array is copied)
    if (array instanceof Int8Array)
        return Ep.DType.INT8;
    if (array instanceof Int16Array)
        return Ep.DType.INT16;
    return Ep.DType.INT32;       // Uint16 ...
}

/** A tensor of a typed array of that dtype's kind: one copy (into a
 *  GBytes), which the tensor then keeps instead of copying again. */
function fromTypedArray(array, shape, dtype) {
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    const result = Tensor.new_from_bytes(GLib.Bytes.new(bytes), dtype, shape);
    collector.note();
    return result;
}

/**
 * Ep.tensor(data, shape?, dtype?): a tensor of a number, a boolean, a
 * BigInt, a (nested) array of them, a typed array or a tensor.
 *
 * Numbers become float32 (TensorFlow.js's default), booleans bool,
 * BigInts int64; a typed array keeps its type (Float32Array float32,
 * Float64Array float64, Int32Array int32, BigInt64Array int64, Uint8Array
 * and Uint8ClampedArray uint8, Int8Array int8, Int16Array int16) and is
 * 1-d unless shape (an array) says otherwise. shape may be left out,
 * and dtype (a name or an Ep.DType) may then come second.
 */
export function tensor(data, shape, dtype) {
    if (typeof shape === 'string' || typeof shape === 'number') {
        if (dtype !== undefined)
            throw typeError('tensor: the shape is an array');
        dtype = shape;
        shape = undefined;
    }
    dtype = dtype === undefined || dtype === null ? null : toDType(dtype);
    if (data instanceof Ep.Variable)
        data = data.read();
    if (data instanceof Tensor) {
        const t = data.astype(dtype ?? data.get_dtype());
        return shape == null ? t : t.reshape(ints(shape));
    }
    if (isHalf(dtype))
        return tensor(data, shape, Ep.DType.FLOAT32).astype(dtype);
    if (ArrayBuffer.isView(data) && !(data instanceof DataView)) {
        const own = dtypeOfTypedArray(data);
        const target = dtype ?? own;
        const array = target === own && data instanceof TYPED_ARRAYS[own] ? data
            : typedArrayOf(data, target);
        return fromTypedArray(array, shape == null ? [array.length] : ints(shape), target);
    }
    let values, inferred;
    if (Array.isArray(data)) {
        inferred = shapeOfNested(data);
        checkRectangular(data, inferred, 0);
        values = inferred.length > 1 ? data.flat(inferred.length - 1) : data;
    } else if (['number', 'boolean', 'bigint'].includes(typeof data)) {
        inferred = [];
        values = [data];
    } else {
        throw typeError(`tensor: cannot make a tensor of ${Object.prototype.toString.call(data)}`);
    }
    let numbers = 0, booleans = 0, bigints = 0;
    for (let i = 0; i < values.length; i++) {
        const kind = typeof values[i];
        if (kind === 'number')
            numbers++;
        else if (kind === 'boolean')
            booleans++;
        else if (kind === 'bigint')
            bigints++;
        else if (Array.isArray(values[i]))
            throw typeError('tensor: a ragged nested array');
        else
            throw typeError(`tensor: numbers, booleans or BigInts expected, not a ${kind}`);
    }
    if (dtype === null) {
        if (booleans && !numbers && !bigints)
            dtype = Ep.DType.BOOL;
        else if (bigints && !numbers && !booleans)
            dtype = Ep.DType.INT64;
        else if (!bigints)
            dtype = Ep.DType.FLOAT32;
        else
            throw typeError('tensor: BigInts mixed with numbers: give a dtype');
    }
    if (bigints && dtype !== Ep.DType.INT64)
        values = values.map(v => typeof v === 'bigint' ? Number(v) : v);
    return fromTypedArray(typedArrayOf(values, dtype), shape == null ? inferred : ints(shape), dtype);
}

/**
 * The elements in C order as a typed array of the tensor's dtype
 * (Float32Array for float32 ... BigInt64Array for int64, Uint8Array for
 * bool and uint8, Int8Array for int8, Int16Array for int16). For a contiguous tensor on the CPU nothing is copied: the array
 * is a view of the tensor's memory, which it keeps alive (also after
 * release() or a tidy scope); do not write to it, tensors are immutable
 * and views share it. {copy: true} gives a copy to write to.
 */
function toTypedArray({copy = false} = {}) {
    if (isHalf(this.get_dtype())) {
        throw typeError(`toTypedArray: JavaScript has no typed array of ${DTYPE_NAMES[this.get_dtype()]}; ` +
                        "convert with astype('float32') first");
    }
    const Kind = TYPED_ARRAYS[this.get_dtype()];
    const bytes = this.to_bytes().toArray();
    const array = new Kind(bytes.buffer, bytes.byteOffset, bytes.byteLength / Kind.BYTES_PER_ELEMENT);
    return copy ? array.slice() : array;
}

/** Nested arrays of numbers (booleans for bool, BigInts for int64), as
 *  TensorFlow.js's arraySync(). */
function arraySync() {
    if (isHalf(this.get_dtype()))
        return arraySync.call(this.astype(Ep.DType.FLOAT32));
    const flat = toTypedArray.call(this);
    const bool = this.get_dtype() === Ep.DType.BOOL;
    const shape = this.get_shape();
    if (shape.length === 0)
        return bool ? flat[0] !== 0 : flat[0];
    const build = (depth, offset, stride) => {
        const inner = stride / shape[depth];
        const out = new Array(shape[depth]);
        if (depth === shape.length - 1) {
            for (let i = 0; i < out.length; i++)
                out[i] = bool ? flat[offset + i] !== 0 : flat[offset + i];
        } else {
            for (let i = 0; i < out.length; i++)
                out[i] = build(depth + 1, offset + i * inner, inner);
        }
        return out;
    };
    return build(0, 0, flat.length);
}

function toString() {
    if (this.is_released())
        return `Ep.Tensor (released) shape=[${this.get_shape().join(', ')}] dtype=${DTYPE_NAMES[this.get_dtype()]}`;
    return this.to_string();
}

function* iterate() {
    const shape = this.get_shape();
    if (shape.length === 0)
        throw typeError('iteration over a 0-d tensor');
    const starts = shape.map(() => 0);
    const stops = shape.slice();
    for (let i = 0; i < shape[0]; i++) {
        starts[0] = i;
        stops[0] = i + 1;
        yield this.slice(starts, stops, null).squeeze([0]);
    }
}

function installTensor() {
    const accessors = {
        shape: {get() {
            return this.get_shape();
        }},
        // the dtype's name ("float32"); get_dtype() gives the Ep.DType
        dtype: {get() {
            return DTYPE_NAMES[this.get_dtype()];
        }},
        ndim: {get() {
            return this.get_ndim();
        }},
        size: {get() {
            return Number(this.get_size());
        }},
    };
    for (const [name, descriptor] of Object.entries(accessors))
        Object.defineProperty(proto, name, {...descriptor, configurable: true});
    Object.assign(proto, {toString, toTypedArray, arraySync});
    proto.dataSync = toTypedArray;   // TensorFlow.js's name
    proto[Symbol.iterator] = iterate;
    Ep.tensor = tensor;
}

// ---------------------------------------------------------------------------
// memory: Ep.tidy over the C scopes, keep, dispose, memory, tape.record
//
// A tidy scope (ep_tidy_begin, ep_tidy_end) releases every tensor made in
// it but the results given to ep_tidy_end and those ep_keep() kept. Ep.tidy
// here runs fn between the two, so that C never calls back into JavaScript
// (gjs 1.74 refuses to run a JavaScript callback from C while its collector
// sweeps, which ep_tidy(func) would need; docs/memory.md), and hands out
// the tensors in what fn returns (a tensor, or arrays, plain objects and
// maps of them at any depth), which returns as it was. tape.record(fn) is
// written on start/stop for the same reason. Installed only when the
// library has the scopes (tidy) and the counters (memory).
// ---------------------------------------------------------------------------

function tensorsIn(value, found, seen = new Set()) {
    if (value instanceof Tensor) {
        found.push(value);
    } else if (value instanceof Ep.Variable || value === null || typeof value !== 'object' ||
        seen.has(value)) {
        // not a container of tensors
    } else if (Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype ||
        value instanceof Map) {
        seen.add(value);
        for (const item of value instanceof Map ? value.values() : Object.values(value))
            tensorsIn(item, found, seen);
    }
    return found;
}

function installTidy() {
    if (typeof Ep.tidy_begin !== 'function' || typeof Ep.tidy_end !== 'function' ||
        typeof Ep.tidy_get_depth !== 'function')
        return;
    const cTidy = Ep.tidy;
    /**
     * Ep.tidy(fn): runs fn and releases the tensors made inside it, except
     * the ones in what it returns (a tensor, or arrays and objects of them)
     * and those Ep.keep() kept; returns what fn returned. If fn throws,
     * the scope closes all the same and the exception goes on.
     */
    Ep.tidy = function tidy(fn) {
        if (typeof fn !== 'function')
            throw typeError('tidy: a function expected');
        const scope = Ep.tidy_begin();
        let result, results = [];
        try {
            result = fn();
            results = tensorsIn(result, []);
        } finally {
            // scopes fn opened and left open close first, as ep_tidy() does
            while (Ep.tidy_get_depth() > scope)
                Ep.tidy_end(Ep.tidy_get_depth(), []);
            Ep.tidy_end(scope, results);
        }
        // what the scope released has garbage wrappers: collect now if the
        // collection is half due (see "collection")
        if (collector.made * 2 >= collector.every)
            collector.collect();
        return result;
    };
    if (cTidy)
        Ep.tidy.wrappedGI = cTidy;
}

function installMemory() {
    if (typeof Ep.keep === 'function') {
        const cKeep = Ep.keep;
        /** Ep.keep(x): keeps the tensors of x (a tensor, or arrays and
         *  objects of them) past every tidy scope; returns x. */
        Ep.keep = function keep(value) {
            for (const t of tensorsIn(value, []))
                cKeep(t);
            return value;
        };
        Ep.keep.wrappedGI = cKeep;
    }
    if (typeof Ep.dispose === 'function') {
        const cDispose = Ep.dispose;
        /** Ep.dispose(x): releases the tensors of x (a tensor, or arrays
         *  and objects of them) now; null and released tensors are fine. */
        Ep.dispose = function dispose(value) {
            for (const t of tensorsIn(value, []))
                cDispose(t);
        };
        Ep.dispose.wrappedGI = cDispose;
    }
    if (typeof Ep.Device.prototype.get_bytes_in_use === 'function' &&
        typeof Ep.Device.prototype.get_n_tensors === 'function') {
        const cMemory = Ep.memory;
        /**
         * Ep.memory(): what tensors hold, as TensorFlow.js's tf.memory():
         * {numBytes, numTensors, devices: {'cpu:0': {numBytes, numTensors},
         * ...}}, over the devices of Ep.list_devices().
         */
        Ep.memory = function memory() {
            const devices = {};
            let numBytes = 0, numTensors = 0;
            for (const d of Ep.list_devices()) {
                const entry = {numBytes: d.get_bytes_in_use(), numTensors: d.get_n_tensors()};
                devices[d.get_name()] = entry;
                numBytes += entry.numBytes;
                numTensors += entry.numTensors;
            }
            return {numBytes, numTensors, devices};
        };
        if (cMemory)
            Ep.memory.wrappedGI = cMemory;
    }
    // tape.record(fn) and accumulator.record(fn)
    for (const klass of [Ep.GradientTape, Ep.ForwardAccumulator]) {
        const proto = klass.prototype;
        const cRecord = proto.record;
        /**
         * record(fn): records what fn computes and returns what it
         * returns; the recorder stops whatever happens inside (an
         * exception goes on). Written on start()/stop(): C does not call
         * back into JavaScript.
         */
        proto.record = function record(fn) {
            if (typeof fn !== 'function')
                throw typeError('record: a function expected');
            this.start();
            try {
                return fn();
            } finally {
                this.stop();
            }
        };
        if (cRecord)
            proto.record.wrappedGI = cRecord;
    }
}

// ---------------------------------------------------------------------------
// the end
// ---------------------------------------------------------------------------

if (!Ep[PATCHED]) {
    installOps();
    installTensor();
    installTidy();
    installMemory();
    Ep[PATCHED] = true;
}

export default Ep;
