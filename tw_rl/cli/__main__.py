"""``python -m tw_rl.cli``: the same as the ``tw-rl`` command."""

import sys

from tw_rl.cli import main

sys.exit(main())
