// data.js: the 8×8 digits, from the app's GResource
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// data/make-digits.py wrote them at build time from python3-sklearn's
// CSV: N images of 64 bytes (ink counts 0 to 16), then N digits.

import Gio from 'gi://Gio';

import Ep from 'gi://Ep?version=1.0';

const RESOURCE = '/org/gnome/EagerGlib/Digits/digits.bin';
const PIXELS = 64;
const HELD_OUT = 0.2;   // the part of the digits kept for the accuracy

// A permutation of 0 … n − 1 that is the same on every run (an LCG
// drives Fisher–Yates), so that the held-out digits never change.
function fixedPermutation(n) {
    const order = Array.from({length: n}, (_, i) => i);
    let seed = 12345;
    for (let i = n - 1; i > 0; i--) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        const j = seed % (i + 1);
        [order[i], order[j]] = [order[j], order[i]];
    }
    return order;
}

/**
 * The digits as float32 images (n × 1 × 8 × 8, ink in [0, 1]) and int64
 * labels, split into a training set and a held-out test set.
 *
 * @returns {{xTrain: Ep.Tensor, yTrain: Ep.Tensor, xTest: Ep.Tensor, yTest: Ep.Tensor}}
 */
export function loadDigits() {
    const bytes = Gio.resources_lookup_data(RESOURCE, Gio.ResourceLookupFlags.NONE).toArray();
    const n = bytes.length / (PIXELS + 1);
    if (!Number.isInteger(n) || n < 10)
        throw new Error(`${RESOURCE}: ${bytes.length} bytes are not a set of 8×8 digits`);
    const images = Ep.tensor(bytes.subarray(0, n * PIXELS), [n, 1, 8, 8], 'uint8');
    const labels = Ep.tensor(bytes.subarray(n * PIXELS), [n], 'uint8');
    const order = fixedPermutation(n);
    const nTest = Math.round(n * HELD_OUT);
    const pick = (tensor, rows) => tensor.take(Ep.tensor(BigInt64Array.from(rows, BigInt)), 0);
    const x = images.astype('float32').div(16);
    const y = labels.astype('int64');
    const test = order.slice(0, nTest), train = order.slice(nTest);
    return {
        xTrain: pick(x, train), yTrain: pick(y, train),
        xTest: pick(x, test), yTest: pick(y, test),
    };
}
