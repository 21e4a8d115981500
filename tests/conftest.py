"""Test-wide settings: one torch thread (the suite runs beside other work on 2 cores, where
torch's thread pool spinning against a busy core is 50x slower) when torch is installed; the
`core` and `codecup` tests need neither torch nor anything else of the training stack."""

from __future__ import annotations

try:
    import torch
except ImportError:  # core/ and codecup/ tests run without torch
    torch = None

if torch is not None:
    torch.set_num_threads(1)
