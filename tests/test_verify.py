"""Certificates (`abstractgames.solvers.verify`): written from the Order and Chaos solver's
answers, accepted by the independent checker, and refused when anything is wrong with them."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

from abstractgames import get_game
from abstractgames.cli import main
from abstractgames.orderchaos import OrderChaosGame
from abstractgames.solvers.orderchaos import solve
from abstractgames.solvers.verify import (
    MAGIC,
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
