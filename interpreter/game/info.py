"""`rulecraft info`: the page a newcomer reads before `run` - what a ruleset holds and the
names to type (scenarios with their sides and units, procedures with their parameters
and defaults, tables with their titles, statuses, how many rulings)."""
from __future__ import annotations

from ..expr.values import json_value


def ruleset_info(ruleset) -> dict:
    """Everything `info` shows, as plain data (JSON as it is)."""
    return {
        "id": ruleset.id, "title": ruleset.title, "source": getattr(ruleset, "source", ""),
        "path": str(ruleset.path), "chain": ruleset.chain,
        "rulings": len(ruleset.rulings or []),
        "scenarios": [_scenario(s) for s in ruleset.scenarios.values()],
        "procedures": [_procedure(p) for p in ruleset.procedures.values()],
        "tables": [{"id": name, "title": table.title or ""} for name, table in ruleset.tables.items()],
        "statuses": [{"id": name, "description": s.description or ""}
                     for name, s in ruleset.statuses.items()],
    }


def _scenario(scenario) -> dict:
    sides = []
    for name, side in scenario.sides.items():
        units = []
        for spec in side["units"]:
            count = spec.get("count", 1) or 1
            label = spec.get("name", spec["kind"])
            units.append({"name": label, "kind": spec["kind"], "count": count,
                          "design": spec.get("design")})
        sides.append({"side": name, "policy": side["policy"], "units": units})
    return {"id": scenario.name, "description": " ".join((scenario.description or "").split()),
            "sides": sides}


def _procedure(proc) -> dict:
    params = []
    for p in proc.params.values():
        entry = {"name": p.name, "type": p.type}
        if p.kind:
            entry["kind"] = p.kind
        if not p.required:
            entry["default"] = json_value(p.default)
        if p.one_of:
            entry["one_of"] = list(p.one_of)
        params.append(entry)
    first = " ".join((proc.description or "").split())
    return {"id": proc.name, "description": first, "params": params,
            "outcomes": [str(o) for o in proc.outcomes]}
