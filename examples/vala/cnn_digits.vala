/* cnn_digits.vala: restores the digits CNN that examples/python/cnn_digits.py
 * (or examples/c/cnn_digits.c) trained and saved, and classifies the digits
 * with it.
 *
 *   valac --pkg eager-glib-1.0 --pkg gio-2.0 cnn_digits.vala
 *   ./cnn_digits cnn_digits.safetensors cnn_digits.predictions.safetensors
 *
 * The first file is the checkpoint (the model and Adam's state; only the
 * model is restored here, so the optimizer's entries are skipped); the
 * second holds every image, its label and the prediction Python made.
 * Prints the accuracy; exits with 1 when a prediction differs from the
 * file's.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

const int64 N_IMAGES = 1797;   /* the digits data set */

/* A convolution of 3×3 kernels, padded by 1: the padding is a property
 * that the Conv2d constructor does not take */
Ep.Module conv (int64 in_channels, int64 out_channels) throws GLib.Error {
    return (Ep.Module) GLib.Initable.@new (typeof (Ep.Conv2d), null,
        "in-channels", in_channels, "out-channels", out_channels,
        "kernel-height", (int64) 3, "kernel-width", (int64) 3,
        "padding-height", (int64) 1, "padding-width", (int64) 1);
}

/* The network of cnn_digits.py, layer for layer: the checkpoint's names
 * ("0.weight", "3.bias", "7.weight") are the layers' places in it */
Ep.Sequential make_model () throws GLib.Error {
    var model = (Ep.Sequential) new Ep.Sequential ();
    Ep.Module[] layers = {
        conv (1, 16), new Ep.Relu (), new Ep.MaxPool2d (2, 2),      /* 16 × 4 × 4 */
        conv (16, 32), new Ep.Relu (), new Ep.MaxPool2d (2, 2),     /* 32 × 2 × 2 */
        new Ep.Flatten (), new Ep.Linear (128, 10, true),
    };
    foreach (var layer in layers)
        model.append (layer);
    return model;
}

Ep.Variable zeros (int64[] shape, Ep.DType dtype) throws GLib.Error {
    return new Ep.Variable (Ep.zeros (shape, dtype), null);
}

/* How many elements of a boolean tensor are true */
int64 count (Ep.Tensor matches) throws GLib.Error {
    return matches.astype (Ep.DType.INT64).sum (null, false).item_int64 ();
}

int main (string[] args) {
    Intl.setlocale (LocaleCategory.ALL, "");   /* the library's messages, translated */
    if (args.length != 3) {
        printerr ("usage: %s CHECKPOINT PREDICTIONS\n", args[0]);
        return 2;
    }

    try {
        var model = make_model ();
        model.set_training (false);
        Ep.checkpoint_restore_module (model, null, File.new_for_commandline_arg (args[1]),
                                      Ep.CheckpointFlags.PARTIAL);

        var images = zeros ({ N_IMAGES, 1, 8, 8 }, Ep.DType.FLOAT32);
        var labels = zeros ({ N_IMAGES }, Ep.DType.INT64);
        var expected = zeros ({ N_IMAGES }, Ep.DType.INT64);
        Ep.checkpoint_restore ({ "images", "labels", "predictions" }, { images, labels, expected },
                               File.new_for_commandline_arg (args[2]), Ep.CheckpointFlags.NONE);

        var predicted = model.call (images.read ()).argmax (1, false);
        var correct = count (predicted.equal (labels.read ()));
        var differing = count (predicted.not_equal (expected.read ()));
        print ("accuracy on all %lld digits: %.4f\n", N_IMAGES, (double) correct / N_IMAGES);
        print ("predictions that differ from the file's: %lld\n", differing);
        return differing == 0 ? 0 : 1;
    } catch (GLib.Error e) {
        printerr ("cnn_digits: %s\n", e.message);
        return 1;
    }
}
