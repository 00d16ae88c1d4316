"""The player `openspiel-mcts`: OpenSpiel's Monte-Carlo tree search, and our games as OpenSpiel's.

[`MCTSPlayer`][] is OpenSpiel's `MCTSBot` (`open_spiel.python.algorithms.mcts`, random
rollouts) as a [`Player`][abstractgames.players.Player] (`openspiel-mcts:simulations=200`). It
searches the OpenSpiel game that [`pyspiel_game`][] makes of one of our games: a `pyspiel.Game`
whose states hold ours (`.state`), standing on the integer actions, chance outcomes, returns and
observations of the protocol ([`Game.action_of`][abstractgames.protocol.Game.action_of],
[`State.observation`][abstractgames.protocol.State.observation]). The wrapper lives here, below
the registry, so that the player needs nothing above its layer;
[`abstractgames.rl.openspiel`][] registers the same wrapper with OpenSpiel under the names
`abstractgames_<name>`.

OpenSpiel (`pyspiel`, `open_spiel` and numpy) is imported on first use: this module imports, and
the registry lists the player, without it. Making the player needs the `rl` extra
(`pip install 'abstractgames[rl]'`); without it the player is an
[`InvalidPlayerError`][abstractgames.players.InvalidPlayerError] that says so.

Examples:
    >>> import random
    >>> from abstractgames import get_game
    >>> game = get_game("orderchaos")
    >>> wrapped = pyspiel_game(game).new_initial_state()
    >>> wrapped.apply_action(game.action_of(game.parse_move("X@c3", wrapped.state)))
    >>> wrapped.state  # ours
    <OrderChaosState '6/6/6/2X3/6/6 chaos'>
    >>> player = MCTSPlayer(game, simulations=50)
    >>> move = player.choose(wrapped.state, random.Random(1))
    >>> move in wrapped.state.legal_moves()
    True
"""

from __future__ import annotations

import functools
import math
import random
from typing import TYPE_CHECKING, Any, NamedTuple

from ..protocol import CHANCE, Game, IllegalMoveError, InvalidMoveError, Move, State
from ..text import value_excerpt
from . import InvalidPlayerError, Player

__all__ = [
    "INSTALL",
    "PREFIX",
    "MCTSPlayer",
    "game_type",
    "import_pyspiel",
    "openspiel_name",
    "pyspiel_game",
]

PREFIX = "abstractgames_"
"""The OpenSpiel name of a game is this prefix and its registered name."""

INSTALL = "pip install 'abstractgames[rl]'"
"""What to install for OpenSpiel."""

_TERMINAL = -4  # pyspiel.PlayerId.TERMINAL
_CHANCE = -1  # pyspiel.PlayerId.CHANCE


def import_pyspiel() -> Any:
    """The `pyspiel` module, imported on first use.

    Raises:
        ImportError: OpenSpiel is not installed (the message says what to install).
    """
    try:
        import pyspiel
    except ImportError as error:
        raise ImportError(f"OpenSpiel is not installed: {INSTALL}") from error
    return pyspiel


def openspiel_name(name: str) -> str:
    """The OpenSpiel name of the game registered as `name`, e.g. `"abstractgames_entropy"`."""
    return PREFIX + name


def _parameters(game: Game) -> dict[str, Any]:
    """The game's parameters that OpenSpiel can hold (`int`, `float`, `str`, `bool`)."""
    return {k: v for k, v in game.params.items() if isinstance(v, int | float | str | bool)}


def game_type(game: Game) -> Any:
    """The OpenSpiel `GameType` of the games `game` is the default variant of.

    Its name is [`openspiel_name`][]`(game.name)`, and its parameter specification is `game`'s
    parameters, with their values as the defaults. It declares a zero-sum game with perfect
    information and terminal rewards (as every built-in game is).

    Raises:
        ImportError: OpenSpiel is not installed.
    """
    kind = import_pyspiel().GameType
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


_games: dict[tuple[Game, Game], Any] = {}
"""The OpenSpiel game made for each of our games (with its parameters) and its default."""


def pyspiel_game(game: Game, default: Game | None = None) -> Any:
    """`game` as an OpenSpiel game: a `pyspiel.Game` whose `.game` is `game`.

    The game is not registered with OpenSpiel (`pyspiel.load_game` does not know it; see
    [`abstractgames.rl.openspiel.register`][]); OpenSpiel's Python algorithms work on it all the
    same. Its `new_initial_state()` is the start of a game, `new_initial_state(state)` one of
    our states (or a position string) wrapped: the wrapped state's `.state` is ours again, and
    OpenSpiel's `history()` starts there. The same arguments give the same object.

    Args:
        game: our game, with its parameters.
        default: the game whose [`game_type`][] the OpenSpiel game has: the variant of `game`
            with the default parameters (default: `game` itself).

    Raises:
        ImportError: OpenSpiel is not installed.
        ValueError: the game has no integer actions.
    """
    key = (game, game if default is None else default)
    found = _games.get(key)
    if found is None:
        found = _games[key] = _classes().game(game, key[1])
    return found


class _Tables:
    """What every state of one game looks up: player numbers, roles, the game."""

    __slots__ = ("game", "player_of", "roles")

    def __init__(self, game: Game) -> None:
        self.game = game
        self.roles = game.roles
        self.player_of: dict[str | None, int] = {None: _TERMINAL, CHANCE: _CHANCE}
        self.player_of.update((role, i) for i, role in enumerate(game.roles))


@functools.cache
def _tables(game: Game) -> _Tables:
    return _Tables(game)


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
    return _Ref(state, _tables(state.game))


class _Observer:
    """OpenSpiel's view of `State.observation`: a flat tensor, shaped in `dict`."""

    def __init__(self, game: Game, params: dict[str, Any] | None) -> None:
        import numpy as np

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

    def set_from(self, state: Any, player: int) -> None:
        if self.tensor is not None:
            self.tensor[:] = state.state.observation(self.roles[player])

    def string_from(self, state: Any, player: int) -> str:
        return str(state.state.position())


class _Classes(NamedTuple):
    game: type[Any]
    state: type[Any]


@functools.cache
def _classes() -> _Classes:
    """The OpenSpiel game and state classes of the wrapper, made on first use: they subclass
    `pyspiel.Game` and `pyspiel.State`, so they need OpenSpiel to exist.

    Raises:
        ImportError: OpenSpiel is not installed.
    """
    import_pyspiel()  # the ImportError that says what to install
    import pyspiel

    class _OpenSpielGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel has no types
        """One of our games with its parameters as an OpenSpiel game."""

        def __init__(self, game: Game, default: Game) -> None:
            if game.num_distinct_actions <= 0:
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
            params = {**_parameters(default), **_parameters(game)}
            super().__init__(game_type(default), info, params)
            self.game = game
            self.tables = _tables(game)
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
            from open_spiel.python.observation import IIGObserverForPublicInfoGame

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

    # Pickle finds a class by its module and qualified name: this module's `__getattr__`.
    _OpenSpielGame.__qualname__ = _OpenSpielGame.__name__
    _OpenSpielState.__qualname__ = _OpenSpielState.__name__
    return _Classes(_OpenSpielGame, _OpenSpielState)


if not TYPE_CHECKING:  # seen by pickle only: attributes typed as Any would hide typos

    def __getattr__(name: str) -> Any:
        """The classes `_OpenSpielGame` and `_OpenSpielState`, which pickle asks for."""
        if name == "_OpenSpielGame":
            return _classes().game
        if name == "_OpenSpielState":
            return _classes().state
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --- the player -----------------------------------------------------------------------------------


def _check_count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10**9:
        raise InvalidPlayerError(
            f"openspiel-mcts option {name}={value_excerpt(value)} must be a whole number "
            "from 1 to 10^9"
        )
    return value


class MCTSPlayer(Player):
    """OpenSpiel's Monte-Carlo tree search (`MCTSBot` with random rollouts) on our game.

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
        try:
            import_pyspiel()
            from open_spiel.python.algorithms import mcts  # noqa: F401  (the search choose uses)
        except ImportError as error:
            raise InvalidPlayerError(f"openspiel-mcts needs OpenSpiel: {INSTALL}") from error
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
            pyspiel_game(game)
        except ValueError as error:
            raise InvalidPlayerError(f"openspiel-mcts cannot play {game.spec}: {error}") from None

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        import numpy as np
        from open_spiel.python.algorithms import mcts

        if state.to_move is None or state.to_move == CHANCE:
            raise IllegalMoveError(f"no move to choose in {state.position()}")
        game = pyspiel_game(state.game)
        generator = np.random.RandomState(rng.getrandbits(32))
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, generator)
        bot = mcts.MCTSBot(game, self.uct_c, self.simulations, evaluator, random_state=generator)
        action = bot.step(game.new_initial_state(state))
        return state.game.move_of(int(action), state)
