"""The program process: one CodeCup-protocol program run by the referee, with its clock.

A program runs as a subprocess in a session and process group of its own. A reader thread
stamps each line of its output as it arrives, so a player's clock runs from the moment the
referee starts writing a request to it until its answer line has been read; the referee's own
work is never charged to a player. A player whose total passes its budget is killed the moment
it does, answer or no answer.

Hostile programs: a program whose own process exits while a child of it still holds its output
open is a crash at once (not a time-out), and that child is killed; when the referee is done
with a program it kills its process group, then anything left in its session or holding its
output pipe (a child that called setsid), and reaps it. The peak memory of the program's own
process (VmHWM) is sampled after every answer and at the end of the game. At most
``MAX_QUEUED`` unread lines are buffered (a program flooding its output is then blocked on its
pipe, not the referee's memory filled); a line longer than ``MAX_LINE`` is garbage.
``memory_mb`` puts an address-space limit (``RLIMIT_AS``) on the program, so that one
allocating without bound fails (a crash) instead of taking the machine's memory. On Linux a
program also gets SIGKILL when the referee thread that started it dies (``PR_SET_PDEATHSIG``),
so a referee killed outright leaves no program running (a program's own children still see
their pipes close). These limits are set by ``launcher.py``, which the referee starts in the
program's place and which then execs the program (no Python code runs between fork and exec
in the threaded referee).
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, NamedTuple

from tw_rl.files import file_sha256

POLL_S = 0.25  # how often a waiting game looks at the cancel switch
MAX_LINE = 4096  # an answer longer than this is garbage; the reader stops buffering it
MAX_QUEUED = 256  # unread lines buffered per program; then the reader stops reading its pipe
MAX_ANSWER = 200  # characters of a garbage answer kept in the fault (records, messages)
REAP_S = 2.0  # how long close() waits for the program's output to close after killing it
# Largest file a program may write (its stderr log included; RLIMIT_FSIZE, inherited by its
# children): a write past it fails (SIGXFSZ, or EFBIG where the signal is ignored, as in
# Python), so a program that floods stderr crashes with that reason instead of filling the disk.
FILE_LIMIT_BYTES = 64 << 20
# Programs that run a script named among their arguments: the script is what the hash names.
INTERPRETER = re.compile(r"(python|pypy)[0-9.]*|node|java|perl|ruby|bash|sh|dash|zsh")


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
    sha256: str = ""  # of the file it runs (script_sha256), "" if none
    seconds: float | None = None  # its own clock, seconds a game, that the judge keeps (None: the match's)

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
    """sha256 of the file a command runs, else ''.

    For an interpreter (``python bot.py --x``) the first argument that is a file, its script;
    for any other program (``./bot --endgame 6``) the program's own file, options aside.
    """
    if INTERPRETER.fullmatch(os.path.basename(argv[0])):
        files = [arg for arg in argv[1:] if os.path.isfile(arg)]
    else:
        found = shutil.which(argv[0])
        files = [found] if found and os.path.isfile(found) else []
    return file_sha256(files[0]) if files else ""


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


def proc_stat(pid: int) -> list[bytes] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (state, ppid, pgrp, session,
    ...); None when the process is gone or /proc cannot be read. The name is skipped by the
    last ``)``, since a name may hold spaces and parentheses."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def stragglers(session: int, pipe: str) -> list[int]:
    """Processes (not this one) in session ``session`` or holding the pipe ``pipe``
    (``pipe:[inode]``) open for writing, found in /proc: what a process-group kill misses (a
    child that moved to another group, or called setsid and kept the pipe). Only the writing
    end counts: a child the referee forks for another game holds the reading end until its exec.
    [] where /proc is missing."""
    found = []
    me = os.getpid()
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []
    for pid in pids:
        if pid == me:
            continue
        try:
            fields = proc_stat(pid)
            if fields is None:
                continue  # gone meanwhile
            if fields[0] == b"Z":
                continue  # already dead, waiting to be reaped
            if int(fields[3]) == session:
                found.append(pid)
                continue
            if any(_writes_to(pid, fd, pipe) for fd in os.listdir(f"/proc/{pid}/fd")):
                found.append(pid)
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile, or not ours to look at
    return found


def _writes_to(pid: int, fd: str, pipe: str) -> bool:
    """Whether descriptor ``fd`` of process ``pid`` is ``pipe`` opened for writing."""
    try:
        if os.readlink(f"/proc/{pid}/fd/{fd}") != pipe:
            return False
        with open(f"/proc/{pid}/fdinfo/{fd}", "rb") as handle:
            for line in handle:
                if line.startswith(b"flags:"):
                    return int(line.split()[1], 8) & os.O_ACCMODE != os.O_RDONLY
    except (OSError, ValueError, IndexError):
        pass
    return False


def vm_hwm_kib(pid: int) -> int:
    """The peak resident memory (VmHWM) of a living process in KiB; 0 when it cannot be read
    (gone, a zombie, no /proc)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


LAUNCHER = Path(__file__).with_name("launcher.py")


def launch_argv(argv: list[str], memory_mb: int) -> list[str]:
    """The command that starts ``argv`` through the launcher: death with the referee's thread,
    the address-space limit (``memory_mb`` > 0) and the file-size limit set before its exec."""
    limits = [str(os.getpid()), str(max(0, memory_mb) << 20), str(FILE_LIMIT_BYTES)]
    return [sys.executable, "-I", "-S", str(LAUNCHER), *limits, "--", *argv]


class Answer(NamedTuple):
    text: str | None  # the line the program printed, stripped (None when there is none)
    kind: str | None  # a fault found before the line could be judged: garbage, crash, timeout
    detail: str


class PlayerProcess:
    """One running program: pipes, a reader thread, the lines it is owed, its clock."""

    def __init__(
        self,
        program: Program,
        stderr_path: Path | None,
        cancel: Cancel | None,
        memory_mb: int = 0,
        *,
        cwd: str | Path | None = None,
    ) -> None:
        self.program = program
        self.cancel = cancel
        self.memory_mb = memory_mb
        self.lines: queue.Queue[tuple[float, bytes | None]] = queue.Queue(MAX_QUEUED)
        self.pending: list[str] = []  # protocol lines to send with the next request
        self.used = 0.0  # seconds of thinking so far
        self.slowest = (0.0, -1)  # (seconds, ply) of its slowest answer
        self.max_rss_kib = 0  # peak resident memory (VmHWM, KiB) of the program's own process, as sampled
        self.partial = b""  # output after its last newline (what the reader holds back)
        self.start_error: str | None = None
        self.stderr_path = stderr_path
        self.stderr: IO[bytes] = open(stderr_path, "w+b") if stderr_path else tempfile.TemporaryFile()
        self.proc: subprocess.Popen | None = None
        self.reader: threading.Thread | None = None
        self.pipe = ""  # "pipe:[inode]" of its output, to find processes still holding it
        self._closing = threading.Event()
        try:
            self.proc = subprocess.Popen(
                launch_argv(program.argv, memory_mb),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                bufsize=0,
                start_new_session=True,
                cwd=cwd,
            )
        except (OSError, subprocess.SubprocessError) as err:
            reason = getattr(err, "strerror", None) or err
            self.start_error = f"cannot start {program.argv[0]!r}: {reason}"
            self.lines.put((time.monotonic(), None))
            return
        assert self.proc.stdout is not None
        self.pipe = f"pipe:[{os.fstat(self.proc.stdout.fileno()).st_ino}]"
        if cancel is not None:
            cancel.register(self.proc)
        self.reader = threading.Thread(target=self._read, name=f"referee-read-{program.name}", daemon=True)
        self.reader.start()

    def _put(self, item: tuple[float, bytes | None]) -> bool:
        """Queue an item, waiting while the queue is full; False once the program is closed."""
        while not self._closing.is_set():
            try:
                self.lines.put(item, timeout=POLL_S)
                return True
            except queue.Full:
                continue
        return False

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
                    if not self._put((now, line)):
                        return
                if len(buffer) > MAX_LINE:
                    if not self._put((now, buffer)):
                        return
                    buffer = b""
                self.partial = buffer
        except OSError:
            pass
        finally:
            if buffer and not self._closing.is_set():
                self._put((time.monotonic(), buffer))
            self.partial = b""
            if not self._closing.is_set():
                self._put((time.monotonic(), None))
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
            text = decode(early)[:MAX_ANSWER]
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
                if self._exited():
                    # Gone, but something (a child of it) holds its output open: kill that too,
                    # so that the reader sees the end (after any line written before it).
                    self._kill_all()
                continue
            break
        if self.cancel is not None and self.cancel.is_set():
            raise MatchInterrupted
        seconds = stamp - start
        if self.used + seconds > budget:
            return self._time_out(seconds, budget, ply)
        self.used += seconds
        self.slowest = max(self.slowest, (seconds, ply))
        self.sample_memory()
        if line is None:
            return Answer(None, "crash", self.exit_detail())
        return Answer(decode(line)[:MAX_ANSWER], None, "")

    def _time_out(self, seconds: float, budget: float, ply: int) -> Answer:
        assert self.proc is not None
        partial = decode(self.partial)
        kill_group(self.proc)
        self.used += seconds
        self.slowest = max(self.slowest, (seconds, ply))
        detail = f"used {self.used:.3f} s of its {budget:g} s and was killed"
        if partial:
            detail += f" (it had printed {shorten(partial)!r} without a newline)"
        return Answer(None, "timeout", detail)

    def _exited(self) -> bool:
        """Whether the program's own process has exited (peeked: not reaped)."""
        if self.proc is None:
            return True
        try:
            info = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return True
        return info is not None

    def _kill_all(self) -> None:
        """Kill the program's group, then whatever is left in its session or on its pipe."""
        if self.proc is None:
            return
        kill_group(self.proc)
        for pid in stragglers(self.proc.pid, self.pipe):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def exit_code(self, wait: float = 0.0) -> int | None:
        """The program's exit status (minus the signal that killed it), waiting up to ``wait``
        seconds for it to exit; None while it runs, or when it never started. Peeked, not reaped,
        so the process group id stays ours until ``close``."""
        if self.proc is None:
            return None
        deadline = time.monotonic() + wait
        while True:
            try:
                info = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return self.proc.returncode  # already reaped (by close)
            if info is not None:
                return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.01)

    def exit_detail(self) -> str:
        """Why the program is gone: its exit status (if known soon) and its last stderr line."""
        if self.start_error:
            return self.start_error
        code = self.exit_code(wait=0.5)
        if code is None:
            status = "closed its output"
        elif code >= 0:
            status = f"exited with status {code}"
        elif -code == signal.SIGXFSZ:
            status = f"was stopped for writing more than {FILE_LIMIT_BYTES >> 20} MiB to a file or stderr"
        else:
            status = f"was killed by signal {-code}"
        if FILE_LIMIT_BYTES and os.fstat(self.stderr.fileno()).st_size >= FILE_LIMIT_BYTES:
            status += f" after its stderr reached the {FILE_LIMIT_BYTES >> 20} MiB limit"
        last = self.stderr_tail()
        if self.memory_mb and last and ("MemoryError" in last or "alloc" in last.lower()):
            last += f"; memory limit {self.memory_mb} MiB"
        return f"{status}{f' ({last})' if last else ''}"

    def stderr_tail(self, limit: int = 200) -> str:
        """The last non-empty line the program wrote to stderr, shortened."""
        fd = self.stderr.fileno()
        size = os.fstat(fd).st_size
        tail = os.pread(fd, min(size, 4096), max(0, size - 4096)).decode("utf-8", "replace")
        lines = [line.strip() for line in tail.splitlines() if line.strip()]
        return shorten(lines[-1], limit) if lines else ""

    def sample_memory(self) -> None:
        """Take the program's peak resident memory so far (VmHWM) into ``max_rss_kib``.

        VmHWM is the high-water mark of the process's own memory since its exec, so a reading
        while it lives covers its whole life until then. (Not ``ru_maxrss`` from wait4: a child
        forked from a large referee process inherits the parent's size there before its exec.)
        """
        if self.proc is None or self.proc.returncode is not None:
            return
        self.max_rss_kib = max(self.max_rss_kib, vm_hwm_kib(self.proc.pid))

    def finish(self, wait: float) -> None:
        """Wait up to ``wait`` seconds for the program to close its output (after Quit)."""
        if self.reader is not None:
            self.reader.join(max(0.0, wait))

    def close(self) -> None:
        """Kill the program (its group, session and whatever holds its output), reap it, stop
        the reader, and drop an empty stderr log. Idempotent."""
        if self.stderr.closed:
            return
        if self.proc is not None:
            kill_group(self.proc)
            if self.reader is not None:
                self.reader.join(POLL_S)
                if self.reader.is_alive():  # something outside the group holds the pipe
                    self._kill_all()
            if self.cancel is not None:
                self.cancel.unregister(self.proc)
            self.proc.wait()
            self._closing.set()  # a reader blocked on a full queue gives up
            if self.reader is not None:
                self.reader.join(REAP_S)
            if self.proc.stdin is not None:
                with contextlib.suppress(OSError):
                    self.proc.stdin.close()
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
