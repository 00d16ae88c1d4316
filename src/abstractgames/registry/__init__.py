"""The registry: the one place that names the games and players, built in or added from outside.

A game is known by a name (`"entropy"`) and made with [`get_game`][]; a player by a spec
(`"search:time=1.5"`) and made with [`make_player`][]. Names come from four places, looked up
in this order:

1. the built-in tables (the only place in the library that names a particular game);
2. [`register_game`][] and [`register_player`][] in this process;
3. installed distributions, through the entry-point groups `abstractgames.games` and
   `abstractgames.players` (loaded on first use; see [Add a game](../add-a-game.md));
4. for players only, a class in a file or module: `path/to/bot.py:MyBot` or
   `package.module:MyBot`, with options after a second colon (`bot.py:MyBot:depth=3`).

Besides the game itself, the registry knows what the generic players need of each game: the
evaluation the `greedy` player maximises, the `search` bot, the exact solver (with the options it
declares, [`solver_entry_for`][]) and the batched simulator (a [`GameEntry`][]). A game without an
evaluation gets [`outcome_evaluation`][abstractgames.players.greedy.outcome_evaluation] (take a win
at once, else any move).

Its modules: `games` (the games and what the generic players need of them), `players` (the
players, their specs read as [`PlayerSpec`][] values), `plugins` (the entry points),
`loader` (bots from files and modules), `generic` (the `greedy`, `mc` and `search` players
and the [`hint`][]), `listing` (what `abstractgames list` says, of a plugin from its metadata
alone unless asked to load it); everything public is named here.

Examples:
    >>> from abstractgames import get_game, make_player
    >>> make_player("search:depth=2", get_game("orderchaos")).spec
    'search:depth=2'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .games import (
    BUILT_IN,
    FEATURED_GAME,
    GameEntry,
    available_games,
    certificate_checker_for,
    evaluation_for,
    game_entry,
    get_game,
    import_object,
    parse_game_spec,
    register_game,
    solver_entry_for,
    solver_for,
    vector_for,
)
from .generic import (
    DEFAULT_SEARCH_TIME,
    HINT_SECONDS,
    MAX_HINT_SECONDS,
    MAX_SEARCH_TIME,
    Hint,
    NoHint,
    greedy_player,
    hint,
    mc_player,
    search_player,
)
from .listing import (
    GameInfo,
    PlayerInfo,
    PluginInfo,
    describe_game,
    describe_player,
    plugin_game,
    plugin_player,
)
from .players import (
    ArgumentKind,
    OutsideCode,
    PlayerEntry,
    PlayerSpec,
    available_players,
    build_player,
    check_player_spec,
    make_in_process,
    make_player,
    outside_code,
    player_entry,
    player_origin,
    register_player,
    registrations,
    restore_registrations,
    with_logs,
)
from .plugins import GAME_GROUP, PLAYER_GROUP, PluginError, PluginWarning, refresh_plugins

if TYPE_CHECKING:
    from .isolation import IsolatedPlayer


def __getattr__(name: str) -> Any:
    """`IsolatedPlayer`, imported on first use: it brings the engine protocol, which a process
    that plays no code from outside does not need."""
    if name == "IsolatedPlayer":
        from .isolation import IsolatedPlayer

        return IsolatedPlayer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BUILT_IN",
    "DEFAULT_SEARCH_TIME",
    "FEATURED_GAME",
    "GAME_GROUP",
    "HINT_SECONDS",
    "MAX_HINT_SECONDS",
    "MAX_SEARCH_TIME",
    "PLAYER_GROUP",
    "ArgumentKind",
    "GameEntry",
    "GameInfo",
    "Hint",
    "IsolatedPlayer",
    "NoHint",
    "OutsideCode",
    "PlayerEntry",
    "PlayerInfo",
    "PlayerSpec",
    "PluginError",
    "PluginInfo",
    "PluginWarning",
    "available_games",
    "available_players",
    "build_player",
    "certificate_checker_for",
    "check_player_spec",
    "describe_game",
    "describe_player",
    "evaluation_for",
    "game_entry",
    "get_game",
    "greedy_player",
    "hint",
    "import_object",
    "make_in_process",
    "make_player",
    "mc_player",
    "outside_code",
    "parse_game_spec",
    "player_entry",
    "player_origin",
    "plugin_game",
    "plugin_player",
    "refresh_plugins",
    "register_game",
    "register_player",
    "registrations",
    "restore_registrations",
    "search_player",
    "solver_entry_for",
    "solver_for",
    "vector_for",
    "with_logs",
]
