"""The players: the built-in table, players registered in this process and from plugins, bots
from files and modules, and player specs read into their parts.

A player spec is one of:

- `NAME` or `NAME:option=value,...`: a built-in, registered or plugin player (`random`,
  `greedy`, `search:time=1.5`);
- `NAME:TEXT` for a player that takes its argument whole ([`ArgumentKind.RAW`][]), and
  `NAME:[OPTIONS:]COMMAND` for one that runs a program ([`ArgumentKind.PROGRAM`][]:
  `engine:timeout=5:./mybot --fast`);
- `path/to/file.py:Class[:option=value,...]` or `package.module:Class[:option=value,...]`: a
  class in a Python file or an importable module ([`ArgumentKind.CLASS`][]);
- `isolated:[OPTIONS:]SPEC` and `inprocess:SPEC`: the player SPEC in a worker process of its
  own, with the worker's options (`timeout`, `grace`, `log`), or in this process.

A bot from a file or module and a plugin's player run in a worker process of their own (see
`abstractgames.registry.isolation`): `bot.py:Bot` is `isolated:bot.py:Bot`. Only
`inprocess:bot.py:Bot` runs it in this process, for speed or a debugger.

[`PlayerSpec`][] is a spec read into these parts; `str()` writes it back, so a spec is edited as
a value (an option added or taken out), never as text.
"""

from __future__ import annotations

import enum
import inspect
import os
from collections.abc import Callable
from typing import Any

import attrs

from ..players import HUMAN, InvalidPlayerError, Player
from ..protocol import AbstractGamesError, Game, InvalidParameterError
from ..specs import IN_PROCESS, ISOLATED, parse_options, parse_value, split_program_argument
from . import games
from .games import BUILT_IN, import_object
from .loader import is_import_target, load_class
from .plugins import PLAYER_GROUP, Plugin, check_name, describe_error, plugins, quoted

__all__ = [
    "ArgumentKind",
    "OutsideCode",
    "PlayerEntry",
    "PlayerSpec",
    "available_players",
    "build_player",
    "check_player_spec",
    "make_in_process",
    "make_player",
    "outside_code",
    "player_entry",
    "player_origin",
    "register_player",
    "registrations",
    "restore_registrations",
    "with_logs",
]

PlayerFactory = Callable[..., Player]


class ArgumentKind(enum.Enum):
    """How the text after a player's `NAME:` is read."""

    OPTIONS = "options"
    """`option=value,...`, each value read by [`parse_value`][abstractgames.specs.parse_value]
    and passed as a keyword argument: `factory(game, **options)`."""
    RAW = "raw"
    """The whole text, passed as it is: `factory(game, "TEXT")`."""
    PROGRAM = "program"
    """`[OPTIONS:]COMMAND`: the player runs the program `COMMAND` (so it is only started from a
    spec the user gives, never from a game record alone); the whole text is passed as for
    `RAW`, and the front ends may add a `log=DIRECTORY` option."""
    CLASS = "class"
    """A class in a file or a module, with `option=value,...` after a second colon."""


class OutsideCode(enum.Enum):
    """What code from outside the library a player spec runs (see [`outside_code`][])."""

    PROGRAM = "an external program"
    """A program of its own (`engine:`, `codecup:`)."""
    PYTHON = "a bot from a file or module"
    """Python code loaded into this process (`bot.py:MyBot`, `package.module:MyBot`)."""


@attrs.frozen
class PlayerEntry:
    """What the registry knows of one player.

    A plugin may point its `abstractgames.players` entry point at a `PlayerEntry` instead of the
    player's class or factory, to say how its argument is read.

    Attributes:
        factory: makes the player (a [`Player`][abstractgames.players.Player] subclass or a
            function), or where to find it, as `"package.module:attribute"` (imported on first
            use); called as described in [`make_player`][].
        argument: how the text after `NAME:` is read.
        origin: where the entry comes from, for messages: `"built in"`, `"registered"`, or
            the distribution (`"distribution mygames 1.0"`).
    """

    factory: str | PlayerFactory
    argument: ArgumentKind = ArgumentKind.OPTIONS
    origin: str = "registered"


_BUILTIN_PLAYERS: dict[str, PlayerEntry] = {
    "codecup": PlayerEntry(
        "abstractgames.engines.codecup_entropy:codecup_player", ArgumentKind.PROGRAM, BUILT_IN
    ),
    "engine": PlayerEntry(
        "abstractgames.engines.agp:engine_player", ArgumentKind.PROGRAM, BUILT_IN
    ),
    "greedy": PlayerEntry("abstractgames.registry.generic:greedy_player", origin=BUILT_IN),
    IN_PROCESS: PlayerEntry(
        "abstractgames.registry.players:in_process_player", ArgumentKind.RAW, BUILT_IN
    ),
    ISOLATED: PlayerEntry(
        "abstractgames.registry.isolation:isolated_player", ArgumentKind.PROGRAM, BUILT_IN
    ),
    "mc": PlayerEntry("abstractgames.registry.generic:mc_player", origin=BUILT_IN),
    "openspiel-mcts": PlayerEntry("abstractgames.players.openspiel:MCTSPlayer", origin=BUILT_IN),
    "perfect": PlayerEntry("abstractgames.registry.solved:perfect_player", origin=BUILT_IN),
    "proven": PlayerEntry("abstractgames.registry.solved:proven_player", origin=BUILT_IN),
    "random": PlayerEntry("abstractgames.players:RandomPlayer", origin=BUILT_IN),
    "resist": PlayerEntry("abstractgames.registry.solved:resisting_player", origin=BUILT_IN),
    "search": PlayerEntry("abstractgames.registry.generic:search_player", origin=BUILT_IN),
}

_players: dict[str, PlayerEntry] = {}
"""Players registered in this process with [`register_player`][]."""


def _plugins() -> dict[str, Plugin]:
    return plugins(PLAYER_GROUP, frozenset(_BUILTIN_PLAYERS))


# --- names ----------------------------------------------------------------------------------------


def register_player(
    name: str, factory: PlayerFactory, *, argument: ArgumentKind = ArgumentKind.OPTIONS
) -> None:
    """Make `make_player("name:opt=value", game)` call `factory(game, opt=value)`.

    `factory` is a [`Player`][abstractgames.players.Player] subclass or a function returning a
    player, called as described in [`make_player`][]; `argument` says how the text after
    `name:` is read ([`ArgumentKind`][]). The registration holds in this process (and in the
    arena's local worker processes); a registered name hides a plugin's, not a built-in's.

    Raises:
        InvalidParameterError: a bad name, the name of a built-in player, or `human` (a person,
            seated by a front end).
    """
    check_name(name, "player")
    if name in _BUILTIN_PLAYERS:
        raise InvalidParameterError(f"{quoted(name)} is a built-in player: choose another name")
    if name == HUMAN:
        raise InvalidParameterError(f"{quoted(name)} is a person's seat: choose another name")
    _players[name] = PlayerEntry(factory, argument, "registered")


def available_players() -> tuple[str, ...]:
    """The names of all players: built in, registered and from plugins, sorted."""
    return tuple(sorted(set(_BUILTIN_PLAYERS) | set(_players) | set(_plugins())))


def player_origin(name: str) -> str:
    """Where the player `name` comes from: `"built in"`, `"registered"` or its distribution.

    Raises:
        InvalidPlayerError: no player has that name.
    """
    if name in _BUILTIN_PLAYERS:
        return BUILT_IN
    if name in _players:
        return "registered"
    plugin = _plugins().get(name)
    if plugin is None:
        raise InvalidPlayerError(f"unknown player {quoted(name)}")
    return plugin.origin


def player_entry(name: str) -> PlayerEntry | None:
    """The [`PlayerEntry`][] of the player called `name` (its factory loaded for a plugin),
    or `None` if no player has that name.

    Raises:
        PluginError: a plugin player that cannot be loaded.
    """
    entry = _BUILTIN_PLAYERS.get(name) or _players.get(name)
    if entry is not None:
        return entry
    plugin = _plugins().get(name)  # read once per process; warns of the plugins it ignores
    if plugin is None:
        return None
    loaded = plugin.load("player")
    if isinstance(loaded, PlayerEntry):
        return attrs.evolve(loaded, origin=plugin.origin)
    return PlayerEntry(loaded, origin=plugin.origin)


def factory_of(entry: PlayerEntry, name: str) -> PlayerFactory:
    """What makes the player of `entry` (called `name`), imported on first use."""
    factory = entry.factory
    if isinstance(factory, str):
        factory = import_object(factory)
        if factory is None:
            raise InvalidPlayerError(f"player {quoted(name)} is not built yet")
    return factory


# --- specs ----------------------------------------------------------------------------------------


@attrs.frozen
class PlayerSpec:
    """A player spec read into its parts (`NAME:option=value,...`, `NAME:[OPTIONS:]COMMAND`,
    `file.py:Class:option=value,...`); `str()` writes it back, and
    `PlayerSpec.parse(str(spec)) == spec`.

    Attributes:
        name: the player's name in lower case (`"search"`), or for a class the file or module
            and the class (`"bots/mine.py:MyBot"`).
        kind: how the spec was read.
        options: each `option=value` as written, in order (for a program: the options before
            its command, such as `timeout`).
        argument: a raw player's text, or a program's command; `None` for the others.

    Examples:
        >>> spec = PlayerSpec.parse("engine:timeout=5:./mybot --fast")
        >>> spec.name, spec.options, spec.argument
        ('engine', (('timeout', '5'),), './mybot --fast')
        >>> str(spec.with_option("log", "logs"))
        'engine:timeout=5,log=logs:./mybot --fast'
        >>> str(PlayerSpec.parse("search:depth=2,name=deep").without_option("name"))
        'search:depth=2'
    """

    name: str
    kind: ArgumentKind = ArgumentKind.OPTIONS
    options: tuple[tuple[str, str], ...] = ()
    argument: str | None = None

    @classmethod
    def parse(cls, text: str) -> PlayerSpec:
        """Read a spec.

        Raises:
            InvalidPlayerError: an unknown player, or options that are not `key=value`.
            PluginError: a plugin player that cannot be loaded.
        """
        text = text.strip()
        head, colon, rest = text.partition(":")
        name = head.strip().lower()
        if name == HUMAN:
            raise InvalidPlayerError(
                f"{quoted(text)} is a person: the front end that plays the match seats them "
                "(abstractgames play, serve); a spec made into a player names a program"
            )
        entry = player_entry(name)
        if entry is not None:
            if entry.argument is ArgumentKind.RAW:
                return cls(name, entry.argument, (), rest.strip())
            if entry.argument is ArgumentKind.PROGRAM:
                options_text, command = split_program_argument(rest)
                context = f"{name} options {(options_text or '').strip()!r}"
                return cls(name, entry.argument, _pairs(options_text or "", context), command)
            return cls(name, ArgumentKind.OPTIONS, _pairs(rest, f"player {quoted(text)}"))
        if colon and is_import_target(head, rest):
            target, _, options_text = rest.partition(":")
            where = f"{head.strip()}:{target.strip()}"
            return cls(where, ArgumentKind.CLASS, _pairs(options_text, f"player {quoted(text)}"))
        raise InvalidPlayerError(
            f"unknown player {quoted(head.strip())}; available players: "
            f"{', '.join(available_players())}"
        )

    def __str__(self) -> str:
        options = ",".join(f"{key}={value}" for key, value in self.options)
        if self.kind is ArgumentKind.PROGRAM:
            command = self.argument or ""
            if options:
                return f"{self.name}:{options}:{command}"
            if not command:
                return self.name
            ambiguous = split_program_argument(command) != (None, command.strip())
            return f"{self.name}:{':' if ambiguous else ''}{command}"
        if self.kind is ArgumentKind.RAW:
            return f"{self.name}:{self.argument}" if self.argument else self.name
        return f"{self.name}:{options}" if options else self.name

    @property
    def outside_code(self) -> OutsideCode | None:
        """What code from outside the library this player runs, if any."""
        if self.name in (ISOLATED, IN_PROCESS):  # a player from outside, even without a spec
            return outside_code(self.argument or "") or OutsideCode.PYTHON
        if self.kind is ArgumentKind.PROGRAM:
            return OutsideCode.PROGRAM
        if self.kind is ArgumentKind.CLASS:
            return OutsideCode.PYTHON
        return None

    def option(self, key: str) -> str | None:
        """The text of option `key`, or `None` if the spec does not give it."""
        return next((value for name, value in self.options if name == key), None)

    def values(self) -> dict[str, Any]:
        """The options as the player is made with them (each value read by
        [`parse_value`][abstractgames.specs.parse_value])."""
        return {key: parse_value(value) for key, value in self.options}

    def with_option(self, key: str, value: str) -> PlayerSpec:
        """This spec with option `key` set to `value` (added at the end, or replaced).

        Raises:
            InvalidPlayerError: a player without options (a raw one), or a value that an
                option cannot hold (a comma; for a program, also a colon).
        """
        if self.kind is ArgumentKind.RAW:
            raise InvalidPlayerError(f"player {quoted(str(self))} takes no options")
        if "," in value or (self.kind is ArgumentKind.PROGRAM and ":" in value):
            where = "a comma or a colon" if self.kind is ArgumentKind.PROGRAM else "a comma"
            raise InvalidPlayerError(
                f"cannot give {quoted(value)} as the {key} option of {quoted(self.name)} "
                f"players: it holds {where}"
            )
        kept = tuple((k, v) for k, v in self.options if k != key)
        if len(kept) == len(self.options):
            return attrs.evolve(self, options=(*kept, (key, value)))
        return attrs.evolve(
            self, options=tuple((k, value if k == key else v) for k, v in self.options)
        )

    def without_option(self, key: str) -> PlayerSpec:
        """This spec without option `key`."""
        return attrs.evolve(self, options=tuple(item for item in self.options if item[0] != key))

    def with_logs(self, directory: str) -> PlayerSpec:
        """This spec with `log=DIRECTORY` if it runs a program (a command is given) and has no
        `log` option of its own; any other spec as it is.

        Raises:
            InvalidPlayerError: a directory whose name holds a comma or a colon.
        """
        if (
            self.kind is not ArgumentKind.PROGRAM
            or not self.argument
            or self.option("log") is not None
        ):
            return self
        return self.with_option("log", directory)


def with_logs(spec: str, directory: str | os.PathLike[str]) -> str:
    """`spec` with `log=DIRECTORY` if it runs a program and has no `log` option of its own (see
    [`PlayerSpec.with_logs`][]); any other spec, or one that cannot be read, as it is.

    Examples:
        >>> with_logs("engine:./mybot --fast", "logs"), with_logs("greedy", "logs")
        ('engine:log=logs:./mybot --fast', 'greedy')

    Raises:
        InvalidPlayerError: a directory whose name holds a comma or a colon.
    """
    try:
        parsed = PlayerSpec.parse(spec)
    except AbstractGamesError:  # making the player says what is wrong with it
        return spec
    logged = parsed.with_logs(os.fspath(directory))
    return spec if logged is parsed else str(logged)


def _pairs(text: str, context: str) -> tuple[tuple[str, str], ...]:
    """`key=value,...` as written (checked: keys are names, none given twice)."""
    read = parse_options(text, context=context, error=InvalidPlayerError, value=str)
    return tuple(read.items())


def outside_code(spec: str) -> OutsideCode | None:
    """What code from outside the library the player `spec` runs, or `None` if none.

    Such players are only started from a spec the user gives, never from a game record alone;
    the front ends phrase what it is ([`OutsideCode`][]'s values say it in words).
    """
    try:
        return PlayerSpec.parse(spec).outside_code
    except AbstractGamesError:
        head, colon, rest = spec.strip().partition(":")
        if colon and is_import_target(head, rest):  # with options it does not take
            return OutsideCode.PYTHON
        return None


# --- making players -------------------------------------------------------------------------------


def make_player(spec: str, game: Game) -> Player:
    """Make the player named by `spec` for `game`.

    `spec` is one of (see [`PlayerSpec`][]):

    - `NAME` or `NAME:option=value,...`: a built-in, registered or plugin player
      (`random`, `greedy`, `search:time=1.5`); a player that takes its argument whole
      ([`ArgumentKind.RAW`][], [`ArgumentKind.PROGRAM`][]) gets the text after the first colon
      (`engine:./mybot --fast`);
    - `path/to/file.py:Class[:option=value,...]`: a class defined in a Python file;
    - `package.module:Class[:option=value,...]`: a class in an importable module.

    A bot from a file or module, or a plugin's player, is played from a worker process of its
    own (an [`IsolatedPlayer`][abstractgames.registry.IsolatedPlayer], started here);
    `inprocess:SPEC` makes it in this process.

    The class (or factory) is called as `Class(game, **options)`, or as `Class()` when its
    constructor takes no argument; it must make a [`Player`][abstractgames.players.Player]. The
    player's [`spec`][abstractgames.players.Player.spec] is set to `spec`, so a record can make
    it again.

    Raises:
        InvalidPlayerError: an unknown name, a file or class that is not there, a class that is
            not a Player, options the player does not take, or `human` (a person is seated by a
            front end, not made).
    """
    text = spec.strip()
    parsed = PlayerSpec.parse(text)
    if runs_apart(parsed):
        from .isolation import IsolatedPlayer  # the engine protocol, only for code from outside

        player: Player = IsolatedPlayer(game, text)
        player.spec = text
        return player
    return make_in_process(text, game)


def runs_apart(spec: PlayerSpec) -> bool:
    """Whether [`make_player`][] plays `spec` from a worker process: a bot from a file or a
    module, or a plugin's player (not a built-in or registered one)."""
    if spec.kind is ArgumentKind.CLASS:
        return True
    entry = player_entry(spec.name)
    return entry is not None and entry.origin not in (BUILT_IN, "registered")


def in_process_player(game: Game, argument: str) -> Player:
    """inprocess:SPEC: the player SPEC made in this process, even a bot from a file."""
    if not argument.strip():
        raise InvalidPlayerError("give the player to run here, e.g. 'inprocess:mybot.py:MyBot'")
    return make_in_process(argument, game)


def make_in_process(spec: str, game: Game) -> Player:
    """The player of `spec` made in this process, as [`make_player`][] makes it but never in a
    worker process (the worker itself calls it, and `inprocess:SPEC`).

    Raises:
        InvalidPlayerError: what [`make_player`][] would say.
    """
    text = spec.strip()
    parsed = PlayerSpec.parse(text)
    factory, what, origin = _made_by(parsed, text)
    if parsed.kind in (ArgumentKind.RAW, ArgumentKind.PROGRAM):
        argument = text.partition(":")[2].strip()
        player = _call(factory, (game, argument), {}, what, origin)
    else:
        player = _construct(factory, game, parsed.values(), what, origin)
    player.spec = text
    return player


def _made_by(spec: PlayerSpec, text: str) -> tuple[PlayerFactory, str, str]:
    """`(factory, what to call it in messages, origin)` of a parsed spec."""
    if spec.kind is ArgumentKind.CLASS:
        where, _, name = spec.name.rpartition(":")
        factory = load_class(where, name, text, available_players)
        return factory, f"player {quoted(text)}", "outside"
    entry = player_entry(spec.name)
    assert entry is not None  # parse found it
    return factory_of(entry, spec.name), f"player {quoted(spec.name)}", entry.origin


def check_player_spec(spec: str) -> None:
    """Check what can be checked of a player spec before a game is known: the name (or the
    file, module and class), and its options' names. Making the player checks the rest.

    Raises:
        InvalidPlayerError: what [`make_player`][] would say of these.
    """
    text = spec.strip()
    parsed = PlayerSpec.parse(text)
    factory, what, _ = _made_by(parsed, text)
    if parsed.kind in (ArgumentKind.OPTIONS, ArgumentKind.CLASS):
        _takes_the_game(factory, parsed.values(), what)


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


def option_defaults(factory: PlayerFactory) -> dict[str, Any]:
    """The options `factory` takes after the game, each with its default (`None` for none)."""
    try:
        parameters = list(inspect.signature(factory).parameters.values())[1:]
    except (TypeError, ValueError):
        parameters = []
    return {
        p.name: None if p.default is inspect.Parameter.empty else p.default
        for p in parameters
        if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    }


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
                f"{what} has no option {', '.join(map(quoted, sorted(options)))}; its options: none"
            )
        return False
    rest = parameters[1:]
    accepted = [p.name for p in rest if p.kind in (*positional, inspect.Parameter.KEYWORD_ONLY)]
    if not any(p.kind == inspect.Parameter.VAR_KEYWORD for p in rest):
        unknown = sorted(set(options) - set(accepted))
        if unknown:
            raise InvalidPlayerError(
                f"{what} has no option {', '.join(map(quoted, unknown))}; "
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
        raise InvalidPlayerError(f"{what} needs the option {', '.join(map(quoted, missing))}")
    return True


def _call(
    factory: PlayerFactory, args: tuple[Any, ...], options: dict[str, Any], what: str, origin: str
) -> Player:
    """`factory(*args, **options)`, which must make a Player; outside code's own errors become
    [`InvalidPlayerError`][] (a built-in's propagate as they are)."""
    if origin == BUILT_IN:
        player = factory(*args, **options)
    else:
        try:
            player = factory(*args, **options)
        except AbstractGamesError:
            raise
        except (TypeError, ValueError) as error:
            raise InvalidPlayerError(f"{what}: {describe_error(error)}") from error
        except Exception as error:
            raise InvalidPlayerError(f"making {what} failed: {describe_error(error)}") from error
    if not isinstance(player, Player):
        raise InvalidPlayerError(f"{what} made {quoted(player)}, which is not a Player")
    return player


# --- other processes ------------------------------------------------------------------------------


def registrations() -> dict[str, dict[str, Any]]:
    """What [`register_game`][abstractgames.registry.register_game] and [`register_player`][]
    added in this process.

    `{"games": {name: GameEntry}, "players": {name: PlayerEntry}}`: pass it to
    [`restore_registrations`][] in another process (the arena's local workers do).
    """
    return {"games": dict(games._games), "players": dict(_players)}


def restore_registrations(saved: dict[str, dict[str, Any]]) -> None:
    """Repeat in this process the registrations [`registrations`][] returned elsewhere."""
    games._games.update(saved.get("games", {}))
    _players.update(saved.get("players", {}))
