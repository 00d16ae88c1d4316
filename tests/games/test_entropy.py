"""Solomon's Entropy: scoring, turns, notation, positions, the match and the speed hooks."""

from __future__ import annotations

import pickle
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames import (
    CHANCE,
    IllegalMoveError,
    InvalidMoveError,
    InvalidParameterError,
    InvalidPositionError,
    get_game,
    parse_game_spec,
    random_move,
)
from abstractgames.entropy import (
    CHAOS,
    ORDER,
    PASS,
    Draw,
    EntropyGame,
    EntropyMatch,
    EntropyState,
    Placement,
    Slide,
    line_score,
    score_board,
    score_boards,
    timeout_move,
)
from abstractgames.protocol import Match, MatchError, MatchResult
from abstractgames.testing import playout, states
from tests.conftest import examples
from tests.support.entropy_reference import (
    reference_board_score,
    reference_line_score,
    reference_order_moves,
)

GAME = EntropyGame()
GAME5 = EntropyGame(size=5)
SETTINGS = settings(max_examples=examples(60))

# Seed 003's table (Estonian rules): every pattern with its score. Letters are distinct colours.
SEED_TABLE = {
    "AA": 2,
    "ABA": 3,
    "AAA": 7,
    "ABBA": 6,
    "AAAA": 16,
    "ABCBA": 8,
    "ABBBA": 12,
    "AABAA": 12,
    "ABABA": 14,
    "AAAAA": 30,
    "ABCCBA": 12,
    "AABBAA": 16,
    "ABAABA": 18,
    "ABBBBA": 22,
    "AAAAAA": 50,
    "AABBBAA": 23,
    "AABABAA": 25,
    "ABAAABA": 25,
    "ABBABBA": 27,
    "AAABAAA": 29,
    "ABABABA": 37,
    "ABCACBA": 15,
    "ABBBBBA": 37,
    "ABCDCBA": 15,
    "AAAAAAA": 77,
    "ABBCBBA": 19,
    "ABCCCBA": 19,
    "AABCBAA": 19,
    "ABACABA": 21,
    "ABCBCBA": 21,
}
SEED_RULES_EXAMPLES = {"ABBA": 6, "ABCBA": 8, "AAA": 7, "ABBBAB": 15}
AS_COLOURS = str.maketrans("ABCD", "WKYG")


def play(game: EntropyGame, seed: int) -> list[EntropyState]:
    visited = playout(game.initial_state(), random.Random(seed))
    return [s for s in visited if isinstance(s, EntropyState)]


def random_board(rng: random.Random, size: int, empties: int) -> str:
    counters = list(("WKYGRBP"[:size]) * size)
    rng.shuffle(counters)
    for square in rng.sample(range(size * size), empties):
        counters[square] = "."
    return "".join(counters)


def position_of(cells: str, size: int, phase: str) -> str:
    """A position string for a board given in index order (a1 first)."""
    from abstractgames.grid import grid

    return f"{grid(size, size).format_ranks(cells)} {phase}"


# --- scoring --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("pattern", "expected"), sorted(SEED_TABLE.items()))
def test_seed_table(pattern: str, expected: int) -> None:
    assert reference_line_score(pattern) == expected
    assert line_score(pattern) == expected
    colours = pattern.translate(AS_COLOURS)
    # As a real rank 1 (padded with empty squares) and as a real file a, on a board.
    rank = colours.ljust(7, ".") + "." * 42
    file = "".join(colours[r] if r < len(colours) else "." for r in range(7)) + ""
    file_cells = "".join(file[sq // 7] if sq % 7 == 0 else "." for sq in range(49))
    assert score_board(rank) == score_board(file_cells) == expected
    assert score_boards([rank, file_cells]) == [expected, expected]
    for cells in (rank, file_cells):
        assert GAME.from_position(position_of(cells, 7, "order")).score() == expected


def test_seed_table_has_all_thirty_patterns() -> None:
    assert len(SEED_TABLE) == 30
    assert SEED_TABLE["ABABABA"] == 37


@pytest.mark.parametrize(("pattern", "expected"), sorted(SEED_RULES_EXAMPLES.items()))
def test_rules_examples(pattern: str, expected: int) -> None:
    assert reference_line_score(pattern) == line_score(pattern) == expected
    assert score_board(pattern.translate(AS_COLOURS).ljust(49, ".")) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("AA.AA", 4),  # two separate pairs; AA.AA is not a run
        ("ABA.ABA", 6),
        ("A.A", 0),
        ("AAA.B", 7),
        ("AB.BA", 0),
        (".......", 0),
        ("A", 0),
        ("", 0),
        ("ABA.AAA", 10),
    ],
)
def test_empty_squares_break_runs(line: str, expected: int) -> None:
    assert reference_line_score(line) == line_score(line) == expected
    cells = line.translate(AS_COLOURS).ljust(49, ".")
    assert score_board(cells) == expected


def test_full_board_by_hand() -> None:
    # rank 7  P P P P P P P   AAAAAAA  77
    # rank 6  B B B B B B B   AAAAAAA  77
    # rank 5  R R R R R R R   AAAAAAA  77
    # rank 4  K Y G W G Y K   ABCDCBA  15 (CDC 3 + BCDCB 5 + ABCDCBA 7)
    # rank 3  K Y G W G Y K   ABCDCBA  15
    # rank 2  W K Y G Y K W   ABCDCBA  15
    # rank 1  G W K W Y W G   WKW 3 + WYW 3 = 6 (the whole rank is no palindrome)
    # ranks: 3 * 77 + 3 * 15 + 6 = 282
    # files from rank 1 up (ranks 5 to 7 are R B P in every file, all distinct):
    #   a G W K K: KK 2   b W K Y Y: YY 2   c K Y G G: GG 2   d W G W W: WGW 3 + WW 2 = 5
    #   e Y Y G G: YY 2 + GG 2 = 4   f W K Y Y: YY 2   g G W K K: KK 2
    # files: 2 + 2 + 2 + 5 + 4 + 2 + 2 = 19; total 282 + 19 = 301
    state = GAME.from_position("PPPPPPP/BBBBBBB/RRRRRRR/KYGWGYK/KYGWGYK/WKYGYKW/GWKWYWG end")
    assert state.score() == 301
    assert score_board(state.board) == reference_board_score(state.board, 7) == 301
    assert state.outcome() is not None
    assert state.outcome().scores == {"order": 301, "chaos": 0}  # type: ignore[union-attr]


def test_full_board_by_hand_5x5() -> None:
    # rank 5  W W K W W  AABAA 12      rank 4  K Y Y Y K  ABBBA 12
    # rank 3  G R G R G  ABABA 14      rank 2  Y K R K Y  ABCBA 8
    # rank 1  R G R G W  RGR 3 + GRG 3 = 6
    # ranks: 12 + 12 + 14 + 8 + 6 = 52
    # files from rank 1 up: a R Y G K W 0, b G K R Y W 0, c R R G Y K: RR 2, d G K R Y W 0,
    # e W Y G K W 0 (W…W is not a palindrome); total 52 + 2 = 54
    state = GAME5.from_position("WWKWW/KYYYK/GRGRG/YKRKY/RGRGW end")
    assert state.score() == 54
    assert score_board(state.board) == 54


def test_fast_scores_equal_the_reference_on_random_boards() -> None:
    rng = random.Random(2024)
    for size, game in ((7, GAME), (5, GAME5)):
        boards = [
            random_board(rng, size, rng.choice([0, 0, 1, 3, 10, 20, size * size - 2]))
            for _ in range(1500)
        ]
        expected = [reference_board_score(b, size) for b in boards]
        assert [score_board(b) for b in boards] == expected
        assert score_boards(boards) == expected  # more than one batch of 256
        for board, score in zip(boards[:300], expected[:300], strict=True):
            phase = "end" if "." not in board else "draw"
            assert game.from_position(position_of(board, size, phase)).score() == score


def test_score_boards_rejects_what_is_not_a_board() -> None:
    assert score_boards([]) == []
    with pytest.raises(ValueError, match="not a board"):
        score_board("X" * 49)
    with pytest.raises(ValueError, match="25 or 49 squares"):
        score_board("W" * 48)
    with pytest.raises(ValueError, match="boards of 49 and 25 squares are mixed"):
        score_boards(["W" * 49, "W" * 25])
    with pytest.raises(ValueError, match="25 or 49 squares, not 3"):
        score_boards(["WKY"])
    with pytest.raises(ValueError, match="None is not a board"):
        score_boards(["W" * 25, None])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="not a board"):
        score_boards(["W" * 49, "3" * 49])


@SETTINGS
@given(states(GAME), st.data())
def test_live_score_is_the_score_of_the_board(state: EntropyState, data: st.DataObject) -> None:
    assert state.score() == reference_board_score(state.board, 7)


@SETTINGS
@given(states(GAME))
def test_chaos_never_lowers_the_score(state: EntropyState) -> None:
    if state.to_move != CHAOS:
        return
    for move in state.legal_moves():
        assert state.apply(move).score() >= state.score(), move


@SETTINGS
@given(states(GAME5))
def test_chaos_never_lowers_the_score_5x5(state: EntropyState) -> None:
    if state.to_move == CHAOS:
        assert all(state.apply(m).score() >= state.score() for m in state.legal_moves())


# --- the turn cycle and the bag -------------------------------------------------------------------


def test_start() -> None:
    state = GAME.initial_state()
    assert state.position() == "7/7/7/7/7/7/7 draw"
    assert state.to_move == CHANCE
    assert state.drawn is None
    assert state.bag() == dict.fromkeys("WKYGRBP", 7)
    assert state.placements == 0
    assert state.score() == 0
    assert state.legal_moves() == tuple(Draw(c) for c in "WKYGRBP")
    assert state.chance_outcomes() == tuple((Draw(c), 1 / 7) for c in "WKYGRBP")
    assert GAME.roles == ("chaos", "order")
    assert GAME.max_length == 3 * 49 - 1
    assert GAME.params == {"size": 7}


def test_turn_cycle() -> None:
    state = GAME.initial_state().apply("R")
    assert state.to_move == CHAOS
    assert state.drawn == "R"
    assert state.position() == "7/7/7/7/7/7/7 chaos:R"
    assert state.bag()["R"] == 6
    assert state.legal_moves() == tuple(Placement("R", sq) for sq in range(49))
    state = state.apply("d4")
    assert state.to_move == ORDER
    assert state.drawn is None
    assert state.position() == "7/7/7/3R3/7/7/7 order"
    assert state.legal_moves()[0] == PASS
    after_pass = state.apply("pass")
    assert after_pass.position() == "7/7/7/3R3/7/7/7 draw"
    state = state.apply("d4-d7")  # Order may slide the counter just placed
    assert state.position() == "3R3/7/7/7/7/7/7 draw"
    assert state.to_move == CHANCE


def test_last_placement_ends_the_game_at_once() -> None:
    board = "WWWWWWW/KKKKKKK/YYYYYYY/GGGGGGG/RRRRRRR/BBBBBBB/PPPPPP1"
    state = GAME.from_position(f"{board} draw")
    assert state.legal_moves() == (Draw("P"),)
    assert state.chance_outcomes() == ((Draw("P"), 1.0),)
    state = state.apply("P").apply("P@g1")
    assert state.to_move is None
    assert state.position() == "WWWWWWW/KKKKKKK/YYYYYYY/GGGGGGG/RRRRRRR/BBBBBBB/PPPPPPP end"
    assert state.legal_moves() == ()
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.winner is None
    assert outcome.scores == {"order": 7 * 77, "chaos": 0}
    assert outcome.reason == "board full"


@pytest.mark.parametrize("game", [GAME, GAME5], ids=["7x7", "5x5"])
@pytest.mark.parametrize("seed", range(6))
def test_a_game_has_n_placements_and_n_minus_one_order_turns(game: EntropyGame, seed: int) -> None:
    visited = play(game, seed)
    squares = game.size**2
    kinds = Counter(s.to_move for s in visited[:-1])
    assert kinds == {CHANCE: squares, CHAOS: squares, ORDER: squares - 1}
    assert len(visited) - 1 <= game.max_length
    assert len(visited) - 1 == 3 * squares - 1
    assert visited[-1].placements == squares
    assert visited[-1].bag() == dict.fromkeys(game.colours, 0)
    assert visited[-1].score() == reference_board_score(visited[-1].board, game.size)


@SETTINGS
@given(st.sampled_from([GAME, GAME5]).flatmap(states))
def test_bag_board_and_drawn_add_up(state: EntropyState) -> None:
    game = state.game
    on_board = Counter(c for c in state.board if c != ".")
    drawn = Counter(state.drawn or "")
    for colour in game.colours:
        assert on_board[colour] + state.bag()[colour] + drawn[colour] == game.size
        assert on_board[colour] + drawn[colour] <= game.size
    assert state.placements == sum(on_board.values())
    if state.to_move == CHANCE:
        outcomes = state.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        total = sum(state.bag().values())
        assert outcomes == tuple((Draw(c), k / total) for c, k in state.bag().items() if k)
    else:
        with pytest.raises(IllegalMoveError, match="not a chance node"):
            state.chance_outcomes()


@SETTINGS
@given(st.sampled_from([GAME, GAME5]).flatmap(states))
def test_order_moves_equal_brute_force(state: EntropyState) -> None:
    size = state.size
    if state.to_move == ORDER:
        assert [str(m) for m in state.legal_moves()] == reference_order_moves(state.board, size)
    elif state.to_move == CHAOS:
        drawn = state.drawn
        assert drawn is not None
        empty = [sq for sq in range(size * size) if state.board[sq] == "."]
        assert state.legal_moves() == tuple(Placement(drawn, sq, size=size) for sq in empty)


@SETTINGS
@given(st.sampled_from([GAME, GAME5]).flatmap(states), st.data())
def test_slides_never_jump_and_land_on_empty_squares(
    state: EntropyState, data: st.DataObject
) -> None:
    if state.to_move != ORDER:
        return
    slides = [m for m in state.legal_moves() if isinstance(m, Slide)]
    if not slides:
        return
    move = data.draw(st.sampled_from(slides))
    before, after = state.board, state.apply(move).board
    assert before[move.target] == "." and before[move.origin] != "."
    assert after[move.target] == before[move.origin] and after[move.origin] == "."
    changed = [sq for sq in range(len(before)) if before[sq] != after[sq]]
    assert changed == sorted([move.origin, move.target])


@SETTINGS
@given(st.sampled_from([GAME, GAME5]).flatmap(states), st.data())
def test_apply_never_mutates(state: EntropyState, data: st.DataObject) -> None:
    if state.is_terminal():
        return
    snapshot = (state.position(), state.score(), state.bag(), state.legal_moves(), hash(state))
    state.apply(data.draw(st.sampled_from(state.legal_moves())))
    assert (state.position(), state.score(), state.bag(), state.legal_moves(), hash(state)) == (
        snapshot
    )
    with pytest.raises(AttributeError, match="immutable"):
        state._score = 5


def test_order_moves_from_hand_made_positions() -> None:
    # One counter in the corner: six slides along rank 1 and six up file a.
    state = GAME.from_position("7/7/7/7/7/7/W6 order")
    assert [str(m) for m in state.legal_moves()] == [
        "pass",
        *(f"a1-{f}1" for f in "bcdefg"),
        *(f"a1-a{r}" for r in range(2, 8)),
    ]
    # d4 is hemmed in by f4 and d6: it reaches a4-c4 and e4, d5, and d1-d3.
    state = GAME.from_position("7/3W3/7/3K1Y1/7/7/7 order")
    moves = {str(m) for m in state.legal_moves()}
    from_d4 = {m for m in moves if m.startswith("d4-")}
    assert from_d4 == {"d4-a4", "d4-b4", "d4-c4", "d4-e4", "d4-d5", "d4-d3", "d4-d2", "d4-d1"}
    assert not {"d4-f4", "d4-g4", "d4-d6", "d4-d7", "d4-e5"} & moves
    # A counter walled in by the edges and neighbours cannot move at all.
    state = GAME.from_position("WK5/K6/7/7/7/7/7 order")
    assert not any(str(m).startswith("a7-") for m in state.legal_moves())
    assert [str(m) for m in state.legal_moves()] == reference_order_moves(state.board, 7)


def test_order_can_slide_the_counter_just_placed() -> None:
    state = GAME.from_position("7/7/7/7/7/7/7 chaos:G").apply("G@g7")
    assert {str(m) for m in state.legal_moves()} == {
        "pass",
        *(f"g7-{f}7" for f in "abcdef"),
        *(f"g7-g{r}" for r in range(1, 7)),
    }


# --- notation -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "phase", "expected"),
    [
        ("r", "draw", "R"),
        (" R ", "draw", "R"),
        ("r@D4", "chaos:R", "R@d4"),
        ("Rd4", "chaos:R", "R@d4"),
        ("R @ d4", "chaos:R", "R@d4"),
        ("d4", "chaos:R", "R@d4"),
        ("D4", "chaos:G", "G@d4"),
        ("D4-D7", "order", "d4-d7"),
        ("d4d7", "order", "d4-d7"),
        ("d4 d7", "order", "d4-d7"),
        ("PASS", "order", "pass"),
    ],
)
def test_parse_variants(text: str, phase: str, expected: str) -> None:
    state = GAME.from_position(f"7/7/7/3W3/7/7/7 {phase}")
    move = GAME.parse_move(text, state)
    assert str(move) == expected
    assert GAME.parse_move(str(move), state) == move


def test_moves_are_canonical_singletons() -> None:
    state = GAME.initial_state().apply("W")
    assert GAME.parse_move("W@a1", state) is state.legal_moves()[0]
    assert repr(Placement("R", 24)) == "Placement('R@d4')"
    assert repr(Placement("R", 12, size=5)) == "Placement('R@c3', size=5)"
    assert repr(Slide(24, 45)) == "Slide('d4-d7')"
    assert repr(Draw("K")) == "Draw('K')"
    assert repr(PASS) == "PASS"
    assert str(Slide(0, 24, size=5)) == "a1-e5"


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Placement("X", 3), "not one of W K Y G R B P"),
        (lambda: Placement("B", 3, size=5), "not one of W K Y G R"),
        (lambda: Placement("R", 25, size=5), "not a square index of a 5×5 board"),
        (lambda: Slide(0, 49), "not a square index of a 7×7 board"),
        (lambda: Draw("Q"), "not one of"),
    ],
)
def test_move_values_are_validated(build: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build()  # type: ignore[operator]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "cannot read move ''"),
        ("x@d4", "X is not a colour of this game"),
        ("h4", "not a square of this board"),
        ("d4-d9", "not a square of this board"),
        ("d4", "a plain square needs a drawn counter"),
        ("d4=d5", "cannot read move"),
        ("passs", "cannot read move"),
    ],
)
def test_unreadable_moves(text: str, message: str) -> None:
    with pytest.raises(InvalidMoveError, match=message):
        GAME.parse_move(text, GAME.initial_state())


def test_parse_move_needs_no_state_except_for_a_plain_square() -> None:
    assert str(GAME.parse_move("k@a1")) == "K@a1"
    with pytest.raises(InvalidMoveError, match="plain square"):
        GAME.parse_move("a1")
    with pytest.raises(InvalidMoveError, match="must be a string"):
        GAME.parse_move(7)  # type: ignore[arg-type]
    with pytest.raises(InvalidMoveError, match="B is not a colour of this game"):
        GAME5.parse_move("B")
    with pytest.raises(InvalidMoveError, match="not a square of this board"):
        GAME5.parse_move("f1-f2")


# --- illegal moves --------------------------------------------------------------------------------

ORDER_POSITION = "7/3W3/7/3K1Y1/7/7/7 order"  # W on d6, K on d4, Y on f4


@pytest.mark.parametrize(
    ("position", "move", "message"),
    [
        (ORDER_POSITION, "d4-d7", "passes over the counter on d6; counters cannot jump"),
        (ORDER_POSITION, "d4-g4", "passes over the counter on f4; counters cannot jump"),
        (ORDER_POSITION, "d4-f4", "f4 is occupied; a counter must land on an empty square"),
        (
            ORDER_POSITION,
            "d4-e5",
            "d4 and e5 are not on one rank or file; counters slide like a rook",
        ),
        (ORDER_POSITION, "a1-a2", "there is no counter on a1"),
        (ORDER_POSITION, "d4-d4", "does not move; to pass, write 'pass'"),
        (ORDER_POSITION, "R@a1", "it is Order's turn (slide a counter or pass); only Chaos places"),
        (ORDER_POSITION, "R", "it is Order's turn (slide a counter or pass); a counter is drawn"),
        ("7/7/7/7/7/7/7 chaos:R", "W@a1", "the drawn counter is R: Chaos places it but does not"),
        ("7/7/7/3R3/7/7/7 chaos:R", "d4", "d4 is occupied"),
        ("7/7/7/3R3/7/7/7 chaos:R", "pass", "Chaos must place the drawn R; only Order passes"),
        ("7/7/7/3R3/7/7/7 chaos:R", "d4-d5", "Chaos must place the drawn R; only Order slides"),
        ("7/7/7/3R3/7/7/7 chaos:R", "K", "Chaos must place the drawn R; a counter is drawn only"),
        ("7/7/7/3R3/7/7/7 draw", "R@a1", "a draw from the bag is due; only Chaos places counters"),
        ("7/7/7/3R3/7/7/7 draw", "pass", "a draw from the bag is due; only Order passes"),
        (
            "RRRRRRR/7/7/7/7/7/7 draw",
            "R",
            "no R counter is left in the bag (all 7 are on the board)",
        ),
    ],
)
def test_illegal_moves_say_why(position: str, move: str, message: str) -> None:
    state = GAME.from_position(position)
    with pytest.raises(IllegalMoveError) as error:
        state.apply(move)
    assert message in str(error.value)
    parsed = GAME.parse_move(move, state) if move != "d4" else Placement("R", 24)
    assert str(error.value).startswith(f"illegal move {parsed} in {position}: ")


def test_no_move_after_the_end() -> None:
    state = play(GAME5, 3)[-1]
    for move in ("W", "pass", "a1-a2", "W@a1"):
        with pytest.raises(IllegalMoveError, match="the game is over"):
            state.apply(move)


def test_moves_of_another_size_or_game_are_refused() -> None:
    state = GAME.from_position("7/7/7/7/7/7/7 chaos:R")
    with pytest.raises(IllegalMoveError, match="the move is for the 5×5 board"):
        state.apply(Placement("R", 3, size=5))
    with pytest.raises(IllegalMoveError, match="B is not a colour of the 5×5 game"):
        GAME5.initial_state().apply(Draw("B"))
    with pytest.raises(IllegalMoveError, match="is not an Entropy move"):
        state.apply(object())  # type: ignore[arg-type]


# --- positions ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("position", "message"),
    [
        ("RRRRRRR/R6/7/7/7/7/7 draw", "8 R counters on the board; there are only 7 red counters"),
        ("RRRRRRR/7/7/7/7/7/7 chaos:R", "the drawn colour R is not in the bag: all 7 red"),
        ("7/7/7/7/7/7/7 chaos:X", "phase 'chaos:X': X is not a colour of this game"),
        ("7/7/7/7/7/7/7 chaos", "must be 'draw', 'chaos:<colour>'"),
        ("7/7/7/7/7/7/7 order", "phase 'order' on an empty board"),
        ("7/7/7/7/7/7/7 end", "phase 'end' with 49 empty squares"),
        ("7/7/7/7/7/7/7 white", "must be 'draw', 'chaos:<colour>'"),
        ("7/7/7/7/7/7/7 draw:R", "must be 'draw', 'chaos:<colour>'"),
        ("5/5/5/5/5 draw", "5 ranks in '5/5/5/5/5'; this board has 7"),
        ("8/7/7/7/7/7/7 draw", "rank 7 '8' has 8 squares, not 7"),
        ("7/7/7/7/7/7/7", "has 1 fields, expected 2"),
        ("7/7/7/7/7/7/r6 draw", "unknown character 'r'"),
        (
            "WWWWWWW/KKKKKKK/YYYYYYY/GGGGGGG/RRRRRRR/BBBBBBB/PPPPPPP draw",
            "on a full board: the last placement ends the game",
        ),
        (
            "WWWWWWW/KKKKKKK/YYYYYYY/GGGGGGG/RRRRRRR/BBBBBBB/PPPPPPP order",
            "on a full board",
        ),
    ],
)
def test_bad_positions_say_why(position: str, message: str) -> None:
    with pytest.raises(InvalidPositionError) as error:
        GAME.from_position(position)
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("position", "message"),
    [
        ("7/7/7/7/7/7/7 draw", "7 ranks in"),
        ("5/5/5/5/B4 draw", "unknown character 'B'"),
        ("WWWWW/W4/5/5/5 draw", "6 W counters on the board; there are only 5 white counters"),
        ("5/5/5/5/5 chaos:p", "phase 'chaos:p': p is not a colour of this game (W K Y G R)"),
    ],
)
def test_bad_positions_5x5(position: str, message: str) -> None:
    with pytest.raises(InvalidPositionError) as error:
        GAME5.from_position(position)
    assert message in str(error.value)


def test_positions_round_trip_and_phases_read_case_insensitively() -> None:
    state = GAME.from_position("7/7/7/3W3/7/7/7 Chaos:r")
    assert state.position() == "7/7/7/3W3/7/7/7 chaos:R"
    assert state.drawn == "R"
    assert state.bag()["R"] == 6
    assert state.bag()["W"] == 6
    assert GAME.from_position(state.position()) == state
    assert hash(GAME.from_position(state.position())) == hash(state)
    assert GAME.from_position("7/7/7/3W3/7/7/7 DRAW").to_move == CHANCE
    assert state != GAME.from_position("7/7/7/3W3/7/7/7 chaos:K")
    assert GAME5.initial_state() != GAME.initial_state()


def test_board_facts_for_people() -> None:
    state = GAME.from_position("7/7/7/3W3/7/7/7 chaos:R")
    assert state.describe() == ("score 0", "drawn: R", "bag W6 K7 Y7 G7 R6 B7 P7")
    assert state.cells() == state.board == "." * 24 + "W" + "." * 24
    assert GAME.board_width == 7 and GAME5.board_width == 5
    assert dict(GAME5.piece_colours) == {
        "W": "white",
        "K": "black",
        "Y": "yellow",
        "G": "green",
        "R": "red",
    }
    assert len(GAME.piece_colours) == 7


def test_pickle_and_text() -> None:
    state = play(GAME, 5)[60]
    assert pickle.loads(pickle.dumps(state)) == state
    text = str(GAME.from_position("7/7/7/3W3/7/7/7 chaos:R"))
    assert text.splitlines()[3] == "4 . . . W . . ."
    assert text.splitlines()[-1] == "score 0, Chaos to place R; bag W6 K7 Y7 G7 R6 B7 P7"
    assert repr(GAME.initial_state()) == "<EntropyState '7/7/7/7/7/7/7 draw'>"


# --- the 5×5 variant and the game object ----------------------------------------------------------


def test_registered() -> None:
    game = get_game("entropy")
    assert isinstance(game, EntropyGame)
    assert game == GAME
    assert game.initial_state().game == GAME


def test_variant_5x5() -> None:
    assert get_game("entropy", size=5) == GAME5 == parse_game_spec("entropy:size=5")
    game = GAME5
    assert game.spec == "entropy:size=5"
    assert GAME.spec == "entropy"
    assert game.colours == "WKYGR"
    assert game.max_length == 74
    state = game.initial_state()
    assert state.position() == "5/5/5/5/5 draw"
    assert state.bag() == dict.fromkeys("WKYGR", 5)
    state = state.apply("Y").apply("e5")
    assert state.position() == "4Y/5/5/5/5 order"
    assert {str(m) for m in state.legal_moves()} == {
        "pass",
        *(f"e5-{f}5" for f in "abcd"),
        *(f"e5-e{r}" for r in range(1, 5)),
    }
    assert timeout_move(state.apply("pass").apply("G")) == Placement("G", 0, size=5)


@pytest.mark.parametrize("size", [4, 6, 8, "7", True, None])
def test_bad_sizes(size: object) -> None:
    with pytest.raises(InvalidParameterError, match="size"):
        get_game("entropy", size=size)


@pytest.mark.parametrize(
    "size", [10**5000, "\x1b]0;title\x07" + "7" * 1_000_000], ids=["10**5000", "long text"]
)
def test_a_huge_size_is_quoted_briefly(size: object) -> None:
    with pytest.raises(InvalidParameterError, match="parameter size") as caught:
        get_game("entropy", size=size)
    assert len(str(caught.value)) < 150 and "\x1b" not in str(caught.value)


def test_messages_quote_moves_and_positions_briefly() -> None:
    state = GAME.initial_state().apply("R")
    for text in ("R@" + "d" * 1_000_000, "\x1b[2J" + "d4 " * 1_000_000, "d4" + " " * 50_000 + "!"):
        with pytest.raises(InvalidMoveError, match=r"^cannot read move '") as caught:
            state.apply(text)
        assert len(str(caught.value)) < 200 and "\x1b" not in str(caught.value)
    with pytest.raises(InvalidPositionError, match=r"^phase '") as caught:
        GAME.from_position("7/7/7/7/7/7/7 chaos:\x1b[2J" + "R" * 1_000_000)
    assert len(str(caught.value)) < 200 and "\x1b" not in str(caught.value)


def test_benchmarks_hook() -> None:
    runs = GAME.benchmarks(random.Random(1))
    assert set(runs) == {"boards scored"}
    assert runs["boards scored"]() == 1000
    assert GAME5.benchmarks(random.Random(1))["boards scored"]() == 1000


def test_same_seed_same_game() -> None:
    first = [s.position() for s in play(GAME, 11)]
    again = [s.position() for s in play(GAME, 11)]
    other = [s.position() for s in play(GAME, 12)]
    assert first == again
    assert first != other
    assert len(first) == 147


# The conformance kit runs over entropy and entropy:size=5 in tests/games/test_conformance.py.


# --- timeouts and the match -----------------------------------------------------------------------


def test_timeout_moves() -> None:
    state = GAME.from_position("WK5/7/7/7/7/7/KWY1G2 chaos:P")
    assert timeout_move(state) == Placement("P", 3)  # d1: a1, b1, c1 are taken
    assert str(timeout_move(GAME.from_position("7/7/7/7/7/7/WWWWWWW chaos:K"))) == "K@a2"
    assert timeout_move(GAME.from_position("7/7/7/7/7/7/W6 order")) is PASS
    with pytest.raises(IllegalMoveError, match="a draw from the bag is due"):
        timeout_move(GAME.initial_state())
    with pytest.raises(IllegalMoveError, match="the game is over"):
        timeout_move(play(GAME5, 1)[-1])


def test_timeout_move_on_the_game() -> None:
    state = GAME.from_position("7/7/7/7/7/7/WK5 chaos:P")
    assert GAME.timeout_move(state) == timeout_move(state) == Placement("P", 2)
    with pytest.raises(IllegalMoveError, match="is not a state of"):
        GAME5.timeout_move(state)


def test_a_game_played_by_timeout_moves_is_legal() -> None:
    rng = random.Random(3)
    state = GAME.initial_state()
    while not state.is_terminal():
        move = random_move(state, rng) if state.is_chance() else timeout_move(state)
        assert move in state.legal_moves()
        state = state.apply(move)
    assert state.score() == reference_board_score(state.board, 7)


def finished(score_of_board: str) -> EntropyState:
    return GAME.from_position(f"{score_of_board} end")


FULL_539 = "WWWWWWW/KKKKKKK/YYYYYYY/GGGGGGG/RRRRRRR/BBBBBBB/PPPPPPP"  # 7 × 77
FULL_301 = "PPPPPPP/BBBBBBB/RRRRRRR/KYGWGYK/KYGWGYK/WKYGYKW/GWKWYWG"


def test_match_roles_and_winner() -> None:
    match = GAME.new_match()
    assert isinstance(match, Match)
    assert match == EntropyMatch(GAME)
    assert GAME5.new_match(time_loss_forfeits=True) == EntropyMatch(GAME5, time_loss_forfeits=True)
    assert match.game == GAME
    assert match.game_number == 1
    assert (match.role_of(1), match.role_of(2)) == ("chaos", "order")
    assert (match.player_of("chaos"), match.player_of("order")) == (1, 2)
    assert match.result() is None
    match = match.record_game(finished(FULL_301))  # player 2 was Order
    assert match.game_number == 2
    assert (match.role_of(1), match.role_of(2)) == ("order", "chaos")
    assert match.role_of(1, game_number=1) == "chaos"
    assert match.order_score_of(2) == 301
    assert match.order_score_of(1) is None
    assert match.result() is None
    match = match.record_game(finished(FULL_539))  # player 1 was Order
    assert match.is_over()
    assert match.game_number is None
    assert match.order_scores == (301, 539)
    assert match.result() == MatchResult(
        1, "player 1 scored 539 as Order, player 2 scored 301", (539, 301)
    )
    with pytest.raises(MatchError, match="the match is over"):
        match.record_game(finished(FULL_539))
    with pytest.raises(MatchError, match="name the game"):
        match.role_of(1)
    assert match.player_of("order", game_number=2) == 1


def test_match_player_2_wins_and_draws() -> None:
    match = EntropyMatch(GAME).record_game(finished(FULL_539)).record_game(finished(FULL_301))
    result = match.result()
    assert result is not None
    assert result.winner == 2
    assert result.scores == (301, 539)
    match = EntropyMatch(GAME).record_game(finished(FULL_301)).record_game(finished(FULL_301))
    assert match.result() == MatchResult(None, "both players scored 301 as Order", (301, 301))


def test_match_resignation_ends_it_at_once() -> None:
    match = EntropyMatch(GAME).record_game(finished(FULL_301)).resign(1)
    assert match.is_over()
    assert match.result() == MatchResult(2, "player 1 resigned", (None, 301))
    with pytest.raises(MatchError, match="already over"):
        match.resign(2)
    with pytest.raises(MatchError, match="the match is over"):
        match.record_game(finished(FULL_301))
    assert EntropyMatch(GAME).resign(2).result() == MatchResult(
        1, "player 2 resigned", (None, None)
    )


def test_match_time_loss_only_where_it_forfeits() -> None:
    with pytest.raises(MatchError, match="keeps playing by timeout moves"):
        EntropyMatch(GAME).lose_on_time(1)
    match = EntropyMatch(GAME, time_loss_forfeits=True).lose_on_time(2)
    assert match.result() == MatchResult(1, "player 2 ran out of time", (None, None))


def test_match_refuses_bad_events() -> None:
    match = EntropyMatch(GAME)
    with pytest.raises(MatchError, match="not over"):
        match.record_game(GAME.initial_state())
    with pytest.raises(MatchError, match="is not a state of"):
        match.record_game(play(GAME5, 0)[-1])
    with pytest.raises(MatchError, match="numbered 1 and 2"):
        match.resign(3)
    with pytest.raises(MatchError, match="games 1 and 2"):
        match.role_of(1, game_number=3)
    with pytest.raises(MatchError, match="roles are"):
        match.player_of("referee")
    with pytest.raises(ValueError, match="played in Entropy, not in get_game"):
        EntropyMatch(get_game("orderchaos"))  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="size"):
        get_game("entropy", size=6)


def test_match_5x5_and_immutability() -> None:
    match = EntropyMatch(GAME5)
    assert match.size == 5
    final = play(GAME5, 4)[-1]
    after = match.record_game(final)
    assert match.order_scores == ()
    assert after.order_scores == (final.score(),)
    with pytest.raises(AttributeError):
        after.forfeited = (1, "resigned")  # type: ignore[misc]


@given(cells=st.text(alphabet="ABCDEFG.", min_size=49, max_size=49))
def test_the_marked_squares_are_those_of_the_scoring_palindromes(cells: str) -> None:
    # Straight from the definition: every run of two or more counters of a rank or a file that
    # reads the same both ways marks its squares; taking the other counters out scores the same.
    from abstractgames.entropy.scoring import line_score, scoring_squares

    lines = [list(range(r * 7, r * 7 + 7)) for r in range(7)]
    lines += [list(range(f, 49, 7)) for f in range(7)]
    expected: set[int] = set()
    for line in lines:
        for lo in range(7):
            for hi in range(lo + 1, 7):
                run = "".join(cells[i] for i in line[lo : hi + 1])
                if "." not in run and run == run[::-1]:
                    expected.update(line[lo : hi + 1])
    marked = scoring_squares(cells, 7)
    assert marked == expected
    for line in lines:
        kept = "".join(cells[i] if i in marked else "." for i in line)
        assert line_score(kept) == line_score("".join(cells[i] for i in line))
