"""What the browser is sent: games, positions and records as JSON-ready values.

Nothing here knows a particular game: a board is `State.cells()` on a
[`Grid`][abstractgames.grid.Grid], the pieces' colours are `Game.piece_colours`, the facts are
`State.describe()`, and each legal move comes with the squares its notation names
([`Grid.move_squares`][abstractgames.grid.Grid.move_squares]), which is all the page needs to
turn clicks into moves.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..grid import Grid, grid_of
from ..players import HUMAN
from ..protocol import CHANCE, AbstractGamesError, Game, Match, MatchError, Move, Outcome, State
from ..records import ClockSettings, GameRecord, MatchRecord, MoveRecord
from ..registry import (
    FEATURED_GAME,
    available_games,
    available_players,
    describe_game,
    describe_player,
    get_game,
)

__all__ = [
    "MAX_MATCH_GAMES",
    "catalog",
    "game_view",
    "legal_view",
    "match_roles",
    "outcome_view",
    "position_view",
    "replay_view",
]

MAX_MATCH_GAMES = 20
"""The most games of a match the page is told the roles of."""

SUGGESTED_BOTS = (
    "greedy",
    "random",
    "search:time=1",
    "search:depth=2",
)
"""Bot specs the page offers in its lists (any other spec may be typed)."""
SUGGESTED_PLAYERS = (HUMAN, *SUGGESTED_BOTS)
"""Player specs the page offers in its lists: a person, then the bots."""


def grid_or_none(game: Game) -> Grid | None:
    """The game's board, or `None` for a game without one."""
    try:
        return grid_of(game)
    except NotImplementedError:
        return None


def match_roles(game: Game, match: Match | None = None) -> list[list[str]]:
    """The roles of player 1 and player 2 in each game of `match` (default: a match of `game`
    under its rules), e.g. `[["chaos", "order"], ["order", "chaos"]]` for a match of two games
    with the roles swapped."""
    match = game.new_match() if match is None else match
    roles: list[list[str]] = []
    for number in range(1, MAX_MATCH_GAMES + 1):
        try:
            roles.append([match.role_of(1, number), match.role_of(2, number)])
        except MatchError:
            break
    return roles


def game_view(game: Game) -> dict[str, Any]:
    """A game as the page draws and explains it: its board, colours, roles and goals."""
    grid = grid_or_none(game)
    return {
        "name": game.name,
        "spec": game.spec,
        "title": game.title or game.name,
        "params": dict(game.params),
        "roles": list(game.roles),
        "width": 0 if grid is None else grid.width,
        "height": 0 if grid is None else grid.height,
        "colours": dict(game.piece_colours),
        "summary": game.rules_summary(),
        "goals": {role: game.goal(role) for role in game.roles},
        "match": match_roles(game),
    }


def catalog() -> dict[str, Any]:
    """Every game with a board and every player the registry knows, for the page's forms: the
    specs it suggests (`suggested`), those of them that are bots (`bots`), and the spec that
    seats a person (`person`)."""
    games = []
    for name in available_games():
        try:
            info = describe_game(name)
            view = game_view(get_game(name))
        except AbstractGamesError:  # a broken plugin: offer the others
            continue
        if view["width"]:
            start = position_view(get_game(name).initial_state())
            games.append({**view, "origin": info.origin, "start": start})
    players = []
    for name in available_players():
        try:
            player = describe_player(name)
        except AbstractGamesError:
            continue
        players.append(
            {
                "name": player.name,
                "options": player.options,
                "summary": player.summary,
                "origin": player.origin,
            }
        )
    return {
        "games": games,
        "players": players,
        "suggested": list(SUGGESTED_PLAYERS),
        "bots": list(SUGGESTED_BOTS),
        "person": HUMAN,
        "featured": FEATURED_GAME,
    }


def outcome_view(outcome: Outcome | None) -> dict[str, Any] | None:
    """An outcome as JSON (`None` while the game goes on)."""
    if outcome is None:
        return None
    return {"winner": outcome.winner, "scores": dict(outcome.scores), "reason": outcome.reason}


def squares_of(grid: Grid | None, move: Move | str) -> list[str]:
    """The names of the squares a move's notation names (none without a board)."""
    if grid is None:
        return []
    try:
        return [grid.names[square] for square in grid.move_squares(move)]
    except AbstractGamesError:
        return []


def position_view(state: State) -> dict[str, Any]:
    """A position: its string, the board's cells, the marked squares, the facts, who moves."""
    grid = grid_or_none(state.game)
    view: dict[str, Any] = {
        "position": state.position(),
        "to_move": state.to_move,
        "facts": list(state.describe()),
        "outcome": outcome_view(state.outcome()),
        "cells": None,
        "marks": {},
    }
    if grid is not None:
        view["cells"] = state.cells()
        view["marks"] = {
            grid.names[square]: reason
            for square, reason in state.marked_squares().items()
            if 0 <= square < grid.size
        }
    return view


def legal_view(state: State) -> list[dict[str, Any]]:
    """The legal moves of the player to move: each with its notation, the squares it names and
    the piece that ends on its last square (what a drop places, what a slide moves)."""
    if state.to_move in (None, CHANCE):
        return []
    grid = grid_or_none(state.game)
    moves = []
    for move in state.legal_moves():
        squares = squares_of(grid, move)
        piece = None
        if grid is not None and squares:
            after = state.apply(move).cells()[grid.square(squares[-1])]
            piece = None if after == "." else after
        moves.append({"move": str(move), "squares": squares, "piece": piece})
    return moves


def ply_view(state: State, entry: MoveRecord, role: str | None) -> dict[str, Any]:
    """One ply of a record: the move, who made it, the squares it names, its clock times."""
    return {
        "move": entry.move,
        "player": entry.player,
        "role": role,
        "squares": squares_of(grid_or_none(state.game), entry.move),
        "auto": entry.auto,
        "seconds": entry.seconds,
        "clock": entry.clock,
    }


def game_plies_view(game: Game, record: GameRecord) -> list[dict[str, Any]]:
    """Every ply of one game of a record, as the page lists them (see [`ply_view`][])."""
    state = game.from_position(record.start)
    plies = []
    for entry in record.moves:
        plies.append(ply_view(state, entry, None if entry.player is None else state.to_move))
        state = state.apply(entry.move)
    return plies


def finished_game_view(record: GameRecord, final: str | None, roles: list[str]) -> dict[str, Any]:
    """A game of a match that is over: its number, outcome, how a player lost it outside the
    rules, its final position and the players' roles in it."""
    return {
        "number": record.number,
        "outcome": outcome_view(record.outcome),
        "ended_by": ended_view(record),
        "final": final,
        "roles": roles,
    }


def clock_view(clock: ClockSettings | None) -> dict[str, float] | None:
    """A clock setting as JSON."""
    return None if clock is None else {"seconds": clock.seconds, "increment": clock.increment}


def ended_view(game_record: GameRecord) -> dict[str, Any] | None:
    """How a player lost the match during a game, outside its rules, if one did."""
    end = game_record.ended_by
    if end is None:
        return None
    return {"event": end.event, "player": end.player, "reason": end.reason}


_PLAYER = re.compile(r"\bplayer ([12])\b")


def named_text(text: str, names: Sequence[str | None]) -> str:
    """`text` with "player 1" and "player 2" called by `names` (where they have one).

    Examples:
        >>> named_text("player 2 resigned", (None, "Bob"))
        'Bob resigned'
    """
    return _PLAYER.sub(lambda found: names[int(found.group(1)) - 1] or found.group(0), text)


def replay_view(record: MatchRecord) -> dict[str, Any]:
    """A whole record checked through the rules, with every position of every game.

    Raises:
        RecordError: the record breaks the rules (as `abstractgames replay` says it).
    """
    record.replay()  # the record is checked through the rules first
    game = record.make_game()
    roles = match_roles(game)
    games = []
    for index, game_record in enumerate(record.games):
        state = game.from_position(game_record.start)
        positions = [position_view(state)]
        plies = []
        for entry in game_record.moves:
            role = None if entry.player is None else state.to_move
            plies.append(ply_view(state, entry, role))
            state = state.apply(entry.move)
            positions.append(position_view(state))
        games.append(
            {
                "number": game_record.number,
                "roles": roles[index] if index < len(roles) else list(game.roles[:2]),
                "positions": positions,
                "plies": plies,
                "ended_by": named_ending(ended_view(game_record), record.names),
            }
        )
    result = record.result
    return {
        "game": game_view(game),
        "players": list(record.players),
        "names": [record.who(1), record.who(2)],
        "seed": record.seed,
        "clock": clock_view(record.clock),
        "finished": record.finished,
        "result": None
        if result is None
        else {
            "winner": result.winner,
            "reason": named_text(result.reason, record.names),
            "scores": list(result.scores),
        },
        "games": games,
    }


def named_ending(
    ended: dict[str, Any] | None, names: Sequence[str | None]
) -> dict[str, Any] | None:
    """How a game ended outside its rules ([`ended_view`][]), told by `names`."""
    if not ended:
        return ended
    return {**ended, "reason": named_text(ended["reason"], names)}
