"""Accounts on the game server: optional and light. A person reserves a name, signs in on any
device, finds their games there and is rated in them; anonymous play by link goes on as before.

- **A name** is reserved by its *key*: the name as names are compared ([`name_key`][]), so that
  `Ann`, `ANN`, `Аnn` (a Cyrillic А), `A n n` and `Ann` in full-width letters are one name. An
  account's name is 2 to 24 ASCII letters, digits, `_` and `-`; a few words (`admin`,
  `operator`, ...) are nobody's. A seat's free-text name may not be another account's name or
  one of those words ([`Accounts.seat_name`][]).
- **Signing in** is by a one-time link sent by e-mail, when the server sends mail and the
  account gave an address ([`Accounts.send_link`][]; the link holds for
  [`LINK_MINUTES`][] minutes, once), or by the account's **recovery code**, shown once when the
  account is made (a new one may be asked for, which replaces it). No password: nothing to
  reuse, nothing to guess. Each sign-in starts a session: a random token in an HttpOnly cookie,
  kept by the server as its SHA-256 hash, for [`SESSION_DAYS`][] days or until signed out.
  Tokens and codes have 192 and 117 random bits, so a fast hash is enough to keep them (as the
  seats' secrets are kept).
- **Seats**: a signed-in person's new games, challenges and accepted challenges are bound to
  their account, and they may bind the seats of games they made before signing in by
  presenting those seats' secrets ([`Accounts.claim`][]); a seat bound to another account stays
  its. A bound seat opens on any device the account signs in on, through a secret made from a
  key of the server's (`OnlineGames.account_token`), which [`Accounts.account_games`][] gives
  only to a session of that account; a blocked account's no longer opens anything.
- **Ratings**: a game between two accounts is rated when it finishes (Glicko-2, per game name,
  each game a rating period: see [`abstractgames.ratings`][]), in the transaction that stores
  its end; a player's page ([`Accounts.player`][]) shows the ratings and the finished games.
"""

from __future__ import annotations

import re
import secrets
import time
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

import attrs

from ..text import excerpt
from .database import AccountRow, Database, NameTaken, UnknownAccount, UnknownGame, hash_secret
from .errors import BadRequest, Conflict, Forbidden, NotFound
from .notify import Notice, Notifier, check_email
from .online import MAX_NAME, OnlineGames

__all__ = [
    "LINK_MINUTES",
    "MAX_ACCOUNT_NAME",
    "RESERVED_WORDS",
    "SESSION_DAYS",
    "Accounts",
    "SignedIn",
    "check_account_name",
    "name_key",
]

MAX_ACCOUNT_NAME = 24
"""The longest account name."""
SESSION_DAYS = 180
"""Days a session lasts (signing out ends it sooner)."""
LINK_MINUTES = 20
"""Minutes a sign-in link sent by e-mail holds (once)."""
MAX_TOKEN = 200
"""The longest session token, sign-in token or recovery code read."""
RESERVED_WORDS = frozenset(
    {
        "admin",
        "administrator",
        "operator",
        "moderator",
        "server",
        "system",
        "root",
        "abstractgames",
        "anonymous",
        "watcher",
        "nobody",
    }
)
"""Words no account and no seat may be called (the server's own), as names are compared."""
_ACCOUNT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{1,23}")
_LOOKALIKES = str.maketrans(
    {
        # Cyrillic and Greek letters drawn as Latin ones
        "а": "a",
        "в": "b",
        "е": "e",
        "ё": "e",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "і": "i",
        "ј": "j",
        "ѕ": "s",
        "ԁ": "d",
        "ӏ": "l",
        "ԛ": "q",
        "ԝ": "w",
        "α": "a",
        "β": "b",
        "ε": "e",
        "η": "n",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "ζ": "z",
        # digits and letters taken for one another
        "0": "o",
        "1": "l",
        "i": "l",
        "|": "l",
        "5": "s",
    }
)


def name_key(name: str) -> str:
    """The name as names are compared: compatibility forms folded (full-width letters,
    ligatures), accents, invisible characters and case dropped, look-alike letters and digits
    made one, and only letters and digits kept.

    Examples:
        >>> name_key("Ann") == name_key("ANN") == name_key("Аnn") == name_key(" a_n-n ")
        True
        >>> name_key("Ａｄｍｉｎ"), name_key("Adm1n"), name_key("Zoë\\u200b")
        ('admln', 'admln', 'zoe')
    """
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name))
    text = "".join(c for c in text if unicodedata.category(c) not in ("Mn", "Me", "Cf"))
    text = text.casefold().translate(_LOOKALIKES)
    return "".join(c for c in text if c.isascii() and c.isalnum())


_RESERVED_KEYS = frozenset(name_key(word) for word in RESERVED_WORDS)


def check_account_name(name: str) -> str:
    """`name`, stripped, if it may be an account's.

    Raises:
        BadRequest: it is not 2 to 24 ASCII letters, digits, `_` and `-` (beginning with a
            letter or a digit), or it is one of the server's own words.
    """
    name = name.strip() if isinstance(name, str) else ""
    if not _ACCOUNT_NAME.fullmatch(name):
        raise BadRequest(
            f"an account's name is 2 to {MAX_ACCOUNT_NAME} letters, digits, _ and - "
            f"(a letter or a digit first), not {excerpt(name)}"
        )
    if name_key(name) in _RESERVED_KEYS or len(name_key(name)) < 2:
        raise BadRequest(f"{name} is a word of the server's: choose another name")
    return name


_CODE_LETTERS = "ABCDEFGHJKMNPQRSTVWXYZ23456789"
"""The letters of recovery codes: none that is taken for another (no I, L, O, U, 0, 1)."""


def _code() -> str:
    """A new recovery code: 24 letters and digits (117 random bits), in groups of four."""
    text = "".join(secrets.choice(_CODE_LETTERS) for _ in range(24))
    return "-".join(text[i : i + 4] for i in range(0, 24, 4))


def _code_text(code: str) -> str:
    """A recovery code as typed, made comparable: case and separators dropped."""
    return "".join(c for c in code.upper() if c.isalnum())


@attrs.frozen
class SignedIn:
    """A sign-in: the account and the session's token (for the cookie, and nowhere else)."""

    account: AccountRow
    token: str
    recovery_code: str | None = None
    """The account's recovery code, when it was just made (shown once)."""


class Accounts:
    """The accounts of a game server, in its database.

    Args:
        database: the store.
        games: the online games (for the seats' secrets and the lines of one's games).
        notifier: sends the sign-in links (`None`, or one without SMTP: none are sent).
        base_url: the server's address as players reach it, for those links.
        clock: the time now, in seconds since the epoch.
    """

    def __init__(
        self,
        database: Database,
        games: OnlineGames,
        *,
        notifier: Notifier | None = None,
        base_url: str = "",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.database = database
        self.games = games
        self.notifier = notifier
        self.base_url = base_url.rstrip("/")
        self.clock = clock

    @property
    def sends_links(self) -> bool:
        """Whether sign-in links can be sent (the server sends e-mail)."""
        return self.notifier is not None and self.notifier.sends_email

    # Making an account, signing in and out

    def create(self, name: str, email: str | None = None) -> SignedIn:
        """A new account `name`, signed in at once; its recovery code is in the answer, once.

        Raises:
            BadRequest: a bad name or e-mail address.
            Conflict: the name (as names are compared) is taken.
        """
        name = check_account_name(name)
        email = check_email(email) if email else None
        code = _code()
        try:
            account = self.database.create_account(
                name,
                name_key(name),
                email=email,
                recovery_hash=None,
                now=self.clock(),
            )
        except NameTaken:
            raise Conflict(
                f"the name {name} is taken (names that differ in case or look alike are one)"
            ) from None
        self.database.set_account(account.id, recovery_hash=_recovery_hash(account.id, code))
        return attrs.evolve(self._session(account), recovery_code=code)

    def sign_in(self, name: str, code: str) -> SignedIn:
        """Sign in as `name` with its recovery code.

        Raises:
            Forbidden: no account of that name has that code, or it is blocked.
        """
        refused = Forbidden("no account of that name has that recovery code")
        try:
            account = self.database.account(key=name_key(str(name)[:MAX_NAME]))
        except UnknownAccount:
            raise refused from None
        kept = self.database.recovery_hash(account.id)
        given = _recovery_hash(account.id, _code_text(str(code)[:MAX_TOKEN]))
        if kept is None or not secrets.compare_digest(kept, given):
            raise refused
        if account.blocked:
            raise Forbidden("this account is blocked by the server's operator")
        return self._session(account)

    def send_link(self, name: str) -> None:
        """E-mail a one-time sign-in link to the address of account `name`, if it has one (the
        answer is the same either way: it tells nobody whether an account has an address).

        Raises:
            BadRequest: this server sends no e-mail.
        """
        if not self.sends_links or self.notifier is None:
            raise BadRequest("this server sends no e-mail: sign in with your recovery code")
        try:
            account = self.database.account(key=name_key(str(name)[:MAX_NAME]))
        except UnknownAccount:
            return
        if account.email is None or account.blocked:
            return
        token = secrets.token_urlsafe(24)
        expires = self.clock() + LINK_MINUTES * 60
        self.database.add_sign_in_token(hash_secret(token), account.id, expires)
        link = f"{self.base_url}/#/sign-in/{token}"
        notice = Notice(
            game="",
            subject=f"Sign in as {account.name}",
            text=(
                f"Someone (you, we hope) asked to sign in as {account.name}. The link below "
                f"signs you in once, within {LINK_MINUTES} minutes; if it was not you, "
                "ignore this message."
            ),
            link=link,
            event="sign-in",
            link_label="Sign in",
        )
        self.notifier.notify(notice, email=account.email)

    def redeem(self, token: str) -> SignedIn:
        """Sign in with a one-time token from a link.

        Raises:
            Forbidden: the token is unknown, used already or expired, or its account blocked.
        """
        account = None
        if isinstance(token, str) and 0 < len(token) <= MAX_TOKEN:
            account = self.database.use_sign_in_token(hash_secret(token), self.clock())
        if account is None:
            raise Forbidden("this sign-in link was used already, or is too old: ask for another")
        if account.blocked:
            raise Forbidden("this account is blocked by the server's operator")
        return self._session(account)

    def session(self, token: str | None) -> AccountRow | None:
        """The account a session's token signs in (`None`: none, an expired one, a blocked
        account's, or a token that is not one)."""
        if not token or len(token) > MAX_TOKEN:
            return None
        return self.database.session(hash_secret(token), self.clock())

    def sign_out(self, token: str | None) -> None:
        """End the session of `token`."""
        if token and len(token) <= MAX_TOKEN:
            self.database.end_session(hash_secret(token))

    def new_recovery_code(self, account: AccountRow) -> str:
        """A new recovery code for `account`, replacing the old one (shown once)."""
        code = _code()
        self.database.set_account(account.id, recovery_hash=_recovery_hash(account.id, code))
        return code

    def set_email(self, account: AccountRow, email: str | None) -> str | None:
        """Where `account`'s sign-in links go (`None`: nowhere).

        Raises:
            BadRequest: not an e-mail address.
        """
        email = check_email(email) if email else None
        self.database.set_account(account.id, email=email)
        return email

    def _session(self, account: AccountRow) -> SignedIn:
        token = secrets.token_urlsafe(24)
        now = self.clock()
        self.database.add_session(hash_secret(token), account.id, now, now + SESSION_DAYS * 86_400)
        return SignedIn(account, token)

    # Names and seats

    def seat_name(self, name: str | None, account: AccountRow | None) -> str | None:
        """The name a seat gets: `name`, unless it is another account's (as names are
        compared) or a word of the server's; the account's own name when none is given.

        Raises:
            Conflict: `name` is reserved.
        """
        if name is None or not str(name).strip():
            return account.name if account is not None else None
        key = name_key(str(name))
        if account is not None and key == account.key:
            return account.name
        if key in _RESERVED_KEYS:
            raise Conflict(f"{excerpt(name)} is a word of the server's: choose another name")
        try:
            self.database.account(key=key)
        except UnknownAccount:
            return str(name)
        raise Conflict(
            f"{excerpt(name)} is the name of an account: sign in as it, or choose another name"
        )

    def seat_name_for(
        self, game_id: str, secret: str | None, name: str | None, account: AccountRow | None
    ) -> str | None:
        """The new name of the seat `secret` holds in game `game_id`, as [`seat_name`][] says;
        a seat bound to an account keeps the account's name.

        Raises:
            Conflict: the seat is an account's, or `name` is reserved.
        """
        try:
            row = self.games.database.game(game_id) if secret else None
        except UnknownGame:
            raise NotFound("no such game here") from None
        seat = None if row is None else self.games.seat_of(game_id, secret)
        if row is not None and seat is not None:
            bound = row.seats[seat - 1].account_id
            if bound is not None and (account is None or account.id != bound):
                raise Conflict("this seat is an account's: it goes by the account's name")
            if bound is not None:
                return account.name if account is not None else None
        return self.seat_name(name, account)

    def claim(self, account: AccountRow, secrets_held: Iterable[str]) -> list[str]:
        """Bind to `account` the seats these secrets hold (those bound to no other account),
        named as the account; return the games whose seats it holds now."""
        hashes = [hash_secret(s) for s in secrets_held if isinstance(s, str) and s]
        games = self.database.bind_seats(account.id, hashes, account.name)
        for game_id in games:
            self.games.changed(game_id)
        return games

    def bind_challenge(self, account: AccountRow, challenge_id: str) -> None:
        """Bind a challenge `account` made: its creator's seat will be the account's."""
        self.database.bind_challenge(challenge_id, account.id, account.name)

    def account_games(self, account: AccountRow, *, finished: int = 20) -> list[dict[str, Any]]:
        """The account's games, for its sessions alone: the unfinished ones and the last
        `finished` finished, each a line of `OnlineGames.games_of` with the `secret` that
        opens the seat on this device (those where it is the account's turn first)."""
        rows = self.database.account_games(account.id, finished=False)
        rows += self.database.account_games(account.id, finished=True, limit=finished)
        found = []
        for row in rows:
            for seat in row.seats:
                if seat.account_id != account.id:
                    continue
                try:
                    line = self.games.game_line(row, seat.seat + 1)
                except (Conflict, ValueError, KeyError, TypeError):
                    continue  # a game that cannot be read is set aside, as the sweep does
                token = self.games.account_token(row.id, seat.seat + 1, account.id)
                found.append({**line, "secret": token})
        return sorted(found, key=lambda line: (not line["your_move"], -line["updated"]))

    # Players' pages

    def player(self, name: str, *, limit: int = 100) -> dict[str, Any]:
        """What a player's page shows: the name, since when, the rating in each game, and the
        finished games (the latest `limit`), each with its result for the player and the
        rating it moved.

        Raises:
            NotFound: no account of that name.
        """
        try:
            account = self.database.account(key=name_key(str(name)[:MAX_NAME]))
        except UnknownAccount:
            raise NotFound(f"no player {excerpt(name)} on this server") from None
        rows = self.database.account_games(account.id, finished=True, limit=limit)
        rated = self.database.game_ratings([row.id for row in rows])
        games = []
        for row in rows:
            for seat in row.seats:
                if seat.account_id != account.id:
                    continue
                other = row.seats[1 - seat.seat]
                result = row.result or {}
                winner = result.get("winner")
                outcome = (
                    "aborted"
                    if result.get("aborted")
                    else "drawn"
                    if winner is None
                    else "won"
                    if winner == seat.seat + 1
                    else "lost"
                )
                change = (rated.get(row.id) or {}).get(str(seat.seat + 1))
                games.append(
                    {
                        "id": row.id,
                        "game": row.game_spec,
                        "seat": seat.seat + 1,
                        "opponent": other.name or other.player_spec,
                        "result": outcome,
                        "reason": result.get("reason"),
                        "finished": row.finished_at,
                        "rating": change,
                    }
                )
        return {
            "name": account.name,
            "created": account.created_at,
            "blocked": account.blocked,
            "ratings": [
                {
                    "game": r["game"],
                    "rating": round(r["rating"]),
                    "deviation": round(r["deviation"]),
                    "games": r["games"],
                }
                for r in self.database.ratings(account.id)
            ],
            "games": games,
        }


def _recovery_hash(account_id: str, code: str) -> str:
    return hash_secret(f"{account_id}:{_code_text(code)}")
