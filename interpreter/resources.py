"""Where the grammar, schema and bundled rules live, installed or in a checkout.

In a wheel they are shipped inside the package (`interpreter/_shipped/grammar`, ...); in a source
checkout they sit at the top level beside `interpreter/`.  Both layouts are looked up so
that `pip install .` and running from the repository behave the same.
"""
from __future__ import annotations

import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """The directory holding `grammar`, `schema` or `rules`."""
    for candidate in (_PACKAGE / "_shipped" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"rulecraft resource directory {name!r} is missing from the installation")


def cache_dir() -> Path | None:
    """Where rulecraft keeps what it can rebuild (the parser, schema marks), or None when
    `RULECRAFT_NO_CACHE` is set: `$RULECRAFT_CACHE_DIR`, else `$XDG_CACHE_HOME/rulecraft`,
    else `~/.cache/rulecraft`."""
    if os.environ.get("RULECRAFT_NO_CACHE"):
        return None
    explicit = os.environ.get("RULECRAFT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rulecraft"
