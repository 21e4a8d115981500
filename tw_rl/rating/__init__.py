"""Ratings: the Elo fit, the results database, player specs and players, batched and refereed
games, the evaluation run, pictures, Ray games and the referee import."""
