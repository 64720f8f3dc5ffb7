"""det, cholesky, qr, svd, eigh and lstsq (float64): a batch of 512
16x16 matrices and one 256x256 matrix, eager-glib on cpu:0 (LAPACKE) and
on OpenCL (a host round trip) against NumPy and PyTorch on the CPU, same
process, the best of several rounds; and svd's gradient against
PyTorch's. Ratios are speed-ups: above 1 means eager-glib is faster.

    meson devenv -C _build --workdir . /usr/bin/python3 bench/linalg.py [--rounds N]
"""

import argparse

import gi
import numpy as np
import torch

gi.require_version("Ep", "1.0")
from gi.repository import Ep  # noqa: E402
from timing import best_ms  # noqa: E402

REPEATS = 5


def workloads(a, b, spd):
    """(name, Ep call, NumPy call, torch call) on the same matrices"""
    return [
        ("det", lambda t: t["a"].det(), lambda: np.linalg.det(a), lambda x: torch.linalg.det(x["a"])),
        ("cholesky", lambda t: t["spd"].cholesky(), lambda: np.linalg.cholesky(spd),
         lambda x: torch.linalg.cholesky(x["spd"])),
        ("qr", lambda t: t["a"].qr()[1], lambda: np.linalg.qr(a), lambda x: torch.linalg.qr(x["a"])),
        ("svd", lambda t: t["a"].svd()[1], lambda: np.linalg.svd(a, full_matrices=False),
         lambda x: torch.linalg.svd(x["a"], full_matrices=False)),
        ("eigh", lambda t: t["spd"].eigh()[0], lambda: np.linalg.eigh(spd), lambda x: torch.linalg.eigh(x["spd"])),
        ("lstsq", lambda t: t["a"].lstsq(t["b"]),
         (lambda: np.linalg.lstsq(a, b, rcond=None)) if a.ndim == 2 else None,   # NumPy has no batches
         lambda x: torch.linalg.lstsq(x["a"], x["b"], driver="gelsd")),
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    rng = np.random.default_rng(0)
    devices = Ep.list_devices()
    print(f"{'workload':<24} {'device':<10} {'ep ms':>9} {'numpy ms':>9} {'torch ms':>9} "
          f"{'vs numpy':>9} {'vs torch':>9}")
    for shape in [(512, 16, 16), (256, 256)]:
        a = rng.standard_normal(shape)
        b = rng.standard_normal(shape[:-1] + (2,))
        spd = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
        x = {"a": torch.tensor(a), "b": torch.tensor(b), "spd": torch.tensor(spd)}
        for name, ep_call, np_call, torch_call in workloads(a, b, spd):
            torch_ms = best_ms(lambda: torch_call(x), rounds, REPEATS)
            np_ms = best_ms(np_call, rounds, REPEATS) if np_call is not None else None
            for device in devices:
                with Ep.device(device.get_name()):
                    t = {"a": Ep.astensor(a), "b": Ep.astensor(b), "spd": Ep.astensor(spd)}
                    ep_ms = best_ms(lambda: ep_call(t).numpy(), rounds, REPEATS)
                label = f"{name} {'x'.join(map(str, shape))}"
                np_text = f"{np_ms:9.3f}" if np_ms is not None else f"{'-':>9}"
                vs_np = f"{np_ms / ep_ms:9.2f}" if np_ms is not None else f"{'-':>9}"
                print(f"{label:<24} {device.get_name():<10} {ep_ms:9.3f} {np_text} {torch_ms:9.3f} "
                      f"{vs_np} {torch_ms / ep_ms:9.2f}")

    # svd's gradient: forward and backward of a sign-invariant loss
    a = rng.standard_normal((64, 32, 16))
    weight = rng.standard_normal((64, 32, 16))

    def ep_step():
        t = Ep.astensor(a)
        with Ep.GradientTape() as tape:
            tape.watch(t)
            u, s, vh = t.svd()
            loss = ((u @ vh) * Ep.astensor(weight)).sum() + s.sum()
        tape.gradient(loss, [t])[0].numpy()

    def torch_step():
        t = torch.tensor(a, requires_grad=True)
        u, s, vh = torch.linalg.svd(t, full_matrices=False)
        (((u @ vh) * torch.tensor(weight)).sum() + s.sum()).backward()

    ep_ms, torch_ms = best_ms(ep_step, rounds, REPEATS), best_ms(torch_step, rounds, REPEATS)
    print(f"{'svd grad 64x32x16':<24} {'cpu:0':<10} {ep_ms:9.3f} {'-':>9} {torch_ms:9.3f} {'-':>9} "
          f"{torch_ms / ep_ms:9.2f}")


if __name__ == "__main__":
    main()
