"""A run folder's ``metrics.jsonl``, its one reader and its one writer: a JSON object a line, one
line per finished generation (training runs, ``tw_rl.training.loop``, and expert runs,
``tw_rl.expert.loop``).

Lines are appended whole in one write (``tw_rl.files.append_line``); a process killed while
writing can leave a last line without its newline, which the reader reports (``cut_off``) and
leaves out, and which the writer cuts off before it appends.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path

from tw_rl.files import append_line, drop_partial_line

METRICS_FILE = "metrics.jsonl"  # in the run folder


@dataclass(frozen=True)
class MetricsLog:
    """What a ``metrics.jsonl`` holds."""

    rows: list[dict]  # its whole lines that read as JSON objects, in the file's order
    numbers: list[int]  # the line number (from 1) of each of ``rows``
    unreadable: list[int]  # the numbers of whole lines that are not JSON objects (blank ones too)
    cut_off: bool  # the file ends in a line without its newline (a writer killed mid-line): not in rows

    def generations(self) -> list[int]:
        """The generation of each row that names one, in the file's order."""
        return [g for g in map(row_generation, self.rows) if g is not None]

    def by_generation(self) -> dict[int, dict]:
        """Each logged generation's row (the last one where a generation was logged twice)."""
        return {g: row for row in self.rows if (g := row_generation(row)) is not None}

    def last(self, key: str) -> float:
        """``key`` of the newest row that has it as a number; 0 when none has (a running total of
        a new run, or of one logged before the total was kept)."""
        for row in reversed(self.rows):
            with contextlib.suppress(KeyError, TypeError, ValueError):
                return float(row[key])
        return 0.0


def row_generation(row: dict) -> int | None:
    """The generation a row names (its ``generation``, an integer), or None."""
    try:
        return int(row["generation"])
    except (KeyError, TypeError, ValueError):
        return None


def metrics_path(run_dir: str | Path) -> Path:
    """The metrics log of a run folder."""
    return Path(run_dir) / METRICS_FILE


def read_metrics(run_dir: str | Path) -> MetricsLog:
    """The metrics log of a run folder (empty when it has none yet); the file is not changed."""
    try:
        data = metrics_path(run_dir).read_bytes()
    except FileNotFoundError:
        return MetricsLog([], [], [], False)
    *whole, tail = data.split(b"\n")
    rows, numbers, unreadable = [], [], []
    for number, line in enumerate(whole, 1):
        try:
            row = json.loads(line)
        except ValueError:  # not JSON, or not UTF-8
            row = None
        if isinstance(row, dict):
            rows.append(row)
            numbers.append(number)
        else:
            unreadable.append(number)
    return MetricsLog(rows, numbers, unreadable, bool(tail))


def append_metrics(run_dir: str | Path, row: dict, sort_keys: bool = False) -> None:
    """Append a generation's row; a cut-off last line (a writer killed mid-line) is cut first."""
    path = metrics_path(run_dir)
    drop_partial_line(path)
    append_line(path, json.dumps(row, sort_keys=sort_keys))
