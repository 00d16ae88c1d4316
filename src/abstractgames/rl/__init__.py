"""Our games in the game-AI ecosystems (the `rl` extra: `pip install 'abstractgames[rl]'`).

- [`abstractgames.rl.pettingzoo`][]: a PettingZoo AEC environment per game;
- [`abstractgames.rl.gymnasium`][]: single-agent Gymnasium environments against a chosen opponent;
- [`abstractgames.rl.openspiel`][]: every registered game as an OpenSpiel Python game, and an
  OpenSpiel MCTS bot as the player `openspiel-mcts`.

They all stand on the integer actions and observations of the game protocol
([`Game.action_of`][abstractgames.protocol.Game.action_of],
[`State.observation`][abstractgames.protocol.State.observation]), which need no extra library. This
package imports nothing itself; each module imports its library.
"""
