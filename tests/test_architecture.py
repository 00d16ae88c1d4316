"""The layering of the library, checked on every import of every module (see docs/architecture.md).

Every edge counts: imports at the top of a module, imports inside functions, the lazy
``"abstractgames.module:attribute"`` strings of the registry's tables, and the entry points that
``pyproject.toml`` declares (the plugin loader imports them). A module may depend on the layers
below its own; within a layer only on what ``WITHIN`` allows; a module about one game only on that
game; a library only if it is listed, from the modules listed for it; and the graph has no cycle.
No shared module names a game, outside the registry's tables. When a change needs an edge that
this test forbids, move the code, not the test.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
import textwrap
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src"
PYPROJECT = ROOT / "pyproject.toml"
PACKAGE = "abstractgames"

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "foundation",
        (
            "abstractgames.specs",
            "abstractgames.text",
            "abstractgames.strictjson",
            "abstractgames.interrupts",
            "abstractgames.files",
            "abstractgames.timing",
            "abstractgames.stats",
            "abstractgames.ratings",
            "abstractgames.svg",
            "abstractgames.protocol",
            "abstractgames.grid",
        ),
    ),
    ("games", ("abstractgames.orderchaos", "abstractgames.entropy", "abstractgames.dispersal")),
    ("players", ("abstractgames.players", "abstractgames.solvers", "abstractgames.vector")),
    ("external programs", ("abstractgames.engines",)),
    ("registry", ("abstractgames.registry", "abstractgames")),
    ("referee", ("abstractgames.records", "abstractgames.steps", "abstractgames.referee")),
    ("tournaments", ("abstractgames.arena",)),
    (
        "front ends",
        (
            "abstractgames.terminal",
            "abstractgames.mail",
            "abstractgames.mail_signatures",
            "abstractgames.bench",
            "abstractgames.testing",
            "abstractgames.rl",
            "abstractgames.web",
        ),
    ),
    ("command line", ("abstractgames.cli", "abstractgames.__main__")),
]
"""The layers, lowest first, each with the modules and packages in it."""

GAMES = ("orderchaos", "entropy", "dispersal")
"""The built-in games: a module whose dotted name holds one (as a part, or after an underscore,
as in ``codecup_entropy``) is about that game alone."""

WITHIN: dict[str, set[str]] = {
    "abstractgames.protocol": {"abstractgames.specs", "abstractgames.svg", "abstractgames.text"},
    "abstractgames.grid": {"abstractgames.protocol", "abstractgames.text"},
    "abstractgames.specs": {"abstractgames.text"},
    "abstractgames.strictjson": {"abstractgames.text"},
    "abstractgames.referee": {"abstractgames.records", "abstractgames.steps"},
    "abstractgames.steps": {"abstractgames.records"},
    "abstractgames": {"abstractgames.registry"},
    "abstractgames.__main__": {"abstractgames.cli"},
    "abstractgames.mail": {"abstractgames.mail_signatures"},
}
"""Edges allowed inside one layer, besides those inside one package (see ``same_package``)."""

PEER_PACKAGES = ("abstractgames.players", "abstractgames.solvers", "abstractgames.vector")
"""Packages whose modules are peers: each may use the package's own ``__init__`` (the contract),
never a sibling (one game's bot never uses another's); a peer that is a package itself (such as
``players.entropy``) uses its own modules too."""

LAZY_ONLY = {("abstractgames.protocol", "abstractgames.svg")}
"""Edges allowed only inside a function: pictures are drawn on demand."""

EXCEPTIONS = {("abstractgames.cli.engines", "abstractgames.engines.codecup_entropy")}
"""Shared modules that may use a module about one game: ``abstractgames codecup`` is the front end
of the CodeCup Entropy adaptor."""

TABLES = {"abstractgames.registry.games", "abstractgames.registry.players"}
"""The registry's tables of the built-in games and players: the only shared modules that name a
game, or use a module about one."""

PLUGIN_LOADER = "abstractgames.registry.plugins"
"""The module that imports what the entry points of ``pyproject.toml`` name."""
PLUGIN_GROUPS = ("abstractgames.games", "abstractgames.players")
"""The entry-point groups the plugin loader reads."""

CLI_MODULES = {
    "abstractgames.cli",
    "abstractgames.cli.common",
    "abstractgames.cli.listing",
    "abstractgames.cli.bench",
    "abstractgames.cli.play",
    "abstractgames.cli.engines",
    "abstractgames.cli.arena",
    "abstractgames.cli.check",
    "abstractgames.cli.solve",
    "abstractgames.cli.serve",
    "abstractgames.cli.admin",
    "abstractgames.cli.mail",
}
"""The command line's modules (click)."""

RL_MODULES = {
    "abstractgames.rl",
    "abstractgames.rl.pettingzoo",
    "abstractgames.rl.gymnasium",
    "abstractgames.rl.openspiel",
    "abstractgames.rl.render",
    "abstractgames.rl.games",
    "abstractgames.rl.vector",
}
"""The adapters to the game-AI libraries (the `rl` extra)."""

VECTOR_MODULES = {
    "abstractgames.vector",
    "abstractgames.vector.orderchaos",
    "abstractgames.vector.entropy",
    "abstractgames.vector.dispersal",
}
"""The batched simulators (numpy)."""

WEB_MODULES = {
    "abstractgames.web",
    "abstractgames.web.app",
    "abstractgames.web.online_api",
    "abstractgames.web.accounts_api",
    "abstractgames.web.club_api",
    "abstractgames.web.notices_api",
    "abstractgames.web.requests",
    "abstractgames.web.server",
}
"""The web interface's modules that use its libraries (the `web` extra)."""

THIRD_PARTY = {
    "click": CLI_MODULES,
    "rich": {"abstractgames.cli.arena", "abstractgames.terminal"},
    "prompt_toolkit": {"abstractgames.terminal"},
    "hypothesis": {"abstractgames.testing"},
    "distributed": {"abstractgames.arena.executors"},
    "dask": {"abstractgames.arena.executors"},
    "numpy": {
        "abstractgames.protocol",
        "abstractgames.players.openspiel",
        *RL_MODULES,
        *VECTOR_MODULES,
    },
    "pettingzoo": RL_MODULES,
    "gymnasium": RL_MODULES,
    "pyspiel": {"abstractgames.players.openspiel", *RL_MODULES},
    "open_spiel": {"abstractgames.players.openspiel", *RL_MODULES},
    "starlette": WEB_MODULES,
    "uvicorn": {"abstractgames.web.server"},
    "sqlalchemy": {"abstractgames.web.database"},
    "prometheus_client": {"abstractgames.web.metrics"},
    "psycopg": {"abstractgames.web.database"},
    "pyseccomp": {"abstractgames.registry.sandbox"},
    "cryptography": {"abstractgames.mail_signatures"},
}
"""The libraries the package may use besides the standard library, each with the only modules
that may use it (an unlisted library is refused: adding one is a decision)."""

ANYWHERE = {"attrs"}
"""Libraries of the core install that every module may use."""

LAZY_LIBRARIES = {
    ("abstractgames.protocol", "numpy"),
    ("abstractgames.mail_signatures", "cryptography"),
}
"""Libraries a module may use only inside a function (``State.observation_tensor`` needs numpy;
``import abstractgames`` must not; e-mail play works unsigned without the `mail` extra)."""

_LAZY = re.compile(r"^abstractgames(\.[A-Za-z_]\w*)*(:[A-Za-z_]\w*)?$")


def module_files() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its own name)."""
    modules = {}
    for path in sorted((SOURCE / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SOURCE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


MODULES = module_files()


def resolve(name: str) -> str:
    """The longest module of the package that ``name`` (a module, or a name in one) falls in."""
    while name not in MODULES:
        name = name.rpartition(".")[0]
    return name


Edge = tuple[str, str, bool, bool, int]
"""An edge: (target module, or "" for a library; the library's top-level name, or ""; inside a
function; for type checking only; line)."""


def edges(module: str) -> tuple[Edge, ...]:
    """Every edge from ``module``."""
    path = MODULES[module]
    return _edges(module, path, path.read_text(encoding="utf-8"), PYPROJECT, tuple(MODULES))


@functools.cache
def _edges(
    module: str, path: Path, source: str, pyproject: Path, modules: tuple[str, ...]
) -> tuple[Edge, ...]:
    """The edges of a module, found once a process for the same source in the same package:
    several checks walk the whole graph, and a walk reads every module (a second and a half)."""
    return tuple(_find_edges(module, path, source))


def _find_edges(module: str, path: Path, source: str) -> Iterator[Edge]:
    tree = ast.parse(source, str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    nested = {id(inner) for f in functions for inner in ast.walk(f) if inner is not f}
    nested |= {id(f) for f in functions}
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If)
        and (
            (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
            or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")
        )
        for statement in node.body
        for inner in ast.walk(statement)
    }
    docstrings = _docstrings(tree)
    for node in ast.walk(tree):
        lazy, typing = id(node) in nested, id(node) in typing_only
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from _target(alias.name, lazy, typing, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            for alias in node.names:
                full = f"{prefix}.{alias.name}"
                name = full if full in MODULES else prefix
                yield from _target(name, lazy, typing, node.lineno)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and _LAZY.match(node.value)
            and (":" in node.value or ("." in node.value and node.value in MODULES))
        ):
            yield resolve(node.value.partition(":")[0]), "", True, False, node.lineno

    if module == PLUGIN_LOADER:
        for target in entry_points():
            yield resolve(target.partition(":")[0]), "", True, False, ENTRY_POINT


ENTRY_POINT = -1
"""The line of an edge that an entry point of ``pyproject.toml`` makes."""


def entry_points() -> list[str]:
    """The targets (``module:attribute``) of the plugin entry points ``pyproject.toml`` declares."""
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8")).get("project", {})
    groups = project.get("entry-points", {})
    return [target for group in PLUGIN_GROUPS for target in groups.get(group, {}).values()]


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def _target(name: str, lazy: bool, typing: bool, line: int) -> Iterator[Edge]:
    if name == PACKAGE or name.startswith(PACKAGE + "."):
        yield resolve(name), "", lazy, typing, line
    else:
        yield "", name.partition(".")[0], lazy, typing, line


def layer_of(module: str) -> tuple[int, str]:
    """The layer's index and the layer entry (module or package) that holds ``module``."""
    best: tuple[int, str] | None = None
    for index, (_, members) in enumerate(LAYERS):
        for member in members:
            inside = module == member or (member != PACKAGE and module.startswith(member + "."))
            if inside and (best is None or len(member) > len(best[1])):
                best = (index, member)
    assert best is not None, f"{module} is in no layer: add it to LAYERS in {__file__}"
    return best


def game_of(module: str) -> str | None:
    """The game a module is about, or ``None`` for a shared module."""
    words = {w for part in module.split(".")[1:] for w in part.split("_")}
    found = [game for game in GAMES if game in words]
    return found[0] if found else None


def same_package(source: str, target: str) -> bool:
    """Whether ``target`` is in ``source``'s own package (peers: only its ``__init__``, and the
    modules of the peer ``source`` is in when that peer is a package)."""
    for peers in PEER_PACKAGES:
        if source == peers or source.startswith(peers + "."):
            if source == peers:
                return False
            peer = ".".join(source.split(".")[: peers.count(".") + 2])
            return target in (peers, peer) or target.startswith(peer + ".")
    _, entry = layer_of(source)
    return target == entry or target.startswith(entry + ".")


def library_problem(module: str, library: str, lazy: bool) -> str | None:
    """What is wrong with `module` using `library`, if anything."""
    if library in sys.stdlib_module_names or library in ANYWHERE or library == "__future__":
        return None
    allowed = THIRD_PARTY.get(library)
    if allowed is None:
        return (
            f"{module} uses {library}, a library not in THIRD_PARTY (add it there, with its owners)"
        )
    if module not in allowed:
        return f"{module} uses {library} (only {sorted(allowed)} may)"
    if (module, library) in LAZY_LIBRARIES and not lazy:
        return f"{module} imports {library} at import time (only inside a function)"
    return None


def problems() -> list[str]:
    found: list[str] = []
    for module in MODULES:
        level, _ = layer_of(module)
        game = game_of(module)
        for target, library, lazy, _, line in edges(module):
            path = MODULES[module]
            shown = path.relative_to(SOURCE) if path.is_relative_to(SOURCE) else path.name
            where = "pyproject.toml (an entry point)" if line == ENTRY_POINT else f"{shown}:{line}"
            if library:
                problem = library_problem(module, library, lazy)
                if problem is not None:
                    found.append(f"{where}: {problem}")
                continue
            if target == module:
                continue
            target_level, _ = layer_of(target)
            if (module, target) in LAZY_ONLY and not lazy:
                found.append(f"{where}: {module} imports {target} at import time")
            if target_level > level:
                found.append(
                    f"{where}: {module} ({LAYERS[level][0]}) depends on {target} "
                    f"({LAYERS[target_level][0]}), a higher layer"
                )
            elif (
                target_level == level
                and target not in WITHIN.get(module, ())
                and not same_package(module, target)
            ):
                found.append(f"{where}: {module} depends on {target} in its own layer")
            target_game = game_of(target)
            if module in TABLES or (module, target) in EXCEPTIONS:
                continue
            if target_game is not None and target_game != game:
                what = "a shared module" if game is None else f"a module about {game}"
                found.append(f"{where}: {module}, {what}, depends on {target}, about {target_game}")
            if target == "abstractgames.svg" and module not in ("abstractgames.protocol",):
                found.append(f"{where}: {module} draws pictures itself; use State.to_svg")
    return sorted(set(found))


def game_names(module: str) -> list[str]:
    """Where a shared module outside the tables names a game: any string equal to a game's
    name (in a comparison, a tuple, a dict, a `match` case...), docstrings aside."""
    if game_of(module) is not None or module in TABLES:
        return []
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    docstrings = _docstrings(tree)
    return [
        f"{module}:{node.lineno} names the game {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in GAMES and id(node) not in docstrings
    ]


def test_every_module_is_in_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


@pytest.mark.slow
def test_dependencies_point_down_the_layers() -> None:
    assert problems() == []


@pytest.mark.slow
def test_the_module_graph_has_no_cycle() -> None:
    """Imports for type checking alone do not count: they never run."""
    graph = {
        m: {t for t, _, _, typing, _ in edges(m) if t and not typing and t != m} for m in MODULES
    }
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycle = [*path[path.index(target) :], target]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)


def test_no_shared_module_names_a_game() -> None:
    """Outside the registry's tables and the modules about one game, no code names a game."""
    assert [problem for module in MODULES for problem in game_names(module)] == []


def test_the_check_sees_every_kind_of_edge(tmp_path: Path) -> None:
    """The checker itself: lazy strings, imports in functions and relative imports are edges."""
    before = dict(MODULES)
    fake = tmp_path / "abstractgames"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "protocol.py").write_text(
        "def f():\n    from .cli import main\n\nTABLE = {'x': 'abstractgames.players:P'}\n"
    )
    (fake / "cli.py").write_text("")
    (fake / "players.py").write_text(
        "from typing import TYPE_CHECKING\nfrom . import protocol\n"
        "if TYPE_CHECKING:\n    from .cli import main\n"
    )
    try:
        MODULES.clear()
        MODULES.update(
            {
                "abstractgames": fake / "__init__.py",
                "abstractgames.protocol": fake / "protocol.py",
                "abstractgames.cli": fake / "cli.py",
                "abstractgames.players": fake / "players.py",
            }
        )
        found = {(t, lazy) for t, _, lazy, _, _ in edges("abstractgames.protocol")}
        assert found == {("abstractgames.cli", True), ("abstractgames.players", True)}
        found = {(t, typing) for t, _, _, typing, _ in edges("abstractgames.players")}
        assert found == {
            ("abstractgames.protocol", False),
            ("abstractgames.cli", True),
            ("", False),
        }
    finally:
        MODULES.clear()
        MODULES.update(before)


@contextmanager
def fake_package(tmp_path: Path, files: dict[str, str], pyproject: str = "") -> Iterator[None]:
    """The checks run on a package of `files` (dotted name: source) instead of the real one."""
    global PYPROJECT
    before, real = dict(MODULES), PYPROJECT
    MODULES.clear()
    for module, code in {PACKAGE: "", **files}.items():
        path = tmp_path / f"{module.replace('.', '_')}.py"
        path.write_text(textwrap.dedent(code))
        MODULES[module] = path
    PYPROJECT = tmp_path / "pyproject.toml"
    PYPROJECT.write_text(textwrap.dedent(pyproject))
    try:
        yield
    finally:
        MODULES.clear()
        MODULES.update(before)
        PYPROJECT = real


def test_the_check_sees_a_game_named_in_any_shape(tmp_path: Path) -> None:
    shared = """
        \"\"\"A docstring may say entropy.\"\"\"
        NAMES = ("entropy",)
        WEIGHTS = {"orderchaos": 1}

        def pick(name: str) -> int:
            match name:
                case "dispersal":
                    return 1
            return 0
    """
    with fake_package(
        tmp_path, {"abstractgames.cli": shared, "abstractgames.players.entropy": shared}
    ):
        assert game_names("abstractgames.cli") == [
            "abstractgames.cli:3 names the game 'entropy'",
            "abstractgames.cli:4 names the game 'orderchaos'",
            "abstractgames.cli:8 names the game 'dispersal'",
        ]
        assert game_names("abstractgames.players.entropy") == []  # a module about one game


def test_the_check_refuses_libraries_not_listed_and_numpy_at_the_top_of_protocol(
    tmp_path: Path,
) -> None:
    files = {
        "abstractgames.protocol": "import json\nimport attrs\nimport numpy\n",
        "abstractgames.cli": "import requests\n\ndef f():\n    import click\n",
        "abstractgames.terminal": "def f():\n    import numpy\n",
    }
    with fake_package(tmp_path, files):
        assert problems() == [
            "abstractgames_cli.py:1: abstractgames.cli uses requests, a library not in "
            "THIRD_PARTY (add it there, with its owners)",
            "abstractgames_protocol.py:3: abstractgames.protocol imports numpy at import time "
            "(only inside a function)",
            "abstractgames_terminal.py:2: abstractgames.terminal uses numpy (only "
            f"{sorted(THIRD_PARTY['numpy'])} may)",
        ]
    with fake_package(tmp_path, {"abstractgames.protocol": "def f():\n    import numpy\n"}):
        assert problems() == []


def test_the_check_reads_the_entry_points_as_edges(tmp_path: Path) -> None:
    pyproject = """
        [project.entry-points."abstractgames.players"]
        mine = "abstractgames.cli:Bot"
    """
    files = {"abstractgames.registry.plugins": "", "abstractgames.cli": "class Bot: ..."}
    with fake_package(tmp_path, files, pyproject):
        assert problems() == [
            "pyproject.toml (an entry point): abstractgames.registry.plugins (registry) depends "
            "on abstractgames.cli (command line), a higher layer"
        ]


def test_a_peer_that_is_a_package_uses_its_own_modules_and_no_other_peer() -> None:
    entropy = "abstractgames.players.entropy"
    assert same_package(f"{entropy}.search", f"{entropy}.board")
    assert same_package(entropy, f"{entropy}.player")
    assert same_package(f"{entropy}.player", "abstractgames.players")
    assert not same_package(f"{entropy}.search", "abstractgames.players.orderchaos")
    assert not same_package("abstractgames.players.greedy", f"{entropy}.board")
    assert not same_package("abstractgames.players.greedy", entropy)


def test_the_architecture_page_names_every_module() -> None:
    page = (SOURCE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", page))
    for module in MODULES:
        if module != PACKAGE:
            assert module.rpartition(".")[2] in words, f"docs/architecture.md: say what {module} is"
    for name, _ in LAYERS:
        assert f"| {name} |" in page, f"docs/architecture.md: describe the layer {name!r}"
