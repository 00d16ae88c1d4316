"""Every registered game as an OpenSpiel game, and OpenSpiel's MCTS as the player `openspiel-mcts`.

[`register`][] makes each game of the registry an [OpenSpiel](https://openspiel.readthedocs.io)
Python game called `abstractgames_<name>`, with the game's parameters as OpenSpiel parameters, so
that `pyspiel.load_game("abstractgames_orderchaos")` and OpenSpiel's algorithms work on it. The
OpenSpiel game stands on the integer actions, chance outcomes, returns and observations of the
protocol ([`Game.action_of`][abstractgames.protocol.Game.action_of],
[`State.observation`][abstractgames.protocol.State.observation]); a game without integer
actions is left out. [`openspiel_state`][] wraps one of our states as an OpenSpiel state, whose
`.state` is ours again.

[`MCTSPlayer`][] is OpenSpiel's `MCTSBot` with random rollouts as a
[`Player`][abstractgames.players.Player] (`openspiel-mcts:simulations=200`). This module imports
without OpenSpiel; using it needs the `rl` extra (`pip install 'abstractgames[rl]'`).

Examples:
    >>> import pyspiel
    >>> from abstractgames.rl import openspiel
    >>> names = openspiel.register()
    >>> game = pyspiel.load_game("abstractgames_orderchaos")
    >>> state = game.new_initial_state()
    >>> state.apply_action(state.string_to_action("X@c3"))
    >>> state.history(), state.action_to_string(1, 29)
    ([28], 'O@c3')
    >>> state.state  # our state
    <OrderChaosState '6/6/6/2X3/6/6 chaos'>
"""

from __future__ import annotations

import math
import random
from typing import Any

from ..players import InvalidPlayerError, Player
from ..protocol import CHANCE, Game, IllegalMoveError, InvalidMoveError, Move, State
from ..registry import available_games, get_game
from ..text import value_excerpt

try:
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.observation import IIGObserverForPublicInfoGame
except ImportError as error:  # the rl extra is not installed: only the player's error is left
    _MISSING: ImportError | None = error
else:
    _MISSING = None

__all__ = [
    "PREFIX",
    "MCTSPlayer",
    "openspiel_game",
    "openspiel_name",
    "openspiel_state",
    "register",
]

PREFIX = "abstractgames_"
"""The OpenSpiel name of a game is this prefix and its registered name."""

_INSTALL = "pip install 'abstractgames[rl]'"
_TERMINAL = -4  # pyspiel.PlayerId.TERMINAL
_CHANCE = -1  # pyspiel.PlayerId.CHANCE

_registered: dict[str, str] = {}
"""The OpenSpiel names registered by [`register`][] in this process, by our game's name."""
_games: dict[Game, Any] = {}
"""The OpenSpiel game made for each of our games (a game with its parameters)."""


def _require() -> None:
    if _MISSING is not None:
        raise ImportError(f"OpenSpiel is not installed: {_INSTALL}") from _MISSING


def openspiel_name(name: str) -> str:
    """The OpenSpiel name of the game registered as `name`, e.g. `"abstractgames_entropy"`."""
    return PREFIX + name


def _has_actions(game: Game) -> bool:
    return game.num_distinct_actions > 0


def _parameters(game: Game) -> dict[str, Any]:
    """The game's parameters that OpenSpiel can hold (`int`, `float`, `str`, `bool`)."""
    return {k: v for k, v in game.params.items() if isinstance(v, int | float | str | bool)}


def _game_type(game: Game) -> Any:
    """The OpenSpiel `GameType` of the game `game` is the default variant of."""
    kind = pyspiel.GameType
    stochastic = game.max_chance_outcomes > 0
    return kind(
        short_name=openspiel_name(game.name),
        long_name=f"abstractgames {game.title or game.name}",
        dynamics=kind.Dynamics.SEQUENTIAL,
        chance_mode=(
            kind.ChanceMode.EXPLICIT_STOCHASTIC if stochastic else kind.ChanceMode.DETERMINISTIC
        ),
        information=kind.Information.PERFECT_INFORMATION,
        utility=kind.Utility.ZERO_SUM,
        reward_model=kind.RewardModel.TERMINAL,
        max_num_players=len(game.roles),
        min_num_players=len(game.roles),
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=bool(game.observation_shape),
        parameter_specification=_parameters(game),
    )


def register(games: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """Register games with OpenSpiel as `abstractgames_<name>` (see [`openspiel_name`][]).

    Idempotent: a name registered before (by this function or by anyone else) is left as it is.
    The game's parameters become OpenSpiel parameters with their defaults, so both
    `pyspiel.load_game("abstractgames_entropy")` and `"abstractgames_entropy(size=5)"` work.
    Registration assumes that the game is zero-sum (as every built-in game is);
    the returns of a state that is not raise `ValueError`.

    Args:
        games: the names of our games to register (default: every registered game that has
            integer actions; a game without them is left out).

    Returns:
        The OpenSpiel names of the games now registered, in the order of `games`.

    Raises:
        ImportError: OpenSpiel is not installed.
        UnknownGameError: a name in `games` names no game.
        ValueError: a game in `games` has no integer actions.
    """
    _require()
    names = available_games() if games is None else games
    known = set(pyspiel.registered_names())
    registered = []
    for name in names:
        if name not in _registered:
            default = get_game(name)
            if not _has_actions(default):
                if games is None:
                    continue
                raise ValueError(f"{default.spec} has no integer actions for OpenSpiel")
            short_name = openspiel_name(name)
            if short_name not in known:
                pyspiel.register_game(_game_type(default), _Creator(name))
            _registered[name] = short_name
        registered.append(_registered[name])
    return tuple(registered)


class _Creator:
    """Makes the OpenSpiel game of our game `name` from OpenSpiel's parameters."""

    def __init__(self, name: str) -> None:
        self.name = name
        # OpenSpiel holds its creators until after Python has shut down, then lets them go: a
        # creator freed then crashes the interpreter on exit. Referring to itself, it never is.
        self._itself = self

    def __call__(self, params: dict[str, Any] | None = None) -> Any:
        return openspiel_game(get_game(self.name, **(params or {})))


def openspiel_game(game: Game) -> Any:
    """The OpenSpiel game (a `pyspiel.Game`) of `game` with its parameters, registered first.

    The same game gives the same object; its `.game` is `game`.

    Raises:
        ImportError: OpenSpiel is not installed.
        ValueError: the game has no integer actions.
    """
    _require()
    found = _games.get(game)
    if found is None:
        register((game.name,))
        found = _games[game] = _OpenSpielGame(game)
    return found


def openspiel_state(state: State) -> Any:
    """`state` as a state (a `pyspiel.State`) of its [`openspiel_game`][]; `.state` is `state`.

    OpenSpiel's history of the wrapped state starts at `state`: `history()` is empty.

    Raises:
        ImportError: OpenSpiel is not installed.
        ValueError: the game has no integer actions.
    """
    return openspiel_game(state.game).new_initial_state(state)


class _Ref:
    """One of our states in an OpenSpiel state's `__dict__`, with its OpenSpiel player number
    and its game's lookup tables.

    OpenSpiel clones a Python state by deep-copying its `__dict__`; our states are immutable,
    so a copy is the same object (no position is rebuilt). Pickling (OpenSpiel's serialization)
    pickles the state itself.
    """

    __slots__ = ("player", "state", "tables")

    def __init__(self, state: State, tables: _Tables) -> None:
        self.state = state
        self.tables = tables
        # OpenSpiel asks for the player several times a ply (C++ checks it at every call).
        self.player = tables.player_of[state.to_move]

    def __deepcopy__(self, memo: dict[int, Any]) -> _Ref:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore_ref, (self.state,))


def _restore_ref(state: State) -> _Ref:
    return _Ref(state, openspiel_game(state.game).tables)


class _Tables:
    """What every state of one game looks up: player numbers, roles, the game."""

    __slots__ = ("game", "player_of", "roles")

    def __init__(self, game: Game) -> None:
        self.game = game
        self.roles = game.roles
        self.player_of: dict[str | None, int] = {None: _TERMINAL, CHANCE: _CHANCE}
        self.player_of.update((role, i) for i, role in enumerate(game.roles))


if _MISSING is None:

    class _OpenSpielGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel has no types
        """One of our games with its parameters as an OpenSpiel game."""

        def __init__(self, game: Game) -> None:
            if not _has_actions(game):
                raise ValueError(f"{game.spec} has no integer actions for OpenSpiel")
            low, high = game.returns_range
            info = pyspiel.GameInfo(
                num_distinct_actions=game.num_distinct_actions,
                max_chance_outcomes=game.max_chance_outcomes,
                num_players=len(game.roles),
                min_utility=float(low),
                max_utility=float(high),
                utility_sum=0.0,
                max_game_length=game.max_length,
            )
            default = get_game(game.name)
            params = {**_parameters(default), **_parameters(game)}
            super().__init__(_game_type(default), info, params)
            self.game = game
            self.tables = _Tables(game)
            self._initial = game.initial_state()

        def new_initial_state(self, state: State | str | None = None) -> _OpenSpielState:
            """The start of a game, or `state` (one of ours, or a position string)."""
            if state is None:
                state = self._initial
            elif isinstance(state, str):
                state = self.game.from_position(state)
            elif not isinstance(state, State):
                raise TypeError(f"a state of ours or a position string, not {value_excerpt(state)}")
            elif state.game != self.game:
                raise ValueError(f"{state!r} is not a state of {self.game.spec}")
            return _OpenSpielState(self, state)

        def max_chance_nodes_in_history(self) -> int:
            # The protocol bounds plies, chance events included: a bound on both kinds.
            return self.game.max_length if self.game.max_chance_outcomes > 0 else 0

        def make_py_observer(
            self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
        ) -> Any:
            """The observer of `State.observation` (default), or of the history (perfect
            recall: the information state of a perfect-information game)."""
            if iig_obs_type is None or (
                iig_obs_type.public_info and not iig_obs_type.perfect_recall
            ):
                return _Observer(self.game, params)
            return IIGObserverForPublicInfoGame(iig_obs_type, params)

    class _OpenSpielState(pyspiel.State):  # type: ignore[misc]  # pyspiel has no types
        """An OpenSpiel state holding one of ours (`.state`); OpenSpiel calls the methods."""

        def __init__(self, game: _OpenSpielGame, state: State) -> None:
            super().__init__(game)
            self._ref = _Ref(state, game.tables)

        @property
        def state(self) -> State:
            """Our state ([`State`][abstractgames.State]) this OpenSpiel state is at."""
            return self._ref.state

        def current_player(self) -> int:
            return self._ref.player

        def _legal_actions(self, player: int) -> tuple[int, ...]:
            return self._ref.state.legal_actions()

        # Python callers (MCTS, a learning loop) get these answers without the round trip
        # through C++, which calls back into Python five times for legal actions; C++ callers
        # get the same answers through OpenSpiel's own code.

        def legal_actions(self, player: int | None = None) -> list[int]:
            """The legal actions of `player` (default: the player to move), sorted; at a chance
            node the chance outcomes' actions, at the end none."""
            ref = self._ref
            if ref.player == _TERMINAL:
                return []
            if player is None or player == ref.player or ref.player == _CHANCE:
                return list(ref.state.legal_actions())
            if player < 0:
                raise pyspiel.SpielError(f"Called LegalActions for pseudo-player {player}")
            return []

        def is_chance_node(self) -> bool:
            return self._ref.player == _CHANCE

        def chance_outcomes(self) -> list[tuple[int, float]]:
            return list(self._ref.state.chance_actions())

        def _apply_action(self, action: int) -> None:
            ref = self._ref
            self._ref = _Ref(ref.state.apply_action(action), ref.tables)

        def _action_to_string(self, player: int, action: int) -> str:
            state = self._ref.state
            try:
                return str(state.game.move_of(action, state))
            except InvalidMoveError:  # an action of another player or another position
                return f"action {action}"

        def is_terminal(self) -> bool:
            return self._ref.player == _TERMINAL

        def returns(self) -> list[float]:
            ref = self._ref
            values = ref.state.returns()
            returns = [values[role] for role in ref.tables.roles]
            if not math.isclose(math.fsum(returns), 0.0, abs_tol=1e-9):
                raise ValueError(
                    f"returns {values} of {ref.state.position()} are not zero-sum, as the "
                    f"OpenSpiel game {openspiel_name(ref.tables.game.name)} declares"
                )
            return returns

        def __str__(self) -> str:
            return self._ref.state.position()

    class _Observer:
        """OpenSpiel's view of `State.observation`: a flat tensor, shaped in `dict`."""

        def __init__(self, game: Game, params: dict[str, Any] | None) -> None:
            if params:
                raise ValueError(f"observation parameters are not supported: {params}")
            self.roles = game.roles
            shape = game.observation_shape
            if shape:
                self.tensor: Any = np.zeros(math.prod(shape), np.float32)
                self.dict = {"observation": self.tensor.reshape(shape)}
            else:
                self.tensor = None
                self.dict = {}

        def set_from(self, state: _OpenSpielState, player: int) -> None:
            if self.tensor is not None:
                self.tensor[:] = state.state.observation(self.roles[player])

        def string_from(self, state: _OpenSpielState, player: int) -> str:
            return state.state.position()


# --- the player -----------------------------------------------------------------------------------


def _check_count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10**9:
        raise InvalidPlayerError(
            f"openspiel-mcts option {name}={value_excerpt(value)} must be a whole number "
            "from 1 to 10^9"
        )
    return value


class MCTSPlayer(Player):
    """OpenSpiel's Monte-Carlo tree search (`MCTSBot`, random rollouts) on the OpenSpiel game.

    Each move is a fresh search of `simulations` simulations from the position, with the
    MCTS-solver backup; chance events inside the tree are drawn with their probabilities. The
    search's `numpy` generator is seeded from the `rng` given to
    [`choose`][abstractgames.players.Player.choose], so a seed repeats the move. It has no clock
    of its own: `time_left` is ignored.

    Args:
        game: the game.
        simulations: simulations per move (`max_simulations`), each one rollout evaluation.
        uct_c: the exploration constant of UCT.
        rollouts: random rollouts per evaluation (`RandomRolloutEvaluator`'s `n_rollouts`).

    Raises:
        InvalidPlayerError: OpenSpiel is not installed, or an option is out of range.
    """

    spec = "openspiel-mcts"

    def __init__(
        self, game: Game, simulations: int = 1000, uct_c: float = 2.0, rollouts: int = 1
    ) -> None:
        if _MISSING is not None:
            raise InvalidPlayerError(f"openspiel-mcts needs OpenSpiel: {_INSTALL}")
        self.simulations = _check_count("simulations", simulations)
        self.rollouts = _check_count("rollouts", rollouts)
        if (
            isinstance(uct_c, bool)
            or not isinstance(uct_c, int | float)
            or not 0 <= uct_c < math.inf  # also refuses NaN
        ):
            raise InvalidPlayerError(
                f"openspiel-mcts option uct_c={value_excerpt(uct_c)} must be a number, 0 or more"
            )
        self.uct_c = float(uct_c)
        self.game = game
        try:
            openspiel_game(game)
        except ValueError as error:
            raise InvalidPlayerError(f"openspiel-mcts cannot play {game.spec}: {error}") from None

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        if state.to_move is None or state.to_move == CHANCE:
            raise IllegalMoveError(f"no move to choose in {state.position()}")
        game = openspiel_game(state.game)
        generator = np.random.RandomState(rng.getrandbits(32))
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, generator)
        bot = mcts.MCTSBot(game, self.uct_c, self.simulations, evaluator, random_state=generator)
        action = bot.step(game.new_initial_state(state))
        return state.game.move_of(int(action), state)
