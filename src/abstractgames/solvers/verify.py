"""Certificates of solved positions, and their checker, which trusts nothing but the rules.

A certificate says "from this position, this role wins" and gives the winner's move in every
position that can arise when the winner follows it and the loser plays anything. The checker,
[`check_certificate`][], walks that tree with the game's public rules alone (`from_position`,
`legal_moves`, `apply`, `outcome`, `position`, `parse_move`): at the winner's turn it plays the
certificate's move (refusing a position without one, or a move that is not legal), at the loser's
turn it tries every legal move, and every line must end in the winner's win; for a claim "wins in
N moves" no line may take the winner more than N moves. It is written for any game with no chance
and no hidden information, knows nothing of any solver and uses none of their code: a
certificate written by a solver with a bug (or by hand) is refused, whatever the solver did.

The file is binary: the bytes `AGCERT\\n`, a format version (2 bytes, little-endian), the length of
a JSON header (4 bytes) and the header (`game`, `position`, `winner`, `moves`, `entries`), then
the table, one line `position<TAB>move` per entry in sorted order, compressed with lzma (whose
own check catches a damaged body). Positions are the game's own position strings, exactly as
`State.position()` writes them, so the checker needs no knowledge of the game's symmetries.

A certificate comes from outside and is trusted for nothing: [`read_certificate`][] reads a
regular file of at most [`MAX_CERTIFICATE_SIZE`][] bytes only, whose table decompresses to at
most [`MAX_TABLE_SIZE`][] bytes (a compression bomb is stopped there); the checker walks its lines
with a stack of its own, not Python's, so a line of any length is checked (up to the game's
`max_length`, the most plies any game of it lasts).

Examples:
    >>> from abstractgames import get_game
    >>> game = get_game("orderchaos")
    >>> certificate = Certificate("orderchaos", "6/6/6/6/6/XXXX2 order", "order", 1,
    ...                           {"6/6/6/6/6/XXXX2 order": "X@e1"})
    >>> print(check_certificate(decode_certificate(encode_certificate(certificate)), game))
    order wins in 1 move from 6/6/6/6/6/XXXX2 order: 1 position checked (1 where order moves)
"""

from __future__ import annotations

import json
import lzma
import os
from os import PathLike
from typing import TYPE_CHECKING

import attrs

from ..files import FileTooLargeError, decompress_bounded, read_bounded, write_atomic
from ..protocol import AbstractGamesError, Game, State

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "FORMAT_VERSION",
    "MAX_CERTIFICATE_SIZE",
    "MAX_TABLE_SIZE",
    "Certificate",
    "CertificateError",
    "Report",
    "check_certificate",
    "decode_certificate",
    "encode_certificate",
    "read_certificate",
    "write_certificate",
]

MAGIC = b"AGCERT\n"
FORMAT_VERSION = 1
"""The version of the file format this module reads and writes."""
_HEADER_LIMIT = 1 << 20
MAX_TABLE_SIZE = 256 << 20
"""The most bytes a certificate's table may decompress to (256 MiB): some five million Order and
Chaos positions, six times the largest certificate measured (850,000 positions, 42 MB)."""
MAX_CERTIFICATE_SIZE = MAX_TABLE_SIZE
"""The most bytes of a certificate file (256 MiB; a real one is some fifty times smaller than
its table)."""


class CertificateError(AbstractGamesError, ValueError):
    """A certificate that cannot be read, or that does not prove what it claims."""


@attrs.frozen
class Certificate:
    """A claim and its proof.

    Attributes:
        game: the game's spec, e.g. `"orderchaos"`.
        position: the position the claim is about.
        winner: the role that wins from it.
        moves: the most moves of its own the winner needs, or `None` for no such claim.
        strategy: the winner's move (notation) by position string.
    """

    game: str
    position: str
    winner: str
    moves: int | None
    strategy: dict[str, str]


@attrs.frozen
class Report:
    """What [`check_certificate`][] confirmed; `str()` says it in a line.

    Attributes:
        certificate: what was checked.
        positions: the distinct positions visited (finished ones aside).
        winner_positions: those where the winner was to move.
        longest: the most moves the winner needs on any line.
        unused: entries of the certificate that no line reached.
    """

    certificate: Certificate
    positions: int
    winner_positions: int
    longest: int
    unused: int

    @property
    def position(self) -> str:
        """The position of the claim."""
        return self.certificate.position

    @property
    def winner(self) -> str:
        """The role the claim says wins."""
        return self.certificate.winner

    def __str__(self) -> str:
        c = self.certificate
        claim = "" if c.moves is None else f" in {c.moves} move{'' if c.moves == 1 else 's'}"
        plural = "" if self.positions == 1 else "s"
        unused = f"; {self.unused:,} entries unused" if self.unused else ""
        return (
            f"{c.winner} wins{claim} from {c.position}: {self.positions:,} position{plural} "
            f"checked ({self.winner_positions:,} where {c.winner} moves){unused}"
        )


def encode_certificate(certificate: Certificate) -> bytes:
    """The bytes of a certificate file."""
    header = json.dumps(
        {
            "game": certificate.game,
            "position": certificate.position,
            "winner": certificate.winner,
            "moves": certificate.moves,
            "entries": len(certificate.strategy),
        },
        sort_keys=True,
    ).encode()
    table = "".join(f"{p}\t{m}\n" for p, m in sorted(certificate.strategy.items()))
    return (
        MAGIC
        + FORMAT_VERSION.to_bytes(2, "little")
        + len(header).to_bytes(4, "little")
        + header
        + lzma.compress(table.encode(), preset=9)
    )


def decode_certificate(data: bytes) -> Certificate:
    """Read the bytes of a certificate file.

    Raises:
        CertificateError: not a certificate, another version, or damaged (its table cut short,
            or decompressing to more than [`MAX_TABLE_SIZE`][] bytes).
    """
    if not data.startswith(MAGIC):
        raise CertificateError("not a certificate (it does not start with AGCERT)")
    version = int.from_bytes(data[7:9], "little")
    if version != FORMAT_VERSION:
        raise CertificateError(
            f"certificate format version {version}; this checker reads version {FORMAT_VERSION}"
        )
    length = int.from_bytes(data[9:13], "little")
    if len(data) < 13 + length or length > _HEADER_LIMIT:
        raise CertificateError("damaged certificate: the header is cut short")
    try:
        header = json.loads(data[13 : 13 + length])
        game, position, winner = header["game"], header["position"], header["winner"]
        moves, entries = header["moves"], header["entries"]
        table = decompress_bounded(lzma.LZMADecompressor(), data[13 + length :], MAX_TABLE_SIZE)
        text = table.decode()
    except FileTooLargeError:
        raise CertificateError(
            f"damaged certificate: the table decompresses to more than {MAX_TABLE_SIZE:,} bytes"
        ) from None
    except (ValueError, KeyError, TypeError, lzma.LZMAError) as error:
        raise CertificateError(f"damaged certificate: {error}") from None
    if not (
        all(isinstance(v, str) for v in (game, position, winner))
        and (moves is None or (type(moves) is int and moves >= 0))
        and type(entries) is int
    ):
        raise CertificateError("damaged certificate: the header's fields have the wrong types")
    strategy: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        position_text, tab, move = line.partition("\t")
        if not tab or position_text in strategy:
            raise CertificateError(
                f"damaged certificate: entry {number} is not 'position<TAB>move'"
            )
        strategy[position_text] = move
    if len(strategy) != entries:
        raise CertificateError(
            f"damaged certificate: {len(strategy)} entries where the header says {entries}"
        )
    return Certificate(game, position, winner, moves, strategy)


def read_certificate(path: str | PathLike[str]) -> Certificate:
    """Read a certificate file (see [`decode_certificate`][]).

    Raises:
        OSError: it cannot be read: no such file, not a regular file (a FIFO or a device is
            never opened for reading), more than [`MAX_CERTIFICATE_SIZE`][] bytes.
        CertificateError: what is in it is not a certificate; the message starts with `path`.
    """
    data = read_bounded(path, MAX_CERTIFICATE_SIZE)
    try:
        return decode_certificate(data)
    except CertificateError as error:
        raise CertificateError(f"{os.fspath(path)}: {error}") from None


def write_certificate(path: str | PathLike[str], certificate: Certificate) -> int:
    """Write a certificate file atomically; return its size in bytes."""
    data = encode_certificate(certificate)
    write_atomic(path, data)
    return len(data)


def check_certificate(certificate: Certificate, game: Game) -> Report:
    """Confirm that the certificate proves its claim in `game`, by the rules alone.

    Raises:
        CertificateError: with the first position where the proof fails.
    """
    if game.spec != certificate.game:
        raise CertificateError(f"the certificate is for {certificate.game!r}, not {game.spec!r}")
    winner = certificate.winner
    if winner not in game.roles:
        raise CertificateError(f"{winner!r} is not a role of {game.spec}")
    try:
        root = game.from_position(certificate.position)
    except ValueError as error:
        raise CertificateError(f"the certificate's position cannot be read: {error}") from None
    strategy = certificate.strategy
    longest: dict[str, int] = {}  # position: the most winner moves to the end from it
    used: set[str] = set()
    limit = getattr(game, "max_length", None)
    # The walk, depth first, on a stack of its own: a line of thousands of plies is no deeper
    # in Python. Each frame is a position on the current line, its key, the children still to
    # visit and the most winner moves found below it; `on_line` holds the line's keys.
    stack: list[tuple[str, Iterator[State], list[int], int]] = []
    on_line: set[str] = set()

    def enter(state: State) -> int | None:
        """The value of `state` if it is known or final, else `None` with its frame pushed."""
        outcome = state.outcome()
        if outcome is not None:
            if outcome.winner != winner:
                raise CertificateError(
                    f"a line ends without a win for {winner}: {state.position()} ({outcome.reason})"
                )
            return 0
        key = state.position()
        known = longest.get(key)
        if known is not None:
            return known
        if key in on_line:
            raise CertificateError(f"the strategy goes round in a circle at {key}")
        if isinstance(limit, int) and len(stack) >= limit:
            raise CertificateError(
                f"a line is longer than the {limit:,} plies a game of {game.spec} lasts at most, "
                f"at {key}"
            )
        if state.to_move == winner:
            used.add(key)
            text = strategy.get(key)
            if text is None:
                raise CertificateError(f"no move for {winner} in {key}")
            try:
                move = game.parse_move(text, state)
            except ValueError as error:
                raise CertificateError(f"the move {text!r} in {key}: {error}") from None
            if move not in state.legal_moves():
                raise CertificateError(f"the move {text!r} is not legal in {key}")
            children: Iterator[State] = iter((state.apply(move),))
            bonus = 1
        elif state.to_move is None:
            raise CertificateError(f"{key}: chance is not supported")
        else:
            children = (state.apply(move) for move in state.legal_moves())
            bonus = 0
        on_line.add(key)
        stack.append((key, children, [0], bonus))
        return None

    value = enter(root)
    while stack:
        key, children, most, bonus = stack[-1]
        if value is not None and value > most[0]:
            most[0] = value
        child = next(children, None)
        if child is not None:
            value = enter(child)
            continue
        stack.pop()
        on_line.discard(key)
        value = longest[key] = most[0] + bonus
    worst = value or 0
    if certificate.moves is not None and worst > certificate.moves:
        raise CertificateError(
            f"the claim is a win in {certificate.moves} moves, but a line takes {worst}"
        )
    winner_positions = sum(1 for key in used if key in longest)
    return Report(certificate, len(longest), winner_positions, worst, len(strategy) - len(used))
