"""The player kit over every registered player in every registered game, and on broken players."""

from __future__ import annotations

import random
import time

import pytest

from abstractgames import (
    Game,
    IllegalMoveError,
    Move,
    State,
    available_players,
    get_game,
)
from abstractgames.players import InvalidPlayerError, Player
from abstractgames.registry import describe_player, outside_code
from abstractgames.testing import check_player, player_properties
from tests.conftest import examples, game_specs
from tests.support.toygame import DiceRace, Pass, RaceState, Roll

# --- every registered player in every registered game ---------------------------------------------

GAMES = game_specs()


def quick(name: str) -> list[str]:
    """The player's specs: the search bot with fixed depths 1 and 2 (a fast search), another
    player that takes a depth with depth 1 alone (`proven`, `resist` and `perfect` hand their
    depth to the search bot where nothing is proven, whose depth 2 the search bot's own specs
    check: their depth 2 took 38 s of a core and checked nothing more), and a few simulations
    for a player that takes a number of them (OpenSpiel's MCTS)."""
    options = describe_player(name).options or {}
    if "depth" in options:
        return [f"{name}:depth=1", f"{name}:depth=2"] if name == "search" else [f"{name}:depth=1"]
    if "simulations" in options:
        return [f"{name}:simulations=20"]
    return [name]


PLAYERS = [
    spec
    for name in available_players()
    if outside_code(name) is None  # not a program, nor the bots from outside
    for spec in quick(name)
]
PROPERTIES = sorted(player_properties(PLAYERS[0], GAMES[0]))


def budget(player: str, prop: str) -> int:
    """The examples a property: 40 for playing only legal moves, the property that needs positions
    from every corner of the game, and 12 for the others (the same move from the same seed, the
    state left alone, the refusals), which hold or fail the same way in most positions; a fifth
    of that for a player that takes a number of simulations (`mc`, `openspiel-mcts`), each of
    whose moves plays every simulation to the end of the game. Over the 45 pairs of a player and
    a game that is some 3,700 positions a run, new ones each run; the `thorough` profile runs ten
    times as many."""
    count = 40 if prop == "plays_only_legal_moves" else 12
    options = describe_player(player.partition(":")[0]).options or {}
    return examples(count // 5 if "simulations" in options else count)


@pytest.mark.slow
@pytest.mark.parametrize("prop", PROPERTIES)
@pytest.mark.parametrize("player", PLAYERS)
@pytest.mark.parametrize("game", GAMES)
def test_player_conformance(game: str, player: str, prop: str) -> None:
    player_properties(player, game, max_examples=budget(player, prop))[prop]()


# --- the kit catches broken players ---------------------------------------------------------------

TOY = DiceRace()
BUDGET, SLACK = 0.01, 0.5  # a slack a loaded machine never needs for a trivial bot


class Careful(Player):
    """A correct bot for the toy game: a random legal move, and no move where there is none."""

    def __init__(self, game: Game | None = None) -> None:
        self.game = game

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        if state.is_terminal() or state.is_chance():
            raise IllegalMoveError(f"no move to choose in {state.position()}")
        return self.pick(state, rng, time_left)

    def pick(self, state: State, rng: random.Random, time_left: float | None) -> Move:
        return rng.choice(state.legal_moves())


class PlaysIllegalMoves(Careful):
    """Rolls the die itself."""

    def pick(self, state: State, rng: random.Random, time_left: float | None) -> Move:
        return Roll(1)


class MutatesTheState(Careful):
    """Hands the turn to the opponent to look at its replies, and forgets to hand it back."""

    def pick(self, state: State, rng: random.Random, time_left: float | None) -> Move:
        assert isinstance(state, RaceState)
        move = rng.choice(state.legal_moves())
        other = "second" if state.player == "first" else "first"
        object.__setattr__(state, "player", other)  # what a make/unmake bug does to a board
        return move


class UsesTheGlobalRandom(Careful):
    """Draws from the random module instead of the rng it is given."""

    def pick(self, state: State, rng: random.Random, time_left: float | None) -> Move:
        return random.choice(state.legal_moves())


class OverstepsTheClock(Careful):
    """Thinks past the time left whenever it is on a clock."""

    def pick(self, state: State, rng: random.Random, time_left: float | None) -> Move:
        if time_left is not None:
            time.sleep(time_left + SLACK + 0.02)  # sleep never returns early
        return super().pick(state, rng, time_left)


class PlaysOnAfterTheEnd(Careful):
    """Passes in a finished game instead of refusing it."""

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        return Pass() if state.is_terminal() else super().choose(state, rng, time_left)


class Naive(Player):
    """The shortest bot: a random legal move, with no thought for states without one."""

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        return rng.choice(state.legal_moves())


def failing(player: type[Player]) -> set[str]:
    """The names of the player kit's properties that ``player`` fails in the toy game."""
    failed = set()
    properties = player_properties(player, TOY, max_examples=30, time_budget=BUDGET, slack=SLACK)
    for name, prop in properties.items():
        try:
            prop()
        except AssertionError:
            failed.add(name)
    return failed


@pytest.mark.slow
@pytest.mark.parametrize(
    ("player", "fails"),
    [
        (Careful, set()),
        (PlaysIllegalMoves, {"plays_only_legal_moves"}),
        (MutatesTheState, {"never_mutates_the_state"}),
        (UsesTheGlobalRandom, {"same_seed_same_move"}),
        (OverstepsTheClock, {"answers_within_the_time_budget"}),
        (PlaysOnAfterTheEnd, {"refuses_finished_games"}),
        (Naive, {"refuses_finished_games", "refuses_chance_nodes"}),
    ],
)
def test_the_kit_catches_broken_players(player: type[Player], fails: set[str]) -> None:
    assert failing(player) == fails


@pytest.mark.slow
def test_check_player_takes_a_player_a_class_a_factory_or_a_spec() -> None:
    check_player(Careful(), TOY, max_examples=10)
    check_player(Careful, TOY, max_examples=10)
    check_player(lambda game: Careful(game), "orderchaos", max_examples=10)
    check_player("random", TOY, max_examples=10)
    with pytest.raises(AssertionError, match="drew from the random module"):
        check_player(UsesTheGlobalRandom, TOY, max_examples=10)
    with pytest.raises(AssertionError, match=r"raised IndexError\(.*raise an abstractgames"):
        check_player(Naive(), TOY, max_examples=10)


def test_check_player_refuses_what_is_no_player() -> None:
    with pytest.raises(InvalidPlayerError, match="unknown player 'nobody'"):
        check_player("nobody", TOY)
    with pytest.raises(InvalidPlayerError, match="not a Player"):
        check_player(lambda game: "a bot", TOY)  # type: ignore[arg-type, return-value]
    with pytest.raises(InvalidPlayerError, match="is not a player"):
        check_player(42, TOY)  # type: ignore[arg-type]


def test_the_kit_closes_the_players_it_makes_and_only_those() -> None:
    made: list[Careful] = []

    class Counted(Careful):
        closed = 0

        def __init__(self, game: Game) -> None:
            super().__init__(game)
            made.append(self)

        def close(self) -> None:
            self.closed += 1

    check_player(Counted, get_game("orderchaos"), max_examples=5)
    assert len(made) > 6
    assert all(bot.closed == 1 for bot in made)
    mine = Counted(TOY)
    check_player(mine, TOY, max_examples=5)
    assert mine.closed == 0
