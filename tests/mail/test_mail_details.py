"""E-mail play's smaller guarantees, each through the real command: hostile names, a failing
bot, a FIFO, a line wrapped before its time, a forged draw line, a finished game's diagram, the
e-mail received kept and the answer beside it; and a genuine message mutated (a line changed,
dropped, duplicated or moved, a header changed) never gives a changed game."""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames import get_game
from abstractgames.cli import main
from abstractgames.mail import NOON, Entry, MailError, MailGame, Memory, signing_identity

HOUR = dt.timedelta(hours=1)


def clock(at: dt.datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M")


def run(home: Path, *args: str, text: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        main, ["mail", *args], env={"ABSTRACTGAMES_DATA": str(home)}, input=text
    )
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_a_name_with_escape_codes_or_without_end_is_refused(tmp_path: Path) -> None:
    text = MailGame.new(get_game("orderchaos"), ("Ann", "Bob"), when=NOON).render(NOON)
    hostile = text.replace("Player 2: Bob", "Player 2: \x1b]0;owned\x07\x1b[2JBob")
    for command in ("check", "show"):
        code, out, err = run(tmp_path, command, "-", text=hostile)
        assert code == 1 and "a player's name" in err and "line 5" in err, err
        assert "\x1b" not in out + err and "Traceback" not in out + err
    long = text.replace("Player 2: Bob", "Player 2: " + "B" * 5000)
    code, _, err = run(tmp_path, "check", "-", text=long)
    assert code == 1 and "at most 60" in err and len(err) < 1000, err


def test_a_bot_that_fails_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    code, text, err = run(tmp_path, "new", "orderchaos", "--me", "both")
    assert code == 0, err
    code, out, err = run(tmp_path, "move", "-", "--bot", "engine:false", "-o", "-", text=text)
    assert code == 1 and "Traceback" not in out + err and err.startswith("Error: "), err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "game.txt"
    os.mkfifo(fifo)
    for command in ("check", "move", "show"):
        code, _, err = run(tmp_path, command, str(fifo))
        assert code == 1 and "cannot read" in err, err


def test_a_line_wrapped_just_before_its_time_is_joined(tmp_path: Path) -> None:
    game = MailGame.new(get_game("orderchaos"), ("Ann", "Bob"), when=NOON)
    game = game.play("X@c3", when=NOON + HOUR).play("O@d4", when=NOON + 2 * HOUR)
    text = game.render(NOON + 2 * HOUR)
    wrapped = text.replace("2. chaos O@d4  2026", "2. chaos O@d4\n> 2026")
    code, out, err = run(tmp_path, "check", "-", "--now", clock(NOON + 3 * HOUR), text=wrapped)
    assert code == 0 and "2 moves checked" in out, err


def test_a_forged_draw_line_before_the_reveal_is_refused(tmp_path: Path) -> None:
    ann, bob = tmp_path / "ann", tmp_path / "bob"
    code, text, _ = run(ann, "new", "entropy:size=5", "--now", clock(NOON))
    code, text, _ = run(ann, "move", "-", "draw", "--now", clock(NOON), "-o", "-", text=text)
    code, text, _ = run(bob, "move", "-", "draw", "--now", clock(NOON + HOUR), "-o", "-", text=text)
    assert code == 0
    game = MailGame.parse(text)
    forged = MailGame(
        game.game,
        game.id,
        game.players,
        game.started,
        game.time,
        game.start,
        (*game.entries, Entry(1, "draw", None, "R", 1)),
        game.made_by,
    )
    lines = text.splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith("End of the list"))
    lines[end : end + 1] = ["draw 1: R", forged.end_line()]  # Bob's own "draw", sealed
    code, _, err = run(
        ann, "move", "-", "c3", "--now", clock(NOON + 2 * HOUR), text="\n".join(lines)
    )
    assert code == 1 and f"line {end + 1}: a draw line comes right before" in err, err


def test_a_finished_games_diagram_says_nobody_is_to_move() -> None:
    game = MailGame.new(get_game("orderchaos"), ("Ann", "Bob"), when=NOON)
    game = game.play("resign", when=NOON + HOUR)
    text = game.render(NOON + HOUR)
    assert "to move" not in text and text.rstrip().endswith("Result: Bob wins (player 1 resigned)")
    assert MailGame.parse(text).replay().turn.seat is None


def test_the_email_received_is_kept_and_the_answer_goes_beside_it(tmp_path: Path) -> None:
    me = tmp_path / "me"
    received = tmp_path / "game.txt"
    assert run(me, "new", "orderchaos", "--me", "both", "-o", str(received))[0] == 0
    before = received.read_text()
    code, out, err = run(me, "move", str(received), "X@c3")
    assert code == 0 and "game.answer.txt" in out, err
    assert received.read_text() == before  # the evidence is left alone
    answer = tmp_path / "game.answer.txt"
    assert MailGame.load(answer).entries[-1].text == "X@c3"
    (kept,) = (me / "mail").glob("*.history.json")
    texts = Memory(me / "mail").texts(kept.name.split(".")[0])
    assert [t["kind"] for t in texts] == ["made", "sent"]
    code, out, err = run(me, "move", str(answer), "O@d4", "-o", "/dev/null")
    assert code == 0 and "/dev/null" in out, err
    texts = Memory(me / "mail").texts(kept.name.split(".")[0])
    assert [t["kind"] for t in texts] == ["made", "sent", "sent"]  # nothing new received
    other = tmp_path / "other"
    code, text, err = run(other, "new", "orderchaos", "--me", "both")
    code, out, err = run(other, "move", "-", "X@c3", "-o", "-", text=text)
    assert code == 0 and out.startswith("abstractgames correspondence game"), err


def test_a_shorter_game_is_never_written_over_a_longer_one(tmp_path: Path) -> None:
    code, text, _ = run(tmp_path / "bob", "new", "orderchaos", "--me", "2")
    bob = signing_identity(tmp_path / "bob" / "mail")  # Bob's key signs his lines
    longer = MailGame.parse(text).play("X@c3").play("O@d4", identity=bob)
    target = tmp_path / "game.answer.txt"
    target.write_text(longer.render())
    code, _, err = run(tmp_path / "ann", "move", "-", "X@c3", "-o", str(target), text=text)
    assert code == 1 and "is not written over" in err, err
    assert MailGame.load(target).entries == longer.entries


# --- a genuine message mutated never gives a changed game -------------------------------------


@cache
def genuine() -> tuple[str, str, str]:
    """Ann's data directory after her third move, and Bob's genuine answer to it."""
    home = tempfile.mkdtemp(prefix="mail-mutations-")
    ann, bob = Path(home) / "ann", Path(home) / "bob"
    code, text, _ = run(ann, "new", "orderchaos", "--time", "5 days a move", "--now", clock(NOON))
    for ply, move in enumerate(["X@c3", "O@d4", "X@e5", "O@a1"]):
        who = ann if ply % 2 == 0 else bob
        at = clock(NOON + (ply + 1) * HOUR)
        code, text, err = run(who, "move", "-", move, "--now", at, "-o", "-", text=text)
        assert code == 0, err
    return str(ann / "mail"), text, MailGame.parse(text).render(NOON + 4 * HOUR)


def _mutate(lines: list[str], kind: str, at: int, other: int, char: str) -> list[str]:
    lines = list(lines)
    at, other = at % len(lines), other % len(lines)
    if kind == "change" and lines[at]:
        spot = other % len(lines[at])
        lines[at] = lines[at][:spot] + char + lines[at][spot + 1 :]
    elif kind == "drop":
        del lines[at]
    elif kind == "duplicate":
        lines.insert(other, lines[at])
    elif kind == "reorder":
        lines[at], lines[other] = lines[other], lines[at]
    elif kind == "header":
        headers = [i for i, line in enumerate(lines[:12]) if ": " in line]
        spot = headers[at % len(headers)]
        name, _, value = lines[spot].partition(": ")
        lines[spot] = f"{name}: {value[: other % (len(value) + 1)]}{char}"
    return lines


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(["change", "drop", "duplicate", "reorder", "header"]),
    at=st.integers(0, 200),
    other=st.integers(0, 200),
    char=st.sampled_from(["x", "1", "a", "0", " ", "R", "O", "X", "."]),
)
def test_a_mutated_message_never_gives_a_changed_game(
    kind: str, at: int, other: int, char: str
) -> None:
    directory, text, _ = genuine()
    real = MailGame.parse(text)
    mutated = "\n".join(_mutate(text.splitlines(), kind, at, other, char)) + "\n"
    try:
        game = MailGame.parse(mutated)
        Memory(Path(directory)).check(game)
        game.replay(NOON + 5 * HOUR)
    except MailError:
        return  # refused: nothing changed
    assert game == real and game.header_lines() == real.header_lines()


@pytest.mark.parametrize(
    "damage",
    ['{"seats": "x", "known": "", "texts": []}', "[1, 2]", '{"seats": [1], "known": 7}'],
)
def test_a_damaged_history_is_an_error_naming_its_file(tmp_path: Path, damage: str) -> None:
    me = tmp_path / "me"
    received = tmp_path / "game.txt"
    assert run(me, "new", "orderchaos", "--me", "both", "-o", str(received))[0] == 0
    (kept,) = (me / "mail").glob("*.history.json")
    kept.write_text(damage)
    code, out, err = run(me, "move", str(received), "X@c3")
    assert code == 1 and "Traceback" not in out + err, err
    assert "history" in err and "is damaged" in err and kept.name in err, err
