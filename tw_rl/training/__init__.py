"""The AlphaZero cycle: the network, checkpoints, the replay buffer, self-play, the learner, the loop, Ray self-play."""
