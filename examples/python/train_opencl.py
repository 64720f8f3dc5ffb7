#!/usr/bin/python3
"""Training steps on an OpenCL device give the CPU's losses.

A two-layer perceptron learns the 8x8 digits (shipped with Debian's
python3-sklearn) by gradient descent with a GradientTape, once on cpu:0
and once inside `with Ep.device("opencl:0"):`. The data start on the CPU
both times: in the OpenCL scope the variables are made on opencl:0, every
op (forward, backward and update) runs there, and the CPU inputs are
copied over transparently. The two runs print the same losses to float32
tolerance; the script fails otherwise.
"""

import gzip
import sys

import gi

gi.require_version("Ep", "1.0")
import numpy as np  # noqa: E402
from gi.repository import Ep  # noqa: E402

DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
STEPS = 20
LEARNING_RATE = 0.5


def load(path):
    with gzip.open(path, "rt") as f:
        data = np.loadtxt(f, delimiter=",", dtype=np.float32)
    return data[:, :64] / 16.0, data[:, 64].astype(np.int64)


def initial_weights():
    rng = np.random.default_rng(0)
    w1 = (rng.standard_normal((64, 32)) * np.sqrt(2 / 64)).astype(np.float32)
    w2 = (rng.standard_normal((32, 10)) * np.sqrt(2 / 32)).astype(np.float32)
    return [Ep.Variable(w1, name="w1"), Ep.Variable(np.zeros(32, np.float32), name="b1"),
            Ep.Variable(w2, name="w2"), Ep.Variable(np.zeros(10, np.float32), name="b2")]


def train(device_name, x, y):
    """The losses of STEPS full-batch steps on @device_name."""
    losses = []
    with Ep.device(device_name):
        params = initial_weights()
        w1, b1, w2, b2 = params
        for _ in range(STEPS):
            with Ep.GradientTape() as tape:
                hidden = (x @ w1 + b1).relu()
                loss = (hidden @ w2 + b2).crossentropy(y).mean()
            for p, g in zip(params, tape.gradient(loss, params)):
                p.assign_sub(g * LEARNING_RATE)
            losses.append(loss.item())
        assert loss.device.get_name() == device_name
    return losses


def main():
    x_np, y_np = load(DIGITS)
    x, y = Ep.astensor(x_np), Ep.astensor(y_np)   # on cpu:0

    if Ep.Device.get_unavailable_reason("opencl") is not None:
        print("no OpenCL device:", Ep.Device.get_unavailable_reason("opencl"))
        return 0

    cpu = train("cpu:0", x, y)
    opencl = train("opencl:0", x, y)
    print(Ep.Device.get("opencl:0").get_description())
    print("step  loss on cpu:0  loss on opencl:0")
    for step, (a, b) in enumerate(zip(cpu, opencl)):
        print(f"{step:4d}  {a:13.7f}  {b:16.7f}")

    if not np.allclose(cpu, opencl, rtol=1e-5, atol=1e-6):
        print("the losses differ", file=sys.stderr)
        return 1
    if not opencl[-1] < 0.5 * opencl[0]:
        print("the loss did not go down", file=sys.stderr)
        return 1
    print(f"same losses on both devices; the loss went from {opencl[0]:.4f} to {opencl[-1]:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
