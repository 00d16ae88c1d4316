"""A property-based conformance kit for games and players on the shared protocol (needs
`hypothesis`).

Use it on our games and bots or on your own implementation of [`Game`][] or
[`Player`][]:

- [`states`][] and [`moves`][] are hypothesis strategies: states reached by random legal play
  (chance events drawn with their probabilities) and legal moves of a state;
- [`check_game`][] runs every protocol property on a game and raises `AssertionError` (via
  hypothesis, with a minimal failing example) when one fails;
- [`conformance_properties`][] returns the same properties by name, so a pytest suite can
  parametrize over them and see each one pass or fail on its own;
- [`check_player`][] and [`player_properties`][] do the same for a player in a game: legal
  moves, an untouched state, the same move for the same seed, an answer within a time budget, and
  a clear refusal of a finished game or a chance node;
- [`check_solver`][] and [`solver_properties`][] do the same for a game's exact solver (see
  [`abstractgames.solvers`][]), on positions near the end of random games: what it claims agrees
  with the rules (its principal variation played out, its strategy or certificate checked by the
  rules alone, no faster win within fewer moves), it counts the positions it visits, and it
  honours the options its [`SolverEntry`][abstractgames.solvers.SolverEntry] declares.

A game that declares integer actions ([`Game.num_distinct_actions`][]) and observations
([`Game.observation_shape`][]) has them checked too: every legal move round-trips through its
action, `legal_actions()` is the legal moves' actions sorted, an action out of range is refused,
and observations have the declared size, values in `[0, 1]` and no answer for an unknown role.

Examples:
    >>> from abstractgames import get_game
    >>> from abstractgames.testing import check_game, check_player
    >>> check_game(get_game("orderchaos"), max_examples=5)
    >>> check_player("random", get_game("orderchaos"), max_examples=5)
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import os
import random
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from .players import InvalidPlayerError, Player
from .protocol import (
    CHANCE,
    AbstractGamesError,
    Game,
    IllegalMoveError,
    InvalidParameterError,
    InvalidPositionError,
    Move,
    State,
    random_move,
)
from .registry import (
    build_player,
    certificate_checker_for,
    make_in_process,
    parse_game_spec,
    solver_entry_for,
)
from .solvers import Progress, Solution, Solver, SolverEntry
from .solvers.verify import Certificate, check_certificate

__all__ = [
    "check_game",
    "check_player",
    "check_solver",
    "conformance_properties",
    "moves",
    "player_properties",
    "playout",
    "solver_properties",
    "states",
]


def playout(state: State, rng: random.Random, max_plies: int | None = None) -> list[State]:
    """Play random legal moves from `state`; return every state visited, `state` first.

    Stops when the game is over or after `max_plies` plies.
    """
    visited = [state]
    while not state.is_terminal() and (max_plies is None or len(visited) <= max_plies):
        state = state.apply(random_move(state, rng))
        visited.append(state)
    return visited


def states(
    game: Game, max_plies: int | None = None, starts: Sequence[State] = ()
) -> st.SearchStrategy[State]:
    """States reached by random legal play (terminal states included) from the start, or from
    one of `starts` (the positions themselves included)."""
    limit = game.max_length if max_plies is None else max_plies
    origins = list(starts) or [game.initial_state()]

    @st.composite
    def strategy(draw: st.DrawFn) -> State:
        origin = draw(st.sampled_from(origins))
        plies = draw(st.integers(min_value=0, max_value=limit))
        rng = draw(st.randoms(use_true_random=False))
        return playout(origin, rng, plies)[-1]

    return strategy()


def moves(state: State) -> st.SearchStrategy[Move]:
    """The legal moves of `state` (the strategy is empty at a terminal state)."""
    legal = state.legal_moves()
    return st.sampled_from(legal) if legal else st.nothing()


_POSITION_NOISE = "0123456789/ :-@abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _snapshot(state: State) -> tuple[object, ...]:
    outcome = state.outcome()
    return (state.position(), hash(state), state.to_move, state.legal_moves(), outcome)


def _numpy_installed() -> bool:
    return importlib.util.find_spec("numpy") is not None


def _kit_settings(max_examples: int) -> settings:
    """The hypothesis settings of the kits: no deadline, no database, slow and
    filtered examples allowed, and no explaining phase (explaining which parts of a random game
    matter replays it hundreds of times, slowly)."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
        database=None,
        report_multiple_bugs=False,
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
    )


def conformance_properties(
    game: Game | str, *, max_examples: int = 100, starts: Sequence[State] = ()
) -> dict[str, Callable[[], None]]:
    """The protocol properties for `game` (a game or its spec), by name; call each to run it
    with hypothesis, on states of random games from the start, or from `starts` if any (the
    properties of whole games, such as termination, always play from the start)."""
    if isinstance(game, str):
        game = parse_game_spec(game)
    config = _kit_settings(max_examples)
    any_state = states(game, starts=starts)

    @config
    @given(any_state, st.data())
    def apply_never_mutates(state: State, data: st.DataObject) -> None:
        if state.is_terminal():
            return
        move = data.draw(moves(state))
        before = _snapshot(state)
        child = state.apply(move)
        assert _snapshot(state) == before, f"apply({move}) changed {before[0]}"
        assert child is not state
        if not child.is_terminal():
            child.apply(random_move(child, random.Random(0)))
        assert _snapshot(state) == before, f"applying to the child of {before[0]} changed it"

    @config
    @given(any_state)
    def legal_moves_round_trip(state: State) -> None:
        legal = state.legal_moves()
        assert isinstance(legal, tuple)
        assert legal == state.legal_moves(), "legal_moves() is not stable"
        texts = [str(m) for m in legal]
        assert len(set(texts)) == len(texts), f"duplicate moves in {state.position()}"
        for move, text in zip(legal, texts, strict=True):
            parsed = game.parse_move(text, state)
            assert parsed == move, f"{text!r} parses to {parsed!r}, not {move!r}"
            assert hash(parsed) == hash(move)
            try:
                assert state.apply(move) == state.apply(text)
            except AbstractGamesError as error:
                raise AssertionError(
                    f"legal {move} refused in {state.position()}: {error}"
                ) from None

    @config
    @given(any_state)
    def position_round_trip(state: State) -> None:
        # Only the position must survive: history a game keeps beside it (e.g. for repetition
        # draws) is not part of the position string, so a reread state may continue differently.
        text = state.position()
        again = game.from_position(text)
        assert again == state, f"{text!r} reads back as {again.position()!r}"
        assert hash(again) == hash(state)
        assert again.position() == text
        assert state.game == game

    @config
    @given(st.randoms(use_true_random=False))
    def playouts_end_within_max_length(rng: random.Random) -> None:
        visited = playout(game.initial_state(), rng, game.max_length + 1)
        assert visited[-1].is_terminal(), f"no end after {game.max_length} plies"
        assert len(visited) - 1 <= game.max_length

    @config
    @given(any_state)
    def outcome_exactly_at_terminal(state: State) -> None:
        outcome = state.outcome()
        assert state.to_move is None or state.to_move == CHANCE or state.to_move in game.roles
        if state.to_move is None:
            assert outcome is not None, f"{state.position()}: no one to move but no outcome"
            assert state.legal_moves() == ()
            assert outcome.winner is None or outcome.winner in game.roles
            assert set(outcome.scores) == set(game.roles)
            assert outcome.reason
            try:
                state.apply(random_move(game.initial_state(), random.Random(0)))
            except IllegalMoveError:
                pass
            else:
                raise AssertionError(f"a move was accepted after the end in {state.position()}")
        else:
            assert outcome is None, f"{state.position()}: outcome while {state.to_move} moves"
            assert state.legal_moves(), f"{state.position()}: no legal move and no outcome"

    @config
    @given(any_state)
    def chance_outcomes_are_probabilities(state: State) -> None:
        if state.to_move != CHANCE:
            return
        outcomes = state.chance_outcomes()
        assert tuple(m for m, _ in outcomes) == state.legal_moves()
        assert all(p > 0 for _, p in outcomes)
        assert math.isclose(sum(p for _, p in outcomes), 1.0, rel_tol=1e-9)

    @config
    @given(st.integers(min_value=0, max_value=2**32))
    def same_seed_same_game(seed: int) -> None:
        first = [s.position() for s in playout(game.initial_state(), random.Random(seed))]
        second = [s.position() for s in playout(game.initial_state(), random.Random(seed))]
        assert first == second

    @config
    @given(any_state, any_state)
    def apply_accepts_exactly_legal_moves(state: State, other: State) -> None:
        legal = set(state.legal_moves())
        for move in other.legal_moves()[:20]:
            try:
                state.apply(move)
            except IllegalMoveError as error:
                assert move not in legal, f"legal {move} refused in {state.position()}: {error}"
                assert str(move) in str(error) or state.is_terminal(), str(error)
            else:
                assert move in legal, f"{move} is not legal but accepted in {state.position()}"

    @config
    @given(any_state, st.text(max_size=30))
    def junk_text_raises_only_our_errors(state: State, text: str) -> None:
        with contextlib.suppress(IllegalMoveError):
            game.parse_move(text, state)
        with contextlib.suppress(IllegalMoveError):
            state.apply(text)
        try:
            parsed = game.from_position(text)
        except InvalidPositionError:
            pass
        else:
            assert game.from_position(parsed.position()) == parsed

    @config
    @given(any_state, st.data())
    def mangled_positions_raise_only_our_errors(state: State, data: st.DataObject) -> None:
        text = state.position()
        index = data.draw(st.integers(min_value=0, max_value=len(text)))
        insert = data.draw(st.text(alphabet=_POSITION_NOISE, max_size=3))
        cut = data.draw(st.integers(min_value=0, max_value=3))
        mangled = text[:index] + insert + text[index + cut :]
        try:
            parsed = game.from_position(mangled)
        except AbstractGamesError as error:
            assert isinstance(error, InvalidPositionError), repr(error)
        else:
            assert parsed.position() == game.from_position(parsed.position()).position()

    @config
    @given(any_state, st.integers(min_value=-3, max_value=10**4))
    def actions_round_trip(state: State, stray: int) -> None:
        # Games without integer actions (num_distinct_actions == 0) have nothing to check here.
        if game.num_distinct_actions <= 0:
            return
        chance = state.to_move == CHANCE
        limit = game.max_chance_outcomes if chance else game.num_distinct_actions
        actions = []
        for move in state.legal_moves():
            action = game.action_of(move)
            assert type(action) is int, f"action_of({move}) is {action!r}, not an int"
            assert 0 <= action < limit, f"action_of({move}) = {action} is not in 0..{limit - 1}"
            again = game.move_of(action, state)
            assert again == move, f"move_of({action}) is {again}, not {move}"
            assert state.apply_action(action) == state.apply(move)
            actions.append(action)
        assert len(set(actions)) == len(actions), f"two moves share an action in {state.position()}"
        assert state.legal_actions() == tuple(sorted(actions)), "legal_actions() != legal moves'"
        if chance:
            pairs = {game.action_of(m): p for m, p in state.chance_outcomes()}
            assert state.chance_actions() == tuple(sorted(pairs.items()))
        for bad in (-1, limit, stray):
            if bad in actions:
                continue
            try:
                state.apply_action(bad)
            except IllegalMoveError:
                pass  # InvalidMoveError (no such action) is one too
            else:
                raise AssertionError(f"action {bad} accepted in {state.position()}")

    @config
    @given(any_state)
    def observations_well_formed(state: State) -> None:
        # Games without observations (an empty observation_shape) have nothing to check here.
        shape = game.observation_shape
        if not shape:
            return
        size = math.prod(shape)
        for role in game.roles:
            values = state.observation(role)
            assert len(values) == size, f"{len(values)} values, not {size} for shape {shape}"
            assert all(isinstance(v, float) and 0.0 <= v <= 1.0 for v in values), (
                f"an observation of {state.position()} is outside [0, 1]"
            )
            assert state.observation(role) == values, "observation() is not deterministic"
            if _numpy_installed():
                tensor = state.observation_tensor(role)
                assert tensor.shape == shape, f"observation_tensor shape {tensor.shape} != {shape}"
                flat = tensor.ravel().tolist()  # float32: equal to about 7 digits
                assert all(abs(a - b) <= 1e-6 for a, b in zip(flat, values, strict=True))
        try:
            state.observation("nobody")
        except InvalidParameterError:
            pass
        else:
            raise AssertionError("observation('nobody') did not raise InvalidParameterError")
        returns = state.returns()
        assert set(returns) == set(game.roles)
        low, high = game.returns_range
        if state.is_terminal():
            assert all(low <= r <= high for r in returns.values()), f"returns {returns}"
        else:
            assert all(r == 0 for r in returns.values()), f"returns {returns} before the end"

    properties: list[Callable[[], None]] = [
        apply_never_mutates,
        legal_moves_round_trip,
        position_round_trip,
        playouts_end_within_max_length,
        outcome_exactly_at_terminal,
        chance_outcomes_are_probabilities,
        same_seed_same_game,
        apply_accepts_exactly_legal_moves,
        junk_text_raises_only_our_errors,
        mangled_positions_raise_only_our_errors,
        actions_round_trip,
        observations_well_formed,
    ]
    return {p.__name__: p for p in properties}


def check_game(game: Game | str, *, max_examples: int = 100) -> None:
    """Run every conformance property on `game` (a game or its spec, e.g. `"mygame"`); raise
    `AssertionError` on the first failure."""
    if isinstance(game, str):
        game = parse_game_spec(game)
    for name, prop in conformance_properties(game, max_examples=max_examples).items():
        try:
            prop()
        except AssertionError:
            raise
        except Exception as error:
            raise AssertionError(f"{name} failed on {game!r}: {error!r}") from error


# --- players --------------------------------------------------------------------------------------

_TIMED_EXAMPLES = 5
"""The most examples [`player_properties`][] times (each may take the whole budget)."""


class _Seats:
    """Makes the players the properties use, from a spec, a factory or one given player.

    A player it makes is closed after use; a player it is given belongs to the caller.
    """

    def __init__(self, player: str | Player | Callable[[Game], Player], game: Game) -> None:
        self.given: Player | None = None
        if isinstance(player, Player):
            self.given = player
            self.name = repr(player)
        elif isinstance(player, str):
            self.name = f"player {player.strip()!r}"
        elif callable(player):
            self.name = f"player {getattr(player, '__qualname__', repr(player))}"
        else:
            raise InvalidPlayerError(
                f"{player!r} is not a player, a player spec or a function making a player"
            )
        self.player = player
        self.game = game

    def _make(self) -> Player:
        if isinstance(self.player, str):  # in this process, where the kit can watch it
            return make_in_process(self.player, self.game)
        assert callable(self.player)
        return build_player(self.player, self.game, what=self.name)

    @contextlib.contextmanager
    def fresh(self) -> Iterator[Player]:
        """A new player (the given one, if the kit was given a player), closed afterwards."""
        if self.given is not None:
            yield self.given
            return
        player = self._make()
        try:
            yield player
        finally:
            player.close()


def _has_a_player_to_move(state: State) -> bool:
    return not state.is_terminal() and not state.is_chance()


def _finished_games(game: Game) -> st.SearchStrategy[State]:
    """Final states of random games."""
    return (
        st.randoms(use_true_random=False)
        .map(lambda rng: playout(game.initial_state(), rng, game.max_length)[-1])
        .filter(State.is_terminal)
    )


def _chance_nodes(game: Game) -> st.SearchStrategy[State | None]:
    """Chance nodes of random games; `None` for a game that met none."""

    @st.composite
    def strategy(draw: st.DrawFn) -> State | None:
        rng = draw(st.randoms(use_true_random=False))
        found = [s for s in playout(game.initial_state(), rng, game.max_length) if s.is_chance()]
        return draw(st.sampled_from(found)) if found else None

    return strategy()


_SNAPSHOT_FIELDS = ("position", "hash", "player to move", "legal moves", "outcome", "description")


def _full_snapshot(state: State) -> tuple[object, ...]:
    """What `_snapshot` takes, and `describe()` (it shows what the position leaves out,
    such as a ply count)."""
    return (*_snapshot(state), state.describe())


def player_properties(
    player: str | Player | Callable[[Game], Player],
    game: Game | str,
    *,
    max_examples: int = 50,
    time_budget: float = 1.0,
    slack: float = 2.0,
    starts: Sequence[State] = (),
) -> dict[str, Callable[[], None]]:
    """The properties every player keeps in `game`, by name; call each to run it with hypothesis.

    - `plays_only_legal_moves`: `choose` returns one of `state.legal_moves()`, with
      `time_left` `None` or `time_budget`;
    - `never_mutates_the_state`: the state's position, hash, player to move, legal moves,
      outcome and `describe()` are the same after `choose`;
    - `same_seed_same_move`: two players given `random.Random(seed)` with the same seed choose
      the same move, and neither draws from the `random` module's global generator;
    - `answers_within_the_time_budget`: with `time_left=time_budget`, `choose` returns
      within `time_budget + slack` seconds;
    - `refuses_finished_games` and `refuses_chance_nodes`: `choose` raises [`IllegalMoveError`][]
      for a finished game or a chance node, rather than return a move or raise anything else (the
      referee never asks there: the refusal makes a mistake in whatever drives the player a clear
      error).

    The positions are drawn with [`states`][], those with a player to move (the refusals take
    the ends of random games and their chance nodes). The kit calls only
    [`choose`][abstractgames.players.Player.choose], with a fresh `random.Random(seed)` each time,
    as the referee does.

    Args:
        player: the player: a spec for [`make_player`][] (`"greedy"`,
            `"mybot.py:MyBot"`), made in this process (as `inprocess:SPEC`, even a bot from a
            file or a plugin's player: only there can the kit see the state it is given, the
            time it takes and the `random` module's global generator); a function or `Player`
            class that makes one from the game (called as `make_player` calls a class:
            `MyBot(game)`, or `MyBot()`); or a `Player` itself. The kit makes a fresh player
            for each property, and two per example of `same_seed_same_move`, and closes them;
            a `Player` you give is used for every example and not closed (give a spec or a
            factory if your player keeps something from one move to the next).
        game: the game, or its spec (`"entropy:size=5"`).
        max_examples: hypothesis examples per property (at most 5 for the time budget, each of
            which may take the whole budget). A search player should get a fixed depth or a
            short time per move, or the properties take long.
        time_budget: the `time_left`, in seconds, that the player is given on a clock.
        slack: seconds beyond `time_budget` that an answer may take (a generous conformance
            bound for a loaded machine, not a benchmark).
        starts: positions the random games start from (a puzzle, an opening the player
            should handle), instead of the game's start.

    Returns:
        The properties by name, each a function without arguments that raises
        `AssertionError` (with hypothesis's smallest failing example) when the player fails it.

    Raises:
        InvalidPlayerError: `player` is not a player, or its spec or factory makes none.
        UnknownGameError: `game` is a spec naming no game.

    Examples:
        >>> from abstractgames.testing import player_properties
        >>> sorted(player_properties("random", "orderchaos"))  # doctest: +NORMALIZE_WHITESPACE
        ['answers_within_the_time_budget', 'never_mutates_the_state', 'plays_only_legal_moves',
         'refuses_chance_nodes', 'refuses_finished_games', 'same_seed_same_move']
    """
    if isinstance(game, str):
        game = parse_game_spec(game)
    seats = _Seats(player, game)
    with seats.fresh():  # a spec that makes no player fails here, not in a property
        pass
    who = seats.name
    config = _kit_settings(max_examples)
    # Shrinking a slow answer would cost the whole budget at each try.
    timed = settings(
        config,
        max_examples=min(max_examples, _TIMED_EXAMPLES),
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
    )
    turns = states(game, starts=starts).filter(_has_a_player_to_move)
    seeds = st.integers(min_value=0, max_value=2**32)
    clocks = st.sampled_from([None, time_budget])

    def plays_only_legal_moves() -> None:
        with seats.fresh() as bot:

            @config
            @given(turns, seeds, clocks)
            def check(state: State, seed: int, time_left: float | None) -> None:
                move = bot.choose(state, random.Random(seed), time_left)
                assert move in state.legal_moves(), (
                    f"{who} chose {move!r}, which is not a legal move in {state.position()!r}"
                )

            check()

    def never_mutates_the_state() -> None:
        with seats.fresh() as bot:

            @config
            @given(turns, seeds)
            def check(state: State, seed: int) -> None:
                before = _full_snapshot(state)
                bot.choose(state, random.Random(seed))
                after = _full_snapshot(state)
                changed = [
                    f for f, b, a in zip(_SNAPSHOT_FIELDS, before, after, strict=True) if b != a
                ]
                assert not changed, (
                    f"{who} changed the {', '.join(changed)} of the state it was given: "
                    f"{before[0]!r} is now {after[0]!r}"
                )

            check()

    @config
    @given(turns, seeds)
    def same_seed_same_move(state: State, seed: int) -> None:
        with seats.fresh() as first, seats.fresh() as second:
            moves: list[Move] = []
            for bot in (first, second):
                shared = random.getstate()
                moves.append(bot.choose(state, random.Random(seed)))
                assert random.getstate() == shared, (
                    f"{who} drew from the random module's global generator in "
                    f"{state.position()!r}: draw only from the rng it is given"
                )
        assert moves[0] == moves[1], (
            f"{who} chose {moves[0]} and then {moves[1]} with the same seed {seed} in "
            f"{state.position()!r}"
        )

    def answers_within_the_time_budget() -> None:
        with seats.fresh() as bot:

            @timed
            @given(turns, seeds)
            def check(state: State, seed: int) -> None:
                started = time.perf_counter()
                bot.choose(state, random.Random(seed), time_budget)
                spent = time.perf_counter() - started
                assert spent <= time_budget + slack, (
                    f"{who} took {spent:.2f} s in {state.position()!r} with time_left="
                    f"{time_budget} s (allowed: {time_budget + slack} s with the slack)"
                )

            check()

    def refuses(state: State, bot: Player, what: str) -> None:
        try:
            move = bot.choose(state, random.Random(0))
        except IllegalMoveError:
            return
        except Exception as error:
            raise AssertionError(
                f"{who} raised {error!r} for {what} {state.position()!r}: raise an "
                "abstractgames.IllegalMoveError (there is no move to choose)"
            ) from error
        raise AssertionError(
            f"{who} chose {move!r} for {what} {state.position()!r}: raise an "
            "abstractgames.IllegalMoveError (there is no move to choose)"
        )

    def refuses_finished_games() -> None:
        with seats.fresh() as bot:

            @config
            @given(_finished_games(game))
            def check(state: State) -> None:
                refuses(state, bot, "the finished game")

            check()

    def refuses_chance_nodes() -> None:
        with seats.fresh() as bot:

            @config
            @given(_chance_nodes(game))
            def check(state: State | None) -> None:
                if state is not None:
                    refuses(state, bot, "the chance node")

            check()

    properties: list[Callable[[], None]] = [
        plays_only_legal_moves,
        never_mutates_the_state,
        same_seed_same_move,
        answers_within_the_time_budget,
        refuses_finished_games,
        refuses_chance_nodes,
    ]
    return {p.__name__: p for p in properties}


def check_player(
    player: str | Player | Callable[[Game], Player],
    game: Game | str,
    *,
    max_examples: int = 50,
    time_budget: float = 1.0,
    slack: float = 2.0,
) -> None:
    """Run every player property (see [`player_properties`][]) on `player` in `game`.

    Args:
        player: a player spec (`"mybot.py:MyBot"`), a `Player` class or a function making
            the player from the game, or a `Player` itself.
        game: the game, or its spec.
        max_examples: hypothesis examples per property (at most 5 for the time budget).
        time_budget: the `time_left`, in seconds, that the player is given on a clock.
        slack: seconds beyond `time_budget` that an answer may take.

    Raises:
        AssertionError: a property fails (with hypothesis's smallest failing example), or the
            player raises where it should answer.
        InvalidPlayerError: `player` is not a player, or its spec or factory makes none.

    Examples:
        >>> from abstractgames import get_game
        >>> from abstractgames.testing import check_player
        >>> check_player("greedy", get_game("orderchaos"), max_examples=5)
        >>> check_player("search:depth=1", "entropy:size=5", max_examples=5)
    """
    properties = player_properties(
        player, game, max_examples=max_examples, time_budget=time_budget, slack=slack
    )
    for name, prop in properties.items():
        try:
            prop()
        except AssertionError:
            raise
        except Exception as error:
            raise AssertionError(f"{name} failed for {player!r} in {game!r}: {error!r}") from error


# --- solvers --------------------------------------------------------------------------------------


def _near_the_end(game: Game, from_end: int) -> st.SearchStrategy[State]:
    """Positions a few plies before the end of random games (where proofs are within reach),
    a player to move in each."""

    @st.composite
    def strategy(draw: st.DrawFn) -> State:
        rng = draw(st.randoms(use_true_random=False))
        visited = playout(game.initial_state(), rng, game.max_length)
        turns = [s for s in visited[-1 - from_end : -1] if _has_a_player_to_move(s)]
        if not turns:
            turns = [s for s in visited if _has_a_player_to_move(s)]
        return draw(st.sampled_from(turns))

    return strategy()


def _plies_of(role: str, state: State, line: Sequence[Move]) -> tuple[State, int]:
    """The state after `line` is played from `state` (each move checked legal), and how many
    of its moves `role` made."""
    own = 0
    for number, move in enumerate(line, 1):
        if move not in state.legal_moves():
            raise AssertionError(
                f"move {number} of the line, {move}, is not legal in {state.position()!r}"
            )
        own += state.to_move == role
        state = state.apply(move)
    return state, own


def solver_properties(
    game: Game | str,
    solver: SolverEntry | Solver | None = None,
    *,
    max_examples: int = 20,
    max_moves: int = 3,
    time_limit: float = 5.0,
    from_end: int = 6,
    positions: st.SearchStrategy[State] | None = None,
) -> dict[str, Callable[[], None]]:
    """The properties every exact solver keeps in its game, by name; call each to run it with
    hypothesis.

    - `answers_about_the_position`: the answer is a [`Solution`][abstractgames.solvers.Solution]
      of the position asked (its position, side to move and `max_moves`); its winner is a role
      of the game, a win counted in `moves` is the attacker's, within `max_moves`, with fewer
      moves `searched`; and it counted the positions it visited (`nodes`, at least one where it
      searched);
    - `never_mutates_the_state`: the state's position, hash, player to move, legal moves,
      outcome and `describe()` are the same after the solver;
    - `same_answer_twice`: the same position solved twice gives equal answers;
    - `the_line_is_played_by_the_rules`: every move of the principal variation is legal in
      turn; a win found by search (`moves`) ends the game there with the winner's win, the
      winner having made `moves` of the line's moves;
    - `no_faster_win`: a win in `moves` is not found within `moves - 1`;
    - `the_proof_checks_by_the_rules`: where the answer gives a strategy, it is checked as a
      certificate by [`check_certificate`][abstractgames.solvers.verify.check_certificate]
      (every line the loser can choose ends in the winner's win, within `moves`); where it
      gives a certificate of its game's own format, its game's checker
      ([`certificate_checker_for`][abstractgames.registry.certificate_checker_for]) confirms
      the same claim;
    - `honours_its_options`: each option the [`SolverEntry`][abstractgames.solvers.SolverEntry]
      declares is taken and changes nothing of the answer: `progress` hears each number of
      moves ruled out, in order, none past the answer's `searched`; a small `memory`; a
      `checkpoint` file, written and then resumed from; and an answer that proves a winner
      gives a certificate (a strategy or the game's own) exactly when `certificates` is
      declared;
    - `refuses_finished_games`: a finished game, and `max_moves` of 0, raise `ValueError`.

    Args:
        game: the game, or its spec (`"orderchaos"`).
        solver: the solver: a [`SolverEntry`][abstractgames.solvers.SolverEntry], or a bare
            solver function (which declares no options); `None`: the game's, from the registry
            ([`solver_entry_for`][abstractgames.registry.solver_entry_for]).
        max_examples: hypothesis examples per property.
        max_moves: the `max_moves` the solver is asked with.
        time_limit: the `time_limit` of each call, in seconds (an answer the time stops is
            checked for what it says, no more).
        from_end: the positions are drawn from the last `from_end` plies of random games,
            where proofs are within reach (a short game's start among them).
        positions: a hypothesis strategy of the positions instead, each with a player to move
            (such as [`states`][] from puzzles, or small positions of your own making): where
            the solver takes long far from the end, give it positions near the end.

    Returns:
        The properties by name, each a function without arguments that raises
        `AssertionError` (with hypothesis's smallest failing example) when the solver fails it.

    Raises:
        PluginError: `solver` is `None` and the game has no solver.
        UnknownGameError: `game` is a spec naming no game.

    Examples:
        >>> from abstractgames.testing import solver_properties
        >>> sorted(solver_properties("dispersal"))  # doctest: +NORMALIZE_WHITESPACE
        ['answers_about_the_position', 'honours_its_options', 'never_mutates_the_state',
         'no_faster_win', 'refuses_finished_games', 'same_answer_twice',
         'the_line_is_played_by_the_rules', 'the_proof_checks_by_the_rules']
    """
    if isinstance(game, str):
        game = parse_game_spec(game)
    if solver is None:
        entry = solver_entry_for(game)
    elif isinstance(solver, SolverEntry):
        entry = solver
    else:
        entry = SolverEntry(solver)  # a bare solver declares no options
    who = f"the solver of {game.spec}"
    config = _kit_settings(max_examples)
    if positions is None:
        positions = _near_the_end(game, from_end)
    the_game = game

    def solve(state: State, bound: int = max_moves, **options: object) -> Solution:
        solution = entry(state, bound, time_limit, **options)
        assert isinstance(solution, Solution), (
            f"{who} answered {solution!r} for {state.position()!r}: a solver answers with an "
            "abstractgames.solvers.Solution"
        )
        return solution

    @config
    @given(positions)
    def answers_about_the_position(state: State) -> None:
        answer = solve(state)
        where = f"{who} in {state.position()!r} ({answer})"
        assert answer.position == state.position(), f"{where}: position {answer.position!r}"
        assert answer.side == state.to_move, f"{where}: side to move {answer.side!r}"
        assert answer.max_moves == max_moves, f"{where}: max_moves {answer.max_moves}"
        roles = the_game.roles
        assert answer.attacker in roles, f"{where}: the attacker {answer.attacker!r} is no role"
        assert answer.winner is None or answer.winner in roles, f"{where}: no such winner"
        if answer.moves is not None:
            assert answer.won, f"{where}: a win in {answer.moves} moves that is not the attacker's"
            assert 0 <= answer.moves <= max_moves, f"{where}: {answer.moves} moves"
            assert answer.searched < max(answer.moves, 1), f"{where}: searched {answer.searched}"
        if answer.within is not None:
            assert answer.winner is not None and answer.moves is None, f"{where}: within"
        assert 0 <= answer.searched <= max_moves, f"{where}: searched {answer.searched}"
        assert type(answer.nodes) is int and answer.nodes >= 0, f"{where}: nodes {answer.nodes!r}"
        if answer.searched or answer.moves is not None:
            assert answer.nodes >= 1, f"{where}: it searched, yet counted no position"
        text = str(answer)
        assert text and "\n" not in text, f"{who}: the answer's line is {text!r}"

    @config
    @given(positions)
    def never_mutates_the_state(state: State) -> None:
        before = _full_snapshot(state)
        solve(state)
        after = _full_snapshot(state)
        changed = [f for f, b, a in zip(_SNAPSHOT_FIELDS, before, after, strict=True) if b != a]
        assert not changed, (
            f"{who} changed the {', '.join(changed)} of the state it was given: "
            f"{before[0]!r} is now {after[0]!r}"
        )

    @config
    @given(positions)
    def same_answer_twice(state: State) -> None:
        first, second = solve(state), solve(state)
        if first.complete and second.complete:
            assert first == second, f"{who} answered {first} and then {second}"

    @config
    @given(positions)
    def the_line_is_played_by_the_rules(state: State) -> None:
        answer = solve(state)
        if answer.winner is None or not answer.line:
            return
        end, own = _plies_of(answer.winner, state, answer.line)
        if answer.moves is None:
            return
        outcome = end.outcome()
        assert outcome is not None and outcome.winner == answer.winner, (
            f"{who}: the line of {answer} from {state.position()!r} ends in "
            f"{end.position()!r} ({outcome.reason if outcome else 'not finished'})"
        )
        assert own == answer.moves, (
            f"{who}: the line of {answer} from {state.position()!r} takes {own} of the "
            f"winner's moves, not {answer.moves}"
        )

    @config
    @given(positions)
    def no_faster_win(state: State) -> None:
        answer = solve(state)
        if answer.moves is None or answer.moves < 2:
            return
        fewer = solve(state, answer.moves - 1)
        assert not fewer.won, (
            f"{who} wins in {answer.moves} moves from {state.position()!r}, and within "
            f"{answer.moves - 1}: {fewer}"
        )

    @config
    @given(positions)
    def the_proof_checks_by_the_rules(state: State) -> None:
        answer = solve(state)
        if answer.winner is None:
            return
        claim = answer.moves if answer.moves is not None else answer.within
        if answer.strategy is not None:
            certificate = Certificate(
                the_game.spec, answer.position, answer.winner, claim, answer.strategy()
            )
            try:
                check_certificate(certificate, the_game)
            except ValueError as error:
                raise AssertionError(
                    f"{who}: the strategy of {answer} from {state.position()!r} fails: {error}"
                ) from None
        if answer.certificate is not None:
            try:
                data = answer.certificate()
            except ValueError:
                return  # no certificate of this position, and a reason given
            found = certificate_checker_for(data[:64])
            assert found is not None and found[0].name == the_game.name, (
                f"{who}: the certificate of {answer} is in no format of {the_game.name}'s"
            )
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "answer.cert")
                with open(path, "wb") as handle:
                    handle.write(data)
                try:
                    report = found[1].verify_file(path, the_game)
                except ValueError as error:
                    raise AssertionError(
                        f"{who}: the certificate of {answer} from {state.position()!r} fails: "
                        f"{error}"
                    ) from None
            assert (report.position, report.winner) == (answer.position, answer.winner), (
                f"{who}: the certificate of {answer} proves {report}"
            )

    @config
    @given(positions)
    def honours_its_options(state: State) -> None:
        answer = solve(state)
        if not answer.complete:
            return
        where = f"{who} in {state.position()!r}"
        result = (answer.winner, answer.moves, answer.within, answer.searched)
        if entry.progress:
            heard: list[Progress] = []
            again = solve(state, progress=heard.append)
            assert (again.winner, again.moves, again.within, again.searched) == result, (
                f"{where}: {again} with progress, {answer} without"
            )
            ruled_out = [step.moves for step in heard]
            assert all(isinstance(step, Progress) for step in heard), f"{where}: {heard!r}"
            assert ruled_out == sorted(set(ruled_out)), f"{where}: progress {ruled_out}"
            assert all(0 < m <= again.searched for m in ruled_out), f"{where}: {ruled_out}"
            assert all(step.attacker == again.attacker for step in heard), f"{where}: {heard}"
            nodes = [step.nodes for step in heard]
            assert nodes == sorted(nodes) and all(n <= again.nodes for n in nodes), (
                f"{where}: progress counted {nodes} positions, the answer {again.nodes}"
            )
        if entry.memory:
            small = solve(state, memory=1.0)
            assert (small.winner, small.moves, small.within, small.searched) == result, (
                f"{where}: {small} with 1 MB, {answer} without"
            )
        if entry.checkpoint:
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "work.ckpt")
                for run in ("written", "resumed"):
                    saved = solve(state, checkpoint=path)
                    assert (saved.winner, saved.moves, saved.within, saved.searched) == result, (
                        f"{where}: {saved} with a checkpoint {run}, {answer} without"
                    )
        if answer.winner is not None:
            gives = answer.strategy is not None or answer.certificate is not None
            assert gives == entry.certificates, (
                f"{where}: {answer} "
                + ("gives no certificate, yet" if entry.certificates else "gives one, yet not")
                + " declared (SolverEntry.certificates)"
            )

    @config
    @given(_finished_games(game))
    def refuses_finished_games(state: State) -> None:
        asked: list[tuple[str, State, int]] = [
            ("the finished game", state, max_moves),
            ("max_moves=0", the_game.initial_state(), 0),
        ]
        for what, position, bound in asked:
            try:
                answer = entry(position, bound, time_limit)
            except ValueError:
                continue
            raise AssertionError(
                f"{who} answered {answer} for {what} ({position.position()!r}): raise ValueError"
            )

    properties: list[Callable[[], None]] = [
        answers_about_the_position,
        never_mutates_the_state,
        same_answer_twice,
        the_line_is_played_by_the_rules,
        no_faster_win,
        the_proof_checks_by_the_rules,
        honours_its_options,
        refuses_finished_games,
    ]
    return {p.__name__: p for p in properties}


def check_solver(
    game: Game | str,
    solver: SolverEntry | Solver | None = None,
    *,
    max_examples: int = 20,
    max_moves: int = 3,
    time_limit: float = 5.0,
    positions: st.SearchStrategy[State] | None = None,
) -> None:
    """Run every solver property (see [`solver_properties`][]) on `solver` in `game`.

    Args:
        game: the game, or its spec.
        solver: a [`SolverEntry`][abstractgames.solvers.SolverEntry] or a solver function;
            `None`: the game's, from the registry.
        max_examples: hypothesis examples per property.
        max_moves: the `max_moves` the solver is asked with.
        time_limit: the `time_limit` of each call, in seconds.
        positions: a hypothesis strategy of the positions, instead of those near the end of
            random games.

    Raises:
        AssertionError: a property fails (with hypothesis's smallest failing example), or the
            solver raises where it should answer.

    Examples:
        >>> from abstractgames.testing import check_solver
        >>> check_solver("dispersal", max_examples=3)
    """
    properties = solver_properties(
        game,
        solver,
        max_examples=max_examples,
        max_moves=max_moves,
        time_limit=time_limit,
        positions=positions,
    )
    for name, prop in properties.items():
        try:
            prop()
        except AssertionError:
            raise
        except Exception as error:
            raise AssertionError(f"{name} failed for the solver of {game!r}: {error!r}") from error
