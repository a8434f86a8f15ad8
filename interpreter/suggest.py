""""Did you mean ...?" suggestions for unknown names."""
from __future__ import annotations

from typing import Iterable


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A hint naming the closest known names, or None when nothing is close."""
    import difflib   # here: every command imports this module, only a mistake needs it
    pool = sorted({c for c in candidates if isinstance(c, str) and not c.startswith("_")})
    close = difflib.get_close_matches(name, pool, n=3, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in pool}
        if name.lower() in lowered:
            close = [lowered[name.lower()]]
    if not close:
        return None
    return "did you mean " + " or ".join(repr(c) for c in close) + "?"
