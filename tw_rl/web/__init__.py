"""The local web page (``tw-rl serve``): play the bot, replay and study games in a browser.

- ``views``: a position as the page draws it (cells, stacks, player aids, status), as JSON;
- ``bots``: the page's opponents (the CodeCup bot on a clock, a checkpoint's search, baselines);
- ``games``: games against the bot, kept in memory, with undo and the record to download;
- ``study``: stored games (an arena database, a record) stepped through with a checkpoint's
  policy and value;
- ``checkpoints``: a checkpoint loaded for the page, checked against the board;
- ``shelf``: what the server keeps in memory by id (games, opened studies);
- ``app``: the Starlette application that serves the page and its JSON API.
"""
