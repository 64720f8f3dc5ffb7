"""An optimizer step over 10M float32 parameters (Adam, RMSprop,
Adagrad): eager-glib's fused in-place update against PyTorch's for-loop
and foreach implementations, same process, same threads.

    meson devenv -C _build --workdir . /usr/bin/python3 bench/adam_step.py

tests/c/test-optimizers.c checks that these steps allocate nothing.
"""

import time

import gi
import numpy as np
import torch

gi.require_version("Ep", "1.0")
from gi.repository import Ep  # noqa: E402

N = 10_000_000
STEPS = 20

OPTIMIZERS = [
    ("Adam", lambda: Ep.Adam(learning_rate=1e-3), lambda p, f: torch.optim.Adam(p, lr=1e-3, foreach=f)),
    ("RMSprop", lambda: Ep.Rmsprop(learning_rate=1e-3),
     lambda p, f: torch.optim.RMSprop(p, lr=1e-3, foreach=f)),
    ("RMSprop (momentum, centered)", lambda: Ep.Rmsprop(learning_rate=1e-3, momentum=0.9, centered=True),
     lambda p, f: torch.optim.RMSprop(p, lr=1e-3, momentum=0.9, centered=True, foreach=f)),
    ("Adagrad", lambda: Ep.Adagrad(learning_rate=1e-2),
     lambda p, f: torch.optim.Adagrad(p, lr=1e-2, foreach=f)),
]


def per_step(step):
    step()
    start = time.perf_counter()
    for _ in range(STEPS):
        step()
    return (time.perf_counter() - start) / STEPS * 1e3


def main():
    g = Ep.astensor(np.ones(N, np.float32))
    p = torch.zeros(N, requires_grad=True)
    p.grad = torch.ones(N)
    for name, ours, theirs in OPTIMIZERS:
        w = Ep.Variable(np.zeros(N, np.float32), name="w")
        opt = ours()
        print(f"eager-glib {name}: {per_step(lambda: opt.apply_gradients([g], [w])):.1f} ms")
        del w, opt
        for foreach in (False, True):
            o = theirs([p], foreach)
            print(f"torch {name} (foreach={foreach}): {per_step(o.step):.1f} ms")
    print(f"torch threads: {torch.get_num_threads()}")


if __name__ == "__main__":
    main()
