"""Max and average pooling, forward and backward, against PyTorch's CPU
kernels: 2x2 (stride 2) and 3x3 (stride 2, padding 1) windows on
32x64x112x112 float32 images, NCHW and NHWC (PyTorch's channels_last),
same process, same threads. Each figure is the best of several short
rounds; the ratio is PyTorch's time over eager-glib's (above 1:
eager-glib is faster).

    meson devenv -C _build --workdir . /usr/bin/python3 bench/pool.py [--rounds N]
"""

import argparse
import os

import gi
import numpy as np
import torch
import torch.nn.functional as F

gi.require_version("Ep", "1.0")
from gi.repository import Ep  # noqa: E402
from timing import best_ms  # noqa: E402

SHAPE = (32, 64, 112, 112)
# name, kernel, stride, padding
WINDOWS = [("2x2/2", 2, 2, 0), ("3x3/2", 3, 2, 1)]


def ep_step(kind, x, g, k, s, p, data_format):
    def step():
        with Ep.GradientTape() as tape:
            tape.watch(x)
            if kind == "max":
                y = x.max_pool2d(k, s, p, data_format=data_format)
            else:
                y = x.avg_pool2d(k, s, p, data_format=data_format)
        tape.gradient(y, [x], output_gradients=[g])[0].numpy()
    return step


def torch_step(kind, x, g, k, s, p):
    def step():
        x.grad = None
        y = F.max_pool2d(x, k, s, p) if kind == "max" else F.avg_pool2d(x, k, s, p)
        y.backward(g)
        x.grad.numpy()
    return step


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    # the same threads: eager-glib takes EP_NUM_THREADS, else one per core
    threads = int(os.environ.get("EP_NUM_THREADS", os.cpu_count()))
    torch.set_num_threads(threads)
    rng = np.random.default_rng(0)
    a = rng.standard_normal(SHAPE, dtype=np.float32)
    print(f"{'op':<4} {'window':<6} {'format':<6} {'eager-glib ms':>14} {'PyTorch ms':>11} {'×PyTorch':>9}")
    for data_format in ("nchw", "nhwc"):
        data = a if data_format == "nchw" else np.ascontiguousarray(a.transpose(0, 2, 3, 1))
        x = Ep.astensor(data)
        tx = torch.from_numpy(a.copy())
        if data_format == "nhwc":
            tx = tx.contiguous(memory_format=torch.channels_last)
        tx.requires_grad_()
        for kind in ("max", "avg"):
            for name, k, s, p in WINDOWS:
                out = F.max_pool2d(tx, k, s, p) if kind == "max" else F.avg_pool2d(tx, k, s, p)
                tg = torch.from_numpy(rng.standard_normal(tuple(out.shape), dtype=np.float32))
                if data_format == "nhwc":
                    tg = tg.contiguous(memory_format=torch.channels_last)
                g = tg.numpy() if data_format == "nchw" else np.ascontiguousarray(
                    tg.permute(0, 2, 3, 1).contiguous().numpy())
                ours = best_ms(ep_step(kind, x, Ep.astensor(g), k, s, p, data_format), rounds)
                theirs = best_ms(torch_step(kind, tx, tg, k, s, p), rounds)
                print(f"{kind:<4} {name:<6} {data_format:<6} {ours:>14.1f} {theirs:>11.1f} {theirs / ours:>9.2f}")
    print(f"threads: {threads} (PyTorch {torch.get_num_threads()})")


if __name__ == "__main__":
    main()
