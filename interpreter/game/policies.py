"""Policies: how a side makes the choices the rules leave to it (first, random, prefer,
a script, or a person asked at the terminal)."""
from __future__ import annotations


from ..errors import RulecraftError
from ..expr.sampled import Context, compiled
from ..expr.values import decimal_text
from ..limits import TRANSCRIPT_DECIMALS
from ..run.frames import Scope, option_text  # noqa: F401  (option_text: re-exported)
from ..state.world import Unit, World


# ----------------------------------------------------------------------- choices


class Chooser:
    """Resolves `choose` points by the deciding side's policy: first, random, prefer,
    script (the scenario's list of answers, in order), or ask (a prompt)."""

    def __init__(self, world: World, scripts: dict | None, prompt=None):
        self.world = world
        self.scripts = {k: list(v) for k, v in (scripts or {}).items()}
        self.prompt = prompt

    def choose(self, step, options, by_value, frame):
        """A `choose` of the sampled runner, whose `prefer` is scored in the frame's names."""
        return self.pick(step, options, by_value, None, frame.ctx.env, frame)

    def pick(self, step, options, by_value, scores_of, env, frame=None):
        """(the option chosen, how).  `scores_of()`, when given, is every option's `prefer`
        score as the compiled steps wrote it; else each is scored by the closures in
        `env` with `option` bound."""
        world = self.world
        policy, side = world.default_policy, None
        if by_value.__class__ is Unit and by_value._side in world.sides:
            side = world.sides[by_value._side]   # World.side_of of a unit, written out
            policy = side.policy
        elif by_value is not None and world.sides:
            try:
                side = world.side_of(by_value, step.loc)
                policy = side.policy
            except RulecraftError:
                policy = world.default_policy
        if policy == "random":
            return options[int(self.world.rng.random() * len(options))], "random"
        if policy == "prefer" and step.prefer is not None:
            if scores_of is not None:
                scores = scores_of()
            else:
                scores = []
                for option in options:
                    ctx = Context(Scope({"option": option}, env), None, None, self.world)
                    scores.append(compiled(step.prefer)(ctx))
            return options[scores.index(max(scores))], "prefer"
        if policy == "script" and side is not None and self.scripts.get(side.name):
            wanted = self.scripts[side.name].pop(0)
            for option in options:
                if option_text(option) == str(wanted):
                    return option, "script"
            return options[0], "script (no match: first)"
        if policy == "ask" and self.prompt is not None:
            return self.prompt(step, options, side, frame or _Asked(self.world, env)), "ask"
        return options[0], "first"


class _Asked:
    """What a prompt reads of a compiled step's names (the sampled runner hands it the
    frame itself): the world and the names bound where the choice is made."""

    def __init__(self, world, env):
        self.world = world
        self.locals = env if hasattr(env, "get") else {}


# ------------------------------------------------------------------ a person asked


class GameStopped(Exception):
    """The person playing quit (`q` or end of input) at a choice."""

    def __init__(self, turn: int):
        super().__init__(f"stopped by the player in turn {turn}")
        self.turn = turn


QUIT_WORDS = ("q", "quit", "exit")


class PersonAsks:
    """The `ask` policy at a terminal: says who acts and what is being chosen, lists the
    options, and takes a number or a name (a unique start of one will do); `?` explains
    the choice; `q` or the end of input stops the game (GameStopped).

    `read(prompt)` returns a line or raises EOFError; `write(text)` prints a line;
    `odds(step, options, frame)`, when given, gives a text per option, in turn, shown
    beside it (its exact odds: `render/prompt.py`), and its `help` is what `?` says of
    them."""

    def __init__(self, read, write, before=None, odds=None):
        self.read, self.write = read, write
        self.before = before   # called first: the story told up to this choice
        self.odds = odds

    def __call__(self, step, options, side, frame):
        world = frame.world
        if self.before is not None:
            self.before()
        self.write(self.question(step, options, side, frame))
        beside = iter(self.odds(step, options, frame)) if self.odds is not None else iter(())
        for i, option in enumerate(options, 1):   # each line as soon as its odds are counted
            said = next(beside, "")
            self.write(f"  {i}. {option_detail(option, frame)}" + (f" — {said}" if said else ""))
        while True:
            try:
                answer = self.read("> ").strip()
            except EOFError:
                raise GameStopped(world.turn if world else 0) from None
            if answer.lower() in QUIT_WORDS:
                raise GameStopped(world.turn if world else 0)
            if answer == "?":
                self.write(self.explain(step, options, side))
                if self.odds is not None:
                    self.write(getattr(self.odds, "help", ""))
                continue
            picked = pick(answer, options)
            if picked is not None:
                return picked
            self.write(f"type a number from 1 to {len(options)} or a name; ? explains, q quits")

    @staticmethod
    def question(step, options, side, frame) -> str:
        world = frame.world
        acting = frame.locals.get("unit") or frame.locals.get("holder")
        who = side.name if side is not None else ""
        if isinstance(acting, Unit):
            who = f"{acting.name} ({acting.side})"
        where = f"turn {world.turn}, {world.phase}" if world is not None else ""
        return f"[{where}] {who}: choose {step.what}"

    @staticmethod
    def explain(step, options, side) -> str:
        loc = step.loc
        place = f" (the rule at {loc.file}:{loc.line})" if loc is not None else ""
        whose = f"{side.name} decides" if side is not None else "this side decides"
        return (f"{whose} the {step.what}{place}: {len(options)} option"
                f"{'s' if len(options) != 1 else ''}. Type its number or its name; "
                f"q or Ctrl-D stops the game.")


def option_detail(option, frame) -> str:
    """An option as a prompt lists it: a unit with the distance to the acting unit."""
    text = option_text(option)
    acting = frame.locals.get("unit")
    world = frame.world
    if isinstance(option, Unit) and isinstance(acting, Unit) and world is not None \
            and option is not acting:
        try:
            far = world.distance(acting, option)
        except RulecraftError:
            return text
        return f"{text} ({decimal_text(far, TRANSCRIPT_DECIMALS)} away)"
    return text


def pick(answer: str, options: list):
    """The option an answer names: its number, its name (any case), or the one option
    whose name starts with it."""
    if answer.isdigit():
        n = int(answer)
        return options[n - 1] if 1 <= n <= len(options) else None
    if not answer:
        return None
    names = [option_text(o).lower() for o in options]
    wanted = answer.lower()
    if wanted in names:
        return options[names.index(wanted)]
    starts = [o for o, n in zip(options, names) if n.startswith(wanted)]
    return starts[0] if len(starts) == 1 else None
