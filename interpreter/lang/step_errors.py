"""Going on past a broken step: what `compile_steps` records when `validate` asks it to
report every broken step of a list rather than stop at the first."""
from __future__ import annotations

import re

from ..errors import RulecraftError
from ..source.nodes import MapNode, ScalarNode


class StepErrors:
    """What `compile_steps` found wrong in a step list when asked to go on past errors
    (`validate` reports every broken step, not only the first): the errors, and the
    names the broken steps would have bound, so that a later read of such a name is not
    reported as unknown (it follows from the broken step, already reported)."""

    def __init__(self):
        self.errors: list[RulecraftError] = []
        self.bound: set[str] = set()

    def report(self, err: RulecraftError, item) -> None:
        self.errors.append(err)
        self.bound |= meant_binds(item)


_LET_LIKE = re.compile(r"\s*[A-Za-z_]\w*\s+([A-Za-z_]\w*)\s*=(?!=)")


def meant_binds(item) -> set[str]:
    """The name a broken step was meant to bind, read from its text: `let x = d6 +`
    (or misspelt, `lett x = d6`) binds x; a broken choose/modify names its own (a
    broken for binds its variable only inside its body, which is left out with it)."""
    if isinstance(item, ScalarNode) and isinstance(item.value, str):
        match = _LET_LIKE.match(item.value)
        return {match.group(1)} if match else set()
    if isinstance(item, MapNode):
        for key in ("choose", "modify"):
            value = item.get(key)
            if isinstance(value, ScalarNode) and isinstance(value.value, str) \
                    and value.value.isidentifier():
                return {value.value}
    return set()
