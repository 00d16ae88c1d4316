"""Speed measurements: random games per second through the public protocol, game extras, and
the moves per second of players on fixed positions.

Every figure is the median of several repeats; nothing here is a pass/fail test.

Examples:
    >>> results = run_benchmarks(["orderchaos"], games=20, repeats=1)
    >>> results[0].game
    'orderchaos'
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Sequence

import attrs

from .protocol import CHANCE, AbstractGamesError, Game, State, random_move
from .registry import make_player, parse_game_spec
from .text import excerpt, value_excerpt

__all__ = [
    "PHASES",
    "BenchError",
    "GameBenchmark",
    "Measurement",
    "phase_positions",
    "play_random_games",
    "run_benchmarks",
    "run_vector_benchmarks",
    "sample_positions",
    "vector_games_per_second",
]


class BenchError(AbstractGamesError):
    """A measurement that cannot be made: a player failed on a position."""


@attrs.frozen
class Measurement:
    """Rates (items per second) of the repeats of one measurement."""

    unit: str
    runs: tuple[float, ...]
    depths: tuple[float, ...] = ()
    """For a search's nodes per second by phase: the mean depth it reached in each repeat."""

    @property
    def median(self) -> float:
        return statistics.median(self.runs)

    def to_json(self) -> dict[str, object]:
        found: dict[str, object] = {
            "unit": self.unit,
            "median": self.median,
            "runs": list(self.runs),
        }
        if self.depths:
            found["depth"] = statistics.median(self.depths)
            found["depths"] = list(self.depths)
        return found


@attrs.frozen
class GameBenchmark:
    """All measurements of one game."""

    game: str
    measurements: tuple[Measurement, ...]

    def to_json(self) -> dict[str, object]:
        return {"game": self.game, "measurements": [m.to_json() for m in self.measurements]}


def play_random_games(game: Game, games: int, rng: random.Random) -> int:
    """Play `games` games with random legal moves (chance by its odds); return the plies played.

    Each ply goes through the public protocol only: `outcome()`, `legal_moves()` (or the
    chance outcomes), a random choice, and `apply()`.
    """
    choice = rng.choice
    plies = 0
    for _ in range(games):
        state = game.initial_state()
        while state.outcome() is None:
            if state.to_move == CHANCE:
                move = random_move(state, rng)
            else:
                move = choice(state.legal_moves())
            state = state.apply(move)
            plies += 1
    return plies


def sample_positions(game: Game, count: int, rng: random.Random) -> list[State]:
    """`count` positions of random games, 4 to 30 plies in, where a player is to move."""
    positions: list[State] = []
    while len(positions) < count:
        state = game.initial_state()
        for _ in range(rng.randrange(4, 31)):
            if state.is_terminal():
                break
            state = state.apply(random_move(state, rng))
        while state.is_chance():
            state = state.apply(random_move(state, rng))
        if not state.is_terminal():
            positions.append(state)
    return positions


PHASES = ("opening", "middle game", "endgame")
"""The thirds of a game, by the plies played, in which `bench` measures a search."""


def phase_positions(game: Game, per_phase: int, rng: random.Random) -> dict[str, list[State]]:
    """`per_phase` positions of seeded random games in each of the [`PHASES`][]: a position a
    player is to move in, from the first, second or last third of its game's plies."""
    found: dict[str, list[State]] = {phase: [] for phase in PHASES}
    while min(map(len, found.values())) < per_phase:
        state = game.initial_state()
        seen = []
        while not state.is_terminal():
            if not state.is_chance():
                seen.append(state)
            state = state.apply(random_move(state, rng))
        if len(seen) < len(PHASES):
            continue
        for third, phase in enumerate(PHASES):
            if len(found[phase]) < per_phase:
                start, stop = third * len(seen) // 3, (third + 1) * len(seen) // 3
                found[phase].append(seen[rng.randrange(start, stop)])
    return found


def _search_measurements(
    game: Game, spec: str, positions: int, repeats: int, seed: int, clock: Callable[[], float]
) -> list[Measurement]:
    """Nodes per second and the depth reached, by phase, of a player that reports them in its
    `info` (a search); nothing for the others."""
    player = make_player(spec, game)
    try:
        sample = phase_positions(game, max(1, positions // len(PHASES)), random.Random(seed))
        rates: dict[str, list[float]] = {phase: [] for phase in PHASES}
        depths: dict[str, list[float]] = {phase: [] for phase in PHASES}
        for _ in range(repeats):
            for phase, states in sample.items():
                nodes = 0
                reached = []
                elapsed = 0.0
                for index, state in enumerate(states):
                    start = clock()
                    try:
                        player.choose(state, random.Random(index))
                    except Exception as error:  # a failing program or a bot's own bug
                        raise BenchError(
                            f"player {value_excerpt(spec)} failed in {state.position()}: "
                            f"{type(error).__name__}: {excerpt(error, 200)}"
                        ) from error
                    elapsed += clock() - start
                    info = player.info
                    if info is None or info.nodes is None:
                        return []
                    nodes += info.nodes
                    reached.append(info.depth)
                rates[phase].append(nodes / elapsed if elapsed > 0 else 0.0)
                depths[phase].append(statistics.mean(reached))
    finally:
        player.close()
    return [
        Measurement(
            f"{spec} {phase} (depth {statistics.median(depths[phase]):.1f}) nodes",
            tuple(rates[phase]),
            tuple(depths[phase]),
        )
        for phase in PHASES
    ]


def _player_run(game: Game, spec: str, positions: list[State]) -> Callable[[], int]:
    make_player(spec, game).close()  # a bad spec fails before anything is measured

    def run() -> int:
        player = make_player(spec, game)  # afresh, so that no repeat reuses another's tables
        try:
            for index, state in enumerate(positions):
                try:
                    player.choose(state, random.Random(index))
                except Exception as error:  # a failing program or a bot's own bug
                    raise BenchError(
                        f"player {value_excerpt(spec)} failed in {state.position()}: "
                        f"{type(error).__name__}: {excerpt(error, 200)}"
                    ) from error
        finally:
            player.close()
        return len(positions)

    return run


def _rate(run: Callable[[], int], clock: Callable[[], float]) -> float:
    start = clock()
    items = run()
    return items / (clock() - start)


def run_benchmarks(
    specs: Sequence[str],
    *,
    games: int = 2000,
    repeats: int = 5,
    seed: int = 0,
    players: Sequence[str] = (),
    positions: int = 50,
    clock: Callable[[], float] = time.perf_counter,
) -> list[GameBenchmark]:
    """Measure each game in `specs` (names or `name:key=value` specs); `repeats` runs each.

    Each player spec in `players` (e.g. `"search:depth=2"`) also chooses a move in
    `positions` positions of seeded random games: a fixed-depth search then measures the bot's
    speed (its nodes per second are proportional), the same work on any machine. A player that
    reports its nodes (a search: `Player.info`) is also measured by phase of the game, on
    `positions` more positions shared out over the [`PHASES`][]: its nodes per second, and the
    mean depth it reached (in the measurement's unit and its `depths`).
    """
    results = []
    for spec in specs:
        game = parse_game_spec(spec)
        game_rates, ply_rates = [], []
        for repeat in range(repeats):
            rng = random.Random(seed + repeat)
            start = clock()
            plies = play_random_games(game, games, rng)
            elapsed = clock() - start
            game_rates.append(games / elapsed)
            ply_rates.append(plies / elapsed)
        measurements = [
            Measurement("random games", tuple(game_rates)),
            Measurement("plies of random games", tuple(ply_rates)),
        ]
        extras = game.benchmarks(random.Random(seed))
        for unit, run in extras.items():
            measurements.append(Measurement(unit, tuple(_rate(run, clock) for _ in range(repeats))))
        if players:
            sample = sample_positions(game, positions, random.Random(seed))
            runs = {player: _player_run(game, player, sample) for player in players}
            for player in players:
                measurements += _search_measurements(game, player, positions, repeats, seed, clock)
            for player, run in runs.items():
                rates = tuple(_rate(run, clock) for _ in range(repeats))
                measurements.append(Measurement(f"moves by {player}", rates))
        results.append(GameBenchmark(game.spec, tuple(measurements)))
    return results


# --- batched simulation (`abstractgames bench --vector`) ------------------------------------------

VECTOR_SIZES = (1, 64, 1024, 4096)
"""The batch sizes `abstractgames bench --vector` measures."""


def vector_games_per_second(
    game: Game,
    batch_size: int,
    *,
    seed: int = 0,
    min_games: int = 0,
    min_seconds: float = 0.5,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[float, int]:
    """Random games per second of the batched simulator of `game` with `batch_size` lanes, and
    its bytes per lane.

    Every lane plays uniformly random legal actions; a finished lane starts a new game at once
    (automatic reset). The count runs until at least `max(min_games, 2 * batch_size)` games
    have finished and `min_seconds` have passed, on one thread.

    Raises:
        BenchError: the game has no batched simulator.
    """
    from .registry import vector_for

    factory = vector_for(game)
    if factory is None:
        raise BenchError(f"{game.spec} has no batched simulator")
    batch = factory(batch_size, seed=seed, game=game)
    target = max(min_games, 2 * batch_size)
    finished = 0
    start = clock()
    elapsed = 0.0
    while finished < target or elapsed < min_seconds:
        batch.step(batch.random_actions(), check=False)
        finished += batch.reset_done()
        elapsed = clock() - start
    return finished / elapsed, int(batch.bytes_per_lane)


def run_vector_benchmarks(
    specs: Sequence[str],
    *,
    sizes: Sequence[int] = VECTOR_SIZES,
    games: int = 2000,
    repeats: int = 3,
    seed: int = 0,
    min_seconds: float = 0.5,
) -> dict[str, dict[str, object]]:
    """Random games per second of the scalar protocol and of the batched simulator at each
    batch size in `sizes`, for each game spec: `{spec: {"scalar": rate, "vector": {"1": rate,
    …}, "bytes_per_lane": n}}` (medians of `repeats`; `games` scalar games per repeat)."""
    results: dict[str, dict[str, object]] = {}
    for spec in specs:
        game = parse_game_spec(spec)
        scalar = []
        for repeat in range(repeats):
            rng = random.Random(seed + repeat)
            start = time.perf_counter()
            play_random_games(game, games, rng)
            scalar.append(games / (time.perf_counter() - start))
        vector: dict[str, float] = {}
        size = 0
        for batch_size in sizes:
            runs = []
            for repeat in range(repeats):
                rate, size = vector_games_per_second(
                    game, batch_size, seed=seed + repeat, min_seconds=min_seconds
                )
                runs.append(rate)
            vector[str(batch_size)] = statistics.median(runs)
        results[game.spec] = {
            "scalar": statistics.median(scalar),
            "vector": vector,
            "bytes_per_lane": size,
        }
    return results
