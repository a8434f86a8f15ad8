"""The hostile rule files' harness: run the command line in this process on a rule file
written to a temporary folder, and say what it printed, its exit code and how long it
took (every case asserts a time bound well under the budget it tests).  Time is this
process's CPU time: the machine running the tests may be busy, and a bound on wall time
would then fail a correct program."""
import time
from dataclasses import dataclass

import pytest

from interpreter.cli.main import main


@dataclass
class Outcome:
    code: int
    out: str
    err: str
    seconds: float
    wall: float = 0.0   # seconds on the clock (a loose bound: a loaded machine shares its cores)

    @property
    def text(self) -> str:
        return self.out + self.err


@pytest.fixture
def cli(capsys):
    """`cli(*argv) -> Outcome`; `{dir}` in an argument stands for the test's folder."""
    def run(*argv):
        capsys.readouterr()
        start, clock = time.process_time(), time.perf_counter()
        code = main([str(a) for a in argv])
        seconds, wall = time.process_time() - start, time.perf_counter() - clock
        captured = capsys.readouterr()
        return Outcome(code, captured.out, captured.err, seconds, wall)
    return run


@pytest.fixture
def write(tmp_path):
    """`write(name, text) -> path` of a file in the test's folder (folders made)."""
    def put(name: str, text: str):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path
    return put
