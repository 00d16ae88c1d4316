"""External programs as players, and our bots as external programs.

- :mod:`.process`: a program on pipes, in its own process group, read line by line with deadlines.
- :mod:`.protocol`: the abstractgames engine protocol (AGP, any game): the referee's side
  (:class:`~.protocol.EngineClient`) and the engine's side (:func:`~.protocol.serve`, behind
  ``abstractgames engine``).
- :mod:`.codecup`: the CodeCup 2023 Entropy protocol: the referee's side
  (:class:`~.codecup.CodecupClient`) and the program's side (:func:`~.codecup.serve_codecup`,
  behind ``abstractgames codecup``).

The players that seat external programs, ``engine:COMMAND`` and ``codecup:COMMAND``, are in
:mod:`abstractgames.players.external`.
"""
