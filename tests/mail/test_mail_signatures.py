"""Signatures for third parties (the `mail` extra): each player's program signs every line its
player writes with their key, through the real command on two machines with two data
directories; a tournament director given only the final text checks who played each move
(`mail check --signatures`); a stripped, forged, re-signed or moved line, or a swapped key, is
refused naming the line; and without the extra the game goes on unsigned and says so."""

from __future__ import annotations

import datetime as dt
import re
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

from abstractgames.cli import main
from abstractgames.mail import NOON, MailGame
from abstractgames.mail_signatures import Identity

HOUR = dt.timedelta(hours=1)
HIDDEN = "cryptography.hazmat.primitives.asymmetric.ed25519"


def clock(at: dt.datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M")


@contextmanager
def without_extra(hidden: bool) -> Iterator[None]:
    """The `cryptography` library hidden, as on a machine without the `mail` extra."""
    if not hidden:
        yield
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, HIDDEN, None)
        yield


class Machine:
    """One player's computer: a data directory of its own, with or without the `mail` extra."""

    def __init__(self, tmp_path: Path, name: str, *, extra: bool = True) -> None:
        self.home = tmp_path / name
        self.extra = extra

    def run(self, *args: str, text: str | None = None) -> tuple[int, str, str]:
        with without_extra(not self.extra):
            result = CliRunner().invoke(
                main, ["mail", *args], env={"ABSTRACTGAMES_DATA": str(self.home)}, input=text
            )
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        assert "Traceback" not in result.output
        return result.exit_code, result.stdout, result.stderr

    def new(self, spec: str, *more: str) -> tuple[str, str]:
        code, out, err = self.run(
            "new", spec, "-1", "Ann", "-2", "Bob", *more, "--now", clock(NOON)
        )
        assert code == 0, err
        return out, err

    def move(self, text: str, move: str, at: dt.datetime) -> tuple[str, str]:
        args = ["--bot", "random"] if move == "random" else [move]
        code, out, err = self.run("move", "-", *args, "--now", clock(at), "-o", "-", text=text)
        assert code == 0, err
        return out, err

    def refuses(self, text: str, move: str, at: dt.datetime) -> str:
        code, out, err = self.run("move", "-", move, "--now", clock(at), "-o", "-", text=text)
        assert code == 1, (code, out, err)
        return err

    def identity(self) -> Identity:
        return Identity(self.home / "mail")


def third_party(text: str) -> tuple[int, str, str]:
    """`mail check --signatures` by someone who played none of it (no data directory)."""
    result = CliRunner().invoke(main, ["mail", "check", "--signatures", "-"], input=text)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stdout, result.stderr


def quoted(text: str) -> str:
    body = "\n".join(f"> {line}".rstrip() for line in text.splitlines())
    return f"On Monday, Ann wrote:\n{body}\n\n-- \nAnn\n"


def wrapped(text: str, width: int = 60) -> str:
    out = []
    for line in text.splitlines():
        line = "> > " + line
        while len(line) > width and " " in line[:width]:
            cut = line.rindex(" ", 0, width)
            out.append(line[:cut])
            line = "> > " + line[cut + 1 :]
        out.append(line)
    return "\n".join(out) + "\n"


STYLES: list[Callable[[str], str]] = [
    quoted,
    wrapped,
    lambda t: re.sub(r" +", " ", t).replace("\n", "\r\n"),  # collapsed spaces, CRLF
    lambda t: t.replace("  ", "\N{NO-BREAK SPACE} "),
]

MOVES = ["X@c3", "O@d4", "X@e5", "O@a1", "X@b2"]


def honest(ann: Machine, bob: Machine, moves: int = 5) -> list[str]:
    """A game of Order and Chaos, each message through another e-mail style."""
    texts = [ann.new("orderchaos")[0]]
    for ply, move in enumerate(MOVES[:moves]):
        mover = ann if ply % 2 == 0 else bob
        mail = STYLES[ply % len(STYLES)](texts[-1])
        texts.append(mover.move(mail, move, NOON + (ply + 1) * HOUR)[0])
    return texts


@pytest.fixture
def two(tmp_path: Path) -> tuple[Machine, Machine]:
    return Machine(tmp_path, "ann"), Machine(tmp_path, "bob")


def resealed(game: MailGame) -> str:
    """The text a cheater writes with the library (its end line made to fit)."""
    return attrs.evolve(game, shown=()).render(NOON + 10 * HOUR)


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if needle in line)


def test_a_signed_game_in_every_email_style_names_who_played_each_move(
    two: tuple[Machine, Machine],
) -> None:
    ann, bob = two
    texts = honest(ann, bob)
    game = MailGame.parse(texts[-1])
    assert all(key and key.startswith("ed25519:") for key in game.keys)
    assert all(entry.sig for entry in game.entries)
    assert re.search(r"^Key player 2: ed25519:[\w-]{43}$", texts[-1], re.M)
    assert re.search(r"^sig: [\w-]{43} [\w-]{43}$", texts[-1], re.M)
    assert stat.S_IMODE((ann.home / "mail" / "signing-key.pem").stat().st_mode) == 0o600
    code, out, err = third_party(quoted(texts[-1]))
    assert code == 0, err
    for ply, move in enumerate(MOVES):
        who = "Ann" if ply % 2 == 0 else "Bob"
        assert re.search(rf"^line \d+: {ply + 1}\. \w+ {move}, signed by {who}$", out, re.M), out
    assert f"player 1 (Ann): {game.keys[0]}" in out and "5 lines signed" in out
    # the key is the player's, the same in their next game
    assert MailGame.parse(ann.new("dispersal")[0]).keys[0] == game.keys[0]


def test_entropys_draws_are_signed_by_whoever_sent_each_step(
    two: tuple[Machine, Machine],
) -> None:
    ann, bob = two
    text = ann.new("entropy:size=5")[0]
    text = ann.move(text, "draw", NOON)[0]
    text = bob.move(quoted(text), "draw", NOON + HOUR)[0]
    text = ann.move(wrapped(text), "random", NOON + 2 * HOUR)[0]
    code, out, err = third_party(text)
    assert code == 0, err
    assert re.search(r"chaos commits 1: \w+, signed by Ann$", out, re.M), out
    assert re.search(r"order gives 1: \w+, signed by Bob$", out, re.M), out
    assert re.search(r"draw 1: \w \(made by the two values\)$", out, re.M), out
    assert re.search(r"chaos reveals 1: \w+, signed by Ann$", out, re.M), out


@pytest.mark.parametrize("change", ["stripped", "forged"])
def test_a_stripped_or_forged_signature_is_refused_naming_the_line(
    two: tuple[Machine, Machine], change: str
) -> None:
    ann, bob = two
    texts = honest(ann, bob, moves=4)
    game = MailGame.parse(texts[-1])
    entries = list(game.entries)
    index = 3  # Bob's last move, which Ann is to answer
    entries[index] = attrs.evolve(entries[index], sig=None if change == "stripped" else "A" * 86)
    forged = resealed(attrs.evolve(game, entries=tuple(entries)))
    line = line_of(forged, "4. chaos O@a1")
    said = ann.refuses(forged, "X@b2", NOON + 5 * HOUR)
    assert f"line {line}: '4. chaos O@a1'" in said, said
    assert ("is not signed" if change == "stripped" else "does not carry") in said, said
    code, _, err = third_party(forged)
    assert code == 1 and f"line {line}: " in err and len(err.splitlines()) == 1, err
    assert ann.move(texts[-1], "X@b2", NOON + 5 * HOUR)  # the genuine text still plays


def test_a_line_signed_by_the_other_players_key_is_refused(two: tuple[Machine, Machine]) -> None:
    ann, bob = two
    texts = honest(ann, bob, moves=4)
    game = MailGame.parse(texts[-1])
    keys = game.keys
    game = attrs.evolve(game, keys=(None, keys[1])).play("X@f6", when=NOON + 4 * HOUR)
    game = attrs.evolve(game, keys=keys)  # Ann's move, made by Bob
    last = len(game.entries) - 1
    signed = attrs.evolve(game.entries[last], sig=bob.identity().sign(game.signed_message(last)))
    forged = resealed(attrs.evolve(game, entries=(*game.entries[:last], signed)))
    line = line_of(forged, "5. order X@f6")
    code, _, err = third_party(forged)
    assert code == 1 and f"line {line}: '5. order X@f6' does not carry player 1 (Ann)'s" in err
    said = ann.refuses(forged, "X@b2", NOON + 5 * HOUR)
    assert f"line {line}: " in said, said


def test_a_swapped_public_key_is_refused(tmp_path: Path, two: tuple[Machine, Machine]) -> None:
    ann, bob = two
    texts = honest(ann, bob, moves=3)
    eve = Identity(tmp_path / "eve")  # between Ann and Bob, Eve signs Ann's lines as her own
    game = MailGame.parse(texts[-1])
    game = attrs.evolve(game, keys=(eve.public, game.keys[1]))
    entries = list(game.entries)
    for index, entry in enumerate(entries):
        if game.seat_of(entry) == 1:
            entries[index] = attrs.evolve(entry, sig=eve.sign(game.signed_message(index)))
            game = attrs.evolve(game, entries=tuple(entries))
    swapped = resealed(game)
    said = bob.refuses(swapped, "O@a1", NOON + 4 * HOUR)
    assert f"line {line_of(swapped, 'Key player 1')}: player 1 (Ann)'s key" in said, said
    assert "a changed key is refused" in said, said
    code, _, err = third_party(swapped)  # Bob's signature covers Ann's line as signed before
    assert code == 1 and "does not carry player 2 (Bob)'s signature" in err, err


def test_lines_reordered_are_refused(two: tuple[Machine, Machine]) -> None:
    ann, bob = two
    texts = honest(ann, bob)
    game = MailGame.parse(texts[-1])
    first, third = game.entries[0], game.entries[2]  # Ann's X@c3 and X@e5, swapped
    entries = list(game.entries)
    entries[0] = attrs.evolve(first, text=third.text, sig=third.sig)
    entries[2] = attrs.evolve(third, text=first.text, sig=first.sig)
    moved = resealed(attrs.evolve(game, entries=tuple(entries)))
    assert MailGame.parse(moved).replay().turn.seat == 2  # the rules allow it
    code, _, err = third_party(moved)
    assert code == 1 and f"line {line_of(moved, '1. order X@e5')}: " in err, err
    assert "does not carry player 1 (Ann)'s signature" in err, err
    said = bob.refuses(moved, "O@f1", NOON + 6 * HOUR)
    assert f"line {line_of(moved, '1. order X@e5')}: " in said, said


def test_without_the_extra_the_game_plays_unsigned_and_says_so_once(tmp_path: Path) -> None:
    ann, bob = Machine(tmp_path, "ann", extra=False), Machine(tmp_path, "bob", extra=False)
    text, said = ann.new("orderchaos")
    assert "does not sign" in said and "abstractgames[mail]" in said, said
    text, said = ann.move(text, "X@c3", NOON + HOUR)
    assert "sign" not in said, said  # said once
    text, said = bob.move(quoted(text), "O@d4", NOON + 2 * HOUR)
    assert "does not sign" in said, said
    assert "Key player" not in text and "sig:" not in text
    code, _, err = third_party(text)
    assert code == 1 and "not signed" in err, err
    with without_extra(True):
        code, _, err = third_party(text)
    assert code == 1 and "needs the cryptography library" in err, err


def test_a_player_without_the_extra_plays_on_unsigned_beside_one_who_signs(
    tmp_path: Path,
) -> None:
    ann, bob = Machine(tmp_path, "ann"), Machine(tmp_path, "bob", extra=False)
    text = ann.new("orderchaos")[0]
    text = ann.move(text, "X@c3", NOON + HOUR)[0]
    text, said = bob.move(text, "O@d4", NOON + 2 * HOUR)  # Ann's signature unchecked here
    assert "does not sign" in said, said
    text, said = ann.move(text, "X@e5", NOON + 3 * HOUR)
    assert "Bob's program does not sign" in said, said
    game = MailGame.parse(text)
    assert game.keys[1] is None and [bool(e.sig) for e in game.entries] == [True, False, True]
    code, _, err = third_party(text)
    assert code == 1 and "player 2 (Bob) did not sign" in err, err


def test_a_signed_game_cannot_go_on_unsigned(two: tuple[Machine, Machine]) -> None:
    ann, bob = two
    texts = honest(ann, bob, moves=4)  # Ann has had Bob's key since his first move
    game = MailGame.parse(texts[-1])
    bare = [attrs.evolve(e, sig=None) if game.seat_of(e) == 2 else e for e in game.entries]
    stripped = resealed(attrs.evolve(game, keys=(game.keys[0], None), entries=tuple(bare)))
    said = ann.refuses(stripped, "X@b2", NOON + 5 * HOUR)
    assert "no key for player 2 (Bob), whose lines in this game are signed" in said, said
    ann.extra = False  # Ann's machine loses the extra: her next move cannot go unsigned
    said = ann.refuses(texts[-1], "X@b2", NOON + 5 * HOUR)
    assert "player 1 (Ann) signs their lines" in said and "abstractgames[mail]" in said, said
