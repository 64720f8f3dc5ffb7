#!/usr/bin/python3
"""Training steps on an OpenCL device give the CPU's losses.

A two-layer perceptron learns scikit-learn's 8x8 digits by gradient
descent, once on cpu:0 and once inside `with Ep.device("opencl:0"):`.
The data start on the CPU in both runs: in the OpenCL scope every op
runs on opencl:0 and its CPU inputs are copied there transparently.
The two runs print the same losses to float32 tolerance.

The gradients are written out by hand (the chain rule through matmul,
relu and softmax cross-entropy) until the GradientTape lands; then
`tape.gradient` replaces `backward`.
"""

import sys

import gi
import numpy as np

gi.require_version("Ep", "1.0")
from gi.repository import Ep  # noqa: E402

STEPS = 20
LEARNING_RATE = 0.5


def load_digits():
    from sklearn.datasets import load_digits as digits
    data = digits()
    x = (data.data / 16.0).astype(np.float32)
    onehot = np.eye(10, dtype=np.float32)[data.target]
    return x, onehot


def initial_weights():
    rng = np.random.default_rng(0)
    w1 = (rng.standard_normal((64, 32)) * np.sqrt(2 / 64)).astype(np.float32)
    w2 = (rng.standard_normal((32, 10)) * np.sqrt(2 / 32)).astype(np.float32)
    return [Ep.astensor(w1), Ep.astensor(np.zeros(32, np.float32)),
            Ep.astensor(w2), Ep.astensor(np.zeros(10, np.float32))]


def forward(params, x, y):
    w1, b1, w2, b2 = params
    h = (x @ w1 + b1).relu()
    logits = h @ w2 + b2
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - shifted.exp().sum(axis=1, keepdims=True).log()
    loss = -(y * log_probs).sum(axis=1).mean()
    return loss, (h, log_probs)


def backward(params, x, y, h, log_probs):
    w1, b1, w2, b2 = params
    n = x.shape[0]
    d_logits = (log_probs.exp() - y) / n
    d_w2 = h.T @ d_logits
    d_b2 = d_logits.sum(axis=0)
    d_h = (d_logits @ w2.T) * (h > 0).astype(np.float32)
    d_w1 = x.T @ d_h
    d_b1 = d_h.sum(axis=0)
    return [d_w1, d_b1, d_w2, d_b2]


def train(device_name, x, y):
    losses = []
    with Ep.device(device_name):
        params = initial_weights()
        for _ in range(STEPS):
            loss, (h, log_probs) = forward(params, x, y)
            grads = backward(params, x, y, h, log_probs)
            params = [p - LEARNING_RATE * g for p, g in zip(params, grads)]
            losses.append(loss.item())
        assert params[0].device.get_name() == device_name
    return losses


def main():
    x_np, y_np = load_digits()
    x, y = Ep.astensor(x_np), Ep.astensor(y_np)   # on cpu:0

    devices = [d.get_name() for d in Ep.list_devices()]
    if "opencl:0" not in devices:
        print("no OpenCL device:", Ep.Device.get_unavailable_reason("opencl"))
        return 0

    cpu = train("cpu:0", x, y)
    opencl = train("opencl:0", x, y)
    print(f"{Ep.Device.get('opencl:0').get_description()}")
    print("step  loss on cpu:0  loss on opencl:0")
    for step, (a, b) in enumerate(zip(cpu, opencl)):
        print(f"{step:4d}  {a:13.7f}  {b:16.7f}")

    if not np.allclose(cpu, opencl, rtol=1e-4, atol=1e-6):
        print("the losses differ", file=sys.stderr)
        return 1
    if not opencl[-1] < 0.5 * opencl[0]:
        print("the loss did not go down", file=sys.stderr)
        return 1
    print("same losses on both devices; the loss went from "
          f"{opencl[0]:.4f} to {opencl[-1]:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
