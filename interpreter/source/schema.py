"""Check a loaded ruleset document against `schema/ruleset.schema.json`, with located errors.

The loader gives a tree of located nodes; this stage turns it into plain data, runs
jsonschema's `Draft202012Validator` over it and turns each error into a `Finding` at the
YAML line and column of the offending node:

- an unknown key is reported at the key itself, with the closest allowed name as a hint
  (`unknown key 'rols' in table 'to_hit'`, hint `did you mean 'rows'?`);
- a missing property is reported at the mapping that lacks it (at its key when it has
  one, e.g. the `to_hit:` line), naming the property;
- type, enum, pattern and range errors say what was expected in plain words;
- an `anyOf`/`oneOf` failure is not reported as a wall of alternatives: we descend into
  the branch that matched best (the one whose errors lie deepest in the document, i.e.
  the branch whose type fitted) and report its errors instead;
- one finding per offending place (same path, same key): the most relevant wins;
- findings are ordered most relevant first: errors higher up in the document first (as
  jsonschema's `relevance` does: more is wrong there), `anyOf`/`oneOf` (weak) after
  others at the same depth, then in document order.

Keys: the loader already keeps every mapping key as its text (`1:` is the key `"1"`), so
JSON Schema's string-keyed objects fit; `_plain` still converts keys with `str()` so that a
document built some other way cannot make jsonschema fail on a non-string key.

Codes (stable): schema-unknown-key, schema-missing, schema-type, schema-enum,
schema-pattern, schema-invalid (everything else: empty text, out-of-range numbers,
wrong list lengths, duplicates).
"""
from __future__ import annotations

import json
import re
from ..records import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, NamedTuple

from jsonschema import Draft202012Validator
from jsonschema.exceptions import STRONG_MATCHES, WEAK_MATCHES, ValidationError

from ..errors import Finding, Location
from .nodes import (MapNode, Node, ScalarNode, SeqNode, format_path, unquoted_step_hint,
                    unquoted_step_message)
from ..resources import resource_dir
from ..suggest import did_you_mean

SCHEMA_FILE = "ruleset.schema.json"

_SECTION_NOUNS = {
    "tables": "table", "kinds": "kind", "statuses": "status", "procedures": "procedure",
    "scenarios": "scenario", "parameters": "parameter",
}
_CONTROL_FLOW = ("if", "for", "repeat", "choose", "modify", "roll")
_TYPE_WORDS = {
    "integer": "a whole number", "number": "a number", "string": "text",
    "boolean": "true or false", "array": "a list", "object": "a mapping",
    "null": "empty",
}
_PATTERN_WORDS = {
    "^[a-z0-9][a-z0-9_-]*$": (
        "a valid ruleset id", "use lower-case letters, digits, '-' and '_', "
        "starting with a letter or digit"),
    "^[A-Za-z_][A-Za-z0-9_]*$": (
        "a valid name", "names use letters, digits and '_' and do not start with a digit"),
    "^[A-Za-z0-9][A-Za-z0-9_.-]*$": (
        "a valid id", "ids use letters, digits, '-', '_' and '.', and no spaces"),
}


# --------------------------------------------------------------------------- public API

def schema_path() -> Path:
    """Where the ruleset JSON Schema is, in a checkout or an installed package."""
    return resource_dir("schema") / SCHEMA_FILE


@lru_cache(maxsize=1)
def _cached_schema() -> str:
    return schema_path().read_text(encoding="utf-8")


def load_schema() -> dict:
    """The ruleset JSON Schema as a dict (read once; each call returns a fresh copy)."""
    return json.loads(_cached_schema())


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    return Draft202012Validator(load_schema())


def check_schema(document: Node) -> list[Finding]:
    """Validate a loaded document (from `interpreter.load`); findings, most relevant first.

    An empty list means the document has the shape of a ruleset; the names and DSL inside
    it are checked by later stages.
    """
    errors = _validator().iter_errors(_plain(document))
    ranked: list[_Ranked] = []
    for error in errors:
        for leaf in _leaves(error):
            ranked.extend(_explain(leaf, document))
    ranked.sort(key=lambda item: item.rank)
    unknown = {(item.path, item.key) for item in ranked if item.key is not None}
    seen: set = set()
    findings = []
    for item in ranked:
        if item.place in seen or _explained(item, unknown):
            continue
        seen.add(item.place)
        findings.append(item.finding)
    return findings


class _Ranked(NamedTuple):
    """A finding with what is needed to order and deduplicate it."""

    rank: tuple
    finding: Finding
    path: tuple
    key: str | None = None          # the unknown key or bad name reported
    missing: tuple = ()             # the required names reported missing

    @property
    def place(self) -> tuple:
        return (self.path, self.key)


def _explained(item: _Ranked, unknown: set) -> bool:
    """A missing name that an unknown key in the same mapping misspells (`rols:` for
    `rows:`) is one mistake: it is reported once, at the unknown key."""
    if not item.missing:
        return False
    keys = [key for path, key in unknown if path == item.path]
    return all(any(did_you_mean(key, [name]) for key in keys) for name in item.missing)


# --------------------------------------------------------------------------- plain data

def _plain(node: Node) -> Any:
    """The node as plain JSON-like data; mapping keys always strings."""
    if isinstance(node, MapNode):
        return {str(key): _plain(value) for key, value in node.items()}
    if isinstance(node, SeqNode):
        return [_plain(item) for item in node]
    if isinstance(node, ScalarNode):
        return node.value
    return node.to_plain()


# --------------------------------------------------------------------------- anyOf / oneOf

def _leaves(error: ValidationError) -> list[ValidationError]:
    """The errors to report for `error`: itself, or for a failed anyOf/oneOf the errors
    of the branch that matched best (recursively)."""
    if error.validator not in ("anyOf", "oneOf") or not error.context:
        return [error]
    if _only_required(error):
        return [error]
    branches: dict[int, list[ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    best = max(branches.values(), key=lambda subs: _branch_score(error, subs))
    return [leaf for sub in best for leaf in _leaves(sub)]


def _only_required(error: ValidationError) -> bool:
    """An anyOf of `required` alternatives at the same place: "needs one of ..."."""
    return all(sub.validator == "required" and list(sub.absolute_path) == list(error.absolute_path)
               for sub in error.context)


def _branch_score(parent: ValidationError, subs: list[ValidationError]) -> tuple:
    """How well a branch fitted: the instance's type matched it (no type error at the
    branch's own root), its errors lie deep, and there are few of them."""
    depth = len(parent.absolute_path)
    type_miss = any(sub.validator == "type" and len(sub.absolute_path) == depth
                    for sub in subs)
    deepest = max(len(sub.absolute_path) for sub in subs)
    return (not type_miss, deepest, -len(subs))


# --------------------------------------------------------------------------- messages

def _explain(error: ValidationError, document: Node) -> list[_Ranked]:
    """Findings for one (leaf) error, each with its rank and place."""
    path = tuple(error.absolute_path)
    if "propertyNames" in error.absolute_schema_path:
        return [_bad_name(error, path, document)]
    handler = _HANDLERS.get(error.validator, _other)
    return handler(error, path, document)


def _finding(error: ValidationError, code: str, message: str, location: Location,
             hint: str | None = None, key: str | None = None,
             missing: tuple = ()) -> _Ranked:
    """A finding ranked like jsonschema's `relevance`: shallower first, weak keywords
    (anyOf/oneOf) last, strong ones first; unknown keys before the other errors of
    their mapping (they usually explain them); then in document order."""
    rank = (len(error.absolute_path), error.validator != "additionalProperties",
            error.validator in WEAK_MATCHES, error.validator not in STRONG_MATCHES,
            location.file, location.line, location.column)
    return _Ranked(rank, Finding("error", code, message, location, hint),
                   tuple(error.absolute_path), key, missing)


def _unknown_keys(error, path, document):
    schema = error.schema
    allowed = list(schema.get("properties", {}))
    patterns = list(schema.get("patternProperties", {}))
    instance = error.instance if isinstance(error.instance, dict) else {}
    results = []
    for key in instance:
        if key in allowed or any(re.search(p, key) for p in patterns):
            continue
        location = document.location_of(path + (key,), key=True)
        location = replace(location, length=max(len(key), 1))
        hint = did_you_mean(key, [name for name in allowed if name not in instance])
        if hint is None and allowed:
            hint = "allowed keys: " + ", ".join(allowed)
        results.append(_finding(error, "schema-unknown-key",
                                f"unknown key {key!r} {_in(path)}", location, hint,
                                key=key))
    return results


def _missing(error, path, document):
    instance = error.instance if isinstance(error.instance, dict) else {}
    missing = [name for name in error.validator_value if name not in instance]
    names = _or_list(missing, "and")
    return [_finding(error, "schema-missing", f"missing {names} {_in(path)}",
                     _mapping_location(document, path), missing=tuple(missing))]


def _needs_one_of(error, path, document):
    options = [sub.validator_value[0] for sub in error.context]
    message = f"{_subject(path)} needs one of {_or_list(options, 'or')}"
    hint = None
    node = document.find(path)
    meant = node.unquoted_statement() if isinstance(node, MapNode) else None
    if set(options) == set(_CONTROL_FLOW) and meant is not None:
        return [_finding(error, "schema-unquoted-step", unquoted_step_message(_subject(path)),
                         _mapping_location(document, path), unquoted_step_hint(meant))]
    if set(options) == set(_CONTROL_FLOW):
        keys = list(error.instance) if isinstance(error.instance, dict) else []
        hint = next((h for h in (did_you_mean(k, options) for k in keys) if h), None)
        hint = hint or ("a step is a statement (text) or a mapping with if/then, "
                        "for/in/do, repeat/until, choose/from, modify/base or roll/dice")
    return [_finding(error, "schema-missing", message, _mapping_location(document, path),
                     hint)]


def _several_forms(error, path, document):
    """A oneOf matched by more than one branch: for alternatives of the form
    `{"required": [key]}` (the control-flow keywords), name the keys found together."""
    options = [branch.get("required", [None])[0] if isinstance(branch, dict) else None
               for branch in error.validator_value]
    instance = error.instance if isinstance(error.instance, dict) else {}
    present = [key for key in instance if key in options]
    if len(present) < 2:
        return [_finding(error, "schema-invalid",
                         f"{_subject(path)} fits more than one form; make it unambiguous",
                         _value_location(document, path))]
    message = (f"{_subject(path)} has {_or_list(present, 'and')} together; "
               f"it takes only one of {_or_list(options, 'or')}")
    hint = None
    if set(options) == set(_CONTROL_FLOW):
        hint = "nest one inside the other, e.g. an `if` step inside a `for` step's `do`"
    location = document.location_of(path + (present[1],), key=True)
    return [_finding(error, "schema-invalid", message,
                     replace(location, length=len(present[1])), hint)]


def _wrong_type(error, path, document):
    expected = error.validator_value
    expected = [expected] if isinstance(expected, str) else list(expected)
    words = [_TYPE_WORDS.get(t, t) for t in expected]
    if len(words) > 1:
        words = ["true/false" if t == "boolean" else w for t, w in zip(expected, words)]
    words = _or_list(words, "or", quote=False)
    message = f"{_subject(path)} should be {words}, not {_describe(error.instance)}"
    return [_finding(error, "schema-type", message, _value_location(document, path))]


def _not_in_enum(error, path, document):
    options = [str(option) for option in error.validator_value]
    hint = did_you_mean(str(error.instance), options)
    message = (f"{_subject(path)} must be one of {_or_list(options, 'or')}, "
               f"not {_show(error.instance)}")
    return [_finding(error, "schema-enum", message, _value_location(document, path), hint)]


def _bad_pattern(error, path, document):
    what, hint = _PATTERN_WORDS.get(error.validator_value,
                                    (f"of the form /{error.validator_value}/", None))
    message = f"{_show(error.instance)} is not {what}"
    if len(path) > 1:
        message += f" ({_subject(path)})"
    return [_finding(error, "schema-pattern", message, document.location_of(path), hint)]


def _bad_name(error, path, document):
    key = error.instance
    location = document.location_of(path + (key,), key=True)
    location = replace(location, length=max(len(str(key)), 1))
    if error.validator == "pattern":
        what, hint = _PATTERN_WORDS.get(error.validator_value, ("a valid name", None))
    else:
        what, hint = "a valid name", None
    return _finding(error, "schema-pattern", f"{_show(key)} is not {what} {_in(path)}",
                    location, hint, key=str(key))


def _out_of_range(error, path, document):
    limit = error.validator_value
    words = {"minimum": f"at least {limit}", "maximum": f"at most {limit}",
             "exclusiveMinimum": f"more than {limit}",
             "exclusiveMaximum": f"less than {limit}"}[error.validator]
    message = f"{_subject(path)} must be {words}, not {_show(error.instance)}"
    return [_finding(error, "schema-invalid", message, _value_location(document, path))]


def _bad_size(error, path, document):
    limit = error.validator_value
    schema = error.schema
    if error.validator in ("minLength", "minProperties") or (
            error.validator == "minItems" and limit == 1):
        message = f"{_subject(path)} must not be empty"
    elif len(schema.get("prefixItems", ())) == schema.get("minItems") == schema.get(
            "maxItems") == 2:
        message = f"{_subject(path)} should be a list of exactly 2 items, [low, high]"
    elif error.validator == "minItems":
        message = f"{_subject(path)} needs at least {limit} items"
    else:
        message = f"{_subject(path)} may have at most {limit} items"
    return [_finding(error, "schema-invalid", message, _value_location(document, path))]


def _duplicates(error, path, document):
    return [_finding(error, "schema-invalid", f"{_subject(path)} lists a value twice",
                     _value_location(document, path))]


def _other(error, path, document):
    if error.validator in ("anyOf", "oneOf") and error.context and _only_required(error):
        return _needs_one_of(error, path, document)
    if error.validator == "false" or error.validator is None:
        message = f"{_subject(path)} is not allowed here"
    elif error.validator == "oneOf" and not error.context:
        return _several_forms(error, path, document)
    else:
        message = f"{_subject(path)}: {error.message}"
    return [_finding(error, "schema-invalid", message, _value_location(document, path))]


_HANDLERS = {
    "additionalProperties": _unknown_keys,
    "required": _missing,
    "type": _wrong_type,
    "enum": _not_in_enum,
    "const": _not_in_enum,
    "pattern": _bad_pattern,
    "minimum": _out_of_range, "maximum": _out_of_range,
    "exclusiveMinimum": _out_of_range, "exclusiveMaximum": _out_of_range,
    "minLength": _bad_size, "minItems": _bad_size, "maxItems": _bad_size,
    "minProperties": _bad_size,
    "uniqueItems": _duplicates,
}


# --------------------------------------------------------------------------- wording

def _value_location(document: Node, path: tuple) -> Location:
    """Where to point for a wrong value: a scalar itself; a list or mapping at its key
    when it has one (`phases:` rather than its first item on the next line)."""
    node = document.find(path)
    if isinstance(node, ScalarNode) or not (path and isinstance(path[-1], str)):
        return node.location
    return _key_location(document, path)


def _key_location(document: Node, path: tuple) -> Location:
    location = document.location_of(path, key=True)
    return replace(location, length=max(len(str(path[-1])), 1))


def _mapping_location(document: Node, path: tuple) -> Location:
    """Where to point for a mapping: its key in the parent when it has one, else itself."""
    if path and isinstance(path[-1], str):
        return _key_location(document, path)
    return document.location_of(path)


def _in(path: tuple) -> str:
    """Where a place is, as users name it: `in table 'to_hit'`, `in turn.initiative`,
    `in procedure 'shoot' at steps[1]`, `at the top level`."""
    if not path:
        return "at the top level"
    if path[0] in _SECTION_NOUNS and len(path) >= 2:
        text = f"in {_SECTION_NOUNS[path[0]]} {_show(path[1])}"
        return text + (f" at {format_path(path[2:])}" if len(path) > 2 else "")
    return f"in {format_path(path)}"


def _subject(path: tuple) -> str:
    """The thing at `path`: `'max_turns' in turn`, `item 3 of 'steps' in procedure 'x'`."""
    if not path:
        return "the ruleset"
    last, parent = path[-1], path[:-1]
    if isinstance(last, int):
        if len(parent) >= 2 and isinstance(parent[-1], str):
            return f"{format_path(parent[-1:] + (last,))} {_in(parent[:-1])}"
        return format_path(path)
    if len(path) == 2 and path[0] in _SECTION_NOUNS:
        return f"{_SECTION_NOUNS[path[0]]} {_show(last)}"
    if not parent:
        return repr(last)
    return f"{last!r} {_in(parent)}"


def _describe(value: Any) -> str:
    """A value's type in plain words, with the value when it is short."""
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, bool):
        return f"{'true' if value else 'false'} (true/false)"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"text {_show(value)}"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


def _show(value: Any) -> str:
    """A short quoted rendering of a value for a message."""
    text = repr(value) if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _or_list(items: Iterable[str], word: str, quote: bool = True) -> str:
    items = [repr(i) if quote else i for i in items]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {word} " + items[-1]
