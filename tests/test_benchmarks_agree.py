"""The whole-game floor of the benchmarks (benchmarks/hand_written_game.py, one tanks game
of the `default` scenario hand-written in plain Python) is the same game as the
interpreter's: for each seed, the same final state - winner, last turn, survivors, every
vehicle's fields and statuses, every distance and the random generator's state (so the
same dice were drawn, in the same order) - and the same `simulate` summary.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import _internal  # noqa: E402
import hand_written_game as hand  # noqa: E402


@pytest.fixture(scope="module")
def tanks():
    return _internal.load_ruleset(ROOT / "rules" / "tanks" / "tanks.yaml")


# seed 1 is the golden transcript's game (axis wins in turn 12); 5 an allied win in turn
# 5; 10 a game to the turn limit in which two vehicles lose both their weapons
@pytest.mark.parametrize("seed, winner, turns", [(1, "axis", 12), (5, "allies", 5),
                                                  (10, None, 12)])
def test_hand_written_game_is_the_interpreters_game(tanks, seed, winner, turns):
    ours = _internal.final_state(tanks.play(None, seed, record=False))
    floor = hand.final_state(*hand.play(seed))
    assert (floor["winner"], floor["turns"]) == (winner, turns)
    assert floor == ours


def test_hand_written_game_recorded_play_agrees(tanks):
    """The transcript path (`play`, record=True) ends in the same state too."""
    recorded = _internal.final_state(tanks.play(None, 1, record=True))
    assert recorded == hand.final_state(*hand.play(1))


def test_hand_written_simulate_is_simulate(tanks):
    summary = _internal.simulate(tanks, None, 40, 11)
    wins, turns, survivors = hand.simulate(40, 11)
    assert (dict(summary.wins), dict(summary.turns), summary.survivors) == (wins, turns, survivors)


@pytest.mark.parametrize("seed, index", [(1, 0), (1, 39), (123, 7)])
def test_game_seed_derivation_copied(seed, index):
    assert hand.game_seed(seed, index) == _internal.game_seed(seed, index)


@pytest.mark.parametrize("side", ["no-list-checks", "no-budget", "neither"])
def test_the_what_if_takes_checks_out_and_plays_the_same_games(side):
    """benchmarks/games_what_if.py measures something: its rewrites still find the checks
    in the generated code, and the games stay the hand-written game's (it says NOT THE
    SAME GAMES, or that nothing was taken out, and fails otherwise)."""
    import subprocess
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "games_what_if.py"),
                          "--one", side, "--games", "20", "--rounds", "1"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr + out.stdout
    taken, ratio = out.stdout.split()
    assert int(taken) > 0 and float(ratio) > 0
