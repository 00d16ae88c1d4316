"""The centre certificate of Order and Chaos (the pairing route's proof), and its checker.

The pairing route (Benjamin Turner's reduction, 2016) proves that Order wins from the empty
board, and from any position where the pairing has been kept, with three facts; this module
checks each of them with nothing but the public rules (the game's `from_position`, `apply`,
`legal_moves`, `outcome`, `parse_move`) and the board's geometry from [`abstractgames.grid`][].
It imports no solver, and shares no code with the one that writes the certificates:

1. **The geometry** ([`board_geometry`][]), derived from the real 6×6 board: the 16 squares
   off the edge are the centre, the runs of four of them along a rank, a file or a diagonal
   are its ten lines (4 rows, 4 files, 2 diagonals), and the squares one step beyond the two
   ends of each line are its ends: every one of the 20 rim squares is the end of exactly one
   line, and each line with either end full of one symbol is five in a row by the rules.
2. **The centre game**: Order moves first on the 16 centre squares, each move puts X or O on an
   empty one, Order wins when a line holds four like symbols, Chaos when the centre fills
   without one. The certificate's strategy is walked against every Chaos reply, and every line
   of play must end in Order's win within the claimed number of Order moves. Positions are
   walked up to the 16 symmetries of the centre game (the 8 of the square, checked to map the
   ten lines onto themselves, times the swap of X and O, which the rules ignore).
3. **The closing lemma**, enumerated on the board by the rules: for each line, each symbol and
   each state of its two ends the pairing allows (both empty, or one X and one O), with either
   side to move, when the line holds four of the symbol, Order wins: five already stand, or
   Order completes five at an empty end, after any Chaos reply.

The file: the bytes `AGCENTRE\\n`, the format version (2 bytes, little-endian), the length of a
JSON header (4 bytes), the header (`format`, `game`, `position`, `winner`, `route`,
`centre_moves`, `within`, `entries`, `sha256`), then the table compressed with lzma: one entry
of 5 bytes for each centre position where Order moves, sorted, the position's key (4 bytes,
little-endian: bit `i` is X on the `i`-th centre square in index order, b2, c2, … e5, bit
`16 + i` O there) and Order's move there (1 byte: `2 * i`, plus 1 for O). Each key is the
least over the 16 symmetries, and its move is for that board. `sha256` is the digest of the
table uncompressed.

Examples:
    >>> from abstractgames import get_game
    >>> game = get_game("orderchaos")
    >>> certificate = CentreCertificate(  # X on b5, c5, d5: Order completes the row
    ...     "orderchaos", "6/1XXX2/1OO1O1/6/6/6 order", "order", 1, 11, {458928: 7})
    >>> report = check_centre_certificate(decode(encode(certificate)), game)
    >>> report.longest, report.within
    (1, 11)
"""

from __future__ import annotations

import hashlib
import json
import lzma
from collections.abc import Iterator
from os import PathLike

import attrs

from ..files import decompress_bounded, read_bounded
from ..grid import Grid, grid_of
from ..protocol import AbstractGamesError, Game, State
from ..text import counted

__all__ = [
    "CHECKER",
    "FORMAT_VERSION",
    "MAGIC",
    "MAX_ENTRIES",
    "MAX_FILE",
    "CentreCertificate",
    "CentreCertificateError",
    "CentreChecker",
    "CentreReport",
    "Geometry",
    "board_geometry",
    "check_centre_certificate",
    "decode",
    "encode",
    "read_centre_certificate",
    "verify_file",
]

MAGIC = b"AGCENTRE\n"
FORMAT_VERSION = 1
"""The version of the file format this module reads and writes."""
FORMAT = "orderchaos-centre"
ROUTE = "pairing"
MAX_FILE = 16 << 20
"""The largest certificate file read, in bytes."""
MAX_ENTRIES = 500_000
"""The most entries a certificate may hold, which bounds the walk (the empty board's strategy
has 16,883; the centre game has some 2.7 million positions up to symmetry, most of which no
strategy reaches)."""
_HEADER_LIMIT = 4096
_ENTRY = 5
_ORDER, _CHAOS = "order", "chaos"
_SYMBOLS = "XO"
_PAIRED_ENDS = ((".", "."), ("X", "O"), ("O", "X"))
"""The states of a line's two ends the pairing allows: both empty, or one X and one O."""


class CentreCertificateError(AbstractGamesError, ValueError):
    """A centre certificate that cannot be read, or that does not prove what it claims."""


@attrs.frozen
class CentreCertificate:
    """A claim of the pairing route and the centre strategy that proves it.

    Attributes:
        game: the game's spec, `"orderchaos"`.
        position: the position the claim is about.
        winner: the role that wins, `"order"`.
        centre_moves: the most Order moves the centre strategy takes.
        within: the most Order moves the whole strategy takes (the centre's, and one for each
            pair of rim squares still empty).
        strategy: Order's move (`2 * centre square + symbol`) by canonical centre key.
    """

    game: str
    position: str
    winner: str
    centre_moves: int
    within: int
    strategy: dict[int, int]


def encode(certificate: CentreCertificate) -> bytes:
    """The bytes of a certificate file."""
    table = b"".join(
        key.to_bytes(4, "little") + bytes((move,))
        for key, move in sorted(certificate.strategy.items())
    )
    header = json.dumps(
        {
            "format": FORMAT,
            "game": certificate.game,
            "position": certificate.position,
            "winner": certificate.winner,
            "route": ROUTE,
            "centre_moves": certificate.centre_moves,
            "within": certificate.within,
            "entries": len(certificate.strategy),
            "sha256": hashlib.sha256(table).hexdigest(),
        },
        sort_keys=True,
    ).encode()
    return (
        MAGIC
        + FORMAT_VERSION.to_bytes(2, "little")
        + len(header).to_bytes(4, "little")
        + header
        + lzma.compress(table, preset=9)
    )


def decode(data: bytes) -> CentreCertificate:
    """Read the bytes of a certificate file.

    Raises:
        CentreCertificateError: not a centre certificate, another version, a header that is
            not this format's, or a damaged or cut table.
    """
    if not data.startswith(MAGIC):
        raise CentreCertificateError("not a centre certificate (it does not start with AGCENTRE)")
    start = len(MAGIC)
    if len(data) < start + 6:
        raise CentreCertificateError("damaged centre certificate: it is cut short")
    version = int.from_bytes(data[start : start + 2], "little")
    if version != FORMAT_VERSION:
        raise CentreCertificateError(
            f"centre certificate format version {version}; this checker reads version "
            f"{FORMAT_VERSION}"
        )
    length = int.from_bytes(data[start + 2 : start + 6], "little")
    body = start + 6 + length
    if length > _HEADER_LIMIT or len(data) < body:
        raise CentreCertificateError("damaged centre certificate: the header is cut short")
    try:
        header = json.loads(data[start + 6 : body])
        fields = {name: header[name] for name in _HEADER_TYPES}
    except (ValueError, KeyError, TypeError) as error:
        raise CentreCertificateError(f"damaged centre certificate header: {error}") from None
    for name, kind in _HEADER_TYPES.items():
        value = fields[name]
        if type(value) is not kind or (isinstance(value, int) and not 0 <= value <= MAX_ENTRIES):
            raise CentreCertificateError(f"damaged centre certificate header: {name} is {value!r}")
    if fields["format"] != FORMAT or fields["route"] != ROUTE:
        raise CentreCertificateError(
            f"the certificate is of another kind ({fields['format']!r}, route "
            f"{fields['route']!r}), not a centre certificate of the pairing route"
        )
    entries = fields["entries"]
    try:
        table = decompress_bounded(lzma.LZMADecompressor(), data[body:], entries * _ENTRY)
    except (OSError, ValueError, lzma.LZMAError) as error:
        raise CentreCertificateError(f"damaged centre certificate table: {error}") from None
    if len(table) != entries * _ENTRY:
        raise CentreCertificateError(
            f"damaged centre certificate: {len(table) // _ENTRY:,} entries where the header "
            f"says {entries:,}"
        )
    if hashlib.sha256(table).hexdigest() != fields["sha256"]:
        raise CentreCertificateError(
            "damaged centre certificate: the table does not match its sha256 digest"
        )
    strategy: dict[int, int] = {}
    previous = -1
    for offset in range(0, len(table), _ENTRY):
        key = int.from_bytes(table[offset : offset + 4], "little")
        if key <= previous:
            raise CentreCertificateError(
                f"damaged centre certificate: entry {offset // _ENTRY:,} is out of order"
            )
        previous = key
        strategy[key] = table[offset + 4]
    return CentreCertificate(
        fields["game"],
        fields["position"],
        fields["winner"],
        fields["centre_moves"],
        fields["within"],
        strategy,
    )


_HEADER_TYPES: dict[str, type] = {
    "format": str,
    "game": str,
    "position": str,
    "winner": str,
    "route": str,
    "centre_moves": int,
    "within": int,
    "entries": int,
    "sha256": str,
}


def read_centre_certificate(path: str | PathLike[str]) -> CentreCertificate:
    """Read a certificate file: a regular file of at most [`MAX_FILE`][] bytes, its table
    decompressed to at most the size its header gives.

    Raises:
        OSError: the file cannot be read, is not a regular file or is too large.
        CentreCertificateError: see [`decode`][].
    """
    return decode(read_bounded(path, MAX_FILE))


# --- 1. the geometry ------------------------------------------------------------------------------


@attrs.frozen
class Geometry:
    """The board's centre, its ten lines of four and their ends, as [`board_geometry`][]
    derives them.

    Attributes:
        grid: the board.
        centre: the centre squares in index order (the `i`-th is bit `i` of a centre board).
        lines: each line's four squares (board indices).
        ends: each line's two ends (board indices), in the same order.
        masks: each line as a 16-bit mask of the centre board.
        symmetries: the 8 symmetries of the centre as permutations of its 16 squares.
    """

    grid: Grid
    centre: tuple[int, ...]
    lines: tuple[tuple[int, ...], ...]
    ends: tuple[tuple[int, int], ...]
    masks: tuple[int, ...]
    symmetries: tuple[tuple[int, ...], ...]


_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


def board_geometry(game: Game) -> Geometry:
    """Derive the centre, its lines and their ends from the game's board, and check them.

    Raises:
        CentreCertificateError: the board is not one the reduction applies to (a centre of
            other than 16 squares or 10 lines, a rim square that ends no line or two, a line
            and an end that are not five in a row by the rules).
    """
    board = grid_of(game)
    width, height = board.width, board.height
    centre = tuple(
        sq
        for sq in range(board.size)
        if 0 < board.file(sq) < width - 1 and 0 < board.rank(sq) < height - 1
    )
    if len(centre) != 16:
        raise CentreCertificateError(f"the board's centre has {len(centre)} squares, not 16")
    inside = set(centre)
    lines: list[tuple[int, ...]] = []
    ends: list[tuple[int, int]] = []
    for df, dr in _DIRECTIONS:
        for start in centre:
            if board.step(start, -df, -dr) in inside:
                continue  # not where a run starts
            run = [start]
            while len(run) < 4 and (step := board.step(run[-1], df, dr)) in inside:
                assert step is not None
                run.append(step)
            if len(run) == 4 and board.step(run[-1], df, dr) not in inside:
                before, after = board.step(start, -df, -dr), board.step(run[-1], df, dr)
                if before is None or after is None:
                    raise CentreCertificateError(f"a line of four at {start} ends off the board")
                lines.append(tuple(run))
                ends.append((before, after))
    if len(lines) != 10:
        raise CentreCertificateError(f"the centre has {len(lines)} lines of four, not 10")
    rim = set(range(board.size)) - inside
    flat = [end for pair in ends for end in pair]
    if len(flat) != len(set(flat)) or set(flat) != rim:
        named = sorted(board.names[sq] for sq in rim if flat.count(sq) != 1)
        raise CentreCertificateError(
            f"rim squares that are not the end of exactly one line: {', '.join(named)}"
        )
    for line, pair in zip(lines, ends, strict=True):
        for symbol in _SYMBOLS:
            four = _state(game, board, dict.fromkeys(line, symbol))
            if four.outcome() is not None:
                raise CentreCertificateError(f"four alone end the game: {four.position()}")
            for end in pair:
                five = _state(game, board, {**dict.fromkeys(line, symbol), end: symbol})
                outcome = five.outcome()
                if outcome is None or outcome.winner != _ORDER:
                    raise CentreCertificateError(
                        f"a line and its end are not five in a row: {five.position()}"
                    )
    local = {sq: i for i, sq in enumerate(centre)}
    masks = tuple(sum(1 << local[sq] for sq in run) for run in lines)
    return Geometry(
        board, centre, tuple(lines), tuple(ends), masks, _symmetries(board, centre, masks)
    )


def _symmetries(
    board: Grid, centre: tuple[int, ...], masks: tuple[int, ...]
) -> tuple[tuple[int, ...], ...]:
    """The 8 symmetries of the square on the centre, each checked to map the lines onto
    themselves (so the centre game is the same after it)."""
    low_file = min(board.file(sq) for sq in centre)
    low_rank = min(board.rank(sq) for sq in centre)
    where = {
        (board.file(sq) - low_file, board.rank(sq) - low_rank): i for i, sq in enumerate(centre)
    }
    found: list[tuple[int, ...]] = []
    for swap in (False, True):
        for flip_file in (False, True):
            for flip_rank in (False, True):
                image: list[int] = []
                for sq in centre:
                    f, r = board.file(sq) - low_file, board.rank(sq) - low_rank
                    if swap:
                        f, r = r, f
                    if flip_file:
                        f = 3 - f
                    if flip_rank:
                        r = 3 - r
                    image.append(where[(f, r)])
                found.append(tuple(image))
    lines = set(masks)
    for perm in found:
        if sorted(perm) != list(range(16)) or {_mapped(m, perm) for m in masks} != lines:
            raise CentreCertificateError("a symmetry of the centre does not keep its lines")
    if len(set(found)) != 8:
        raise CentreCertificateError("the centre's symmetries are not eight")  # pragma: no cover
    return tuple(found)


def _mapped(bits: int, perm: tuple[int, ...]) -> int:
    return sum(1 << perm[i] for i in range(16) if bits >> i & 1)


def _state(game: Game, board: Grid, pieces: dict[int, str]) -> State:
    """The position with `pieces` (square: symbol) on the board, the side to move by the count."""
    cells = "".join(pieces.get(sq, ".") for sq in range(board.size))
    side = _ORDER if len(pieces) % 2 == 0 else _CHAOS
    return game.from_position(f"{board.format_ranks(cells)} {side}")


# --- 2. the centre game ---------------------------------------------------------------------------


class _Keys:
    """Canonical keys of centre boards: the least `x | o << 16` over the 8 symmetries of the
    square and the swap of X and O (through tables on each half of the 16 bits)."""

    def __init__(self, symmetries: tuple[tuple[int, ...], ...]) -> None:
        self.tables = [
            (
                [_mapped(v, perm) for v in range(256)],
                [_mapped(v << 8, perm) for v in range(256)],
            )
            for perm in symmetries
        ]

    def __call__(self, x: int, o: int) -> int:
        keys = []
        for low, high in self.tables:
            a = low[x & 255] | high[x >> 8]
            b = low[o & 255] | high[o >> 8]
            keys.append(a | b << 16)
            keys.append(b | a << 16)
        return min(keys)


class _Walk:
    """Every line of the centre game with Order following the certificate."""

    def __init__(self, geometry: Geometry, strategy: dict[int, int]) -> None:
        self.masks = geometry.masks
        self.names = [geometry.grid.names[sq] for sq in geometry.centre]
        self.key = _Keys(geometry.symmetries)
        self.strategy = strategy
        self.longest: dict[int, int] = {}
        self.replies = 0

    def won(self, x: int, o: int) -> bool:
        return any(x & m == m or o & m == m for m in self.masks)

    def describe(self, x: int, o: int) -> str:
        pieces = [
            f"{'X' if x >> i & 1 else 'O'}@{name}"
            for i, name in enumerate(self.names)
            if (x | o) >> i & 1
        ]
        return "the centre position " + (" ".join(pieces) or "(empty)")

    def replies_of(self, x: int, o: int) -> Iterator[tuple[int, int]]:
        """Every Chaos reply that does not complete a line (one that does loses at once)."""
        for i in range(16):
            if not (x | o) >> i & 1:
                for cx, co in ((x | 1 << i, o), (x, o | 1 << i)):
                    self.replies += 1
                    if self.won(cx, co):
                        continue
                    if cx | co == 0xFFFF:
                        raise CentreCertificateError(
                            f"Chaos fills the centre without a line: {self.describe(cx, co)}"
                        )
                    yield cx, co

    def chaos(self, x: int, o: int) -> int:
        """The most Order moves to the win after any Chaos reply."""
        return max((self.order(self.key(cx, co)) for cx, co in self.replies_of(x, o)), default=0)

    def order(self, key: int) -> int:
        """The most Order moves to the win from the canonical board `key`, Order to move."""
        known = self.longest.get(key)
        if known is not None:
            return known
        x, o = key & 0xFFFF, key >> 16
        move = self.strategy.get(key)
        if move is None:
            raise CentreCertificateError(f"no move for Order in {self.describe(x, o)}")
        square, symbol = move >> 1, move & 1
        if square >= 16 or (x | o) >> square & 1:
            raise CentreCertificateError(
                f"Order's move {_SYMBOLS[symbol]}@{self.names[square % 16]} is not legal in "
                f"{self.describe(x, o)}"
            )
        x, o = (x, o | 1 << square) if symbol else (x | 1 << square, o)
        value = 1 if self.won(x, o) else 1 + self.chaos(x, o)
        self.longest[key] = value
        return value


# --- 3. the closing lemma -------------------------------------------------------------------------


def _closing(game: Game, geometry: Geometry) -> tuple[int, int]:
    """Check the closing lemma on the board; return the cases and the positions checked."""
    board = geometry.grid
    cases = positions = 0
    for run, ends in zip(geometry.lines, geometry.ends, strict=True):
        spare = next(sq for sq in range(board.size) if sq not in run and sq not in ends)
        for symbol in _SYMBOLS:
            other = "O" if symbol == "X" else "X"
            for state_of_ends in _PAIRED_ENDS:
                for side in (_ORDER, _CHAOS):
                    pieces = dict.fromkeys(run, symbol)
                    pieces.update(
                        (end, s) for end, s in zip(ends, state_of_ends, strict=True) if s != "."
                    )
                    if (len(pieces) % 2 == 0) != (side == _ORDER):
                        pieces[spare] = other  # a piece off the line, for the side to move
                    state = _state(game, board, pieces)
                    cases += 1
                    positions += 1 + _closes(game, board, state, run, ends, symbol)
    return cases, positions


def _closes(
    game: Game, board: Grid, state: State, run: tuple[int, ...], ends: tuple[int, int], symbol: str
) -> int:
    """Check that Order wins from `state` (the line holds four `symbol`); return the positions
    looked at after Chaos's replies."""

    def win(position: State) -> bool:
        outcome = position.outcome()
        return outcome is not None and outcome.winner == _ORDER

    def closed(position: State) -> bool:
        if win(position):
            return True
        if position.to_move != _ORDER:
            return False
        legal = position.legal_moves()
        for end in ends:
            move = game.parse_move(f"{symbol}@{board.names[end]}", position)
            if move in legal and win(position.apply(move)):
                return True
        return False

    where = f"{board.names[run[0]]}-{board.names[run[-1]]} holding four {symbol}"
    if win(state):
        return 0
    if state.to_move == _ORDER:
        if not closed(state):
            raise CentreCertificateError(f"Order cannot close {where}: {state.position()}")
        return 0
    count = 0
    for reply in state.legal_moves():
        after = state.apply(reply)
        count += 1
        if not closed(after):
            raise CentreCertificateError(
                f"after Chaos's {reply}, Order cannot close {where}: {after.position()}"
            )
    return count


# --- the whole check ------------------------------------------------------------------------------


@attrs.frozen
class CentreReport:
    """What [`check_centre_certificate`][] confirmed; `str()` says it.

    Attributes:
        certificate: what was checked.
        lines: the centre's lines of four (10), each with its two ends.
        rim: the rim squares, each the end of one line (20).
        entries: the certificate's centre positions where Order moves, all walked.
        replies: the Chaos replies tried in them.
        longest: the most Order moves the centre strategy takes on any line.
        empty_pairs: the pairs of rim squares empty in the position.
        within: the most Order moves the whole strategy takes: `longest + empty_pairs` (1
            where a centre line already holds four: the closing move).
        closing_cases: the cases of the closing lemma checked (line, symbol, ends, side).
        closing_positions: the positions of the board they took.
    """

    certificate: CentreCertificate
    lines: int
    rim: int
    entries: int
    replies: int
    longest: int
    empty_pairs: int
    within: int
    closing_cases: int
    closing_positions: int

    @property
    def positions(self) -> int:
        """Every position checked: the centre's (with Chaos's replies) and the closing's."""
        return self.entries + self.replies + self.closing_positions

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
        replies = f"{self.replies:,} {'reply' if self.replies == 1 else 'replies'}"
        return (
            f"{c.winner} wins {c.game} from {c.position}, by the pairing route (Turner's "
            f"reduction), within {counted(self.within, 'Order move')}: "
            f"geometry: {self.lines} centre lines of four, each of the {self.rim} rim squares "
            f"the end of exactly one, every line and end five in a row by the rules; "
            f"centre game: the strategy wins within {counted(self.longest, 'Order move')} "
            f"against every Chaos reply ({counted(self.entries, 'position')} up to symmetry, "
            f"{replies} tried); closing: {self.closing_cases} cases "
            f"({counted(self.closing_positions, 'position')}); "
            f"{counted(self.positions, 'position')} checked in all"
        )


def check_centre_certificate(certificate: CentreCertificate, game: Game) -> CentreReport:
    """Confirm that the certificate proves its claim in `game`, by the rules and the board.

    Raises:
        CentreCertificateError: with what fails: the claim (another game, winner or position),
            the pairing in the position, the geometry, a centre position without a move, a move
            that is not legal, a line of play Order does not win or wins later than claimed,
            an entry the strategy never reaches, or a case of the closing lemma.
    """
    if certificate.game != game.spec or game.spec != "orderchaos":
        raise CentreCertificateError(
            f"the certificate is for {certificate.game!r}, and this check is for Order and "
            f"Chaos ({game.spec!r} given)"
        )
    if certificate.winner != _ORDER:
        raise CentreCertificateError(
            f"the certificate claims a win for {certificate.winner!r}; the pairing route "
            "proves wins for order"
        )
    try:
        state = game.from_position(certificate.position)
    except ValueError as error:
        raise CentreCertificateError(
            f"the certificate's position cannot be read: {error}"
        ) from None
    if state.outcome() is not None:
        raise CentreCertificateError(f"the game is over in {state.position()}")
    geometry = board_geometry(game)
    board = geometry.grid
    cells = board.parse_ranks(state.position().split()[0], _SYMBOLS)
    empty_pairs = 0
    for a, b in geometry.ends:
        if cells[a] == cells[b] == ".":
            empty_pairs += 1
        elif {cells[a], cells[b]} != {"X", "O"}:
            raise CentreCertificateError(
                f"the pairing is broken at {board.names[a]} and {board.names[b]} in "
                f"{state.position()}"
            )
    x = sum(1 << i for i, sq in enumerate(geometry.centre) if cells[sq] == "X")
    o = sum(1 << i for i, sq in enumerate(geometry.centre) if cells[sq] == "O")
    walk = _Walk(geometry, certificate.strategy)
    if walk.won(x, o):
        longest = 0
    elif (x | o).bit_count() % 2 == 0:
        longest = walk.order(walk.key(x, o))
    else:
        longest = walk.chaos(x, o)
    unused = set(certificate.strategy) - set(walk.longest)
    if unused:
        key = min(unused)
        raise CentreCertificateError(
            f"{len(unused):,} entries are never reached, such as "
            f"{walk.describe(key & 0xFFFF, key >> 16)}: not the strategy's own"
        )
    if longest > certificate.centre_moves:
        raise CentreCertificateError(
            f"the claim is a centre win within {certificate.centre_moves} Order moves, but a "
            f"line takes {longest}"
        )
    # One answer for each pair still to fill (or the closing move, for the line that wins);
    # with a centre line already holding four, the closing move at once.
    within = longest + empty_pairs if longest else 1
    if within > certificate.within:
        raise CentreCertificateError(
            f"the claim is a win within {certificate.within} Order moves, but the strategy "
            f"takes up to {within}"
        )
    cases, positions = _closing(game, geometry)
    return CentreReport(
        certificate,
        len(geometry.lines),
        2 * len(geometry.lines),
        len(walk.longest),
        walk.replies,
        longest,
        empty_pairs,
        within,
        cases,
        positions,
    )


def verify_file(path: str | PathLike[str], game: Game) -> CentreReport:
    """Read and check a centre certificate file.

    Raises:
        OSError: the file cannot be read (see [`read_centre_certificate`][]).
        CentreCertificateError: see [`decode`][] and [`check_centre_certificate`][].
    """
    return check_centre_certificate(read_centre_certificate(path), game)


@attrs.frozen
class CentreChecker:
    """What the registry needs to find this checker for a file: the file's first bytes, and
    the check (a [`CertificateChecker`][abstractgames.solvers.CertificateChecker])."""

    magic: bytes

    def verify_file(self, path: str | PathLike[str], game: Game) -> CentreReport:
        return verify_file(path, game)


CHECKER = CentreChecker(MAGIC)
"""This format's checker, as the registry's `GameEntry.certificate_checker` names it."""
