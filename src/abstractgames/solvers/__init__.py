"""Exact solvers: proof searches that answer a question about a position for certain, such as
"can the side to move force a win within N moves?". There is one module per game, named after the
game's module ([`abstractgames.solvers.dispersal`][] for dispersal Entropy); a solver builds only
on its game's module and the protocol, never on the bots, the referee or the command line.
"""
