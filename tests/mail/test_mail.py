"""Correspondence by text (`abstractgames.mail` and `abstractgames mail`): whole games between
two players who exchange only the text, the draws made by both, tampering refused by line, the
clock, and e-mails that quote, re-wrap and sign the text."""

from __future__ import annotations

import datetime as dt
import json
import re
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames import get_game
from abstractgames.cli import main
from abstractgames.mail import NOON, Keys, MailError, MailGame, TimeControl
from abstractgames.records import MatchRecord

HOUR = dt.timedelta(hours=1)


def clock(at: dt.datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M")


class Player:
    """One person: a data directory of their own (their keys), and the file they keep."""

    def __init__(self, home: Path, name: str) -> None:
        self.home = home / name
        self.file = self.home / "game.txt"
        self.answer = self.home / "game.answer.txt"
        self.home.mkdir(parents=True)

    def run(self, *args: str) -> str:
        result = CliRunner().invoke(
            main,
            ["mail", *args],
            env={"ABSTRACTGAMES_DATA": str(self.home)},
            catch_exceptions=False,
        )
        assert result.exit_code == 0, result.output
        return result.output

    def receive(self, text: str) -> None:
        self.file.write_text(as_reply(text))


def as_reply(text: str, depth: int = 1) -> str:
    """The text as an e-mail reply quotes it: a line above, `> ` before each line, a signature."""
    quoted = "\n".join(("> " * depth + line).rstrip() for line in text.splitlines())
    return f"On Monday, Ann wrote:\n{quoted}\n\nMy move is in.\n-- \nAnn\nsent from my phone\n"


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["orderchaos", "dispersal:max_plies=40", "entropy:size=5"])
def test_two_players_play_a_whole_match_exchanging_only_the_text(tmp_path: Path, spec: str) -> None:
    ann, bob = Player(tmp_path, "ann"), Player(tmp_path, "bob")
    at = NOON
    text = ann.run(
        "new", spec, "-1", "Ann", "-2", "Bob", "--time", "3 days a move", "--now", clock(at)
    )
    players = {1: ann, 2: bob}
    for _ in range(400):
        game = MailGame.parse(text)
        turn = game.replay(at).turn
        if turn.seat is None:
            break
        at += 5 * HOUR
        mover = players[turn.seat]
        mover.receive(text)
        mover.run("move", str(mover.file), "--bot", "random", "--now", clock(at))
        assert mover.file.read_text().startswith("On Monday")  # the e-mail received is kept
        text = mover.answer.read_text()
        assert text.startswith("abstractgames correspondence game")  # the clean text, beside
    else:
        pytest.fail("the match did not end")
    out = ann.run(
        "check", str(mover.answer), "--record", str(tmp_path / "record.json"), "--now", clock(at)
    )
    assert "checked: every one follows the rules" in out and "Result: " in out
    record = MatchRecord.load(tmp_path / "record.json")
    record.replay()  # the record is the match, move for move, draws included
    assert record.finished and record.result is not None
    assert f"({record.result.reason})" in out
    if spec.startswith("entropy"):
        assert len(record.games) == 2 and all(len(g.moves) > 25 for g in record.games)
        assert re.search(r"^draw 1: [A-Z]$", text, re.M)
        # each player kept their own key alone, and no key is in the text
        for seat, player in players.items():
            (kept,) = (player.home / "mail").glob("?" * 32 + ".json")
            key = json.loads(kept.read_text())
            assert list(key) == [str(seat)] and key[str(seat)] not in text


def entropy_game(tmp_path: Path, plies: int = 6) -> tuple[MailGame, dict[int, Keys]]:
    """A game of 5×5 Entropy after a few moves, played through the library."""
    keys = {1: Keys(tmp_path / "ann"), 2: Keys(tmp_path / "bob")}
    game = MailGame.new(get_game("entropy", size=5), ("Ann", "Bob"), when=NOON)
    at = NOON
    for _ in range(plies):
        turn = game.replay(at).turn
        assert turn.seat is not None
        at += HOUR
        move = game.choose("random", keys=keys[turn.seat], now=at)
        game = game.play(move, when=at, keys=keys[turn.seat])
    return game, keys


def tampered(game: MailGame, old: str, new: str) -> str:
    text = game.render(NOON + 100 * HOUR)
    assert old in text, old
    return text.replace(old, new, 1)


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if needle in line)


def test_a_draw_is_made_by_both_and_checked_by_both(tmp_path: Path) -> None:
    game, _ = entropy_game(tmp_path)
    text = game.render(NOON)
    commits = re.findall(r"^chaos commits (\d+): ([0-9a-f]{32})", text, re.M)
    gives = re.findall(r"^order gives (\d+): ([0-9a-f]{32})", text, re.M)
    reveals = re.findall(r"^chaos reveals (\d+): ([0-9a-f]{32})", text, re.M)
    assert commits and gives and reveals
    # the key is kept by its player alone, readable by them only
    (path,) = (tmp_path / "ann").glob("?" * 32 + ".json")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()).keys() == {"1"}
    assert MailGame.parse(text).replay().draws == len(reveals)


def test_a_changed_value_a_reused_one_and_a_forged_draw_are_refused(tmp_path: Path) -> None:
    game, _ = entropy_game(tmp_path)
    text = game.render(NOON)
    revealed = re.search(r"^chaos reveals 1: ([0-9a-f]{32})", text, re.M)
    assert revealed is not None
    changed = text.replace(revealed.group(1), "0" * 32, 1)
    with pytest.raises(
        MailError, match=rf"line {line_of(changed, 'reveals 1')}: this is not the value"
    ):
        MailGame.parse(changed).replay()
    drawn = re.search(r"^draw 1: ([A-Z])$", text, re.M)
    assert drawn is not None
    other = "W" if drawn.group(1) != "W" else "K"
    forged = text.replace(f"draw 1: {drawn.group(1)}", f"draw 1: {other}", 1)
    with pytest.raises(MailError, match=rf"line {line_of(forged, 'draw 1:')}: the draw is "):
        MailGame.parse(forged).replay()
    first = re.search(r"^chaos commits 1: ([0-9a-f]{32})", text, re.M)
    second = re.search(r"^chaos commits 2: ([0-9a-f]{32})", text, re.M)
    assert first is not None and second is not None
    reused = text.replace(second.group(1), first.group(1), 1)
    with pytest.raises(MailError, match="was sent before: a value serves one draw"):
        MailGame.parse(reused).replay()


def test_only_the_committers_machine_can_make_the_draw(tmp_path: Path) -> None:
    game, keys = entropy_game(
        tmp_path, plies=2
    )  # Ann committed, Bob gave his value: Ann's to draw and place
    turn = game.replay(NOON + 2 * HOUR).turn
    assert turn.seat == 1
    with pytest.raises(MailError, match=r"it is Ann's turn .player 1., and their key .* not on"):
        game.choose("random", keys=keys[2], now=NOON + 2 * HOUR)
    # Bob's machine shows the position before the draw, Ann's the counter she is to place
    assert game.current(keys=keys[2], now=NOON + 2 * HOUR).to_move == "chance"
    drawn = game.current(keys=keys[1], now=NOON + 2 * HOUR)
    assert drawn.to_move == "chaos" and drawn.position().split()[-1].startswith("chaos:")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("2. order", "2. chaos", "is to move"),
        ("1. chaos", "2. chaos", "this is move 1 of game 1, not 2"),
        ("Game: entropy:size=5", "Game: chess", "unknown game 'chess'"),
        ("Id: ", "Id: zz", "the Id is not 32 hexadecimal digits"),
    ],
)
def test_a_tampered_or_mistyped_list_is_refused_naming_the_line(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    game, _ = entropy_game(tmp_path)
    with pytest.raises(MailError, match=message):
        MailGame.parse(tampered(game, old, new)).replay()


def test_a_move_the_rules_refuse_names_its_line() -> None:
    game = MailGame.new(get_game("orderchaos"), ("Ann", "Bob"), when=NOON)
    game = game.play("X@c3", when=NOON + HOUR).play("O@d4", when=NOON + 2 * HOUR)
    text = game.render(NOON + 2 * HOUR).replace("2. chaos O@d4", "2. chaos O@c3")
    with pytest.raises(
        MailError, match=rf"line {line_of(text, '2. chaos')}: O@c3 cannot be played"
    ):
        MailGame.parse(text).replay()
    with pytest.raises(MailError, match="cannot be played"):
        game.play("X@d4", when=NOON + 3 * HOUR)


def test_running_out_of_time_loses_the_match() -> None:
    game = MailGame.new(
        get_game("orderchaos"), ("Ann", "Bob"), time=TimeControl(1, 3), when=NOON
    ).play("X@c3", when=NOON + HOUR)
    late = NOON + HOUR + dt.timedelta(days=1, minutes=1)
    replay = game.replay(late)
    result = replay.match.result()
    assert replay.turn.seat is None and result is not None and result.winner == 1
    assert "ran out of time" in result.reason
    with pytest.raises(MailError, match="the match is over"):
        game.play("O@d4", when=late)
    text = game.render(late)
    assert text.rstrip().endswith("Result: Ann wins (player 2 ran out of time)")
    # a move written late is refused when the list is read again
    forged = game.play("O@d4", when=NOON + 2 * HOUR).render(NOON + 2 * HOUR)
    forged = forged.replace(clock(NOON + 2 * HOUR), clock(late), 1)
    with pytest.raises(MailError, match="player 2 ran out of time"):
        MailGame.parse(forged).replay(late)


def test_in_entropy_losing_on_time_loses_the_whole_match(tmp_path: Path) -> None:
    keys = {1: Keys(tmp_path / "a"), 2: Keys(tmp_path / "b")}
    game = MailGame.new(get_game("entropy", size=5), ("Ann", "Bob"), time=TimeControl(2), when=NOON)
    game = game.play("draw", when=NOON, keys=keys[1])  # Ann commits to the first draw
    late = NOON + dt.timedelta(days=3)
    result = game.replay(late).match.result()
    assert result is not None and result.winner == 1 and "player 2 ran out of time" in result.reason


def test_check_says_whose_move_it_is_and_how_long_each_has_had(tmp_path: Path) -> None:
    ann = Player(tmp_path, "ann")
    ann.run(
        "new",
        "dispersal",
        "-1",
        "Ann",
        "-2",
        "Bob",
        "--time",
        "2 days a move, at most 20 days a game",
        "--now",
        clock(NOON),
        "-o",
        str(ann.file),
    )
    ann.run("move", str(ann.file), "a2-b3", "--now", clock(NOON + 5 * HOUR))
    out = ann.run("check", str(ann.answer), "--now", clock(NOON + 8 * HOUR))
    assert "1 move checked" in out
    assert "game 1: Ann has had 5 hours, Bob no time" in out
    assert "Next: Bob (S) to move" in out
    assert "waiting since 2026-01-01 17:00 UTC (3 hours); left: 1 day 21 hours for this move" in out


@settings(max_examples=25)
@given(
    depth=st.integers(1, 3),
    indent=st.sampled_from(["", "    ", "\t"]),
    width=st.sampled_from([None, 72, 60]),
    moves=st.integers(0, 8),
)
def test_the_text_is_read_back_through_quoting_rewrapping_and_signatures(
    depth: int, indent: str, width: int | None, moves: int
) -> None:
    game = MailGame.new(get_game("orderchaos"), ("Ann", "Bob"), when=NOON)
    for ply, move in enumerate(
        ["X@c3", "O@d4", "X@e5", "O@a1", "X@b2", "O@f6", "X@a6", "O@f1"][:moves]
    ):
        game = game.play(move, when=NOON + (ply + 1) * HOUR)
    lines = []
    for line in game.render(NOON).splitlines():
        quoted = indent + "> " * depth + line
        while width is not None and len(quoted) > width and " " in quoted[:width]:
            cut = quoted.rindex(" ", 0, width)
            lines.append(quoted[:cut])
            quoted = quoted[cut + 1 :]
        lines.append(quoted)
    mail = "Here is my reply, above the quote.\n\n" + "\n".join(lines) + "\n-- \nBob\n"
    assert MailGame.parse(mail).entries == tuple(
        e for e in MailGame.parse(game.render(NOON)).entries
    )


def test_an_email_with_the_quoted_game_before_takes_the_newest() -> None:
    before = MailGame.new(get_game("orderchaos"), ("Ann", "Bob"), when=NOON)
    after = before.play("X@c3", when=NOON + HOUR)
    mail = after.render() + "\n" + as_reply(before.render())
    assert MailGame.parse(mail).entries == MailGame.parse(after.render()).entries
    other = MailGame.new(get_game("orderchaos"), ("Ann", "Bob"), when=NOON)
    with pytest.raises(MailError, match="two different games"):
        MailGame.parse(after.render() + other.render())


def test_hostile_texts_get_one_clear_error() -> None:
    with pytest.raises(MailError, match="no game in this text"):
        MailGame.parse("hello\nworld\n")
    with pytest.raises(MailError, match="too long"):
        MailGame.parse("x" * (10 * 1024 * 1024))
    good = MailGame.new(get_game("orderchaos"), ("Ann", "Bob"), when=NOON).render()
    with pytest.raises(MailError, match="has no 'Player 2' line"):
        MailGame.parse(good.replace("Player 2: Bob\n", ""))
    with pytest.raises(MailError, match="bad time control"):
        MailGame.parse(good.replace("Time: none", "Time: soon"))


def test_a_game_against_a_bot_by_email(tmp_path: Path) -> None:
    me = Player(tmp_path, "me")
    me.run(
        "new",
        "orderchaos",
        "-1",
        "Me",
        "-2",
        "search:depth=1",
        "--me",
        "both",
        "-o",
        str(me.file),
        "--now",
        clock(NOON),
    )
    me.run("move", str(me.file), "X@c3", "--now", clock(NOON + HOUR))
    out = me.run("move", str(me.answer), "--bot", "search:depth=1", "--now", clock(NOON + 2 * HOUR))
    assert out.startswith("played ") and "Next: Me (order) to move" in out
    cells = MailGame.load(me.answer).replay().state.cells()
    assert len(cells) - cells.count(".") == 2


def test_a_game_may_start_from_a_position(tmp_path: Path) -> None:
    me = Player(tmp_path, "me")
    me.run(
        "new",
        "dispersal",
        "--position",
        "S1O1S/O3O/OSSOS/S4/2OOS O",
        "-o",
        str(me.file),
        "--now",
        clock(NOON),
    )
    text = me.file.read_text()
    assert "Start: S1O1S/O3O/OSSOS/S4/2OOS O" in text
    assert MailGame.parse(text).replay().state.position() == "S1O1S/O3O/OSSOS/S4/2OOS O"


def run_mail(home: Path, *args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        main, ["mail", *args], env={"ABSTRACTGAMES_DATA": str(home)}, input=input
    )
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_the_drawn_counter_is_shown_on_the_committers_machine_only(tmp_path: Path) -> None:
    ann, bob = tmp_path / "ann", tmp_path / "bob"
    code, text, _ = run_mail(ann, "new", "entropy:size=5", "-1", "Ann", "-2", "Bob")
    assert code == 0 and "Next: Ann (chaos) to commit to the next draw" in text
    assert not list((ann / "mail").glob("?" * 32 + ".json"))  # creating a game makes no key
    code, text, said = run_mail(ann, "move", "-", "draw", input=text)
    assert code == 0 and said.startswith("sent a commitment to draw 1"), said
    assert "Next: Bob (order) to give a value for the next draw" in text
    code, text, said = run_mail(bob, "move", "-", "draw", input=as_reply(text))
    assert code == 0 and said.startswith("sent a value for draw 1"), said
    assert "Next: Ann (chaos) to move, after draw 1" in text
    code, shown, _ = run_mail(ann, "show", "-", "--no-color", input=text)
    assert code == 0 and "your draw: chaos to place " in shown
    colour = shown.split("your draw: chaos to place ")[1][0]
    code, shown, _ = run_mail(bob, "show", "-", "--no-color", input=text)
    assert code == 0 and "your draw" not in shown
    code, _, said = run_mail(bob, "move", "-", "c3", input=text)
    assert code == 1 and "it is Ann's turn" in said
    code, text, said = run_mail(ann, "move", "-", "c3", input=as_reply(text, depth=2))
    assert code == 0 and said.startswith(
        f"played draw 1: {colour}, the value of draw 1, 1. chaos {colour}@c3"
    )


def test_a_tampered_file_is_refused_at_the_command_line_and_left_alone(tmp_path: Path) -> None:
    home = tmp_path / "me"
    file = tmp_path / "game.txt"
    new = ["new", "orderchaos", "-1", "Me", "-2", "You", "--me", "both", "-o", str(file)]
    assert run_mail(home, *new)[0] == 0
    assert run_mail(home, "move", str(file), "X@c3", "-o", str(file))[0] == 0
    assert run_mail(home, "move", str(file), "O@d4", "-o", str(file))[0] == 0
    bad = file.read_text().replace("2. chaos O@d4", "2. chaos O@c3")
    file.write_text(bad)
    for command in (["move", str(file), "X@a1"], ["check", str(file)], ["show", str(file)]):
        code, out, err = run_mail(home, *command)
        assert code == 1 and "line " in err and "O@c3 cannot be played" in err, err
        assert "Traceback" not in out + err
    assert file.read_text() == bad  # nothing is lost or rewritten
    code, _, err = run_mail(home, "move", str(file), "X@a1", "--bot", "random")
    assert code == 2 and "not both" in err
