"""Statistics of repeated measurements: a value measured once per repeat is
reported as its median with the lowest and highest in brackets.

A ratio whose range includes 1.0 is a tie: some repeat had the scheme
ahead and another behind (or equal), so the comparison decided nothing.
A spread (max - min) / median above NOISE_BUDGET marks the cell with a
dagger: the repeats disagree by more than the budget allows, and the
median alone would claim more than was measured.
"""
import statistics

NOISE_BUDGET = 0.05
DAGGER = "\u2020"


class Stat:
    """Median, min and max of one quantity over repeats."""

    def __init__(self, values, digits=3):
        self.digits = digits
        self.values = [float(v) for v in values]
        if not self.values:
            raise ValueError("no values")
        self.median = statistics.median(self.values)
        self.min = min(self.values)
        self.max = max(self.values)

    @property
    def n(self):
        return len(self.values)

    @property
    def spread(self):
        """(max - min) / median; 0 for a single value or a zero median."""
        return (self.max - self.min) / abs(self.median) if self.median else 0.0

    @property
    def noisy(self):
        return self.spread > NOISE_BUDGET

    def tie(self):
        """A ratio whose range includes 1.0."""
        return self.min <= 1.0 <= self.max

    def cell(self, digits=None, ratio=False):
        """"1.234 (1.200-1.260)", with " tie" for a ratio whose range
        includes 1.0 and a dagger when the spread exceeds the budget."""
        f = f"{{:.{self.digits if digits is None else digits}f}}"
        text = f.format(self.median)
        if self.n > 1:
            text += f" ({f.format(self.min)}-{f.format(self.max)})"
        if self.noisy:
            text += DAGGER
        if ratio and self.tie():
            text += " tie"
        return text

    def to_json(self):
        return {"median": self.median, "min": self.min, "max": self.max, "n": self.n}


def ratio_cell(values, digits=3):
    """A table cell for ratios measured once per repeat ("-" for none)."""
    return Stat(values).cell(digits, ratio=True) if values else "-"


def value_cell(values, digits=0):
    """A table cell for plain values measured once per repeat."""
    return Stat(values, digits).cell() if values else "-"
