"""The native (C++17) twin of the CodeCup bot: its source in parts (``src/``, package data) and
the one-file builds assembled from them (``build``)."""
