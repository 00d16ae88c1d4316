"""Text diagrams: every position reads back from its diagram as e-mail mangles it, Carreno's FAQ
figures read as printed, hostile diagrams give one clear error, several positions in one text,
and the side-to-move lines of each game."""

from __future__ import annotations

import re
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames import InvalidPositionError, State, parse_game_spec
from abstractgames.dispersal import PASS, DispersalState
from abstractgames.grid import (
    MAX_POSITION_TEXT,
    MAX_POSITIONS_TEXT,
    diagram,
    grid_of,
    read_position,
    read_positions,
)
from abstractgames.registry import solver_for
from abstractgames.solvers.dispersal import Solution
from abstractgames.testing import states
from tests.conftest import examples

SPECS = ("entropy", "entropy:size=5", "orderchaos", "dispersal")
DISPERSAL = parse_game_spec("dispersal")
START = diagram(DISPERSAL.initial_state())


# --- what e-mail does to a diagram ----------------------------------------------------------------


def quoted(text: str, mark: str = ">") -> str:
    """As a reply quotes it: `> ` before each line, `>` alone on a blank one."""
    return "\n".join(f"{mark} {line}" if line else mark for line in text.splitlines())


def rewrapped(text: str) -> str:
    """As an e-mail program re-wraps it: each paragraph filled to 72 columns."""
    return "\n\n".join(textwrap.fill(paragraph, 72) for paragraph in text.split("\n\n"))


def in_a_letter(text: str) -> str:
    above = (
        "Dear Augustine,\n\nhere is the position after my move, which took me the whole weekend "
        "to find; please check that I copied it right before you answer.\n\n"
    )
    return f"{above}{text}\n\nNice to play with you.\n\n-- \nAlbert Sobel\n"


MANGLINGS: dict[str, Callable[[str], str]] = {
    "as printed": lambda text: text,
    "quoted": quoted,
    "quoted twice": lambda text: quoted(text, ">>"),
    "quoted in a quote": lambda text: quoted(quoted(text)),
    "indented": lambda text: textwrap.indent(text, "        "),
    "indented with a tab": lambda text: textwrap.indent(text, "\t"),
    "in a letter": in_a_letter,
    "re-wrapped": lambda text: rewrapped(in_a_letter(text)),
    "re-wrapped and quoted": lambda text: quoted(rewrapped(in_a_letter(text))),
    "windows line ends": lambda text: text.replace("\n", "\r\n"),
}


@pytest.mark.parametrize("spec", SPECS)
@settings(max_examples=examples(15))
@given(data=st.data())
def test_every_reached_position_reads_back_from_its_diagram(spec: str, data: st.DataObject) -> None:
    game = parse_game_spec(spec)
    state = data.draw(states(game))
    text = diagram(state)
    for name, mangle in MANGLINGS.items():
        read = read_position(game, mangle(text))
        assert read == state, name
        assert read.position() == state.position(), name
    assert rewrapped(text) == text
    assert max(len(line) for line in quoted(quoted(text)).splitlines()) <= 72
    assert game.side_field(game.side_line(state)) == state.position().rsplit(maxsplit=1)[-1]


def test_a_diagram_is_the_faq_layout() -> None:
    lines = START.splitlines()
    assert lines[0] == "S     S     S     S     S  <---5"
    assert lines[1] == ""  # a blank line between ranks: re-wrapping leaves the ranks alone
    assert lines[-3:] == ["a     b     c     d     e", "", "O to move"]


def test_diagrams_without_blank_lines_would_not_survive_re_wrapping() -> None:
    """Why diagram() writes blank lines: re-wrapped, ranks on consecutive lines run together."""
    dense = "\n".join(line for line in START.splitlines() if line)
    with pytest.raises(InvalidPositionError):
        read_position(DISPERSAL, rewrapped(dense))


# --- Carreno's FAQ, as printed (seed 004) ---------------------------------------------------------

FIG_1 = "\n".join(
    (
        "                           S     S     S     S     S  <---5",
        "     ",
        "                           S     .     .     .     S  <---4",
        "",
        "                           .     .     .     .     .  <---3",
        "",
        "                           O     .     .     .     O  <---2",
        "",
        "                           O     O     O     O     O  <---1",
        "\t\t\t   ________________________________",
        "",
        "\t\t\t   a     b     c     d     e",
        "",
        "\t                   Fig. 1  Starting Position",
    )
)
FIGS_2_AND_3 = "\n".join(
    (
        "\tS     .     O     .     S             S     .     O     .     O",
        "",
        "\tO     .     .     .     O             O     .     S     O     S",
        "",
        "\tO     S     S     O     S             S     .     .     .     .",
        "",
        "\tS     .     .     .     .             O     O     S     S     O",
        "",
        "\t.     .     O     O     S             S     .     .     .     .",
        "",
        "",
        "\tFig 2. The O side is in check         Fig. 3. What's O's best move?",
    )
)
SECOND_HALF = 39
"""The column at which Fig. 3 starts, beside Fig. 2."""
FIG_2 = "\n".join(line[:SECOND_HALF] for line in FIGS_2_AND_3.splitlines())
FIG_3 = "\n".join(line[SECOND_HALF:] for line in FIGS_2_AND_3.splitlines())
O_TO_PLAY_AND_WIN = "\n".join(
    (
        "\t\t\tS     .     O     S     O",
        "",
        "\t\t\tO     .     .     .     S",
        "",
        "\t\t\tO     .     .     .     O",
        "",
        "\t\t\t.     O     .     .     S",
        "",
        "\t\t\tS     S     S     .     O",
        "",
        "",
        "\tIn this position O is to play and win. Can you find the winning",
        "\tmove?",
    )
)
FIG_4 = "\n".join(
    (
        "\t\t\tS     O     S     O     S",
        "",
        "\t\t\t.     S     .     .     .",
        "",
        "\t\t\tO     .     O     .     O",
        "",
        "\t\t\t.     .     S     .     .",
        "",
        "\t\t\tS     O     S     O     .",
        "\t\t\t",
        "\t\t\t\tFig. 4",
    )
)
FIG_5 = "\n".join(
    (
        "\t\t\tS     O     S     O     S",
        "",
        "\t\t\t.     .     .     .     O",
        "",
        "\t\t\tO     .     S     .     O",
        "",
        "\t\t\t.     .     .     .     .",
        "",
        "\t\t\tS     O     S     O     S",
        "\t\t",
        "\t\t\t\tFig. 5",
    )
)
FIGURES = {
    "Fig. 1": (FIG_1, "SSSSS/S3S/5/O3O/OOOOO O"),  # the start: O plays first
    "Fig. 2": (FIG_2, "S1O1S/O3O/OSSOS/S4/2OOS O"),  # "the O side is in check"
    "Fig. 3": (FIG_3, "S1O1O/O1SOS/S4/OOSSO/S4 O"),  # "What's O's best move?"
    "O to play and win": (O_TO_PLAY_AND_WIN, "S1OSO/O3S/O3O/1O2S/SSS1O O"),
    "Fig. 4": (FIG_4, "SOSOS/1S3/O1O1O/2S2/SOSO1 O"),  # "O is in check", "1. pass"
    "Fig. 5": (FIG_5, "SOSOS/4O/O1S1O/5/SOSOS O"),  # "S can't move again"
}


def solve(state: State, moves: int) -> Solution:
    """What `abstractgames solve dispersal POSITION --moves N` answers."""
    solution = solver_for(DISPERSAL)(state, moves, None)
    assert isinstance(solution, Solution)
    return solution


def figure(name: str) -> DispersalState:
    state = read_position(DISPERSAL, FIGURES[name][0], side="O")
    assert isinstance(state, DispersalState)
    return state


@pytest.mark.parametrize("name", FIGURES)
def test_the_faq_figures_read_as_printed(name: str) -> None:
    text, position = FIGURES[name]
    side = position.split()[1]
    assert read_position(DISPERSAL, text, side=side).position() == position
    assert read_position(DISPERSAL, text, side=f"{side} to move").position() == position
    assert read_position(DISPERSAL, f"{text}\n\n{side} to move").position() == position
    assert read_position(DISPERSAL, quoted(text), side=side).position() == position
    with pytest.raises(InvalidPositionError, match="does not say who is to move"):
        read_position(DISPERSAL, text)


def test_fig_1_with_o_to_move_is_the_start() -> None:
    assert read_position(DISPERSAL, f"{FIG_1}\n\nO to move") == DISPERSAL.initial_state()


def test_figs_2_and_3_side_by_side_are_refused() -> None:
    with pytest.raises(InvalidPositionError, match=r"line 1 .* has 10 squares; a rank of this"):
        read_position(DISPERSAL, FIGS_2_AND_3, side="O")


def test_fig_2_o_in_check_and_a4_c4_checks_s() -> None:
    state = figure("Fig. 2")
    board = grid_of(state)
    assert state.in_check() and state.isolated("O") == {board.square("c5")}
    after = state.apply("a4-c4")
    assert not after.isolated("O")
    assert after.to_move == "S" and after.in_check()


def test_fig_3_s_threatens_d2_e1_and_b2_b4_stops_it() -> None:
    state = figure("Fig. 3")
    threat = solve(read_position(DISPERSAL, FIG_3, side="S"), 1)
    assert str(threat) == "S wins in 1 move: d2-e1"
    after = state.apply("b2-b4")
    assert after.to_move == "S"
    assert not solve(after, 1).won


@pytest.mark.slow
def test_the_example_o_to_play_and_win() -> None:
    solution = solve(figure("O to play and win"), 6)
    assert solution.won and solution.moves == 6


def test_fig_4_o_is_at_s_mercy() -> None:
    state = figure("Fig. 4")
    board = grid_of(state)
    assert state.in_check() and state.isolated("O") == {board.square("e3")}
    assert state.legal_moves() == (PASS,)
    assert not solve(state, 4).won
    solution = solve(state.apply(PASS), 4)
    assert solution.won and solution.moves == 4
    assert not solve(state.apply(PASS), 3).won


@pytest.mark.parametrize(
    ("line", "winner", "reason"),
    [
        ("pass b4-b3 pass c2-e2", None, "both sides dispersed"),
        ("pass b4-c4 pass c2-d2 pass d2-e1 pass c4-d3", "S", "S dispersed"),
    ],
)
def test_fig_4_lines_of_the_faq(line: str, winner: str | None, reason: str) -> None:
    state: State = figure("Fig. 4")
    for move in line.split():
        assert state.outcome() is None
        state = state.apply(move)
    outcome = state.outcome()
    assert outcome is not None and (outcome.winner, outcome.reason) == (winner, reason)


def test_fig_4_the_faqs_winning_line_leaves_a3_isolated() -> None:
    state: State = figure("Fig. 4")
    for move in ("pass", "b4-c4", "pass", "c2-d2", "pass", "d2-e1", "pass"):
        state = state.apply(move)
    assert isinstance(state, DispersalState)
    assert state.isolated("O") >= {grid_of(state).square("a3")}


def test_fig_5_is_a_forced_draw() -> None:
    state = figure("Fig. 5")
    assert not solve(state, 6).won
    s_to_move = read_position(DISPERSAL, FIG_5, side="S")
    assert s_to_move.legal_moves() == (PASS,)
    board = grid_of(state)
    around_c3 = set(board.neighbours(board.square("c3")))
    for move in state.legal_moves():
        if set(board.move_squares(move)[1:]) & around_c3:
            outcome = state.apply(move).outcome()
            assert outcome is not None and outcome.winner == "S", move


def test_the_whole_faq_is_more_than_one_position() -> None:
    text = f"The board is as shown below.\n\n{FIG_1}\n\nIn this diagram...\n\n{FIGS_2_AND_3}"
    with pytest.raises(InvalidPositionError, match="a second diagram at line 20"):
        read_position(DISPERSAL, text, side="O")


# --- hostile diagrams -----------------------------------------------------------------------------

PLAIN = "S S S S S\nS . . . S\n. . . . .\nO . . . O\nO O O O O\n"
"""The start as a diagram without rank numbers, file letters or side-to-move line."""


def start_with(old: str, new: str) -> str:
    assert old in START
    return START.replace(old, new, 1)


HOSTILE: dict[str, tuple[object, str | None, tuple[str, ...]]] = {
    "a short rank": (
        start_with("S     .     .     .     S", "S     .     .     S"),
        None,
        ("line 3 ", "has 4 squares; a rank of this board has 5"),
    ),
    "a long rank": (
        start_with("S     .     .     .     S", "S     .     .     .     .     S"),
        None,
        ("line 3 ", "has 6 squares"),
    ),
    "a rank too few": (
        PLAIN.replace("S . . . S\n", "") + "O to move",
        None,
        ("the diagram of lines 1-4 has 4 ranks; this board has 5 (5x5)",),
    ),
    "a rank too many": (
        PLAIN + ". . . . .\nO to move",
        None,
        ("the diagram of lines 1-6 has 6 ranks; this board has 5",),
    ),
    "a rank missing among numbered ones": (
        start_with("S     .     .     .     S  <---4\n", ""),
        None,
        ("line 4 ", "is numbered 3, but it is rank 4"),
    ),
    "a wrong rank number": (
        start_with("<---4", "<---3"),
        None,
        ("line 3 ", "is numbered 3, but it is rank 4", "from 5 at the top down to 1"),
    ),
    "a rank number 0": (
        start_with("<---1", "<---0"),
        None,
        ("line 9 ", "is numbered 0, but it is rank 1"),
    ),
    "wrong file letters": (
        start_with("a     b     c     d     e", "a     b     c     d"),
        None,
        ("line 13 ", "names 4 files; this board has 5 (a to e)"),
    ),
    "two side-to-move lines": (
        START + "\nS to move",
        None,
        ("two side-to-move lines", "line 15 'O to move'", "line 16 'S to move'"),
    ),
    "the same side-to-move line twice": (
        START + "\n\nO to move",
        None,
        ("two side-to-move lines", "line 15", "line 17"),
    ),
    "no side-to-move line": (
        PLAIN,
        None,
        ("does not say who is to move", "such as 'O to move'", "or give the side"),
    ),
    "a side the game does not have": (
        start_with("O to move", "X to move"),
        None,
        ("line 15: 'X to move' does not say who is to move", "'O to move' or 'S to move'"),
    ),
    "a side given that the text contradicts": (
        START,
        "S",
        ("line 15 'O to move' and the side given ('S') do not agree",),
    ),
    "a side given that the string contradicts": (
        "SSSSS/S3S/5/O3O/OOOOO O",
        "S to move",
        ("says 'O' and the side given says 'S'",),
    ),
    "a side given that the game does not have": (
        PLAIN,
        "white",
        ("'white' does not say who is to move in dispersal",),
    ),
    "an unknown letter": (
        start_with("S     .     .     .     S", "S     .     Q     .     S"),
        None,
        ("line 3 ", "'Q' is not a piece of dispersal", "O, S"),
    ),
    "a digit for a square": (
        PLAIN.replace("S . . . S", "S . 3 . S") + "O to move",
        None,
        ("line 2 ", "'3' is not a piece", "'.' for an empty square"),
    ),
    "a second diagram": (
        f"{START}\n\n{START}",
        None,
        ("a second diagram at line 17", "one position at a time"),
    ),
    "a second diagram without its side line": (
        f"{START}\n\n{PLAIN}",
        None,
        ("a second diagram at line 17",),
    ),
    "a side with no piece": (
        PLAIN.replace("O", ".") + "O to move",
        None,
        ("the diagram of lines 1-5", "no O piece", "each side needs at least one piece"),
    ),
    "a single rank": (
        "S S S S S",
        "O",
        ("has 1 ranks; this board has 5",),
    ),
    "no diagram at all": (
        "Dear Augustine,\n\nI resign.\n",
        "O",
        ("no diagram of dispersal here",),
    ),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_diagram_gives_one_clear_error(name: str) -> None:
    text, side, parts = HOSTILE[name]
    with pytest.raises(InvalidPositionError) as caught:
        read_position(DISPERSAL, text, side=side)  # type: ignore[arg-type]
    assert isinstance(caught.value, ValueError)
    for part in parts:
        assert part in str(caught.value), (part, str(caught.value))
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("text", [None, 5, b"S S S S S", ["S S S S S"], 2.5])
@pytest.mark.parametrize("read", [read_position, read_positions])
def test_a_non_string_is_refused(read: Callable[..., object], text: object) -> None:
    message = f"a position is text, not {type(text).__name__}"
    with pytest.raises(InvalidPositionError, match=message):
        read(DISPERSAL, text)


class Unread(str):
    """A text that fails the test if it is split into lines."""

    __slots__ = ()

    def splitlines(self, keepends: bool = False) -> list[str]:
        raise AssertionError("a text too long was read")


@pytest.mark.parametrize(
    ("read", "limit"), [(read_position, MAX_POSITION_TEXT), (read_positions, MAX_POSITIONS_TEXT)]
)
def test_ten_megabytes_are_refused_before_they_are_read(
    read: Callable[..., object], limit: int
) -> None:
    text = Unread(START * (10_000_000 // len(START)))
    started = time.perf_counter()
    message = rf"characters is too long .* \(at most {limit:,}\)"
    with pytest.raises(InvalidPositionError, match=message):
        read(DISPERSAL, text)
    assert time.perf_counter() - started < 0.5


@pytest.mark.parametrize(
    ("spec", "text", "parts"),
    [
        ("entropy", "W W W W W W W\n" * 7 + "end", ("49 W counters", "only 7 white")),
        ("entropy", "R R . . . . .\n" * 7 + "order to move", ("14 R counters", "only 7 red")),
        ("entropy", ". . . . . . .\n" * 7 + "order to move", ("on an empty board",)),
        ("entropy", ". . . . . . .\n" * 7 + "end", ("the game ends only when the board is full",)),
        ("entropy", "W K Y G R B P\n" * 7 + "draw", ("phase 'draw' on a full board",)),
        ("entropy", ". . . . . . .\n" * 7 + "chaos to place Q", ("line 8", "not a colour")),
        ("entropy:size=5", ". . . . .\n" * 5 + "chaos to place P", ("not a colour", "W K Y G R")),
        ("entropy", ". . . . . . .\n" * 7 + "chaos to move", ("line 8", "'chaos to place R'")),
        ("entropy", ". . . . . . .\n" * 7, ("does not say who is to move", "such as 'draw'")),
        ("orderchaos", ". . . . . .\n" * 6 + "chaos to move", ("does not match the 0 pieces",)),
        ("orderchaos", ". . . . . .\n" * 6 + "O to move", ("'order to move' or 'chaos to move'",)),
    ],
)
def test_impossible_positions_are_refused(spec: str, text: str, parts: tuple[str, ...]) -> None:
    with pytest.raises(InvalidPositionError) as caught:
        read_position(parse_game_spec(spec), text)
    for part in parts:
        assert part in str(caught.value), (part, str(caught.value))


@pytest.mark.parametrize(
    ("spec", "text", "winner"),
    [
        ("orderchaos", "X X X X X .\nO O O O . .\n" + ". . . . . .\n" * 4 + "chaos", "order"),
        ("dispersal", "S O . . .\n" + ". . . . .\n" * 3 + ". . . . O\nS to move", "S"),
    ],
)
def test_a_finished_position_reads_as_finished(spec: str, text: str, winner: str) -> None:
    outcome = read_position(parse_game_spec(spec), text).outcome()
    assert outcome is not None and outcome.winner == winner


# --- several positions in one text ----------------------------------------------------------------


def uncaptioned(figure: str) -> str:
    """A figure without its caption (a text of positions has only `#` comments)."""
    return figure.rsplit("\n", 1)[0]


OPENINGS = f"""# the openings of a dispersal tournament
SSSSS/S3S/5/O3O/OOOOO O

# Fig. 2, with its side-to-move line
{uncaptioned(FIG_2)}
O to move
S1O1O/O1SOS/S4/OOSSO/S4 O
  # Fig. 4, quoted and with file letters
> S O S O S  5
> . S . . .  4
> O . O . O  3
> . . S . .  2
> S O S O .  1
>
> a b c d e
> O to move
"""


def test_read_positions_mixes_strings_diagrams_and_comments() -> None:
    found = [state.position() for state in read_positions(DISPERSAL, OPENINGS)]
    assert found == [
        "SSSSS/S3S/5/O3O/OOOOO O",
        "S1O1S/O3O/OSSOS/S4/2OOS O",
        "S1O1O/O1SOS/S4/OOSSO/S4 O",
        "SOSOS/1S3/O1O1O/2S2/SOSO1 O",
    ]


def test_read_positions_takes_the_side_for_diagrams_without_one() -> None:
    text = f"{uncaptioned(FIG_4)}\n{uncaptioned(FIG_5)}\nSOSOS/4O/O1S1O/5/SOSOS S\n{PLAIN}"
    found = read_positions(DISPERSAL, text, side="S")
    assert [state.position() for state in found] == [
        "SOSOS/1S3/O1O1O/2S2/SOSO1 S",
        "SOSOS/4O/O1S1O/5/SOSOS S",
        "SOSOS/4O/O1S1O/5/SOSOS S",
        "SSSSS/S3S/5/O3O/OOOOO S",
    ]
    with pytest.raises(InvalidPositionError, match="lines 1-19 has 10 ranks; this board has 5"):
        read_positions(DISPERSAL, text)
    with pytest.raises(InvalidPositionError, match=r"line 21: the position string .* says 'S'"):
        read_positions(DISPERSAL, text, side="O")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"{OPENINGS}garbage", "line 27: position 'garbage' has 1 fields"),
        ("O to move\n" + OPENINGS, "line 1 'O to move' is not below a diagram"),
        (f"{PLAIN}O to move\nS to move", "line 7 'S to move' is not below a diagram"),
        (f"{PLAIN}\nhello\nO to move", "line 8 'O to move' is not below a diagram"),
        (PLAIN, "the diagram does not say who is to move"),
    ],
)
def test_read_positions_errors_give_the_line(text: str, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message):
        read_positions(DISPERSAL, text)


def test_read_positions_of_nothing_is_nothing() -> None:
    assert read_positions(DISPERSAL, "\n# nothing yet\n\n") == []


@pytest.mark.parametrize(
    ("position", "side_line", "letters"),
    [
        ("7/7/7/7/7/7/7 draw", "draw", ""),
        ("7/7/3K3/7/7/7/7 chaos:P", "chaos to place P", "K"),
        ("7/7/3K3/7/1B3P1/7/7 order", "order to move", "KBP"),
        ("WKYGRBP/KYGRBPW/YGRBPWK/GRBPWKY/RBPWKYG/BPWKYGR/PWKYGRB end", "end", "WKYGRBP"),
    ],
)
def test_entropy_diagrams_have_colour_letters_and_phases(
    position: str, side_line: str, letters: str
) -> None:
    game = parse_game_spec("entropy")
    state = game.from_position(position)
    text = diagram(state)
    assert text.splitlines()[-1] == side_line
    assert set(letters) <= set(text)
    for mangle in MANGLINGS.values():
        assert read_position(game, mangle(text)) == state
    assert read_position(game, text.rsplit("\n", 1)[0], side=side_line) == state
    assert read_positions(game, f"{text}\n{position}") == [state, state]


def test_entropy_size_5_diagrams() -> None:
    game = parse_game_spec("entropy:size=5")
    state = game.from_position("5/5/2G2/5/5 chaos:W")
    text = diagram(state)
    assert text.splitlines()[0] == ".     .     .     .     .  <---5"
    assert text.splitlines()[-1] == "chaos to place W"
    assert read_position(game, text) == state


# --- side-to-move lines ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "line", "field"),
    [
        ("dispersal", "O to move", "O"),
        ("dispersal", "s to move", "S"),
        ("dispersal", "O to move and win", "O"),
        ("dispersal", "S is to play.", "S"),
        ("dispersal", "o", "O"),
        ("orderchaos", "Order to move", "order"),
        ("orderchaos", "CHAOS TO PLAY", "chaos"),
        ("orderchaos", "chaos is to move and draw", "chaos"),
        ("entropy", "Draw", "draw"),
        ("entropy", "draw.", "draw"),
        ("entropy", "chaos to place r", "chaos:R"),
        ("entropy", "Chaos to place red.", "chaos:R"),
        ("entropy", "ORDER TO MOVE", "order"),
        ("entropy", "order is to move", "order"),
        ("entropy", "order to move and win", "order"),
        ("entropy", "END", "end"),
        ("entropy:size=5", "chaos to place G", "chaos:G"),
    ],
)
def test_side_field_reads_side_lines(spec: str, line: str, field: str) -> None:
    assert parse_game_spec(spec).side_field(line) == field


@pytest.mark.parametrize(
    ("spec", "line", "message"),
    [
        ("dispersal", "X to move", "write 'O to move' or 'S to move'"),
        ("dispersal", "O wins", "'O wins' does not say who is to move in dispersal"),
        ("dispersal", "", "does not say who is to move"),
        ("dispersal", 5, "a side-to-move line is text, not 5"),
        ("orderchaos", "O to move", "write 'order to move' or 'chaos to move'"),
        ("entropy", "chaos to move", "write 'draw'"),
        ("entropy", "chaos to place Q", r"q is not a colour of this game \(W K Y G R B P\)"),
        ("entropy", "order wins", "does not say what is to happen in entropy"),
        ("entropy", None, "a side-to-move line is text, not None"),
        ("entropy:size=5", "chaos to place purple", r"purple is not a colour of .* \(W K Y G R\)"),
    ],
)
def test_side_field_refuses_other_lines(spec: str, line: object, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message):
        parse_game_spec(spec).side_field(line)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("spec", "moves", "line"),
    [
        ("dispersal", "", "O to move"),
        ("dispersal", "a2-a3", "S to move"),
        ("orderchaos", "", "order to move"),
        ("orderchaos", "X@c3", "chaos to move"),
        ("entropy", "", "draw"),
        ("entropy", "R", "chaos to place R"),
        ("entropy", "R R@d4", "order to move"),
        ("entropy:size=5", "K", "chaos to place K"),
    ],
)
def test_side_line_of_each_game(spec: str, moves: str, line: str) -> None:
    game = parse_game_spec(spec)
    state = game.initial_state()
    for move in moves.split():
        state = state.apply(move)
    assert game.side_line(state) == line
    assert diagram(state).splitlines()[-1] == line


def test_entropy_side_line_refuses_another_games_state() -> None:
    with pytest.raises(InvalidPositionError, match="is not a state of"):
        parse_game_spec("entropy").side_line(parse_game_spec("entropy:size=5").initial_state())


# --- the docs -------------------------------------------------------------------------------------

NOTATION = Path(__file__).resolve().parents[2] / "docs" / "notation.md"
GAME_TITLES = {
    "Dispersal Entropy": "dispersal",
    "Order and Chaos": "orderchaos",
    "Entropy": "entropy",
}


def test_the_docs_show_the_diagrams_that_diagram_prints() -> None:
    page = NOTATION.read_text(encoding="utf-8")
    section = page.split("## Text diagrams\n", 1)[1].split("\n## ", 1)[0]
    example = r"^([^\n,]+), `([^`]+)` \([^\n]*\):\n\n```text\n(.*?)\n```"
    shown = re.findall(example, section, re.M | re.S)
    assert [title for title, _, _ in shown] == list(GAME_TITLES)
    for title, position, text in shown:
        game = parse_game_spec(GAME_TITLES[title])
        state = game.from_position(position)
        assert text == diagram(state)
        assert read_position(game, text) == state
