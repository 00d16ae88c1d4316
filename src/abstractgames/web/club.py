"""Tournaments for people on the game server: a round robin or a Swiss tournament of accounts
(and the server's bots), each game an ordinary online game between them.

- **Who**: any signed-in account makes a tournament (at most [`MOST_OPEN`][] of its own open for
  sign-up at once, and as often as the rate limit of creating games allows); accounts sign up in
  the lobby and withdraw before the start; its creator may enter the server's bots (the specs
  `OnlineGames.check_bot` takes, at most [`MAX_BOTS`][]) and take out any entrant before the
  start. Its creator or the server's operator starts it (or it starts by itself when its
  sign-up time is over, if one was set: with fewer than two entrants it is cancelled) and may
  cancel it; the games of a cancelled tournament go on as ordinary games.
- **Rounds**: the pairings come from the arena ([`abstractgames.arena.pairings`][]): a round
  robin meets every pair once, by the circle method; a Swiss tournament plays the rounds asked
  for (at most one fewer than its entrants), each paired when the one before is over. Both
  are played a round at a time: the next round is paired, and its games made, as the last
  game of a round ends (the server pairs it at once, whichever process or sweep sees it first).
  Whoever sits out a round has a bye, worth a point in Swiss, nothing in a round robin (where
  everyone has as many).
- **Games**: each pairing is a game of the server's, its seats bound to the players' accounts
  (they open it on any device they sign in on, as their other games) or played by a bot;
  clocks, notices, take-backs, claims and moderation work as in any game. A game is a match
  under the game's match rules (Entropy's two games with the roles swapped): the match's result
  is what counts. A rated tournament's games between two accounts are rated as any others
  (Glicko-2); an unrated tournament's are not.
- **Standings**: the arena's own report of the finished matches
  ([`ArenaReport.from_matches`][abstractgames.arena.ArenaReport.from_matches]: wins, draws,
  losses, points and the Bradley–Terry performance), ranked by points with the byes', ties
  broken by that performance ([`ranking`][abstractgames.arena.pairings.ranking]).
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from typing import Any

import attrs

from ..arena import (
    ArenaReport,
    MatchSummary,
    MatchTask,
    ranking,
    round_robin_rounds,
    swiss_pairings,
)
from ..protocol import Game
from ..records import MatchRecord
from ..registry import parse_game_spec
from ..text import excerpt
from .database import (
    AccountRow,
    Database,
    PairingRow,
    TournamentRefused,
    TournamentRow,
    UnknownGame,
    UnknownTournament,
)
from .errors import BadRequest, Conflict, Forbidden, NotFound
from .online import OnlineGames, Pace

__all__ = [
    "FORMATS",
    "MAX_BOTS",
    "MAX_ENTRANTS",
    "MAX_ROUNDS",
    "MAX_ROUND_ROBIN",
    "MAX_SIGNUP_HOURS",
    "MAX_TITLE",
    "MOST_OPEN",
    "ClubTournaments",
]

_log = logging.getLogger(__name__)

FORMATS = ("round-robin", "swiss")
"""The kinds of tournament."""
MAX_TITLE = 60
"""The longest title of a tournament."""
MAX_ENTRANTS = 32
"""The most entrants of a Swiss tournament."""
MAX_ROUND_ROBIN = 12
"""The most entrants of a round robin (66 games, 11 rounds)."""
MAX_ROUNDS = 15
"""The most rounds of a Swiss tournament."""
MAX_BOTS = 8
"""The most bots one tournament may have."""
MOST_OPEN = 3
"""How many tournaments open for sign-up one account may have at once."""
MAX_SIGNUP_HOURS = 60 * 24
"""The longest sign-up (hours) after which a tournament starts by itself."""


class ClubTournaments:
    """The tournaments for people of a game server, in its database; each game through
    `games`, which tells this when a game ends (`OnlineGames.on_finished`)."""

    def __init__(self, database: Database, games: OnlineGames) -> None:
        self.database = database
        self.games = games
        self._lock = threading.RLock()
        games.on_finished.append(self.game_finished)

    # Making, entering, starting

    def create(
        self,
        account: AccountRow,
        *,
        title: str,
        game: Game,
        format: str,
        rounds: int | None,
        pace: Pace,
        rated: bool = True,
        max_entrants: int | None = None,
        signup_hours: float | None = None,
    ) -> str:
        """A new tournament of `account`'s, open for sign-up; return its id.

        Raises:
            BadRequest: a bad title, format, number of rounds or of entrants, or sign-up time.
            Conflict: the account has [`MOST_OPEN`][] open for sign-up already.
        """
        title = " ".join(str(title).split())
        if not title or len(title) > MAX_TITLE or not title.isprintable():
            raise BadRequest(
                f"a tournament's title is 1 to {MAX_TITLE} printable characters, "
                f"not {excerpt(title)}"
            )
        if format not in FORMATS:
            raise BadRequest(f"a tournament is {' or '.join(FORMATS)}, not {excerpt(format)}")
        most = MAX_ROUND_ROBIN if format == "round-robin" else MAX_ENTRANTS
        entrants = most if max_entrants is None else max_entrants
        if not 2 <= entrants <= most:
            raise BadRequest(f"a {format} tournament has 2 to {most} players, not {entrants}")
        if format == "swiss":
            if rounds is None or not 1 <= rounds <= MAX_ROUNDS:
                raise BadRequest(f"a Swiss tournament has 1 to {MAX_ROUNDS} rounds")
        else:
            rounds = 0  # as many as the entrants make, counted at the start
        starts_at = None
        if signup_hours is not None:
            if not 0 < signup_hours <= MAX_SIGNUP_HOURS:
                raise BadRequest(f"the sign-up lasts at most {MAX_SIGNUP_HOURS} hours")
            starts_at = self.games.clock() + signup_hours * 3600
        try:
            return self.database.create_tournament(
                title=title,
                game_spec=game.spec,
                format=format,
                rounds=rounds,
                time_control=pace.stored(),
                rated=rated,
                creator_id=account.id,
                max_entrants=entrants,
                starts_at=starts_at,
                now=self.games.clock(),
                most_open=MOST_OPEN,
            )
        except TournamentRefused as error:
            raise Conflict(str(error)) from None

    def join(self, tournament_id: str, account: AccountRow) -> None:
        """Sign `account` up."""
        self._refused(
            self.database.add_entrant,
            tournament_id,
            _account_key(account.id),
            name=account.name,
            account_id=account.id,
            player_spec=None,
            now=self.games.clock(),
        )

    def leave(self, tournament_id: str, account: AccountRow) -> None:
        """Withdraw `account`'s sign-up (before the start)."""
        self._refused(
            self.database.remove_entrant,
            tournament_id,
            _account_key(account.id),
            self.games.clock(),
        )

    def add_bot(self, tournament_id: str, account: AccountRow, spec: str) -> str:
        """Enter a bot of the server's (only its creator or the operator); return its spec
        as seated.

        Raises:
            Forbidden: someone else, or a spec that runs a program, a file or a module.
            BadRequest: not a bot.
            Conflict: too many bots, or sign-up over.
        """
        row = self._row(tournament_id)
        self._may_run(row, account)
        spec = self.games.check_bot(spec, parse_game_spec(row.game_spec))
        if sum(e.player_spec is not None for e in row.entrants) >= MAX_BOTS:
            raise Conflict(f"a tournament has at most {MAX_BOTS} bots")
        self._refused(
            self.database.add_entrant,
            tournament_id,
            "bot:" + spec,
            name=spec,
            account_id=None,
            player_spec=spec,
            now=self.games.clock(),
        )
        return spec

    def remove(self, tournament_id: str, account: AccountRow, number: int) -> None:
        """Take entrant `number` out before the start (its creator or the operator)."""
        row = self._row(tournament_id)
        self._may_run(row, account)
        found = next((e for e in row.entrants if e.number == number), None)
        if found is None:
            raise NotFound(f"no entrant {number} in this tournament")
        self._refused(
            self.database.remove_entrant, tournament_id, found.entrant, self.games.clock()
        )

    def start(self, tournament_id: str, account: AccountRow) -> None:
        """Start the tournament now (its creator or the operator): round 1 is paired.

        Raises:
            Conflict: fewer than two entrants, or it has begun.
        """
        row = self._row(tournament_id)
        self._may_run(row, account)
        if row.state != "signup":
            raise Conflict("the tournament has begun already")
        if len(row.entrants) < 2:
            raise Conflict("a tournament needs at least two players")
        with self._lock:
            self._start(row)

    def cancel(self, tournament_id: str, account: AccountRow) -> None:
        """Cancel the tournament (its creator or the operator); its games go on, unpaired."""
        row = self._row(tournament_id)
        self._may_run(row, account)
        if not self.database.end_tournament(tournament_id, self.games.clock(), state="cancelled"):
            raise Conflict("the tournament is over already")

    # Rounds

    def game_finished(self, game_id: str) -> None:
        """A game ended: if it is a tournament's, pair the next round if it was the round's
        last."""
        tournament_id = self.database.tournament_of_game(game_id)
        if tournament_id is not None:
            self.advance(tournament_id)

    def sweep(self) -> None:
        """Start the tournaments whose sign-up time is over and bring every one under way up
        to date (a game that ended in another process, or that the operator aborted)."""
        for tournament_id in self.database.tournaments_due(self.games.clock()):
            try:
                self.advance(tournament_id)
            except Exception:  # one tournament that cannot go on stops no other
                _log.exception("tournament %s could not go on", tournament_id)

    def advance(self, tournament_id: str) -> None:
        """Do what a tournament waits for: start it when its sign-up time is over, make the
        games of its round, keep the results of the round's finished matches, pair the next
        round once they all are, or finish it after its last."""
        with self._lock:
            row = self._row(tournament_id)
            now = self.games.clock()
            if row.state == "signup" and row.starts_at is not None and row.starts_at <= now:
                if len(row.entrants) < 2:
                    self.database.end_tournament(tournament_id, now, state="cancelled")
                else:
                    self._start(row)
                return
            if row.state != "playing":
                return
            waiting = False
            for pairing in row.pairings:
                if pairing.round != row.round or pairing.second is None:
                    continue
                if pairing.game_id is None:
                    self._make_game(row, pairing)
                    waiting = True
                elif pairing.summary is None:
                    summary = self._summary(row, pairing)
                    if summary is None:
                        waiting = True
                    else:
                        self.database.set_pairing_summary(
                            tournament_id, pairing.round, pairing.board, summary
                        )
            if waiting:
                return
            if row.round >= row.rounds:
                self.database.end_tournament(tournament_id, now, round_number=row.round)
                return
            row = self._row(tournament_id)  # with the summaries just kept
            pairs = self._pairs(row, row.round + 1)
            if self.database.start_round(tournament_id, row.round + 1, pairs, now):
                self._make_games(tournament_id)

    def _start(self, row: TournamentRow) -> None:
        keys = [e.entrant for e in row.entrants]
        if row.format == "round-robin":
            rounds = len(round_robin_rounds(keys))
        else:
            rounds = min(row.rounds, len(keys) - 1)
        row = _with_rounds(row, rounds)
        pairs = self._pairs(row, 1)
        if self.database.start_round(row.id, 1, pairs, self.games.clock(), rounds=rounds):
            self._make_games(row.id)

    def _pairs(self, row: TournamentRow, number: int) -> list[tuple[str, str | None]]:
        """The pairs of round `number`, from the arena's pairings."""
        keys = [e.entrant for e in row.entrants]
        if row.format == "round-robin":
            return round_robin_rounds(keys)[number - 1]
        matches, byes = _results(row)
        return swiss_pairings(keys, matches, [b for b, count in byes.items() for _ in range(count)])

    def _make_games(self, tournament_id: str) -> None:
        row = self._row(tournament_id)
        for pairing in row.pairings:
            if pairing.round == row.round and pairing.second is not None and not pairing.game_id:
                self._make_game(row, pairing)

    def _make_game(self, row: TournamentRow, pairing: PairingRow) -> None:
        entrants = {e.entrant: e for e in row.entrants}
        seats = []
        for key in (pairing.first, pairing.second):
            entrant = entrants[key or ""]
            seats.append((entrant.name, entrant.account_id, entrant.player_spec))
        game = parse_game_spec(row.game_spec)
        game_id = self.games.create_paired(game, Pace.from_stored(row.time_control), seats)
        if not self.database.set_pairing_game(row.id, pairing.round, pairing.board, game_id):
            self.database.delete_game(game_id)  # another process made this pairing's game

    def _summary(self, row: TournamentRow, pairing: PairingRow) -> dict[str, Any] | None:
        """The finished match's summary (`{"aborted": true}`: a match without a result, or
        deleted); `None` while it is played."""
        assert pairing.game_id is not None and pairing.second is not None
        try:
            game = self.database.game(pairing.game_id)
        except UnknownGame:
            return {"aborted": True}
        if not game.finished:
            return None
        if (game.result or {}).get("aborted") or not game.record:
            return {"aborted": True}
        record = MatchRecord.loads(game.record)
        if not record.finished:
            return {"aborted": True}
        task = MatchTask(
            number=pairing.round * 1000 + pairing.board,
            round=pairing.round,
            game=row.game_spec,
            players=(pairing.first, pairing.second),
            seed=record.seed,
        )
        return MatchSummary.from_record(task, record).to_json()

    # What pages show

    def listing(self) -> dict[str, Any]:
        """The lobby's tournaments: those open for sign-up or under way, and the last
        finished."""
        return {"tournaments": [self._line(row) for row in self.database.tournaments()]}

    def view(self, tournament_id: str) -> dict[str, Any]:
        """A tournament's page: its settings, entrants, rounds with their games, and the
        standings."""
        row = self._row(tournament_id)
        names = {e.entrant: e for e in row.entrants}
        games = {}
        for pairing in row.pairings:
            if pairing.game_id and pairing.summary is None:
                try:
                    games[pairing.game_id] = self.database.game(pairing.game_id)
                except UnknownGame:
                    continue
        rounds: dict[int, list[dict[str, Any]]] = {}
        for pairing in row.pairings:
            rounds.setdefault(pairing.round, []).append(_board(pairing, names, games))
        return {
            **self._line(row),
            "rounds_played": [{"round": r, "games": found} for r, found in sorted(rounds.items())],
            "standings": self._standings(row),
        }

    def _line(self, row: TournamentRow) -> dict[str, Any]:
        try:
            pace = Pace.from_stored(row.time_control)
            shown, correspondence = str(pace), pace.correspondence
        except Conflict:
            shown, correspondence = "?", False
        return {
            "id": row.id,
            "title": row.title,
            "game": row.game_spec,
            "format": row.format,
            "rounds": row.rounds,
            "round": row.round,
            "time_control": shown,
            "correspondence": correspondence,
            "rated": row.rated,
            "creator": row.creator_name,
            "state": row.state,
            "max_entrants": row.max_entrants,
            "starts_at": row.starts_at,
            "created": row.created_at,
            "entrants": [
                {"number": e.number, "name": e.name, "bot": e.player_spec is not None}
                for e in row.entrants
            ],
        }

    def _standings(self, row: TournamentRow) -> list[dict[str, Any]]:
        if len(row.entrants) < 2:
            return []
        keys = tuple(e.entrant for e in row.entrants)
        matches, byes = _results(row)
        report = ArenaReport.from_matches(
            matches,
            game=row.game_spec,
            players=keys,
            games=1,
            seed=0,
            unit="match",
            scheduled=sum(p.second is not None for p in row.pairings),
            names=[e.name for e in row.entrants],
        )
        counted = byes if row.format == "swiss" else Counter[str]()
        game_name = row.game_spec.partition(":")[0]
        entrants = {e.entrant: e for e in row.entrants}
        lines = []
        for rank, standing in enumerate(ranking(report, counted), start=1):
            entrant = entrants[standing.player]
            rating = None
            if entrant.account_id is not None:
                rating = next(
                    (
                        round(r["rating"])
                        for r in self.database.ratings(entrant.account_id)
                        if r["game"] == game_name
                    ),
                    None,
                )
            lines.append(
                {
                    "rank": rank,
                    "name": entrant.name,
                    "bot": entrant.player_spec is not None,
                    "points": standing.points + counted.get(standing.player, 0),
                    "games": standing.games,
                    "wins": standing.wins,
                    "draws": standing.draws,
                    "losses": standing.losses,
                    "byes": byes.get(standing.player, 0),
                    "performance": round(standing.elo) if standing.games else None,
                    "rating": rating,
                }
            )
        return lines

    # Helpers

    def _row(self, tournament_id: str) -> TournamentRow:
        try:
            return self.database.tournament(str(tournament_id)[:32])
        except UnknownTournament:
            raise NotFound(f"no tournament {excerpt(tournament_id)} on this server") from None

    def _may_run(self, row: TournamentRow, account: AccountRow) -> None:
        if account.id != row.creator_id and not account.operator:
            raise Forbidden("only the tournament's creator (or the operator) can do this")

    def _refused(self, call: Any, tournament_id: str, *args: Any, **kwargs: Any) -> None:
        try:
            call(str(tournament_id)[:32], *args, **kwargs)
        except UnknownTournament:
            raise NotFound(f"no tournament {excerpt(tournament_id)} on this server") from None
        except TournamentRefused as error:
            raise Conflict(str(error)) from None


def _account_key(account_id: str) -> str:
    return "account:" + account_id


def _with_rounds(row: TournamentRow, rounds: int) -> TournamentRow:
    return attrs.evolve(row, rounds=rounds)


def _results(row: TournamentRow) -> tuple[list[MatchSummary], Counter[str]]:
    """The finished matches of a tournament (its aborted ones left out) and each player's
    byes."""
    matches = []
    byes: Counter[str] = Counter()
    for pairing in row.pairings:
        if pairing.second is None:
            byes[pairing.first] += 1
        elif pairing.summary is not None and not pairing.summary.get("aborted"):
            matches.append(_match(pairing.summary))
    return matches, byes


def _match(data: dict[str, Any]) -> MatchSummary:
    """A `MatchSummary` from its `to_json`."""
    ended = data.get("ended_by")
    return MatchSummary(
        number=data["number"],
        round=data["round"],
        players=(data["players"][0], data["players"][1]),
        seed=data["seed"],
        winner=data["winner"],
        reason=data["reason"],
        scores=(data["scores"][0], data["scores"][1]),
        games=data["games"],
        ended_by=None if ended is None else (ended["event"], ended["player"]),
        start=data.get("start"),
    )


def _board(pairing: PairingRow, names: dict[str, Any], games: dict[str, Any]) -> dict[str, Any]:
    """One pairing as the tournament's page shows it."""

    def name(key: str | None) -> str | None:
        return None if key is None else names[key].name if key in names else "?"

    line: dict[str, Any] = {
        "board": pairing.board,
        "first": name(pairing.first),
        "second": name(pairing.second),
        "game_id": pairing.game_id,
    }
    if pairing.second is None:
        return {**line, "status": "bye", "result": "bye"}
    summary = pairing.summary
    if summary is not None:
        if summary.get("aborted"):
            return {**line, "status": "aborted", "result": "aborted"}
        winner = summary.get("winner")
        result = "½–½" if winner is None else "1–0" if winner == 1 else "0–1"
        return {**line, "status": "finished", "result": result, "reason": summary.get("reason")}
    found = games.get(pairing.game_id or "")
    if found is not None and found.finished:
        return {**line, "status": "finished", "result": None}  # its result is being kept
    return {**line, "status": "playing" if pairing.game_id else "waiting", "result": None}
