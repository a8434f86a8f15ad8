"""One family of exceptions, each carrying where in the user's text it happened.

Every stage (loader, schema, compiler, evaluator, engine) raises a subclass of
`RulecraftError`.  Rendering them (`file:line:col: error: message`, the source line and
a caret) is the CLI's job, done by `format_error` here so that tests and the CLI agree.
"""
from __future__ import annotations

import re
from .records import record, field, replace

# What must never reach a terminal from a rule file or an input: C0 and C1 controls
# (ESC starts the sequences that recolour, retitle or rewrite a terminal), DEL, and the
# Unicode controls that reorder or break lines (bidi overrides, separators).
# control characters (C0, C1), the marks that reorder text, and lone surrogates: the
# bytes of a file name that are not UTF-8 (a raw 0x9b is an 8-bit terminal's CSI)
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069"
                     "\u2028\u2029\ud800-\udfff]")


def printable(text: str, keep: str = "") -> str:
    """`text` with every control character written as an escape (`\\x1b`, `\\u202e`),
    except those in `keep` (a renderer keeps its own line breaks: "\\n").  Every
    renderer and the error printer pass user text through this, so that a rule file's
    `\\e[2J` is shown, never obeyed."""
    if not _UNSAFE.search(text):
        return text

    def escape(match):
        c = match.group()
        if c in keep:
            return c
        return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"
    return _UNSAFE.sub(escape, text)


@record(frozen=True)
class Location:
    """A place in a user's text: file (or "<expr>"), 1-based line and column.

    `source` is the whole text of the line (or the expression) so that a caret can be
    drawn without re-reading the file; `path` is the place inside the ruleset
    (e.g. "tables.to_hit.rows[2]") when known; `length` is how many characters to
    underline.
    """

    file: str = "<expr>"
    line: int = 1
    column: int = 1
    source: str | None = None
    path: str | None = None
    length: int = 1

    def shifted(self, line_offset: int, column: int, source: str | None = None,
                length: int = 1) -> "Location":
        """A location inside a string that starts at this location.

        Used to point inside a DSL string embedded in YAML: the string's own
        line/column are added to the place where the YAML scalar began.
        """
        if line_offset == 0:
            col = self.column + column - 1
        else:
            col = column
        return replace(self, line=self.line + line_offset, column=col,
                       source=source if source is not None else self.source,
                       length=length)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class RulecraftError(Exception):
    """Base of every error rulecraft reports to a user.

    `code` is a stable identifier per kind of problem (used by `validate --format json`).
    """

    code = "error"

    def __init__(self, message: str, location: Location | None = None,
                 code: str | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location
        self.hint = hint
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return format_error(self)


class LoadError(RulecraftError):
    """The file could not be read as a ruleset document (YAML syntax, limits, tags)."""

    code = "load"


class DSLSyntaxError(RulecraftError):
    """A DSL string (expression or statement) does not parse."""

    code = "syntax"


class NameError_(RulecraftError):
    """A name in a rule resolves to nothing."""

    code = "unknown-name"


class LimitError(RulecraftError):
    """An expression asks for something absurd (too many dice, too deep, ...)."""

    code = "limit"


class EvalError(RulecraftError):
    """Something went wrong while evaluating a rule (division by zero, wrong type, ...)."""

    code = "eval"


class RuleError(RulecraftError):
    """A semantic problem in a ruleset found by the checks after the schema passes."""

    code = "rule"


class UsageError(RulecraftError):
    """The command line was used wrongly (exit code 2)."""

    code = "usage"


@record
class Finding:
    """One finding of `validate`: an error or warning with its location and code."""

    severity: str  # "error" | "warning"
    code: str
    message: str
    location: Location | None = None
    hint: str | None = None
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_error(cls, err: RulecraftError, severity: str = "error") -> "Finding":
        return cls(severity, err.code, err.message, err.location, err.hint)

    def as_json(self) -> dict:
        loc = self.location
        return {
            "file": loc.file if loc else None,
            "line": loc.line if loc else None,
            "column": loc.column if loc else None,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
        }


def format_error(err: RulecraftError | Finding, severity: str = "error") -> str:
    """Render an error like a compiler: `file:line:col: severity: message`, the source
    line, and a caret under the offending column."""
    if isinstance(err, Finding):
        severity = err.severity
    loc = err.location
    head = f"{printable(str(loc))}: " if loc else ""
    lines = [f"{head}{severity}: {printable(err.message, keep=chr(10))}"]
    if loc is not None and loc.source is not None:
        src = loc.source.splitlines()[0] if loc.source else ""
        src = src.expandtabs(1)
        before = printable(src[:max(loc.column, 1) - 1])   # the caret moves with escapes
        lines.append("    " + printable(src))
        caret = " " * len(before) + "^" + "~" * max(0, min(loc.length, 60) - 1)
        lines.append("    " + caret)
    if err.hint:
        lines.append(f"    hint: {printable(err.hint)}")
    return "\n".join(lines)
