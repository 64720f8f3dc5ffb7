# bench/hmc.py: the HMC sampler of bench/run, in each library.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Hamiltonian Monte Carlo on a 2-D correlated Gaussian: Σ = [[1, 0.95],
# [0.95, 1]], energy U(q) = ½ qᵀ Σ⁻¹ q for each chain, CHAINS chains at
# once, STEPS leapfrog steps of EPS per sample, the Metropolis test with
# uniform draws. The energy's gradient is taken by the library's autodiff
# inside the step (eager-glib: a GradientTape; PyTorch: autograd.grad),
# eleven times per sample; NumPy's is written by hand (Σ⁻¹ q). One
# sample is one call of the step: about 160 small ops, so it measures
# what an op costs from Python more than any kernel (the TensorFlow Eager
# paper's L2HMC figure).

import numpy as np

CHAINS = 200
STEPS = 10
EPS = 0.1
SIGMA = np.array([[1.0, 0.95], [0.95, 1.0]])
PRECISION = np.linalg.inv(SIGMA).astype(np.float32)


def ep_sampler(staged):
    """sample(q) -> (q, accepted) with eager-glib, eagerly or staged."""
    import gi
    gi.require_version("Ep", "1.0")
    from gi.repository import Ep

    precision = Ep.astensor(PRECISION)

    def energy(q):
        return ((q @ precision) * q).sum(axis=1) * 0.5

    def grad(q):
        with Ep.GradientTape() as tape:
            tape.watch(q)
            u = energy(q).sum()
        return tape.gradient(u, q)

    def sample(q):
        p = Ep.normal((CHAINS, 2))
        h0 = energy(q) + (p * p).sum(axis=1) * 0.5
        q1 = q
        p = p - grad(q1) * (EPS / 2)
        for i in range(STEPS):
            q1 = q1 + p * EPS
            if i < STEPS - 1:
                p = p - grad(q1) * EPS
        p = p - grad(q1) * (EPS / 2)
        h1 = energy(q1) + (p * p).sum(axis=1) * 0.5
        accept = Ep.uniform((CHAINS,)).log() < h0 - h1
        return Ep.where(accept.expand_dims(1), q1, q), accept

    Ep.set_seed(1)
    if staged:
        sample = Ep.function(sample, input_signature=[Ep.TensorSpec((CHAINS, 2))])
    return sample, Ep.zeros((CHAINS, 2)), lambda t: t.numpy()


def torch_sampler(staged=False):
    """The same with PyTorch: autograd.grad for the gradient."""
    import torch

    precision = torch.from_numpy(PRECISION)

    def energy(q):
        return ((q @ precision) * q).sum(dim=1) * 0.5

    def grad(q):
        q = q.detach().requires_grad_()
        return torch.autograd.grad(energy(q).sum(), q)[0]

    def sample(q):
        p = torch.randn(CHAINS, 2)
        h0 = energy(q) + (p * p).sum(dim=1) * 0.5
        q1 = q
        p = p - grad(q1) * (EPS / 2)
        for i in range(STEPS):
            q1 = q1 + p * EPS
            if i < STEPS - 1:
                p = p - grad(q1) * EPS
        p = p - grad(q1) * (EPS / 2)
        h1 = energy(q1) + (p * p).sum(dim=1) * 0.5
        accept = torch.rand(CHAINS).log() < h0 - h1
        return torch.where(accept.unsqueeze(1), q1, q), accept

    torch.manual_seed(1)
    return sample, torch.zeros(CHAINS, 2), lambda t: t.numpy()


def numpy_sampler(staged=False):
    """The same with NumPy, the gradient by hand: ∇U(q) = Σ⁻¹ q."""
    rng = np.random.default_rng(1)

    def energy(q):
        return ((q @ PRECISION) * q).sum(axis=1) * np.float32(0.5)

    def grad(q):
        return q @ PRECISION

    def sample(q):
        p = rng.standard_normal((CHAINS, 2), dtype=np.float32)
        h0 = energy(q) + (p * p).sum(axis=1) * np.float32(0.5)
        q1 = q
        p = p - grad(q1) * np.float32(EPS / 2)
        for i in range(STEPS):
            q1 = q1 + p * np.float32(EPS)
            if i < STEPS - 1:
                p = p - grad(q1) * np.float32(EPS)
        p = p - grad(q1) * np.float32(EPS / 2)
        h1 = energy(q1) + (p * p).sum(axis=1) * np.float32(0.5)
        accept = np.log(rng.random(CHAINS, dtype=np.float32)) < h0 - h1
        return np.where(accept[:, None], q1, q), accept

    return sample, np.zeros((CHAINS, 2), np.float32), np.asarray


SAMPLERS = {"ep": ep_sampler, "torch": torch_sampler, "numpy": numpy_sampler}


def sampler(lib):
    """(sample, q0, to_numpy) for "ep", "ep_staged", "torch" or "numpy"."""
    staged = lib.endswith("_staged")
    return SAMPLERS[lib.removesuffix("_staged")](staged)


def moments(samples):
    """Mean and covariance of the samples (arrays of CHAINS × 2), every
    chain and every sample pooled."""
    pooled = np.concatenate(samples).astype(np.float64)
    return pooled.mean(axis=0), np.cov(pooled.T)
