"""The terminal's pieces without a terminal (`abstractgames.terminal`): boards in colour and in
letters, a person's seat read from scripted lines, the observer's lines for moves made for a
player out of time, and the line editor imported only to play at a terminal."""

from __future__ import annotations

import io
import random
import subprocess
import sys

import pytest

from abstractgames import Move, State, get_game
from abstractgames.players import Player
from abstractgames.terminal import HumanPlayer, LineReader, Session, TerminalObserver, make_console


def _render(state_text: str, game: str, colour: bool) -> str:
    import io

    from abstractgames import get_game
    from abstractgames.terminal import make_console, show_position

    buffer = io.StringIO()
    console = make_console(buffer, colour=colour, force_terminal=True)
    show_position(console, get_game(game).from_position(state_text))
    return buffer.getvalue()


def has_colour(text: str) -> bool:
    """Whether ANSI text sets a foreground or background colour (bold is not a colour)."""
    import re

    for params in re.findall(r"\x1b\[([0-9;]*)m", text):
        codes = [int(p) for p in params.split(";") if p]
        if any(30 <= c <= 49 or 90 <= c <= 107 for c in codes):
            return True
    return False


def test_boards_have_colours_and_letters(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    position = "WKYGRBP/7/7/7/7/7/7 chaos:W"
    assert has_colour(_render(position, "entropy", colour=True))
    plain = _render(position, "entropy", colour=False)
    assert not has_colour(plain)
    assert "W" in plain and "P" in plain  # letters, readable without colour
    monkeypatch.setenv("NO_COLOR", "1")
    assert not has_colour(_render(position, "entropy", colour=True))


def test_no_color_removes_bold_and_dim_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    position = "WKYGRBP/7/7/7/7/7/7 chaos:W"
    assert "\x1b[" in _render(position, "entropy", colour=True)
    assert "\x1b[" not in _render(position, "entropy", colour=False)
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in _render(position, "entropy", colour=True)


# --- a person's seat, lines typed by a test -------------------------------------------------------


class Scripted(LineReader):
    """Lines typed by a test."""

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)

    def read(self, prompt: str, **options: object) -> str:
        return self.lines.pop(0)

    ask = read


def test_a_game_without_a_search_bot_says_there_is_no_hint() -> None:
    from tests.support.toygame import DiceRace

    buffer = io.StringIO()
    session = Session(make_console(buffer, colour=False), reader=Scripted("hint", "add"))
    state = DiceRace().initial_state().apply("roll1")
    move = HumanPlayer(state.game, session).choose(state, random.Random(1))
    assert str(move) == "add"
    assert "no hint: there is no search player for 'dicerace'" in buffer.getvalue()
    assert "0 1 0 first" in buffer.getvalue()  # a game without a board shows its position


# --- the observer ---------------------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Slow(Player):
    """Plays the first legal move after a long think."""

    spec = "slow"

    def __init__(self, clock: FakeClock, seconds: float) -> None:
        self.clock, self.seconds = clock, seconds

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        self.clock.now += self.seconds
        return state.legal_moves()[0]


def test_moves_made_for_a_player_out_of_time_are_one_line() -> None:
    from abstractgames.records import ClockSettings
    from abstractgames.referee import Referee

    clock = FakeClock()
    game = get_game("entropy", size=5)
    players = (Slow(clock, 100.0), Slow(clock, 0.1))
    buffer = io.StringIO()
    session = Session(make_console(buffer, colour=False), clock=clock)
    observer = TerminalObserver(session, players, verbose=True)
    referee = Referee(
        game, players, seed=1, clock=ClockSettings(20.0), single=True, time_source=clock,
        observer=observer,
    )  # fmt: skip
    record = referee.play()
    out = buffer.getvalue()
    assert "player 1 ran out of time" in out
    auto = [m for m in record.games[0].moves if m.auto]
    assert len(auto) == 25  # every placement: the first took too long
    assert out.count("(out of time)") == 1  # one sentence, wrapped to the width
    said = " ".join(out.split("  25 moves played for ")[1].split("meanwhile")[0].split())
    said += " meanwhile"
    assert said.startswith(f"player 1 (slow) (out of time): {auto[0].move}")
    assert said.endswith("; 24 by player 2 (slow) meanwhile")
    assert "plays" not in out  # not one line per move
    assert out.count("    a  b  c  d  e") == 1  # one board: the final position


# --- the line editor ------------------------------------------------------------------------------


def test_the_line_editor_is_imported_only_to_play_at_a_terminal() -> None:
    code = (
        "import sys, abstractgames, abstractgames.terminal, abstractgames.cli; "
        "print('prompt_toolkit' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the one lost
@pytest.mark.parametrize("deadline", [None, 1e12])
def test_a_stop_signal_lost_inside_the_prompts_own_code_still_ends_the_prompt(
    deadline: float | None,
) -> None:
    """Python may run a signal's handler inside a weakref callback (prompt_toolkit's caches have
    them), where what it raises is printed and dropped: the prompt raises it all the same."""
    import asyncio
    import signal
    import weakref

    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from abstractgames.interrupts import Terminated, termination_as_interrupt
    from abstractgames.terminal import LiveReader

    class Cached:
        pass

    def lose_a_signal() -> None:
        lost = Cached()
        watching = weakref.ref(lost, lambda ref: signal.raise_signal(signal.SIGTERM))
        del lost  # the callback runs the handler; its Terminated is "ignored"
        assert watching() is None

    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        reader = LiveReader(colour=False)
        with termination_as_interrupt() as received:

            def soon() -> None:
                asyncio.get_running_loop().call_later(0.2, lose_a_signal)
                asyncio.get_running_loop().call_later(3, keys.send_text, "X@c3\r")

            reader._moves.app.pre_run_callables.append(soon)
            with pytest.raises(Terminated):
                reader.read("order (you)>", deadline=deadline)
        assert received == [signal.SIGTERM]
