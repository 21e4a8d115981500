"""The student network: weights file round trip and refusals, torch vs pure-Python parity,
the bot playing with the network evaluator, distillation, and the export script's config."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import re
import runpy
import struct
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import random_positions

from tw_rl.codecup import evaluation
from tw_rl.codecup.evaluation import EvaluatorError, make_evaluator
from tw_rl.codecup.network import Network, NetworkEvaluator, cell_codes
from tw_rl.codecup.players import BotPlayer, RandomPlayer
from tw_rl.codecup.rules import Board, Position, judge_start
from tw_rl.codecup.weights import FORMAT_VERSION, MAGIC, WeightsError, parse_weights, read_weights
from tw_rl.config import (
    DistillConfig,
    ExportConfig,
    LearnerConfig,
    NetConfig,
    StudentConfig,
)
from tw_rl.core.mcts import SearchConfig
from tw_rl.core.rules import Rules
from tw_rl.core.state import State
from tw_rl.export.distill import augment, distill, load_samples, prepare, score_fit
from tw_rl.export.pipeline import export_student
from tw_rl.export.student import StudentNet, student_inputs, torch_outputs
from tw_rl.export.submission import build_submission
from tw_rl.export.weights_file import (
    quantization_error,
    student_from_weights,
    student_tensors,
    weights_bytes,
    write_weights,
)
from tw_rl.scalar_position import state_position
from tw_rl.training.checkpoint import save_checkpoint
from tw_rl.training.learner import Learner
from tw_rl.training.net import build_net
from tw_rl.training.replay_buffer import Samples, ShardFormatError, write_shard
from tw_rl.training.selfplay import play_games

ROOT = Path(__file__).resolve().parents[2]
RULES = Rules(6)
B6 = Board(6)


def _student(mixing: str = "mean", width: int = 12, hidden: int = 8, seed: int = 0) -> StudentNet:
    torch.manual_seed(seed)
    net = StudentNet(6, width, hidden, mixing)
    with torch.no_grad():  # move every parameter off its initial value (biases start at 0)
        for p in net.parameters():
            p.add_(torch.randn_like(p) * 0.2)
    return net.eval()


def _states(seed: int = 0) -> State:
    """Unfinished positions of random games, early to late (codecup, 6-board)."""
    rng = np.random.default_rng(seed)
    parts = [random_positions(RULES, 6, plies, rng) for plies in (0, 4, 12, 25, 45, 70)]
    state = State.concatenate(parts)
    state = state[~state.terminated]
    # one with a pass just played: the "opponent passed" input
    return RULES.position(
        state.owner, state.height, state.to_move, np.where(np.arange(state.batch_size) % 7 == 3, 1, 0)
    )


def _scalar(state: State, i: int) -> Position:
    return state_position(B6, state, i)


# ------------------------------------------------------------------ weights file
@pytest.mark.parametrize("quantization", ["float16", "int8"])
def test_weights_file_round_trip(tmp_path, quantization):
    net = _student("directional")
    path = tmp_path / "w.twnet"
    size = write_weights(net, path, quantization, meta={"note": "test"})
    assert size == path.stat().st_size
    weights = read_weights(str(path), board_size=6)
    assert weights.board_size == 6 and weights.version == FORMAT_VERSION
    assert weights.header["quantization"] == quantization and weights.header["meta"] == {"note": "test"}
    back = student_from_weights(weights)
    for name, original in student_tensors(net).items():
        restored = student_tensors(back)[name]
        assert restored.shape == original.shape
        if original.ndim == 1:  # vectors stay float32
            np.testing.assert_array_equal(restored, original)
        elif quantization == "float16":
            np.testing.assert_allclose(restored, original, rtol=1e-3, atol=1e-4)
        else:  # int8: at most half a step of the row's scale
            step = np.abs(original).max(axis=1, keepdims=True) / 127
            assert (np.abs(restored - original) <= step / 2 + 1e-6).all(), name
    # The bytes, decoded here by the documented layout (not by the reader under test).
    data = path.read_bytes()
    decoded = decode_weights_file(data)
    assert decoded["magic"] == MAGIC and decoded["version"] == FORMAT_VERSION and decoded["board_size"] == 6
    header = decoded["header"]
    assert (header["arch"], header["quantization"], header["meta"]) == (
        "student-1",
        quantization,
        {"note": "test"},
    )
    assert (header["width"], header["hidden"], header["mixing"]) == (12, 8, "directional")
    originals = student_tensors(net)
    assert [t["name"] for t in header["tensors"]] == list(originals)
    for name, original in originals.items():
        stored = decoded["tensors"][name]
        if original.ndim == 1:
            assert stored["dtype"] == "f32"
            np.testing.assert_array_equal(stored["values"], original)
        elif quantization == "float16":
            assert stored["dtype"] == "f16"
            np.testing.assert_array_equal(stored["values"], original.astype(np.float16))
        else:
            assert stored["dtype"] == "i8"
            rows = original.reshape(original.shape[0], -1)
            scale = (np.abs(rows).max(axis=1) / 127).astype(np.float32)
            np.testing.assert_allclose(stored["scales"], scale, rtol=1e-6)
            assert np.abs(stored["q"]).max() == 127
            assert (np.abs(stored["q"] * scale[:, None] - rows) <= scale[:, None] / 2 + 1e-6).all(), name
    # Deterministic: an equal network built separately gives the same bytes.
    twin = _student("directional")
    assert twin is not net and weights_bytes(twin, quantization, {"note": "test"}) == data
    assert weights_bytes(_student("directional", seed=1), quantization, {"note": "test"}) != data


def decode_weights_file(data: bytes) -> dict:
    """The weights file taken apart by the layout in tw_rl/codecup/weights.py's docstring, with
    numpy (independently of the writer and of the reader)."""
    magic = data[:8]
    version, board_size = np.frombuffer(data, "<u2", 2, 8).tolist()
    header_length, data_length = np.frombuffer(data, "<u4", 2, 12).tolist()
    assert len(data) == 20 + header_length + data_length + 32
    assert hashlib.sha256(data[:-32]).digest() == data[-32:]
    header = json.loads(data[20 : 20 + header_length].decode("utf-8"))
    offset = 20 + header_length
    tensors = {}
    for spec in header["tensors"]:
        shape = tuple(spec["shape"])
        count = int(np.prod(shape))
        entry = {"dtype": spec["dtype"]}
        if spec["dtype"] == "f32":
            entry["values"] = np.frombuffer(data, "<f4", count, offset).reshape(shape)
            offset += 4 * count
        elif spec["dtype"] == "f16":
            entry["values"] = np.frombuffer(data, "<f2", count, offset).reshape(shape)
            offset += 2 * count
        else:
            entry["scales"] = np.frombuffer(data, "<f4", shape[0], offset)
            offset += 4 * shape[0]
            entry["q"] = np.frombuffer(data, "i1", count, offset).reshape(shape[0], -1).astype(np.float64)
            offset += count
        tensors[spec["name"]] = entry
    assert offset == 20 + header_length + data_length
    return {
        "magic": magic,
        "version": version,
        "board_size": board_size,
        "header": header,
        "tensors": tensors,
    }


def _one_line_refusal(data: bytes, tmp_path, board_size=None, match=None) -> str:
    path = tmp_path / "bad.twnet"
    path.write_bytes(data)
    with pytest.raises(WeightsError, match=re.escape(str(path))) as info:
        read_weights(str(path), board_size)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    if match:
        assert match in message, message
    return message


def test_weights_file_refusals(tmp_path):
    net = _student()
    good = weights_bytes(net, "float16")
    _one_line_refusal(b"PK\x03\x04" + good[4:], tmp_path, match="not a tw_rl weights file")
    _one_line_refusal(weights_bytes(net, "float16", _magic=b"TWNET\n\x1a\x00"), tmp_path, match="bad magic")
    _one_line_refusal(weights_bytes(net, "float16", _version=FORMAT_VERSION + 1), tmp_path, match="version 2")
    _one_line_refusal(good, tmp_path, board_size=8, match="size-6 board, not size 8")
    damaged = bytearray(good)
    damaged[len(good) // 2] ^= 0x40
    _one_line_refusal(bytes(damaged), tmp_path, match="checksum")
    _one_line_refusal(good[:-5], tmp_path, match="truncated")
    _one_line_refusal(good[:10], tmp_path, match="too short")
    # the board size field is covered by the checksum as well
    other = bytearray(good)
    struct.pack_into("<H", other, 10, 8)
    _one_line_refusal(bytes(other), tmp_path, match="checksum")
    # a WeightsError is an EvaluatorError: the bot reports it in one line (exit 2)
    path = tmp_path / "bad.twnet"
    path.write_bytes(bytes(damaged))
    with pytest.raises(EvaluatorError, match="checksum"):
        make_evaluator(str(path))
    assert MAGIC == good[:8]


# ------------------------------------------------------------------ parity
def test_inputs_match_the_scalar_engine_and_permute_with_the_cells():
    state = _states(1)
    codes, glob = student_inputs(RULES, state)
    for i in range(state.batch_size):
        c, g, legal = cell_codes(_scalar(state, i))
        np.testing.assert_array_equal(np.array(c), codes[i])
        assert tuple(g) == tuple(glob[i])
        assert legal == [y for y in range(B6.num_cells) if RULES.legal_mask(state[i])[0, y]]
    # the inputs of a permuted position are the permuted inputs (what ``augment`` relies on)
    samples = Samples(
        owner=state.owner,
        height=state.height,
        to_move=state.to_move,
        passes=state.passes,
        policy=RULES.legal_mask(state).astype(np.float16),
        value=np.zeros(state.batch_size, np.int8),
        territory=np.zeros(state.owner.shape, np.int8),
        score=np.zeros(state.batch_size, np.float32),
    )
    prepared = prepare(RULES, samples)
    seeds = np.random.default_rng(5)
    moved = augment(RULES.grid, prepared, np.random.default_rng(5))
    sym = seeds.integers(0, 12, size=len(prepared))
    for i in range(0, state.batch_size, 5):
        perm = RULES.grid.symmetries[sym[i]]
        owner = np.zeros_like(state.owner[i])
        height = np.zeros_like(state.height[i])
        owner[perm] = state.owner[i]
        height[perm] = state.height[i]
        again = RULES.position(owner, height, state.to_move[i], state.passes[i])
        np.testing.assert_array_equal(student_inputs(RULES, again)[0][0], moved.codes[i])
        np.testing.assert_array_equal(RULES.legal_mask(again)[0], moved.legal[i])


@pytest.mark.parametrize("mixing", ["mean", "directional"])
@pytest.mark.parametrize("quantization", ["float16", "int8"])
def test_pure_python_forward_matches_torch(mixing, quantization):
    net = _student(mixing, width=16, hidden=12, seed=3)
    state = _states(2)
    weights = parse_weights(weights_bytes(net, quantization), board_size=6)
    python_net = Network(weights)
    dequantized = student_from_weights(weights)
    logits_q, value_q, legal = torch_outputs(dequantized, RULES, state)
    logits_f, value_f, _ = torch_outputs(net, RULES, state)
    for i in range(state.batch_size):
        logits, value = python_net.outputs(_scalar(state, i))
        # the same weights: torch float32 arithmetic vs Python floats
        np.testing.assert_allclose(logits, logits_q[i], atol=1e-4)
        assert abs(value - value_q[i]) < 1e-4
        if quantization == "float16":  # and float16 weights vs the float32 student
            np.testing.assert_allclose(
                np.where(legal[i], logits, 0), np.where(legal[i], logits_f[i], 0), atol=1e-3
            )
            assert abs(value - value_f[i]) < 1e-3
    error = quantization_error(net, RULES, state, quantization)
    assert error["value"] < (1e-3 if quantization == "float16" else 5e-2)
    assert error["policy"] < (1e-3 if quantization == "float16" else 2e-2)


# ------------------------------------------------------------------ the bot
def test_make_evaluator_and_a_full_bot_game(tmp_path):
    path = tmp_path / "student.twnet"
    write_weights(_student("mean", width=16, hidden=8), path, "float16")
    evaluator = make_evaluator(str(path))
    assert isinstance(evaluator, NetworkEvaluator)
    assert "network" in evaluation.EVALUATORS
    rng = random.Random(4)
    pos = Position.start(B6, *judge_start(B6, rng))
    priors, value = evaluator.evaluate(pos)
    assert sorted(priors) == pos.legal_moves() and abs(sum(priors.values()) - 1) < 1e-9
    assert -1.0 <= value <= 1.0
    # the bot plays a whole legal game with it (few simulations: the test is about legality)
    bot = BotPlayer(evaluator=evaluator, max_sims=6)
    other = RandomPlayer(seed=1)
    while not pos.over:
        player = bot if pos.to_move == 1 else other
        move = player.choose(pos)
        assert move in pos.legal_moves()
        pos.play(move)
    assert not pos.forfeit and evaluator.evaluations > pos.ply
    # on another board size it refuses in one line
    with pytest.raises(WeightsError, match="size-6 board, not size 8"):
        evaluator.evaluate(Position.start(Board(8), *judge_start(Board(8), rng)))
    with pytest.raises(WeightsError, match="size-6 board, not size 8"):
        NetworkEvaluator(str(path), board_size=8)


def test_the_submission_embeds_the_network(tmp_path):
    path = tmp_path / "student.twnet"
    write_weights(_student(), path)
    info = build_submission(weights=path, out=tmp_path / "submission.py")
    assert "tw_rl.codecup.network" in info.modules and "tw_rl.codecup.weights" in info.modules
    assert info.weights == ("student.twnet", path.stat().st_size)
    # The bootstrap hands the bot these very weights as bytes: the same network outputs.
    bootstrap = runpy.run_path(str(info.path), run_name="not_main")
    handed = bootstrap["_weights"]()
    assert handed == path.read_bytes()
    position = Position.start(B6, *judge_start(B6, random.Random(2)))
    evaluation = make_evaluator(handed, board_size=6).evaluate(position)
    assert evaluation == make_evaluator(str(path), board_size=6).evaluate(position)


# ------------------------------------------------------------------ distillation
def _synthetic_samples(count: int = 96, seed: int = 0) -> Samples:
    """Positions of random games; target: the legal move with the most stacks around it, the
    value: the sign of the territory margin, the territory: the current one."""
    rng = np.random.default_rng(seed)
    state = random_positions(RULES, count, int(rng.integers(5, 40)), rng)
    state = state[~state.terminated]
    state = RULES.position(state.owner, state.height, state.to_move, state.passes)
    legal = RULES.legal_mask(state)
    n = RULES.num_cells
    nbr = RULES.grid.neighbours
    crowd = ((state.owner[:, np.where(nbr >= 0, nbr, 0)] > 0) & (nbr >= 0)).sum(2)
    score = np.where(legal[:, :n], crowd, -1)
    policy = np.zeros((state.batch_size, n + 1), np.float16)
    best = np.where(legal[:, n], n, score.argmax(1))
    policy[np.arange(state.batch_size), best] = 1
    rows = np.arange(state.batch_size)
    mi = (state.to_move - 1).astype(int)
    mine = state.territory[rows, mi].astype(np.int8)
    theirs = state.territory[rows, 1 - mi].astype(np.int8)
    margin = (mine.sum(1) - theirs.sum(1)).astype(np.float32)
    return Samples(
        owner=state.owner,
        height=state.height,
        to_move=state.to_move,
        passes=state.passes,
        policy=policy,
        value=np.sign(margin).astype(np.int8),
        territory=(mine - theirs).astype(np.int8),
        score=margin / n,
    )


def test_a_tiny_distillation_lowers_the_loss():
    samples = _synthetic_samples()
    cfg = DistillConfig(
        steps=80, batch_size=32, learning_rate=1e-2, teacher_weight=0.0, holdout=0.0, holdout_every=40
    )
    torch.manual_seed(0)
    before = StudentNet(6, 16, 8, "mean")
    fit_before = score_fit(before, prepare(RULES, samples), cfg)
    lines = []
    result = distill(RULES, samples, StudentConfig(16, 8, "mean"), cfg, seed=0, log=lines.append)
    fit_after = score_fit(result.net, prepare(RULES, samples), cfg)
    assert fit_after["total"] < 0.8 * fit_before["total"]
    assert fit_after["policy"] < fit_before["policy"] and fit_after["value"] < fit_before["value"]
    assert len(lines) == 2 and result.train and not result.holdout
    with pytest.raises(ValueError, match="teacher"):
        distill(RULES, samples, StudentConfig(), DistillConfig(steps=1, teacher_weight=0.5))


def test_export_pipeline_on_a_shard_folder(tmp_path):
    write_shard(tmp_path / "selfplay", 0, 3, _synthetic_samples(64, seed=1))
    cfg = ExportConfig(
        run_dir=str(tmp_path),
        student=StudentConfig(8, 8, "mean"),
        distill=DistillConfig(steps=6, batch_size=16, teacher_weight=0.0, holdout=0.25, holdout_every=3),
        verify=4,
        progress=False,
        tensorboard="none",
    )
    report = export_student(cfg, tmp_path / "out", log=lambda s: None)
    assert report.out == tmp_path / "out" / "student.twnet" and report.out.is_file()
    assert report.parity["value"] < 1e-3 and report.parity["policy"] < 1e-3
    assert set(report.quantization) == {"int8", "float16"} and report.evals_per_second > 0
    assert read_weights(str(report.out), 6).header["quantization"] == "float16"
    assert any(line.startswith("wrote ") for line in report.lines())
    with pytest.raises(ValueError, match="teacher"):
        export_student(
            ExportConfig(samples=str(tmp_path / "selfplay"), progress=False), tmp_path, lambda s: None
        )


def _tiny_teacher_run(folder: Path) -> Path:
    """A run folder: synthetic self-play shards and an untrained tiny teacher checkpoint."""
    write_shard(folder / "selfplay", 0, 3, _synthetic_samples(64, seed=1))
    torch.manual_seed(0)
    net = build_net(NetConfig(name="tiny", blocks=1, channels=8, pool_every=1, head_channels=8), 6)
    learner = Learner(net, RULES, LearnerConfig(), torch.device("cpu"))
    save_checkpoint(folder / "checkpoints", 0, learner.checkpoint(0, {}))
    return folder


def test_teacher_games_against_the_baselines_add_positions(tmp_path):
    run = _tiny_teacher_run(tmp_path / "run")
    own = len(read_shard_samples(run))
    cfg = ExportConfig(
        run_dir=str(run),
        baseline_games=2,
        baseline_simulations=4,
        student=StudentConfig(8, 8, "mean"),
        distill=DistillConfig(steps=4, batch_size=16, teacher_weight=0.5, holdout=0.25, holdout_every=2),
        verify=2,
        progress=False,
        tensorboard="none",
    )
    lines = []
    report = export_student(cfg, tmp_path / "out", log=lines.append)
    assert report.samples > own and report.teacher.endswith("ckpt-g000000.pt")
    assert any(line.startswith("teacher vs random: 2 games") for line in lines)
    assert any(line.startswith("teacher vs greedy: 2 games") for line in lines)
    header = read_weights(str(report.out), 6).header
    assert header["meta"]["baseline_games"] == {"random": 2, "greedy": 2}
    with pytest.raises(ValueError, match="unknown baseline"):
        export_student(ExportConfig(run_dir=str(run), baseline_games=1, baselines=["alphabeta"]), tmp_path)

    # The opponent really plays its seat: one that always passes makes every other network move
    # follow a pass, in alternating seats from game to game.
    def uniform(state):
        legal = RULES.legal_mask(state).astype(np.float32)
        return legal / legal.sum(1, keepdims=True), np.zeros(state.batch_size, np.float32)

    seen = []

    def passer(rules, state, rng):
        seen.append(state.current_seat().copy())
        return np.full(state.batch_size, rules.num_cells)

    stats = play_games(
        RULES,
        uniform,
        SearchConfig(simulations=2, cheap_simulations=1),
        2,
        2,
        np.random.default_rng(0),
        lambda g, s: None,
        opponent=passer,
    )
    seats = np.concatenate(seen)
    assert stats.games == 2 and {0, 1} <= set(seats.tolist())
    assert stats.network_wins == 2  # a player that only passes loses


def test_cli_export_distils_from_a_run(tmp_path, capsys, monkeypatch, tiny_run):
    from tw_rl import cli

    run = tiny_run
    monkeypatch.chdir(tmp_path)
    code = cli.main(["export", "--run", str(run), "--steps", "3", "--student-dir", "st", "--out", "sub.py"])
    assert code == 0
    out = capsys.readouterr().out
    assert "wrote st/student.twnet" in out and "weights: student.twnet (" in out
    assert (tmp_path / "sub.py").is_file()
    assert cli.main(["export", "--run", str(tmp_path / "nowhere")]) == 2
    assert "not a training run folder" in capsys.readouterr().err
    assert cli.main(["export", "--steps", "3"]) == 2
    assert "go with --run" in capsys.readouterr().err


def test_cli_export_of_a_run_with_old_shards_is_one_line(tmp_path, capsys):
    """Format-1 shards (written before tw_rl 0.3) are refused with the replay buffer's one line
    and how to upgrade them, exit code 2, no traceback."""
    from tw_rl import cli

    samples = _synthetic_samples(16, seed=3)
    (tmp_path / "run" / "selfplay").mkdir(parents=True)
    old = tmp_path / "run" / "selfplay" / "shard-g000000-000000-n1.npz"
    np.savez(old, **{f.name: getattr(samples, f.name) for f in dataclasses.fields(Samples)})
    code = cli.main(
        ["export", "--run", str(tmp_path / "run"), "--steps", "1", "--student-dir", str(tmp_path)]
    )
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert f"{old}: a shard of format 1" in err and "python -m tw_rl.training.replay_buffer" in err


def _size8_samples(count: int) -> Samples:
    """Empty positions of the size-8 board (169 cells), shaped as the shard format wants."""
    n = Rules(8).num_cells
    return Samples(
        owner=np.zeros((count, n), np.int8),
        height=np.zeros((count, n), np.int8),
        to_move=np.ones(count, np.int8),
        passes=np.zeros(count, np.int8),
        policy=np.full((count, n + 1), 1.0 / (n + 1), np.float16),
        value=np.zeros(count, np.int8),
        territory=np.zeros((count, n), np.int8),
        score=np.zeros(count, np.float32),
    )


def test_shards_of_another_board_size_are_refused_in_one_line(tmp_path, capsys):
    """A run whose shards include one of the size-8 board: load_samples and the distillation
    refuse it with the replay buffer's ShardFormatError line; the CLI exits 2, no traceback."""
    from tw_rl import cli

    folder = tmp_path / "run" / "selfplay"
    write_shard(folder, 0, 3, _synthetic_samples(32, seed=2))
    other = write_shard(folder, 1, 1, _size8_samples(8))
    with pytest.raises(ShardFormatError, match="a shard of board size 8, this run plays size 6"):
        load_samples(folder, 100000, size=6)
    with pytest.raises(ShardFormatError, match="a shard of board size 6, this run plays size 8"):
        load_samples(folder, 100000, size=8)
    code = cli.main(
        ["export", "--run", str(tmp_path / "run"), "--steps", "1", "--student-dir", str(tmp_path / "st")]
    )
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert f"{other}: a shard of board size 8, this run plays size 6" in err


def read_shard_samples(run: Path) -> Samples:
    return load_samples(run / "selfplay", 100000, size=RULES.size)


# ------------------------------------------------------------------ scripts/export.py
def test_export_script_composes_with_hydra():
    pytest.importorskip("hydra")
    from hydra import compose, initialize_config_dir
    from hydra.errors import ConfigCompositionException

    from tw_rl.config import from_composed, register_configs

    register_configs()  # what scripts/export.py does first: registers export_schema
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = from_composed(compose("export"), ExportConfig)  # scripts/export.py's to_export_config
        assert cfg == ExportConfig()  # configs/export.yaml restates the dataclass defaults
        cfg = from_composed(
            compose("export", overrides=["run_dir=runs/x", "student.width=24", "quantization=int8"]),
            ExportConfig,
        )
        assert (cfg.run_dir, cfg.student.width, cfg.quantization) == ("runs/x", 24, "int8")
        assert isinstance(cfg.distill, DistillConfig)
        with pytest.raises(ConfigCompositionException, match="Could not override 'distill.stepz'") as info:
            compose("export", overrides=["distill.stepz=3"])
        assert "Key 'stepz' not in 'DistillConfig'" in str(info.value.__cause__)
        with pytest.raises(
            ConfigCompositionException, match="Error merging override student.width=wide"
        ) as info:
            compose("export", overrides=["student.width=wide"])
        assert "'wide' of type 'str' could not be converted to Integer" in str(info.value.__cause__)
