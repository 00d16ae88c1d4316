"""Exact solvers: proof searches that answer a question about a position for certain, such as
"can the side to move force a win within N moves?". There is one module per game, named after the
game's module ([`abstractgames.solvers.dispersal`][] for dispersal Entropy); a solver builds only
on its game's module, the protocol and this package, never on the bots, the referee or the
command line.

This package is the solvers' contract, what the registry, the command line and the players built
on a solver know of them (each game's solver fills these, and nothing else is asked of it):

- a solver ([`Solver`][]) answers with a [`Solution`][], the one answer of every solver, and tells
  a `progress` callback of each [`Progress`][] of its deepening;
- a [`SolverEntry`][] is a solver with the options it takes, declared (a progress callback, a
  memory bound, a checkpoint file) and whether its solutions give certificates: the command line
  reads these declarations rather than the solver's signature;
- a game's proven moves ([`ProvenMoves`][], answering a [`ProvenMove`][]) and its perfect
  strategy ([`PerfectStrategy`][], answering a [`PerfectMove`][]) are what the `proven`,
  `resist` and `perfect` players ask;
- a [`CertificateChecker`][] checks certificates in a format of a game's own, for
  `abstractgames verify`.

A plugin game gives these in its [`GameEntry`][abstractgames.registry.GameEntry]; the testing kit's
[`solver_properties`][abstractgames.testing.solver_properties] checks a solver against its game's
rules.
"""

from __future__ import annotations

from collections.abc import Callable
from os import PathLike
from typing import Any, Protocol

import attrs

from ..protocol import Game, Move, State
from ..text import counted

__all__ = [
    "CertificateChecker",
    "CertificateReport",
    "PerfectMove",
    "PerfectStrategy",
    "Progress",
    "ProvenMove",
    "ProvenMoves",
    "Solution",
    "Solver",
    "SolverEntry",
    "TableStats",
]

_OPTIONS = ("progress", "memory", "checkpoint")
"""The keyword options a solver may take, each declared in its [`SolverEntry`][]."""


@attrs.frozen
class TableStats:
    """What a solver's transposition table did.

    Attributes:
        hits: probes that answered.
        probes: probes.
        entries: entries held.
    """

    hits: int = 0
    probes: int = 0
    entries: int = 0


@attrs.frozen
class Progress:
    """One step of a solver's deepening: no forced win for `attacker` within `moves`; `str()`
    says it in a line (with the table's figures, where the solver has a table).

    Attributes:
        attacker: the role whose forced win is looked for.
        moves: the attacker's own moves now ruled out.
        nodes: the positions visited so far.
        seconds: the time taken so far.
        table: the transposition table's figures so far; `None` for a solver without one.

    Examples:
        >>> print(Progress("S", 2, 1_500, 0.5))
        no forced win for S within 2 moves (1,500 positions, 0.5 s)
        >>> print(Progress("order", 1, 9, 0.5, TableStats(1, 2, 5)))
        no forced win for Order within 1 move (9 positions, 0.5 s, 18/s, table 5 entries, 50% hits)
    """

    attacker: str
    moves: int
    nodes: int
    seconds: float
    table: TableStats | None = None

    def __str__(self) -> str:
        plural = "" if self.moves == 1 else "s"
        positions = "position" if self.nodes == 1 else "positions"
        figures = f"{self.nodes:,} {positions}, {self.seconds:.1f} s"
        if self.table is not None:
            rate = self.nodes / self.seconds if self.seconds > 0 else 0.0
            table = self.table
            hit_rate = 100 * table.hits / table.probes if table.probes else 0.0
            figures += f", {rate:,.0f}/s, table {table.entries:,} entries, {hit_rate:.0f}% hits"
        attacker = _name(self.attacker)
        return f"no forced win for {attacker} within {self.moves} move{plural} ({figures})"


def _name(role: str) -> str:
    """A role as a sentence names it (`"order"`: `"Order"`; `"S"` stays)."""
    return role[:1].upper() + role[1:]


@attrs.frozen
class Solution:
    """What a solver found, the one answer of every solver; `str()` says it in a line.

    A solver looks for a forced win of the `attacker` (the side to move, or in a game where one
    side attacks and the other holds, such as Order and Chaos, that side) within `max_moves` of
    its own moves, the fewest first. The answer is a forced win (`winner` is the attacker,
    `moves` its moves), a hold (`winner` is the other role: the attacker cannot win at all), or
    no result: no win within `max_moves`, or the time ran out first (`winner` is `None`).

    Attributes:
        position: the position solved.
        side: the side to move in it.
        attacker: the role whose forced win is looked for.
        max_moves: the most own moves the attacker's win may take.
        winner: the role proven to win with best play, or `None` where nothing is proven.
        moves: the fewest own moves the winner needs against any defence, with a forced win
            found by search; `None` otherwise (no win, a hold, or a win proven within a bound,
            `within`, rather than the fewest).
        line: a principal variation from `position`, both sides' moves, the defence resisting
            longest (a proof by a strategy: its first move, where the winner is to move); empty
            without a win.
        searched: the most own moves of the attacker within which no win exists, for certain
            (`moves - 1` with a win found by search, `max_moves` without one, less when the
            time limit stopped the search).
        nodes: the positions the solver visited.
        route: how the answer was found, where a solver has more than one way (Order and
            Chaos: `"df-pn"` or `"pairing"`); `None` for a solver with one.
        within: the most own moves the winner's strategy takes, where the solver proves a win
            by a strategy rather than finding the fewest moves (`moves` is then `None`).
        proof: the solver's own account of a proof by a strategy (Order and Chaos's pairing
            route: a [`PairingProof`][abstractgames.solvers.orderchaos.PairingProof]); its
            `str()` names it in the answer's line.
        goal: what the attacker forces, in words, for the line of a hold ("Chaos holds: Order
            cannot force five in a row").
        stopped_at: the bound being searched when the time limit stopped the search (0: none
            given; the line then says `searched + 1`).
        table: the transposition table's figures at the end; `None` for a solver without one.
        strategy: where the solver can say it, makes the winner's move (notation) in every
            position that can arise from `position` when the winner follows it and the loser
            plays anything, by position string: a certificate in the generic format of
            [`abstractgames.solvers.verify`][]. `None`: no such strategy.
        certificate: where the solver writes certificates in a format of its game's own, makes
            the bytes of this answer's (raising `ValueError` where it cannot, saying why), for
            the game's [`CertificateChecker`][]. `None`: none.

    Examples:
        >>> from abstractgames import get_game
        >>> game = get_game("orderchaos")
        >>> state = game.from_position("6/6/6/6/6/XXXX2 order")
        >>> line = (game.parse_move("X@e1", state),)
        >>> print(Solution(state.position(), "order", "order", 3, "order", 1, line, 0))
        Order wins in 1 move: X@e1
    """

    position: str
    side: str
    attacker: str
    max_moves: int
    winner: str | None
    moves: int | None
    line: tuple[Move, ...] = ()
    searched: int = 0
    nodes: int = attrs.field(default=0, eq=False)
    route: str | None = None
    within: int | None = None
    proof: object = attrs.field(default=None, eq=False, repr=False)
    goal: str = attrs.field(default="a win", eq=False, repr=False)
    stopped_at: int = attrs.field(default=0, eq=False)
    table: TableStats | None = attrs.field(default=None, eq=False)
    strategy: Callable[[], dict[str, str]] | None = attrs.field(default=None, eq=False, repr=False)
    certificate: Callable[[], bytes] | None = attrs.field(default=None, eq=False, repr=False)

    @property
    def won(self) -> bool:
        """Whether the attacker has a forced win."""
        return self.winner is not None and self.winner == self.attacker

    @property
    def holds(self) -> bool:
        """Whether the other side holds for certain: the attacker cannot force a win at all."""
        return self.winner is not None and self.winner != self.attacker

    @property
    def complete(self) -> bool:
        """Whether the answer is final (a result proven, or no win within `max_moves` for
        certain)."""
        return self.winner is not None or self.searched >= self.max_moves

    def __str__(self) -> str:
        attacker = _name(self.attacker)
        if self.winner is not None and self.within is not None:
            winner = _name(self.winner)
            how = "" if self.proof is None else f", proved by {self.proof},"
            first = f"; first move {self.line[0]}" if self.line else ""
            return f"{winner} wins{how} within {counted(self.within, f'{winner} move')}{first}"
        if self.won and self.moves is not None:
            plural = "" if self.moves == 1 else "s"
            line = " ".join(map(str, self.line))
            return f"{attacker} wins in {self.moves} move{plural}: {line}"
        if self.winner is not None:
            holder = _name(self.winner)
            return f"{holder} holds: {attacker} cannot force {self.goal}"
        if self.complete:
            return f"no forced win for {attacker} within {self.max_moves} moves"
        ruled_out = ""
        if self.searched:
            ruled_out = f"no forced win for {attacker} within {self.searched} moves; "
        return (
            f"{ruled_out}undecided within {self.max_moves}: the time limit stopped the search at "
            f"{self.stopped_at or self.searched + 1}"
        )


class Solver(Protocol):
    """A solver: `solve(state, max_moves, time_limit, **options) -> Solution`.

    It looks for a forced win within `max_moves` of the attacker's own moves (see
    [`Solution`][]), for at most `time_limit` seconds (`None`: no limit), and takes as keywords
    the options its [`SolverEntry`][] declares, no others: `progress`, called with each
    [`Progress`][]; `memory`, a bound of its table in MB; `checkpoint`, a file its work is saved
    to and resumed from. It raises `ValueError` for a position it cannot solve (a finished game,
    another game's) and for `max_moves` < 1.
    """

    def __call__(
        self, state: State, max_moves: int, time_limit: float | None, /, *args: Any, **options: Any
    ) -> Solution: ...


@attrs.frozen
class SolverEntry:
    """A game's solver and what it declares it takes, as a
    [`GameEntry`][abstractgames.registry.GameEntry] gives it: the command line passes a solver
    only the options it declares, and says so for an option it does not.

    A plugin's entry that gives a bare function as its solver gets an entry that declares
    nothing: the function is called as `solve(state, max_moves, time_limit)`.

    Attributes:
        solve: the solver.
        progress: it takes `progress`, a callback with each [`Progress`][] of its deepening.
        memory: it takes `memory`, the bound of its transposition table in MB.
        checkpoint: it takes `checkpoint`, a file its work is saved to now and then and
            resumed from.
        certificates: each [`Solution`][] of it that proves a result gives a certificate
            (its `strategy`, or its `certificate` in the game's own format).

    Examples:
        >>> from abstractgames.solvers.dispersal import SOLVER
        >>> SOLVER.options
        ('progress',)
    """

    solve: Solver
    progress: bool = False
    memory: bool = False
    checkpoint: bool = False
    certificates: bool = False

    @property
    def options(self) -> tuple[str, ...]:
        """The keyword options the solver takes, of `progress`, `memory` and `checkpoint`."""
        declared = (self.progress, self.memory, self.checkpoint)
        return tuple(name for name, yes in zip(_OPTIONS, declared, strict=True) if yes)

    def __call__(
        self, state: State, max_moves: int, time_limit: float | None = None, **options: Any
    ) -> Solution:
        """Solve `state` with `options`, each of which the entry must declare.

        Raises:
            TypeError: an option the solver does not declare.
        """
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise TypeError(f"the solver takes no option {', '.join(unknown)}")
        return self.solve(state, max_moves, time_limit, **options)


@attrs.frozen
class ProvenMove:
    """The best move of the side to move, with the result a solver proved.

    Attributes:
        move: the best move: the fastest win for the side that wins, the longest resistance
            for the side that loses; `None` when every move is as good.
        winner: the role that wins with best play.
        moves: the own moves the winner needs (with `move` played), or `None` where the
            solver does not count them (a hold, a win at the end of the game).
        nodes: the positions the search visited for this answer.
    """

    move: Move | None
    winner: str
    moves: int | None
    nodes: int


class ProvenMoves(Protocol):
    """What a game's `proven_moves` makes, for the `proven` and `resist` players: called as
    `(state, nodes, time_limit)`, the side to move's best move with the result proven within
    `nodes` positions and `time_limit` seconds, or `None` if nothing is proven within them."""

    def __call__(
        self, state: State, nodes: int, time_limit: float | None, /
    ) -> ProvenMove | None: ...


@attrs.frozen
class PerfectMove:
    """A move of a proven winning strategy, with the part of it that chose the move.

    Attributes:
        move: the move.
        route: which part of the strategy chose it, in words (Order and Chaos: `"closing"`,
            `"pairing"` or `"centre"`).
        within: the most own moves the strategy still takes, this one included.
    """

    move: Move
    route: str
    within: int


class PerfectStrategy(Protocol):
    """What a game's `perfect_moves` makes, for the `perfect` player: a proven winning strategy
    that answers a [`PerfectMove`][] wherever it covers the position, and `None` elsewhere."""

    def __call__(self, state: State, time_limit: float | None = None, /) -> PerfectMove | None:
        """The strategy's move in `state`, or `None` where it does not cover it, or where it
        could not answer within `time_limit` seconds (`None`: no limit)."""
        ...

    def prepare(self) -> None:
        """Do now the work the strategy needs before it can answer (the `perfect` player calls
        it when it is made, so that no move's clock pays for it); nothing, for most."""
        ...

    def reason(self, state: State, /) -> str:
        """Why the strategy does not cover `state`, in words."""
        ...


class CertificateReport(Protocol):
    """What a [`CertificateChecker`][] confirmed: the claim checked, and `str()` saying what was
    proven and how."""

    @property
    def position(self) -> str:
        """The position of the claim."""
        ...

    @property
    def winner(self) -> str:
        """The role the claim says wins."""
        ...


class CertificateChecker(Protocol):
    """What a game's `certificate_checker` is: the checker of certificates in a format of its
    own, for `abstractgames verify`.

    Attributes:
        magic: the first bytes of every file in the format (how `verify` finds the checker).
    """

    @property
    def magic(self) -> bytes: ...

    def verify_file(self, path: str | PathLike[str], game: Game, /) -> CertificateReport:
        """Read and check the certificate at `path` for `game` by the rules alone.

        Raises:
            OSError: the file cannot be read.
            ValueError: it is not such a certificate, or does not prove its claim (with what
                fails).
        """
        ...
