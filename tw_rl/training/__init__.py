"""The AlphaZero cycle: the network, checkpoints, the replay buffer, self-play, the learner, the
loop, self-play workers on Ray, and matches between in-process players (``match``: paired
openings, the one way the project plays them)."""
