"""`abstractgames mail`: correspondence by text, a whole game in one file for e-mail (`new`,
`move`, `show`, `check`)."""

from __future__ import annotations

from typing import Any

import click

from ..registry import parse_game_spec
from ..text import printable
from .common import _check_output, _one_position, _position_options, _user_errors


@click.group()
def mail() -> None:
    """Play by e-mail: a whole game in one text file, pasted into e-mails and read back.

    'mail new' writes a new game's text; whoever is to move runs 'mail move FILE MOVE' on the
    text they received (the whole e-mail will do: quoting, re-wrapped lines and a signature are
    passed over) and sends the text it writes back. 'mail check' reads every move through the
    rules and the clock; 'mail show' draws the board. In Entropy the bag's draws are made by
    both players together (a value committed to, then revealed), so neither knows one before it
    is due and neither can steer it; each player's secret key stays in their data directory.
    Each player's program remembers the game there too: a text that rewrites, replays or forges
    a line, or acts for the other seat, is refused. With the mail extra (pip install
    'abstractgames[mail]') every line is signed by its player's key, and 'mail check
    --signatures' shows anyone who played each move.
    """


_UNSIGNED_HERE = (
    "this machine does not sign: your lines in this game go unsigned ({install}, to sign them "
    "and check the other player's)"
)


def _signing_notes(game: Any, seats: frozenset[int], identity: Any) -> list[str]:
    """What to say of the game's signatures (each said once a game): that this machine cannot
    sign, or that a player's lines go unsigned."""
    from ..mail_signatures import INSTALL

    if identity is None:
        return [_UNSIGNED_HERE.format(install=INSTALL)]
    notes = []
    for seat in (1, 2):
        wrote = any(game.seat_of(entry) == seat for entry in game.entries)
        if game.keys[seat - 1] is not None or not wrote:
            continue
        name = game.players[seat - 1]
        if seat in seats:
            notes.append(
                f"{name}'s lines in this game are not signed (the first went unsigned): the game "
                "goes on unsigned for them"
            )
        else:
            notes.append(
                f"{name}'s program does not sign (the text has no key for player {seat}): the "
                f"game goes on with {name}'s lines unsigned"
            )
    return notes


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
    """Write the game's text to `out` (`-` or `None`: standard output; a device such as
    `/dev/null` is written as it is); where it went."""
    import os
    import stat

    from ..files import write_atomic

    if out is None or out == "-":
        click.echo(text, nl=False)
        return None
    try:
        if os.path.exists(out) and stat.S_ISCHR(os.stat(out).st_mode):
            with open(out, "w", encoding="utf-8") as handle:
                handle.write(text)
            return out
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
@click.option(
    "--me",
    type=click.Choice(["1", "2", "both"]),
    default="1",
    show_default=True,
    help="The seat this machine plays: 1, 2, or both (a game against a bot, or alone); the "
    "other player's machine takes the other seat when it first receives the game.",
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
    me: str,
    positions: str | None,
    position_file: str | None,
    side: str | None,
    out: str | None,
    now: str | None,
) -> None:
    """Start a game of GAME by e-mail between player 1 (-1 NAME) and player 2 (-2 NAME).

    Player 1 makes the first move of the first game (in Entropy, player 1 is Chaos first). This
    machine plays the seat --me (player 1 unless told) and remembers the game in its data
    directory. Send the text to whoever is to move (its last line says who).
    """
    from ..mail import MailGame, Memory, TimeControl, signing_identity

    with _user_errors():
        the_game = parse_game_spec(game)
        start = _one_position(the_game, positions, position_file, side)
        if start is not None:
            from ..referee import check_start

            check_start(the_game, start)
        when = _mail_time(now)
        identity = signing_identity()
        made = MailGame.new(
            the_game,
            (player1, player2),
            time=TimeControl.parse(time_control),
            start=start,
            when=when,
            made_by=0 if me == "both" else int(me),
            identity=identity,
        )
        text = made.render(when)
        seats = frozenset({1, 2}) if me == "both" else frozenset({int(me)})
        memory = Memory()
        memory.keep(made, text, "made", seats)
        notes = [
            note
            for note in _signing_notes(made, seats, identity)
            if memory.tell_once(made.id, note)
        ]
        written = _write_mail(text, out)
    for note in notes:
        click.echo(printable(note), err=written is None)
    if written is not None:
        turn = made.replay(when).turn
        assert turn.seat is not None
        name = made.players[turn.seat - 1]
        click.echo(
            f"the game's text is in {printable(written)}; {printable(name)} ({turn.role}) acts "
            f"first: send it to {printable(name)}, unless that is you"
        )


def _read_mail(file: str) -> str:
    """The text (or e-mail) in `file`, `-` for standard input, read up to a bound (a FIFO or a
    device is refused, never waited on)."""
    import sys

    from ..mail import MAX_TEXT, read_mail

    if file == "-":
        return sys.stdin.read(MAX_TEXT + 1)
    return read_mail(file)


def _load_mail(file: str) -> Any:
    """The game in the text (or e-mail) in `file`, `-` for standard input."""
    from ..mail import MailGame

    return MailGame.parse(_read_mail(file))


def _beside(file: str) -> str:
    """Where the answer to the e-mail in `file` goes by default: beside it, `NAME.answer.txt`
    (the e-mail received is left as it is; a file of answers is answered in place)."""
    from pathlib import Path

    path = Path(file)
    if path.stem.endswith(".answer"):
        return file
    return str(path.with_name(f"{path.stem}.answer{path.suffix or '.txt'}"))


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
    help="Write the answer here ('-': standard output). [default: beside FILE, as NAME.answer.txt]",
)
@_now_option
def mail_move(
    file: str, move: str | None, bot: str | None, out: str | None, now: str | None
) -> None:
    """Play MOVE in the game in FILE (the text, or an e-mail that holds it) and write the
    answer to send beside it (FILE itself is kept, as the history in the data directory keeps
    every text sent and received).

    MOVE is a move in the game's notation, 'draw' for a step of an Entropy draw that is due
    (the text says when), or 'resign'. The rules, the draws and the clock are checked first,
    and the text must extend what this machine knows of the game by the opponent's actions
    alone: a changed or replayed text, or one that acts for this machine's seat, is refused.
    """
    from ..mail import MailError, MailGame, Memory, signing_identity

    if move is not None and bot is not None:
        raise click.UsageError("give a MOVE or --bot, not both")
    with _user_errors():
        received = _read_mail(file)
        game = MailGame.parse(received)
        when = _mail_time(now)
        memory = Memory()
        found = memory.check(game)
        replay = game.replay(when)
        turn = replay.turn
        if turn.seat is not None and turn.seat not in found.seats:
            (mine,) = found.seats
            name = game.players[turn.seat - 1]
            raise MailError(
                f"it is {name}'s turn (player {turn.seat}), and this machine plays player {mine} "
                f"({game.players[mine - 1]}) in this game: send the text to {name}"
            )
        if found.new or found.first:
            memory.keep(game, received, "received", found.seats)
        action = move
        if bot is not None:
            action = game.choose(bot, now=when)
        before = len(game.entries)
        identity = signing_identity()
        after = game.play(action, when=when, now=when, identity=identity)
        text = after.render(when)
        target = out if out is not None else (None if file == "-" else _beside(file))
        if target is not None and target != "-":
            _no_shorter(target, after)
            _write_mail(text, target)
        memory.keep(after, text, "sent", found.seats)
        added = [entry.summary() for entry in after.entries[before:]]
        moved = any(entry.kind == "move" for entry in after.entries[before:])
        lines = [f"{'played' if moved else 'sent'} {', '.join(added)}"]
        lines.append(text.rstrip("\n").splitlines()[-1])
        if found.first:
            (mine,) = found.seats
            lines.append(
                f"this machine plays player {mine} ({game.players[mine - 1]}) in this game"
            )
        lines += [
            note
            for note in _signing_notes(after, found.seats, identity)
            if memory.tell_once(after.id, note)
        ]
        if target is None or target == "-":
            click.echo(text, nl=False)
            click.echo(printable("\n".join(lines)), err=True)
        else:
            lines.append(f"the game's text is in {target}: {_mail_next(after, when)}")
            click.echo(printable("\n".join(lines)))


def _no_shorter(target: str, game: Any) -> None:
    """A shorter game is never written over a longer one of the same game."""
    import os

    from ..mail import MailError, MailGame

    if not os.path.isfile(target):
        return
    try:
        there = MailGame.load(target)
    except MailError:
        return
    if there.id == game.id and len(there.entries) > len(game.entries):
        raise MailError(
            f"{target} holds this game with {len(there.entries)} lines, more than the "
            f"{len(game.entries)} of the answer: it is not written over (give -o elsewhere)"
        )


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
            printable(
                f"{game.game.title or game.game.name}: {game.players[0]} against {game.players[1]}"
            )
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
@click.option(
    "--signatures",
    "with_signatures",
    is_flag=True,
    help="Check every line's signature by its player's key, and say who signed each (no data "
    "directory needed: for a third party given the text). Needs the mail extra.",
)
@_now_option
def mail_check(file: str, record_path: str | None, with_signatures: bool, now: str | None) -> None:
    """Read every move and draw of the game in FILE through the rules and the clock: say whose
    move it is and how long each side has had, or how the match ended (a player past their
    time has lost)."""
    from ..mail import Memory, describe

    if with_signatures:
        _check_signatures(file, now)
        return
    with _user_errors():
        game = _load_mail(file)
        when = _mail_time(now)
        Memory().check(game, answering=False)
        replay = game.replay(when)
        click.echo(printable(describe(game, replay, when)))
        if record_path is not None:
            _check_output(record_path, "the record")
            replay.record.save(record_path)


def _check_signatures(file: str, now: str | None) -> None:
    """`mail check --signatures`: the rules, then every signature, and who signed each line."""
    from ..mail import MailError, verify_signatures
    from ..mail_signatures import INSTALL, available

    with _user_errors():
        if not available():
            raise MailError(f"checking signatures needs the cryptography library: {INSTALL}")
        game = _load_mail(file)
        game.replay(_mail_time(now))
        names = game.players
        unsigned = [seat for seat in (1, 2) if game.keys[seat - 1] is None]
        if len(unsigned) == 2:
            raise MailError(
                "this text is not signed: it has no player's key, and none of its lines is "
                "signed (each player's program signs with the mail extra installed)"
            )
        checked = verify_signatures(game)
        for seat in unsigned:
            first = next((e for e, _ in checked if game.seat_of(e) == seat), None)
            if first is None:
                continue  # no line of theirs yet
            where = f"line {first.line}: "
            raise MailError(
                f"{where}player {seat} ({names[seat - 1]}) did not sign their lines (the text "
                f"has no key for player {seat}): who played them cannot be checked"
            )
        lines = [f"{game.game.title or game.game.name}: {names[0]} against {names[1]}"]
        lines += [f"player {seat} ({names[seat - 1]}): {game.keys[seat - 1]}" for seat in (1, 2)]
        for entry, signer in checked:
            said = entry.render().split("  ")[0]
            if signer is None:
                lines.append(f"line {entry.line}: {said} (made by the two values)")
            else:
                lines.append(f"line {entry.line}: {said}, signed by {names[signer - 1]}")
        signed = sum(seat is not None for _, seat in checked)
        lines.append(
            f"{signed} line{'' if signed == 1 else 's'} signed, each by the key of the player "
            "who wrote it"
        )
        click.echo(printable("\n".join(lines)))
