"""The operator's tools: one home for each action, called by `abstractgames server admin` and by
the moderation page of an operator's account.

Each action is one transaction on the server's database, which every server process on it
hears of (PostgreSQL's `NOTIFY`, SQLite's change counter): an aborted game stops at once on
every page, a blocked account's sessions end, and its seats no longer open for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .accounts import check_account_name, name_key
from .database import AccountRow, Database, GameRow, NameTaken, UnknownAccount, UnknownGame
from .errors import BadRequest, Conflict, NotFound
from .online import OnlineGames

__all__ = ["ABORTED", "Moderation"]

ABORTED = "aborted by the server's operator"
"""The reason an aborted game ends with (it is not rated)."""


class Moderation:
    """What the operator does to the games and accounts of a database.

    Args:
        database: the store.
        games: the online games of this process, if it serves them (told of each change at
            once; other processes hear of it through the database).
        clock: the time now, in seconds since the epoch.
    """

    def __init__(
        self,
        database: Database,
        *,
        games: OnlineGames | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.database = database
        self.online = games
        self.clock = clock

    # Games

    def games(self, limit: int = 100) -> list[dict[str, Any]]:
        """The games changed last (the latest first): `{"id", "game", "status", "seats",
        "created", "updated", "reason"}`, each seat `{"name", "account", "bot"}`."""
        accounts = {a.id: a.name for a in self.database.accounts(10_000)}
        return [_game(row, accounts) for row in self.database.recent_games(limit)]

    def abort(self, game_id: str) -> None:
        """End an unfinished game without a winner, unrated ([`ABORTED`][]).

        Raises:
            NotFound: no such game. Conflict: it is over already.
        """
        row = self._game(game_id)
        if row.finished:
            raise Conflict(f"game {game_id} is over already")
        result: dict[str, Any] = {
            "winner": None,
            "reason": ABORTED,
            "scores": [],
            "aborted": True,
        }
        self.database.finish_game(game_id, result, self.clock())
        self._changed(game_id)

    def delete(self, game_id: str) -> None:
        """Delete a game, its seats and its moves.

        Raises:
            NotFound: no such game.
        """
        try:
            self.database.delete_game(game_id)
        except UnknownGame:
            raise NotFound(f"no game {game_id}") from None
        self._changed(game_id)

    def expire_challenges(self, *, everything: bool = False) -> int:
        """Take out of the lobby the challenges past their time (`everything`: all of them);
        return how many went."""
        if everything:
            ids = [c.id for c in self.database.challenges()]
            self.database.expire_challenges(ids)
            return len(ids)
        games = self.online or OnlineGames(self.database, clock=self.clock)
        try:
            return games.expire_challenges()
        finally:
            if games is not self.online:
                games.close()

    # Accounts

    def accounts(self, limit: int = 1000) -> list[dict[str, Any]]:
        """The accounts, the newest first: `{"name", "email", "blocked", "operator",
        "created"}`."""
        return [_account(a) for a in self.database.accounts(limit)]

    def rename(self, old: str, new: str) -> None:
        """Call account `old` `new` (its seats too).

        Raises:
            NotFound: no account `old`. BadRequest: `new` cannot be an account's name.
            Conflict: another account has it.
        """
        account = self._account(old)
        new = check_account_name(new)
        try:
            self.database.rename_account(account.id, new, name_key(new))
        except NameTaken:
            raise Conflict(f"the name {new} is another account's") from None
        self._changed(None)

    def block(self, name: str) -> None:
        """Block account `name`: its sessions end, it cannot sign in, its seats no longer open
        for it, and its name stays reserved. A name no account has is reserved, blocked.

        Raises:
            BadRequest: a name no account could have.
        """
        try:
            account = self._account(name)
        except NotFound:
            name = check_account_name(name)
            try:
                self.database.create_account(
                    name,
                    name_key(name),
                    email=None,
                    recovery_hash=None,
                    now=self.clock(),
                    blocked=True,
                )
            except NameTaken:  # made meanwhile
                self.block(name)
            return
        self.database.set_account(account.id, blocked=True)
        self._changed(None)

    def unblock(self, name: str) -> None:
        """Let account `name` sign in again.

        Raises:
            NotFound: no such account.
        """
        self.database.set_account(self._account(name).id, blocked=False)
        self._changed(None)

    def merge(self, source: str, target: str) -> int:
        """Move account `source`'s seats (and challenges) to account `target`, keep the rating
        of more games in each game, and delete `source`; return how many seats moved.

        Raises:
            NotFound: either account is missing. BadRequest: they are one account.
        """
        first, second = self._account(source), self._account(target)
        if first.id == second.id:
            raise BadRequest(f"{source} and {target} are one account")
        moved = self.database.merge_accounts(first.id, second.id)
        self._changed(None)
        return moved

    def make_operator(self, name: str, operator: bool = True) -> None:
        """Give account `name` the moderation page (or, with `operator` false, take it away).

        Raises:
            NotFound: no such account.
        """
        self.database.set_account(self._account(name).id, operator=operator)

    def export(self, name: str) -> dict[str, Any]:
        """Everything the server keeps about account `name` (but the hashes of its secrets):
        the account, its ratings and its games with their moves.

        Raises:
            NotFound: no such account.
        """
        account = self._account(name)
        rows = self.database.account_games(account.id, limit=100_000)
        rated = self.database.game_ratings([row.id for row in rows])
        return {
            "account": _account(account),
            "ratings": self.database.ratings(account.id),
            "games": [
                {
                    "id": row.id,
                    "game": row.game_spec,
                    "seats": [
                        {
                            "seat": seat.seat + 1,
                            "name": seat.name,
                            "bot": seat.player_spec,
                            "yours": seat.account_id == account.id,
                            **(
                                {"email": seat.email, "webhook": seat.webhook_url}
                                if seat.account_id == account.id
                                else {}
                            ),
                        }
                        for seat in row.seats
                    ],
                    "moves": [move.move for move in row.moves],
                    "result": row.result,
                    "rating": rated.get(row.id),
                    "created": row.created_at,
                    "finished": row.finished_at,
                }
                for row in rows
            ],
        }

    def _account(self, name: str) -> AccountRow:
        try:
            return self.database.account(key=name_key(name))
        except UnknownAccount:
            raise NotFound(f"no account {name}") from None

    def _game(self, game_id: str) -> GameRow:
        try:
            return self.database.game(game_id)
        except UnknownGame:
            raise NotFound(f"no game {game_id}") from None

    def _changed(self, game_id: str | None) -> None:
        if self.online is not None:
            self.online.changed(game_id)


def _account(account: AccountRow) -> dict[str, Any]:
    return {
        "name": account.name,
        "email": account.email,
        "blocked": account.blocked,
        "operator": account.operator,
        "created": account.created_at,
    }


def _game(row: GameRow, accounts: dict[str, str]) -> dict[str, Any]:
    result = row.result or {}
    status = "aborted" if result.get("aborted") else "finished" if row.finished else "playing"
    return {
        "id": row.id,
        "game": row.game_spec,
        "status": status,
        "ply": row.ply,
        "seats": [
            {
                "name": seat.name,
                "account": accounts.get(seat.account_id or ""),
                "bot": seat.player_spec,
            }
            for seat in row.seats
        ],
        "created": row.created_at,
        "updated": row.updated_at,
        "reason": result.get("reason"),
    }
