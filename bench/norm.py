"""layer_norm on 8192x1024 and batch_norm (training) on 32x64x56x56, float32,
forward and forward+backward (eager, and staged as one Ep.function),
eager-glib on cpu:0 against PyTorch on the CPU, same process, the best
of several rounds; var over the last axis of 8192x1024 against NumPy
and PyTorch.

    meson devenv -C _build --workdir . /usr/bin/python3 bench/norm.py [--rounds N]
"""

import argparse
import os

import gi
import numpy as np
import torch
import torch.nn.functional as F

gi.require_version("Ep", "1.0")
from gi.repository import Ep  # noqa: E402
from timing import best_ms, torch_best_ms  # noqa: E402

REPEATS = 5


def ep_backward(f, inputs, weight):
    def step():
        with Ep.GradientTape() as tape:
            for t in inputs:
                tape.watch(t)
            loss = (f(*inputs) * weight).sum()
        grads = tape.gradient(loss, inputs)
        grads[0].numpy()
    return step


def ep_staged_backward(f, inputs, weight):
    """The same step as one Ep.function: the replay recycles its buffers
    and fuses the rule's elementwise ops."""
    @Ep.function
    def grads(*args):
        *tensors, w = args
        with Ep.GradientTape() as tape:
            for t in tensors:
                tape.watch(t)
            loss = (f(*tensors) * w).sum()
        return tape.gradient(loss, tensors)

    def step():
        grads(*inputs, weight)[0].numpy()
    return step


def torch_backward(f, inputs, weight):
    def step():
        for t in inputs:
            t.grad = None
        (f(*inputs) * weight).sum().backward()
    return step


def row(name, ep_ms, torch_ms):
    print(f"| {name} | {ep_ms:.1f} | {torch_ms:.1f} | {torch_ms / ep_ms:.2f} |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    rng = np.random.default_rng(0)

    print(f"torch {torch.__version__} (1 and {os.cpu_count()} threads, the better); eager-glib on cpu:0")
    print("| workload | eager-glib ms | PyTorch ms | ×PyTorch |")
    print("|---|---|---|---|")

    # layer_norm over the last axis of 8192x1024
    a = rng.standard_normal((8192, 1024), np.float32)
    w, b = rng.standard_normal(1024, np.float32), rng.standard_normal(1024, np.float32)
    g = rng.standard_normal(a.shape, np.float32)
    x, wt, bt, gt = (Ep.astensor(v) for v in (a, w, b, g))
    tx, tw, tb = (torch.tensor(v, requires_grad=True) for v in (a, w, b))
    tg = torch.tensor(g)
    row("layer_norm 8192×1024 forward",
        best_ms(lambda: x.layer_norm(wt, bt).numpy(), rounds, REPEATS),
        torch_best_ms(lambda: F.layer_norm(tx.detach(), (1024,), tw.detach(), tb.detach()), rounds, REPEATS))
    row("layer_norm 8192×1024 forward+backward",
        best_ms(ep_backward(lambda p, q, r: p.layer_norm(q, r), [x, wt, bt], gt), rounds, REPEATS),
        torch_best_ms(torch_backward(lambda p, q, r: F.layer_norm(p, (1024,), q, r), [tx, tw, tb], tg), rounds, REPEATS))
    row("layer_norm 8192×1024 forward+backward, staged",
        best_ms(ep_staged_backward(lambda p, q, r: p.layer_norm(q, r), [x, wt, bt], gt), rounds, REPEATS),
        torch_best_ms(torch_backward(lambda p, q, r: F.layer_norm(p, (1024,), q, r), [tx, tw, tb], tg), rounds, REPEATS))

    # var over the last axis of the same data
    row("var 8192×1024, last axis (NumPy in the PyTorch column)",
        best_ms(lambda: x.var(axis=-1).numpy(), rounds, REPEATS), best_ms(lambda: a.var(axis=-1), rounds, REPEATS))
    row("var 8192×1024, last axis",
        best_ms(lambda: x.var(axis=-1).numpy(), rounds, REPEATS),
        torch_best_ms(lambda: torch.var(tx.detach(), dim=-1, unbiased=False), rounds, REPEATS))

    # batch_norm, training, 32x64x56x56 NCHW
    a = rng.standard_normal((32, 64, 56, 56), np.float32)
    c = 64
    rm, rv = np.zeros(c, np.float32), np.ones(c, np.float32)
    w, b = rng.standard_normal(c, np.float32), rng.standard_normal(c, np.float32)
    g = rng.standard_normal(a.shape, np.float32)
    x, wt, bt, gt = (Ep.astensor(v) for v in (a, w, b, g))
    rmt, rvt = Ep.astensor(rm), Ep.astensor(rv)
    tx, tw, tb = (torch.tensor(v, requires_grad=True) for v in (a, w, b))
    tg = torch.tensor(g)

    def ep_bn(p, q, r):
        return p.batch_norm(rmt, rvt, q, r, training=True)[0]

    def torch_bn(p, q, r):
        return F.batch_norm(p, None, None, q, r, training=True)

    row("batch_norm 32×64×56×56 training forward",
        best_ms(lambda: ep_bn(x, wt, bt).numpy(), rounds, REPEATS),
        torch_best_ms(lambda: torch_bn(tx.detach(), tw.detach(), tb.detach()), rounds, REPEATS))
    row("batch_norm 32×64×56×56 training forward+backward",
        best_ms(ep_backward(ep_bn, [x, wt, bt], gt), rounds, REPEATS),
        torch_best_ms(torch_backward(torch_bn, [tx, tw, tb], tg), rounds, REPEATS))
    row("batch_norm 32×64×56×56 training forward+backward, staged",
        best_ms(ep_staged_backward(ep_bn, [x, wt, bt], gt), rounds, REPEATS),
        torch_best_ms(torch_backward(torch_bn, [tx, tw, tb], tg), rounds, REPEATS))


if __name__ == "__main__":
    main()
