"""Make ``docs/images/terminal.svg``: a real ``abstractgames play`` session, as a terminal shows it.

Runs the installed command line in a tmux window of 100×36 (tmux is the terminal), in a temporary
folder that is also its data directory, types a few moves and a ``hint`` as a person would,
captures the screen with its colours, types ``quit``, and draws the screen with rich's SVG export
(without rich's web fonts: the site loads nothing from elsewhere). Run it from the top of the
checkout, with tmux installed:

    python docs/images/screenshot.py
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OUTPUT = Path(__file__).with_name("terminal.svg")
SESSION = "abstractgames-screenshot"
COMMAND = "abstractgames play entropy --seed 7 --clock 600"
KEYS = ["d4", "e4", "hint"]
"""What the person types, one line at a time (each waits for the prompt)."""


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def prompts(screen: str) -> int:
    return len(re.findall(r"chaos \(you\)>", screen))


def wait_for_prompt(count: int, timeout: float = 60.0) -> str:
    """The screen (with escapes) once ``count`` prompts were shown."""
    deadline = time.monotonic() + timeout
    while True:
        screen = tmux("capture-pane", "-p", "-e", "-S", "-200", "-t", SESSION)
        plain = re.sub(r"\x1b\[[0-9;]*m", "", screen)
        if prompts(plain) >= count:
            return screen
        if time.monotonic() > deadline:
            raise SystemExit(f"no prompt after {timeout:g} s:\n{plain[-800:]}")
        time.sleep(0.2)


def main() -> None:
    if shutil.which("tmux") is None:
        raise SystemExit("this needs tmux")
    from rich._export_format import CONSOLE_SVG_FORMAT
    from rich.console import Console
    from rich.text import Text

    folder = tempfile.mkdtemp(prefix="abstractgames-screenshot-")
    command = f"ABSTRACTGAMES_DATA={folder} {sys.executable} -m {COMMAND}"
    tmux("new-session", "-d", "-s", SESSION, "-x", "100", "-y", "36", "-c", folder, command)
    try:
        seen = 1
        wait_for_prompt(seen)
        for line in KEYS:
            time.sleep(1.5)  # a person thinks, the clock counts down
            tmux("send-keys", "-t", SESSION, line, "Enter")
            seen += 1
            wait_for_prompt(seen)
        time.sleep(2.5)
        screen = tmux("capture-pane", "-p", "-e", "-t", SESSION)
        tmux("send-keys", "-t", SESSION, "quit", "Enter")
        time.sleep(1)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", SESSION], check=False, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
    lines = screen.rstrip("\n").split("\n")
    while lines and not re.sub(r"\x1b\[[0-9;]*m", "", lines[-1]).strip():
        lines.pop()
    console = Console(
        record=True, width=100, force_terminal=True, color_system="truecolor", file=io.StringIO()
    )
    console.print(Text.from_ansi("\n".join(lines)), soft_wrap=True)
    no_web_fonts = re.sub(r"@font-face \{\{.*?\}\}\s*", "", CONSOLE_SVG_FORMAT, flags=re.S)
    console.save_svg(str(OUTPUT), title=COMMAND, code_format=no_web_fonts)
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
