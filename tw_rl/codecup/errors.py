"""The bot's start-up errors (standard library only), in a module of their own so that the
evaluators, the network and the weights reader import them without importing each other."""


class EvaluatorError(Exception):
    """An evaluator could not be made (missing weights file, no network evaluator built in)."""


class WeightsError(EvaluatorError):
    """A weights file that cannot be used; the message says why in one line."""
