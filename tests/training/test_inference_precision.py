"""The search's low-precision forward passes: close to float32, refreshed when the weights change."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import random_positions

import tw_rl.training.net as net_module
from tw_rl.config import NetConfig
from tw_rl.core.rules import Rules
from tw_rl.training.net import NetPolicyValue, build_net, inference_dtype

RULES = Rules(6)
PRIOR_TOLERANCE = 0.02  # largest |bfloat16 - float32| prior of any move
VALUE_TOLERANCE = 0.05  # largest |bfloat16 - float32| value (in [-1, 1])


def positions(count: int = 64):
    state = random_positions(RULES, count, 30, np.random.default_rng(3))
    return state[~state.terminated]


def a_net(seed: int = 0):
    torch.manual_seed(seed)
    net = build_net(NetConfig(), 6)  # the small preset
    with torch.no_grad():  # running statistics of a trained net, not the identity of a fresh one
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.2, 0.2)
                module.running_var.uniform_(0.5, 1.5)
    return net


def test_bfloat16_passes_stay_close_to_float32():
    net, state = a_net(), positions()
    exact = NetPolicyValue(net, RULES, precision="float32")
    low = NetPolicyValue(net, RULES, precision="bfloat16")
    assert low.dtype == torch.bfloat16
    priors, values = exact(state)
    low_priors, low_values = low(state)
    legal = RULES.legal_mask(state)
    assert np.all(low_priors[~legal] == 0)
    np.testing.assert_allclose(low_priors.sum(axis=1), 1.0, atol=1e-5)
    assert np.abs(low_priors - priors).max() < PRIOR_TOLERANCE
    assert np.abs(low_values - values).max() < VALUE_TOLERANCE
    assert np.abs(low_values - values).max() > 0  # it really ran in bfloat16


def test_the_low_precision_copy_follows_the_training_net():
    """An optimizer step changes the weights in place: the next call must see the new weights."""
    net, state = a_net(1), positions(16)
    low = NetPolicyValue(net, RULES, precision="bfloat16")
    before, _ = low(state)
    other = a_net(2)
    with torch.no_grad():
        other.policy_conv.weight.mul_(100)  # decisive priors, so that the two nets differ clearly
    net.load_state_dict(other.state_dict())  # in place, as an optimizer step changes them
    after, _ = low(state)
    expected, _ = NetPolicyValue(other, RULES, precision="float32")(state)
    assert np.abs(after - before).max() > 0.2
    assert np.abs(after - expected).max() < 0.1 * np.abs(after - before).max()


def test_precision_choices(monkeypatch):
    assert inference_dtype("float32", "cpu") == torch.float32
    assert inference_dtype("bfloat16", "cpu") == torch.bfloat16
    # auto follows the hardware check, both ways.
    here = torch.bfloat16 if net_module.native_bfloat16("cpu") else torch.float32
    assert inference_dtype("auto", "cpu") == here
    monkeypatch.setattr(net_module, "native_bfloat16", lambda device: True)
    assert inference_dtype("auto", "cpu") == torch.bfloat16
    monkeypatch.setattr(net_module, "native_bfloat16", lambda device: False)
    assert inference_dtype("auto", "cpu") == torch.float32
    with pytest.raises(ValueError, match="precision must be one of"):
        inference_dtype("float16", "cpu")
