"""The search's float32 forward-pass backends: close to eager torch, a self-play game, one-line errors."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import torch
from helpers import random_positions, tiny_train_config

from tw_rl.config import ConfigError, NetConfig
from tw_rl.core.mcts import SearchConfig
from tw_rl.core.rules import Rules
from tw_rl.training.inference import BackendUnavailable
from tw_rl.training.loop import train
from tw_rl.training.net import NetPolicyValue, build_net
from tw_rl.training.selfplay import play_games

RULES = Rules(6)


def a_net(seed: int = 0):
    torch.manual_seed(seed)
    net = build_net(NetConfig(), 6)
    with torch.no_grad():  # running statistics of a trained net, not the identity of a fresh one
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.2, 0.2)
                module.running_var.uniform_(0.5, 1.5)
    return net


def positions(count: int = 96):
    state = random_positions(RULES, count, 30, np.random.default_rng(5))
    return state[~state.terminated]


def compare(backend: str, prior_tolerance: float, value_tolerance: float):
    net, state = a_net(), positions()
    priors, values = NetPolicyValue(net, RULES, precision="float32")(state)
    other = NetPolicyValue(net, RULES, precision="float32", backend=backend)
    got_priors, got_values = other(state)
    legal = RULES.legal_mask(state)
    assert np.all(got_priors[~legal] == 0)
    np.testing.assert_allclose(got_priors.sum(axis=1), 1.0, atol=1e-5)
    assert np.abs(got_priors - priors).max() < prior_tolerance
    assert np.abs(got_values - values).max() < value_tolerance
    return other, net, state


def test_onnx_matches_float32_and_follows_new_weights():
    pytest.importorskip("onnxruntime")
    other, net, state = compare("onnx", 1e-5, 1e-5)
    with torch.no_grad():
        net.policy_conv.weight.mul_(50)  # in place, as an optimizer step changes them
    expected, _ = NetPolicyValue(net, RULES, precision="float32")(state)
    after, _ = other(state)
    assert np.abs(after - expected).max() < 1e-4


def test_onnx_int8_stays_close():
    pytest.importorskip("onnxruntime")
    compare("onnx-int8", 0.02, 0.05)


@pytest.mark.slow
def test_compile_matches_float32():
    compare("compile", 1e-5, 1e-5)


def test_a_tiny_generation_with_onnx():
    pytest.importorskip("onnxruntime")
    policy_value = NetPolicyValue(a_net(), RULES, precision="float32", backend="onnx")
    kept = []
    stats = play_games(
        RULES,
        policy_value,
        SearchConfig(simulations=4),
        2,
        2,
        np.random.default_rng(0),
        lambda g, s: kept.append(g),
    )
    assert sum(kept) == 2 and stats.samples > 0 and policy_value.evaluations > 0


def test_a_missing_onnxruntime_says_so_in_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(BackendUnavailable, match=r"pip install 'tw_rl\[onnx\]'") as error:
        NetPolicyValue(a_net(), RULES, precision="float32", backend="onnx")
    assert "\n" not in str(error.value)


def test_backends_refuse_what_they_cannot_run():
    with pytest.raises(ValueError, match="backend must be one of"):
        NetPolicyValue(a_net(), RULES, backend="tensorrt")
    with pytest.raises(BackendUnavailable, match="float32 passes on the CPU only"):
        NetPolicyValue(a_net(), RULES, precision="bfloat16", backend="onnx")


def test_a_training_run_plays_its_games_on_the_configured_backend(tmp_path):
    pytest.importorskip("onnxruntime")
    metrics = train(tiny_train_config(tmp_path, precision="float32", backend="onnx"))
    assert metrics["generation"] == 0 and list((tmp_path / "selfplay").glob("shard-*.npz"))


@pytest.mark.parametrize(
    "changes, says",
    [
        ({"backend": "tensorrt"}, "backend must be one of"),
        ({"backend": "compile", "precision": "bfloat16"}, "float32 passes on the CPU only"),
    ],
)
def test_a_training_run_refuses_a_backend_it_cannot_use_in_one_line(tmp_path, changes, says):
    with pytest.raises(ConfigError, match=says) as error:
        train(tiny_train_config(tmp_path, **changes))
    assert "\n" not in str(error.value) and not (tmp_path / "selfplay").exists()
