"""What building a ruleset read from the disk, noted while a build records it, so that a
cached model can later be checked against the files it came from (`game/rules_cache.py`).

Two kinds of facts are noted: every rule file read (its path as given, where it really
is once symlinks are followed, and a hash of its bytes), and every `extends:` target
with the file it resolved to (a name such as `tanks` is a bundled ruleset only while no
file of that name sits beside the house rule, so the resolution itself can change while
no file read changes).  Nothing is noted unless a recording is open: a plain load pays
nothing.
"""
from __future__ import annotations

import hashlib
import os
import stat
from contextlib import contextmanager
from typing import Iterator

_RECORDING: list | None = None


@contextmanager
def recording() -> Iterator[list]:
    """Note the facts of the reads inside the block into the list it yields."""
    global _RECORDING
    outer, _RECORDING = _RECORDING, []
    try:
        yield _RECORDING
    finally:
        _RECORDING = outer


def note_file(path, data: bytes) -> None:
    """A rule file was read: `data` are its bytes."""
    if _RECORDING is not None:
        _RECORDING.append(("file", os.fsdecode(path), os.path.realpath(path),
                           hashlib.sha256(data).hexdigest()))


def note_base(including, target: str, resolved) -> None:
    """The `extends: target` of the file `including` resolved to the file `resolved`."""
    if _RECORDING is not None:
        _RECORDING.append(("base", os.fsdecode(including), target, os.fsdecode(resolved)))


def file_digest(path: str, limit: int) -> str | None:
    """The hash `note_file` would note for the file now, or None when it is no longer a
    readable regular file of at most `limit` bytes (opened without blocking, so that a
    named pipe put in its place never hangs the check)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return None if len(data) > limit else hashlib.sha256(data).hexdigest()
