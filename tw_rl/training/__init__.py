"""The AlphaZero cycle: the network, checkpoints, the replay buffer, self-play, the learner, the
loop, and self-play workers on Ray."""
