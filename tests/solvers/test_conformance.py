"""The solver kit (`abstractgames.testing.solver_properties`) over both built-in solvers, and on
solvers broken on purpose: each break is caught by the property that should catch it."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import strategies as st

from abstractgames import State, get_game
from abstractgames.registry import solver_entry_for
from abstractgames.solvers import Solution, SolverEntry
from abstractgames.testing import solver_properties
from tests.conftest import examples
from tests.solvers.test_orderchaos import positions

POSITIONS: dict[str, st.SearchStrategy[State] | None] = {
    "dispersal": None,  # the kit's own: near the end of random games
    "orderchaos": positions(max_empty=8),  # the start of a short game is solved in seconds
}
"""The games with a solver, each with the positions its solver is checked on."""

PROPERTIES = sorted(solver_properties("dispersal"))


def test_every_game_with_a_solver_is_checked() -> None:
    from abstractgames import available_games
    from abstractgames.registry import PluginError

    def has_solver(name: str) -> bool:
        try:
            solver_entry_for(get_game(name))
        except PluginError:
            return False
        return True

    assert [name for name in available_games() if has_solver(name)] == sorted(POSITIONS)


@pytest.mark.parametrize("prop", PROPERTIES)
@pytest.mark.parametrize("game", sorted(POSITIONS))
def test_the_built_in_solvers_keep_the_solver_properties(game: str, prop: str) -> None:
    properties = solver_properties(game, max_examples=examples(10), positions=POSITIONS[game])
    properties[prop]()


def test_the_declarations_are_the_solvers_own() -> None:
    dispersal = solver_entry_for(get_game("dispersal"))
    orderchaos = solver_entry_for(get_game("orderchaos"))
    assert dispersal.options == ("progress",) and not dispersal.certificates
    assert orderchaos.options == ("progress", "memory", "checkpoint")
    assert orderchaos.certificates
    with pytest.raises(TypeError, match="takes no option memory"):
        dispersal(get_game("dispersal").initial_state(), 1, None, memory=10)


# --- broken solvers, each caught ------------------------------------------------------------------

DISPERSAL = solver_entry_for(get_game("dispersal"))
WINS = st.just(get_game("dispersal").from_position("S1O1O/O1SOS/S4/OOSSO/S4 S"))
"""A position where the side to move wins within 3 moves (so that the broken answers show)."""
START = st.just(get_game("dispersal").initial_state())


def broken(change: Any, **declared: bool) -> SolverEntry:
    """The dispersal solver with its answers changed by `change(state, solution)`, declaring
    what it does and `declared` besides."""

    def solve(state: State, max_moves: int, time_limit: float | None, **options: Any) -> Any:
        return change(state, DISPERSAL(state, max_moves, time_limit, **options))

    return SolverEntry(solve, **({"progress": True} | declared))


def fails(entry: SolverEntry, prop: str, message: str, where: Any = WINS) -> None:
    properties = solver_properties("dispersal", entry, max_examples=5, positions=where)
    with pytest.raises(AssertionError, match=message):
        properties[prop]()


def test_a_win_claimed_a_move_too_slow_is_caught() -> None:
    def slower(state: State, solution: Solution) -> Solution:
        if solution.moves is None:
            return solution
        return attrs.evolve(solution, moves=solution.moves + 1, searched=solution.moves)

    fails(broken(slower), "the_line_is_played_by_the_rules", "winner's moves, not")


def test_a_win_claimed_for_the_wrong_side_is_caught() -> None:
    def other(state: State, solution: Solution) -> Solution:
        if solution.winner is None:
            return solution
        loser = "O" if solution.winner == "S" else "S"
        return attrs.evolve(solution, winner=loser)

    fails(broken(other), "answers_about_the_position", "not the attacker's")


def test_an_answer_about_another_position_is_caught() -> None:
    def elsewhere(state: State, solution: Solution) -> Solution:
        return attrs.evolve(solution, position="S1O1O/O1SOS/S4/OOSSO/S4 S")

    fails(broken(elsewhere), "answers_about_the_position", "position", START)


def test_an_answer_that_is_no_solution_is_caught() -> None:
    no_solution = broken(lambda state, solution: str(solution))
    fails(no_solution, "same_answer_twice", "a solver answers", START)


def test_a_strategy_that_does_not_win_is_caught() -> None:
    def empty(state: State, solution: Solution) -> Solution:
        return attrs.evolve(solution, strategy=dict)

    fails(broken(empty, certificates=True), "the_proof_checks_by_the_rules", "no move for")


def test_a_certificate_not_declared_is_caught() -> None:
    def empty(state: State, solution: Solution) -> Solution:
        return attrs.evolve(solution, strategy=dict)

    fails(broken(empty), "honours_its_options", "not declared")


def test_progress_out_of_order_is_caught() -> None:
    def backwards(state: State, max_moves: int, time_limit: float | None, **options: Any) -> Any:
        heard: list[Any] = []
        progress = options.pop("progress", None)
        solution = DISPERSAL(state, max_moves, time_limit, progress=heard.append)
        for step in reversed(heard):
            if progress is not None:
                progress(step)
        return solution

    fails(SolverEntry(backwards, progress=True), "honours_its_options", "progress", START)


def test_a_finished_game_answered_is_caught() -> None:
    def anything(state: State, max_moves: int, time_limit: float | None) -> Solution:
        return Solution(state.position(), "S", "S", max_moves, None, None)

    fails(SolverEntry(anything), "refuses_finished_games", "raise ValueError")
