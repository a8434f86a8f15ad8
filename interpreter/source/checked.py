"""The schema check, remembered: a document that passed it once is not checked again.

Loading a ruleset checks it against the JSON Schema, which costs the import of
jsonschema and the validation itself (together over 100 ms of every `run` or `play`).
A document's shape never changes while its text does not, so a document that passed is
remembered by a hash of its plain form and of the schema, in the user's cache directory
(the one the parser cache uses).  A document with any finding is never remembered;
`RULECRAFT_NO_CACHE=1` turns this off; a cache that cannot be written is no cache.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..errors import Finding
from ..resources import cache_dir, resource_dir
from .nodes import Node


def schema_findings(document: Node) -> list[Finding]:
    """`check_schema(document)`, skipped when this very document passed it before."""
    marker = _marker(document)
    if marker is not None and marker.exists():
        return []
    from .schema import check_schema   # imported only when a check is needed (start-up time)
    findings = check_schema(document)
    if marker is not None and not findings:
        try:
            marker.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            marker.touch()
        except OSError:
            pass
    return findings


def _marker(document: Node):
    where = cache_dir()
    if where is None:
        return None
    digest = hashlib.sha256()
    digest.update((resource_dir("schema") / "ruleset.schema.json").read_bytes())
    digest.update(Path(__file__).with_name("schema.py").read_bytes())   # how it is checked
    digest.update(json.dumps(_canonical(document.to_plain())).encode("utf-8"))
    return where / f"schema-ok-{digest.hexdigest()[:32]}"


def _canonical(value):
    """A plain document as JSON can hold it, every scalar with its type (so that 3 and
    "3", or true and "true", never hash alike)."""
    if isinstance(value, dict):
        return sorted([str(k), type(k).__name__, _canonical(v)] for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    return [type(value).__name__, repr(value)]
