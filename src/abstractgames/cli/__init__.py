"""The `abstractgames` command line.

Errors the user can fix (a bad game name, position, flag) end with one line on stderr and a
non-zero exit status, never a traceback.
"""

from __future__ import annotations

import errno
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .. import __version__
from ..interrupts import EXIT_INTERRUPTED, exit_status, termination_as_interrupt
from ..protocol import AbstractGamesError, Game, InvalidPositionError, State
from ..records import SEED_LIMIT
from ..registry import available_games, parse_game_spec
from ..text import printable, wrap

if TYPE_CHECKING:
    from rich.progress import TaskID

    from ..players import Player

EXIT_SAVED_ELSEWHERE = 74
"""The exit status when a result could not be written where asked and went to a fallback file."""
__all__ = ["EXIT_INTERRUPTED", "EXIT_SAVED_ELSEWHERE", "main"]


class _Seed(click.types.IntParamType):
    """A seed: an integer of absolute value below 2**64, as a game record stores it."""

    name = "integer"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            try:
                number = int(str(value).strip(), 10)
            except ValueError:
                self.fail(f"{printable(str(value))!r} is not a valid integer.", param, ctx)
        if not -SEED_LIMIT < number < SEED_LIMIT:
            self.fail(
                f"{number} is out of range: a seed is below 2**64 in absolute value.", param, ctx
            )
        return number


_logs_option = click.option(
    "--logs",
    "logs_dir",
    type=click.Path(file_okay=False),
    help="Keep every error-output log of the external programs in this directory. [default: "
    "only the logs of programs that failed, in the temporary directory]",
)
"""The `--logs DIRECTORY` option of the commands that seat external programs."""


def _seed_option(help: str, default: int | None = None) -> Callable[[Any], Any]:
    """The `--seed` option of a command (every command reads seeds the same way)."""
    return click.option(
        "--seed", type=_Seed(), default=default, show_default=default is not None, help=help
    )


@contextmanager
def _user_errors() -> Iterator[None]:
    try:
        yield
    except AbstractGamesError as error:
        from ..grid import MissingSideError

        message = str(error)
        if isinstance(error, MissingSideError):  # the library's side is the command's --side
            message = f"{message} with --side, e.g. --side '{error.example}'"
        raise click.ClickException(printable(message)) from None


def _interrupted() -> int:
    """The exit status of this run after an interrupt: 128 + the first signal received."""
    received = click.get_current_context().meta.get("abstractgames.signals", [])
    return 128 + received[0] if received else EXIT_INTERRUPTED


def _say(text: str) -> None:
    """A line on stderr, if stderr is still there (a closed terminal must not lose a game),
    fitted to the terminal's width."""
    with suppress(OSError):
        click.echo(_fit(printable(text)), err=True)


def _fit(text: str, *, err: bool = True) -> str:
    """`text` wrapped between words to the terminal's width ([`wrap`][abstractgames.text.wrap],
    the one wrapper of what the program prints) when stderr (`err`) or stdout is a terminal;
    as it is when it goes to a file or a pipe."""
    stream = sys.stderr if err else sys.stdout
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        terminal = False
    if not terminal:
        return text
    return wrap(text, _width())


class _Fitted(click.ClickException):
    """A command's error, shown as click shows it (the usage and `Error: ...`) with its lines
    fitted to the terminal's width."""

    def __init__(self, error: click.ClickException) -> None:
        super().__init__(error.message)
        self.error = error
        vars(self)["exit_code"] = error.exit_code  # a class variable of click's from 8.5 on

    def show(self, file: Any = None) -> None:
        import io

        shown = io.StringIO()
        self.error.show(shown)
        click.echo(_fit(shown.getvalue().rstrip("\n")), file=file, err=file is None)


def _logs_directory(directory: str) -> str:
    """`--logs DIRECTORY` made absolute (the same for every worker), created and checked."""
    from ..files import check_writable

    try:
        if not directory.strip():
            raise OSError(errno.ENOENT, "the directory name is empty")
        directory = os.path.abspath(directory)
        Path(directory).mkdir(parents=True, exist_ok=True)
        check_writable(Path(directory) / "abstractgames-engine.log")
    except OSError as error:
        raise click.UsageError(
            f"cannot keep the logs in {printable(directory)!r}: {error.strerror or error}"
        ) from None
    return directory


def _check_output(path: str | None, what: str) -> None:
    """Fail at once (a usage error, status 2) if a file cannot be written at `path`."""
    if path is None:
        return
    from ..files import check_writable

    try:
        check_writable(path)
    except OSError as error:
        raise click.UsageError(
            f"cannot write {what} to {printable(path)!r}: {error.strerror or error}"
        ) from None


def _writable(path: str | None, what: str) -> str | None:
    """`path`, an option's value, if [`_check_output`][] finds it can be written (as a callback,
    before the command starts)."""
    _check_output(path, what)
    return path


def _save(record: Any, path: str, fallback_name: str) -> str:
    """Save `record` to `path`, or to a fallback file if that fails; return where it went."""
    try:
        record.save(path)
        return path
    except OSError as error:
        import tempfile

        fallback = str(Path(tempfile.gettempdir()) / fallback_name)
        record.save(fallback)
        _say(f"cannot write {path}: {error.strerror or error}; the game is saved to {fallback}")
        return fallback


MAX_SOLVE_TIME = 7 * 86_400.0
"""The longest time `solve --time` accepts (a week)."""
MAX_SOLVE_MEMORY = 1_000_000.0
"""The most memory `solve --memory` accepts, in MB (a terabyte)."""


def _finite(value: float | None) -> float | None:
    """`value`, refusing NaN (which every comparison lets through, click's ranges too)."""
    if value is not None and value != value:
        raise click.BadParameter("must be a number, not nan")
    return value


_LATEST = ""
"""What `play --resume` without a file stands for: the latest unfinished game kept."""


_side_option = click.option(
    "--side",
    metavar="TEXT",
    help="Who is to move in a diagram that does not say it below itself, e.g. 'O to move' or "
    "'chaos to place R'.",
)
"""The `--side TEXT` option of the commands that read a position."""


def _position_options(many: bool) -> Callable[[Any], Any]:
    """`--position TEXT` (repeatable with `many`), `--position-file FILE` and `--side TEXT`."""
    where = "Start every match from this position" if many else "Start from this position"

    def decorate(command: Any) -> Any:
        for option in reversed(
            [
                click.option(
                    "--position",
                    "positions",
                    multiple=many,
                    metavar="TEXT",
                    help=f"{where}: a position string or a text diagram (quoted, on several "
                    "lines)" + ("; repeat it for an openings suite." if many else "."),
                ),
                click.option(
                    "--position-file",
                    type=click.Path(dir_okay=False, allow_dash=True),
                    metavar="FILE",
                    help="Read the position"
                    + ("s (one string to a line, or diagrams)" if many else "")
                    + " from FILE ('-': standard input).",
                ),
                _side_option,
            ]
        ):
            command = option(command)
        return command

    return decorate


def _read_text(path: str) -> str:
    """The text of a file of positions (`-`: standard input), read up to a bound."""
    from ..grid import MAX_POSITIONS_TEXT

    try:
        if path == "-":
            text = sys.stdin.read(MAX_POSITIONS_TEXT + 1)
        else:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read(MAX_POSITIONS_TEXT + 1)
    except OSError as error:
        raise click.ClickException(
            f"cannot read {printable(path)!r}: {error.strerror or error}"
        ) from None
    return text


def _position_text(words: tuple[str, ...]) -> str:
    """The text of a POSITION argument: one argument as it is (a diagram keeps its lines),
    several joined by spaces (quotes are optional around a position string), `-` for the text
    on standard input."""
    if words == ("-",):
        return _read_text("-")
    return words[0] if len(words) == 1 else " ".join(words)


def _one_position(game: Game, text: str | None, path: str | None, side: str | None) -> State | None:
    """The position of `--position TEXT` or `--position-file FILE` (not both), else `None`."""
    from ..grid import read_position

    if text is not None and path is not None:
        raise click.UsageError("give --position or --position-file, not both")
    if text is None and path is None:
        if side is not None:
            raise click.UsageError("--side goes with a position (--position or --position-file)")
        return None
    return read_position(game, _read_text(path) if path is not None else str(text), side)


def _refuse_a_file_name(text: str) -> None:
    """A POSITION that names a file is a mistake: the file is read with --position-file."""
    with suppress(OSError, ValueError):
        if "\n" not in text and Path(text).is_file():
            raise click.UsageError(
                f"{printable(text)!r} is a file: read a position from a file with "
                f"--position-file {printable(text)}"
            )


def _many_positions(
    game: Game, texts: tuple[str, ...], path: str | None, side: str | None
) -> list[State]:
    """The positions of every `--position TEXT` and of `--position-file FILE`."""
    from ..grid import read_position, read_positions

    found = [read_position(game, text, side) for text in texts]
    if path is not None:
        found += read_positions(game, _read_text(path), side)
        if not found:
            raise click.UsageError(f"{printable(path)!r} holds no position")
    elif side is not None and not texts:
        raise click.UsageError("--side goes with a position (--position or --position-file)")
    return found


class _Main(click.Group):
    """The command group: SIGTERM and SIGHUP stop every command the way Ctrl-C does."""

    def invoke(self, ctx: click.Context) -> Any:
        with termination_as_interrupt() as received:
            ctx.meta["abstractgames.signals"] = received
            try:
                return super().invoke(ctx)
            except click.ClickException as error:  # "Error: ..." fitted to the terminal
                raise _Fitted(error) from None
            except KeyboardInterrupt as interrupt:  # not handled by the command: nothing to keep
                _say(f"\ninterrupted ({interrupt})" if str(interrupt) else "\ninterrupted")
                ctx.exit(exit_status(interrupt))


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """Warnings as one line on stderr, without the source line Python shows by default."""
    click.echo(f"abstractgames: warning: {message}", err=True)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="abstractgames")
def main() -> None:
    """Play, referee and measure Entropy, Order and Chaos, and dispersal Entropy."""
    import warnings

    warnings.showwarning = _show_warning


@main.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="Print the listing as JSON.")
@click.option(
    "--load",
    is_flag=True,
    help="Import the plugins' code to show their titles, parameters and options "
    "(otherwise a plugin is listed from its distribution's metadata alone).",
)
def list_command(as_json: bool, load: bool) -> None:
    """List the games and players: built in, and added by installed plugins.

    A plugin's game or player is listed with its distribution from the metadata, its code
    not imported (not loaded); --load imports it to show its title, parameters and options.
    Besides these, a player can be a class in a Python file or module:
    path/to/bot.py:MyBot or package.module:MyBot, with options after a second colon
    (bot.py:MyBot:depth=3), and 'human' is you at the terminal (abstractgames play).
    """
    import attrs

    from ..registry import (
        GameInfo,
        PlayerInfo,
        available_players,
        describe_game,
        describe_player,
        plugin_game,
        plugin_player,
    )

    listing: dict[str, list[dict[str, Any]]] = {"games": [], "players": []}
    for kind, names, describe, from_metadata, info in (
        ("games", available_games(), describe_game, plugin_game, GameInfo),
        ("players", available_players(), describe_player, plugin_player, PlayerInfo),
    ):
        for name in names:
            plugin = None if load else from_metadata(name)
            if plugin is not None:  # its code not imported: what its metadata says
                unknown = dict.fromkeys(attrs.fields_dict(info))
                listing[kind].append({**unknown, **attrs.asdict(plugin), "loaded": False})
                continue
            try:
                listing[kind].append({**attrs.asdict(describe(name)), "loaded": True})
            except AbstractGamesError as error:  # a broken plugin: say so, list the others
                click.echo(f"abstractgames: warning: {error}", err=True)
    games, players = listing["games"], listing["players"]
    if as_json:
        click.echo(json.dumps({"games": games, "players": players}, indent=2, sort_keys=True))
        return

    def options(entry: dict[str, Any], key: str) -> str:
        values = entry[key]
        if not entry["loaded"]:
            return "?"
        if values is None:
            return "NAME:[OPTIONS:]COMMAND"
        return ", ".join(f"{k}={v}" for k, v in values.items()) or "-"

    not_loaded = "(not loaded)"
    width = _width()
    click.echo(wrap("Games (abstractgames play GAME, or GAME:key=value):", width))
    rows = [[g["name"], g["origin"], options(g, "params"), g["title"] or not_loaded] for g in games]
    click.echo(_columns(["name", "from", "parameters", "title"], rows, width))
    click.echo("")
    players_title = "Players (-1/-2 SPEC, --players SPEC ...; SPEC is NAME or NAME:key=value):"
    click.echo(wrap(players_title, width))
    rows = [
        [p["name"], p["origin"], options(p, "options"), p["summary"] or not_loaded] for p in players
    ]
    click.echo(_columns(["name", "from", "options", "what it is"], rows, width))
    click.echo("")
    more = (
        "A class in a file or module is a player too: path/to/bot.py:MyBot[:key=value,...] or "
        "package.module:MyBot[:key=value,...]; 'human' is you at the terminal."
    )
    click.echo(wrap(more, width))
    if not all(entry["loaded"] for entry in [*games, *players]):
        unloaded = (
            "Plugins are listed from their distributions' metadata, their code not imported "
            "(not loaded): abstractgames list --load imports them to show their titles, "
            "parameters and options."
        )
        click.echo(wrap(unloaded, width))


def _columns(header: list[str], rows: list[list[str]], width: int, fixed: int = 1) -> str:
    """A plain table in `width` columns, two spaces between columns: the first `fixed` columns
    as wide as their widest cell, the others sharing the rest of the line, each cell wrapped
    between words within its column. Where they would get too little room, each row is its
    fixed cells on a line, and the others below them, indented, each wrapped to the width."""
    table = [header, *rows]
    widths = [max(len(row[c]) for row in table) for c in range(fixed)]
    natural = [max(len(row[c]) for row in table) for c in range(fixed, len(header))]
    longest = [
        max(len(w) for row in table for w in row[c].split() or [""])
        for c in range(fixed, len(header))
    ]
    room = width - 2 - sum(w + 2 for w in widths) - 2 * (len(natural) - 1)
    least = [min(n, max(w, _FEWEST_COLUMNS)) for n, w in zip(natural, longest, strict=True)]
    shares = _shares(natural, least, room)
    lines = []
    for row in table:
        if shares is None:
            lines.append(wrap("  ".join(row[:fixed]), width, indent="  ", hang=" " * 6).rstrip())
            lines += [wrap(cell, width, indent=" " * 6, hang=" " * 6) for cell in row[fixed:]]
            continue
        cells = [[cell] for cell in row[:fixed]]
        for cell, share in zip(row[fixed:], shares, strict=True):
            cells.append(wrap(cell, share).splitlines() or [""])
        for depth in range(max(len(cell) for cell in cells)):
            parts = [
                (cell[depth] if depth < len(cell) else "").ljust(column)
                for cell, column in zip(cells, [*widths, *shares], strict=True)
            ]
            lines.append(("  " + "  ".join(parts)).rstrip())
    return "\n".join(lines)


def _shares(natural: list[int], least: list[int], room: int) -> list[int] | None:
    """The widths of the columns that share `room`: each its `natural` width if all fit, else
    at least its `least` (its longest word), the rest handed out in proportion to the natural
    widths (the longest text gets the most), none beyond its natural width; `None` when even
    the least do not fit."""
    if sum(natural) <= room:
        return natural
    if sum(least) > room:
        return None
    shares = list(least)
    spare = room - sum(shares)
    while spare > 0:
        growing = [i for i, share in enumerate(shares) if share < natural[i]]
        total = sum(natural[i] for i in growing)
        given = 0
        for i in growing:
            more = min(natural[i] - shares[i], max(1, spare * natural[i] // total), spare - given)
            shares[i] += more
            given += more
        if given == 0:
            break
        spare -= given
    return shares


_FEWEST_COLUMNS = 12
"""The fewest columns a wrapped column of a `list` table gets."""


def _width() -> int:
    """The terminal's width in columns (`COLUMNS` if set; 80 when there is no terminal)."""
    import shutil

    return max(shutil.get_terminal_size((80, 24)).columns, 20)


@main.command()
@click.argument("games", nargs=-1, metavar="[GAME]...")
@click.option(
    "--games",
    "-n",
    "count",
    default=2000,
    show_default=True,
    type=click.IntRange(min=1),
    help="Random games per repeat.",
)
@click.option(
    "--repeats",
    "-r",
    default=5,
    show_default=True,
    type=click.IntRange(min=1),
    help="Repeats of each measurement; the median is reported.",
)
@_seed_option("Seed of the random games.", default=0)
@click.option(
    "--player",
    "-p",
    "players",
    multiple=True,
    metavar="SPEC",
    help="Also measure this player's moves per second (repeatable), e.g. search:depth=2.",
)
@click.option(
    "--positions",
    default=50,
    show_default=True,
    type=click.IntRange(min=1),
    help="Positions each --player moves in, from seeded random games.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.option(
    "--vector",
    is_flag=True,
    help="Random games per second of the batched simulators (B = 1, 64, 1024, 4096) and of the "
    "scalar protocol; --json prints {GAME: {scalar, vector, bytes_per_lane}}.",
)
def bench(
    games: tuple[str, ...],
    count: int,
    repeats: int,
    seed: int,
    players: tuple[str, ...],
    positions: int,
    as_json: bool,
    vector: bool,
) -> None:
    """Measure random games per second (and each game's extras) through the public protocol.

    GAME is a game name or NAME:key=value (e.g. entropy:size=5); default: every game.
    With --player, also the moves per second of players on fixed positions (a bot at a fixed
    depth does the same work on every machine). Figures are medians over the repeats, on one core.
    """
    from ..bench import run_benchmarks

    specs = games or available_games()
    if vector:  # --- begin bench --vector (batched simulators)
        from ..bench import run_vector_benchmarks
        from ..registry import vector_for

        with _user_errors():
            if not games:
                specs = tuple(n for n in specs if vector_for(parse_game_spec(n)) is not None)
            table = run_vector_benchmarks(specs, games=count, repeats=repeats, seed=seed)
        if as_json:
            click.echo(json.dumps(table, indent=2, sort_keys=True))
            return
        for spec, row in table.items():
            scalar = float(row["scalar"])  # type: ignore[arg-type]
            rates: dict[str, float] = row["vector"]  # type: ignore[assignment]
            click.echo(f"{spec:<20} scalar {scalar:>10,.0f} games/s")
            for size, rate in rates.items():
                click.echo(f"{'':<20} B={size:<5} {rate:>10,.0f} games/s  ({rate / scalar:,.1f}×)")
            click.echo(f"{'':<20} {row['bytes_per_lane']} bytes per lane")
        return  # --- end bench --vector
    with _user_errors():
        results = run_benchmarks(
            specs, games=count, repeats=repeats, seed=seed, players=players, positions=positions
        )
    if as_json:
        payload: Any = {
            "games_per_repeat": count,
            "repeats": repeats,
            "seed": seed,
            "players": list(players),
            "positions": positions,
            "python": sys.version.split()[0],
            "results": [r.to_json() for r in results],
        }
        click.echo(json.dumps(payload, indent=2, sort_keys=True))
        return
    for result in results:
        for m in result.measurements:
            runs = ", ".join(f"{r:,.0f}" for r in m.runs)
            click.echo(f"{result.game:<16} {m.median:>12,.0f} {m.unit}/s  (median of {runs})")


def _clock_option(ctx: click.Context, param: click.Parameter, value: str | None) -> object:
    from ..records import ClockSettings

    if value is None:
        return None
    try:
        return ClockSettings.parse(value)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


def _make_players(game: Game, specs: tuple[str, str], session: Any) -> tuple[Player, Player]:
    from ..players import is_human
    from ..registry import make_player
    from ..terminal import HumanPlayer

    humans = [is_human(spec) for spec in specs]
    bots = [
        None if human else make_player(spec, game)
        for spec, human in zip(specs, humans, strict=True)
    ]
    players = list(bots)
    for number, human in enumerate(humans, start=1):
        if human:
            bot = bots[2 - number]  # undo is between a person and a bot that can follow it
            players[number - 1] = HumanPlayer(
                game,
                session,
                allow_undo=bot is not None and bot.supports_undo,
                name="you" if humans.count(True) == 1 else f"player {number}",
            )
    first, second = players
    assert first is not None and second is not None
    return first, second


@main.command()
@click.argument("game", required=False, metavar="[GAME]")
@click.option("-1", "--player1", help="Player 1 (first move of the first game). [default: human]")
@click.option("-2", "--player2", help="Player 2. [default: greedy]")
@_seed_option("Seed of every random choice (stored in the record).")
@click.option(
    "--record",
    "record_path",
    type=click.Path(dir_okay=False),
    help="Write the JSON game record here, after every move (so also on Ctrl-C, or if the "
    "referee is killed).",
)
@click.option(
    "--clock",
    callback=_clock_option,
    metavar="SECONDS[+INCREMENT]",
    help="Each player's time per game, e.g. 300+2.",
)
@click.option(
    "--time-loss-forfeits",
    "--correspondence",
    "time_loss_forfeits",
    is_flag=True,
    help="Running out of time loses the match (correspondence play), also in a game whose live "
    "rules make the moves of a player out of time.",
)
@click.option("--single", is_flag=True, help="Play one game even where a match has more.")
@click.option(
    "--resume",
    "resume_path",
    type=click.Path(dir_okay=False),
    is_flag=False,
    flag_value=_LATEST,
    metavar="[FILE]",
    help="Continue the unfinished match in this record; without FILE, the latest unfinished "
    "game kept in your data directory.",
)
@_position_options(many=False)
@click.option(
    "--no-save",
    is_flag=True,
    help="Do not keep the game in your data directory (where a game you play at a terminal goes "
    "without --record; ABSTRACTGAMES_DATA sets the directory).",
)
@_logs_option
@click.option(
    "--no-color", is_flag=True, help="No colours or other styles (also NO_COLOR=1): letters only."
)
@click.option("-v", "--verbose", is_flag=True, help="Show every move, also between bots.")
def play(
    game: str | None,
    player1: str | None,
    player2: str | None,
    seed: int | None,
    record_path: str | None,
    clock: Any,
    time_loss_forfeits: bool,
    single: bool,
    resume_path: str | None,
    positions: str | None,
    position_file: str | None,
    side: str | None,
    no_save: bool,
    logs_dir: str | None,
    no_color: bool,
    verbose: bool,
) -> None:
    """Play GAME (a game's name, or NAME:key=value; 'abstractgames list' shows them).

    A player is 'human', a bot ('random', 'greedy', 'search', with options such as
    search:time=1.5), your own bot (a class in a file or module: mybot.py:MyBot or
    package.module:MyBot, options after a second colon), or an external program:
    'engine:COMMAND' (the engine protocol) or 'codecup:COMMAND' (a CodeCup 2023 Entropy
    program). Type 'help' at the prompt for the commands. Ctrl-C or 'quit' saves the game;
    'abstractgames play --resume' continues it. A game you play at a terminal is kept in
    your data directory (the path is printed) unless you give --record or --no-save.

    --position starts the match from a position string or a text diagram (every game of an
    Entropy match starts there); the record keeps it.
    """
    from .. import terminal
    from ..players import HUMAN, is_human
    from ..records import CannotResume, MatchRecord
    from ..referee import MatchStopped, RecordKeeper, Referee

    console = terminal.make_console(colour=not no_color)
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    with _user_errors():
        if resume_path is not None and (positions is not None or position_file is not None):
            raise click.UsageError(
                "a resumed match goes on from where it stopped: give --resume or --position"
            )
        if resume_path == _LATEST:
            resume_path = _latest_unfinished(console, interactive)
        if resume_path is not None:
            record = MatchRecord.load(resume_path)
            try:
                plan = record.resume_plan(
                    (player1, player2), None if game is None else parse_game_spec(game)
                )
            except CannotResume as refused:
                again = f"; give it with -{refused.seat} to continue" if refused.seat else ""
                raise click.ClickException(printable(f"{resume_path}: {refused}{again}")) from None
            the_game, specs, record = plan.game, plan.players, plan.record
            seed, clock = plan.seed, plan.clock
            time_loss_forfeits, single = plan.time_loss_forfeits, plan.single
            record_path = record_path or resume_path
        else:
            if game is None:
                raise click.UsageError("name a GAME to play, or --resume a record")
            the_game = parse_game_spec(game)
            specs = (
                HUMAN if player1 is None else player1,
                "greedy" if player2 is None else player2,
            )
            record = None
        start = _one_position(the_game, positions, position_file, side)
        humans = any(is_human(spec) for spec in specs)
        session = terminal.Session(console, interactive=interactive and humans)
        if logs_dir is not None:
            from ..registry import with_logs

            directory = _logs_directory(logs_dir)
            specs = (with_logs(specs[0], directory), with_logs(specs[1], directory))
        _sandbox_note(specs)
        players = _make_players(the_game, specs, session)
        keeper = _Keeper()
        referee = Referee(
            the_game,
            players,
            seed=seed,
            clock=clock,
            time_loss_forfeits=time_loss_forfeits,
            single=single,
            time_source=session.clock,
            observer=RecordKeeper(
                keeper.keep,
                terminal.TerminalObserver(session, players, verbose=verbose or humans),
            ),
            start=start,
        )
        time_rule = referee.time_rule()
        if time_rule is not None and humans:
            console.print(f"clock: {time_rule}")
        default_path = f"abstractgames-{the_game.name}-{referee.seed}.json"
        keep = record_path is None and humans and interactive and not no_save
        if keep:
            save_path = _games_file(the_game.name, referee.seed)
        elif record_path is None:
            save_path = default_path
            _check_output(default_path, "a game interrupted (Ctrl-C) here: give --record PATH")
        else:
            save_path = record_path
            _check_output(record_path, "the record")
        if record is not None:
            record.players = (players[0].spec, players[1].spec)
        else:
            record = referee.new_record()
        if record_path is not None or keep:  # kept as it goes: a killed referee loses no move
            keeper.record, keeper.path = record, save_path
        fallback_name = f"abstractgames-{the_game.name}-{referee.seed}-{os.getpid()}.json"
        try:
            result = referee.play(record)
        except MatchStopped as stopped:
            path = _save(stopped.record, save_path, fallback_name)
            _say(f"\ngame saved to {path}; continue it with: abstractgames play --resume {path}")
            raise click.ClickException(printable(stopped)) from None
        if not result.finished:
            path = _save(result, save_path, fallback_name)
            _say(f"\ngame saved to {path}; continue it with: abstractgames play --resume {path}")
            if session.quit and path == save_path:  # left by choice: not an interrupt
                return
            sys.exit(EXIT_SAVED_ELSEWHERE if session.quit else _interrupted())
        if keep:
            path = _save(result, save_path, fallback_name)
            console.print(f"game saved to {path}")
            if path != save_path:
                sys.exit(EXIT_SAVED_ELSEWHERE)
        if record_path is not None and _save(result, record_path, fallback_name) != record_path:
            sys.exit(EXIT_SAVED_ELSEWHERE)
    if humans and session.interactive and _play_again(session):
        click.get_current_context().invoke(
            play,
            game=the_game.spec,
            player1=specs[1],
            player2=specs[0],
            seed=None,
            record_path=None,
            clock=clock,
            time_loss_forfeits=time_loss_forfeits,
            single=single,
            resume_path=None,
            positions=positions,
            position_file=position_file,
            side=side,
            no_save=no_save,
            logs_dir=None,
            no_color=no_color,
            verbose=verbose,
        )


def _play_again(session: Any) -> bool:
    """Whether the person at the terminal wants another match, the sides swapped (Enter: no;
    the end of the input, an interrupt: no)."""
    try:
        answer = session.reader.ask("play again (sides swapped)? y/N ")
    except (EOFError, KeyboardInterrupt):
        return False
    return answer.strip().lower() in ("y", "yes")


def _sandbox_note(specs: Iterable[str]) -> None:
    """Say on stderr what is not contained here, if a bot from a file or module is seated and
    this system cannot sandbox it wholly (on Linux with libseccomp, nothing is said)."""
    from ..registry import OutsideCode, outside_code
    from ..registry.sandbox import containment

    if any(outside_code(spec) is OutsideCode.PYTHON for spec in specs):
        here = containment()
        if not here.complete:
            _say(f"note: {here.summary()} (see 'Guarantees' in the documentation)")


def _confine_outside_code(spec: str) -> None:
    """Sandbox this process (for good) if `spec` is a bot from a file or module, or a plugin's
    player, which would run in it (`isolated:` starts a worker of its own, which is
    sandboxed)."""
    from ..registry import OutsideCode, PlayerSpec, outside_code
    from ..registry.isolation import ISOLATED
    from ..registry.players import runs_apart
    from ..registry.sandbox import SandboxError, confine

    try:
        parsed: PlayerSpec | None = PlayerSpec.parse(spec)
    except AbstractGamesError:
        parsed = None  # refused with its message when the player is made
    if parsed is not None and parsed.name == ISOLATED:
        return
    plugin = parsed is not None and runs_apart(parsed)
    if not plugin and outside_code(spec) is not OutsideCode.PYTHON:
        return
    try:
        confine()
    except SandboxError as error:
        raise click.ClickException(f"cannot sandbox the bot: {error.strerror or error}") from None


class _Keeper:
    """Saves `record` at `path` whenever `keep` is called (by a `RecordKeeper` after every
    move); a file that cannot be written is said once, and the match goes on (the record is
    saved at its end, elsewhere if need be)."""

    def __init__(self) -> None:
        self.record: Any = None
        self.path: str | None = None
        self.failed = False

    def keep(self) -> None:
        if self.record is None or self.path is None or self.failed:
            return
        try:
            self.record.save(self.path)
        except OSError as error:
            self.failed = True
            _say(f"cannot write {self.path}: {error.strerror or error}; the game goes on")


def _latest_unfinished(console: Any, interactive: bool) -> str:
    """The latest unfinished game in the data directory, offered at a terminal (`y` or Enter
    takes it); the usage error says where it looked when there is none or it is declined."""
    from ..files import games_directory
    from ..records import latest_unfinished

    folder = games_directory()
    found = latest_unfinished(folder)
    if found is None:
        raise click.UsageError(
            f"no unfinished game is kept in {printable(str(folder))!r}: give --resume FILE"
        )
    path, record = found
    console.print(f"the latest unfinished game: {printable(str(path))}")
    console.print(f"  {printable(record.summary())}")
    if interactive:
        answer = click.prompt("continue it? [Y/n]", default="y", show_default=False)
        if answer.strip().lower() not in ("y", "yes"):
            raise click.UsageError("not resumed: give --resume FILE for another game")
    return str(path)


def _games_file(game: str, seed: int) -> str:
    """A new file in the data directory for a game played at the terminal, checked writable."""
    from ..files import games_directory, new_record_path

    folder = games_directory()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise click.UsageError(
            f"cannot keep the game in {printable(str(folder))!r}: {error.strerror or error}; "
            "give --record PATH or --no-save, or set ABSTRACTGAMES_DATA"
        ) from None
    path = str(new_record_path(game, seed, folder))
    _check_output(path, "the game: give --record PATH or --no-save, or set ABSTRACTGAMES_DATA")
    return path


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--step", is_flag=True, help="Show the position after every move.")
@click.option("--no-color", is_flag=True, help="Draw boards with letters only.")
def replay(file: str, step: bool, no_color: bool) -> None:
    """Check a game record against the rules and show how it ended.

    The record is rejected, naming the game, the move and the reason, when a move is illegal or
    a recorded position or result is not what the rules give.
    """
    from ..records import MatchRecord
    from ..terminal import make_console, show_position

    console = make_console(colour=not no_color)
    with _user_errors():
        record = MatchRecord.load(file)
        match, finals = record.replay()
        game = record.make_game()
        for game_record, final in zip(record.games, finals, strict=True):
            console.print(f"— game {game_record.number}")
            if step:
                state = game.from_position(game_record.start)
                show_position(console, state)
                for ply, entry in enumerate(game_record.moves, start=1):
                    state = state.apply(entry.move)
                    who = "chance" if entry.player is None else f"player {entry.player}"
                    console.print(f"{ply}. {entry.move} ({who})")
                    show_position(console, state)
            else:
                show_position(console, final)
            outcome = final.outcome()
            if outcome is not None:
                console.print(f"game {game_record.number}: {outcome.reason}")
        result = match.result()
        if result is None:
            console.print("the match is unfinished")
        else:
            winner = "a draw" if result.winner is None else f"player {result.winner} wins"
            console.print(f"Result: {winner} — {result.reason}")


@main.command()
@click.argument("game")
@click.argument("position", nargs=-1)
@click.option(
    "--position-file",
    type=click.Path(dir_okay=False, allow_dash=True),
    metavar="FILE",
    help="Read the position from FILE ('-': standard input).",
)
@_side_option
@click.option(
    "--diagram", is_flag=True, help="Print the position as a text diagram, for an e-mail."
)
@click.option("--no-color", is_flag=True, help="Draw the board with letters only.")
@click.option(
    "--svg",
    "svg_path",
    type=click.Path(dir_okay=False),
    help="Also write the position as an SVG picture to this file.",
)
def show(
    game: str,
    position: tuple[str, ...],
    position_file: str | None,
    side: str | None,
    diagram: bool,
    no_color: bool,
    svg_path: str | None,
) -> None:
    """Draw a position of GAME (default: the start).

    POSITION is a position string (quotes around it are optional) or a text diagram (quoted, on
    several lines), or '-' to read either from standard input; --position-file FILE reads it
    from a file. --diagram prints it as a diagram, and the board 'show' draws reads back too.
    """
    from ..grid import diagram as text_diagram
    from ..terminal import make_console, show_position

    with _user_errors():
        the_game = parse_game_spec(game)
        if position and position_file is not None:
            raise click.UsageError("give a POSITION or --position-file, not both")
        if side is not None and not position and position_file is None:
            raise click.UsageError("--side goes with a position (POSITION or --position-file)")
        text = _position_text(position) if position else None
        try:
            found = _one_position(the_game, text, position_file, side)
        except InvalidPositionError:
            if text is not None:
                _refuse_a_file_name(text)
            raise
        state = the_game.initial_state() if found is None else found
        if diagram:
            click.echo(text_diagram(state))
        else:
            console = make_console(colour=not no_color)
            show_position(console, state)
            console.print(state.position())
        if svg_path is not None:
            from ..files import write_atomic

            try:
                write_atomic(Path(svg_path), state.to_svg())
            except OSError as error:
                raise click.ClickException(f"cannot write {svg_path}: {error.strerror}") from None


@main.command()
@click.argument("game", required=False, metavar="[GAME]")
@click.option(
    "--player",
    "-p",
    "player_spec",
    default="greedy",
    show_default=True,
    help="The bot that chooses the moves: random, greedy, search:time=1.5, mybot.py:MyBot, ...",
)
@_seed_option("Seed of the moves the referee asks for without a seed.")
def engine(game: str | None, player_spec: str, seed: int | None) -> None:
    """Be an engine: a bot playing over the engine protocol on stdin and stdout.

    The referee names the game (GAME, if given, is the only one accepted). Seat it with
    'abstractgames play GAME -2 "engine:abstractgames engine --player random"'. A bot from a
    file or module is sandboxed as the worker of 'play' is (on Linux: no signal, trace or
    process beyond this one; memory and CPU limits) before it is loaded.
    """
    import random

    from ..engines.agp import serve
    from ..engines.external import private_stdio
    from ..registry import check_player_spec, make_in_process

    with _user_errors():
        _confine_outside_code(player_spec)
        the_game = None if game is None else parse_game_spec(game)
        if the_game is not None:
            make_in_process(player_spec, the_game).close()  # reject a bad spec before serving
        else:
            check_player_spec(player_spec)  # what can be checked without a game
        rng = random.Random(seed)
        try:
            with private_stdio() as (lines, output):  # the bot's print goes to stderr
                code = serve(
                    lambda game: make_in_process(player_spec, game),
                    lines,
                    output,
                    read_game=parse_game_spec,
                    name=f"abstractgames {player_spec}",
                    game=the_game,
                    rng=rng,
                )
            sys.exit(code)
        except KeyboardInterrupt:
            sys.exit(_interrupted())
        except BrokenPipeError:
            sys.exit(EXIT_INTERRUPTED)


@main.command()
@click.option(
    "--player",
    "-p",
    "player_spec",
    default="greedy",
    show_default=True,
    help="The bot that chooses the moves: random, greedy, search:time=1.5, mybot.py:MyBot, ...",
)
@_seed_option("Seed of the bot's random choices.")
@click.option(
    "--clock",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="The program's thinking time for the whole game (the contest's clock): each move's "
    "share is told to the bot, more in the middle game.",
)
def codecup(player_spec: str, seed: int | None, clock: float | None) -> None:
    """Be a CodeCup 2023 Entropy program: one game of 7x7 Entropy on stdin and stdout.

    It plays Chaos when the first line is 'Start', else Order, and exits on 'Quit'.

    Seat it with 'abstractgames play entropy -2 "codecup:abstractgames codecup"', or run it under
    the CodeCup's own referee. A bot from a file or module is sandboxed as for 'engine'.
    """
    import random

    from ..engines.codecup_entropy import serve_codecup
    from ..engines.external import private_stdio
    from ..registry import make_in_process

    with _user_errors():
        _confine_outside_code(player_spec)
        rng = random.Random(seed)
        try:
            make = lambda game: make_in_process(player_spec, game)  # noqa: E731
            with private_stdio() as (lines, output):  # the bot's print goes to stderr
                code = serve_codecup(make, lines, output, rng=rng, clock=clock)
            sys.exit(code)
        except KeyboardInterrupt:
            sys.exit(_interrupted())
        except BrokenPipeError:
            sys.exit(EXIT_INTERRUPTED)


def _default_state(game: Game, seed: int) -> str:
    from ..files import safe_name

    return f"abstractgames-arena-{safe_name(game.spec)}-{seed}.jsonl"


@contextmanager
def _progress_bar(
    enabled: bool, unit: str, verbose: bool = False
) -> Iterator[tuple[Callable[[int, int], None] | None, Callable[[Any], None] | None]]:
    """`(on_progress, on_match)` for `Arena.run`: a rich progress bar on stderr (when it is a
    terminal and `enabled`): finished/total, rate, time spent, the arena's estimate of the time
    left; and with `verbose` a line on stderr for each finished match."""
    import time

    from rich.console import Console

    from ..arena import MatchDone, format_duration
    from ..text import plural

    console = Console(stderr=True)
    if not enabled or not console.is_terminal:

        def say(done: MatchDone) -> None:
            _say(done.line())

        yield None, say if verbose else None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        Task,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.text import Text

    units = plural(unit)

    class Rate(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            if speed is None:
                text = ""
            elif speed >= 1:
                text = f"{speed:.1f} {units}/s"
            else:
                text = f"{60 * speed:.1f} {units}/min"
            return Text(text, style="progress.data.speed")

    class TimeLeft(ProgressColumn):
        """The arena's estimate (pair by pair), counted down between two finished matches."""

        def render(self, task: Task) -> Text:
            estimate = task.fields.get("left")
            if task.finished:
                text = format_duration(0)
            elif estimate is None:
                text = "-:--:--"
            else:
                seconds, at = estimate
                text = format_duration(max(seconds - (time.monotonic() - at), 0.0))
            return Text(f"{text} left", style="progress.remaining")

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        Rate(),
        TimeElapsedColumn(),
        TextColumn("·"),
        TimeLeft(),
    )
    with Progress(*columns, console=console, speed_estimate_period=600) as progress:
        ids: list[TaskID] = []

        def update(done: int, total: int) -> None:
            if not ids:  # what a resumed tournament had done does not count in the rate
                ids.append(progress.add_task(units, total=total, completed=done, left=None))
            progress.update(ids[0], completed=done, total=total)

        def finished(done: MatchDone) -> None:
            if verbose:
                progress.console.print(Text(printable(done.line())))
            if ids and done.time_left is not None:
                progress.update(ids[0], left=(done.time_left, time.monotonic()))

        yield update, finished


@main.command()
@click.argument("game")
@click.argument("more_players", nargs=-1, metavar="[SPEC]...")
@click.option(
    "--players",
    "-p",
    multiple=True,
    metavar="SPEC",
    help="The players (two or more): --players SPEC SPEC [SPEC]...",
)
@click.option(
    "--games",
    "-n",
    default=20,
    show_default=True,
    type=int,
    help="Games per pair of players (Entropy: matches of two games); even, as every seed is "
    "played with the players in both seats.",
)
@_seed_option("Seed of the tournament.", default=0)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    help="Matches played at once in local processes. [default: one per core]",
)
@click.option(
    "--executor",
    default="local",
    show_default=True,
    metavar="local|dask://HOST:PORT",
    help="Where the matches are played: local processes, or a dask.distributed cluster.",
)
@click.option(
    "--dask-wait",
    type=click.FloatRange(min=0, min_open=True, max=86_400),
    metavar="SECONDS",
    help="With a dask cluster: how long to wait for a worker while there is none. [default: 60]",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False),
    help="Write the results as JSON here.",
)
@click.option(
    "--records",
    "records_dir",
    type=click.Path(file_okay=False),
    help="Write the game record of every match in this directory.",
)
@click.option(
    "--state",
    "state_path",
    type=click.Path(dir_okay=False),
    help="Keep the finished matches in this file. [default: abstractgames-arena-GAME-SEED.jsonl, "
    "deleted once the tournament is complete]",
)
@click.option(
    "--resume", is_flag=True, help="Continue the interrupted tournament of the state file."
)
@click.option(
    "--clock",
    callback=_clock_option,
    metavar="SECONDS[+INCREMENT]",
    help="Each player's time per game, e.g. 300+2 (the records keep every move's time).",
)
@click.option(
    "--time-loss-forfeits",
    "--correspondence",
    "time_loss_forfeits",
    is_flag=True,
    help="Running out of time loses the match, also in a game whose live rules make the moves "
    "of a player out of time.",
)
@_position_options(many=True)
@_logs_option
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("-v", "--verbose", is_flag=True, help="A line on stderr for each finished match.")
def arena(
    game: str,
    more_players: tuple[str, ...],
    players: tuple[str, ...],
    games: int,
    seed: int,
    jobs: int | None,
    executor: str,
    dask_wait: float | None,
    json_path: str | None,
    records_dir: str | None,
    state_path: str | None,
    resume: bool,
    clock: Any,
    time_loss_forfeits: bool,
    positions: tuple[str, ...],
    position_file: str | None,
    side: str | None,
    logs_dir: str | None,
    quiet: bool,
    verbose: bool,
) -> None:
    """Play a seeded round robin between bots and show how strong each one is.

    Every pair of players (e.g. --players random greedy search:depth=2 "engine:./mybot") plays
    --games games, on paired seeds: each seed once with each player first, so both meet the
    same chance events (Entropy's bag draws). The table gives wins, draws and losses, Elo-style
    ratings with 95% error bars and, in Entropy, the mean Order score with its 95% interval.
    The same seed gives the same results whatever --jobs or --executor (for bots whose moves do
    not depend on a time budget).

    Tables and record files call a player by the name= option of its spec, or by its spec
    without a program's options (engine:timeout=5:./mybot is engine:./mybot); the JSON results
    keep the whole specs. --clock plays every match under a time control, as in 'play'.

    An openings suite: --position (repeated) or --position-file (position strings one to a
    line, or text diagrams) gives the positions the matches start from; every pair plays
    --games matches from each position, half of them in each seat.

    Finished matches are kept in the state file as they finish: after Ctrl-C (or SIGTERM,
    SIGHUP), the same command with --resume continues the tournament. Where the results go
    (--json, --records, --state, --logs) is checked before any match is played.
    """
    import signal

    from ..arena import Arena, ArenaState, make_executor
    from ..files import check_writable
    from ..text import plural

    with _user_errors():
        the_game = parse_game_spec(game)
        path = Path(state_path or _default_state(the_game, seed))
        _check_output(json_path, "the results")
        if not resume:
            where = "the tournament's state" + ("" if state_path else ": give --state FILE")
            _check_output(str(path), where)
        if logs_dir is not None:
            logs_dir = _logs_directory(logs_dir)
        tournament = Arena(
            the_game,
            [*players, *more_players],
            games=games,
            seed=seed,
            clock=clock,
            time_loss_forfeits=time_loss_forfeits,
            logs=logs_dir,
            positions=_many_positions(the_game, positions, position_file, side),
        )
        runner = make_executor(executor, jobs, worker_timeout=dask_wait)
        _sandbox_note([*players, *more_players])
        if records_dir is not None:
            record = Path(records_dir) / tournament.record_name(tournament.tasks[0])
            try:
                if not records_dir.strip():
                    raise OSError(errno.ENOENT, "the directory name is empty")
                record.parent.mkdir(parents=True, exist_ok=True)
                check_writable(record)
            except OSError as error:
                raise click.UsageError(
                    f"cannot write the records in {printable(records_dir)!r}: "
                    f"{error.strerror or error}"
                ) from None
        state = (ArenaState.resume if resume else ArenaState.create)(path, tournament)
        units = plural(tournament.unit)
        kept = f"the finished {units} are kept in {path}"
        try:
            with _progress_bar(not quiet, tournament.unit, verbose) as (progress, on_match):
                report = tournament.run(
                    runner,
                    state=state,
                    records=records_dir,
                    on_progress=progress,
                    on_match=on_match,
                )
            if json_path is not None:
                try:
                    report.save(json_path)
                except OSError as error:
                    click.echo(report.format_table(), nl=False)
                    raise click.ClickException(
                        printable(
                            f"cannot write the results to {json_path!r}: "
                            f"{error.strerror or error}; {kept}: the same command with --resume "
                            "shows them and writes them again"
                        )
                    ) from None
            if state_path is None:
                state.remove()
        except KeyboardInterrupt:
            status = _interrupted()
            how = "" if status == EXIT_INTERRUPTED else f" by {signal.Signals(status - 128).name}"
            _say(
                f"\ninterrupted{how}: {kept}; the same command with --resume continues the "
                "tournament"
            )
            sys.exit(status)
        except AbstractGamesError as error:
            raise click.ClickException(printable(f"{error} ({kept}: --resume continues)")) from None
        finally:
            state.close()
    click.echo(report.format_table(), nl=False)


@main.command()
@click.argument("game")
@click.option(
    "--player",
    "-p",
    "players",
    multiple=True,
    metavar="SPEC",
    help="Also check this player in GAME (repeatable), e.g. mybot.py:MyBot.",
)
@click.option(
    "--examples",
    "-n",
    default=100,
    show_default=True,
    type=click.IntRange(min=1),
    help="Hypothesis examples per property.",
)
@_position_options(many=True)
def check(
    game: str,
    players: tuple[str, ...],
    examples: int,
    positions: tuple[str, ...],
    position_file: str | None,
    side: str | None,
) -> None:
    """Run the conformance kit on GAME (and on each --player in it): every property of the
    game protocol, and of a player, on positions hypothesis draws from random games.

    With --position (repeatable) or --position-file, the random games start from those
    positions (a puzzle your bot should handle, say) rather than from the game's start.

    Needs hypothesis (pip install hypothesis). Exits with status 1 if a property fails.
    """
    try:
        from ..testing import conformance_properties, player_properties
    except ImportError as error:
        raise click.ClickException(
            f"the conformance kit needs hypothesis ({error}): pip install hypothesis"
        ) from None
    with _user_errors():
        the_game = parse_game_spec(game)
        starts = _many_positions(the_game, positions, position_file, side)
        kit = conformance_properties(the_game, max_examples=examples, starts=starts)
        suites = [(f"game {the_game.spec}", kit)]
        for spec in players:
            properties = player_properties(spec, the_game, max_examples=examples, starts=starts)
            suites.append((f"player {spec}", properties))
    failed = 0
    for title, properties in suites:
        click.echo(title)
        for name, prop in properties.items():
            try:
                prop()
            except Exception as error:  # a failing property of outside code: report, go on
                failed += 1
                notes = "".join(f"\n      {note}" for note in getattr(error, "__notes__", []))
                reason = str(error).strip() or type(error).__name__
                click.echo(f"  FAIL {name}: {reason}{notes}")
            else:
                click.echo(f"  ok   {name}")
    if failed:
        click.echo(f"{failed} {'property' if failed == 1 else 'properties'} failed", err=True)
        sys.exit(1)


@main.command()
@click.argument("game")
@click.argument("position", nargs=-1, required=True)
@_side_option
@click.option(
    "--moves",
    "-n",
    "max_moves",
    default=10,
    show_default=True,
    type=click.IntRange(min=1),
    help="Look for a win within this many own moves at most.",
)
@click.option(
    "--time",
    "time_limit",
    default=60.0,
    show_default=True,
    type=click.FloatRange(min=0, max=MAX_SOLVE_TIME, min_open=True),
    callback=lambda ctx, param, value: _finite(value),
    help="Stop after this many seconds (at most a week) and say how far the search got.",
)
@click.option("--quiet", "-q", is_flag=True, help="Print the answer only, not the progress.")
@click.option(
    "--memory",
    type=click.FloatRange(min=0, max=MAX_SOLVE_MEMORY, min_open=True),
    callback=lambda ctx, param, value: _finite(value),
    help="Bound the solver's transposition table to about this many MB (solvers that have one; "
    "at most a million).",
)
@click.option(
    "--checkpoint",
    type=click.Path(dir_okay=False),
    callback=lambda ctx, param, value: _writable(value, "the checkpoint"),
    help="Save the solver's work to this file now and then and when stopped, and resume from "
    "it if it exists (solvers that can). Checked before the search starts.",
)
@click.option(
    "--certificate",
    type=click.Path(dir_okay=False),
    help="Write a certificate of the result to this file, for 'abstractgames verify' "
    "(solvers that can).",
)
def solve(
    game: str,
    position: tuple[str, ...],
    side: str | None,
    max_moves: int,
    time_limit: float | None,
    quiet: bool,
    memory: float | None,
    checkpoint: str | None,
    certificate: str | None,
) -> None:
    """Find a forced win for the side to move in POSITION, or show that none exists.

    The search deepens one own move at a time until it finds a win (the fastest there is), rules
    one out within --moves, or runs out of --time. Each number of moves ruled out is printed to
    stderr as it goes; the answer is one line on stdout. The games with a solver say so in their
    documentation; e.g.
    abstractgames solve dispersal S1OSO/O3S/O3O/1O2S/SSS1O O

    POSITION is a position string or a text diagram (quoted, on several lines), or '-' to read
    either from standard input.
    """
    import inspect

    from ..grid import read_position
    from ..registry import solver_for

    with _user_errors():
        the_game = parse_game_spec(game)
        solver = solver_for(the_game)
        state = read_position(the_game, _position_text(position), side)
        try:  # a plugin's solver may not report progress
            takes = set(inspect.signature(solver).parameters)
        except (TypeError, ValueError):
            takes = set()
        options: dict[str, Any] = {}
        if "progress" in takes and not quiet:
            options["progress"] = lambda step: click.echo(str(step), err=True)
        for name, value in (("memory", memory), ("checkpoint", checkpoint)):
            if value is not None:
                if name not in takes:
                    raise click.UsageError(f"the solver of {the_game.spec} has no --{name}")
                options[name] = value
        _check_output(certificate, "the certificate")
        try:
            solution = solver(state, max_moves, time_limit, **options)
        except ValueError as error:
            raise click.ClickException(str(error)) from None
    click.echo(str(solution))
    route = getattr(solution, "route", None)
    if isinstance(route, str) and not quiet and "route" not in str(solution):
        _say(f"route: {route}")
    if certificate is not None:
        _write_certificate(the_game, solution, certificate)


def _write_certificate(the_game: Game, solution: Any, path: str) -> None:
    """Write the certificate of `solution` (which must prove a result) to `path`."""
    from ..files import write_atomic
    from ..solvers.verify import Certificate, write_certificate

    own = getattr(solution, "certificate_bytes", None)
    if callable(own):  # a solution that writes a certificate in its game's own format
        try:
            data = own()
        except ValueError as error:
            raise click.ClickException(str(error)) from None
        write_atomic(path, data)
        _say(f"certificate: {len(data):,} bytes in {path}")
        return
    strategy = getattr(solution, "strategy", None)
    if strategy is None:
        raise click.ClickException(f"the solver of {the_game.spec} writes no certificates")
    if getattr(solution, "winner", None) is None:
        raise click.ClickException("no certificate: the solution proves no result")
    moves = getattr(solution, "moves", None)
    cert = Certificate(the_game.spec, solution.position, solution.winner, moves, strategy())
    size = write_certificate(path, cert)
    _say(f"certificate: {len(cert.strategy):,} positions, {size:,} bytes in {path}")


def _certificate_head(path: str) -> bytes:
    """The first bytes of a regular file (never waiting on a FIFO), or none."""
    import stat

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return b""
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        with open(os.open(path, flags), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return b""
            return handle.read(64)
    except (OSError, ValueError):
        return b""  # the reader of the generic format says what is wrong


@main.command()
@click.argument("certificate", type=click.Path(dir_okay=False))
def verify(certificate: str) -> None:
    """Check CERTIFICATE, written by 'solve --certificate', with nothing but the game's rules.

    Every line the certificate allows is played out: the winner's moves from the certificate,
    every reply of the other side. A certificate in a game's own format is checked by that
    game's checker (Order and Chaos's centre certificates, from the pairing route: the board's
    geometry, the centre strategy against every reply, the closing lemma). Prints what was
    proven and how many positions were checked; exits with status 1, saying where, if the proof
    fails.
    """
    from ..registry import certificate_checker_for
    from ..solvers.verify import check_certificate, read_certificate

    with _user_errors():
        special = certificate_checker_for(_certificate_head(certificate))
        if special is not None:  # a format of a game's own, such as a centre certificate
            game, checker = special
            try:
                report = checker.verify_file(certificate, game)
            except OSError as error:
                raise click.ClickException(
                    f"cannot read {printable(certificate)!r}: {error.strerror or error}"
                ) from None
            click.echo(str(report))
            return
        try:
            cert = read_certificate(certificate)
        except OSError as error:
            raise click.ClickException(
                f"cannot read {printable(certificate)!r}: {error.strerror or error}"
            ) from None
        report = check_certificate(cert, parse_game_spec(cert.game))
    click.echo(str(report))


@main.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="The address to listen on: this machine only by default; 0.0.0.0 serves every network "
    "(with a warning).",
)
@click.option(
    "--port",
    default=8000,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="The port to listen on (0: a free one, printed).",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in your web browser.")
@click.option(
    "--no-save",
    is_flag=True,
    help="Keep no record of the page's games (they go to the database otherwise; the data "
    "directory, where 'play' keeps its records, is set by ABSTRACTGAMES_DATA).",
)
@click.option(
    "--allow-programs",
    is_flag=True,
    help="Let the page start engines and bots from files also when serving beyond this machine "
    "(on 127.0.0.1 it always may; either way only with the page's token).",
)
@click.option(
    "--public",
    is_flag=True,
    help="A game server for others: no token (each game's seats are guarded by their links' "
    "secrets), no programs started; put it behind a reverse proxy with TLS.",
)
@click.option(
    "--database",
    metavar="PATH|URL",
    help="Where the games are kept, the page's and those between people: a SQLite file "
    "(default: games.db in your data directory) or postgresql://USER@HOST/DB, shared by "
    "several servers.",
)
@click.option(
    "--smtp",
    metavar="HOST:PORT",
    help="The mail server for correspondence notices (with --mail-from).",
)
@click.option("--mail-from", metavar="ADDRESS", help="The From: address of notices.")
@click.option(
    "--no-rate-limits",
    is_flag=True,
    help="Do not limit each client address's new games and moves (behind a reverse proxy "
    "that limits per address itself, where every client is the proxy).",
)
@click.option(
    "--base-url",
    metavar="URL",
    help="The server's address as players reach it (https://games.example.org), for the "
    "links in notices.",
)
@click.option(
    "--forwarded-allow-ips",
    metavar="ADDRESSES",
    help="The addresses of your reverse proxies (comma-separated), whose X-Forwarded-For "
    "header names each client for the rate limits; from anyone else it is ignored.",
)
def serve(
    host: str,
    port: int,
    open_browser: bool,
    no_save: bool,
    allow_programs: bool,
    public: bool,
    database: str | None,
    smtp: str | None,
    mail_from: str | None,
    base_url: str | None,
    no_rate_limits: bool,
    forwarded_allow_ips: str | None,
) -> None:
    """Play, watch and replay in your web browser: a local web app (pip install
    'abstractgames[web]').

    Play any game against any player spec (or a second person at the same screen) by clicking
    on the board or typing moves; watch bots play a match or a tournament live; replay any
    game record. The games are kept in a database (games.db in your data directory, or
    --database), each as the same record 'play --record' writes, rewritten after every move;
    Replay lists them with the records 'play' keeps, and downloads any as a file. Ctrl-C (or
    SIGTERM) stops the server and keeps the games in progress.

    The address printed (and opened by --open) carries a secret token, new at each start:
    without it the server answers nothing, so no other program or person on this machine can
    use it.

    Two people on two computers play each other by link (the page's Online section): a game's
    creator gets a link for their seat and one to send the opponent; a third lets anyone watch.
    Those games, live or by correspondence, and the lobby's challenges are kept in the same
    database, so that a server restarted, or killed, loses no move it acknowledged.
    """
    try:
        from ..web import ServeError
        from ..web import serve as run_server
        from ..web.notify import SmtpSettings
    except ImportError as error:
        raise click.ClickException(
            f"the web interface needs the web extra ({error}): pip install 'abstractgames[web]'"
        ) from None
    from ..files import data_directory, games_directory

    if (smtp is None) != (mail_from is None):
        raise click.UsageError("--smtp and --mail-from go together")
    if public and allow_programs:
        raise click.UsageError("a --public server starts no programs: drop --allow-programs")
    mail = None
    if smtp is not None and mail_from is not None:
        try:
            mail = SmtpSettings.parse(smtp, mail_from, starttls=smtp.endswith(":587"))
        except ValueError as error:
            raise click.BadParameter(printable(error), param_hint="--smtp") from None
    if database is None and not no_save:
        home = data_directory()
        try:
            home.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise click.ClickException(f"cannot make {printable(home)}: {error}") from None
        database = str(home / "games.db")
    try:
        run_server(
            host,
            port,
            open_browser=open_browser,
            save_dir=None if no_save else games_directory(),
            allow_programs=True if allow_programs else None,
            database=database,
            public=public,
            smtp=mail,
            base_url=base_url,
            rate_limits=not no_rate_limits,
            forwarded_allow_ips=forwarded_allow_ips,
        )
    except ServeError as error:
        raise click.ClickException(printable(error)) from None
    except KeyboardInterrupt:
        sys.exit(_interrupted())


# --- correspondence by text -----------------------------------------------------------------------


@main.group()
def mail() -> None:
    """Play by e-mail: a whole game in one text file, pasted into e-mails and read back.

    'mail new' writes a new game's text; whoever is to move runs 'mail move FILE MOVE' on the
    text they received (the whole e-mail will do: quoting, re-wrapped lines and a signature are
    passed over) and sends the text it writes back. 'mail check' reads every move through the
    rules and the clock; 'mail show' draws the board. In Entropy the bag's draws are made by
    both players together (a value committed to, then revealed), so neither knows one before it
    is due and neither can steer it; each player's secret key stays in their data directory.
    """


def _now_option(command: Any) -> Any:
    return click.option(
        "--now",
        metavar="'YYYY-MM-DD HH:MM'",
        help="The time to act at, in UTC (for examples and tests). [default: now]",
    )(command)


def _mail_time(text: str | None) -> Any:
    """The time of `--now` (UTC), or the present."""
    import datetime as dt

    if text is None:
        return dt.datetime.now(dt.UTC).replace(second=0, microsecond=0)
    try:
        return dt.datetime.strptime(text.strip(), "%Y-%m-%d %H:%M").replace(tzinfo=dt.UTC)
    except ValueError:
        raise click.BadParameter(
            f"{printable(text)!r} is not a time: write YYYY-MM-DD HH:MM (UTC)",
            param_hint="'--now'",
        ) from None


def _write_mail(text: str, out: str | None) -> str | None:
    """Write the game's text to `out` (`-` or `None`: standard output); where it went."""
    from ..files import write_atomic

    if out is None or out == "-":
        click.echo(text, nl=False)
        return None
    try:
        write_atomic(out, text)
    except OSError as error:
        click.echo(text, nl=False)
        raise click.ClickException(
            f"cannot write {printable(out)!r}: {error.strerror or error}; the text is above"
        ) from None
    return out


@mail.command(name="new")
@click.argument("game")
@click.option("-1", "--player1", default="player 1", show_default=True, help="Player 1's name.")
@click.option("-2", "--player2", default="player 2", show_default=True, help="Player 2's name.")
@click.option(
    "--time",
    "time_control",
    default="none",
    show_default=True,
    metavar="'N days a move[, at most M days a game]'",
    help="The time control: a player who takes longer loses the match.",
)
@_position_options(many=False)
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Write the text to this file. [default: standard output]",
)
@_now_option
def mail_new(
    game: str,
    player1: str,
    player2: str,
    time_control: str,
    positions: str | None,
    position_file: str | None,
    side: str | None,
    out: str | None,
    now: str | None,
) -> None:
    """Start a game of GAME by e-mail between player 1 (-1 NAME) and player 2 (-2 NAME).

    Player 1 makes the first move of the first game (in Entropy, player 1 is Chaos first). Send
    the text to whoever is to move (its last line says who).
    """
    from ..mail import MailGame, TimeControl

    with _user_errors():
        the_game = parse_game_spec(game)
        start = _one_position(the_game, positions, position_file, side)
        if start is not None:
            from ..referee import check_start

            check_start(the_game, start)
        when = _mail_time(now)
        made = MailGame.new(
            the_game,
            (player1, player2),
            time=TimeControl.parse(time_control),
            start=start,
            when=when,
        )
        written = _write_mail(made.render(when), out)
    if written is not None:
        turn = made.replay(when).turn
        assert turn.seat is not None
        name = made.players[turn.seat - 1]
        click.echo(
            f"the game's text is in {printable(written)}; {printable(name)} ({turn.role}) acts "
            f"first: send it to {printable(name)}, unless that is you"
        )


def _load_mail(file: str) -> Any:
    """The game in the text (or e-mail) in `file`, `-` for standard input."""
    from ..mail import MailGame

    return MailGame.parse(_read_text(file)) if file == "-" else MailGame.load(file)


def _mail_next(game: Any, when: Any) -> str:
    """Who the text goes to now, in a line."""
    replay = game.replay(when)
    if replay.turn.seat is None:
        return "the match is over; send it to both players"
    name = game.players[replay.turn.seat - 1]
    return f"send it to {name}, who is to move"


@mail.command(name="move")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.argument("move", required=False)
@click.option(
    "--bot",
    metavar="SPEC",
    help="Let this player choose the move (a game against the computer by e-mail), e.g. "
    "search:time=5.",
)
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Write the new text here ('-': standard output). [default: FILE itself]",
)
@_now_option
def mail_move(
    file: str, move: str | None, bot: str | None, out: str | None, now: str | None
) -> None:
    """Play MOVE in the game in FILE (the text, or an e-mail that holds it) and rewrite it.

    MOVE is a move in the game's notation, 'draw' for a step of an Entropy draw that is due
    (the text says when), or 'resign'. The rules, the draws and the clock are checked first:
    a move list that has been changed, or a move sent too late, is refused.
    """

    if move is not None and bot is not None:
        raise click.UsageError("give a MOVE or --bot, not both")
    with _user_errors():
        game = _load_mail(file)
        when = _mail_time(now)
        action = move
        if bot is not None:
            action = game.choose(bot, now=when)
        before = len(game.entries)
        after = game.play(action, when=when, now=when)
        text = after.render(when)
        target = out if out is not None else (None if file == "-" else file)
        if target is not None and target != "-":
            _write_mail(text, target)
        added = [entry.summary() for entry in after.entries[before:]]
        moved = any(entry.kind == "move" for entry in after.entries[before:])
        lines = [f"{'played' if moved else 'sent'} {', '.join(added)}"]
        lines.append(text.rstrip("\n").splitlines()[-1])
        if target is None or target == "-":
            click.echo(text, nl=False)
            click.echo("\n".join(lines), err=True)
        else:
            lines.append(f"the game's text is in {printable(target)}: {_mail_next(after, when)}")
            click.echo("\n".join(lines))


@mail.command(name="show")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--no-color", is_flag=True, help="Draw the board with letters only.")
@_now_option
def mail_show(file: str, no_color: bool, now: str | None) -> None:
    """Draw the position of the game in FILE, with the moves of the game being played and
    what is to happen next."""
    from ..terminal import make_console, show_position

    with _user_errors():
        game = _load_mail(file)
        when = _mail_time(now)
        replay = game.replay(when)
        state = game.current(now=when)
        console = make_console(colour=not no_color)
        moves = [
            e.render() for e in game.entries if e.kind == "move" and e.game == replay.game_number
        ]
        console.print(
            f"{game.game.title or game.game.name}: {game.players[0]} against {game.players[1]}"
        )
        if moves:
            from ..terminal import join_fitting

            nbsp = "\N{NO-BREAK SPACE}"  # a move is not broken between lines: 5. chaos G@c1
            listed = [" ".join(m.split()[:3]).replace(" ", nbsp) + "," for m in moves]
            listed[0] = f"game {replay.game_number}: {listed[0]}"
            listed[-1] = listed[-1][:-1]
            console.print(join_fitting(listed, console.width, " ").replace(nbsp, " "))
        show_position(console, state)
        if state.position() != replay.state.position():
            console.print(
                f"your draw: {state.game.side_line(state)} (only your program can make it; your "
                "move reveals it to the other side)"
            )
        console.print(game.next_line(replay))


@mail.command(name="check")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "--record",
    "record_path",
    type=click.Path(dir_okay=False),
    help="Also write the match as a game record (for 'replay', the arena's tools, the web page).",
)
@_now_option
def mail_check(file: str, record_path: str | None, now: str | None) -> None:
    """Read every move and draw of the game in FILE through the rules and the clock: say whose
    move it is and how long each side has had, or how the match ended (a player past their
    time has lost)."""
    from ..mail import describe

    with _user_errors():
        game = _load_mail(file)
        when = _mail_time(now)
        replay = game.replay(when)
        click.echo(describe(game, replay, when))
        if record_path is not None:
            _check_output(record_path, "the record")
            replay.record.save(record_path)
