"""From a trained network to the CodeCup submission: the torch student, distillation, the
weights-file writer, the export pipeline, the submission builder and its check."""
