"""First steps: a game, its moves, a board, and a move that is refused."""

from abstractgames import IllegalMoveError, get_game

game = get_game("orderchaos")
state = game.initial_state()
print(state.to_move, "to move,", len(state.legal_moves()), "legal moves")

state = state.apply("X@a1")  # a new state; the one before is unchanged
print(state)
print(state.position())

try:
    state.apply("O@a1")
except IllegalMoveError as error:
    print(error)
