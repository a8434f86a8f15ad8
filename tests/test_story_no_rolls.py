"""A story never rolls dice: a `narrate:` hole that would roll, even through a table cell
whose formula rolls, is refused (by `validate` when it can see it, with a located error
when the value is only reached through a local), and the game is never changed."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BROKEN = Path(__file__).parent / "broken" / "semantic" / "narrate_rolls.yaml"

# the same rule read straight from the table (validate sees it) and through a local
# bound to the row (found only when the story is told)
THROUGH_A_LOCAL = BROKEN.read_text().replace(
    '''      - let n = forces[force].rifles
      - return n
    narrate: "{forces[force].rifles} rifles"''',
    '''      - let row = forces[force]
      - return 1
    narrate: "{row.rifles} rifles"''')


def rulecraft(*args):
    return subprocess.run([sys.executable, "-m", "interpreter", *args],
                          capture_output=True, text=True, timeout=60)


def test_validate_finds_a_hole_reading_a_rolling_column():
    out = rulecraft("validate", str(BROKEN))
    assert out.returncode == 1
    assert "narrate_rolls.yaml:18:30: error: this hole reads column 'rifles'" in out.stdout


@pytest.mark.parametrize("command", [["play", "--seed", "1"], ["play", "--seed", "1", "--verbose"]])
def test_a_hole_that_rolls_through_a_local_is_a_located_error(tmp_path, command):
    path = tmp_path / "through_local.yaml"
    path.write_text(THROUGH_A_LOCAL)
    assert "let row" in THROUGH_A_LOCAL
    assert rulecraft("validate", str(path)).returncode == 0
    out = rulecraft(*command, str(path))
    assert out.returncode == 1, out.stdout + out.stderr
    assert "internal error" not in out.stderr
    assert f"{path}:18:" in out.stderr
    assert "a story template may not roll dice" in out.stderr
