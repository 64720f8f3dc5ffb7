"""How the Python benchmarks here time a call: one warm-up call, then
rounds of a few calls each, and the best round's mean. The machine is
shared and noisy; the best round is the least disturbed one.

    from timing import best_ms, torch_best_ms
"""

import os
import time


def best_ms(step, rounds, repeats=3):
    """milliseconds per call of step(), the best round's mean"""
    step()
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeats):
            step()
        best = min(best, (time.perf_counter() - start) / repeats)
    return best * 1e3


def torch_best_ms(step, rounds, repeats=3):
    """best_ms of a PyTorch step with one thread and with one per core:
    the better (PyTorch's threads do not help small ops)"""
    import torch

    times = []
    for threads in (1, os.cpu_count()):
        torch.set_num_threads(threads)
        times.append(best_ms(step, rounds, repeats))
    return min(times)
