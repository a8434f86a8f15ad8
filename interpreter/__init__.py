"""rulecraft: a rules-as-data interpreter for tabletop wargames."""

__version__ = "0.1.0"


def __getattr__(name: str):
    """`interpreter.load("tanks")`: the Python API's entry point (game/api.py).  Looked up
    on first use, so that importing one stage (`interpreter.errors`) stays cheap."""
    if name == "load":
        from .game.api import load_ruleset
        return load_ruleset
    raise AttributeError(f"module 'interpreter' has no attribute {name!r}")
