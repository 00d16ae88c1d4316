"""Three games, one protocol: a few moves of each."""

from abstractgames import get_game

state = get_game("orderchaos").initial_state()
state = state.apply("X@c3").apply("O@d4")
print(state.position())

state = get_game("entropy").initial_state()
state = state.apply("R").apply("R@d4")  # a red counter drawn, put on d4
print(state.position(), "score", state.score())

state = get_game("dispersal").initial_state().apply("a2-a3")
print(state.position(), len(state.legal_moves()), "moves for S")
