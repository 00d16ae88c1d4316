"""The registry: the one place that names the games and players, built in or added from outside.

A game is known by a name (`"entropy"`) and made with [`get_game`][]; a player by a spec
(`"search:time=1.5"`) and made with [`make_player`][]. Names come from four places, looked up
in this order:

1. the built-in table below (the only place in the library that names a particular game);
2. [`register_game`][] and [`register_player`][] in this process;
3. installed distributions, through the entry-point groups `abstractgames.games` and
   `abstractgames.players` (loaded on first use; see [Add a game](../add-a-game.md));
4. for players only, a class in a file or module: `path/to/bot.py:MyBot` or
   `package.module:MyBot`, with options after a second colon (`bot.py:MyBot:depth=3`).

Besides the game itself, the registry knows what the generic players need of each game: the
evaluation the `greedy` player maximises, the `search` bot, and the exact solver (a
[`GameEntry`][]). A game without an evaluation gets
[`outcome_evaluation`][abstractgames.players.greedy.outcome_evaluation] (take a win at once, else
any move).

Examples:
    >>> from abstractgames import get_game, make_player
    >>> make_player("search:depth=2", get_game("orderchaos")).spec
    'search:depth=2'
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import inspect
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs

from .players import RAW_ARGUMENT, RUNS_PROGRAM, InvalidPlayerError, Player
from .protocol import AbstractGamesError, Game, InvalidParameterError, UnknownGameError
from .specs import keyword_defaults, parse_options, split_spec
from .text import value_excerpt

__all__ = [
    "GAME_GROUP",
    "PLAYER_GROUP",
    "GameEntry",
    "GameInfo",
    "PlayerInfo",
    "PluginError",
    "PluginWarning",
    "available_games",
    "available_players",
    "build_player",
    "check_player_spec",
    "describe_game",
    "describe_player",
    "evaluation_for",
    "game_entry",
    "get_game",
    "import_object",
    "make_player",
    "mc_player",
    "outside_code",
    "parse_game_spec",
    "player_origin",
    "register_game",
    "register_player",
    "registrations",
    "restore_registrations",
    "search_player",
    "solver_for",
    "vector_for",
]

GAME_GROUP = "abstractgames.games"
"""The entry-point group through which installed distributions add games."""
PLAYER_GROUP = "abstractgames.players"
"""The entry-point group through which installed distributions add players."""

DEFAULT_SEARCH_TIME = 1.0
"""Seconds per move of the `search` player when neither `time` nor `depth` is given."""
MAX_SEARCH_TIME = 86_400.0
"""The longest time per move the `search` player takes (a day)."""

GameFactory = Callable[..., Game]
PlayerFactory = Callable[..., Player]
Evaluation = Callable[..., float]

_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


class PluginError(AbstractGamesError, ValueError):
    """A game or player from outside (a plugin, a file, a module) that cannot be loaded or made."""


class PluginWarning(UserWarning):
    """A plugin that is ignored (a bad name, a name already taken); the message names it."""


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
        solver: `solve(state, max_moves, time_limit) -> solution` for `abstractgames solve`.
        origin: where the entry comes from, for messages: `"built in"`, `"registered"`, or
            the distribution (`"distribution mygames 1.0"`).
        vector: the batched simulator (see [`abstractgames.vector`][]):
            `vector(batch_size, seed=..., game=game) -> BatchSimulator`; `None`: none.
    """

    factory: str | GameFactory
    evaluation: str | Evaluation | None = None
    search: str | PlayerFactory | None = None
    solver: str | Callable[..., Any] | None = None
    origin: str = "registered"
    vector: str | Callable[..., Any] | None = None


_BUILTIN_GAMES: dict[str, GameEntry] = {
    "dispersal": GameEntry(
        "abstractgames.dispersal:DispersalGame",
        evaluation="abstractgames.players.dispersal:evaluate",
        search="abstractgames.players.dispersal:DispersalSearch",
        solver="abstractgames.solvers.dispersal:solve",
        origin="built in",
        vector="abstractgames.vector.dispersal:DispersalBatch",
    ),
    "entropy": GameEntry(
        "abstractgames.entropy:EntropyGame",
        evaluation="abstractgames.players.entropy:evaluate",
        search="abstractgames.players.entropy:EntropySearch",
        origin="built in",
        vector="abstractgames.vector.entropy:EntropyBatch",
    ),
    "orderchaos": GameEntry(
        "abstractgames.orderchaos:OrderChaosGame",
        evaluation="abstractgames.players.orderchaos:evaluate",
        search="abstractgames.players.orderchaos:OrderChaosSearch",
        origin="built in",
        vector="abstractgames.vector.orderchaos:OrderChaosBatch",
    ),
}

_BUILTIN_PLAYERS: dict[str, str] = {
    "codecup": "abstractgames.engines.codecup_entropy:codecup_player",
    "engine": "abstractgames.engines.agp:engine_player",
    "greedy": "abstractgames.registry:greedy_player",
    "mc": "abstractgames.registry:mc_player",
    "random": "abstractgames.players:RandomPlayer",
    "search": "abstractgames.registry:search_player",
}

_games: dict[str, GameEntry] = {}
"""Games registered in this process with [`register_game`][]."""
_players: dict[str, PlayerFactory] = {}
"""Players registered in this process with [`register_player`][]."""


def _r(value: object) -> str:
    """`repr(value)` for a message: bounded (long enough for a path) and escaped."""
    return value_excerpt(value, 160)


def import_object(target: str) -> Any:
    """The object named by `"package.module:attribute"`, importing the module on first use.

    Returns `None` when the module or the attribute does not exist; an error inside an
    existing module is raised as it is.
    """
    module, _, attr = target.partition(":")
    if importlib.util.find_spec(module) is None:
        return None
    return getattr(importlib.import_module(module), attr, None)


def _check_name(name: str, what: str) -> None:
    if not isinstance(name, str) or not _NAME.match(name):
        raise InvalidParameterError(
            f"invalid {what} name {_r(name)}: use lower-case letters, digits, _ and -, "
            "starting with a letter"
        )


# --- plugins --------------------------------------------------------------------------------------


@attrs.frozen
class _Plugin:
    entry_point: metadata.EntryPoint
    distribution: str

    def load(self, what: str) -> Any:
        try:
            return self.entry_point.load()
        except Exception as error:  # a plugin's own bug must not end the program with a traceback
            raise PluginError(
                f"{what} {_r(self.entry_point.name)} of distribution {self.distribution} cannot be "
                f"loaded from {_r(self.entry_point.value)}: {_describe(error)}"
            ) from error


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


@functools.cache
def _plugins(group: str) -> dict[str, _Plugin]:
    """The entry points of `group` by name; bad names and clashes are warned about and dropped."""
    builtin = _BUILTIN_GAMES if group == GAME_GROUP else _BUILTIN_PLAYERS
    what = "game" if group == GAME_GROUP else "player"
    found: dict[str, _Plugin] = {}
    try:
        points = metadata.entry_points(group=group)
    except Exception as error:  # damaged metadata of some installed distribution
        _warn(f"the installed {what}s from plugins cannot be read: {_describe(error)}")
        return found
    for point in sorted(points, key=lambda p: (_distribution(p), p.name)):
        plugin = _Plugin(point, _distribution(point))
        if not _NAME.match(point.name):
            _warn(
                f"{what} {_r(point.name)} of distribution {plugin.distribution} is ignored: "
                "a name is lower-case letters, digits, _ and -, starting with a letter"
            )
        elif point.name in builtin:
            _warn(
                f"{what} {_r(point.name)} of distribution {plugin.distribution} is ignored: "
                f"{_r(point.name)} is a built-in {what}"
            )
        elif point.name in found:
            _warn(
                f"{what} {_r(point.name)} of distribution {plugin.distribution} is ignored: "
                f"distribution {found[point.name].distribution} already has that name"
            )
        else:
            found[point.name] = plugin
    return found


def _distribution(point: metadata.EntryPoint) -> str:
    dist = point.dist
    return "(unknown)" if dist is None else f"{dist.name} {dist.version}"


def _warn(message: str) -> None:
    warnings.warn(message, PluginWarning, stacklevel=3)


def refresh_plugins() -> None:
    """Read the installed distributions' entry points again (they are read once per process)."""
    _plugins.cache_clear()


# --- games ----------------------------------------------------------------------------------------


def register_game(
    name: str,
    factory: GameFactory,
    *,
    evaluation: str | Evaluation | None = None,
    search: str | PlayerFactory | None = None,
    solver: str | Callable[..., Any] | None = None,
) -> None:
    """Make `get_game(name, **params)` call `factory(**params)`, in this process.

    `evaluation`, `search` and `solver` are what the generic players use for this game
    (see [`GameEntry`][]). A registered name hides a plugin's of the same name, not a built-in.
    Worker processes of the arena's local executor see these registrations too.

    Raises:
        InvalidParameterError: a bad name, or the name of a built-in game.
    """
    _check_name(name, "game")
    if name in _BUILTIN_GAMES:
        raise InvalidParameterError(f"{_r(name)} is a built-in game: choose another name")
    _games[name] = GameEntry(factory, evaluation, search, solver, "registered")


def game_entry(name: str) -> GameEntry:
    """The [`GameEntry`][] of the game called `name`.

    Raises:
        UnknownGameError: no game has that name (the message lists the valid names).
    """
    plugins = _plugins(GAME_GROUP)  # read once per process; warns about a plugin it ignores
    entry = _BUILTIN_GAMES.get(name) or _games.get(name)
    if entry is None and isinstance(name, str):
        plugin = plugins.get(name)
        if plugin is not None:
            loaded = plugin.load("game")
            origin = f"distribution {plugin.distribution}"
            if isinstance(loaded, GameEntry):
                entry = attrs.evolve(loaded, origin=origin)
            elif callable(loaded):
                entry = GameEntry(loaded, origin=origin)
            else:
                raise PluginError(
                    f"game {_r(name)} of {origin} is {_r(loaded)}: its entry point must name a "
                    "Game subclass, a function that makes the game, or a GameEntry"
                )
    if entry is None:
        raise UnknownGameError(
            f"unknown game {_r(name)}; available games: {', '.join(available_games())}"
        )
    return entry


def available_games() -> tuple[str, ...]:
    """The names of all games: built in, registered and from plugins, sorted."""
    return tuple(sorted(set(_BUILTIN_GAMES) | set(_games) | set(_plugins(GAME_GROUP))))


def _resolve(target: Any, name: str, entry: GameEntry, what: str) -> Any:
    if not isinstance(target, str):
        return target
    found = import_object(target)
    if found is None:
        raise PluginError(f"the {what} of game {_r(name)} ({entry.origin}) is not found: {target}")
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
            f"game {_r(name)} has no parameter {', '.join(map(_r, unknown))}; "
            f"its parameters: {valid}"
        )
    if entry.origin == "built in":
        return factory(**params)
    with _outside_code(f"game {_r(name)} ({entry.origin})"):
        game = factory(**params)
    if not isinstance(game, Game):
        raise PluginError(f"game {_r(name)} ({entry.origin}) made {_r(game)}, which is not a Game")
    if game.name != name:
        raise PluginError(
            f"game {_r(name)} ({entry.origin}) made a game called {_r(game.name)}: the registered "
            "name and Game.name must be the same"
        )
    return game


@contextmanager
def _outside_code(what: str) -> Iterator[None]:
    """Turn an unexpected exception of code from outside the library into a [`PluginError`][]."""
    try:
        yield
    except AbstractGamesError:
        raise
    except Exception as error:
        raise PluginError(f"{what} failed: {_describe(error)}") from error


def parse_game_spec(spec: str) -> Game:
    """The game named by `NAME` or `NAME:key=value,...` (see [`abstractgames.specs`][]).

    Examples:
        >>> parse_game_spec("entropy:size=5").params["size"]
        5
    """
    name, options = split_spec(spec)
    params = parse_options(options, context=f"game {_r(spec.strip())}", error=InvalidParameterError)
    return get_game(name, **params)


def evaluation_for(game: Game) -> Evaluation | None:
    """The evaluation the `greedy` player maximises in `game`, or `None` if it has none
    (also for a game the registry does not know)."""
    entry = _entry_of(game)
    if entry is None or entry.evaluation is None:
        return None
    evaluation: Evaluation = _resolve(entry.evaluation, game.name, entry, "evaluation")
    return evaluation


def _entry_of(game: Game) -> GameEntry | None:
    """The entry of the registered game `game` is an instance of, or `None`."""
    try:
        return game_entry(game.name)
    except UnknownGameError:
        return None


def vector_for(game: Game) -> Callable[..., Any] | None:
    """The batched simulator of `game` (`make(batch_size, seed=..., game=game)`, see
    [`abstractgames.vector`][]), or `None` if it has none (also for an unknown game).

    Raises:
        PluginError: the simulator cannot be imported (numpy is not installed, for one).
    """
    entry = _entry_of(game)
    if entry is None or entry.vector is None:
        return None
    try:
        factory: Callable[..., Any] = _resolve(entry.vector, game.name, entry, "batched simulator")
    except ImportError as error:  # numpy, from the vector extra
        raise PluginError(
            f"the batched simulator of {_r(game.name)} needs {error.name or 'a library'}: "
            "pip install 'abstractgames[vector]'"
        ) from None
    return factory


def solver_for(game: Game) -> Callable[..., Any]:
    """The exact solver of `game`: `solve(state, max_moves, time_limit) -> solution`.

    Raises:
        PluginError: the game has no solver (the message lists the games that have one).
    """
    entry = _entry_of(game)
    if entry is None or entry.solver is None:
        names = ", ".join(n for n in available_games() if _has_solver(n))
        raise PluginError(f"there is no solver for {_r(game.name)} (solvers: {names or 'none'})")
    solver: Callable[..., Any] = _resolve(entry.solver, game.name, entry, "solver")
    return solver


def _has_solver(name: str) -> bool:
    try:
        return game_entry(name).solver is not None
    except AbstractGamesError:
        return False


# --- players --------------------------------------------------------------------------------------


def register_player(name: str, factory: PlayerFactory) -> None:
    """Make `make_player("name:opt=value", game)` call `factory(game, opt=value)`.

    `factory` is a [`Player`][] subclass or a function returning a player, called as described in
    [`make_player`][]. The registration holds in this process (and in the arena's local worker
    processes); a registered name hides a plugin's, not a built-in's.

    Raises:
        InvalidParameterError: a bad name, or the name of a built-in player.
    """
    _check_name(name, "player")
    if name in _BUILTIN_PLAYERS:
        raise InvalidParameterError(f"{_r(name)} is a built-in player: choose another name")
    _players[name] = factory


def available_players() -> tuple[str, ...]:
    """The names of all players: built in, registered and from plugins, sorted."""
    return tuple(sorted(set(_BUILTIN_PLAYERS) | set(_players) | set(_plugins(PLAYER_GROUP))))


def player_origin(name: str) -> str:
    """Where the player `name` comes from: `"built in"`, `"registered"` or its distribution.

    Raises:
        InvalidPlayerError: no player has that name.
    """
    if name in _BUILTIN_PLAYERS:
        return "built in"
    if name in _players:
        return "registered"
    plugin = _plugins(PLAYER_GROUP).get(name)
    if plugin is None:
        raise InvalidPlayerError(f"unknown player {_r(name)}")
    return f"distribution {plugin.distribution}"


def _player_factory(name: str) -> tuple[PlayerFactory, str] | None:
    """The factory of a named player and its origin, or `None` for an unknown name."""
    plugins = _plugins(PLAYER_GROUP)  # read once per process; warns about a plugin it ignores
    target = _BUILTIN_PLAYERS.get(name)
    if target is not None:
        return import_object(target), "built in"
    if name in _players:
        return _players[name], "registered"
    plugin = plugins.get(name)
    if plugin is not None:
        return plugin.load("player"), f"distribution {plugin.distribution}"
    return None


def outside_code(spec: str) -> str | None:
    """What code from outside the library the player `spec` runs, or `None` if none.

    `"an external program"` (`engine:`, `codecup:`) or `"a bot from a file or module"`:
    such players are only started from a spec the user gives, never from a game record alone.
    """
    name, _, rest = spec.strip().partition(":")
    try:
        found = _player_factory(name.strip().lower())
    except AbstractGamesError:
        return None
    if found is not None:
        return "an external program" if getattr(found[0], RUNS_PROGRAM, False) else None
    return "a bot from a file or module" if _is_import_target(name, rest) else None


def make_player(spec: str, game: Game) -> Player:
    """Make the player named by `spec` for `game`.

    `spec` is one of:

    - `NAME` or `NAME:option=value,...`: a built-in, registered or plugin player
      (`random`, `greedy`, `search:time=1.5`); a player that takes its argument whole
      ([`takes_raw_argument`][abstractgames.players.takes_raw_argument]) gets the text after the
      first colon (`engine:./mybot --fast`);
    - `path/to/file.py:Class[:option=value,...]`: a class defined in a Python file;
    - `package.module:Class[:option=value,...]`: a class in an importable module.

    The class (or factory) is called as `Class(game, **options)`, or as `Class()` when its
    constructor takes no argument; it must make a [`Player`][]. The player's
    [`spec`][abstractgames.players.Player.spec] is set to `spec`, so a record can make it again.

    Raises:
        InvalidPlayerError: an unknown name, a file or class that is not there, a class that is
            not a Player, or options the player does not take.
    """
    text = spec.strip()
    factory, options, what, origin = _resolve_player(text)
    if options is None:
        player = _call(factory, (game, text.partition(":")[2].strip()), {}, what, origin)
    else:
        player = _construct(factory, game, options, what, origin)
    player.spec = text
    return player


def _resolve_player(text: str) -> tuple[PlayerFactory, dict[str, Any] | None, str, str]:
    """`(factory, options or None for a raw argument, what to call it, origin)` of a spec."""
    name, _, rest = text.partition(":")
    found = _player_factory(name.strip().lower())
    if found is not None:
        factory, origin = found
        if factory is None:
            raise InvalidPlayerError(f"player {_r(name.strip())} is not built yet")
        what = f"player {_r(name.strip().lower())}"
        if getattr(factory, RAW_ARGUMENT, False):
            return factory, None, what, origin
        options = parse_options(rest, context=f"player {_r(text)}", error=InvalidPlayerError)
        return factory, options, what, origin
    if _is_import_target(name, rest):
        target, _, option_text = rest.partition(":")
        factory = _load_class(name.strip(), target.strip(), text)
        options = parse_options(option_text, context=f"player {_r(text)}", error=InvalidPlayerError)
        return factory, options, f"player {_r(text)}", "outside"
    raise InvalidPlayerError(
        f"unknown player {_r(name.strip())}; available players: {', '.join(available_players())}"
    )


def check_player_spec(spec: str) -> None:
    """Check what can be checked of a player spec before a game is known: the name (or the
    file, module and class), and its options' names. Making the player checks the rest.

    Raises:
        InvalidPlayerError: what [`make_player`][] would say of these.
    """
    factory, options, what, _ = _resolve_player(spec.strip())
    if options is not None:
        _takes_the_game(factory, options, what)


def build_player(
    factory: PlayerFactory, game: Game, options: dict[str, Any] | None = None, *, what: str = ""
) -> Player:
    """Make a player from `factory` (a Player subclass or a function) as [`make_player`][] does.

    `factory(game, **options)`, or `factory()` when it takes no argument; `what` names it in
    messages (default: the factory's name).

    Raises:
        InvalidPlayerError: options it does not take, a value it rejects, or no Player made.
    """
    what = what or f"player {getattr(factory, '__qualname__', repr(factory))}"
    return _construct(factory, game, dict(options or {}), what, "outside")


def _construct(
    factory: PlayerFactory, game: Game, options: dict[str, Any], what: str, origin: str
) -> Player:
    """Call `factory(game, **options)`, or `factory()` if it takes no argument."""
    if _takes_the_game(factory, options, what):
        return _call(factory, (game,), options, what, origin)
    return _call(factory, (), {}, what, origin)


def _takes_the_game(factory: PlayerFactory, options: dict[str, Any], what: str) -> bool:
    """Whether `factory` is called with the game; raise if it cannot take `options`."""
    if inspect.isclass(factory) and not issubclass(factory, Player):
        raise InvalidPlayerError(
            f"{what}: {factory.__module__}.{factory.__qualname__} is not a Player (subclass "
            "abstractgames.players.Player)"
        )
    try:
        parameters = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if not parameters or parameters[0].kind not in (*positional, inspect.Parameter.VAR_POSITIONAL):
        if options:
            raise InvalidPlayerError(
                f"{what} has no option {', '.join(map(_r, sorted(options)))}; its options: none"
            )
        return False
    rest = parameters[1:]
    accepted = [p.name for p in rest if p.kind in (*positional, inspect.Parameter.KEYWORD_ONLY)]
    if not any(p.kind == inspect.Parameter.VAR_KEYWORD for p in rest):
        unknown = sorted(set(options) - set(accepted))
        if unknown:
            raise InvalidPlayerError(
                f"{what} has no option {', '.join(map(_r, unknown))}; "
                f"its options: {', '.join(accepted) or 'none'}"
            )
    missing = [
        p.name
        for p in rest
        if p.default is inspect.Parameter.empty
        and p.kind in (*positional, inspect.Parameter.KEYWORD_ONLY)
        and p.name not in options
    ]
    if missing:
        raise InvalidPlayerError(f"{what} needs the option {', '.join(map(_r, missing))}")
    return True


def _call(
    factory: PlayerFactory, args: tuple[Any, ...], options: dict[str, Any], what: str, origin: str
) -> Player:
    """`factory(*args, **options)`, which must make a Player; outside code's own errors become
    [`InvalidPlayerError`][] (a built-in's propagate as they are)."""
    if origin == "built in":
        player = factory(*args, **options)
    else:
        try:
            player = factory(*args, **options)
        except AbstractGamesError:
            raise
        except (TypeError, ValueError) as error:
            raise InvalidPlayerError(f"{what}: {_describe(error)}") from error
        except Exception as error:
            raise InvalidPlayerError(f"making {what} failed: {_describe(error)}") from error
    if not isinstance(player, Player):
        raise InvalidPlayerError(f"{what} made {_r(player)}, which is not a Player")
    return player


# --- players from files and modules ---------------------------------------------------------------


def _is_import_target(head: str, rest: str) -> bool:
    """Whether `head:rest` names a class in a file or a module rather than a player."""
    head = head.strip()
    if head.endswith(".py") or "/" in head or "\\" in head:
        return True
    target = rest.partition(":")[0].strip()
    return target.isidentifier() and all(part.isidentifier() for part in head.split("."))


def _load_class(where: str, name: str, spec: str) -> Any:
    """The attribute `name` of the file or module `where`."""
    if not name.isidentifier():
        raise InvalidPlayerError(
            f"player {_r(spec)}: name the class after the colon, e.g. {where}:MyBot"
        )
    if where.endswith(".py") or "/" in where or "\\" in where:
        module = _load_file(Path(where).expanduser(), spec)
        place = f"file {where}"
    else:
        module = _load_module(where, spec)
        place = f"module {where}"
    try:
        found = getattr(module, name)
    except AttributeError:
        players = sorted(
            n
            for n, value in vars(module).items()
            if inspect.isclass(value)
            and issubclass(value, Player)
            and value is not Player
            and value.__module__ == module.__name__
        )
        listed = f"; its players: {', '.join(players)}" if players else "; it defines no Player"
        raise InvalidPlayerError(f"player {_r(spec)}: {place} has no {_r(name)}{listed}") from None
    if not inspect.isclass(found):
        raise InvalidPlayerError(f"player {_r(spec)}: {name} in {place} is not a class")
    return found


_files: dict[Path, ModuleType] = {}


def _load_file(path: Path, spec: str) -> ModuleType:
    """Run a Python file as a module once per process (its folder is importable while it runs)."""
    try:
        resolved = path.resolve(strict=True)
    except OSError:
        raise InvalidPlayerError(f"player {_r(spec)}: there is no file {_r(str(path))}") from None
    if not resolved.is_file():
        raise InvalidPlayerError(f"player {_r(spec)}: {_r(str(path))} is not a file")
    if resolved in _files:
        return _files[resolved]
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:10]
    stem = re.sub(r"\W", "_", resolved.stem)
    module_name = f"abstractgames_bot_{stem}_{digest}"
    loader_spec = importlib.util.spec_from_file_location(module_name, resolved)
    if loader_spec is None or loader_spec.loader is None:
        raise InvalidPlayerError(f"player {_r(spec)}: cannot load {_r(str(path))} as Python")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = module
    folder = str(resolved.parent)
    sys.path.insert(0, folder)
    try:
        loader_spec.loader.exec_module(module)
    except BaseException as error:
        del sys.modules[module_name]
        if not isinstance(error, Exception):
            raise
        where = ""
        if isinstance(error, SyntaxError) and error.lineno is not None:
            where = f" (line {error.lineno})"
        raise InvalidPlayerError(
            f"player {_r(spec)}: running {_r(str(path))} failed{where}: {_describe(error)}"
        ) from error
    finally:
        with suppress(ValueError):
            sys.path.remove(folder)
    _files[resolved] = module
    return module


def _load_module(name: str, spec: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is not None and (name == error.name or name.startswith(error.name + ".")):
            raise InvalidPlayerError(
                f"player {_r(spec)}: there is no module {_r(name)} (and no player called "
                f"{_r(name)}; available players: {', '.join(available_players())})"
            ) from None
        raise InvalidPlayerError(
            f"player {_r(spec)}: importing {name} failed: {_describe(error)}"
        ) from error
    except Exception as error:
        raise InvalidPlayerError(
            f"player {_r(spec)}: importing {name} failed: {_describe(error)}"
        ) from error


def registrations() -> dict[str, dict[str, Any]]:
    """What [`register_game`][] and [`register_player`][] added in this process.

    `{"games": {name: GameEntry}, "players": {name: factory}}`: pass it to
    [`restore_registrations`][] in another process (the arena's local workers do).
    """
    return {"games": dict(_games), "players": dict(_players)}


def restore_registrations(saved: dict[str, dict[str, Any]]) -> None:
    """Repeat in this process the registrations [`registrations`][] returned elsewhere."""
    _games.update(saved.get("games", {}))
    _players.update(saved.get("players", {}))


# --- listings -------------------------------------------------------------------------------------


@attrs.frozen
class GameInfo:
    """A game as listings show it (`abstractgames list`, the documentation).

    Attributes:
        name: the registered name.
        title: the game's name for people.
        origin: `"built in"`, `"registered"` or the distribution it comes from.
        roles: the roles in turn order.
        params: each parameter with its default value.
        summary: the first line of the game class's docstring.
    """

    name: str
    title: str
    origin: str
    roles: tuple[str, ...]
    params: dict[str, Any]
    summary: str


@attrs.frozen
class PlayerInfo:
    """A player as listings show it.

    Attributes:
        name: the registered name.
        origin: `"built in"`, `"registered"` or the distribution it comes from.
        options: each option with its default value (`None` for a player taking a command).
        summary: the first line of the factory's docstring.
    """

    name: str
    origin: str
    options: dict[str, Any] | None
    summary: str


def _summary(target: Any) -> str:
    """The first paragraph of a docstring as plain text: code marks and cross-references gone."""
    text = (inspect.getdoc(target) or "").strip().split("\n\n")[0].replace("\n", " ")
    return re.sub(r"\[([^\]]+)\]\[[^\]]*\]", r"\1", text).replace("`", "")


def describe_game(name: str) -> GameInfo:
    """What listings say of the game `name` (it is made with its default parameters).

    Raises:
        UnknownGameError: no such game.
        PluginError: a plugin game that cannot be loaded or made.
    """
    entry = game_entry(name)
    game = get_game(name)
    return GameInfo(
        name=name,
        title=game.title or name,
        origin=entry.origin,
        roles=tuple(game.roles),
        params=dict(game.params),
        summary=_summary(type(game)),
    )


def describe_player(name: str) -> PlayerInfo:
    """What listings say of the player `name`.

    Raises:
        InvalidPlayerError: no such player.
        PluginError: a plugin player that cannot be loaded.
    """
    found = _player_factory(name)
    if found is None:
        raise InvalidPlayerError(f"unknown player {_r(name)}")
    factory, origin = found
    options: dict[str, Any] | None = None
    if not getattr(factory, RAW_ARGUMENT, False):
        try:
            parameters = list(inspect.signature(factory).parameters.values())[1:]
        except (TypeError, ValueError):
            parameters = []
        options = {
            p.name: None if p.default is inspect.Parameter.empty else p.default
            for p in parameters
            if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        }
    return PlayerInfo(name=name, origin=origin, options=options, summary=_summary(factory))


# --- the generic players --------------------------------------------------------------------------


def greedy_player(game: Game) -> Player:
    """The greedy player: one ply of look-ahead with the game's evaluation."""
    from .players.greedy import GreedyPlayer

    return GreedyPlayer(game, evaluation_for(game))


def mc_player(game: Game, simulations: int = 1024) -> Player:
    """The Monte Carlo player: `simulations` random games per move, shared among the moves,
    through the game's batched simulator (flat Monte Carlo; see [`abstractgames.players.mc`][])."""
    if (
        isinstance(simulations, bool)
        or not isinstance(simulations, int)
        or not 1 <= simulations <= 10**7
    ):
        raise InvalidPlayerError(
            f"mc option simulations={_r(simulations)} must be a whole number from 1 to 10000000"
        )
    factory = vector_for(game)
    if factory is None:
        raise InvalidPlayerError(f"there is no batched simulator for {_r(game.name)}")
    from .players.mc import MonteCarloPlayer

    return MonteCarloPlayer(game, factory, simulations)


def search_player(
    game: Game, time: float = DEFAULT_SEARCH_TIME, depth: int | None = None
) -> Player:
    """The search player: the game's search bot with a time budget per move or a fixed depth.

    `time` is seconds per move, more than 0 and at most `MAX_SEARCH_TIME` (a day; default 1.0);
    `depth` a fixed search depth in plies instead, from 1 to the game's `max_length`.
    """
    if (
        isinstance(time, bool)
        or not isinstance(time, int | float)
        or not 0 < time <= MAX_SEARCH_TIME  # also refuses NaN
    ):
        raise InvalidPlayerError(
            f"search option time={_r(time)} must be a number of seconds above 0 and at most "
            f"{MAX_SEARCH_TIME:g}"
        )
    if depth is not None and (
        isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= game.max_length
    ):
        raise InvalidPlayerError(
            f"search option depth={_r(depth)} must be a whole number from 1 to {game.max_length}"
        )
    entry = _entry_of(game)
    if entry is None or entry.search is None:
        raise InvalidPlayerError(f"there is no search player for {_r(game.name)}")
    factory: PlayerFactory = _resolve(entry.search, game.name, entry, "search player")
    player: Player = factory(game, time=float(time), depth=depth)
    return player
