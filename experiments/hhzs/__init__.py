"""The HHZS paper module (paper.py) for the experiment runner."""
