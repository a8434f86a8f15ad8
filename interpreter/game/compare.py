"""`simulate RULESET --compare HOUSE`: the same scenario under both rulesets, game i
with the same seed on both sides (`game_seed`), and the paired difference in win rates
and game length with a 95% interval.

Pairing: for game i let x_i be 1 if the side won under the base and y_i the same under
the house rule; the difference in win rate is the mean of d_i = y_i - x_i and its
interval mean ± 1.96 · sd(d) / √n (the normal interval for a mean of paired
differences).  Games whose dice fall the same way on both sides give d_i = 0, so the
interval is narrower than the one of two independent simulations.  Game length is
treated the same way.
"""
from __future__ import annotations

import math
from ..records import record


from ..errors import UsageError
from ..expr.rolling import make_rng
from ..limits import MAX_RUNS
from .play import scenario_of
from .simulate import SimulationSummary, play_games, summary_of


def paired_interval(diffs: list[float], z: float = 1.96) -> dict:
    """Mean of paired differences with its normal 95% interval."""
    n = len(diffs)
    mean = sum(diffs) / n
    if n < 2:
        return {"mean": mean, "ci95": [mean, mean]}
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    half = z * math.sqrt(var / n)
    return {"mean": mean, "ci95": [mean - half, mean + half]}


@record
class Comparison:
    base: str
    house: str
    before: SimulationSummary
    after: SimulationSummary
    win_diff: dict          # side -> {"mean", "ci95"} (rate after - rate before)
    turns_diff: dict        # {"mean", "ci95"} (turns after - turns before)
    same_outcome: int       # games with the same winner on both sides

    def as_json(self) -> dict:
        return {"base": self.base, "house": self.house, "scenario": self.before.scenario,
                "runs": self.before.runs, "seed": self.before.seed,
                "before": self.before.as_json(), "after": self.after.as_json(),
                "difference": {"win_rate": self.win_diff, "turns": self.turns_diff,
                               "same_winner": self.same_outcome}}


def compare(base, house, scenario_name: str | None, runs: int, seed: int | None = None,
            progress=None, track: list[str] | None = None, workers: int = 1) -> Comparison:
    """Play `runs` games of the scenario under `base` and under `house`, game i with the
    seed `game_seed(seed, i)` on both sides (both in the same worker, on `workers`
    processes: the result is the same for every number of workers)."""
    if not 1 <= runs <= MAX_RUNS:
        raise UsageError(f"--runs must be between 1 and {MAX_RUNS}")
    scenario = scenario_of(base, scenario_name)
    if scenario.name not in house.scenarios:
        raise UsageError(f"{house.chain_name} has no scenario {scenario.name!r}")
    _, seed = make_rng(seed)
    track = list(track or [])
    pairs = play_games([base, house], scenario.name, runs, seed, workers, progress, track)
    before = summary_of(scenario.name, runs, seed, [a for a, _ in pairs], track)
    after = summary_of(scenario.name, runs, seed, [b for _, b in pairs], track)
    sides = sorted({str(a[0]) for a, _ in pairs} | {str(b[0]) for _, b in pairs})
    win_diff = {side: paired_interval([float(str(b[0]) == side) - float(str(a[0]) == side)
                                       for a, b in pairs]) for side in sides}
    turns_diff = paired_interval([float(b[1] - a[1]) for a, b in pairs])
    same = sum(1 for a, b in pairs if str(a[0]) == str(b[0]))
    return Comparison(base.chain_name, house.chain_name, before, after, win_diff, turns_diff, same)
