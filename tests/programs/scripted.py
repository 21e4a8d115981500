"""A CodeCup-protocol test player that answers from a script, whatever the position.

    python scripted.py ANSWER [ANSWER ...]

Its first request is three lines (two start cells and "Start", or two start cells and red's
first move), every later request one line (the other side's move). It answers the k-th request
with the k-th ANSWER, printed as it is (a cell name, "Pass", garbage, "" for an empty line), or:
  @crash   exit with status 3 instead of answering
  @sleep   sleep far longer than any time limit (the referee kills it)
After its last ANSWER it waits for "Quit" (or the end of its input). Standard library only.
"""

from __future__ import annotations

import sys
import time


def main(answers: list[str]) -> int:
    for k, answer in enumerate(answers):
        for _ in range(3 if k == 0 else 1):
            line = sys.stdin.readline()
            if not line or line.strip() == "Quit":
                return 0
        if answer == "@crash":
            return 3
        if answer == "@sleep":
            time.sleep(3600)
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()
    while True:
        line = sys.stdin.readline()
        if not line or line.strip() == "Quit":
            return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
