"""Start-up with a kept model: a command whose rules are read back from the cache loads
no library the model was built with (lark, PyYAML, jsonschema) and none of the builder
or the checks; `roll` loads no rule machinery at all; and what the cache brings back
(the compiled steps of table cells, the initiative choice) is what building makes.
The test session keeps its caches in a folder of its own (tests/conftest.py)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter.errors import Location
from interpreter.lang.parse import parse_expression
from interpreter.resources import cache_dir

ROOT = Path(__file__).resolve().parent.parent
NEVER_WARM = ["lark", "yaml", "jsonschema", "interpreter.lang.grammar", "interpreter.model.build",
              "interpreter.analysis.check", "interpreter.source.compose", "interpreter.source.schema"]
NOT_FOR_ROLL = ["yaml", "jsonschema", "interpreter.source.load", "interpreter.model.build",
                "interpreter.game.api", "rich.console", "rich.table"]

PROBE = """
import contextlib, io, json, sys
from interpreter.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[2:])
print(json.dumps([code, [m for m in json.loads(sys.argv[1]) if m in sys.modules]]))
"""


def _loaded(argv: list[str], watched: list[str], cache: Path) -> tuple[int, list[str]]:
    """(exit status, which of `watched` a fresh `rulecraft argv` process imported)."""
    env = {**os.environ, "RULECRAFT_CACHE_DIR": str(cache)}
    env.pop("RULECRAFT_NO_CACHE", None)
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(watched), *argv], cwd=ROOT,
                          env=env, capture_output=True, text=True, check=True)
    code, loaded = json.loads(done.stdout.splitlines()[-1])
    return code, loaded


def test_the_session_keeps_its_caches_apart_from_the_users():
    where = cache_dir()
    assert where is not None and where == Path(os.environ["RULECRAFT_CACHE_DIR"])
    assert "rulecraft-test-cache-" in where.name
    assert not str(where).startswith(os.path.join(os.path.expanduser("~"), ".cache"))


@pytest.fixture(scope="module")
def warm_cache(tmp_path_factory):
    """A cache folder holding the tanks model (one command run to fill it)."""
    cache = tmp_path_factory.mktemp("warm")
    code, loaded = _loaded(["validate", "tanks"], NEVER_WARM, cache)
    assert code == 0 and "yaml" in loaded and "lark" in loaded   # it was built, the long way
    return cache


@pytest.mark.parametrize("argv", [
    ["run", "tanks", "shoot", "--odds"],
    ["run", "tanks", "shoot", "--seed", "2"],
    ["play", "tanks", "--seed", "1"],
    ["validate", "tanks"],
])
def test_a_command_on_a_kept_model_loads_no_builder(warm_cache, argv):
    code, loaded = _loaded(argv, NEVER_WARM, warm_cache)
    assert code == 0 and loaded == []


@pytest.mark.parametrize("argv,watched", [
    (["play", "tanks", "--seed", "1"], ["rich"]),
    (["run", "tanks", "shoot", "--seed", "2"], ["rich"]),
    (["run", "tanks", "shoot", "--odds"], ["rich"]),
    (["validate", "tanks"], ["rich"]),
    (["run", "tanks", "shoot", "--odds", "--json"], ["rich"]),
    (["roll", "2d6"], ["rich"]),
])
def test_plain_output_loads_no_rich_console(warm_cache, argv, watched):
    """To a pipe (the probe's stdout), styled text and tables that fit are written without
    rich (render/console.py, render/styled.py, render/long_table.py)."""
    code, loaded = _loaded(argv, watched, warm_cache)
    assert code == 0 and loaded == []


@pytest.mark.parametrize("argv,watched", [
    (["roll", "2d6"], NOT_FOR_ROLL),
    (["roll", "4d6kh3", "--seed", "1"], NOT_FOR_ROLL),
    (["odds", "2d6"], NOT_FOR_ROLL[:-2]),   # odds draws its table
])
def test_a_roll_loads_no_rule_machinery(tmp_path, argv, watched):
    code, loaded = _loaded(argv, watched, tmp_path)
    assert code == 0 and loaded == []


@pytest.mark.parametrize("base", [
    None,
    Location("tanks.yaml", 12, 9, source="  order: winner_chooses"),
    Location("tanks.yaml", 3, 1),
])
def test_the_initiative_choice_is_the_parsed_list(base):
    from interpreter.game.initiative import CHOICES, choice_options
    parsed, built = parse_expression(CHOICES, base), choice_options(base)
    assert built == parsed and built.loc == parsed.loc
    assert [item.loc for item in built.items] == [item.loc for item in parsed.items]


def test_table_cells_come_back_compiled(monkeypatch, tmp_path):
    """A kept model's `steps` cells run with the steps the build compiled: reading the
    model back parses nothing, running a cell parses nothing."""
    monkeypatch.setenv("RULECRAFT_CACHE_DIR", str(tmp_path))
    from interpreter.game import rules_cache
    from interpreter.game.api import load_ruleset
    from interpreter.lang import grammar
    from interpreter.run.cells import RUN
    from interpreter.tables.rows import StepsCell
    built = load_ruleset("tanks")
    cells = [c for t in built.tables.values() for r in getattr(t, "rows", [])
             for c in (r.cells or {}).values() if isinstance(c, StepsCell)]
    assert cells, "tanks has steps cells"

    def no_parsing(*args, **kwargs):
        raise AssertionError("parsed again")
    monkeypatch.setattr(grammar, "syntax_tree", no_parsing)
    kept, _ = rules_cache.read(built.path)
    kept_cells = [c for t in kept.tables.values() for r in getattr(t, "rows", [])
                  for c in (r.cells or {}).values() if isinstance(c, StepsCell)]
    assert len(kept_cells) == len(cells)
    held = {id(steps) for *_, steps in kept.cell_steps}
    assert all(id(RUN.steps_of(cell, None)) in held for cell in kept_cells)
    assert [str(s) for s in RUN.steps_of(kept_cells[0], None)] == \
        [str(s) for s in RUN.steps_of(cells[0], None)]
