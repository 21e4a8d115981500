"""Test-wide settings: one torch thread (the suite runs beside other work on 2 cores, where
torch's thread pool spinning against a busy core is 50x slower), and the `slow` marker."""

from __future__ import annotations

import torch

torch.set_num_threads(1)
