"""The referee as it was before the match engine (`abstractgames.steps`): a reference to test the
new path against, record for record (tests/referee/test_steps_equivalence.py). Not used elsewhere.

The referee: plays a match between two players under the rules, with clocks, and records it.

The referee knows nothing of any particular game: it asks the game for its match rules
([`new_match`][abstractgames.protocol.Game.new_match]) and for the move made for a player out of
time ([`timeout_move`][abstractgames.protocol.Game.timeout_move]), resolves chance itself, and
writes a [`MatchRecord`][].

Every random choice is derived from the match seed, the game number and the ply, so a seed replays
the same match byte for byte, also after an undo or a resumed game.

Besides asking the players for moves, the referee tells both of them everything that happens through
the [`Player`][] hooks: `game_started` (a resumed game is told from its start, each recorded move
through `move_played`), `move_played` after every ply, `moves_taken_back` after an undo, and
`game_ended`.

The states a player from outside is handed (in `choose` and in the hooks: a player whose class
is not this library's) are its own copies, equal to the referee's (`copy.deepcopy`, which the
built-in games make cheap): a player that writes into a state it was given (with
`object.__setattr__`, say) changes its copy only. The library's own players, and a bot played
from a worker process, are given the referee's states. The referee judges
every move against its own state, read again from the move's notation
([`Game.parse_move`][abstractgames.protocol.Game.parse_move]), so a move object that is not what
it says is judged by what it says.

Examples:
    >>> from abstractgames import get_game, make_player
    >>> game = get_game("orderchaos")
    >>> referee = Referee(game, (make_player("greedy", game), make_player("random", game)), seed=3)
    >>> record = referee.play()
    >>> record.result.winner, record.result.reason
    (1, 'five in a row')
"""

from __future__ import annotations

import copy
import random
import time
from collections.abc import Callable

import attrs

from abstractgames.players import Player, PlayerFailed, Resign, SeededRandom, UndoRequest
from abstractgames.protocol import (
    AbstractGamesError,
    Game,
    IllegalMoveError,
    InvalidPositionError,
    Match,
    MatchError,
    Move,
    State,
    random_move,
)
from abstractgames.records import (
    ClockSettings,
    GameEnd,
    GameRecord,
    MatchRecord,
    MoveRecord,
    RecordError,
)
from abstractgames.text import described, excerpt, quote

__all__ = [
    "ClockSettings",
    "MatchStopped",
    "Observer",
    "RecordKeeper",
    "Referee",
    "RefereeError",
    "chance_rng",
    "check_start",
    "player_rng",
]


class RefereeError(AbstractGamesError):
    """The referee cannot go on, e.g. a built-in player broke the rules."""


class MatchStopped(RefereeError):
    """An error stopped the match (a player's or an observer's own bug, not a move): `record`
    holds the match so far, unfinished, so that it can be saved and continued."""

    def __init__(self, message: str, record: MatchRecord) -> None:
        super().__init__(message)
        self.record = record
        """The record of the moves played before the error."""


class _PlayerError(Exception):
    """A player's `choose` or hook raised an error that is not a move, a resignation or a
    failure (or called `sys.exit`)."""

    def __init__(self, player: int, error: BaseException) -> None:
        super().__init__(player, error)
        self.player = player
        self.error = error


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


class Observer:
    """Told what happens during a match (a terminal display, a log); every method may be ignored."""

    def game_started(self, record: GameRecord, state: State, match: Match) -> None:
        """A game begins (also a resumed one, with its moves so far replayed)."""

    def turn_started(self, state: State, player: int, clocks: tuple[float | None, ...]) -> None:
        """`player` is asked for a move; `clocks` are both players' seconds left (or None)."""

    def move_played(self, before: State, move: Move, entry: MoveRecord, after: State) -> None:
        """A move (or chance event) was played."""

    def moves_taken_back(self, state: State, count: int) -> None:
        """An undo took `count` plies back; `state` is the position now."""

    def notice(self, text: str) -> None:
        """Something worth telling the players (e.g. a clock ran out)."""

    def game_ended(self, record: GameRecord, state: State, match: Match) -> None:
        """A game is over (by the rules, a resignation, or time)."""

    def match_ended(self, record: MatchRecord) -> None:
        """The match is decided."""


class RecordKeeper(Observer):
    """An observer that keeps the record as the match goes: `keep()` after every move, undo and
    game's end (before `observer` hears of it, so a move shown is a move kept), then the same
    event for `observer`.

    `keep` saves the [`MatchRecord`][abstractgames.records.MatchRecord] given to
    [`Referee.play`][] (which the referee fills in place); a referee killed outright, even by
    SIGKILL, then loses no move played. An error of `keep` stops the match (see
    [`Referee.play`][]): catch it in `keep` to play on.
    """

    def __init__(self, keep: Callable[[], object], observer: Observer | None = None) -> None:
        self.keep = keep
        self.observer = observer or Observer()

    def game_started(self, record: GameRecord, state: State, match: Match) -> None:
        self.observer.game_started(record, state, match)

    def turn_started(self, state: State, player: int, clocks: tuple[float | None, ...]) -> None:
        self.observer.turn_started(state, player, clocks)

    def move_played(self, before: State, move: Move, entry: MoveRecord, after: State) -> None:
        self.keep()
        self.observer.move_played(before, move, entry, after)

    def moves_taken_back(self, state: State, count: int) -> None:
        self.keep()
        self.observer.moves_taken_back(state, count)

    def notice(self, text: str) -> None:
        self.observer.notice(text)

    def game_ended(self, record: GameRecord, state: State, match: Match) -> None:
        self.keep()
        self.observer.game_ended(record, state, match)

    def match_ended(self, record: MatchRecord) -> None:
        self.observer.match_ended(record)


@attrs.define
class _GameInProgress:
    record: GameRecord
    states: list[State]
    clocks: list[float | None]
    flagged: set[int] = attrs.Factory(set)


class Referee:
    """Plays one match of `game` between `players[0]` (player 1) and `players[1]`.

    Args:
        game: the game.
        players: player 1 (who makes the first move of the first game) and player 2.
        seed: the seed of every random choice; a random one is picked (and recorded) if `None`.
        clock: each player's time per game, or `None` for no clock.
        time_loss_forfeits: running out of time loses the match even where the game has timeout
            moves (correspondence play).
        single: play one game even where the game's match has more (Entropy's two).
        time_source: seconds as a float, monotonic (tests pass a fake one).
        observer: told about every event.
        start: the position every game of the match starts from (an Entropy match's two
            games both, the roles swapped as usual), by default the game's own start; its
            position string is what the record keeps (as each game's `start`), so a history
            before it (dispersal's repetitions) does not count. A match continued from a record
            starts its next games where its first game started; [`play`][] refuses to continue
            a record that started elsewhere than a `start` given.
        failures_forfeit: a player whose own code fails (an error raised by its `choose` or
            one of its hooks, or `sys.exit`) loses the match by forfeit, the reason naming the
            error and where in its code, instead of stopping the match with [`MatchStopped`][]
            (the arena plays so: one failing bot loses its own matches).

    Raises:
        InvalidPositionError: `start` is not a position a match can start from
            ([`check_start`][]).
    """

    def __init__(
        self,
        game: Game,
        players: tuple[Player, Player],
        *,
        seed: int | None = None,
        clock: ClockSettings | None = None,
        time_loss_forfeits: bool = False,
        single: bool = False,
        time_source: Callable[[], float] = time.monotonic,
        observer: Observer | None = None,
        start: State | None = None,
        failures_forfeit: bool = False,
    ) -> None:
        self.start = None if start is None else check_start(game, start)
        self.failures_forfeit = failures_forfeit
        self.game = game
        self.players = players
        self.seed = random.SystemRandom().randrange(2**32) if seed is None else seed
        self.clock = clock
        self.time_loss_forfeits = time_loss_forfeits
        self.single = single
        self.time_source = time_source
        self.observer = observer or Observer()

    def new_record(self) -> MatchRecord:
        """An empty record of this match."""
        return MatchRecord(
            game=self.game.name,
            params=self.game.params,
            players=(self.players[0].spec, self.players[1].spec),
            seed=self.seed,
            clock=self.clock,
            time_loss_forfeits=self.time_loss_forfeits,
            single=self.single,
        )

    def time_rule(self) -> str | None:
        """What running out of time does in this match, in a line for the people playing it
        (`None` without a clock), e.g. `"a player out of time loses the game"`.

        It says what [`play`][] does when a flag falls: a game with timeout moves
        ([`Game.timeout_move`][abstractgames.protocol.Game.timeout_move]) plays on for the player
        out of time unless time loss forfeits the match; otherwise the player loses the game,
        and with it a match of several games. The terminal prints it before the first move; any
        front end can show the same line.
        """
        if self.clock is None:
            return None
        match = self.new_record().new_match(self.game)
        try:
            match.role_of(1, 2)
            lost = "the whole match"
        except MatchError:
            lost = "the game"
        if not self.time_loss_forfeits and _has_timeout_moves(self.game):
            return (
                "a player out of time does not lose: their moves are made for them for the "
                "rest of that game"
            )
        return f"a player out of time loses {lost}"

    def play(self, record: MatchRecord | None = None) -> MatchRecord:
        """Play the match to its end, or continue the one in `record`; return its record.

        A `KeyboardInterrupt` or `EOFError` from a player (a person pressing Ctrl-C or closing
        the input, or SIGTERM, see [`abstractgames.interrupts`][]) stops the match: the record
        returned then has `finished` false and [`play`][] with it continues where it stopped.

        Raises:
            MatchStopped: any other error during the match (a bot's own bug); it carries the
                record of the moves so far.
            RefereeError: `record` cannot be continued: it breaks the rules, or its match
                started elsewhere than the `start` given.
        """
        try:
            record = self.new_record() if record is None else record
            self._check_record_start(record)
            match = self._replay(record)
        except BaseException:
            _close(self.players, self.observer)
            raise
        try:
            while (number := match.game_number) is not None:
                match = self._play_game(record, match, number)
        except (KeyboardInterrupt, EOFError):
            return record
        except _PlayerError as failure:
            raise MatchStopped(self._failure_reason(failure), record) from failure.error
        except Exception as error:
            raise MatchStopped(f"the match stopped: {_describe(error)}", record) from error
        finally:
            _close(self.players, self.observer)
        record.result = match.result()
        self.observer.match_ended(record)
        return record

    def _failure_reason(self, failure: _PlayerError) -> str:
        who = f"player {failure.player} ({self.players[failure.player - 1].spec})"
        return f"{who} failed: {_describe(failure.error)}"

    def _view(self, state: State, player: Player) -> State:
        """`state` for `player`: for a player from outside (a class not of this library), a
        copy equal to it that shares nothing it could change; our own players, and players
        played by another process, are given the referee's state as it is."""
        if type(player).__module__.startswith(_OURS):
            return state
        return copy.deepcopy(state, {id(self.game): self.game})

    def _tell(self, call: Callable[[Player, int], object]) -> None:
        """`call(player, seat)` for both players; a player's own error is a `_PlayerError`."""
        for seat, player in enumerate(self.players, start=1):
            try:
                call(player, seat)
            except (Exception, SystemExit) as error:
                raise _PlayerError(seat, error) from error

    def _check_record_start(self, record: MatchRecord) -> None:
        """Refuse to continue a record whose match began elsewhere than `start`."""
        if self.start is not None and record.games:
            begun, wanted = record.games[0].start, self.start.position()
            if begun != wanted:
                raise RefereeError(
                    f"cannot continue this record from {excerpt(wanted)}: its match started "
                    f"from {excerpt(begun)}"
                )

    def _start_of(self, record: MatchRecord) -> str:
        """The position string a new game of the match in `record` starts from."""
        if self.start is not None:
            return self.start.position()
        if record.games:
            return record.games[0].start
        return self.game.initial_state().position()

    def _replay(self, record: MatchRecord) -> Match:
        """The match after the finished games of `record` (the unfinished one stays open)."""
        try:
            match, _ = record.replay(self.game)
        except RecordError as error:
            raise RefereeError(f"cannot continue this record: {error}") from None
        return match

    def _play_game(self, record: MatchRecord, match: Match, number: int) -> Match:
        if len(record.games) < number:
            record.games.append(GameRecord(number=number, start=self._start_of(record)))
        game_record = record.games[number - 1]
        states = [self.game.from_position(game_record.start)]
        moves: list[Move] = []
        for entry in game_record.moves:
            moves.append(self.game.parse_move(entry.move, states[-1]))
            states.append(states[-1].apply(moves[-1]))
        seconds = None if self.clock is None else self.clock.seconds
        live = _GameInProgress(game_record, states, [seconds, seconds])
        for entry in game_record.moves:
            if entry.player is not None and entry.clock is not None:
                live.clocks[entry.player - 1] = entry.clock
            if entry.auto and entry.player is not None:
                live.flagged.add(entry.player)
        self.observer.game_started(game_record, states[-1], match)

        def tell_the_game(player: Player, seat: int) -> None:
            player.game_started(seat, number, self._view(states[0], player))
            for move, after in zip(moves, states[1:], strict=True):
                player.move_played(move, self._view(after, player))

        try:
            self._tell(tell_the_game)
        except _PlayerError as failure:
            match = self._forfeit(live, match, failure)
        else:
            match = self._play_plies(live, match)
        self.observer.game_ended(game_record, live.states[-1], match)
        final = live.states[-1]
        try:
            self._tell(lambda player, seat: player.game_ended(self._view(final, player)))
        except _PlayerError as failure:  # the game is over: its result stands
            if not self.failures_forfeit:
                raise
            self.observer.notice(self._failure_reason(failure))
        return match

    def _play_plies(self, live: _GameInProgress, match: Match) -> Match:
        """Play the game of `live` to its end; the match after it."""
        while True:
            state = live.states[-1]
            if state.outcome() is not None:
                live.record.final = state.position()
                live.record.outcome = state.outcome()
                return match.record_game(state)
            try:
                ended = self._next_ply(live, match)
            except _PlayerError as failure:
                return self._forfeit(live, match, failure)
            if ended is not None:
                return ended

    def _forfeit(self, live: _GameInProgress, match: Match, failure: _PlayerError) -> Match:
        """The match after `failure`, a player's own error: lost by forfeit where
        `failures_forfeit`; otherwise the error goes on (and stops the match)."""
        if not self.failures_forfeit:
            raise failure
        end = GameEnd("forfeit", failure.player, self._failure_reason(failure))
        return self._end(live, match, end)

    def _next_ply(self, live: _GameInProgress, match: Match) -> Match | None:
        """Play one ply; return the match if it ended by resignation or time, else `None`."""
        state = live.states[-1]
        number = live.record.number
        ply = len(live.states) - 1
        if state.is_chance():
            move = random_move(state, chance_rng(self.seed, number, ply))
            self._commit(live, state, move, MoveRecord(str(move), None))
            return None
        role = state.to_move
        assert role is not None
        player = match.player_of(role)
        if player in live.flagged:
            automatic = self.game.timeout_move(state)
            assert automatic is not None
            entry = MoveRecord(str(automatic), player, seconds=0.0, clock=0.0, auto=True)
            self._commit(live, state, automatic, entry)
            return None
        time_left = live.clocks[player - 1]
        self.observer.turn_started(state, player, tuple(live.clocks))
        started = self.time_source()
        try:
            seated = self.players[player - 1]
            chosen = seated.choose(
                self._view(state, seated), player_rng(self.seed, number, ply, player), time_left
            )
        except Resign as resigned:
            who = player if resigned.seat not in (1, 2) else resigned.seat
            return self._end(live, match, GameEnd("resigned", who, f"player {who} resigned"))
        except UndoRequest as undo:
            self._undo(live, role if undo.seat not in (1, 2) else match.role_of(undo.seat))
            return None
        except PlayerFailed as failure:
            return self._end(live, match, GameEnd("forfeit", player, str(failure)))
        except EOFError:  # a person closed the input: the match stops, to be continued
            raise
        except (Exception, SystemExit) as error:
            raise _PlayerError(player, error) from error
        spent = self.time_source() - started
        try:
            move = self.game.parse_move(str(chosen), state)  # judged on the referee's own state
        except AbstractGamesError as error:
            reason = f"illegal move {quote(str(chosen))} by player {player}: {excerpt(error, 300)}"
            return self._end(live, match, GameEnd("forfeit", player, reason))
        except Exception as error:  # its __str__ failed
            raise _PlayerError(player, error) from error
        if time_left is not None and self.clock is not None:
            remaining = time_left - spent
            if remaining < 0:
                return self._out_of_time(live, match, state, player, spent)
            remaining += self.clock.increment
            live.clocks[player - 1] = remaining
            entry = MoveRecord(str(move), player, seconds=spent, clock=remaining)
        else:
            entry = MoveRecord(str(move), player)
        try:
            self._commit(live, state, move, entry)
        except IllegalMoveError as error:
            reason = f'illegal move "{move}" by player {player}: {error}'
            return self._end(live, match, GameEnd("forfeit", player, reason))
        return None

    def _out_of_time(
        self, live: _GameInProgress, match: Match, state: State, player: int, spent: float
    ) -> Match | None:
        live.clocks[player - 1] = 0.0
        timeout_move = None if self.time_loss_forfeits else self.game.timeout_move(state)
        if timeout_move is None:
            reason = f"player {player} ran out of time"
            return self._end(live, match, GameEnd("out of time", player, reason))
        self.observer.notice(
            f"player {player} ran out of time: their moves are made for them for the rest of "
            "this game"
        )
        live.flagged.add(player)
        entry = MoveRecord(str(timeout_move), player, seconds=spent, clock=0.0, auto=True)
        self._commit(live, state, timeout_move, entry)
        return None

    def _end(self, live: _GameInProgress, match: Match, end: GameEnd) -> Match:
        live.record.ended_by = end
        self.observer.notice(end.reason)
        return end.apply(match)

    def _commit(self, live: _GameInProgress, state: State, move: Move, entry: MoveRecord) -> None:
        after = state.apply(move)
        live.states.append(after)
        live.record.moves.append(entry)
        self.observer.move_played(state, move, entry, after)
        self._tell(lambda player, seat: player.move_played(move, self._view(after, player)))

    def _undo(self, live: _GameInProgress, role: str) -> None:
        """Go back to the previous position where `role` was to move (chance events included)."""
        for index in range(len(live.states) - 2, -1, -1):
            if live.states[index].to_move == role and not live.record.moves[index].auto:
                count = len(live.states) - 1 - index
                del live.states[index + 1 :]
                del live.record.moves[index:]
                now = live.states[-1]
                self.observer.moves_taken_back(now, count)

                def take_back(player: Player, seat: int, now: State = now) -> None:
                    player.moves_taken_back(self._view(now, player))

                self._tell(take_back)
                return
        self.observer.notice("nothing to undo: this is your first move of the game")


_OURS = "abstractgames."
"""The prefix of this library's modules: a player whose class is defined in one is ours."""


def check_start(game: Game, state: State) -> State:
    """The position a match of `game` starts from when asked to start from `state`; raise
    [`InvalidPositionError`][abstractgames.protocol.InvalidPositionError] saying why if it
    cannot: `state` is not a state of `game`, its position string does not read back, the game
    is over there, or it is a chance node with no chance event to play.

    A match starts from the position string of `state`, read afresh
    ([`Game.from_position`][abstractgames.protocol.Game.from_position]), as its record keeps
    it: the history that led to `state` does not count. That fresh state is the one judged and
    returned, so a dispersal state drawn by a threefold repetition is a fine start (from there,
    each position has been seen once).
    """
    if not isinstance(state, State) or state.game != game:
        raise InvalidPositionError(
            f"a match of {game.spec} cannot start from {excerpt(repr(state))}: it is not a "
            f"position of {game.spec}"
        )
    text = state.position()
    try:
        fresh = game.from_position(text)
    except InvalidPositionError as error:
        raise InvalidPositionError(
            f"a match cannot start from {excerpt(text)}: its position string does not read "
            f"back ({error})"
        ) from None
    outcome = fresh.outcome()
    if outcome is not None or fresh.to_move is None:
        why = "" if outcome is None else f" ({excerpt(outcome.reason)})"
        raise InvalidPositionError(
            f"a match cannot start from {excerpt(text)}: the game is over{why}"
        )
    if fresh.is_chance():
        try:
            outcomes = fresh.chance_outcomes()
        except AbstractGamesError:
            outcomes = ()
        if not any(probability > 0 for _, probability in outcomes):
            raise InvalidPositionError(
                f"a match cannot start from {excerpt(text)}: it is a chance node with no "
                "chance event to play"
            )
    return fresh


def _has_timeout_moves(game: Game) -> bool:
    """Whether `game` makes the moves of a player out of time (asked at its first turn)."""
    state = game.initial_state()
    while state.is_chance():
        state = state.apply(state.chance_outcomes()[0][0])
    if state.to_move is None:
        return False
    try:
        return game.timeout_move(state) is not None
    except IllegalMoveError:
        return False


def _close(players: tuple[Player, ...], observer: Observer) -> None:
    """Close every player, even when closing one of them is interrupted or fails.

    A player's own error in `close` (or its `sys.exit`) is told to the observer and goes no
    further: the match is over, and its record must not be lost for it.
    """
    if players:
        try:
            players[0].close()
        except (Exception, SystemExit) as error:
            observer.notice(f"closing {players[0].spec or 'a player'} failed: {_describe(error)}")
        finally:
            _close(players[1:], observer)


_describe = described
