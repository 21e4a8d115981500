"""tw_rl: reinforcement learning for the board game Tumbleweed.

Importing the package loads nothing else: `tw_rl.codecup` (the CodeCup bot) must run on the
standard library alone, and `tw_rl.core` on numpy and the standard library.
"""
