"""`abstractgames check`: the conformance kits on a game and on a bot, from the command line."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from abstractgames.cli import main


def test_check_runs_the_conformance_kits(tmp_path: Path) -> None:
    bot = tmp_path / "bad_bot.py"
    bot.write_text(
        "from abstractgames.players import Player\n\n\n"
        "class Stubborn(Player):\n"
        "    def choose(self, state, rng, time_left=None):\n"
        "        return state.legal_moves()[0]  # even where there is no move to choose\n"
    )
    result = CliRunner().invoke(main, ["check", "dispersal", "-n", "5", "-p", "random"])
    assert result.exit_code == 0, result.output
    assert "  ok   position_round_trip" in result.output
    assert "  ok   refuses_chance_nodes" in result.output
    result = CliRunner().invoke(main, ["check", "orderchaos", "-n", "5", "-p", f"{bot}:Stubborn"])
    assert result.exit_code == 1
    assert "  ok   plays_only_legal_moves" in result.output
    assert "  FAIL refuses_finished_games: " in result.output
    result = CliRunner().invoke(main, ["check", "orderchaos", "-p", "nobody"])
    assert result.exit_code == 1 and "unknown player 'nobody'" in result.output
