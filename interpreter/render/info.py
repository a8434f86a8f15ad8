"""`rulecraft info` on the terminal: a ruleset's contents as a newcomer reads them."""
from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

if TYPE_CHECKING:
    from rich.console import Console

from .text import clean


def _param_text(p: dict) -> str:
    text = p["name"]
    kind = f"{p['type']} {p['kind']}" if p.get("kind") else p["type"]
    text += f": {kind}"
    if "default" in p:
        text += f" = {_value(p['default'])}"
    if p.get("one_of"):
        text += " (" + " | ".join(str(v) for v in p["one_of"]) + ")"
    return text


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_value(x)}" for k, x in v.items()) + "}"
    return str(v)


def print_info(out: Console, info: dict) -> None:
    out.print(Text(clean(info["title"]), style="bold"), Text(f"({clean(info['id'])})", style="dim"))
    if info["source"]:
        out.print(Text(f"source: {clean(info['source'])}"))
    out.print(Text(f"file: {info['path']}", style="dim"))
    if len(info["chain"]) > 1:
        out.print(Text("rules: " + " + ".join(info["chain"]), style="dim"))
    out.print(Text(f"rulings: {info['rulings']} (places where the text is unclear, and what the "
                   f"ruleset does there)"))
    _section(out, "scenarios", "rulecraft play RULESET --scenario NAME")
    for s in info["scenarios"]:
        out.print(Text(f"  {clean(s['id'])}", style="bold"))
        for side in s["sides"]:
            units = ", ".join((f"{u['count']} × " if u["count"] > 1 else "") + u["name"]
                              + (f" ({u['kind']}{', ' + str(u['design']) if u.get('design') else ''})"
                                 if u["name"] != u["kind"] or u.get("design") else "")
                              for u in side["units"])
            out.print(Text(f"    {clean(side['side'])} ({side['policy']}): {clean(units)}"))
    _section(out, "procedures", "rulecraft run RULESET NAME --odds --with PARAM=VALUE")
    for p in info["procedures"]:
        params = ", ".join(_param_text(x) for x in p["params"])
        out.print(Text(f"  {clean(p['id'])}", style="bold").append(f"({clean(params)})"))
        if p["description"]:
            out.print(Text(f"    {clean(p['description'])}", style="dim"))
    _section(out, "tables", "rulecraft tables RULESET NAME")
    for t in info["tables"]:
        out.print(Text(f"  {clean(t['id'])}", style="bold").append(f"  {clean(t['title'])}"))
    if info["statuses"]:
        _section(out, "statuses", None)
        for st in info["statuses"]:
            out.print(Text(f"  {clean(st['id'])}", style="bold")
                      .append(f"  {clean(st['description'])}" if st["description"] else ""))


def _section(out: Console, name: str, how: str | None) -> None:
    out.print()
    head = Text(name, style="bold underline")
    if how:
        head.append(f"   {how}", style="dim")
    out.print(head)
