"""Exact odds of a whole game (`rulecraft odds-game`): the merged distribution of game
states advanced through the turn loop `play` runs (game/turns.py) -- initiative,
start-of-turn bookkeeping and status triggers, each phase for each side or unit in
order with its reactions and its batch (`defer`, `simultaneous`), the end of the turn,
the victory conditions -- with every roll branched over its outcomes.  What comes out
is the exact distribution of the winner, of the game's length, of the survivors and of
tracked expressions; a game whose states do not fit the state limit stops with the
turn it reached and a suggestion to simulate instead."""
from __future__ import annotations

import random
from ..records import record, field
from fractions import Fraction

from ..dice.distribution import Distribution
from ..errors import LimitError, RulecraftError, UsageError
from ..expr.exact import exact
from ..expr.rolling import odds_json
from ..expr.values import fraction_text
from ..limits import BUDGETS, FORESEE_AFTER, FORKS_PER_TURN, where_to_raise
from ..run.frames import Branch, Enumeration, Merged, Scope, world_snapshot
from ..run.heap import held as heap_held
from ..run.stack import in_room
from ..state.world import Side
from .exact_interrupts import ExactReactions, close_batch, explore_in_frame
from .odds import Observed, choices_json, to_distribution
from .initiative import initiative_odds, rolled_now
from .play import NO_WINNER, build_world, scenario_of
from .turns import play_turns
from .runs import chain_json, outcome_key, start_branches

_GAME = ("@order", "@units")   # what a game branch carries between segments


@record
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


class ExactGame:
    """The turn loop's driver for exact odds (game/turns.py): a state is a `Branch` --
    its probability, its own world (shared until changed) and the game's locals, the
    initiative order of its sides (`@order`) and units (`@units`); equal states merge
    after every piece of the turn.  The states that end (victory) are kept, merged on
    the winner, the reason, the turn and the world."""

    def __init__(self, ruleset, scenario, max_turns: int):
        self.ruleset, self.max_turns = ruleset, max_turns
        self.scenario = scenario.name   # (a refusal's hint names it: its own budgets)
        scripts = {n: s.get("script", []) for n, s in scenario.sides.items()}
        self.run = Enumeration(scripts)
        # the scenario's own `budgets: {forks: N}` if it says, else the ruleset's: one
        # state's steps of a phase for one unit or side (a segment) may work what one
        # procedure's odds may; the whole turn, every segment of it, FORKS_PER_TURN times
        # that (limits.py)
        self.run.work_limit = ruleset.budget("forks", scenario)
        self.turn_budget = self.run.work_limit * FORKS_PER_TURN
        self.turn_work = 0
        self.loc = None   # the steps of the segment played last (a forecast's refusal is there)
        rolled: list = []
        world = build_world(ruleset, scenario, random.Random(0), record=False, rolled=rolled)
        world.reactor = ExactReactions(ruleset) if ruleset.turn.reactions else None
        self.start = Branch(Fraction(1), locals_={"@order": None, "@units": None}, world=world,
                            globals_=ruleset.globals, run=self.run, keep_at_end=frozenset(_GAME))
        # starting values that roll dice (`nerve: "=d6"`): one state per outcome
        self.starts = start_branches(self.start, rolled)
        self.finished: dict = {}   # merged ends: key -> [weight, winner, reason, turns, world]
        self.largest = 1
        self.where = (0, "")
        self.rankings: dict = {}   # initiative: rankings by the rolls' distributions
        self.verdicts: dict = {}   # victory checks by (world, turn, phase)

    def play(self) -> None:
        try:
            starts = Merged()
            starts.extend(self.starts)
            play_turns(self, starts.branches(), self.max_turns)
        except LimitError as err:
            turn, phase = self.where
            raise LimitError(f"odds-game stopped in turn {turn} ({phase or 'start'}): {err.message}",
                             err.location, code=err.code, hint=_stopped_hint(turn, err.code, self.scenario)) from None
        except RulecraftError as err:
            turn, phase = self.where
            err.message = f"{err.message} (odds-game, turn {turn}, phase {phase or 'start'})"
            raise

    # ------------------------------------------------------- what the loop asks
    one_world = False   # many states, each a branch (turns.run_phase)

    def world_of(self, b):
        return b.world

    def order(self, b):
        return b.locals["@order"], b.locals["@units"]

    def each(self, states, in_state):
        merged = Merged()
        made: list = []   # each state's work, in order (_foresee)
        for i, b in enumerate(states):
            before = self.turn_work + self.run.work
            merged.extend(in_state(b))
            made.append(self.turn_work + self.run.work - before)
            self._foresee(made, len(states) - i - 1)
        return merged.branches()

    def new_turn(self, states, turn):
        self.where = (turn, "")
        self.run.work = self.turn_work = 0   # the exact-work budget is per turn (_segment)
        self.verdicts.clear()   # keyed by the turn: last turn's are never asked again
        out = []
        for b in states:
            child = b.fork(Fraction(1), True)
            child.world.turn, child.world.phase, child.world.turn_ended = turn, "", False
            out.append(child)
        return out

    def enter(self, states, phase: str, log: bool = False):
        """A new part of the turn: each state's world says so (`uses(..., per="phase")`
        reads it), and the memo of procedure calls starts again (a call's result may
        read the turn and the phase, which a world's snapshot leaves out)."""
        self.where = (self.where[0], phase)
        self.run.memo.clear()
        for b in states:
            b.world.phase = phase
        if phase == "end" and not log and states and \
                rolled_now(self.ruleset, states[0].world, False):
            states = self._forget_order(states)
        return states

    def _forget_order(self, states):
        """At the end of a turn whose next turn rolls initiative again, the order of
        this one can no longer change the result: states that differ only in it merge
        (half the states of a two-sided game, every turn)."""
        merged = Merged()
        for b in states:
            if b.locals["@order"] is not None or b.locals["@units"] is not None:
                b = b.fork(Fraction(1), False)
                b.locals["@order"] = b.locals["@units"] = None
            merged.add(b)
        return merged.branches()

    def initiative(self, states):
        """The order of sides (and of units, `per: unit`) as `play` rolls it, every roll
        and reroll of ties and the winner's choice branched over (game/initiative.py)."""
        merged = Merged()
        for b in states:
            for child, order, units in initiative_odds(self.ruleset, b, self.rankings):
                child.locals["@order"], child.locals["@units"] = order, units
                merged.add(child)
        return merged.branches()

    def change(self, states, change):
        """Deterministic bookkeeping on each state's own copy of its world."""
        merged = Merged()
        for b in states:
            child = b.fork(Fraction(1), True)
            change(child.world)
            merged.add(child)
        return merged.branches()

    def steps(self, states, steps, names_of, kind: str):
        if not steps:
            return states
        merged = Merged()
        self.loc = steps[0].loc
        for b in states:
            names = names_of(b.world)
            if names is None:
                merged.add(b)
                continue
            merged.extend(self._segment(explore_in_frame, steps[0].loc, b, steps, names, _GAME))
        return merged.branches()

    def _foresee(self, made: list, left: int) -> None:
        """After FORESEE_AFTER states of one piece of the turn (a phase, one unit's steps
        in it) have played it, the `left` ones still to come are foreseen as loop_cost
        foresees a loop's passes that do not grow: each at least the least work of a
        recent one (the later half of those made), so that a phase played in many states
        whose work will pass the turn's budget is refused early.  Unlike a loop's passes,
        which an `until` may end, every state left will play its piece: the forecast runs
        to the last of them."""
        done = len(made)
        if done < FORESEE_AFTER or not left:
            return
        least = min(made[done // 2:])
        now = self.turn_work + self.run.work
        if now + least * left > self.turn_budget:
            self._refuse(self.loc, f"after {now:,} in this turn, the {left:,} states still to "
                                   f"play this part of it would work at least {least * left:,} "
                                   f"more ({least:,} or more each, as the last "
                                   f"{done - done // 2:,} did)")

    def end_phase(self, states):
        merged = Merged()
        for b in states:
            merged.extend(self._segment(close_batch, None, b))
        return merged.branches()

    def _segment(self, work, loc, *args):
        """`work(*args)`, one state's piece of the turn, within the exact-work budget of
        one enumeration (a hostile segment is refused after the work one procedure's
        odds may do); its work then counts towards the turn's, refused at `loc` once past
        FORKS_PER_TURN times the budget."""
        run = self.run
        self.turn_work += run.work   # what the turn did between segments
        run.work = 0
        ends = work(*args)
        self.turn_work += run.work
        run.work = 0
        if self.turn_work > self.turn_budget:
            self._refuse(loc, f"{self.turn_work:,} so far")
        return ends

    def _refuse(self, loc, why: str):
        self.turn_work = 0
        raise LimitError(
            f"exact odds of one turn would work out more than {self.turn_budget:,} branches "
            f"(the exact-work budget, `forks`, which every unit's or side's steps in every "
            f"state of the turn share): {why}", loc, code="limit-forks",
            hint=where_to_raise("forks"))

    def victory(self, states, turn):
        """Each state's victory check as `play._victory`: the first condition that holds
        for some side ends that state's game (a random condition is branched over)."""
        still = Merged()
        for b in states:
            for child, winner, reason in self._verdicts(b):
                if reason is None:
                    still.add(child)
                else:
                    self._finish(child, winner, reason, turn)
        return still.branches()

    def _verdicts(self, b):
        """`_check` of a state, remembered by its world, turn and phase (what a victory
        condition can read): a world unchanged since the last check, or equal to another
        state's, is judged once.  [(child, winner, reason)]."""
        world = b.world
        key = (world_snapshot(world), world.turn, world.phase)
        known = self.verdicts.get(key)
        if known is None:
            known = self.verdicts[key] = [(child.weight / b.weight, winner, reason)
                                          for child, winner, reason in self._check(b, 0, 0)]
        if len(known) == 1 and known[0][0] == 1:
            return [(b, known[0][1], known[0][2])]
        return [(b.fork(p, False), winner, reason) for p, winner, reason in known]

    def turn_done(self, states):
        self.largest = max(self.largest, len(states))

    def turn_limit(self, states, max_turns):
        for b in states:
            self._finish(b, None, f"turn limit ({max_turns}) reached", max_turns)

    # ------------------------------------------------------------------- ends
    def _finish(self, b, winner, reason, turn):
        key = (winner, reason, turn, world_snapshot(b.world))
        have = self.finished.get(key)
        if have is not None:
            have[0] += b.weight
        else:
            self.finished[key] = [b.weight, winner, reason, turn, b.world]

    def _check(self, b, vi, si):
        victories = self.ruleset.turn.victory
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


# the budgets a scenario may raise for itself (the schema's `scenarios.*.budgets`;
# `steps` is the ruleset's alone)


def _stopped_hint(turn: int, code: str | None, scenario: str) -> str:
    """What a game stopped by a limit can do instead: simulate it, ask for the turns that
    fit (none when the first does not: `--turns 1` would stop the same way), or raise the
    budget that stopped it (its code, `limit-forks`, names it) in the ruleset or, for
    this scenario alone, in its own `budgets:`."""
    if turn > 1:
        hint = (f"the game's states do not fit exact odds past turn {turn - 1}; use `rulecraft "
                f"simulate` for this scenario, or --turns {turn - 1} for the odds of its first turns")
    else:
        hint = ("the game's first turn does not fit exact odds; use `rulecraft simulate` for "
                "this scenario")
    budget = (code or "").removeprefix("limit-")
    if budget not in BUDGETS:
        return hint
    return f"{hint}; if the exact odds are meant, {where_to_raise(budget, scenario)}"


def game_odds(ruleset, scenario_name: str | None = None, turns: int | None = None,
              track: list[str] | None = None, given: str | None = None) -> GameOdds:
    """The exact distribution of a scenario's result: winner ("no winner" when the turn
    limit ends it, as `play` and `simulate` name it), length in turns, survivors per side and
    tracked expressions at the end (sides by name, `units`, `turn`, `winner`, `turns`), optionally given an event."""
    if ruleset.turn is None:
        raise UsageError(f"{ruleset.id} declares no turn structure to play")
    scenario = scenario_of(ruleset, scenario_name)
    max_turns = scenario.max_turns or ruleset.turn.max_turns
    if turns is not None:
        if turns < 1:
            raise UsageError("--turns must be at least 1")
        max_turns = min(max_turns, turns)
    observed = [Observed("--track", t) for t in track or []]
    condition = Observed("--given", given) if given is not None else None
    game = ExactGame(ruleset, scenario, max_turns)
    with heap_held():
        in_room(game.play)
    winners, lengths, held = {}, {}, Fraction(0)
    survivors = {name: {} for name in game.start.world.sides}
    tracked = {o.text: {} for o in observed}
    for weight, winner, reason, n_turns, world in game.finished.values():
        names = {"turn": n_turns, "units": [u for u in world.units.values() if u.alive],
                 "sides": list(world.sides.values()), **world.sides,
                 "winner": winner or NO_WINNER, "turns": n_turns}
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
        key = winner or NO_WINNER
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
                v = outcome_key(value)
                tracked[o.text][v] = tracked[o.text].get(v, 0) + weight * Fraction(w, dist.total)
    if condition is not None and held == 0:
        raise UsageError(f"--given {given}: it never holds, so there is nothing to condition on")
    scale = 1 / held if condition is not None else Fraction(1)
    return GameOdds(scenario.name, to_distribution(winners, scale), to_distribution(lengths, scale),
                    {k: to_distribution(d, scale) for k, d in survivors.items()},
                    {k: to_distribution(d, scale) for k, d in tracked.items()}, max_turns,
                    given, held if condition is not None else None, choices_json(game.run),
                    game.largest)
