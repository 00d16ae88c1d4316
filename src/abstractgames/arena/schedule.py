"""What a tournament plays: the round robin, its seeds, its players' names, and one match
played by the referee.

The schedule follows from the game, the players, the number of games and the seed alone. Every
match is an independent, picklable [`MatchTask`][] that [`play_match`][] plays in any
process.

The tables, the progress lines and the record files call each player by a short name: the
`name=` option of its spec when it has one (`search:depth=2,name=deep`,
`engine:name=v2,timeout=5:./mybot`), else its spec without the options of a program
(`engine:timeout=5,log=logs:./mybot` is `engine:./mybot`); the JSON results keep the specs.
The arena takes the `name=` option out of a spec before it makes the player from it.

Two players never share a name: players whose names would be the same without one given are
called by their whole specs (which differ), and any names still the same are numbered in the
order the players were given (`deep#1`, `deep#2`).

Examples:
    >>> short_names(
    ...     ["random", "search:depth=2,name=deep", "engine:timeout=5,log=logs:./mybot --v2"]
    ... )
    ('random', 'deep', 'engine:./mybot --v2')
    >>> short_names(["engine:timeout=5:./mybot", "engine:timeout=9:./mybot"])
    ('engine:timeout=5:./mybot', 'engine:timeout=9:./mybot')
    >>> player_spec("engine:name=v2,timeout=5:./mybot")
    'engine:timeout=5:./mybot'
"""

from __future__ import annotations

import hashlib
import operator
import os
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import overload

import attrs

from ..grid import read_position
from ..players import Player
from ..protocol import AbstractGamesError, Game, InvalidPositionError, State
from ..records import ClockSettings
from ..referee import Referee, check_start
from ..registry import ArgumentKind, PlayerSpec, make_player, parse_game_spec, with_logs
from ..text import excerpt
from .errors import ArenaError, MatchInterrupted

__all__ = [
    "ARENA_VERSION",
    "MatchTask",
    "Schedule",
    "Tasks",
    "play_match",
    "player_spec",
    "round_seed",
    "short_name",
    "short_names",
]

ARENA_VERSION = 1
"""The version of the arena: of its seeds ([`round_seed`][]), JSON results and state files."""


@attrs.frozen
class MatchTask:
    """One match of a tournament: everything a worker needs to play it.

    Attributes:
        number: the match's place in the schedule (1, 2, …).
        round: its pairing (1, 2, …): the two matches of a pairing share the seed, seats swapped.
        game: the game spec, e.g. `"entropy:size=5"`.
        players: the specs of player 1 and player 2.
        seed: the match seed.
        clock: each player's time per game, or `None` for no clock.
        time_loss_forfeits: whether running out of time loses the match (correspondence).
        logs: a directory that keeps every log of the programs (`log=` where a spec has none).
        start: the position string every game of the match starts from, or `None` for the
            game's own start.
    """

    number: int
    round: int
    game: str
    players: tuple[str, str]
    seed: int
    clock: ClockSettings | None = None
    time_loss_forfeits: bool = False
    logs: str | None = None
    start: str | None = None

    @property
    def key(self) -> tuple[int, str, str]:
        """What identifies the match across runs: its round and its players in their seats."""
        return (self.round, *self.players)


def round_seed(seed: int, round: int) -> int:
    """The seed of every match of `round` in the tournament with `seed` (a 32-bit number).

    Every pair of players plays round `r` on the same seed, and different tournament seeds share
    no rounds.
    """
    digest = hashlib.sha256(f"abstractgames-arena/{seed}/{round}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


class Tasks(Sequence[MatchTask]):
    """The matches of a round robin in schedule order, each made when asked for.

    A schedule of any length costs only its pairs of players: round `r` holds every pair in
    both seats, on [`round_seed`][] `(seed, r)`. Slices are lists. Every match is played
    under the time control and with the logs given.

    With `positions` (position strings, an openings suite), `games` is the number of matches
    per pair from each position: round `r` is played from position `(r - 1) % len(positions)`,
    so every pair plays every position in both seats on the seed of its round, the positions
    taking turns.
    """

    def __init__(
        self,
        game: str,
        players: tuple[str, ...],
        games: int,
        seed: int,
        *,
        clock: ClockSettings | None = None,
        time_loss_forfeits: bool = False,
        logs: str | None = None,
        positions: Sequence[str] = (),
    ) -> None:
        self._game = game
        self._seed = seed
        self._settings = (clock, time_loss_forfeits, logs)
        self._positions = tuple(positions)
        self._rounds = games // 2 * max(len(self._positions), 1)
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
        return MatchTask(
            position + 1,
            round_index + 1,
            self._game,
            self._seats[place],
            seed,
            *self._settings,
            self.start(round_index + 1),
        )

    def __iter__(self) -> Iterator[MatchTask]:
        number = 0
        for round_number in range(1, self._rounds + 1):
            seed = round_seed(self._seed, round_number)
            start = self.start(round_number)
            for seats in self._seats:
                number += 1
                yield MatchTask(
                    number, round_number, self._game, seats, seed, *self._settings, start
                )

    def start(self, round_number: int) -> str | None:
        """The position string the matches of a round start from (`None`: the game's start)."""
        if not self._positions:
            return None
        return self._positions[(round_number - 1) % len(self._positions)]

    @property
    def pairs(self) -> int:
        """How many pairs of players the schedule has."""
        return len(self._seats) // 2

    def pair(self, number: int) -> int:
        """The pair of players of match `number`: 0, 1, … in the order of the first round."""
        return (number - 1) % len(self._seats) // 2

    def number(self, key: tuple[object, ...]) -> int | None:
        """The number of the match whose [`MatchTask.key`][] is `key`; `None` if this
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
    """A round robin: every pair of players plays `games` matches, in pairings on one seed.

    Make one with [`round_robin`][], which checks the game, the players and `games`.

    Attributes:
        game: the game.
        players: the player specs, each once.
        games: matches per pair of players (even), from each of the `positions` if any.
        seed: the tournament seed.
        tasks: every match of the tournament, in schedule order.
        positions: the position strings the matches start from (an openings suite, each
            played in turn), or none: the game's own start.
    """

    game: Game
    players: tuple[str, ...]
    games: int
    seed: int
    tasks: Tasks
    positions: tuple[str, ...] = ()

    @classmethod
    def round_robin(
        cls,
        game: Game | str,
        players: Sequence[str],
        *,
        games: int,
        seed: int = 0,
        clock: ClockSettings | None = None,
        time_loss_forfeits: bool = False,
        logs: str | None = None,
        positions: Sequence[str | State] = (),
    ) -> Schedule:
        """The schedule of a round robin (see [`Arena`][]).

        Raises:
            ArenaError: fewer than two players, the same one twice, a bad number of games, or
                the same position twice.
            AbstractGamesError: a bad game or player spec, or a log directory no spec can name.
            InvalidPositionError: a position that cannot be read, or that a match cannot start
                from (a finished game).
        """
        the_game = parse_game_spec(game) if isinstance(game, str) else game
        starts = _starts(the_game, positions)
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
            make_player(player_spec(spec, logs), the_game).close()
        tasks = Tasks(
            the_game.spec,
            specs,
            games,
            seed,
            clock=clock,
            time_loss_forfeits=time_loss_forfeits,
            logs=logs,
            positions=starts,
        )
        return cls(the_game, specs, games, seed, tasks, starts)


def _starts(game: Game, positions: Sequence[str | State]) -> tuple[str, ...]:
    """The position strings of `positions` (states, position strings or diagrams), checked."""
    if isinstance(positions, str | State):
        raise ArenaError("give the positions as a list, one position in each item")
    starts: dict[str, int] = {}  # each position string, and its number
    for number, position in enumerate(positions, start=1):
        try:
            state = position if isinstance(position, State) else read_position(game, position)
            text = check_start(game, state).position()
        except InvalidPositionError as error:
            raise InvalidPositionError(f"position {number}: {error}") from None
        if text in starts:
            raise ArenaError(
                f"position {number} ({excerpt(text)}) is position {starts[text]} again: give "
                "each position once"
            )
        starts[text] = number
    return tuple(starts)


def play_match(task: MatchTask) -> str:
    """Play one match of the schedule; return its record as JSON text.

    Raises:
        MatchInterrupted: Ctrl-C stopped the match.
    """
    game = parse_game_spec(task.game)
    first = _make_player(task.players[0], game, task.logs)
    try:
        second = _make_player(task.players[1], game, task.logs)
    except BaseException:
        first.close()
        raise
    players: tuple[Player, Player] = (first, second)
    try:
        start = None if task.start is None else game.from_position(task.start)
        referee = Referee(
            game,
            players,
            seed=task.seed,
            clock=task.clock,
            time_loss_forfeits=task.time_loss_forfeits,
            start=start,
            failures_forfeit=True,  # a failing bot loses its own matches, the others go on
        )
    except BaseException:
        first.close()
        second.close()
        raise
    record = referee.play()
    if not record.finished:
        raise MatchInterrupted(f"match {task.number} was interrupted")
    return record.dumps()


def _make_player(spec: str, game: Game, logs: str | None) -> Player:
    """The player of `spec`, recorded under `spec` as given (its name and all)."""
    player = make_player(player_spec(spec, logs), game)
    player.spec = spec
    return player


# --- the players' names ---------------------------------------------------------------------------


def _split(spec: str) -> tuple[str, str | None, str]:
    """`(spec without name=, the name or None, its name by default)`."""
    text = spec.strip()
    try:
        parsed = PlayerSpec.parse(text)
    except AbstractGamesError:  # the arena refuses it before any match: it names itself
        return text, None, text
    name = parsed.option("name")
    stripped = text if name is None else str(parsed.without_option("name"))
    default = stripped
    command = (parsed.argument or "").strip()
    if parsed.kind is ArgumentKind.PROGRAM and command:
        default = f"{parsed.name}:{command}"
    return stripped, name or None, default


def player_spec(spec: str, logs: str | os.PathLike[str] | None = None) -> str:
    """The spec to make the player of `spec` from: without `name=` and, with `logs`, with
    `log=LOGS` for a program without a log directory of its own.

    Raises:
        InvalidPlayerError: a `logs` directory that an option cannot name.
    """
    stripped = _split(spec)[0]
    return stripped if logs is None else with_logs(stripped, logs)


def short_name(spec: str) -> str:
    """The name of `spec` alone: its `name=` option, else the spec without a program's
    options."""
    _, name, default = _split(spec)
    return default if name is None else name


def short_names(specs: Sequence[str]) -> tuple[str, ...]:
    """The names of the players `specs` (different specs), all different."""
    split = [_split(spec) for spec in specs]
    wanted = [default if name is None else name for _, name, default in split]
    counts = Counter(wanted)
    names = [
        spec.strip() if name is None and counts[want] > 1 else want
        for spec, (_, name, _), want in zip(specs, split, wanted, strict=True)
    ]
    counts = Counter(names)
    taken = set(names)
    last: Counter[str] = Counter()
    unique = []
    for name in names:
        if counts[name] > 1:
            number = last[name] + 1
            while f"{name}#{number}" in taken:
                number += 1
            last[name] = number
            name = f"{name}#{number}"
            taken.add(name)
        unique.append(name)
    return tuple(unique)
