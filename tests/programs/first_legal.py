"""A CodeCup-protocol test player: plays its first legal move, or commits a chosen fault.

    python first_legal.py [--fault KIND --at K] [--delay S] [--pidfile PATH] [--size N]

KIND, done at its own move K (0 = its first):
  illegal   a cell of the board where it may not place     offboard  a cell off the board (A11)
  garbage   a line that is no move                         crash     exit with status 3
  hang      sleep for ever, with a sleeping child process  pass      "Pass" while a move exists
  double    print two moves at once (the second one is unsolicited)
--delay S sleeps S seconds before every answer. --pidfile appends its pid (and the hang child's).
Standard library plus the scalar engine of tw_rl.codecup.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from tw_rl.codecup.rules import Board, Position

FAULTS = ("none", "illegal", "offboard", "garbage", "crash", "hang", "pass", "double")


def note_pid(path: str | None, pid: int) -> None:
    if path:
        with open(path, "a") as handle:
            handle.write(f"{pid}\n")


def answer(position: Position, board: Board, fault: str, pidfile: str | None) -> str | None:
    """The line to print for this move (None: the fault needs no line)."""
    legal = position.legal_moves()
    first = board.name(legal[0]) if legal[0] != board.pass_move else "Pass"
    if fault == "none":
        return first
    if fault == "illegal":
        return board.name(next(i for i in range(board.num_cells) if i not in legal))
    if fault == "offboard":
        return "A11"
    if fault == "garbage":
        return "hello, judge"
    if fault == "pass":
        return "Pass"
    if fault == "double":
        second = board.name(legal[1]) if len(legal) > 1 else first
        return f"{first}\n{second}"
    if fault == "crash":
        print("first_legal: crashing on purpose", file=sys.stderr, flush=True)
        sys.exit(3)
    if fault == "hang":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"])
        note_pid(pidfile, child.pid)
        time.sleep(1000)
    raise AssertionError(fault)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fault", choices=FAULTS, default="none")
    parser.add_argument("--at", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--pidfile", default=None)
    parser.add_argument("--size", type=int, default=6)
    args = parser.parse_args()
    note_pid(args.pidfile, os.getpid())
    board = Board(args.size)
    starts = []
    for _ in range(2):
        word = sys.stdin.readline().strip()
        if word in ("Quit", ""):  # the judge may quit before this player's first turn
            return
        starts.append(board.parse(word))
    red, white = starts
    position = Position.start(board, red, white)
    own = 0
    for line in sys.stdin:
        word = line.strip()
        if word == "Quit":
            return
        if word != "Start":
            position.play(board.pass_move if word == "Pass" else board.parse(word))
        if args.delay:
            time.sleep(args.delay)
        text = answer(position, board, args.fault if own == args.at else "none", args.pidfile)
        sys.stdout.write(text + "\n")  # one write, so that both lines of 'double' arrive together
        sys.stdout.flush()
        if own != args.at or args.fault in ("none", "double"):
            move = text.split("\n")[0]
            position.play(board.pass_move if move == "Pass" else board.parse(move))
        own += 1


if __name__ == "__main__":
    main()
