"""The Hydra configs: every file composes into a TrainConfig, typos and wrong types fail, the
config files hold only what differs from their schemas, every search setting is reachable, and
scripts/train.py, run as its own program, hands the composed config to tw_rl.training.loop.train
(faked here: no training). No test loads the script by its path: the conversion it makes is the
package's (``tw_rl.config.from_composed``)."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

hydra = pytest.importorskip("hydra")
from hydra import compose, initialize_config_dir  # noqa: E402
from hydra.errors import ConfigCompositionException, MissingConfigException  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402

from tw_rl.config import (  # noqa: E402
    SCHEMAS,
    ArenaConfig,
    BoardConfig,
    ConfigError,
    ExportConfig,
    LearnerConfig,
    RatingConfig,
    SelfPlayConfig,
    TrainConfig,
    from_composed,
    group_option,
    register_configs,
)
from tw_rl.core.mcts import BatchedMCTS, SearchConfig  # noqa: E402
from tw_rl.core.rules import Rules  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs"
SCRIPT = ROOT / "scripts" / "train.py"
GROUPS = list(SCHEMAS)  # board, net, search, selfplay, learner, arena


def options(group: str) -> list[str]:
    return sorted(p.stem for p in (CONFIGS / group).glob("*.yaml"))


def compose_train(overrides: list[str] = (), config_dir: Path = CONFIGS, hydra_config: bool = False):
    register_configs()
    with initialize_config_dir(config_dir=str(config_dir), version_base="1.3"):
        return compose("train", overrides=list(overrides), return_hydra_config=hydra_config)


def train_config(overrides: list[str] = ()) -> TrainConfig:
    cfg = OmegaConf.to_object(compose_train(overrides))
    assert isinstance(cfg, TrainConfig)
    return cfg


# ----------------------------------------------------------------------- composition


def test_every_group_has_its_folder_and_the_named_options():
    assert {p.name for p in CONFIGS.iterdir() if p.is_dir()} == set(GROUPS) | {"experiment", "debug"}
    assert options("board") == ["codecup6", "codecup8", "official6", "official8"]
    assert options("net") == ["large", "medium", "small", "tiny"]
    assert options("search") == ["cheap", "default", "gumbel", "puct"]
    for group in ("selfplay", "learner", "arena"):
        assert "default" in options(group)


def test_the_primary_config_equals_the_dataclass_defaults():
    """configs/train.yaml and its default options restate the defaults of tw_rl.config."""
    cfg = train_config()
    assert cfg == TrainConfig()
    assert isinstance(cfg.selfplay, SelfPlayConfig) and isinstance(cfg.arena, ArenaConfig)
    assert isinstance(cfg.learner, LearnerConfig) and isinstance(cfg.learner.learning_rate, float)


@pytest.mark.parametrize("group,option", [(g, o) for g in GROUPS for o in options(g)])
def test_every_group_option_composes_with_its_values(group, option):
    """A group file holds only what differs from the training run's defaults (the schema's,
    ``TrainConfig``'s fields): a restated default fails, so every default has one home."""
    cfg = train_config([f"{group}={option}"])
    node = getattr(cfg, group)
    assert isinstance(node, SCHEMAS[group])
    written = OmegaConf.to_container(OmegaConf.load(CONFIGS / group / f"{option}.yaml")) or {}
    defaults = dataclasses.asdict(getattr(TrainConfig(), group))
    assert restated(written, defaults) == [], "restates a default of the schema"
    assert dataclasses.asdict(node) == merged(defaults, written)
    assert group_option(group, option, CONFIGS) == node  # what a script reads is what a run gets


def test_the_primary_config_restates_no_default():
    written = OmegaConf.to_container(OmegaConf.load(CONFIGS / "train.yaml"))
    assert written.pop("defaults")[0] == "train_schema"
    written.pop("hydra")
    assert restated(written, dataclasses.asdict(TrainConfig())) == []


def test_a_restated_default_is_caught():
    """The check above can fail: a file that restates a default is named."""
    assert restated({"size": 6, "variant": "official"}, dataclasses.asdict(BoardConfig())) == ["size"]
    assert restated({"simulations": 32}, dataclasses.asdict(TrainConfig().search)) == ["simulations"]


@pytest.mark.parametrize(
    "option,values",
    [
        ("tiny", (2, 16, 2, 8)),
        ("small", (4, 32, 2, 32)),
        ("medium", (8, 96, 3, 48)),
        ("large", (12, 128, 3, 64)),
    ],
)
def test_net_presets(option, values):
    """configs/net/ is the one home of the presets: a run and a script (group_option) read it."""
    for net in (train_config([f"net={option}"]).net, group_option("net", option, CONFIGS)):
        assert (net.blocks, net.channels, net.pool_every, net.head_channels) == values
        assert net.name == option
    with pytest.raises(ConfigError, match="no net option 'huge' in .*there: large, medium, small, tiny"):
        group_option("net", "huge", CONFIGS)


# ----------------------------------------------------------------------- the search record


def test_the_search_group_is_the_search_record():
    """One record of search settings: the config group is tw_rl.core.mcts.SearchConfig itself."""
    assert SCHEMAS["search"] is SearchConfig
    assert isinstance(train_config().search, SearchConfig)
    assert TrainConfig().search == SearchConfig(root="gumbel")  # a run's default: the Gumbel root


def changed_value(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, str):
        return {"puct": "gumbel", "gumbel": "puct"}[value]
    return value * 2 + 1


@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(SearchConfig)])
def test_every_search_field_is_reachable_from_yaml(name):
    """Every field of the search record, today's and any added later, is set by
    ``search.<field>=...`` and reaches the search the run builds, with nothing else to edit
    (adding a search setting touches tw_rl/core/mcts.py and, for a check, training/loop.py)."""
    value = changed_value(getattr(TrainConfig().search, name))
    needs_puct = ["search.root=puct"] if name == "forced_playouts" else []  # a PUCT root's device
    cfg = train_config([f"search.{name}={value}", *needs_puct])
    assert getattr(cfg.search, name) == value
    assert getattr(BatchedMCTS(Rules(6), cfg.search).config, name) == value


def test_boards():
    for option, size, variant in [
        ("codecup6", 6, "codecup"),
        ("codecup8", 8, "codecup"),
        ("official6", 6, "official"),
        ("official8", 8, "official"),
    ]:
        board = train_config([f"board={option}"]).board
        assert (board.size, board.variant) == (size, variant)


def test_the_default_config_is_the_reference_recipe():
    """`python scripts/train.py` runs the best recipe the project knows (README, "The reference
    run"): Gumbel root 32 / 8 simulations on 16 candidates, 128 games a generation, a 100k window."""
    cfg = train_config()
    search = cfg.search
    assert (search.root, search.simulations, search.cheap_simulations, search.gumbel_actions) == (
        "gumbel",
        32,
        8,
        16,
    )
    assert search.gumbel_rescale  # since 2026-12-03: it won its A/B 127-73
    assert (cfg.selfplay.games_per_generation, cfg.selfplay.parallel_games) == (128, 128)
    assert (cfg.learner.replay_window, cfg.learner.steps_per_generation, cfg.learner.batch_size) == (
        100000,
        100,
        256,
    )
    assert (cfg.net.name, cfg.board.size, cfg.board.variant, cfg.arena.every) == ("small", 6, "codecup", 10)
    # Self-play and learning take turns: overlapped self-play made about 1.9x the samples on two
    # cores but did not win three pairs of 15-minute runs (docs/results/2026-12-06.md)
    assert cfg.selfplay.overlap_workers == 0


def test_the_old_default_recipe_is_an_experiment():
    cfg = train_config(["experiment=old_default"])
    assert (cfg.search.root, cfg.search.simulations, cfg.search.cheap_simulations) == ("puct", 32, 8)
    assert (cfg.search.dirichlet_fraction, cfg.selfplay.games_per_generation) == (0.25, 64)
    assert (cfg.selfplay.parallel_games, cfg.learner.replay_window, cfg.arena.every) == (64, 60000, 2)
    assert cfg.net == TrainConfig().net and cfg.board == TrainConfig().board


def test_the_unscaled_gumbel_recipe_is_an_experiment():
    cfg = train_config(["experiment=unscaled_gumbel"])
    assert cfg.search == dataclasses.replace(TrainConfig().search, gumbel_rescale=False)
    assert cfg.selfplay == TrainConfig().selfplay and cfg.learner == TrainConfig().learner


def test_search_presets():
    assert train_config(["search=gumbel"]).search.root == "gumbel"
    assert train_config(["search=puct"]).search.root == "puct"
    cheap = train_config(["search=cheap"]).search
    assert cheap.simulations < TrainConfig().search.simulations
    for option in options("search"):
        search = train_config([f"search={option}"]).search
        assert search.cheap_simulations <= search.simulations


def test_experiment_board8_medium():
    cfg = train_config(["experiment=board8_medium"])
    assert (cfg.board.size, cfg.board.variant, cfg.net.name, cfg.net.blocks) == (8, "codecup", "medium", 8)
    assert cfg.search.simulations > TrainConfig().search.simulations
    assert cfg.device == "auto"
    assert cfg.learner == TrainConfig().learner  # only the differences change


def test_experiment_gumbel_few_sims():
    cfg = train_config(["experiment=gumbel_few_sims"])
    assert (cfg.search.root, cfg.search.simulations) == ("gumbel", 16)
    assert cfg.search.cheap_simulations <= cfg.search.simulations
    assert cfg.net == TrainConfig().net and cfg.board == TrainConfig().board


def test_experiment_puct_forced():
    cfg = train_config(["experiment=puct_forced"])
    assert (cfg.search.root, cfg.search.forced_playouts) == ("puct", 2.0)
    assert cfg.selfplay == TrainConfig().selfplay and cfg.learner == TrainConfig().learner


@pytest.mark.parametrize("experiment", options("experiment"))
def test_every_experiment_composes_alone_and_under_debug(experiment):
    assert train_config([f"experiment={experiment}"]) != TrainConfig()
    cfg = train_config([f"experiment={experiment}", "debug=default"])
    assert cfg.generations == 2 and cfg.net.name == "tiny"  # debug comes last and wins


@pytest.mark.parametrize("debug", options("debug"))
def test_every_debug_preset_is_small(debug):
    cfg = train_config([f"debug={debug}"])
    assert cfg.net.name == "tiny" and cfg.generations <= 2 and not cfg.progress
    assert 1 <= cfg.selfplay.games_per_generation <= 8 and cfg.search.simulations <= 8 and cfg.threads == 1
    assert cfg.learner.batch_size <= 32 and cfg.learner.min_samples <= 64
    assert (cfg.arena.every, cfg.arena.games) == (1, 2)


def test_debug_default_values():
    cfg = train_config(["debug=default"])
    assert (cfg.generations, cfg.selfplay.games_per_generation, cfg.search.simulations) == (2, 2, 4)
    assert cfg.board == TrainConfig().board


def test_hydra_settings():
    hc = compose_train(hydra_config=True).hydra
    assert hc.run.dir.startswith("runs/") and hc.sweep.dir.startswith("runs/")
    assert hc.job.chdir is False
    assert compose_train(["debug=default"], hydra_config=True).hydra.run.dir.startswith("runs/debug/")


# ----------------------------------------------------------------------- run configs

RUN_CONFIGS = {"rate": RatingConfig, "export": ExportConfig}  # configs/NAME.yaml -> its schema


def restated(written: dict, defaults: dict, prefix: str = "") -> list[str]:
    """The keys of ``written`` (nested) whose value is the schema's default anyway."""
    same = []
    for key, value in written.items():
        if isinstance(value, dict) and isinstance(defaults.get(key), dict):
            same += restated(value, defaults[key], f"{prefix}{key}.")
        elif defaults.get(key, object()) == value:
            same.append(prefix + key)
    return same


def merged(defaults: dict, written: dict) -> dict:
    out = dict(defaults)
    for key, value in written.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) else value
    return out


@pytest.mark.parametrize("name", sorted(RUN_CONFIGS))
def test_a_run_config_holds_only_what_differs_from_its_schema(name):
    """One home per default: the schema's fields; the file adds differences and Hydra's settings."""
    schema = RUN_CONFIGS[name]
    written = OmegaConf.to_container(OmegaConf.load(CONFIGS / f"{name}.yaml"))
    assert written.pop("defaults") == [f"{name}_schema", "_self_"]
    written.pop("hydra", None)
    defaults = dataclasses.asdict(schema())
    assert restated(written, defaults) == [], "restates a default of the schema"
    register_configs()
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        cfg = from_composed(compose(name), schema)
    assert isinstance(cfg, schema)
    assert dataclasses.asdict(cfg) == merged(defaults, written)


def test_the_rating_config_takes_overrides_and_rejects_typos():
    register_configs()
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        cfg = from_composed(
            compose("rate", ["games=8", "players=[random,{kind: baseline, label: greedy}]"]),
            RatingConfig,
        )
        assert cfg.games == 8 and cfg.players == ["random", {"kind": "baseline", "label": "greedy"}]
        with pytest.raises(ConfigCompositionException, match="Could not override 'gamez'"):
            compose("rate", ["gamez=3"])
        with pytest.raises(Exception, match="Key 'gamez' not in"):
            from_composed(compose("rate", ["+gamez=3"]), RatingConfig)


# ----------------------------------------------------------------------- overrides and errors


def test_overrides():
    cfg = train_config(["net=tiny", "search.simulations=32", "seed=7", "arena.opponents=[random]"])
    assert (cfg.net.name, cfg.search.simulations, cfg.seed, cfg.arena.opponents) == (
        "tiny",
        32,
        7,
        ["random"],
    )
    cfg = train_config(["experiment=gumbel_few_sims", "search.simulations=24", "learner.learning_rate=1e-3"])
    assert (cfg.search.root, cfg.search.simulations, cfg.learner.learning_rate) == ("gumbel", 24, 1e-3)


@pytest.mark.parametrize("override", ["search.simz=3", "simz=3", "board.sizes=8", "arena.oponents=[random]"])
def test_a_mistyped_key_fails(override):
    with pytest.raises(ConfigCompositionException, match="Could not override"):
        compose_train([override])


@pytest.mark.parametrize(
    "override",
    [
        "search.simulations=abc",
        "net.blocks=2.5",
        "board.stale_end=maybe",
        "generations=[1,2]",
        "arena.every=x",
    ],
)
def test_a_wrong_type_fails(override):
    with pytest.raises(ConfigCompositionException, match="Error merging override"):
        compose_train([override])


def test_an_unknown_option_fails():
    with pytest.raises(MissingConfigException, match="board/nope"):
        compose_train(["board=nope"])


def test_a_typo_or_a_wrong_type_in_a_file_fails(tmp_path):
    config_dir = tmp_path / "configs"
    shutil.copytree(CONFIGS, config_dir)
    (config_dir / "board" / "typo.yaml").write_text("size: 6\nvariant: codecup\nsetupp: judge\n")
    (config_dir / "experiment" / "typo.yaml").write_text("# @package _global_\nsearch:\n  simz: 3\n")
    (config_dir / "experiment" / "wrong.yaml").write_text("# @package _global_\nnet:\n  blocks: many\n")
    with pytest.raises(ConfigCompositionException, match="Key 'setupp' not in 'BoardConfig'"):
        compose_train(["board=typo"], config_dir)
    with pytest.raises(ConfigCompositionException, match="Key 'simz' not in 'SearchConfig'"):
        compose_train(["experiment=typo"], config_dir)
    with pytest.raises(ConfigCompositionException, match="could not be converted to Integer"):
        compose_train(["experiment=wrong"], config_dir)


def test_an_appended_unknown_key_fails_in_the_conversion():
    """`+search.simz=3` gets past Hydra (it appends); the conversion scripts/train.py makes
    (``tw_rl.config.from_composed`` into a ``TrainConfig``) rejects it."""
    assert from_composed(compose_train(["net=tiny"]), TrainConfig).net.name == "tiny"
    for override, key in [("+search.simz=3", "simz"), ("+foo=1", "foo")]:
        with pytest.raises(Exception, match=f"Key '{key}' not in"):
            from_composed(compose_train([override]), TrainConfig)


def test_the_library_does_not_import_hydra():
    code = (
        "import sys\n"
        "import tw_rl.config\n"
        "assert not {'hydra', 'omegaconf'} & set(sys.modules), sorted(sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert result.returncode == 0, result.stderr


# ----------------------------------------------------------------------- the script

# Put in place at the interpreter's start (a ``sitecustomize`` module on PYTHONPATH) before the
# script runs as its own program: the training loop whose ``train`` prints what it was given.
FAKE_LOOP = """
import dataclasses, json, sys, types
loop = types.ModuleType("tw_rl.training.loop")
def train(cfg):
    print("TRAIN " + type(cfg).__name__ + " " + json.dumps(dataclasses.asdict(cfg)))
    return {}
loop.train = train
sys.modules["tw_rl.training.loop"] = loop
"""


def run_script(args: list[str], fake: Path) -> subprocess.CompletedProcess:
    """``python scripts/train.py ARGS``, as a user runs it, with the fake training loop."""
    fake.mkdir(exist_ok=True)
    (fake / "sitecustomize.py").write_text(FAKE_LOOP)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(fake), os.environ.get("PYTHONPATH")])),
    }
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=60
    )


def test_the_script_calls_train_with_a_train_config(tmp_path):
    result = run_script(
        ["debug=default", "search.simulations=6", f"hydra.run.dir={tmp_path / 'run'}"], tmp_path / "fake"
    )
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("TRAIN "))
    kind, payload = line.split(" ", 2)[1:]
    cfg = json.loads(payload)
    assert kind == "TrainConfig"
    assert (cfg["net"]["name"], cfg["search"]["simulations"], cfg["generations"]) == ("tiny", 6, 2)
    assert Path(cfg["run_dir"]) == tmp_path / "run"
    assert (tmp_path / "run" / ".hydra" / "config.yaml").exists()


def test_the_script_keeps_a_given_run_dir_and_rejects_typos(tmp_path):
    fake = tmp_path / "fake"
    result = run_script(
        ["experiment=gumbel_few_sims", f"run_dir={tmp_path / 'mine'}", f"hydra.run.dir={tmp_path}"], fake
    )
    assert result.returncode == 0, result.stderr
    assert f'"run_dir": "{tmp_path / "mine"}"' in result.stdout
    result = run_script(["search.simz=3", f"hydra.run.dir={tmp_path}"], fake)
    assert result.returncode != 0 and "search.simz" in result.stderr and "TRAIN" not in result.stdout


@pytest.mark.slow
def test_the_debug_preset_trains(tmp_path):
    """End to end, for real: python scripts/train.py debug=default (once tw_rl.training.loop exists)."""
    pytest.importorskip("tw_rl.training.loop")
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "debug=default", "device=cpu", f"hydra.run.dir={tmp_path}"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
