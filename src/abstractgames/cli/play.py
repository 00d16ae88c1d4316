"""`abstractgames play`, `replay` and `show`: a match at the terminal (kept, resumed, played
again), a record checked and shown, a position drawn."""

from __future__ import annotations

import sys
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..protocol import Game, InvalidPositionError
from ..registry import parse_game_spec
from ..text import printable
from .common import (
    EXIT_SAVED_ELSEWHERE,
    _check_output,
    _clock_option,
    _interrupted,
    _logs_directory,
    _logs_option,
    _one_position,
    _position_options,
    _position_text,
    _sandbox_note,
    _say,
    _seed_option,
    _side_option,
    _user_errors,
)

if TYPE_CHECKING:
    from ..players import Player


_LATEST = ""
"""What `play --resume` without a file stands for: the latest unfinished game kept."""


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


@click.command()
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
    from ..files import record_file_name
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
        default_path = record_file_name(the_game.name, referee.seed)
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
        fallback_name = record_file_name(the_game.name, referee.seed, unique=True)
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


@click.command()
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


@click.command()
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


def _refuse_a_file_name(text: str) -> None:
    """A POSITION that names a file is a mistake: the file is read with --position-file."""
    with suppress(OSError, ValueError):
        if "\n" not in text and Path(text).is_file():
            raise click.UsageError(
                f"{printable(text)!r} is a file: read a position from a file with "
                f"--position-file {printable(text)}"
            )
