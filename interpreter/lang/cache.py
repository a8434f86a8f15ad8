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
Python's.  The checked model of a ruleset (`game/rules_cache.py`) shares the writing
(`write_atomically`) and the fingerprint of the code that builds it (`code_fingerprint`).
"""
from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Callable

import lark
from lark import Lark

from ..resources import cache_dir, resource_dir

_PACKAGE = Path(__file__).resolve().parent.parent
_FINGERPRINT: list[str] = []   # computed once per process


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


def write_atomically(path: Path, write: Callable) -> bool:
    """Write `path` whole or not at all: `write(binary file)` fills a temporary file in
    the same directory, which then replaces `path`.  False (and nothing written) when
    the directory cannot be made or written, or `write` fails; nothing the user needs to
    hear about."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name.split('-')[0]}-")
        try:
            with os.fdopen(fd, "wb") as f:
                write(f)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except Exception:   # no cache then
        return False
    return True


def code_fingerprint() -> str:
    """A hash naming this very rulecraft: Python's version and the libraries' it builds
    with, and every source file of the package (`__init__.py`, which holds its version,
    among them), the grammar and the schema by path, size and modification time (the test Python itself uses for its bytecode cache), so
    that an edited module — in a checkout, where the version does not move — never reads
    a model an older code built.  About a millisecond; computed once per process."""
    if not _FINGERPRINT:
        import yaml   # the loader's library: its version is part of what the model is
        stamps: list[str] = []
        for folder in (_PACKAGE, resource_dir("grammar"), resource_dir("schema")):
            _stamp_tree(str(folder), stamps)
        digest = hashlib.sha256("\n".join(
            [sys.version, lark.__version__, yaml.__version__] + sorted(stamps)
        ).encode("utf-8", "surrogateescape"))
        _FINGERPRINT.append(digest.hexdigest())
    return _FINGERPRINT[0]


def _stamp_tree(folder: str, stamps: list[str]) -> None:
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    _stamp_tree(entry.path, stamps)
            elif entry.name.endswith((".py", ".lark", ".json")):
                info = entry.stat()
                stamps.append(f"{entry.path}\0{info.st_mtime_ns}\0{info.st_size}")
