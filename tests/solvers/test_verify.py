"""Certificates (`abstractgames.solvers.verify`): written from the Order and Chaos solver's
answers, accepted by the independent checker, and refused when anything is wrong with them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

from abstractgames import (
    Game,
    InvalidMoveError,
    InvalidPositionError,
    Move,
    Outcome,
    State,
    get_game,
)
from abstractgames.cli import main
from abstractgames.orderchaos import OrderChaosGame
from abstractgames.solvers.orderchaos import solve
from abstractgames.solvers.verify import (
    MAGIC,
    MAX_CERTIFICATE_SIZE,
    Certificate,
    CertificateError,
    check_certificate,
    decode_certificate,
    encode_certificate,
    read_certificate,
    write_certificate,
)

GAME = OrderChaosGame()
WIN = "XOO1XX/1XXXO1/2OOO1/OO3O/OX1OXX/1X1O2 order"  # Order wins in 2
WIN3 = "X1O1XO/OX1O2/O1X1XO/O1OOXO/XXOO1X/XOO2O chaos"  # Order wins in 3
HOLDS = "X1OXXX/OO1O1X/XXXO1X/XOXX1O/XO1OOO/1OOXXX chaos"  # Chaos holds


def certificate(position: str) -> Certificate:
    solution = solve(GAME.from_position(position), 18, method="pn")
    assert solution.winner is not None
    return Certificate("orderchaos", position, solution.winner, solution.moves, solution.strategy())


@pytest.fixture(scope="module")
def win3() -> Certificate:
    return certificate(WIN3)


def test_an_order_win_is_confirmed(win3: Certificate) -> None:
    report = check_certificate(win3, GAME)
    assert report.longest == 3 and report.unused == 0
    assert report.winner_positions == len(win3.strategy) > 1
    assert str(report).startswith(f"order wins in 3 moves from {WIN3}: ")


def test_the_file_round_trips(win3: Certificate, tmp_path: Path) -> None:
    path = tmp_path / "win.cert"
    size = write_certificate(path, win3)
    assert size == path.stat().st_size and path.read_bytes().startswith(MAGIC)
    assert read_certificate(path) == win3


def test_a_chaos_hold_is_confirmed() -> None:
    cert = certificate(HOLDS)
    assert cert.winner == "chaos" and cert.moves is None
    report = check_certificate(cert, GAME)
    assert report.winner_positions == len(cert.strategy) and report.positions > len(cert.strategy)
    key = sorted(cert.strategy)[0]
    state = GAME.from_position(key)
    for move in state.legal_moves():
        child = state.apply(move)
        if child.outcome() is not None and child.outcome().winner == "order":  # type: ignore[union-attr]
            bad = attrs.evolve(cert, strategy={**cert.strategy, key: str(move)})
            with pytest.raises(CertificateError, match="without a win for chaos"):
                check_certificate(bad, GAME)
            break


def test_one_move_changed_is_refused(win3: Certificate) -> None:
    # Every other move of Order's, in every position of the certificate, fails the check.
    for key, move in sorted(win3.strategy.items()):
        state = GAME.from_position(key)
        for other in state.legal_moves():
            child = state.apply(other)
            if (
                str(other) != move
                and child.outcome() is None
                and solve(child, 18, method="pn").moves is None
            ):
                changed = attrs.evolve(win3, strategy={**win3.strategy, key: str(other)})
                with pytest.raises(CertificateError):
                    check_certificate(changed, GAME)
                break
    # A move on an occupied square.
    key = sorted(win3.strategy)[0]
    state = GAME.from_position(key)
    taken = next(sq for sq in range(36) if (state.x | state.o) >> sq & 1)
    square = "abcdef"[taken % 6] + str(taken // 6 + 1)
    bad = attrs.evolve(win3, strategy={**win3.strategy, key: f"X@{square}"})
    with pytest.raises(CertificateError, match="not legal"):
        check_certificate(bad, GAME)


def test_a_losing_move_is_refused() -> None:
    cert = certificate(WIN)
    root_move = cert.strategy[WIN]
    state = GAME.from_position(WIN)
    for other in state.legal_moves():
        if str(other) != root_move and solve(state.apply(other), 18, method="pn").moves is None:
            bad = attrs.evolve(cert, strategy={**cert.strategy, WIN: str(other)})
            with pytest.raises(CertificateError, match=r"without a win for order|no move"):
                check_certificate(bad, GAME)
            return
    pytest.fail("no losing move to try")


def test_one_position_missing_is_refused(win3: Certificate) -> None:
    key = sorted(win3.strategy)[len(win3.strategy) // 2]
    strategy = dict(win3.strategy)
    del strategy[key]
    with pytest.raises(CertificateError, match="no move for order in"):
        check_certificate(attrs.evolve(win3, strategy=strategy), GAME)


def test_a_wrong_result_is_refused(win3: Certificate) -> None:
    with pytest.raises(CertificateError, match="a line takes 3"):
        check_certificate(attrs.evolve(win3, moves=2), GAME)
    with pytest.raises(CertificateError, match=r"without a win for chaos|no move for chaos"):
        check_certificate(attrs.evolve(win3, winner="chaos", moves=None), GAME)
    with pytest.raises(CertificateError, match="not a role"):
        check_certificate(attrs.evolve(win3, winner="nobody"), GAME)
    with pytest.raises(CertificateError, match="not 'dispersal'"):
        check_certificate(win3, get_game("dispersal"))


def test_malformed_files_are_refused(win3: Certificate) -> None:
    data = encode_certificate(win3)
    cases = {
        b"hello": "not a certificate",
        MAGIC + b"\x07\x00" + data[9:]: "version 7; this checker reads version 1",
        data[:20]: "damaged",
        data[:-10]: "damaged",
        data[:-1] + bytes([data[-1] ^ 1]): "damaged",
    }
    for bad, message in cases.items():
        with pytest.raises(CertificateError, match=message):
            decode_certificate(bad)
    assert issubclass(CertificateError, ValueError)


def test_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "win.cert"
    runner = CliRunner()
    result = runner.invoke(main, ["solve", "orderchaos", WIN, "--certificate", str(path)])
    assert result.exit_code == 0, result.output
    assert "Order wins in 2 moves" in result.output
    result = runner.invoke(main, ["verify", str(path)])
    assert result.exit_code == 0 and result.output.startswith("order wins in 2 moves from")
    path.write_bytes(path.read_bytes()[:-3])
    result = runner.invoke(main, ["verify", str(path)])
    assert result.exit_code == 1 and "damaged certificate" in result.output
    assert "Traceback" not in result.output
    result = runner.invoke(main, ["verify", str(tmp_path / "none")])
    assert result.exit_code == 1 and "cannot read" in result.output


def test_solve_options(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(
        main, ["solve", "orderchaos", WIN, "--memory", "1", "--checkpoint", str(tmp_path / "c")]
    )
    assert result.exit_code == 0 and (tmp_path / "c").exists()
    result = runner.invoke(
        main, ["solve", "dispersal", "S1OSO/O3S/O3O/1O2S/SSS1O O", "-n", "1", "--memory", "1"]
    )
    assert result.exit_code == 2 and "has no --memory" in result.output
    result = runner.invoke(
        main,
        [
            "solve",
            "orderchaos",
            "6/6/6/6/6/XX4 order",  # the pairing broken: df-pn, which proves nothing in 1
            "-n",
            "1",
            "--certificate",
            str(tmp_path / "x"),
        ],
    )
    assert result.exit_code == 1 and "proves no result" in result.output


# --- certificates are read like every file we are given --------------------------------------


def verify_in_child(path: str, memory: int = 2 << 30) -> subprocess.CompletedProcess[str]:
    """`abstractgames verify PATH` in a child process with `memory` bytes of address space at
    most, within 60 seconds (a file read whole, or a hang, fails the test, not the machine)."""

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [sys.executable, "-m", "abstractgames", "verify", path],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limit if sys.platform == "linux" else None,
        check=False,
    )


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_a_certificate_that_is_dev_zero_is_refused_unread() -> None:
    result = verify_in_child("/dev/zero")
    assert result.returncode == 1, result.stderr[-2000:]
    assert result.stderr == (
        "Error: cannot read '/dev/zero': a character device, not a regular file\n"
    )


def test_a_certificate_that_is_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    from tests.support.hostile_files import without_blocking

    fifo = tmp_path / "win.cert"
    os.mkfifo(fifo)
    result = without_blocking(lambda: CliRunner().invoke(main, ["verify", str(fifo)]), fifo)
    assert result.exit_code == 1, result.output
    assert (
        result.output
        == f"Error: cannot read {str(fifo)!r}: a FIFO (named pipe), not a regular file\n"
    )
    with pytest.raises(OSError, match="not a regular file"):
        without_blocking(lambda: read_certificate(fifo), fifo)


@pytest.mark.slow  # 256 MiB decompressed before it is refused: 2 s
def test_a_certificate_that_is_a_compression_bomb_is_refused_quickly(
    win3: Certificate, tmp_path: Path
) -> None:
    import time
    import tracemalloc

    from tests.support.hostile_files import xz_bomb

    path = tmp_path / "bomb.cert"
    data = encode_certificate(win3)
    length = int.from_bytes(data[9:13], "little")
    path.write_bytes(data[: 13 + length] + xz_bomb())  # four gigabytes of table, in 625 kB
    started = time.monotonic()
    tracemalloc.start()
    try:
        with pytest.raises(CertificateError, match=r"bomb.cert: .*table .*more than 268,435,456"):
            read_certificate(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 300_000_000 and time.monotonic() - started < 10
    result = verify_in_child(str(path), memory=1 << 30)
    assert result.returncode == 1, result.stderr[-2000:]
    assert result.stderr.startswith(f"Error: {path}: damaged certificate: the table ")
    assert "Traceback" not in result.stderr


def test_a_huge_certificate_file_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.cert"
    with open(path, "wb") as handle:  # sparse: no disk is used
        handle.truncate(MAX_CERTIFICATE_SIZE + 1)
    with pytest.raises(OSError, match=r"too large: 268,435,457 bytes"):
        read_certificate(path)


# A game with lines as long as one likes: take one or two stones in turn, whoever takes the last
# wins (the player to move loses on a multiple of three). With `wait`, a player may also take
# none and move again, so the game need not end.


@attrs.frozen
class Take(Move):
    count: int

    def __str__(self) -> str:
        return str(self.count)


class TakeAway(Game):
    name = "takeaway"
    roles = ("first", "second")

    def __init__(self, max_length: int = 100_000, wait: bool = False) -> None:
        self.max_length = max_length
        self.wait = wait

    def initial_state(self) -> Stones:
        return Stones(self, 30, "first")

    def from_position(self, text: str) -> Stones:
        count, _, role = text.partition(" ")
        if not count.isdigit() or role not in self.roles:
            raise InvalidPositionError(f"bad position {text!r}")
        return Stones(self, int(count), role)

    def parse_move(self, text: str, state: State) -> Move:
        if text not in ("0", "1", "2"):
            raise InvalidMoveError(f"cannot read {text!r}")
        return Take(int(text))


@attrs.frozen
class Stones(State):
    _game: TakeAway
    stones: int
    player: str

    @property
    def game(self) -> TakeAway:
        return self._game

    @property
    def to_move(self) -> str | None:
        return None if self.stones == 0 else self.player

    def legal_moves(self) -> tuple[Move, ...]:
        if not self.stones:
            return ()
        counts = ((0,) if self._game.wait else ()) + (1, 2)
        return tuple(Take(c) for c in counts if c <= self.stones)

    def apply(self, move: Move | str) -> Stones:
        if isinstance(move, str):
            move = self._game.parse_move(move, self)
        assert isinstance(move, Take) and move in self.legal_moves()
        other = "second" if self.player == "first" else "first"
        return Stones(self._game, self.stones - move.count, other if move.count else self.player)

    def outcome(self) -> Outcome | None:
        if self.stones:
            return None
        winner = "second" if self.player == "first" else "first"  # who took the last
        return Outcome(winner, {winner: 1, self.player: 0}, "took the last stone")

    def position(self) -> str:
        return f"{self.stones} {self.player}"


def takeaway_certificate(stones: int, winner: str = "second") -> Certificate:
    """The winner's strategy from `stones` (a multiple of three) with first to move: leave a
    multiple of three."""
    loser = "first" if winner == "second" else "second"
    strategy = {f"{n} {winner}": str(n % 3) for n in range(1, stones) if n % 3}
    return Certificate("takeaway", f"{stones} {loser}", winner, None, strategy)


def test_a_certificate_with_a_line_of_thousands_of_plies_is_checked() -> None:
    # The loser taking one stone at a time makes a line of 4,000 plies: no recursion limit.
    cert = takeaway_certificate(6_000)
    report = check_certificate(cert, TakeAway())
    assert report.longest == 2_000 and report.unused == 0
    assert report.winner_positions == len(cert.strategy) == 4_000
    assert check_certificate(attrs.evolve(cert, moves=2_000), TakeAway()).longest == 2_000
    with pytest.raises(CertificateError, match="a line takes 2000"):
        check_certificate(attrs.evolve(cert, moves=1_999), TakeAway())
    # A wrong move deep down is found, and named.
    wrong = attrs.evolve(cert, strategy={**cert.strategy, "4 second": "2"})
    with pytest.raises(CertificateError, match="a line ends without a win for second: 0 second"):
        check_certificate(wrong, TakeAway())
    missing = {key: move for key, move in cert.strategy.items() if key != "5 second"}
    with pytest.raises(CertificateError, match="no move for second in 5 second"):
        check_certificate(attrs.evolve(cert, strategy=missing), TakeAway())


def test_a_line_longer_than_the_game_allows_is_refused() -> None:
    cert = takeaway_certificate(6_000)
    with pytest.raises(CertificateError, match=r"longer than the 3,999 plies .* takeaway"):
        check_certificate(cert, TakeAway(max_length=3_999))
    assert check_certificate(cert, TakeAway(max_length=4_000)).longest == 2_000


def test_a_line_that_goes_round_in_a_circle_is_refused() -> None:
    # Waiting, the loser can go round for ever without the winner moving: no win is proven.
    cert = takeaway_certificate(30)
    with pytest.raises(CertificateError, match="round in a circle at 30 first"):
        check_certificate(cert, TakeAway(wait=True))
