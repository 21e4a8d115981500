"""The rating run: play the chosen players against each other, store every game, rate them.

``run_rating(cfg)`` plays pairings (picked by ``tw_rl.rating.schedule``) until the game
budget or the target interval width is reached, stores each game in the results database as it
ends, fits the Elo ratings and writes them with the pictures. ``import_referee`` folders
(``tw-rl referee`` matches) are stored first (``tw_rl.rating.referee_import``), so their games
count like the rating run's own.

With ``ray_address`` set (``local``, ``auto``, ``HOST:PORT``) the games of each pairing run as Ray
tasks (``tw_rl.rating.ray_games``), ``jobs`` at once; this process still picks the pairings and
alone writes the database.
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from tw_rl.cluster import RayUnavailable, ray_session
from tw_rl.config import RatingConfig
from tw_rl.core.player import Player
from tw_rl.core.rules import Rules
from tw_rl.rating.elo import fit
from tw_rl.rating.games import game_row, play_referee_slots
from tw_rl.rating.kinds import PlayerSpec, RatingError, kind_of
from tw_rl.rating.pictures import write_pictures
from tw_rl.rating.player_specs import make_player, parse_player, parse_players
from tw_rl.rating.ratings import Ratings, write_ratings
from tw_rl.rating.referee_import import import_referee
from tw_rl.rating.results_db import PlayerRow, ResultsDB
from tw_rl.rating.schedule import choose_pair, free_slots, interval_reached, pair_seed, pairing_ratings
from tw_rl.referee.game import draw_opening
from tw_rl.referee.process import Cancel
from tw_rl.training.match import MatchGame, Slot, play_batch


@dataclass
class RatingResult:
    """What ``run_rating`` did and found."""

    ratings: Ratings
    played: int  # games played by this call
    total: int  # games among the chosen players now stored
    stopped: str  # "budget", "interval", "interrupted"
    players: list[PlayerRow] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def report(self, db: str | Path) -> str:
        """The ranked table, what was played and stored, and the files written."""
        lines = [
            self.ratings.table(),
            f"{self.played} games played, {self.total} stored among these players; "
            f"stopped: {self.stopped}; database {db}",
        ]
        lines += [f"wrote {path}" for path in self.files]
        return "\n".join(lines)


class Session:
    """The state of one ``run_rating`` call: players, loaded nets, counters, progress bar."""

    def __init__(self, cfg: RatingConfig, rules: Rules, db: ResultsDB, specs: list[PlayerSpec]):
        self.cfg, self.rules, self.db = cfg, rules, db
        self.rows: list[PlayerRow] = []
        for spec in specs:
            self.rows.append(
                db.register(
                    spec.identity(),
                    spec.name,
                    path=spec.path,
                    run_dir=spec.run_dir,
                    generation=spec.generation,
                    step=spec.step,
                    size=spec.size,
                )
            )
        if len({r.id for r in self.rows}) < 2 and cfg.games > 0:
            raise RatingError("a rating run needs at least two different players")
        self.spec_of = {row.id: spec for row, spec in zip(self.rows, specs, strict=True)}
        self.identity = {row.id: spec.identity().key() for row, spec in zip(self.rows, specs, strict=True)}
        self.by_name = {row.name: row for row in self.rows}
        self.names = [row.name for row in self.rows]
        self.ids = [row.id for row in self.rows]
        self.total = db.count_games(self.ids, cfg.size)
        self.played = 0
        self.stopped = "budget"
        self.loaded: dict[int, Player] = {}
        self.cancel: Cancel | None = None
        self.bar = None
        if cfg.progress and cfg.games > self.total:
            self.bar = tqdm(
                total=cfg.games, initial=self.total, unit="game", file=sys.stderr, dynamic_ncols=True
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def store(self, game: MatchGame, seed: int, source: str) -> None:
        red, white = self.by_name[game.slot.red].id, self.by_name[game.slot.white].id
        if self.db.add_game(game_row(game, red, white, self.rules, seed, source)) is not None:
            self.played += 1
            self.total += 1
            if self.bar is not None:
                self.bar.update(1)

    def run(self, log: Callable[[str], None]) -> None:
        cfg = self.cfg
        try:
            while self.total < cfg.games:
                outcomes = self.db.outcomes(cfg.size)
                if cfg.ci_width > 0 and interval_reached(fit(outcomes, cfg.anchor), self.names, cfg.ci_width):
                    self.stopped = "interval"
                    return
                counts: dict[tuple[str, str], int] = {}
                for o in outcomes:
                    counts[(o.red, o.white)] = counts.get((o.red, o.white), 0) + 1
                pick = choose_pair(pairing_ratings(outcomes, self.names, cfg.anchor), self.names, counts)
                self.play_pairing(*sorted((self.by_name[pick[0]], self.by_name[pick[1]]), key=lambda r: r.id))
        except KeyboardInterrupt:
            self.stopped = "interrupted"
            if self.cancel is not None:
                self.cancel.set()
            log("interrupted: every finished game is stored")

    def play_pairing(self, a: PlayerRow, b: PlayerRow) -> None:
        cfg, rules = self.cfg, self.rules
        seed = pair_seed(cfg.seed, a, b, self.identity)
        in_process = self.spec_of[a.id].in_process and self.spec_of[b.id].in_process
        count = cfg.batch_size if in_process else max(2, cfg.jobs + cfg.jobs % 2)
        if cfg.ray_address and in_process:
            count = cfg.batch_size * cfg.jobs  # jobs batches at once, one Ray task each
        # Spread the budget: no pairing takes more than about half its share at once.
        pairs = len(self.names) * (len(self.names) - 1) // 2
        share = max(2, math.ceil(cfg.games / (2 * pairs)))
        count = min(count, share + share % 2, cfg.games - self.total)
        name = {a.id: a.name, b.id: b.name}
        slots = []
        for opening, red, white in free_slots(self.db, a, b, cfg.size, count):
            red_start, white_start = draw_opening(rules, seed, opening)
            slots.append(Slot(name[red], name[white], red_start, white_start, opening))
        if self.bar is not None:
            self.bar.set_postfix_str(f"{a.name} vs {b.name}", refresh=False)
        specs = {a.name: self.spec_of[a.id], b.name: self.spec_of[b.id]}
        source = "batched" if in_process else "referee"
        if cfg.ray_address:
            from tw_rl.rating.ray_games import play_slots_on_ray  # Ray is optional: only with ray_address

            play_slots_on_ray(
                rules, specs, slots, cfg, seed, in_process, lambda g: self.store(g, seed, source)
            )
            return
        if in_process:
            for row in (a, b):
                if row.id not in self.loaded:
                    self.loaded[row.id] = make_player(self.spec_of[row.id], rules, cfg.device)
            players = {a.name: self.loaded[a.id], b.name: self.loaded[b.id]}
            rng = np.random.default_rng([seed, slots[0].opening])
            play_batch(rules, players, slots, rng, lambda i, game: self.store(game, seed, source))
            return
        self.cancel = Cancel()
        play_referee_slots(
            rules, specs, slots, cfg, seed, self.cancel, lambda game: self.store(game, seed, source)
        )
        self.cancel = None


def _chosen_players(cfg: RatingConfig, log: Callable[[str], None]) -> list[PlayerSpec]:
    """The players of ``cfg``, the anchor among them (a baseline anchor joins when missing)."""
    specs = parse_players(list(cfg.players), cfg.simulations, cfg.size)
    if not any(s.name == cfg.anchor for s in specs):
        anchor = _baseline(cfg.anchor, cfg)
        if anchor is not None and not any(s.identity() == anchor.identity() for s in specs):
            log(f"note: the anchor {cfg.anchor} joins the players")
            specs = [anchor, *specs]
    for spec in specs:
        if spec.size is not None and spec.size != cfg.size:
            raise RatingError(
                f"{spec.path} is for board size {spec.size}, the rating run plays size {cfg.size}"
            )
    return specs


def _baseline(text: str, cfg: RatingConfig) -> PlayerSpec | None:
    """The player ``text`` is the spec and the name of (``random``, ``mcts@50``), else None."""
    try:
        specs = parse_player(text, cfg.simulations, cfg.size)
    except RatingError:
        return None
    return specs[0] if len(specs) == 1 and specs[0].name == text else None


def run_rating(cfg: RatingConfig, *, log: Callable[[str], None] = print) -> RatingResult:
    """Play games as ``cfg`` asks, store each as it ends, fit and write the ratings.

    Ctrl-C (KeyboardInterrupt) stops the games in progress; the finished ones are stored and
    the ratings are still fitted and written. Raises RatingError for bad settings.
    """
    if cfg.games < 0 or cfg.batch_size < 1 or cfg.jobs < 1:
        raise RatingError(
            f"games must be >= 0, batch_size and jobs >= 1 (got {cfg.games}, {cfg.batch_size}, {cfg.jobs})"
        )
    if not cfg.time > 0 or cfg.ci_width < 0 or cfg.memory < 0:
        raise RatingError(
            f"time must be positive, ci_width and memory >= 0 (got {cfg.time}, {cfg.ci_width}, {cfg.memory})"
        )
    try:
        rules = Rules(cfg.size, "codecup")
    except (ValueError, KeyError) as err:
        raise RatingError(f"board size {cfg.size}: {err}") from None
    specs = _chosen_players(cfg, log)
    if cfg.threads > 0 and any(kind_of(s).uses_torch for s in specs):
        torch.set_num_threads(cfg.threads)
    with contextlib.ExitStack() as stack:
        if cfg.ray_address and cfg.games > 0:
            local_cpus = cfg.jobs if cfg.ray_address == "local" else None
            try:
                stack.enter_context(ray_session(cfg.ray_address, local_cpus))
            except RayUnavailable as err:
                raise RatingError(str(err)) from None
        db = stack.enter_context(ResultsDB(cfg.db))
        for folder in cfg.import_referee:
            log(import_referee(db, folder, specs, log=log).line())
        session = Session(cfg, rules, db, specs)
        try:
            session.run(log)
        finally:
            session.close()
        ratings = fit(db.outcomes(cfg.size), cfg.anchor, players=session.names)
        if session.stopped == "budget" and interval_reached(ratings, session.names, cfg.ci_width):
            session.stopped = "interval"
        players = db.players()
    out_dir = Path(cfg.out)
    files = list(write_ratings(ratings, out_dir))
    files += write_pictures(ratings, players, session.rows, out_dir, cfg.tensorboard)
    return RatingResult(ratings, session.played, session.total, session.stopped, session.rows, files)
