"""The built LALR parser kept between runs, so that a command does not rebuild the grammar
every time it starts (about 80 ms of every `rulecraft` command).

The cache is one file per grammar in the user's cache directory
(`$RULECRAFT_CACHE_DIR`, else `$XDG_CACHE_HOME/rulecraft`, else `~/.cache/rulecraft`),
named by a hash of everything the built parser depends on: the grammar text, the
options, lark's version and Python's.  A changed grammar or a new lark gives a new name,
so a stale file is never read.  The file is written atomically (a temporary file, then a
rename) in a directory only the user can write; if it cannot be read or written — an
unwritable home, a full disk, a damaged file — the parser is simply built, as without a
cache.  `RULECRAFT_NO_CACHE=1` turns it off.
"""
from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

import lark
from lark import Lark

from ..resources import cache_dir


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
        _save(parser, path)
    return parser


def _save(parser: Lark, path: Path) -> None:
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".parser-")
        try:
            with os.fdopen(fd, "wb") as f:
                parser.save(f)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except Exception:   # no cache then; nothing the user needs to hear about
        pass
