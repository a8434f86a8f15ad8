"""Every built-in action the DSL can call, gathered from the modules that define them
(they cannot all live in actions.py: moves.py builds on actions.Action)."""
from __future__ import annotations

from .actions import ACTIONS as BASIC
from .batches import BATCHES
from .moves import MOVES

ACTIONS = {**BASIC, **MOVES, **BATCHES}
