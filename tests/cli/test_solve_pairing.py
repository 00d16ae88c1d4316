"""`abstractgames solve orderchaos` by the pairing route and `abstractgames verify` of its
centre certificates: accepted, and tampered copies refused with what fails, never a traceback."""

from __future__ import annotations

import lzma
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner, Result

from abstractgames.cli import main
from abstractgames.solvers.orderchaos_certificate import CentreCertificate, encode

SMALL = CentreCertificate("orderchaos", "6/1XXX2/1OO1O1/6/6/6 order", "order", 1, 11, {458928: 7})


def run(*args: str) -> Result:
    result = CliRunner().invoke(main, list(args))
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    return result


def test_verify_reads_a_small_centre_certificate(tmp_path: Path) -> None:
    path = tmp_path / "small.cert"
    path.write_bytes(encode(SMALL))
    result = run("verify", str(path))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(
        "order wins orderchaos from 6/1XXX2/1OO1O1/6/6/6 order, by the pairing route"
    )
    assert "closing: 120 cases" in result.stdout


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (encode(SMALL)[:-4], "damaged centre certificate table"),
        (encode(SMALL).replace(b'"winner": "order"', b'"winner": "chaos"'), "claims a win"),
        (encode(SMALL).replace(b'"within": 11', b'"within": 10'), "but the strategy takes"),
        (encode(attrs.evolve(SMALL, strategy={})), "no move for Order"),
    ],
    ids=["cut", "another-claim", "a-smaller-bound", "an-entry-dropped"],
)
def test_verify_refuses_a_tampered_centre_certificate(
    tmp_path: Path, data: bytes, message: str
) -> None:
    path = tmp_path / "bad.cert"
    path.write_bytes(data)
    result = run("verify", str(path))
    assert result.exit_code == 1 and message in result.output, result.output
    assert "Traceback" not in result.output


def test_a_position_with_the_pairing_is_solved_by_it(tmp_path: Path) -> None:
    path = tmp_path / "small.cert"
    result = run("solve", "orderchaos", "6/1XXX2/1OO1O1/6/6/6 order", "--certificate", str(path))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Order wins, proved by the pairing route")
    assert run("verify", str(path)).exit_code == 0
    result = run("solve", "orderchaos", "6/6/6/6/6/XXXX2 order")
    assert result.stdout == "Order wins in 1 move: X@e1\n"
    assert "route: df-pn" in result.stderr


@pytest.mark.slow
def test_the_empty_board_is_solved_certified_and_verified(tmp_path: Path) -> None:
    path = tmp_path / "root.cert"
    result = run("solve", "orderchaos", "6/6/6/6/6/6 order", "--certificate", str(path))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Order wins, proved by the pairing route (Turner's reduction")
    assert "within 17 Order moves" in result.stdout
    result = run("verify", str(path))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(
        "order wins orderchaos from 6/6/6/6/6/6 order, by the pairing route"
    )
    data = path.read_bytes()
    body = data.index(b"}") + 1
    table = bytearray(lzma.decompress(data[body:]))
    table[9] ^= 2  # one move changed
    for bad, message in [
        (data[:body] + lzma.compress(bytes(table)), "sha256"),
        (data[: len(data) - 1000], "damaged"),
        (
            data.replace(b'"position": "6/6/6/6/6/6 order"', b'"position": "6/6/6/6/6/6 chaos"'),
            "cannot be read",
        ),
    ]:
        path.write_bytes(bad)
        result = run("verify", str(path))
        assert result.exit_code == 1 and message in result.output, result.output
        assert "Traceback" not in result.output
