"""The generated stubs (gi-stubs/repository/Ep.pyi): a correct script
type-checks with mypy, and wrong calls are caught where expected."""

import os
import re
import subprocess
import sys

import pytest

HERE = os.path.join(os.path.dirname(__file__), "typing")
STUBS = os.environ.get("EP_STUBS_DIR")

pytestmark = pytest.mark.skipif(STUBS is None, reason="EP_STUBS_DIR (the stubs' build folder) not set")


def mypy(path):
    env = dict(os.environ, PYTHONPATH=STUBS, MYPY_CACHE_DIR=os.devnull)
    env.pop("LD_PRELOAD", None)
    result = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull,
                             "--no-error-summary", "--show-error-codes", "--config-file", os.devnull, path],
                            env=env, capture_output=True, text=True, check=False)
    return result.returncode, result.stdout + result.stderr


def test_stubs_exist():
    assert os.path.isfile(os.path.join(STUBS, "gi-stubs", "repository", "Ep.pyi"))


def test_user_script_type_checks():
    code, output = mypy(os.path.join(HERE, "good.py"))
    assert code == 0, output


def test_wrong_calls_are_caught():
    path = os.path.join(HERE, "bad.py")
    code, output = mypy(path)
    assert code == 1, output
    expected = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            match = re.search(r"# E: ([\w-]+)", line)
            if match:
                expected[number] = match.group(1)
    got = {}
    for line in output.splitlines():
        match = re.match(r".*bad\.py:(\d+): error: .*\[([\w-]+)\]$", line)
        if match:
            got[int(match.group(1))] = match.group(2)
    assert got == expected, output
