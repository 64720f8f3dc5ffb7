"""einsum against PyTorch's torch.einsum and NumPy's numpy.einsum
(optimize=True) in the same process, float32 on cpu:0, the best of
several rounds: batched bilinear forms (bi,bij,bj->b), attention scores
(bhqd,bhkd->bhqk) and a chain of three matrices, forward, and the
bilinear form forward+backward against torch.autograd.

    meson devenv -C _build --workdir . /usr/bin/python3 bench/einsum.py [--rounds N]
"""

import argparse
import os

import gi
import numpy as np
import torch

gi.require_version("Ep", "1.0")
from gi.repository import Ep  # noqa: E402
from timing import best_ms, torch_best_ms  # noqa: E402

REPEATS = 3


def ep_backward(subscripts, inputs, weight):
    def step():
        with Ep.GradientTape() as tape:
            for t in inputs:
                tape.watch(t)
            loss = (Ep.einsum(subscripts, *inputs) * weight).sum()
        tape.gradient(loss, inputs)[1].numpy()
    return step


def torch_backward(subscripts, inputs, weight):
    def step():
        for t in inputs:
            t.grad = None
        (torch.einsum(subscripts, *inputs) * weight).sum().backward()
    return step


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    rng = np.random.default_rng(0)

    print(f"torch {torch.__version__} (1 and {os.cpu_count()} threads, the better), "
          f"numpy {np.__version__} (optimize=True); eager-glib on cpu:0, float32")
    print("| workload | eager-glib ms | PyTorch ms | NumPy ms | ×PyTorch | ×NumPy |")
    print("|---|---|---|---|---|---|")

    workloads = [
        ("bi,bij,bj->b", [(256, 256), (256, 256, 256), (256, 256)], "b=256, i=j=256"),
        ("bi,bij,bj->b", [(128, 512), (128, 512, 512), (128, 512)], "b=128, i=j=512"),
        ("bhqd,bhkd->bhqk", [(8, 8, 256, 64), (8, 8, 256, 64)], "8×8 heads, 256×64"),
        ("ij,jk,kl->il", [(512, 64), (64, 512), (512, 512)], "512×64×512×512"),
    ]
    for subscripts, shapes, label in workloads:
        arrays = [rng.standard_normal(s, np.float32) for s in shapes]
        tensors = [Ep.astensor(a) for a in arrays]
        refs = [torch.tensor(a) for a in arrays]
        ep_ms = best_ms(lambda: Ep.einsum(subscripts, *tensors).numpy(), rounds, REPEATS)
        torch_ms = torch_best_ms(lambda: torch.einsum(subscripts, *refs), rounds, REPEATS)
        numpy_ms = best_ms(lambda: np.einsum(subscripts, *arrays, optimize=True), rounds, REPEATS)
        print(f"| `{subscripts}` {label} | {ep_ms:.2f} | {torch_ms:.2f} | {numpy_ms:.2f} "
              f"| {torch_ms / ep_ms:.2f} | {numpy_ms / ep_ms:.2f} |")

    subscripts, shapes = "bi,bij,bj->b", [(256, 256), (256, 256, 256), (256, 256)]
    arrays = [rng.standard_normal(s, np.float32) for s in shapes]
    weight = rng.standard_normal(256, np.float32)
    tensors = [Ep.astensor(a) for a in arrays]
    refs = [torch.tensor(a, requires_grad=True) for a in arrays]
    ep_ms = best_ms(ep_backward(subscripts, tensors, Ep.astensor(weight)), rounds, REPEATS)
    torch_ms = torch_best_ms(torch_backward(subscripts, refs, torch.tensor(weight)), rounds, REPEATS)
    print(f"| `{subscripts}` b=256, i=j=256, forward+backward | {ep_ms:.2f} | {torch_ms:.2f} | – "
          f"| {torch_ms / ep_ms:.2f} | – |")


if __name__ == "__main__":
    main()
