"""A worker process: one player from outside (a bot from a file or module, a plugin's player),
served over our engine protocol on standard input and output for an
[`IsolatedPlayer`][abstractgames.registry.isolation.IsolatedPlayer].

`python -m abstractgames worker PATH SPEC [LIMITS]` (`abstractgames.__main__` runs it): `PATH`
is the referee's import path (JSON), so that the same modules are found; `SPEC` the player, made
in this process; `LIMITS` its resource limits (JSON: `memory`, `cpu`, `files`, see
[`Limits`][abstractgames.registry.sandbox.Limits]). Before anything of the bot is loaded, the
worker shuts itself in ([`confine`][abstractgames.registry.sandbox.confine]): on Linux it can no
longer signal, trace or read other processes, nor start any. The protocol's input and output
are kept out of the bot's reach ([`private_stdio`][]: its `print` goes to standard error, which
is the worker's log); the bot is told the game through its hooks; any error of its code,
`SystemExit` and `KeyboardInterrupt` included, is answered with `error TYPE: MESSAGE (at FILE,
line N)`, which the referee scores as a forfeit.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from ..engines.agp import serve
from ..engines.external import private_stdio
from .games import parse_game_spec
from .players import make_in_process
from .sandbox import Limits, SandboxError, confine

__all__ = ["main"]

_MESSAGE_LIMIT = 2000
"""The most characters of an error message the worker sends (a message naming a file twice)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the player of `argv` (`[PATH, SPEC]` or `[PATH, SPEC, LIMITS]`, by default the
    command line's), sandboxed; return the exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    if len(words) not in (2, 3):
        print("usage: python -m abstractgames worker PATH SPEC [LIMITS]", file=sys.stderr)
        return 2
    path, spec = words[:2]
    sys.path[:] = [entry for entry in json.loads(path) if isinstance(entry, str)]
    limits = Limits(**json.loads(words[2])) if len(words) == 3 else Limits()
    try:
        confine(limits)
    except SandboxError as error:
        print(f"the worker cannot be sandboxed: {error.strerror or error}", file=sys.stderr)
        return 3
    with private_stdio() as (lines, output):
        return serve(
            lambda game: make_in_process(spec, game),
            lines,
            output,
            read_game=parse_game_spec,
            name=f"abstractgames worker {spec}",
            hooks=True,
            contain=True,
            limit=_MESSAGE_LIMIT,
        )
