"""The games: the built-in table (the one place that names a particular game), games registered
in this process and games from plugins, and what the generic players need of each.

Besides the game itself, the registry knows what the generic players need of each game: the
evaluation the `greedy` player maximises, the `search` bot, the exact solver and the batched
simulator (a [`GameEntry`][]). Each slot has a type of its own, declared where the idea lives
(the solvers' in [`abstractgames.solvers`][], the batched simulator's in
[`abstractgames.vector`][]), so that what uses a slot reads what it declares, never probes it.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from ..players import Player
from ..protocol import AbstractGamesError, Game, InvalidParameterError, UnknownGameError
from ..specs import keyword_defaults, parse_options, split_spec
from .plugins import (
    GAME_GROUP,
    Plugin,
    PluginError,
    check_name,
    outside_code_errors,
    plugins,
    quoted,
)

if TYPE_CHECKING:  # imported where used (numpy, from the vector extra, where a simulator is made)
    from ..solvers import CertificateChecker, PerfectStrategy, ProvenMoves, Solver, SolverEntry
    from ..vector import SimulatorFactory

__all__ = [
    "BUILT_IN",
    "FEATURED_GAME",
    "GameEntry",
    "available_games",
    "certificate_checker_for",
    "evaluation_for",
    "game_entry",
    "game_plugin",
    "get_game",
    "import_object",
    "parse_game_spec",
    "perfect_moves_for",
    "proven_moves_for",
    "register_game",
    "search_factory",
    "solver_entry_for",
    "solver_for",
    "vector_for",
]

BUILT_IN = "built in"
"""The origin of what the library itself provides."""

GameFactory = Callable[..., Game]
PlayerFactory = Callable[..., Player]
Evaluation = Callable[..., float]


@attrs.frozen
class GameEntry:
    """What the registry knows of one game.

    Each field is the object itself or where to find it, as `"package.module:attribute"`
    (imported on first use). A plugin may point its `abstractgames.games` entry point at a
    `GameEntry` instead of the game's class, to give the generic players what they need.

    Attributes:
        factory: makes the game: `factory(**params) -> Game` (usually the `Game` subclass).
        evaluation: `evaluate(state, role) -> float` (higher is better for `role`), which the
            `greedy` player maximises; `None`: the outcome alone.
        search: the `search` player: `search(game, time=..., depth=...) -> Player`.
        solver: the exact solver for `abstractgames solve`: a
            [`SolverEntry`][abstractgames.solvers.SolverEntry], the solver with the options it
            declares, or a bare [`Solver`][abstractgames.solvers.Solver],
            `solve(state, max_moves, time_limit) -> Solution`, which is given an entry that
            declares none; `None`: none.
        origin: where the entry comes from, for messages: `"built in"`, `"registered"`, or
            the distribution (`"distribution mygames 1.0"`).
        vector: the batched simulator (see [`abstractgames.vector`][]), a
            [`SimulatorFactory`][abstractgames.vector.SimulatorFactory]:
            `vector(batch_size, seed=..., game=game) -> BatchSimulator`; `None`: none.
        proven_moves: what the solver's players (`proven`, `resist`) ask: `proven_moves()`
            makes a [`ProvenMoves`][abstractgames.solvers.ProvenMoves], which, called as
            `(state, nodes, time_limit)`, returns the side to move's best move with the result
            it proved within `nodes` positions, a
            [`ProvenMove`][abstractgames.solvers.ProvenMove], or `None`; `None`: none.
        perfect_moves: what the `perfect` player asks first: `perfect_moves()` makes a
            [`PerfectStrategy`][abstractgames.solvers.PerfectStrategy], which, called with a
            state (and a time limit), returns the move of a proven winning strategy, a
            [`PerfectMove`][abstractgames.solvers.PerfectMove] (`move`, `route`: which part of
            the strategy chose it, `within`: the most moves of its own the strategy still
            takes), or `None` where the strategy does not cover the position or cannot answer
            in the time (its `reason` says why; its `prepare` does the work it needs before the
            first move); `None`: none.
        certificate_checker: a checker of certificates in a format of this game's own, a
            [`CertificateChecker`][abstractgames.solvers.CertificateChecker] (`magic`, the
            file's first bytes, and `verify_file(path, game)`, returning a report whose `str()`
            says what was proven), for `abstractgames verify`; `None`: the generic format only.
    """

    factory: str | GameFactory
    evaluation: str | Evaluation | None = None
    search: str | PlayerFactory | None = None
    solver: str | SolverEntry | Solver | None = None
    origin: str = "registered"
    vector: str | SimulatorFactory | None = None
    proven_moves: str | Callable[[], ProvenMoves] | None = None
    perfect_moves: str | Callable[[], PerfectStrategy] | None = None
    certificate_checker: str | CertificateChecker | None = None


_BUILTIN_GAMES: dict[str, GameEntry] = {
    "dispersal": GameEntry(
        "abstractgames.dispersal:DispersalGame",
        evaluation="abstractgames.players.dispersal:evaluate",
        search="abstractgames.players.dispersal:DispersalSearch",
        solver="abstractgames.solvers.dispersal:SOLVER",
        origin=BUILT_IN,
        vector="abstractgames.vector.dispersal:DispersalBatch",
    ),
    "entropy": GameEntry(
        "abstractgames.entropy:EntropyGame",
        evaluation="abstractgames.players.entropy:evaluate",
        search="abstractgames.players.entropy:EntropySearch",
        origin=BUILT_IN,
        vector="abstractgames.vector.entropy:EntropyBatch",
    ),
    "orderchaos": GameEntry(
        "abstractgames.orderchaos:OrderChaosGame",
        evaluation="abstractgames.players.orderchaos:evaluate",
        search="abstractgames.players.orderchaos:OrderChaosSearch",
        solver="abstractgames.solvers.orderchaos:SOLVER",
        origin=BUILT_IN,
        vector="abstractgames.vector.orderchaos:OrderChaosBatch",
        proven_moves="abstractgames.solvers.orderchaos:ProvenMoves",
        perfect_moves="abstractgames.solvers.orderchaos:PerfectOrder",
        certificate_checker="abstractgames.solvers.orderchaos_certificate:CHECKER",
    ),
}

FEATURED_GAME = "entropy"
"""The game a front end offers first when the person has not chosen one before (the web page's
form opens on it)."""

_games: dict[str, GameEntry] = {}
"""Games registered in this process with [`register_game`][]."""


def import_object(target: str) -> Any:
    """The object named by `"package.module:attribute"`, importing the module on first use.

    Returns `None` when the module or the attribute does not exist; an error inside an
    existing module is raised as it is.
    """
    module, _, attr = target.partition(":")
    if importlib.util.find_spec(module) is None:
        return None
    return getattr(importlib.import_module(module), attr, None)


def _plugins() -> dict[str, Plugin]:
    return plugins(GAME_GROUP, frozenset(_BUILTIN_GAMES))


def game_plugin(name: str) -> Plugin | None:
    """The entry point that makes `name` a plugin's game, read from the metadata without
    importing the plugin's code; `None` for a built-in, registered or unknown name."""
    if name in _BUILTIN_GAMES or name in _games:
        return None
    return _plugins().get(name)


def register_game(
    name: str,
    factory: GameFactory,
    *,
    evaluation: str | Evaluation | None = None,
    search: str | PlayerFactory | None = None,
    solver: str | SolverEntry | Solver | None = None,
    vector: str | SimulatorFactory | None = None,
) -> None:
    """Make `get_game(name, **params)` call `factory(**params)`, in this process.

    `evaluation`, `search`, `solver` and `vector` are what the generic players and tools use
    for this game (see [`GameEntry`][]). A registered name hides a plugin's of the same name,
    not a built-in. Worker processes of the arena's local executor see these registrations too.

    Raises:
        InvalidParameterError: a bad name, or the name of a built-in game.
    """
    check_name(name, "game")
    if name in _BUILTIN_GAMES:
        raise InvalidParameterError(f"{quoted(name)} is a built-in game: choose another name")
    _games[name] = GameEntry(factory, evaluation, search, solver, "registered", vector)


def game_entry(name: str) -> GameEntry:
    """The [`GameEntry`][] of the game called `name`.

    Raises:
        UnknownGameError: no game has that name (the message lists the valid names).
    """
    entry = _BUILTIN_GAMES.get(name) or _games.get(name)
    if entry is None and isinstance(name, str):
        plugin = _plugins().get(name)  # read once per process; warns of the plugins it ignores
        if plugin is not None:
            loaded = plugin.load("game")
            if isinstance(loaded, GameEntry):
                entry = attrs.evolve(loaded, origin=plugin.origin)
            elif callable(loaded):
                entry = GameEntry(loaded, origin=plugin.origin)
            else:
                raise PluginError(
                    f"game {quoted(name)} of {plugin.origin} is {quoted(loaded)}: its entry "
                    "point must name a Game subclass, a function that makes the game, or a "
                    "GameEntry"
                )
    if entry is None:
        raise UnknownGameError(
            f"unknown game {quoted(name)}; available games: {', '.join(available_games())}"
        )
    return entry


def available_games() -> tuple[str, ...]:
    """The names of all games: built in, registered and from plugins, sorted."""
    return tuple(sorted(set(_BUILTIN_GAMES) | set(_games) | set(_plugins())))


def _resolve(target: Any, name: str, entry: GameEntry, what: str) -> Any:
    if not isinstance(target, str):
        return target
    found = import_object(target)
    if found is None:
        raise PluginError(
            f"the {what} of game {quoted(name)} ({entry.origin}) is not found: {target}"
        )
    return found


def get_game(name: str, **params: Any) -> Game:
    """The game called `name`, made with `params`.

    Raises:
        UnknownGameError: no game has that name (the message lists the valid names).
        InvalidParameterError: the game has no such parameter, or rejects the value.
        PluginError: a game from a plugin that cannot be loaded or made.
    """
    entry = game_entry(name)
    factory: GameFactory = _resolve(entry.factory, name, entry, "factory")
    accepted = keyword_defaults(factory)
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        valid = ", ".join(sorted(accepted)) or "none"
        raise InvalidParameterError(
            f"game {quoted(name)} has no parameter {', '.join(map(quoted, unknown))}; "
            f"its parameters: {valid}"
        )
    if entry.origin == BUILT_IN:
        return factory(**params)
    with outside_code_errors(f"game {quoted(name)} ({entry.origin})"):
        game = factory(**params)
    if not isinstance(game, Game):
        raise PluginError(
            f"game {quoted(name)} ({entry.origin}) made {quoted(game)}, which is not a Game"
        )
    if game.name != name:
        raise PluginError(
            f"game {quoted(name)} ({entry.origin}) made a game called {quoted(game.name)}: the "
            "registered name and Game.name must be the same"
        )
    return game


def parse_game_spec(spec: str) -> Game:
    """The game named by `NAME` or `NAME:key=value,...` (see [`abstractgames.specs`][]).

    Examples:
        >>> parse_game_spec("entropy:size=5").params["size"]
        5
    """
    name, options = split_spec(spec)
    context = f"game {quoted(spec.strip())}"
    params = parse_options(options, context=context, error=InvalidParameterError)
    return get_game(name, **params)


def _entry_of(game: Game) -> GameEntry | None:
    """The entry of the registered game `game` is an instance of, or `None`."""
    try:
        return game_entry(game.name)
    except UnknownGameError:
        return None


def evaluation_for(game: Game) -> Evaluation | None:
    """The evaluation the `greedy` player maximises in `game`, or `None` if it has none
    (also for a game the registry does not know)."""
    entry = _entry_of(game)
    if entry is None or entry.evaluation is None:
        return None
    evaluation: Evaluation = _resolve(entry.evaluation, game.name, entry, "evaluation")
    return evaluation


def search_factory(game: Game) -> PlayerFactory | None:
    """What makes the `search` bot of `game` (`search(game, time=..., depth=...)`), or `None`
    if it has none (also for a game the registry does not know)."""
    entry = _entry_of(game)
    if entry is None or entry.search is None:
        return None
    factory: PlayerFactory = _resolve(entry.search, game.name, entry, "search player")
    return factory


def vector_for(game: Game) -> SimulatorFactory | None:
    """The batched simulator of `game` (`make(batch_size, seed=..., game=game)`, see
    [`abstractgames.vector`][]), or `None` if it has none (also for an unknown game).

    Raises:
        PluginError: the simulator cannot be imported (numpy is not installed, for one).
    """
    entry = _entry_of(game)
    if entry is None or entry.vector is None:
        return None
    try:
        factory: SimulatorFactory = _resolve(entry.vector, game.name, entry, "batched simulator")
    except ImportError as error:  # numpy, from the vector extra
        raise PluginError(
            f"the batched simulator of {quoted(game.name)} needs {error.name or 'a library'}: "
            "pip install 'abstractgames[vector]'"
        ) from None
    return factory


def solver_entry_for(game: Game) -> SolverEntry:
    """The exact solver of `game` with the options it declares (a
    [`SolverEntry`][abstractgames.solvers.SolverEntry]); a game whose entry gives a bare
    function gets an entry that declares none.

    Raises:
        PluginError: the game has no solver (the message lists the games that have one), or
            what its entry names is neither a `SolverEntry` nor a function.
    """
    entry = _entry_of(game)
    if entry is None or entry.solver is None:
        known = sorted({*_BUILTIN_GAMES, *_games})  # never imports a plugin not asked for
        names = ", ".join(n for n in known if _has_solver(n))
        raise PluginError(
            f"there is no solver for {quoted(game.name)} (solvers: {names or 'none'})"
        )
    from ..solvers import SolverEntry  # imported where a solver is asked for

    found = _resolve(entry.solver, game.name, entry, "solver")
    if isinstance(found, SolverEntry):
        return found
    if not callable(found):
        raise PluginError(
            f"the solver of game {quoted(game.name)} ({entry.origin}) is {quoted(found)}: a "
            "SolverEntry or a function that solves"
        )
    return SolverEntry(found)  # a bare solver declares no options: it is given none


def solver_for(game: Game) -> Solver:
    """The exact solver of `game`: `solve(state, max_moves, time_limit, **options) ->
    Solution`, taking the options its [`solver_entry_for`][] declares.

    Raises:
        PluginError: the game has no solver (the message lists the games that have one).
    """
    return solver_entry_for(game).solve


def proven_moves_for(game: Game) -> Callable[[], ProvenMoves] | None:
    """What makes the proven-move oracle of `game`'s solver (see [`GameEntry`][]'s
    `proven_moves`), or `None` if it has none (also for a game the registry does not know)."""
    entry = _entry_of(game)
    if entry is None or entry.proven_moves is None:
        return None
    factory: Callable[[], ProvenMoves] = _resolve(
        entry.proven_moves, game.name, entry, "proven moves"
    )
    return factory


def perfect_moves_for(game: Game) -> Callable[[], PerfectStrategy] | None:
    """What makes the perfect-strategy oracle of `game` (see [`GameEntry`][]'s
    `perfect_moves`), or `None` if it has none (also for a game the registry does not know)."""
    entry = _entry_of(game)
    if entry is None or entry.perfect_moves is None:
        return None
    factory: Callable[[], PerfectStrategy] = _resolve(
        entry.perfect_moves, game.name, entry, "perfect moves"
    )
    return factory


def certificate_checker_for(head: bytes) -> tuple[Game, CertificateChecker] | None:
    """The game and the checker of a certificate in a game's own format (see
    [`GameEntry`][]'s `certificate_checker`) whose first bytes are `head`, among the built-in
    and registered games (no plugin is imported for it); `None` if none claims it."""
    for name, entry in sorted({**_BUILTIN_GAMES, **_games}.items()):
        if entry.certificate_checker is None:
            continue
        checker: CertificateChecker = _resolve(
            entry.certificate_checker, name, entry, "certificate checker"
        )
        if checker.magic and head.startswith(checker.magic):
            return get_game(name), checker
    return None


def _has_solver(name: str) -> bool:
    try:
        return game_entry(name).solver is not None
    except AbstractGamesError:
        return False
