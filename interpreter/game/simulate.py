"""Simulating a scenario many times: per-game seeds independent of how games are split
among workers, the summary with Wilson intervals and tracked values."""
from __future__ import annotations

import math
import os
import random
from collections import Counter
from ..records import record, field
from fractions import Fraction

from ..errors import Location, UsageError
from ..expr.rolling import make_rng
from ..expr.sampled import Context, compile_sampler
from ..expr.values import json_value, sort_key
from ..lang.parse import parse_expression
from ..limits import MAX_RUNS
from ..run.frames import Scope
from ..source.load import allow_outside, allowed_outside
from .api import load_ruleset
from .play import NO_WINNER, GameResult, play, scenario_of
from .runs import hashable


# ---------------------------------------------------------------------- simulate


@record
class SimulationSummary:
    scenario: str
    runs: int
    seed: int
    wins: Counter
    turns: Counter
    survivors: dict
    tracked: dict = field(default_factory=dict)   # expression -> Counter of end values

    def as_json(self) -> dict:
        sides = {}
        for name, n in sorted(self.wins.items(), key=lambda kv: str(kv[0])):
            low, high = wilson(n, self.runs)
            sides[str(name)] = {"wins": n, "rate": n / self.runs, "ci95": [low, high]}
        mean_turns = sum(t * c for t, c in self.turns.items()) / self.runs
        return {"scenario": self.scenario, "runs": self.runs, "seed": self.seed,
                "results": sides, "turns": {"mean": mean_turns, "min": min(self.turns),
                                            "max": max(self.turns),
                                            "counts": {str(k): v for k, v in sorted(self.turns.items())}},
                "survivors_mean": {k: v / self.runs for k, v in sorted(self.survivors.items())},
                "tracked": {expr: _tracked_summary(counts, self.runs)
                            for expr, counts in self.tracked.items()}}


def _tracked_summary(counts: Counter, runs: int) -> dict:
    values = sorted(counts, key=sort_key)
    numeric = all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v in values)
    mean = float(sum(Fraction(v) * n for v, n in counts.items()) / runs) if numeric and values else None
    return {"mean": mean, "counts": [{"value": json_value(v), "count": counts[v]} for v in values]}


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a win rate."""
    if n == 0:
        return 0.0, 0.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def game_seed(seed: int, index: int) -> int:
    """The seed of game `index` of a simulation: independent of how games are split
    among workers, so the summary is the same whatever --workers is."""
    return random.Random(f"rulecraft:{seed}:{index}").randrange(2**63)


# What a worker process plays: its rulesets (one for simulate, base and house for
# simulate --compare) and the tracked expressions, set once per worker (inherited when
# the pool forks, loaded once by `_start_worker` otherwise).
_WORKER: dict = {}


def _start_worker(paths: list[str], track: list[str], outside: list[str] = ()) -> None:
    allow_outside(outside)   # a fresh process: the folders the user allowed, again
    _WORKER.update(rulesets=[load_ruleset(path) for path in paths], tracked=compile_tracks(track))


def _play_chunk(job):
    scenario, seed, start, stop = job
    return [_play_one(_WORKER["rulesets"], scenario, game_seed(seed, i), _WORKER["tracked"])
            for i in range(start, stop)]


def _play_one(rulesets, scenario: str, seed: int, tracked: list) -> tuple:
    """Game `seed` of the scenario under each ruleset: one `summarise` tuple per ruleset."""
    return tuple(summarise(r, play(r, scenario, seed, record=False), tracked) for r in rulesets)


def _pool(rulesets, track: list[str], tracked: list, workers: int):
    """Worker processes that each hold the rulesets once: forked from this process where
    the platform can and no thread is running (so nothing is loaded again), else started
    fresh, each loading the rulesets once."""
    import multiprocessing  # only when workers are asked for
    import threading
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        _WORKER.update(rulesets=list(rulesets), tracked=tracked)
        return multiprocessing.get_context("fork").Pool(workers)
    return multiprocessing.get_context("spawn").Pool(
        workers, initializer=_start_worker, initargs=([str(r.path) for r in rulesets], track,
                                                      allowed_outside()))


def play_games(rulesets, scenario: str, runs: int, seed: int, workers: int = 1,
               progress=None, track: list[str] | None = None) -> list[tuple]:
    """Games 0 .. runs-1 of the scenario, game i with the seed `game_seed(seed, i)` under
    every ruleset given; for each game a tuple of `summarise` results, one per ruleset, in
    the order of the games whatever `workers` is (so summaries made from them are the same
    for every K).  `simulate` plays one ruleset, `simulate --compare` two.  `workers` is
    capped at the machine's cores and at `runs`: more processes only cost memory."""
    workers = min(workers, runs, os.cpu_count() or 1)
    track = list(track or [])
    tracked = compile_tracks(track)
    games = []
    if workers <= 1:
        for i in range(runs):
            games.append(_play_one(rulesets, scenario, game_seed(seed, i), tracked))
            if progress:
                progress(i + 1)
        return games
    # chunks small enough to keep every worker busy to the end, large enough that
    # handing them out costs nothing next to the games
    chunk = max(1, min(50, runs // (workers * 8)))
    jobs = [(scenario, seed, s, min(runs, s + chunk)) for s in range(0, runs, chunk)]
    with _pool(rulesets, track, tracked, workers) as pool:
        for part in pool.imap(_play_chunk, jobs):
            games.extend(part)
            if progress:
                progress(len(games))
    return games


def compile_tracks(track: list[str]) -> list:
    return [(text, compile_sampler(parse_expression(text, Location(f"--track {text}", 1, 1, source=text)),
                                   False)) for text in track]


def summarise(ruleset, result: GameResult, tracked: list):
    """What a simulation keeps of one game: winner, length, survivors, tracked values
    (expressions evaluated on the final state; sides are reachable by name)."""
    values = {}
    for text, sample in tracked:
        world = result.world
        names = {"turn": world.turn, "units": [u for u in world.units.values() if u.alive],
                 "sides": list(world.sides.values()), **world.sides}
        ctx = Context(Scope(names, ruleset.globals, world), world.rng, None, world)
        values[text] = hashable(sample(ctx))
    return (result.winner or NO_WINNER, result.turns, result.survivors, values)


def simulate(ruleset, scenario_name: str | None, runs: int, seed: int | None = None,
             workers: int = 1, progress=None, track: list[str] | None = None) -> SimulationSummary:
    if not 1 <= runs <= MAX_RUNS:
        raise UsageError(f"--runs must be between 1 and {MAX_RUNS}")
    scenario = scenario_of(ruleset, scenario_name)
    _, seed = make_rng(seed)
    track = list(track or [])
    games = play_games([ruleset], scenario.name, runs, seed, workers, progress, track)
    return summary_of(scenario.name, runs, seed, [outcome for (outcome,) in games], track)


def summary_of(scenario: str, runs: int, seed: int, outcomes: list, track: list[str]):
    """The summary of games kept by `summarise` (also each side of `simulate --compare`)."""
    wins, turns, survivors = Counter(), Counter(), Counter()
    tracked_counts: dict = {text: Counter() for text in track}
    for winner, n_turns, alive, values in outcomes:
        wins[winner] += 1
        turns[n_turns] += 1
        for side, n in alive.items():
            survivors[side] += n
        for text, value in values.items():
            tracked_counts[text][value] += 1
    return SimulationSummary(scenario, runs, seed, wins, turns, dict(survivors), tracked_counts)
