"""The house's import rules that import-linter's contracts cannot say: no import cycle
anywhere in the project's packages, an import inside `if TYPE_CHECKING:` counted like
any other (a part typed against a peer that imports it back is a cycle all the same:
type it against a small Protocol in a leaf module of its wing, as the wings'
`table.py` do)."""

from __future__ import annotations

import sys
import tomllib
from functools import cache

import grimp
import pytest

from tests.conftest import ROOT


@cache
def _graph() -> grimp.ImportGraph:
    with (ROOT / "pyproject.toml").open("rb") as f:
        packages = tomllib.load(f)["tool"]["importlinter"]["root_packages"]
    # TYPE_CHECKING imports are kept (grimp's default): they are imports of the house.
    return grimp.build_graph(*packages, cache_dir=None)


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every set of modules that import each other round (strongly connected, by
    Tarjan's algorithm), each sorted, largest first."""
    imports = {m: sorted(graph.find_modules_directly_imported_by(m) & graph.modules)
               for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in imports[module]:
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(imports)))
    try:
        for module in sorted(imports):
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(found, key=len, reverse=True)


def loop(graph: grimp.ImportGraph, group: list[str]) -> list[str]:
    """One way round a cycle: from its first module back to it, by direct imports."""
    first = group[0]
    back = min((graph.find_shortest_chain(importer=imported, imported=first) or ()
                for imported in graph.find_modules_directly_imported_by(first)
                if imported in group), key=len)
    return [first, *back]


def test_cycles_finds_a_cycle_through_a_type_only_import() -> None:
    graph = grimp.ImportGraph()
    for module in ("a", "a.b", "a.c", "a.d"):
        graph.add_module(module)
    graph.add_import(importer="a.b", imported="a.c")
    graph.add_import(importer="a.c", imported="a.b")    # as under `if TYPE_CHECKING:`
    graph.add_import(importer="a.c", imported="a.d")
    assert cycles(graph) == [["a.b", "a.c"]]
    assert loop(graph, ["a.b", "a.c"]) == ["a.b", "a.c", "a.b"]


def _machines_still_take_the_controller() -> bool:
    return any(module.startswith("firmware.machines.") for module in
               _graph().find_modules_that_directly_import("firmware.controller"))


@pytest.mark.xfail(_machines_still_take_the_controller(), strict=True,
                   reason="the machines still take the controller, which builds them: "
                          "the one cycle left until they are handed ports")
def test_no_import_cycle_anywhere() -> None:
    graph = _graph()
    found = cycles(graph)
    assert not found, "import cycles (TYPE_CHECKING imports count):\n" + "\n".join(
        f"  {len(group)} modules, for one: {' -> '.join(loop(graph, group))}; all: "
        f"{' '.join(group)}" for group in found)
