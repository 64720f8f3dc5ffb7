"""An Adam step over 10M float32 parameters: eager-glib's fused in-place
update against PyTorch's for-loop and foreach Adam, same process, same
threads.

    meson devenv -C _build --workdir . /usr/bin/python3 bench/adam_step.py
"""

import time

import gi
import numpy as np
import torch

gi.require_version("Ep", "1.0")
from gi.repository import Ep  # noqa: E402

N = 10_000_000
STEPS = 20


def per_step(step):
    step()
    start = time.perf_counter()
    for _ in range(STEPS):
        step()
    return (time.perf_counter() - start) / STEPS * 1e3


def main():
    w = Ep.Variable(np.zeros(N, np.float32), name="w")
    g = Ep.astensor(np.ones(N, np.float32))
    opt = Ep.Adam(learning_rate=1e-3)
    print(f"eager-glib Adam: {per_step(lambda: opt.apply_gradients([g], [w])):.1f} ms")
    p = torch.zeros(N, requires_grad=True)
    p.grad = torch.ones(N)
    for foreach in (False, True):
        o = torch.optim.Adam([p], lr=1e-3, foreach=foreach)
        print(f"torch Adam (foreach={foreach}): {per_step(o.step):.1f} ms")
    print(f"torch threads: {torch.get_num_threads()}")


if __name__ == "__main__":
    main()
