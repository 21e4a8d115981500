"""The rules of Tumbleweed on batches of positions, with numpy and the standard library only."""
