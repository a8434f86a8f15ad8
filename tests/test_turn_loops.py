"""A sampled game's turn loop (game/turns.one_world_turns) against the general one
(`play_turns` mapping every step over a list of states, as exact odds runs it): the same
game, seed by seed -- its transcript, its final state, or its error -- for every scenario
of every bundled ruleset and of the test rulesets with a turn."""
from __future__ import annotations

import pytest
from games_with_turns import ROOT, scenarios_to_play

from interpreter.errors import RulecraftError
from interpreter.game.api import load_ruleset
from interpreter.game.play import SampledGame

SLOW = ("jugger", "rear-ram")   # a Jugger game takes about a second, juggerball told ten


def game(rules, scenario, seed, record):
    """What a game leaves: its end, its units and dice, its transcript; or its error."""
    try:
        result = rules.play(scenario, seed, record=record)
    except RulecraftError as err:
        return "error", str(err)
    world = result.world
    return (result.winner, result.turns, result.reason, result.survivors, result.scores,
            [(u.uid, u.fields, [(s.name, s.turns_left) for s in u.statuses])
             for u in world.units.values()],
            result.events, world.rng.getstate())


@pytest.mark.parametrize("path,scenario", list(scenarios_to_play()))
def test_a_sampled_game_is_the_game_of_the_general_turn_loop(path, scenario, monkeypatch):
    rules = load_ruleset(ROOT / path)
    slow = any(s in path for s in SLOW)
    seeds = range(1, 2) if slow else range(1, 6)
    for record in (False,) if slow and scenario == "juggerball" else (True, False):
        for seed in seeds:
            fast = game(rules, scenario, seed, record)
            with monkeypatch.context() as patch:
                patch.setattr(SampledGame, "one_world", False)   # the general loop
                general = game(rules, scenario, seed, record)
            assert fast == general, (path, scenario, seed, record)
