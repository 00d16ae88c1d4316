"""What the tests share: one hypothesis profile, the table of game variants, and helpers for tests
that run programs.

The hypothesis profile is ``fast`` by default; ``ABSTRACTGAMES_TESTS=thorough pytest`` selects
``thorough``, which runs ten times the examples wherever a test asks for ``examples(n)``.

Helpers that are not tests (a toy game, plain references of the rules, fake external programs,
helpers shared by a few modules) are in ``tests/support/``.
"""

from __future__ import annotations

import contextlib
import os
import random
import shlex
import signal
import sys
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
