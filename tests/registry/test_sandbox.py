"""Bots from files contained for real (`abstractgames.registry.sandbox`): a bot cannot stop,
kill or spy on its referee, start processes, or take all the memory; each attack is a forfeit,
the record is saved and valid, and the referee lives on; a killed referee loses no move.

Each attack is a real hostile bot file run through the real command: `play`, `arena -j 2`,
`engine` behind `play`, and the local web page. The attacks on the referee itself run only where
the sandbox holds (Linux with libseccomp): elsewhere they would stop or kill the test run.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from abstractgames import get_game, make_player
from abstractgames.players import InvalidPlayerError
from abstractgames.records import MatchRecord
from abstractgames.referee import Referee
from abstractgames.registry.sandbox import Containment, containment
from tests.conftest import command, posix_signals, wait_gone

ABSTRACTGAMES = [sys.executable, "-m", "abstractgames"]

sandboxed = pytest.mark.skipif(
    not containment().complete, reason="the sandbox needs Linux with libseccomp"
)
"""For the tests whose bots attack the test run itself: only where the sandbox stops them."""

HOSTILE = '''
import os
import signal
from pathlib import Path

from abstractgames.players import Player

NOTES = Path(__file__).with_name("attacks.txt")


def note(text):
    with NOTES.open("a") as out:
        out.write(text + "\\n")


def stop_parent():
    os.kill(os.getppid(), signal.SIGSTOP)


def kill_parent():
    os.kill(os.getppid(), signal.SIGKILL)


def stop_group():
    os.killpg(0, signal.SIGSTOP)


def limit_parent():
    import resource

    resource.prlimit(os.getppid(), resource.RLIMIT_NOFILE, (3, 3))


def starve_parent():
    os.sched_setscheduler(os.getppid(), os.SCHED_IDLE, os.sched_param(0))


def fork():
    if os.fork() == 0:
        os._exit(0)


def spy():
    open(f"/proc/{os.getppid()}/mem", "rb").close()  # open, it could read and write it


def flood():
    import numpy  # its zeros are asked of the system, not written: a flood costs no time

    blocks = []
    try:
        while len(blocks) < 1 << 14:  # 1 TiB of address space: more than any limit of ours
            blocks.append(numpy.zeros(1 << 26, dtype=numpy.uint8))
    finally:
        note(f"flood reached {len(blocks) * 64} MiB")
        blocks.clear()


def touch():
    """A flood written to, within a small limit (numpy alone needs more to start)."""
    blocks = []
    try:
        while len(blocks) < 1 << 14:
            blocks.append(b"x" * (1 << 24))
    finally:
        note(f"flood reached {len(blocks) * 16} MiB")
        blocks.clear()


ATTACKS = {
    "stop": stop_parent,
    "kill": kill_parent,
    "group": stop_group,
    "fork": fork,
    "limit": limit_parent,
    "starve": starve_parent,
    "spy": spy,
    "flood": flood,
    "touch": touch,
}
EVERY = ["stop", "kill", "group", "fork", "limit", "starve", "spy", "flood"]


class Hostile(Player):
    """Tries its attacks (all of them by default) at its first move; forfeits with the last
    error if every one was refused, plays on if one got through."""

    def __init__(self, game, attack="all"):
        self.attacks = EVERY if attack == "all" else [attack]

    def choose(self, state, rng, time_left=None):
        error = None
        for name in self.attacks:
            try:
                ATTACKS[name]()
            except Exception as refused:
                note(f"{name} refused: {type(refused).__name__}")
                error = refused
            else:
                note(f"{name} got through")
                error = None
        if error is not None:
            raise error
        return state.legal_moves()[0]


class StopsItself(Player):
    def choose(self, state, rng, time_left=None):
        os.kill(os.getpid(), signal.SIGSTOP)
        return state.legal_moves()[0]


class SlowLater(Player):
    """Quick for two moves, then thinks for a minute (its pid in slow.pid)."""

    def __init__(self, game):
        self.moves = 0

    def choose(self, state, rng, time_left=None):
        self.moves += 1
        if self.moves > 2:
            Path(__file__).with_name("slow.pid").write_text(str(os.getpid()))
            import time

            time.sleep(60)
        return state.legal_moves()[0]


class Looks(Player):
    """Writes what it finds of its process to looks.json, then plays."""

    def choose(self, state, rng, time_left=None):
        import json
        import resource

        status = dict(
            line.split(":\\t", 1) for line in Path("/proc/self/status").read_text().splitlines()
            if ":\\t" in line
        )
        links = []
        for name in os.listdir("/proc/self/fd"):
            try:
                links.append(os.readlink(f"/proc/self/fd/{name}"))
            except OSError:
                pass  # the listing's own descriptor, closed meanwhile
        found = {
            "status": {k: status.get(k, "").strip() for k in
                       ("CapEff", "CapPrm", "CapBnd", "NoNewPrivs", "Seccomp")},
            "session": os.getsid(0) == os.getpid(),
            "fds": links,
            "core": resource.getrlimit(resource.RLIMIT_CORE),
            "as": resource.getrlimit(resource.RLIMIT_AS),
            "nofile": resource.getrlimit(resource.RLIMIT_NOFILE),
        }
        Path(__file__).with_name("looks.json").write_text(json.dumps(found))
        return state.legal_moves()[0]
'''

ALL_ATTACKS = ("stop", "kill", "group", "fork", "limit", "starve", "spy", "flood")


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    path = tmp_path / "hostile.py"
    path.write_text(HOSTILE)
    return path


def run(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ABSTRACTGAMES, *args], capture_output=True, text=True, cwd=cwd, timeout=timeout
    )


def notes(tmp_path: Path) -> list[str]:
    return (tmp_path / "attacks.txt").read_text().splitlines()


def assert_refused(tmp_path: Path, attacks: tuple[str, ...] = ALL_ATTACKS) -> None:
    """Every attack was tried and refused (the flood within the default memory limit)."""
    seen = notes(tmp_path)
    assert not [line for line in seen if "got through" in line], seen
    for attack in attacks:
        assert any(line.startswith(f"{attack} refused") for line in seen), (attack, seen)
    for line in seen:
        if line.startswith("flood reached"):
            assert int(line.split()[2]) <= 4096, line


def assert_valid_record(path: Path, cwd: Path, loser: int) -> MatchRecord:
    """The record is saved, finished as a forfeit of `loser`, and replays through the rules."""
    record = MatchRecord.load(path)
    assert record.finished and record.result is not None
    assert record.result.winner == 3 - loser
    end = record.games[0].ended_by
    assert end is not None and end.event == "forfeit" and end.player == loser, end
    replayed = run("replay", str(path), cwd=cwd)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    return record


# --- the sandbox itself ---------------------------------------------------------------------------


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux sandbox")
def test_the_sandbox_holds_on_this_linux() -> None:
    """CI runs on Debian with libseccomp2: the filter is there (Landlock depends on the kernel)."""
    here = containment()
    assert here.complete and here.seccomp and here.limits
    assert here.gaps() == []
    assert "sandboxed" in here.summary()


def test_where_there_is_no_seccomp_the_gaps_are_said_plainly() -> None:
    bare = Containment(seccomp=False, landlock=0, limits=True)
    assert not bare.complete
    assert bare.gaps() == [
        "signal, trace or read your other processes (the referee included) and start "
        "processes of its own"
    ]
    assert "not sandboxed" in bare.summary() and "signal, trace or read" in bare.summary()
    assert "all the memory" in Containment(seccomp=False, landlock=0, limits=False).summary()


def test_a_bad_memory_option_is_our_own_error(hostile: Path) -> None:
    game = get_game("orderchaos")
    for bad in ("abc", "0", "-5", "1.5", "99999999999"):
        with pytest.raises(InvalidPlayerError, match=r"memory=.* must be a whole number of MiB"):
            make_player(f"isolated:memory={bad}:{hostile}:Hostile", game)
    with pytest.raises(InvalidPlayerError, match="its options: timeout, grace, log, memory"):
        make_player(f"isolated:memroy=64:{hostile}:Hostile", game)


@sandboxed
def test_the_worker_has_no_capability_no_descriptor_and_its_own_session(
    hostile: Path, tmp_path: Path
) -> None:
    game = get_game("orderchaos")
    players = (make_player(f"{hostile}:Looks", game), make_player("random", game))
    Referee(game, players, seed=1).play()
    found = json.loads((tmp_path / "looks.json").read_text())
    status = found["status"]
    assert status["CapEff"] == status["CapPrm"] == "0" * 16, status  # as root too
    assert status["NoNewPrivs"] == "1" and status["Seccomp"] == "2", status
    assert found["session"]
    assert found["core"] == [0, 0]
    assert found["as"][0] == 4096 << 20 and found["nofile"][0] == 256
    for link in found["fds"]:  # its pipes, /dev/null, its log; nothing of the referee's
        assert link.startswith("pipe:") or link == "/dev/null" or "abstractgames-" in link, link


@sandboxed
def test_a_memory_flood_stops_at_the_limit_given(hostile: Path, tmp_path: Path) -> None:
    game = get_game("orderchaos")
    spec = f"isolated:memory=128:{hostile}:Hostile:attack=touch"
    players = (make_player(spec, game), make_player("random", game))
    record = Referee(game, players, seed=1).play()
    end = record.games[0].ended_by
    assert end is not None and end.event == "forfeit" and "MemoryError" in end.reason
    reached = next(line for line in notes(tmp_path) if line.startswith("flood reached"))
    assert int(reached.split()[2]) <= 128


@posix_signals
def test_a_worker_that_stops_itself_forfeits_at_its_deadline(hostile: Path) -> None:
    game = get_game("orderchaos")
    # The timeout covers the worker's start too, which took over 0.5 s on a loaded machine.
    player = make_player(f"isolated:timeout=2:{hostile}:StopsItself", game)
    players = (player, make_player("random", game))
    started = time.monotonic()
    record = Referee(game, players, seed=1).play()
    assert time.monotonic() - started < 10
    end = record.games[0].ended_by
    assert end is not None and end.event == "forfeit", end
    assert end.reason.startswith("player 1 did not answer within 2.0 s"), end.reason


# --- each attack, through each front end ----------------------------------------------------------


@sandboxed
@pytest.mark.slow
@pytest.mark.parametrize("attack", ALL_ATTACKS)
def test_each_attack_on_play_is_a_forfeit_with_a_valid_record(
    hostile: Path, tmp_path: Path, attack: str
) -> None:
    saved = tmp_path / "game.json"
    done = run("play", "orderchaos", "-1", f"{hostile}:Hostile:attack={attack}", "-2", "random",
               "--seed", "1", "--record", str(saved), cwd=tmp_path, timeout=30)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert_valid_record(saved, tmp_path, loser=1)
    assert_refused(tmp_path, (attack,))


@sandboxed
@pytest.mark.slow
def test_every_attack_in_an_arena_on_two_processes_is_a_forfeit(
    hostile: Path, tmp_path: Path
) -> None:
    out, records = tmp_path / "results.json", tmp_path / "records"
    done = run("arena", "orderchaos", "--players", "random", f"{hostile}:Hostile", "--games", "2",
               "-j", "2", "-q", "--json", str(out), "--records", str(records), cwd=tmp_path,
               timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    matches = json.loads(out.read_text())["matches"]
    assert len(matches) == 2
    for match in matches:
        hostile_seat = match["players"].index(f"{hostile}:Hostile") + 1
        assert match["ended_by"] == {"event": "forfeit", "player": hostile_seat}, match
    files = sorted(records.glob("*.json"))
    assert len(files) == 2
    for path, match in zip(files, matches, strict=True):
        assert_valid_record(path, tmp_path, loser=match["players"].index(f"{hostile}:Hostile") + 1)
    assert_refused(tmp_path)


@sandboxed
@pytest.mark.slow
@pytest.mark.parametrize(("wrapper", "game"), [("engine", "orderchaos"), ("codecup", "entropy")])
def test_an_attack_behind_a_protocol_wrapper_is_a_forfeit_and_the_referee_lives(
    hostile: Path, tmp_path: Path, wrapper: str, game: str
) -> None:
    """The bot served by `engine` (our protocol) or `codecup` (CodeCup's), itself sandboxed."""
    saved = tmp_path / "game.json"
    program = f"{wrapper}:" + command(
        sys.executable, "-m", "abstractgames", wrapper, "--player", f"{hostile}:Hostile"
    )
    done = run("play", game, "-1", program, "-2", "random", "--seed", "1", "--record",
               str(saved), cwd=tmp_path, timeout=30)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert_valid_record(saved, tmp_path, loser=1)
    assert_refused(tmp_path)


@sandboxed
@pytest.mark.slow
def test_every_attack_on_the_local_page_is_a_forfeit_and_the_server_lives(
    hostile: Path, tmp_path: Path
) -> None:
    """The page's server is this test's own process: the worker's parent."""
    pytest.importorskip("starlette")
    from abstractgames.web import create_app
    from tests.web.test_api import new_game, over, signed_in, wait_for

    games = tmp_path / "games"
    with signed_in(create_app(save_dir=games, bot_timeout=20.0)) as client:
        game = new_game(client, game="orderchaos", players=[f"{hostile}:Hostile", "random"])
        final = wait_for(client, game["id"], over, seconds=30)
        assert final["status"] == "finished", final
        assert final["result"]["winner"] == 2
        assert "reported an error" in final["result"]["reason"]
        assert client.get("/api/catalog").status_code == 200  # the server goes on
        assert_valid_record(Path(final["saved"]), tmp_path, loser=1)
    assert_refused(tmp_path)


# --- the referee survives what it cannot prevent --------------------------------------------------


@posix_signals
@pytest.mark.slow
def test_a_referee_killed_outright_loses_no_move_played(hostile: Path, tmp_path: Path) -> None:
    saved = tmp_path / "game.json"
    process = subprocess.Popen(
        [*ABSTRACTGAMES, "play", "orderchaos", "-1", "random", "-2", f"{hostile}:SlowLater",
         "--seed", "1", "--record", str(saved)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not (tmp_path / "slow.pid").exists():
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    record = MatchRecord.load(saved)
    assert not record.finished
    assert len(record.games[0].moves) == 5  # three of player 1's, two of the bot's
    replayed = run("replay", str(saved), cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stderr
    assert "unfinished" in replayed.stdout
    assert wait_gone(int((tmp_path / "slow.pid").read_text()))  # the worker died with it


# --- where the sandbox does not hold, the commands say so ---------------------------------------


@posix_signals
@pytest.mark.slow
def test_play_and_arena_say_what_is_not_contained_where_the_sandbox_falls_short(
    hostile: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As on macOS: no seccomp, resource limits only (the worker itself is not changed)."""
    from click.testing import CliRunner

    from abstractgames import cli
    from abstractgames.registry import sandbox

    bare = Containment(seccomp=False, landlock=0, limits=True)
    monkeypatch.setattr(sandbox, "containment", lambda: bare)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    said = runner.invoke(cli.main, ["play", "orderchaos", "-1", f"{hostile}:Looks", "-2", "random",
                                    "--record", "game.json"])  # fmt: skip
    assert said.exit_code == 0, said.output
    assert "note: on " in said.stderr and "not sandboxed" in said.stderr
    assert "signal, trace or read your other processes" in said.stderr
    quiet = runner.invoke(cli.main, ["play", "orderchaos", "-1", "greedy", "-2", "random",
                                     "--record", "other.json"])  # fmt: skip
    assert quiet.exit_code == 0 and "note:" not in quiet.stderr
    arena = runner.invoke(cli.main, ["arena", "orderchaos", "--players", "random",
                                     f"{hostile}:Looks", "--games", "2", "-q"])  # fmt: skip
    assert arena.exit_code == 0, arena.output
    assert "not sandboxed" in arena.stderr


@sandboxed
def test_a_bot_may_think_in_threads(tmp_path: Path) -> None:
    """Threads are not processes: `clone` of a thread passes the filter."""
    bot = tmp_path / "threads.py"
    bot.write_text(
        "from concurrent.futures import ThreadPoolExecutor\n"
        "from abstractgames.players import Player\n\n"
        "class Threads(Player):\n"
        "    def choose(self, state, rng, time_left=None):\n"
        "        with ThreadPoolExecutor(4) as pool:\n"
        "            moves = list(pool.map(lambda m: m, state.legal_moves()))\n"
        "        return moves[0]\n"
    )
    game = get_game("orderchaos")
    players = (make_player(f"{bot}:Threads", game), make_player("random", game))
    record = Referee(game, players, seed=1).play()
    assert record.finished and record.games[0].ended_by is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
@pytest.mark.parametrize(("abi", "dumpable"), [(0, "0"), (1, "1")])
def test_without_landlock_the_referee_makes_itself_undumpable(abi: int, dumpable: str) -> None:
    """Without Landlock a worker of the same user could open the referee's /proc files; an
    undumpable referee closes them (in a process of its own: it cannot be undone)."""
    code = (
        "import ctypes\n"
        "from abstractgames.registry import sandbox\n"
        f"sandbox.landlock_abi = lambda: {abi}\n"
        "sandbox.protect_referee()\n"
        "print(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))\n"  # PR_GET_DUMPABLE
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert done.stdout.strip() == dumpable, done.stderr


@sandboxed
def test_a_bot_may_move_its_files_between_directories(tmp_path: Path) -> None:
    """Landlock refuses `rename` across directories in any domain unless a rule allows it: the
    sandbox allows it everywhere (a bot keeping a cache writes it atomically)."""
    bot = tmp_path / "mover.py"
    bot.write_text(
        "import os\n"
        "from pathlib import Path\n"
        "from abstractgames.players import Player\n\n"
        "class Mover(Player):\n"
        "    def choose(self, state, rng, time_left=None):\n"
        "        here = Path(__file__).parent\n"
        "        (here / 'a' / 'cache.tmp').write_text('kept')\n"
        "        os.replace(here / 'a' / 'cache.tmp', here / 'b' / 'cache')\n"
        "        return state.legal_moves()[0]\n"
    )
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    game = get_game("orderchaos")
    players = (make_player(f"{bot}:Mover", game), make_player("random", game))
    record = Referee(game, players, seed=1).play()
    assert record.games[0].ended_by is None, record.games[0].ended_by
    assert (tmp_path / "b" / "cache").read_text() == "kept"
