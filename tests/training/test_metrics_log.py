"""The one reader and writer of a run's ``metrics.jsonl`` (``tw_rl.training.metrics_log``)."""

from __future__ import annotations

import json

from tw_rl.training.metrics_log import append_metrics, read_metrics


def test_reader_keeps_whole_json_objects_and_reports_the_rest(tmp_path):
    assert read_metrics(tmp_path) == read_metrics(tmp_path / "none")  # no file: an empty log
    assert read_metrics(tmp_path).rows == [] and not read_metrics(tmp_path).cut_off
    lines = [
        json.dumps({"generation": 0, "time/run_minutes": 1.5}),
        "not json",
        "",
        json.dumps([1, 2]),  # JSON, but not an object
        json.dumps({"note": "no generation"}),
        json.dumps({"generation": 1, "time/run_minutes": 3.0, "arena/vs_random": 0.75}),
        json.dumps({"generation": 1, "time/run_minutes": 4.0}),  # logged twice: the last counts
    ]
    (tmp_path / "metrics.jsonl").write_text("\n".join(lines) + '\n{"generation": 2, "time/ru')
    log = read_metrics(tmp_path)
    assert log.numbers == [1, 5, 6, 7] and log.unreadable == [2, 3, 4] and log.cut_off
    assert log.generations() == [0, 1, 1]
    assert log.by_generation()[1] == {"generation": 1, "time/run_minutes": 4.0}
    assert log.last("time/run_minutes") == 4.0 and log.last("arena/vs_random") == 0.75
    assert log.last("time/cpu_hours") == 0.0  # never logged


def test_writer_cuts_a_cut_off_line_before_it_appends(tmp_path):
    append_metrics(tmp_path, {"generation": 0, "b": 1, "a": 2}, sort_keys=True)
    with open(tmp_path / "metrics.jsonl", "a") as handle:
        handle.write('{"generation": 1, "trai')  # a writer killed mid-line
    append_metrics(tmp_path, {"generation": 1})
    text = (tmp_path / "metrics.jsonl").read_text()
    assert text == '{"a": 2, "b": 1, "generation": 0}\n{"generation": 1}\n'
    assert read_metrics(tmp_path).generations() == [0, 1] and not read_metrics(tmp_path).cut_off
