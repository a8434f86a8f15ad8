"""What rulecraft keeps between runs in the user's cache directory, and the built LALR
parser kept there, so that a command does not rebuild the grammar every time it starts
(about 80 ms of every `rulecraft` command).

The cache directory is `$RULECRAFT_CACHE_DIR`, else `$XDG_CACHE_HOME/rulecraft`, else
`~/.cache/rulecraft` (`resources.cache_dir`).  Every file in it is named by a hash of
everything its content depends on, so a stale file is never read; it is written
atomically (a temporary file, then a rename) in a directory only the user can write; if
it cannot be read or written — an unwritable home, a full disk, a damaged file — the
thing is simply built, as without a cache.  `RULECRAFT_NO_CACHE=1` turns it all off.

The parser's file is named by the grammar text, the options, lark's version and
Python's.  The writing (`write_atomically`) and the fingerprint of the code
(`code_fingerprint`), which the checked model of a ruleset (`game/rules_cache.py`) shares,
are `resources.py`'s: reading a model back then imports neither this module nor lark.
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import lark
from lark import Lark

from ..resources import cache_dir, write_atomically


def cache_file(grammar: str, options: dict) -> Path | None:
    where = cache_dir()
    if where is None:
        return None
    key = "\n".join([grammar, repr(sorted(options.items())), lark.__version__,
                     sys.version.split()[0]])
    return where / f"parser-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:32]}.lark"


def cached_parser(grammar: str, **options) -> Lark:
    """`Lark(grammar, **options)`, read from the cache when it is there."""
    path = cache_file(grammar, options)
    if path is not None:
        try:
            with open(path, "rb") as f:
                return Lark.load(f)
        except Exception:   # missing, unreadable or damaged: build it
            pass
    parser = Lark(grammar, **options)
    if path is not None:
        write_atomically(path, parser.save)
    return parser
