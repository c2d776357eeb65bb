"""The house's import rules that import-linter's contracts cannot say: no import cycle
anywhere in the project's packages, an import inside `if TYPE_CHECKING:` counted like
any other (a part typed against a peer that imports it back is a cycle all the same:
type it against a small Protocol in a leaf module of its wing, as the wings'
`table.py` do)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from functools import cache

import grimp

from tests.conftest import ROOT


@cache
def _graph() -> grimp.ImportGraph:
    with (ROOT / "pyproject.toml").open("rb") as f:
        packages = tomllib.load(f)["tool"]["importlinter"]["root_packages"]
    # TYPE_CHECKING imports are kept (grimp's default): they are imports of the house.
    graph = grimp.build_graph(*packages, cache_dir=None)
    _add_discovered(graph)
    return graph


def _add_discovered(graph: grimp.ImportGraph) -> None:
    """A package that imports its own modules by name (`pkgutil.iter_modules(__path__)`,
    as rules/variants/ finds its variants) imports each of them all the same: add those
    imports, which no import graph sees, so a module that imports its package back
    closes a cycle here too."""
    for package in sorted(graph.modules):
        init = ROOT.joinpath(*package.split("."), "__init__.py")
        if not init.is_file() or "pkgutil.iter_modules(__path__)" not in init.read_text(
                encoding="utf-8"):
            continue
        for child in graph.find_children(package):
            if not child.rpartition(".")[2].startswith("_"):
                graph.add_import(importer=package, imported=child)


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


def test_the_registry_imports_each_variant_it_finds_by_name() -> None:
    found = _graph().find_modules_directly_imported_by("rules.variants")
    assert {"rules.variants.mcr", "rules.variants.fuzhou"} <= found
    assert "rules.variants._spec" not in found


# The modules that import by a dotted name, which no import graph sees, and why each may:
# a scorer once named as "rules.scoring.fuzhou:score" hid a cycle from every check here.
STRING_IMPORTS = {
    "rules/variants/__init__.py": "the registry finds its variants (their imports added above)",
    "venue/desk/web/app.py": "the desk's pages, listed in PARTS; none imports the app",
    # Not counted in the graph: counted, mjtable_core.config -> plugins -> a backend ->
    # mjtable_core.config would be a cycle of 14 modules, and the bottom layer would
    # reach the simulator (the `sim` backend).
    "mjtable_core/plugins.py": "plug-ins by entry point (pyproject.toml): the HAL's "
                               "backends, the simulator's, the rules engine and its config "
                               "check; a lower layer runs them and never imports them",
}


def test_a_string_import_is_named_here() -> None:
    with (ROOT / "pyproject.toml").open("rb") as f:
        packages = tomllib.load(f)["tool"]["importlinter"]["root_packages"]
    found = {path.relative_to(ROOT).as_posix() for package in packages
             for path in sorted((ROOT / package).rglob("*.py"))
             if any(call in path.read_text(encoding="utf-8")
                    for call in ("import_module(", "__import__(", "entry_points("))}
    assert found == set(STRING_IMPORTS), (
        "an import by a dotted name is one no import graph sees: import the module "
        "(a function-local import if it must wait), or name it in STRING_IMPORTS")


def test_no_machine_mentions_the_controller() -> None:
    """Machines are handed ports and their named peers, never the controller that
    builds them: not imported (a type-only import closes a cycle all the same), not
    named (issue 37, "The house")."""
    graph = _graph()
    importers = sorted(m for m in graph.find_modules_that_directly_import(
        "firmware.controller") if m.startswith("firmware.machines."))
    assert importers == []
    named = [f"{path.relative_to(ROOT).as_posix()}:{i}" for path in sorted(
        (ROOT / "firmware" / "machines").rglob("*.py")) for i, line in enumerate(
        path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"controller|\bctl\b", line, re.IGNORECASE)]
    assert named == []


def test_no_import_cycle_anywhere() -> None:
    graph = _graph()
    found = cycles(graph)
    assert not found, "import cycles (TYPE_CHECKING imports count):\n" + "\n".join(
        f"  {len(group)} modules, for one: {' -> '.join(loop(graph, group))}; all: "
        f"{' '.join(group)}" for group in found)


# Where `.state` is not a machine's: the reason each may be compared with a string.
NOT_A_MACHINE_STATE = {
    ("firmware/console/cli.py", "args.state"): "the testmode command's on/off argument",
}


def _string_names(tree: ast.Module) -> set[str]:
    """The module-level names bound to a string or a tuple/list/set of strings."""
    return {target.id for node in tree.body if isinstance(node, ast.Assign)
            and _strings(node.value, set()) for target in node.targets
            if isinstance(target, ast.Name)}


def _strings(node: ast.expr, names: set[str]) -> bool:
    """A string literal, one of `names`, or a tuple/list/set made only of them."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Starred):
        return _strings(node.value, names)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        # None beside them is a state not yet read (`(None, "idle", "staged")`).
        return any(_strings(e, names) for e in node.elts) and all(
            _strings(e, names) or (isinstance(e, ast.Constant) and e.value is None)
            for e in node.elts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
            "frozenset", "set", "tuple") and len(node.args) == 1:
        return _strings(node.args[0], names)
    return False


# The keys under which a status picture or the journal holds a machine's state.
STATE_KEYS = frozenset({"cycle", "build", "lid", "dice", "state"})


def _is_state(node: ast.expr, aliases: set[str]) -> bool:
    """A machine's state as read: `x.state`, `getattr(x, "state")`, a status picture's
    or journal's `x["build"]` / `x.get("build")`, or a local name bound to one."""
    if isinstance(node, ast.Attribute):
        return node.attr == "state"
    if isinstance(node, ast.Name):
        return node.id in aliases
    if isinstance(node, ast.Subscript):
        key = node.slice
        return isinstance(key, ast.Constant) and key.value in STATE_KEYS
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[-1 if isinstance(
            node.func, ast.Name) else 0], ast.Constant):
        if isinstance(node.func, ast.Name) and node.func.id == "getattr":
            return len(node.args) >= 2 and node.args[1].value == "state"
        if isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            return node.args[0].value in STATE_KEYS
    return False


def _states(node: ast.expr, aliases: set[str] = frozenset()) -> list[ast.expr]:
    """The machine states `node` is, or holds as a tuple's element."""
    if _is_state(node, aliases):
        return [node]
    if isinstance(node, ast.Tuple):
        return [found for e in node.elts for found in _states(e, aliases)]
    return []


def _aliases(tree: ast.Module) -> set[str]:
    """The names bound to a machine's state (`state = event["state"]`)."""
    return {target.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
            and _is_state(node.value, set()) for target in node.targets
            if isinstance(target, ast.Name)}


def state_string_compares(source: str, path: str) -> list[str]:
    """Where a `.state` is compared with a string, a tuple or set of strings, or a
    module-level name bound to them, as `path:line: expression`."""
    tree = ast.parse(source)
    names = _string_names(tree)
    aliases = _aliases(tree)
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("startswith", "endswith")
                and _is_state(node.func.value, aliases)
                and all(_strings(a, names) for a in node.args)):
            # A state's name spelled in part: `cycle.state.startswith("top_up")`.
            found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for i, operand in enumerate(operands):
            others = operands[:i] + operands[i + 1:]
            for state in _states(operand, aliases):
                if (path, ast.unparse(state)) in NOT_A_MACHINE_STATE:
                    continue
                if any(_strings(other, names) or _holds_strings(other, names)
                       for other in others):
                    found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
    return sorted(set(found))


def _holds_strings(node: ast.expr, names: set[str]) -> bool:
    """A tuple of tuples whose elements are all strings (`(a, x.state) in (("b", "c"),)`)."""
    return isinstance(node, (ast.Tuple, ast.List, ast.Set)) and bool(node.elts) and all(
        isinstance(e, ast.Tuple) and _strings(e, names) for e in node.elts)


def test_the_check_sees_a_state_compared_with_strings() -> None:
    source = '\n'.join((
        'WAITING = ("play", "dealing")',
        'a = lid.state == "closed"',
        'b = "closed" != self.lid.state',
        'c = plate.state in ("leaving", "returning")',
        'd = cycle.state not in WAITING',
        'e = (name, self.state) in (("lid.lower", "closed"),)',
        'f = side.state in {"feeding", "stacking"}',
        'g = lid.state == LidState.CLOSED',
        'h = side.state in BUSY',
        'i = lid.status == "closed"',
        'state = event["state"]',
        'j = state == "rolling"',
        'k = status["lid"] == "closed"',
        'm = journal.get("build") not in (None, "idle", "staged")',
        'n = getattr(cycle, "state") == "play"',
        'o = status["cycle"] == cycle',
        'p = cycle.state.startswith("top_up")',
    ))
    assert [line.split(":")[1] for line in state_string_compares(source, "m.py")] == [
        "12", "13", "14", "15", "17", "2", "3", "4", "5", "6", "7"]


def test_peers_read_a_state_through_its_enum_not_a_string() -> None:
    """A machine's state is a member of its StrEnum (`LidState.CLOSED`) or a question
    the machine answers (`lid.down()`, `build.staged`): a string typed in a peer is a
    state nobody checks exists (issue 37, "The house"). The simulator and the benches
    read the firmware's machines too, and may import their enums; the venue reads
    states off the wire, where they are the protocol's strings."""
    found = [hit for package in ("firmware", "simulator", "bench")
             for path in sorted((ROOT / package).rglob("*.py"))
             for hit in state_string_compares(path.read_text(encoding="utf-8"),
                                              path.relative_to(ROOT).as_posix())]
    assert not found, "a state compared with strings:\n" + "\n".join(found)


# The house's measures (issue 37, "Done when"): a package folder's modules, not counting
# its __init__.py.
ROOT_MODULES = 8
FOLDER_MODULES = 20
CONTROLLER_LINES = 300
CONTROLLER_IMPORTERS = 3


def _folders() -> dict[str, int]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        packages = tomllib.load(f)["tool"]["importlinter"]["root_packages"]
    return {init.parent.relative_to(ROOT).as_posix(): sum(
                1 for m in init.parent.glob("*.py") if m.name != "__init__.py")
            for package in packages for init in sorted((ROOT / package).rglob("__init__.py"))}


def test_the_house_keeps_its_measures() -> None:
    folders = _folders()
    assert folders["firmware"] <= ROOT_MODULES, "firmware/'s root: move a module to its wing"
    assert {f: n for f, n in folders.items() if n > FOLDER_MODULES} == {}
    lines = len((ROOT / "firmware" / "controller.py").read_text(encoding="utf-8").splitlines())
    assert lines <= CONTROLLER_LINES, f"firmware/controller.py is {lines} lines"
    importers = {m for m in _graph().find_modules_that_directly_import("firmware.controller")}
    assert len(importers) <= CONTROLLER_IMPORTERS, sorted(importers)


# Who may open a Unix stream socket or write the API's requests by hand, beside the one
# client (firmware/api/client.py), and why: a bench that needs the daemon's ordinary
# answers asks them through the client.
BESIDE_THE_CLIENT = {
    "firmware/api/protocol.py": "the protocol itself (its docstring shows a request)",
    "firmware/api/server.py": "the daemon: serves the socket, probes a stale one",
    "bench/api/bench_attacks.py": "an attacker: malformed and hostile bytes on purpose",
    "bench/api/bench_floods.py": "floods of malformed requests on purpose",
    "bench/api/flood_child.py": "a flood from another uid, stdlib only",
    "bench/faults/bench_powercut.py": "the board emulator's control socket, not the daemon",
}


def test_one_client_of_the_daemon() -> None:
    """One client speaks the daemon's protocol (issue 37, "The house"): the console, the
    TUI, the agent, the phone console and the benches use it."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        packages = tomllib.load(f)["tool"]["importlinter"]["root_packages"]
    speaks = re.compile(r'"method":|socket\.AF_UNIX\b(?!, socket\.SOCK_DGRAM)'
                        r'|open_unix_connection')
    found = {path.relative_to(ROOT).as_posix() for package in packages
             for path in sorted((ROOT / package).rglob("*.py"))
             if speaks.search(path.read_text(encoding="utf-8"))}
    assert found - {"firmware/api/client.py"} == set(BESIDE_THE_CLIENT), (
        "speak to the daemon through firmware/api/client.py, or name the module here")
