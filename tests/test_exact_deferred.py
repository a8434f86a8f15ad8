"""Calls left to the caller in exact odds (run/deferred.py): a call statement after
which the procedure no longer touches the game is made by the procedure's caller, so the
procedure is remembered by its own reads.  Exact results against brute force written out
here, and against the enumeration that makes every call where it is written."""
from __future__ import annotations

import functools
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.game.api import load_ruleset
from interpreter.run import deferred, exact

HERE = Path(__file__).parent
RULES = load_ruleset(HERE / "rulesets" / "exact_deferred.yaml")
CALLS = load_ruleset(HERE / "rulesets" / "exact_calls.yaml")
SCALE = load_ruleset(HERE / "rulesets" / "exact_scale.yaml")
NEXT = {"arm": "torso", "torso": "centre", "centre": None}
START = {"arm": (1, 2), "torso": (2, 2), "centre": (1, 3)}


def as_dict(dist) -> dict:
    return {v: dist.probability(v) for v in dist.values()}


def _add(into: dict, state, p) -> None:
    into[state] = into.get(state, 0) + p


def damage_by_hand(state, at, amount) -> dict:
    """damage() of exact_deferred.yaml as plain Python: every critical d6 walked, in the
    order the rule makes its calls (explosion first, then the transfer).  A state is
    (locations as ((name, armour, structure), ...), ammo)."""
    parts, ammo = dict((n, [a, s]) for n, a, s in state[0]), state[1]
    armour, structure = parts[at]
    to_armour = min(amount, armour)
    rest = amount - to_armour
    parts[at] = [armour - to_armour, structure]
    if rest <= 0:
        return {_state(parts, ammo): Fraction(1)}
    to_structure = min(rest, structure)
    parts[at] = [armour - to_armour, structure - to_structure]
    left = rest - to_structure
    out: dict = {}
    for critical in range(1, 7):
        now = {_state(parts, ammo): Fraction(1, 6)}
        if critical == 6 and ammo > 0:
            now = _then(_state(parts, 0), at, 2, Fraction(1, 6))
        if left > 0 and NEXT[at] is not None:
            now = {s2: p2 for s, p in now.items() for s2, p2 in _then(s, NEXT[at], left, p).items()}
        for s, p in now.items():
            _add(out, s, p)
    return out


def _then(state, at, amount, p) -> dict:
    return {s: p * q for s, q in damage_by_hand(state, at, amount).items()}


def _state(parts, ammo):
    return tuple((n, *parts[n]) for n in ("arm", "torso", "centre")), ammo


@functools.lru_cache(maxsize=None)
def volley_by_hand(shots: int) -> dict:
    """volley() of exact_deferred.yaml: a d6 location, d3 damage, `shots` times; the
    result as the procedure returns it."""
    states = {_state({n: list(v) for n, v in START.items()}, 1): Fraction(1)}
    for _ in range(shots):
        new: dict = {}
        for state, p in states.items():
            for where in range(1, 7):
                at = "arm" if where <= 2 else "torso" if where <= 5 else "centre"
                for amount in (1, 2, 3):
                    for s, q in damage_by_hand(state, at, amount).items():
                        _add(new, s, p * q * Fraction(1, 18))
        states = new
    out: dict = {}
    for (parts, ammo), p in states.items():
        (_, _, arm), (_, _, torso), (_, centre_armour, centre) = parts
        _add(out, (arm, torso, centre, centre_armour, ammo), p)
    return out


@pytest.fixture
def nothing_deferred(monkeypatch):
    """Every call made where it is written (the enumeration before deferred calls)."""
    monkeypatch.setattr(deferred, "after_call", lambda step: None)


@pytest.mark.parametrize("shots", [1, 2, 3])
def test_volley_with_deferred_calls_is_brute_force(shots):
    got = {tuple(v): p for v, p in as_dict(RULES.run_odds("volley", {"shots": str(shots)})
                                            .outcomes).items()}
    assert got == volley_by_hand(shots)


@pytest.mark.parametrize("rules, procedure, inputs", [
    (RULES, "volley", {"shots": "3"}),   # explosion then transfer, each left to the caller
    (RULES, "volley_read", {}),          # a field read after the call: made in place
    (RULES, "marked", {}),               # calls in a loop over a plain list
    (CALLS, "volley", {}),               # transfer between two parts (exact_calls.yaml)
    (CALLS, "dazed_volley", {}),         # a status given inside a call
    (SCALE, "ammo_after", {"amount": "7"}),
    (SCALE, "exploding", {}),            # a self-call bound with let: never deferred
])
def test_deferred_calls_equal_calls_made_in_place(rules, procedure, inputs, monkeypatch):
    deferred_odds = rules.run_odds(procedure, inputs)
    monkeypatch.setattr(deferred, "after_call", lambda step: None)
    in_place = rules.run_odds(procedure, inputs)
    assert as_dict(deferred_odds.outcomes) == as_dict(in_place.outcomes)
    assert deferred_odds.capped == in_place.capped


@pytest.mark.parametrize("procedure, deferred_calls", [
    ("volley", True),        # damage(): nothing after the transfer touches the game
    ("volley_read", False),  # damage_then_read() returns a field read after its call
    ("marked", True),        # mark_all(): the loop reads a plain list only
])
def test_which_calls_are_left_to_the_caller(procedure, deferred_calls, monkeypatch):
    seen = []
    real = exact._defer

    def spy(call, target, b, out):
        seen.append(call.func)
        return real(call, target, b, out)
    monkeypatch.setattr(exact, "_defer", spy)
    RULES.run_odds(procedure)
    assert bool(seen) == deferred_calls


def test_a_deferred_call_keeps_the_call_depth_limit():
    """A self-call left to the caller still counts its depth: the one that never ends
    is refused as in a sampled run, not looped forever."""
    from interpreter.errors import RulecraftError
    with pytest.raises(RulecraftError, match="deep"):
        RULES.run_odds("endless")
