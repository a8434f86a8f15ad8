"""Use counts: "once per turn" abilities and per-weapon uses, reset by the turn
structure.  A count belongs to (unit, key, period): `per="turn"` counts within the
current turn, `per="phase"` within the current phase of the current turn, `per="game"`
for the whole game, and `per=N` (a whole number of turns: a cooldown) within this turn
and the N - 1 before it, so "once every 3 turns" (Jugger's cauldron) is `limit=1` with
`per=3`: used in turn 2, usable again in turn 5.  A count whose period has passed reads
0, so no bookkeeping step has to reset it, and branches of exact odds carry their
counts with their world."""
from __future__ import annotations

from ..errors import EvalError
from ..expr.values import describe
from .freezing import freeze
from .world import Unit, World

PERIODS = ("turn", "phase", "game")


def _period(world: World, per, loc):
    if per == "turn":
        return world.turn
    if per == "phase":
        return (world.turn, world.phase)
    if per == "game":
        return 0
    if type(per) is int and per >= 1:
        return None        # a cooldown: the turns of its uses are kept (_recent)
    raise EvalError(f"per= is \"turn\", \"phase\", \"game\" or a whole number of turns "
                    f"(at least 1), not {describe(per)}", loc)


def _slot(world: World, loc, unit, key, per):
    if type(unit) is not Unit or world.units.get(unit.uid) is not unit:
        unit = world.unit(unit, loc)
    return unit, (unit.uid, freeze(key), per), _period(world, per, loc)


def _recent(world: World, held, turns: int) -> list:
    """The turns of a cooldown's uses that fall in this turn or the `turns` - 1 before."""
    return [t for t in held or () if t > world.turn - turns]


def _count(world: World, held, per, period) -> int:
    if period is None:
        return len(_recent(world, held, per))
    return held[1] if held is not None and held[0] == period else 0


def _period_text(per) -> str:
    return f"this {per}" if isinstance(per, str) else \
        "this turn" if per == 1 else f"in the last {per} turns"


def uses(world: World, ctx, loc, unit, key, per="turn") -> int:
    """How many times `unit` has used `key` (an ability's name, a weapon) this period."""
    unit, slot, period = _slot(world, loc, unit, key, per)
    return _count(world, world.uses.get(slot), per, period)


def use(world: World, ctx, loc, unit, key, per="turn", limit=None) -> int:
    """Count one use; with `limit=`, a use past the limit is an error (the rule should
    have tested `uses(...) < limit` first), never a silent extra use."""
    unit, slot, period = _slot(world, loc, unit, key, per)
    held = world.uses.get(slot)
    count = _count(world, held, per, period)
    if limit is not None and count >= limit:
        label = key if isinstance(key, str) else describe(key)
        raise EvalError(f"{unit.name} has used {label} {count} time{'s' if count != 1 else ''} "
                        f"{_period_text(per)} already (limit {limit})", loc,
                        hint=f"test uses({unit.name}, ...) < {limit} before use()")
    world.uses[slot] = [*_recent(world, held, per), world.turn] if period is None \
        else [period, count + 1]
    if world.record:
        label = key if isinstance(key, str) else describe(key)
        world.log("use", f"{unit.name} uses {label} ({count + 1} {_period_text(per)})",
                  unit=unit.name, uses=count + 1)
    return count + 1
