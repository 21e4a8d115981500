"""The checkpoints a server offers, by name or number: ``default`` (the shipped teacher) and the
files it was started with (``--checkpoint``). A client never names a path: anything that is not
an offered name or number is refused with one line that says nothing of the server's disk."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

DEFAULT = "default"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.+\-]")


class NotOffered(ValueError):
    """A checkpoint the server was not started with."""


@dataclass(frozen=True)
class Offered:
    name: str  # what the page shows and the API accepts
    path: str  # ``default`` or the file given on the command line (never sent to a client)


class Catalogue:
    """``default`` first (number 0), then the ``--checkpoint`` files in their order."""

    def __init__(self, paths: list[str] | tuple[str, ...] = ()) -> None:
        self.entries: list[Offered] = [Offered(DEFAULT, DEFAULT)]
        taken = {DEFAULT}
        for path in paths:
            if path == DEFAULT:
                continue
            stem = _UNSAFE.sub("_", Path(path).stem) or "checkpoint"
            name, k = stem, 2
            while name in taken or name.isdecimal():
                name, k = f"{stem}-{k}", k + 1
            taken.add(name)
            self.entries.append(Offered(name, str(path)))

    def names(self) -> list[str]:
        return [e.name for e in self.entries]

    def usage(self) -> str:
        listed = ", ".join(f"{e.name} ({k})" for k, e in enumerate(self.entries))
        return f"this server offers the checkpoints {listed}: give a name or its number"

    def name_of(self, text: str) -> str:
        """The offered name of a name, a number or a path given on the command line."""
        for entry in self.entries:
            if text == entry.path:
                return entry.name
        return self.resolve(text).name

    def resolve(self, text: str | int) -> Offered:
        """The offered checkpoint of a name or number (``NotOffered`` for anything else)."""
        if not isinstance(text, bool) and isinstance(text, int):
            key = str(text)
        else:
            key = str(text).strip()
        for entry in self.entries:
            if key == entry.name:
                return entry
        if re.fullmatch(r"[0-9]{1,4}", key) and int(key) < len(self.entries):
            return self.entries[int(key)]
        shown = key if len(key) <= 40 else key[:37] + "..."
        raise NotOffered(f"checkpoint {shown!r} is not offered: {self.usage()}")
