// cnn_digits.js: restores the network that examples/python/cnn_digits.py
// trained and saved, and classifies the digits with it.
//
//   meson devenv -C _build gjs -m examples/gjs/cnn_digits.js \
//       cnn_digits.safetensors cnn_digits.predictions.safetensors
//
// The first file is the checkpoint (the model and Adam's state; only the
// model is restored here, so the optimizer's entries are skipped); the
// second holds every image, its label and the prediction Python made.
// Prints the accuracy; exits with an error when a prediction differs from
// Python's.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Ep from 'gi://Ep?version=1.0';
import Gio from 'gi://Gio';
import System from 'system';

const N_IMAGES = 1797;   // the digits data set

// A layer made from its properties; init() throws what construction found
function layer(type, properties) {
    const module = new type(properties);
    module.init(null);
    return module;
}

// The network of cnn_digits.py, layer for layer: the checkpoint's names
// ("0.weight", "3.bias", "7.weight") are the layers' places in it.
function makeModel() {
    const conv = (inChannels, outChannels) => layer(Ep.Conv2d, {
        in_channels: inChannels, out_channels: outChannels,
        kernel_height: 3, kernel_width: 3, padding_height: 1, padding_width: 1,
    });
    const pool = () => layer(Ep.MaxPool2d, {kernel_height: 2, kernel_width: 2});
    const model = Ep.Sequential.new();
    for (const child of [conv(1, 16), Ep.Relu.new(), pool(),
        conv(16, 32), Ep.Relu.new(), pool(),
        Ep.Flatten.new(), Ep.Linear.new(128, 10, true)])
        model.append(child);
    return model;
}

function zeros(shape, dtype) {
    return Ep.Variable.new(Ep.zeros(shape, dtype), null);
}

const [checkpoint, predictionsFile] = ARGV;
if (!predictionsFile) {
    printerr('usage: cnn_digits.js CHECKPOINT PREDICTIONS');
    System.exit(2);
}

const model = makeModel();
model.set_training(false);
Ep.checkpoint_restore_module(model, null, Gio.File.new_for_path(checkpoint),
    Ep.CheckpointFlags.PARTIAL, null);

const images = zeros([N_IMAGES, 1, 8, 8], Ep.DType.FLOAT32);
const labels = zeros([N_IMAGES], Ep.DType.INT64);
const expected = zeros([N_IMAGES], Ep.DType.INT64);
Ep.checkpoint_restore(['images', 'labels', 'predictions'], [images, labels, expected],
    Gio.File.new_for_path(predictionsFile), Ep.CheckpointFlags.NONE, null);

const predicted = model.call(images.read()).argmax(1, false);
const count = t => t.astype(Ep.DType.INT64).sum(null, false).item_int64();
const correct = count(predicted.equal(labels.read()));
const differing = count(predicted.not_equal(expected.read()));
print(`accuracy on all ${N_IMAGES} digits: ${(correct / N_IMAGES).toFixed(4)}`);
print(`predictions that differ from Python's: ${differing}`);
System.exit(differing === 0 ? 0 : 1);
