"""`play` as a story: golden story transcripts for every bundled ruleset (fixed seeds),
what `--verbose`, `--quiet` and `--json` show, and the `narrate:` templates.

Regenerate the story goldens (after reading the change) with
    RULECRAFT_UPDATE_GOLDEN=1 python -m pytest tests/test_story.py -k golden
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.errors import DSLSyntaxError
from interpreter.lang.template import parse_template
from interpreter.run.narration import story_text

ROOT = Path(__file__).parent.parent
GOLDEN = ROOT / "tests" / "golden" / "story"
DUEL = ROOT / "tests" / "rulesets" / "duel.yaml"
GAMES = [("tanks", None, 1), ("tanks", "tabletop", 4), ("legowars", None, 1),
         ("jugger", None, 1), ("jungle-warfare", None, 1), ("mech-d20", None, 1)]


def play(*args):
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "interpreter", "play", *args],
                          capture_output=True, text=True, cwd=ROOT, env=env)


def _args(ruleset, scenario, seed):
    return [ruleset, "--seed", str(seed)] + (["--scenario", scenario] if scenario else [])


@pytest.mark.parametrize("ruleset,scenario,seed", GAMES)
def test_golden_story(ruleset, scenario, seed):
    done = play(*_args(ruleset, scenario, seed))
    assert done.returncode == 0, done.stderr
    path = GOLDEN / f"{ruleset}_{scenario or 'default'}_seed{seed}.txt"
    if os.environ.get("RULECRAFT_UPDATE_GOLDEN"):
        path.write_text(done.stdout, encoding="utf-8")
    assert done.stdout == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("ruleset,scenario,seed", GAMES)
def test_a_story_tells_actions_not_the_trace(ruleset, scenario, seed):
    """No bookkeeping in the story: no bindings, calls, returns or no-op resets; it starts
    with the forces, has a header per turn, and ends with each side's losses."""
    out = play(*_args(ruleset, scenario, seed)).stdout
    lines = out.splitlines()
    assert lines[1] == "Forces"
    assert "Turn 1" in lines
    assert not any(" = " in l and "→" in l for l in lines), "no trace lines"
    assert not any(l.strip().startswith("→") for l in lines)
    assert any(" wins after " in l or l.startswith("No winner") for l in lines)
    report = lines[next(i for i, l in enumerate(lines) if " wins after " in l or l.startswith("No winner")):]
    assert len(report) >= 2 and all(": lost " in l for l in report[1:])


def test_tanks_shots_read_as_the_rulebook_writes_them():
    out = play("tanks", "--seed", "1").stdout
    assert ("Stuart fires 37mm M6 at Scout car (13″, front): needs 4+, rolled 6 — hit; strength "
            "5 + 3 + range 1 = 9 vs armour 9: glancing; glancing 5: weapon destroyed") in out
    assert "Sherman 1 fires 75mm M3 at Scout car (19″, front): needs 4+, rolled 3 — miss" in out
    assert "axis wins after 12 turns" in out
    assert "  allies: lost 3 (Sherman 1, Sherman 2, Stuart); 0 left" in out


def test_quiet_prints_only_the_result():
    lines = play("tanks", "--seed", "1", "--quiet").stdout.splitlines()
    assert lines[0].startswith("Tanks: Crucial Warfare")
    assert "Turn 1" not in lines
    assert any(l.startswith("axis wins after 12 turns") for l in lines)
    assert len(lines) <= 6


def test_verbose_is_the_trace_without_no_op_assignments_and_with_old_and_new():
    out = play("tanks", "--seed", "1", "--verbose").stdout
    assert "Sherman 1.moved: 0 → 0" not in out     # a reset that changes nothing
    assert "Sherman 1.moved: 0 → 5" in out
    assert "      allowance(unit=Sherman 1)" in out  # nested one call deeper
    assert "to_hit[3] → 4" in out                   # the value the table gives, not its key


def test_verbose_writes_measured_numbers_as_decimals():
    out = play("tanks", "--scenario", "tabletop", "--seed", "4", "--verbose").stdout
    assert not any("/100" in l for l in out.splitlines())


def test_json_has_the_story_sentences_as_events():
    lines = play("tanks", "--seed", "1", "--json").stdout.splitlines()
    events = [json.loads(l) for l in lines]
    said = [e for e in events if e["event"] == "story"]
    assert said and all(e["procedure"] in ("shoot", "advance") for e in said)
    assert events[-1]["event"] == "result"


def test_output_to_a_pipe_is_never_wrapped():
    out = play("mech-d20", "--seed", "1").stdout
    assert any(len(l) > 120 for l in out.splitlines())


@pytest.mark.parametrize("text,expected", [
    ("plain", ("plain",)),
    ("{a} hits", ("a", " hits")),
    ("x {{not}} y", ("x {not} y",)),
    ("{if a then \"}\" else \"b\"}!", ("if a then \"}\" else \"b\"", "!")),
])
def test_template_pieces(text, expected):
    pieces = tuple(p if isinstance(p, str) else str(p) for p in parse_template(text).pieces)
    assert pieces == expected


@pytest.mark.parametrize("text,message", [
    ("{a", "never closed"),
    ("a}", "no '{' before it"),
    ("{}", "empty"),
    ("{2d6}", "may not roll dice"),
])
def test_bad_templates_are_syntax_errors(text, message):
    with pytest.raises(DSLSyntaxError, match=message):
        parse_template(text)


@pytest.mark.parametrize("value,text", [
    (Fraction(7071, 100), "70.71"), (5, "5"), (True, "true"), (None, "none"),
    (["a", "b"], "a, b"), ([], "none"), ("crew shaken", "crew shaken"),
])
def test_values_in_a_sentence(value, text):
    assert story_text(value) == text


@pytest.mark.parametrize("ruleset,seed", [("tanks", 1), ("tanks", 5), ("legowars", 1), ("duel", 7)])
def test_telling_the_story_does_not_change_the_game(ruleset, seed):
    """One meaning: a game played with its transcript (and narrate templates filled in)
    ends exactly as the same seed played without one (the compiled path)."""
    from interpreter.game.api import load_ruleset
    rules = load_ruleset(DUEL if ruleset == "duel" else ruleset)
    told = rules.play(None, seed, record=True)
    silent = rules.play(None, seed, record=False)
    assert (told.winner, told.turns, told.survivors) == (silent.winner, silent.turns, silent.survivors)


@pytest.mark.parametrize("phase, heading", [
    ("panic_check", "panic check"),       # a rule's phase: an identifier read as words
    ("clean_up", "clean up"),
    ("movement", "movement"),
    ("start", "start of the turn"),       # the engine's own bookkeeping phases
    ("end", "end of the turn"),
])
def test_a_phase_is_headed_in_words(phase, heading):
    from interpreter.render.story import phase_words
    assert phase_words(phase) == heading
