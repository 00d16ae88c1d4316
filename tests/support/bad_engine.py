"""An Order and Chaos engine for the abstractgames engine protocol that misbehaves on request.

It plays on the first empty square (X and O in turn) and breaks the rules when told:

    python bad_engine.py [--mode MODE] [--at N] [--pidfile PATH] [--thinking PATH]

MODE is what happens at its N-th move (default 1): ``good`` (nothing), ``crash`` (a traceback and
status 1), ``sleep`` (hang), ``spawn`` (start a child that sleeps, then hang), ``garbage`` (a line
that is no answer), ``illegal`` (an occupied square), ``extra`` (a second line after the move),
``exit`` (status 0 right after the move, before ``quit``), ``stderr`` (chatter on standard error at
every move, otherwise good), ``noquit`` (ignore ``quit``), ``resign``, ``slow`` (think for
``--delay`` seconds), ``daemon`` (start a helper that sleeps in a new session by a double fork, so
that it passes to init at once, then play on), ``detach`` (start a helper that sleeps in a new
session with an empty environment, as its own child, then play on). The ``hostile-*`` modes write
:data:`HOSTILE` (a terminal escape sequence and 60,000 more characters) where it may end up in a
message: ``hostile-error`` answers ``go`` with ``error HOSTILE`` and then floods 10 MB of lines,
``hostile-refusal`` answers ``game`` with it, ``hostile-name`` gives it as ``id name`` (then plays
well), ``hostile-line`` writes it instead of a move, ``hostile-move`` plays it as a move.
``--pidfile`` gets the process id (and a spawned child's or helper's id on the next line);
``--thinking`` is created when the engine starts to hang (``sleep``, ``spawn``).

This file must not import abstractgames: it stands for a program written by someone else.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

FILES = "abcdef"
HOSTILE = "\x1b]0;pwned\x07\x1b[2J" + "A" * 60_000
SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]
DOUBLE_FORK = (
    "import subprocess, sys\n"
    "quiet = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "helper = subprocess.Popen(sys.argv[1:], start_new_session=True, **quiet)\n"
    "print(helper.pid)\n"
)


def start_helper(mode: str) -> int:
    """Start a helper that escapes the process group; its process id."""
    if mode == "daemon":
        out = subprocess.run([sys.executable, "-c", DOUBLE_FORK, *SLEEPER], capture_output=True)
        return int(out.stdout)
    quiet = subprocess.DEVNULL
    helper = subprocess.Popen(
        SLEEPER, start_new_session=True, env={}, stdin=quiet, stdout=quiet, stderr=quiet
    )
    return helper.pid


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="good")
    parser.add_argument("--at", type=int, default=1)
    parser.add_argument("--pidfile")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--thinking")
    args = parser.parse_args()
    pids = [os.getpid()]
    if args.pidfile:
        with open(args.pidfile, "w") as handle:
            handle.write(f"{os.getpid()}\n")
    occupied: list[str] = []
    played = 0
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "agp":
            say("id name " + (HOSTILE if args.mode == "hostile-name" else "bad engine"))
            say("agpok")
            say("info the referee ignores info lines, also when no answer is due")
        elif command == "game":
            if args.mode == "hostile-refusal":
                say("error " + HOSTILE)
            else:
                say("gameok" if words[1] == "orderchaos" else "error only orderchaos")
        elif command == "isready":
            say("readyok")
        elif command == "position":
            moves = words[words.index("moves") + 1 :] if "moves" in words else []
            occupied = [move[-2:] for move in moves]
        elif command == "go":
            say("info thinking")
            played += 1
            now = played == args.at
            if now and args.mode in ("daemon", "detach"):
                helper = start_helper(args.mode)
                if args.pidfile:
                    with open(args.pidfile, "a") as handle:
                        handle.write(f"{helper}\n")
            if now and args.mode == "hostile-error":
                say("error " + HOSTILE)
                say(("B" * 999 + "\n") * 10_000)
                continue
            if now and args.mode in ("hostile-line", "hostile-move"):
                say(("move " if args.mode == "hostile-move" else "") + HOSTILE)
                continue
            if args.mode == "stderr":
                print(f"thinking about move {played}: " + "blah " * 50, file=sys.stderr)
            if now and args.mode == "crash":
                print("Traceback (most recent call last):\nValueError: oops", file=sys.stderr)
                return 1
            if now and args.mode in ("sleep", "spawn"):
                if args.mode == "spawn":
                    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
                    pids.append(child.pid)
                    if args.pidfile:
                        with open(args.pidfile, "a") as handle:
                            handle.write(f"{child.pid}\n")
                if args.thinking:
                    open(args.thinking, "w").close()
                time.sleep(600)
            if now and args.mode == "resign":
                say("resign")
                continue
            if now and args.mode == "slow":
                time.sleep(args.delay)
            if now and args.mode == "garbage":
                say("hello world")
                continue
            squares = [f + str(r) for r in range(1, 7) for f in FILES]
            empty = [s for s in squares if s not in occupied]
            square = occupied[0] if now and args.mode == "illegal" and occupied else empty[0]
            symbol = "XO"[len(occupied) % 2]
            if now and args.mode == "extra":
                sys.stdout.write(f"move {symbol}@{square}\nmove {symbol}@{empty[-1]}\n")
                sys.stdout.flush()
                continue
            say(f"move {symbol}@{square}")
            if now and args.mode == "exit":
                return 0
        elif command == "quit":
            if args.mode == "noquit":
                time.sleep(600)
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
