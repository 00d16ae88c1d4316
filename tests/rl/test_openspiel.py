"""Our games as OpenSpiel games (`abstractgames.rl.openspiel`): OpenSpiel's own checks and
algorithms on them, registration, and the adapter without OpenSpiel. The player `openspiel-mcts`
has its tests in tests/players/test_openspiel.py."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys
from functools import partial

import pytest

from abstractgames import (
    CHANCE,
    Game,
    IllegalMoveError,
    InvalidParameterError,
    State,
    UnknownGameError,
    available_games,
    get_game,
    random_move,
)
from abstractgames.registry import parse_game_spec
from tests.conftest import game_specs

np = pytest.importorskip("numpy")
pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is not installed (no wheel here?): pip install '.[rl]'"
)

from abstractgames.rl import openspiel  # noqa: E402  (after the skip: it needs OpenSpiel)

SPECS = game_specs()


def ours(spec: str) -> Game:
    """Our game of `spec`, skipped when it has no integer actions yet."""
    game = parse_game_spec(spec)
    if game.num_distinct_actions <= 0:
        pytest.skip(f"{spec} has no integer actions")
    return game


def load(spec: str) -> object:
    """The OpenSpiel game of `spec` through `pyspiel.load_game`, with its parameters."""
    game = ours(spec)
    openspiel.register()
    params = ",".join(f"{k}={v}" for k, v in sorted(game.params.items()))
    return pyspiel.load_game(f"{openspiel.openspiel_name(game.name)}({params})")


def returns_of(state: State) -> list[float]:
    values = state.returns()
    return [values[role] for role in state.game.roles]


def player_of(state: State) -> int:
    if state.to_move is None:
        return int(pyspiel.PlayerId.TERMINAL)
    if state.to_move == CHANCE:
        return int(pyspiel.PlayerId.CHANCE)
    return state.game.roles.index(state.to_move)


# --- the games ------------------------------------------------------------------------------------

SIMS = {"entropy": 5, "dispersal": 5}


@pytest.mark.parametrize("spec", SPECS)
def test_openspiel_random_sim_test(spec: str) -> None:
    # serialize=True: OpenSpiel pickles a Python state's __dict__, which holds our (picklable)
    # state, and loads the game again by its name and parameters.
    game = load(spec)
    pyspiel.random_sim_test(
        game, num_sims=SIMS.get(spec.partition(":")[0], 10), serialize=True, verbose=False
    )


@pytest.mark.parametrize("spec", SPECS)
def test_game_type_and_info(spec: str) -> None:
    game = ours(spec)
    loaded = load(spec)
    kind = loaded.get_type()
    assert kind.short_name == f"abstractgames_{game.name}"
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == (
        pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        if game.max_chance_outcomes
        else pyspiel.GameType.ChanceMode.DETERMINISTIC
    )
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert kind.provides_observation_tensor
    assert loaded.game == game
    assert loaded.num_players() == len(game.roles) == 2
    assert loaded.num_distinct_actions() == game.num_distinct_actions
    assert loaded.max_chance_outcomes() == game.max_chance_outcomes
    assert (loaded.min_utility(), loaded.max_utility()) == game.returns_range
    assert loaded.utility_sum() == 0
    assert loaded.max_game_length() == game.max_length
    assert loaded.observation_tensor_shape() == list(game.observation_shape)
    assert loaded.get_parameters() == game.params
    defaults = get_game(game.name).params
    assert {k: v for k, v in kind.parameter_specification.items()} == defaults


def test_load_game_names_and_parameters() -> None:
    openspiel.register()
    assert pyspiel.load_game("abstractgames_orderchaos").game == get_game("orderchaos")
    if get_game("entropy").num_distinct_actions:
        assert pyspiel.load_game("abstractgames_entropy").game == get_game("entropy")
        five = pyspiel.load_game("abstractgames_entropy(size=5)")
        assert five.game == get_game("entropy", size=5)
        assert str(five) == "abstractgames_entropy(size=5)"
        assert pyspiel.load_game("abstractgames_entropy", {"size": 5}).game == five.game
        with pytest.raises(InvalidParameterError, match="size=6"):  # ours, through C++
            pyspiel.load_game("abstractgames_entropy(size=6)")
        with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter size"):
            pyspiel.load_game('abstractgames_entropy(size="x")')
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'depth'"):
        pyspiel.load_game("abstractgames_orderchaos(depth=3)")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"max_plies": 10**18}, "max_plies=1000000000000000000 must be at most 10000"),
        ({"max_plies": 2**40}, "must be at most 10000"),
        ({"max_plies": -1}, "max_plies=-1 must be at least 1"),
        ({"max_plies": 0}, "max_plies=0 must be at least 1"),
        ({"max_plies": 1.5}, "max_plies must be an integer, not 1.5"),
        ({"max_plies": "x"}, "max_plies must be an integer, not 'x'"),
        ({"max_plies": True}, "max_plies must be an integer, not True"),
        ({"depth": 3}, "no parameter 'depth'"),
    ],
)
def test_load_game_checks_parameters_before_openspiel_converts_them(
    params: dict[str, object], message: str
) -> None:
    """`pyspiel.load_game` casts parameters to C++ before our code runs (10**18 is pybind11's
    "Unable to cast"); `openspiel.load_game` reads them by the game's rules first."""
    for call in (
        lambda: openspiel.load_game("abstractgames_dispersal", params),
        lambda: openspiel.load_game("dispersal", **params),
    ):
        with pytest.raises(InvalidParameterError, match=message):
            call()


def test_load_game_is_pyspiels_game() -> None:
    openspiel.register()
    loaded = openspiel.load_game("abstractgames_dispersal", {"max_plies": 12})
    assert loaded is pyspiel.load_game("abstractgames_dispersal(max_plies=12)")
    assert openspiel.load_game("dispersal", max_plies=12) is loaded
    assert openspiel.load_game("orderchaos").game == get_game("orderchaos")
    with pytest.raises(InvalidParameterError, match="given twice"):
        openspiel.load_game("dispersal", {"max_plies": 12}, max_plies=13)
    with pytest.raises(UnknownGameError, match="unknown game 'chess'"):
        openspiel.load_game("abstractgames_chess")
    with pytest.raises(UnknownGameError, match="not 3"):
        openspiel.load_game(3)  # type: ignore[arg-type]


def test_load_game_refuses_integers_beyond_a_cpp_int(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game of ours may take an integer OpenSpiel cannot hold: refused before pybind11."""
    game = get_game("dispersal", max_plies=12)
    monkeypatch.setattr(
        openspiel, "get_game", lambda name, **params: _WithParams(game, {"max_plies": 2**31})
    )
    with pytest.raises(InvalidParameterError, match=r"max_plies=2147483648 .* C\+\+ int"):
        openspiel.load_game("dispersal")


class _WithParams:
    """A game whose `params` say what a test needs, for `load_game`'s check."""

    def __init__(self, game: Game, params: dict[str, object]) -> None:
        self.name = game.name
        self.params = params


def test_register_is_idempotent() -> None:
    names = openspiel.register()
    assert names == openspiel.register()
    expected = [g for g in available_games() if get_game(g).num_distinct_actions > 0]
    assert names == tuple(f"abstractgames_{g}" for g in expected)
    assert openspiel.register(("orderchaos",)) == ("abstractgames_orderchaos",)
    assert set(names) <= set(pyspiel.registered_names())


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )


def test_load_game_before_register_is_openspiels_own_error() -> None:
    done = run_python(
        "import pyspiel\n"
        "import abstractgames.rl.openspiel\n"
        "try:\n"
        "    pyspiel.load_game('abstractgames_orderchaos')\n"
        "except pyspiel.SpielError as error:\n"
        "    print(str(error).splitlines()[0])\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Unknown game 'abstractgames_orderchaos'. Available games are:"


def test_without_openspiel_the_module_imports_and_the_player_says_what_to_install() -> None:
    done = run_python(
        "import sys\n"
        "sys.modules['pyspiel'] = sys.modules['open_spiel'] = None\n"  # import now fails
        "from abstractgames import get_game\n"
        "from abstractgames.players import InvalidPlayerError\n"
        "from abstractgames.rl.openspiel import MCTSPlayer, register\n"
        "try:\n"
        "    MCTSPlayer(get_game('orderchaos'))\n"
        "except InvalidPlayerError as error:\n"
        "    print(error)\n"
        "try:\n"
        "    register()\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "openspiel-mcts needs OpenSpiel: pip install 'abstractgames[rl]'",
        "OpenSpiel is not installed: pip install 'abstractgames[rl]'",
    ]


def test_the_interpreter_exits_cleanly_after_registering() -> None:
    # OpenSpiel frees its game creators after Python has shut down (see _Creator).
    done = run_python(
        "import pyspiel\n"
        "from abstractgames.rl import openspiel\n"
        "openspiel.register()\n"
        "state = pyspiel.load_game('abstractgames_orderchaos').new_initial_state()\n"
        "state.apply_action(0)\n"
        "print(state.clone())\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "6/6/6/6/6/X5 chaos"


def check_same(wrapped: object, state: State) -> None:
    """Everything OpenSpiel says of `wrapped` is what our protocol says of `state`."""
    game = state.game
    assert wrapped.state == state
    assert str(wrapped) == state.position()
    assert wrapped.current_player() == player_of(state)
    assert wrapped.is_terminal() == state.is_terminal()
    assert wrapped.is_chance_node() == state.is_chance()
    assert wrapped.returns() == returns_of(state)
    assert wrapped.legal_actions() == list(state.legal_actions())
    # The Python shortcuts answer as OpenSpiel's C++ code does.
    assert pyspiel.State.is_chance_node(wrapped) == wrapped.is_chance_node()
    assert pyspiel.State.legal_actions(wrapped) == wrapped.legal_actions()
    for player in range(len(game.roles)):
        assert pyspiel.State.legal_actions(wrapped, player) == wrapped.legal_actions(player)
    if not state.is_chance():
        legal = set(state.legal_actions())
        mask = [int(a in legal) for a in range(game.num_distinct_actions)]
        assert wrapped.legal_actions_mask() == mask
    for role in game.roles:
        player = game.roles.index(role)
        tensor = np.asarray(wrapped.observation_tensor(player), dtype=np.float32)
        np.testing.assert_array_equal(tensor, state.observation_tensor(role).ravel())
        assert wrapped.observation_string(player) == state.position()
    if state.is_chance():
        assert wrapped.chance_outcomes() == list(state.chance_actions())
    player = wrapped.current_player()
    for move in state.legal_moves():
        action = game.action_of(move)
        assert wrapped.action_to_string(player, action) == str(move)
        assert wrapped.string_to_action(str(move)) == action


@pytest.mark.parametrize("spec", SPECS)
def test_a_random_game_matches_the_protocol_move_for_move(spec: str) -> None:
    loaded = load(spec)
    rng = random.Random(7)
    state = ours(spec).initial_state()
    wrapped = loaded.new_initial_state()
    history = []
    while True:
        check_same(wrapped, state)
        assert wrapped.history() == history
        if state.is_terminal():
            break
        move = random_move(state, rng)
        action = state.game.action_of(move)
        clone = wrapped.clone()
        wrapped.apply_action(action)
        state = state.apply(move)
        history.append(action)
        assert clone.state != wrapped.state or clone.history() != wrapped.history()
        assert clone.history() == history[:-1]
    assert any(returns_of(state)) or state.outcome().winner is None


@pytest.mark.parametrize("spec", SPECS)
def test_clones_and_copies_are_independent(spec: str) -> None:
    game = ours(spec)
    wrapped = load(spec).new_initial_state()
    rng = np.random.RandomState(3)
    for _ in range(6):
        outcomes = wrapped.chance_outcomes() if wrapped.is_chance_node() else None
        if outcomes:
            actions, probabilities = zip(*outcomes, strict=True)
            wrapped.apply_action(int(rng.choice(actions, p=probabilities)))
        else:
            wrapped.apply_action(int(rng.choice(wrapped.legal_actions())))
    before = (str(wrapped), wrapped.history(), wrapped.state)
    clone = wrapped.clone()
    copy = pickle.loads(pickle.dumps(wrapped))
    for other in (clone, copy):
        assert (str(other), other.history(), other.state) == before
        while not other.is_terminal():
            if other.is_chance_node():
                other.apply_action(other.chance_outcomes()[0][0])
            else:
                other.apply_action(other.legal_actions()[-1])
        assert (str(wrapped), wrapped.history(), wrapped.state) == before
    assert copy.state.game == game
    history = getattr(wrapped.state, "history", None)  # a game that keeps one (dispersal's)
    if callable(history):
        assert pickle.loads(pickle.dumps(wrapped)).state.history() == history()


def test_wrap_one_of_our_states_and_back() -> None:
    game = get_game("orderchaos")
    state = game.initial_state().apply("X@c3").apply("O@d4")
    wrapped = openspiel.openspiel_state(state)
    assert wrapped.state is state
    assert wrapped.get_game() is openspiel.openspiel_game(game)
    assert wrapped.history() == []  # OpenSpiel's history starts at the wrapped state
    check_same(wrapped, state)
    wrapped.apply_action(game.action_of(game.parse_move("X@a1", state)))
    assert wrapped.state == state.apply("X@a1")
    assert state.position() == "6/6/3O2/2X3/6/6 order"  # ours is untouched
    again = openspiel.openspiel_game(game).new_initial_state(state.position())
    assert again.state == state
    for legal_actions in (wrapped.legal_actions, partial(pyspiel.State.legal_actions, wrapped)):
        with pytest.raises(pyspiel.SpielError, match="pseudo-player -1"):
            legal_actions(-1)
    with pytest.raises(TypeError, match="a state of ours or a position string"):
        openspiel.openspiel_game(game).new_initial_state({"board": []})
    with pytest.raises(ValueError, match="not a state of"):
        openspiel.openspiel_game(game).new_initial_state(get_game("dispersal").initial_state())


def test_openspiel_refuses_illegal_actions_with_our_error() -> None:
    wrapped = openspiel.openspiel_state(get_game("orderchaos").initial_state())
    wrapped.apply_action(0)
    with pytest.raises(IllegalMoveError, match="occupied"):
        wrapped.apply_action(1)
    with pytest.raises(pyspiel.SpielError):
        wrapped.apply_action_with_legality_check(0)


def test_returns_that_are_not_zero_sum_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    final = get_game("orderchaos").initial_state()
    rng = random.Random(1)
    while not final.is_terminal():
        final = final.apply(random_move(final, rng))
    wrapped = openspiel.openspiel_state(final)
    monkeypatch.setattr(type(final), "returns", lambda self: dict.fromkeys(self.game.roles, 1.0))
    with pytest.raises(ValueError, match="not zero-sum"):
        wrapped.returns()


def test_openspiels_algorithms_run_on_our_games() -> None:
    from open_spiel.python.algorithms import evaluate_bots, mcts

    game = load("orderchaos")
    rng = np.random.RandomState(5)
    bots = [pyspiel.make_uniform_random_bot(p, 11 + p) for p in range(2)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    assert sorted(returns) == [-1.0, 1.0]
    state = game.new_initial_state()
    bot = mcts.MCTSBot(game, 2, 30, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    for _ in range(2):
        state.apply_action(bot.step(state))
    assert state.move_number() == 2
    # C++ code on the Python game too, chance nodes included. (OpenSpiel 2.0.2's C++ MCTSBot
    # crashes on every Python game, its own python_tic_tac_toe as well.)
    if get_game("entropy").num_distinct_actions:
        state = load("entropy:size=5").new_initial_state()
        returns = pyspiel.evaluate_bots(state, bots, 3)
        assert state.is_terminal()
        assert returns == returns_of(state.state)


@pytest.mark.parametrize("value", [10**18, -(10**18), 2**31])
def test_pyspiels_own_load_game_reads_our_parameters_by_our_rules(value: int) -> None:
    """`pyspiel.load_game` casts the parameters to C++ before our code runs; for our games it
    goes through `openspiel.load_game`, so a value beyond a C++ int is our own error."""
    openspiel.register()
    with pytest.raises(InvalidParameterError, match="max_plies"):
        pyspiel.load_game("abstractgames_dispersal", {"max_plies": value})
    game = pyspiel.load_game("abstractgames_dispersal", {"max_plies": 12})
    assert game.game.spec == "dispersal:max_plies=12"
    assert pyspiel.load_game("tic_tac_toe").num_players() == 2  # other games as before
