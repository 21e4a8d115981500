"""Reliability jobs: the soak of a submission (``soak``), the audits of what a kill may break
and the kill rounds (``kills``), and the mutation runner with its mutant sets (``mutation``).
The scripts ``soak.py``, ``kill_test.py`` and ``mutate.py`` are their command lines."""
