"""Mistakes in rule files caught where they are made, each with its message, place and
exit code: a misspelt top-level key or statement gets "did you mean", a tab says tabs are
not allowed, and `validate` reports every independent finding in one run."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


def validate(tmp_path, text: str, fmt: str = "json"):
    path = tmp_path / "rules.yaml"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "interpreter", "validate", str(path),
                           "--format", fmt], capture_output=True, text=True, cwd=ROOT)
    return done.returncode, json.loads(done.stdout) if fmt == "json" else done.stdout


BASE = "ruleset: t\ntitle: t\n"


@pytest.mark.parametrize("text,line,column,message,hint", [
    ("ruleset: t\ntitel: x\n", 2, 1, "unknown key 'titel' at the top level", "did you mean 'title'?"),
    (BASE + "procedures:\n  p:\n    steps:\n      - retrun \"miss\"\n", 6, 9,
     "unknown statement 'retrun'", "did you mean 'return'?"),
    (BASE + "procedures:\n  p:\n    steps:\n      - emitt 3\n", 6, 9,
     "unknown statement 'emitt'", "did you mean 'emit'?"),
    (BASE + "procedures:\n  p:\n\tsteps: []\n", 5, 1, "tabs are not allowed", "indent with spaces"),
])
def test_a_mistake_is_named_where_it_is(tmp_path, text, line, column, message, hint):
    code, findings = validate(tmp_path, text)
    assert code == 1
    first = findings[0]
    assert (first["line"], first["column"]) == (line, column)
    assert message in first["message"]
    _, shown = validate(tmp_path, text, "text")
    assert f"rules.yaml:{line}:{column}: error: " in shown and f"hint: {hint}" in shown


def test_validate_reports_every_independent_finding_in_one_run(tmp_path):
    text = ("ruleset: t\n"                                  # no title: a schema finding
            "tables:\n  t:\n    roll: d6\n    rows:\n      \"1-2\": a\n      \"4-6\": b\n"
            "procedures:\n  p:\n    steps:\n      - let x = t[d6] + fo\n      - return x\n"
            "    outcomes: 3\n")                           # not a list: a schema finding
    code, findings = validate(tmp_path, text)
    assert code == 1
    codes = [f["code"] for f in findings]
    assert "table-gap" in codes and "unknown-name" in codes
    assert sum(1 for f in findings if f["code"].startswith("schema")) == 2
