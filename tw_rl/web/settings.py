"""What the web page's server offers and its limits: ``ServerSettings``, and ``SettingsError`` for
one that cannot be used."""

from __future__ import annotations

from dataclasses import dataclass, field

from tw_rl.web.bot_syntax import DEFAULT_BOT
from tw_rl.web.guard import LOOPBACK_NAMES
from tw_rl.web.limits import Limits


class SettingsError(ValueError):
    """A server setting that cannot be used (a bot spec, a checkpoint name, a database)."""


@dataclass
class ServerSettings:
    db: str | None = None  # a rating results database to browse (the first)
    dbs: list[str] = field(default_factory=list)  # more of them
    checkpoints: list[str] = field(default_factory=list)  # files offered (besides default)
    analysis_checkpoint: str | None = "default"  # the one chosen at first (a name, number or file)
    bot: str = DEFAULT_BOT
    limits: Limits = field(default_factory=Limits)
    allowed_hosts: frozenset[str] | None = LOOPBACK_NAMES  # None: any Host (then the token guards)
    token: str | None = None  # required on every request when set
