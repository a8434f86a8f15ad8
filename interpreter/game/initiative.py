"""Initiative: the order in which sides (or units) act, as the ruleset declares it --
or the scenario, which may change any part of the turn's rule ("if it is a small battle
each jugger may roll for initiative": `scenarios.duel.initiative: {per: unit}`).

One definition for both ways of playing: `initiative_order` rolls it with the world's
dice for `play`, `initiative_odds` gives every order with its exact probability for
`odds-game`.  Both take the same steps, written once here: who rolls (`contenders`),
with which names bound (`roll_names`: the unit and its side, or the side, so that
`d20 + unit.piloting` adds each pilot's own skill), how ties are rerolled (at most
`rerolls` times, then the declared order), how the rolls rank (`ranked`), how the winner
chooses to go first or last (a `choose` point decided by the winner's side policy, with
the rule's `prefer:` score) and how a unit order becomes the order of sides."""
from __future__ import annotations

from fractions import Fraction

from ..expr.sampled import Context, compiled
from ..expr.values import json_value
from ..lang.steps import ChooseStep
from ..run.frames import Scope
from ..run.sampled import dice_text
from ..lang.ast import Dice, ListExpr, Text
from ..errors import Location
from .policies import Chooser


# The exact-odds modules' entry points, bound by `_load_exact` where an enumeration
# first needs them (a sampled game never loads those modules; a function-level import
# would cost about a microsecond on every call of these hot paths).
exact = explore_steps = None


def _load_exact() -> None:
    global exact, explore_steps
    from ..expr.exact import exact
    from ..run.exact import explore_steps

FIRST_OR_LAST = ("first", "last")
_CHOICE = "initiative_choice"   # the name the winner's choice is bound to while it is made
_STEPS: dict = {}               # id(Initiative) -> (its ChooseStep, the Initiative held)


def rule_of(ruleset, world):
    """The initiative rule this game follows: the scenario's own, else the turn's."""
    if world.initiative is not None:
        return world.initiative
    return ruleset.turn.initiative if ruleset.turn else None


def rolled_now(ruleset, world, first_turn: bool) -> bool:
    """Whether initiative is rolled at the start of this turn: on the first, and on every
    turn for `when: turn`."""
    rule = rule_of(ruleset, world)
    return first_turn or (rule is not None and rule.when == "turn")


def contenders(rule, world) -> list[str]:
    """Who rolls: every side by name, or (`per: unit`) every unit still in the game."""
    if rule.per == "unit":
        return [u.uid for u in world.units.values() if u.alive]
    return list(world.sides)


def roll_names(rule, world, who: str) -> dict:
    """The names a contender's roll (and the winner's `prefer`) reads: the game's names,
    `side`, and with `per: unit` the `unit`."""
    names = {"turn": world.turn, "sides": list(world.sides.values()),
             "units": [u for u in world.units.values() if u.alive]}
    if rule.per == "unit":
        unit = world.units[who]
        names.update(unit=unit, side=world.sides.get(unit.side))
    else:
        names["side"] = world.sides[who]
    return names


def tied(who: list, rolls: dict) -> list:
    """The contenders whose roll another contender also rolled."""
    values = [rolls[w] for w in who]
    return [w for w in who if values.count(rolls[w]) > 1]


def ranked(who: list, rolls: dict) -> list:
    """Highest roll first; equal rolls (ties kept) in the declared order."""
    return sorted(who, key=lambda w: (-rolls[w], who.index(w)))


def winner_and_rest(rule, ranking: list):
    """(the winner who chooses, the others in their order), or (None, the final order)
    when nobody chooses."""
    if rule.order == "lowest_first":
        return None, list(reversed(ranking))
    if rule.order not in ("winner_chooses", "winner_chooses_rest_lowest"):
        return None, list(ranking)
    rest = list(ranking[1:])
    if rule.order == "winner_chooses_rest_lowest":
        rest.reverse()
    return ranking[0], rest


def with_choice(winner, rest: list, choice: str) -> list:
    return [winner] + rest if choice == "first" else rest + [winner]


def side_order(world, order: list, per_unit: bool) -> list[str]:
    """The sides in the order they act: for `per: unit`, in the order of their first
    unit, then any side with no unit left in the declared order."""
    if not per_unit:
        return list(order)
    sides: list = []
    for uid in order:
        side = world.units[uid].side
        if side not in sides:
            sides.append(side)
    return sides + [n for n in world.sides if n not in sides]


CHOICES = '["first", "last"]'


def choice_options(base: Location | None) -> ListExpr:
    """The tree `parse_expression(CHOICES, base)` gives, positions included, built
    without the parser: a game whose rules are read back parsed from the cache then
    loads no grammar at all (tests/test_rules_cache_startup.py holds the two equal)."""
    if base is None:
        base = Location("<expr>", 1, 1, source=CHOICES)
    source = base.source if base.source is not None else CHOICES

    def at(column: int, length: int) -> Location:
        return base.shifted(0, column, source=source, length=length)
    return ListExpr((Text("first", loc=at(2, 7)), Text("last", loc=at(11, 6))), loc=at(1, 17))


def choice_step(rule) -> ChooseStep:
    """The winner's choice as a `choose` point: "first" or "last", by the winner's side
    (the policy decides: prefer scores with the rule's `prefer:`, random tosses, script
    answers, ask asks the person), the same point in play and in exact odds."""
    held = _STEPS.get(id(rule))
    if held is None or held[1] is not rule:
        options = choice_options(rule.loc)
        held = _STEPS[id(rule)] = (ChooseStep(_CHOICE, options, None, rule.prefer, rule.loc,
                                              "to go first or last"), rule)
    return held[0]


# ------------------------------------------------------------------------ play


def initiative_order(ruleset, world) -> list[str]:
    """Sides in the order they act this turn, rolled with the world's dice (and, for
    `per: unit`, `world.unit_order`: the units in the order they act).

    Each contender's roll is the rule's `roll` with its names bound; tied contenders
    roll again (`ties: reroll`, at most `rerolls` times) or keep the declared order
    (`keep`).  Orders: highest_first, lowest_first, winner_chooses (the highest chooses
    to go first or last, the rest highest first) and winner_chooses_rest_lowest (the rest
    lowest first)."""
    names = list(world.sides)
    rule = rule_of(ruleset, world)
    world.unit_order = None
    if rule is None or rule.roll is None:
        return names
    roll = compiled(rule.roll, True)
    per_unit = rule.per == "unit"
    who = contenders(rule, world)
    if len(who) < 2:
        return names
    rolls: dict = {}
    shown: dict = {}
    rolling = who
    for round_ in range(rule.rerolls + 1):
        for w in rolling:
            records: list = []
            ctx = Context(Scope(roll_names(rule, world, w), ruleset.globals), world.rng,
                          records, world)
            rolls[w] = roll(ctx)
            if world.record:   # (the transcript's text, made only for one)
                shown[w] = _shown(rule, rolls[w], records)
        if rule.ties != "reroll" or round_ == rule.rerolls:
            break
        rolling = tied(who, rolls)
        if not rolling:
            break
        if world.record:
            world.log("initiative", "tie: " + ", ".join(f"{_who(world, w)} {shown[w]}"
                                                        for w in rolling) + " — reroll")
    ranking = ranked(who, rolls)
    if world.record:
        world.log("initiative", "rolls: " + ", ".join(f"{_who(world, w)} {shown[w]}"
                                                      for w in ranking),
                  rolls={_who(world, w): json_value(rolls[w]) for w in who})
    winner, order = winner_and_rest(rule, ranking)
    if winner is not None:
        choice = _chosen(ruleset, world, rule, winner)
        if world.record:
            world.log("initiative", f"{_who(world, winner)} chooses to go {choice}")
        order = with_choice(winner, order, choice)
    if per_unit:
        world.unit_order = order
    return side_order(world, order, per_unit)


def _chosen(ruleset, world, rule, winner) -> str:
    chooser = world.chooser if world.chooser is not None else Chooser(world, {})
    names = roll_names(rule, world, winner)
    choice, _how = chooser.pick(choice_step(rule), list(FIRST_OR_LAST), names["side"], None,
                                Scope(names, ruleset.globals, world))
    return choice


def _shown(rule, value, records) -> str:
    """A roll as the transcript gives it: the value, and the dice behind it when the roll
    is more than one dice term (`14 (d20 [13])` for `d20 + unit.piloting`)."""
    dice = [r for r in records if hasattr(r, "dice")]
    if isinstance(rule.roll, Dice) or not dice:
        return f"{value}"
    return f"{value} ({dice_text(dice)})"


def _who(world, key) -> str:
    unit = world.units.get(key)
    return unit.name if unit is not None and key not in world.sides else key


# ------------------------------------------------------------------ exact odds


def initiative_odds(ruleset, branch, known: dict | None = None) -> list:
    """Every way this turn's initiative can come out from an exact-odds branch:
    [(child branch, sides in order, units in order or None)], the children's weights
    the probabilities of each order times the branch's.  The same steps as
    `initiative_order`: every roll and reroll of ties branched over, the winner's choice
    explored as the `choose` point it is.  `known` (a dict the caller keeps across
    states) remembers the rankings of each set of roll distributions: they depend on
    nothing else, and a game's states mostly roll alike."""
    world = branch.world
    names = list(world.sides)
    rule = rule_of(ruleset, world)
    if rule is None or rule.roll is None or len(contenders(rule, world)) < 2:
        return [(branch, tuple(names), None)]
    who = contenders(rule, world)
    per_unit = rule.per == "unit"
    if exact is None:   # the exact-odds modules, loaded at first use
        _load_exact()
    dists = {w: exact(rule.roll, Scope(roll_names(rule, world, w), ruleset.globals, world))
             for w in who}
    out = []
    key = (id(rule), tuple(who), tuple(tuple((type(v), v, n) for v, n in dists[w].items())
                                   for w in who))
    rankings = known.get(key) if known is not None else None
    if rankings is None:
        rankings = _rankings(rule, dists, who, {}, who, 0, {})
        if known is not None:
            known[key] = rankings
    for ranking, p in rankings.items():
        winner, order = winner_and_rest(rule, list(ranking))
        if winner is None:
            chosen = [(branch.fork(p, False), order)]
        else:
            chosen = _choices(ruleset, branch, rule, winner, order, p)
        for child, final in chosen:
            out.append((child, tuple(side_order(world, final, per_unit)),
                        tuple(final) if per_unit else None))
    return out


def _choices(ruleset, branch, rule, winner, rest, p):
    """The winner's choice explored as a `choose` point on a child branch that binds the
    winner's names; the child's own names are given back afterwards."""
    child = branch.fork(p, False)
    kept = child.locals
    child.locals = roll_names(rule, child.world, winner)
    out = []
    if exact is None:   # the exact-odds modules, loaded at first use
        _load_exact()
    for end in explore_steps([choice_step(rule)], [child]):
        choice = end.locals[_CHOICE]
        end.locals = dict(kept)
        out.append((end, with_choice(winner, rest, choice)))
    return out


def _rankings(rule, dists: dict, who: list, rolls: dict, rolling: list, depth: int,
              memo: dict) -> dict:
    """{ranking: probability}: everyone in `rolling` rolls (each their own
    distribution); ties among the tied are rolled again, at most `rule.rerolls` times,
    then ranked highest first, ties in the declared order.

    Every level of rerolls goes over every combination of the rolls (400 for two d20s,
    at each of twenty levels), so a combination costs integers only: its weight over
    the level's common denominator (the rolls' totals multiplied), summed per ranking
    and divided once, and who ties and how the rolls rank looked up by the rolls
    themselves (`_ranked`), the same at every level.  The rankings keep the order in
    which a combination first reaches them."""
    key = (tuple(sorted((w, v) for w, v in rolls.items() if w not in rolling)),
           tuple(rolling), depth)
    if key in memo:
        return memo[key]
    whole = 1
    combos = [(1, ())]
    for w in rolling:
        d = dists[w]
        whole *= d.total
        items = d.items()
        combos = [(n * c, vals + (v,)) for n, vals in combos for v, c in items]
    rerolled = rule.ties == "reroll" and depth < rule.rerolls
    direct: dict = {}   # ranking -> weight over `whole` of the combinations ending there
    later: dict = {}    # ranking -> probability through the rerolls of ties
    order: dict = {}    # the rankings in the order they are first reached
    for n, values in combos:
        new = dict(rolls)
        new.update(zip(rolling, values))
        again, ranking = _ranked(who, new, memo)
        if not (rerolled and again):
            order[ranking] = None
            direct[ranking] = direct.get(ranking, 0) + n
            continue
        p = Fraction(n, whole)
        for ranking, q in _rankings(rule, dists, who, new, again, depth + 1, memo).items():
            order[ranking] = None
            later[ranking] = later.get(ranking, 0) + p * q
    result = {ranking: (Fraction(direct[ranking], whole) if ranking in direct else 0) +
              later.get(ranking, 0) for ranking in order}
    memo[key] = result
    return result


def _ranked(who: list, rolls: dict, memo: dict):
    """(who tied, the ranking) of these rolls, remembered in `memo` by the rolls."""
    key = ("ranked", tuple([rolls[w] for w in who]))
    found = memo.get(key)
    if found is None:
        found = memo[key] = (tied(who, rolls), tuple(ranked(who, rolls)))
    return found
