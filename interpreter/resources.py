"""Where the grammar, schema and bundled rules live, installed or in a checkout.

In a wheel they are shipped inside the package (`interpreter/_shipped/grammar`, ...); in a source
checkout they sit at the top level beside `interpreter/`.  Both layouts are looked up so
that `pip install .` and running from the repository behave the same.
"""
from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """The directory holding `grammar`, `schema` or `rules`."""
    for candidate in (_PACKAGE / "_shipped" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"rulecraft resource directory {name!r} is missing from the installation")
