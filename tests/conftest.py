"""What the tests share: one hypothesis profile, the table of game variants, and helpers for tests
that run programs.

The hypothesis profile is ``fast`` by default; ``ABSTRACTGAMES_TESTS=thorough pytest`` selects
``thorough``, which runs ten times the examples wherever a test asks for ``examples(n)``.

Helpers that are not tests (a toy game, plain references of the rules, fake external programs,
helpers shared by a few modules) are in ``tests/support/``.
"""

from __future__ import annotations

import compileall
import contextlib
import gc
import os
import random
import shlex
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from abstractgames import Move, State, available_games
from abstractgames.interrupts import STOP_SIGNALS
from abstractgames.players import Player

PROFILES = {"fast": 1, "thorough": 10}
"""Each hypothesis profile with the factor by which it multiplies the examples."""

settings.register_profile(
    "fast",
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("thorough", settings.get_profile("fast"), max_examples=1000)

PROFILE = os.environ.get("ABSTRACTGAMES_TESTS", "fast")
if PROFILE not in PROFILES:
    raise pytest.UsageError(
        f"ABSTRACTGAMES_TESTS={PROFILE!r}: choose one of {', '.join(sorted(PROFILES))}"
    )
settings.load_profile(PROFILE)


@pytest.fixture(autouse=True)
def signal_handlers_restored() -> Iterator[None]:
    """Each test leaves SIGINT, SIGTERM and SIGHUP handled as it found them: code that stops
    on a signal ignores the rest as it exits (`abstractgames.interrupts`), which in a test process
    that goes on would leave Ctrl-C ignored for the tests after it."""
    before = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    yield
    for signum, handler in before.items():
        if handler is not None and signal.getsignal(signum) is not handler:
            signal.signal(signum, handler)


# --- marks: by fixture and by measured time, and a guard on the quick subset ----------------------

FIXTURE_MARKS: dict[str, str] = {"browser": "browser", "terminals": "slow"}
"""A test that uses one of these fixtures (directly or through another fixture) carries its mark:
the browser tests need Chromium and take seconds each, wherever their fixture is borrowed; the
pseudo-terminal tests (tests/terminal) each run the program and a game in it."""

SLOW_LIST = Path(__file__).with_name("slow_tests.txt")
"""The tests measured as slow (see its header), marked ``slow`` here by their ids."""

CPU_LIMIT = float(os.environ.get("ABSTRACTGAMES_CPU_LIMIT", "1.5"))
"""The most CPU seconds (of the test's thread, outside the garbage collector, and of the programs
it waited for: `own_cpu_seconds`) an unmarked
test may take: a second, and half a second of room for the first import of a library in a worker
process and for a loaded machine's caches. CPU time, not the time on the clock, so that a
machine busy with other work does not make a quick test fail."""

WALL_LIMIT = float(os.environ.get("ABSTRACTGAMES_WALL_LIMIT", "5.0"))
"""The most seconds on the clock an unmarked test may take on an idle machine, for a test that
waits (for a program, a timeout, a sleep) rather than computes; stretched by the load of the
machine (`wall_limit`)."""

TIMES = os.environ.get("ABSTRACTGAMES_TEST_TIMES")
"""With a path, each test's CPU and clock seconds are added to that file (a line a test, and a
line for its fixtures), which ``scripts/slow-tests`` reads to write `SLOW_LIST` again."""


def slow_ids() -> frozenset[str]:
    lines = SLOW_LIST.read_text(encoding="utf-8").splitlines() if SLOW_LIST.exists() else []
    return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def pytest_configure(config: pytest.Config) -> None:
    """Once, before the workers start: the library compiled to bytecode, which the hundreds of
    processes the suite starts (the command line, servers, bots' workers) then load instead of
    compiling every module again each (where PYTHONDONTWRITEBYTECODE keeps imports from
    writing it); and, for the workers, the test modules with their asserts rewritten."""
    if not hasattr(config, "workerinput"):
        compileall.compile_dir(Path(__file__).resolve().parent.parent / "src", quiet=1)
        if getattr(config.option, "numprocesses", None):
            rewrite_test_modules(config, Path(__file__).resolve().parent)


def rewrite_test_modules(config: pytest.Config, tests: Path) -> None:
    """Write pytest's cache of the test modules with their asserts rewritten, as importing
    them would: every worker of pytest-xdist reads it instead of rewriting every module again
    (6 s of CPU a worker where PYTHONDONTWRITEBYTECODE keeps pytest from writing the cache, in
    a fresh clone always). It uses pytest's internals: if they move, each worker rewrites as
    before."""
    try:
        from _pytest.assertion.rewrite import (
            PYC_TAIL,
            _read_pyc,
            _rewrite_test,
            _write_pyc,
            assertstate_key,
            get_cache_dir,
            try_makedirs,
        )

        state = config.stash.get(assertstate_key, None)
        if state is None:  # --assert=plain
            return
        for module in sorted([*tests.rglob("test_*.py"), *tests.rglob("conftest.py")]):
            cache = get_cache_dir(module)
            pyc = cache / (module.name[:-3] + PYC_TAIL)
            if try_makedirs(cache) and _read_pyc(module, pyc, state.trace) is None:
                source, code = _rewrite_test(module, config)
                _write_pyc(state, code, source, pyc)
    except Exception:  # only a saving: the workers rewrite what is missing
        return


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: a worker more than the cores. A third of the suite's time is spent waiting
    (for browsers, servers, command lines, clocks), and the extra worker runs meanwhile: the
    whole suite on two cores takes 5 min 30 s to 6 min with three, 6 min 30 s with two."""
    return (os.cpu_count() or 1) + 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks each test by the fixtures it uses (`FIXTURE_MARKS`) and by its measured time
    (`SLOW_LIST`), before ``-m`` selects: a mark no one has to remember."""
    slow = slow_ids()
    for item in items:
        for fixture in getattr(item, "fixturenames", ()):
            if fixture in FIXTURE_MARKS:
                item.add_marker(FIXTURE_MARKS[fixture])
        if item.nodeid in slow:
            item.add_marker("slow")


def load_per_core() -> float:
    """The machine's load average of the last minute, per core."""
    try:
        return os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:
        return 1.0


def wall_limit() -> float:
    """`WALL_LIMIT` times the machine's load per core, when that is above one."""
    return WALL_LIMIT * max(1.0, load_per_core())


def cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def own_cpu_seconds() -> float:
    """The CPU seconds of this thread, outside the garbage collector, and of the children it
    waited for: what the guard holds a test to. A thread left running by an earlier test (a
    server's bot) and a collection of everything earlier tests left (a second, once, late in
    a worker's run) are not the test's."""
    times = os.times()
    return time.thread_time() - _collecting[1] + times.children_user + times.children_system


_collecting = [0.0, 0.0]
"""When the garbage collector's current pass in the main thread began (thread time), and those
passes' total."""


def _count_collections(phase: str, info: dict[str, int]) -> None:
    if threading.current_thread() is not threading.main_thread():
        return  # another thread's pass is not in the main thread's time
    if phase == "start":
        _collecting[0] = time.thread_time()
    else:
        _collecting[1] += time.thread_time() - _collecting[0]


gc.callbacks.append(_count_collections)


def wall_seconds() -> float:
    return time.perf_counter()


def is_guarded(item: pytest.Item) -> bool:
    """Whether the time of a test is checked: an unmarked test, in the ``fast`` profile (the
    ``thorough`` one runs ten times the examples), not under a tracer (coverage, a debugger)."""
    marked = any(item.iter_markers("slow")) or any(item.iter_markers("browser"))
    return not marked and PROFILE == "fast" and sys.gettrace() is None


def write_time(phase: str, item: pytest.Item, cpu: float, wall: float) -> None:
    if TIMES:
        with open(TIMES, "a", encoding="utf-8") as times:
            times.write(f"{cpu:.3f}\t{wall:.3f}\t{phase}\t{item.nodeid}\n")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """With `TIMES`, the time of each test's fixtures is written down too."""
    cpu, wall = cpu_seconds(), wall_seconds()
    try:
        return (yield)
    finally:
        write_time("setup", item, cpu_seconds() - cpu, wall_seconds() - wall)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Fails an unmarked test that passed but took more than `CPU_LIMIT` seconds of CPU (its
    own: `own_cpu_seconds`) or `wall_limit` seconds: the quick subset stays quick only if a
    slow test says that it is."""
    cpu, own, wall = cpu_seconds(), own_cpu_seconds(), wall_seconds()
    try:
        result = yield
    finally:
        cpu, own, wall = cpu_seconds() - cpu, own_cpu_seconds() - own, wall_seconds() - wall
        write_time("call", item, cpu, wall)
    limit = wall_limit()
    if is_guarded(item) and (own > CPU_LIMIT or wall > limit):
        pytest.fail(
            f"this test took {own:.1f} s of CPU and {wall:.1f} s on the clock, over the quick "
            f"subset's {CPU_LIMIT:g} s of CPU or {limit:.1f} s: make it quicker, or add its id "
            f"to tests/{SLOW_LIST.name} (or mark it slow)",
            pytrace=False,
        )
    return result


def examples(count: int) -> int:
    """``count`` hypothesis examples in the fast profile, ten times as many in the thorough one."""
    return count * PROFILES[PROFILE]


# --- the games and their variants -----------------------------------------------------------------

VARIANTS: dict[str, tuple[str, ...]] = {
    "entropy": ("entropy:size=5",),
    "dispersal": ("dispersal:max_plies=12", "dispersal:max_plies=1"),
}
"""The variants with non-default parameters checked beside each registered game."""

RULES_ONLY = frozenset({"dispersal:max_plies=1"})
"""Variants only the checks of the rules take (the game kit and the actions): a game that ends
after its first ply is an edge case of the rules, which would add little to the checks of the
players, the environments and OpenSpiel."""


def game_specs(*, rules: bool = False) -> list[str]:
    """Every registered game, each followed by its variants; those of `RULES_ONLY` only with
    ``rules=True`` (the game kit and the actions)."""
    return [
        spec
        for name in available_games()
        for spec in (name, *VARIANTS.get(name, ()))
        if rules or spec not in RULES_ONLY
    ]


# --- external programs ----------------------------------------------------------------------------


def command(*argv: object) -> str:
    """A command line for a player spec such as ``engine:COMMAND``."""
    return shlex.join(str(a) for a in argv)


def our_engine(bot: str) -> str:
    """The spec of one of our bots run as an engine program."""
    return "engine:" + command(sys.executable, "-m", "abstractgames", "engine", "--player", bot)


posix_only = pytest.mark.skipif(os.name != "posix", reason="external programs need POSIX")
posix_signals = pytest.mark.skipif(os.name != "posix", reason="signals and /proc need POSIX")

BAD_ENGINE = Path(__file__).parent / "support" / "bad_engine.py"
"""An engine that misbehaves on request (see its docstring)."""


def bad_engine(mode: str, at: int, pidfile: Path, timeout: float = 1.0) -> str:
    """The spec of the misbehaving engine; its logs go next to ``pidfile``."""
    args = ["--mode", mode, "--at", at, "--pidfile", pidfile]
    options = f"timeout={timeout},log={pidfile.parent / 'logs'}"
    return f"engine:{options}:" + command(sys.executable, BAD_ENGINE, *args)


def hostile_engine(mode: str, tmp_path: Path, *, at: int = 1, options: str = "timeout=5") -> str:
    """The spec of the misbehaving engine (see tests/support/bad_engine.py), telling when it
    thinks; its pids go to ``tmp_path / "pids"``."""
    args = ["--mode", mode, "--at", at, "--pidfile", tmp_path / "pids"]
    args += ["--thinking", tmp_path / "thinking"]
    logs = f"log={tmp_path / 'logs'}"
    return f"engine:{options},{logs}:" + command(sys.executable, BAD_ENGINE, *args)


def pids(tmp_path: Path) -> list[int]:
    return [int(line) for line in (tmp_path / "pids").read_text().split()]


def wait_for_file(path: Path, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


@contextlib.contextmanager
def killed_afterwards(tmp_path: Path) -> Iterator[None]:
    """Whatever the test, no process named in the pid file outlives it."""
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            for pid in pids(tmp_path):
                if not is_gone(pid):
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)


def is_safe(text: str) -> bool:
    return text.isprintable() and "\x1b" not in text


def is_gone(pid: int) -> bool:
    """Whether a process no longer runs (a zombie left to init counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    return stat.rpartition(")")[2].split()[0] in ("Z", "X")


def wait_gone(pid: int, seconds: float = 5.0) -> bool:
    """Whether a process that is not our child (so cannot be waited for) is gone within
    ``seconds``: a killed process takes a moment to die on a busy machine."""
    deadline = time.monotonic() + seconds
    while not is_gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def assert_reaped(pid: int) -> None:
    """Our own child: gone, and already waited for (not a zombie of ours)."""
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    assert is_gone(pid)


class Interrupting(Player):
    """Plays the first legal move, and presses Ctrl-C once two pieces are on the board."""

    spec = "random"

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        if len(state.cells().replace(".", "")) >= 2:
            raise KeyboardInterrupt
        return state.legal_moves()[0]


class StopAt(Player):
    """Plays at random, and presses Ctrl-C when asked for its ``at``-th move."""

    spec = "random"

    def __init__(self, at: int) -> None:
        self.at = at

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        self.at -= 1
        if self.at == 0:
            raise KeyboardInterrupt
        return rng.choice(state.legal_moves())
