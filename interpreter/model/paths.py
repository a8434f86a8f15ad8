"""Which file a ruleset is: a bundled id or a path made into its YAML file, the bundled
rulesets, and the base an `extends:` names.  Apart from the builder (`model/build.py`,
which imports these from here) because every command that reads a ruleset asks this
first, while one whose model is read back from the cache builds nothing."""
from __future__ import annotations

from pathlib import Path

from ..errors import RulecraftError, UsageError
from ..resources import resource_dir
from ..source.load import load_ruleset_document
from ..suggest import did_you_mean


def resolve_path(ref: str | Path) -> Path:
    """A bundled ruleset id (`tanks`) or a path to a YAML file."""
    if "\0" in str(ref):
        raise UsageError("a ruleset path cannot contain a NUL character")
    path = Path(ref)
    if path.suffix in (".yaml", ".yml") or path.exists():
        if not path.exists():
            raise UsageError(f"no such file: {ref}")
        if path.is_dir():
            candidates = sorted(path.glob("*.yaml"))
            if len(candidates) == 1:
                return candidates[0]
            named = path / f"{path.name}.yaml"
            if named.exists():
                return named
            raise UsageError(f"{ref} is a directory; name the ruleset's YAML file")
        return path
    rules = resource_dir("rules")
    for candidate in (rules / str(ref) / f"{ref}.yaml", rules / f"{ref}.yaml",
                      rules / "house" / f"{ref}.yaml"):
        if candidate.exists():
            return candidate
    raise UsageError(f"no bundled ruleset {str(ref)!r} and no such file",
                     hint=did_you_mean(str(ref), [b["id"] for b in bundled()]) or
                     "`rulecraft list` shows the bundled rulesets")


def bundled() -> list[dict]:
    """The bundled rulesets: id and path, and for the house rules in rules/house/ the
    base they extend (cheap: no building)."""
    rules = resource_dir("rules")
    found = []
    for directory in sorted(p for p in rules.iterdir() if p.is_dir()):
        main = directory / f"{directory.name}.yaml"
        if main.exists():
            found.append({"id": directory.name, "path": main})
    for house in sorted((rules / "house").glob("*.yaml")) if (rules / "house").is_dir() else []:
        try:
            base = load_ruleset_document(house).to_plain().get("extends")
        except RulecraftError:
            base = None
        found.append({"id": house.stem, "path": house, "base": base})
    return found


def base_path_of(path: Path, target: str) -> Path:
    """The file `extends: target` in the file `path` names: a path beside it if there is
    one, else a bundled ruleset's id (raises UsageError when neither exists)."""
    relative = path.parent / target
    return resolve_path(relative if relative.exists() else target)
