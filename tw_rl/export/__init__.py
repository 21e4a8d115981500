"""From a trained network to the CodeCup submission: the torch student (``student``), its
distillation (``distill``), its weights file (``weights_file``), the export pipeline
(``pipeline``), the one-file submission (``submission``) and its check (``submission_check``)."""
