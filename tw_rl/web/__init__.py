"""The local web page (``tw-rl serve``): play the bot, replay and study games in a browser.

- ``views``: a position as the page draws it (cells, stacks, player aids, the hover preview,
  the score bar, status), as JSON;
- ``bots``: the page's opponents (the CodeCup bot on a game clock, a checkpoint's search, baselines);
- ``bot_syntax``: how the opponents are named (``bot@SECONDS``, ``ckpt:NAME@N``, the baselines)
  and their defaults, light enough for the help of ``tw-rl serve``;
- ``games``: games against the bot, kept in memory, with undo, going back to a ply and a record;
- ``hints``: the bot's evaluation of a position and a hint (best move, principal variation);
- ``study``: stored games (a rating results database, a record) stepped through with a checkpoint's
  policy and value;
- ``catalogue``: the checkpoints and databases the server offers, by name or number;
- ``checkpoints``: an offered checkpoint loaded for the page, checked against the board;
- ``shelf``: what the server keeps in memory by id (games, opened studies);
- ``limits``: how much work the server takes on, and the queue of searches;
- ``guard``: the front door (Host allow-list, token, JSON-only same-origin writes, client id);
- ``app``: the Starlette application that serves the page and its JSON API.
"""
