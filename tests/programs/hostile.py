"""A CodeCup-protocol test player that misbehaves in one chosen way (standard library only).

    python hostile.py MODE [--pidfile PATH] [--mb N]

It plays the first legal move (by the scalar engine) until the moment its MODE strikes:

  startup-crash  exit with status 4 at once, before reading anything
  hang           read its first request and never answer (nor exit)
  flood-line     at its first move: N MB (--mb, default 4) without a newline, then sleep
  flood-lines    at its first move: N MB of garbage lines, then sleep
  flood-forever  at start-up: garbage lines without end (the referee must not buffer them all)
  no-newline     at its first move: a legal move without the newline, flushed, then sleep
  early          at start-up, before any request: a move line (then it plays normally)
  fork-exit      at its first move: fork a child that keeps stdout open and sleeps; exit itself
  fork-escape    the same, but the child first leaves the process group and session (setsid)
  memory         at its first move: allocate N MB (--mb, default 4096) and touch it, then answer
  stderr-flood   write N MB to stderr (--mb), then play normally

--pidfile appends its pid and the pids of the children it starts, one a line.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from tw_rl.codecup.rules import Board, Position

MODES = (
    "startup-crash",
    "hang",
    "flood-line",
    "flood-lines",
    "flood-forever",
    "no-newline",
    "early",
    "fork-exit",
    "fork-escape",
    "memory",
    "stderr-flood",
)


def note_pid(path: str | None, pid: int) -> None:
    if path:
        with open(path, "a") as handle:
            handle.write(f"{pid}\n")


def write(data: bytes) -> None:
    """Write all of ``data`` to stdout (fd 1), unbuffered."""
    view = memoryview(data)
    while view:
        view = view[os.write(1, view) :]


def sleep_for_ever() -> None:
    while True:
        time.sleep(1000)


def fork_child(pidfile: str | None, escape: bool) -> None:
    """Fork a child that keeps stdout open and sleeps; the parent exits at once."""
    pid = os.fork()
    if pid == 0:
        if escape:
            os.setsid()  # a new session and process group: killpg of the old group misses it
        try:
            sleep_for_ever()
        finally:
            os._exit(0)
    note_pid(pidfile, pid)
    os._exit(0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("--pidfile", default=None)
    parser.add_argument("--mb", type=int, default=None)
    args = parser.parse_args()
    note_pid(args.pidfile, os.getpid())
    mode = args.mode
    if mode == "startup-crash":
        print("hostile: crashing at start-up", file=sys.stderr, flush=True)
        sys.exit(4)
    if mode == "stderr-flood":
        block = b"e" * 1023 + b"\n"
        for _ in range(1024 * (args.mb or 4)):
            os.write(2, block)
    if mode == "early":
        write(b"F6\n")
    if mode == "flood-forever":
        line = b"x" * 99 + b"\n"
        block = line * 1000
        while True:
            write(block)
    board = Board(6)
    starts = []
    for _ in range(2):
        word = sys.stdin.readline().strip()
        if word in ("Quit", ""):
            return
        starts.append(board.parse(word))
    position = Position.start(board, *starts)
    first = True
    for line in sys.stdin:
        word = line.strip()
        if word == "Quit":
            return
        if word != "Start":
            position.play(board.pass_move if word == "Pass" else board.parse(word))
        if first:
            first = False
            if mode == "hang":
                sleep_for_ever()
            if mode == "flood-line":
                write(b"y" * (1 << 20) * (args.mb or 4))
                sleep_for_ever()
            if mode == "flood-lines":
                write((b"z" * 63 + b"\n") * (1 << 14) * (args.mb or 4))
                sleep_for_ever()
            if mode == "no-newline":
                legal = position.legal_moves()
                write(board.name(legal[0]).encode())
                sleep_for_ever()
            if mode in ("fork-exit", "fork-escape"):
                fork_child(args.pidfile, escape=mode == "fork-escape")
            if mode == "memory":
                block = bytearray(1 << 20)
                hoard = []
                for _ in range(args.mb or 4096):
                    hoard.append(bytearray(block))  # a copy: every page touched
        legal = position.legal_moves()
        move = legal[0]
        write(((board.name(move) if move != board.pass_move else "Pass") + "\n").encode())
        position.play(move)


if __name__ == "__main__":
    main()
