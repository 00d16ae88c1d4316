"""The game conformance kit (`abstractgames.testing`) over every registered game and its
variants, and on broken games: it must catch them."""

from __future__ import annotations

import attrs
import pytest

from abstractgames import IllegalMoveError, Move, get_game, parse_game_spec
from abstractgames.dispersal import DispersalGame
from abstractgames.entropy import EntropyState
from abstractgames.orderchaos import OrderChaosGame
from abstractgames.testing import check_game, conformance_properties
from tests.conftest import examples, game_specs
from tests.support.toygame import DiceRace, RaceState

SPECS = game_specs(rules=True)
PROPERTIES = sorted(conformance_properties(get_game("orderchaos")))


@pytest.mark.parametrize("prop", PROPERTIES)
@pytest.mark.parametrize("spec", SPECS)
def test_conformance(spec: str, prop: str) -> None:
    conformance_properties(parse_game_spec(spec), max_examples=examples(60))[prop]()


# --- the kit catches a broken game ----------------------------------------------------------------


def test_the_kit_passes_on_a_correct_user_game() -> None:
    check_game(DiceRace(), max_examples=50)


class _NoPassesInPosition(DiceRace):
    """Forgets the pass count when reading a position: the round trip must catch it."""

    def from_position(self, text: str) -> RaceState:
        return attrs.evolve(super().from_position(text), passes=0)


class _RefusesPass(DiceRace):
    def initial_state(self) -> RaceState:
        return _RefusingState(self, 0, "roll", 0, "first", None)


@attrs.frozen
class _RefusingState(RaceState):
    """Lists "pass" as legal but refuses it: the kit must catch it."""

    def apply(self, move: object) -> RaceState:
        if str(move) == "pass":
            raise IllegalMoveError("pass refused")
        state = super().apply(move)  # type: ignore[arg-type]
        return _RefusingState(*attrs.astuple(state, recurse=False))


@pytest.mark.parametrize(
    ("game", "failing"),
    [(_NoPassesInPosition(), "position_round_trip"), (_RefusesPass(), "legal_moves_round_trip")],
)
def test_the_kit_catches_broken_games(game: DiceRace, failing: str) -> None:
    prop = conformance_properties(game, max_examples=200)[failing]
    with pytest.raises(Exception):  # noqa: B017 - the property may fail while drawing states
        prop()
    with pytest.raises(AssertionError):
        check_game(game, max_examples=200)


# --- the kit catches a broken encoding ------------------------------------------------------------


class _OffByOne(OrderChaosGame):
    def action_of(self, move: Move) -> int:
        return super().action_of(move) + 1


class _FromToSwapped(DispersalGame):
    def action_of(self, move: Move) -> int:
        action = super().action_of(move)
        return action if action == 625 else action % 25 * 25 + action // 25


@pytest.mark.parametrize("game", [_OffByOne(), _FromToSwapped()], ids=type)
def test_the_kit_catches_a_broken_action_of(game: OrderChaosGame | DispersalGame) -> None:
    with pytest.raises(AssertionError):
        conformance_properties(game, max_examples=50)["actions_round_trip"]()


def test_the_kit_catches_unsorted_legal_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    def unsorted(self: EntropyState) -> tuple[int, ...]:
        return tuple(self.game.action_of(move) for move in self.legal_moves())  # pass first

    # From an Order turn, whose first move (the pass) has the largest action: random states
    # from the start missed it once in forty runs.
    game = get_game("entropy", size=5)
    start = game.from_position("4G/5/5/5/5 order")
    assert unsorted(start) != start.legal_actions()
    prop = conformance_properties(game, max_examples=50, starts=[start])["actions_round_trip"]
    prop()
    monkeypatch.setattr(EntropyState, "legal_actions", unsorted)
    with pytest.raises(AssertionError, match="legal_actions"):
        prop()
