"""Shared test set-up: the test rulesets' house rules extend `tests/rulesets/duel.yaml`
from other folders (their own, or a test's temporary folder), which a ruleset may only
do where the user allowed it (`--allow-outside`, `allow_outside`): the tests allow
that one folder, as a user would.

The caches rulecraft keeps between runs (the built parser, schema marks, checked models)
go to a temporary folder of this test session, named by `RULECRAFT_CACHE_DIR` before any
test runs (the commands the tests start inherit it), and removed at the end: the suite
never reads what a user's own runs kept in `~/.cache/rulecraft`, nor leaves its hundreds
of temporary rulesets' models there."""
import os
import shutil
import tempfile
from pathlib import Path

import pytest

SESSION_CACHE = tempfile.mkdtemp(prefix="rulecraft-test-cache-")
os.environ["RULECRAFT_CACHE_DIR"] = SESSION_CACHE

from interpreter.source.load import allow_outside  # noqa: E402 - after the cache is set

TEST_RULESETS = Path(__file__).resolve().parent / "rulesets"


allow_outside([TEST_RULESETS])   # for module-scoped fixtures too, set up before any test


def pytest_unconfigure(config):
    """The session's cache goes with it."""
    shutil.rmtree(SESSION_CACHE, ignore_errors=True)


@pytest.fixture(autouse=True)
def _test_rulesets_may_be_extended():
    """Each test starts (and leaves) with the folder allowed; the command line sets its
    own list when a test runs `main()`."""
    allow_outside([TEST_RULESETS])
    yield
    allow_outside([TEST_RULESETS])


@pytest.fixture
def agrees_with_simulate():
    """`check(rules, scenario, runs, seed)`: every winner's exact chance from `odds-game`
    lies inside the 99.9% interval (z = 3.29, so that a flaky failure stays rare) of
    `simulate`'s frequency over `runs` games (both name a game without a winner NO_WINNER)."""
    from interpreter.game.simulate import simulate, wilson

    def check(rules, scenario, runs, seed):
        odds = rules.odds_game(scenario)
        summary = simulate(rules, scenario, runs, seed=seed)
        for side in odds.winner.values():
            games = summary.wins.get(side, 0)
            low, high = wilson(games, runs, z=3.29)
            assert low <= float(odds.winner.probability(side)) <= high, side
    return check
