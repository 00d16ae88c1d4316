"""The results of a tournament: standings, pairs and matches, as JSON and as plain-text tables.

The statistics (ratings, intervals) come from [`abstractgames.stats`][].
"""

from __future__ import annotations

import io
import json
import os
from array import array
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, overload

import attrs

from .. import stats
from ..files import write_atomic
from ..records import ClockSettings, MatchRecord
from ..text import plural
from .errors import ArenaError
from .schedule import ARENA_VERSION, MatchTask, short_names

__all__ = [
    "ARENA_FORMAT",
    "ArenaReport",
    "MatchSummary",
    "MatchTable",
    "PairResult",
    "RunningReport",
    "Standing",
]

ARENA_FORMAT = "abstractgames-arena"
"""The `format` of the JSON results."""
CONFIDENCE = 0.95
VIRTUAL_DRAWS = 1.0


@attrs.frozen
class MatchSummary:
    """How one match of the tournament ended.

    Attributes:
        number, round, players, seed: as in its [`MatchTask`][].
        winner: 1 or 2 (the seat), or `None` for a draw.
        reason: the result's reason, e.g. `"five in a row"` or why a program failed.
        scores: each seat's score where the game has one (Entropy: the Order scores).
        games: how many games of the match were played.
        ended_by: `(event, seat)` when a player lost outside the rules of the game
            (`"resigned"`, `"out of time"`, `"forfeit"`), else `None`.
        start: the position string the match started from, as in its [`MatchTask`][]
            (`None`: the game's own start).
    """

    number: int
    round: int
    players: tuple[str, str]
    seed: int
    winner: int | None
    reason: str
    scores: tuple[float | None, float | None]
    games: int
    ended_by: tuple[str, int] | None
    start: str | None = None

    @classmethod
    def from_record(cls, task: MatchTask, record: MatchRecord) -> MatchSummary:
        """The summary of the finished match `task` from its record."""
        result = record.result
        if result is None:
            raise ArenaError(f"match {task.number} is not finished")
        ended = record.games[-1].ended_by if record.games else None
        return cls(
            number=task.number,
            round=task.round,
            players=task.players,
            seed=task.seed,
            winner=result.winner,
            reason=result.reason,
            scores=result.scores,
            games=len(record.games),
            ended_by=None if ended is None else (ended.event, ended.player),
            start=task.start,
        )

    def points(self, seat: int) -> float:
        """What the player in `seat` scored: 1 for a win, 0.5 for a draw, 0 for a loss."""
        return 0.5 if self.winner is None else float(self.winner == seat)

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "round": self.round,
            "players": list(self.players),
            "seed": self.seed,
            "winner": self.winner,
            "reason": self.reason,
            "scores": list(self.scores),
            "games": self.games,
            "ended_by": None
            if self.ended_by is None
            else {"event": self.ended_by[0], "player": self.ended_by[1]},
            "start": self.start,
        }


Outcome = tuple[int | None, str, tuple[float | None, float | None], int, tuple[str, int] | None]
"""What a [`MatchSummary`][] adds to its task: winner, reason, scores, games, ended_by."""


class MatchTable(Sequence[MatchSummary]):
    """The finished matches of a schedule, in schedule order, kept compactly.

    Each match costs one reference: equal outcomes (winner, reason, scores, games, how it ended)
    are stored once and the rest comes from the schedule, so a tournament's memory does not grow
    with its games beyond these counts. Iterating makes the [`MatchSummary`][] values.
    """

    def __init__(self, tasks: Sequence[MatchTask]) -> None:
        self._tasks = tasks
        self._outcomes: list[Outcome | None] = [None] * len(tasks)
        self._shared: dict[Outcome, Outcome] = {}
        self._count = 0
        self._order: array[int] | None = None

    def add(self, match: MatchSummary) -> None:
        """Keep `match` (a later one with the same number replaces it)."""
        outcome: Outcome = (match.winner, match.reason, match.scores, match.games, match.ended_by)
        outcome = self._shared.setdefault(outcome, outcome)
        if self._outcomes[match.number - 1] is None:
            self._count += 1
            self._order = None
        self._outcomes[match.number - 1] = outcome

    def has(self, number: int) -> bool:
        """Whether match `number` of the schedule is finished."""
        return self._outcomes[number - 1] is not None

    def get(self, number: int) -> MatchSummary:
        """The finished match `number` of the schedule.

        Raises:
            KeyError: it is not finished.
        """
        outcome = self._outcomes[number - 1]
        if outcome is None:
            raise KeyError(number)
        return self._summary(number - 1, outcome)

    def copy(self) -> MatchTable:
        """A table of the same matches, which the matches added to this one later do not
        change (the outcomes are shared: a reference a match)."""
        twin = MatchTable(self._tasks)
        twin._outcomes = list(self._outcomes)
        twin._shared = dict(self._shared)
        twin._count = self._count
        return twin

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[MatchSummary]:
        for index, outcome in enumerate(self._outcomes):
            if outcome is not None:
                yield self._summary(index, outcome)

    @overload
    def __getitem__(self, index: int) -> MatchSummary: ...

    @overload
    def __getitem__(self, index: slice) -> list[MatchSummary]: ...

    def __getitem__(self, index: int | slice) -> MatchSummary | list[MatchSummary]:
        if self._order is None:
            self._order = array("q", (i for i, o in enumerate(self._outcomes) if o is not None))
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        position = self._order[index]
        outcome = self._outcomes[position]
        assert outcome is not None
        return self._summary(position, outcome)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=False))

    __hash__ = None  # type: ignore[assignment]

    def _summary(self, index: int, outcome: Outcome) -> MatchSummary:
        task = self._tasks[index]
        return MatchSummary(
            task.number, task.round, task.players, task.seed, *outcome, start=task.start
        )


class _Repeated(Sequence[float]):
    """Values with their counts, as the sequence of every value (for the statistics)."""

    def __init__(self, counts: Counter[float]) -> None:
        self._counts = counts

    def __len__(self) -> int:
        return sum(self._counts.values())

    def __iter__(self) -> Iterator[float]:
        for value, count in self._counts.items():
            for _ in range(count):
                yield value

    @overload
    def __getitem__(self, index: int) -> float: ...

    @overload
    def __getitem__(self, index: slice) -> list[float]: ...

    def __getitem__(self, index: int | slice) -> float | list[float]:
        values = list(self)
        return values[index]


@attrs.frozen
class Standing:
    """One player's results over the whole tournament.

    Attributes:
        player: the spec.
        games: matches played (an Entropy match is two games).
        wins, draws, losses: match results.
        points: wins + draws / 2.
        elo, elo_error: the Bradley–Terry rating (the players average 0) and the half-width of
            its 95% interval.
        mean_score, score_error: the mean of the player's scores (Entropy: Order scores, one per
            match) and the half-width of its 95% interval (Student's t); `None` without scores.
        scored: how many scores the mean is of.
        forfeits: matches lost outside the rules (resigned, out of time, a failing program).
    """

    player: str
    games: int
    wins: int
    draws: int
    losses: int
    points: float
    elo: float
    elo_error: float
    mean_score: float | None
    score_error: float | None
    scored: int
    forfeits: int

    @property
    def score(self) -> float | None:
        """The fraction of the points available, or `None` before any match."""
        return self.points / self.games if self.games else None


@attrs.frozen
class PairResult:
    """The results of one pair of players, from the first one's point of view.

    `elo` is how much stronger the first player is, with the half-width `elo_error` of its
    95% interval, from these matches alone ([`elo_difference`][abstractgames.stats.elo_difference]).
    `by_seat` splits the first player's `(wins, draws, losses)` by the seat it played in:
    as player 1 (the game's first role in the match's first game), then as player 2.
    """

    players: tuple[str, str]
    games: int
    wins: int
    draws: int
    losses: int
    points: float
    elo: float
    elo_error: float
    by_seat: tuple[tuple[int, int, int], tuple[int, int, int]]


def _triple(counts: list[int]) -> tuple[int, int, int]:
    return counts[0], counts[1], counts[2]


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits) + 0.0  # no -0.0


@attrs.frozen
class ArenaReport:
    """The results of a tournament (of its finished matches, if it was not completed).

    Attributes:
        game: the game spec.
        players: the player specs, as given.
        games: matches per pair of players, in all (from each of the `positions`, this
            divided by their number).
        seed: the tournament seed.
        unit: `"game"`, or `"match"` where a match has several games (Entropy).
        scheduled: the number of matches in the schedule.
        matches: the finished matches in schedule order (a [`MatchTable`][] for a
            tournament played by [`Arena`][]).
        standings: the players, strongest (highest rating) first.
        pairs: every pair of players in the order given.
        show_scores: whether the games' scores say more than the results (Entropy).
        names: the players' short names, in the order of `players`: the tables show them.
        clock: each player's time per game, or `None`.
        time_loss_forfeits: whether running out of time lost the match.
        positions: the position strings the matches started from (an openings suite), or
            none: the game's own start.
    """

    game: str
    players: tuple[str, ...]
    games: int
    seed: int
    unit: str
    scheduled: int
    matches: Sequence[MatchSummary]
    standings: tuple[Standing, ...]
    pairs: tuple[PairResult, ...]
    show_scores: bool
    names: tuple[str, ...] = attrs.field()
    clock: ClockSettings | None = None
    time_loss_forfeits: bool = False
    positions: tuple[str, ...] = ()

    @names.default
    def _names(self) -> tuple[str, ...]:
        return short_names(self.players)

    @classmethod
    def from_matches(
        cls,
        matches: Sequence[MatchSummary],
        *,
        game: str,
        players: tuple[str, ...],
        games: int,
        seed: int,
        unit: str,
        scheduled: int,
        names: Sequence[str] | None = None,
        clock: ClockSettings | None = None,
        time_loss_forfeits: bool = False,
        positions: Sequence[str] = (),
    ) -> ArenaReport:
        """The results of the finished `matches` (in schedule order) of a round robin.

        `players` must name every player of the matches; `names` are their short names (by default
        [`short_names`][]); the other arguments are stored as they are (see the attributes).
        """
        counts = _Counts(players)
        for match in matches:
            counts.add(match)
        return counts.report(
            matches if isinstance(matches, MatchTable) else tuple(matches),
            game=game,
            games=games,
            seed=seed,
            unit=unit,
            scheduled=scheduled,
            names=short_names(players) if names is None else tuple(names),
            clock=clock,
            time_loss_forfeits=time_loss_forfeits,
            positions=tuple(positions),
        )

    @property
    def complete(self) -> bool:
        """Whether every match of the schedule was played."""
        return len(self.matches) == self.scheduled

    def to_json(self, *, matches: bool = True) -> dict[str, Any]:
        """The results as JSON data (see the arena documentation for the format); without
        `matches`, all but the list of the matches (whose length grows with the tournament)."""
        data = self._json_without_matches()
        if matches:
            data["matches"] = [m.to_json() for m in self.matches]
        return data

    def name(self, player: str) -> str:
        """The short name of the player `player` (a spec)."""
        return self.names[self.players.index(player)]

    def _json_without_matches(self) -> dict[str, Any]:
        return {
            "format": ARENA_FORMAT,
            "version": ARENA_VERSION,
            "game": self.game,
            "players": list(self.players),
            "names": list(self.names),
            "clock": None
            if self.clock is None
            else {"seconds": self.clock.seconds, "increment": self.clock.increment},
            "time_loss_forfeits": self.time_loss_forfeits,
            "positions": list(self.positions),
            "games_per_pair": self.games,
            "seed": self.seed,
            "unit": self.unit,
            "scheduled": self.scheduled,
            "played": len(self.matches),
            "confidence": CONFIDENCE,
            "virtual_draws": VIRTUAL_DRAWS,
            "standings": [
                {
                    "rank": rank,
                    "player": s.player,
                    "name": self.name(s.player),
                    "games": s.games,
                    "wins": s.wins,
                    "draws": s.draws,
                    "losses": s.losses,
                    "points": s.points,
                    "score": _round(s.score, 4),
                    "elo": _round(s.elo, 1),
                    "elo_error": _round(s.elo_error, 1),
                    "mean_score": _round(s.mean_score, 3),
                    "mean_score_error": _round(s.score_error, 3),
                    "scored": s.scored,
                    "forfeits": s.forfeits,
                }
                for rank, s in enumerate(self.standings, start=1)
            ],
            "pairs": [
                {
                    "players": list(p.players),
                    "names": [self.name(player) for player in p.players],
                    "games": p.games,
                    "wins": p.wins,
                    "draws": p.draws,
                    "losses": p.losses,
                    "points": p.points,
                    "elo_difference": _round(p.elo, 1),
                    "elo_error": _round(p.elo_error, 1),
                    "by_seat": [list(results) for results in p.by_seat],
                }
                for p in self.pairs
            ],
        }

    def dumps(self) -> str:
        """The results as JSON text with sorted keys: the same results give the same bytes."""
        return "".join(self._json_parts())

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write [`dumps`][] to `path` atomically."""
        data = io.BytesIO()
        for part in self._json_parts():
            data.write(part.encode("utf-8"))
        write_atomic(path, data.getvalue())

    def _json_parts(self) -> Iterator[str]:
        """The text of `json.dumps(self.to_json(), indent=2, sort_keys=True)` and a newline, made
        one match at a time (a whole `to_json` of a long tournament takes far more memory)."""
        data = self._json_without_matches()
        data["matches"] = []
        text = _dump(data) + "\n"
        head, empty, tail = text.partition(_NO_MATCHES)
        yield head
        if not self.matches:
            yield empty
        else:
            separator = _NO_MATCHES[:-1] + "\n"
            for match in self.matches:
                yield separator + "\n".join(
                    "    " + line for line in _dump(match.to_json()).split("\n")
                )
                separator = ",\n"
            yield "\n  ]"
        yield tail

    def format_table(self) -> str:
        """The standings, the pairs and any losses outside the rules, as plain-text tables."""
        units = plural(self.unit)
        per_pair = f"{self.games} {units} per pair"
        if len(self.positions) == 1:
            per_pair += " from one position"
        elif self.positions:
            each = self.games // len(self.positions)
            per_pair += f" ({each} from each of {len(self.positions):,} positions)"
        title = f"{self.game}: {len(self.players)} players, {per_pair}, seed {self.seed}"
        if self.clock is not None:
            title += f", clock {self.clock}"
        if self.time_loss_forfeits:
            title += ", time loss forfeits the match"
        if not self.complete:
            title += f" ({len(self.matches)} of {self.scheduled} {units} played)"
        header = ["#", "player", f"{units}", "won", "drawn", "lost", "points", "Elo (95%)"]
        if self.show_scores:
            header.append("mean score (95%)")
        rows = []
        for rank, s in enumerate(self.standings, start=1):
            row = [
                str(rank),
                self.name(s.player),
                *map(str, (s.games, s.wins, s.draws, s.losses)),
                _percent(s.score),
                _elo(s.elo, s.elo_error),
            ]
            if self.show_scores:
                row.append(_mean(s.mean_score, s.score_error))
            rows.append(row)
        pair_header = ["pair", f"{units}", "won", "drawn", "lost", "points", "Elo difference (95%)"]
        pair_header += ["in seat 1", "in seat 2"]
        pair_rows = [
            [
                f"{self.name(p.players[0])} vs {self.name(p.players[1])}",
                str(p.games),
                str(p.wins),
                str(p.draws),
                str(p.losses),
                _percent(p.points / p.games if p.games else None),
                _elo(p.elo, p.elo_error),
                *("-".join(map(str, results)) for results in p.by_seat),
            ]
            for p in self.pairs
        ]
        parts = [
            title,
            "",
            _table(header, rows, left=2),
            "",
            _table(pair_header, pair_rows, left=1),
        ]
        notes = self._forfeit_notes()
        if notes:
            parts += ["", "Lost outside the rules of the game:", *notes]
        numbered = [
            f"  {name}: {player}"
            for player, name in zip(self.players, self.names, strict=True)
            if name not in (player, short_names([player])[0])
        ]
        if numbered:
            parts += ["", "Players of the same name:", *numbered]
        return "\n".join(parts) + "\n"

    def _forfeit_notes(self) -> list[str]:
        lost: dict[str, tuple[int, MatchSummary]] = {}
        for match in self.matches:
            if match.ended_by is not None:
                player = match.players[match.ended_by[1] - 1]
                count, first = lost.get(player, (0, match))
                lost[player] = (count + 1, first)
        notes = []
        for player in self.players:
            if player in lost:
                count, first = lost[player]
                noun = self.unit if count == 1 else plural(self.unit)
                notes.append(
                    f"  {self.name(player)}: {count} {noun}, e.g. match {first.number}: "
                    f"{first.reason}"
                )
        return notes


class _Counts:
    """What a report is computed from, counted one match at a time: each pair's wins and draws,
    by seat, each player's scores and losses outside the rules. A match can be taken back
    (`sign=-1`), so a replaced result leaves no trace."""

    def __init__(self, players: tuple[str, ...]) -> None:
        self.players = players
        self.index = {player: i for i, player in enumerate(players)}
        n = len(players)
        self.wins = [[0] * n for _ in range(n)]
        self.draws = [[0] * n for _ in range(n)]
        self.scores: list[Counter[float]] = [Counter() for _ in range(n)]
        self.forfeits = [0] * n
        # by_seat[i][j][seat]: player i's [wins, draws, losses] against j from that seat.
        self.by_seat = [[[[0, 0, 0], [0, 0, 0]] for _ in range(n)] for _ in range(n)]
        self.saying_more = 0
        """How many matches have scores that say more than their results."""

    def add(self, match: MatchSummary, sign: int = 1) -> None:
        """Count `match` (`sign=-1`: take it back)."""
        seats = [self.index[p] for p in match.players]
        if match.winner is None:
            self.draws[seats[0]][seats[1]] += sign
            self.draws[seats[1]][seats[0]] += sign
        else:
            self.wins[seats[match.winner - 1]][seats[2 - match.winner]] += sign
        for seat in (0, 1):
            result = 1 if match.winner is None else 0 if match.winner == seat + 1 else 2
            self.by_seat[seats[seat]][seats[1 - seat]][seat][result] += sign
        for seat, who in enumerate(seats):
            score = match.scores[seat]
            if score is not None:
                self.scores[who][score] += sign
                if not self.scores[who][score]:
                    del self.scores[who][score]
        if match.ended_by is not None:
            self.forfeits[seats[match.ended_by[1] - 1]] += sign
        if _scores_say_more(match):
            self.saying_more += sign

    def report(
        self,
        matches: Sequence[MatchSummary],
        *,
        game: str,
        games: int,
        seed: int,
        unit: str,
        scheduled: int,
        names: tuple[str, ...],
        clock: ClockSettings | None,
        time_loss_forfeits: bool,
        positions: tuple[str, ...] = (),
    ) -> ArenaReport:
        """The report of the matches counted (`matches` are stored as they are)."""
        players, n = self.players, len(self.players)
        wins, draws, scores = self.wins, self.draws, self.scores
        played = [[wins[i][j] + wins[j][i] + draws[i][j] for j in range(n)] for i in range(n)]
        points = [[wins[i][j] + draws[i][j] / 2 for j in range(n)] for i in range(n)]
        ratings = stats.bradley_terry(
            points, played, virtual_draws=VIRTUAL_DRAWS, confidence=CONFIDENCE
        )
        standings = []
        for i, player in enumerate(players):
            mean, error = (
                stats.mean_interval(_Repeated(scores[i]), CONFIDENCE) if scores[i] else (None, None)
            )
            standings.append(
                Standing(
                    player=player,
                    games=sum(played[i]),
                    wins=sum(wins[i]),
                    draws=sum(draws[i]),
                    losses=sum(wins[j][i] for j in range(n)),
                    points=sum(points[i]),
                    elo=ratings.elo[i],
                    elo_error=ratings.error[i],
                    mean_score=mean,
                    score_error=error,
                    scored=scores[i].total(),
                    forfeits=self.forfeits[i],
                )
            )
        ranked = sorted(range(n), key=lambda i: (-round(ratings.elo[i], 6), i))
        pairs = []
        for i in range(n):
            for j in range(i + 1, n):
                elo, elo_error = stats.elo_difference(
                    points[i][j], played[i][j], virtual_draws=VIRTUAL_DRAWS, confidence=CONFIDENCE
                )
                pairs.append(
                    PairResult(
                        players=(players[i], players[j]),
                        games=played[i][j],
                        wins=wins[i][j],
                        draws=draws[i][j],
                        losses=wins[j][i],
                        points=points[i][j],
                        elo=elo,
                        elo_error=elo_error,
                        by_seat=(
                            _triple(self.by_seat[i][j][0]),
                            _triple(self.by_seat[i][j][1]),
                        ),
                    )
                )
        return ArenaReport(
            game=game,
            players=players,
            games=games,
            seed=seed,
            unit=unit,
            scheduled=scheduled,
            matches=matches,
            standings=tuple(standings[i] for i in ranked),
            pairs=tuple(pairs),
            show_scores=self.saying_more > 0,
            names=names,
            clock=clock,
            time_loss_forfeits=time_loss_forfeits,
            positions=positions,
        )


class RunningReport:
    """The results of a tournament kept up to date as its matches finish: [`add`][] each
    finished match, ask for the [`report`][] at any time.

    The statistics are those of [`ArenaReport.from_matches`][] (the same code counts them), but
    each match is counted once, as it comes, so a report after every match costs the ratings of
    the players alone, not a pass over every match played. [`Arena.run`][] keeps one, which
    [`MatchDone.report`][] reads. `tasks` is the schedule (the matches are numbered by it); the
    other arguments are those of [`ArenaReport.from_matches`][].

    Examples:
        >>> from abstractgames.arena import Arena
        >>> arena = Arena("orderchaos", ["random", "greedy"], games=2, seed=1)
        >>> running = arena.running_report()
        >>> running.report().standings[0].games
        0
        >>> first = arena.run().matches[0]
        >>> running.add(first)
        >>> report = running.report()
        >>> len(report.matches), report.complete, [s.wins for s in report.standings]
        (1, False, [1, 0])
    """

    def __init__(
        self,
        tasks: Sequence[MatchTask],
        *,
        game: str,
        players: tuple[str, ...],
        games: int,
        seed: int,
        unit: str,
        names: Sequence[str] | None = None,
        clock: ClockSettings | None = None,
        time_loss_forfeits: bool = False,
        positions: Sequence[str] = (),
    ) -> None:
        self.matches = MatchTable(tasks)
        """The matches added, in schedule order."""
        self._counts = _Counts(players)
        self._meta: dict[str, Any] = {
            "game": game,
            "games": games,
            "seed": seed,
            "unit": unit,
            "scheduled": len(tasks),
            "names": short_names(players) if names is None else tuple(names),
            "clock": clock,
            "time_loss_forfeits": time_loss_forfeits,
            "positions": tuple(positions),
        }

    def add(self, match: MatchSummary) -> None:
        """Count the finished `match` (one with the number of a match already added replaces
        it)."""
        if self.matches.has(match.number):
            self._counts.add(self.matches.get(match.number), sign=-1)
        self.matches.add(match)
        self._counts.add(match)

    def __len__(self) -> int:
        return len(self.matches)

    def report(self) -> ArenaReport:
        """The results of the matches added so far: a report of its own, which the matches
        added later do not change."""
        return self._counts.report(self.matches.copy(), **self._meta)

    def final(self) -> ArenaReport:
        """[`report`][] without copying the matches: for the end of the tournament, when no
        match will be added (one that is, is in this report's matches too)."""
        return self._counts.report(self.matches, **self._meta)


_NO_MATCHES = '\n  "matches": []'
"""Where the matches go in the JSON text of a report without them (a key at the top level)."""


def _dump(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)


def _elo(elo: float, error: float) -> str:
    return f"{round(elo):+d} ± {round(error)}"


def _percent(fraction: float | None) -> str:
    return "-" if fraction is None else f"{100 * fraction:.1f}%"


def _mean(mean: float | None, error: float | None) -> str:
    if mean is None:
        return "-"
    return f"{mean:.1f}" + ("" if error is None else f" ± {error:.1f}")


def _table(header: list[str], rows: list[list[str]], *, left: int) -> str:
    """Columns separated by two spaces; the first `left` columns aligned left, others right."""
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            cell.ljust(width) if c < left else cell.rjust(width)
            for c, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join(line(r) for r in [header, *rows])


def _scores_say_more(match: MatchSummary) -> bool:
    """Whether the match's scores are more than its points (Entropy's Order scores are)."""
    if match.scores == (None, None):
        return False
    return match.scores != (match.points(1), match.points(2))
