"""What the commands share: the errors they show (`_user_errors`, `_Fitted`, exit statuses),
lines on stderr fitted to the terminal's width, the options more than one command reads
(`--seed`, `--logs`, `--clock`, the positions) and the checks of where their output goes."""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import click

from ..interrupts import EXIT_INTERRUPTED
from ..protocol import AbstractGamesError, Game, State
from ..records import SEED_LIMIT
from ..text import printable, wrap

EXIT_SAVED_ELSEWHERE = 74
"""The exit status when a result could not be written where asked and went to a fallback file."""


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


def _width() -> int:
    """The terminal's width in columns (`COLUMNS` if set; 80 when there is no terminal)."""
    import shutil

    return max(shutil.get_terminal_size((80, 24)).columns, 20)


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


def _clock_option(ctx: click.Context, param: click.Parameter, value: str | None) -> object:
    from ..records import ClockSettings

    if value is None:
        return None
    try:
        return ClockSettings.parse(value)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


def _sandbox_note(specs: Iterable[str]) -> None:
    """Say on stderr what is not contained here, if a bot from a file or module is seated and
    this system cannot sandbox it wholly (on Linux with libseccomp, nothing is said)."""
    from ..registry import OutsideCode, outside_code
    from ..registry.sandbox import containment

    if any(outside_code(spec) is OutsideCode.PYTHON for spec in specs):
        here = containment()
        if not here.complete:
            _say(f"note: {here.summary()} (see 'Guarantees' in the documentation)")


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
