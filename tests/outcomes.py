"""What a call came to, as a value tests can compare across paths (a recorded run, the
compiled sampler, exact odds): ("value", its result) or ("error", message, line, column)."""
from interpreter.errors import RulecraftError


def outcome(call):
    try:
        return ("value", call())
    except RulecraftError as err:
        loc = err.location
        return ("error", err.message, loc.line if loc else None, loc.column if loc else None)
