"""Draw a position as an SVG picture, and keep it in a file."""

from pathlib import Path

from abstractgames import get_game

game = get_game("orderchaos")
state = game.from_position("6/6/6/6/O5/XXXX2 chaos").apply("X@e1")
print(state.marked_squares())  # the squares outlined: the line a1 to e1

picture = state.to_svg(highlight=["e1"], size=60)  # tint e1, the last move
Path("position.svg").write_text(picture)
print("position.svg:", picture[:40], "...")
