"""What a paper module declares: its settings, its experiments, and for
each experiment the zsbench comparisons it runs and the tables it draws
from them."""
from dataclasses import dataclass, field
from typing import Callable, Optional


@dataclass
class Option:
    """One setting of a paper's experiments. Defaults are fixed from the
    paper before anything is measured; any other value is a custom run."""
    name: str
    default: object
    help: str
    paper: str = ""          # the paper's own value, for the settings table
    choices: Optional[list] = None


@dataclass
class Comparison:
    """One zsbench run of several schemes side by side, repeated.

    schemes: [(zsbench name, scheme spec)]; the paper module turns a spec
    into a volume config. workload: the phases. params: what else the
    paper module needs (SSD zones, a throttle rate...). derive: a function
    of the experiment's summary so far returning more params, for a
    comparison that depends on an earlier one's result. separate: each
    scheme of a repeat in its own zsbench process, one after another (a
    part each, kept and summarized on its own), for a repeat longer than a
    sitting; the module's compact result must then be keyed by scheme so
    the parts' compact results join into the repeat's."""
    key: str
    schemes: list
    workload: str
    params: dict = field(default_factory=dict)
    derive: Optional[Callable] = None
    separate: bool = False

    def spec(self):
        spec = {"schemes": [list(s) for s in self.schemes], "workload": self.workload,
                "params": self.params}
        if self.separate:
            spec["separate"] = True
        return spec

    def part(self, name):
        """The comparison of one scheme alone: what one part runs."""
        return Comparison(self.key, [s for s in self.schemes if s[0] == name], self.workload,
                          self.params)


@dataclass
class Experiment:
    """name: the command-line name. title: the section heading. how: what
    is measured and how, for the report. paper: the paper's numbers in
    words. comparisons(settings) -> [Comparison]. tables(summary) ->
    [Table], from the summary alone. report: whether the paper's report
    lists it before it is run (a demo is not a measurement to wait for)."""
    name: str
    title: str
    how: str
    paper: str
    comparisons: Callable
    tables: Callable
    report: bool = True
