"""Ratings: players of every kind in one list, games stored as they finish, Elo ratings.

One module per concept, without import cycles:

- ``ratings``: ratings as reported (table, files); ``elo``: the Bradley-Terry fit that makes them;
- ``results_db``: every game in one SQLite file;
- ``kinds``: the seam of the player kinds (``PlayerSpec``, ``PlayerKind``, ``register``): each
  kind's syntax, identity, build or program, serving and description in one class;
  ``player_kinds``: the built-in kinds (baseline, checkpoint, student, program, weights, release);
- ``player_specs``: the player language (``random``, ``mcts@N``, ``ckpt:PATH@N``, ...), which
  knows no kind by itself, and ``make_player``;
- ``players``: the in-process player builders the kinds use; ``serve``: an in-process player
  served as a CodeCup-protocol program;
- ``games``: refereed games and stored games (batched games of in-process players are
  ``tw_rl.training.match``'s); ``schedule``: which pairing plays next;
- ``referee_import``: ``tw-rl referee`` matches into the database;
- ``rating_run``: the rating run (``run_rating``), with ``ray_games`` on a Ray cluster and
  ``pictures`` of the ratings;
- ``head_to_head``: one player against another, neither stored nor rated (``scripts/match.py``).
"""
