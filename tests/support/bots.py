"""Bots written to files by the tests that need one to misbehave in a process of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

SLOW_BOT = """
import os
import time
from pathlib import Path

from abstractgames.players import Player

made = 0


class Slow(Player):
    \"\"\"Quick in the first match of a process; from the second one, it thinks for a minute
    (after writing its process id to thinking.pid next to this file).\"\"\"

    def __init__(self, game):
        global made
        made += 1
        self.slow = made >= 2

    def choose(self, state, rng, time_left=None):
        if self.slow:
            Path(__file__).with_name("thinking.pid").write_text(str(os.getpid()))
            time.sleep(60)
        return state.legal_moves()[0]
"""
"""A bot file (write it next to the test's files): its player `Slow`."""

with_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
"""For the tests that look for processes in /proc."""
