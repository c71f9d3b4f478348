"""Tables of a report: rows of cells, each a string or a Stat (drawn in
figures as a median with its min-max range)."""
from .stats import Stat


class Table:
    def __init__(self, title, columns, ratio_columns=(), plot=None, note=""):
        """ratio_columns: the columns holding ratios (a tie is marked, and
        figures draw them as bars around 1.0). plot: (kind, columns, y
        label) to draw other columns: kind "bar" or "line"."""
        self.title, self.columns, self.rows = title, list(columns), []
        self.ratio_columns = set(ratio_columns)
        self.plot = plot
        self.note = note

    def add(self, *cells):
        if len(cells) != len(self.columns):
            raise ValueError(f"{self.title}: {len(cells)} cells for {len(self.columns)} columns")
        self.rows.append(list(cells))

    def text(self, col, cell, digits=3):
        if isinstance(cell, Stat):
            return cell.cell(ratio=self.columns[col] in self.ratio_columns)
        if isinstance(cell, float):
            return f"{cell:.{digits}f}"
        return "-" if cell is None else str(cell)

    def markdown(self):
        lines = [f"**{self.title}**", ""]
        if self.note:
            lines += [self.note, ""]
        lines += ["| " + " | ".join(self.columns) + " |", "|" + "---|" * len(self.columns)]
        for row in self.rows:
            lines.append("| " + " | ".join(self.text(i, c) for i, c in enumerate(row)) + " |")
        return "\n".join(lines) + "\n"
