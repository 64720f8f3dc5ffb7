"""float16 and bfloat16 against PyTorch's CPU kernels (and NumPy's float16):
a 1024x1024 matmul and an add of 4M elements, same process, same threads.
eager-glib computes both in float32 (float16 matmul: the operands widened,
OpenBLAS sgemm, the result rounded; bfloat16 matmul: oneDNN's bfloat16
primitive, float32 sums rounded, or the float16 way with
EP_BF16_MATMUL_WIDEN=1; add: float32 adds in runs, rounded). Each
figure is the best of several short rounds, in milliseconds; the ratio is
the peer's time over eager-glib's (above 1: eager-glib is faster).

    meson devenv -C _build --workdir . /usr/bin/python3 bench/half.py [--rounds N]
"""

import argparse
import os

import gi
import numpy as np
import torch

gi.require_version("Ep", "1.0")
from gi.repository import Ep  # noqa: E402
from timing import best_ms  # noqa: E402

N_ADD = 4 * 1024 * 1024
N_MATMUL = 1024


def timed(function, rounds):
    """best_ms(), or None where the peer lacks the op for the type"""
    try:
        return best_ms(function, rounds)
    except (RuntimeError, TypeError):
        return None


def ratio(peer, ours):
    return "n/a" if peer is None else f"{peer / ours:.2f}"


def ms(value):
    return "n/a" if value is None else f"{value:.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    # the same threads: eager-glib takes EP_NUM_THREADS, else one per core
    threads = int(os.environ.get("EP_NUM_THREADS", os.cpu_count()))
    torch.set_num_threads(threads)

    print(f"threads: {threads} (PyTorch {torch.__version__}: {torch.get_num_threads()}), NumPy {np.__version__}")
    print("| workload | dtype | eager-glib ms | PyTorch ms | NumPy ms | PyTorch/eager-glib | NumPy/eager-glib |")
    print("|---|---|---|---|---|---|---|")
    for dtype in ("float16", "bfloat16"):
        torch_dtype = getattr(torch, dtype)

        a = rng.standard_normal((N_MATMUL, N_MATMUL)).astype(np.float32)
        b = rng.standard_normal((N_MATMUL, N_MATMUL)).astype(np.float32)
        x, y = Ep.astensor(a).astype(dtype), Ep.astensor(b).astype(dtype)
        ta, tb = torch.from_numpy(a).to(torch_dtype), torch.from_numpy(b).to(torch_dtype)
        ours = best_ms(lambda: x @ y, args.rounds)
        theirs = timed(lambda: ta @ tb, args.rounds)
        numpy_time = None
        if dtype == "float16":
            na, nb = a.astype(np.float16), b.astype(np.float16)
            numpy_time = timed(lambda: na @ nb, 1)
        print(f"| matmul {N_MATMUL}x{N_MATMUL} | {dtype} | {ours:.2f} | {ms(theirs)} | {ms(numpy_time)} "
              f"| {ratio(theirs, ours)} | {ratio(numpy_time, ours)} |")

        a = rng.standard_normal(N_ADD).astype(np.float32)
        b = rng.standard_normal(N_ADD).astype(np.float32)
        x, y = Ep.astensor(a).astype(dtype), Ep.astensor(b).astype(dtype)
        ta, tb = torch.from_numpy(a).to(torch_dtype), torch.from_numpy(b).to(torch_dtype)
        ours = best_ms(lambda: x + y, args.rounds)
        theirs = timed(lambda: ta + tb, args.rounds)
        numpy_time = None
        if dtype == "float16":
            na, nb = a.astype(np.float16), b.astype(np.float16)
            numpy_time = timed(lambda: na + nb, args.rounds)
        print(f"| add 4M | {dtype} | {ours:.2f} | {ms(theirs)} | {ms(numpy_time)} "
              f"| {ratio(theirs, ours)} | {ratio(numpy_time, ours)} |")


if __name__ == "__main__":
    main()
