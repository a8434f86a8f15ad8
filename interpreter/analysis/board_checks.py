"""Semantic checks of the map, the statuses' own counters and the reaction points:
what a rule names there must exist, found by `validate` and not when a game reaches it.

- a scenario's `terrain:` and a `set_terrain(hex, "name")` name a terrain kind the space
  declares (when it declares any);
- a reaction's `at:` is `move` or a point some `react("name", ...)` offers;
- a trigger does not assign `status.name` (a status's name is what it is; its
  `turns_left` and its own values may be assigned);
- a scenario's objects are of declared kinds;
- `use` / `uses` count `per=` "turn", "phase", "game" or a whole number of turns.
"""
from __future__ import annotations

from ..errors import Finding
from ..lang.ast import Bool, Call, Num, Text, walk
from ..lang.steps import AssignStep, all_steps, statements_of
from ..source.nodes import MapNode
from ..state.usage import PERIODS
from ..suggest import did_you_mean


def _all_step_lists(ruleset):
    for proc in ruleset.procedures.values():
        yield proc.steps
    for status in ruleset.statuses.values():
        yield from status.on.values()
    turn = ruleset.turn
    if turn is not None:
        yield turn.start_of_turn
        yield turn.end_of_turn
        for phase in turn.phases:
            yield phase.steps
        for reaction in turn.reactions:
            yield reaction.steps
    for *_, steps in ruleset.cell_steps:
        yield steps


def _calls(ruleset, name: str):
    for steps in _all_step_lists(ruleset):
        for tree in statements_of(steps):
            for node in walk(tree):
                if isinstance(node, Call) and node.func == name:
                    yield node


def _terrain_kinds(ruleset) -> set | None:
    kinds = (getattr(ruleset, "space_rules", None) or {}).get("terrain")
    return None if kinds is None else set(kinds) | {"clear"}


def check_terrain(ruleset) -> list[Finding]:
    kinds = _terrain_kinds(ruleset)
    if kinds is None:
        return []
    out = []
    scenarios = ruleset.document.get("scenarios")
    for name, scenario in (scenarios.items() if isinstance(scenarios, MapNode) else []):
        terrain = scenario.get("terrain") if isinstance(scenario, MapNode) else None
        for key, value in (terrain.items() if isinstance(terrain, MapNode) else []):
            if value.to_plain() not in kinds:
                out.append(Finding("error", "unknown-name", f"scenario {name!r}: hex {key} has the "
                                   f"terrain {value.to_plain()!r}, which space.terrain does not "
                                   f"declare", value.location, did_you_mean(str(value.to_plain()), kinds)))
    if "set_terrain" not in ruleset.procedures:
        for call in _calls(ruleset, "set_terrain"):
            if len(call.args) >= 2 and isinstance(call.args[1], Text) and call.args[1].value not in kinds:
                out.append(Finding("error", "unknown-name", f"unknown terrain {call.args[1].value!r}",
                                   call.args[1].loc, did_you_mean(call.args[1].value, kinds)))
    return out


def check_reaction_points(ruleset) -> list[Finding]:
    turn = ruleset.turn
    if turn is None or not turn.reactions:
        return []
    offered = {"move"} | {c.args[0].value for c in _calls(ruleset, "react")
                          if c.args and isinstance(c.args[0], Text)}
    out = []
    items = ruleset.document.get("turn").get("reactions")
    for reaction, node in zip(turn.reactions, items or []):
        if reaction.at not in offered:
            where = node.get("at").location if isinstance(node, MapNode) and node.get("at") is not None \
                else node.location
            out.append(Finding("error", "unknown-name", f"reaction {reaction.name!r} is offered at "
                               f"{reaction.at!r}, which no react(\"{reaction.at}\", ...) offers",
                               where, did_you_mean(reaction.at, offered) or
                               "`at: move` is every hex entered; other points are offered by react()"))
    return out


def check_status_counters(ruleset) -> list[Finding]:
    out = []
    for status in ruleset.statuses.values():
        for steps in status.on.values():
            for step in all_steps(steps):
                if isinstance(step, AssignStep) and len(step.path) == 2 and \
                        step.path[0] == "status" and step.path[1] == "name":
                    out.append(Finding("error", "assign-value", "status.name cannot be assigned",
                                       step.loc, "remove(holder, status) and apply() another"))
    return out


def check_objects(ruleset) -> list[Finding]:
    out = []
    scenarios = ruleset.document.get("scenarios")
    for name, scenario in (scenarios.items() if isinstance(scenarios, MapNode) else []):
        objects = scenario.get("objects") if isinstance(scenario, MapNode) else None
        for thing, spec in (objects.items() if isinstance(objects, MapNode) else []):
            kind = spec.get("kind") if isinstance(spec, MapNode) else None
            if kind is not None and kind.to_plain() not in ruleset.kinds:
                out.append(Finding("error", "unknown-name", f"scenario {name!r}: object {thing!r} is "
                                   f"of the unknown kind {kind.to_plain()!r}", kind.location,
                                   did_you_mean(str(kind.to_plain()), ruleset.kinds)))
    return out


def check_use_periods(ruleset) -> list[Finding]:
    out = []
    for func in ("use", "uses"):
        if func in ruleset.procedures:
            continue
        for call in _calls(ruleset, func):
            for key, value in call.kwargs:
                if key == "per" and isinstance(value, Text) and value.value not in PERIODS:
                    out.append(Finding("error", "unknown-name", f"{func}() counts per \"turn\", "
                                       f"\"phase\", \"game\" or a number of turns, not "
                                       f"{value.value!r}", value.loc,
                                       did_you_mean(value.value, PERIODS)))
                elif key == "per" and isinstance(value, (Num, Bool)) and \
                        (type(value.value) is not int or value.value < 1):
                    out.append(Finding("error", "type", f"{func}(): a cooldown counts per a whole "
                                       f"number of turns (at least 1), not {value}", value.loc,
                                       "per=3: once every 3 turns with limit=1"))
    return out


def check_board(ruleset) -> list[Finding]:
    return (check_terrain(ruleset) + check_reaction_points(ruleset) + check_status_counters(ruleset)
            + check_objects(ruleset) + check_use_periods(ruleset))
