"""Integer actions, observations and returns of the built-in games: the encodings are fixed
forever, so golden tables pin them down; the conformance kit must notice a broken one."""

from __future__ import annotations

import random

import numpy as np
import pytest

from abstractgames import (
    CHANCE,
    IllegalMoveError,
    InvalidMoveError,
    InvalidParameterError,
    Move,
    State,
    get_game,
    parse_game_spec,
    random_move,
)
from abstractgames.dispersal import PASS as DISPERSAL_PASS
from abstractgames.entropy import PASS, Draw, Placement, Slide, line_code, line_scores
from tests.conftest import game_specs

SPECS = game_specs(rules=True)

# --- golden tables --------------------------------------------------------------------------------

E7 = "7/7/7/7/7/7/7"
E5 = "5/5/5/5/5"

GOLDEN = {
    "orderchaos": [
        (0, "X@a1", "6/6/6/6/6/6 order"),
        (1, "O@a1", "6/6/6/6/6/6 order"),
        (2, "X@b1", "6/6/6/6/6/6 order"),
        (10, "X@f1", "6/6/6/6/6/6 order"),
        (12, "X@a2", "6/6/6/6/6/6 order"),
        (28, "X@c3", "6/6/6/6/6/6 order"),
        (29, "O@c3", "6/6/6/6/6/X5 chaos"),
        (61, "O@a6", "6/6/6/6/6/X5 chaos"),
        (70, "X@f6", "6/6/6/6/6/6 order"),
        (71, "O@f6", "6/6/6/6/6/6 order"),
    ],
    "entropy": [
        (0, "W", f"{E7} draw"),
        (4, "R", f"{E7} draw"),
        (6, "P", f"{E7} draw"),
        (0, "R@a1", f"{E7} chaos:R"),
        (24, "K@d4", f"{E7} chaos:K"),
        (48, "P@g7", f"{E7} chaos:P"),
        (49, "a1-a2", "7/7/7/7/7/7/R6 order"),
        (54, "a1-a7", "7/7/7/7/7/7/R6 order"),
        (55, "a1-b1", "7/7/7/7/7/7/R6 order"),
        (60, "a1-g1", "7/7/7/7/7/7/R6 order"),
        (625, "d4-d5", "7/7/7/3R3/7/7/7 order"),
        (627, "d4-d7", "7/7/7/3R3/7/7/7 order"),
        (631, "d4-e4", "7/7/7/3R3/7/7/7 order"),
        (633, "d4-g4", "7/7/7/3R3/7/7/7 order"),
        (637, "d4-d3", "7/7/7/3R3/7/7/7 order"),
        (639, "d4-d1", "7/7/7/3R3/7/7/7 order"),
        (643, "d4-c4", "7/7/7/3R3/7/7/7 order"),
        (645, "d4-a4", "7/7/7/3R3/7/7/7 order"),
        (1213, "g7-g6", "6R/7/7/7/7/7/7 order"),
        (1218, "g7-g1", "6R/7/7/7/7/7/7 order"),
        (1224, "g7-a7", "6R/7/7/7/7/7/7 order"),
        (1225, "pass", "6R/7/7/7/7/7/7 order"),
    ],
    "entropy:size=5": [
        (0, "W", f"{E5} draw"),
        (4, "R", f"{E5} draw"),
        (0, "W@a1", f"{E5} chaos:W"),
        (12, "G@c3", f"{E5} chaos:G"),
        (24, "R@e5", f"{E5} chaos:R"),
        (25, "a1-a2", "5/5/5/5/R4 order"),
        (28, "a1-a5", "5/5/5/5/R4 order"),
        (29, "a1-b1", "5/5/5/5/R4 order"),
        (217, "c3-c4", "5/5/2R2/5/5 order"),
        (221, "c3-d3", "5/5/2R2/5/5 order"),
        (225, "c3-c2", "5/5/2R2/5/5 order"),
        (229, "c3-b3", "5/5/2R2/5/5 order"),
        (417, "e5-e4", "4R/5/5/5/5 order"),
        (424, "e5-a5", "4R/5/5/5/5 order"),
        (425, "pass", "4R/5/5/5/5 order"),
    ],
    "dispersal": [
        (1, "a1-b1", "S4/5/5/O4/O4 O"),
        (5, "a1-a2", "S4/5/5/5/OO3 O"),
        (6, "a1-b2", "S4/5/5/5/OO3 O"),
        (24, "a1-e5", "S4/5/5/5/OO3 O"),
        (25, "b1-a1", "S4/5/5/1O3/1O3 O"),
        (136, "a2-b3", "S4/5/5/O4/O4 O"),
        (317, "c3-c4", "S4/5/2O2/2O2/5 O"),
        (600, "e5-a1", "4S/4S/5/5/4O S"),
        (623, "e5-d5", "4S/4S/5/5/4O S"),
        (625, "pass", "S4/5/5/5/O4 O"),
    ],
}
GOLDEN_ROWS = [(spec, *row) for spec, rows in GOLDEN.items() for row in rows]

SIZES = {
    # spec: (num_distinct_actions, max_chance_outcomes, observation_shape)
    "orderchaos": (72, 0, (4, 6, 6)),
    "entropy": (1226, 7, (24, 7, 7)),
    "entropy:size=5": (426, 5, (18, 5, 5)),
    "dispersal": (626, 0, (8, 5, 5)),
    "dispersal:max_plies=12": (626, 0, (8, 5, 5)),
}


@pytest.mark.parametrize(("spec", "action", "text", "position"), GOLDEN_ROWS)
def test_golden_actions(spec: str, action: int, text: str, position: str) -> None:
    game = parse_game_spec(spec)
    state = game.from_position(position)
    move = game.parse_move(text, state)
    assert str(move) == text
    assert game.action_of(move) == action
    assert game.move_of(action, state) == move
    assert action in state.legal_actions()
    assert state.apply_action(action) == state.apply(move)


@pytest.mark.parametrize("spec", sorted(SIZES))
def test_declared_sizes(spec: str) -> None:
    game = parse_game_spec(spec)
    expected = SIZES[spec]
    assert (game.num_distinct_actions, game.max_chance_outcomes, game.observation_shape) == expected
    assert game.returns_range == (-1.0, 1.0)
    state = game.initial_state()
    assert state.observation_tensor(game.roles[0]).shape == expected[2]


@pytest.mark.parametrize("spec", SPECS)
def test_every_game_declares_actions_and_observations(spec: str) -> None:
    """So the conformance kit's action and observation properties check something."""
    game = parse_game_spec(spec)
    assert game.num_distinct_actions > 0
    assert game.observation_shape
    assert all(side > 0 for side in game.observation_shape)


def test_entropy_slide_slots_off_the_board_name_no_move() -> None:
    """Every slot of a slide off the board is refused, and every rook slide has its own slot."""
    for size in (5, 7):
        game = get_game("entropy", size=size)
        n, squares = size, size * size
        state = game.from_position("/".join([str(n)] * (n - 1) + [f"R{n - 1}"]) + " order")
        slots = range(squares, game.num_distinct_actions - 1)
        on_board = []
        for action in slots:
            origin, rest = divmod(action - squares, 4 * (n - 1))
            direction, distance = divmod(rest, n - 1)
            rank, file = divmod(origin, n)
            df, dr = ((0, 1), (1, 0), (0, -1), (-1, 0))[direction]
            file, rank = file + df * (distance + 1), rank + dr * (distance + 1)
            if 0 <= file < n and 0 <= rank < n:
                slide = game.move_of(action, state)
                assert slide == Slide(origin, rank * n + file, size=n)
                on_board.append(action)
            else:
                with pytest.raises(InvalidMoveError, match="is a slide off the board"):
                    game.move_of(action, state)
        # Each of the 2n lines has n(n-1) ordered pairs of squares.
        assert len(on_board) == 2 * n * n * (n - 1)


# --- observations ---------------------------------------------------------------------------------


def test_entropy_observation_planes() -> None:
    game = get_game("entropy")
    state = game.from_position("7/7/7/3R3/7/7/W6 chaos:K")
    obs = state.observation_tensor("chaos")
    assert obs.dtype == np.float32
    assert np.array_equal(obs, state.observation_tensor("order"))
    w, k, r = (game.colours.index(c) for c in "WKR")
    assert obs[w, 0, 0] == 1 and obs[w].sum() == 1  # [plane, rank, file]: a1
    assert obs[r, 3, 3] == 1 and obs[r].sum() == 1  # d4
    assert obs[:7].sum() == 2
    empty = obs[7]
    assert empty.sum() == 47 and empty[0, 0] == 0 and empty[3, 3] == 0 and empty[6, 6] == 1
    drawn = obs[8:15]
    assert np.all(drawn[k] == 1) and drawn.sum() == 49
    bag = obs[15:22, 0, 0] * 7
    assert np.allclose(bag, [6, 6, 7, 7, 6, 7, 7])  # W and R on the board, K drawn
    assert np.all(obs[15:22] == obs[15:22, :1, :1])  # constant planes
    assert np.all(obs[22] == 1) and np.all(obs[23] == 0)  # Chaos to move
    order = game.from_position("7/7/7/3R3/7/7/W6 order").observation_tensor("order")
    assert np.all(order[8:15] == 0) and np.all(order[22] == 0) and np.all(order[23] == 1)
    assert np.array_equal(np.asarray(state.observation("chaos"), dtype=np.float32), obs.ravel())


def test_entropy_observation_hides_the_next_draw() -> None:
    """At a chance node the drawn planes are zero, and the observation is the position's alone."""
    game = get_game("entropy", size=5)
    rng = random.Random(3)
    state = game.initial_state()
    chance_nodes = 0
    while not state.is_terminal():
        if state.to_move == CHANCE:
            chance_nodes += 1
            obs = state.observation_tensor("order")
            assert np.all(obs[6:11] == 0)  # drawn planes
            assert np.all(obs[16:18] == 0)  # nobody to move
            again = game.from_position(state.position())
            assert again.observation("order") == state.observation("order")
            assert again.observation("chaos") == state.observation("order")
        state = state.apply(random_move(state, rng))
    assert chance_nodes == 25


def test_dispersal_observation_planes() -> None:
    game = get_game("dispersal", max_plies=12)
    state = game.from_position("S4/5/5/5/OO3 O")
    obs = state.observation_tensor("O")
    assert np.array_equal(obs, state.observation_tensor("S"))
    assert obs[0, 0, 0] == obs[0, 0, 1] == 1 and obs[0].sum() == 2  # O on a1, b1
    assert obs[1, 4, 0] == 1 and obs[1].sum() == 1  # S on a5
    assert obs[2].sum() == 22
    assert np.all(obs[3] == 1)  # O to move
    assert obs[4].sum() == 0  # O is not in check (S's a5 is isolated, but S is not to move)
    assert np.all(obs[5:8] == 0)  # no pass, ply 0, first occurrence
    moved = state.apply("a1-a2")
    obs = moved.observation_tensor("S")
    assert np.all(obs[3] == 0)
    assert obs[4, 4, 0] == 1 and obs[4].sum() == 1  # S in check: a5 isolated
    assert np.allclose(obs[6], 1 / 12)
    assert moved.legal_moves() == (DISPERSAL_PASS,)
    passed = moved.apply("pass")
    obs = passed.observation_tensor("O")
    assert np.all(obs[5] == 1) and np.allclose(obs[6], 2 / 12)
    assert np.all(passed.apply("a2-a3").observation_tensor("O")[5] == 0)


def test_dispersal_observation_counts_repetitions() -> None:
    game = get_game("dispersal")
    state = game.from_position("3SS/5/5/5/OO3 O")
    cycle = ["a1-a2", "e5-e4", "a2-a1", "e4-e5"]
    seen = []
    for _ in range(2):
        for move in cycle:
            state = state.apply(move)
        seen.append(state.observation_tensor("O")[7])
        assert state.position() == "3SS/5/5/5/OO3 O"
    assert np.allclose(seen[0], 1 / 3) and np.allclose(seen[1], 2 / 3)
    assert state.outcome() is not None and state.outcome().reason == "threefold repetition"
    assert state.returns() == {"O": 0.0, "S": 0.0}
    fresh = game.from_position(state.position())
    assert np.all(fresh.observation_tensor("O")[7] == 0)


@pytest.mark.parametrize("spec", ["orderchaos", "entropy", "dispersal"])
def test_observation_refuses_an_unknown_role(spec: str) -> None:
    state = parse_game_spec(spec).initial_state()
    with pytest.raises(InvalidParameterError, match="is not a role"):
        state.observation("nobody")


# --- returns --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("size", "bound"), [(7, 1078), (5, 300)])
def test_entropy_score_bound(size: int, bound: int) -> None:
    game = get_game("entropy", size=size)
    assert game.score_bound == bound
    one_colour = line_scores(size)[line_code("R" * size)]
    assert game.score_bound == 2 * size * one_colour  # every rank and file of one colour


def test_entropy_returns_are_the_score_over_the_bound() -> None:
    game = get_game("entropy", size=5)
    final = game.from_position("WWWWW/KKKKK/YYYYY/GGGGG/RRRRR end")
    assert final.score() == 150
    assert final.returns() == {"chaos": -0.5, "order": 0.5}
    assert game.from_position("WWWWW/KKKKK/YYYYY/GGGGG/RRRR1 draw").returns() == {
        "chaos": 0.0,
        "order": 0.0,
    }
    big = get_game("entropy")
    state = big.initial_state()
    rng = random.Random(8)
    while not state.is_terminal():
        assert state.returns() == {"chaos": 0.0, "order": 0.0}
        state = state.apply(random_move(state, rng))
    assert state.score() > 0
    assert state.returns() == {"chaos": -state.score() / 1078, "order": state.score() / 1078}


def test_dispersal_returns() -> None:
    game = get_game("dispersal")
    state = game.from_position("S1O1O/O1SOS/S4/OOSSO/S4 S")
    assert state.returns() == {"O": 0.0, "S": 0.0}
    assert state.apply("d2-e1").returns() == {"O": -1.0, "S": 1.0}
    limit = get_game("dispersal", max_plies=1).initial_state().apply("a2-a3")
    assert limit.outcome() is not None and limit.outcome().winner is None
    assert limit.returns() == {"O": 0.0, "S": 0.0}


# --- errors ---------------------------------------------------------------------------------------

ENTROPY_ERRORS = [
    # (position, action, message)
    (f"{E7} draw", 7, r"chance outcome 7 is not in 0\.\.6 of entropy"),
    (f"{E7} draw", -1, r"chance outcome -1 is not in 0\.\.6"),
    (f"{E7} draw", True, "is an integer, not True"),
    (f"{E7} draw", "3", "is an integer, not '3'"),
    ("7/7/7/7/7/7/R6 order", 1226, r"action 1226 is not in 0\.\.1225 of entropy"),
    ("7/7/7/7/7/7/R6 order", 3, "action 3 places a counter on d1, but order is to move"),
    ("7/7/7/7/7/7/R6 order", 61, r"action 61 is a slide off the board \(a1 down by 1\)"),
    ("7/7/7/7/7/7/R6 order", 1.0, "is an integer, not 1.0"),
    ("7/7/7/7/7/7/R6 chaos:K", 49, "action 49 is Order's slide a1-a2, but chaos is to move"),
    ("7/7/7/7/7/7/R6 chaos:K", 1225, "action 1225 is Order's pass, but chaos is to move"),
    ("7/7/7/7/7/7/R6 chaos:K", "d4", "is an integer, not 'd4'"),
]


@pytest.mark.parametrize(("position", "action", "message"), ENTROPY_ERRORS)
def test_entropy_move_of_refuses(position: str, action: object, message: str) -> None:
    game = get_game("entropy")
    state = game.from_position(position)
    with pytest.raises(InvalidMoveError, match=message):
        game.move_of(action, state)  # type: ignore[arg-type]
    with pytest.raises(InvalidMoveError, match=message):
        state.apply_action(action)  # type: ignore[arg-type]


def test_entropy_move_of_after_the_end() -> None:
    game = get_game("entropy", size=5)
    final = game.from_position("WWWWW/KKKKK/YYYYY/GGGGG/RRRRR end")
    assert final.legal_actions() == ()
    for action, what in [(0, "places a counter on a1"), (425, "is Order's pass")]:
        with pytest.raises(InvalidMoveError, match=f"action {action} {what}, but the game is over"):
            game.move_of(action, final)


@pytest.mark.parametrize(
    ("spec", "action", "message"),
    [
        ("dispersal", 0, "action 0 names no move: a1 to a1"),
        ("dispersal", 624, "action 624 names no move: e5 to e5"),
        ("dispersal", 626, r"action 626 is not in 0\.\.625 of dispersal"),
        ("dispersal", -1, r"action -1 is not in 0\.\.625"),
        ("dispersal", False, "is an integer, not False"),
        ("dispersal", "pass", "is an integer, not 'pass'"),
        ("orderchaos", 72, r"action 72 is not in 0\.\.71 of orderchaos"),
        ("orderchaos", True, "is an integer, not True"),
        ("orderchaos", "0", "is an integer, not '0'"),
    ],
)
def test_move_of_refuses(spec: str, action: object, message: str) -> None:
    game = parse_game_spec(spec)
    with pytest.raises(InvalidMoveError, match=message):
        game.move_of(action, game.initial_state())  # type: ignore[arg-type]


def test_move_of_accepts_numpy_integers() -> None:
    game = get_game("entropy")
    state = game.from_position("7/7/7/7/7/7/R6 order")
    assert game.move_of(np.int64(49), state) == Slide(0, 7)  # type: ignore[arg-type]
    assert get_game("dispersal").move_of(np.int32(625), state) == DISPERSAL_PASS  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("spec", "move", "message"),
    [
        ("entropy", Slide(0, 8), "a1-b2 is not a slide along a rank or file"),
        ("entropy", Slide(0, 1, size=5), r"is for the 5×5 board, not entropy"),
        ("entropy", Placement("R", 0, size=5), r"is for the 5×5 board, not entropy"),
        ("entropy:size=5", Slide(0, 1), r"is for the 7×7 board, not entropy:size=5"),
        ("entropy:size=5", Draw("P"), r"Draw\('P'\) is not a move of entropy:size=5"),
        ("entropy", DISPERSAL_PASS, "is not a move of entropy"),
        ("entropy", "pass", "is not a move of entropy"),
        ("dispersal", PASS, "is not a dispersal Entropy move"),
        ("dispersal", Slide(0, 1), "is not a dispersal Entropy move"),
        ("orderchaos", PASS, "is not an Order and Chaos move"),
    ],
)
def test_action_of_refuses(spec: str, move: Move, message: str) -> None:
    with pytest.raises(InvalidMoveError, match=message):
        parse_game_spec(spec).action_of(move)


@pytest.mark.parametrize(
    ("spec", "position", "action", "reason"),
    [
        ("entropy", "7/7/7/7/7/7/RR5 order", 55, "b1 is occupied"),
        ("entropy", "7/7/7/7/7/7/R6 order", 73, "there is no counter on b1"),
        ("entropy", "7/7/7/7/7/7/R6 chaos:K", 0, "a1 is occupied"),
        ("entropy:size=5", "WWWWW/5/5/5/5 draw", 0, "no W counter is left in the bag"),
        ("dispersal", "SSSSS/S3S/5/O3O/OOOOO O", 317, "c3 is empty"),
        ("dispersal", "SSSSS/S3S/5/O3O/OOOOO O", 625, "a legal move exists"),
        ("orderchaos", "6/6/6/6/6/X5 chaos", 1, "a1 is occupied"),
    ],
)
def test_apply_action_of_an_illegal_move(
    spec: str, position: str, action: int, reason: str
) -> None:
    """A well-formed action of an illegal move is refused as illegal, not as unreadable."""
    game = parse_game_spec(spec)
    state = game.from_position(position)
    assert action not in state.legal_actions()
    with pytest.raises(IllegalMoveError, match=reason) as refused:
        state.apply_action(action)
    assert not isinstance(refused.value, InvalidMoveError)


def test_legal_actions_match_legal_moves_in_long_games() -> None:
    """The fast `legal_actions` of each game against the definition, over whole random games."""
    rng = random.Random(11)
    for spec in ["entropy", "entropy:size=5", "dispersal"]:
        game = parse_game_spec(spec)
        for _ in range(3):
            state: State = game.initial_state()
            while not state.is_terminal():
                actions = state.legal_actions()
                assert actions == tuple(sorted(game.action_of(m) for m in state.legal_moves()))
                state = state.apply_action(rng.choice(actions))
            assert state.legal_actions() == ()
