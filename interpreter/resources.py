"""Where the grammar, schema and bundled rules live, installed or in a checkout.

In a wheel they are shipped inside the package (`interpreter/_shipped/grammar`, ...); in a source
checkout they sit at the top level beside `interpreter/`.  Both layouts are looked up so
that `pip install .` and running from the repository behave the same.

Also where rulecraft keeps what it can rebuild (`cache_dir`), how a kept file is written
(`write_atomically`) and the name of this very code (`code_fingerprint`), shared by the
parser's cache (`lang/cache.py`) and the checked models' (`game/rules_cache.py`); here,
below every stage, so that reading a model back imports no library it was built with.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Callable

_PACKAGE = Path(__file__).resolve().parent
_FINGERPRINT: list[str] = []   # computed once per process


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


def write_atomically(path: Path, write: Callable) -> bool:
    """Write `path` whole or not at all: `write(binary file)` fills a temporary file in
    the same directory, which then replaces `path`.  False (and nothing written) when
    the directory cannot be made or written, or `write` fails; nothing the user needs to
    hear about."""
    import tempfile   # here: only a command that writes to the cache needs it
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
    among them), the grammar and the schema by path, size and modification time (the test
    Python itself uses for its bytecode cache), so that an edited module — in a checkout,
    where the version does not move — never reads a model an older code built.  The
    libraries a model is built with (lark, PyYAML, jsonschema) are stamped the same way,
    by the file of each that holds its version, found without importing it: a command
    that reads its model back imports none of them.  About a millisecond; computed once
    per process."""
    if not _FINGERPRINT:
        stamps: list[str] = []
        for folder in (_PACKAGE, resource_dir("grammar"), resource_dir("schema")):
            _stamp_tree(str(folder), stamps)
        digest = hashlib.sha256("\n".join(
            [sys.version] + [_library_stamp(name) for name in LIBRARIES] + sorted(stamps)
        ).encode("utf-8", "surrogateescape"))
        _FINGERPRINT.append(digest.hexdigest())
    return _FINGERPRINT[0]


# the libraries whose code shapes a built model: the parser's, the loader's, the schema's
LIBRARIES = ("lark", "yaml", "jsonschema")


def _library_stamp(name: str) -> str:
    """A library's file that holds its version (its package's `__init__.py`, or a
    one-file module), by path, size and modification time: another version installed
    rewrites it.  "<name> absent" when it cannot be found."""
    try:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        info = os.stat(origin) if origin else None
    except (ImportError, ValueError, OSError):
        info = None
    if info is None:
        return f"{name} absent"
    return f"{name}\0{origin}\0{info.st_mtime_ns}\0{info.st_size}"


def _stamp_tree(folder: str, stamps: list[str]) -> None:
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    _stamp_tree(entry.path, stamps)
            elif entry.name.endswith((".py", ".lark", ".json")):
                info = entry.stat()
                stamps.append(f"{entry.path}\0{info.st_mtime_ns}\0{info.st_size}")
