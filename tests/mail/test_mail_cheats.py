"""E-mail play against a suspicious opponent: each player's program, on its own machine with its
own data directory, remembers the game, so that a rewritten, replayed, forked or forged message,
a move made for the other seat, a changed header, a steered draw and a damaged e-mail are
refused with one line, through the real command, and nothing of the local game changes.

The games here are unsigned (the `mail` extra hidden): each program's memory refuses these
cheats without signatures; `test_mail_signatures.py` has the signed games."""

from __future__ import annotations

import datetime as dt
import re
import secrets
import sys
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

from abstractgames.cli import main
from abstractgames.mail import NOON, Keys, MailGame, TimeControl, _draw, _value, commitment

HOUR = dt.timedelta(hours=1)


def clock(at: dt.datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M")


class Machine:
    """One player's computer: a data directory of its own; texts go in and out by stdin and
    stdout, as an e-mail would carry them."""

    def __init__(self, tmp_path: Path, name: str) -> None:
        self.home = tmp_path / name

    def run(self, *args: str, text: str | None = None) -> tuple[int, str, str]:
        result = CliRunner().invoke(
            main, ["mail", *args], env={"ABSTRACTGAMES_DATA": str(self.home)}, input=text
        )
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result.exit_code, result.stdout, result.stderr

    def new(self, spec: str, at: dt.datetime, *more: str) -> str:
        code, out, err = self.run("new", spec, "-1", "Ann", "-2", "Bob", *more, "--now", clock(at))
        assert code == 0, err
        return out

    def move(self, text: str, move: str, at: dt.datetime) -> str:
        args = ["--bot", "random"] if move == "random" else [move]
        code, out, err = self.run("move", "-", *args, "--now", clock(at), "-o", "-", text=text)
        assert code == 0, err
        return out

    def refuses(self, text: str, move: str, at: dt.datetime) -> str:
        args = ["--bot", "random"] if move == "random" else [move]
        code, out, err = self.run("move", "-", *args, "--now", clock(at), "-o", "-", text=text)
        assert code == 1, (code, out, err)
        assert "Traceback" not in out + err
        return err


def reseal(game: MailGame, at: dt.datetime) -> str:
    """A text a cheater writes with the program itself (the list's end line made to fit)."""
    return attrs.evolve(game, shown=()).render(at)


@pytest.fixture(autouse=True)
def unsigned(monkeypatch: pytest.MonkeyPatch) -> None:
    """The games go unsigned, as between two machines without the `mail` extra."""
    monkeypatch.setitem(sys.modules, "cryptography.hazmat.primitives.asymmetric.ed25519", None)


@pytest.fixture
def two(tmp_path: Path) -> tuple[Machine, Machine]:
    return Machine(tmp_path, "ann"), Machine(tmp_path, "bob")


def order_and_chaos(ann: Machine, bob: Machine) -> list[str]:
    """The messages of a game of Order and Chaos: Ann's new game, then each side's move."""
    texts = [ann.new("orderchaos", NOON, "--time", "5 days a move")]
    for ply, move in enumerate(["X@c3", "O@d4", "X@e5", "O@a1"]):
        mover = ann if ply % 2 == 0 else bob
        texts.append(mover.move(texts[-1], move, NOON + (ply + 1) * HOUR))
    return texts


# --- the history: rewritten, replayed and forked messages, moves for the other seat, headers ----


def test_an_earlier_move_rewritten_to_another_legal_one_is_refused(
    two: tuple[Machine, Machine],
) -> None:
    ann, bob = two
    texts = order_and_chaos(ann, bob)
    game = MailGame.parse(texts[-1])
    entries = list(game.entries)
    index = next(i for i, e in enumerate(entries) if e.text == "O@d4")
    entries[index] = attrs.evolve(entries[index], text="O@f6")
    forged = reseal(attrs.evolve(game, entries=tuple(entries)), NOON + 4 * HOUR)
    said = ann.refuses(forged, "X@b2", NOON + 5 * HOUR)
    assert "O@f6" in said and "O@d4" in said, said
    assert ann.move(texts[-1], "X@b2", NOON + 5 * HOUR)  # the genuine message still plays


def test_an_earlier_entropy_move_rewritten_is_refused(two: tuple[Machine, Machine]) -> None:
    ann, bob = two
    text = ann.new("entropy:size=5", NOON)
    text = ann.move(text, "draw", NOON)
    text = bob.move(text, "draw", NOON + HOUR)
    text = ann.move(text, "random", NOON + 2 * HOUR)
    text = bob.move(text, "pass", NOON + 3 * HOUR)
    text = ann.move(text, "random", NOON + 4 * HOUR)
    game = MailGame.parse(text)
    entries = list(game.entries)
    index = next(i for i, e in enumerate(entries) if e.text == "pass")
    placed = next(e.text for e in entries if e.kind == "move" and "@" in e.text)
    square = placed.split("@")[1]
    for target in (f"{f}{r}" for f in "abcde" for r in "12345"):
        if (target[0] == square[0]) == (target[1] == square[1]):
            continue  # not along the chip's rank or file
        entries[index] = attrs.evolve(entries[index], text=f"{square}-{target}")
        try:
            forged = reseal(attrs.evolve(game, entries=tuple(entries)), NOON + 4 * HOUR)
        except ValueError:  # blocked by the chips the draws placed; the next slide, then
            continue
        break
    else:
        pytest.fail(f"no slide from {square} is legal in {game.replay().state.position()}")
    said = bob.refuses(forged, "pass", NOON + 5 * HOUR)
    assert "pass" in said and target in said, said


def test_an_old_message_answered_again_is_refused(two: tuple[Machine, Machine]) -> None:
    ann, bob = two
    texts = order_and_chaos(ann, bob)
    said = ann.refuses(texts[2], "X@f6", NOON + 6 * HOUR)  # Bob's first move, answered before
    assert "already answered" in said and "opponent's message of 2026-01-01 14:00" in said, said


def test_a_take_back_by_answering_again_is_refused(two: tuple[Machine, Machine]) -> None:
    ann, bob = two
    texts = order_and_chaos(ann, bob)
    said = bob.refuses(texts[3], "O@f6", NOON + 6 * HOUR)  # Ann's message Bob answered
    assert "already answered" in said, said
    said = bob.refuses(texts[2], "X@f6", NOON + 6 * HOUR)  # his own earlier message
    assert "your own message of 2026-01-01 14:00" in said, said


def test_playing_the_other_sides_move_too_is_refused(two: tuple[Machine, Machine]) -> None:
    ann, bob = two
    texts = order_and_chaos(ann, bob)
    said = bob.refuses(texts[-1], "X@f6", NOON + 6 * HOUR)  # Ann's move, on Bob's machine
    assert "Ann's turn" in said and "this machine plays player 2" in said, said
    both = MailGame.parse(texts[-2]).play("O@f1", when=NOON + 6 * HOUR)
    both = both.play("X@f6", when=NOON + 7 * HOUR)  # Bob sends his move and one of Ann's
    said = ann.refuses(reseal(both, NOON + 7 * HOUR), "X@b2", NOON + 8 * HOUR)
    assert "5. order X@f6" in said and "this machine did not make it" in said, said


@pytest.mark.parametrize(
    ("change", "word"),
    [
        ({"time": TimeControl()}, "time control"),
        ({"players": ("Ann", "Eve")}, "players"),
    ],
)
def test_a_changed_header_is_refused(
    two: tuple[Machine, Machine], change: dict[str, object], word: str
) -> None:
    ann, bob = two
    texts = order_and_chaos(ann, bob)
    changed = attrs.evolve(MailGame.parse(texts[-1]), **change)  # type: ignore[arg-type]
    said = ann.refuses(reseal(changed, NOON + 4 * HOUR), "X@b2", NOON + 5 * HOUR)
    assert word in said, said


def test_a_changed_id_is_refused(two: tuple[Machine, Machine]) -> None:
    ann, bob = two
    texts = order_and_chaos(ann, bob)
    changed = attrs.evolve(MailGame.parse(texts[-1]), id=secrets.token_hex(16))
    said = ann.refuses(reseal(changed, NOON + 4 * HOUR), "X@b2", NOON + 5 * HOUR)
    assert "Id" in said and MailGame.parse(texts[0]).id in said, said


def test_another_pairs_game_is_refused(tmp_path: Path, two: tuple[Machine, Machine]) -> None:
    ann, _ = two
    carl, dan = Machine(tmp_path, "carl"), Machine(tmp_path, "dan")
    texts = order_and_chaos(carl, dan)
    said = ann.refuses(texts[-1], "X@b2", NOON + 5 * HOUR)
    assert "this machine has not played" in said, said


def test_a_changed_diagram_is_refused_naming_the_squares(two: tuple[Machine, Machine]) -> None:
    ann, bob = two
    texts = order_and_chaos(ann, bob)
    lines = texts[-1].splitlines()
    rank = next(i for i, line in enumerate(lines) if line.endswith("<---6"))
    lines[rank] = "X" + lines[rank][1:]  # a6 shown with an X that no move put there
    said = ann.refuses("\n".join(lines) + "\n", "X@b2", NOON + 5 * HOUR)
    assert "diagram" in said and "a6" in said, said


# --- the fair draw ----------------------------------------------------------------------------


def entropy_start(ann: Machine, bob: Machine) -> list[str]:
    texts = [ann.new("entropy:size=5", NOON)]
    texts.append(ann.move(texts[-1], "draw", NOON))  # Ann (chaos) commits to draw 1
    texts.append(bob.move(texts[-1], "draw", NOON + HOUR))  # Bob gives his value
    texts.append(ann.move(texts[-1], "random", NOON + 2 * HOUR))  # draws, places, commits
    return texts


def test_chaos_cannot_play_orders_move_on_her_machine(two: tuple[Machine, Machine]) -> None:
    ann, bob = two
    texts = entropy_start(ann, bob)
    said = ann.refuses(texts[-1], "pass", NOON + 3 * HOUR)
    assert "Bob's turn" in said and "this machine plays player 1" in said, said
    assert not [k for k in (ann.home / "mail").glob("*.json") if '"2"' in k.read_text()]


def test_orders_move_made_on_another_machine_of_chaos_is_refused(
    tmp_path: Path, two: tuple[Machine, Machine]
) -> None:
    ann, bob = two
    texts = entropy_start(ann, bob)
    spare = Machine(tmp_path, "ann-spare")  # a key for Order's seat, deleted and made again
    said = spare.refuses(texts[-1], "pass", NOON + 3 * HOUR)  # the shipped program refuses
    assert "this machine has not played this game" in said, said
    order = Keys(tmp_path / "ann-spare-keys")  # so Ann makes Order's move another way
    forged_game = MailGame.parse(texts[-1]).play("pass", when=NOON + 3 * HOUR, keys=order)
    forged = ann.move(reseal(forged_game, NOON + 3 * HOUR), "random", NOON + 4 * HOUR)
    said = bob.refuses(forged, "pass", NOON + 5 * HOUR)
    assert "2. order pass" in said and "this machine did not make it" in said, said


def test_the_first_commitment_made_on_the_wrong_machine_is_refused(
    two: tuple[Machine, Machine],
) -> None:
    ann, bob = two
    text = bob.new("entropy:size=5", NOON, "--me", "2")  # Bob, player 2, makes the game
    said = bob.refuses(text, "draw", NOON)  # and would commit to Ann's first draw
    assert "Ann's turn" in said and "this machine plays player 2" in said, said
    forged = MailGame.parse(text).play("draw", when=NOON, keys=Keys(bob.home / "elsewhere"))
    said = ann.refuses(reseal(forged, NOON), "draw", NOON + HOUR)
    assert "chaos commits 1" in said and "this machine did not make it" in said, said


def test_the_committer_cannot_pick_the_draw_by_changing_her_commitment(
    tmp_path: Path, two: tuple[Machine, Machine]
) -> None:
    ann, bob = two
    texts = [ann.new("entropy:size=5", NOON)]
    texts.append(ann.move(texts[-1], "draw", NOON))
    texts.append(bob.move(texts[-1], "draw", NOON + HOUR))
    game = MailGame.parse(texts[-1])
    given = next(e.text for e in game.entries if e.kind == "gives")
    state = game.replay().state
    for _ in range(500):  # Ann tries keys until draw 1 is red
        key = secrets.token_bytes(32)
        mine = _value(key, game.id, 1, 1)
        if str(_draw(state, game.id, 1, 1, mine, given)) == "R":
            break
    kept = tmp_path / "ann-cheat"
    kept.mkdir()
    (kept / f"{game.id}.json").write_text(f'{{"1": "{key.hex()}"}}')
    entries = list(game.entries)
    entries[0] = attrs.evolve(entries[0], text=commitment(game.id, 1, 1, mine))
    swapped = attrs.evolve(game, entries=tuple(entries))
    played = swapped.play("c3", when=NOON + 2 * HOUR, keys=Keys(kept))
    assert "draw 1: R" in played.render(NOON + 2 * HOUR)
    said = bob.refuses(reseal(played, NOON + 2 * HOUR), "pass", NOON + 3 * HOUR)
    assert "chaos commits 1" in said, said


# --- damage -----------------------------------------------------------------------------------


def long_game(ann: Machine, bob: Machine, plies: int = 25) -> str:
    text = ann.new("orderchaos", NOON)
    for ply in range(plies):
        if "Result:" in text.splitlines()[-1]:
            break
        mover = ann if ply % 2 == 0 else bob
        text = mover.move(text, "random", NOON + (ply + 1) * HOUR)
    return text


@pytest.mark.parametrize(
    "damage",
    [
        lambda t: re.sub(r" +", " ", t),  # HTML-to-text mail collapses runs of spaces
        lambda t: re.sub(r" +", " ", t).replace("\n", "\r\n"),
        lambda t: t.replace("  ", "\N{NO-BREAK SPACE} "),
    ],
    ids=["collapsed", "collapsed-crlf", "no-break"],
)
def test_collapsed_spaces_do_not_lose_moves(two: tuple[Machine, Machine], damage: object) -> None:
    ann, bob = two
    text = long_game(ann, bob)
    moves = sum(e.kind == "move" for e in MailGame.parse(text).entries)
    assert moves > 10
    code, out, err = bob.run("check", "-", "--now", clock(NOON + 30 * HOUR), text=damage(text))  # type: ignore[operator]
    assert code == 0, err
    assert f"{moves} moves checked" in out, out


def test_a_damaged_line_in_the_middle_is_refused_not_cut(two: tuple[Machine, Machine]) -> None:
    ann, bob = two
    text = long_game(ann, bob, plies=12)
    lines = text.splitlines()
    middle = next(i for i, line in enumerate(lines) if line.startswith("6. "))
    lines[middle] = "6. chaos O@" + "\ufffd" * 3
    damaged = "\n".join(lines) + "\n"
    code, out, err = bob.run("check", "-", text=damaged)
    assert code == 1 and f"line {middle + 1}" in err, (out, err)
    del lines[middle + 1 :]  # the e-mail cut short after a line
    code, out, err = bob.run("check", "-", text="\n".join(lines[:middle]) + "\n")
    assert code == 1 and "end" in err, (out, err)
