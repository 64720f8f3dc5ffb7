"""conv2d forward and backward (the images' and the weight's gradients) on
32x64x56x56 images with 64 3x3 filters, padding 1, float32, NCHW and
NHWC: eager-glib (CPU: oneDNN) against PyTorch (oneDNN through mkldnn),
same process, same number of threads, best of several rounds.

    meson devenv -C _build --workdir . /usr/bin/python3 bench/conv2d.py [--rounds N]
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

N, C, H, W, O, K = 32, 64, 56, 56, 64, 3


def eager_glib(fmt, x, w, gy, rounds, reps):
    tx, tw = Ep.astensor(x), Ep.astensor(w)
    tgy = Ep.astensor(gy)
    shape = list(x.shape)

    def forward():
        tx.conv2d(tw, padding=1, data_format=fmt)

    def forward_backward():
        with Ep.GradientTape() as tape:
            tape.watch([tx, tw])
            y = tx.conv2d(tw, padding=1, data_format=fmt)
        tape.gradient(y, [tx, tw], output_gradients=[tgy])

    def ops():
        tx.conv2d(tw, padding=1, data_format=fmt)
        Ep.conv2d_input_grad(tgy, tw, shape, padding=1, data_format=fmt)
        Ep.conv2d_weight_grad(tx, tgy, list(w.shape), padding=1, data_format=fmt)

    return (best_ms(forward, rounds, reps), best_ms(forward_backward, rounds, reps),
            best_ms(ops, rounds, reps))


def pytorch(fmt, x, w, gy, rounds, reps):
    memory = torch.channels_last if fmt == "nhwc" else torch.contiguous_format
    # PyTorch's images are NCHW-shaped whatever their memory order
    tx = torch.from_numpy(x if fmt == "nchw" else x.transpose(0, 3, 1, 2)).contiguous(memory_format=memory)
    tgy = torch.from_numpy(gy if fmt == "nchw" else gy.transpose(0, 3, 1, 2)).contiguous(memory_format=memory)
    tw = torch.from_numpy(w).contiguous(memory_format=memory)
    tx.requires_grad_(True)
    tw.requires_grad_(True)

    def forward():
        with torch.no_grad():
            F.conv2d(tx, tw, padding=1)

    def forward_backward():
        tx.grad = tw.grad = None
        F.conv2d(tx, tw, padding=1).backward(tgy)

    return best_ms(forward, rounds, reps), best_ms(forward_backward, rounds, reps)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=2)
    args = parser.parse_args()

    threads = int(os.environ.get("EP_NUM_THREADS", os.cpu_count()))
    torch.set_num_threads(threads)
    rng = np.random.default_rng(0)
    flops = 2 * N * O * H * W * C * K * K
    print(f"conv2d {N}x{C}x{H}x{W}, {O} {K}x{K} filters, padding 1, float32; "
          f"{threads} threads (EP_NUM_THREADS and torch.set_num_threads)")
    print(f"{'':6} {'':18} {'eager-glib ms':>14} {'PyTorch ms':>11} {'ratio':>6}  GFLOP/s (eager-glib)")
    for fmt in ("nchw", "nhwc"):
        shape = (N, C, H, W) if fmt == "nchw" else (N, H, W, C)
        x = rng.standard_normal(shape, np.float32)
        w = rng.standard_normal((O, C, K, K), np.float32)
        gy = rng.standard_normal(shape[:3] + (O,) if fmt == "nhwc" else (N, O, H, W), np.float32)
        ep_fwd, ep_both, ep_ops = eager_glib(fmt, x, w, gy, args.rounds, args.reps)
        pt_fwd, pt_both = pytorch(fmt, x, w, gy, args.rounds, args.reps)
        # ratio: eager-glib's throughput over PyTorch's (above 1: faster)
        for label, ours, theirs, work in (("forward", ep_fwd, pt_fwd, flops),
                                          ("forward+backward", ep_both, pt_both, 3 * flops),
                                          ("(the three ops)", ep_ops, pt_both, 3 * flops)):
            print(f"{fmt:6} {label:18} {ours:14.1f} {theirs:11.1f} {theirs / ours:6.2f}  "
                  f"{work / ours / 1e6:.0f}")


if __name__ == "__main__":
    main()
