"""Room on Python's own stack for an exact enumeration, so that its calls do not make
the interpreter take and give back memory from the system at every branch.

Since 3.11, CPython keeps its frames on a stack made of chunks (16 KiB each unless a
frame needs more), each mapped from the system (`mmap`) when a call does not fit in the
chunk in use and unmapped as soon as the call that began it returns.  An exact
enumeration recurses through steps, calls and expressions, and its innermost work goes
up and down the same few dozen frames hundreds of thousands of times: where a chunk's
end falls among them, every pass across it maps a chunk, faults its first page in and
unmaps it again.  Measured (benchmarks/README.md, refuse4): the refusal of `odds-game
mech-d20` mapped and unmapped 57,533 chunks (strace), and took 0.89 s of CPU where the
same work in room took 0.70 s.  CPython's own remedy (one chunk kept per thread,
python/cpython#142183, merged for 3.14 in 2026) does not reach 3.11.

So an enumeration runs from a frame made large on purpose (`in_room`): its code claims
ROOM_SLOTS slots of evaluation stack it never uses, so no chunk in use can hold it and
it begins one of its own, sized for it and a thousand slots more to the next power of
two (128 KiB); the enumeration's frames then have the rest of that chunk (about 72 KiB,
where mech-d20's busiest work needs between 16 and 40 KiB) before the next end.  The
frame lives as long as the enumeration, so its chunk is mapped once.  The unused slots
are address space only: the interpreter never writes a frame's evaluation stack beyond
what its code pushes, and a page never written costs no memory.  On a Python whose
frames are objects of their own (3.10) or whose stack keeps a chunk for the next call
(CPython's remedy), this is one larger frame, once per enumeration, and nothing else.
"""
from __future__ import annotations

__all__ = ["in_room"]

ROOM_SLOTS = 7300   # the big frame's evaluation stack, in slots of a pointer each


def _through(work, args):
    return work(*args)


_through.__code__ = _through.__code__.replace(co_stacksize=ROOM_SLOTS)


def in_room(work, *args):
    """`work(*args)`, from a frame beginning a stack chunk of its own (see the module)."""
    return _through(work, args)
