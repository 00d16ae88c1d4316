"""The referee: plays a match between two players under the rules, with clocks, and records it.

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

from .players import Player, PlayerFailed, Resign, UndoRequest
from .protocol import (
    AbstractGamesError,
    Game,
    IllegalMoveError,
    InvalidPositionError,
    Match,
    MatchError,
    Move,
    State,
)
from .records import ClockSettings, GameRecord, MatchRecord, MoveRecord
from .steps import (
    Action,
    Automatic,
    Event,
    Forfeit,
    GameEnded,
    GameStarted,
    MatchInPlay,
    MovePlayed,
    MoveRefused,
    MovesTakenBack,
    Notice,
    PlayMove,
    RefereeError,
    Resignation,
    TakeBack,
    Turn,
    chance_rng,
    player_rng,
)
from .text import described, excerpt

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

        A record's own seed, clock and rules are the match's (the referee's are those of a new
        record). A `KeyboardInterrupt` or `EOFError` from a player (a person pressing Ctrl-C or
        closing the input, or SIGTERM, see [`abstractgames.interrupts`][]) stops the match: the
        record returned then has `finished` false and [`play`][] with it continues where it
        stopped.

        Raises:
            MatchStopped: any other error during the match (a bot's own bug); it carries the
                record of the moves so far.
            RefereeError: `record` cannot be continued: it breaks the rules, or its match
                started elsewhere than the `start` given.
        """
        try:
            record = self.new_record() if record is None else record
            match = MatchInPlay(self.game, record, start=self.start)
        except BaseException:
            _close(self.players, self.observer)
            raise
        try:
            self.tell(match, match.opening)
            while (turn := match.turn()) is not None:
                self.ask(match, turn)
        except (KeyboardInterrupt, EOFError):
            return record
        except _PlayerError as failure:
            raise MatchStopped(self._failure_reason(failure), record) from failure.error
        except Exception as error:
            raise MatchStopped(f"the match stopped: {_describe(error)}", record) from error
        finally:
            _close(self.players, self.observer)
        self.observer.match_ended(record)
        return record

    # A match advanced by its front end, one turn at a time ([`play`][] is a loop over these).

    def begin(self, record: MatchRecord | None = None) -> MatchInPlay:
        """The match of `record` (a new one by default), its players and observer told where it
        stands; advance it with [`ask`][] and [`take`][], and [`close`][] the players at its end.

        Raises:
            RefereeError: `record` cannot be continued (see [`play`][]).
        """
        record = self.new_record() if record is None else record
        match = MatchInPlay(self.game, record, start=self.start)
        self.tell(match, match.opening)
        return match

    def ask(self, match: MatchInPlay, turn: Turn) -> list[Event]:
        """Ask the player whose `turn` it is (or let the referee act alone at a chance or
        timeout turn), take what they do, and tell everyone; return what happened."""
        events = self._act(match, turn)
        self.tell(match, events)
        return events

    def take(self, match: MatchInPlay, action: Action) -> list[Event]:
        """Take `action`, sent from outside (a person's move at a page), and tell everyone.

        Raises:
            MoveRefused: the rules refuse the move; nothing changed.
            ActionRefused: it cannot be taken now; nothing changed.
        """
        events = match.step(action)
        self.tell(match, events)
        return events

    def close(self) -> None:
        """Close both players (each, even when the other fails to close)."""
        _close(self.players, self.observer)

    def _act(self, match: MatchInPlay, turn: Turn) -> list[Event]:
        """Ask the player whose turn it is (or let the referee act alone); take what they do."""
        if turn.kind != "player" or turn.player is None:
            return match.step(Automatic())
        player = turn.player
        self.observer.turn_started(turn.state, player, turn.clocks)
        started = self.time_source()
        seated = self.players[player - 1]
        rng = player_rng(match.record.seed, turn.game_number, turn.ply, player)
        try:
            chosen = seated.choose(self._view(turn.state, seated), rng, turn.time_left)
        except Resign as resigned:
            return match.step(Resignation(player if resigned.seat not in (1, 2) else resigned.seat))
        except UndoRequest as undo:
            return match.step(TakeBack(player if undo.seat not in (1, 2) else undo.seat))
        except PlayerFailed as failure:
            return match.step(Forfeit(player, str(failure)))
        except EOFError:  # a person closed the input: the match stops, to be continued
            raise
        except (Exception, SystemExit) as error:
            return self._forfeit(match, _PlayerError(player, error))
        spent = self.time_source() - started
        try:
            text = str(chosen)
        except Exception as error:  # its __str__ failed
            return self._forfeit(match, _PlayerError(player, error))
        try:
            return match.step(PlayMove(text, spent))
        except MoveRefused as refused:
            return match.step(Forfeit(player, refused.reason))

    def _forfeit(self, match: MatchInPlay, failure: _PlayerError) -> list[Event]:
        """The match after `failure`, a player's own error: lost by forfeit where
        `failures_forfeit`; otherwise the error goes on (and stops the match)."""
        if not self.failures_forfeit:
            raise failure
        return match.step(Forfeit(failure.player, self._failure_reason(failure)))

    def tell(self, match: MatchInPlay, events: list[Event]) -> None:
        """Tell the observer and both players what happened.

        A player whose hook fails while its game goes on forfeits it (or stops the match); once
        the game is over, its result stands and the failure is a notice.
        """
        queue = list(events)
        while queue:
            event = queue.pop(0)
            try:
                self._tell_event(event)
            except _PlayerError as failure:
                game_over = isinstance(event, GameEnded) or any(
                    isinstance(later, GameEnded) for later in queue
                )
                if not game_over:
                    queue = self._forfeit(match, failure)
                elif self.failures_forfeit:
                    self.observer.notice(self._failure_reason(failure))
                else:
                    raise

    def _tell_event(self, event: Event) -> None:
        observer = self.observer
        if isinstance(event, GameStarted):
            observer.game_started(event.record, event.state, event.match)
            number = event.record.number

            def tell_the_game(player: Player, seat: int) -> None:
                player.game_started(seat, number, self._view(event.states[0], player))
                for move, after in zip(event.moves, event.states[1:], strict=True):
                    player.move_played(move, self._view(after, player))

            self._tell(tell_the_game)
        elif isinstance(event, MovePlayed):
            observer.move_played(event.before, event.move, event.entry, event.after)
            after, move = event.after, event.move
            self._tell(lambda player, seat: player.move_played(move, self._view(after, player)))
        elif isinstance(event, MovesTakenBack):
            observer.moves_taken_back(event.state, event.count)
            now = event.state
            self._tell(lambda player, seat: player.moves_taken_back(self._view(now, player)))
        elif isinstance(event, Notice):
            observer.notice(event.text)
        elif isinstance(event, GameEnded):
            observer.game_ended(event.record, event.state, event.match)
            final = event.state
            self._tell(lambda player, seat: player.game_ended(self._view(final, player)))

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


_OURS = f"{__package__}."
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
