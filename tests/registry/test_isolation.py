"""Untrusted code stays outside: bots from files (and plugins' players) play from a worker
process of their own (`abstractgames.registry.isolation`), and the referee judges every move on
a state no bot can reach, also in the in-process mode (`inprocess:SPEC`).

Each test runs real processes: the referee's worker processes, and the command line where the
issue was seen there."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from abstractgames import get_game, make_player
from abstractgames.players import InvalidPlayerError
from abstractgames.records import MatchRecord
from abstractgames.referee import MatchStopped, Referee
from abstractgames.registry import IsolatedPlayer
from abstractgames.registry.sandbox import containment
from tests.conftest import is_gone, posix_signals, wait_gone
from tests.support.bots import with_proc

ABSTRACTGAMES = [sys.executable, "-m", "abstractgames"]

BOTS = '''
import os
import subprocess
import sys
import time
from pathlib import Path

from abstractgames.players import Player


class Hangs(Player):
    def choose(self, state, rng, time_left=None):
        time.sleep(1000)


class Spins(Player):
    def choose(self, state, rng, time_left=None):
        while True:
            pass


class Exits(Player):
    def choose(self, state, rng, time_left=None):
        sys.exit(0)


class HardExit(Player):
    def choose(self, state, rng, time_left=None):
        os._exit(3)


class Interrupts(Player):
    def choose(self, state, rng, time_left=None):
        raise KeyboardInterrupt


class OutOfMemory(Player):
    def choose(self, state, rng, time_left=None):
        raise MemoryError("no more")


class Recurses(Player):
    def choose(self, state, rng, time_left=None):
        return self.choose(state, rng, time_left)


class Crashes(Player):
    def choose(self, state, rng, time_left=None):
        raise ZeroDivisionError("a bug")


class BadClose(Player):
    def choose(self, state, rng, time_left=None):
        return rng.choice(state.legal_moves())

    def close(self):
        raise RuntimeError("cannot close")


class Rewrites(Player):
    """Empties the board of the state it is given, then plays on e1 again and again."""

    def choose(self, state, rng, time_left=None):
        object.__setattr__(state, "x", 0)
        object.__setattr__(state, "o", 0)
        object.__setattr__(state, "_legal", None)
        return state.game.parse_move("O@e1", state)

    def move_played(self, move, state):
        object.__setattr__(state, "x", 0)
        object.__setattr__(state, "o", 0)


class Prints(Player):
    def choose(self, state, rng, time_left=None):
        print("thinking hard")
        return rng.choice(state.legal_moves())


class Spawns(Player):
    """Starts a child that sleeps (and one in a session of its own), their ids in children.txt."""

    def choose(self, state, rng, time_left=None):
        here = Path(__file__).with_name("children.txt")
        if not here.exists():
            first = subprocess.Popen(["sleep", "300"])
            second = subprocess.Popen(["sleep", "300"], start_new_session=True)
            here.write_text(f"{first.pid} {second.pid}")
        return rng.choice(state.legal_moves())


class Counts(Player):
    """Plays the first legal move; says in hooks.txt what the hooks told it."""

    def __init__(self, game):
        self.log = Path(__file__).with_name("hooks.txt")

    def game_started(self, seat, game_number, start):
        with self.log.open("a") as out:
            out.write(f"started {seat} {game_number}\\n")

    def move_played(self, move, state):
        with self.log.open("a") as out:
            out.write(f"played {move}\\n")

    def game_ended(self, state):
        with self.log.open("a") as out:
            out.write("ended\\n")

    def choose(self, state, rng, time_left=None):
        return state.legal_moves()[0]
'''


@pytest.fixture
def bots(tmp_path: Path) -> Path:
    path = tmp_path / "bots.py"
    path.write_text(BOTS)
    return path


def play(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ABSTRACTGAMES, *args], capture_output=True, text=True, cwd=cwd, timeout=60
    )


def referee_match(spec: str, game: str = "orderchaos", **options: object) -> MatchRecord:
    the_game = get_game(game)
    players = (make_player(spec, the_game), make_player("random", the_game))
    return Referee(the_game, players, seed=1, **options).play()  # type: ignore[arg-type]


# --- 1. stopped on time -----------------------------------------------------------------------


@posix_signals
def test_a_bot_that_sleeps_forfeits_on_its_clock_and_the_record_is_saved(
    bots: Path, tmp_path: Path
) -> None:
    record = tmp_path / "game.json"
    start = time.monotonic()
    done = play("play", "orderchaos", "-1", f"{bots}:Hangs", "-2", "random", "--clock", "0.5",
                "--seed", "1", "--record", str(record), cwd=tmp_path)  # fmt: skip
    took = time.monotonic() - start
    assert done.returncode == 0, done.stderr
    assert took < 15, f"took {took:.1f} s"
    saved = MatchRecord.load(record)
    assert saved.finished and saved.result is not None and saved.result.winner == 2
    assert "player 1 did not answer within 2.5 s" in saved.games[0].ended_by.reason  # type: ignore[union-attr]


@posix_signals
def test_without_a_clock_a_busy_bot_forfeits_after_its_per_move_limit(bots: Path) -> None:
    start = time.monotonic()
    # The timeout covers the worker's start too, which can take over 0.5 s on a loaded machine.
    record = referee_match(f"isolated:timeout=2:{bots}:Spins")
    assert time.monotonic() - start < 10
    assert record.result is not None and record.result.winner == 2
    end = record.games[0].ended_by
    assert end is not None and end.reason.startswith("player 1 did not answer within 2.0 s")


@posix_signals
def test_the_arena_forfeits_a_bot_that_spins_on_its_clock(bots: Path, tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    start = time.monotonic()
    done = play("arena", "orderchaos", "--players", "random", f"{bots}:Spins", "--games", "2",
                "--clock", "0.2", "-j", "1", "-q", "--json", str(out), cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - start < 30
    assert "Traceback" not in done.stderr
    results = json.loads(out.read_text())
    assert "Spins" in json.dumps(results)


# --- 2. exits are not ours --------------------------------------------------------------------


@posix_signals
def test_sys_exit_in_a_bot_is_a_forfeit_with_a_message_and_a_record(
    bots: Path, tmp_path: Path
) -> None:
    record = tmp_path / "game.json"
    done = play("play", "orderchaos", "-1", f"{bots}:Exits", "-2", "random", "--seed", "1",
                "--record", str(record), "-v", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    saved = MatchRecord.load(record)
    assert saved.finished and saved.result is not None and saved.result.winner == 2
    reason = saved.games[0].ended_by.reason  # type: ignore[union-attr]
    assert reason.startswith("player 1 reported an error: SystemExit: 0 (at bots.py, line")
    assert reason in done.stdout + done.stderr


@posix_signals
@pytest.mark.parametrize(
    ("bot", "reason"),
    [
        ("HardExit", "player 1 exited with status 3"),
        ("Interrupts", "player 1 reported an error: KeyboardInterrupt (at bots.py"),
        ("OutOfMemory", "player 1 reported an error: MemoryError: no more (at bots.py"),
        ("Recurses", "player 1 reported an error: RecursionError: maximum recursion depth"),
        ("Crashes", "player 1 reported an error: ZeroDivisionError: a bug (at bots.py, line"),
    ],
)
def test_every_way_out_of_a_bot_is_a_forfeit(bots: Path, bot: str, reason: str) -> None:
    record = referee_match(f"{bots}:{bot}")
    assert record.finished and record.result is not None and record.result.winner == 2
    end = record.games[0].ended_by
    assert end is not None and end.event == "forfeit" and end.reason.startswith(reason), end


def test_in_process_sys_exit_stops_the_match_with_its_record(bots: Path) -> None:
    with pytest.raises(MatchStopped, match=r"player 1 \(inprocess:.*\) failed: SystemExit: 0"):
        referee_match(f"inprocess:{bots}:Exits")


@posix_signals
@pytest.mark.parametrize("mode", ["", "inprocess:"])
def test_a_close_that_raises_keeps_the_finished_record(
    bots: Path, tmp_path: Path, mode: str
) -> None:
    record = tmp_path / "game.json"
    done = play("play", "orderchaos", "-1", f"{mode}{bots}:BadClose", "-2", "random", "--seed",
                "1", "--record", str(record), cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert MatchRecord.load(record).finished
    assert "Traceback" not in done.stderr


# --- 3. it cannot rewrite the game ------------------------------------------------------------


@pytest.mark.parametrize("mode", ["", "inprocess:"])
def test_a_bot_that_writes_into_its_state_cannot_change_the_referees(bots: Path, mode: str) -> None:
    record = referee_match(f"{mode}{bots}:Rewrites")
    moves = [entry.move for entry in record.games[0].moves]
    assert moves.count("O@e1") == 1  # the second one is judged on the referee's own board
    end = record.games[0].ended_by
    assert end is not None and end.event == "forfeit" and "illegal move" in end.reason
    record.replay(get_game("orderchaos"))  # the record replays through the rules
    assert MatchRecord.loads(record.dumps()).finished


# --- 4. its output and children ---------------------------------------------------------------


@posix_signals
def test_a_bots_print_goes_to_stderr_behind_engine(bots: Path, tmp_path: Path) -> None:
    session = "agp 1\ngame orderchaos\nnewgame\nposition startpos\ngo seed 1\nquit\n"
    done = subprocess.run(
        [*ABSTRACTGAMES, "engine", "--player", f"{bots}:Prints"],
        input=session, capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "thinking hard" not in done.stdout and "thinking hard" in done.stderr
    assert done.stdout.splitlines()[-1].startswith("move ")
    record = referee_match(
        f"engine:{sys.executable} -m abstractgames engine --player {bots}:Prints"
    )
    assert record.result is not None and record.games[0].ended_by is None  # no forfeit
    isolated = referee_match(f"{bots}:Prints")
    assert isolated.games[0].ended_by is None


@with_proc
@posix_signals
def test_the_processes_a_bot_starts_are_reaped_when_its_match_ends(
    bots: Path, tmp_path: Path
) -> None:
    """On Linux the sandbox refuses them (a forfeit); elsewhere they die with the match."""
    record = referee_match(f"{bots}:Spawns")
    if containment().seccomp:
        end = record.games[0].ended_by
        assert end is not None and end.event == "forfeit" and "PermissionError" in end.reason
        assert not (tmp_path / "children.txt").exists()
        return
    pids = [int(word) for word in (tmp_path / "children.txt").read_text().split()]
    assert all(wait_gone(pid) for pid in pids)


def test_the_hooks_reach_a_bot_in_its_worker(bots: Path, tmp_path: Path) -> None:
    referee_match(f"{bots}:Counts")
    told = (tmp_path / "hooks.txt").read_text().splitlines()
    assert told[0] == "started 1 1" and told[-1] == "ended"
    assert sum(line.startswith("played ") for line in told) >= 1


def test_a_bad_spec_is_refused_by_the_worker_with_its_message(bots: Path) -> None:
    game = get_game("orderchaos")
    with pytest.raises(InvalidPlayerError, match="has no 'Missing'; its players: BadClose"):
        make_player(f"{bots}:Missing", game)
    player = make_player(f"{bots}:Prints", game)
    try:
        assert isinstance(player, IsolatedPlayer) and player.spec == f"{bots}:Prints"
    finally:
        player.close()


# --- 5. in the arena --------------------------------------------------------------------------


@posix_signals
@pytest.mark.parametrize("mode", ["", "inprocess:"])
def test_a_failing_bot_loses_its_games_and_the_tournament_goes_on(
    bots: Path, tmp_path: Path, mode: str
) -> None:
    out = tmp_path / "results.json"
    done = play("arena", "orderchaos", "--players", "random", "greedy", f"{mode}{bots}:Crashes",
                "--games", "2", "-j", "1", "-q", "--json", str(out), cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    results = json.loads(out.read_text())
    assert len(results["matches"]) == 6, results.keys()
    crashing = [m for m in results["matches"] if f"{mode}{bots}:Crashes" in m["players"]]
    assert len(crashing) == 4
    for match in crashing:
        loser = match["players"].index(f"{mode}{bots}:Crashes") + 1
        assert match["winner"] == 3 - loser, match


@posix_signals
@pytest.mark.slow
@pytest.mark.parametrize("whom", ["main", "group"])
def test_a_stop_in_the_first_second_of_the_arena_prints_no_worker_traceback(
    tmp_path: Path, whom: str
) -> None:
    for delay in (0.0, 0.2, 0.5):  # from when the main process starts its workers
        state = tmp_path / f"state{delay}.jsonl"
        process = subprocess.Popen(
            [*ABSTRACTGAMES, "arena", "orderchaos", "--players", "random", "greedy", "--games",
             "2000", "-j", "2", "-q", "--state", str(state)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while not state.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(delay)
        if whom == "main":
            process.send_signal(signal.SIGTERM)
        else:
            os.killpg(process.pid, signal.SIGINT)  # Ctrl-C at a terminal
        _, err = process.communicate(timeout=60)
        assert process.returncode in (130, 143), err
        assert "Traceback" not in err and "Fatal Python error" not in err, err
        assert is_gone(process.pid)


def test_the_arena_workers_start_with_the_signals_held(tmp_path: Path) -> None:
    # Before: the first worker started multiprocessing's resource tracker, which unblocks SIGINT
    # and SIGTERM in the thread that starts it: the workers started with them unblocked, and a
    # Ctrl-C in those milliseconds was lost (the main process had them ignored for its
    # children's sake), so `arena` played its 2000 games to the end and exited 0.
    script = textwrap.dedent(
        """
        import multiprocessing, signal
        from abstractgames.arena.executors import _signals_held, _start_the_resource_tracker

        def look(connection):
            connection.send(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []))

        if __name__ == "__main__":
            context = multiprocessing.get_context("spawn")
            ours, theirs = context.Pipe()
            _start_the_resource_tracker()
            with _signals_held():
                process = context.Process(target=look, args=(theirs,))
                process.start()
                here = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
            print(ours.recv(), here)
            process.join()
        """
    )
    (tmp_path / "look.py").write_text(script)
    done = subprocess.run(
        [sys.executable, str(tmp_path / "look.py")], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split() == ["True", "True"], done.stderr
