"""Sub-commands beyond roll/odds, registered here as they arrive."""
from __future__ import annotations

HANDLERS: dict = {}


def add_parsers(sub, positive_int, seed) -> None:
    """Add the parsers of the commands implemented in this module."""
