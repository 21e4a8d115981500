"""What a server offers by name or number: the checkpoints (``default``, the shipped teacher, and
the files it was started with, ``--checkpoint``) and the results databases (``--db``). A client
never names a path: anything that is not an offered name or number is refused with one line that
says nothing of the server's disk."""

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


def file_names(paths: list[str] | tuple[str, ...], taken: set[str] | None = None) -> list[str]:
    """A name for each file, from its stem: safe characters only, never a bare number, unique."""
    taken = set(taken or ())
    names = []
    for path in paths:
        stem = _UNSAFE.sub("_", Path(path).stem) or "file"
        name, k = stem, 2
        while name in taken or name.isdecimal():
            name, k = f"{stem}-{k}", k + 1
        taken.add(name)
        names.append(name)
    return names


class Catalogue:
    """Offered files by name (number 0 first); ``default`` first for checkpoints."""

    def __init__(self, paths: list[str] | tuple[str, ...] = (), what: str = "checkpoint") -> None:
        self.what = what
        self.entries: list[Offered] = [Offered(DEFAULT, DEFAULT)] if what == "checkpoint" else []
        paths = [p for p in paths if not (what == "checkpoint" and p == DEFAULT)]
        taken = {e.name for e in self.entries}
        for name, path in zip(file_names(paths, taken), paths, strict=True):
            self.entries.append(Offered(name, str(path)))

    def names(self) -> list[str]:
        return [e.name for e in self.entries]

    def usage(self) -> str:
        if not self.entries:
            return f"this server offers no {self.what}s"
        listed = ", ".join(f"{e.name} ({k})" for k, e in enumerate(self.entries))
        return f"this server offers the {self.what}s {listed}: give a name or its number"

    def name_of(self, text: str) -> str:
        """The offered name of a name, a number or a path given on the command line."""
        for entry in self.entries:
            if text == entry.path:
                return entry.name
        return self.resolve(text).name

    def resolve(self, text: str | int) -> Offered:
        """The offered entry of a name or number (``NotOffered`` for anything else)."""
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
        raise NotOffered(f"{self.what} {shown!r} is not offered: {self.usage()}")
