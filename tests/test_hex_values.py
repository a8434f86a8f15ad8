"""A scenario's map gives hexes terrain values of their own (issue #13): a wall's hits,
a hex's cost or cover, over its kind's values; `map:` bounds the map, its edge blocks;
`validate` finds unknown terrain, undeclared values and hexes off the map, with "did
you mean" (tests/rulesets/hex_values.yaml)."""
from pathlib import Path

import pytest

from interpreter.game.api import check_ruleset, load_ruleset

HERE = Path(__file__).parent
RULES = HERE / "rulesets" / "hex_values.yaml"


@pytest.fixture(scope="module")
def story():
    return [e["text"] for e in load_ruleset(RULES).play(None, 1).events if e["event"] == "emit"]


@pytest.mark.parametrize("line", [
    "walls 40 and 55",          # the hex's own hits over the kind's 55; the other wall's 55
    "cover 2 and 0",            # a clear hex's own cover over clear's declared 0
    "runner spent 6 mp, done",  # mud 3 (its own cost over rubble's 2) + rubble 2 + clear 1
    "rammer hits stone_wall with 40 hits",   # the wall met carries its own hits
    "stray stops at the edge after 2",       # from q 4, two hexes to q 6, the map's last
])
def test_a_hex_reads_its_own_values_in_play(story, line):
    assert line in story


# what the scenario says instead, the finding, its hint
@pytest.mark.parametrize("written,instead,code,hint", [
    ('"2,0": {terrain: stone_wall, hits: 40}', '"2,0": {terrain: stone_wal, hits: 40}',
     "unknown-name", "did you mean 'stone_wall'?"),
    ('"2,0": {terrain: stone_wall, hits: 40}', '"2,0": {terrain: stone_wall, hist: 40}',
     "unknown-field", "did you mean 'hits'?"),
    ('"1,1": {cover: 2}', '"1,1": {shade: 2}',
     "unknown-field", "declare it in space.terrain (a value of clear hexes: "
                      "clear: {values: {shade: 0}})"),
    ('"5,0": stone_wall', '"7,0": stone_wall', "off-map", "did you mean '6,0'?"),
    ('"5,0": stone_wall', '"5;0": stone_wall', "hex-key", 'e.g. "3,-1"'),
    ("Stray: [4, 1, 1]", "Stray: [4, 3, 1]", "off-map", "did you mean '4,2'?"),
])
def test_validate_finds_what_the_map_cannot_hold(tmp_path, written, instead, code, hint):
    text = RULES.read_text()
    assert written in text
    path = tmp_path / "map.yaml"
    path.write_text(text.replace(written, instead))
    findings = check_ruleset(path)
    assert [(f.code, f.hint) for f in findings] == [(code, hint)]
    assert findings[0].location.line == text[:text.index(written)].count("\n") + 1


def test_the_bundled_map_validates():
    assert check_ruleset(RULES) == []


@pytest.mark.parametrize("seed", [1, 3])
def test_the_compiled_game_ends_in_the_world_the_recorded_game_ends_in(seed):
    from interpreter.game.play import play
    rules = load_ruleset(HERE / "rulesets" / "hex_values.yaml")
    assert play(rules, None, seed, record=False).world.snapshot() == \
        play(rules, None, seed, record=True).world.snapshot()
