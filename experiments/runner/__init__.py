"""The experiment runner shared by every paper module (experiments/README.md)."""
