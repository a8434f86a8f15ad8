"""The exact odds of each option of a choice, for the person asked at the prompt.

What an option is worth is what the rules do next with it, so the odds of an option are
those of the steps that follow the `choose` -- the rest of its block, and of each block
around it up to the end of its procedure or phase step list (not past the end of a loop's
body: the next pass is a choice of its own) -- enumerated exactly (`run.exact`, the
semantics of `run --odds`) on a copy of the game as it stands, with the chosen name bound
to the option.  Nothing of the real game changes.

From the branches that come out, an option is summarised by what any ruleset has:

* each procedure those steps call with the option as an argument (the option's
  procedure: `attack(unit, foe)` for the option `foe`): its results, in the order its
  `outcomes:` declares them;
* the chance each unit standing now is destroyed;
* when the option is a unit, the average change of its numbers (`armour.front`,
  `hits`) that the steps change, largest first;
* the result of the procedure the choice is in, when the steps reach its `return` and
  the result is not certain.

Counting is bounded: each option may take `limits.PROMPT_ODDS_SECONDS` of processor time
(processor time, so that a busy machine does not change what is shown), all the options of
one prompt `PROMPT_ODDS_TOTAL`, and enumeration has its usual limit of distinct states.
An option whose odds cannot be counted says why (`OptionOdds.why_not`) instead of keeping
the player waiting: too many outcomes, out of time, or a later choice of the person's own
that no `prefer:` settles.  Only procedures called as steps (or `let x = proc(...)`) are
watched for the option; one called inside an expression is counted but not named.
"""
from __future__ import annotations

import math
import signal
import threading
import time
from contextlib import contextmanager
from ..records import record, field
from fractions import Fraction
from typing import Any, Mapping

from ..dice.distribution import Distribution
from ..errors import LimitError, RulecraftError
from ..expr import budget
from ..lang.resolve import resolve
from ..lang.steps import ChooseStep, ForStep, RepeatStep, all_steps
from ..limits import PROMPT_ODDS_SECONDS, PROMPT_ODDS_TOTAL
from ..run.exact import explore_steps
from ..run.frames import Branch, Enumeration, rebind_units
from ..run.heap import held as heap_held
from ..run.stack import in_room
from ..state.world import Unit
from .runs import outcome_key


@record
class CallOdds:
    """One procedure the option is passed to: its results when it is called."""

    procedure: str
    results: Distribution     # over the branches in which it is called
    called: Fraction          # the chance it is called at all
    order: list = field(default_factory=list)   # its declared `outcomes:`


@record
class OptionOdds:
    """What the rules do next with one option, counted exactly (or why it could not be)."""

    option: Any
    calls: list[CallOdds] = field(default_factory=list)
    destroyed: list[tuple[str, Fraction]] = field(default_factory=list)   # (unit, chance)
    changes: list[tuple[str, Fraction]] = field(default_factory=list)  # (field, mean change)
    result: Distribution | None = None   # the enclosing procedure's result, if uncertain
    order: list = field(default_factory=list)   # that procedure's declared outcomes
    capped: Fraction = Fraction(0)       # mass stopped at a loop's max
    prefer_later: bool = False           # a later choice of the person's taken by `prefer:`
    why_not: str | None = None


def option_odds(ruleset, step: ChooseStep, options: list, frame,
                seconds: float = PROMPT_ODDS_SECONDS, total: float = PROMPT_ODDS_TOTAL):
    """The odds of every option of `step`, one at a time as each is counted (a prompt
    shows each line as it comes), asked in `frame` (a sampled run's frame, or a prompt's
    view of compiled steps: `.world` and `.locals`).  Each option may take `seconds` of
    processor time, all of them `total`."""
    found = continuation(ruleset, step)
    if found is None:
        for option in options:
            yield OptionOdds(option, why_not="the choice's steps were not found")
        return
    chain, owner = found
    deadline = time.process_time() + total
    for option in options:
        share = min(seconds, deadline - time.process_time())
        yield _one_option(ruleset, step, chain, owner, option, frame, share)


# -------------------------------------------------------------- the steps that follow


def step_lists(ruleset):
    """Every top-level step list of a ruleset: procedures (with their owner), status
    triggers, the turn's start and end, phases, reactions, table cells."""
    for proc in ruleset.procedures.values():
        yield proc.steps, proc
    for status in ruleset.statuses.values():
        for steps in status.on.values():
            yield steps, None
    turn = ruleset.turn
    if turn is not None:
        yield turn.start_of_turn, None
        yield turn.end_of_turn, None
        for phase in turn.phases:
            yield phase.steps, None
        for reaction in turn.reactions:
            yield reaction.steps, None
    for *_, steps in ruleset.cell_steps:
        yield steps, None


def continuation(ruleset, step: ChooseStep):
    """(the step lists that follow `step`, innermost first; the procedure whose `return`
    they may reach, or None), or None when the step is in no list of the ruleset."""
    for steps, proc in step_lists(ruleset):
        path = _path_to(steps, step)
        if path is not None:
            chain, in_loop = path
            return chain, None if in_loop else proc
    return None


def _path_to(steps, wanted):
    """([rest of each block from the innermost out], whether a loop was crossed)."""
    for i, s in enumerate(steps):
        if s is wanted:
            return [tuple(steps[i + 1:])], False
        for block in s.blocks():
            inner = _path_to(block, wanted)
            if inner is None:
                continue
            chain, in_loop = inner
            if in_loop or isinstance(s, (ForStep, RepeatStep)):
                return chain, True      # the loop's next pass is not this option's
            return chain + [tuple(steps[i + 1:])], False
    return None


def later_choices(ruleset, chain) -> list[ChooseStep]:
    """The `choose` steps the steps that follow may reach: their own and those of every
    procedure they call, transitively (calls as the resolver names them)."""
    found, seen = [], set()
    pending = [steps for steps in chain]
    while pending:
        steps = pending.pop()
        found.extend(s for s in all_steps(steps) if isinstance(s, ChooseStep))
        for name in resolve(steps).calls():
            proc = ruleset.procedures.get(name)
            if proc is not None and name not in seen:
                seen.add(name)
                pending.append(proc.steps)
    return found


# ------------------------------------------------------------------- one option


class _PersonsChoice(BaseException):
    """Counting reached a choice the person will make later."""


class _OutOfTime(BaseException):
    """The option's share of the prompt's time ran out."""


class _Person:
    """How the counting makes a later choice of the person's (`Enumeration.asked`): it
    stops there (a later choice of the person's cannot be foreseen) or, when every later
    choice has a `prefer:`, answers as `prefer` (the rules' own suggestion) and notes
    that it did."""

    def __init__(self, by_prefer: bool):
        self.by_prefer, self.used = by_prefer, False

    def __call__(self, step) -> str:
        if not self.by_prefer:
            raise _PersonsChoice
        self.used = True
        return "prefer"


def _one_option(ruleset, step, chain, owner, option, frame, seconds) -> OptionOdds:
    odds = OptionOdds(option)
    if seconds <= 0:
        odds.why_not = "out of time"
        return odds
    by_prefer = all(c.prefer is not None for c in later_choices(ruleset, chain))
    try:
        ends, seen, person = _count(ruleset, step, chain, option, frame, seconds, by_prefer)
    except _PersonsChoice:
        odds.why_not = "a later choice of yours decides"
        return odds
    except _OutOfTime:
        odds.why_not = "too slow to count"
        return odds
    except (LimitError, RulecraftError) as err:
        odds.why_not = _short(err)
        return odds
    odds.prefer_later = person.used
    _summarise(odds, ruleset, ends, seen, owner, frame.world)
    return odds


def _short(err: RulecraftError) -> str:
    if isinstance(err, LimitError):
        return "too many outcomes to count"
    return f"not countable exactly ({err.message})"


def _count(ruleset, step, chain, option, frame, seconds, by_prefer):
    """The end branches of the steps that follow, with the option bound, on a copy of
    the world; what the watched calls returned; the person's policy in the copy."""
    world = frame.world.copy()
    person = _Person(by_prefer)
    names = dict(frame.locals)
    names[step.var] = option
    rebind_units(names, world)
    seen: dict[str, dict] = {}
    env = getattr(getattr(frame, "ctx", None), "env", None)
    globals_ = getattr(env, "globals", None) or ruleset.globals
    start = Branch(Fraction(1), locals_=names, world=world,
                   globals_=_Watched(globals_, names[step.var], seen),
                   run=Enumeration(asked=person))
    before = budget.begin(ruleset.budget("steps"))
    try:
        with _time_limit(seconds), heap_held():
            branches = [start]
            for steps in chain:
                branches = in_room(explore_steps, steps, branches)
    finally:
        budget.end(before)
    return branches, seen, person


@contextmanager
def _time_limit(seconds: float):
    """Raise _OutOfTime in the counting after `seconds` of processor time (a profiling
    timer's signal; where there is none -- not the main thread, no setitimer -- the
    counting has only its limit of distinct states).  The timer rings again every 10 ms
    until the counting stops: a signal that lands in a finaliser (a weak reference's
    callback) has its exception ignored by Python, and one ring alone would then be lost."""
    usable = hasattr(signal, "setitimer") and hasattr(signal, "SIGPROF") \
        and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    armed = [True]

    def ring(signum, stack):
        if armed[0]:
            raise _OutOfTime

    old = signal.signal(signal.SIGPROF, ring)
    signal.setitimer(signal.ITIMER_PROF, max(seconds, 0.001), 0.01)
    try:
        yield
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


class _Watched(Mapping):
    """The globals as the steps that follow see them, each procedure watched: when one is
    called from those steps with the option among its arguments, its results are kept."""

    def __init__(self, inner: Mapping, option, seen: dict):
        self.inner, self.option, self.seen = inner, option, seen

    def __getitem__(self, key):
        value = self.inner[key]
        if hasattr(value, "explore_call"):
            return _WatchedProcedure(value, self)
        return value

    def __iter__(self):
        return iter(self.inner)

    def __len__(self):
        return len(self.inner)

    def __contains__(self, key):
        return key in self.inner

    def holds_option(self, args, kwargs) -> bool:
        return any(_same(v, self.option) for v in list(args) + list(kwargs.values()))


def _same(value, option) -> bool:
    if isinstance(option, Unit):
        return isinstance(value, Unit) and value.uid == option.uid
    if isinstance(value, Unit):
        return False
    try:
        return value is option or bool(value == option)
    except Exception:   # values that do not compare (a row with a list): not the option
        return False


class _WatchedProcedure:
    """A procedure whose results are noted when the option is passed to it."""

    def __init__(self, proc, watched: _Watched):
        self.proc, self.watched = proc, watched

    def __getattr__(self, name):
        return getattr(self.proc, name)

    def explore_call(self, args, kwargs, loc, branch, weight):
        noted = self.watched.holds_option(args, kwargs)
        ends = self.proc.explore_call(args, kwargs, loc, branch, weight)
        if noted:
            results = self.watched.seen.setdefault(self.proc.name, {})
            for back, result in ends:
                key = outcome_key(result)
                results[key] = results.get(key, 0) + back.weight
        return ends


# ---------------------------------------------------------------------- summary


def _summarise(odds: OptionOdds, ruleset, ends, seen, owner, world) -> None:
    for name, weights in seen.items():
        called = sum(weights.values(), Fraction(0))
        proc = ruleset.procedures.get(name)
        odds.calls.append(CallOdds(name, _distribution(weights), min(called, Fraction(1)),
                                   list(getattr(proc, "outcomes", None) or [])))
    standing = [u for u in world.units.values() if u.alive]
    for unit in standing:
        lost = sum((b.weight for b in ends if not b.world.units[unit.uid].alive), Fraction(0))
        if lost:
            odds.destroyed.append((unit.name, lost))
    if isinstance(odds.option, Unit):
        odds.changes = _changes(odds.option, ends)
    if owner is not None:
        returned = {}
        for b in ends:
            if b.returned:
                key = outcome_key(b.result)
                returned[key] = returned.get(key, 0) + b.weight
        if len(returned) > 1:
            odds.result = _distribution(returned)
            odds.order = list(owner.outcomes or [])
    odds.capped = sum((b.weight for b in ends if b.capped), Fraction(0))


SHOWN_CHANGES = 3   # numbers of the option unit a prompt names at most


def _changes(unit: Unit, ends) -> list[tuple[str, Fraction]]:
    """(dotted field, mean change) of the unit's numbers that change on average."""
    before = dict(_numbers(unit.fields))
    means: dict[str, Fraction] = {}
    for b in ends:
        after = dict(_numbers(b.world.units[unit.uid].fields))
        for name, value in before.items():
            if name in after and after[name] != value:
                means[name] = means.get(name, Fraction(0)) + b.weight * (Fraction(after[name]) - Fraction(value))
    moved = [(n, m) for n, m in means.items() if m]
    moved.sort(key=lambda nm: -abs(nm[1]))
    return moved[:SHOWN_CHANGES]


def _numbers(fields: dict, prefix: str = ""):
    """(dotted name, number) for every number of a unit's fields, records included."""
    for name, value in fields.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, (int, Fraction)):
            yield prefix + str(name), value
        elif isinstance(value, dict):
            yield from _numbers(value, f"{prefix}{name}.")


def _distribution(weights: dict) -> Distribution:
    """Weights (Fractions of the whole) as a distribution over their own total."""
    total = sum(weights.values(), Fraction(0))
    shares = {v: Fraction(w) / total for v, w in weights.items()}
    scale = math.lcm(*(s.denominator for s in shares.values()))
    return Distribution.from_weights({v: int(s * scale) for v, s in shares.items()})
