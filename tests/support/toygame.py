"""A tiny game with a chance node, written against the protocol as a user would, for the kit.

"Dice race": a die (1 or 2, a chance event) is rolled, then the player to move adds the roll or
passes; the first to bring the shared total to exactly 6 wins; passing twice in a row is a draw.
Position: ``<total> <roll or phase> <passes> <player>``, e.g. ``"3 roll 0 first"``.
"""

from __future__ import annotations

import attrs

from abstractgames import (
    CHANCE,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Move,
    Outcome,
    State,
)

TARGET = 6


@attrs.frozen
class Roll(Move):
    value: int

    def __str__(self) -> str:
        return f"roll{self.value}"


@attrs.frozen
class Add(Move):
    def __str__(self) -> str:
        return "add"


@attrs.frozen
class Pass(Move):
    def __str__(self) -> str:
        return "pass"


class DiceRace(Game):
    name = "dicerace"
    roles = ("first", "second")
    max_length = 40

    def initial_state(self) -> RaceState:
        return RaceState(self, 0, "roll", 0, "first", None)

    def from_position(self, text: str) -> RaceState:
        parts = text.split() if isinstance(text, str) else []
        if len(parts) != 4:
            raise InvalidPositionError(f"bad position {text!r}")
        total, phase, passes, player = parts
        if not total.isdigit() or not passes.isdigit() or player not in self.roles:
            raise InvalidPositionError(f"bad position {text!r}")
        if int(total) > TARGET or int(passes) > 2 or phase not in ("roll", "1", "2", "end"):
            raise InvalidPositionError(f"bad position {text!r}")
        roll = None if phase in ("roll", "end") else int(phase)
        if phase == "end" and int(total) != TARGET:
            raise InvalidPositionError(f"bad position {text!r}")
        if phase != "end" and int(total) == TARGET:
            raise InvalidPositionError(f"bad position {text!r}")
        return RaceState(
            self,
            int(total),
            "end" if phase == "end" else "roll" if roll is None else "move",
            int(passes),
            player,
            roll,
        )

    def parse_move(self, text: str, state: State) -> Move:
        text = text.strip().lower() if isinstance(text, str) else ""
        if text in ("roll1", "roll2"):
            return Roll(int(text[-1]))
        if text == "add":
            return Add()
        if text == "pass":
            return Pass()
        raise InvalidMoveError(f"cannot read {text!r}")


@attrs.frozen
class RaceState(State):
    _game: DiceRace
    total: int
    phase: str  # roll, move, end
    passes: int
    player: str
    roll: int | None

    @property
    def game(self) -> DiceRace:
        return self._game

    @property
    def to_move(self) -> str | None:
        if self.phase == "end" or self.passes >= 2:
            return None
        return CHANCE if self.phase == "roll" else self.player

    def legal_moves(self) -> tuple[Move, ...]:
        if self.to_move is None:
            return ()
        if self.to_move == CHANCE:
            return (Roll(1), Roll(2))
        assert self.roll is not None
        return (Add(), Pass()) if self.total + self.roll <= TARGET else (Pass(),)

    def chance_outcomes(self) -> tuple[tuple[Move, float], ...]:
        if self.to_move != CHANCE:
            return super().chance_outcomes()
        return ((Roll(1), 0.5), (Roll(2), 0.5))

    def apply(self, move: Move | str) -> RaceState:
        if isinstance(move, str):
            move = self._game.parse_move(move, self)
        if move not in self.legal_moves():
            raise IllegalMoveError(f"illegal move {move} in {self.position()}")
        other = "second" if self.player == "first" else "first"
        if isinstance(move, Roll):
            return attrs.evolve(self, phase="move", roll=move.value)
        assert self.roll is not None
        if isinstance(move, Add):
            total = self.total + self.roll
            phase = "end" if total == TARGET else "roll"
            player = self.player if total == TARGET else other
            return RaceState(self._game, total, phase, 0, player, None)
        return RaceState(self._game, self.total, "roll", self.passes + 1, other, None)

    def outcome(self) -> Outcome | None:
        if self.phase == "end":
            loser = "second" if self.player == "first" else "first"
            return Outcome(self.player, {self.player: 1, loser: 0}, "reached the target")
        if self.passes >= 2:
            return Outcome(None, {"first": 0.5, "second": 0.5}, "both passed")
        return None

    def position(self) -> str:
        phase = "end" if self.phase == "end" else "roll" if self.roll is None else str(self.roll)
        return f"{self.total} {phase} {self.passes} {self.player}"
