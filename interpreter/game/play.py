"""Playing a scenario: the world built from it, the initiative order as the ruleset
declares it, then turn after turn the start-of-turn steps and status triggers, each phase
for each side or unit in order, the end-of-turn bookkeeping and the victory conditions,
until one holds or the turn limit is reached.  Nothing here knows a rulebook."""
from __future__ import annotations

import random

from ..records import record, field
from typing import Any

from ..errors import RulecraftError, UsageError
from ..expr.rolling import make_rng
from ..expr.sampled import Context, compiled
from ..expr.values import json_value
from ..run.frames import Frame
from ..expr import budget
from ..run.sampled import run_steps
from ..state.board import CLEAR, hex_key, hex_terrain, map_extent
from ..state.space import parse_position
from ..state.world import Side, World, pair_key
from ..suggest import did_you_mean
from . import initiative
from .policies import Chooser
from .reactions import end_phase, place_objects, reactor_for
from .turns import play_turns
from .victory import memo_for
from .runs import chain_json, make_unit, row_fields, set_nested, started


# ------------------------------------------------------------------------- games


NO_WINNER = "no winner"
"""How a game that ends with no side winning (a turn limit, a victory condition giving
no winner or "draw") is named: in `play`'s last line and in `simulate`'s results alike.
(`GameResult.winner` and the JSON `winner` are then None / null.)"""


@record
class GameResult:
    """One game played: who won, why, after how many turns, and its transcript."""
    scenario: str
    seed: int
    winner: str | None
    turns: int
    reason: str
    survivors: dict
    scores: dict
    events: list = field(default_factory=list)
    world: Any = field(default=None, repr=False, compare=False)
    chain: list = field(default_factory=list)   # the rulesets, base first (set by Rules.play)

    def as_json(self) -> dict:
        return {"event": "result", "scenario": self.scenario, "seed": self.seed,
                "winner": self.winner, "turns": self.turns, "reason": self.reason,
                "survivors": self.survivors, "scores": self.scores, **chain_json(self.chain)}


def build_world(ruleset, scenario, rng, record: bool, rolled: list | None = None) -> World:
    """The scenario's world; `rolled` (a list, when given) receives the units whose
    starting values rolled dice, for exact odds to branch over (runs.start_branches)."""
    world = World(ruleset, rng, record)
    world.initiative = scenario.initiative   # the scenario's own rule, else the turn's
    rolled = [] if rolled is None else rolled   # units whose starting values rolled dice
    for side_name, side in scenario.sides.items():
        world.sides[side_name] = Side(side_name, side["policy"], world)
        for spec in side["units"]:
            count = spec.get("count", 1)
            for i in range(count):
                name = spec.get("name", spec["kind"])
                if count > 1:
                    name = f"{name} {i + 1}"
                overrides = {}
                if spec.get("_design") is not None:
                    row = compiled(spec["_design"])(Context(ruleset.globals, rng, None))
                    design = row_fields(row)
                    design.pop("name", None)   # the unit keeps its own name
                    overrides.update(design)
                    overrides.setdefault("design", str(getattr(row, "key", "") or spec["design"]))
                overrides.update(spec.get("stats", {}) or {})
                unit = make_unit(ruleset, spec["kind"], name, side_name, overrides,
                                 uid=_unique(world, name), loc=spec.get("_location"), rng=rng,
                                 rolled=rolled)
                for key, value in (spec.get("state") or {}).items():
                    set_nested(unit.fields, key, value, None)
                world.units[unit.uid] = unit
    world.default_distance = scenario.distance or 0
    for pair, value in scenario.distances.items():
        a, _, b = pair.partition("-")
        world.distances[pair_key(a.strip(), b.strip())] = value
    _place_units(world, scenario)
    place_objects(ruleset, world, scenario, make_unit, parse_position)
    started(world, rolled)
    return world


def start_world(ruleset, scenario, rng) -> World:
    """The scenario's world at the start of a game without a transcript: built once per
    ruleset and scenario and copied for every game (World.copy, the copy exact odds
    branch with), when building it rolls no dice -- then every game starts from the
    same world, and building it again for each of a simulation's games (the units made
    from their kinds and designs) was a twentieth of a game.  A scenario whose building
    rolls (a design or a starting value with dice) is built for each game with its dice."""
    cache = ruleset.__dict__.setdefault("_start_worlds", {})
    entry = cache.get(scenario.name)
    if entry is None or entry[0] is not scenario:
        probe = random.Random(0)
        before, rolled = probe.getstate(), []
        first = build_world(ruleset, scenario, probe, False, rolled)
        same = not rolled and probe.getstate() == before
        entry = cache[scenario.name] = (scenario, first if same else None)
    if entry[1] is None:
        return build_world(ruleset, scenario, rng, False)
    world = entry[1].copy()
    world.rng, world.measured = rng, {}
    return world


def _place_units(world, scenario) -> None:
    """Scenario positions (by unit name) and hex terrain ("q,r": name)."""
    for name, where in (scenario.positions or {}).items():
        unit = next((u for u in world.units.values() if u.name == name or u.uid == name), None)
        if unit is None:
            raise RulecraftError(f"scenario {scenario.name!r}: a position for {name!r}, which is "
                                 f"no unit of the scenario", scenario.location, code="unknown-name",
                                 hint=did_you_mean(name, [u.name for u in world.units.values()]))
        try:
            world.positions[unit.uid] = parse_position(where, world.space, f"position of {name}")
        except RulecraftError as err:
            err.location = err.location or scenario.location
            raise
    world.extent = map_extent(scenario.map)
    for key, terrain in (scenario.terrain or {}).items():
        at = hex_key(key)
        if at is None:
            raise RulecraftError(f"scenario {scenario.name!r}: terrain is keyed by \"q,r\", not "
                                 f"{key!r}", scenario.location, code="schema-invalid")
        name, values = hex_terrain(terrain)
        if name != CLEAR:
            world.terrain[at] = name
        if values:
            world.terrain_values[at] = dict(values)


def _unique(world, name):
    uid, n = name, 2
    while uid in world.units:
        uid, n = f"{name} ({n})", n + 1
    return uid


def scenario_of(ruleset, name: str | None):
    if not ruleset.scenarios:
        raise UsageError(f"{ruleset.id} has no scenarios to play")
    if name is None:
        name = "default" if "default" in ruleset.scenarios else next(iter(ruleset.scenarios))
    scenario = ruleset.scenarios.get(name)
    if scenario is None:
        raise UsageError(f"{ruleset.id} has no scenario {name!r}",
                         hint=did_you_mean(name, ruleset.scenarios))
    return scenario


def _root(ruleset, run, *args) -> None:
    """Run one segment of a game as a call tree of its own (the step budget)."""
    budget.as_root(ruleset.budget("steps"), run, *args)


def _phase_frame(ruleset, world, names: dict) -> Frame:
    base = {"turn": world.turn, "sides": list(world.sides.values()),
            "units": [u for u in world.units.values() if u.alive]}
    base.update(names)
    return Frame(base, ruleset.globals, world, world.rng, world.record)


def initiative_order(ruleset, world) -> list[str]:
    """Sides in the order they act, by the ruleset's (or the scenario's) declared
    initiative: game/initiative.py, the one definition that play and exact odds share."""
    return initiative.initiative_order(ruleset, world)


def _rooted(ruleset, check, world):
    """`check(ruleset, world)` as a call tree of its own (the step budget): initiative and
    victory conditions read lists in comprehensions, which spend steps, and outside a
    tree what they spent would add up over the whole game."""
    before = budget.begin(ruleset.budget("steps"))
    try:
        return check(ruleset, world)
    finally:
        budget.end(before)


def _victory(ruleset, world):
    if not world.record:
        return _victory_compiled(ruleset, world)
    for v in (ruleset.turn.victory if ruleset.turn else []):
        for side in world.sides.values():
            frame = _phase_frame(ruleset, world, {"side": side})
            holds = compiled(v.when)(frame.ctx)
            if holds is True:
                winner = side.name
                if v.winner is not None:
                    winner = _winner_name(compiled(v.winner)(frame.ctx))
                return winner, v.description or "victory condition"
    return "unfinished", None


# game/compiled.py's entry points, loaded with the code generator by the first game
# without a transcript (`_load_compiled`): a recorded game (`play`) never loads them.
compiled_cache = compiled_conditions = compiled_steps = names_for = None


def _load_compiled() -> None:
    global compiled_cache, compiled_conditions, compiled_steps, names_for
    from .compiled import compiled_cache, compiled_conditions, compiled_steps, names_for


def _victory_compiled(ruleset, world):
    """`_victory` without a transcript: the same conditions, compiled (game/compiled.py),
    and remembered by the roster when they read nothing else (game/victory.py)."""
    if compiled_conditions is None:
        _load_compiled()
    conditions = compiled_conditions(ruleset)
    memo = memo_for(ruleset, conditions)
    if memo is None:
        return _check_victory(conditions, world)
    key = memo.key(world)
    answer = memo.answers.get(key)
    if answer is None:
        answer = _check_victory(conditions, world)
        memo.remember(key, answer)
    return answer


def _check_victory(conditions, world):
    for v, when, winner, wanted in conditions:
        for side in world.sides.values():
            names = names_for(world, wanted, {"side": side}) if wanted else {"side": side}
            if when.run_on(world, names) is True:
                name = side.name if winner is None else _winner_name(winner.run_on(world, names))
                return name, v.description or "victory condition"
    return "unfinished", None


def _winner_name(value):
    return value.name if isinstance(value, Side) else (None if value in (None, "draw") else str(value))


def play(ruleset, scenario_name: str | None = None, seed: int | None = None, *,
         record: bool = True, prompt=None, observer=None, ask=()) -> GameResult:
    """Play a whole scenario with seeded dice; every event goes to the transcript.

    `observer` (render/story.py) sees the world once it is set up (`begin`) and each event
    as it is written (`event(event, depth)`); an observer with `kinds` (a set of event
    kinds) reads only those, and the transcript then keeps only those once the game is
    under way (World.told): the game is the same.  `ask` names sides a person plays
    (policy ask) whatever the scenario says."""
    if ruleset.turn is None:
        raise UsageError(f"{ruleset.id} declares no turn structure to play")
    scenario = scenario_of(ruleset, scenario_name)
    rng, seed = make_rng(seed)
    world = start_world(ruleset, scenario, rng) if not record else \
        build_world(ruleset, scenario, rng, record)
    ask_sides(world, ask)
    if observer is not None:
        world.listener = observer.event
        world.told = getattr(observer, "kinds", None)   # the lines it shows, if it says
        observer.begin(world)
        for event in world.events:   # written while the world was set up
            observer.event(event, 0)
    scripts = {n: s.get("script", []) for n, s in scenario.sides.items()}
    world.chooser = Chooser(world, scripts, prompt)
    world.reactor = reactor_for(ruleset)
    max_turns = scenario.max_turns or ruleset.turn.max_turns
    game = SampledGame(ruleset, world)
    try:
        play_turns(game, [world], max_turns)
    except RulecraftError as err:
        err.message = f"{err.message} (turn {world.turn}, phase {world.phase or 'start'})"
        raise
    winner, reason = game.winner, game.reason
    if not reason:
        winner, reason = None, f"turn limit ({max_turns}) reached"
    result = GameResult(scenario.name, seed, winner, world.turn, reason,
                        {n: len([u for u in s.units() if u.alive]) for n, s in world.sides.items()},
                        {n: json_value(s.data.get("score", 0)) for n, s in world.sides.items()},
                        world.events, world)
    said = f"winner: {winner}" if winner else NO_WINNER
    world.log("result", f"{said} ({reason}) after {world.turn} turns")
    return result


class SampledGame:
    """The turn loop's driver for one game with sampled dice (game/turns.py): a state
    is the world itself, and there is only ever one."""

    def __init__(self, ruleset, world):
        self.ruleset, self.world = ruleset, world
        self.sides: list = list(world.sides)
        self.winner, self.reason = "unfinished", None
        self.where = (0, "")
        self.limit = ruleset.budget("steps")   # each segment's call tree (`_root`)
        self.compiled, self.memo = None, None
        # the turn of the last victory check if no step has run since (None: one has),
        # for the remembered checks, which read only the roster and the turn
        self.checked = None
        if world.record:   # a transcript runs every step on a frame: nothing is compiled
            return
        if compiled_cache is None:
            _load_compiled()
        self.compiled = compiled_cache(ruleset)   # its steps compiled (game/compiled.py)
        # the victory checks remembered by the roster, if they read nothing else
        self.memo = memo_for(ruleset, compiled_conditions(ruleset)) if ruleset.turn else None

    one_world = True   # its one state is the world itself (turns.one_world_phase)

    def world_of(self, world):
        return world

    def order(self, world):
        return self.sides, world.unit_order

    def each(self, states, in_state):
        if len(states) == 1:   # the only world (no list of lists: every segment)
            return in_state(states[0])
        return [end for state in states for end in in_state(state)]

    def new_turn(self, states, turn):
        for world in states:
            world.turn, world.phase, world.turn_ended = turn, "", False
            if world.record:   # (the text is not made for nothing)
                world.log("turn", f"turn {turn}")
        return states

    def enter(self, states, phase: str, log: bool = False):
        self.where = (self.where[0], phase)
        for world in states:
            world.phase = phase
            if log and world.record:
                world.log("phase", phase)
        return states

    def initiative(self, states):
        self.checked = None   # (its rolls are expressions, which may call a procedure)
        for world in states:
            self.sides = _rooted(self.ruleset, initiative_order, world)
        return states

    def change(self, states, change):
        for world in states:
            change(world)
        return states

    def steps(self, states, steps, names_of, kind: str):
        """Run `steps` on the world with the names `names_of` gives (none: skipped):
        on a frame when recording, else compiled -- but a trigger's steps always on a
        frame, as they always were."""
        for world in states:
            names = names_of(world)
            if names is None or (not steps and kind != "trigger"):
                continue
            if kind == "trigger":
                self.checked = None
                _root(self.ruleset, run_steps, steps, _phase_frame(self.ruleset, world, names))
                continue
            self.run_segment(world, steps, names)
        return states

    def run_segments(self, world, steps, given: tuple, segments) -> None:
        """`run_segment(world, steps, names)` for each of a phase's segments, the names
        of each as `segments` yields them (turns.one_world_phase; always the names
        `given`), with the compiled steps found once for all of them.  Each is a call
        tree of its own: the step budget starts afresh for each, and is put back as it
        was once the phase is over."""
        if world.record:
            for names in segments:
                self.run_segment(world, steps, names)
            return
        entry = self.compiled.get((id(steps), given))
        if entry is None or entry.steps is not steps:
            entry = compiled_steps(self.ruleset, steps, given)
        body, wanted, globals_ = entry.body, entry.wanted, entry.globals
        limit, work = self.limit or budget.DEFAULT[0], budget.WORK
        before = work[0], work[1], work[2]   # `budget.begin` and `end`, written out
        try:
            for names in segments:
                self.checked = None
                work[0] = work[2] = limit
                work[1] = True
                body(names_for(world, wanted, names) if wanted else names, world, world.rng, 0,
                     globals_)
        finally:
            work[0], work[1], work[2] = before

    def run_segment(self, world, steps, names: dict) -> None:
        """A segment's (or the turn's start or end) steps on the world, as a call tree
        of its own: on a frame when recording, else compiled.  `names` is made afresh
        for each call (turns.py), so the body may have it as it is."""
        self.checked = None
        if world.record:
            _root(self.ruleset, run_steps, steps, _phase_frame(self.ruleset, world, names))
            return
        # `_root(CompiledSteps.run)`, written out: this is every segment of a game
        given = tuple(names)
        entry = self.compiled.get((id(steps), given))
        if entry is None or entry.steps is not steps:
            entry = compiled_steps(self.ruleset, steps, given)
        local = names_for(world, entry.wanted, names) if entry.wanted else names
        work = budget.WORK   # `budget.begin` and `end`, written out
        before = work[0], work[1], work[2]
        work[0] = work[2] = self.limit or budget.DEFAULT[0]
        work[1] = True
        try:
            entry.body(local, world, world.rng, 0, entry.globals)
        finally:
            work[0], work[1], work[2] = before

    def end_phase(self, states):
        for world in states:
            if world.deferred or world.doomed:   # calls to run, units to destroy
                self.checked = None
            end_phase(self.ruleset, world)
        return states

    def victory(self, states, turn):
        for world in states:
            if world.record:
                self.winner, self.reason = _rooted(self.ruleset, _victory, world)
                continue
            memo = self.memo
            if memo is not None:   # a check answered before for this roster: no call tree
                if self.checked is not None and (self.checked == world.turn or
                                                 not memo.reads_turn):
                    # no step has run since the last check, which found the game going
                    # on: neither the roster nor (if read) the turn has changed
                    continue
                self.checked = world.turn
                answer = memo.answers.get(memo.key(world))
                if answer is not None:
                    self.winner, self.reason = answer
                    continue
            before = budget.begin(self.limit)   # `_rooted`, written out: after every phase
            try:
                self.winner, self.reason = _victory_compiled(self.ruleset, world)
            finally:
                budget.end(before)
        return [] if self.reason else states

    def turn_done(self, states):
        pass

    def turn_limit(self, states, max_turns):
        pass


def ask_sides(world, names) -> None:
    """`--ask SIDE`: these sides' choices are a person's."""
    for name in names:
        if name not in world.sides:
            raise UsageError(f"the scenario has no side {name!r} to ask",
                             hint=did_you_mean(name, world.sides) or
                             "its sides: " + ", ".join(world.sides))
        world.sides[name].policy = "ask"
