"""The turn sequence, written once.

`play` runs it on one world with sampled dice; `odds-game` runs it on the merged
distribution of worlds with every roll branched over.  Both hand `play_turns` a driver
(game/play.SampledGame, game/odds_game.ExactGame) that says what a *state* is and how
the few things that differ are done -- running steps, rolling initiative, checking
victory, running the calls a phase deferred -- and the order in which everything
happens is decided here, in one place:

    for every turn, until a victory condition holds or the turn limit:
        initiative (the first turn, or every turn with `when: turn`)
        start of turn: statuses given "from next turn" start, the `start_of_turn`
            steps, the `start_of_turn` triggers
        every phase: its batch opens (`defer`, `simultaneous`), each side or unit in
            order runs its segment (its holders' `start_of_PHASE` triggers, the
            phase's steps if the unit still stands, their `end_of_PHASE` triggers),
            the batch closes, the victory conditions are checked
        end of turn: the `end_of_turn` steps and triggers, the countdown of
            statuses, the victory conditions

A driver works on a list of states; `each` maps one state to the states it becomes (the
exact driver merges equal ones as they arrive), so that "for each side of this state's
own initiative order" is written here once, whatever a state is.  Names a step list
sees are built per state from ids (`unit_names`), since in exact odds every state holds
its own copy of the world."""
from __future__ import annotations

from functools import partial

from ..expr import reads
from ..state.roster import living
from .initiative import rolled_now
from .lifecycle import expire_statuses, start_statuses, trigger_names
from .reactions import begin_phase


def play_turns(drv, states: list, max_turns: int) -> None:
    """Advance the states turn by turn; the driver keeps the ones that end (victory)
    and is told of the ones still running at the turn limit."""
    if drv.one_world and len(states) == 1:
        one_world_turns(drv, drv.world_of(states[0]), max_turns)
        return
    turn_def = drv.ruleset.turn
    for turn in range(1, max_turns + 1):
        drv.where = (turn, "")
        states = drv.new_turn(states, turn)
        if states and rolled_now(drv.ruleset, drv.world_of(states[0]), turn == 1):
            states = drv.enter(states, "initiative")
            states = drv.initiative(states)
        states = drv.enter(states, "start")
        states = drv.change(states, start_statuses)
        states = drv.steps(states, turn_def.start_of_turn, _no_names, "turn")
        states = triggers(drv, states, "start_of_turn", None)
        for phase in turn_def.phases:
            states, ended = _running(drv, states)   # end_turn()
            if states:
                states = drv.enter(states, phase.name, log=True)
                states = drv.change(states, lambda world, phase=phase: begin_phase(world, phase))
                states = run_phase(drv, states, phase)
                states = drv.end_phase(states)
                states = drv.victory(states, turn)
            states = states + ended
            if not states:
                return
        states = drv.enter(states, "end")
        states = drv.steps(states, turn_def.end_of_turn, _no_names, "turn")
        states = triggers(drv, states, "end_of_turn", None)
        states = drv.change(states, expire_statuses)
        states = drv.victory(states, turn)
        drv.turn_done(states)
        if not states:
            return
    drv.turn_limit(states, max_turns)


def one_world_turns(drv, world, max_turns: int) -> None:
    """`play_turns` for a driver whose one state is the world itself (a sampled game):
    the same steps, triggers and checks in the same order, run on the world at once
    rather than mapped over a list of states (and a phase no status reacts to run by
    `one_world_phase`).  `tests/test_turn_loops.py` holds the two to the same games."""
    ruleset = drv.ruleset
    turn_def = ruleset.turn
    states = [world]
    events = trigger_events(ruleset)
    start_steps, end_steps = turn_def.start_of_turn, turn_def.end_of_turn
    # each phase with whether a status reacts to its start or end (then `run_phase`)
    phases = [(phase, phase_ends(events, phase) != (None, None)) for phase in turn_def.phases]
    for turn in range(1, max_turns + 1):
        drv.where = (turn, "")
        drv.new_turn(states, turn)
        if rolled_now(ruleset, world, turn == 1):
            drv.enter(states, "initiative")
            drv.initiative(states)
        drv.enter(states, "start")
        start_statuses(world)
        if start_steps:
            drv.run_segment(world, start_steps, {})
        if "start_of_turn" in events:
            triggers(drv, states, "start_of_turn", None)
        for phase, reacted in phases:
            if world.turn_ended:   # end_turn(): the turn's other phases are passed
                continue
            drv.enter(states, phase.name, log=True)
            begin_phase(world, phase)
            if reacted:
                run_phase(drv, states, phase)
            else:
                one_world_phase(drv, world, phase)
            drv.end_phase(states)
            if not drv.victory(states, turn):
                return
        drv.enter(states, "end")
        if end_steps:
            drv.run_segment(world, end_steps, {})
        if "end_of_turn" in events:
            triggers(drv, states, "end_of_turn", None)
        expire_statuses(world)
        if not drv.victory(states, turn):
            return
        drv.turn_done(states)
    drv.turn_limit(states, max_turns)


def _no_names(world) -> dict:
    return {}


def phase_ends(events: frozenset, phase) -> tuple:
    """The triggers a phase's segments fire (`trigger_events`): (its start event, its end
    event), each None when no status reacts to it."""
    start, end = f"start_of_{phase.name}", f"end_of_{phase.name}"
    return (start if start in events else None, end if end in events else None)


def run_phase(drv, states: list, phase) -> list:
    """A phase: for each side or unit in the state's own order (or once), its segment --
    so a status acts in its holder's own segment ("flees on its next move")."""
    ends = phase_ends(trigger_events(drv.ruleset), phase)

    def in_state(state):
        world = drv.world_of(state)
        sides, unit_order = drv.order(state)
        if phase.each == "none":
            return segment(drv, [state], phase, ends, None, None, None)
        if phase.each == "unit" and unit_order:
            current = [state]
            for uid in unit_order:
                current = drv.each(current, partial(_unit_segment, drv, phase, ends, uid, None))
            return current
        current = [state]
        for side_name in sides:
            if phase.each == "side":
                holders = [u.uid for u in world.sides[side_name].units()]
                current = segment(drv, current, phase, ends, holders, None, side_name)
                continue
            current = drv.each(current, partial(_side_units, drv, phase, ends, side_name))
        return current

    return drv.each(states, in_state)


def one_world_phase(drv, world, phase) -> None:
    """`run_phase` for a driver whose one state is the world itself (a sampled game), in
    a phase no status reacts to: the same segments in the same order (`_segments`), run
    one after the other by the driver's `run_segments`, without a list of states, a
    partial and a names function per segment."""
    steps = phase.steps
    if not steps:   # (`drv.steps` skips a phase's empty steps)
        return
    sides, unit_order = drv.order(world)
    drv.run_segments(world, steps, phase.given, _segments(world, phase.each, sides, unit_order))


def _segments(world, each, sides, unit_order):
    """The names of each segment of a phase of one world, made as the segment is about
    to run (after the one before it ran): each side or unit as `in_state` takes them, a
    unit skipped as `_unit_segment` skips it, none once the turn has ended (`segment`'s
    `_running`), with the names `unit_names` gives.  With no trigger in the phase a
    segment is its steps alone, and nothing runs between the test that the unit stands
    and its steps, so one test is all `unit_names` would add."""
    if each == "none":
        if not world.turn_ended:
            yield {}
        return
    if each == "unit" and unit_order:
        for uid in unit_order:
            unit = world.units.get(uid)
            if unit is not None and unit.alive and not world.turn_ended:
                yield {"side": world.sides[unit._side], "unit": unit}
        return
    units = world.units
    for side_name in sides:
        reads.every_unit()   # (as `_side_units`, and `in_state`'s holders of a side)
        if each == "side":
            if not world.turn_ended:
                yield {"side": world.sides[side_name]}
            continue
        # (`living` is a new list: the units standing when the side's turn began, as
        # `_side_units` takes their ids; each is found again by its id)
        for standing in living(world, side_name):
            unit = units.get(standing.uid)
            if unit is None or unit.fields.get("destroyed", False) or unit._side != side_name \
                    or world.turn_ended:
                continue
            yield {"side": world.sides[side_name], "unit": unit}


def _side_units(drv, phase, ends, side_name, state) -> list:
    """Each living unit of a side, in order, takes its segment (one that falls meanwhile
    is skipped)."""
    world = drv.world_of(state)
    current = [state]
    reads.every_unit()   # who is on the side, and who stands (as Side.units() notes it)
    for uid in [u.uid for u in living(world, side_name)]:
        current = drv.each(current, partial(_unit_segment, drv, phase, ends, uid, side_name))
    return current


def _unit_segment(drv, phase, ends, uid, side_name, state) -> list:
    """A unit's segment, unless it fell meanwhile or was captured by another side
    (`capture()`: it acts for its new side from that side's next segment).  (The state
    last, as for `_side_units`: the driver's `each` is handed them as partials.)"""
    unit = drv.world_of(state).units.get(uid)
    # (`_side`: the side property's own value, read at once in every segment)
    if unit is None or not unit.alive or (side_name is not None and unit._side != side_name):
        return [state]
    return segment(drv, [state], phase, ends, [uid], uid, side_name)


def segment(drv, states, phase, ends, holders, uid, side_name) -> list:
    """One side's or unit's part of a phase: its holders' start triggers, the phase's
    steps (unless the unit fell meanwhile), its holders' end triggers; none of it once
    `end_turn()` has ended the turn in an earlier segment.  `ends`: the phase's start
    and end events, each None when no status reacts to it (`run_phase`)."""
    running, ended = _running(drv, states)
    if not running:
        return ended
    start, end = ends
    if start is not None:
        running = triggers(drv, running, start, holders)
    running = drv.steps(running, phase.steps, partial(unit_names, uid, side_name), "phase")
    if end is not None:
        running = triggers(drv, running, end, holders)
    return running + ended


def _running(drv, states) -> tuple[list, list]:
    """The states whose turn goes on, and those whose turn `end_turn()` ended."""
    if len(states) == 1:   # (a sampled game's one world: no lists to build)
        return (states, []) if not drv.world_of(states[0]).turn_ended else ([], states)
    ended, running = [], []
    for s in states:
        (ended if drv.world_of(s).turn_ended else running).append(s)
    return running, ended


def unit_names(uid, side_name, world):
    """The names of a segment in this world: `unit` and its `side`, or `side` alone, or
    none (`each: none`); None when the segment's unit no longer stands.  (The world
    last: `segment` hands the driver this function with the others given, a new dict
    at each call.)"""
    if uid is not None:
        unit = world.units[uid]
        if not unit.alive:
            return None
        return {"side": world.sides[unit._side], "unit": unit}
    if side_name is not None:
        return {"side": world.sides[side_name]}
    return {}


def trigger_events(ruleset) -> frozenset:
    """The events some status of the ruleset has `on:` steps for, found once per ruleset
    (every status a game gives is one of `ruleset.statuses`, state/actions.apply): at
    any other event no status can fire, so the turn loop need not look at the units."""
    events = ruleset.__dict__.get("_trigger_events")
    if events is None:
        events = ruleset._trigger_events = frozenset(
            event for definition in ruleset.statuses.values()
            for event, steps in definition.on.items() if steps)
    return events


def triggers(drv, states, event: str, holders) -> list:
    """The `on: {event: ...}` steps of the statuses the holders (every unit, for None)
    had when the event began, holder by holder, status by status (game/lifecycle.py's
    rules 2, 3, 5 and 6)."""
    if event not in trigger_events(drv.ruleset):
        return states

    def in_state(state):
        world = drv.world_of(state)
        uids = list(world.units) if holders is None else holders
        firing = [(uid, status.name, status.serial, status)
                  for uid in uids for status in world.units[uid].statuses
                  if status.definition is not None and status.definition.on.get(event)]
        current = [state]
        for uid, name, serial, first in firing:
            current = drv.steps(current, first.definition.on[event],
                                lambda world, uid=uid, name=name, serial=serial, first=first:
                                trigger_names(world, event, uid, name, serial, first),
                                "trigger")
        return current

    return drv.each(states, in_state)
