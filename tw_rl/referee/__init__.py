"""A referee for CodeCup-protocol programs: plays and scores games between two command lines.

One module per layer, each importing only the ones above it:

- ``process``: a program's process (``Program``, ``Cancel``, the clocked ``PlayerProcess``);
- ``game``: one refereed game (``play_game``, ``Fault``, ``GameResult``, ``draw_opening``);
- ``match``: a match of paired games (``run_match``, ``MatchResult``, ``format_table``); its
  Wilson intervals are ``tw_rl.stats``'s.

Nothing is re-exported here: import from the module.
"""
