"""Semantic checks of the map, the statuses' own counters and the reaction points:
what a rule names there must exist, found by `validate` and not when a game reaches it.

- a scenario's `terrain:` and a `set_terrain(hex, "name")` name a terrain kind the space
  declares (when it declares any), a hex's own values (the scenario's, or the keywords
  of `set_terrain`) are ones some kind declares, and
  the scenario's hexes (terrain, positions, objects) are on its `map:` when it has one;
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
from ..state.board import declared_values, hex_key, hex_terrain, map_extent, nearest_on_map, on_map
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


def _known_values(ruleset) -> set:
    return declared_values((getattr(ruleset, "space_rules", None) or {}).get("terrain"))


def _declare_hint(field: str) -> str:
    return f"declare it in space.terrain (a value of clear hexes: clear: {{values: {{{field}: 0}}}})"


def _hex_findings(scenario_name, key, where, extent, what) -> list[Finding]:
    at = hex_key(key)
    if at is None:
        return [Finding("error", "hex-key", f"scenario {scenario_name!r}: {what} is keyed by "
                        f"\"q,r\", not {key!r}", where, "e.g. \"3,-1\"")]
    if not on_map(extent, *at):
        (q_lo, q_hi), (r_lo, r_hi) = extent
        near = nearest_on_map(extent, *at)
        return [Finding("error", "off-map", f"scenario {scenario_name!r}: {what} {at[0]},{at[1]} is "
                        f"off the map (q {q_lo}..{q_hi}, r {r_lo}..{r_hi})", where,
                        f"did you mean '{near[0]},{near[1]}'?")]
    return []


def _position_key(value) -> str | None:
    if isinstance(value, (list, tuple)) and len(value) >= 2:
        return f"{value[0]},{value[1]}"
    if isinstance(value, dict) and "q" in value and "r" in value:
        return f"{value['q']},{value['r']}"
    return None


def check_terrain(ruleset) -> list[Finding]:
    """Scenario hexes: keys that read as "q,r", on the scenario's `map:` when it has one
    (terrain, unit positions, objects' places), terrain names the space declares, and
    a hex's own values that some terrain kind declares."""
    kinds = _terrain_kinds(ruleset)
    known = _known_values(ruleset)
    out = []
    scenarios = ruleset.document.get("scenarios")
    for name, scenario in (scenarios.items() if isinstance(scenarios, MapNode) else []):
        if not isinstance(scenario, MapNode):
            continue
        extent = map_extent(scenario.get("map").to_plain()) \
            if isinstance(scenario.get("map"), MapNode) else None
        terrain = scenario.get("terrain")
        for key, value in (terrain.items() if isinstance(terrain, MapNode) else []):
            out += _hex_findings(name, key, terrain.key_location(key), extent, "hex")
            kind, values = hex_terrain(value.to_plain())
            if kinds is None:
                continue
            named = value.get("terrain") if isinstance(value, MapNode) else value
            if kind not in kinds:
                out.append(Finding("error", "unknown-name", f"scenario {name!r}: hex {key} has the "
                                   f"terrain {kind!r}, which space.terrain does not declare",
                                   named.location if named is not None else value.location,
                                   did_you_mean(kind, kinds)))
            for field in values:
                if field not in known:
                    out.append(Finding("error", "unknown-field", f"scenario {name!r}: hex {key} is "
                                       f"given {field!r}, which no terrain kind declares",
                                       value.key_location(field), did_you_mean(field, known) or
                                       _declare_hint(field)))
        if extent is None:
            continue
        positions = scenario.get("positions")
        for unit, where in (positions.items() if isinstance(positions, MapNode) else []):
            key = _position_key(where.to_plain())
            if key is not None:
                out += _hex_findings(name, key, where.location, extent, f"{unit}'s position")
        objects = scenario.get("objects")
        for thing, spec in (objects.items() if isinstance(objects, MapNode) else []):
            at = spec.get("at") if isinstance(spec, MapNode) else None
            key = _position_key(at.to_plain()) if at is not None else None
            if key is not None:
                out += _hex_findings(name, key, at.location, extent, f"{thing}'s place")
    if "set_terrain" not in ruleset.procedures:
        for call in _calls(ruleset, "set_terrain"):
            if kinds is not None and len(call.args) >= 2 and isinstance(call.args[1], Text) \
                    and call.args[1].value not in kinds:
                out.append(Finding("error", "unknown-name", f"unknown terrain {call.args[1].value!r}",
                                   call.args[1].loc, did_you_mean(call.args[1].value, kinds)))
            for key, value in call.kwargs:
                if key not in known:
                    out.append(Finding("error", "unknown-field", f"set_terrain() gives the hex "
                                       f"{key!r}, which no terrain kind declares", value.loc,
                                       did_you_mean(key, known) or _declare_hint(key)))
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
