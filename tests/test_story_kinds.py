"""The story keeps only the kinds of transcript line it shows (`StoryTeller.kinds`,
`World.told`): what it prints, in colour, and the game itself (who won, the dice stream
left) must be what the whole transcript gives, and the lines it drops must be dropped."""
from __future__ import annotations

import io

import pytest
from rich.console import Console

from interpreter.game.api import load_ruleset
from interpreter.render.story import KINDS, StoryTeller
from interpreter.run.procedures import Procedure

GAMES = [("tanks", None, 1), ("tanks", "tabletop", 4), ("tanks", "group_example", 2),
         ("legowars", None, 1), ("legowars", "mounted_knight", 3), ("jugger", None, 1),
         ("jugger", "juggerball", 2), ("jungle-warfare", None, 1),
         ("jungle-warfare", "predrawn", 5), ("mech-d20", None, 1), ("mech-d20", "peccary", 2)]


def _told(ruleset, scenario, seed, mode, whole: bool):
    """(what the teller printed, with its styles; the result; the world's dice state)."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="truecolor", width=100)
    teller = StoryTeller(console, mode)
    if whole:
        teller.kinds = None   # the whole transcript, as before tellers said what they read
    result = load_ruleset(ruleset).play(scenario, seed, observer=teller)
    teller.finish(result)
    return out.getvalue(), result, result.world.rng.getstate()


@pytest.mark.parametrize("mode", ["story", "quiet"])
@pytest.mark.parametrize("ruleset,scenario,seed", GAMES)
def test_the_kinds_kept_tell_the_same_game(ruleset, scenario, seed, mode, monkeypatch):
    # every call run on its Step objects, its lines written: that a told game may run
    # its quiet calls compiled is tests/test_told_quiet.py's to hold to this
    monkeypatch.setattr(Procedure, "_runs_quietly", lambda self, world: False)
    kept_text, kept, kept_dice = _told(ruleset, scenario, seed, mode, whole=False)
    whole_text, whole, whole_dice = _told(ruleset, scenario, seed, mode, whole=True)
    assert kept_text == whole_text
    assert (kept.winner, kept.reason, kept.turns, kept.survivors, kept.scores) == \
        (whole.winner, whole.reason, whole.turns, whole.survivors, whole.scores)
    assert kept_dice == whole_dice
    # the lines written once play began are only the kinds the mode reads, in the order
    # the whole transcript has them
    # (those written while the world was set up, before the teller was there, are all kept)
    setup = len(kept.events) - len([e for e in kept.events if e["event"] in KINDS[mode]])
    assert all(e["event"] in KINDS[mode] for e in kept.events[setup:])
    assert kept.events == whole.events[:setup] + \
        [e for e in whole.events[setup:] if e["event"] in KINDS[mode]]
    assert len(kept.events) < len(whole.events)   # something was left out


def test_the_trace_and_json_keep_every_line():
    assert KINDS["verbose"] is None
    out = io.StringIO()
    teller = StoryTeller(Console(file=out, width=100), "verbose")
    result = load_ruleset("tanks").play(None, 1, observer=teller)
    kinds = {e["event"] for e in result.events}
    assert {"let", "set", "return", "call"} <= kinds
