"""Exact odds of a whole game (`rulecraft odds-game`): the merged distribution of game
states advanced turn by turn, the way `play` runs one game — initiative, start-of-turn
bookkeeping and status triggers, each phase for each side or unit in order, the end of
the turn, the victory conditions — with every roll branched over its outcomes.  What
comes out is the exact distribution of the winner, of the game's length, of the
survivors and of tracked expressions; a game whose states do not fit the state limit
stops with the turn it reached and a suggestion to simulate instead."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction

from ..dice.distribution import Distribution
from ..errors import LimitError, RulecraftError, UsageError
from ..expr.exact import exact, product
from ..expr.rolling import odds_json
from ..expr.values import fraction_text
from ..run.exact import explore_steps
from ..run.frames import Branch, Enumeration, Merged, Scope, world_snapshot
from ..state.world import Side
from .odds import Observed, choices_json, to_distribution
from .lifecycle import expire_statuses, start_statuses
from .play import build_world, scenario_of
from .runs import chain_json, hashable

_GAME = ("@order", "@units")   # what a game branch carries between segments


@dataclass
class GameOdds:
    scenario: str
    winner: Distribution
    turns: Distribution
    survivors: dict
    tracked: dict
    max_turns: int
    given: str | None = None
    given_probability: Fraction | None = None
    choices: list = field(default_factory=list)
    largest: int = 0          # the most states held at once
    chain: list = field(default_factory=list)   # the rulesets, base first (set by Rules)

    def as_json(self) -> dict:
        data = {"scenario": self.scenario, "max_turns": self.max_turns,
                "winner": odds_json("winner", self.winner)["outcomes"],
                "turns": odds_json("turns", self.turns),
                "survivors": {k: odds_json(k, d) for k, d in self.survivors.items()},
                "tracked": {k: odds_json(k, d)["outcomes"] for k, d in self.tracked.items()},
                "choices": self.choices, "largest_state_count": self.largest,
                **chain_json(self.chain)}
        if self.given is not None:
            data["given"] = {"expression": self.given,
                             "probability": fraction_text(self.given_probability),
                             "percent": round(float(self.given_probability) * 100, 6)}
        return data


class _Game:
    """One whole-game enumeration: the ruleset, its turn structure, the shared facts."""

    def __init__(self, ruleset, scenario, max_turns: int):
        self.ruleset, self.turn_def, self.max_turns = ruleset, ruleset.turn, max_turns
        scripts = {n: s.get("script", []) for n, s in scenario.sides.items()}
        self.run = Enumeration(scripts)
        world = build_world(ruleset, scenario, random.Random(0), record=False)
        self.start = Branch(Fraction(1), locals_={"@order": None, "@units": None}, world=world,
                            globals_=ruleset.globals, run=self.run, keep_at_end=frozenset(_GAME))
        self.finished: dict = {}   # merged ends: key -> [weight, winner, reason, turns, world]
        self.largest = 1

    # -------------------------------------------------------------- a whole game
    def play(self) -> None:
        live = [self.start]
        ini = self.turn_def.initiative
        for turn in range(1, self.max_turns + 1):
            phase = "start"
            self.run.work = 0   # the exact-work budget (limits.MAX_FORKS) is per turn
            try:
                live = self._new_turn(live, turn)
                if turn == 1 or (ini and ini.when == "turn"):
                    phase = "initiative"
                    live = self._initiative(live)
                phase = "start"
                live = self._changed(live, start_statuses)
                live = self._steps(live, self.turn_def.start_of_turn, {})
                live = self._triggers(live, "start_of_turn", None)
                for ph in self.turn_def.phases:
                    phase = ph.name
                    live = self._victory(self._phase(live, ph), turn)
                    if not live:
                        return
                phase = "end"
                live = self._steps(live, self.turn_def.end_of_turn, {})
                live = self._triggers(live, "end_of_turn", None)
                live = self._victory(self._changed(live, expire_statuses), turn)
            except LimitError as err:
                raise LimitError(f"odds-game stopped in turn {turn} ({phase}): {err.message}",
                                 err.location, hint=f"the game's states do not fit exact odds past "
                                 f"turn {turn - 1}; use `rulecraft simulate` for this scenario, or "
                                 f"--turns {max(1, turn - 1)} for the odds of its first turns") from None
            except RulecraftError as err:
                err.message = f"{err.message} (odds-game, turn {turn}, phase {phase})"
                raise
            self.largest = max(self.largest, len(live))
            if not live:
                return
        for b in live:
            self._finish(b, None, f"turn limit ({self.max_turns}) reached", self.max_turns)

    def _finish(self, b, winner, reason, turn):
        key = (winner, reason, turn, world_snapshot(b.world))
        have = self.finished.get(key)
        if have is not None:
            have[0] += b.weight
        else:
            self.finished[key] = [b.weight, winner, reason, turn, b.world]

    def _new_turn(self, live, turn):
        out = []
        for b in live:
            child = b.fork(Fraction(1), True)
            child.world.turn, child.world.phase = turn, ""
            out.append(child)
        return out

    def _changed(self, live, change):
        """Deterministic bookkeeping on each state's own copy of its world."""
        merged = Merged()
        for b in live:
            child = b.fork(Fraction(1), True)
            change(child.world)
            merged.add(child)
        return merged.branches()

    # ---------------------------------------------------------------- initiative
    def _initiative(self, live):
        """The order of sides (and of units, `per: unit`) as `play.initiative_order`
        rolls it, every roll and reroll of ties branched over."""
        ini = self.turn_def.initiative
        merged = Merged()
        for b in live:
            names = list(b.world.sides)
            if ini is None or ini.roll is None:
                b.locals["@order"], b.locals["@units"] = tuple(names), None
                merged.add(b)
                continue
            per_unit = ini.per == "unit"
            who = [u.uid for u in b.world.units.values() if u.alive] if per_unit else names
            if len(who) < 2:
                b.locals["@order"], b.locals["@units"] = tuple(names), None
                merged.add(b)
                continue
            roll = exact(ini.roll, Scope({}, self.ruleset.globals, b.world))
            for ranked, p in _rankings(roll, who, {}, who, ini.ties == "reroll", 0, {}).items():
                for q, order in self._chosen(b, ranked, per_unit):
                    child = b.fork(p * q, False)
                    if per_unit:
                        sides = []
                        for uid in order:
                            side = b.world.units[uid].side
                            if side not in sides:
                                sides.append(side)
                        child.locals["@units"] = tuple(order)
                        child.locals["@order"] = tuple(sides + [n for n in names if n not in sides])
                    else:
                        child.locals["@order"], child.locals["@units"] = tuple(order), None
                    merged.add(child)
        return merged.branches()

    def _chosen(self, b, ranked, per_unit):
        """(probability, order) after the declared order rule (the winner choosing)."""
        order = self.turn_def.initiative.order
        ranked = list(ranked)
        if order == "lowest_first":
            return [(Fraction(1), list(reversed(ranked)))]
        if order not in ("winner_chooses", "winner_chooses_rest_lowest"):
            return [(Fraction(1), ranked)]
        winner, rest = ranked[0], ranked[1:]
        if order == "winner_chooses_rest_lowest":
            rest = list(reversed(rest))
        side = b.world.sides[b.world.units[winner].side if per_unit else winner]
        first, last = [winner] + rest, rest + [winner]
        if side.policy != "random":
            return [(Fraction(1), first)]
        return [(Fraction(1, 2), first), (Fraction(1, 2), last)]

    # -------------------------------------------------------------------- phases
    def _phase(self, live, phase):
        """A phase as `play._run_phase` runs it, per state: each side's or unit's segment
        in that state's own order, a unit that fell meanwhile skipped."""
        merged = Merged()
        start, end = f"start_of_{phase.name}", f"end_of_{phase.name}"
        for b in live:
            current = [b]
            if phase.each == "none":
                current = self._segment(current, phase.steps, start, end, None, None, None)
            elif phase.each == "unit" and b.locals["@units"]:
                for uid in b.locals["@units"]:
                    current = self._segment(current, phase.steps, start, end, [uid], uid, None)
            else:
                for side_name in b.locals["@order"]:
                    current = self._side(current, phase, side_name, start, end)
            merged.extend(current)
        return merged.branches()

    def _side(self, current, phase, side_name, start, end):
        if phase.each == "side":
            out = Merged()
            for c in current:
                holders = [u.uid for u in c.world.sides[side_name].units()]
                out.extend(self._segment([c], phase.steps, start, end, holders, None, side_name))
            return out.branches()
        out = Merged()
        for c in current:
            units = [u.uid for u in c.world.sides[side_name].units() if u.alive]
            chain = [c]
            for uid in units:
                chain = self._segment(chain, phase.steps, start, end, [uid], uid, side_name)
            out.extend(chain)
        return out.branches()

    def _segment(self, current, steps, start, end, holders, unit_uid, side_name):
        """One side's or unit's turn at a phase: its holders' start triggers, the steps
        (unless the unit is no longer alive), its end triggers."""
        current = self._triggers(current, start, holders)
        merged = Merged()
        for c in current:
            unit = c.world.units.get(unit_uid) if unit_uid is not None else None
            if unit is not None and not unit.alive:
                merged.add(c)
                continue
            names = {}
            if unit is not None:
                names = {"side": c.world.sides[unit.side], "unit": unit}
            elif side_name is not None:
                names = {"side": c.world.sides[side_name]}
            merged.extend(self._steps([c], steps, names))
        return self._triggers(merged.branches(), end, holders)

    def _steps(self, live, steps, names):
        """Phase steps in a fresh frame per state (as `play._phase_frame`): the game's
        names, then the segment's; the frame's names are gone once the steps end."""
        if not steps:
            return live
        merged = Merged()
        for b in live:
            world = b.world
            frame = {k: b.locals[k] for k in _GAME}
            frame.update({"turn": world.turn, "sides": list(world.sides.values()),
                          "units": [u for u in world.units.values() if u.alive]})
            frame.update(names)
            child = b.fork(Fraction(1), False)
            child.locals = frame
            for end in explore_steps(steps, [child]):
                end.locals = {k: end.locals[k] for k in _GAME}
                end.returned, end.result = False, None
                merged.add(end)
        return merged.branches()

    def _triggers(self, live, event, holders):
        """The `on: {event: ...}` steps of every active status of the holders (of every
        unit, for None), unit by unit and status by status as `play` runs them."""
        merged = Merged()
        for b in live:
            uids = list(b.world.units) if holders is None else holders
            if not any(s.definition and s.definition.on.get(event)
                       for uid in uids for s in b.world.units[uid].statuses):
                merged.add(b)
                continue
            current = [b]
            for uid in uids:
                current = self._unit_triggers(current, uid, event)
            merged.extend(current)
        return merged.branches()

    def _unit_triggers(self, current, uid, event):
        out = Merged()
        for c in current:
            pending = [(s.name, s.applied_turn) for s in c.world.units[uid].statuses
                       if s.definition and s.definition.on.get(event)]
            chain = [c]
            for name, applied in pending:
                step_out = Merged()
                for d in chain:
                    unit = d.world.units[uid]
                    status = next((s for s in unit.statuses
                                   if s.name == name and s.applied_turn == applied), None)
                    if status is None or not status.active or not unit.alive:
                        step_out.add(d)
                        continue
                    step_out.extend(self._steps([d], status.definition.on[event],
                                                {"holder": unit, "status": status,
                                                 "side": d.world.sides.get(unit.side)}))
                chain = step_out.branches()
            out.extend(chain)
        return out.branches()

    # ------------------------------------------------------------------- victory
    def _victory(self, live, turn):
        """Each state's victory check as `play._victory`: the first condition that holds
        for some side ends that state's game (a random condition is branched over)."""
        still = Merged()
        for b in live:
            for child, winner, reason in self._check(b, 0, 0):
                if reason is None:
                    still.add(child)
                else:
                    self._finish(child, winner, reason, turn)
        return still.branches()

    def _check(self, b, vi, si):
        victories = self.turn_def.victory
        sides = list(b.world.sides.values())
        while vi < len(victories):
            if si >= len(sides):
                vi, si = vi + 1, 0
                continue
            v, side = victories[vi], sides[si]
            scope = self._end_scope(b, {"side": side})
            holds = exact(v.when, scope)
            if len(holds) == 1 and holds.items()[0][0] is not True:
                si += 1
                continue
            out = []
            for value, w in holds.items():
                child = b.fork(Fraction(w, holds.total), False)
                if value is True:
                    out.extend(self._winner(child, v, side))
                else:
                    out.extend(self._check(child, vi, si + 1))
            return out
        return [(b, "unfinished", None)]

    def _winner(self, b, v, side):
        reason = v.description or "victory condition"
        if v.winner is None:
            return [(b, side.name, reason)]
        out = []
        value_dist = exact(v.winner, self._end_scope(b, {"side": side}))
        for value, w in value_dist.items():
            winner = (value.name if isinstance(value, Side) else
                      None if value in (None, "draw") else str(value))
            out.append((b.fork(Fraction(w, value_dist.total), False), winner, reason))
        return out

    def _end_scope(self, b, names):
        world = b.world
        frame = {"turn": world.turn, "sides": list(world.sides.values()),
                 "units": [u for u in world.units.values() if u.alive]}
        frame.update(names)
        return Scope(frame, self.ruleset.globals, world)


def _rankings(roll: Distribution, who: list, rolls: dict, contenders: list, reroll: bool,
              depth: int, memo: dict) -> dict:
    """{ranking: probability}: everyone in `contenders` rolls; ties among the tied are
    rolled again (at most 100 rounds, as `play` does), then highest first, ties in the
    declared order."""
    key = (tuple(sorted((w, v) for w, v in rolls.items() if w not in contenders)),
           tuple(contenders), depth)
    if key in memo:
        return memo[key]
    result: dict = {}
    for p, values in product([roll] * len(contenders)):
        new = dict(rolls)
        new.update(zip(contenders, values))
        vals = [new[w] for w in who]
        if not reroll or len(set(vals)) == len(vals) or depth == 99:
            ranked = tuple(sorted(who, key=lambda w: (-new[w], who.index(w))))
            result[ranked] = result.get(ranked, 0) + p
            continue
        tied = [w for w in who if vals.count(new[w]) > 1]
        for ranked, q in _rankings(roll, who, new, tied, reroll, depth + 1, memo).items():
            result[ranked] = result.get(ranked, 0) + p * q
    memo[key] = result
    return result


def game_odds(ruleset, scenario_name: str | None = None, turns: int | None = None,
              track: list[str] | None = None, given: str | None = None) -> GameOdds:
    """The exact distribution of a scenario's result: winner ("draw" when the turn limit
    ends it), length in turns, survivors per side and tracked expressions at the end
    (sides by name, `units`, `turn`, `winner`, `turns`), optionally given an event."""
    if ruleset.turn is None:
        raise UsageError(f"{ruleset.id} declares no turn structure to play")
    if ruleset.turn.reactions or any(p.simultaneous for p in ruleset.turn.phases):
        raise UsageError(f"{ruleset.id}: odds-game does not follow reactions or simultaneous "
                         f"phases yet (play does)", hint="use `rulecraft simulate` for this "
                         "ruleset's games")
    scenario = scenario_of(ruleset, scenario_name)
    max_turns = scenario.max_turns or ruleset.turn.max_turns
    if turns is not None:
        if turns < 1:
            raise UsageError("--turns must be at least 1")
        max_turns = min(max_turns, turns)
    observed = [Observed("--track", t) for t in track or []]
    condition = Observed("--given", given) if given is not None else None
    game = _Game(ruleset, scenario, max_turns)
    game.play()
    winners, lengths, held = {}, {}, Fraction(0)
    survivors = {name: {} for name in game.start.world.sides}
    tracked = {o.text: {} for o in observed}
    for weight, winner, reason, n_turns, world in game.finished.values():
        names = {"turn": n_turns, "units": [u for u in world.units.values() if u.alive],
                 "sides": list(world.sides.values()), **world.sides,
                 "winner": winner or "draw", "turns": n_turns}
        probe = Branch(weight, locals_=names, world=world, globals_=ruleset.globals)
        if condition is not None:
            holds = condition.distribution(probe, names)
            if holds is None:
                raise UsageError(f"--given {given}: a name in it is not a side, `units`, `turn`, "
                                 f"`winner`, `turns` or a name of the ruleset")
            weight = weight * holds.probability(True)
            if not weight:
                continue
        held += weight
        key = winner or "draw"
        winners[key] = winners.get(key, 0) + weight
        lengths[n_turns] = lengths.get(n_turns, 0) + weight
        for name, side in world.sides.items():
            alive = len([u for u in side.units() if u.alive])
            survivors[name][alive] = survivors[name].get(alive, 0) + weight
        for o in observed:
            dist = o.distribution(probe, names)
            if dist is None:
                raise UsageError(f"--track {o.text}: a name in it is not a side, `units`, `turn`, "
                                 f"`winner`, `turns` or a name of the ruleset")
            for value, w in dist.items():
                v = hashable(value)
                tracked[o.text][v] = tracked[o.text].get(v, 0) + weight * Fraction(w, dist.total)
    if condition is not None and held == 0:
        raise UsageError(f"--given {given}: it never holds, so there is nothing to condition on")
    scale = 1 / held if condition is not None else Fraction(1)
    return GameOdds(scenario.name, to_distribution(winners, scale), to_distribution(lengths, scale),
                    {k: to_distribution(d, scale) for k, d in survivors.items()},
                    {k: to_distribution(d, scale) for k, d in tracked.items()}, max_turns,
                    given, held if condition is not None else None, choices_json(game.run),
                    game.largest)
