"""Tournaments: a seeded round robin between players, run in parallel, with honest statistics.

Every pair of players plays `games` matches. The matches come in pairings: both matches of a
pairing are played on the same seed with the seats swapped, so each player of the pair meets the
same chance events (Entropy's bag draws) in the same roles. A match is whatever the game's match
rules say (Entropy: two games with the roles swapped; the other games: one game).

The schedule follows from the game, the players, `games` and the seed alone; each match is an
independent, picklable [`MatchTask`][] that a worker plays with the
[`Referee`][abstractgames.referee.Referee]. The results are gathered by their place in the schedule,
never by the order in which they finish, so the same seed gives the same results whichever
[`Executor`][] runs the matches: one process, local processes, or a dask.distributed cluster
(as long as the players themselves are deterministic: a time budget depends on the machine).

The package has one module per job: [`schedule`][] (the matches, their seeds and the players'
names), [`executors`][] (where they are played), [`state`][] (the resumable state file),
[`report`][] (the results and their tables, also as they come: [`RunningReport`][]),
[`pairings`][] (tournaments played a round at a time: the round robin's rounds, Swiss pairings, the
ranking by points, for a front end that makes its games itself) and
[`tournament`][] ([`Arena`][], which ties them together and tells their progress: each finished
match with the results so far, and the time left; a `threading.Event` given to [`Arena.run`][]
stops it from another thread); import their public names from here.

Examples:
    >>> arena = Arena("orderchaos", ["random", "greedy"], games=2, seed=1)
    >>> [(task.round, task.players) for task in arena.tasks]
    [(1, ('random', 'greedy')), (1, ('greedy', 'random'))]
    >>> report = arena.run()
    >>> [(s.player, s.wins, s.losses) for s in report.standings]
    [('greedy', 2, 0), ('random', 0, 2)]
"""

from __future__ import annotations

from .errors import ArenaError
from .executors import (
    DaskExecutor,
    Executor,
    ProcessExecutor,
    SerialExecutor,
    TimedResults,
    default_jobs,
    make_executor,
)
from .pairings import BYE_POINTS, ranking, round_robin_rounds, swiss_pairings, swiss_points
from .report import (
    ARENA_FORMAT,
    ArenaReport,
    MatchSummary,
    MatchTable,
    PairResult,
    RunningReport,
    Standing,
)
from .schedule import (
    ARENA_VERSION,
    MatchTask,
    Tasks,
    play_match,
    player_spec,
    round_seed,
    short_name,
    short_names,
)
from .state import STATE_FORMAT, ArenaState
from .tournament import Arena, MatchDone, TimeLeft, format_duration

__all__ = [
    "ARENA_FORMAT",
    "ARENA_VERSION",
    "BYE_POINTS",
    "STATE_FORMAT",
    "Arena",
    "ArenaError",
    "ArenaReport",
    "ArenaState",
    "DaskExecutor",
    "Executor",
    "MatchDone",
    "MatchSummary",
    "MatchTable",
    "MatchTask",
    "PairResult",
    "ProcessExecutor",
    "RunningReport",
    "SerialExecutor",
    "Standing",
    "Tasks",
    "TimeLeft",
    "TimedResults",
    "default_jobs",
    "format_duration",
    "make_executor",
    "play_match",
    "player_spec",
    "ranking",
    "round_robin_rounds",
    "round_seed",
    "short_name",
    "short_names",
    "swiss_pairings",
    "swiss_points",
]
