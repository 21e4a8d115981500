"""The native (C++17) twin of the CodeCup bot: ``bot.cpp`` (package data) and its one-file build."""
