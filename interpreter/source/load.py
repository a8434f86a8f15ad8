"""Read ruleset YAML into a tree of located nodes, refusing anything unsafe or ambiguous.

Why not `yaml.safe_load`: it forgets where every value came from (so later stages could
not say `file:line:col`), silently keeps the last of two equal keys (users lose rules that
way), and expands aliases before anyone can count them (a "billion laughs" document eats
the machine).  So this module reads PyYAML's *event stream* (libyaml's C parser when it is
installed) and composes the tree itself, iteratively:

- every node gets a `Location` (file, 1-based line/column, the source line, and its path
  inside the document such as `tables.to_hit.rows[2].hit`);
- nodes are counted while aliases are expanded, so an alias bomb is refused after at most
  MAX_NODES nodes of work; nesting is bounded by MAX_DEPTH before any recursion happens;
- only YAML's standard tags are accepted, and nothing but plain scalars is ever
  constructed (no Python objects, no `!!python/...`).

Decisions worth knowing (documented here because users meet them):

- **Keys are always strings: the key's text.**  YAML 1.1 would turn `on:` into `True`,
  `1:` into `1` and `1:30:` into `90`; a rule file means the words it shows, so `on`,
  `1` and `1:30` stay strings.  `1:` and `"1":` are therefore the same key (a duplicate).
  A key that is a mapping or a list, or an empty plain key, is refused ("load-bad-key").
- **Values follow YAML 1.1 safe loading** (`yes` is `True`, `0x10` is 16, `.inf` is a
  float), except timestamps, which stay strings (`2001-12-14` is the text, not a date:
  the value set is str/int/float/bool/None, which is what JSON Schema understands).
- **Tags**: `!!str !!int !!float !!bool !!null !!map !!seq !!timestamp` and the
  non-specific `!` are accepted; every other tag (`!!python/...`, `!foo`, `!!binary`,
  `!!set`, `!!omap`, tags redefined by `%TAG`) is refused ("load-tag").
- **Merge keys (`<<`) are supported** as in YAML 1.1: `<<: *defaults` or
  `<<: [*a, *b]` adds the keys of those mappings that the mapping does not set itself
  (the first listed source wins); merged keys take the place of the `<<` entry in the
  key order.  A `<<` whose value is not a mapping (or a list of mappings) is refused
  ("load-merge").  Two `<<` keys in one mapping are duplicate keys.
- **Aliases** copy the anchored node; the copy keeps the anchored text's line/column (that
  is where the content is written) but carries the path of the place it is used.  An
  alias to an enclosing node (a recursive structure) is refused ("load-syntax").
- **Includes** (`load_ruleset_document`): each file is merged at most once, so two parts
  may both include a shared file; an include that leads back to a file on the current
  chain is a cycle ("load-include-cycle").  Included files are merged first, in the
  order listed, then the including file's own sections, so a duplicate entry is reported
  at the later place (normally the including file) and names the earlier one.

Error codes (stable): load-io, load-encoding, load-too-large, load-too-deep, load-syntax,
load-tag, load-value, load-duplicate-key, load-bad-key, load-merge, load-not-mapping,
load-multi-document, load-include, load-include-cycle, load-outside.

Hostile files (a rule file downloaded from a forum is untrusted input):

- only **regular files** are read: a named pipe or a device is refused before anything
  waits on it (the file is opened without blocking and checked with `fstat`);
- a path holding a NUL or bytes the system cannot name is refused cleanly ("load-io");
- `include:` (and `extends:`, see `model/build.py`) reaches only files inside the folder
  tree of the file the user named, or the bundled rules; anything else (`../..`, an
  absolute path, a symlink pointing out) is refused ("load-outside") unless the user
  allowed that folder (`rulecraft --allow-outside PATH`, `allow_outside()` here);
- the lines of a file that is not a rule file (its name does not end in `.yaml` /
  `.yml`) are never echoed in an error: its locations carry no source text.
"""
from __future__ import annotations

import os
import re
import stat

from ..errors import LoadError, Location
from ..limits import MAX_DEPTH, MAX_NODES
from ..resources import resource_dir
from .nodes import IDENTIFIER, MapNode, Mark, Node, ScalarNode, SeqNode, format_path
from .positions import SourceText
from .reads import note_file

__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "MAX_INCLUDES", "MAX_NODES", "MapNode", "Mark", "Node",
           "ScalarNode", "SeqNode", "allow_outside", "allowed_outside", "check_inside",
           "format_path", "is_rule_file", "load_file", "load_ruleset_document", "load_text"]

MAX_FILE_BYTES = 2_000_000  # bytes in one rule file, checked before parsing
MAX_INCLUDES = 32           # files included by one ruleset, all levels together

# Characters YAML allows in a stream (YAML 1.1, section 5.1); anything else is refused
# before parsing so that the error is precise and libyaml never sees it.  Compiled at the
# first file read (its ranges take `re` 4-11 ms, which a command reading a kept model
# would pay for nothing).
_NOT_PRINTABLE = "[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF]"


# --------------------------------------------------------------------------- reading

def _read_file(path) -> str:
    """The file's text; refuses missing, unreadable, oversized, non-regular (a named
    pipe, a device) and non-UTF-8 files, and paths no file can have.

    Reads at most MAX_FILE_BYTES + 1 bytes; the file is opened without blocking, so a
    named pipe with no writer is refused at once instead of waiting forever.
    """
    name = printable_path(path)
    where = Location(name, 1, 1)
    if "\0" in str(path):
        raise LoadError(f"cannot read {name}: a file path cannot contain a NUL character",
                        where, code="load-io")
    try:
        os.fsencode(path)
    except (UnicodeError, TypeError):
        raise LoadError(f"cannot read {name}: the path holds characters no file name can "
                        "have", where, code="load-io") from None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise LoadError(f"cannot read {name}: no such file", where, code="load-io") from None
    except IsADirectoryError:
        raise LoadError(f"cannot read {name}: it is a directory", where,
                        code="load-io") from None
    except (OSError, ValueError) as exc:
        raise LoadError(f"cannot read {name}: {getattr(exc, 'strerror', None) or exc}",
                        where, code="load-io") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise LoadError(f"cannot read {name}: it is a directory", where, code="load-io")
        if not stat.S_ISREG(mode):
            raise LoadError(f"cannot read {name}: it is not a regular file (a "
                            f"{_file_kind(mode)}); rule files are plain files", where,
                            code="load-io")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise LoadError(f"cannot read {name}: {exc.strerror or exc}", where,
                        code="load-io") from None
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise LoadError(f"{name} is larger than {MAX_FILE_BYTES:,} bytes; refusing to "
                        "read it", where, code="load-too-large",
                        hint="split the ruleset into several files with `include:`")
    note_file(path, data)
    return _decode(data, name, is_rule_file(path))


def _file_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def printable_path(path) -> str:
    """A path as it may be shown: control characters (a NUL, an escape) written as
    `\\xNN` so that an error message never carries them to the terminal."""
    text = os.fsdecode(path) if isinstance(path, bytes) else str(path)
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 0x100
                   else f"\\u{ord(c):04x}" for c in text)


def is_rule_file(path) -> bool:
    """Whether a file is named as a rule file (`.yaml`, `.yml`): only such files have
    their lines shown in errors (see the module doc)."""
    return str(path).lower().endswith((".yaml", ".yml"))


def _decode(data: bytes, name: str, echo: bool = True) -> str:
    """UTF-8 text (a leading BOM dropped); a bad byte is reported where it is (with its
    line only when `echo`: the file is a rule file)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        column = len(data[line_start:exc.start].decode("utf-8", "replace")) + 1
        line_end = data.find(b"\n", exc.start)
        source = data[line_start:line_end if line_end >= 0 else len(data)]
        raise LoadError(f"byte 0x{data[exc.start]:02x} is not valid UTF-8; rule files "
                        "must be UTF-8", Location(name, line, column,
                                                  source.decode("utf-8", "replace").rstrip("\r")
                                                  if echo else None),
                        code="load-encoding",
                        hint="re-save the file as UTF-8 in your editor") from None


def _check_characters(source: SourceText) -> None:
    """Refuse characters YAML forbids (NUL, other controls, lone surrogates)."""
    bad = re.search(_NOT_PRINTABLE, source.text)
    if bad:
        line, column = source.position(bad.start())
        raise LoadError(f"character U+{ord(bad.group()):04X} is not allowed in a YAML file",
                        source.location(line, column), code="load-encoding",
                        hint="remove the control character (often pasted by accident)")


# --------------------------------------------------------------------------- public API

def load_text(text: str, file: str = "<string>", echo: bool = True) -> MapNode:
    """Load one ruleset document from a string (tests, rules given inline).  With
    `echo` false, errors carry no line of the text (it is not a rule file)."""
    if len(text) > MAX_FILE_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        raise LoadError(f"{file} is larger than {MAX_FILE_BYTES:,} bytes; refusing to read it",
                        Location(file, 1, 1), code="load-too-large")
    if text.startswith("\ufeff"):
        text = text[1:]
    source = SourceText(file, text, echo)
    _check_characters(source)
    # deferred (the composer stands on PyYAML): a command that reads its rules back from
    # the cache (game/rules_cache.py) still asks this module what the user allowed, and
    # need not load YAML for it; compose.py imports nothing of this module
    from .compose import Composer
    return Composer(source).compose()


def load_file(path) -> MapNode:
    """Load one ruleset file as it is (its `include:` key, if any, is left alone)."""
    return load_text(_read_file(path), printable_path(path), is_rule_file(path))


# --------------------------------------------------------------------------- containment

_OUTSIDE: list[str] = []   # folders the user allowed includes and bases to come from


def allow_outside(paths) -> None:
    """Let `include:` and `extends:` reach into these folders (or files) too, besides
    the tree of the file the user named: the `--allow-outside PATH` option."""
    _OUTSIDE[:] = [os.path.realpath(os.fsdecode(p)) for p in paths]


def allowed_outside() -> list[str]:
    return list(_OUTSIDE)


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def check_inside(target: str, root: str, location: Location, what: str) -> None:
    """Refuse `target` (a file an `include:` or `extends:` names) unless it lies, once
    symlinks are followed, inside the folder `root`, the bundled rules, or a folder the
    user allowed."""
    real = os.path.realpath(target)
    trusted = [os.path.realpath(root), os.path.realpath(resource_dir("rules"))] + _OUTSIDE
    if any(_within(real, folder) for folder in trusted):
        return
    raise LoadError(f"{what} {printable_path(os.path.normpath(target))} is outside the folder of the ruleset "
                    f"({printable_path(root)}); refusing to read it", location,
                    code="load-outside",
                    hint="a rule file may only use files beside or below it; if you trust "
                         "this one, pass `--allow-outside PATH` with its folder")


def load_ruleset_document(path) -> MapNode:
    """Load a ruleset file and everything it includes, merged section by section.

    `include:` (a path or a list of paths, relative to the including file) is resolved
    recursively; mapping sections (tables, kinds, procedures, ...) are merged entry by
    entry, and the same entry -- or the same non-mapping section -- in two files is an
    error naming both places.  The `include` key is not part of the result.
    """
    state = _IncludeState(os.path.dirname(os.path.realpath(path)))
    state.seen.add(os.path.realpath(path))
    return _load_with_includes(str(path), (), state, None)




# --------------------------------------------------------------------------- includes

class _IncludeState:
    """Files already merged (each is merged once), how many were included, and the
    folder whose tree they must come from (the named file's)."""

    def __init__(self, root: str):
        self.seen: set[str] = set()
        self.count = 0
        self.root = root


def _load_with_includes(path: str, chain: tuple, state: _IncludeState,
                        via: ScalarNode | None) -> MapNode:
    """Load `path`, then its includes (recursively), and merge them all."""
    try:
        document = load_file(path)
    except LoadError as exc:
        if via is not None and exc.code == "load-io":
            raise LoadError(f"included file {exc.message.removeprefix('cannot read ')}",
                            via.location, code="load-io") from None
        raise
    real = os.path.realpath(path)
    parts = []
    for item in _include_items(document):
        if "\0" in item.value:
            raise LoadError("an included file's path cannot contain a NUL character",
                            item.location, code="load-include")
        target = os.path.normpath(os.path.join(os.path.dirname(path), item.value))
        check_inside(target, state.root, item.location, "included file")
        target_real = os.path.realpath(target)
        if target_real in chain or target_real == real:
            loop = " -> ".join(os.path.basename(p) for p in chain + (real, target_real))
            raise LoadError(f"include cycle: {loop}", item.location,
                            code="load-include-cycle",
                            hint="a file may not include itself, directly or indirectly")
        if target_real in state.seen:
            continue
        state.seen.add(target_real)
        state.count += 1
        if state.count > MAX_INCLUDES:
            raise LoadError(f"more than {MAX_INCLUDES} files are included; refusing to go on",
                            item.location, code="load-too-large")
        parts.append(_load_with_includes(target, chain + (real,), state, item))
    merged = MapNode(document.location, ())
    for part in parts + [_without_include(document)]:
        _merge_document(merged, part)
    return merged


def _include_items(document: MapNode) -> list[ScalarNode]:
    """The `include:` entries: one path or a list of paths, each a non-empty string."""
    value = document.get("include")
    if value is None:
        return []
    items = value.items if isinstance(value, SeqNode) else [value]
    for item in items:
        if not (isinstance(item, ScalarNode) and isinstance(item.value, str) and item.value):
            raise LoadError("`include` takes a file path or a list of file paths",
                            item.location, code="load-include",
                            hint="e.g. `include: [tables.yaml, kinds.yaml]`")
    return items


def _without_include(document: MapNode) -> MapNode:
    copy = MapNode(document.location, document.path)
    for key, value in document.items():
        if key != "include":
            copy.entries[key] = value
            copy.key_nodes[key] = document.key_nodes[key]
    return copy


def _merge_document(merged: MapNode, part: MapNode) -> None:
    """Merge one file's sections into the result; a name defined twice is an error."""
    for key, value in part.items():
        key_node = part.key_nodes[key]
        existing = merged.get(key)
        if existing is None:
            if isinstance(value, MapNode):
                section = MapNode(value.location, value.path)
                section.entries.update(value.entries)
                section.key_nodes.update(value.key_nodes)
                value = section
            merged.entries[key] = value
            merged.key_nodes[key] = key_node
        elif isinstance(existing, MapNode) and isinstance(value, MapNode):
            _merge_section(existing, value, key)
        else:
            raise _defined_twice(key, key_node, merged.key_nodes[key])


def _merge_section(section: MapNode, part: MapNode, name: str) -> None:
    for key, value in part.items():
        if key in section.entries:
            import json   # only for this error: not loaded at start
            raise _defined_twice(f"{name}.{key}" if IDENTIFIER.match(key)
                                 else f"{name}[{json.dumps(key)}]",
                                 part.key_nodes[key], section.key_nodes[key])
        section.entries[key] = value
        section.key_nodes[key] = part.key_nodes[key]


def _defined_twice(what: str, here: ScalarNode, first: ScalarNode) -> LoadError:
    loc = first.location
    return LoadError(f"{what} is defined twice: here and at {loc.file}:{loc.line}:{loc.column}",
                     here.location, code="load-duplicate-key",
                     hint="names must be unique across a ruleset and its included files")
