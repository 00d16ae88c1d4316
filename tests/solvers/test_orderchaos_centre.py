"""The pairing route of the Order and Chaos solver (Turner's reduction to the centre 4×4) and
the independent checker of its certificates (`abstractgames.solvers.orderchaos_certificate`).

The quick tests check the checker on small hand-made certificates (and tampered copies); the
slow ones solve the centre game (some seconds, once a process) and check the empty board's
certificate, and compare the route with a plain minimax on small positions."""

from __future__ import annotations

import ast
import random
import subprocess
import sys
from pathlib import Path

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames import get_game
from abstractgames.grid import grid
from abstractgames.orderchaos import FULL, OrderChaosGame, OrderChaosState
from abstractgames.solvers import Solution
from abstractgames.solvers import orderchaos as solver
from abstractgames.solvers.orderchaos import PairingProof, solve
from abstractgames.solvers.orderchaos_certificate import (
    MAGIC,
    CentreCertificate,
    CentreCertificateError,
    board_geometry,
    check_centre_certificate,
    decode,
    encode,
    read_centre_certificate,
)
from abstractgames.solvers.verify import Certificate, encode_certificate
from tests.conftest import examples
from tests.solvers.test_orderchaos import fewest
from tests.support.centre import root_certificate, root_solution

GAME = OrderChaosGame()
SMALL_POSITION = "6/1XXX2/1OO1O1/6/6/6 order"
"""X on b5, c5 and d5, O on b4, c4 and e4, the rim empty: X on e5 completes the row."""
SMALL = CentreCertificate("orderchaos", SMALL_POSITION, "order", 1, 11, {458928: 7})


# --- the geometry ---------------------------------------------------------------------------------


def test_the_geometry_is_derived_from_the_board() -> None:
    geometry = board_geometry(GAME)
    names = geometry.grid.names
    lines = {" ".join(names[sq] for sq in line) for line in geometry.lines}
    assert lines == {
        "b2 c2 d2 e2",
        "b3 c3 d3 e3",
        "b4 c4 d4 e4",
        "b5 c5 d5 e5",
        "b2 b3 b4 b5",
        "c2 c3 c4 c5",
        "d2 d3 d4 d5",
        "e2 e3 e4 e5",
        "b2 c3 d4 e5",
        "b5 c4 d3 e2",
    }
    ends = {frozenset((names[a], names[b])) for a, b in geometry.ends}
    assert frozenset(("a2", "f2")) in ends and frozenset(("c1", "c6")) in ends
    assert frozenset(("a1", "f6")) in ends and frozenset(("a6", "f1")) in ends
    rim = [sq for pair in geometry.ends for sq in pair]
    assert len(rim) == len(set(rim)) == 20
    assert len(geometry.symmetries) == 8


def test_the_solver_pairs_the_same_squares() -> None:
    geometry = board_geometry(GAME)
    assert {frozenset(p) for p in solver._RIM_PAIRS} == {frozenset(p) for p in geometry.ends}
    assert geometry.centre == solver._CENTRE_SQUARES


# --- the checker on small certificates ------------------------------------------------------------


def test_a_small_certificate_is_accepted() -> None:
    report = check_centre_certificate(decode(encode(SMALL)), GAME)
    assert (report.longest, report.within, report.entries, report.empty_pairs) == (1, 11, 1, 10)
    assert (report.lines, report.rim, report.closing_cases) == (10, 20, 120)
    assert "order wins orderchaos from 6/1XXX2/1OO1O1/6/6/6 order" in str(report)
    assert "within 11 Order moves" in str(report)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        # In its canonical frame the position is O on b2, c2, d2 and X on b3, c3, e3.
        ({"strategy": {458928: 16}}, "no move for Order in the centre position"),  # X@b4
        ({"strategy": {458928: 8}}, "X@b3 is not legal in the centre position O@b2"),
        ({"strategy": {}}, "no move for Order in the centre position"),  # the entry dropped
        ({"strategy": {458928: 7, 5: 0}}, "1 entries are never reached"),
        ({"winner": "chaos"}, "claims a win for 'chaos'"),
        ({"game": "entropy"}, "the certificate is for 'entropy'"),
        ({"within": 10}, "claim is a win within 10 Order moves, but the strategy takes up to 11"),
        ({"centre_moves": 0}, "a centre win within 0 Order moves, but a line takes 1"),
        ({"position": "6/1XXX2/1OO1O1/6/6/X5 chaos"}, "the pairing is broken at a1 and f6"),
        ({"position": "6/1XXX2/1OO1O1/6/6/6 chaos"}, "position cannot be read"),
        ({"position": "6/XXXXX1/6/6/6/6 chaos"}, "the game is over"),
    ],
)
def test_a_changed_certificate_is_refused(changes: dict[str, object], message: str) -> None:
    bad = attrs.evolve(SMALL, **changes)  # type: ignore[arg-type]
    with pytest.raises(CentreCertificateError, match=message):
        check_centre_certificate(decode(encode(bad)), GAME)


def test_a_damaged_file_is_refused_saying_how() -> None:
    data = encode(SMALL)
    for bad, message in [
        (data[:-3], "damaged centre certificate table"),
        (data[:20], "header is cut short"),
        (data[:-12] + bytes([data[-12] ^ 1]) + data[-11:], "damaged centre certificate"),
        (MAGIC + (2).to_bytes(2, "little") + data[11:], "format version 2"),
        (b"AGCERT\n" + data[9:], "not a centre certificate"),
        (
            encode_certificate(Certificate("orderchaos", "6/6/6/6/6/6 order", "order", 1, {})),
            "not a centre certificate",
        ),
        (data.replace(b'"entries": 1', b'"entries": 2'), "1 entries where the header says 2"),
        (data.replace(b'"route": "pairing"', b'"route": "df-pn!!"'), "of another kind"),
        (data.replace(b'"within": 11', b'"within": -1'), "within is -1"),
    ]:
        with pytest.raises(CentreCertificateError, match=message):
            decode(bad)


def test_a_table_that_does_not_match_its_digest_is_refused() -> None:
    import lzma

    data = encode(SMALL)
    start = data.index(b"}") + 1
    table = (458928).to_bytes(4, "little") + bytes((9,))
    with pytest.raises(CentreCertificateError, match="sha256"):
        decode(data[:start] + lzma.compress(table))


def test_the_file_is_read_within_bounds(tmp_path: Path) -> None:
    path = tmp_path / "small.cert"
    path.write_bytes(encode(SMALL))
    assert read_centre_certificate(path) == SMALL
    with pytest.raises(OSError, match="not a regular file"):
        read_centre_certificate(tmp_path)


def test_the_checker_imports_no_solver() -> None:
    """It shares nothing with the solver but the rules: not an import, not even in a function."""
    source = Path(solver.__file__).with_name("orderchaos_certificate.py")
    imported = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            imported.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    assert imported <= {
        "__future__",
        "hashlib",
        "json",
        "lzma",
        "collections.abc",
        "os",
        "attrs",
        "..files",
        "..grid",
        "..protocol",
        "..text",
    }, imported
    code = (
        "import sys\n"
        "from abstractgames import get_game\n"
        "from abstractgames.solvers.orderchaos_certificate import CHECKER, decode, encode\n"
        "get_game('orderchaos')\n"
        "assert 'abstractgames.solvers.orderchaos' not in sys.modules, sorted(sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# --- the pairing, in the solver -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("position", "expected"),
    [
        ("6/6/6/6/6/6 order", (10, None)),
        ("5O/6/6/6/2X3/X5 chaos", (9, None)),  # a1 answered on f6; c3 in the centre
        ("6/6/6/6/1X4/X5 order", (9, "a1")),  # Chaos has just played a1
        ("5X/6/6/6/1X4/X5 chaos", None),  # a1 and f6 alike
        ("6/6/6/6/6/XX4 order", None),  # two ends unanswered
    ],
)
def test_the_pairing_is_recognised(position: str, expected: tuple[int, str | None] | None) -> None:
    state = GAME.from_position(position)
    pairing = solver._pairing(state.x, state.o, state.to_move == "order")
    if expected is None:
        assert pairing is None
    else:
        assert pairing is not None
        half = None if pairing.half is None else grid(6, 6).names[pairing.half]
        assert (pairing.empty_pairs, half) == expected


def test_a_position_without_the_pairing_goes_to_df_pn() -> None:
    solution = solve(GAME.from_position("6/6/6/6/6/XXXX2 order"), 3)
    assert isinstance(solution, Solution) and solution.route == "df-pn"
    assert str(solution) == "Order wins in 1 move: X@e1"


def test_a_small_position_with_the_pairing_is_proved_by_it() -> None:
    solution = solve(GAME.from_position(SMALL_POSITION), 3)
    assert solution.route == "pairing" and isinstance(solution.proof, PairingProof)
    assert (solution.winner, solution.within, solution.proof.centre_moves) == ("order", 11, 1)
    assert (solution.moves, solution.strategy) == (None, None) and solution.complete
    assert "proved by the pairing route" in str(solution)
    assert solution.certificate is not None
    assert decode(solution.certificate()).strategy == SMALL.strategy


def test_a_centre_line_already_won_is_closed_at_once() -> None:
    solution = solve(GAME.from_position("6/6/6/1OOO2/1XXXX1/6 chaos"), 3)
    proof = solution.proof
    assert isinstance(proof, PairingProof) and proof.centre is None
    assert (solution.within, proof.centre_moves) == (1, 0)
    assert "a centre line already holds four" in str(solution)
    assert solution.certificate is not None
    report = check_centre_certificate(decode(solution.certificate()), GAME)
    assert (report.within, report.longest, report.entries) == (1, 0, 0)


@given(st.integers(0, 3**16 - 1))
def test_the_centre_key_is_the_least_image_under_the_sixteen_symmetries(code: int) -> None:
    cells = [code // 3**i % 3 for i in range(16)]  # 0 empty, 1 X, 2 O
    x = sum(1 << i for i, cell in enumerate(cells) if cell == 1)
    o = sum(1 << i for i, cell in enumerate(cells) if cell == 2)

    def image(mask: int, perm: tuple[int, ...]) -> int:
        return sum(1 << perm[i] for i in range(16) if mask >> i & 1)

    images = [(image(x, perm), image(o, perm)) for perm in solver._CENTRE_PERMS]
    assert solver.centre_key(x, o) == min(min(a | b << 16, b | a << 16) for a, b in images)


def test_the_centre_line_tables_say_what_the_lines_say() -> None:
    lines = solver._CENTRE_LINE_MASKS
    for mask in range(1 << 16):
        assert solver._HOLDS_A_LINE[mask] == any(mask & m == m for m in lines)
        gaps = [m & ~mask for m in lines if (mask & m).bit_count() == 3]
        assert solver._COMPLETING[mask] == sum(set(gaps))


# --- the empty board (slow: the centre game is solved) --------------------------------------------


@pytest.mark.slow
def test_the_centre_game_is_won_in_seven_order_moves_and_not_in_six() -> None:
    centre = solver._CentreSolver()
    assert not centre.order(0, 0, 6)
    assert centre.order(0, 0, 7)


@pytest.mark.slow
def test_the_empty_board_is_proved_by_the_pairing_route() -> None:
    solution = root_solution()
    proof = solution.proof
    assert isinstance(proof, PairingProof)
    assert (solution.within, proof.centre_moves, proof.empty_pairs) == (17, 7, 10)
    assert proof.centre is not None and len(proof.centre.strategy) > 10_000
    assert str(solution).startswith("Order wins, proved by the pairing route")
    assert len(root_certificate()) < 200_000


@pytest.mark.slow
def test_the_empty_boards_certificate_is_verified() -> None:
    certificate = decode(root_certificate())
    report = check_centre_certificate(certificate, get_game("orderchaos"))
    assert (report.longest, report.within, report.entries) == (7, 17, len(certificate.strategy))
    assert str(report).startswith(
        "order wins orderchaos from 6/6/6/6/6/6 order, by the pairing route (Turner's "
        "reduction), within 17 Order moves"
    )


@pytest.mark.slow
def test_the_empty_boards_certificate_tampered_is_refused() -> None:
    import lzma

    data = root_certificate()
    certificate = decode(data)
    rng = random.Random(50)
    keys = sorted(certificate.strategy)
    for key in rng.sample(keys, 3):
        # One move changed, the file written again with its digest: the walk finds it (a
        # changed move that still wins at once, where two lines can be completed, is a proof
        # too, and is accepted).
        x, o = key & 0xFFFF, key >> 16
        move = certificate.strategy[key]
        for other in range(32):  # the first change that is no proof is refused
            if other == move or (x | o) >> (other >> 1) & 1:
                continue
            changed = attrs.evolve(certificate, strategy={**certificate.strategy, key: other})
            try:
                check_centre_certificate(decode(encode(changed)), GAME)
            except CentreCertificateError:
                break
        else:
            pytest.fail(f"every other move at {key:#x} was accepted")
        dropped = {k: v for k, v in certificate.strategy.items() if k != key}
        with pytest.raises(CentreCertificateError, match="no move for Order"):
            check_centre_certificate(attrs.evolve(certificate, strategy=dropped), GAME)
    # One move changed in the file itself: the digest no longer matches.
    body = data.index(b"}") + 1
    table = bytearray(lzma.decompress(data[body:]))
    table[4] ^= 1
    with pytest.raises(CentreCertificateError, match="sha256"):
        decode(data[:body] + lzma.compress(bytes(table)))
    with pytest.raises(CentreCertificateError, match="damaged"):
        decode(data[: len(data) // 2])
    other_claim = data.replace(b'"winner": "order"', b'"winner": "chaos"')
    with pytest.raises(CentreCertificateError, match="claims a win for 'chaos'"):
        check_centre_certificate(decode(other_claim), GAME)


# --- the route against a plain minimax ------------------------------------------------------------


@st.composite
def paired_positions(draw: st.DrawFn) -> OrderChaosState:
    """An unfinished position where the pairing has been kept, with at most 10 empty squares:
    some pairs of rim squares empty, the others one X and one O, perhaps one Chaos has just
    played, and the centre filled at random."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    while True:
        cells = ["."] * 36
        for a, b in solver._RIM_PAIRS:
            if rng.random() < 0.85:
                cells[a], cells[b] = rng.sample("XO", 2)
        for sq in solver._CENTRE_SQUARES:
            if rng.random() < 0.8:
                cells[sq] = rng.choice("XO")
        if rng.random() < 0.3:  # Chaos has just played one end
            empty = [p for p in solver._RIM_PAIRS if cells[p[0]] == cells[p[1]] == "."]
            if empty:
                cells[rng.choice(empty)[0]] = rng.choice("XO")
        count = 36 - cells.count(".")
        if not 26 <= count < 36:
            continue
        side = "order" if count % 2 == 0 else "chaos"
        ranks = grid(6, 6).format_ranks("".join(cells))
        state = GAME.from_position(f"{ranks} {side}")
        if state.outcome() is None:
            return state


@pytest.mark.slow
@settings(max_examples=examples(40), deadline=None)
@given(state=paired_positions())
def test_the_pairing_route_agrees_with_plain_minimax(state: OrderChaosState) -> None:
    expected = fewest(state)
    solution = solve(state, 18)
    if solution.route == "pairing":
        assert solution.within is not None
        assert expected is not None and expected <= solution.within
    else:
        assert solution.moves == expected
    assert (FULL & ~(state.x | state.o)).bit_count() <= 10
