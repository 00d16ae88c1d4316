"""Matches played through the web app: a [`Referee`][abstractgames.referee.Referee] in a thread
for each, people at the page, and bots that think with deadlines.

The referee drives every match exactly as `abstractgames play` does (clocks, chance, undo,
resignations, the games of a match, the record). A person at the page is a [`WebHuman`][], whose
`choose` waits for the move the page sends; a bot is wrapped in a [`GuardedBot`][], which lets it
think in a thread of its own and turns whatever goes wrong (an exception, a hang past its
deadline, a hook that fails) into a forfeit with the reason, so that one bad bot ends its own
match and nothing else. What happens is kept by an observer in the [`GameSession`][], whose
[`snapshot`][GameSession.snapshot] the page draws.
"""

from __future__ import annotations

import asyncio
import ctypes
import queue
import random
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import Any, cast

from ..players import HUMAN, Player, PlayerFailed, Resign, UndoRequest
from ..protocol import (
    AbstractGamesError,
    Game,
    IllegalMoveError,
    Match,
    MatchError,
    Move,
    State,
)
from ..records import ClockSettings, GameRecord, MatchRecord, MoveRecord, ResumePlan
from ..referee import Observer, Referee
from ..steps import Action, OutOfTime, PlayMove, RefereeError, Resignation, TakeBack, Turn
from ..text import counted, excerpt, value_excerpt
from .errors import BadRequest, Conflict, NotFound
from .matchview import MatchView, PlayerView
from .saved import SavedGames
from .seats import make_seats, seat_specs
from .views import (
    finished_game_view,
    game_plies_view,
    game_view,
    legal_view,
    match_roles,
    ply_view,
)

__all__ = [
    "BOT_GRACE",
    "BotInterrupted",
    "GameSession",
    "GuardedBot",
    "Live",
    "Sessions",
    "WebHuman",
    "interrupt",
]

BOT_GRACE = 5.0
"""Seconds a bot on a clock may run over its time before it forfeits for not answering."""
NUDGE_EVERY = 0.1
"""Seconds between two interrupts of a bot's thinking thread that has not stopped yet."""
NUDGE_FOR = 600.0
"""Seconds a bot's thinking thread is interrupted again and again before it is left alone."""
MAX_NOTICES = 20
"""The most recent notices a game keeps for the page."""
IDLE_SECONDS = 600.0
"""A match nobody has looked at for this long is stopped (and saved) to make room for a new one
when as many are played as the server allows."""


class Live:
    """Something a page follows: a version that grows with every change, and the event loops
    that wait for the next one (a WebSocket each)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.version = 0
        self._waiters: dict[asyncio.Event, asyncio.AbstractEventLoop] = {}
        self.flights: dict[Any, asyncio.Future[Any]] = {}
        """What the pages waiting here are being sent, being made once for those that share
        it (see [`follow`][abstractgames.web.requests.follow]; the event loop's only)."""

    def changed(self) -> None:
        """Count a change and wake every waiter (from any thread), with one call into each
        event loop."""
        with self.lock:
            self.version += 1
            loops: dict[asyncio.AbstractEventLoop, list[asyncio.Event]] = {}
            for event, loop in self._waiters.items():
                loops.setdefault(loop, []).append(event)
        for loop, events in loops.items():
            with suppress(RuntimeError):  # its loop is closed: the pages went away
                loop.call_soon_threadsafe(_set_all, events)

    def watch(self) -> asyncio.Event:
        """An event set at each change (call in the event loop; [`unwatch`][] when done)."""
        event = asyncio.Event()
        with self.lock:
            self._waiters[event] = asyncio.get_running_loop()
        return event

    def unwatch(self, event: asyncio.Event) -> None:
        """Stop waking `event`."""
        with self.lock:
            self._waiters.pop(event, None)


def _set_all(events: list[asyncio.Event]) -> None:
    for event in events:
        event.set()


class BotInterrupted(BaseException):
    """Raised inside a bot's thinking thread to end it: its match was stopped, or its time is
    up (a `BaseException`, so that a bot's own `except Exception` does not swallow it)."""


def interrupt(thread: threading.Thread) -> bool:
    """Raise [`BotInterrupted`][] in `thread` at its next Python instruction (CPython's
    `PyThreadState_SetAsyncExc`); return whether the thread was there to get it.

    A thread inside a long call into C (a `time.sleep`, a read from a pipe) gets it when that
    call returns; a program behind a pipe is stopped by closing its player instead."""
    ident = thread.ident
    if ident is None or not thread.is_alive():
        return False
    found: int = ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(ident), ctypes.py_object(BotInterrupted)
    )
    if found > 1:  # cannot happen for one thread id; undo as the C API asks
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), None)
        return False
    return found == 1


class WebHuman(Player):
    """A person at the page, in their seat: their moves, take-backs and resignations come from
    the page ([`GameSession.play`][], [`GameSession.undo`][], [`GameSession.resign`][]), never
    from `choose`."""

    spec = HUMAN

    def __init__(self, session: GameSession, number: int) -> None:
        self.session = session
        self.number = number

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        raise RefereeError("a person's moves come from the page")


class GuardedBot(Player):
    """A bot that thinks in a thread of its own, within a deadline.

    Whatever goes wrong is the bot's forfeit, with the reason: an exception from `choose` or
    from a hook, an answer that is not a move, or no answer within its time (its clock plus
    [`BOT_GRACE`][], or `limit` seconds without a clock). When the match is stopped (from the
    page, or the server shuts down), `choose` gives up at once.

    Either way the thinking thread is ended too, with [`BotInterrupted`][] raised in it (see
    [`interrupt`][]): a search that would think for a day stops within a few milliseconds, at its
    next Python instruction. What cannot be interrupted so is a bot blocked in one long call
    into C, or one that catches `BaseException` and goes on: its thread is left behind (a
    daemon, it does not keep the server from stopping), and its match is over all the same.
    """

    def __init__(self, inner: Player, number: int, stop: threading.Event, limit: float) -> None:
        self.inner = inner
        self.number = number
        self.stop = stop
        self.limit = limit
        self.spec = inner.spec
        self.supports_undo = inner.supports_undo
        self._failure: str | None = None

    def _who(self) -> str:
        return f"player {self.number} ({excerpt(self.spec)})"

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        if self._failure is not None:
            raise PlayerFailed(self._failure)
        answer: dict[str, Any] = {}
        done = threading.Event()
        gate = threading.Lock()
        inside = [False]  # the thread is in the bot's choose
        stopping = [False]

        def think() -> None:
            try:
                with gate:  # a stop before the thread got here: it never thinks
                    if stopping[0]:
                        return
                    inside[0] = True
                try:
                    answer["move"] = self.inner.choose(state, rng, time_left)
                except BaseException as error:  # whatever it is, it is the bot's
                    answer["error"] = error
                finally:
                    with gate:
                        inside[0] = False
            except BotInterrupted:  # the stop came as the bot answered
                pass
            finally:
                done.set()

        def nudge(thread: threading.Thread) -> None:
            # The interrupt is raised again until the bot's choose is left: one raised while
            # the thread runs a finaliser (a __del__ the collector called there) is dropped.
            deadline = time.monotonic() + NUDGE_FOR
            while not done.wait(NUDGE_EVERY) and time.monotonic() < deadline:
                with gate:
                    if inside[0]:
                        interrupt(thread)

        def stop_thinking(thread: threading.Thread) -> None:
            # Raised only while the bot is inside its choose, and only once: never into a
            # thread still starting, whose threading bookkeeping it would break.
            with gate:
                if stopping[0]:
                    return
                stopping[0] = True
                if not inside[0]:
                    return
                interrupt(thread)
            threading.Thread(target=nudge, args=(thread,), daemon=True).start()

        limit = self.limit if time_left is None else max(time_left, 0.0) + BOT_GRACE
        deadline = time.monotonic() + limit
        thread = threading.Thread(
            target=think, name=f"abstractgames-bot-{self.number}", daemon=True
        )
        thread.start()
        while not done.wait(0.05):
            if self.stop.is_set():
                stop_thinking(thread)
                raise EOFError
            if time.monotonic() > deadline:
                stop_thinking(thread)
                raise PlayerFailed(f"{self._who()} did not move within {limit:g} s")
        error = answer.get("error")
        if isinstance(error, Resign | UndoRequest | PlayerFailed):
            raise error
        if error is not None:
            raise PlayerFailed(f"{self._who()} failed: {_describe(error)}")
        move = answer.get("move")
        if not isinstance(move, Move | str):
            raise PlayerFailed(f"{self._who()} answered {value_excerpt(move)}, which is no move")
        try:
            state.apply(move)
        except IllegalMoveError:
            pass  # the referee scores it, with its own message
        except Exception as failure:
            raise PlayerFailed(
                f"{self._who()} answered {value_excerpt(move)}: {_describe(failure)}"
            ) from None
        return cast(Move, move)  # notation is played as the referee plays it

    def _hook(self, name: str, call: Callable[[], None]) -> None:
        if self._failure is not None:
            return
        try:
            call()
        except Exception as error:
            self._failure = f"{self._who()} failed in {name}: {_describe(error)}"

    def game_started(self, seat: int, game_number: int, start: State) -> None:
        self._hook("game_started", lambda: self.inner.game_started(seat, game_number, start))

    def move_played(self, move: Move, state: State) -> None:
        self._hook("move_played", lambda: self.inner.move_played(move, state))

    def moves_taken_back(self, state: State) -> None:
        self._hook("moves_taken_back", lambda: self.inner.moves_taken_back(state))

    def game_ended(self, state: State) -> None:
        self._hook("game_ended", lambda: self.inner.game_ended(state))

    def close(self) -> None:
        with suppress(Exception):
            self.inner.close()


def _describe(error: BaseException) -> str:
    text = excerpt(str(error), 200)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class _Watcher(Observer):
    """Keeps the session's view of the match as the referee plays it."""

    def __init__(self, session: GameSession) -> None:
        self.session = session

    def game_started(self, record: GameRecord, state: State, match: Match) -> None:
        session = self.session
        if session.between:  # shown once the people have read the last game's result
            session.next_game = lambda: self.game_started(record, state, match)
            return
        with session.lock:
            session.game_number = record.number
            session.match = match
            session.state = state
            session.status = "playing"
            session.plies = game_plies_view(session.game, record)
            session.turn = None
        session.changed()

    def turn_started(self, state: State, player: int, clocks: tuple[float | None, ...]) -> None:
        session = self.session
        with session.lock:
            session.turn = (player, time.monotonic())
            session.clocks = list(clocks)
        session.changed()

    def move_played(self, before: State, move: Move, entry: MoveRecord, after: State) -> None:
        session = self.session
        if entry.player is not None:  # kept before it is shown: a kill loses no move seen
            session.save()
        with session.lock:
            session.plies.append(_ply(before, entry))
            session.plies_made += 1
            session._sent = 0
            session.state = after
            session.turn = None
            if entry.player is not None and entry.clock is not None:
                session.clocks[entry.player - 1] = entry.clock
        session.changed()
        if entry.player is not None and session.pace > 0:
            session.stop.wait(session.pace)

    def moves_taken_back(self, state: State, count: int) -> None:
        session = self.session
        with session.lock:
            taken = session.plies[len(session.plies) - count :]
            del session.plies[len(session.plies) - count :]
            session.plies_made -= count
            session.state = state
        played = sum(ply["player"] is not None for ply in taken)
        session.notice(f"took back {counted(played, 'move')}")

    def notice(self, text: str) -> None:
        self.session.notice(text)

    def game_ended(self, record: GameRecord, state: State, match: Match) -> None:
        session = self.session
        following = match.game_number
        with session.lock:
            session.state = state
            session.match = match
            session.stop_clock()
            session.finished_games.append(
                finished_game_view(record, state.position(), session.roles_in(record.number))
            )
            if following is not None and session.humans:
                session.status = "between games"
            session.between = following is not None
        session.save()
        session.changed()

    def match_ended(self, record: MatchRecord) -> None:
        self.session.changed()


def _ply(before: State, entry: MoveRecord) -> dict[str, Any]:
    return ply_view(before, entry, None if entry.player is None else before.to_move)


class GameSession(Live):
    """One match played through the web app: its referee, its thread, and what the page sees.

    Args:
        game: the game.
        specs: the players' specs, [`HUMAN`][abstractgames.players.HUMAN] for a person at the
            page.
        make: makes the two players for this session (people through [`add_human`][]).
        seed: the match seed (random if `None`).
        clock: each player's time per game, or `None`.
        single: play one game even where a match has more.
        time_loss_forfeits: running out of time loses the match.
        pace: seconds to wait after each move (to watch bots play).
        save: keeps the record and says where it went (`None`: it is not kept).
        record: an unfinished match to continue (its seed, clock and rules are the ones given).
    """

    def __init__(
        self,
        game: Game,
        specs: tuple[str, str],
        make: Callable[[GameSession], tuple[Player, Player]],
        *,
        seed: int | None = None,
        clock: ClockSettings | None = None,
        single: bool = False,
        time_loss_forfeits: bool = False,
        pace: float = 0.0,
        save: Callable[[MatchRecord], str] | None = None,
        record: MatchRecord | None = None,
        start: State | None = None,
    ) -> None:
        super().__init__()
        self.id = secrets.token_urlsafe(18)
        self.game = game
        self.specs = specs
        self.pace = pace
        self.stop = threading.Event()
        self.proceed = threading.Event()
        self.done = threading.Event()
        self.turns = 0
        self.waiting: tuple[int, State, int] | None = None
        """The person to move, the position and the turn's number, while a person is to move."""
        self.resigning: set[int] = set()
        """The people who resigned while a bot thought, or between two games."""
        self.between = False
        """A game of the match is over and the next one has not begun."""
        self.next_game: Callable[[], None] | None = None
        """Shows the next game, once the people go on to it."""
        self._inbox: queue.Queue[tuple[int, Action | None]] = queue.Queue()
        """What the people send for the turn of that number (`None`: the match stops)."""
        self.humans: dict[int, WebHuman] = {}
        self.players = make(self)
        self.referee = Referee(
            game,
            self.players,
            seed=seed,
            clock=clock,
            single=single,
            time_loss_forfeits=time_loss_forfeits,
            observer=_Watcher(self),
            start=start,
        )
        self.record = self.referee.new_record() if record is None else record
        self.match: Match = self.record.new_match(game)
        self.games_in_match = len(match_roles(game, self.match))
        self.state: State = (
            game.initial_state() if self.referee.start is None else self.referee.start
        )
        self.game_number: int | None = 1
        self.plies: list[dict[str, Any]] = []
        self.finished_games: list[dict[str, Any]] = []
        self.turn: tuple[int, float] | None = None
        self.plies_made = sum(len(g.moves) for g in self.record.games)
        """The plies played in the whole match so far (chance events included)."""
        self._sent = 0
        """1 while a person's move is sent to the referee and not yet played."""
        seconds = None if clock is None else clock.seconds
        self.clocks: list[float | None] = [seconds, seconds]
        self.notices: list[str] = []
        self.status = "starting"
        self.error: str | None = None
        self.saved: str | None = None
        """Where the record is kept (its file, or its name in the database), once it is."""
        self.name: str | None = None
        """The name of the kept record this match continues, if it was resumed."""
        self._save = save
        self._saving = threading.Lock()
        self._game_view = game_view(game)
        self._legal: tuple[State | None, list[dict[str, Any]]] = (None, [])
        self.touched = time.monotonic()
        for game_record in self.record.games:
            if game_record.final is not None or game_record.ended_by is not None:
                self.finished_games.append(
                    finished_game_view(
                        game_record, game_record.final, self.roles_in(game_record.number)
                    )
                )
        self._thread = threading.Thread(
            target=self._run, name=f"abstractgames-match-{self.id[:6]}", daemon=True
        )

    def idle(self) -> float:
        """Seconds since a page last asked about this match (0 while one follows it live)."""
        with self.lock:
            if self._waiters:
                return 0.0
            return time.monotonic() - self.touched

    def add_human(self, number: int) -> WebHuman:
        """A person at the page as player `number`."""
        human = WebHuman(self, number)
        self.humans[number] = human
        return human

    def start(self) -> None:
        """Start the match in its thread."""
        self._thread.start()

    def _run(self) -> None:
        error = None
        referee = self.referee
        try:
            match = referee.begin(self.record)
            while (turn := match.turn()) is not None and self._go_on():
                with self.lock:
                    resigned = min(self.resigning, default=None)
                    self.resigning.clear()
                if resigned is not None:
                    referee.take(match, Resignation(resigned))
                elif turn.kind == "player" and turn.player in self.humans:
                    action = self._wait_for_person(turn)
                    if action is not None:
                        referee.take(match, action)
                else:
                    referee.ask(match, turn)  # a bot (its thread stopped with the match)
        except EOFError:  # the match was stopped while a bot thought
            pass
        except RefereeError as failure:  # the record could not be continued
            error = _describe(failure)
        except Exception as failure:  # our own bug
            error = f"the match stopped: {_describe(failure)}"
        finally:
            referee.close()
        try:
            self.save()  # before the page is told the match is over, so that its file is whole
        finally:
            with self.lock:
                if self.record.finished:
                    self.status = "finished"
                else:
                    self.status = "failed" if error else "stopped"
                self.error = error
                self.waiting = None
                self.stop_clock()
            self.changed()
            self.done.set()

    def _go_on(self) -> bool:
        """Whether the match goes on: after a game, once the people read its result (bots
        alone: after a pause, to watch), and unless it is stopped."""
        if self.between:
            self.between = False
            if self.humans:
                while not self.proceed.wait(0.25):
                    if self.stop.is_set():
                        return False
                self.proceed.clear()
            elif self.pace > 0:
                self.stop.wait(4 * self.pace)
            show, self.next_game = self.next_game, None
            if show is not None:
                show()
        return not self.stop.is_set()

    def _wait_for_person(self, turn: Turn) -> Action | None:
        """What the person to move at `turn` does (their flag falls at the end of their time);
        `None` if the match stops first."""
        player = turn.player
        assert player is not None
        self.referee.observer.turn_started(turn.state, player, turn.clocks)
        with self.lock:
            self.turns += 1
            number = self.turns
            self.waiting = (player, turn.state, number)
        self.changed()
        began = time.monotonic()
        left = turn.time_left
        deadline = None if left is None else began + max(left, 0.0)
        try:
            while not self.stop.is_set():
                wait = None if deadline is None else deadline - time.monotonic()
                if wait is not None and wait <= 0:
                    return OutOfTime(time.monotonic() - began)
                try:
                    for_turn, action = self._inbox.get(timeout=wait)
                except queue.Empty:
                    continue
                if action is None:
                    return None
                if for_turn != number:
                    continue  # sent for a turn that is over
                if isinstance(action, PlayMove):
                    return PlayMove(action.move, time.monotonic() - began)
                return action
            return None
        finally:
            with self.lock:
                if self.waiting is not None and self.waiting[2] == number:
                    self.waiting = None
            self.changed()

    def save(self) -> str | None:
        """Keep the record as it is now (atomically); return where, if it is kept."""
        if self._save is None:
            return None
        with self._saving:
            try:
                self.saved = self._save(self.record)
            except (OSError, AbstractGamesError) as error:
                self.notice(f"the record could not be saved: {excerpt(str(error), 200)}")
        return self.saved

    def notice(self, text: str) -> None:
        """Tell the page something (a clock that ran out, a forfeit, an undo)."""
        with self.lock:
            self.notices = [*self.notices[-(MAX_NOTICES - 1) :], text]
        self.changed()

    def stop_clock(self) -> None:
        """End the turn in progress without a move (a resignation, a stop): its clock keeps the
        time it showed."""
        with self.lock:
            if self.turn is not None:
                player, started = self.turn
                left = self.clocks[player - 1]
                if left is not None:
                    self.clocks[player - 1] = max(0.0, left - (time.monotonic() - started))
            self.turn = None

    def roles_in(self, number: int | None) -> list[str]:
        """The roles of player 1 and player 2 in game `number` (`[]` if there is none)."""
        if number is None:
            return []
        try:
            return [self.match.role_of(1, number), self.match.role_of(2, number)]
        except MatchError:
            return []

    # --- what the page sends ---------------------------------------------------------------------

    def _person_to_move(self) -> tuple[int, State, int]:
        waiting = self.waiting
        if waiting is None or self.status != "playing":
            raise Conflict(self._why_not_now())
        return waiting

    def _why_not_now(self) -> str:
        if self.status in ("finished", "stopped", "failed"):
            return "the match is over" if self.status == "finished" else "the match was stopped"
        if self.status == "between games":
            return f"game {self.game_number} is over: continue to the next game first"
        turn = self.turn
        if turn is not None and turn[0] not in self.humans:
            return f"it is not your turn: player {turn[0]} ({self.specs[turn[0] - 1]}) is thinking"
        return "it is not a person's turn"

    def play(self, text: str, player: int | None = None, ply: int | None = None) -> str:
        """Play the move `text` for the person to move; return it in canonical notation.

        With `player`, only if that player is to move; with `ply`, only if the match is at that
        ply (the [`plies_made`][] so far), so that a move sent twice is played once.

        Raises:
            IllegalMoveError: the move cannot be played (the terminal's message).
            Conflict: no person is to move, not `player`, or the match is past `ply`.
        """
        with self.lock:
            now = self.plies_made + self._sent
            if ply is not None and ply != now:
                raise Conflict(
                    f"this move was made at ply {ply}, but the match is at ply {now} now: look "
                    "at the board again"
                )
            number, state, turn = self._person_to_move()
            if player is not None and player != number:
                raise Conflict(f"it is not your turn: player {number} is to move")
            move = self.game.parse_move(text, state)
            state.apply(move)
            self.waiting = None
            self._sent = 1
            self._inbox.put((turn, PlayMove(str(move))))
        self.changed()
        return str(move)

    def can_undo(self) -> bool:
        """Whether the person to move may take back their last move (against a bot that can
        follow an undo, as at the terminal, and once they have moved in this game)."""
        waiting = self.waiting
        if waiting is None or len(self.humans) != 1:
            return False
        number = waiting[0]
        other = self.players[2 - number]
        if not other.supports_undo:
            return False
        return any(p["player"] == number and not p["auto"] for p in self.plies)

    def undo(self) -> None:
        """Take back the last move of the person to move (and the bot's reply).

        Raises:
            Conflict: no person is to move, or there is nothing to take back.
        """
        with self.lock:
            number, _, turn = self._person_to_move()
            if len(self.humans) != 1 or not self.players[2 - number].supports_undo:
                raise Conflict("undo is only possible in a game against bots")
            if not self.can_undo():
                raise Conflict("nothing to undo: this is your first move of the game")
            self.waiting = None
            self._inbox.put((turn, TakeBack(number)))
        self.changed()

    def resign(self, player: int | None) -> int:
        """Resign the match for person `player` (default: the only person, or the one to move);
        it takes effect at once on their turn or while the other person thinks, else (a bot
        thinks) when their turn comes. Return who resigned.

        Raises:
            BadRequest: `player` is not a person of this match, or it is unclear who resigns.
            Conflict: the match is over.
        """
        with self.lock:
            if self.status not in ("playing", "between games", "starting"):
                raise Conflict(self._why_not_now())
            if player is None:
                if len(self.humans) == 1:
                    player = next(iter(self.humans))
                elif self.waiting is not None:
                    player = self.waiting[0]
                else:
                    raise BadRequest("say which player resigns: 'player' is 1 or 2")
            if player not in self.humans:
                raise BadRequest(f"player {player} is not a person at this page")
            waiting = self.waiting
            if waiting is not None:  # a person is to move: this one, or the other one
                self.waiting = None
                self._inbox.put((waiting[2], Resignation(player)))
            else:
                self.resigning.add(player)
                self.proceed.set()
        self.changed()
        return player

    def hint_position(self) -> tuple[State, float | None]:
        """The position a hint is for, and the clock of the person to move (`None` without a
        clock): the hint's thinking time is theirs.

        Raises:
            Conflict: no person is to move.
        """
        with self.lock:
            number, state, _ = self._person_to_move()
            return state, self._clock_left(number)

    def proceed_to_next_game(self) -> None:
        """Start the next game of the match after the people read the last one's result.

        Raises:
            Conflict: the match is not between two games.
        """
        with self.lock:
            if self.status != "between games":
                raise Conflict("the match is not between two games")
            self.status = "playing"
            self.proceed.set()
        self.changed()

    def close(self) -> None:
        """Stop the match: people and bots give up their turn, the referee keeps the record."""
        self.stop.set()
        self.proceed.set()
        self._inbox.put((0, None))

    # --- what the page sees ----------------------------------------------------------------------

    def _clock_left(self, player: int) -> float | None:
        left = self.clocks[player - 1]
        if left is None:
            return None
        if self.turn is not None and self.turn[0] == player:
            left -= time.monotonic() - self.turn[1]
        return max(left, 0.0)

    def _legal_moves(self, state: State) -> list[dict[str, Any]]:
        cached, moves = self._legal
        if cached is not state:
            moves = legal_view(state)
            self._legal = (state, moves)
        return moves

    def snapshot(self) -> dict[str, Any]:
        """Everything the page shows of the match now (see
        [`MatchView`][abstractgames.web.matchview.MatchView])."""
        with self.lock:
            self.touched = time.monotonic()
            waiting = self.waiting
            clocked = self.referee.clock is not None
            start = self.referee.start
            return MatchView(
                id=self.id,
                version=self.version,
                status=self.status,
                game=self.game,
                state=self.state,
                match=self.match,
                players=[
                    PlayerView(spec, number in self.humans)
                    for number, spec in enumerate(self.specs, start=1)
                ],
                roles=self.roles_in(self.game_number),
                game_number=self.game_number,
                games_in_match=self.games_in_match,
                ply=self.plies_made,
                plies=self.plies,
                finished_games=self.finished_games,
                thinking=self.turn[0] if self.turn is not None else None,
                awaiting=None if waiting is None or self.status != "playing" else waiting[0],
                moving=None if waiting is None else waiting[1],
                clock=self.referee.clock,
                clocks=[self._clock_left(p) for p in (1, 2)] if clocked else None,
                running=self.turn[0] if self.turn is not None and clocked else None,
                result=self.match.result(),
                seed=self.referee.seed,
                single=self.referee.single,
                start=None if start is None else start.position(),
                error=self.error,
                notices=self.notices,
                saved=self.saved,
                pace=self.pace,
                can_undo=self.can_undo(),
                legal=self._legal_moves,
                shown_game=self._game_view,
            ).to_json()

    def summary(self) -> dict[str, Any]:
        """A line about the match for lists."""
        with self.lock:
            return {
                "id": self.id,
                "game": self.game.spec,
                "title": self.game.title or self.game.name,
                "players": list(self.specs),
                "status": self.status,
                "plies": len(self.plies),
                "game_number": self.game_number,
            }


class Sessions:
    """Every match of the web app, by its unguessable id.

    Args:
        records: where every match's record is kept (`None`: nowhere).
        allow_programs: whether a page may start external programs and bots from files or
            modules (specs such as `engine:CMD` or `bot.py:Bot`).
        bot_timeout: seconds a bot without a clock has for a move before it forfeits.
        max_running: the most matches played at once.
    """

    def __init__(
        self,
        *,
        records: SavedGames | None = None,
        allow_programs: bool = True,
        bot_timeout: float = 300.0,
        max_running: int = 64,
    ) -> None:
        self.records = records
        self.allow_programs = allow_programs
        self.bot_timeout = bot_timeout
        self.max_running = max_running
        self._sessions: dict[str, GameSession] = {}
        self._lock = threading.Lock()
        self.closed = False

    @property
    def refuse(self) -> str | None:
        """Why this server refuses a spec that runs code from outside the library (`None`: it
        starts them); see [`seat_specs`][abstractgames.web.seats.seat_specs]."""
        if self.allow_programs:
            return None
        return (
            "this server does not start programs or code from files (start it with "
            "--allow-programs to let it)"
        )

    def create(
        self,
        game: Game,
        specs: Sequence[str],
        *,
        seed: int | None = None,
        clock: ClockSettings | None = None,
        single: bool = False,
        time_loss_forfeits: bool = False,
        pace: float = 0.0,
        record: MatchRecord | None = None,
        name: str | None = None,
        start: State | None = None,
    ) -> GameSession:
        """Make the players and start a match (call it outside the event loop: making a player
        may load a file or start a program), from `start` if given (see
        [`Referee`][abstractgames.referee.Referee]).

        With `record`, the unfinished match in it is continued and kept again as `name` (see
        [`resume`][]: the record's settings are the ones to give).

        Raises:
            AbstractGamesError: a bad player spec (its message says what is wrong).
            BadRequest: an empty spec.
            Forbidden: a spec that runs outside code where that is not allowed.
            Conflict: too many matches are being played, or the server is shutting down.
        """
        named = seat_specs(specs, refuse=self.refuse)
        self._make_room()
        with self._lock:
            if name is not None and any(
                s.name == name and not s.done.is_set() for s in self._sessions.values()
            ):
                raise Conflict(f"{name} is being played here already")

        def make(session: GameSession) -> tuple[Player, Player]:
            return make_seats(
                named,
                game,
                session.add_human,
                lambda number, bot: GuardedBot(bot, number, session.stop, self.bot_timeout),
            )

        if record is not None:
            record.players = named
        session = GameSession(
            game,
            named,
            make,
            seed=seed,
            clock=clock,
            single=single,
            time_loss_forfeits=time_loss_forfeits,
            pace=pace,
            save=None if self.records is None else self._saver(self.records, name),
            record=record,
            start=start,
        )
        session.name = name
        with self._lock:
            if self.closed:
                for player in session.players:
                    player.close()
                raise Conflict("the server is shutting down")
            self._forget_old()
            self._sessions[session.id] = session
        session.start()
        return session

    def resume(
        self, plan: ResumePlan, *, name: str | None = None, pace: float = 0.0
    ) -> GameSession:
        """Continue the unfinished match of a record as `plan` says (see
        [`MatchRecord.resume_plan`][abstractgames.records.MatchRecord.resume_plan]), keeping it
        again as `name` (`None`: as a new record); raises what [`create`][] raises."""
        return self.create(
            plan.game,
            plan.players,
            seed=plan.seed,
            clock=plan.clock,
            single=plan.single,
            time_loss_forfeits=plan.time_loss_forfeits,
            pace=pace,
            record=plan.record,
            name=name,
        )

    def _make_room(self) -> None:
        """Refuse a new match while too many are played, after stopping (and saving) the one
        left alone longest if nobody has looked at it for [`IDLE_SECONDS`][]."""
        with self._lock:
            if self.closed:
                raise Conflict("the server is shutting down")
            running = [s for s in self._sessions.values() if not s.done.is_set()]
        if len(running) < self.max_running:
            return
        idle = sorted((s for s in running if s.idle() > IDLE_SECONDS), key=lambda s: -s.idle())
        if not idle:
            raise Conflict(f"{len(running)} matches are being played: finish one first")
        idle[0].close()
        idle[0].done.wait(10)

    @staticmethod
    def _saver(records: SavedGames, name: str | None) -> Callable[[MatchRecord], str]:
        kept: list[str] = [] if name is None else [name]

        def save(record: MatchRecord) -> str:
            kept[:] = [records.keep(kept[0] if kept else None, record)]
            return records.shown(kept[0])

        return save

    def _forget_old(self, keep: int = 200) -> None:
        """Forget the oldest finished matches beyond `keep` (their records are saved)."""
        finished = [s for s in self._sessions.values() if s.done.is_set()]
        for session in finished[: max(0, len(self._sessions) - keep)]:
            del self._sessions[session.id]

    def get(self, session_id: str) -> GameSession:
        """The match with this id.

        Raises:
            NotFound: there is none.
        """
        with self._lock:
            session = self._sessions.get(session_id)
        if session is None:
            raise NotFound("no such game here (it may have been played before a restart)")
        return session

    def watchable(self) -> list[dict[str, Any]]:
        """The matches between bots, newest first (matches with people are private to their
        page: whoever knows a match's id can move in it)."""
        with self._lock:
            sessions = list(self._sessions.values())
        return [s.summary() for s in reversed(sessions) if not s.humans]

    def shutdown(self, timeout: float = 10.0) -> list[str]:
        """Stop every match, wait for each to save its record, and return where they went."""
        with self._lock:
            self.closed = True
            sessions = list(self._sessions.values())
        running = [s for s in sessions if not s.done.is_set()]
        for session in running:
            session.close()
        deadline = time.monotonic() + timeout
        saved = []
        for session in running:
            if not session.done.wait(max(0.0, deadline - time.monotonic())):
                session.save()  # its thread hangs: keep what it has
            if session.saved is not None:
                saved.append(session.saved)
        return saved
