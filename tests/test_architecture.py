"""The layout shows the architecture: subpackages by stage of the data flow, each importing
only the stages before it, no import cycle (lazy imports inside functions included), and
no private name imported from another module."""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "interpreter"

# The stages in the order of the data flow (docs/architecture.md); the base modules at the
# package's top level (errors, limits, suggest, resources, records) come before all of them.
STAGES = ["source", "dice", "lang", "expr", "tables", "state", "run", "model", "analysis",
          "game", "render", "cli"]
BASE = {"errors", "limits", "suggest", "resources", "records"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py") if "_shipped" not in p.parts}


def imports_of(name: str):
    """(imported module, imported names, line) for every import in a module, at any depth
    of its code (so that an import inside a function counts as much as one at the top)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:   # `from . import space` imports a module
                if f"{target}.{alias.name}" in MODULES:
                    yield f"{target}.{alias.name}", [], node.lineno
                elif target in MODULES:
                    yield target, [alias.name], node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    yield alias.name, [], node.lineno


def graph() -> dict[str, set[str]]:
    return {name: {target for target, _, _ in imports_of(name) if target != name}
            for name in MODULES}


def stage(name: str) -> int:
    parts = name.split(".")[1:]
    if not parts or parts[0] in BASE or parts[0] in ("__main__",):
        return -1
    return STAGES.index(parts[0])


def test_every_module_belongs_to_a_stage():
    strays = [name for name in MODULES
              if len(name.split(".")) > 1 and name.split(".")[1] not in set(STAGES) | BASE | {"__main__"}]
    assert strays == []


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node):
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_import_graph_has_no_cycle():
    assert find_cycle(graph()) is None


@pytest.mark.parametrize("edges,cyclic", [
    ({"a": {"b"}, "b": {"c"}, "c": set()}, False),
    ({"a": {"b"}, "b": {"a"}}, True),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, True),
    ({"a": {"a"}}, True),
])
def test_the_cycle_finder_finds_cycles(edges, cyclic):
    assert (find_cycle(edges) is not None) == cyclic


def test_each_stage_imports_only_the_stages_before_it():
    upward = [f"{name} -> {target}" for name, targets in graph().items()
              if name not in ("interpreter", "interpreter.__main__") for target in targets
              if target != "interpreter" and stage(target) > stage(name)]
    assert upward == []


def test_the_package_offers_load():
    import interpreter
    from interpreter.game.api import load_ruleset
    assert interpreter.load is load_ruleset


def test_no_private_name_is_imported_from_another_module():
    private = [f"{name}:{line} imports {n} from {target}"
               for name in MODULES for target, names, line in imports_of(name)
               for n in names if n.startswith("_") and not n.startswith("__")]
    assert private == []
