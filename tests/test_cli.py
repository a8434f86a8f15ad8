"""The command line: every command's exit codes, JSON forms and file handling."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
DUEL = ROOT / "tests" / "rulesets" / "duel.yaml"


def rulecraft(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "interpreter", *args], capture_output=True,
                          text=True, cwd=ROOT, input=stdin)


@pytest.mark.parametrize("args,code", [
    (["roll", "2d6", "--seed", "1"], 0),
    (["roll", "2d6", "--times", "0"], 2),
    (["roll", "2d6", "--seed", "-1"], 2),
    (["roll", "2d6", "--seed", "x"], 2),
    (["roll", "2d"], 1),
    (["odds", "d0"], 1),
    (["frobnicate"], 2),
    ([], 2),
    (["tables", "no_such_ruleset"], 2),
    (["tables", "tanks", "no_such_table"], 2),
    (["run", "tanks", "no_such_procedure"], 2),
    (["play", "tanks", "--scenario", "nope"], 2),
    (["simulate", "tanks"], 2),
    (["simulate", "tanks", "--runs", "0"], 2),
])
def test_exit_codes(args, code):
    result = rulecraft(*args)
    assert result.returncode == code
    assert "Traceback" not in result.stderr


def test_roll_json_has_expression_total_and_dice():
    data = json.loads(rulecraft("roll", "4d6kh3", "--seed", "7", "--json").stdout)
    assert data["expression"] == "4d6kh3" and data["seed"] == 7
    assert data["total"] == sum(d["value"] for d in data["dice"][0]["dice"] if d["kept"])


@pytest.mark.parametrize("expression,line", [
    ("to_hit[3]", "to_hit[3] -> 4"),              # a single-value row: its value, not its key
    ("to_hit[7]", "to_hit[7] (row 5+) -> 2"),     # a key in a band: the row, then its value
    ("glancing[1]", "glancing[1] -> row 1-2"),    # a row of several columns: the row
])
def test_roll_shows_what_a_table_lookup_found(expression, line):
    out = rulecraft("roll", expression, "--ruleset", "tanks", "--seed", "1").stdout
    assert line in out.splitlines()[1]


def test_roll_times_summarises():
    data = json.loads(rulecraft("roll", "d6", "--times", "600", "--seed", "2", "--json").stdout)
    assert data["times"] == 600 and sum(c["count"] for c in data["counts"]) == 600


def test_odds_json_is_exact_and_sorted():
    data = json.loads(rulecraft("odds", "2d6", "--json").stdout)
    assert [o["value"] for o in data["outcomes"]] == list(range(2, 13))
    assert data["outcomes"][5]["probability"] == "1/6"
    assert data["mean"] == "7"


def test_list_names_the_bundled_rulesets():
    ids = {r["id"] for r in json.loads(rulecraft("list", "--json").stdout)}
    assert {"tanks", "legowars"} <= ids


@pytest.mark.parametrize("fmt", ["md", "csv", "json", "html"])
def test_tables_output_never_overwrites_without_force(tmp_path, fmt):
    out = tmp_path / f"tables.{fmt}"
    assert rulecraft("tables", "tanks", "--format", fmt, "--output", str(out)).returncode == 0
    first = out.read_text()
    assert first
    refused = rulecraft("tables", "tanks", "--format", fmt, "--output", str(out))
    assert refused.returncode == 2 and "--force" in refused.stderr
    assert out.read_text() == first
    assert rulecraft("tables", "tanks", "--format", fmt, "--output", str(out), "--force").returncode == 0


def test_tables_odds_json_has_exact_fractions():
    data = json.loads(rulecraft("tables", "tanks", "glancing", "--format", "json", "--odds").stdout)
    assert data[0]["name"] == "glancing"
    assert "1/3" in json.dumps(data[0])


def test_play_json_lines_end_with_the_result():
    lines = rulecraft("play", "tanks", "--seed", "3", "--json").stdout.splitlines()
    events = [json.loads(line) for line in lines]
    assert events[-1]["event"] == "result"
    assert {e["event"] for e in events} >= {"turn", "phase", "initiative"}


def test_interactive_play_with_a_pipe_for_stdin_is_a_usage_error():
    """A person must be there to answer: a pipe or /dev/null never silently plays on."""
    result = rulecraft("play", str(DUEL), "--seed", "1", "--ask", "blue", stdin="2\n" * 200)
    assert result.returncode == 2
    assert "need a terminal" in result.stderr


def test_simulate_json_summary():
    data = json.loads(rulecraft("simulate", str(DUEL), "--runs", "30", "--seed", "4", "--json").stdout)
    assert data["runs"] == 30
    assert sum(r["wins"] for r in data["results"].values()) == 30
    low, high = data["results"][next(iter(data["results"]))]["ci95"]
    assert 0 <= low <= high <= 1


def run_with_env(env):
    import os
    return subprocess.run([sys.executable, "-m", "interpreter", "run", str(DUEL), "attack", "--seed", "2"],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, **env}).stdout


def test_piped_output_has_no_escape_codes():
    assert "\x1b[" not in run_with_env({})


def test_no_color_drops_colours_even_when_forced():
    import re
    forced = run_with_env({"FORCE_COLOR": "1"})
    assert re.search(r"\x1b\[[0-9;]*3[0-9]m", forced)          # colours when forced
    plain = run_with_env({"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert not re.search(r"\x1b\[[0-9;]*3[0-9]m", plain)       # none with NO_COLOR
