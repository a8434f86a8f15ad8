"""rulecraft: a rules-as-data interpreter for tabletop wargames."""

__version__ = "0.1.0"
