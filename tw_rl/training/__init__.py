"""The AlphaZero cycle: the network, checkpoints, the replay buffer, self-play, the learner, the
loop (its self-play sources, its clock and its metrics log), self-play workers on Ray, and matches
between in-process players (``match``: paired openings, the one way the project plays them)."""
