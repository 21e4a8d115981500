"""The program launcher: a tiny script the referee runs in place of a program, which sets the
program's limits and then becomes the program (``exec``, same process id).

Run as ``python -I -S launcher.py PARENT AS_BYTES FSIZE_BYTES -- ARGV...``. It asks Linux to
SIGKILL it when the referee thread that started it dies (``PR_SET_PDEATHSIG``, kept across
exec), lowers the address-space and file-size limits (0: leave as is; inherited by the
program's children), restores the default action of the signals Python ignores (SIGPIPE,
SIGXFSZ, which an exec would otherwise pass on ignored), and execs ``ARGV``. A program that
cannot be executed is reported on stderr and the launcher exits 127.

Why a separate process and not ``subprocess``'s ``preexec_fn``: the referee runs several
games in threads, and Python code run between fork and exec in a threaded process can
deadlock on a lock another thread held at the fork (Python's documentation warns of it); the
program would then never start and the thread that started it would wait for ever, out of
reach of the cancel switch. Here the fork is Python's plain fork-exec, and the setup runs in a
fresh single-threaded interpreter.

Standard library only, and nothing else imported: it must start fast and run anywhere the
referee's own Python runs.
"""

import os
import resource
import signal
import sys

PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """SIGKILL this process (and so the program it becomes) when the referee's thread dies."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            return
    if os.getppid() != parent:  # the referee died before the line above took effect
        os._exit(1)


def lower_limit(which: int, limit_bytes: int) -> None:
    """Set a resource limit to ``limit_bytes`` (never above a hard limit already set)."""
    if limit_bytes <= 0:
        return
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        limit_bytes = min(limit_bytes, hard)
    resource.setrlimit(which, (limit_bytes, limit_bytes))


def main(args: list[str]) -> None:
    parent, as_bytes, fsize_bytes = (int(x) for x in args[:3])
    argv = args[4:]  # after the "--"
    die_with_parent(parent)
    lower_limit(resource.RLIMIT_AS, as_bytes)
    lower_limit(resource.RLIMIT_FSIZE, fsize_bytes)
    for name in ("SIGPIPE", "SIGXFSZ"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    try:
        os.execvp(argv[0], argv)
    except OSError as err:
        sys.stderr.write(f"cannot start {argv[0]!r}: {err.strerror or err}\n")
        sys.stderr.flush()
        os._exit(127)


if __name__ == "__main__":
    main(sys.argv[1:])
