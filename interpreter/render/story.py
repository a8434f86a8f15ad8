"""`play` as people read it: the game story (default), the full trace (`--verbose`), the
result alone (`--quiet`) or JSON lines (`--json`), each written while the game runs.

A teller is the game's observer: `begin(world)` once the forces are set up, `event(event,
depth)` for each transcript event as it is written (depth = procedure call nesting), and
`finish(result)` at the end.  Streaming is what lets a person playing `--interactive` see
the map and the state the rules `emit` before the prompt that follows them.

The story knows no rulebook.  A game action is one call made by a phase (or a status
trigger); what it says is, in order of preference, the sentences the rules declare
(`narrate:` on a procedure, `emit` steps), else what the engine saw happen (moves).
Losses, statuses and scores are always told.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .styled import Styled

if TYPE_CHECKING:
    from rich.console import Console

from .text import clean

TOLD = ("story", "emit")                    # sentences the rules wrote
ALWAYS = ("destroyed", "captured", "status", "score", "limit", "turn_ended")
SEEN = ("move",)                            # told only when the rules said nothing
# the kinds of event each mode reads (World.told): the story's lines, and the turns, phases
# and calls it groups them by; the trace reads every kind (None), the result alone none
KINDS = {"story": frozenset(("turn", "phase", "initiative", "result", "call")
                            + TOLD + ALWAYS + SEEN),
         "verbose": None, "quiet": frozenset(("result",))}
PHASE_WORDS = {"start": "start of the turn", "end": "end of the turn", "initiative": "initiative"}


def phase_words(name: str) -> str:
    """A phase as the story heads it: the bookkeeping phases in words, a rule's own
    phase by its name with the underscores of an identifier read as spaces
    (`panic_check` is told as "panic check")."""
    return PHASE_WORDS.get(name) or name.replace("_", " ")


def _unit_label(unit) -> str:
    design = unit.fields.get("design") if isinstance(unit.fields, dict) else None
    kind = getattr(unit.kind, "name", None) or ""
    what = str(design) if design and str(design) != unit.name else kind
    return f"{unit.name} ({what})" if what and what != unit.name else unit.name


class JsonTeller:
    """JSON lines: one object per event as it happens, the result last."""

    def __init__(self, write=print):
        import json   # here: only `--json` loads it
        self.write, self.dumps = write, json.dumps

    def begin(self, world) -> None:
        pass

    def event(self, event: dict, depth: int) -> None:
        self.write(self.dumps(event))

    def finish(self, result) -> None:
        self.write(self.dumps(result.as_json()))


class StoryTeller:
    """The story (mode "story"), the trace ("verbose") or the result alone ("quiet")."""

    def __init__(self, console: Console, mode: str = "story"):
        self.out = console
        self.mode = mode
        self.kinds = KINDS[mode]   # the events it reads: the game writes no others
        self.world = None
        self.action: list[dict] = []       # events of the game action under way
        self.call_starts: dict[int, int] = {}   # depth -> where its latest call began
        self.phase_shown: str | None = None
        self.turn_losses: list[str] = []

    # -------------------------------------------------------------- the observer
    def begin(self, world) -> None:
        self.world = world
        if self.mode != "story":
            return
        self.out.print(Styled("Forces", style="bold"))
        for side in world.sides.values():
            units = ", ".join(_unit_label(u) for u in side.units())
            self.out.print(Styled(f"  {clean(side.name)} ({side.policy}): ", style="bold")
                           .append(clean(units or "no units")))

    def event(self, event: dict, depth: int) -> None:
        if self.mode == "quiet":
            return
        if self.mode == "verbose":
            self._trace(event, depth)
            return
        kind = event["event"]
        if kind in ("turn", "phase", "result"):
            self._flush()
        if kind == "turn":
            self._turn_report()
            self.out.print()
            self.out.print(Styled(f"Turn {event['turn']}", style="bold magenta"))
            self.phase_shown = None
        elif kind == "phase":
            pass
        elif kind == "initiative":
            self.out.print(Styled(f"  initiative: {clean(event['text'])}", style="yellow"))
        elif kind == "result":
            pass
        else:
            if kind == "call" and depth == 0:
                self._flush()
            if kind == "destroyed":
                self.turn_losses.append(str(event.get("unit", "")))
            if kind == "call":
                self.call_starts[depth] = len(self.action)
            if kind == "story" and depth in self.call_starts:
                # a call's sentence is told before what happened inside it
                self.action.insert(self.call_starts[depth], event)
            else:
                self.action.append(event)

    def finish(self, result) -> None:
        if self.mode == "story":
            self._flush()
            self._turn_report()
        elif self.mode == "verbose":
            self.out.print(Styled(f"    {clean(result.events[-1]['text'])}", style="bold green")
                           if result.events else Styled(""))
        self.out.print()
        for line in game_report(result):
            self.out.print(line)

    # -------------------------------------------------------------- the story
    def tell_so_far(self) -> None:
        """Tell the action under way now (before a person is asked to choose)."""
        if self.mode == "story":
            self._flush()

    def _flush(self) -> None:
        events, self.action = self.action, []
        self.call_starts = {}
        told = any(e["event"] in TOLD for e in events)
        shown = [e for e in events
                 if e["event"] in ALWAYS or e["event"] in (TOLD if told else SEEN)]
        if not shown:
            return
        phase = phase_words(shown[0].get("phase", ""))
        if phase and phase != self.phase_shown:
            self.out.print(Styled(f"  {clean(phase)}", style="bold cyan"))
            self.phase_shown = phase
        for e in shown:
            style = {"destroyed": "bold red", "captured": "bold red", "status": "red",
                     "score": "green", "turn_ended": "yellow",
                     "limit": "yellow"}.get(e["event"], "")
            self.out.print(Styled(f"    {clean(e['text'])}", style=style))

    def _turn_report(self) -> None:
        """After a turn: what it cost, and who carries a status into the next one."""
        if self.world is None or self.world.turn == 0:
            return
        pieces = []
        if self.turn_losses:
            pieces.append("lost " + ", ".join(self.turn_losses))
        statuses = [f"{u.name} {', '.join(s.name for s in u.statuses)}"
                    for u in self.world.units.values() if u.alive and u.statuses]
        if statuses:
            pieces.append("statuses: " + "; ".join(statuses))
        self.turn_losses = []
        if pieces:
            self.out.print(Styled("  ▸ " + clean(" · ".join(pieces)), style="dim"))

    # -------------------------------------------------------------- the trace
    def _trace(self, event: dict, depth: int) -> None:
        kind = event["event"]
        if kind == "set" and event.get("unchanged"):
            return
        if kind == "turn":
            self.out.print(Styled(f"── {clean(event['text'])} ──", style="bold magenta"))
        elif kind == "phase":
            self.out.print(Styled(f"  [{clean(event['text'])}]", style="bold cyan"))
        elif kind != "result":
            indent = "    " + "  " * depth
            self.out.print(Styled(indent + clean(event["text"]), style=_TRACE_STYLES.get(kind, "")))


_TRACE_STYLES = {"initiative": "yellow", "destroyed": "bold red", "status": "red",
                 "return": "green", "call": "blue", "choice": "yellow", "limit": "yellow",
                 "story": "bold", "emit": "bold"}


def game_report(result) -> list[Styled]:
    """The end of the game: the winner and why, and for each side what became of its
    units -- destroyed ("lost"), taken by another side ("captured by"), still on it
    ("left", a unit it took from another side marked so, and any status a unit ends
    with, such as a crew killed, said beside its name) -- and the score where the rules
    keep one."""
    winner = result.winner
    head = (f"{winner} wins" if winner else "No winner") + f" after {result.turns} turn" \
        + ("s" if result.turns != 1 else "")
    lines = [Styled(clean(head), style="bold green").append(f" — {clean(result.reason)}", style="")]
    world = result.world
    scored = any(v not in (0, None) for v in result.scores.values())
    for name, side in (world.sides.items() if world is not None else []):
        units = side.units()
        lost = [u.name for u in units if not u.alive]
        left = [_left_label(u, name) for u in units if u.alive]
        taken = [u for u in world.units.values() if u.first_side == name and u.side != name]
        text = f"  {name}: "
        text += (f"lost {len(lost)} ({', '.join(lost)})" if lost else "lost none")
        for other in dict.fromkeys(u.side for u in taken):
            names = [u.name for u in taken if u.side == other]
            text += f"; {len(names)} captured by {other} ({', '.join(names)})"
        text += f"; {len(left)} left" + (f" ({', '.join(left)})" if left else "")
        if scored:
            text += f"; score {result.scores.get(name)}"
        lines.append(Styled(clean(text)))
    return lines


def _left_label(unit, side: str) -> str:
    """A unit still on `side` at the end, with what the report must say of it: taken
    from another side, and the statuses it ends the game with (`crewless`)."""
    notes = [f"taken from {unit.first_side}"] if unit.first_side != side else []
    notes += list(dict.fromkeys(s.name for s in unit.statuses if s.active))
    return f"{unit.name}: {', '.join(notes)}" if notes else unit.name
