"""The loaded, checked model of a ruleset kept between runs, so that `run`, `play`,
`validate` do not read the YAML, parse every DSL string, build every table and run the
semantic checks again while nothing they depend on changed (most of a command's start).

One file per ruleset named as it was asked for (`rules-<hash>` in the cache directory of
`resources.py`), the hash taken of: that path (and the working directory when it is
relative), the folders the user allowed (`--allow-outside`) and `code_fingerprint()` —
rulecraft's every source file, Python's version and the libraries' version files.  The
file holds three pickles: first what the build read (`source/reads.py`: every rule file of
the include/extends chain with a hash of its bytes, every `extends:` target with the file
it resolved to), the chain of ruleset ids, the length of the rest and what `rulecraft
list` shows of the ruleset; then the model with its findings and the
compiled steps of its table cells (which `run()` keeps outside the model), and after it,
by the same pickler, the located document the model was built from, which is read (by the
same unpickler, so that what the two share stays shared) only when something asks for
`Ruleset.document`: it is more than half of the file, and a command rarely needs it.
The first is checked before the second is read: one file edited, moved or resolving elsewhere, and
the model is built again and the file replaced.  A file that cannot be read back whole (a
truncated or damaged one, one from another layout of the classes) is rebuilt the same way.

Only a model with no error and no schema finding is kept: a ruleset with errors always
goes through the whole build, so that its findings are exactly the fresh ones.

Identity: the package's constant objects a model holds (the built-in actions, `run()`,
the boolean outcome keys of a distribution, a table's "no entry" marker: SHARED_OBJECTS
and SHARED_TABLES) are stored by their names and come back as those very objects, never
as copies: code that compares with `is` finds the same answers.
"""
from __future__ import annotations

import hashlib
import importlib
import io
import os
import pickle
import sys
from pathlib import Path

from ..errors import Finding
from ..limits import MAX_KEPT_MODELS
from ..lang.resolve import Resolution
from ..model.overlay import CHAINS
from ..model.paths import base_path_of
from ..resources import cache_dir, code_fingerprint, write_atomically
from ..run.cells import RUN
from ..source.load import MAX_FILE_BYTES, allowed_outside
from ..source.reads import file_digest, recording
from ..tables.rows import StepsCell

PROTOCOL = 5
_PLAIN = (int, float, complex, str, bytes, bool, type(None), type, type(len),
          type(lambda: 0), type(sys))


def entry_file(path: Path) -> Path | None:
    """Where the model of the ruleset at `path` is kept, or None (no cache)."""
    where = cache_dir()
    if where is None:
        return None
    asked = os.fsdecode(path)
    key = "\0".join([asked, "" if os.path.isabs(asked) else os.getcwd(),
                     *allowed_outside(), code_fingerprint()])
    name = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return where / f"rules-{name}.pickle"


def read(path: Path):
    """(rules, findings) kept for `path`, or None when there is none still valid."""
    entry = entry_file(path)
    if entry is None:
        return None
    try:
        with open(entry, "rb") as f:
            facts, chain, size, _ = pickle.load(f)
            if not _still_true(facts):
                return None
            rest = f.read()
        if len(rest) != size:   # truncated: the document, read later, would not be whole
            return None
        unpickler = SharingUnpickler(io.BytesIO(rest))
        rules, findings, cells = unpickler.load()
    except Exception:   # missing, truncated, damaged, another code's classes: rebuild
        return None
    # the document follows in the same stream, read by the same unpickler, so that the
    # nodes the model shares with it come back as the same objects
    rules.document_later(unpickler.load)
    CHAINS[str(Path(path).resolve())] = chain   # what loading the chain would have noted
    for cell, steps in cells:   # as the build left them: run() parses no cell again
        RUN.remember(cell, steps)
    return rules, findings


def read_summary(path: Path) -> dict | None:
    """What `rulecraft list` shows of the ruleset at `path` (id, title, source, chain, how
    many tables and procedures, the scenarios), from the head of its kept model while
    that model is still valid, or None: a whole model takes 15-200 ms to read back, ten of
    them most of a second."""
    entry = entry_file(path)
    if entry is None:
        return None
    try:
        with open(entry, "rb") as f:
            facts, chain, size, summary = pickle.load(f)
            whole = os.fstat(f.fileno()).st_size - f.tell() == size
        if summary is None or not whole or not _still_true(facts):
            return None
    except Exception:   # missing, truncated, damaged: the caller loads the ruleset
        return None
    return {**summary, "chain": chain}


def _summary(rules) -> dict | None:
    try:
        return {"id": rules.id, "title": rules.title, "source": rules.source,
                "tables": len(rules.tables), "procedures": len(rules.procedures),
                "scenarios": sorted(rules.scenarios)}
    except Exception:   # not a whole model: `list` loads it
        return None


def building():
    """The recording to wrap a build in; `save` takes what it noted."""
    return recording()


def save(path: Path, rules, findings: list[Finding], facts: list) -> None:
    """Keep a cleanly built model (no error, no schema finding); quietly nothing if it
    cannot be written or pickled."""
    entry = entry_file(path)
    if entry is None or any(f.severity == "error" for f in findings):
        return
    chain = CHAINS.get(str(Path(path).resolve()))
    if chain is None:
        return
    rest, document = io.BytesIO(), rules.document
    from ..run.narration import formulas_read   # (only where a model is kept)
    formulas_read(rules)   # worked out once and kept: walking the Jugger's tables for it
    #                        took a told game 4 ms of its 70
    try:
        rules.document = None   # after the model, by the same pickler: read when asked
        pickler = SharingPickler(rest)
        pickler.dump((rules, findings, _compiled_cells(rules)))
        pickler.dump(document)
    except Exception:   # something in the model does not pickle: no cache for it
        return
    finally:
        rules.document = document
    head = pickle.dumps((facts, chain, len(rest.getvalue()), _summary(rules)),
                        protocol=PROTOCOL)
    if write_atomically(entry, lambda f: f.write(head + rest.getvalue())):
        _prune(entry.parent)


def _compiled_cells(rules) -> list[tuple]:
    """(cell, its compiled steps) for every `steps` cell of the tables: the build
    compiled each (`run()` keeps them by the cell, outside the model), and kept with the
    model they come back without the parser."""
    return [(cell, RUN.steps_of(cell, None)) for table in rules.tables.values()
            for row in getattr(table, "rows", []) for cell in (row.cells or {}).values()
            if isinstance(cell, StepsCell)]


def _prune(where: Path) -> None:
    """Keep at most MAX_KEPT_MODELS models: every edit of rulecraft's code or a new
    temporary rule file makes a new one, and nothing else would ever remove the old."""
    try:
        kept = sorted(where.glob("rules-*.pickle"), key=lambda p: p.stat().st_mtime_ns)
        for old in kept[:-MAX_KEPT_MODELS]:
            old.unlink()
    except OSError:   # another process pruned first, or the folder went: no matter
        pass


def _still_true(facts: list) -> bool:
    """Every file the build read is the same, where it was; every base resolves alike."""
    for fact in facts:
        if fact[0] == "file":
            _, asked, real, digest = fact
            if os.path.realpath(asked) != real or file_digest(asked, MAX_FILE_BYTES) != digest:
                return False
        elif fact[0] == "base":
            _, including, target, resolved = fact
            try:
                if os.fsdecode(base_path_of(Path(including), target)) != resolved:
                    return False
            except Exception:
                return False
        else:
            return False
    return True


class SharingPickler(pickle.Pickler):
    def __init__(self, file):
        super().__init__(file, protocol=PROTOCOL)
        self._shared = _shared_objects()   # made afresh: ids are only valid while held

    def persistent_id(self, obj):
        if isinstance(obj, _PLAIN):
            return None
        entry = self._shared.get(id(obj))
        return entry[1] if entry is not None and entry[0] is obj else None

    def reducer_override(self, obj):
        """A resolver's facts are keyed by the ids of the steps, which a copy does not
        keep: a model that already holds one is not kept (it is built on first use)."""
        if type(obj) is Resolution:
            raise pickle.PicklingError("a Resolution is keyed by object ids")
        return NotImplemented


class SharingUnpickler(pickle.Unpickler):
    def persistent_load(self, pid):
        value = getattr(importlib.import_module(pid[0]), pid[1])
        return value[pid[2]] if len(pid) == 3 else value


# The package's constant objects a model holds and code compares by identity: each is
# kept by its name.  Only constants: a module-level cache (a dict of compiled things, the
# chains of the rulesets loaded) must never be named, since what it holds changes.
SHARED_OBJECTS = (("interpreter.tables.keys", "MISSING"), ("interpreter.run.cells", "RUN"),
                  ("interpreter.run.destruction", "DESTROY"))
SHARED_TABLES = (("interpreter.state.actions", "ACTIONS"), ("interpreter.state.moves", "MOVES"),
                 ("interpreter.state.batches", "BATCHES"), ("interpreter.state.builtins", "ACTIONS"),
                 ("interpreter.dice.distribution", "_FLAG"))


def _shared_objects() -> dict[int, tuple]:
    """id -> (the object, its name) of SHARED_OBJECTS and of the values of SHARED_TABLES
    (the object held too, so that its id stays its own while the map is used)."""
    shared: dict[int, tuple] = {}
    for module, name in SHARED_OBJECTS:
        value = getattr(importlib.import_module(module), name)
        shared.setdefault(id(value), (value, (module, name)))
    for module, name in SHARED_TABLES:
        for key, value in getattr(importlib.import_module(module), name).items():
            shared.setdefault(id(value), (value, (module, name, key)))
    return shared
