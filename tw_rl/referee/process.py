"""The program process: one CodeCup-protocol program run by the referee, with its clock.

A program runs as a subprocess in a process group of its own (so killing it kills its children
too). A reader thread stamps each line of its output as it arrives, so a player's clock runs
from the moment the referee starts writing a request to it until its answer line has been
read; the referee's own work is never charged to a player. A player whose total passes its
budget is killed the moment it does, answer or no answer.
"""

from __future__ import annotations

import os
import queue
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, NamedTuple

from tw_rl.files import file_sha256

POLL_S = 0.25  # how often a waiting game looks at the cancel switch
MAX_LINE = 4096  # an answer longer than this is garbage; the reader stops buffering it


class RefereeError(ValueError):
    """A bad match setting (program, option, results folder): a message for the user."""


class MatchInterrupted(Exception):
    """The match was cancelled while this game was in progress; the game is dropped."""


@dataclass(frozen=True)
class Program:
    """A player program: a label (A or B) and the command line that starts it (no shell)."""

    name: str
    command: str
    argv: tuple[str, ...]
    sha256: str = ""  # of the script it runs (the first argument that is a file), "" if none

    @classmethod
    def parse(cls, name: str, command: str) -> Program:
        """Split ``command`` like a shell would; RefereeError if it is empty or not found."""
        try:
            argv = tuple(shlex.split(command))
        except ValueError as err:
            raise RefereeError(f"program {name}: cannot split the command {command!r}: {err}") from None
        if not argv:
            raise RefereeError(f"program {name}: the command is empty")
        if shutil.which(argv[0]) is None:
            raise RefereeError(f"program {name}: no such program {argv[0]!r} (command {command!r})")
        return cls(name, command, argv, script_sha256(argv))


def script_sha256(argv: tuple[str, ...]) -> str:
    """sha256 of the first argument that is a file (the script of ``python bot.py``), else ''."""
    for arg in argv[1:] or argv:
        if os.path.isfile(arg):
            return file_sha256(arg)
    return ""


class Cancel:
    """A switch that stops games in progress: setting it kills every registered program group."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._procs: set[subprocess.Popen] = set()

    def is_set(self) -> bool:
        return self._event.is_set()

    def set(self) -> None:
        with self._lock:
            self._event.set()
            for proc in self._procs:
                kill_group(proc)

    def register(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._procs.add(proc)
            if self._event.is_set():
                kill_group(proc)

    def unregister(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._procs.discard(proc)


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the program's process group. Only called before the leader is reaped, so the
    group id cannot have been reused."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Answer(NamedTuple):
    text: str | None  # the line the program printed, stripped (None when there is none)
    kind: str | None  # a fault found before the line could be judged: garbage, crash, timeout
    detail: str


class PlayerProcess:
    """One running program: pipes, a reader thread, the lines it is owed, its clock."""

    def __init__(self, program: Program, stderr_path: Path | None, cancel: Cancel | None) -> None:
        self.program = program
        self.cancel = cancel
        self.lines: queue.Queue[tuple[float, bytes | None]] = queue.Queue()
        self.pending: list[str] = []  # protocol lines to send with the next request
        self.used = 0.0  # seconds of thinking so far
        self.slowest = (0.0, -1)  # (seconds, ply) of its slowest answer
        self.start_error: str | None = None
        self.stderr_path = stderr_path
        self.stderr: IO[bytes] = open(stderr_path, "w+b") if stderr_path else tempfile.TemporaryFile()
        self.proc: subprocess.Popen | None = None
        self.reader: threading.Thread | None = None
        try:
            self.proc = subprocess.Popen(
                program.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                bufsize=0,
                start_new_session=True,
            )
        except OSError as err:
            self.start_error = f"cannot start {program.argv[0]!r}: {err.strerror or err}"
            self.lines.put((time.monotonic(), None))
            return
        if cancel is not None:
            cancel.register(self.proc)
        self.reader = threading.Thread(target=self._read, name=f"referee-read-{program.name}", daemon=True)
        self.reader.start()

    def _read(self) -> None:
        """Queue (arrival time, line) for every line of output, then (time, None) at its end."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        buffer = b""
        try:
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                now = time.monotonic()
                *lines, buffer = (buffer + chunk).split(b"\n")
                for line in lines:
                    self.lines.put((now, line))
                if len(buffer) > MAX_LINE:
                    self.lines.put((now, buffer))
                    buffer = b""
        except OSError:
            pass
        finally:
            if buffer:
                self.lines.put((time.monotonic(), buffer))
            self.lines.put((time.monotonic(), None))
            self.proc.stdout.close()

    def send(self, lines: list[str]) -> bool:
        """Write protocol lines; False when the program's input is closed (it has gone)."""
        if self.proc is None or self.proc.stdin is None:
            return False
        data = "".join(line + "\n" for line in lines).encode()
        try:
            fd = self.proc.stdin.fileno()
            while data:
                data = data[os.write(fd, data) :]
        except (OSError, ValueError):
            return False
        return True

    def ask(self, budget: float, ply: int) -> Answer:
        """Send the pending lines and wait for one answer line, charging the clock."""
        try:
            _, early = self.lines.get_nowait()
        except queue.Empty:
            pass
        else:
            if early is None:
                return Answer(None, "crash", self.exit_detail())
            text = decode(early)
            return Answer(text, "garbage", f"printed {shorten(text)!r} before it was asked for a move")
        lines, self.pending = self.pending, []
        start = time.monotonic()
        if not self.send(lines):
            return Answer(None, "crash", self.exit_detail())
        deadline = start + budget - self.used
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return self._time_out(time.monotonic() - start, budget, ply)
            try:
                stamp, line = self.lines.get(timeout=min(left, POLL_S))
            except queue.Empty:
                if self.cancel is not None and self.cancel.is_set():
                    raise MatchInterrupted from None
                continue
            break
        if self.cancel is not None and self.cancel.is_set():
            raise MatchInterrupted
        seconds = stamp - start
        if self.used + seconds > budget:
            return self._time_out(seconds, budget, ply)
        self.used += seconds
        self.slowest = max(self.slowest, (seconds, ply))
        if line is None:
            return Answer(None, "crash", self.exit_detail())
        return Answer(decode(line), None, "")

    def _time_out(self, seconds: float, budget: float, ply: int) -> Answer:
        assert self.proc is not None
        kill_group(self.proc)
        self.used += seconds
        self.slowest = max(self.slowest, (seconds, ply))
        return Answer(None, "timeout", f"used {self.used:.3f} s of its {budget:g} s and was killed")

    def exit_detail(self) -> str:
        """Why the program is gone: its exit status (if known soon) and its last stderr line."""
        if self.start_error:
            return self.start_error
        assert self.proc is not None
        status = "closed its output"
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            # Peek without reaping, so the process group id stays ours until ``close``.
            try:
                info = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                break
            if info is not None:
                if info.si_code == os.CLD_EXITED:
                    status = f"exited with status {info.si_status}"
                else:
                    status = f"was killed by signal {info.si_status}"
                break
            time.sleep(0.01)
        last = self.stderr_tail()
        return f"{status}{f' ({last})' if last else ''}"

    def stderr_tail(self, limit: int = 200) -> str:
        """The last non-empty line the program wrote to stderr, shortened."""
        fd = self.stderr.fileno()
        size = os.fstat(fd).st_size
        tail = os.pread(fd, min(size, 4096), max(0, size - 4096)).decode("utf-8", "replace")
        lines = [line.strip() for line in tail.splitlines() if line.strip()]
        return shorten(lines[-1], limit) if lines else ""

    def finish(self, wait: float) -> None:
        """Wait up to ``wait`` seconds for the program to close its output (after Quit)."""
        if self.reader is not None:
            self.reader.join(max(0.0, wait))

    def close(self) -> None:
        """Kill the program's group, reap it, and drop an empty stderr log."""
        if self.proc is not None:
            kill_group(self.proc)
            if self.cancel is not None:
                self.cancel.unregister(self.proc)
            self.proc.wait()
            if self.reader is not None:
                self.reader.join(1.0)
            if self.proc.stdin is not None:
                try:
                    self.proc.stdin.close()
                except OSError:
                    pass
        empty = os.fstat(self.stderr.fileno()).st_size == 0
        self.stderr.close()
        if empty and self.stderr_path is not None:
            self.stderr_path.unlink(missing_ok=True)


def decode(line: bytes) -> str:
    """A line of program output as text (bad bytes replaced), stripped."""
    return line.decode("utf-8", "replace").strip()


def shorten(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters (an ellipsis marks the cut) for messages."""
    return text if len(text) <= limit else text[: limit - 3] + "..."
