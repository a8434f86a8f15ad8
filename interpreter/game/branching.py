"""Branching a piece of Python that draws: run it once per path of its draws.

A built-in action that offers reaction points is plain Python that, during play, draws
from the dice in the middle of its work (a move offers one at every hex it enters; at
each, the reactions run, rolling their own dice, and the move goes on in what they
left).  Exact odds cannot stop a Python function half-way and continue it once per
outcome, so they *replay* it: the function runs from the start on a fresh copy of its
state; at the first draw that has more than one outcome it is abandoned (`Fork`), and
run again once per outcome, that draw now answered by the path.  Each run that reaches
its end is one branch, with the probability of its path.  The function must be
deterministic apart from its draws (it reads only the world and the draws).  A path is
as long as the function's branching draws, so the runs number the product of their
outcomes: the caller's state limit applies to them (`MAX_BRANCHES`)."""
from __future__ import annotations

from fractions import Fraction

from ..errors import LimitError
from ..limits import MAX_BRANCHES


class Fork(Exception):
    """A draw with several outcomes was reached that the path does not answer."""

    def __init__(self, options: list):
        super().__init__("fork")
        self.options = options   # [(probability, outcome)]


class Path:
    """The answers of one replay, draw by draw."""

    __slots__ = ("answers", "at")

    def __init__(self, answers: list):
        self.answers, self.at = answers, 0

    def draw(self, options: list):
        """The outcome of the next draw among `options` [(probability, outcome)]: the
        path's answer, the only outcome, or a `Fork` to be replayed once per outcome."""
        if self.at < len(self.answers):
            self.at += 1
            return self.answers[self.at - 1][1]
        if len(options) == 1:
            self.answers.append(options[0])
            self.at += 1
            return options[0][1]
        raise Fork(options)

    @property
    def probability(self) -> Fraction:
        p = Fraction(1)
        for q, _ in self.answers:
            p *= q
        return p


def replayed(run, loc=None) -> list:
    """[(path, result)] for every way `run(path)` can end, depth first in the order of
    the draws' outcomes; `run` starts from a fresh state each time."""
    ends, todo, runs = [], [[]], 0
    while todo:
        answers = todo.pop()
        runs += 1
        if runs > MAX_BRANCHES:
            raise LimitError(f"exact odds would replay this more than {MAX_BRANCHES:,} times "
                             f"(every combination of the outcomes drawn inside it)", loc,
                             hint="use `rulecraft simulate` for this")
        path = Path(list(answers))
        try:
            result = run(path)
        except Fork as fork:
            todo.extend(answers + [option] for option in reversed(fork.options))
            continue
        ends.append((path, result))
    return ends
