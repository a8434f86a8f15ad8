"""Shared test set-up: the test rulesets' house rules extend `tests/rulesets/duel.yaml`
from other folders (their own, or a test's temporary folder), which a ruleset may only
do where the user allowed it (`--allow-outside`, `allow_outside`): the tests allow
that one folder, as a user would."""
from pathlib import Path

import pytest

from interpreter.source.load import allow_outside

TEST_RULESETS = Path(__file__).resolve().parent / "rulesets"


allow_outside([TEST_RULESETS])   # for module-scoped fixtures too, set up before any test


@pytest.fixture(autouse=True)
def _test_rulesets_may_be_extended():
    """Each test starts (and leaves) with the folder allowed; the command line sets its
    own list when a test runs `main()`."""
    allow_outside([TEST_RULESETS])
    yield
    allow_outside([TEST_RULESETS])
