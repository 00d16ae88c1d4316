"""External programs as players, and our bots as external programs.

Everything about a program on the other end of a pipe lives here, one module per job:

- [`process`][.process]: a program on pipes, in its own process group, read line by line with
  deadlines.
- [`external`][.external]: what every program player shares: the `NAME:[OPTIONS:]COMMAND` spec,
  the program's log, failures as forfeits ([`ExternalPlayer`][.external.ExternalPlayer]).
- [`agp`][.agp]: the abstractgames engine protocol (AGP, any game): the referee's side
  ([`EngineClient`][.agp.EngineClient]), the `engine:COMMAND` player
  ([`EnginePlayer`][.agp.EnginePlayer]), and the engine's side ([`serve`][.agp.serve], behind
  `abstractgames engine`).
- [`codecup_entropy`][.codecup_entropy]: the CodeCup 2023 protocol of 7×7 Entropy: the referee's
  side ([`CodecupClient`][.codecup_entropy.CodecupClient]), the `codecup:COMMAND` player, and the
  program's side ([`serve_codecup`][.codecup_entropy.serve_codecup], behind
  `abstractgames codecup`).

The program's sides take a function that makes the player for a game, so that this package
depends on the player contract only; the command line hands them the registry's `make_player`.
"""
