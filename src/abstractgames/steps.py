"""A match advanced one action at a time: the referee's rules, without the players.

[`MatchInPlay`][] is built from a [`MatchRecord`][] (a new one, or one played in part). It says
who must act now and with which clock ([`MatchInPlay.turn`][]) and takes one action
([`MatchInPlay.step`][]): a move, a resignation, a take-back both players agreed to, a forfeit, a
flag that fell, a chance draw, or what the referee does alone (a seeded chance draw, the move
made for a player out of time). The clocks, the moves made for a player out of time, the games
of a match and the time-loss rule are applied inside; each step writes the record it was built
from and returns what happened, as [`Event`][]s, in order.

Every front end advances a match through it: [`Referee.play`][abstractgames.referee.Referee.play]
is a loop over it that asks the players, the web page and the game server step it with what
people send, and e-mail play steps it with the moves of a message.

The record is the match: its seed, clock, time-loss rule and `single` are the ones applied.

Examples:
    >>> from abstractgames import get_game
    >>> game = get_game("orderchaos")
    >>> match = MatchInPlay(game, MatchRecord("orderchaos", {}, ("human", "human"), seed=1))
    >>> turn = match.turn()
    >>> turn.player, turn.role, turn.kind
    (1, 'order', 'player')
    >>> [type(event).__name__ for event in match.step(PlayMove("X@a1"))]
    ['MovePlayed']
    >>> match.turn().player
    2
    >>> [type(event).__name__ for event in match.step(Resignation(2))]
    ['Notice', 'GameEnded', 'MatchEnded']
    >>> match.turn() is None, match.record.result.winner
    (True, 1)
"""

from __future__ import annotations

import attrs

from .players import SeededRandom
from .protocol import (
    AbstractGamesError,
    Game,
    IllegalMoveError,
    Match,
    Move,
    State,
    random_move,
)
from .records import GameEnd, GameRecord, MatchRecord, MoveRecord, RecordError
from .text import excerpt, quote

__all__ = [
    "Action",
    "ActionRefused",
    "Automatic",
    "ChanceDraw",
    "Event",
    "Forfeit",
    "GameEnded",
    "GameStarted",
    "MatchEnded",
    "MatchInPlay",
    "MovePlayed",
    "MoveRefused",
    "MovesTakenBack",
    "Notice",
    "OutOfTime",
    "PlayMove",
    "RefereeError",
    "Resignation",
    "TakeBack",
    "Turn",
    "chance_rng",
    "player_rng",
]


class RefereeError(AbstractGamesError):
    """The referee cannot go on, e.g. a record it was asked to continue breaks the rules."""


class ActionRefused(RefereeError, ValueError):
    """An action that cannot be taken now (the match is over, it is not that player's turn, a
    chance draw where a player must move...); nothing changed."""


class MoveRefused(ActionRefused, IllegalMoveError):
    """A move the rules do not allow here; nothing changed. `reason` says it as the record of a
    forfeit for it would (`illegal move "x" by player 2: ...`)."""

    def __init__(self, reason: str, player: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.player = player


def chance_rng(seed: int, game_number: int, ply: int) -> SeededRandom:
    """The generator for the chance event at `ply` of a game: the same seed, the same draw.

    Its label is `SEED/GAME/PLY/chance`; plies count from 0 at the start of each game.
    """
    return SeededRandom(f"{seed}/{game_number}/{ply}/chance")


def player_rng(seed: int, game_number: int, ply: int, player: int) -> SeededRandom:
    """The generator a player is given for its move at `ply` of a game.

    Its label is `SEED/GAME/PLY/playerN`, e.g. `42/1/17/player2`.

    Examples:
        >>> player_rng(42, 1, 17, 2).label
        '42/1/17/player2'
    """
    return SeededRandom(f"{seed}/{game_number}/{ply}/player{player}")


# The actions.


@attrs.frozen
class PlayMove:
    """The player to move plays `move` (its notation), after thinking `seconds` (which their
    clock loses, if the match has one; more than they had left is a fallen flag)."""

    move: str
    seconds: float = 0.0


@attrs.frozen
class Resignation:
    """`player` (1 or 2) resigns the match, whoever is to move."""

    player: int


@attrs.frozen
class TakeBack:
    """The game goes back to `player`'s previous turn, as both players agreed (chance events
    and the moves since included); with no earlier turn of theirs, a notice says so."""

    player: int


@attrs.frozen
class Forfeit:
    """`player` loses the match by forfeit, for `reason` (a program that failed, a person who
    vanished)."""

    player: int
    reason: str


@attrs.frozen
class OutOfTime:
    """The flag of the player to move fell after `seconds` on this move: they lose, or their
    moves are made for them where the game has timeout moves and time loss does not forfeit.

    `reason` is what the record says of it (default `player N ran out of time`). `player` names
    whose flag fell where that is not the player to move: only where time loss forfeits the
    match, as in e-mail play, where a chance draw waits on a player's message."""

    seconds: float
    reason: str | None = None
    player: int | None = None


@attrs.frozen
class ChanceDraw:
    """The chance event due is `move` (its notation), drawn outside the referee (e-mail play's
    fair draw)."""

    move: str


@attrs.frozen
class Automatic:
    """What the referee does alone at a turn of kind `"chance"` or `"timeout"`: the chance draw
    from the match's seed, or the move made for the player out of time."""


Action = PlayMove | Resignation | TakeBack | Forfeit | OutOfTime | ChanceDraw | Automatic
"""One thing that happens to a match ([`MatchInPlay.step`][])."""


# The events.


@attrs.frozen
class GameStarted:
    """A game begins: `record` (its moves so far: a resumed game's are in `moves`, each with
    the state after it in `states`, which begin with the start), in `match`."""

    record: GameRecord
    match: Match
    states: tuple[State, ...]
    moves: tuple[Move, ...]

    @property
    def state(self) -> State:
        """The position the game stands at."""
        return self.states[-1]


@attrs.frozen
class MovePlayed:
    """`move` was played from `before`, recorded as `entry`, giving `after`."""

    before: State
    move: Move
    entry: MoveRecord
    after: State


@attrs.frozen
class MovesTakenBack:
    """The last `count` plies were taken back: the game stands at `state`."""

    state: State
    count: int


@attrs.frozen
class Notice:
    """Something the people playing should read, e.g. `"player 2 resigned"`."""

    text: str


@attrs.frozen
class GameEnded:
    """A game is over at `state`, by the rules or by `record.ended_by`; `match` after it."""

    record: GameRecord
    state: State
    match: Match


@attrs.frozen
class MatchEnded:
    """The match is over: `record.result` says how."""

    record: MatchRecord


Event = GameStarted | MovePlayed | MovesTakenBack | Notice | GameEnded | MatchEnded
"""What a step makes happen, in order."""


@attrs.frozen
class Turn:
    """Who must act now.

    `kind` is `"player"` (player `player` chooses a move as `role`, with `clocks[player - 1]`
    seconds left, `None` without a clock), `"chance"` (a chance event is due: [`Automatic`][]
    draws it from the seed, [`ChanceDraw`][] gives it) or `"timeout"` (player `player` is out of
    time and [`Automatic`][] makes their move). `ply` counts from 0 at the game's start.
    """

    kind: str
    game_number: int
    ply: int
    state: State
    player: int | None
    role: str | None
    clocks: tuple[float | None, float | None]

    @property
    def time_left(self) -> float | None:
        """The seconds the player to choose has left (`None`: no clock, or not a player)."""
        return None if self.player is None else self.clocks[self.player - 1]


@attrs.define
class _Game:
    """The game being played: its record, the states after each of its plies, the clocks."""

    record: GameRecord
    states: list[State]
    moves: list[Move]
    clocks: list[float | None]
    flagged: set[int]


class MatchInPlay:
    """The match of `record` (a game of `game`), advanced by [`step`][].

    `record` is written in place as the match goes on (a new game added when one begins, each
    ply, how each game ended, the result), so that whoever holds it can save it at any time.

    Args:
        game: the game the record is of.
        record: the match so far; its seed, clock, time-loss rule and `single` are the match's.
        start: where its games start (a position already checked by
            [`check_start`][abstractgames.referee.check_start]); by default where the record's
            first game started, or the game's own start.

    Raises:
        RefereeError: the record breaks the rules, or its match started elsewhere than `start`.
    """

    def __init__(self, game: Game, record: MatchRecord, *, start: State | None = None) -> None:
        if start is not None and record.games:
            begun, wanted = record.games[0].start, start.position()
            if begun != wanted:
                raise RefereeError(
                    f"cannot continue this record from {excerpt(wanted)}: its match started "
                    f"from {excerpt(begun)}"
                )
        try:
            self.match, _ = record.replay(game)
        except RecordError as error:
            raise RefereeError(f"cannot continue this record: {error}") from None
        self.game = game
        self.record = record
        self._start = start
        self._game: _Game | None = None
        self.opening: list[Event] = self._next_game()
        """What happened on building it: the game in play begins (with its moves so far), or
        the match is over. A front end that tells players tells them these first."""

    @property
    def finished(self) -> bool:
        """Whether the match is over."""
        return self._game is None

    @property
    def clocks(self) -> tuple[float | None, float | None]:
        """Each player's seconds left in the game in play (`None`: no clock)."""
        if self._game is None:
            return (None, None)
        first, second = self._game.clocks
        return (first, second)

    def turn(self) -> Turn | None:
        """Who must act now; `None` once the match is over."""
        live = self._game
        if live is None:
            return None
        state = live.states[-1]
        number = live.record.number
        ply = len(live.states) - 1
        clocks = self.clocks
        if state.is_chance():
            return Turn("chance", number, ply, state, None, None, clocks)
        role = state.to_move
        assert role is not None
        player = self.match.player_of(role)
        kind = "timeout" if player in live.flagged else "player"
        return Turn(kind, number, ply, state, player, role, clocks)

    def role_of(self, player: int) -> str:
        """The role `player` has in the game in play."""
        return self.match.role_of(player)

    def step(self, action: Action) -> list[Event]:
        """Take `action`; return what happened, in order.

        Raises:
            MoveRefused: a [`PlayMove`][] or [`ChanceDraw`][] the rules do not allow here.
            ActionRefused: `action` cannot be taken now (the match is over, a move where a
                chance event or a timeout move is due, a seat that is not 1 or 2).
        """
        live = self._game
        turn = self.turn()
        if live is None or turn is None:
            raise ActionRefused("the match is over")
        if isinstance(action, PlayMove):
            return self._play(live, turn, action)
        if isinstance(action, Resignation):
            player = _seat(action.player)
            return self._end(live, GameEnd("resigned", player, f"player {player} resigned"))
        if isinstance(action, Forfeit):
            return self._end(live, GameEnd("forfeit", _seat(action.player), action.reason))
        if isinstance(action, TakeBack):
            return self._take_back(live, self.match.role_of(_seat(action.player)))
        if isinstance(action, OutOfTime):
            if action.player is not None and action.player != turn.player:
                if not self.record.time_loss_forfeits:
                    raise ActionRefused(
                        f"the flag of player {excerpt(repr(action.player))} cannot fall: they "
                        "are not to move, and time loss does not forfeit this match"
                    )
                player = _seat(action.player)
                reason = action.reason or f"player {player} ran out of time"
                return self._end(live, GameEnd("out of time", player, reason))
            if turn.kind != "player" or turn.player is None:
                raise ActionRefused(f"no player's clock runs at a {turn.kind} turn")
            return self._out_of_time(live, turn.state, turn.player, action.seconds, action.reason)
        if isinstance(action, ChanceDraw):
            if turn.kind != "chance":
                raise ActionRefused("no chance event is due: a player is to move")
            try:
                move = self.game.parse_move(action.move, turn.state)
            except AbstractGamesError as error:
                raise MoveRefused(
                    f"illegal chance event {quote(action.move)}: {excerpt(error, 300)}", 0
                ) from None
            return self._commit(live, turn.state, move, MoveRecord(str(move), None))
        if isinstance(action, Automatic):
            return self._automatic(live, turn)
        raise ActionRefused(f"not an action: {excerpt(repr(action))}")

    def _automatic(self, live: _Game, turn: Turn) -> list[Event]:
        if turn.kind == "chance":
            move = random_move(turn.state, chance_rng(self.record.seed, turn.game_number, turn.ply))
            return self._commit(live, turn.state, move, MoveRecord(str(move), None))
        if turn.kind == "timeout":
            made = self.game.timeout_move(turn.state)
            assert made is not None
            entry = MoveRecord(str(made), turn.player, seconds=0.0, clock=0.0, auto=True)
            return self._commit(live, turn.state, made, entry)
        raise ActionRefused(f"player {turn.player} is to move: the referee does not move for them")

    def _play(self, live: _Game, turn: Turn, action: PlayMove) -> list[Event]:
        if turn.kind != "player" or turn.player is None:
            what = "a chance event" if turn.kind == "chance" else "a move made for them"
            raise ActionRefused(f"no one chooses a move here: {what} is due")
        player, state = turn.player, turn.state
        try:
            move = self.game.parse_move(action.move, state)  # judged on the referee's own state
        except AbstractGamesError as error:
            reason = f"illegal move {quote(action.move)} by player {player}: {excerpt(error, 300)}"
            raise MoveRefused(reason, player) from None
        clock = self.record.clock
        time_left = turn.time_left
        if time_left is not None and clock is not None:
            remaining = time_left - action.seconds
            if remaining < 0:
                return self._out_of_time(live, state, player, action.seconds)
            entry = MoveRecord(
                str(move), player, seconds=action.seconds, clock=remaining + clock.increment
            )
        else:
            entry = MoveRecord(str(move), player)
        try:
            after = state.apply(move)
        except IllegalMoveError as error:
            raise MoveRefused(
                f'illegal move "{move}" by player {player}: {error}', player
            ) from None
        if entry.clock is not None:
            live.clocks[player - 1] = entry.clock
        return self._commit(live, state, move, entry, after)

    def _out_of_time(
        self, live: _Game, state: State, player: int, spent: float, reason: str | None = None
    ) -> list[Event]:
        live.clocks[player - 1] = 0.0
        made = None if self.record.time_loss_forfeits else self.game.timeout_move(state)
        if made is None:
            reason = reason or f"player {player} ran out of time"
            return self._end(live, GameEnd("out of time", player, reason))
        notice = Notice(
            f"player {player} ran out of time: their moves are made for them for the rest of "
            "this game"
        )
        live.flagged.add(player)
        entry = MoveRecord(str(made), player, seconds=spent, clock=0.0, auto=True)
        return [notice, *self._commit(live, state, made, entry)]

    def _commit(
        self,
        live: _Game,
        state: State,
        move: Move,
        entry: MoveRecord,
        after: State | None = None,
    ) -> list[Event]:
        after = state.apply(move) if after is None else after
        live.states.append(after)
        live.moves.append(move)
        live.record.moves.append(entry)
        return [MovePlayed(state, move, entry, after), *self._settle(live)]

    def _settle(self, live: _Game) -> list[Event]:
        """The game's end where the rules end it now (and the next game, or the match's end)."""
        state = live.states[-1]
        outcome = state.outcome()
        if outcome is None:
            return []
        live.record.final = state.position()
        live.record.outcome = outcome
        self.match = self.match.record_game(state)
        return self._game_over(live)

    def _end(self, live: _Game, end: GameEnd) -> list[Event]:
        live.record.ended_by = end
        self.match = end.apply(self.match)
        return [Notice(end.reason), *self._game_over(live)]

    def _game_over(self, live: _Game) -> list[Event]:
        ended = GameEnded(live.record, live.states[-1], self.match)
        return [ended, *self._next_game()]

    def _next_game(self) -> list[Event]:
        """Open the match's next game (or the one the record left unfinished), or end it."""
        number = self.match.game_number
        if number is None:
            self._game = None
            self.record.result = self.match.result()
            return [MatchEnded(self.record)]
        record = self.record
        if len(record.games) < number:
            record.games.append(GameRecord(number=number, start=self._start_of()))
        game_record = record.games[number - 1]
        states = [self.game.from_position(game_record.start)]
        moves: list[Move] = []
        for entry in game_record.moves:
            moves.append(self.game.parse_move(entry.move, states[-1]))
            states.append(states[-1].apply(moves[-1]))
        seconds = None if record.clock is None else record.clock.seconds
        clocks: list[float | None] = [seconds, seconds]
        flagged: set[int] = set()
        for entry in game_record.moves:
            if entry.player is not None and entry.clock is not None:
                clocks[entry.player - 1] = entry.clock
            if entry.auto and entry.player is not None:
                flagged.add(entry.player)
        live = _Game(game_record, states, moves, clocks, flagged)
        self._game = live
        started = GameStarted(game_record, self.match, tuple(states), tuple(moves))
        return [started, *self._settle(live)]

    def _start_of(self) -> str:
        """The position string a new game of the match starts from."""
        if self._start is not None:
            return self._start.position()
        if self.record.games:
            return self.record.games[0].start
        return self.game.initial_state().position()

    def _take_back(self, live: _Game, role: str) -> list[Event]:
        """Go back to the previous position where `role` was to move (chance events included)."""
        for index in range(len(live.states) - 2, -1, -1):
            if live.states[index].to_move == role and not live.record.moves[index].auto:
                count = len(live.states) - 1 - index
                del live.states[index + 1 :]
                del live.moves[index:]
                del live.record.moves[index:]
                return [MovesTakenBack(live.states[-1], count)]
        return [Notice("nothing to undo: this is your first move of the game")]


def _seat(player: int) -> int:
    if player not in (1, 2):
        raise ActionRefused(f"there is no player {excerpt(repr(player))}: players are 1 and 2")
    return player
