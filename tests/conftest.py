"""Shared test set-up: the test rulesets' house rules extend `tests/rulesets/duel.yaml`
from other folders (their own, or a test's temporary folder), which a ruleset may only
do where the user allowed it (`--allow-outside`, `allow_outside`): the tests allow
that one folder, as a user would."""
from pathlib import Path

import pytest

from interpreter.source.load import allow_outside

TEST_RULESETS = Path(__file__).resolve().parent / "rulesets"


@pytest.fixture(autouse=True)
def _test_rulesets_may_be_extended():
    allow_outside([TEST_RULESETS])
    yield
    allow_outside([])
