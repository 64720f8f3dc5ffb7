"""Fourier transforms against NumPy's np.fft and PyTorch's torch.fft on
the CPU: rfft, fft and irfft of batches of rows (powers of two, sizes of
small factors, a prime length) in float32 and float64, and rfft on
opencl:0 when there is one, same process, same threads. Each figure is
the best of several short rounds; the ratios are NumPy's and PyTorch's
times over eager-glib's (above 1: eager-glib is faster).

    meson devenv -C _build --workdir . /usr/bin/python3 bench/fft.py [--rounds N]
"""

import argparse

import gi
import numpy as np
import torch

gi.require_version("Ep", "1.0")
from gi.repository import Ep  # noqa: E402
from timing import best_ms  # noqa: E402

# rows, length
SIZES = [(256, 1024), (256, 1000), (64, 4099)]


def pairs(z, dtype):
    return np.stack([z.real, z.imag], -1).astype(dtype)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(Ep.cpu_get_n_threads() if hasattr(Ep, "cpu_get_n_threads") else torch.get_num_threads())
    rng = np.random.default_rng(0)
    print(f"{'op':<8} {'shape':<11} {'dtype':<8} {'eager-glib':>11} {'NumPy':>9} {'PyTorch':>9}"
          f" {'NumPy/ep':>9} {'torch/ep':>9}")
    for rows, n in SIZES:
        for dtype in ("float32", "float64"):
            x = rng.standard_normal((rows, n)).astype(dtype)
            z = (rng.standard_normal((rows, n)) + 1j * rng.standard_normal((rows, n))).astype(
                np.complex64 if dtype == "float32" else np.complex128)
            h = np.fft.rfft(x).astype(z.dtype)
            cases = {
                "rfft": (lambda: Ep.astensor(x).rfft().numpy(), lambda: np.fft.rfft(x),
                         lambda t=torch.tensor(x): torch.fft.rfft(t)),
                "fft": (lambda e=Ep.astensor(pairs(z, dtype)): e.fft().numpy(), lambda: np.fft.fft(z),
                        lambda t=torch.tensor(z): torch.fft.fft(t)),
                "irfft": (lambda e=Ep.astensor(pairs(h, dtype)): e.irfft(n).numpy(),
                          lambda: np.fft.irfft(h, n), lambda t=torch.tensor(h): torch.fft.irfft(t, n)),
            }
            for name, (ours, numpy_call, torch_call) in cases.items():
                ep_ms = best_ms(ours, args.rounds)
                np_ms = best_ms(numpy_call, args.rounds)
                torch_ms = best_ms(torch_call, args.rounds)
                print(f"{name:<8} {f'{rows}x{n}':<11} {dtype:<8} {ep_ms:9.2f}ms {np_ms:7.2f}ms {torch_ms:7.2f}ms"
                      f" {np_ms / ep_ms:9.2f} {torch_ms / ep_ms:9.2f}")
    devices = [d.get_name() for d in Ep.list_devices() if d.get_name().startswith("opencl")]
    for device in devices[:1]:
        for rows, n in SIZES:
            x = rng.standard_normal((rows, n)).astype("float32")
            e = Ep.astensor(x).to_device(device)
            ms = best_ms(lambda: e.rfft().numpy(), args.rounds)
            print(f"rfft     {f'{rows}x{n}':<11} float32  {ms:9.2f}ms on {device}")


if __name__ == "__main__":
    main()
