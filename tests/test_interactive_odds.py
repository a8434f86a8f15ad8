"""The exact odds beside each option at `play --interactive`'s prompt (issue #18):
counted over the steps that follow the choice on a copy of the game (game/choice_odds.py),
worded by render/prompt.py.  Odds derived by hand, the same numbers as `run --odds` of
the option's procedure, the game left as it was, and the cases where the odds cannot be
counted (a later choice of the person's, too many states, out of time)."""
from __future__ import annotations

import textwrap
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.dice.distribution import Distribution
from interpreter.game.api import load_ruleset
from interpreter.game.choice_odds import CallOdds, OptionOdds, option_odds
from interpreter.game.policies import option_text
from interpreter.render.prompt import odds_text, outcomes_text, percent

ROOT = Path(__file__).parent.parent
DUEL = ROOT / "tests" / "rulesets" / "duel.yaml"


class Stop(Exception):
    pass


def asked(ruleset, side: str, wanted: str | None = None, seed: int = 1, **counting):
    """The odds of the options of the first choice (of `wanted`, if given) the person
    playing `side` is asked, and the game's state before and after counting them."""
    seen = {}   # (with seed 2 the person of `later` below lives to be asked)

    def prompt(step, options, who, frame):
        if wanted is not None and step.var != wanted:
            return options[0]
        before = frame.world.snapshot()
        seen["odds"] = list(option_odds(ruleset, step, options, frame, **counting))
        seen["same"] = frame.world.snapshot() == before
        raise Stop

    with pytest.raises(Stop):
        ruleset.play(None, seed, prompt=prompt, ask=(side,))
    return seen


def weights(dist) -> dict:
    return {v: Fraction(w, dist.total) for v, w in dist.items()}


# ------------------------------------------------------------------ counted by hand


def test_a_duel_attack_option_shows_the_attack_s_exact_outcomes_and_the_chance_to_destroy():
    """Blue (to_hit 7, damage 2) attacks: need = 7 + 0 + (2 - 1) = 8 on a d10, so a hit
    is 8, 9 or 10 (3/10; a natural 1 always misses).  Damage d10 + 2 >= armour 5 (a 3 or
    more, 8/10) kills; so kill 3/10 * 8/10 = 24/100, hit (and shaken) 6/100, miss 7/10."""
    rules = load_ruleset(DUEL)
    seen = asked(rules, "blue")
    assert seen["same"], "counting the odds does not change the game"
    assert [option_text(o.option) for o in seen["odds"]] == ["Red 1", "Red 2"]
    for odds in seen["odds"]:
        assert odds.why_not is None
        [call] = odds.calls
        assert call.procedure == "attack" and call.called == 1
        assert weights(call.results) == {"miss": Fraction(7, 10), "hit": Fraction(6, 100),
                                         "kill": Fraction(24, 100)}
        assert odds.destroyed == [(odds.option.name, Fraction(24, 100))]


def test_the_option_s_odds_are_run_odds_of_its_procedure():
    """One meaning: the prompt's numbers are `run attack --odds` with the same units."""
    rules = load_ruleset(DUEL)
    [first, _] = asked(rules, "blue")["odds"]
    alone = rules.run_odds("attack", {"attacker.damage": "2"})
    assert weights(first.calls[0].results) == weights(alone.outcomes)


LATER = """\
    ruleset: later
    title: A later choice
    source: none
    kinds:
      fighter:
        stats: {armour: 4}
        state: {blows: 0}
    procedures:
      strike:
        params:
          attacker: {type: unit, kind: fighter}
          target: {type: unit, kind: fighter}
        steps:
          - choose: how
            from: '["wild", "aimed"]'
            by: attacker
            %s
          - let roll = d6
          - target.blows += 1
          - if: (how == "aimed" and roll >= 3) or roll >= 5
            then: ['destroy(target)', 'return "kill"']
          - return "miss"
        outcomes: [kill, miss]
    turn:
      initiative: {roll: d6, per: side, order: highest_first, ties: reroll}
      phases:
        - name: fight
          each: unit
          steps:
            - choose: foe
              from: enemies(unit)
            - if: count(enemies(unit)) > 0
              then: ['strike(unit, foe)']
      victory:
        - when: count_alive(side) > 0 and count(enemies(side)) == 0
      max_turns: 5
    scenarios:
      default:
        sides:
          a: {policy: first, units: [{kind: fighter, name: A}]}
          b: {policy: first, units: [{kind: fighter, name: B, count: 2}]}
    """


def later(tmp_path, prefer: str = "") -> object:
    path = tmp_path / "later.yaml"
    path.write_text(textwrap.dedent(LATER) % prefer)
    return load_ruleset(path)


def test_a_later_choice_of_the_person_without_prefer_is_said_not_guessed(tmp_path):
    seen = asked(later(tmp_path), "a", "foe", seed=2)
    assert [o.why_not for o in seen["odds"]] == ["a later choice of yours decides"] * 2


def test_a_later_choice_with_prefer_is_taken_as_the_rules_prefer_and_says_so(tmp_path):
    """`prefer` picks "aimed": a kill on 3+ of a d6, 4/6."""
    rules = later(tmp_path, "prefer: 'if option == \"aimed\" then 1 else 0'")
    seen = asked(rules, "a", "foe", seed=2)
    for odds in seen["odds"]:
        assert odds.prefer_later and odds.why_not is None
        assert weights(odds.calls[0].results) == {"kill": Fraction(2, 3), "miss": Fraction(1, 3)}
        assert odds.changes == [("blows", Fraction(1))]
    assert "(your later choices as the rules prefer)" in odds_text(seen["odds"][0])


@pytest.mark.parametrize("how,kill", [("wild", Fraction(1, 3)), ("aimed", Fraction(2, 3))])
def test_a_choice_inside_a_procedure_shows_the_procedure_s_result(tmp_path, how, kill):
    """The steps after `choose how` reach `strike`'s return: its result is the odds."""
    seen = asked(later(tmp_path), "a", "how", seed=2)
    odds = {o.option: o for o in seen["odds"]}[how]
    assert weights(odds.result) == {"kill": kill, "miss": 1 - kill}
    assert odds.order == ["kill", "miss"]
    assert odds_text(odds).startswith("destroyed B 1 ") and "result: kill" in odds_text(odds)


def test_too_many_states_says_so(tmp_path, monkeypatch):
    import interpreter.run.frames as frames
    monkeypatch.setattr(frames, "MAX_BRANCHES", 1)
    seen = asked(load_ruleset(DUEL), "blue")
    assert [o.why_not for o in seen["odds"]] == ["too many outcomes to count"] * 2


def test_past_the_time_it_may_take_an_option_says_so_instead_of_waiting():
    seen = asked(load_ruleset(DUEL), "blue", total=0)
    assert [o.why_not for o in seen["odds"]] == ["out of time"] * 2


SLOW = """\
    ruleset: slow
    title: Many states
    source: none
    kinds:
      fighter:
        stats: {armour: 4}
        state: {marks: []}
    procedures:
      mark:
        params:
          target: {type: unit, kind: fighter}
        steps:
          - target.marks = [190d10kh97]
    turn:
      phases:
        - name: mark
          each: unit
          steps:
            - choose: foe
              from: enemies(unit)
            - mark(foe)
      max_turns: 1
    scenarios:
      default:
        sides:
          a: {policy: first, units: [{kind: fighter, name: A}]}
          b: {policy: first, units: [{kind: fighter, name: B, count: 2}]}
    """


def test_a_slow_count_is_stopped_by_the_processor_timer(tmp_path):
    """One step whose dice take about a second to count (190d10kh97): no state or step
    limit is near, so only the timer can stop it, long before it ends (and no other test
    counts these dice, so no cache answers)."""
    path = tmp_path / "slow.yaml"
    path.write_text(textwrap.dedent(SLOW))
    seen = asked(load_ruleset(path), "a", seconds=0.05)
    assert [o.why_not for o in seen["odds"]] == ["too slow to count"] * 2
    assert seen["same"]


# ------------------------------------------------------------------------ wording


def dist(pairs: dict) -> Distribution:
    return Distribution.from_weights(pairs)


@pytest.mark.parametrize("p,text", [
    (Fraction(24, 100), "24%"), (Fraction(6, 100), "6%"), (Fraction(1, 16), "6.2%"),
    (Fraction(1, 3), "33%"), (Fraction(1), "100%"), (Fraction(0), "0%"),
    (Fraction(1, 10_000), "<0.1%"), (Fraction(9999, 10_000), ">99.9%"),
    (Fraction(9995, 10_000), ">99.9%"),
])
def test_a_chance_reads_as_a_short_percentage(p, text):
    assert percent(p) == text


@pytest.mark.parametrize("weights_,order,text", [
    ({"miss": 70, "hit": 6, "kill": 24}, ["miss", "hit", "kill"], "miss 70%, hit 6%, kill 24%"),
    ({"miss": 70, "hit": 6, "kill": 24}, ["kill", "hit", "miss"], "kill 24%, hit 6%, miss 70%"),
    ({"kill": 1}, [], "kill"),
    ({True: 1, False: 3}, [], "false 75%, true 25%"),
    ({n: 1 for n in range(1, 11)}, [], "average 5.5 (1 to 10)"),
    ({"a": 40, "b": 30, "c": 10, "d": 8, "e": 7, "f": 5}, ["a", "b", "c", "d", "e", "f"],
     "a 40%, b 30%, c 10%, d 8%, 2 others 12%"),
])
def test_outcomes_read_in_the_declared_order_and_stay_short(weights_, order, text):
    assert outcomes_text(dist(weights_), order) == text


ATTACK = CallOdds("attack", dist({"miss": 70, "hit": 6, "kill": 24}), Fraction(1),
                  ["miss", "hit", "kill"])


class _Named:
    def __init__(self, name):
        self.name = name


@pytest.mark.parametrize("odds,text", [
    (OptionOdds(_Named("Red 1"), calls=[ATTACK], destroyed=[("Red 1", Fraction(24, 100))]),
     "attack: miss 70%, hit 6%, kill 24%; destroyed 24%"),
    (OptionOdds(_Named("Red 1"), calls=[CallOdds("attack", ATTACK.results, Fraction(1, 2))]),
     "attack (50% of the time): hit 6%, kill 24%, miss 70%"),
    (OptionOdds(_Named("Red 1"), destroyed=[("Blue 1", Fraction(1, 10)), ("Red 1", Fraction(1, 5))]),
     "destroyed 20%, Blue 1 10%"),
    (OptionOdds(_Named("Red 1"), changes=[("armour.front", Fraction(-3, 2)), ("hits", Fraction(7, 10))]),
     "on average armour.front −1.5, hits +0.7"),
    (OptionOdds("move", calls=[CallOdds("advance", dist({None: 1}), Fraction(1))]), ""),
    (OptionOdds("move", why_not="a later choice of yours decides"),
     "odds: a later choice of yours decides"),
    (OptionOdds("move", result=dist({"panic": 1, "steady": 2}), order=["steady", "panic"],
                capped=Fraction(1, 100)),
     "result: steady 67%, panic 33% (1% stopped at a loop's max)"),
])
def test_an_option_s_odds_in_one_line(odds, text):
    assert odds_text(odds) == text
