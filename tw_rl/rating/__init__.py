"""Ratings: the Elo fit, the results database, players and their specs, batched and refereed games, the evaluation run, pictures, Ray games, referee import."""
