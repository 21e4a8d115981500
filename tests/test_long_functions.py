"""scripts/long_functions.py: the functions over a length limit, longest first."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "long_functions.py"


def test_lists_long_functions_and_methods_longest_first(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(70))
    method = body.replace("    ", "        ")
    (tmp_path / "a.py").write_text(
        f"def short():\n    return 1\n\n\nclass K:\n    def long(self):\n{method}\n"
    )
    (tmp_path / "sub").mkdir()
    nested = body.replace("    ", "            ")  # a function inside a with block inside a function
    (tmp_path / "sub" / "b.py").write_text(
        f"def outer():\n    with open(0) as f:\n        def inner():\n{nested}\n    return f\n"
    )
    out = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert [line.split() for line in out] == [
        ["74", f"{tmp_path / 'sub' / 'b.py'}:outer"],
        ["71", f"{tmp_path / 'a.py'}:K.long"],
        ["71", f"{tmp_path / 'sub' / 'b.py'}:outer.inner"],
    ]
    limited = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "a.py"), "--over", "80"], capture_output=True, text=True
    )
    assert limited.returncode == 0 and limited.stdout == ""


def test_a_missing_path_is_one_line(tmp_path):
    result = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "nope")], capture_output=True, text=True
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "no such file" in result.stderr
