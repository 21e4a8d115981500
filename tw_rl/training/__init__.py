"""The AlphaZero cycle: the network, checkpoints, the replay buffer, self-play, the learner, the
loop (its self-play sources, its clock and its metrics log), and self-play workers on Ray."""
