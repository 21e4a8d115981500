"""Imports point one way: core and codecup never load the RL stack; codecup not even numpy; the
one-process training run never loads Ray."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BLOCKER = """
import sys
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {blocked!r}:
            raise ImportError('blocked: ' + name)
sys.meta_path.insert(0, Blocker())
"""


def run_blocked(blocked: set[str], code: str) -> subprocess.CompletedProcess:
    program = BLOCKER.format(blocked=blocked) + code
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)


def test_core_needs_no_rl_stack():
    heavy = {"torch", "gymnasium", "hydra", "omegaconf", "tensorboard"}
    code = "import pkgutil, importlib, tw_rl.core as c\n"
    code += "for m in pkgutil.iter_modules(c.__path__): importlib.import_module('tw_rl.core.' + m.name)\n"
    result = run_blocked(heavy, code)
    assert result.returncode == 0, result.stderr


def test_codecup_is_standard_library_only():
    heavy = {"numpy", "torch", "gymnasium", "hydra", "omegaconf", "tensorboard"}
    code = "import pkgutil, importlib, tw_rl.codecup as c\n"
    code += "for m in pkgutil.iter_modules(c.__path__): importlib.import_module('tw_rl.codecup.' + m.name)\n"
    code += "assert 'tw_rl.core' not in sys.modules\n"
    result = run_blocked(heavy, code)
    assert result.returncode == 0, result.stderr


def test_the_one_process_training_run_never_imports_ray(tmp_path):
    """The debug preset trains through scripts/train.py, run as a user runs it, checkpoints and
    all, without Ray (a sitecustomize on PYTHONPATH writes the loaded modules at exit)."""
    script = Path(__file__).resolve().parent.parent / "scripts" / "train.py"
    hook = tmp_path / "hook"
    hook.mkdir()
    modules = tmp_path / "modules.txt"
    (hook / "sitecustomize.py").write_text(
        "import atexit, sys\n"
        f"atexit.register(lambda: open({str(modules)!r}, 'w').write('\\n'.join(sorted(sys.modules))))\n"
    )
    run_dir = tmp_path / "run"
    paths = [str(hook), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    argv = [sys.executable, str(script), "debug=default", "device=cpu", f"hydra.run.dir={run_dir}"]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    loaded = set(modules.read_text().split())
    assert not {m for m in loaded if m == "ray" or m.startswith("ray.")}
    assert "tw_rl.training.loop" in loaded and "tw_rl.training.ray_selfplay" not in loaded
    assert (run_dir / "checkpoints" / "ckpt-g000001.pt").exists()
