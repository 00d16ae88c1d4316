"""What the tests share: one hypothesis profile, and helpers for tests that run programs.

The hypothesis profile is ``fast`` by default; ``ABSTRACTGAMES_TESTS=thorough pytest`` selects
``thorough``, which runs ten times the examples wherever a test asks for ``examples(n)``.
"""

from __future__ import annotations

import os
import random
import shlex
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from abstractgames import Move, State
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


def examples(count: int) -> int:
    """``count`` hypothesis examples in the fast profile, ten times as many in the thorough one."""
    return count * PROFILES[PROFILE]


# --- external programs ----------------------------------------------------------------------------


def command(*argv: object) -> str:
    """A command line for a player spec such as ``engine:COMMAND``."""
    return shlex.join(str(a) for a in argv)


def our_engine(bot: str) -> str:
    """The spec of one of our bots run as an engine program."""
    return "engine:" + command(sys.executable, "-m", "abstractgames", "engine", "--player", bot)


BAD_ENGINE = Path(__file__).parent / "engines" / "bad_engine.py"
"""An engine that misbehaves on request (see its docstring)."""


def bad_engine(mode: str, at: int, pidfile: Path, timeout: float = 1.0) -> str:
    """The spec of the misbehaving engine; its logs go next to ``pidfile``."""
    args = ["--mode", mode, "--at", at, "--pidfile", pidfile]
    options = f"timeout={timeout},log={pidfile.parent / 'logs'}"
    return f"engine:{options}:" + command(sys.executable, BAD_ENGINE, *args)


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
