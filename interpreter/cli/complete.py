"""Shell completion.  The scripts for bash, zsh and fish all ask `rulecraft __complete
WORDS...` for the candidates, so there is one implementation of what completes where:
commands; options of the command; ruleset ids where a RULESET goes; procedures after
`run RULESET`; tables after `tables RULESET`; scenarios after `--scenario`; sides after
`--ask`."""
from __future__ import annotations

import argparse

from ..errors import RulecraftError
from ..game.api import load_ruleset
from ..model.build import bundled
from .parsers import all_parsers

RULESET_FIRST = {"info", "tables", "run", "play", "simulate", "diff", "roll", "odds"}

SCRIPTS = {
    "bash": """# rulecraft completion for bash
_rulecraft() {
    local IFS=$'\\n'
    COMPREPLY=($(rulecraft __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _rulecraft rulecraft
""",
    "zsh": """#compdef rulecraft
# rulecraft completion for zsh
_rulecraft() {
    local -a candidates
    candidates=("${(@f)$(rulecraft __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
    compadd -a candidates
}
compdef _rulecraft rulecraft
""",
    "fish": """# rulecraft completion for fish
complete -c rulecraft -f -a '(rulecraft __complete (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)'
""",
}


def candidates(parser: argparse.ArgumentParser, words: list[str]) -> list[str]:
    """What may come as the last of `words` (the word being typed, possibly empty)."""
    words = list(words) or [""]
    current, before = words[-1], words[:-1]
    commands = _commands(parser)
    if not before:
        return _starting(current, [c for c in commands if not c.startswith("_")])
    command = before[0]
    sub = commands.get(command)
    if sub is None:
        return []
    if current.startswith("-"):
        return _starting(current, [o for a in sub._actions for o in a.option_strings])
    previous = before[-1]
    positionals = [w for i, w in enumerate(before[1:], 1)
                   if not w.startswith("-") and not _takes_value(sub, before[i - 1])]
    if previous in ("--ruleset", "--compare", "--from"):
        return _starting(current, _ruleset_ids())
    if previous == "--scenario" and positionals:
        return _starting(current, _names(positionals[0], "scenarios"))
    if previous == "--ask" and positionals:
        return _starting(current, _sides(positionals[0]))
    if _takes_value(sub, previous):
        return []
    if command in RULESET_FIRST - {"roll", "odds"} and not positionals:
        return _starting(current, _ruleset_ids())
    if command == "diff" and len(positionals) == 1:
        return _starting(current, _ruleset_ids())
    if command == "run" and len(positionals) == 1:
        return _starting(current, _names(positionals[0], "procedures"))
    if command == "tables" and positionals:
        return _starting(current, _names(positionals[0], "tables"))
    return []


def _commands(parser) -> dict:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _takes_value(sub, word: str) -> bool:
    for p in all_parsers(sub):
        for action in p._actions:
            if word in action.option_strings:
                return action.nargs != 0
    return False


def _starting(current: str, options) -> list[str]:
    return sorted(o for o in set(options) if o.startswith(current))


def _ruleset_ids() -> list[str]:
    return [e["id"] for e in bundled()]


def _load_quietly(ref: str):
    try:
        return load_ruleset(ref)
    except RulecraftError:
        return None


def _names(ref: str, what: str) -> list[str]:
    ruleset = _load_quietly(ref)
    return list(getattr(ruleset, what, {}) or {}) if ruleset is not None else []


def _sides(ref: str) -> list[str]:
    ruleset = _load_quietly(ref)
    if ruleset is None:
        return []
    return sorted({side for s in ruleset.scenarios.values() for side in s.sides})
