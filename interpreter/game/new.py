"""`rulecraft new`: a starting rule file to write a game in, or an editable copy of a
bundled ruleset.  Bundled ids always run the installed copy; a copy made here is the
user's own file (`rulecraft play ./my-tanks/tanks.yaml`)."""
from __future__ import annotations

import re
from pathlib import Path

from ..errors import UsageError
from ..model.build import bundled
from ..source.schema import schema_path
from ..suggest import did_you_mean

MODELINE = re.compile(r"^# yaml-language-server: \$schema=.*$", re.MULTILINE)

STARTER = '''# yaml-language-server: $schema={schema}
#
# A new ruleset.  Check it with `rulecraft validate {name}`, try a procedure with
# `rulecraft run {name} attack --odds`, play it with `rulecraft play {name}`.
# docs/rule-format.md describes every section.

ruleset: {id}
title: "{title}"
source: "the rulebook's file or title"
rulings: []          # every place the text is unclear: what it says, what we do, why

kinds:
  soldier:
    stats: {{skill: 4, armour: 4}}

tables:
  to_hit:
    title: Roll to hit
    key: skill
    domain: [1, 6]
    rows:
      "1-2": 5
      "3-4": 4
      "5-6": 3

procedures:
  attack:
    description: One attack - roll to hit on the table, then beat the target's armour.
    params:
      attacker: {{type: unit, kind: soldier}}
      target: {{type: unit, kind: soldier}}
    steps:
      - let hit = d6
      - if: hit < to_hit[attacker.skill]
        then: ['return "miss"']
      - let wound = d6
      - if: wound < target.armour
        then: ['return "saved"']
      - destroy(target)
      - return "killed"
    outcomes: [miss, saved, killed]
    narrate: "{{attacker.name}} attacks {{target.name}}: needs {{to_hit[attacker.skill]}}+, rolled {{hit}} - {{result}}"

turn:
  initiative: {{roll: d6, per: side, order: highest_first, ties: reroll}}
  phases:
    - name: combat
      each: unit
      steps:
        - if: count(enemies(unit)) > 0
          then:
            - choose: foe
              from: enemies(unit)
              label: target to attack
            - attack(unit, foe)
  victory:
    - description: the last side standing wins
      when: count_alive(side) > 0 and count(enemies(side)) == 0
  max_turns: 20

scenarios:
  default:
    description: Two small squads.
    sides:
      red: {{policy: random, units: [{{kind: soldier, name: Red, count: 3}}]}}
      blue: {{policy: first, units: [{{kind: soldier, name: Blue, count: 3}}]}}
'''


def new_ruleset(path: str, base: str | None = None, force: bool = False) -> list[Path]:
    """Write a starting rule file at `path`, or a copy of the bundled ruleset `base`
    (its main file at `path` when that ends in .yaml, else in the directory `path`, with
    the other rule files and notes of its folder tree, subfolders kept).  Returns the files written, the main one first."""
    target = Path(path)
    if base is None:
        if target.suffix not in (".yaml", ".yml"):
            target = target / f"{target.name}.yaml"
        ident = re.sub(r"[^a-z0-9-]+", "-", target.stem.lower()).strip("-") or "my-game"
        text = STARTER.format(schema=schema_path().as_posix(), name=target.as_posix(), id=ident,
                              title=ident.replace("-", " ").title())
        return [_write(target, text, force)]
    source = _bundled_path(base)
    if target.suffix in (".yaml", ".yml"):
        main, folder = target, target.parent
    else:
        main, folder = target / source.name, target
    written = []
    # the whole folder tree: a bundled ruleset may keep its include fragments in a
    # subfolder (rules/jugger/parts/), where `validate rules/*/*.yaml` does not take them
    # for rulesets of their own
    others = sorted(p for p in source.parent.rglob("*")
                    if p.is_file() and p != source and p.suffix in (".yaml", ".yml", ".md")) \
        if source.parent.name != "house" else []
    planned = [(source, main)] + [(p, folder / p.relative_to(source.parent)) for p in others]
    for _, dest in planned:
        if dest.exists() and not force:
            raise UsageError(f"{dest} already exists", hint="choose another path, or add --force")
    for src, dest in planned:
        text = src.read_text(encoding="utf-8")
        if src.suffix != ".md":
            text = _with_schema(text)
        written.append(_write(dest, text, True))
    return written


def _bundled_path(ref: str) -> Path:
    entries = {e["id"]: e["path"] for e in bundled()}
    if ref in entries:
        return Path(entries[ref])
    raise UsageError(f"no bundled ruleset {ref!r}", hint=did_you_mean(ref, entries)
                     or "bundled: " + ", ".join(entries))


def _with_schema(text: str) -> str:
    """The schema modeline pointed at the installed schema, so the copy completes in an
    editor wherever it is."""
    line = f"# yaml-language-server: $schema={schema_path().as_posix()}"
    if MODELINE.search(text):
        return MODELINE.sub(lambda _m: line, text, count=1)
    return line + "\n" + text


def _write(path: Path, text: str, force: bool) -> Path:
    if path.exists() and not force:
        raise UsageError(f"{path} already exists", hint="choose another path, or add --force")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        raise UsageError(f"cannot write {path}: {err.strerror}") from None
    return path
