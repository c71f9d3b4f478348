"""The SplitZNS paper module (experiments/README.md)."""
