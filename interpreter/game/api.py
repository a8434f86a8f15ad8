"""The Python API: load a ruleset (or check it), then roll, get odds, run a procedure or
play a scenario.  The CLI only wraps these.

The driver `_build` reads like the data flow: load -> extends -> schema -> build ->
semantic checks.  `load_ruleset("tanks")` (a bundled id or a path) returns `Rules` or
raises `RulesetInvalid` carrying every finding; `check_ruleset(path)` returns the
findings for `rulecraft validate`.

Start-up: a command does one of these things, often on a model read back from the
cache, so what only one operation needs (the builder and the checks, the game loop, the
exact explorer) is imported by that operation, not here: the stage order is the same
(game/ may import every stage before it), only the moment differs.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import Finding, Location, RulecraftError, UsageError
from ..expr import budget
from ..model.overlay import chain_of
from ..model.paths import resolve_path
from ..model.ruleset import Ruleset, RulesetInvalid
from . import rules_cache


class Rules(Ruleset):
    """A built, checked ruleset with the operations a user runs on it."""

    def roll(self, expression: str, seed: int | None = None):
        from ..expr.rolling import roll
        with budget.ruleset_budget(self.budget("steps"), self.budget("forks")):
            return roll(expression, seed, self.globals)

    def odds(self, expression: str):
        from ..expr.rolling import odds
        with budget.ruleset_budget(self.budget("steps"), self.budget("forks")):
            return odds(expression, self.globals)

    def run(self, procedure: str, inputs: dict | None = None, seed: int | None = None,
            policies: dict | None = None):
        """One run with its transcript.  `policies`: {"": policy} for every choice,
        {unit parameter: policy} for that unit's (see `game.runs.parse_policies`)."""
        from .runs import run_procedure
        return self._named(run_procedure(self, procedure, inputs or {}, seed, policies))

    def sampler(self, procedure: str, inputs: dict | None = None, policies: dict | None = None):
        """`rng -> result`: the procedure compiled for many fast runs (no transcript)."""
        from .runs import procedure_sampler
        return procedure_sampler(self, procedure, inputs or {}, policies)

    def run_odds(self, procedure: str, inputs: dict | None = None, track: list[str] | None = None,
                 given: str | None = None, policies: dict | None = None):
        """Exact odds of a procedure; `track` are expressions on the state it ends in
        (`result` is its result), `given` an event to condition on, `policies` as for
        `run` (see `game.runs.parse_policies`)."""
        from .odds import procedure_odds
        with budget.ruleset_budget(self.budget("steps"), self.budget("forks")):
            return self._named(procedure_odds(self, procedure, inputs or {}, track or [],
                                              given, policies))

    def odds_game(self, scenario: str | None = None, turns: int | None = None,
                  track: list[str] | None = None, given: str | None = None):
        """Exact odds of a whole scenario: winner, length, survivors, tracked values."""
        from .odds_game import game_odds
        with budget.ruleset_budget(self.budget("steps"), self.budget("forks")):
            return self._named(game_odds(self, scenario, turns, track, given))

    def play(self, scenario: str | None = None, seed: int | None = None, **options):
        from .play import play
        return self._named(play(self, scenario, seed, **options))

    def _named(self, result):
        """The result marked with the chain of rulesets it came from (its --json names it)."""
        result.chain = self.chain
        return result

    @property
    def chain(self) -> list[str]:
        """The ids of the rulesets this one is made of, base first: ["tanks",
        "veteran-crews"] for a house rule, ["tanks"] for a rulebook."""
        return chain_of(self.path) or [self.id]

    @property
    def chain_name(self) -> str:
        """`tanks + veteran-crews` (the id alone for a ruleset that extends nothing)."""
        return " + ".join(self.chain)


def load_ruleset(ref: str | Path) -> Rules:
    ruleset, findings = _cached_build(resolve_path(ref))
    if ruleset is None or any(f.severity == "error" for f in findings):
        raise RulesetInvalid(findings)
    return ruleset


def check_ruleset(ref: str | Path) -> list[Finding]:
    """All findings for a ruleset file (`rulecraft validate`)."""
    try:
        path = resolve_path(ref)
    except UsageError as err:
        return [Finding("error", "load-io", err.message, Location(str(ref), 1, 1))]
    _, findings = _cached_build(path, every=True)
    return findings


def _cached_build(path: Path, every: bool = False) -> tuple[Rules | None, list[Finding]]:
    """`_build`, or the same model and findings kept from an earlier run while no file of
    the ruleset and no line of rulecraft changed (game/rules_cache.py).  A clean model is
    the same whether `every` was asked or not: the two differ only past an error."""
    kept = rules_cache.read(path)
    if kept is not None:
        return kept
    with rules_cache.building() as facts:
        ruleset, findings = _build(path, every)
    if ruleset is not None:   # (a schema finding is always an error: never kept)
        rules_cache.save(path, ruleset, findings, facts)
    return ruleset, findings


def _build(path: Path, every: bool = False) -> tuple[Rules | None, list[Finding]]:
    """Load, check against the schema, build, check names.  With `every` (validate), the
    later stages run even after an error, so that one run reports every independent
    mistake; a finding at a place already reported is left out (it follows from it)."""
    from ..analysis.board_checks import check_board
    from ..analysis.check import check_names
    from ..model.build import Builder, load_with_extends
    from ..source.checked import schema_findings
    try:
        document = load_with_extends(path, set())
    except RulecraftError as err:
        return None, [Finding.from_error(err)]
    findings = schema_findings(document)
    if any(f.severity == "error" for f in findings) and not every:
        return None, findings
    if every and findings:
        return None, findings + _later_findings(path, document, findings)
    ruleset = Rules(path, document)
    Builder(ruleset, findings).build()
    if not any(f.severity == "error" for f in findings) or every:
        findings.extend(check_names(ruleset))
        findings.extend(check_board(ruleset))
    ruleset.findings = findings
    return ruleset, findings


def _later_findings(path: Path, document, earlier: list[Finding]) -> list[Finding]:
    """What building and the name checks find in a document the schema refused.  Such a
    document can be any shape, so a stage that cannot cope with it simply stops: the
    schema's finding already says what is wrong there."""
    from ..analysis.check import check_names
    from ..model.build import Builder
    found: list[Finding] = []
    try:
        ruleset = Rules(path, document)
        Builder(ruleset, found).build()
        found.extend(check_names(ruleset))
    except Exception:   # a shape the schema refused; its finding stands for it
        pass
    return _distinct(found, earlier)


def _distinct(findings: list[Finding], already: list[Finding]) -> list[Finding]:
    """`findings` less those at a place (file, line) `already` reported."""
    seen = {_place(f) for f in already}
    return [f for f in findings if _place(f) not in seen]


def _place(finding: Finding):
    loc = finding.location
    return (loc.file, loc.line) if loc is not None else None

