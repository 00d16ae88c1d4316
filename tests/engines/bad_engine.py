"""An Order and Chaos engine for the abstractgames engine protocol that misbehaves on request.

It plays on the first empty square (X and O in turn) and breaks the rules when told:

    python bad_engine.py [--mode MODE] [--at N] [--pidfile PATH]

MODE is what happens at its N-th move (default 1): ``good`` (nothing), ``crash`` (a traceback and
status 1), ``sleep`` (hang), ``spawn`` (start a child that sleeps, then hang), ``garbage`` (a line
that is no answer), ``illegal`` (an occupied square), ``extra`` (a second line after the move),
``exit`` (status 0 right after the move, before ``quit``), ``stderr`` (chatter on standard error at
every move, otherwise good), ``noquit`` (ignore ``quit``), ``resign``, ``slow`` (think for
``--delay`` seconds). ``--pidfile`` gets the process id (and a spawned child's id on the next
line).

This file must not import abstractgames: it stands for a program written by someone else.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

FILES = "abcdef"


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="good")
    parser.add_argument("--at", type=int, default=1)
    parser.add_argument("--pidfile")
    parser.add_argument("--delay", type=float, default=0.0)
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
            say("id name bad engine")
            say("agpok")
            say("info the referee ignores info lines, also when no answer is due")
        elif command == "game":
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
