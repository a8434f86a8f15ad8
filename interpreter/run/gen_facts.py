"""What the code generator knows about steps before writing them (see `codegen`):
which dice may be plain ints, which calls change no unit, which steps it writes itself.
These facts only ever make the generated code take a shorter path where it cannot change
a result; the lead's resolver (lang/resolve.py) is to answer the name questions here."""
from __future__ import annotations

from ..expr.functions import FUNCTIONS
from ..lang.ast import (Attr, Binary, Bool, Call, Dice, IfExpr, Index, ListExpr, Name, Node,
                        Num, Text, Unary, walk)
from ..lang.steps import (AssignStep, CallStep, ForStep, IfStep, LetStep, ModifyStep,
                          ReturnStep, Step, all_steps)
from ..state.actions import Action

COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
ARITHMETIC = ("+", "-", "*", "/")
# node types the writer compiles itself (anything else is left to a closure)
WRITTEN = (Num, Text, Bool, Dice, Name, Attr, Index, ListExpr, Unary, Binary, IfExpr, Call)


def changes_nothing(target, seen: set) -> bool:
    """Whether calling `target` surely changes no unit: an action that only reads the
    game, or a procedure whose steps call nothing else (calls it is already being asked
    about count as harmless: a cycle of harmless calls is harmless)."""
    if type(target) is Action:
        return not target.mutates
    if not getattr(target, "dsl_procedure", False):
        return False
    if id(target) in seen:
        return True
    seen.add(id(target))
    constants = target.ruleset.fixed_globals()
    own = target.resolution().locals
    for step in all_steps(target.steps):
        if not written_by_us(step):
            return False
        for tree in step.expressions():
            for node in walk(tree):
                if isinstance(node, Call) and not (node.func in FUNCTIONS and not node.kwargs) \
                        and (node.func in own
                             or not changes_nothing(constants.get(node.func), seen)):
                    return False
    return True


def inline_die(node: Dice) -> str | None:
    """Python source rolling one plain die exactly as its sampler does (one draw,
    `int(random() * sides)` picks the face), or None for any other term.  `FACES`
    stands for the faces tuple when they are not consecutive."""
    spec = node.spec
    if spec.count != 1 or spec.reroll or spec.explode or spec.keep is not None \
            or spec.success is not None:
        return None
    faces, sides = spec.faces, len(spec.faces)
    if faces == tuple(range(faces[0], faces[0] + sides)):
        return f"(int(rng.random() * {sides}) + {faces[0]})"
    return f"FACES[int(rng.random() * {sides})]"


# ------------------------------------------------------------------ analysis


def compiled_steps(steps):
    """The steps the writer compiles itself with their nested blocks, not descending into
    a step it hands over (a `repeat`'s body runs in the sampled runner, whose lookups
    give rows, not ConstantRows)."""
    for step in steps:
        yield step
        if type(step) in (IfStep, ForStep):
            for block in step.blocks():
                yield from compiled_steps(block)


def written_by_us(step: Step) -> bool:
    """Whether the writer compiles the step itself (surely: an assignment to a bare
    name is compiled only when the name is a local, so it counts as handed over)."""
    if type(step) is AssignStep:
        return len(step.path) > 1
    return type(step) in (ModifyStep, LetStep, ReturnStep, CallStep, IfStep, ForStep)


def plain_dice(steps: list[Step], binders_count: dict, cell_names=None) -> set[str]:
    """Names that can hold a single die's face as a plain int (see the module doc).
    `cell_names`: every name the ruleset's table `steps` cells mention (they run on the
    caller's names), or None when they are not known."""
    everything = list(all_steps(steps))
    if not all(written_by_us(s) for s in everything):
        return set()
    candidates = {s.name for s in everything
                  if type(s) is LetStep and isinstance(s.node, Dice) and inline_die(s.node)
                  and binders_count.get(s.name) == 1}
    for step in everything:
        # a modify runs as its whole value (`node`) here: its parts are only the
        # transcript's breakdown, which compiled code never writes
        for tree in ((step.node,) if type(step) is ModifyStep else step.expressions()):
            for node in walk(tree):
                if not isinstance(node, WRITTEN):
                    return set()
                if isinstance(node, Call) and node.func == "run" and cell_names is None:
                    return set()
                for child, safe in children(node):
                    if isinstance(child, Name) and child.id in candidates and not safe:
                        candidates.discard(child.id)
            if isinstance(tree, Name) and tree.id in candidates:
                candidates.discard(tree.id)   # a whole value: returned, passed on ...
        if type(step) is AssignStep:
            candidates.discard(step.path[0])   # its owner: a roll is not one
    return candidates - (cell_names or set())


def children(node: Node):
    """(child, whether a plain int there behaves exactly as a bound roll)."""
    if isinstance(node, Binary):
        safe = node.op in COMPARISONS + ARITHMETIC
        return [(node.left, safe), (node.right, safe)]
    if isinstance(node, Attr):
        return [(node.obj, node.name in ("natural", "total"))]
    if isinstance(node, Index):
        return [(node.obj, False), (node.key, True)]
    if isinstance(node, Unary):
        return [(node.operand, node.op == "-")]
    if isinstance(node, IfExpr):
        return [(node.cond, False), (node.then, False), (node.other, False)]
    if isinstance(node, ListExpr):
        return [(i, False) for i in node.items]
    if isinstance(node, Call):
        return [(a, False) for a in node.args] + [(v, False) for _, v in node.kwargs]
    return []
