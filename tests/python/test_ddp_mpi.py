"""Data-parallel training on several processes: ddp_ranks.py run under
mpirun with 2 ranks, and with 3 on this machine's 2 cores
(--oversubscribe). Each rank checks that the gradients averaged through
Ep.DataParallel equal the single-process gradients of the whole batch,
that the variables start equal after the broadcast, that the checkpoint
is written by rank 0 alone and readable, and that a staged step gives
what the eager one gives (ddp_ranks.py says how).

Skipped only when mpirun is missing (build-aux/setup installs it)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

RANKS = Path(__file__).with_name("ddp_ranks.py")
MPIRUN = shutil.which("mpirun")
MPIRUN_SH = Path(__file__).resolve().parents[1] / "mpirun.sh"


def run_ranks(n, *args, timeout=240):
    """python3 args... on n ranks through tests/mpirun.sh (what Open MPI
    needs here: root in CI, --oversubscribe, containers, LeakSanitizer
    off), with a hard timeout of its own too: nothing hangs"""
    command = [str(MPIRUN_SH), str(n), sys.executable, *map(str, args)]
    env = dict(os.environ, EP_MPIRUN_TIMEOUT=str(timeout - 10))
    try:
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        pytest.fail(f"{' '.join(command)} did not end in {timeout} s:\n{expired.stdout}\n{expired.stderr}")


@pytest.mark.skipif(MPIRUN is None, reason="mpirun is missing (build-aux/setup installs openmpi-bin)")
@pytest.mark.parametrize("n", [2, 3])
def test_averaged_gradients_equal_whole_batch(n, tmp_path):
    done = run_ranks(n, RANKS, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    for rank in range(n):
        assert f"rank {rank} of {n}: ok" in done.stdout, done.stdout + done.stderr


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python" / "ddp_digits.py"


def epoch_losses(stdout):
    return [float(line.split()[-1]) for line in stdout.splitlines() if line.startswith("epoch")]


@pytest.mark.skipif(MPIRUN is None, reason="mpirun is missing (build-aux/setup installs openmpi-bin)")
def test_ddp_digits_one_and_two_ranks(tmp_path):
    """examples/python/ddp_digits.py reaches cnn_digits.py's 97 % with one
    rank and with two, and two ranks follow one's training: the same
    losses, to float32 rounding of the sums taken in another order."""
    runs = {}
    for n in (1, 2):
        checkpoint = tmp_path / f"digits{n}.safetensors"
        done = run_ranks(n, EXAMPLE, "--checkpoint", checkpoint)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "test accuracy" in done.stdout and checkpoint.exists(), done.stdout
        runs[n] = epoch_losses(done.stdout)
    assert len(runs[1]) == len(runs[2]) >= 2
    assert runs[2][0] == pytest.approx(runs[1][0], rel=1e-3)
    assert runs[2][-1] == pytest.approx(runs[1][-1], rel=0.02)
