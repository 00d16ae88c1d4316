"""The "Play by e-mail" page is real: its game texts replay through the rules (the Entropy draws
verified), Fig. 1 reads as the start, and its sessions are what the commands print."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from abstractgames import get_game
from abstractgames.cli import main
from abstractgames.grid import read_position
from abstractgames.mail import FORMAT, MailGame

PAGE = Path(__file__).resolve().parents[2] / "docs" / "mail.md"
BLOCK = re.compile(r"```(?P<kind>text|console)\n(?P<body>.*?)```", re.DOTALL)
COLOUR = re.compile(r"\b[WKYGRBP]\d?\b")


def blocks(kind: str) -> list[str]:
    return [m["body"] for m in BLOCK.finditer(PAGE.read_text()) if m["kind"] == kind]


def sessions() -> list[list[tuple[list[str], list[str]]]]:
    """Each console block: its commands, each with the lines it prints."""
    found = []
    for body in blocks("console"):
        steps: list[tuple[list[str], list[str]]] = []
        for line in body.replace("\\\n", "").splitlines():
            if line.startswith("$ abstractgames "):
                steps.append((shlex.split(line)[2:], []))
            else:
                steps[-1][1].append(line.rstrip())
        found.append(steps)
    return found


class Person:
    def __init__(self, home: Path) -> None:
        self.home = home
        home.mkdir()

    def run(self, args: list[str], now: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
        monkeypatch.chdir(self.home)
        result = CliRunner().invoke(
            main, [*args, "--now", now], env={"ABSTRACTGAMES_DATA": str(self.home / "data")}
        )
        return [line.rstrip() for line in result.output.splitlines()]


def e_mail(text: str, to: Path) -> None:
    quoted = "\n".join(f"> {line}".rstrip() for line in text.splitlines())
    to.write_text(f"Hi, my move:\n\n{quoted}\n\n-- \nAnn\n")


def test_fig_1_as_pasted_is_the_start() -> None:
    fig = blocks("text")[1]
    assert read_position(get_game("dispersal"), fig) == get_game("dispersal").initial_state()


def test_every_game_text_on_the_page_replays() -> None:
    texts = [text for text in blocks("text") if text.startswith(FORMAT)]
    assert [MailGame.parse(text).game.name for text in texts] == ["dispersal", "entropy"]
    for text in texts:
        game = MailGame.parse(text)
        replay = game.replay()
        assert replay.turn.seat is not None
    entropy = MailGame.parse(texts[1])
    assert sum(entry.kind == "reveals" for entry in entropy.entries) == 2  # checked draws


def test_the_sessions_are_what_the_commands_print(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start, answer, reply, check, signed, _bot, e_start, e_give, e_show = sessions()
    ann, bob = Person(tmp_path / "ann"), Person(tmp_path / "bob")
    (ann.home / "fig1.txt").write_text(blocks("text")[1])
    times = iter(["2026-12-01 09:00", "2026-12-01 09:05"])
    for args, shown in start:
        assert ann.run(args, next(times), monkeypatch) == shown
    sent = (ann.home / "game.answer.txt").read_text()
    page = blocks("text")[2]
    made = (r"Id: \w+", r"checksum \w+", r"ed25519:[\w-]+", r"sig: .*")
    for made_anew in made:  # the Id, the key and the signature are new each time, so the checksum
        was, now = re.search(made_anew, page), re.search(made_anew, sent)
        assert was is not None and now is not None
        page = page.replace(was[0], now[0])
    assert sent.startswith(page)
    e_mail(sent, bob.home / "reply.txt")
    for args, shown in answer:
        assert bob.run(args, "2026-12-02 18:30", monkeypatch) == shown
    e_mail((bob.home / "reply.answer.txt").read_text(), ann.home / "reply.txt")
    for args, shown in check:
        assert ann.run(args, "2026-12-02 21:00", monkeypatch) == shown
    for args, shown in reply:
        assert ann.run(args, "2026-12-02 21:10", monkeypatch) == shown
    (ann.home / "final.txt").write_text((bob.home / "reply.answer.txt").read_text())
    key = re.compile(r"ed25519:[\w-]+")  # each player's key is their own
    for args, shown in signed:
        real = ann.run(args, "2026-12-02 21:20", monkeypatch)
        assert [key.sub("K", line) for line in real] == [key.sub("K", s) for s in shown]

    ann, bob = Person(tmp_path / "ann2"), Person(tmp_path / "bob2")
    for args, shown in e_start:
        assert ann.run(args, "2026-12-01 09:00", monkeypatch) == shown
    e_mail((ann.home / "game.answer.txt").read_text(), bob.home / "reply.txt")
    for args, shown in e_give:
        assert bob.run(args, "2026-12-01 12:00", monkeypatch) == shown
    e_mail((bob.home / "reply.answer.txt").read_text(), ann.home / "reply.txt")
    for args, shown in e_show:  # the colour drawn is the keys', new each time
        real = ann.run(args, "2026-12-01 13:00", monkeypatch)
        assert [COLOUR.sub("C", line) for line in real] == [COLOUR.sub("C", s) for s in shown]
