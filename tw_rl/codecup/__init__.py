"""The CodeCup bot: standard library only."""
