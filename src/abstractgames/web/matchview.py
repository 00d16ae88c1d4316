"""What the page is sent of a match: one [`MatchView`][] made by both front ends, the one-person
page's [`GameSession.snapshot`][abstractgames.web.sessions.GameSession.snapshot] and the game
server's [`OnlineGames.snapshot`][abstractgames.web.online.OnlineGames.snapshot].

What differs between them is said by the inputs: who is a person at this page (`human`), the
seat a move is awaited from here (`awaiting`: only that seat is sent its legal moves), what the
players are called in reasons (`names`), what a watcher may not know (the seed), and the game
server's own keys ([`SERVER_KEYS`][]: the seats, the deadline, a claim, an offer, a rematch).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from typing import Any

import attrs

from ..protocol import CHANCE, Game, Match, MatchError, MatchResult, State
from ..records import ClockSettings
from .views import clock_view, game_view, legal_view, named_ending, named_text, position_view

__all__ = ["SERVER_KEYS", "MatchView", "PlayerView"]

SERVER_KEYS = frozenset(
    {
        "online",
        "time_control",
        "correspondence",
        "deadline",
        "seats",
        "you",
        "rematch",
        "claimable_from",
        "offer",
        "can_take_back",
        "away_until",
    }
)
"""The keys only the game server's snapshot has (given to [`MatchView`][] as `server`)."""


@attrs.frozen
class PlayerView:
    """A player as the page shows them.

    Attributes:
        spec: the player's spec (a person's name or seat on the game server).
        human: whether a person at this page plays this seat (the page seats them: no bot
            thinks there, and "you" is said of them).
    """

    spec: str
    human: bool


@attrs.frozen(kw_only=True)
class MatchView:
    """A match as the page draws it; [`to_json`][] makes the snapshot.

    Attributes:
        id: the match's id.
        version: grows with every change the page is told of.
        status: `"starting"`, `"playing"`, `"between games"`, `"finished"`, `"stopped"` or
            `"failed"`.
        game: the game.
        state: the position shown.
        match: the match as it stands (who plays which role, what is decided).
        players: player 1's and player 2's.
        roles: the players' roles in the game shown (`[]`: none).
        game_number: the game of the match shown.
        games_in_match: how many games the match has.
        ply: the plies played in the match so far.
        plies: the moves of the game shown ([`ply_view`][abstractgames.web.views.ply_view]).
        finished_games: the games of the match that are over
            ([`finished_game_view`][abstractgames.web.views.finished_game_view]).
        thinking: the player whose turn it is (`None`: nobody's).
        awaiting: the player a move is awaited from at this page (`None`: none).
        moving: the position that move is for (default: `state`).
        clock: the clock setting (`None`: no clock).
        clocks: the seconds left on each clock now (`None`: no clock).
        running: the player whose clock runs.
        result: the match's result, once it is decided.
        names: what players 1 and 2 are called in the reasons (`None`: "player N").
        seed: the match's seed (`None`: not told).
        single: one game only.
        start: the position the match started from (`None`: the game's start).
        error: why the match stopped, if it failed.
        notices: what the page is told (a clock that ran out, a forfeit, an undo).
        saved: where the record is kept.
        pace: seconds between two bots' moves.
        can_undo: the person awaited may take back their move.
        legal: the legal moves of a position as the page reads them (a cache may be given).
        shown_game: the game's view when it is kept already
            ([`game_view`][abstractgames.web.views.game_view]).
        server: the game server's own keys ([`SERVER_KEYS`][]).
    """

    id: str
    version: int
    status: str
    game: Game
    state: State
    match: Match
    players: Sequence[PlayerView]
    roles: Sequence[str]
    game_number: int | None
    games_in_match: int
    ply: int
    plies: Sequence[Mapping[str, Any]]
    finished_games: Sequence[Mapping[str, Any]]
    thinking: int | None
    awaiting: int | None
    moving: State | None = None
    clock: ClockSettings | None = None
    clocks: Sequence[float | None] | None = None
    running: int | None = None
    result: MatchResult | None = None
    names: Sequence[str | None] = (None, None)
    seed: int | None = None
    single: bool = False
    start: str | None = None
    error: str | None = None
    notices: Sequence[str] = ()
    saved: str | None = None
    pace: float = 0.0
    can_undo: bool = False
    legal: Callable[[State], list[dict[str, Any]]] = legal_view
    shown_game: Mapping[str, Any] | None = None
    server: Mapping[str, Any] | None = None

    def to_move(self) -> int | None:
        """The player to move in the position shown (`None`: chance, or nobody)."""
        role = self.state.to_move
        if role in (None, CHANCE) or self.match.is_over():
            return None
        with suppress(MatchError):
            return self.match.player_of(role)
        return None

    def to_json(self) -> dict[str, Any]:
        """The snapshot the page reads (the keys `tests/web/test_matchview.py` pins)."""
        moving = self.state if self.moving is None else self.moving
        awaited = self.awaiting is not None
        result = self.result
        view: dict[str, Any] = {
            "id": self.id,
            "version": self.version,
            "status": self.status,
            "error": self.error,
            "game": dict(self.shown_game) if self.shown_game is not None else game_view(self.game),
            "seed": self.seed,
            "clock": clock_view(self.clock),
            "single": self.single,
            "start": self.start,
            "players": [
                {
                    "number": number,
                    "spec": player.spec,
                    "human": player.human,
                    "role": self.roles[number - 1] if self.roles else None,
                }
                for number, player in enumerate(self.players, start=1)
            ],
            "game_number": self.game_number,
            "games_in_match": self.games_in_match,
            "ply": self.ply,
            "position": position_view(self.state),
            "plies": [dict(ply) for ply in self.plies],
            "finished_games": [
                {**done, "ended_by": named_ending(done.get("ended_by"), self.names)}
                for done in self.finished_games
            ],
            "to_move": self.to_move(),
            "thinking": self.thinking,
            "awaiting": self.awaiting,
            "legal": self.legal(moving) if awaited else [],
            "kinds": list(self.game.move_kinds(moving)) if awaited else [],
            "goal": self.game.goal(moving.to_move or "") if awaited else "",
            "can_undo": awaited and self.can_undo,
            "clocks": None if self.clocks is None else list(self.clocks),
            "running": self.running,
            "result": None
            if result is None
            else {
                "winner": result.winner,
                "reason": named_text(result.reason, self.names),
                "scores": list(result.scores),
            },
            "notices": list(self.notices),
            "saved": self.saved,
            "pace": self.pace,
        }
        if self.server is not None:
            unknown = set(self.server) - SERVER_KEYS
            if unknown:
                raise ValueError(f"not keys of the game server's snapshot: {sorted(unknown)}")
            view.update(self.server)
        return view
