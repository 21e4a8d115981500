"""The check game of ``tw-rl export --check`` (``play_check_game``): each way a program can fail
it gets its own message, and a program that plays cleanly passes, as either colour."""

from __future__ import annotations

import sys

import pytest

from tw_rl.export import submission_check

# A legal player: the first legal move every time; after Quit it does what its mode says.
FIRST_LEGAL = """\
import sys, time
from tw_rl.codecup.rules import Board, Position
mode = sys.argv[1]
board = Board(6)
red, white = board.parse(input().strip()), board.parse(input().strip())
pos = Position.start(board, red, white)
while True:
    line = input().strip()
    if line == "Quit":
        break
    if line != "Start":
        pos.play(board.num_cells if line == "Pass" else board.parse(line))
    move = pos.legal_moves()[0]
    pos.play(move)
    print("Pass" if move == board.num_cells else board.name(move), flush=mode != "twice")
    if mode == "twice":
        print("hello", flush=True)
if mode == "extra":
    print("bye", flush=True)
if mode == "stderr":
    sys.stderr.write("warning: something odd\\n")
if mode == "hang":
    time.sleep(60)
sys.exit(2 if mode == "exit2" else 0)
"""


def run_player(tmp_path, mode: str, colour: str = "red", move_timeout: float = 20.0):
    script = tmp_path / "player.py"
    script.write_text(FIRST_LEGAL)
    return submission_check.play_check_game(
        [sys.executable, str(script), mode], colour, seed=3, cwd=tmp_path, move_timeout=move_timeout
    )


@pytest.mark.parametrize("colour", ["red", "white"])
def test_a_clean_player_passes(tmp_path, colour):
    report = run_player(tmp_path, "clean", colour)
    assert report.ok and report.problem is None, report.problem
    assert report.colour == colour and report.returncode == 0 and report.stderr == ""
    assert report.answers > 5 and report.plies >= 2 * report.answers - 1
    assert submission_check.format_check([report]).startswith("check: ok (")


@pytest.mark.parametrize(
    ("mode", "problem"),
    [
        ("exit2", "exit code 2 after Quit"),
        ("extra", "output after the game: 'bye'"),
        ("stderr", "stderr: warning: something odd"),
    ],
)
def test_what_a_player_does_after_quit_is_checked(tmp_path, mode, problem):
    report = run_player(tmp_path, mode)
    assert not report.ok and report.problem == problem
    assert report.answers > 5
    assert submission_check.format_check([report]) == f"check: FAIL (red: {problem})"


def test_a_player_that_does_not_exit_after_quit_fails(tmp_path):
    report = run_player(tmp_path, "hang", move_timeout=1.0)
    assert not report.ok and report.problem == "the program did not exit after Quit"


def one_shot(tmp_path, body: str, colour: str = "red", move_timeout: float = 20.0):
    """A program that reads its first three lines (the start cells, then Start or red's move),
    then runs ``body``."""
    script = tmp_path / "shot.py"
    script.write_text(f"import sys, time\nfor _ in range(3): sys.stdin.readline()\n{body}\n")
    return submission_check.play_check_game(
        [sys.executable, str(script)], colour, seed=5, cwd=tmp_path, move_timeout=move_timeout
    )


def test_a_line_that_is_not_a_move(tmp_path):
    report = one_shot(tmp_path, "print('hello there', flush=True)\ntime.sleep(5)")
    assert not report.ok and report.problem == "not a move at ply 0: 'hello there'"
    assert report.answers == 0 and report.plies == 0


def test_an_illegal_move_as_white(tmp_path):
    # white's first answer comes at ply 1; the cell of red's start is never legal
    report = one_shot(tmp_path, "print('Pass', flush=True)\ntime.sleep(5)", colour="white")
    assert not report.ok and report.problem == "illegal move 'Pass' at ply 1"


def test_a_program_that_ends_instead_of_answering(tmp_path):
    report = one_shot(tmp_path, "sys.exit(3)")
    assert not report.ok and report.returncode == 3
    assert report.problem == "the program ended (exit code 3) instead of answering at ply 0"


def test_a_program_that_does_not_answer_in_time(tmp_path):
    report = one_shot(tmp_path, "time.sleep(30)", move_timeout=0.5)
    assert not report.ok and report.problem == "no answer within 0.5 s at ply 0"
    assert report.seconds < 10


def test_stderr_is_kept_and_named_beside_the_problem(tmp_path):
    report = one_shot(tmp_path, "sys.stderr.write('Traceback: boom\\n'); sys.exit(1)")
    assert report.stderr == "Traceback: boom\n"
    assert report.problem == (
        "the program ended (exit code 1) instead of answering at ply 0; stderr: Traceback: boom"
    )


def test_an_unknown_colour_is_refused():
    with pytest.raises(ValueError, match="colour must be 'red' or 'white'"):
        submission_check.play_check_game([sys.executable, "-c", "pass"], "blue")


def test_a_line_more_than_asked_for(tmp_path):
    # Read as the next answer, or seen before the next request (the two lines arrive together,
    # and the reader may not have queued the second when the check asks again).
    report = run_player(tmp_path, "twice")
    assert not report.ok and report.answers == 1
    assert report.problem in (
        "not a move at ply 2: 'hello'",
        "printed 'hello' before it was asked for a move at ply 2",
    )


def test_a_program_that_cannot_start(tmp_path):
    report = submission_check.play_check_game([str(tmp_path / "no-such-bot")], "red", cwd=tmp_path)
    assert not report.ok and report.returncode == 127 and report.answers == 0
    assert report.problem.startswith("the program ended (exit code 127) instead of answering at ply 0; ")
    assert "stderr: cannot start" in report.problem
