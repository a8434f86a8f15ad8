"""Policies: how a side makes the choices the rules leave to it (first, random, prefer,
a script, or a person asked at the terminal)."""
from __future__ import annotations


from ..errors import RulecraftError
from ..expr.sampled import Context, compiled
from ..expr.values import json_value
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
        policy, side = self.world.default_policy, None
        if by_value is not None and self.world.sides:
            try:
                side = self.world.side_of(by_value, step.loc)
                policy = side.policy
            except RulecraftError:
                policy = self.world.default_policy
        if policy == "random":
            return options[int(self.world.rng.random() * len(options))], "random"
        if policy == "prefer" and step.prefer is not None:
            scores = []
            for option in options:
                ctx = Context(Scope({"option": option}, frame.ctx.env), None, None, self.world)
                scores.append(compiled(step.prefer)(ctx))
            return options[scores.index(max(scores))], "prefer"
        if policy == "script" and side is not None and self.scripts.get(side.name):
            wanted = self.scripts[side.name].pop(0)
            for option in options:
                if option_text(option) == str(wanted):
                    return option, "script"
            return options[0], "script (no match: first)"
        if policy == "ask" and self.prompt is not None:
            return self.prompt(step, options, side), "ask"
        return options[0], "first"
