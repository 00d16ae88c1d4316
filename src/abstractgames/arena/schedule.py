"""What a tournament plays: the round robin, its seeds, and one match played by the referee.

The schedule follows from the game, the players, the number of games and the seed alone. Every
match is an independent, picklable :class:`MatchTask` that :func:`play_match` plays in any
process.
"""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Iterator, Sequence
from typing import overload

import attrs

from ..players import Player
from ..protocol import Game
from ..referee import Referee
from ..registry import make_player, parse_game_spec
from .errors import ArenaError, MatchInterrupted

__all__ = ["ARENA_VERSION", "MatchTask", "Schedule", "Tasks", "play_match", "round_seed"]

ARENA_VERSION = 1
"""The version of the arena: of its seeds (:func:`round_seed`), JSON results and state files."""


@attrs.frozen
class MatchTask:
    """One match of a tournament: everything a worker needs to play it.

    Attributes:
        number: the match's place in the schedule (1, 2, …).
        round: its pairing (1, 2, …): the two matches of a pairing share the seed, seats swapped.
        game: the game spec, e.g. ``"entropy:size=5"``.
        players: the specs of player 1 and player 2.
        seed: the match seed.
    """

    number: int
    round: int
    game: str
    players: tuple[str, str]
    seed: int

    @property
    def key(self) -> tuple[int, str, str]:
        """What identifies the match across runs: its round and its players in their seats."""
        return (self.round, *self.players)


def round_seed(seed: int, round: int) -> int:
    """The seed of every match of ``round`` in the tournament with ``seed`` (a 32-bit number).

    Every pair of players plays round ``r`` on the same seed, and different tournament seeds share
    no rounds.
    """
    digest = hashlib.sha256(f"abstractgames-arena/{seed}/{round}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


class Tasks(Sequence[MatchTask]):
    """The matches of a round robin in schedule order, each made when asked for.

    A schedule of any length costs only its pairs of players: round ``r`` holds every pair in
    both seats, on :func:`round_seed` ``(seed, r)``. Slices are lists.
    """

    def __init__(self, game: str, players: tuple[str, ...], games: int, seed: int) -> None:
        self._game = game
        self._seed = seed
        self._rounds = games // 2
        self._seats = [
            seats
            for i, first in enumerate(players)
            for second in players[i + 1 :]
            for seats in ((first, second), (second, first))
        ]
        self._places = {seats: place for place, seats in enumerate(self._seats)}

    def __len__(self) -> int:
        return self._rounds * len(self._seats)

    @overload
    def __getitem__(self, index: int) -> MatchTask: ...

    @overload
    def __getitem__(self, index: slice) -> list[MatchTask]: ...

    def __getitem__(self, index: int | slice) -> MatchTask | list[MatchTask]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        position = operator.index(index)
        if position < 0:
            position += len(self)
        if not 0 <= position < len(self):
            raise IndexError("no such match in the schedule")
        round_index, place = divmod(position, len(self._seats))
        seed = round_seed(self._seed, round_index + 1)
        return MatchTask(position + 1, round_index + 1, self._game, self._seats[place], seed)

    def __iter__(self) -> Iterator[MatchTask]:
        number = 0
        for round_number in range(1, self._rounds + 1):
            seed = round_seed(self._seed, round_number)
            for seats in self._seats:
                number += 1
                yield MatchTask(number, round_number, self._game, seats, seed)

    def number(self, key: tuple[object, ...]) -> int | None:
        """The number of the match whose :attr:`MatchTask.key` is ``key``; ``None`` if this
        schedule has no such match."""
        if len(key) != 3:
            return None
        round_number, first, second = key
        if not isinstance(first, str) or not isinstance(second, str):
            return None
        place = self._places.get((first, second))
        if (
            place is None
            or isinstance(round_number, bool)
            or not isinstance(round_number, int)
            or not 1 <= round_number <= self._rounds
        ):
            return None
        return (round_number - 1) * len(self._seats) + place + 1


@attrs.frozen
class Schedule:
    """A round robin: every pair of players plays ``games`` matches, in pairings on one seed.

    Make one with :meth:`round_robin`, which checks the game, the players and ``games``.

    Attributes:
        game: the game.
        players: the player specs, each once.
        games: matches per pair of players (even).
        seed: the tournament seed.
        tasks: every match of the tournament, in schedule order.
    """

    game: Game
    players: tuple[str, ...]
    games: int
    seed: int
    tasks: Tasks

    @classmethod
    def round_robin(
        cls, game: Game | str, players: Sequence[str], *, games: int, seed: int = 0
    ) -> Schedule:
        """The schedule of a round robin (see :class:`~abstractgames.arena.Arena`).

        Raises:
            ArenaError: fewer than two players, the same one twice, or a bad number of games.
            AbstractGamesError: a bad game or player spec.
        """
        the_game = parse_game_spec(game) if isinstance(game, str) else game
        specs = tuple(spec.strip() for spec in players)
        if len(specs) < 2:
            raise ArenaError("a tournament needs at least two players")
        repeated = sorted({p for p in specs if specs.count(p) > 1})
        if repeated:
            raise ArenaError(f"player {repeated[0]!r} is given twice: give each player once")
        if isinstance(games, bool) or not isinstance(games, int) or games < 2 or games % 2:
            raise ArenaError(
                f"games must be a positive even number (every seed is played with the players in "
                f"both seats), not {games!r}"
            )
        for spec in specs:
            make_player(spec, the_game).close()
        return cls(the_game, specs, games, seed, Tasks(the_game.spec, specs, games, seed))


def play_match(task: MatchTask) -> str:
    """Play one match of the schedule; return its record as JSON text.

    Raises:
        MatchInterrupted: Ctrl-C stopped the match.
    """
    game = parse_game_spec(task.game)
    first = make_player(task.players[0], game)
    try:
        second = make_player(task.players[1], game)
    except BaseException:
        first.close()
        raise
    players: tuple[Player, Player] = (first, second)
    record = Referee(game, players, seed=task.seed).play()
    if not record.finished:
        raise MatchInterrupted(f"match {task.number} was interrupted")
    return record.dumps()
