"""`abstractgames mail`: correspondence by text, a whole game in one file for e-mail (`new`,
`move`, `show`, `check`)."""

from __future__ import annotations

from typing import Any

import click

from ..registry import parse_game_spec
from ..text import printable
from .common import _check_output, _one_position, _position_options, _read_text, _user_errors


@click.group()
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
