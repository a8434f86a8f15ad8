"""Text from rule files made safe to show.  One function, so that the escaping of control
characters (issue #20) has one home to grow in."""
from __future__ import annotations


def clean(text) -> str:
    """Control characters shown as escapes (a rule file must not move the cursor or
    clear the screen); everything else as written.  Renderers print rich Text objects,
    never markup strings, so `[...]` in a rule is shown as it is.  A new line (a text's
    `\\n`) is shown as the rule writes it, `\\n`, so that one event stays one line."""
    return "".join(ch if ch >= " " or ch == "\t" else "\\n" if ch == "\n" else
                   f"\\x{ord(ch):02x}" for ch in str(text))
