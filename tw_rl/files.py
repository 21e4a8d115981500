"""Files that must survive a crash: written to a temporary name beside the target, then renamed.
Also the one sha256 of a file's bytes (``file_sha256``) that identifies checkpoints, weights
and programs.

A reader (or a run restarted after a kill) sees the old file or the whole new one, never a
part. Used for game records, shards, checkpoints, pictures and the submission file. A writer
may read the temporary file back (``check``) before it takes the target's name, so that a file
that does not read back as written never replaces anything. A process killed while writing
leaves its temporary file (``.NAME.XXXXXXXX.tmp``, never read as data);
``remove_temporaries`` clears them when the owner starts again. Line logs (``append_line``)
get whole lines in one write; ``drop_partial_line`` removes the cut-off tail of one killed
while writing. ``folder_lock`` keeps a second process out of a folder one process is writing
(a training run, a soak).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

TEMPORARY = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")  # atomic_writer's temporary names


@contextlib.contextmanager
def atomic_writer(
    path: str | os.PathLike, check: Callable[[Path], object] | None = None
) -> Iterator[BinaryIO]:
    """A binary handle whose content replaces ``path`` only if the block ends without error.

    ``check(temporary_path)``, if given, reads the written file back before the rename; an
    exception from it leaves ``path`` as it was and propagates. OSError (no such folder, no
    space, no permission) propagates; callers turn it into their own one-line message.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.resolve().parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if check is not None:
            check(Path(tmp))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; give it a normal file's mode
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_atomic(
    path: str | os.PathLike, data: bytes | str, check: Callable[[Path], object] | None = None
) -> None:
    """Write bytes (or UTF-8 text) to ``path`` atomically (``check``: see ``atomic_writer``)."""
    with atomic_writer(path, check) as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)


def same_bytes(data: bytes) -> Callable[[Path], None]:
    """A ``check`` for ``atomic_writer``: the written file holds exactly ``data`` (OSError if not)."""

    def check(path: Path) -> None:
        if Path(path).read_bytes() != data:
            raise OSError(f"{path}: the written file does not read back as written")

    return check


def remove_temporaries(folder: str | os.PathLike) -> list[Path]:
    """Delete the temporary files ``atomic_writer`` left in ``folder`` (a writer killed before
    its rename); only for a folder no other process is writing. Returns what was removed."""
    removed = []
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(folder):
            if TEMPORARY.match(entry.name) and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
    return removed


def append_line(path: str | os.PathLike, line: str) -> None:
    """Append one line (a newline is added) in a single write, and sync it: a reader, or a
    process killed meanwhile, sees the whole line or none of it."""
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        written = os.write(fd, data)
        if written != len(data):  # a full disk: do not leave half a line
            raise OSError(f"short write to {path} ({written} of {len(data)} bytes)")
        os.fsync(fd)
    finally:
        os.close(fd)


def drop_partial_line(path: str | os.PathLike) -> bool:
    """Cut a line log after its last newline (the tail a writer killed mid-line left);
    True when something was cut."""
    try:
        with open(path, "rb+") as handle:
            data = handle.read()
            keep = data.rfind(b"\n") + 1
            if keep == len(data):
                return False
            handle.truncate(keep)
            return True
    except FileNotFoundError:
        return False


def file_sha256(path: str | os.PathLike) -> str:
    """The sha256 of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


LOCK_FILE = ".lock"


class FolderInUse(OSError):
    """Another process holds the folder's lock (``pid``: the holder's, or "?")."""

    def __init__(self, folder: Path, pid: str):
        super().__init__(f"{folder} is in use by another process (pid {pid})")
        self.folder = folder
        self.pid = pid


@contextlib.contextmanager
def folder_lock(folder: str | os.PathLike) -> Iterator[None]:
    """Hold ``<folder>/.lock`` (an flock, which the kernel releases when the holder ends, killed
    or not, so a stale lock never blocks a restart); FolderInUse if another process holds it.
    The file keeps the holder's pid for the message. Without fcntl (not POSIX): no lock."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    folder = Path(folder)
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            raise FolderInUse(folder, holder) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)
